"""The audit log: one append-only record per answer, beside the catalog database.

`<db>.audit.jsonl` sits in the database's folder, not inside the database: the catalog file is replaced
whole on every ingest and opened read-only by readers. A record holds what is needed to replay the answer
(role, question, form inputs, the catalog state it was read from) and what identifies it (the envelope's
hash, behavior, governing ids), never text: the envelope only holds what the role could see, and the log
keeps only its ids and hashes, so a log reader learns no evidence text at all.

Appends from many threads (the app) and processes (CLI, MCP server) never interleave: one write() of one
line on an O_APPEND descriptor, under a process lock and an exclusive file lock.

The log is a hash chain: each record carries `prev`, the `hash` of the record before it (GENESIS for the
first), and its own `hash`, sha256 over its canonical JSON (every field but `hash`, keys sorted). `verify`
walks the chain and names the first broken link: an edited record (its content no longer matches its hash),
a deleted one (the next record chains to a hash no longer in the log), an inserted or forged one (the record
after it chains past it, or it carries no chain fields after chained records), or a torn line. Records
written before the chain existed read as "unchained". Calls that were refused or failed are recorded too
(behavior "refused" or "error", with the message), without an envelope.

With an audit key (core/serve/audit_key.py) `hash` is an HMAC-SHA256 ("hmac-sha256:...") instead: whoever
edits a record without the key cannot give it a hash that verifies, so even an edit followed by recomputing
every later hash is found, at the edited record. Records written before the key was set keep their sha256 and
are reported as unkeyed; an unkeyed record after a keyed one is a rewrite. So a process without the key (or with
another one) never appends to a keyed log: it is refused with AuditKeyError naming ASOF_AUDIT_KEY, never written.
"""
from __future__ import annotations

import fcntl
import hashlib
import hmac
import json
import os
import secrets
import threading
from dataclasses import dataclass, field
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field

from core.catalog.envelope import Envelope
from core.serve.audit_key import KEY_FILE_VAR, KEY_VAR, AuditKeyError, audit_key

SOURCES = ("cli", "app", "mcp")
# Bookkeeping that says when and how an envelope was produced, not what it answers; left out of its hash so
# a replay that reads the same catalog state reproduces it exactly.
UNHASHED = {"explanation", "recorded", "headline"}
_LOCK = threading.Lock()
GENESIS = "sha256:" + "0" * 64  # what the first record of a log chains to
KEYED = "hmac-sha256:"  # the prefix of a hash made with the audit key
_FROM_ENV = object()  # verify(): read the key as append() does
NOT_ANSWERED = ("refused", "error")  # behaviors of calls that produced no envelope
MAX_REFUSED_QUESTION = 2000  # a refused question is kept only this long (a too-long one is why it was refused)


def audit_path(db_path: str | Path) -> Path:
    return Path(str(db_path) + ".audit.jsonl")


def _digest(data) -> str:
    return "sha256:" + hashlib.sha256(json.dumps(data, sort_keys=True, default=str).encode()).hexdigest()


def envelope_hash(env: Envelope) -> str:
    """Hash of the answer: everything in the envelope except the explanation and the transaction-time note.
    An answer without values (or a version asked about) hashes as it did before they existed, so older records still
    replay."""
    unset = {k for k in ("values", "version_asked") if getattr(env, k) is None}
    return _digest(env.model_dump(mode="json", exclude=UNHASHED | unset))


