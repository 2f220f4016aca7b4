"""A catalog file is data, never a program: whatever a file holds, the connection AsOf reads it through cannot read
the host's files, load extensions or change its own settings, and `check_declared` (what a replica checks before it
switches, core/serve/replica.py) names anything beyond the schema's tables and columns."""
import shutil

import duckdb
import pytest
from tram_catalog import EVIDENCE, ROLES_FILE
from visits_catalog import catalog_store

from core.catalog.store import DatabaseError, Store, open_data_file

SECRET = "HOST-SECRET-0b9d tram depot keys"


@pytest.fixture(scope="module")
def clean(tmp_path_factory):
    store = catalog_store(tmp_path_factory.mktemp("tram") / "catalog", ROLES_FILE, EVIDENCE)
    store.close()
    return store.path


def _altered(clean, tmp_path, *statements):
    path = tmp_path / "altered.duckdb"
    shutil.copy(clean, path)
    con = duckdb.connect(str(path))
    for statement in statements:
        con.execute(statement)
    con.close()
    return path


@pytest.fixture
def secret_file(tmp_path):
    path = tmp_path / "host-only.txt"
    path.write_text(SECRET)
    return str(path).replace("'", "''")


def test_a_view_reading_a_host_file_shows_nothing_of_it(clean, tmp_path, secret_file):
    evil = _altered(clean, tmp_path, "DROP INDEX evidence_entity", "ALTER TABLE evidence RENAME TO evidence_rows",
                    f"""CREATE VIEW evidence AS SELECT e.* REPLACE (f.content AS text)
                        FROM evidence_rows e, read_text('{secret_file}') f""",
                    f"CREATE MACRO peek() AS TABLE SELECT content FROM read_text('{secret_file}')")
    store = Store(evil)  # opens: the engine settings alone must hold, before any check
    for sql in ("SELECT text FROM evidence", "SELECT * FROM peek()", f"SELECT * FROM read_text('{secret_file}')",
                f"SELECT * FROM read_csv('{secret_file}')"):
        with pytest.raises(duckdb.Error, match="disabled by configuration"):
            store.con.execute(sql).fetchall()
    for sql in ("SET enable_external_access = true", "SET autoload_known_extensions = true", "LOAD httpfs",
                "RESET lock_configuration"):
        with pytest.raises(duckdb.Error):
            store.con.execute(sql)
    with pytest.raises(duckdb.Error, match="disabled by configuration"):
        store.con.execute("SELECT text FROM evidence").fetchall()  # still refused after the tries above
    con = open_data_file(evil)  # the opener every read of a catalog file goes through
    with pytest.raises(duckdb.Error, match="disabled by configuration"):
        con.execute("SELECT title, text FROM evidence").fetchall()
    with pytest.raises(DatabaseError, match=r"holds what an AsOf catalog never does: view main\.evidence, "
                                            r"table macro main\.peek, table main\.evidence_rows"):
        store.check_declared()


@pytest.mark.parametrize("statements, named", [
    (["ALTER TABLE evidence ADD COLUMN note VARCHAR"], r"column evidence\.note \(VARCHAR\)"),
    # the declared column, computed on every read from what the file's author wrote
    (["DROP TABLE roles", "CREATE TABLE roles (role VARCHAR PRIMARY KEY, description VARCHAR GENERATED ALWAYS AS "
      "(upper(role)), steward BOOLEAN)"], r"column roles\.description \(VARCHAR, computed\)"),
    (["CREATE TABLE extra (x INTEGER)"], r"table main\.extra"),
    (["CREATE SCHEMA side", "CREATE TABLE side.meta (key VARCHAR, value VARCHAR)"], r"schema side.*table side\.meta"),
    (["CREATE MACRO twice(x) AS x * 2"], r"macro main\.twice"),
])
def test_anything_the_schema_does_not_declare_is_named(clean, tmp_path, statements, named):
    store = Store(_altered(clean, tmp_path, *statements))
    with pytest.raises(DatabaseError, match=named):
        store.check_declared()


def test_a_catalog_as_written_passes(clean):
    Store(clean).check_declared()
