"""The governance review queue: what a reviewer should look at, found by rules over the catalog."""
from __future__ import annotations

import csv
import io
import re
from datetime import date

from pydantic import BaseModel, Field

from core.catalog.access import visible
from core.catalog.entities import build_entity_index
from core.catalog.envelope import Behavior, Envelope, IndexStatus, ReviewAnswer, ReviewFinding
from core.catalog.evidence import Authority, Evidence, Lifecycle
from core.catalog.text import normalize
from core.read.intents.review_question import (
    ASKED,
    KIND_WORDS,
)
from core.resolve.versions import (
    governing_versions,
    interval_text,
    overlapping,
    retrievable,
    version_name,
)

INSTRUCTION = re.compile(r"\b(system:|ignore (the|all|any)|always answer|do not mention|disregard|you must)\b", re.I)


class ReviewItem(BaseModel):
    category: str  # overlap | draft_conflict | superseded_surfaced | untrusted_instructions | empty_acl | stale_index
    title: str
    detail: str  # what is wrong
    owner: str | None = None
    evidence_ids: list[str] = Field(default_factory=list)
    ask_question: str | None = None
    ask_date: date | None = None
    since: date | None = None  # when the problem started (an overlap's first day, a page's recording)
    action: str = ""  # what the reviewer should do
    entity_id: str | None = None


def _recorded(e: Evidence) -> date | None:
    return e.recorded_at.date() if e.recorded_at else e.valid_from


CATEGORIES = {
    "overlap": "Overlapping authoritative versions",
    "draft_conflict": "Drafts that contradict a governing version",
    "superseded_surfaced": "Superseded pages still retrievable",
    "untrusted_instructions": "Untrusted notes carrying instructions",
    "empty_acl": "Objects nobody can see (empty ACL)",
    "stale_index": "Stale index entries",
}


def review_queue(evidence: list[Evidence], today: date, index: IndexStatus | None = None) -> list[ReviewItem]:
    entities = build_entity_index([(e.evidence_id, e.entity_id, e.kind.value, e.title, e.authority.value,
                                    e.lifecycle.value, e.aliases, e.label) for e in evidence])
    by_entity: dict[str, list[Evidence]] = {}
    for e in evidence:
        by_entity.setdefault(e.entity_id, []).append(e)
    items: list[ReviewItem] = []
    for entity_id, objs in sorted(by_entity.items()):
        ent = entities[entity_id]
        versions = governing_versions(objs, ent.role)
        for a, b in overlapping(versions):
            start = max(d for d in (a.valid_from, b.valid_from, date.min) if d)
            items.append(ReviewItem(
                category="overlap", title=f"{ent.label}: {version_name(a)} and {version_name(b)} overlap",
                detail=f"{a.evidence_id} is in effect {interval_text(a)}; {b.evidence_id} {interval_text(b)}.",
                action="Close one interval or retire a version.", since=start, entity_id=entity_id,
                owner=a.owner or b.owner, evidence_ids=[a.evidence_id, b.evidence_id],
                ask_question=f"What is {ent.label.lower()}?", ask_date=start))
        for d in objs:
            if d.lifecycle is Lifecycle.draft and retrievable(d, today):
                clash = [v for v in versions if v.overlaps(d.valid_from, d.valid_to)]
                if clash:
                    when = max(x for x in (d.valid_from, clash[0].valid_from, date.min) if x)
                    items.append(ReviewItem(
                        category="draft_conflict", title=f"{ent.label}: draft '{d.title}'",
                        detail=f"Unapproved draft covering dates where {', '.join(v.evidence_id for v in clash)} "
                               "governs.", action="Approve it as a new version or withdraw it.",
                        since=_recorded(d) or when, entity_id=entity_id,
                        owner=d.owner, evidence_ids=[d.evidence_id] + [v.evidence_id for v in clash],
                        ask_question=f"What is {ent.label.lower()}?", ask_date=when))
    ids = {e.evidence_id for e in evidence}
    for e in evidence:
        if e.lifecycle is Lifecycle.superseded and not e.governs and retrievable(e, today):
            # The reviewer compares the page with what replaced it: both are the item's objects.
            replaced_by = [e.superseded_by] if e.superseded_by in ids else []
            items.append(ReviewItem(
                category="superseded_surfaced", title=f"'{e.title}' is superseded but still retrievable",
                detail=f"Superseded{' by ' + e.superseded_by if e.superseded_by else ''}, but search still "
                       "finds it.", action="Set lifecycle 'retired' or an expires_at date so search stops surfacing it.",
                since=e.valid_to or _recorded(e), entity_id=e.entity_id,
                owner=e.owner, evidence_ids=[e.evidence_id, *replaced_by],
                ask_question=f"The {e.title} says... is that current?", ask_date=today))
        if e.authority is Authority.untrusted and INSTRUCTION.search(e.text):
            items.append(ReviewItem(
                category="untrusted_instructions", title=f"'{e.title}' contains instructions",
                detail="Untrusted content with imperative instructions (AsOf treats it as data only).",
                action="Remove it from the catalog, or mark it retired.", since=_recorded(e), entity_id=e.entity_id,
                owner=e.owner, evidence_ids=[e.evidence_id]))
        if not e.acl:
            items.append(ReviewItem(category="empty_acl", title=f"'{e.title}' has an empty ACL",
                                    detail="No role can see it.", action="Add the roles that need it, or retire it.",
                                    since=_recorded(e), entity_id=e.entity_id, owner=e.owner,
                                    evidence_ids=[e.evidence_id]))
    if index is not None and index.status == "stale":
        for ids, why in ((index.stale_content, "indexed text is older than the catalog (re-read at query time)"),
                         (index.stale_acl, "indexed permissions differ (the live catalog is enforced)"),
                         (index.missing, "not in the search index yet")):
            for eid in ids:
                items.append(ReviewItem(category="stale_index", title=f"{eid}: stale index entry", detail=why,
                                        action="Run the ingest again to refresh the search index.",
                                        evidence_ids=[eid]))
    return items


