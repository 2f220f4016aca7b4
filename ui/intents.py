"""The Ask page's place for intent answers: discover, compare, owner, downstream, document.

`render_intent(env)` draws the intent's own section and returns True, or returns False for an envelope it
does not handle (an ordinary definition answer). The caller still draws the verdict, conflicts, lineage,
explanation and download. Decides nothing: every fact shown is an envelope field. Catalog text is shown in
tables, `st.text` or Markdown-escaped, so a title or quote can never turn into formatting, links or badges.
"""
from __future__ import annotations

import streamlit as st

from core.catalog.envelope import Envelope
from core.explain.headline import day_text
from core.explain.intent_render import listing_heading, listing_row
from core.explain.safe_text import md_code, md_escape, plain
from ui.answer import LIFE, STANDING, interval
from ui.safe import table

LABEL_COLOURS = {"AUTHORITATIVE DOCUMENT": "green", "NON-AUTHORITATIVE": "violet", "DRAFT": "orange",
                 "SUPERSEDED": "gray", "DEPRECATED": "gray", "RETIRED": "gray", "UNTRUSTED": "red"}


def md(text: object) -> str:
    """Catalog text as Markdown-inert text (core/safe_text.md_escape): nothing in it renders as formatting."""
    return md_escape("—" if text is None else str(text))


def _interval(v) -> str:
    """The same words as every other card on the page ("1 Jan 2025 onward"), not ISO dates with arrows."""
    return interval(v)


def _plain(value: str | None, words: dict[str, str]) -> str | None:
    """A catalog label in plain words (non_authoritative -> not approved); unknown labels lose underscores."""
    return None if value is None else words.get(value, value.replace("_", " "))


def _discover(env: Envelope) -> None:
    li = env.listing
    st.subheader(md(listing_heading(li)))
    if "freshness_status" in env.asked:  # two dates: which objects (the day) and how fresh (the clock)
        at = env.evaluated_at
        st.caption(f"Listed as the catalog stands on {day_text(li.as_of)}; freshness checked at "
                   f"{day_text(at.date())} {at:%H:%M} UTC. Only what your role may see is listed or counted.")
    else:
        st.caption(f"Status as of {day_text(li.as_of)}. Only what your role may see is listed or counted.")
    if li.items:
        table([_row(li, it) for it in li.items])
    else:
        st.info("Nothing to list.")
    if li.not_known:  # freshness asked: sources with no recorded load are neither stale nor fresh, and shown
        st.caption("Not known: no load recorded, so neither stale nor fresh.")
        table([_row(li, it) for it in li.not_known])


def _row(li, it) -> dict:
    """One listed thing (core/explain/intent_render.py); its status says its freshness when the question asked it."""
    return listing_row(li, it, _interval, lambda life: _plain(life, LIFE))


def _compare(env: Envelope) -> None:
    c = env.comparison
    if not c.right_label and c.left.evidence_id == c.right.evidence_id:
        _one_version(c)
        return
    # Two versions of one metric read earlier/later; two metrics read by their names.
    two = bool(c.right_label)
    names = (env.entity_label or "first", c.right_label) if two else ("Earlier", "Later")
    st.subheader("Compare metrics" if two else "Compare versions")
    st.caption(md(f"Chosen: {c.how}."))
    cols = st.columns(2)
    for col, ref, side in ((cols[0], c.left, names[0]), (cols[1], c.right, names[1])):
        with col.container(border=True):
            st.markdown(f"**{md(side)}: {md(ref.title)}** :gray-badge[{md(_plain(ref.lifecycle, LIFE))}]")
            st.markdown(f"{md_code(ref.evidence_id)} · {_interval(ref)}")
    rows = [{"field": f.field, names[0].lower() if not two else names[0]: f.before or "—",
             names[1].lower() if not two else names[1]: f.after or "—",
             "changed": ("differs" if two else "changed") if f.changed else "same"} for f in c.fields]
    table(rows)
    for f in c.fields:  # a table cell cuts a long formula: show it whole, side by side (st.code is inert)
        if f.field == "formula" and (f.before or f.after):
            st.markdown("**Formula**" + ((" · :orange-badge[differs]" if two else " · :orange-badge[changed]")
                                         if f.changed else " · same"))
            left, right = st.columns(2)
            left.code(f.before or "—", language="sql", wrap_lines=True)
            right.code(f.after or "—", language="sql", wrap_lines=True)
        if f.field == "description" and f.changed and not two and (f.removed or f.added):
            # The sentence that changed, quoted: "180 days" becoming "120 days" is read here, not hunted for.
            st.markdown("**Description** · :orange-badge[changed]")
            left, right = st.columns(2)
            left.caption("Only the earlier version says")
            right.caption("Only the later version says")
            for col, said in ((left, f.removed), (right, f.added)):
                for x in said:
                    col.markdown(f"“{md(x)}”")
                if not said:
                    col.markdown("_nothing the other does not_")


