"""The audit log: one append-only record per answer, beside the catalog database.

`<db>.audit.jsonl` sits in the database's folder, not inside the database: the catalog file is replaced
whole on every ingest and opened read-only by readers. A record holds what is needed to replay the answer
(role, question, form inputs, the catalog state it was read from) and what identifies it (the envelope's
hash, behavior, governing ids), never text: the envelope only holds what the role could see, and the log
keeps only its ids and hashes, so a log reader learns no evidence text at all.

Appends from many threads (the app) and processes (CLI, MCP server) never interleave: one write() of one
line on an O_APPEND descriptor, under a process lock and an exclusive file lock.
"""
from __future__ import annotations

import fcntl
import hashlib
import json
import os
import secrets
import threading
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field

from core.catalog.envelope import Envelope

SOURCES = ("cli", "app", "mcp")
# Bookkeeping that says when and how an envelope was produced, not what it answers; left out of its hash so
# a replay that reads the same catalog state reproduces it exactly.
UNHASHED = {"explanation", "recorded"}
_LOCK = threading.Lock()


def audit_path(db_path: str | Path) -> Path:
    return Path(str(db_path) + ".audit.jsonl")


def _digest(data) -> str:
    return "sha256:" + hashlib.sha256(json.dumps(data, sort_keys=True, default=str).encode()).hexdigest()


def envelope_hash(env: Envelope) -> str:
    """Hash of the answer: everything in the envelope except the explanation and the transaction-time note."""
    return _digest(env.model_dump(mode="json", exclude=UNHASHED))


def governed_hash(env: Envelope) -> str:
    """Hash of what governs: behavior, entity, dates, governing objects (with content), lineage, freshness,
    splits and clarification options. Search-found material (supporting hits, conflicts, index state) is
    left out, so an answer that used the search index can still be checked against a catalog-only replay."""
    return _digest({
        "behavior": env.behavior.value, "role": env.role, "entity": env.entity_id,
        "day": env.reporting_date, "period": [env.period_start, env.period_end], "at": env.evaluated_at,
        "selected": [(s.evidence_id, s.content_hash, s.role_in_answer) for s in env.selected],
        "lineage": env.lineage.model_dump(mode="json"),
        "freshness": [f.model_dump(mode="json") for f in env.freshness],
        "splits": [(s.start, s.end, s.behavior.value, [x.evidence_id for x in s.selected]) for s in env.splits],
        "clarify": [o.model_dump(mode="json") for o in env.clarify.options] if env.clarify else None,
        "revision": env.catalog_revision})


class AuditRecord(BaseModel):
    id: str
    at: datetime  # when the answer was given
    source: Literal["cli", "app", "mcp"]
    principal: str | None = None
    role: str
    question: str
    inputs: dict = Field(default_factory=dict)  # form inputs as given (date, period, at, entity, recorded_at ...)
    now: datetime  # the evaluation time used: replay asks with it
    catalog_revision: str  # the revision answered from, as the role sees it (the envelope's)
    ingest: int | None = None  # the ingest whose content answered
    acl_ingest: int | None = None  # the ingest whose permissions applied
    current_revision: str | None = None  # today's revision (as the role sees it) when the answer was given
    recorded_at: datetime | None = None  # set when the question was asked "as recorded at"
    index: str  # current | stale | absent | not used
    searched: bool  # the answer used the search index (semantic path, supporting hits)
    envelope_hash: str
    governed_hash: str
    behavior: str
    entity_id: str | None = None
    governing_ids: list[str] = Field(default_factory=list)
    evidence_ids: list[str] = Field(default_factory=list)  # every id the envelope shows (all visible to the role)
    explanation_model: str | None = None


def _new_id(now: datetime) -> str:
    # Sortable by time, unique across processes without coordination.
    return f"{now:%Y%m%dT%H%M%S}-{secrets.token_hex(4)}"


def _jsonable(value):
    if isinstance(value, (date, datetime)):
        return value.isoformat()
    if isinstance(value, tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, list):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    return value


