"""Authorization: one role's view of the catalog. Every read below filters on the role in SQL.

Nothing in the resolver, search or rendering reads DuckDB except through this view, so an object
outside the role's ACL never reaches them. Reads are narrow (one entity, a few ids), so a question
costs the same on a catalog of 100 or 100,000 objects.
"""
from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from functools import cached_property, wraps

import pyarrow as pa
from rank_bm25 import BM25Okapi

from core.catalog.entities import Entity, build_entity_index, head_index
from core.catalog.evidence import AUTHORITY, KIND, LIFECYCLE, Authority, Evidence, Kind, Lifecycle
from core.catalog.facts import FreshnessRecord, RoleFacts, catalog_facts
from core.catalog.redact import redact, references
from core.catalog.rows import acl_sql, in_list, keyed
from core.catalog.store import Store
from core.catalog.text import words
from core.settings import budget

# Runs of the characters whose lower case holds a word character of text.words: ASCII letters and digits, and
# the two others Python lower-cases into them ("\u0130" -> "i\u0307", the Kelvin sign -> "k"). Each distinct run
# is split by words() itself, so the SQL pass finds exactly the words Python would.
# A run takes an "'s" clitic after it (text.words drops it; alone it would be a word "s"), and with it the character
# that ends the clitic, which words() ignores. The quote is doubled for the SQL string the pattern is put in.
_RAW_WORDS = r"[A-Za-z0-9\x{130}\x{212A}]+(?:[''\x{2019}][sS](?:[^A-Za-z0-9_\x{130}\x{212A}]|$))?"
# The fields of `doc` Visible.object_words reads beside the table's columns: single values, then lists.
_DOC_VALUES = ("description", "source_system", "model.relation", "model.grain", "metric.formula", "metric.grain")
_DOC_LISTS = ("aliases", "model.columns", "metric.filters", "metric.exclusions")


def _object_text(ev: Evidence) -> str:
    """What Visible.object_words reads of one object, parsed (the SQL there reads the same fields)."""
    parts = [ev.title, ev.evidence_id, ev.entity_id, ev.text, ev.description or "", ev.authority_class or "",
             ev.owner or "", " ".join(ev.aliases), ev.kind.value, ev.source_system or ""]
    if ev.model:
        parts += [ev.model.relation or "", " ".join(ev.model.columns), ev.model.grain or ""]
    if ev.metric:
        parts += [ev.metric.formula, ev.metric.grain or "", " ".join(ev.metric.filters + ev.metric.exclusions)]
    return " ".join(parts)


@dataclass(frozen=True, slots=True)
class Listed:
    """What a listing row reads of one visible object (core/answer/intents/discover.py): the evidence table's columns, none of
    which redaction rewrites except `text` (a formula quoted in it), so an object that names others is read in full
    instead (Visible.listed). The effective-time and governing rules are the parsed object's own."""
    evidence_id: str
    entity_id: str
    kind: Kind
    title: str
    text: str
    version: str | None
    authority: Authority
    lifecycle: Lifecycle
    authority_class: str | None
    valid_from: date | None
    valid_to: date | None
    expires_at: date | None
    owner: str | None
    recorded_at: datetime | None = None  # when the source system says it recorded it ("what changed since ...?")

    valid_on = Evidence.valid_on
    governs = Evidence.governs


def per_view(build):
    """A cached property of one role's view, built once per process: like loading the embedding model, not the
    time budget of whichever question happens to need it first (at 100,000 objects the entity index alone
    takes seconds, and that first question would otherwise stop on its budget)."""
    @wraps(build)
    def once(self):
        with budget.not_counted():
            return build(self)
    once.per_view = True  # Visible.build finds it
    return cached_property(once)


# The columns described_rows reads (and described_tokens splits into words), as SQL over the stored document.
_DESCRIBED_TEXT = "coalesce(nullif(doc ->> '$.description', ''), text, '')"
_DESCRIBED_ALIASES = "coalesce(CAST(json_extract(doc, '$.aliases') AS VARCHAR[]), [])"
_DESCRIBED_COLUMNS = "coalesce(CAST(json_extract(doc, '$.model.columns') AS VARCHAR[]), [])"
_NAMES_OTHERS = "(coalesce(len(json_keys(doc -> '$.mentions')), 0) > 0)"

