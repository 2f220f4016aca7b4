"""Plain-text rendering of an envelope for the terminal: catalog text as inert text."""
from __future__ import annotations

from datetime import timedelta

from core.catalog.envelope import Envelope
from core.explain.headline import headline
from core.explain.intent_render import intent_lines
from core.explain.safe_text import plain
from core.explain.value_text import value_lines


def _interval(ref) -> str:
    start = ref.valid_from or "…"
    end = (ref.valid_to - timedelta(days=1)) if ref.valid_to else "open"
    return f"{start} → {end}"


def render_text(env: Envelope) -> str:
    when = env.reporting_date or (f"{env.period_start}..{env.period_end - timedelta(days=1)}" if env.period_start else "—")
    # The Ask page's headline first, in its words (a yes/no question gets yes, no or not stated), then the full
    # verdict it shortens.
    lead = headline(env)
    lines = [f"[{env.behavior.value}] {lead}"]
    if " ".join(env.verdict.split()) != lead:
        lines.append(f"verdict: {env.verdict}")
    lines.append(f"role: {env.role}   reporting date: {when}   catalog: {env.catalog_revision}")
    if env.recorded and env.recorded.recorded_at:
        lines.append(f"as recorded at {env.recorded.recorded_at.isoformat()}: {env.recorded.detail}")
    if env.entity_id:
        lines.append(f"entity: {env.entity_id}")
    for n in env.notes:
        lines.append(f"note: {n}")
    for s in env.selected:
        # Intent answers carry evidence that is compared, owned or walked, not governing.
        verb = "governs" if s.role_in_answer in ("definition", "model", "overlap", "lineage") else "evidence"
        lines.append(f"  {verb} [{s.role_in_answer}] {s.evidence_id}  v{s.version}  {_interval(s)}  ({s.authority})")
        if s.description:
            lines.append(f"      description: {' '.join(s.description.split())}")
        if s.owner and s.role_in_answer in ("definition", "model"):
            lines.append(f"      owner: {s.owner}")
        if s.metric:
            lines.append(f"      formula: {s.metric.formula}")
            if s.metric.grain:
                lines.append(f"      grain: {s.metric.grain}")
        if s.model and s.model.grain:
            lines.append(f"      grain: {s.model.grain}")
    lines += intent_lines(env)
    for sp in env.splits:
        lines.append(f"  part: {sp.verdict}")
    if env.values:
        lines += value_lines(env.values)
    for c in env.conflicts:
        lines.append(f"  {c.label}: {c.evidence_id} — {c.why}")
    if env.lineage.edges:
        lines.append("  lineage: " + "; ".join(f"{e.upstream} → {e.downstream}" for e in env.lineage.edges))
        lines.append("  raw sources: " + (", ".join(env.lineage.raw_sources) or "none shown"))
        if env.lineage.generated:
            lines.append("  generated in the project (not raw sources): " + ", ".join(env.lineage.generated))
        if env.lineage.seeds:
            lines.append("  seeds (CSV files loaded by dbt, not raw sources): " + ", ".join(env.lineage.seeds))
    if env.columns:
        lines.append(f"  column {env.columns.column}: {env.columns.detail}")
        for h in env.columns.hops:
            lines.append(f"    {h.upstream}.{h.upstream_column} → {h.downstream}.{h.downstream_column} ({h.evidence_id})")
    for f in env.freshness:
        age = f"{f.age_hours} h" if f.age_hours is not None else "no load recorded"
        lines.append(f"  freshness {f.source}: {f.status.upper()} ({age}; warn > {f.warn_after_hours} h, "
                     f"error > {f.error_after_hours} h; at {f.evaluated_at.isoformat()})")
    if env.clarify:
        for i, o in enumerate(env.clarify.options, 1):
            lines.append(f"  option {i}: {o.label}")
    for i in env.ignored_instructions:
        lines.append(f"  ignored: {i}")
    x = env.explanation
    if x:
        source = "written without an LLM" if x.model == "deterministic" else f"written by {x.model}"
        lines.append(f"explanation ({source}; citations checked: {'passed' if x.validation.passed else 'problems'}"
                     + (f"; fallback: {x.fallback_reason}" if x.fallback_used else "") + "):")
        lines += [f"  {s.text} [{', '.join(s.citations)}]" if s.citations else f"  {s.text}" for s in x.sentences]
    # Every field is catalog or model text: one line each, no escape sequences (a title with ESC[2J
    # would clear the reader's screen; a newline inside a reason could forge a line of the answer).
    return "\n".join(plain(line, oneline=True) for line in lines)
