"""Field-by-field difference between two versions of one entity (metric or model definitions)."""
from __future__ import annotations

from pydantic import BaseModel

from .catalog import Evidence
from .resolve import interval_text, version_name


class FieldChange(BaseModel):
    field: str
    a: str | list[str] | None
    b: str | list[str] | None
    change: str  # same | changed | "added: x; removed: y"


def _spec(ev: Evidence) -> dict:
    spec = ev.metric or ev.model
    return spec.model_dump() if spec else {}


def _change(a, b) -> str:
    if isinstance(a, list) or isinstance(b, list):
        sa, sb = set(a or []), set(b or [])
        parts = ([f"added: {', '.join(sorted(sb - sa))}"] if sb - sa else []) + \
                ([f"removed: {', '.join(sorted(sa - sb))}"] if sa - sb else [])
        return "; ".join(parts) or ("reordered" if list(a or []) != list(b or []) else "same")
    return "same" if a == b else "changed"


def compare_versions(a: Evidence, b: Evidence) -> list[FieldChange]:
    """What changed from `a` to `b`: the definition's structured fields, then its text and standing."""
    spec_a, spec_b = _spec(a), _spec(b)
    fields = list(dict.fromkeys([*spec_a, *spec_b]))
    rows = [FieldChange(field=f, a=spec_a.get(f), b=spec_b.get(f), change=_change(spec_a.get(f), spec_b.get(f)))
            for f in fields]
    for name, va, vb in (("version", version_name(a), version_name(b)),
                         ("effective", interval_text(a), interval_text(b)),
                         ("authority", a.authority.value, b.authority.value),
                         ("lifecycle", a.lifecycle.value, b.lifecycle.value),
                         ("owner", a.owner, b.owner),
                         ("text", a.text, b.text)):
        rows.append(FieldChange(field=name, a=va, b=vb, change=_change(va, vb)))
    return rows
