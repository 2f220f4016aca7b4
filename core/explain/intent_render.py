"""Terminal lines for the intent fields of an envelope (discover, compare, owner, downstream, document)."""
from __future__ import annotations

from datetime import timedelta

from core.catalog.envelope import Envelope


def _interval(v) -> str:
    start = v.valid_from or "…"
    end = (v.valid_to - timedelta(days=1)) if v.valid_to else "open"
    return f"{start} → {end}"


def intent_lines(env: Envelope) -> list[str]:
    lines: list[str] = []
    if env.listing:
        li = env.listing
        lines.append(f"  {li.kind}s visible to {env.role} as of {li.as_of}"
                     + (f", about {' '.join(li.topic)}" if li.topic else "") + f": {len(li.items)}"
                     + (f" of {li.checked} checked that {li.condition}" if li.condition is not None else ""))
        for it in li.items:
            vs = ", ".join(f"{'v' + v.version if v.version else '(unversioned)'} {_interval(v)} {v.lifecycle}"
                          for v in it.versions)
            lines.append(f"  - {it.label} ({it.entity_id})  owner: {it.owner or '—'}  status: {it.status}")
            lines.append(f"      versions: {vs}")
    if env.comparison:
        c = env.comparison
        lines.append(f"  compare: {c.left.evidence_id} ({_interval(c.left)}) vs {c.right.evidence_id} "
                     f"({_interval(c.right)}); {c.how}")
        for f in c.fields:
            mark = "changed" if f.changed else "same"
            if f.field == "description" and (f.removed or f.added):  # the sentences that changed, quoted
                lines.append(f"    {f.field} [{mark}]:")
                lines += [f"      - “{x}”" for x in f.removed] + [f"      + “{x}”" for x in f.added]
                continue
            lines.append(f"    {f.field} [{mark}]: {f.before or '—'}" + (f"  →  {f.after or '—'}" if f.changed else ""))
    if env.ownership:
        o = env.ownership
        lines.append(f"  owner: {o.owner or 'not recorded'}  (from {o.evidence_id}"
                     + (", not an approved version" if o.from_draft else "") + ")")
        for v in o.history:
            lines.append(f"    {v.evidence_id}  {_interval(v)}  owner: {o.owners_by_version.get(v.evidence_id) or '—'}")
    if env.downstream:
        d = env.downstream
        lines.append(f"  downstream of {', '.join(d.starts)} as of {d.as_of}: {len(d.items)}")
        for i in d.items:
            extra = f" ({i.exposure_type})" if i.exposure_type else ""
            lines.append(f"    depth {i.depth}  {i.kind}{extra}: {i.label}  [{i.id}]"
                         + (f"  owner: {i.owner}" if i.owner else ""))
    if env.review:
        r = env.review
        lines.append(f"  review queue as of {r.as_of} ({', '.join(r.categories)}): {len(r.items)}")
        for it in r.items:
            lines.append(f"    [{it.category}] {it.title}")
            lines.append(f"      {it.detail}  What to do: {it.action}  ({', '.join(it.evidence_ids)})")
    for doc in env.documents:
        lines.append(f"  document [{doc.label}] {doc.title}  ({doc.evidence_id}; {doc.authority}, {doc.lifecycle}"
                     + (f", {doc.authority_class}" if doc.authority_class else "") + ")")
        lines.append(f"    quote: \"{doc.quote}\"")
        lines.append("    a document: never governs a metric definition")
    return lines
