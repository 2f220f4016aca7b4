"""A table's make-up: which data tests run on it, whether a column is tested, what columns it has.

Read from the `model` field of the model or source version in effect, as the role's view hands it over: a test
reading a node the role may not see is already gone (core/catalog/redact.py), and a hidden table is never found. A
question that names a column but no table ("is customer_type tested?") is answered for the visible tables that have
that column; several are asked back.
"""
from __future__ import annotations

from core.answer.intents.recorded_runs import last_run_verdict, properties_verdict, test_results_verdict
from core.answer.run import entity_on_day
from core.catalog.envelope import (
    Behavior,
    Clarify,
    ClarifyOption,
    Envelope,
    EvidenceRef,
    TableColumn,
    TableFacts,
    TableTest,
)
from core.catalog.evidence import Evidence, Kind
from core.resolve.versions import backing_model, in_effect

MAX_LISTED = 40


def answer(run, pick) -> Envelope:
    asked = run.intent.kind
    read = entity_on_day(run, pick)
    if isinstance(read, Envelope):
        return _by_column(run, asked, read) or read
    primary, day, objs, versions = read
    table = table_of(objs, versions, day)
    if table is None and primary.role == "metric":
        # "what type is consulted_at in consultations?" said a column: the table holding it, over a metric of its name.
        by_column = _by_column(run, asked)
        if by_column is not None:
            return by_column
        # "is revenue tested?": a metric is tested through the model it reads, said as such.
        metric = next(iter(in_effect(versions, day) or versions[-1:]), None)
        model = backing_model(metric, day, run.view)[0] if metric is not None else None
        if model is not None and model.model is not None:
            return _answer(run, asked, model, primary.entity_id, primary.label, through=model)
    if table is None:
        return _by_column(run, asked) or run.envelope(
            Behavior.abstain, f"{primary.label} is not a table: tests and columns are recorded on models and sources.",
            intent=asked, entity_id=primary.entity_id, entity_label=primary.label)
    return _answer(run, asked, table, primary.entity_id, primary.label)


def table_of(objs: list[Evidence], versions: list[Evidence], day) -> Evidence | None:
    chosen = in_effect(versions, day) or versions or objs
    tables = [e for e in chosen if e.kind in (Kind.model, Kind.source) and e.model is not None]
    return tables[-1] if tables else None


def _by_column(run, asked: str, read: Envelope | None = None) -> Envelope | None:
    """"is customer_type tested?": the visible tables holding a column the question names, when it names no table."""
    holders = []
    for ev in run.view.tables_with_columns(run.reading.column_candidates):
        if ev.model and ev.governs and ev.valid_on(run.at.date()) and run.reading.named_columns(_names(ev)):
            holders.append(ev)
    if not holders:
        return None
    offered = {o.entity_id for o in (read.clarify.options if read is not None and read.clarify else [])}
    if offered & {e.entity_id for e in holders}:
        # "what type is order_total in orders?": the tables the question's words matched, of those with the column
        holders = [e for e in holders if e.entity_id in offered]
    if len(holders) > 1:
        options = [ClarifyOption(label=f"{e.title} ({e.entity_id})", entity_id=e.entity_id) for e in holders[:8]]
        run.step("clarify", f"{len(holders)} visible tables have the column asked about")
        question = "Several tables have that column. Which one do you mean?"
        return run.envelope(Behavior.clarify, question, clarify=Clarify(question=question, options=options),
                            intent=asked)
    ev = holders[0]
    run.step("entity", f"{ev.entity_id}: the one visible table with the column the question names")
    label = run.view.entities[ev.entity_id].label if ev.entity_id in run.view.entities else ev.title
    return _answer(run, asked, ev, ev.entity_id, label)


def _names(ev: Evidence) -> list[str]:
    return list(dict.fromkeys(ev.model.columns + [c.name for c in ev.model.column_details]))


