"""Audit replay: ask a recorded question again at the recorded catalog state and at today's, and say why
the answers differ (a new version, changed content, a revoked permission, a freshness change...).

The recorded state is rebuilt from the catalog's history (core/catalog/history.py) with the permissions that were
in force when the answer was given, so the replay reproduces the recorded hash. An answer that used the
search index can only be replayed exactly while its catalog revision is current (the index keeps only
current content); after that its governing part (core/audit.governed_hash) is compared instead.
Both replays use the recorded evaluation time, so a freshness difference comes from the catalog (a new load
observation or policy), not from the clock.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import date
from pathlib import Path

from core.answer.ask import Question, ask
from core.catalog import history
from core.catalog.envelope import Envelope
from core.catalog.store import Store
from core.compute.engine import ValueEngine
from core.read.dates import recorded
from core.read.dates.written import parse_period
from core.serve.audit import NOT_ANSWERED, AuditRecord, envelope_hash, find, governed_hash, verify


@dataclass
class Replay:
    record: AuditRecord
    then: Envelope | None
    today: Envelope
    reproduced: bool
    compared: str  # "envelope" | "governed" | "none"
    how: str  # how the recorded state was rebuilt
    reasons: list[str] = field(default_factory=list)
    problem: str | None = None
    # The record's place in the log's hash chain (core.serve.audit.verify): "verified", "unchained" (written
    # before the chain) or why it failed. A replay of a record that failed says so beside REPRODUCED.
    verification: str = "verified"

    @property
    def verified(self) -> bool:
        return not self.verification.startswith(("FAILED", "not verified"))


def question_of(rec: AuditRecord) -> Question:
    """The Question a record's inputs describe."""
    i = rec.inputs
    period = i.get("period")
    if isinstance(period, str):
        period = parse_period(period)
    elif period:
        period = (date.fromisoformat(str(period[0])), date.fromisoformat(str(period[1])))
    return Question(role=rec.role, text=rec.question,
                    day=date.fromisoformat(i["date"]) if i.get("date") else None, period=period,
                    at=recorded.end_of(i["at"]) if i.get("at") else None, entity=i.get("entity"),
                    date_from_form=bool(i.get("date_from_form")),
                    recorded_at=recorded.end_of(i["recorded_at"]) if i.get("recorded_at") else None,
                    grants=frozenset(i.get("grants") or ()), carried=i.get("carried"),
                    asks_value=bool(i.get("asks_value")), value_grain=i.get("value_grain"),
                    compare=tuple((date.fromisoformat(str(a)), date.fromisoformat(str(b)))
                                  for a, b in i["compare"]) if i.get("compare") else None,
                    compare_versions=tuple(i["compare_versions"]) if i.get("compare_versions") else None,
                    asks_freshness=bool(i.get("asks_freshness")))


def _at_recorded(store: Store, rec: AuditRecord, q: Question, searcher, engine=None) -> tuple[Envelope | None, str, str]:
    current = history.current_ingest(store)
    if rec.recorded_at is None and rec.ingest == current:
        use = searcher if rec.searched else None
        env = ask(store, replace(q, recorded_at=None), now=rec.now, searcher=use, engine=engine)
        how = f"ingest {current} is still the current catalog"
        if rec.searched:
            how += "; with the search index" if use else "; the search index is not available, so catalog-only"
        return env, how, "envelope" if (use is not None) == rec.searched else "governed"
    if rec.recorded_at is not None and rec.ingest is None:  # asked about a time before the first ingest
        env = ask(store, q, now=rec.now, engine=engine)
        return env, "nothing was recorded by then (history only grows, so it still isn't)", "envelope"
    known = {i.number: i for i in history.ingests(store)}
    if rec.ingest not in known:
        return None, (f"the catalog's history holds no ingest {rec.ingest} (the database was replaced without its "
                      "history)"), "none"
    past = history.past_store(store, rec.ingest, rec.acl_ingest)
    env = ask(past, replace(q, recorded_at=None), now=rec.now, engine=engine)
    how = (f"read from history: content of ingest {rec.ingest} (recorded {known[rec.ingest].ingested_at:%Y-%m-%d %H:%M:%S}), permissions "
           f"of ingest {rec.acl_ingest}")
    if rec.searched:
        how += ("; the recorded answer also used the search index, which keeps only current content, so its "
                "governing part is compared")
        return env, how, "governed"
    return env, how, "envelope"