class StewardScope(BaseModel):
    """What a steward role may open read-only beyond its own ACL: exactly the objects in its review queue,
    granted to its view by evidence id (core/answer/steward.py), never anything around them."""
    role: str
    evidence_ids: set[str] = Field(default_factory=set)

    def objects(self, store) -> list[Evidence]:
        """The queue objects as the steward's view reads them (references outside the view redacted)."""
        return visible(store, self.role, frozenset(self.evidence_ids)).by_ids(sorted(self.evidence_ids))


def steward_scope(store, role: str, today: date) -> StewardScope | None:
    """None unless `role` is a steward. The ids come from the queue items alone."""
    if not any(r.name == role and r.steward for r in store.roles()):
        return None
    return StewardScope(role=role, evidence_ids={i for item in review_queue(store.all_evidence_for_review(), today)
                                                 for i in item.evidence_ids})


def queue_answers(run) -> bool:
    """Whether the review queue answers a question about its kinds, or the definition flow does: the one rule
    (core/answer/intents/route.py asks it). The definition flow answers
      - a question whether anything disagrees (core/read/intents/disagreement.py) that names a metric, model or source the
        role can see, however worded ("which drafts disagree with churn?", "any drafts that disagree about net
        revenue?", "churn drafts in conflict?"): yes or no for it on the date, naming what the role can see that
        disagrees and the version that governs (core/resolve/disagreement.py), which the queue, today's and over
        every entity, would not say;
      - a question that asks what something means or names a reporting date (`Reading.asks_definition_beside_queue`, core/read/intents/review_question.py).
    The queue answers the rest: no subject ("which drafts contradict a governing version?", "what's in my review
    queue?"), or words no visible name is called ("any drafts that disagree about gross margin?"), which it answers
    "None for ..." in the words a made-up name gets. Those stay here because the definition flow, finding no name,
    would search on "drafts that disagree" and could answer about some other metric that has a draft."""
    if not run.reading.review_categories or run.reading.asks_definition_beside_queue(run.view):
        return False
    if "disagreement" not in run.intent.aspects:
        return True
    return not run.reading.review_subjects(run.view, near=bool(run.reading.review_subject))