def governed_hash(env: Envelope) -> str:
    """Hash of what governs: behavior, entity, dates, governing objects (with content), lineage, freshness,
    splits and clarification options. Search-found material (supporting hits, conflicts, index state) is
    left out, so an answer that used the search index can still be checked against a catalog-only replay. Values
    (their SQL and result hashes) govern the numbers shown, so they are in it when the answer has them."""
    extra = {"values": value_records(env)} if env.values is not None else {}
    return _digest({**extra,
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
    # The envelope's fields below are None for a refused or failed call ("refused"/"error": no envelope).
    now: datetime | None = None  # the evaluation time used: replay asks with it
    catalog_revision: str | None = None  # the revision answered from, as the role sees it (the envelope's)
    ingest: int | None = None  # the ingest whose content answered
    acl_ingest: int | None = None  # the ingest whose permissions applied
    current_revision: str | None = None  # today's revision (as the role sees it) when the answer was given
    recorded_at: datetime | None = None  # set when the question was asked "as recorded at"
    index: str = "not used"  # current | stale | absent | not used
    searched: bool = False  # the answer used the search index (semantic path, supporting hits)
    envelope_hash: str | None = None
    governed_hash: str | None = None
    behavior: str  # the envelope's behavior, or "refused" / "error" for a call that gave no answer
    entity_id: str | None = None
    governing_ids: list[str] = Field(default_factory=list)
    evidence_ids: list[str] = Field(default_factory=list)  # every id the envelope shows (all visible to the role)
    explanation_model: str | None = None
    # Each value the answer computed: version, model, period, SQL hash and result hash (never the number itself,
    # which the role's envelope holds); replay computes them again.
    values: list[dict] = Field(default_factory=list)
    message: str | None = None  # why a call was refused or failed (the message its caller got)
    # The chain: set by append(); None in records written before the chain existed.
    prev: str | None = None
    hash: str | None = None


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
        evidence_ids=sorted(envelope.evidence_ids()), explanation_model=explanation_model,
        values=value_records(envelope))


def value_records(env: Envelope) -> list[dict]:
    """What the audit log keeps of an answer's values: enough to say which SQL ran on what and to check a replay."""
    if env.values is None:
        return []
    shown = list(env.values.values)
    if env.values.restatement:
        shown += [r.other for r in env.values.restatement.rows]
    return [{"evidence_id": v.evidence_id, "model": v.model_evidence_id, "start": v.start.isoformat(),
             "end": v.end.isoformat(), "engine": v.engine, "sql_hash": v.sql_hash, "result_hash": v.result_hash}
            for v in shown]


def _canonical(data: dict) -> bytes:
    return json.dumps({k: v for k, v in data.items() if k != "hash"}, sort_keys=True, separators=(",", ":"),
                      ensure_ascii=False).encode("utf-8")


def record_hash(data: dict, key: bytes | None = None) -> str:
    """The hash a record carries: sha256 over its canonical JSON (parsed from its line), without `hash`; an
    HMAC-SHA256 with the audit key when there is one."""
    if key:
        return KEYED + hmac.new(key, _canonical(data), hashlib.sha256).hexdigest()
    return "sha256:" + hashlib.sha256(_canonical(data)).hexdigest()


def line_hash(line: bytes | str) -> str:
    """What a record after an unchained or unreadable line chains to: the hash of that line's bytes."""
    raw = line.encode("utf-8") if isinstance(line, str) else line
    return "sha256:" + hashlib.sha256(raw.rstrip(b"\r\n")).hexdigest()


def link_of(line: bytes | str) -> str:
    """The hash the next record must carry as `prev`: the line's own `hash` if it has one, else its bytes'."""
    try:
        data = json.loads(line)
    except ValueError:
        return line_hash(line)
    value = data.get("hash") if isinstance(data, dict) else None
    return value if isinstance(value, str) and value else line_hash(line)


def _tail(fd: int) -> tuple[bytes, bool]:
    """(the last non-blank line of the file, whether the file ends without a newline)."""
    size = os.fstat(fd).st_size
    if size == 0:
        return b"", False
    buf, pos = b"", size
    while pos > 0:
        step = min(65536, pos)
        pos -= step
        buf = os.pread(fd, step, pos) + buf
        stripped = buf.rstrip(b"\r\n \t")
        if b"\n" in stripped or pos == 0:
            if not stripped:
                if pos == 0:
                    return b"", not buf.endswith(b"\n")
                continue
            return stripped.rsplit(b"\n", 1)[-1], not buf.endswith(b"\n")
    return b"", False


def _keyed_hash(line: bytes) -> str | None:
    try:
        data = json.loads(line)
    except ValueError:
        return None
    value = data.get("hash") if isinstance(data, dict) else None
    return value if isinstance(value, str) and value.startswith(KEYED) else None


def _refuse_keyless(path: Path, last: bytes, key: bytes | None) -> None:
    """Raise AuditKeyError when appending would break a keyed chain by accident: a process started without the key
    (an unkeyed record after keyed ones reads as a rewrite), or with another key than the log's last record was
    written with (every later record would fail verification)."""
    stated = _keyed_hash(last) if last else None
    if stated is None:
        return
    if key is None:
        raise AuditKeyError(f"{path} is a keyed audit log (its records are HMACs with the audit key), but this "
                            f"process has no key: set {KEY_VAR} or {KEY_FILE_VAR} to the key it was written with; "
                            "nothing was appended (an unkeyed record would break its chain)")
    if not hmac.compare_digest(stated, record_hash(json.loads(last), key)):
        raise AuditKeyError(f"{path}: its last record was written with another audit key than the one {KEY_VAR} or "
                            f"{KEY_FILE_VAR} gives; nothing was appended. To change keys, verify the log with the old "
                            "key, keep it, and start a new log")


def check_appendable(db_path: str | Path) -> None:
    """AuditKeyError now, at start, if this process could not append to the log at `db_path` (see append)."""
    key = audit_key()
    path = audit_path(db_path)
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        return
    try:
        last, _ = _tail(fd)
    finally:
        os.close(fd)
    _refuse_keyless(path, last, key)


def append(db_path: str | Path, rec: AuditRecord) -> AuditRecord:
    """Append one record as one line, chained to the last record of the log (read under the same locks, so
    two appends never chain to the same record). O_APPEND makes each write land at the end; the locks keep a
    line whole even when threads and processes append at once. Returns the record as written."""
    path = audit_path(db_path)
    path.parent.mkdir(parents=True, exist_ok=True)
    key = audit_key()  # a key that cannot be used is refused before anything is written
    with _LOCK:
        fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o600)  # owner only, like the database
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            try:
                last, torn = _tail(fd)
                _refuse_keyless(path, last, key)
                data = json.loads(rec.model_dump_json(exclude={"prev", "hash"}))
                data["prev"] = link_of(last) if last else GENESIS
                data["hash"] = record_hash(data, key)
                # A torn last line (no newline) stays its own line: verify names it, listing skips it.
                line = (b"\n" if torn else b"") + (json.dumps(data, ensure_ascii=False) + "\n").encode("utf-8")
                written = os.write(fd, line)
                if written != len(line):  # a short write would leave a torn line; fail loudly
                    raise OSError(f"{path}: short write ({written} of {len(line)} bytes)")
                os.fsync(fd)
            finally:
                fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)
    return rec.model_copy(update={"prev": data["prev"], "hash": data["hash"]})


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