def make_record(*, envelope: Envelope, role: str, principal: str | None, source: str, inputs: dict,
                explanation_model: str | None = None, now: datetime | None = None) -> AuditRecord:
    if source not in SOURCES:
        raise ValueError(f"audit source must be one of {', '.join(SOURCES)}, not {source!r}")
    if role != envelope.role:
        raise ValueError(f"audit record for role {role!r} but the envelope answered role {envelope.role!r}")
    inputs = _jsonable(dict(inputs))
    question = str(inputs.get("question") or inputs.get("text") or "")
    at = now or datetime.now(timezone.utc)
    state = envelope.recorded
    if explanation_model is None and envelope.explanation is not None:
        explanation_model = envelope.explanation.model
    return AuditRecord(
        id=_new_id(at), at=at, source=source, principal=principal, role=role, question=question, inputs=inputs,
        now=envelope.evaluated_at, catalog_revision=envelope.catalog_revision,
        ingest=state.ingest if state else None, acl_ingest=state.acl_ingest if state else None,
        current_revision=state.current_revision if state else None,
        recorded_at=state.recorded_at if state else None,
        index=envelope.index.status if envelope.index else "not used", searched=envelope.index is not None,
        envelope_hash=envelope_hash(envelope), governed_hash=governed_hash(envelope),
        behavior=envelope.behavior.value, entity_id=envelope.entity_id,
        governing_ids=[s.evidence_id for s in envelope.selected],
        evidence_ids=sorted(envelope.evidence_ids()), explanation_model=explanation_model)


def append(db_path: str | Path, rec: AuditRecord) -> None:
    """Append one record as one line. O_APPEND makes each write land at the end; the locks keep a line whole
    even when threads and processes append at once."""
    path = audit_path(db_path)
    path.parent.mkdir(parents=True, exist_ok=True)
    line = (rec.model_dump_json() + "\n").encode("utf-8")
    with _LOCK:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)  # owner only, like the database
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            try:
                written = os.write(fd, line)
                if written != len(line):  # a short write would leave a torn line; fail loudly
                    raise OSError(f"{path}: short write ({written} of {len(line)} bytes)")
                os.fsync(fd)
            finally:
                fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)


def record(db_path, *, envelope: Envelope, role: str, principal: str | None, source: str, inputs: dict,
           explanation_model: str | None = None) -> str:
    """Append one audit record for an answer and return its id.

    `source` is "cli", "app" or "mcp". `inputs` are the question and form inputs as given, with these keys
    (all optional but `question`): question, date (YYYY-MM-DD), period ("START..END" inclusive, or
    [start, end) as two dates), at (ISO time), entity, date_from_form, recorded_at (ISO time). Replay asks
    again from them. `explanation_model` defaults to the envelope's explanation's model, if any.
    """
    rec = make_record(envelope=envelope, role=role, principal=principal, source=source, inputs=inputs,
                      explanation_model=explanation_model)
    append(db_path, rec)
    return rec.id


def inputs_of(q) -> dict:
    """The audit inputs of a core.answer.ask.Question."""
    return _jsonable({"question": q.text, "date": q.day, "period": list(q.period) if q.period else None,
                      "at": q.at, "entity": q.entity, "date_from_form": q.date_from_form,
                      "recorded_at": getattr(q, "recorded_at", None),
                      # a steward's review queue, so a replay reads exactly what the answer could
                      **({"grants": sorted(q.grants)} if getattr(q, "grants", None) else {})})


def read_all(db_path: str | Path) -> list[AuditRecord]:
    path = audit_path(db_path)
    if not path.exists():
        return []
    out = []
    with open(path, encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            if line.strip():
                try:
                    out.append(AuditRecord.model_validate_json(line))
                except ValueError as exc:
                    raise ValueError(f"{path} line {n}: not an audit record ({exc})") from exc
    return out


def find(db_path: str | Path, record_id: str) -> AuditRecord:
    matches = [r for r in read_all(db_path) if r.id == record_id or r.id.startswith(record_id)]
    if not matches:
        raise ValueError(f"no audit record {record_id!r} in {audit_path(db_path)}")
    if len(matches) > 1:
        raise ValueError(f"{record_id!r} names {len(matches)} audit records; give more of the id")
    return matches[0]
