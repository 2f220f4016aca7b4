"""A re-ingest copies an unchanged object's rows from the catalog file it replaces instead of reading the object back
and building them again; what it writes must be the file a full write gives: every table, row for row, in the same
order, with the same history. Objects here are gauges on a canal (names of this test's own)."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import duckdb

from core.catalog import store
from core.catalog.spilled import SpilledEvidence
from core.catalog.store import write_catalog
from core.ingest.ingest import read_inputs

ROLES = ["lockkeeper", "hydrologist"]
# Columns that hold the wall-clock time of the write, which two writes never share.
CLOCK = {"ingests": "ingested_at"}


def _gauge(n: int, text: str = "", acl: list[str] | None = None, **extra) -> dict:
    eid = f"gauge.canal.g{n}"
    obj = {"evidence_id": eid, "entity_id": f"gauge.canal.g{n}", "kind": "model", "title": f"Gauge {n}",
           "authority": "authoritative", "lifecycle": "current", "acl": acl or ["lockkeeper"],
           "text": text or f"Water level at lock {n}, read every ten minutes.", "aliases": [f"lock {n} level"],
           "edges": [{"upstream": f"source.canal.raw{n}", "downstream": eid},
                     {"upstream": f"source.canal.rain{n}", "downstream": eid}],
           "freshness": {"source": f"source.canal.raw{n}", "warn_after_hours": 2 + n},
           "valid_from": "2024-01-01", **({"links": {"lineage": ["gauge.canal.g0"]}} if n else {}), **extra}
    return obj


def _write(folder: Path, objects: list[dict]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob("*.json"):
        old.unlink()
    half = len(objects) // 2  # two files: the copy must follow the catalog's order across them
    (folder / "a.json").write_text(json.dumps({"roles": ROLES, "evidence": objects[:half]}))
    (folder / "b.json").write_text(json.dumps({"evidence": objects[half:]}))
    return folder


def _ingest(db: Path, folder: Path) -> None:
    catalog, _ = read_inputs(db, folder)
    assert isinstance(catalog.evidence, SpilledEvidence)  # the path `asof ingest` takes
    write_catalog(catalog, db)


def _tables(db: Path) -> dict[str, list[tuple]]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        names = [t for (t,) in con.execute("SELECT table_name FROM information_schema.tables "
                                           "WHERE table_schema = 'main' ORDER BY table_name").fetchall()]
        out = {}
        for name in names:
            columns = [d[0] for d in con.execute(f"SELECT * FROM {name} LIMIT 0").description
                       if d[0] != CLOCK.get(name)]
            where = " WHERE key != 'ingested_at'" if name == "meta" else ""
            out[name] = con.execute(f"SELECT {', '.join(columns)} FROM {name}{where} ORDER BY rowid").fetchall()
        return out
    finally:
        con.close()


def _edited(objects: list[dict]) -> list[dict]:
    """A second version of the canal: one text changed, one ACL widened, one gauge gone, one added, two swapped."""
    out = [dict(o) for o in objects]
    out[3]["text"] = "Water level at lock 3, now read every five minutes."
    out[5]["acl"] = ["lockkeeper", "hydrologist"]
    del out[19]
    out.append(_gauge(40))
    out[10], out[11] = out[11], out[10]
    return out


def test_a_reingest_writes_the_file_a_full_write_gives_and_rebuilds_only_what_changed(tmp_path, monkeypatch):
    """Ingest, then re-ingest an edited catalog twice from the same first file: once as `asof ingest` does it
    (unchanged objects' rows copied), once with every row built from the objects. Every table (current rows,
    entities, history, latest ACLs, meta) is the same, row for row in the same order, and only the changed and added
    objects' rows were built: the 17 unchanged ones (two of them moved) were neither read back nor rebuilt."""
    objects = [_gauge(n) for n in range(20)]
    first = tmp_path / "copied" / "catalog.duckdb"
    _ingest(first, _write(tmp_path / "v1", objects))
    full = tmp_path / "full" / "catalog.duckdb"
    full.parent.mkdir()
    shutil.copy(first, full)
    v2 = _write(tmp_path / "v2", _edited(objects))

    built: list[str] = []
    real_rows = store._rows
    monkeypatch.setattr(store, "_rows", lambda evidence: (built.extend(e.evidence_id for e in evidence),
                                                          real_rows(evidence))[1])
    read_back: list[int] = []
    real_read = SpilledEvidence._read
    monkeypatch.setattr(SpilledEvidence, "_read", lambda self, start, stop: (read_back.append(stop - start),
                                                                             real_read(self, start, stop))[1])
    _ingest(first, v2)
    assert sorted(built) == ["gauge.canal.g3", "gauge.canal.g40", "gauge.canal.g5"]
    assert sum(read_back) == 3  # the unchanged objects are not even read back from the spill

    built.clear()
    monkeypatch.setattr(store, "_kept", lambda *args: None)  # every row built, as before this change
    _ingest(full, v2)
    assert len(built) == 20
    copied, rebuilt = _tables(first), _tables(full)
    assert copied.keys() == rebuilt.keys() and {"evidence", "evidence_history", "entities"} <= copied.keys()
    for name in rebuilt:
        assert copied[name] == rebuilt[name], name
    order = [r[0] for r in copied["evidence"]]
    assert order.index("gauge.canal.g11") < order.index("gauge.canal.g10")  # the catalog's order, not the old file's


def test_an_object_changed_under_the_content_hash_it_declares_is_rebuilt(tmp_path):
    """A catalog may give an object's content_hash itself; an edit that keeps it still reaches the database (the
    copy goes by the object's whole document, not by its declared hash)."""
    objects = [_gauge(n, content_hash=f"sha256:fixed{n}") for n in range(4)]
    db = tmp_path / "catalog.duckdb"
    _ingest(db, _write(tmp_path / "v1", objects))
    objects[2] = {**objects[2], "text": "Water level at lock 2, gauge replaced in March."}
    _ingest(db, _write(tmp_path / "v2", objects))
    con = duckdb.connect(str(db), read_only=True)
    try:
        text, doc = con.execute("SELECT text, doc FROM evidence WHERE evidence_id = 'gauge.canal.g2'").fetchone()
    finally:
        con.close()
    assert text == "Water level at lock 2, gauge replaced in March." and "replaced in March" in json.loads(doc)["text"]


def test_a_file_written_by_other_row_building_code_is_not_copied_from(tmp_path, monkeypatch):
    """A previous file that does not say it was written by today's `_rows` (an older release) lends no rows: every
    object is built again, so rows whose building changed are never carried over stale."""
    objects = [_gauge(n) for n in range(4)]
    db = tmp_path / "catalog.duckdb"
    _ingest(db, _write(tmp_path / "v1", objects))
    con = duckdb.connect(str(db))
    con.execute("UPDATE meta SET value = 'older' WHERE key = 'rows_version'")
    con.execute("UPDATE lineage_edges SET governs = NOT governs")  # what older code might have built
    con.close()
    built: list[str] = []
    real_rows = store._rows
    monkeypatch.setattr(store, "_rows", lambda evidence: (built.extend(e.evidence_id for e in evidence),
                                                          real_rows(evidence))[1])
    _ingest(db, _write(tmp_path / "v2", objects))
    assert len(built) == 4
    con = duckdb.connect(str(db), read_only=True)
    try:
        assert con.execute("SELECT bool_and(governs) FROM lineage_edges").fetchone()[0] is True
    finally:
        con.close()