class Visible:
    """One role's view. Shared by every thread that asks as this role: its cached values are pure
    functions of the read-only file and the role, and every query runs on the calling thread's cursor."""

    def __init__(self, store: Store, role: str, grants: frozenset[str] = frozenset()):
        # `grants`: objects this view may read beyond the role's ACL, by evidence id (a steward's review
        # queue, core/answer/steward.py); empty for every other view. Every read below goes through acl_sql.
        self.store, self.role, self.grants = store, role, frozenset(grants)
        self._acl = [role, sorted(self.grants)]

    @property
    def con(self):
        return self.store.con

    def build(self) -> None:
        """Build every per-view index now (a process warming up, core/answer/warm.py), not on this role's first
        question."""
        for name, attr in vars(type(self)).items():
            if isinstance(attr, cached_property) and getattr(attr.func, "per_view", False):
                getattr(self, name)

    def _docs(self, where: str, params: list) -> list[Evidence]:
        """Visible objects matching `where` (a scan: kinds, everything)."""
        return self._parsed([doc for (doc,) in self.con.execute(
            f"SELECT doc FROM evidence WHERE {acl_sql()} AND ({where}) ORDER BY evidence_id",
            [*self._acl, *params]).fetchall()])

    def _by_key(self, column: str, ids) -> list[Evidence]:
        """Visible objects whose evidence_id or entity_id is one of `ids` (core/catalog/rows.py: the ACL is
        checked there, on each row)."""
        return self._parsed(self.store.rows.docs(column, ids, self.role, self.grants))

    def _parsed(self, json_docs: list[str]) -> list[Evidence]:
        docs = self._redact([Evidence.model_validate_json(doc) for doc in json_docs])
        # Names of hidden objects inside generated text (a formula's input metrics) and lineage edges to
        # them are rendered away too (core/catalog/redact.py).
        refs = {r for e in docs for r in references(e)}
        hidden = self.store.unseen_ids(self.role, refs, self.grants, self._carriers(refs)) if refs else set()
        return [redact(e, hidden) for e in docs] if hidden else docs

    def _carriers(self, ids) -> dict[str, bool]:
        """Store.carriers for this view, each id looked up once per process: the file is read-only while open,
        and the same links and edges (a metric's model, a source's freshness) are read by question after
        question."""
        known = self.__dict__.setdefault("_carried", {})
        missing = [i for i in ids if i not in known]
        if missing:
            found = self.store.carriers(missing, self.role, self.grants)
            known.update({i: found.get(i) for i in missing})  # None: no object carries it
        return {i: known[i] for i in ids if known[i] is not None}

    def _redact(self, docs: list[Evidence]) -> list[Evidence]:
        """Drop references (links, supersedes, superseded_by) to anything this role cannot see.

        A visible page may say it is "superseded by" a finance-only version; naming that id would tell
        the role it exists. Hidden and made-up targets are treated alike, so neither is observable.
        """
        refs = {t for ev in docs for _, t in ev.link_targets()}
        if not refs:
            return docs
        seen = {i for i, visible in self._carriers(refs).items() if visible}
        out = []
        for ev in docs:
            if all(t in seen for _, t in ev.link_targets()):
                out.append(ev)
                continue
            links = {k: kept for k, ts in ev.links.items() if (kept := [t for t in ts if t in seen])}
            out.append(ev.model_copy(update={
                "links": links,
                "supersedes": ev.supersedes if ev.supersedes in seen else None,
                "superseded_by": ev.superseded_by if ev.superseded_by in seen else None}))
        return out

    @per_view
    def revision(self) -> str:
        """The catalog revision as this role sees it: changes to objects it cannot see leave it as it is."""
        digest = hashlib.sha256()
        for ev_id, content in self.con.execute(
                f"SELECT evidence_id, content_hash FROM evidence WHERE {acl_sql()} ORDER BY evidence_id",
                self._acl).fetchall():
            digest.update(f"{ev_id}|{content}\n".encode())
        return digest.hexdigest()[:16]

    @per_view
    def count(self) -> int:
        return self.con.execute(f"SELECT count(*) FROM evidence WHERE {acl_sql()}", self._acl).fetchone()[0]

    @per_view
    def queued_count(self) -> int:
        """Objects this view reads only through its grants (a steward's review queue), beyond the role's own ACL."""
        return self.count - visible(self.store, self.role).count if self.grants else 0

    @per_view
    def entities(self) -> dict[str, Entity]:
        rows = self.con.execute(
            # Aliases grouped before the join, not every object's columns after it: half the time of a cold `ask`'s
            # first read at 1,000 models (docs/scale.md).
            f"""SELECT e.evidence_id, e.entity_id, e.kind, e.title, e.authority, e.lifecycle,
                      coalesce(a.aliases, []), e.doc ->> '$.label'
               FROM evidence e LEFT JOIN (SELECT evidence_id, list(alias) AS aliases FROM aliases
                                          WHERE alias IS NOT NULL GROUP BY evidence_id) a USING (evidence_id)
               WHERE {acl_sql("e")} AND e.lifecycle <> 'retired'
               ORDER BY e.evidence_id""", self._acl).fetchall()
        return build_entity_index(rows)

    @cached_property
    def facts(self) -> RoleFacts:
        """Facts of the visible objects by evidence id (core/catalog/facts.py): a whole-catalog lineage walk meets tens
        of thousands of objects, and parsing each (~35,000 at 100,000 objects) took seconds a question. The catalog's
        one copy, each lookup checked against this view's ACL: the view holds none of them."""
        return RoleFacts(catalog_facts(self.store), self.role, self.grants)

    @per_view
    def owners(self) -> frozenset[str]:
        """Every distinct owner recorded on a visible object (owner is a column, never redacted): who a question may
        name as an owner, read without parsing the view (parsing every object took seconds at 100,000)."""
        return frozenset(o for (o,) in self.con.execute(
            f"SELECT DISTINCT owner FROM evidence WHERE {acl_sql()} AND owner IS NOT NULL", self._acl).fetchall())

    @per_view
    def by_short_id(self) -> dict[str, list[tuple[int, str]]]:
        """(position in `entities`, entity id) by what follows the id's first dot ("net_revenue" of
        metric.net_revenue): how a formula names its input metrics, looked up instead of scanning every entity."""
        index: dict[str, list[tuple[int, str]]] = {}
        for position, entity_id in enumerate(self.entities):
            index.setdefault(entity_id.split(".", 1)[-1], []).append((position, entity_id))
        return index

    @per_view
    def heads(self) -> dict[str, list[Entity]]:
        return head_index(self.entities)

    @per_view
    def phrases(self) -> dict[tuple[str, ...], set[str]]:
        index: dict[tuple[str, ...], set[str]] = {}
        for ent in self.entities.values():
            for name in ent.names:
                index.setdefault(name, set()).add(ent.entity_id)
        return index

    @per_view
    def name_words(self) -> set[str]:
        """Every word of every visible name: a question word outside it is one the role's catalog never uses."""
        return {w for name in self.phrases for w in name}

    @per_view
    def topic_names_by_word(self) -> dict[str, set[str]]:
        """Topic entity ids by each word of their names: which entities a run of question words could be
        part of, read in the question's words, not the catalog's size."""
        index: dict[str, set[str]] = {}
        for ent in self.entities.values():
            if ent.is_topic:
                for name in ent.names:
                    for word in name:
                        index.setdefault(word, set()).add(ent.entity_id)
        return index

    @per_view
    def names_by_first(self) -> dict[str, list[tuple[str, tuple[str, ...]]]]:
        """(entity id, name) of every visible topic entity's names, by the name's first word: what a question
        word could begin ("net" -> net revenue), read in the question's length, not the catalog's size."""
        index: dict[str, list[tuple[str, tuple[str, ...]]]] = {}
        for ent in self.entities.values():
            if ent.is_topic:
                for name in ent.names:
                    index.setdefault(name[0], []).append((ent.entity_id, name))
        return index

    @per_view
    def topics_by_word(self) -> dict[str, set[str]]:
        """Visible topic entities by every word of their names ("rate" -> churn rate, refund rate, ...)."""
        index: dict[str, set[str]] = {}
        for ent in self.entities.values():
            if ent.is_topic:
                for word in {w for n in ent.names for w in n}:
                    index.setdefault(word, set()).add(ent.entity_id)
        return index

    @per_view
    def _bm25(self) -> tuple[list[str], BM25Okapi]:
        ids = list(self.entities)
        corpus = [[w for n in self.entities[i].names for w in n] + words(i) for i in ids]
        return ids, BM25Okapi(corpus or [[""]])

    @per_view
    def _bm25_pos(self) -> dict[str, int]:
        return {e: i for i, e in enumerate(self._bm25[0])}

    def bm25_scores(self, question: str, candidates: list[str]) -> dict[str, float]:
        if len(candidates) < 2:  # nothing to order
            return {}
        ids, bm25 = self._bm25
        pos = self._bm25_pos
        wanted = [pos[c] for c in candidates if c in pos]
        scores = bm25.get_batch_scores(words(question), wanted) if wanted else []
        return {ids[i]: float(s) for i, s in zip(wanted, scores)}

    def all(self) -> list[Evidence]:
        """Everything this role may see (catalog browsing and the review queue; not on the answer path)."""
        return self._docs("TRUE", [])

    def object_words(self) -> set[str]:
        """Every word (text.words) of every visible object's title, ids, text, description, owner, aliases,
        kind, source system, model relation, columns and grain, and metric formula, grain, filters and exclusions.

        Read in SQL, distinct words only: parsing every object took 17 s a role at 100,000 objects. An object
        that names others (`mentions`) is parsed as all() reads it, since its formula and text may be redacted
        for this role; no other field read here is ever redacted."""
        n = len(_DOC_VALUES)
        values = ", ".join(f"j[{i + 1}] ->> '$'" for i in range(n))
        lists = ", ".join(f"array_to_string(CAST(j[{n + i + 1}] AS VARCHAR[]), ' ')" for i in range(len(_DOC_LISTS)))
        paths = ", ".join(f"'$.{p}'" for p in (*_DOC_VALUES, *_DOC_LISTS, "mentions"))
        # One scan that parses each document once: the words of every object that names none, and the ids of
        # those that do.
        rows = self.con.execute(
            f"""WITH o AS MATERIALIZED (
                  SELECT evidence_id, coalesce(len(json_keys(j[-1])), 0) > 0 AS names_others,
                         concat_ws(' ', title, evidence_id, entity_id, text, authority_class, owner, kind,
                                   {values}, {lists}) AS body
                  FROM (SELECT *, json_extract(doc, [{paths}]) AS j FROM evidence WHERE {acl_sql()}))
                SELECT DISTINCT NULL, unnest(regexp_extract_all(body, '{_RAW_WORDS}')) FROM o WHERE NOT names_others
                UNION ALL SELECT evidence_id, NULL FROM o WHERE names_others""", self._acl).fetchall()
        found = {w for _, raw in rows if raw is not None for w in words(raw)}
        named = [evidence_id for evidence_id, _ in rows if evidence_id is not None]
        for ev in self._by_key("evidence_id", named):
            found.update(words(_object_text(ev)))
        return found

    def of_kinds(self, kinds: list[str], authority_class: str | None = None) -> list[Evidence]:
        """Every visible object of these kinds (discover: what metrics, models, sources can I see), of one
        authority class when given (dbt doc blocks among all documentation: read in SQL, not parsed)."""
        if authority_class is not None:
            return self._docs("kind = ANY(?::VARCHAR[]) AND authority_class = ?", [list(kinds), authority_class])
        return self._docs("kind = ANY(?::VARCHAR[])", [list(kinds)])

    def tables_with_columns(self, names: list[str]) -> list[Evidence]:
        """Visible models and sources with a column (listed or described) whose lower case is one of `names`, found in
        SQL: parsing every table to read its columns took ~10 s at a million objects."""
        if not names:
            return []
        columns = ("coalesce(CAST(json_extract(doc, '$.model.columns') AS VARCHAR[]), []) || "
                   "coalesce(CAST(json_extract(doc, '$.model.column_details[*].name') AS VARCHAR[]), [])")
        return self._docs(f"kind IN ('model', 'source') AND list_has_any(list_transform({columns}, lambda c: lower(c)), "
                          "?::VARCHAR[])", [names])

    def described_rows(self, entity_ids=None) -> list[tuple[str, str, str, list[str], list[str]]]:
        """(entity id, title, description or else text, aliases, model columns) of every visible object but lineage
        (or only those of `entity_ids`), by evidence id: the words a table described instead of named is matched
        against (core/read/intents/described.py). Read in SQL: parsing every object took 30 s a role at a million
        objects. An object that names others (`mentions`) is parsed, as its text may be redacted for this role; no
        other field read here ever is."""
        select = (f"evidence_id, entity_id, title, {_DESCRIBED_TEXT}, {_DESCRIBED_ALIASES}, {_DESCRIBED_COLUMNS}, "
                  f"{_NAMES_OTHERS}")
        rest = f"{acl_sql()} AND kind <> 'lineage' ORDER BY evidence_id"
        if entity_ids is None:
            query = f"SELECT {select} FROM evidence WHERE {rest}"
        else:  # the entities' rows found through the index first (at a million objects 2 against 160 ms for 64)
            query = keyed("evidence", in_list("entity_id", entity_ids), select, rest,
                          "evidence_id, entity_id, kind, title, text, acl, doc")
        return self._described(self.con.execute(query, self._acl).fetchall())

    def _described(self, rows: list[tuple]) -> list[tuple[str, str, str, list[str], list[str]]]:
        named = {e.evidence_id: e for e in self._by_key("evidence_id", [r[0] for r in rows if r[-1]])}
        return [(e.entity_id, e.title, e.description or e.text or "", list(e.aliases),
                 list(e.model.columns) if e.model else []) if (e := named.get(r[0])) else r[1:6] for r in rows]

    def described_tokens(self, entity_ids: list[str]) -> tuple[pa.Table, list[tuple]]:
        """The words of described_rows for the entities `entity_ids` (each known by its position in that list), for
        a whole view at once: ~1M texts at a million objects, split into words in Python, took ~50 s a role.

        Returns (tokens, others). tokens: one row per distinct token (`tok`) with the sorted positions of the
        entities whose rows hold it (`positions`), split in SQL for the rows whose words SQL finds exactly as
        core/catalog/text.py `words` does: plain ASCII (lower case and [a-z0-9]+ then agree) with no apostrophe (a
        clitic "'s" is dropped there) and no `mentions` (redacted per role). others: the remaining rows, as
        described_rows gives them, for the caller to split in Python."""
        topic = pa.table({"entity_id": pa.array(entity_ids, pa.string()),
                          "pos": pa.array(range(len(entity_ids)), pa.int32())})
        name = "described_entities"
        said = (f"concat_ws(' ', title, {_DESCRIBED_TEXT}, array_to_string({_DESCRIBED_ALIASES}, ' '), "
                f"array_to_string({_DESCRIBED_COLUMNS}, ' '))")
        plain = f"NOT {_NAMES_OTHERS} AND NOT regexp_matches(said, '[^\\x01-\\x7f]|''')"
        rows_of = (f"SELECT entity_id, pos, evidence_id, doc, title, text, {said} AS said FROM evidence JOIN {name} "
                   f"USING (entity_id) WHERE {acl_sql()} AND kind <> 'lineage'")
        # A connection of its own for the registered table: registering on this thread's cursor fails while an
        # earlier read on it has rows left unfetched.
        con = self.con.cursor()
        try:
            con.execute("USE catalog")
            con.register(name, topic)
            tokens = con.sql(
                f"""SELECT tok, list(DISTINCT pos ORDER BY pos) AS positions
                    FROM (SELECT pos, unnest(regexp_extract_all(lower(said), '[a-z0-9]+')) AS tok
                          FROM ({rows_of}) WHERE {plain})
                    GROUP BY tok""", params=self._acl).to_arrow_table()
            rows = con.execute(
                f"""SELECT evidence_id, entity_id, title, {_DESCRIBED_TEXT}, {_DESCRIBED_ALIASES}, {_DESCRIBED_COLUMNS},
                           {_NAMES_OTHERS}
                    FROM ({rows_of}) WHERE NOT ({plain}) ORDER BY evidence_id""", self._acl).fetchall()
        finally:
            con.close()
        return tokens, self._described(rows)

    def metrics_mentioning(self, terms: list[str]) -> list[Evidence]:
        """Visible metric definitions whose stored document holds one of `terms`, case aside: the few whose formula,
        mentions or links may read those ids, found in SQL (parsing every metric took ~7 s at a million objects).
        The caller reads each one's formula and links itself; this only narrows which are parsed."""
        terms = sorted({t.lower() for t in terms if t})
        if not terms:
            return []
        # One case-blind pattern over the documents, a literal per term (RE2: half the time of lower() and contains)
        return self._docs("kind = 'metric_definition' AND regexp_matches(doc, ?)",
                          ["(?i)" + "|".join(re.escape(t) for t in terms)])

    def listed(self, kinds: list[str]) -> list[Listed | Evidence]:
        """Every visible object of these kinds as a listing row reads it, by evidence id: its columns, not the parsed
        object (a whole-catalog listing reads thousands; parsing them took about a second at 100,000 objects). One
        that names others (`mentions`) may have its text redacted for this role, so it is read in full."""
        return self._listed(kinds, "TRUE", [])

    def _listed(self, kinds: list[str], where: str, params: list) -> list[Listed | Evidence]:
        rows = self.con.execute(
            f"""SELECT evidence_id, entity_id, kind, title, text, version, authority, lifecycle, authority_class,
                      valid_from, valid_to, expires_at, owner, recorded_at,
                      coalesce(len(json_keys(doc -> '$.mentions')), 0) > 0
               FROM evidence WHERE {acl_sql()} AND kind = ANY(?::VARCHAR[]) AND ({where}) ORDER BY evidence_id""",
            [*self._acl, list(kinds), *params]).fetchall()
        named = {e.evidence_id: e for e in self._by_key("evidence_id", [r[0] for r in rows if r[-1]])}
        return [named[r[0]] if r[-1] else Listed(r[0], r[1], KIND[r[2]], r[3], r[4] or "", r[5], AUTHORITY[r[6]],
                                                 LIFECYCLE[r[7]], *r[8:14]) for r in rows]

    def entity_ids(self, kinds: list[str]) -> set[str]:
        """The entities holding a visible object of these kinds."""
        return {e for (e,) in self.con.execute(
            f"SELECT DISTINCT entity_id FROM evidence WHERE {acl_sql()} AND kind = ANY(?::VARCHAR[])",
            [*self._acl, list(kinds)]).fetchall()}

    def dated_between(self, kinds: list[str], start: date, end: date | None, drafts: bool) -> list[Listed | Evidence]:
        """Every visible object of these kinds, as `listed` reads them, of the entities that hold one that may start
        or be recorded in [start, end) (end None: no end), or a draft when `drafts`. Some more than that: a recorded
        time is taken a day either side of the span, whatever its time zone, so the caller decides on the objects
        themselves. A question about the catalog's changes reads these, not every object (280,000 at a million)."""
        def span(column: str) -> str:
            return f"({column} >= ?" + (f" AND {column} < ?)" if end is not None else ")")
        bounds = [start] + ([end] if end is not None else [])
        wide = [start - timedelta(days=1)] + ([end + timedelta(days=1)] if end is not None else [])
        return self._listed(kinds, f"""entity_id IN (
            SELECT entity_id FROM evidence WHERE {acl_sql()} AND kind = ANY(?::VARCHAR[])
            AND ({span('valid_from')} OR {span('CAST(recorded_at AS DATE)')} OR (? AND lifecycle = 'draft')))""",
                            [*self._acl, list(kinds), *bounds, *wide, drafts])

    def entity_objects(self, entity_id: str) -> list[Evidence]:
        """Every visible object of the entity (`entity_id = ?` with a parameter is not answered from the index:
        11 against ~3 ms at 100,000 objects)."""
        return self._remember(self._by_key("entity_id", [entity_id]))

    def by_ids(self, ids: list[str]) -> list[Evidence]:
        """Objects by evidence id, or every object of an entity id (two IN lists of literals, each an
        index-speed lookup: an OR of two list_contains, or `= ANY(?)`, scans the whole table). Objects this
        view read before come from its memory."""
        if not ids:
            return []
        known = self._objects
        found = {i: e for i in ids if (e := known.get(i)) is not None}  # another thread may empty it meanwhile
        rest = [i for i in ids if i not in found]
        if rest:
            found.update({e.evidence_id: e for e in self._remember(self._by_key("evidence_id", rest))})
            rest = [i for i in rest if i not in found]
        if rest:
            found.update({e.evidence_id: e for e in self._remember(self._by_key("entity_id", rest))})
        return sorted(found.values(), key=lambda e: e.evidence_id)

    # Objects a view keeps by evidence id (emptied when full): the file is read-only while open, so an object this
    # role read once (parsed, its hidden references redacted) is the same object the next time. A question reads
    # a version's model and lineage several times over (backing model, input models, the lineage graph).
    KEPT_OBJECTS = 5_000

    @cached_property
    def _objects(self) -> dict[str, Evidence]:
        return {}

    def _remember(self, docs: list[Evidence]) -> list[Evidence]:
        if len(docs) > self.KEPT_OBJECTS // 10:  # a review queue or an evaluation reading many: not kept
            return docs
        if len(self._objects) + len(docs) > self.KEPT_OBJECTS:
            self._objects.clear()
        self._objects.update({e.evidence_id: e for e in docs})
        return docs

    @per_view
    def doc_blocks(self) -> list[Evidence]:
        """Every visible dbt doc block (read in SQL by authority class, not parsed out of all documentation)."""
        return self.of_kinds(["documentation"], authority_class="dbt_doc")

    def by_written_ids(self, said: set[str]) -> list[Evidence]:
        """Objects whose evidence id or entity id is one of `said`, case aside (an id as a question writes it): the
        catalog's ids by their lower case, read through this view's ACL."""
        if not said:
            return []
        return self._by_key("evidence_id", catalog_facts(self.store).written(said))

    def granted_only(self, ev: Evidence) -> bool:
        """Whether this view reads `ev` only because it is granted by id (a steward's review queue), not through the
        role's own ACL: the two terms of acl_sql, read off the object."""
        return ev.evidence_id in self.grants and self.role not in ev.acl

    def visible_ids(self, ids: set[str]) -> set[str]:
        """Which of these evidence ids the role may see: the check on a model's citations."""
        if not ids:
            return set()
        return {e.evidence_id for e in self._by_key("evidence_id", ids)}

    def edge_models_into(self, node: str) -> list[tuple[str, str]]:
        """(lineage evidence_id, upstream) for visible edges whose downstream is `node`."""
        return [(e.evidence_id, e.upstream) for e in self.store.rows.edges("downstream", [node], self.role, self.grants)]

    def edges_into(self, nodes: list[str]) -> list:
        """The visible lineage edges whose downstream is one of `nodes`, in one read."""
        return self.store.rows.edges("downstream", nodes, self.role, self.grants)

    def linked_entities(self, entity_id: str) -> set[str]:
        """Entities one hop away through links or lineage edges carried by visible objects."""
        acl, e_acl, x_acl = acl_sql(), acl_sql("e"), acl_sql("x")
        rows = self.con.execute(
            f"""WITH mine AS (SELECT evidence_id FROM evidence WHERE entity_id = ? AND {acl}),
                    ends AS (
                      SELECT l.target AS other FROM links l JOIN evidence e USING (evidence_id)
                        WHERE {e_acl} AND (e.entity_id = ? )
                      UNION SELECT e.entity_id FROM links l JOIN evidence e USING (evidence_id)
                        WHERE {e_acl} AND (l.target = ? OR l.target IN (SELECT * FROM mine))
                      UNION SELECT l.upstream FROM lineage_edges l JOIN evidence e USING (evidence_id)
                        WHERE {e_acl} AND (l.downstream = ? OR l.downstream IN (SELECT * FROM mine))
                      UNION SELECT l.downstream FROM lineage_edges l JOIN evidence e USING (evidence_id)
                        WHERE {e_acl} AND (l.upstream = ? OR l.upstream IN (SELECT * FROM mine)))
               SELECT DISTINCT coalesce(x.entity_id, ends.other) FROM ends
               LEFT JOIN evidence x ON x.evidence_id = ends.other AND {x_acl}""",
            [entity_id, *self._acl, *self._acl, entity_id, *self._acl, entity_id, *self._acl, entity_id,
             *self._acl, entity_id, *self._acl]).fetchall()
        return {r for (r,) in rows if r and r != entity_id}

    def documents_about(self, entity_id: str) -> list[Evidence]:
        """Non-governing objects of the entity, or linked to it (documents, superseded_by, conflicts_with)."""
        # Indexed lookups, then the objects by id: one query with ORs of subqueries scanned the table.
        mine = [i for (i,) in self.con.execute(
            f"SELECT evidence_id FROM evidence WHERE {in_list('entity_id', [entity_id])}").fetchall()]
        linking = [i for (i,) in self.con.execute(
            f"SELECT evidence_id FROM links WHERE {in_list('target', [entity_id, *mine])}").fetchall()]
        return self._docs(f"""{in_list('evidence_id', [*mine, *linking])}
               AND (authority <> 'authoritative' OR lifecycle IN ('draft', 'superseded', 'deprecated'))""", [])

    def freshness_objects(self, source: str) -> list[FreshnessRecord]:
        """The visible freshness records of a source (named by its entity id or a dbt node id), by evidence id."""
        return self._freshness_records(self.store.rows.freshness_ids(source))

    def freshness_of(self, sources: list[str]) -> dict[str, list[FreshnessRecord]]:
        """freshness_objects of many sources at once (a whole-catalog freshness question): the ids in one batch, where
        one source's are found by indexed lookups."""
        found = self.store.rows.freshness_ids_of(list(dict.fromkeys(sources)))
        return {s: self._freshness_records(ids) for s, ids in found.items()}

    def _freshness_records(self, ids: list[str]) -> list[FreshnessRecord]:
        facts = catalog_facts(self.store)
        return [r for i in ids if (r := facts.freshness(i, self.role, self.grants)) is not None]

    def upstream(self, starts: list[str], day: date | None, depth: int = 25) -> list[tuple]:
        return self.store.upstream_closure(starts, self.role, day, depth, grants=self.grants)

    def downstream(self, starts: list[str], day: date | None, depth: int = 25) -> list[tuple]:
        return self.store.upstream_closure(starts, self.role, day, depth, direction="downstream", grants=self.grants)

    def column_edges(self, nodes: list[str], day: date | None) -> list[tuple]:
        return self.store.column_edges(self.role, day, nodes, self.grants)

    def hidden_ids(self, ids: set[str]) -> set[str]:
        # Hidden and absent alike (Store.unseen_ids): where a chain stops must not say which it was.
        return self.store.unseen_ids(self.role, ids, self.grants, self._carriers(ids))


def seen_text(view: Visible) -> str:
    """How many objects a view reads, said the same wherever it is said (the sidebar, an answer's authorization step):
    what the role's own ACL shows, and apart from it what a steward's review queue adds. One number for both read as
    "what you can see" beside an answer that counts the queue too, and the two seemed to disagree (1 against 12)."""
    own, queued = view.count - view.queued_count, view.queued_count
    text = f"{own} object{'' if own == 1 else 's'} you can see"
    return text + (f", {queued} more in your review queue (read-only)" if queued else "")


def visible(store: Store, role: str, grants: frozenset[str] = frozenset()) -> Visible:
    """The role's view of this store, widened by `grants` (evidence ids: a steward's review queue); one per
    (role, grants) and store, since the database is read-only: every thread asking as the role shares it."""
    key = (role, frozenset(grants))
    with store._lock:
        if key not in store.views:
            store.views[key] = Visible(store, role, key[1])
        return store.views[key]
