"""The ANN vector index (core/retrieve/ann.py) keeps permissions exact and finds what the flat search finds.

The catalogs here are small, so the index is forced with a threshold of one row; the same code path then
serves a 100k catalog. For every role, every question of the paraphrase set and research suites: the ANN
results are the role's own objects only, the visible sets of ANN and flat search are identical, and the
top results agree (recall against flat; the 100k figures are in benchmarks/results/bench.md).
"""

import pytest
import yaml
from conftest import DEMO, ROOT, SUITES

from core.answer.ask import Question, ask
from core.catalog.access import visible
from core.catalog.store import Store, write_catalog
from core.ingest.load import load_catalog
from core.retrieve import ann, reader
from core.retrieve.index import index_path
from core.retrieve.search import Searcher
from core.retrieve.writer import build_index

PARAPHRASES = [c["q"] for c in yaml.safe_load((ROOT / "tests" / "paraphrases.yaml").read_text())]
CATALOGS = {"demo": DEMO, "suite_a": SUITES / "suite_a.catalog.json", "suite_b": SUITES / "suite_b.catalog.json"}


def _questions(name: str) -> list[str]:
    if name == "demo":
        return PARAPHRASES
    gold = yaml.safe_load((SUITES / f"{name}.gold.json").read_text())
    return [g["question"] for g in gold]


@pytest.fixture(scope="module")
def forced(tmp_path_factory, embedder):
    """Each catalog indexed once with an ANN vector index forced on: (store, ANN searcher, flat searcher)."""
    out = {}
    for name, source in CATALOGS.items():
        db = tmp_path_factory.mktemp(f"ann_{name}") / f"{name}.duckdb"
        catalog = load_catalog(source)
        write_catalog(catalog, db)
        report = build_index(catalog, db, embedder, quiet=True, ann_min_rows=1)
        assert report.ann
        store = Store(db)
        out[name] = (store, Searcher(store, embedder), Searcher(store, embedder, exact=True))
    return out


def test_an_index_below_the_threshold_has_no_vector_index(demo):
    _, searcher = demo
    assert not ann.has_vector_index(searcher.table)


@pytest.mark.parametrize("name", CATALOGS)
def test_ann_and_flat_see_the_same_objects_for_every_role(forced, name):
    store, approx, flat = forced[name]
    assert ann.has_vector_index(approx.table)
    differences = []
    for role in sorted(r.name for r in store.roles()):
        allowed = visible(store, role).visible_ids({row[0] for row in store.con.execute(
            "SELECT evidence_id FROM evidence").fetchall()})
        where = approx.role_filter(role)
        for question in _questions(name)[:12]:
            # k larger than the table: both must return every row the role may see, and nothing else.
            got = {h.evidence_id for h in approx.vector(question, where, k=500)}
            exact = {h.evidence_id for h in flat.vector(question, where, k=500)}
            if got != exact or not got <= allowed:
                differences.append((role, question, sorted(got ^ exact), sorted(got - allowed)))
    assert differences == []


@pytest.mark.parametrize("name", CATALOGS)
def test_ann_top_results_match_flat(forced, name):
    store, approx, flat = forced[name]
    found = total = 0
    for role in sorted(r.name for r in store.roles()):
        where = f"{approx.role_filter(role)} AND part = 'body'"
        for question in _questions(name):
            exact = [h.evidence_id for h in flat.vector(question, where, k=10)]
            got = {h.evidence_id for h in approx.vector(question, where, k=10)}
            found += len(got & set(exact))
            total += len(exact)
    assert total and found / total >= 0.99


def test_answers_through_ann_equal_answers_through_flat(forced):
    store, approx, flat = forced["demo"]
    for question in PARAPHRASES:
        q = Question(role="analyst", text=question)
        a, b = ask(store, q, searcher=approx), ask(store, q, searcher=flat)
        assert (a.behavior, [s.evidence_id for s in a.selected]) == (b.behavior, [s.evidence_id for s in b.selected])