def record_refusal(db_path, *, role: str | None, principal: str | None, source: str, inputs: dict, message: str,
                   behavior: str = "refused", now: datetime | None = None) -> str:
    """Append a record for a call that gave no answer: refused ("refused": bad input, an unknown role, no
    access) or failed ("error"). It holds the message the caller got and the inputs as given (a long question
    cut to MAX_REFUSED_QUESTION characters), never evidence text. Returns its id."""
    if source not in SOURCES:
        raise ValueError(f"audit source must be one of {', '.join(SOURCES)}, not {source!r}")
    if behavior not in NOT_ANSWERED:
        raise ValueError(f"a record without an answer has behavior {' or '.join(NOT_ANSWERED)}, not {behavior!r}")
    inputs = _jsonable(dict(inputs))
    question = str(inputs.get("question") or inputs.get("text") or "")
    if len(question) > MAX_REFUSED_QUESTION:
        inputs["question_chars"] = len(question)
        question = question[:MAX_REFUSED_QUESTION]
        inputs["question"] = question
    at = now or datetime.now(timezone.utc)
    rec = AuditRecord(id=_new_id(at), at=at, source=source, principal=principal, role=role or "",
                      question=question, inputs=inputs, behavior=behavior, message=str(message)[:2000])
    append(db_path, rec)
    return rec.id


