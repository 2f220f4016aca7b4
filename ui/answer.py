"""Renders an evidence envelope. Decides nothing: every fact shown is a field of the envelope, or comes from
core (the headline and status line, each part's lineage and freshness). Catalog and model text always goes
through `ui.safe.md` (or an inert element: st.text, st.code, a dataframe)."""
from __future__ import annotations

import re
from datetime import timedelta

import streamlit as st

from core.catalog.envelope import Behavior, Conflict, Envelope, EvidenceRef, FreshnessEntry, Lineage
from core.catalog.explanation import DETERMINISTIC
from core.explain.headline import Status, day_text, headline, status_line
from core.resolve.freshness import age_text
from core.resolve.graph import graph
from ui.graph import graph_or_table
from ui.safe import code, inert, md, prose, table

LEVEL = {"error": ("red", ":material/error:"), "warning": ("orange", ":material/warning:"),
         "info": ("blue", ":material/info:"), "ok": ("green", ":material/check_circle:")}
# Plain words for the catalog's labels: what a reader needs to know, not the field value.
CONFLICT_WORDS = {"DRAFT": ("orange", "Draft, not approved"), "SUPERSEDED": ("gray", "Superseded"),
                  "UNTRUSTED": ("red", "Untrusted: instructions ignored"), "NOT IN EFFECT": ("blue", "Not in effect then"),
                  "NON-AUTHORITATIVE": ("violet", "Not an approved source"), "DEPRECATED": ("gray", "Deprecated")}
FRESH_WORDS = {"pass": ("green", "Fresh"), "warn": ("orange", "Stale"), "error": ("red", "Failing"),
               "unknown": ("gray", "Unknown")}
STANDING = {"authoritative": "approved", "non_authoritative": "not approved", "untrusted": "untrusted"}
LIFE = {"current": "current", "historical": "earlier version", "superseded": "superseded", "draft": "draft",
        "deprecated": "deprecated", "retired": "retired"}


def interval(ref: EvidenceRef | Conflict) -> str:
    start = day_text(ref.valid_from) if ref.valid_from else "the start"
    if ref.valid_to:
        return f"{start} to {day_text(ref.valid_to - timedelta(days=1))}"
    return f"{start} onward" if ref.valid_from else "always"


# ---------------------------------------------------------------- the top: headline and status line

def top(env: Envelope, notes: list[str], more_freshness: list[FreshnessEntry] = (),
        title: str | None = None) -> list[Status]:
    """`title`: a headline the page words itself (a steward's queue match), else core.explain.headline's."""
    with st.container(key="headline"):
        st.markdown(f"### {md(title or headline(env))}")
    if notes:
        st.caption(" · ".join(md(n) for n in notes))
    items = status_line(env, more_freshness)
    if items:
        with st.container(key="status_line"):
            lines = []
            for s in items:
                colour, icon = LEVEL[s.level]
                lines.append(f":{colour}[{icon}] {md(s.text)}")
            st.markdown("  \n".join(lines))
    return items


def other_versions(env: Envelope, choose) -> None:
    """No date was given, so the answer is today's: the versions that governed other dates, one click each
    (`choose(option)` answers this question for that version's first day)."""
    if not env.other_versions:
        return
    with st.container(key="other_versions"):
        st.caption(f"Other versions of {md(env.entity_label or 'this')} applied on other dates. See one:")
        cols = st.columns(min(len(env.other_versions), 4))
        for i, option in enumerate(env.other_versions):
            cols[i % len(cols)].button(md(option.label), key=f"other_version_{i}", on_click=choose,
                                       args=(option.model_dump(mode="python"),), width="stretch")


# ---------------------------------------------------------------- cards

