"""Transaction time: the catalog as it stood at a past moment ("as recorded on", "as we knew it on").

A past state is rebuilt from `evidence_history` (see core/catalog/store.py) into an in-memory DuckDB with the same
tables as the current catalog, so `PastStore` is a `Store` and everything after it (Visible, the resolver,
lineage, freshness) reads it unchanged. The current-state read path never touches the history tables.

Permissions are always today's: a past object carries the ACL of its latest revision at the permission
ingest (today's for a question; the one in force when a recorded answer was given, for an audit replay),
never the ACL it had at the past moment. So an object a role may not see now stays hidden in every past
state, and one it may see now shows only the content recorded then. The search index keeps only current
content, so past states are answered from the catalog's names and rules alone.
"""
from __future__ import annotations

import re
import threading
import weakref
from dataclasses import dataclass, replace
from datetime import datetime, time, timedelta, timezone

import duckdb

from core.catalog.access import visible
from core.catalog.dates import find_dates
from core.catalog.envelope import CatalogState
from core.catalog.evidence import Catalog, Evidence, Principal
from core.catalog.store import HISTORY_SCHEMA, SCHEMA, Store, _insert

# "as recorded on 2025-04-30", "as it was recorded at 2026-11-29T10:00Z", "as we knew it on April 30, 2025",
# "as known on ...": the date that follows is a transaction time, not a reporting date.
LEAD_IN = re.compile(r"\bas\s+(?:(?:it\s+was\s+|they\s+were\s+)?recorded|we\s+knew\s+(?:it|them)|known)"
                     r"\s+(?:on|at|as\s+of|in|by)?\s*", re.I)


KEEP_PAST_STATES = 4  # in-memory past catalogs kept per open database


class NothingRecorded(ValueError):
    """The moment asked about is before the catalog's first ingest."""

    def __init__(self, message: str, at: datetime):
        super().__init__(message)
        self.at = at


@dataclass(frozen=True)
class Ingest:
    number: int
    ingested_at: datetime
    revision: str
    source: str
    object_count: int


def recorded_in_text(text: str) -> tuple[datetime | None, str]:
    """(the transaction time named in the question, the question without that phrase).

    A date means the end of that day (everything recorded that day); a period, the end of the period."""
    for lead in LEAD_IN.finditer(text):
        mention = next((m for m in find_dates(text) if m.span[0] == lead.end()), None)
        if mention is None:
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


class PastStore(Store):
    """The catalog as recorded at one ingest, with the permissions of another, in memory."""

    def __init__(self, parent: Store, ingest: Ingest, acl_ingest: int):
        self.path, self.ingest, self.acl_ingest = parent.path, ingest, acl_ingest
        self.views: dict = {}
        self._con = duckdb.connect(":memory:")
        self._local = threading.local()
        self._lock = threading.Lock()
        self._con.execute(SCHEMA)
        self._con.execute(HISTORY_SCHEMA)
        # The content of each object at `ingest`, with the ACL of its latest revision at `acl_ingest`.
        rows = parent.con.execute(
            """SELECT h.doc, p.acl FROM evidence_history h
               JOIN (SELECT evidence_id, arg_max(acl, recorded_from) AS acl FROM evidence_history
                     WHERE recorded_from <= ? GROUP BY evidence_id) p USING (evidence_id)
               WHERE h.recorded_from <= ? AND (h.recorded_to IS NULL OR h.recorded_to > ?)
               ORDER BY h.evidence_id""", [acl_ingest, ingest.number, ingest.number]).fetchall()
        evidence = [Evidence.model_validate_json(doc).model_copy(update={"acl": list(acl)}) for doc, acl in rows]
        principals: dict[str, list[str]] = {}
        for name, role in parent.con.execute("SELECT principal, role FROM principals ORDER BY 1, 2").fetchall():
            principals.setdefault(name, []).append(role)
        catalog = Catalog(roles=parent.roles(), evidence=evidence,
                          principals=[Principal(name=n, roles=r) for n, r in principals.items()])
        self._con.execute("BEGIN")
        _insert(self._con, catalog, ingest.revision, ingest.source, ingest.ingested_at, ingest.number)
        self._con.execute("COMMIT")
        # Read once, like Store does for the file: a past state never changes.
        self._meta = dict(self.con.execute("SELECT key, value FROM meta").fetchall())
        self._roles = parent.roles()

    @property
    def con(self):
        # One cursor per thread: the app answers questions from several threads at once.
        cur = getattr(self._local, "cursor", None)
        if cur is None:
            with self._lock:
                cur = self._local.cursor = self._con.cursor()
        return cur

    def close(self) -> None:
        self._con.close()


class _History:
    def __init__(self):
        self.lock = threading.Lock()
        self.ingests: list[Ingest] | None = None
        self.past: dict[tuple[int, int], PastStore] = {}


_STATE: "weakref.WeakKeyDictionary[Store, _History]" = weakref.WeakKeyDictionary()
_STATE_LOCK = threading.Lock()


def _history(store: Store) -> _History:
    with _STATE_LOCK:
        if store not in _STATE:
            _STATE[store] = _History()
        return _STATE[store]


def ingests(store: Store) -> list[Ingest]:
    """Every ingest of this database, oldest first (read once: the file is read-only while open)."""
    h = _history(store)
    with h.lock:
        if h.ingests is None:
            h.ingests = [Ingest(n, at, rev, src or "", cnt or 0) for n, at, rev, src, cnt in store.con.execute(
                "SELECT ingest, ingested_at, catalog_revision, source, object_count FROM ingests ORDER BY ingest"
            ).fetchall()]
        return list(h.ingests)


def current_ingest(store: Store) -> int | None:
    value = store.meta().get("ingest")
    return int(value) if value else None


def state_at(store: Store, at: datetime) -> Ingest:
    """The ingest whose catalog stood at `at`: the last one recorded at or before it."""
    known = [i for i in ingests(store) if i.ingested_at <= at]
    if not known:
        first = ingests(store)[0].ingested_at.isoformat() if ingests(store) else "never"
        raise NothingRecorded(f"nothing was recorded in this catalog by {at.isoformat()}: its history starts at "
                              f"{first}", at)
    return known[-1]


def past_store(store: Store, ingest: int, acl_ingest: int | None = None) -> PastStore:
    """The catalog as recorded at `ingest`, with the permissions in force at `acl_ingest` (default today's).
    Built once per pair and kept: a past state never changes."""
    acl_ingest = acl_ingest or current_ingest(store) or ingest
    by_number = {i.number: i for i in ingests(store)}
    if ingest not in by_number:
        raise ValueError(f"{store.path} has no ingest {ingest}; its history holds ingests "
                         f"{', '.join(map(str, by_number)) or 'none'}")
    h = _history(store)
    key = (ingest, acl_ingest)
    with h.lock:
        if key not in h.past:
            while len(h.past) >= KEEP_PAST_STATES:  # the oldest-built goes; a thread still using it keeps it alive
                h.past.pop(next(iter(h.past)))
            h.past[key] = PastStore(store, by_number[ingest], acl_ingest)
        return h.past[key]


def view_for(store: Store, env):
    """The role's view of the catalog state that answered `env`: what its explanation's citations are checked
    against (a past state for an as-recorded answer, else the current catalog)."""
    state = env.recorded
    if state and state.catalog_only and state.ingest:
        return visible(past_store(store, state.ingest, state.acl_ingest), env.role, frozenset(env.granted))
    return visible(store, env.role, frozenset(env.granted))


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
