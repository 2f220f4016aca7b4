"""Steward decisions in the audit log: every decision (and every refused attempt) is a record of the keyed hash
chain (core/serve/audit.py `append`), and a decision's record replays.

A decision's record (behavior "decision") holds who decided as which role, the request as given, the decision's
id, the catalog revision and ingest it produced, and the hash of the decision as written to the decisions file
(`envelope_hash`): an edit of the file after the fact no longer matches the chained record. Replay reads the
catalog's history: the ingest before the decision must hold the values the decision recorded as `before`, its own
ingest the values it set, and the decision must still read the same.
"""
from __future__ import annotations

import hashlib
import json
import secrets
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from core.answer.decide import Decider, Request
from core.catalog import history
from core.catalog.store import Store
from core.ingest.decision_apply import field_value, normal
from core.ingest.decision_file import Decision, read_records
from core.serve.audit import AuditRecord, append, find, record_refusal, verify

DECISION = "decision"


def decision_hash(d: Decision) -> str:
    body = json.dumps(d.model_dump(mode="json"), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(body.encode()).hexdigest()


def _inputs(req: Request, decider: Decider) -> dict:
    data = req.model_dump(mode="json", exclude_none=True)
    data["identity"] = decider.identity
    return {k: v for k, v in data.items() if v not in ([], "")} | {"reason": req.reason}


def _question(req: Request) -> str:
    return f"review decide {req.item} {req.action}: {req.reason}"[:2000]


def record_decision(db_path: str | Path, d: Decision, req: Request, decider: Decider, source: str) -> AuditRecord:
    """Append the decision's record to the audit chain; returns it as written."""
    at = datetime.now(timezone.utc)
    rec = AuditRecord(id=f"{at:%Y%m%dT%H%M%S}-{secrets.token_hex(4)}", at=at, source=source, principal=decider.principal, role=decider.role,
                      question=_question(req), inputs={**_inputs(req, decider), "decision": d.decision},
                      catalog_revision=d.revision, ingest=d.ingest, current_revision=d.read_revision,
                      envelope_hash=decision_hash(d), behavior=DECISION, governing_ids=sorted(d.objects),
                      evidence_ids=sorted(set(d.evidence_ids) | set(d.objects)), message=d.summary)
    return append(db_path, rec)


def record_refused(db_path: str | Path, req: Request, decider: Decider, source: str, message: str) -> str:
    """A refused decision is in the chain too (behavior "refused"), with the message the steward got."""
    return record_refusal(db_path, role=decider.role, principal=decider.principal, source=source,
                          inputs=_inputs(req, decider) | {"question": _question(req)}, message=message)


@dataclass
class DecisionReplay:
    record: AuditRecord
    decision: Decision | None
    reproduced: bool
    verification: str
    reasons: list[str] = field(default_factory=list)

    def report(self) -> str:
        d = self.decision
        head = (f"decision {d.decision} by {d.by} ({d.identity}) on {d.at:%Y-%m-%d %H:%M} UTC: {d.summary}; "
                f"“{d.reason}”" if d else f"audit record {self.record.id}: no decision")
        verdict = "REPRODUCED" if self.reproduced else "NOT REPRODUCED"
        return "\n".join([head, f"{verdict}; audit chain: {self.verification}", *(f"  {r}" for r in self.reasons)])


def replay_decision(db_path: str | Path, record_id: str) -> DecisionReplay:
    rec = find(db_path, record_id)
    if rec.behavior != DECISION:
        raise ValueError(f"audit record {rec.id} is a {rec.behavior} record, not a steward decision")
    chain = verify(db_path).status.get(rec.id, "FAILED verification: the record is not in the log's chain")
    records = read_records(db_path)
    d = records.by_id(str(rec.inputs.get("decision")))
    reasons: list[str] = []
    if d is None:
        return DecisionReplay(rec, None, False, chain, [f"the decisions file holds no decision "
                                                        f"{rec.inputs.get('decision')!r}"])
    if decision_hash(d) != rec.envelope_hash:
        reasons.append("the decision in the decisions file no longer matches the hash its audit record chained")
    store = Store(db_path)
    try:
        numbers = [i.number for i in history.ingests(store)]
        if d.ingest not in numbers or d.ingest - 1 not in numbers:
            reasons.append(f"the catalog's history holds no ingest {d.ingest} and the one before it")
        else:
            for label, ingest, values in (("before", d.ingest - 1, d.before), ("after", d.ingest, d.objects)):
                past = {e.evidence_id: e for e in history.past_store(store, ingest).all_evidence_for_review()}
                for eid, fields in values.items():
                    for name, value in fields.items():
                        held = field_value(past[eid], name) if eid in past else "(no such object)"
                        if held != normal(name, value):
                            reasons.append(f"ingest {ingest} ({label} the decision) holds {eid} {name} = {held}, "
                                           f"the decision recorded {normal(name, value)}")
    finally:
        store.close()
    if not reasons:
        reasons.append(f"ingest {d.ingest - 1} held what the decision found and ingest {d.ingest} what it set")
    ok = len(reasons) == 1 and reasons[0].startswith("ingest ")
    return DecisionReplay(rec, d, ok, chain, reasons)
