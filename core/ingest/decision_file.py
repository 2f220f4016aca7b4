"""Steward decisions: the governance records a reviewer writes in AsOf, kept beside the catalog database.

`<db>.decisions.yml` is a stream of YAML documents, one per record, only ever appended to (under a file lock):
a decision is never edited or deleted; a later decision reverses it. Each decision says who decided, how that
identity was established, when, why, on which review item, with which action, and what it changed, in the
governance overlay's own shape (`objects:` keyed by evidence id, with the overlay's field names: valid_from,
valid_through, lifecycle, authority, acl, owner, expires_at) beside the values those fields had before
(`before:`). A source check record, written by each ingest that read the team's own files, says which
decisions the source now says itself (carried) and which it contradicts, with both sides.

docs/decisions.md describes the format; core/ingest/decision_apply.py applies the records to a catalog.
"""
from __future__ import annotations

import fcntl
import os
import secrets
from contextlib import contextmanager
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, Field

from core.ingest.load import CatalogError, Problem

# The overlay fields a decision may set (docs/overlay.md), in the order a record lists them.
FIELDS = ("lifecycle", "authority", "valid_from", "valid_through", "expires_at", "acl", "owner")
IDENTITY_SOURCES = ("demo picker", "header", "oidc", "command line")


class Decision(BaseModel):
    """One steward decision, as recorded."""
    decision: str  # its id, D-<time>-<random>: sortable, unique without coordination
    item: str  # the review item's stable id (core/answer/decision_queue.py)
    category: str  # the item's kind (overlap, draft_conflict, ...)
    title: str  # the item's title when decided
    action: str
    by: str  # the principal (or, in demo mode, the role picked)
    role: str  # the steward role it decided as
    identity: str  # how `by` was established: one of IDENTITY_SOURCES
    at: datetime
    reason: str
    read_revision: str  # the catalog revision the queue was read at
    revision: str = ""  # the catalog revision the decision produced
    ingest: int | None = None  # that revision's ingest number
    reverses: str | None = None  # the decision this one reverses
    settles: str | None = None  # the contradicted decision this one settles (reapplied or given up)
    summary: str = ""  # what it does in words ("v2 governs from 2025-06-01")
    evidence_ids: list[str] = Field(default_factory=list)  # what the item was about: an answer citing any cites it
    objects: dict[str, dict[str, Any]] = Field(default_factory=dict)  # evidence id -> overlay fields set
    before: dict[str, dict[str, Any]] = Field(default_factory=dict)  # the same fields' values before

    def day(self) -> str:
        return self.at.date().isoformat()


class Contradiction(BaseModel):
    """One field where the source disagrees with a decision."""
    evidence_id: str
    field: str
    decided: Any
    source: Any


class SourceCheck(BaseModel):
    """What one ingest of the team's files found about the decisions in force."""
    source_check: str  # the catalog revision this ingest produced
    ingest: int | None = None  # its ingest number (the next one when it was read)
    at: datetime
    source: str = ""
    carried: list[str] = Field(default_factory=list)
    contradicted: dict[str, list[Contradiction]] = Field(default_factory=dict)


class Records(BaseModel):
    decisions: list[Decision] = Field(default_factory=list)
    checks: list[SourceCheck] = Field(default_factory=list)

    def reversed_ids(self) -> set[str]:
        return {d.reverses for d in self.decisions if d.reverses}

    def settled_ids(self) -> set[str]:
        return {d.settles for d in self.decisions if d.settles}

    def standing(self) -> list[Decision]:
        """Decisions neither reversed nor reversals (a reversal only undoes), nor settled afterwards."""
        gone = self.reversed_ids() | self.settled_ids()
        return [d for d in self.decisions if d.decision not in gone and not d.reverses]

    def by_id(self, decision_id: str) -> Decision | None:
        return next((d for d in self.decisions if d.decision == decision_id), None)


def decisions_path(db_path: str | Path) -> Path:
    """Beside the database, like its audit log: the database file is replaced whole by every ingest."""
    return Path(str(db_path) + ".decisions.yml")


def new_id(now: datetime) -> str:
    return f"D-{now:%Y%m%dT%H%M%S}-{secrets.token_hex(3)}"


def _plain(value: Any) -> Any:
    if isinstance(value, (date, datetime)):
        return value.isoformat()
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def read_records(db_path: str | Path) -> Records:
    """Every record of the decisions file (none when there is no file). A record that does not read is a clear
    error naming the file and the record: a governance record is never skipped silently."""
    path = decisions_path(db_path)
    if not path.exists():
        return Records()
    try:
        docs = list(yaml.safe_load_all(path.read_text(encoding="utf-8")))
    except yaml.YAMLError as exc:
        raise CatalogError([Problem(file=str(path), message=f"not readable YAML ({str(exc).splitlines()[0]})")]) from exc
    out = Records()
    for n, doc in enumerate(docs, 1):
        if doc is None:
            continue
        try:
            if isinstance(doc, dict) and "decision" in doc:
                out.decisions.append(Decision.model_validate(doc))
            elif isinstance(doc, dict) and "source_check" in doc:
                out.checks.append(SourceCheck.model_validate(doc))
            else:
                raise ValueError("neither a decision nor a source_check record")
        except ValueError as exc:
            raise CatalogError([Problem(file=str(path), field=f"record {n}",
                                        message=str(exc).splitlines()[0][:300])]) from exc
    return out


@contextmanager
def locked(db_path: str | Path):
    """One writer at a time over read-check-apply-append: two stewards deciding at once are serialized, and the
    second reads the first's decision before checking its own."""
    lock = Path(str(db_path) + ".decisions.lock")
    lock.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


def append(db_path: str | Path, record: Decision | SourceCheck) -> None:
    """Add one record at the end (one write on an O_APPEND descriptor); nothing before it is touched."""
    path = decisions_path(db_path)
    data = _plain(record.model_dump(exclude_none=True, exclude_defaults=False))
    text = "---\n" + yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=120)
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        os.write(fd, text.encode("utf-8"))
        os.fsync(fd)
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


def now_utc() -> datetime:
    return datetime.now(timezone.utc)


Status = Literal["in force", "carried into the source", "contradicted by the source", "reversed", "settled"]