def _vector_index_id(db) -> str:
    import lance
    ds = lance.dataset(reader.dataset_uri(index_path(db))[0])
    return next(i["uuid"] for i in ds.list_indices() if ann.VECTOR_COLUMN in i["fields"])


def test_a_reingest_keeps_the_index_and_a_catalog_below_the_threshold_drops_it(tmp_path, embedder):
    db = tmp_path / "demo.duckdb"
    catalog = load_catalog(DEMO)
    write_catalog(catalog, db)
    assert build_index(catalog, db, embedder, quiet=True, ann_min_rows=1).ann
    trained = _vector_index_id(db)
    assert build_index(catalog, db, embedder, quiet=True, ann_min_rows=1).ann
    assert _vector_index_id(db) == trained  # nothing new: the rows are not rewritten, the index not retrained
    report = build_index(catalog, db, embedder, quiet=True, ann_min_rows=10**6)
    assert not report.ann and report.embedded == 0
    store = Store(db)
    assert not ann.has_vector_index(Searcher(store, embedder).table)
    store.close()


def test_probes_follow_the_layout_the_index_was_trained_with(tmp_path, embedder, monkeypatch):
    """A search probes a share of the partitions the index holds, read from the index (not guessed from its
    rows), and a re-ingest retrains an index whose layout is far from what its size wants."""
    db = tmp_path / "demo.duckdb"
    catalog = load_catalog(DEMO)
    write_catalog(catalog, db)
    wanted = ann.partitions
    monkeypatch.setattr(ann, "partitions", lambda rows: 8)  # as if trained at another size
    assert build_index(catalog, db, embedder, quiet=True, ann_min_rows=1).ann
    store = Store(db)
    searcher = Searcher(store, embedder)
    assert searcher.partitions == 8 and ann.nprobes(searcher.partitions) == 6  # 75% of a coarse layout
    store.close()
    monkeypatch.setattr(ann, "partitions", wanted)  # the demo's size wants one partition: retrained
    assert build_index(catalog, db, embedder, quiet=True, ann_min_rows=1).ann
    store = Store(db)
    assert Searcher(store, embedder).partitions == wanted(Searcher(store, embedder).rows) == 1
    store.close()


def _index_type(db) -> str:
    import lance
    ds = lance.dataset(reader.dataset_uri(index_path(db))[0])
    return next(i["type"] for i in ds.list_indices() if ann.VECTOR_COLUMN in i["fields"])


def _index_uuids(db) -> set[str]:
    import lance
    ds = lance.dataset(reader.dataset_uri(index_path(db))[0])
    return {i["uuid"] for i in ds.list_indices() if ann.VECTOR_COLUMN in i["fields"]}


def _reingest_one_changed(catalog, db, embedder):
    """Ingest the catalog again with one object's text changed; the changed catalog."""
    changed = catalog.model_copy(update={"evidence": [
        e.model_copy(update={"text": e.text + " Revised.", "content_hash": None}) if i == 3 else e
        for i, e in enumerate(catalog.evidence)]})
    changed.evidence[3].content_hash = changed.evidence[3].compute_hash()
    write_catalog(changed, db)
    assert build_index(changed, db, embedder, quiet=True, ann_min_rows=1).embedded >= 1
    return changed


