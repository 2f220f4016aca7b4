"""One column of a table (issue 46 item 4): "what does column X of Y mean?" answers from that column's own description,
never from a doc block no node uses nor from column lineage; "which column of Y is deprecated / PII / the key?" finds
it from the columns' descriptions, tests, tags and meta. On a public library's dbt project from
scripts/gen_dbt_project.py's `write_target`; a hidden table's columns read as a table never written.
"""
from datetime import datetime, timezone

import pytest
from dbt_project import project_store

from core.answer.ask import Question, ask
from core.explain.render import render_text

AT = datetime(2027, 2, 1, 9, tzinfo=timezone.utc)
SPEC = {
    "project": "shelfmark_library",
    "sources": [{"source": "ils", "name": "checkouts", "columns": ["loan_id", "patron_id"]}],
    # A doc block named like a column, used by no node: it must never answer for the column.
    "docs": [{"name": "due_days", "text": "Due days are counted in working days at the central branch only."}],
    "models": [
        {"name": "book_loans", "description": "One row per loan of a book.", "depends_on": ["source:ils.checkouts"],
         "columns": [{"name": "loan_id", "description": "Identifier of the loan.", "type": "BIGINT"},
                     {"name": "patron_id", "description": "Foreign key to the patron who borrowed the book."},
                     {"name": "patron_email", "description": "Where reminders go.", "meta": {"contains_pii": True}},
                     {"name": "due_days", "description": "Calendar days until the book is due back."},
                     {"name": "fine_cents", "description": "Late fine. Deprecated: use fine_eur, which counts "
                                                           "waived fines too."},
                     {"name": "fine_eur", "description": "Late fine in euros, after waivers."}],
         "tests": [{"name": "unique", "column": "loan_id"}, {"name": "not_null", "column": "loan_id"},
                   {"name": "not_null", "column": "patron_id"}]},
        {"name": "donor_gifts", "description": "Gifts from donors.", "depends_on": ["source:ils.checkouts"],
         "columns": [{"name": "gift_id", "description": "The gift."},
                     {"name": "donor_name", "description": "Who gave it; personal data."}]},
    ],
}


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    return project_store(tmp_path_factory.mktemp("shelfmark"), SPEC, {
        "roles": ["desk", "fundraising"], "defaults": {"acl": ["desk", "fundraising"]},
        "objects": {"model:donor_gifts": {"acl": ["fundraising"]}}})


def _ask(store, q, role="desk"):
    return ask(store, Question(role=role, text=q, at=AT))


@pytest.mark.parametrize("q", ["what does column due_days of book_loans mean?",
                               "what does the due_days column in book_loans mean?",
                               "what is the due_days column of book loans?", "meaning of due_days in book_loans",
                               "what is due_days in book_loans?"])
def test_what_a_column_means_is_its_own_description(store, q):
    env = _ask(store, q)
    assert env.intent == "column_meaning" and env.entity_id == "model.book_loans", (q, env.intent, env.verdict)
    assert env.verdict == "Column due_days of book_loans: Calendar days until the book is due back.", env.verdict
    assert "working days" not in render_text(env)  # the unused doc block


def test_which_column_is_deprecated_pii_or_the_key(store):
    for q in ("which column of book_loans is deprecated?", "which columns in book_loans are obsolete?"):
        env = _ask(store, q)
        assert env.intent == "column_find" and [c.name for c in env.table_facts.columns] == ["fine_cents"], q
        assert env.verdict.startswith("In book_loans, fine_cents is deprecated")
    pii = _ask(store, "which columns of book_loans are PII?")
    assert [c.name for c in pii.table_facts.columns] == ["patron_email"]  # from its meta; the foreign key is not
    key = _ask(store, "which column of book_loans is the key?")
    assert [c.name for c in key.table_facts.columns] == ["loan_id"], key.verdict  # unique + not_null, not patron_id
    assert _ask(store, "what is the key of book_loans?").table_facts.columns[0].name == "loan_id"
    none = _ask(store, "which column of book_loans is deprecated?".replace("book_loans", "donor_gifts"),
                role="fundraising")
    assert none.verdict.startswith("No column of donor_gifts is recorded as deprecated: checked the 2 columns")


def test_a_hidden_tables_columns_read_as_a_table_never_written(store):
    for q in ("what does column donor_name of donor_gifts mean?", "which columns of donor_gifts are PII?"):
        hidden, made_up = _ask(store, q), _ask(store, q.replace("donor_gifts", "donor_loans"))
        assert hidden.behavior.value == "not_found_or_not_authorized", hidden.verdict
        assert (hidden.behavior, hidden.verdict) == (made_up.behavior, made_up.verdict)
        assert "personal data" not in render_text(hidden)