def answer(run) -> Envelope:
    """The review queue over the asking view (a role's own objects; a steward's plus its queue), filtered to
    the kinds the question names and, when its other words name items, to those items."""
    categories = run.reading.review_categories
    day = run.at.date()
    index = run.searcher.status_for(run.view.role, run.view.grants) if run.searcher else None
    items = [i for i in review_queue(run.view.all(), day, index) if i.category in categories]
    said = run.reading.review_subject
    subjects = run.reading.review_subjects(run.view, near=bool(said))
    if subjects:
        # "what's in my review queue about net revenue?": that metric's items only, none when it has none (never
        # another metric's item as a "Yes"). Whether its drafts disagree is never asked here (`queue_answers`).
        items = [i for i in items if i.entity_id in subjects]
    elif said:
        # "any drafts that disagree about gross margin?": words that name no visible metric, model or source name items
        # by their titles ("the 2023 handbook"), or nothing: never the rest of the queue as a "Yes" about another
        # subject. Only the asking view's names and titles are read, so a hidden name reads as a made-up one.
        items = [i for i in items if {t.norm for t in said} <= {normalize(w) for w in _WORD.findall(i.title.lower())}]
    elif named := [w for w in run.reading.content_words() if w not in KIND_WORDS]:
        # No subject, only words for kinds of pages ("is the legacy wiki page still retrievable?"): they may narrow
        # the items by their titles; words no title holds narrow nothing.
        narrowed = [i for i in items if all(w in _WORD.findall(i.title.lower()) for w in named)]
        items = narrowed or items
    found = [ReviewFinding(category=i.category, title=i.title, detail=i.detail, action=i.action,
                           evidence_ids=i.evidence_ids) for i in items]
    kinds = "open items" if len(categories) == len(ASKED) else " or ".join(CATEGORIES[c].lower() for c in categories)
    words = " ".join(run.reading.as_written(said))
    about = (" for " + ", ".join(sorted(run.view.entities[e].label for e in subjects)) if subjects
             else f" for “{words}”" if said else "")
    if found:
        first = "; ".join(f.title for f in found[:3]) + (f"; and {len(found) - 3} more" if len(found) > 3 else "")
        # Yes leads only an answer to a yes/no question ("anything to review?"); "what's waiting for my review?" asks what.
        lead = (f"Yes: {len(found)} in" if run.reading.yes_no else
                f"{len(found)} {'item waits' if len(found) == 1 else 'items wait'} in")
        verdict = f"{lead} the review queue you can see ({kinds}{about}): {first}."
    elif said and not subjects:
        # What was looked for comes first: a headline cut at 25 words still says it.
        verdict = (f"None for “{words}”: no metric, model or source you can see is called that, and no item in the "
                   f"review queue you can see names it ({kinds}) as of {day.isoformat()}.")
    elif len(categories) == len(ASKED) and not about:
        # "what's waiting for my review?" of a role whose queue is empty: said of what it can see, nothing more.
        verdict = (f"Nothing is waiting for your role: the review queue you can see has no open items as of "
                   f"{day.isoformat()}.")
    else:
        verdict = f"None: the review queue you can see has no {kinds}{about} as of {day.isoformat()}."
    named = ", ".join(sorted(subjects)) or "no visible metric, model or source by that name"
    run.step("review question", f"asked about {', '.join(categories)}" + (f" for “{words}” ({named})" if said else "")
             + f": {len(found)} queue item(s) over the {run.view.count} objects visible")
    return run.envelope(Behavior.answer, verdict, intent="review",
                        review=ReviewAnswer(categories=categories, as_of=day, items=found,
                                            subject=[t.norm for t in said]))


_WORD = re.compile(r"[a-z0-9]+")


def queue_csv(items: list[ReviewItem], labels: dict[str, str] = CATEGORIES) -> str:
    """The queue as CSV for a ticket tracker or a spreadsheet: one row per item."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["kind", "problem", "detail", "since", "owner", "what to do", "evidence"])
    for i in items:
        writer.writerow([labels[i.category], i.title, i.detail, i.since or "", i.owner or "", i.action,
                         " ".join(i.evidence_ids)])
    return out.getvalue()
