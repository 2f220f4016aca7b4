"""The light facts of every object, read once for the catalog and seen by each role through its ACL at lookup.

A lineage walk, a backing-model lookup and a source's freshness read these columns of thousands of objects a
question, so they are held in memory rather than parsed or read by key each time. They used to be held once per
role (each view a dict of every object it may see: 1.2-1.9 GB a role at a million objects, docs/scale.md
"Answering at a million"); now one catalog-wide copy is kept per opened file, each object with its ACL, and a
role's view (`RoleFacts`) checks the ACL on every lookup: acl_sql's rule, the role in the ACL or the object granted
to the view by id. So a view holds no list of the objects it may see, and a new role costs nothing to open.

Nothing here ever holds redacted text: these fields are never redacted (core/catalog/redact.py rewrites only a
formula's hidden names and edges), except a metric's implemented_by links, which a role's lookup filters to what
its visible objects carry, as `Visible._redact` filters a parsed object's links.
"""
from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from datetime import date

from core.catalog.evidence import (
    AUTHORITY,
    GOVERNING_KINDS,
    KIND,
    LIFECYCLE,
    Authority,
    Evidence,
    Freshness,
    Kind,
    Lifecycle,
)
from core.catalog.rows import sees as _sees


@dataclass(frozen=True, slots=True)
class Facts:
    """What a lineage graph and walk need of one visible object, read from the table's columns and two fields of its
    document, without parsing it: none of these is ever redacted (core/catalog/redact.py rewrites only a formula's
    hidden names and edges), so they are the parsed object's own."""
    evidence_id: str
    entity_id: str
    kind: Kind
    authority_class: str | None
    version: str | None
    governs: bool  # Evidence.governs
    relation: str | None  # a model's model.relation
    formula: str | None  # a metric's metric.formula as written (before redaction)
    names_others: bool  # it has `mentions`: its formula may be redacted for a role
    valid_from: date | None
    valid_to: date | None
    implemented_by: tuple[str, ...]  # a metric's implemented_by links the role may see, in order (as _redact keeps)

    valid_on = Evidence.valid_on  # the effective-time rule, read off the same two dates


@dataclass(frozen=True, slots=True)
class FreshnessRecord:
    """What a source's freshness is computed from (core/resolve/freshness.py source_freshness) of one visible object
    that records a load or thresholds, without parsing the object: its columns and its `freshness` field, which
    redaction never touches."""
    evidence_id: str
    kind: Kind
    authority: Authority
    lifecycle: Lifecycle
    valid_from: date | None
    valid_to: date | None
    freshness: Freshness

    valid_on = Evidence.valid_on


FETCH_ROWS = 50_000


