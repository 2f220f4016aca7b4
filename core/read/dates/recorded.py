"""The "as recorded on" phrase of a question, and which catalog state answers it.

"as recorded on 2025-04-30", "as we knew it on April 30, 2025": the date that follows is a transaction time,
not a reporting date. The question is answered from the catalog as it stood then (core/catalog/history.py);
without such a phrase, or a recorded-at time on the form, from the current catalog."""
from __future__ import annotations

import re
from dataclasses import replace
from datetime import datetime, time, timedelta, timezone

from core.catalog.access import visible
from core.catalog.envelope import CatalogState
from core.catalog.history import PastStore, current_ingest, ingests, past_store, state_at
from core.catalog.store import Store
from core.read.dates.written import find_dates

# "as recorded on 2025-04-30", "as it was recorded at 2026-11-29T10:00Z", "as we knew it on April 30, 2025",
# "as known on ...": the date that follows is a transaction time, not a reporting date.
LEAD_IN = re.compile(r"\bas\s+(?:(?:it\s+was\s+|they\s+were\s+)?recorded|we\s+knew\s+(?:it|them)|known)"
                     r"\s+(?:on|at|as\s+of|in|by)?\s*", re.I)


def recorded_in_text(text: str) -> tuple[datetime | None, str]:
    """(the transaction time named in the question, the question without that phrase).

    A date means the end of that day (everything recorded that day); a period, the end of the period."""
    for lead in LEAD_IN.finditer(text):
        mention = next((m for m in find_dates(text) if m.span[0] == lead.end()), None)
        if mention is None or mention.kind == "invalid":
            continue
        if mention.kind == "timestamp":
            at = mention.at
        else:
            last = mention.start if mention.kind == "date" else mention.end - timedelta(days=1)
            at = datetime.combine(last, time.max, tzinfo=timezone.utc)
        start, end = lead.start(), mention.span[1]
        rest = (text[:start].rstrip(" ,;") + " " + text[end:].lstrip(" ,;")).strip()
        rest = re.sub(r"\s+([?.!,])", r"\1", rest)
        return at, rest
    return None, text


def end_of(value: str) -> datetime:
    """`--recorded-at` / form input: an ISO time, or a date meaning the end of that day (UTC)."""
    value = value.strip()
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
        return datetime.combine(datetime.fromisoformat(value).date(), time.max, tzinfo=timezone.utc)
    ts = datetime.fromisoformat(value.replace("Z", "+00:00"))
    return ts if ts.tzinfo else ts.replace(tzinfo=timezone.utc)


def resolve(store: Store, q) -> tuple[Store, object, CatalogState]:
    """Which catalog state answers `q`: the current one, or the one recorded at q.recorded_at or at the time
    the question's text names. Returns (store to read, the question without the phrase, the state)."""
    named, text = recorded_in_text(q.text)
    if named is not None:
        q = replace(q, text=text)
    # Revisions in the envelope are the role's own (Visible.revision): the whole catalog's would change when
    # objects the role may not see change, and so reveal them. Ingest numbers and times count ingests only.
    if isinstance(store, PastStore):  # pinned already (an audit replay)
        rev = visible(store, q.role, q.grants).revision
        return store, q, CatalogState(ingest=store.ingest.number, ingested_at=store.ingest.ingested_at,
                                      revision=rev, current_ingest=store.acl_ingest, current_revision="",
                                      acl_ingest=store.acl_ingest, catalog_only=True,
                                      detail=f"replayed from ingest {store.ingest.number}")
    current = current_ingest(store)
    form_at = getattr(q, "recorded_at", None)
    at = form_at or named
    if at is None:
        rev = visible(store, q.role, q.grants).revision  # the same cached value the answer cites
        return store, q, CatalogState(ingest=current, revision=rev, current_ingest=current, current_revision=rev,
                                      acl_ingest=current)
    if at.tzinfo is None:
        at = at.replace(tzinfo=timezone.utc)
    q = replace(q, recorded_at=at)
    past = state_at(store, at)
    pinned = past_store(store, past.number, current)
    then_rev, now_rev = visible(pinned, q.role, q.grants).revision, visible(store, q.role, q.grants).revision
    detail = (f"Answered from the catalog as recorded at {at.isoformat()}: ingest {past.number} of "
              f"{len(ingests(store))}, recorded {past.ingested_at.isoformat()} (revision {then_rev}); today's "
              f"catalog is revision {now_rev}. Permissions are today's. Past states are read from the catalog "
              "alone: the search index holds only current content.")
    if named is not None and form_at is not None and form_at != named:
        detail += f" The form's recorded-at time was used; the question also names {named.isoformat()}."
    return pinned, q, CatalogState(
        recorded_at=at, ingest=past.number, ingested_at=past.ingested_at, revision=then_rev,
        current_ingest=current, current_revision=now_rev, acl_ingest=current, catalog_only=True, detail=detail)