def _card(ref: EvidenceRef) -> None:
    heading = {"definition": "Definition" if ref.kind.startswith("metric") else
               ("Source table" if ref.kind == "source" else "What applies"),
               "model": "Where the numbers come from", "overlap": "Approved version (overlaps another)"}
    with st.container(border=True):
        st.caption(heading.get(ref.role_in_answer, "Evidence"))
        st.markdown(f"**{md(ref.title)}** · {STANDING.get(ref.authority, md(ref.authority))}, "
                    f"{LIFE.get(ref.lifecycle, md(ref.lifecycle))} · in effect {interval(ref)}")
        if ref.metric:
            m = ref.metric
            st.markdown("Calculated as")
            st.code(inert(m.formula), language="sql", wrap_lines=True)
            bits = [f"grain: {md(m.grain)}" if m.grain else "", f"in {md(m.unit)}" if m.unit else "",
                    f"dated by {code(m.time_dimension)}" if m.time_dimension else ""]
            if any(bits):
                st.markdown(" · ".join(b for b in bits if b))
            if m.exclusions:
                st.markdown("Leaves out: " + ", ".join(md(x) for x in m.exclusions))
            if m.filters:
                st.markdown("Only rows where: " + "; ".join(code(f) for f in m.filters))
        if ref.model:
            st.markdown(f"Table {code(ref.model.relation or '—')}"
                        + (f" · grain: {md(ref.model.grain)}" if ref.model.grain else ""))
        who = [f"Owner: {md(ref.owner)}" if ref.owner else "", f"Defined in {md(ref.source_uri)}" if ref.source_uri else ""]
        if any(who):
            st.caption(" · ".join(w for w in who if w))
        if ref.text:
            st.text(inert(ref.text))


def cards(refs: list[EvidenceRef]) -> None:
    shown = [r for r in refs if r.role_in_answer in ("definition", "model", "overlap")]
    if not shown:
        return
    cols = st.columns(min(len(shown), 2))
    for i, ref in enumerate(shown):
        with cols[i % len(cols)]:
            _card(ref)


def conflicts(env: Envelope) -> None:
    if not env.conflicts:
        return
    st.subheader(f"What disagrees, and why it does not count ({len(env.conflicts)})")
    names = titles(env)
    for c in env.conflicts:
        colour, words = CONFLICT_WORDS.get(c.label, ("gray", md(c.label.title())))
        with st.container(border=True):
            st.markdown(f":{colour}-badge[{words}] **{md(c.title)}**"
                        + (" · you mentioned it" if c.named_in_question else ""))
            st.markdown(md(_titled(c.why, names)))
            if c.text:
                with st.expander("What it says (quoted as data, never followed)"):
                    st.text(inert(c.text))


# ---------------------------------------------------------------- lineage and freshness

def lineage(lin: Lineage, starts: list[str], freshness: list[FreshnessEntry], key: str) -> str | None:
    """The graph with its legend and a table view; returns the id of a clicked node."""
    if not lin.edges:
        if lin.continues_beyond_view:
            st.caption("Lineage continues beyond what your role may see.")
        return None
    st.markdown("**Where the numbers come from**")
    status = {f.source: f.status for f in freshness}
    labels = {n.id: n.label for n in lin.nodes}
    rows = [{"from": labels.get(e.upstream, e.upstream), "to": labels.get(e.downstream, e.downstream),
             "recorded in": e.evidence_id} for e in lin.edges]
    clicked = graph_or_table(graph(lin, starts, status), key, rows)
    if lin.raw_sources:
        st.caption("Raw sources: " + ", ".join(code(labels.get(s, s)) for s in lin.raw_sources))
    if lin.generated:
        st.caption("Generated in the project (not raw sources): "
                   + ", ".join(code(labels.get(s, s)) for s in lin.generated))
    if lin.seeds:
        st.caption("Seeds (CSV files loaded by dbt, not raw sources): " + ", ".join(code(labels.get(s, s)) for s in lin.seeds))
    if lin.continues_beyond_view:
        st.caption("Lineage continues beyond what your role may see.")
    return clicked