def replay(db_path: str | Path, record_id: str, searcher=None, store: Store | None = None,
           engine: ValueEngine | None = None) -> Replay:
    """`engine` computes the values of a record that has them again (its SQL and result hashes are in the
    envelope hash, so a value that changed does not reproduce)."""
    rec = find(db_path, record_id)
    if rec.behavior in NOT_ANSWERED or rec.now is None:
        raise ValueError(f"audit record {rec.id} is a {rec.behavior} call ({rec.message or 'no message'}): there is "
                         "no answer to replay")
    if not rec.question.strip():
        raise ValueError(f"audit record {rec.id} holds no question to ask again (source {rec.source}; inputs "
                         f"{', '.join(sorted(rec.inputs))})")
    store = store or Store(db_path)
    q = question_of(rec)
    then, how, compared = _at_recorded(store, rec, q, searcher, engine)
    problem = None
    reproduced = False
    if then is not None:
        if compared == "envelope":
            reproduced = envelope_hash(then) == rec.envelope_hash
        else:
            reproduced = governed_hash(then) == rec.governed_hash
        if not reproduced:
            problem = ("the replay at the recorded state does not reproduce the recorded hash (was the database "
                       "replaced without its history?)")
    else:
        problem = how
    today = ask(store, replace(q, recorded_at=None), now=rec.now, searcher=searcher if rec.searched else None,
                engine=engine)
    reasons = explain_changes(store, rec, then, today)
    chain = verify(db_path)
    status = chain.status.get(rec.id, "FAILED verification: the record is not in the log's chain")
    if status == "verified" and not chain.key:
        status = "verified, as a plain sha256 chain (no audit key is set, so a rewritten log would verify too)"
    return Replay(record=rec, then=then, today=today, reproduced=reproduced, compared=compared, how=how,
                  reasons=reasons, problem=problem, verification=status)


def _by_entity(env: Envelope) -> dict[str, list]:
    out: dict[str, list] = {}
    for s in env.selected:
        out.setdefault(s.entity_id, []).append(s)
    return out


