"""Browsing the catalog: search over names, aliases and descriptions with the same ranker Ask uses, and a
table of the role's metrics with what is in effect today. Everything reads through the role's view."""
from __future__ import annotations

from datetime import date, datetime

from pydantic import BaseModel

from core.catalog.access import Visible
from core.catalog.entities import match_entities, rank, semantic_entities
from core.resolve.freshness import source_freshness
from core.resolve.lineage import upstream
from core.resolve.versions import backing_model, governing_versions, in_effect, version_name
from core.retrieve.search import Searcher

_WORST = {"error": 0, "warn": 1, "unknown": 2, "pass": 3}
_STANDING = {"authoritative": "approved", "non_authoritative": "not approved", "untrusted": "untrusted"}  # plain words


METRIC_PRIOR = 0.12  # what a described phrase gains for being a metric (the Catalog is searched for metrics first)
DESCRIBED_MIN = 0.3  # fused meaning score below which a described match is noise


def search(view: Visible, text: str, searcher: Searcher | None = None, limit: int = 10) -> list[str]:
    """Entity ids, best first: names and aliases written in the text (as Ask matches them), then words in
    names (BM25), then meaning (hybrid search over names, aliases and descriptions) when the index is loaded.
    When the text names nothing, meaning comes before words in names (a description, not a name)."""
    text = text.strip()
    if not text:
        return []
    matches, _ = match_entities(text, view.entities, view.phrases)
    named = list(dict.fromkeys(m.entity_id for m in matches))
    out = rank(view.bm25_scores(text, named), view.entities, named) if len(named) > 1 else named
    lexical = [e for e, score in sorted(view.bm25_scores(text, list(view.entities)).items(), key=lambda t: -t[1])
               if score > 0]
    described: list[str] = []
    if searcher is not None and searcher.available:
        ranked = semantic_entities(searcher, text, searcher.view_filter(view), view.entities)
        # A phrase that names nothing describes something ("money we kept after reversals"): its meaning
        # (vector and words fused) ranks, and a metric comes before the tables under it, which share its words.
        scored = [(e, combined + (METRIC_PRIOR if view.entities[e].role == "metric" else 0.0))
                  for e, combined, _ in ranked if combined >= DESCRIBED_MIN]
        described = [e for e, _ in sorted(scored, key=lambda t: -t[1])]
    if not named:
        out += described
    out += [e for e in lexical if e not in out]
    out += [e for e in described if e not in out]
    lowered = text.lower()
    out += [e for e, ent in view.entities.items() if e not in out and lowered in ent.label.lower()]
    return [e for e in out if view.entities[e].is_topic][:limit]


class MetricRow(BaseModel):
    entity_id: str
    metric: str
    owner: str
    status: str
    in_effect_today: str
    versions: int
    freshness: str


def metric_rows(view: Visible, at: datetime, only: set[str] | None = None) -> list[MetricRow]:
    """One row per visible metric (of `only`, when given): owner and version of what governs today, and
    the worst freshness of the raw sources under it."""
    today = at.date()
    rows = []
    for entity_id, ent in sorted(view.entities.items()):
        if ent.role != "metric" or (only is not None and entity_id not in only):
            continue
        objs = view.entity_objects(entity_id)
        versions = governing_versions(objs, "metric")
        now = in_effect(versions, today)
        drafts = [o for o in objs if o.lifecycle.value == "draft"]
        if not versions:
            status = "no approved definition"
        elif len(now) > 1:
            status = "overlap: needs review"
        elif not now:
            status = "none in effect today"
        else:
            status = "approved" + (f", {len(drafts)} draft(s) pending" if drafts else "")
        fresh = "—"
        if len(now) == 1:
            model, _ = backing_model(now[0], today, view)
            lin = upstream(view, [now[0].evidence_id] + ([model.evidence_id] if model else []), today)
            found = [f for f in (source_freshness(s, view.freshness_objects(s), at, today) for s in lin.raw_sources) if f]
            if found:
                fresh = min((f.status for f in found), key=lambda s: _WORST[s])
        owner = (now or versions or objs)[0].owner or "—"
        rows.append(MetricRow(entity_id=entity_id, metric=ent.label, owner=owner, status=status,
                              in_effect_today=", ".join(version_name(v) for v in now) or "—",
                              versions=len(versions), freshness=fresh))
    return rows


def owner_line(objs, role: str) -> tuple[str, list[str]]:
    """(the metric's owner from its approved versions, draft authors listed apart)."""
    owners = sorted({o.owner for o in governing_versions(objs, role) if o.owner})
    drafts = sorted({o.owner for o in objs if o.lifecycle.value == "draft" and o.owner} - set(owners))
    return ", ".join(owners) or "—", drafts


def timeline_rows(objs, horizon: date) -> list[dict]:
    rows = []
    for o in objs:
        if not (o.valid_from or o.valid_to):
            continue
        status = "governs" if o.governs else ("draft" if o.lifecycle.value == "draft" else o.lifecycle.value)
        rows.append({"version": f"{version_name(o)} · {o.lifecycle.value}", "evidence": o.evidence_id,
                     "start": (o.valid_from or date(2000, 1, 1)).isoformat(), "end": (o.valid_to or horizon).isoformat(),
                     "status": status, "governs": o.governs})
    return rows


class QueueRow(BaseModel):
    """One object of a steward's review queue, as the Catalog lists it: what it is, why it is in the queue,
    and who may see it (the steward reads each one read-only, in its steward view)."""
    evidence_id: str
    entity_id: str
    title: str
    kind: str
    standing: str
    problem: str
    owner: str
    may_see: str


def queue_rows(store, scope, today: date) -> list[QueueRow]:
    """Every object a steward may open read-only (exactly its review queue), one row each."""
    from core.answer.intents.review import CATEGORIES, review_queue  # the queue's own module decides what is in it

    problems: dict[str, list[str]] = {}
    for item in review_queue(store.all_evidence_for_review(), today):
        for eid in item.evidence_ids:
            problems.setdefault(eid, []).append(CATEGORIES[item.category])
    rows = []
    for o in sorted(scope.objects(store), key=lambda o: (o.entity_id, o.evidence_id)):
        rows.append(QueueRow(evidence_id=o.evidence_id, entity_id=o.entity_id, title=o.title,
                             kind=o.kind.value.replace("_", " "),
                             standing=f"{_STANDING.get(o.authority.value, o.authority.value)}, {o.lifecycle.value}",
                             problem="; ".join(dict.fromkeys(problems.get(o.evidence_id, []))), owner=o.owner or "—",
                             may_see=", ".join(o.acl) or "nobody (empty ACL)"))
    return rows
