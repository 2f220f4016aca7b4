"""Metric values as words: the value with its unit, the version and model it was computed with, the period, how
fresh its inputs were, and a restatement's difference. Shared by the terminal, the Ask page and MCP."""
from __future__ import annotations

from datetime import date, timedelta

from core.catalog.values import MetricValue, Restatement, Values


def number(value: float | None, unit: str | None) -> str:
    if value is None:
        return "no value (nothing to count in the period)"
    unit = unit or ""
    if unit == "percent":
        return f"{value:,.2f}%"
    if unit.startswith("USD"):
        rest = unit[3:].strip()
        return f"${value:,.2f}" + (f" {rest}" if rest else "")
    shown = f"{value:,.0f}" if float(value).is_integer() else f"{value:,.2f}"
    return f"{shown} {unit}".strip()


def signed(value: float | None, unit: str | None) -> str:
    if value is None:
        return "n/a"
    if unit == "percent":
        return f"{value:+,.2f} pp"
    return ("+" if value >= 0 else "-") + number(abs(value), unit)


def period_text(start: date, end: date) -> str:
    last = end - timedelta(days=1)
    return str(start) if start == last else f"{start} to {last}"


def period_label(start: date, end: date) -> str:
    """A short name for a calendar bucket ("Apr 2024", "Q2 2024", "2024"), else the dates."""
    if start.day == 1 and end.day == 1:
        months = (end.year - start.year) * 12 + end.month - start.month
        if months == 1:
            return f"{start:%b %Y}"
        if months == 3 and start.month % 3 == 1:
            return f"Q{(start.month - 1) // 3 + 1} {start.year}"
        if months == 12 and start.month == 1:
            return str(start.year)
    return period_text(start, end)


def value_line(v: MetricValue) -> str:
    model = f" on {v.relation or v.model_evidence_id}" if (v.relation or v.model_evidence_id) else ""
    return (f"{period_text(v.start, v.end)}: {number(v.value, v.unit)} — {v.title} ({v.evidence_id}){model}, "
            f"computed by {v.engine}")


def as_of_text(values: Values) -> str:
    if values.as_of is None:
        return "the inputs have no recorded load, so how fresh they are is unknown"
    return f"as of the last load at {values.as_of:%Y-%m-%d %H:%M} UTC (" + ", ".join(
        f"{i.source}: {i.loaded_at:%Y-%m-%d %H:%M}" if i.loaded_at else f"{i.source}: no load recorded"
        for i in values.inputs) + ")"


def restatement_lines(r: Restatement, unit: str | None) -> list[str]:
    lines = [f"restated under {r.other_title} ({r.other_evidence_id}, {r.why}):"]
    for row in r.rows:
        pct = f", {row.percent:+.2f}%" if row.percent is not None else ""
        lines.append(f"  {period_text(row.start, row.end)}: {number(row.governing.value, unit)} under "
                     f"{row.governing.evidence_id} → {number(row.other.value, unit)} under {row.other.evidence_id} "
                     f"({signed(row.difference, unit)}{pct})")
    if r.difference is not None:
        pct = f", {r.percent:+.2f}%" if r.percent is not None else ""
        lines.append(f"  total: {number(r.governing_total, unit)} → {number(r.other_total, unit)} "
                     f"({signed(r.difference, unit)}{pct})")
    return lines


def value_lines(values: Values) -> list[str]:
    if values.status != "computed":
        return [f"value: {values.message}"]
    unit = values.values[0].unit if values.values else None
    lines = ["values (" + as_of_text(values) + "):"] + ["  " + value_line(v) for v in values.values]
    if values.message:
        lines.append(f"  note: {values.message}")
    if values.restatement:
        lines += ["  " + line for line in restatement_lines(values.restatement, unit)]
    return lines