def explain_changes(store: Store, rec: AuditRecord, then: Envelope | None, today: Envelope) -> list[str]:
    """Why today's answer differs from the recorded one, most important first."""
    out: list[str] = []
    base_ids = set(rec.governing_ids) if then is None else {s.evidence_id for s in then.selected}
    now_ids = {s.evidence_id for s in today.selected}
    if rec.behavior != today.behavior.value:
        out.append(f"behavior: {rec.behavior} then, {today.behavior.value} today")
    if then is not None and then.entity_id != today.entity_id:
        out.append(f"entity: {then.entity_id} then, {today.entity_id} today")
    shown_then = set(rec.evidence_ids)
    hidden_now = store.hidden_ids(rec.role, shown_then, frozenset(rec.inputs.get("grants") or ()))
    exists = {i for (i,) in store.con.execute(
        "SELECT evidence_id FROM evidence WHERE evidence_id = ANY(?::VARCHAR[])", [sorted(shown_then)]).fetchall()}
    revoked = sorted(i for i in hidden_now if i in exists)
    removed = sorted(i for i in shown_then if i not in exists)
    if revoked:
        out.append(f"revoked permission: role {rec.role} may no longer see {', '.join(revoked)}")
    if removed:
        out.append(f"removed from the catalog since: {', '.join(removed)}")
    if then is not None:
        dropped: list[str] = []
        old, new = _by_entity(then), _by_entity(today)
        for ent in sorted(set(old) | set(new)):
            a = {s.evidence_id: s for s in old.get(ent, [])}
            b = {s.evidence_id: s for s in new.get(ent, [])}
            for eid in sorted(set(a) & set(b)):
                if a[eid].content_hash != b[eid].content_hash:
                    line = f"changed content: {eid} was re-recorded with new content"
                    if a[eid].metric and b[eid].metric and a[eid].metric.formula != b[eid].metric.formula:
                        line += f" (formula {a[eid].metric.formula!r} -> {b[eid].metric.formula!r})"
                    elif a[eid].version != b[eid].version:
                        line += f" (version {a[eid].version} -> {b[eid].version})"
                    out.append(line)
            gone, came = sorted(set(a) - set(b)), sorted(set(b) - set(a))
            if gone and came:
                out.append(f"new version: {ent} is governed by {', '.join(came)} today (was {', '.join(gone)})")
            elif came:
                out.append(f"now governs: {', '.join(came)}")
            elif gone:
                dropped += [g for g in gone if g not in revoked and g not in removed]
        if dropped:
            out.append(f"no longer governs: {', '.join(dropped)}")
        fa = {f.source: f for f in then.freshness}
        fb = {f.source: f for f in today.freshness}
        for src in sorted(set(fa) | set(fb)):
            x, y = fa.get(src), fb.get(src)
            if x is None or y is None:
                out.append(f"freshness: {src} {'is no longer' if y is None else 'is now'} part of the answer")
            elif (x.status, x.loaded_at, x.warn_after_hours, x.error_after_hours) != (
                    y.status, y.loaded_at, y.warn_after_hours, y.error_after_hours):
                out.append(f"freshness change: {src} {x.status} then (last load {x.loaded_at}), {y.status} today "
                           f"(last load {y.loaded_at}; warn > {y.warn_after_hours} h, error > {y.error_after_hours} h)")
        ca, cb = {c.evidence_id for c in then.conflicts}, {c.evidence_id for c in today.conflicts}
        if ca != cb:
            out.append("conflicts: " + "; ".join(
                ([f"new {', '.join(sorted(cb - ca))}"] if cb - ca else [])
                + ([f"gone {', '.join(sorted(ca - cb))}"] if ca - cb else [])))
        ea = {(e.upstream, e.downstream) for e in then.lineage.edges}
        eb = {(e.upstream, e.downstream) for e in today.lineage.edges}
        if ea != eb:
            out.append(f"lineage: {len(eb - ea)} edge(s) added, {len(ea - eb)} removed")
    elif base_ids != now_ids:
        out.append(f"governing objects: {', '.join(sorted(base_ids)) or 'none'} then, "
                   f"{', '.join(sorted(now_ids)) or 'none'} today")
    if rec.catalog_revision != today.catalog_revision and not out:
        out.append(f"what role {rec.role} may see changed (revision {rec.catalog_revision} -> "
                   f"{today.catalog_revision}), but not in anything this answer uses")
    if not out and then is not None and envelope_hash(then) != envelope_hash(today):
        out.append("wording or supporting material differs; what governs is the same")
    return out


def format_report(r: Replay) -> str:
    rec = r.record
    lines = [f"audit record {rec.id}: {rec.source} at {rec.at.isoformat()}, role {rec.role}"
             + (f", principal {rec.principal}" if rec.principal else ""),
             f"  question: {rec.question}",
             f"  recorded: {rec.behavior} {rec.entity_id or ''} governs {', '.join(rec.governing_ids) or 'nothing'}"
             f"; catalog revision {rec.catalog_revision} (ingest {rec.ingest})"
             + (f", as recorded at {rec.recorded_at.isoformat()}" if rec.recorded_at else "")
             + f"; evaluated at {rec.now.isoformat()}",
             f"  audit log: {r.verification}",
             f"  at the recorded revision: {r.how}"]
    if r.then is not None:
        want = (rec.envelope_hash if r.compared == "envelope" else rec.governed_hash) or "none"
        got = envelope_hash(r.then) if r.compared == "envelope" else governed_hash(r.then)
        lines.append(f"    {'REPRODUCED' if r.reproduced else 'NOT REPRODUCED'} ({r.compared} hash "
                     f"{want[:23]}{'' if r.reproduced else ' != ' + got[:23]})"
                     + ("" if r.verified else " -- but this record did not pass audit log verification, so the "
                        "recorded values it reproduces cannot be trusted"))
    else:
        lines.append(f"    cannot replay: {r.problem}")
    t = r.today
    lines.append(f"  today (revision {t.catalog_revision}): {t.behavior.value} {t.entity_id or ''} governs "
                 f"{', '.join(s.evidence_id for s in t.selected) or 'nothing'}")
    if r.reasons:
        lines.append("  what changed and why:")
        lines += [f"    - {x}" for x in r.reasons]
    else:
        lines.append("  today's answer is the same as the recorded one")
    return "\n".join(lines)
