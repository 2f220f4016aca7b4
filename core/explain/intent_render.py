"""Terminal lines for the intent fields of an envelope (discover, compare, owner, downstream, document)."""
from __future__ import annotations

from datetime import timedelta

from core.catalog.envelope import Envelope, ListedEntity, Listing
from core.resolve.versions import version_label


def _interval(v) -> str:
    start = v.valid_from or "…"
    end = (v.valid_to - timedelta(days=1)) if v.valid_to else "open"
    return f"{start} → {end}"


# Listings whose rows are one object each (a page, a draft): the row's id is the object's own, not the entity's.
_OWN_ROWS = ("document", "draft")


def listed_id(listing: Listing, item: ListedEntity) -> str:
    """The id a listed row is shown with: a draft filed under a metric is not the metric."""
    return item.evidence_id if listing.kind in _OWN_ROWS else item.entity_id


def listing_heading(listing: Listing) -> str:
    """The listing table's heading: what is listed, and with a condition, out of how many ("Documents and versions you
    can see that are drafts (3 of 31)", never "Drafts ... that are drafts")."""
    what = "Documents and versions" if listing.kind == "draft" else f"{listing.kind.capitalize()}s"
    about = f" about {' '.join(listing.topic)}" if listing.topic else ""
    # A condition ("are stale") lists only the ones meeting it: the heading says so and out of how many, so the
    # table is never read as every source there is.
    which = (f" that {listing.condition_many} ({len(listing.items)} of {listing.checked})"
             if listing.condition_many and listing.checked else f" ({len(listing.items)})")
    return f"{what} you can see{about}{which}"


def listing_row(listing: Listing, item: ListedEntity, interval=_interval, lifecycle=lambda v: v) -> dict:
    """One listed thing as the app's table shows it (`interval`, `lifecycle`: the page's own words for them)."""
    row = {"name": item.label, "id": listed_id(listing, item)}
    if listing.kind in _OWN_ROWS:
        row["filed under"] = item.entity_id
    row |= {"owner": item.owner or "—", "status": item.status,
            "versions": "; ".join(f"{version_label(v.version)} {interval(v)} ({lifecycle(v.lifecycle)})"
                                  for v in item.versions)}
    if listing.kind not in _OWN_ROWS:
        row["evidence"] = item.evidence_id
    return row


def intent_lines(env: Envelope) -> list[str]:
    lines: list[str] = []
    if env.listing:
        li = env.listing
        lines.append(f"  {li.kind}s visible to {env.role} as of {li.as_of}"
                     + (f", about {' '.join(li.topic)}" if li.topic else "") + f": {len(li.items)}"
                     + (f" of {li.checked} checked that {li.condition}" if li.condition is not None else ""))
        for it in li.items:
            vs = ", ".join(f"{version_label(v.version)} {_interval(v)} {v.lifecycle}" for v in it.versions)
            lines.append(f"  - {it.label} ({listed_id(li, it)})  owner: {it.owner or '—'}  status: {it.status}")
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