def _one_version(c) -> None:
    """"Has churn changed this year?" answered No: one version held throughout, shown once, not set against itself
    (a table whose every row said "same")."""
    st.subheader("One version throughout")
    st.caption(md(f"Checked: {c.how}."))
    with st.container(border=True):
        st.markdown(f"**{md(c.left.title)}** :gray-badge[{md(_plain(c.left.lifecycle, LIFE))}]")
        st.markdown(f"{md_code(c.left.evidence_id)} · {_interval(c.left)}")
    table([{"field": f.field, "value": f.before or "—"} for f in c.fields if f.field != "formula"])
    formula = next((f.before for f in c.fields if f.field == "formula" and f.before), None)
    if formula:  # whole, as in a comparison (a table cell cuts a long formula; st.code is inert)
        st.markdown("**Formula**")
        st.code(formula, language="sql", wrap_lines=True)


def _owner(env: Envelope) -> None:
    o = env.ownership
    st.subheader("Owner")
    with st.container(border=True):
        st.markdown(f"**{md(o.owner or 'No owner recorded')}**")
        where = f"version v{o.version}" if o.version and o.version[:1].isdigit() else "the object"
        st.caption(f"Recorded on {md(where)} {md_code(o.evidence_id)}" + (" (not an approved version)" if o.from_draft else ""))
    if len(o.history) > 1:
        table([{"version": v.version or "—", "evidence": v.evidence_id, "effective": _interval(v),
                "owner": o.owners_by_version.get(v.evidence_id) or "—"} for v in o.history])


def downstream(env: Envelope) -> None:
    """What reads it: the downstream answer, or the downstream half of a definition answer (pages/0_Ask.py)."""
    d = env.downstream
    st.subheader(f"Downstream ({len(d.items)})")
    st.caption(f"What reads it on {day_text(d.as_of)}, over lineage you may see; dbt exposures are dashboards and reports.")
    if not d.items:
        st.info("No downstream lineage is recorded for it.")
        return
    table([{"depth": i.depth, "kind": i.kind + (f" ({i.exposure_type})" if i.exposure_type else ""),
            "name": i.label, "id": i.id, "owner": i.owner or "—", "via": ", ".join(i.via)} for i in d.items])


def _documents(env: Envelope) -> None:
    st.subheader("Document")
    for doc in env.documents:
        with st.container(border=True):
            colour = LABEL_COLOURS.get(doc.label, "gray")
            st.markdown(f":{colour}-badge[{md(doc.label)}] **{md(doc.title)}** {md_code(doc.evidence_id)}")
            meta = [_plain(doc.authority, STANDING), _plain(doc.lifecycle, LIFE), _plain(doc.authority_class, {}),
                    f"owner {doc.owner}" if doc.owner else None,
                    f"in effect {_interval(doc)}" if doc.valid_from or doc.valid_to else None]
            st.caption(md(" · ".join(m for m in meta if m)))
            st.markdown("**Quoted (data, not instructions):**")
            st.text(plain(doc.quote))
            st.caption("A document: it is evidence for what it says, and never governs a metric definition.")


def _review(env: Envelope) -> None:
    st.subheader("Review queue")
    if not env.review.items:
        st.caption("Nothing of this kind in your review queue; the Governance review page lists every kind.")
    for it in env.review.items:
        with st.container(border=True):
            st.markdown(f"**{md(it.title)}**")
            st.caption(f"What is wrong: {md(it.detail)} · What to do: {md(it.action)} · "
                       + ", ".join(md_code(i) for i in it.evidence_ids))


def _table_facts(env: Envelope) -> None:
    """A table's tests or columns: both are shown, the one asked first."""
    f = env.table_facts
    tests = [{"test": t.name, "column": t.column or "(whole table)", "kind": "generic" if t.generic else "singular",
              # no recorded result is never shown as a pass
              "last result": (f"{t.result.status}" + (f" ({t.result.failures} rows)" if t.result.failures else "")
                              if t.result else "not recorded"), "id": t.test_id or "—"} for t in f.tests]
    recorded = [("tags", ", ".join(f.tags)), ("materialized", f.materialized), ("access", f.access),
                ("group", f.group), ("contract", "enforced" if f.contract else None),
                ("enabled", "no (disabled)" if f.enabled is False else None),
                ("last run", f"{f.last_run.status}, {f.last_run.execution_time_s:g} s" if f.last_run
                 and f.last_run.execution_time_s is not None else f.last_run.status if f.last_run else None)]
    recorded += [(f"meta {k}", str(v)) for k, v in f.meta.items()]
    shown = [{"recorded by dbt": k, "value": v} for k, v in recorded if v]
    if shown and f.asked in ("properties", "last_run", "test_results"):
        st.subheader("Recorded by dbt")
        table(shown)
    columns = [{"column": c.name, "type": c.type or "—", "description": c.description or "—",
                "tests": ", ".join(c.tests) or "—"} for c in f.columns]
    parts = [("Data tests", tests, "No data tests you can see run on it."),
             ("Columns", columns, "No columns are recorded for it.")]
    for title, rows, empty in (parts if f.asked != "columns" else parts[::-1]):
        st.subheader(f"{title} ({len(rows)})")
        if rows:
            table(rows)
        else:
            st.info(empty)
    st.caption("Only tests that read nothing your role may not see are listed.")


def render_intent(env: Envelope) -> bool:
    """Draw the intent's section; False when the envelope is not an intent answer."""
    if env.listing:
        _discover(env)
    elif env.comparison:
        _compare(env)
    elif env.ownership:
        _owner(env)
    elif env.downstream:
        downstream(env)
    elif env.documents:
        _documents(env)
    elif env.review:
        _review(env)
    elif env.table_facts:
        _table_facts(env)
    else:
        return False
    return True