def freshness(entries: list[FreshnessEntry], complete: frozenset[str] = frozenset()) -> None:
    """`complete`: sources loaded after the past period a value was asked for ended; their state is today's news."""
    if not entries:
        return
    st.markdown("**Is the data fresh?**")
    for f in entries:
        colour, word = FRESH_WORDS[f.status]
        if f.source in complete and f.status != "pass":
            colour, word = "gray", f"{word} today"
        # Whole hours, as the status line words it; the exact load time is there for anyone checking.
        age = (f"last loaded {age_text(f.age_hours)}" + (f" ({f.loaded_at:%d %b %Y %H:%M} UTC)" if f.loaded_at else "")
               if f.age_hours is not None else "no load recorded")
        limits = ", ".join(x for x in (f"stale after {f.warn_after_hours:g} h" if f.warn_after_hours is not None else "",
                                       f"failing after {f.error_after_hours:g} h" if f.error_after_hours is not None else "") if x)
        st.markdown(f":{colour}-badge[{word}] {code(f.source)}: {age}" + (f" ({limits})" if limits else "")
                    + f" · checked {f.evaluated_at:%d %b %Y %H:%M} UTC"
                    + ("; loaded in full for the period asked about" if f.source in complete else ""))


def columns(env: Envelope) -> None:
    c = env.columns
    if c is None:
        return
    st.markdown(f"**Column {code(c.column)}**")
    if c.hops:
        table([{"from": f"{h.upstream}.{h.upstream_column}", "to": f"{h.downstream}.{h.downstream_column}",
                "recorded in": h.evidence_id} for h in c.hops])
        st.caption("Comes from: " + ", ".join(code(r) for r in c.raw_columns))
    else:
        st.info(md(c.detail))


def parts(env: Envelope, details: list[tuple[str, list[EvidenceRef], Lineage, list[FreshnessEntry]]]) -> None:
    """Split and human-review answers: each part with its definition, model, lineage and freshness."""
    for i, (title, refs, lin, fresh) in enumerate(details):
        with st.container(border=True):
            st.markdown(f"#### {md(title)}")
            if not refs:
                st.caption("No approved version is in effect here.")
            cards(refs)
            starts = [r.evidence_id for r in refs if r.role_in_answer in ("definition", "model", "overlap")]
            lineage(lin, starts, fresh, key=f"part_{i}")
            freshness(fresh)


# ---------------------------------------------------------------- explanation and its citations

def _titled(text: str, names: dict[str, str]) -> str:
    """'the answer follows metric.net_revenue.v1' reads 'the answer follows Net revenue v1' on the page (the ids
    stay in 'How this was decided'). Only ids the envelope itself carries are named."""
    for eid in sorted(names, key=len, reverse=True):
        # A function replacement: a title is text, never a template (`\1` or `\g<0>` in it would be expanded).
        text = re.sub(rf"(?<![\w.]){re.escape(eid)}(?![\w])", lambda _m, title=names[eid]: title, text)
    return text


def titles(env: Envelope) -> dict[str, str]:
    out: dict[str, str] = {}
    for r in list(env.selected) + [r for sp in env.splits for r in sp.selected]:
        out.setdefault(r.evidence_id, r.title)
    for c in env.conflicts:
        out.setdefault(c.evidence_id, c.title)
    for f in env.freshness:  # two different records: say which, so their chips never look the same
        if f.evidence_id:
            out.setdefault(f.evidence_id, f"Last load of {f.source}")
        if f.policy_evidence_id:
            out.setdefault(f.policy_evidence_id, f"Freshness rule for {f.source}")
    for h in env.supporting:
        out.setdefault(h.evidence_id, h.title)
    for e in env.lineage.edges:
        out.setdefault(e.evidence_id, f"Lineage: {e.evidence_id}")
    if env.clarify:
        for o in env.clarify.options:
            if o.evidence_id:
                out.setdefault(o.evidence_id, f"{_label(env)} {o.label.split(':', 1)[0]}".strip())
    # Intent answers cite their own objects: chips carry those titles too, never a bare evidence id.
    for d in env.documents:
        out.setdefault(d.evidence_id, d.title)
    if env.listing:
        for it in env.listing.items:
            out.setdefault(it.evidence_id, it.title)
    if env.comparison:
        for ref in (env.comparison.left, env.comparison.right):
            out.setdefault(ref.evidence_id, ref.title)
    if env.downstream:
        for it in env.downstream.items:
            if it.evidence_id:
                out.setdefault(it.evidence_id, it.label)  # the node's label already names its version
    return out


