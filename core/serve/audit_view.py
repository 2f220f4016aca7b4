"""What one principal may read of the audit log: the Audit page's rows and replays, through the reader's view.

A record names the ids an answer showed its own role; a steward reading the log sees only the ids its own
view holds (its role's objects and its review queue), never an id, entity or formula outside it, and another
principal's question text only where the deployment's policy allows it (`ASOF_AUDIT_SHOW_QUESTIONS=1`; off by
default): `question_shown` is that rule, for every row, record, replay and search of the Audit page. Withheld ids
are left out without a count, as a not-found answer says nothing of what it did not show.
"""
from __future__ import annotations

from dataclasses import replace

from pydantic import BaseModel

from core.catalog.access import Visible
from core.serve.audit import AuditRecord
from core.serve.replay import Replay, format_report

WITHHELD = "(withheld: another principal's question)"


class AuditRow(BaseModel):
    id: str
    when: str
    role: str
    principal: str
    question: str
    behavior: str
    entity: str
    governs: str
    source: str
    ingest: int | None
    revision: str
    as_recorded: str
    index: str
    explanation: str


def _seen(view: Visible, ids: set[str]) -> set[str]:
    """Of these evidence or entity ids, those the reader's view holds."""
    ids = {i for i in ids if i}
    return {i for e in view.by_ids(sorted(ids)) for i in (e.evidence_id, e.entity_id)} & ids if ids else set()


def question_shown(rec: AuditRecord, reader: str | None, show_others: bool,
                   mine: frozenset[str] = frozenset()) -> bool:
    """Whether this reader may read the record's question: policy shows them all, or it is the signed-in
    principal's own, or one of `mine`, the record ids this session wrote (with nobody signed in, as in demo mode,
    no record names a principal, and the session is how a question is yours)."""
    return show_others or rec.id in mine or (reader is not None and rec.principal == reader)


def readable(rec: AuditRecord, view: Visible, reader: str | None, show_others: bool,
             mine: frozenset[str] = frozenset()) -> AuditRecord:
    """The record as this reader may read it: ids outside its view dropped, the question (and the form
    inputs that repeat it) withheld unless `question_shown`."""
    seen = _seen(view, {rec.entity_id or "", *rec.governing_ids, *rec.evidence_ids})
    shown = question_shown(rec, reader, show_others, mine)
    inputs = {k: v for k, v in rec.inputs.items() if k not in ("grants", "entity")}
    if rec.inputs.get("entity") in seen:
        inputs["entity"] = rec.inputs["entity"]
    if not shown:
        inputs = {k: v for k, v in inputs.items() if k not in ("question", "text")}
    return rec.model_copy(update={
        "question": rec.question if shown else WITHHELD, "inputs": inputs,
        # a refusal's message can repeat the caller's input
        "message": rec.message if shown or rec.message is None else WITHHELD,
        "entity_id": rec.entity_id if rec.entity_id in seen else None,
        "governing_ids": [i for i in rec.governing_ids if i in seen],
        "evidence_ids": [i for i in rec.evidence_ids if i in seen]})


def rows(records: list[AuditRecord], view: Visible, reader: str | None, show_others: bool,
         mine: frozenset[str] = frozenset()) -> list[AuditRow]:
    out = []
    for rec in records:
        r = readable(rec, view, reader, show_others, mine)
        out.append(AuditRow(id=r.id, when=r.at.strftime("%Y-%m-%d %H:%M:%S"), role=r.role, principal=r.principal or "",
                            question=r.question, behavior=r.behavior, entity=r.entity_id or "",
                            governs=", ".join(r.governing_ids), source=r.source, ingest=r.ingest,
                            revision=r.catalog_revision or "",
                            as_recorded=r.recorded_at.isoformat() if r.recorded_at else "", index=r.index,
                            explanation=r.explanation_model or ""))
    return out


def report(result: Replay, view: Visible, reader: str | None, show_others: bool,
           mine: frozenset[str] = frozenset()) -> tuple[list[str], str]:
    """(the reasons, the report text) of a replay, as this reader may read them. A reason naming anything
    outside the reader's view (an id, and with it a formula or a version) is left out."""
    rec, then, today = result.record, result.then, result.today
    named = {rec.entity_id or "", *rec.governing_ids, *rec.evidence_ids}
    for env in (e for e in (then, today) if e is not None):
        named |= env.evidence_ids() | {env.entity_id or ""}
    named.discard("")
    hidden = named - _seen(view, named)
    reasons = [x for x in result.reasons if not any(h in x for h in hidden)]

    def cut(env):
        if env is None:
            return None
        return env.model_copy(update={
            "entity_id": None if env.entity_id in hidden else env.entity_id,
            "selected": [s for s in env.selected if s.evidence_id not in hidden]})

    # `then` is used only for its hash, which names nothing.
    shown = replace(result, record=readable(rec, view, reader, show_others, mine), today=cut(today), reasons=reasons)
    return reasons, format_report(shown)