def inputs_of(q) -> dict:
    """The audit inputs of a core.answer.ask.Question."""
    return _jsonable({"question": q.text, "date": q.day, "period": list(q.period) if q.period else None,
                      "at": q.at, "entity": q.entity, "date_from_form": q.date_from_form,
                      "recorded_at": getattr(q, "recorded_at", None),
                      # what a follow-up carried (core/answer/conversation.py), so a replay says it again
                      **({"carried": q.carried} if getattr(q, "carried", None) else {}),
                      # and what else it kept: a number asked for, by its grain; two periods set side by side
                      **({"asks_value": True, "value_grain": q.value_grain} if getattr(q, "asks_value", False) else {}),
                      **({"compare": [list(p) for p in q.compare]} if getattr(q, "compare", None) else {}),
                      **({"compare_versions": list(q.compare_versions)} if getattr(q, "compare_versions", None)
                         else {}),
                      **({"asks_freshness": True} if getattr(q, "asks_freshness", False) else {}),
                      # a steward's review queue, so a replay reads exactly what the answer could
                      **({"grants": sorted(q.grants)} if getattr(q, "grants", None) else {})})


@dataclass
class Log:
    records: list[AuditRecord]
    skipped: list[str]  # "line N: why", for each line that is not an audit record (a torn or edited line)


def read_log(db_path: str | Path) -> Log:
    """Every readable record, and the lines that could not be read: one torn line costs only itself."""
    path = audit_path(db_path)
    out, skipped = Log([], []), []
    if not path.exists():
        return out
    with open(path, encoding="utf-8", errors="replace") as fh:
        for n, line in enumerate(fh, 1):
            if line.strip():
                try:
                    out.records.append(AuditRecord.model_validate_json(line))
                except ValueError as exc:
                    why = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
                    skipped.append(f"line {n}: not an audit record, skipped ({why[:200]})")
    out.skipped = skipped
    return out


def read_all(db_path: str | Path) -> list[AuditRecord]:
    """The readable records (read_log says which lines were skipped)."""
    return read_log(db_path).records


@dataclass
class Verification:
    path: Path
    lines: int = 0  # records and unreadable lines seen (blank lines are not counted)
    chained: int = 0
    unchained: int = 0  # records written before the chain existed (at the start of the log)
    keyed: int = 0  # chained records whose hash is an HMAC with the audit key
    key: bool = False  # whether a key was given: without one a rewritten chain cannot be told from the original
    head: str = GENESIS  # what the next record will chain to: note it elsewhere to detect a cut-off tail
    broken: str | None = None  # the first broken link, in words
    broken_line: int | None = None
    broken_id: str | None = None
    status: dict[str, str] = field(default_factory=dict)  # record id -> "verified" | "unchained" | why not

    @property
    def intact(self) -> bool:
        return self.broken is None


UNKEYED = ("not verified with the key: written before the audit key was set (a plain sha256 chain, which whoever "
           "can write the log could recompute)")