def _answer(run, asked: str, table: Evidence, entity_id: str, label: str, through: Evidence | None = None) -> Envelope:
    spec = table.model
    details = {c.name: c for c in spec.column_details}
    tests = [TableTest(name=t.name, column=t.column, generic=t.generic, test_id=t.test_id, severity=t.severity,
                       result=t.result) for t in spec.tests]
    columns = [TableColumn(name=n, type=(details.get(n) and details[n].type), description=(details.get(n)
                           and details[n].description), tests=[t.name for t in tests if t.column == n])
               for n in _names(table)]
    named = run.reading.named_columns(_names(table) + [t.column for t in tests if t.column])
    column = named[0] if len(named) == 1 else None
    facts = TableFacts(evidence_id=table.evidence_id, asked=asked, column=column, columns=columns, tests=tests,
                       last_run=spec.last_run, tags=spec.tags, meta=spec.meta, materialized=spec.materialized,
                       enabled=spec.enabled, access=spec.access, contract=spec.contract, group=spec.group)
    # A metric's answer is its backing model's, named: "Revenue is computed on order_items: 3 data tests run on it".
    name = through.title if through is not None else label
    if asked == "test_results":
        on = [t for t in tests if t.column == column] if column else tests
        verdict = test_results_verdict(f"{column} of {name}" if column else name, on, run.reading.opens_yes_no)
    elif asked == "last_run":
        verdict = last_run_verdict(name, spec)
    elif asked == "properties":
        named = run.reading.properties_named
        verdict = properties_verdict(name, spec, run.reading.property_asked, named,
                                     from_dbt=table.authority_class.startswith("dbt"), text=table.text)
        if "tests" in named:  # "what are the tests and the contract on X?": both
            verdict += " " + _tests_verdict(name, tests, column)
    elif asked == "tests":
        verdict = _tests_verdict(name, tests, column)
    else:
        verdict = _columns_verdict(name, columns, column)
    if through is not None:
        verdict = f"{label} is computed on {through.title}: {verdict}"
    if asked == "tests" and not column and run.reading.opens_yes_no:  # "is X tested?" is answered yes or no first
        verdict = ("Yes: " + verdict) if tests else "No: " + verdict.replace("No data tests", "no data tests", 1)
    run.step(asked, f"{len(tests)} test(s) and {len(columns)} column(s) recorded on {table.evidence_id}")
    behavior = Behavior.abstain if asked == "columns" and not columns else Behavior.answer
    return run.envelope(behavior, verdict, intent=asked, entity_id=entity_id, entity_label=label,
                        selected=[EvidenceRef.of(table, asked)], table_facts=facts)


def test_words(tests: list[TableTest]) -> str:
    """'unique and not_null on order_id; relationships on customer_id; expression_is_true (on the whole table)'."""
    by_column: dict[str, list[str]] = {}
    for t in tests:
        by_column.setdefault(t.column or "", []).append(t.name)
    parts = [(" and ".join(dict.fromkeys(names)) + (f" on {col}" if col else " (on the whole table)"))
             for col, names in by_column.items()]
    return "; ".join(parts[:MAX_LISTED])


def _tests_verdict(label: str, tests: list[TableTest], column: str | None) -> str:
    if column:
        on = [t for t in tests if t.column == column]
        if on:
            return f"Yes: {column} of {label} is tested by {' and '.join(dict.fromkeys(t.name for t in on))}."
        others = f" (the tests on {label} you can see: {test_words(tests)})" if tests else ""
        return f"No: no data test you can see runs on {column} of {label}{others}."
    if not tests:
        return f"No data tests you can see run on {label}."
    n = len(tests)
    return f"{n} data test{'' if n == 1 else 's'} run{'s' if n == 1 else ''} on {label}: {test_words(tests)}."


def _column_words(c: TableColumn) -> str:
    return c.name + (f" ({c.type})" if c.type else "")


def _columns_verdict(label: str, columns: list[TableColumn], column: str | None) -> str:
    if not columns:
        return f"No columns are recorded for {label}."
    if column:
        c = next((c for c in columns if c.name == column), None)
        if c is not None:
            return (f"{c.name} of {label} is {c.type or 'of a type not recorded'}"
                    + (f": {c.description}" if c.description else "") + ".")
    n = len(columns)
    listed = ", ".join(_column_words(c) for c in columns[:MAX_LISTED])
    more = f" and {n - MAX_LISTED} more" if n > MAX_LISTED else ""
    return f"{label} has {n} column{'' if n == 1 else 's'}: {listed}{more}."