def test_a_catalog_of_rq_min_rows_gets_rabitq_codes_and_finds_what_flat_finds(tmp_path, embedder, monkeypatch):
    """From RQ_MIN_ROWS the index keeps RaBitQ codes (IVF_RQ) and a search re-scores its candidates with the full
    vectors: every role still sees exactly its own rows, the top 10 and the scores are the flat search's, and the
    answers are the same. A catalog that crosses the threshold on a re-ingest is retrained to the new kind."""
    db = tmp_path / "demo.duckdb"
    catalog = load_catalog(DEMO)
    write_catalog(catalog, db)
    assert build_index(catalog, db, embedder, quiet=True, ann_min_rows=1).ann
    assert _index_type(db) == "IVF_FLAT"
    monkeypatch.setattr(ann, "RQ_MIN_ROWS", 1)  # as if the demo were a catalog of millions of rows
    assert build_index(catalog, db, embedder, quiet=True, ann_min_rows=1).ann
    assert _index_type(db) == "IVF_RQ"
    trained = _index_uuids(db)
    # A re-ingest with one object changed keeps the codes it has (the changed rows are searched beside them): a
    # retrain at every ingest would cost a 1M catalog's 1% re-ingest a whole index build.
    changed = _reingest_one_changed(catalog, db, embedder)
    assert _index_uuids(db) == trained and _index_type(db) == "IVF_RQ"
    catalog = changed
    store = Store(db)
    approx, flat = Searcher(store, embedder), Searcher(store, embedder, exact=True)
    assert approx.index_type == "IVF_RQ"
    for role in sorted(r.name for r in store.roles()):
        allowed = visible(store, role).visible_ids({row[0] for row in store.con.execute(
            "SELECT evidence_id FROM evidence").fetchall()})
        where = approx.role_filter(role)
        for question in PARAPHRASES[:12]:
            got = {h.evidence_id for h in approx.vector(question, where, k=500)}
            assert got == {h.evidence_id for h in flat.vector(question, where, k=500)} and got <= allowed
            top = [(h.evidence_id, round(h.score, 5)) for h in approx.vector(question, where, k=10)]
            assert top == [(h.evidence_id, round(h.score, 5)) for h in flat.vector(question, where, k=10)]
    for question in PARAPHRASES:
        q = Question(role="analyst", text=question)
        a, b = ask(store, q, searcher=approx), ask(store, q, searcher=flat)
        assert (a.behavior, [s.evidence_id for s in a.selected]) == (b.behavior, [s.evidence_id for s in b.selected])
    store.close()


@pytest.mark.parametrize("kind", ["IVF_FLAT", "IVF_RQ"])
def test_a_large_index_is_built_in_segments_and_finds_what_flat_finds(tmp_path, embedder, monkeypatch, kind):
    """Above SEGMENT_ROWS the vector index is built a group of fragments at a time on centroids trained once (and for
    IVF_RQ one RaBitQ rotation), and the segments merged: one index over every row, with the layout partitions()
    gives, that finds for every role what the flat search finds (all its partitions probed here, so nothing may
    differ); a retrain replaces it the same way."""
    import lance

    from core.retrieve import writer
    monkeypatch.setattr(writer, "FILE_ROWS", 12)  # files of 12 rows
    monkeypatch.setattr(writer, "SMALL_FRAGMENTS", 10**9)  # left as written, so there are fragments to group
    monkeypatch.setattr(ann, "SEGMENT_ROWS", 30)
    monkeypatch.setattr(ann, "partitions", lambda rows: 2)
    monkeypatch.setattr(ann, "RQ_MIN_ROWS", 1 if kind == "IVF_RQ" else 10**9)
    built = []
    uncommitted = lance.LanceDataset.create_index_uncommitted
    monkeypatch.setattr(lance.LanceDataset, "create_index_uncommitted",
                        lambda self, *a, **k: built.append(k["fragment_ids"]) or uncommitted(self, *a, **k))
    db = tmp_path / "demo.duckdb"
    catalog = load_catalog(DEMO)
    write_catalog(catalog, db)
    assert build_index(catalog, db, embedder, quiet=True, ann_min_rows=1).ann
    ds = lance.dataset(reader.dataset_uri(index_path(db))[0])
    assert _index_type(db) == kind
    assert len(built) > 2 and sorted(f for g in built for f in g) == sorted(f.fragment_id for f in ds.get_fragments())
    # The segments merged into the index leave no files behind: every index folder is one the table lists.
    assert {p.name for p in (index_path(db) / "chunks.lance" / "_indices").iterdir()} == {
        i["uuid"] for i in ds.list_indices()}

    def check(partitions):
        store = Store(db)
        approx, flat = Searcher(store, embedder), Searcher(store, embedder, exact=True)
        assert approx.partitions == partitions and approx.table.index_stats(
            ann._vector_index(approx.table).name).num_unindexed_rows == 0
        for role in sorted(r.name for r in store.roles()):
            where = approx.role_filter(role)
            for question in PARAPHRASES[:10]:
                assert ({h.evidence_id for h in approx.vector(question, where, k=500)}
                        == {h.evidence_id for h in flat.vector(question, where, k=500)}), (role, question)
                assert ([h.evidence_id for h in approx.vector(question, where, k=10)]
                        == [h.evidence_id for h in flat.vector(question, where, k=10)]), (role, question)
        store.close()

    check(2)
    monkeypatch.setattr(ann, "partitions", lambda rows: 3)  # another layout: the re-ingest retrains, in segments
    built.clear()
    assert build_index(catalog, db, embedder, quiet=True, ann_min_rows=1).ann
    assert len(built) > 2
    check(3)