def verify(db_path: str | Path, key=_FROM_ENV) -> Verification:
    """Walk the chain from the first line and name the first broken link (see the module docstring).
    Every record after a break is reported "not verified" (the chain past it vouches for nothing). `key`: the
    audit key (default: the configured one, as appends use); keyed records cannot be checked without it."""
    key = audit_key() if key is _FROM_ENV else key
    path = audit_path(db_path)
    v = Verification(path, key=key is not None)
    if not path.exists():
        return v
    expected, previous_line = GENESIS, None
    previous_authentic = False  # the record before carries a valid keyed hash: nobody rewrote it
    seen_hash: dict[str, tuple[int, str]] = {}  # hash -> (line, id) of the records seen
    seen_id: dict[str, int] = {}

    with open(path, "rb") as fh:
        raw_lines = fh.read().split(b"\n")
    for n, raw in enumerate(raw_lines, 1):
        if not raw.strip():
            continue
        v.lines += 1
        why, rid, authentic, unkeyed = None, None, False, False
        try:
            data = json.loads(raw)
            rid = str(data.get("id")) if isinstance(data, dict) and data.get("id") else None
            AuditRecord.model_validate(data)
        except ValueError as exc:
            data = None
            why = f"torn or unreadable line, not an audit record ({str(exc).splitlines()[0][:120]})"
        if data is not None and (data.get("hash") is None and data.get("prev") is None):
            if v.chained == 0 and v.broken is None:
                v.unchained += 1
                v.status[rid or f"line {n}"] = "unchained (written before the log was chained)"
                expected, previous_line, previous_authentic = line_hash(raw), (n, rid), False
                continue
            why = ("inserted or forged record: it carries no chain fields (prev, hash) but follows chained "
                   "records")
        elif data is not None:
            v.chained += 1
            stated = data.get("hash")
            if isinstance(stated, str) and stated.startswith(KEYED):
                v.keyed += 1
                if key is None:
                    why = ("keyed record: its hash is an HMAC with the audit key; set ASOF_AUDIT_KEY or "
                           "ASOF_AUDIT_KEY_FILE to verify it")
                elif not hmac.compare_digest(stated, record_hash(data, key)):
                    why = ("edited record: its content no longer matches its keyed hash (a field, a timestamp or "
                           "the hash itself was changed, or it was rehashed without the key; or the key given "
                           "is not the one it was written with)")
                else:
                    authentic = True
            elif stated != record_hash(data):
                why = ("edited record: its content no longer matches its hash (a field, a timestamp or the hash "
                       "itself was changed)")
            elif key is not None and v.keyed:
                why = ("edited or forged record: unkeyed after keyed ones, so it was written or rehashed by "
                       "someone without the audit key")
            else:
                unkeyed = key is not None
            if why is None and rid in seen_id:
                why = f"forged record: a copy of record {rid} at line {seen_id[rid]}"
            elif why is None and data.get("prev") != expected:
                prev = data.get("prev")
                if prev in seen_hash:
                    k, kid = seen_hash[prev]
                    why = (f"inserted or forged record before it: it chains to line {k} ({kid}), not to the line "
                           f"before it (line {previous_line[0]}, {previous_line[1]}), which is not part of the chain")
                elif prev == GENESIS:
                    why = "records deleted or inserted before it: it chains to the start of the log"
                elif previous_authentic:  # the record before verifies with the key: it is as written
                    why = ("deleted record(s) before it: it chains to a record that is no longer in the log "
                           "(or this one was forged)")
                else:
                    why = ("deleted record(s) before it: it chains to a record that is no longer in the log "
                           "(or the record before it was rewritten with a new hash, or this one was forged)")
                    if previous_line is not None and previous_line[1] in v.status and v.broken is None:
                        # Nothing vouches for that record now: replay must not call it verified.
                        v.status[previous_line[1]] = (
                            f"not verified: the record after it (line {n}) does not chain to it, so it may have "
                            "been edited and rehashed; only a keyed chain (ASOF_AUDIT_KEY) tells which")
        if why is not None:
            v.status[rid or f"line {n}"] = "FAILED verification: " + why
            if v.broken is None:
                v.broken, v.broken_line, v.broken_id = why, n, rid
        elif rid is not None:
            v.status[rid] = (f"not verified: the chain is broken earlier, at line {v.broken_line}" if v.broken
                             else UNKEYED if unkeyed else "verified")
        if data is not None and rid is not None:
            seen_id.setdefault(rid, n)
            if isinstance(data.get("hash"), str):
                seen_hash.setdefault(data["hash"], (n, rid))
        expected, previous_line, previous_authentic = link_of(raw), (n, rid or "unreadable"), authentic
    v.head = expected
    return v


def find(db_path: str | Path, record_id: str) -> AuditRecord:
    matches = [r for r in read_all(db_path) if r.id == record_id or r.id.startswith(record_id)]
    if not matches:
        raise ValueError(f"no audit record {record_id!r} in {audit_path(db_path)}")
    if len(matches) > 1:
        raise ValueError(f"{record_id!r} names {len(matches)} audit records; give more of the id")
    return matches[0]
