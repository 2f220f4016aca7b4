"""The deterministic explanation: short sentences built from the envelope, each citing its evidence.

It is what the app shows until (and whenever) a model-written explanation is unavailable or fails
citation checks; every claim comes from fields the resolver already decided.
"""
from __future__ import annotations

from datetime import timedelta

from pydantic import BaseModel

from .envelope import Behavior, Envelope


class Sentence(BaseModel):
    text: str
    cites: list[str]


def _interval(ref) -> str:
    start = ref.valid_from or "the beginning"
    end = f"through {ref.valid_to - timedelta(days=1)}" if ref.valid_to else "with no end date"
    return f"from {start} {end}"


def summarize(env: Envelope) -> list[Sentence]:
    out: list[Sentence] = []
    if env.behavior in (Behavior.answer, Behavior.refuse) and env.selected:
        main = env.selected[0]
        when = f"on {env.reporting_date}" if env.reporting_date else (
            f"for {env.period_start} to {env.period_end - timedelta(days=1)}" if env.period_start else "")
        out.append(Sentence(text=f"{main.title} is the authoritative definition {when}: it is in effect "
                                 f"{_interval(main)}.", cites=[main.evidence_id]))
        if main.metric:
            m = main.metric
            extra = f", at the grain of {m.grain}" if m.grain else ""
            out.append(Sentence(text=f"It is computed as {m.formula}{extra}"
                                     + (f", excluding {', '.join(m.exclusions)}" if m.exclusions else "") + ".",
                                cites=[main.evidence_id]))
        for s in env.selected[1:]:
            if s.role_in_answer == "model":
                out.append(Sentence(text=f"It is backed by {s.title} (version {s.version}), in effect {_interval(s)}.",
                                    cites=[s.evidence_id]))
        if env.lineage.raw_sources:
            lineage_ids = sorted({e.evidence_id for e in env.lineage.edges})
            out.append(Sentence(text="Its numbers come from " + ", ".join(env.lineage.raw_sources) + ".",
                                cites=lineage_ids))
        for f in env.freshness:
            cites = [c for c in (f.evidence_id, f.policy_evidence_id) if c]
            if f.status == "unknown":
                text = f"{f.source} has no recorded load time, so its freshness is unknown."
            else:
                text = (f"{f.source} was last loaded {f.age_hours} hours before {f.evaluated_at:%Y-%m-%d %H:%M} UTC: "
                        f"{f.status} (warn after {f.warn_after_hours} h, error after {f.error_after_hours} h).")
            out.append(Sentence(text=text, cites=cites))
    for sp in env.splits:
        out.append(Sentence(text=sp.verdict[0].upper() + sp.verdict[1:] + ".", cites=[s.evidence_id for s in sp.selected]))
    for c in env.conflicts:
        out.append(Sentence(text=f"{c.title} does not govern: {c.why}.", cites=[c.evidence_id]))
    for note in env.notes:
        out.append(Sentence(text=note, cites=[s.evidence_id for s in env.selected[:1]]))
    return out
