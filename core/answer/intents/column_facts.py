"""One column of a table: what it means, from that column's own description (never a doc block no node uses, never
column lineage), and which column has a property (deprecated, PII, the key), from column descriptions, tests, tags
and meta.

The table is the ranker's choice over the role's view, read as the version in effect (core/answer/intents/table_facts.py);
a column word that names no column of it leaves the question to the definition flow (None).
"""
from __future__ import annotations

from core.answer.intents.dbt_listing import meta_matches
from core.answer.intents.table_facts import table_of
from core.answer.run import entity_on_day
from core.catalog.envelope import Behavior, Envelope, EvidenceRef, TableColumn, TableFacts
from core.catalog.evidence import ColumnSpec, Evidence
from core.read.intents.column_question import said_of

WHAT = {"deprecated": "deprecated", "pii": "personal data (PII)", "key": "the key"}


def answer(run, pick) -> Envelope | None:
    read = entity_on_day(run, pick)
    if isinstance(read, Envelope):
        return read
    primary, day, objs, versions = read
    table = table_of(objs, versions, day)
    if table is None:
        return None  # a metric's "what does X mean?" is its definition
    columns = {c.name: c for c in table.model.column_details}
    for name in table.model.columns:
        columns.setdefault(name, ColumnSpec(name=name))
    kind, said = run.intent.kind, run.reading.asked_column
    if kind == "column_meaning":
        col = next((c for n, c in columns.items() if n.lower() == (said or "").lower()), None)
        if col is None:
            return None
        verdict = _meaning(primary.label, col)
        chosen = [col]
    else:
        chosen = [c for c in columns.values() if _has(said, c, table)]
        verdict = _found(primary.label, said, chosen, len(columns))
    run.step(kind, f"{len(chosen)} column(s) of {table.evidence_id} answer it, from the columns' own descriptions, "
                   "tests, tags and meta")
    facts = TableFacts(evidence_id=table.evidence_id, asked="columns", column=chosen[0].name if len(chosen) == 1 else None,
                       columns=[TableColumn(name=c.name, type=c.type, description=c.description,
                                            tests=[t.name for t in table.model.tests if t.column == c.name])
                                for c in chosen])
    return run.envelope(Behavior.answer, verdict, intent=kind, entity_id=primary.entity_id, entity_label=primary.label,
                        selected=[EvidenceRef.of(table, "columns")], table_facts=facts)


def _meaning(label: str, col: ColumnSpec) -> str:
    typed = f" ({col.type})" if col.type else ""
    if not col.description:
        return f"No description is recorded for column {col.name}{typed} of {label}."
    return f"Column {col.name}{typed} of {label}: {col.description}"


def _has(prop: str, col: ColumnSpec, table: Evidence) -> bool:
    """The property, as the column's description, tags, meta or tests say it."""
    texts = [col.description] + col.tags + [f"{k} {v}" for k, v in col.meta.items() if isinstance(v, str)]
    if any(said_of(prop, t) for t in texts):
        return True
    if prop == "pii" and meta_matches("meta:pii", col.meta):
        return True
    if prop == "deprecated" and meta_matches("meta:deprecated", col.meta):
        return True
    if prop == "key":
        on = {t.name for t in table.model.tests if t.column == col.name}
        return col.name in table.model.primary_key or {"unique", "not_null"} <= on
    return False


def _found(label: str, prop: str, cols: list[ColumnSpec], checked: int) -> str:
    what = WHAT[prop]
    how = "its description, tags, meta" + (" and tests (unique and not_null), or the primary key" if prop == "key" else "")
    if not cols:
        return (f"No column of {label} is recorded as {what}: checked the {checked} column"
                f"{'' if checked == 1 else 's'} ({how}).")
    said = "; ".join(c.name + (f": {c.description}" if c.description else "") for c in cols)
    if len(cols) == 1:
        return f"In {label}, {cols[0].name} is {what} (from {how}). {said}"
    return f"In {label}, {len(cols)} columns are {what} (from {how}): {said}"