class CatalogFacts:
    """Every object's facts, ACL and freshness record of one opened catalog file (or past state), with no role's
    filter applied: read only through `RoleFacts`, which applies it."""

    def __init__(self, con):
        kinds = {k.value: k for k in Kind}
        # One object per distinct value (ACLs, entity ids, classes, versions, dates): a million objects repeat a few
        # thousand of each, and a row fetched from DuckDB is a new string every time.
        shared: dict = {}
        self._facts: dict[str, tuple[Facts, frozenset[str]]] = {}
        self._by_entity: dict[str, list[str]] = {}
        # Evidence ids by their own id or their entity id lower-cased, where that differs from the id as stored: an id
        # as a question writes it. An id stored in lower case is found in _facts or _by_entity directly.
        self._by_lower: dict[str, list[str]] = {}
        # One parse of the document for the fields read from it, of models and metrics only; read in parts, so the
        # whole result is never held beside the facts built from it.
        result = con.execute(
            """SELECT evidence_id, entity_id, kind, authority_class, version, authority, lifecycle,
                      j[1] ->> '$', j[2] ->> '$', coalesce(len(json_keys(j[3])), 0) > 0, valid_from, valid_to,
                      coalesce(CAST(j[4] AS VARCHAR[]), []), acl
               FROM (SELECT *, CASE WHEN kind IN ('model', 'metric_definition') THEN json_extract(
                       doc, ['$.model.relation', '$.metric.formula', '$.mentions', '$.links.implemented_by']) END AS j
                     FROM evidence) ORDER BY evidence_id""")
        while rows := result.fetchmany(FETCH_ROWS):
            for r in rows:
                kind = kinds[r[2]]
                # Evidence.governs, on the columns it reads.
                governs = r[5] == "authoritative" and kind in GOVERNING_KINDS and r[6] not in ("draft", "retired")
                acl = tuple(r[13] or ())
                entity = shared.setdefault(r[1], r[1])
                fact = Facts(r[0], entity, kind, shared.setdefault(r[3], r[3]), shared.setdefault(r[4], r[4]),
                             governs, r[7], r[8], r[9], shared.setdefault(r[10], r[10]),
                             shared.setdefault(r[11], r[11]), tuple(r[12]))
                self._facts[r[0]] = (fact, shared.setdefault(acl, frozenset(acl)))
                self._by_entity.setdefault(entity, []).append(r[0])
                for said in {r[0], entity}:
                    if said.lower() != said:
                        self._by_lower.setdefault(said.lower(), []).append(r[0])
        # The field parsed by the model that parses the object, so every value (a load's time zone) is the same.
        self._freshness = {
            r[0]: FreshnessRecord(r[0], KIND[r[1]], AUTHORITY[r[2]], LIFECYCLE[r[3]], r[4], r[5],
                                  Freshness.model_validate_json(r[6]))
            for r in con.execute("""SELECT evidence_id, kind, authority, lifecycle, valid_from, valid_to,
                                           doc -> '$.freshness' FROM evidence
                                    WHERE evidence_id IN (SELECT evidence_id FROM freshness)""").fetchall()}

    def sees(self, evidence_id: str, role: str, grants: frozenset[str]) -> bool:
        held = self._facts.get(evidence_id)
        return held is not None and _sees(evidence_id, held[1], role, grants)

    def carried(self, i: str, role: str, grants: frozenset[str]) -> bool:
        """Whether an object the role may see carries `i` as its evidence id or its entity id."""
        return self.sees(i, role, grants) or any(self.sees(e, role, grants) for e in self._by_entity.get(i, ()))

    def carriers(self, ids, role: str, grants: frozenset[str]) -> dict[str, bool]:
        """For each of these ids that some object carries (as its evidence id or entity id): whether an object the
        role may see carries it (Store.carriers). Ids no object carries are left out."""
        return {i: self.carried(i, role, grants) for i in set(ids) if i in self._facts or i in self._by_entity}

    def get(self, evidence_id: str, role: str, grants: frozenset[str]) -> Facts | None:
        held = self._facts.get(evidence_id)
        if held is None or not _sees(evidence_id, held[1], role, grants):
            return None
        fact = held[0]
        if not fact.implemented_by:
            return fact
        # A link names what a visible object carries, or nothing: the rule Visible._redact applies to a parsed
        # object's links, so no reader of these facts can be handed a hidden id.
        kept = tuple(t for t in fact.implemented_by if self.carried(t, role, grants))
        return fact if kept == fact.implemented_by else replace(fact, implemented_by=kept)

    def of_entity(self, entity_id: str, role: str, grants: frozenset[str]) -> list[Facts]:
        """The visible objects of an entity, in evidence id order."""
        return [f for e in self._by_entity.get(entity_id, ()) if (f := self.get(e, role, grants)) is not None]

    def visible_ids(self, role: str, grants: frozenset[str]) -> Iterator[str]:
        """Every object the role may see, in evidence id order: a scan, for tests and whole-catalog checks."""
        return (e for e, (_, acl) in self._facts.items() if _sees(e, acl, role, grants))

    def written(self, said: set[str]) -> set[str]:
        """Evidence ids whose own id or entity id is one of `said`, case aside, whoever may see them: the caller
        reads them through its view's ACL."""
        found: set[str] = set()
        for s in said:
            low = s.lower()
            if low in self._facts:
                found.add(low)
            found.update(self._by_entity.get(low, ()))
            found.update(self._by_lower.get(low, ()))
        return found

    def freshness(self, evidence_id: str, role: str, grants: frozenset[str]) -> FreshnessRecord | None:
        record = self._freshness.get(evidence_id)
        return record if record is not None and self.sees(evidence_id, role, grants) else None


class RoleFacts(Mapping):
    """One view's facts: the catalog's, each lookup checked against the view's ACL (a Mapping of the visible
    objects by evidence id, holding none of them)."""

    def __init__(self, catalog: CatalogFacts, role: str, grants: frozenset[str]):
        self._catalog, self._role, self._grants = catalog, role, grants

    def __getitem__(self, evidence_id: str) -> Facts:
        found = self._catalog.get(evidence_id, self._role, self._grants)
        if found is None:
            raise KeyError(evidence_id)
        return found

    def get(self, evidence_id: str, default=None):
        found = self._catalog.get(evidence_id, self._role, self._grants)
        return default if found is None else found

    def __contains__(self, evidence_id) -> bool:
        return self._catalog.sees(evidence_id, self._role, self._grants)

    def __iter__(self) -> Iterator[str]:
        return self._catalog.visible_ids(self._role, self._grants)

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def of_entity(self, entity_id: str) -> list[Facts]:
        return self._catalog.of_entity(entity_id, self._role, self._grants)

    def governing(self, entity_id: str) -> Facts | None:
        """The first governing visible object (by evidence id) of the entity: what a lineage node named by its entity
        id stands for."""
        return next((f for f in self.of_entity(entity_id) if f.governs), None)


def catalog_facts(store) -> CatalogFacts:
    """The store's CatalogFacts, read once per opened file (or past state) on first use, outside the asking question's
    time budget, like the keyed rows (Store.rows)."""
    found = store.__dict__.get("_catalog_facts")
    if found is None:
        from core.settings import budget
        with store.__dict__.setdefault("_catalog_facts_lock", threading.Lock()):
            found = store.__dict__.get("_catalog_facts")
            if found is None:
                with budget.not_counted():
                    found = store.__dict__["_catalog_facts"] = CatalogFacts(store.con)
    return found