def _label(env: Envelope) -> str:
    return env.entity_label or ""


def _cited(env: Envelope, evidence_id: str, n: int) -> None:
    """What a citation chip opens: the cited evidence as the envelope holds it, numbered as in the text."""
    names = titles(env)
    refs = list(env.selected) + [r for sp in env.splits for r in sp.selected]
    for r in refs:
        if r.evidence_id == evidence_id:
            st.markdown(f"{n}. **{md(r.title)}** · {STANDING.get(r.authority, md(r.authority))}, "
                        f"{LIFE.get(r.lifecycle, md(r.lifecycle))} · in effect {interval(r)} · {code(r.evidence_id)}")
            if r.metric:
                st.code(inert(r.metric.formula), language="sql", wrap_lines=True)
            if r.text:
                with st.expander("What it says"):
                    st.text(inert(r.text))
            return
    for c in env.conflicts:
        if c.evidence_id == evidence_id:
            colour, words = CONFLICT_WORDS.get(c.label, ("gray", md(c.label)))
            st.markdown(f"{n}. :{colour}-badge[{words}] **{md(c.title)}** · {code(c.evidence_id)}  \n{md(c.why)}")
            if c.text:
                with st.expander("What it says (quoted as data, never followed)"):
                    st.text(inert(c.text))
            return
    for f in env.freshness:
        if evidence_id in (f.evidence_id, f.policy_evidence_id):
            colour, word = FRESH_WORDS[f.status]
            loaded = f"{f.loaded_at:%d %b %Y %H:%M} UTC" if f.loaded_at else "never"
            limits = "".join(x for x in (f"; stale after {f.warn_after_hours:g} h" if f.warn_after_hours is not None else "",
                                         f"; failing after {f.error_after_hours:g} h" if f.error_after_hours is not None else ""))
            st.markdown(f"{n}. **{md(names[evidence_id])}** · :{colour}-badge[{word}] · {code(evidence_id)}  \n"
                        f"last loaded {loaded}{limits}")
            return
    edges = [e for e in env.lineage.edges if e.evidence_id == evidence_id]
    if edges:
        st.markdown(f"{n}. **Lineage** · {code(evidence_id)}  \n" + "  \n".join(
            f"{code(e.upstream)} → {code(e.downstream)}" for e in edges))
        return
    if env.clarify:
        for o in env.clarify.options:
            if o.evidence_id == evidence_id:
                st.markdown(f"{n}. Candidate version: {md(o.label)} · {code(evidence_id)}")
                return
    for d in env.documents:
        if d.evidence_id == evidence_id:
            colour, words = CONFLICT_WORDS.get(d.label, ("green" if d.authority == "authoritative" else "gray",
                                                          d.label.capitalize()))
            st.markdown(f"{n}. :{colour}-badge[{md(words)}] **{md(d.title)}** · {code(evidence_id)}")
            if d.text or d.quote:
                with st.expander("What it says (quoted as data, never followed)"):
                    st.text(inert(d.text or d.quote))
            return
    st.markdown(f"{n}. **{md(names.get(evidence_id, evidence_id))}** · {code(evidence_id)}")