def test_an_ingest_leaving_many_small_fragments_rewrites_them_and_finds_the_same(tmp_path, embedder, monkeypatch):
    """A table of many small fragments (files of a few rows here; re-ingests add a fragment each): where searches read
    rows by their place (an IVF_RQ index re-scores its candidates) the ingest rewrites them into fragments of
    COMPACT_ROWS rows before the vector index is built. The rows, every role's results and scores, and the answers are
    those of the table as written; a re-ingest that adds a fragment or two leaves the table's fragments as they are."""
    import lance

    from core.retrieve import writer
    monkeypatch.setattr(writer, "FILE_ROWS", 6)  # a fragment of every 6 rows
    monkeypatch.setattr(writer, "COMPACT_ROWS", 40)
    monkeypatch.setattr(writer, "SMALL_FRAGMENTS", 3)
    monkeypatch.setattr(ann, "RQ_MIN_ROWS", 1)  # as if the demo were a catalog of millions of rows
    catalog = load_catalog(DEMO)

    def ingest(name, catalog):
        db = tmp_path / name / "demo.duckdb"
        db.parent.mkdir(exist_ok=True)
        write_catalog(catalog, db)
        assert build_index(catalog, db, embedder, quiet=True, ann_min_rows=1).ann
        return db, lance.dataset(reader.dataset_uri(index_path(db))[0])

    db, ds = ingest("compacted", catalog)
    with monkeypatch.context() as m:
        m.setattr(writer, "SMALL_FRAGMENTS", 10**9)
        written_db, written = ingest("as_written", catalog)
    rows = ds.count_rows()
    assert len(written.get_fragments()) > 10
    assert len(ds.get_fragments()) <= -(-rows // 40) and sum(f.count_rows() for f in ds.get_fragments()) == rows
    columns = ["chunk_id", "evidence_id", "part", "text", "acl", "vector"]
    assert ds.to_table(columns=columns).sort_by("chunk_id") == written.to_table(columns=columns).sort_by("chunk_id")

    store, other = Store(db), Store(written_db)
    searchers = [Searcher(store, embedder), Searcher(other, embedder)]
    assert searchers[0].index_type == "IVF_RQ"
    for role in sorted(r.name for r in store.roles()):
        where = searchers[0].role_filter(role)
        for question in PARAPHRASES[:10]:
            found = [[(h.evidence_id, h.part, h.text, round(h.score, 5)) for h in s.vector(question, where, k=k)]
                     for s in searchers for k in (10, 500)]
            assert found[:2] == found[2:], (role, question)
            assert [h.evidence_id for h in searchers[0].text(question, where, k=10)] == \
                [h.evidence_id for h in searchers[1].text(question, where, k=10)]
    for question in PARAPHRASES:
        q = Question(role="analyst", text=question)
        a, b = ask(store, q, searcher=searchers[0]), ask(other, q, searcher=searchers[1])
        assert (a.behavior, [s.evidence_id for s in a.selected]) == (b.behavior, [s.evidence_id for s in b.selected])
    store.close()
    other.close()

    before = len(ds.get_fragments())
    _reingest_one_changed(catalog, db, embedder)
    after = lance.dataset(reader.dataset_uri(index_path(db))[0])
    assert before < len(after.get_fragments()) <= before + 2