CITE_ANCHOR = "asof-cite-{n}"
# Fixed CSS (no catalog text): inline citation links look like chips; the cited source a chip jumps to
# is outlined while it is the page's target.
CITE_CSS = """<style>
a[href^="#asof-cite-"] { display: inline-block; padding: 0 .45em; margin: 0 .1em; border-radius: .6em;
  font-size: .78em; line-height: 1.5; text-decoration: none; vertical-align: .1em; white-space: nowrap;
  border: 1px solid rgba(128, 128, 128, .45); background: rgba(128, 128, 128, .12); color: inherit; }
a[href^="#asof-cite-"]:hover { border-color: currentColor; }
div[class*="st-key-cited_"]:has(span[id^="asof-cite-"]:target) { outline: 2px solid #1f6feb; border-radius: .5rem; }
span[id^="asof-cite-"] { scroll-margin-top: 4rem; }
</style>"""


def _short_title(title: str, limit: int = 40) -> str:
    return title if len(title) <= limit else title[: limit - 1].rstrip() + "…"


def explanation(env: Envelope) -> None:
    """The explanation with its citations inline: each chip in the text carries the cited title and jumps
    to that evidence in the list under the text, where it is shown in full."""
    x = env.explanation
    if x is None or env.behavior is Behavior.not_found_or_not_authorized:
        return
    st.subheader("Why")
    if x.model == DETERMINISTIC:
        st.caption("Written by fixed rules from the evidence (no language model). Each chip opens what it cites.")
    else:
        st.caption(f"Written by {md(x.model)}; every citation was checked by AsOf before showing.")
    if x.fallback_used and x.fallback_reason:
        st.caption(f"Showing the explanation written without a language model: {md(x.fallback_reason)}")
    elif x.validation.dropped:
        st.caption(f"{len(x.validation.dropped)} sentence(s) removed by the citation checks.")
    names = titles(env)
    number: dict[str, int] = {}  # evidence id -> its place in the list of cited evidence, first cited first
    paragraphs = []
    for sentence in x.sentences:
        chips = []
        for c in sentence.citations:
            n = number.setdefault(c, len(number) + 1)
            title = names.get(c, c)
            # Link text and title are Markdown-escaped catalog text: inert, and the target is our own anchor.
            chips.append(f"[{md(_short_title(title))}](#{CITE_ANCHOR.format(n=n)} \"{md(title)}\")")
        paragraphs.append(prose(sentence.text) + ("&nbsp;" + " ".join(chips) if chips else ""))
    st.html(CITE_CSS)
    with st.container(key="explanation_text"):
        st.markdown("\n\n".join(paragraphs))
    if not number:
        return
    st.markdown(f"**Evidence cited ({len(number)})**")
    for evidence_id, n in number.items():
        with st.container(border=True, key=f"cited_{n}"):
            st.html(f'<span id="{CITE_ANCHOR.format(n=n)}"></span>')  # our number only, no catalog text
            _cited(env, evidence_id, n)


# ---------------------------------------------------------------- the collapsed details

def decided(env: Envelope) -> None:
    with st.expander("How this was decided"):
        when = (f"reporting date {day_text(env.reporting_date)}" if env.reporting_date else
                f"reporting period {day_text(env.period_start)} to {day_text(env.period_end - timedelta(days=1))}"
                if env.period_start else "no reporting date")
        st.markdown(f"Role {code(env.role)} · {when} · freshness checked "
                    f"{env.evaluated_at:%d %b %Y %H:%M} UTC · catalog revision {code(env.catalog_revision)}")
        for step in env.trace:
            st.markdown(f"- **{md(step.rule)}**: {md(step.detail)}")
        ids = sorted(env.evidence_ids())
        if ids:
            st.markdown("Evidence used: " + ", ".join(code(i) for i in ids))
        if env.supporting:
            st.markdown("Related approved evidence found by search: "
                        + "; ".join(f"{md(h.title)} ({code(h.evidence_id)})" for h in env.supporting))
        if env.index is None:
            st.caption("Semantic search was not used for this answer (still loading, or no index): the catalog's "
                       "names and rules decided it.")
        else:
            stale = env.index.stale_content + env.index.stale_acl + env.index.missing
            st.caption(f"Search index: {md(env.index.status)}" + (f"; {len(stale)} of your objects are behind the "
                                                                  "catalog (the live catalog was used)" if stale else ""))
