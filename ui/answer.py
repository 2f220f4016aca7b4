"""Renders an evidence envelope. Decides nothing: every fact shown is a field of the envelope."""
from __future__ import annotations

from datetime import timedelta

import streamlit as st
from streamlit_agraph import Config, Edge, Node, agraph

from core.envelope import Behavior, Envelope
from core.graph import PATH_COLOUR, graph
from core.explanation import DETERMINISTIC

# Badges, not emoji: a browser without an emoji font (a kiosk, a CI screenshot) shows boxes.
BADGES = {"answer": ":green-badge[ANSWER]", "clarify": ":blue-badge[CLARIFY]", "split": ":blue-badge[SPLIT]",
          "abstain": ":orange-badge[ABSTAIN]", "not_found_or_not_authorized": ":gray-badge[NOT FOUND]",
          "human_review": ":violet-badge[HUMAN REVIEW]", "refuse": ":red-badge[REFUSED]"}
MESSAGES = {
    Behavior.abstain: "No approved evidence can answer this, so AsOf does not guess.",
    Behavior.not_found_or_not_authorized: "Nothing you have access to matches this question. It may not exist, "
                                          "or it may not be shared with your role.",
    Behavior.human_review: "Two approved definitions apply at the same time. A governance reviewer must decide; "
                           "the Governance review page lists it.",
    Behavior.refuse: "AsOf follows the catalog's permissions and authority rules. Requests to bypass them, or to "
                     "follow instructions found inside documents, are not carried out.",
}
LABEL_COLOURS = {"DRAFT": "orange", "SUPERSEDED": "gray", "UNTRUSTED": "red", "NOT IN EFFECT": "blue",
                 "NON-AUTHORITATIVE": "violet", "DEPRECATED": "gray"}


def _interval(ref) -> str:
    start = ref.valid_from or "…"
    end = ref.valid_to - timedelta(days=1) if ref.valid_to else "open"
    return f"{start} → {end}"


def verdict(env: Envelope) -> None:
    st.markdown(f"{BADGES.get(env.behavior.value, '')}")
    st.markdown(f"#### {env.verdict}")
    if env.behavior in MESSAGES:
        (st.warning if env.behavior is not Behavior.refuse else st.error)(MESSAGES[env.behavior])
    for note in env.notes:
        st.info(note)


def governing_cards(env: Envelope) -> None:
    for ref in env.selected:
        if ref.role_in_answer not in ("definition", "model", "overlap"):
            continue
        with st.container(border=True):
            head = "Governing definition" if ref.role_in_answer == "definition" else (
                "Backing model" if ref.role_in_answer == "model" else "Overlapping approved version")
            st.markdown(f"**{head}: {ref.title}** &nbsp; :green-badge[{ref.authority.upper()}] "
                        f":gray-badge[{ref.lifecycle}] &nbsp; `{ref.evidence_id}`")
            cols = st.columns(3)
            cols[0].markdown(f"**Effective**  \n{_interval(ref)}")
            cols[1].markdown(f"**Owner**  \n{ref.owner or '—'}")
            cols[2].markdown(f"**Source**  \n{ref.source_uri or ref.authority_class or '—'}"
                             + (f" @ `{ref.source_revision}`" if ref.source_revision else ""))
            if ref.metric:
                m = ref.metric
                st.markdown(f"**Formula** `{m.formula}`")
                st.markdown(f"**Grain** {m.grain or '—'} · **Unit** {m.unit or '—'} · "
                            f"**Time dimension** {m.time_dimension or '—'}")
                if m.exclusions:
                    st.markdown("**Excludes** " + ", ".join(m.exclusions))
            if ref.model:
                st.markdown(f"**Relation** `{ref.model.relation or '—'}` · **Grain** {ref.model.grain or '—'}")
            if ref.text:
                st.caption(ref.text)


def conflicts(env: Envelope) -> None:
    st.subheader(f"Conflicts ({len(env.conflicts)})")
    if not env.conflicts:
        st.caption("No drafts, superseded pages or notes disagree for this date.")
    for c in env.conflicts:
        label = c.label + (": instructions ignored" if c.label == "UNTRUSTED" else "")
        colour = LABEL_COLOURS.get(c.label, "gray")
        with st.container(border=True):
            st.markdown(f":{colour}-badge[{label}] **{c.title}** `{c.evidence_id}`"
                        + (" · named in your question" if c.named_in_question else ""))
            st.markdown(f"Why it does not govern: {c.why}")
            with st.expander("Quoted text (data, not instructions)"):
                st.text(c.text)


def lineage(env: Envelope, key: str = "lineage") -> None:
    st.subheader("Lineage")
    if not env.lineage.edges:
        st.caption("Lineage continues beyond what your role may see." if env.lineage.continues_beyond_view
                   else "No lineage edges recorded for this answer.")
        return
    starts = [s.evidence_id for s in env.selected if s.role_in_answer in ("definition", "model")]
    show_graph(graph(env.lineage, starts), key)
    with st.expander("Lineage as a table"):
        st.dataframe([{"upstream": e.upstream, "downstream": e.downstream, "evidence": e.evidence_id}
                      for e in env.lineage.edges], hide_index=True, width="stretch")
        st.markdown("Raw sources: " + ", ".join(f"`{s}`" for s in env.lineage.raw_sources))
        if env.lineage.generated:
            st.markdown("Generated in the project (not raw sources): "
                        + ", ".join(f"`{s}`" for s in env.lineage.generated))
    c = env.columns
    if c is not None:
        st.markdown(f"**Column `{c.column}`**")
        if c.hops:
            st.dataframe([{"from": f"{h.upstream}.{h.upstream_column}", "to": f"{h.downstream}.{h.downstream_column}",
                           "evidence": h.evidence_id} for h in c.hops], hide_index=True, width="stretch")
            st.markdown("Comes from: " + ", ".join(f"`{r}`" for r in c.raw_columns))
        else:
            st.info(c.detail)


def show_graph(g, key: str) -> None:
    nodes = [Node(id=n.id, label=n.label, color=n.colour, shape="box", size=18,
                  borderWidth=3 if n.on_path else 1, title=f"{n.kind}: {n.id}") for n in g.nodes]
    edges = [Edge(source=e.source, target=e.target, color=PATH_COLOUR if e.on_path else "#c0c0c0",
                  width=3 if e.on_path else 1, title=e.evidence_id) for e in g.edges]
    config = Config(width="100%", height=380, directed=True, physics=False, hierarchical=True,
                    direction="LR", sortMethod="directed", levelSeparation=220, nodeSpacing=90)
    agraph(nodes=nodes, edges=edges, config=config)


def freshness(env: Envelope) -> None:
    st.subheader("Three clocks")
    c1, c2, c3 = st.columns(3)
    with c1:
        st.markdown("**1 · Definition effective time**")
        when = env.reporting_date or (f"{env.period_start} → {env.period_end - timedelta(days=1)}"
                                      if env.period_start else "no reporting date")
        st.markdown(f"Reporting: {when}")
        for s in env.selected:
            if s.role_in_answer in ("definition", "model"):
                st.markdown(f"`{s.evidence_id}`: {_interval(s)}")
    with c2:
        st.markdown("**2 · Data freshness**")
        if not env.freshness:
            st.caption("No source freshness applies to this answer.")
        for f in env.freshness:
            colour = {"pass": "green", "warn": "orange", "error": "red", "unknown": "gray"}[f.status]
            age = f"{f.age_hours} h old" if f.age_hours is not None else "no load recorded"
            st.markdown(f":{colour}-badge[{f.status.upper()}] `{f.source}`  \n{age}; warn > {f.warn_after_hours} h, "
                        f"error > {f.error_after_hours} h  \nas of {f.evaluated_at:%Y-%m-%d %H:%M} UTC")
    with c3:
        st.markdown("**3 · Catalog / index freshness**")
        st.markdown(f"Catalog revision `{env.catalog_revision}`")
        if env.index is None:
            st.caption("Search index not in use for this answer (still loading, or absent): "
                       "the answer comes from the catalog alone.")
        else:
            st.markdown(f"Index: **{env.index.status}** ({env.index.indexed_objects} objects)")
            stale = env.index.stale_content + env.index.stale_acl + env.index.missing
            if stale:
                st.caption(f"{len(stale)} of your objects are stale in the index; permissions and text come "
                           "from the live catalog.")


def _cited(env: Envelope, evidence_id: str) -> None:
    """What a citation chip opens: the cited evidence as the envelope holds it."""
    refs = list(env.selected) + [r for sp in env.splits for r in sp.selected]
    for r in refs:
        if r.evidence_id == evidence_id:
            st.markdown(f"**{r.title}** · {r.kind} · {r.authority}/{r.lifecycle}  \n"
                        f"version {r.version or '—'} · in effect {_interval(r)}")
            if r.metric:
                st.code(r.metric.formula, language="sql")
            if r.text:
                st.caption(r.text)
            return
    for c in env.conflicts:
        if c.evidence_id == evidence_id:
            st.markdown(f":{LABEL_COLOURS.get(c.label, 'gray')}-badge[{c.label}] **{c.title}**  \n{c.why}")
            if c.text:
                st.caption(c.text)
            return
    for f in env.freshness:
        if evidence_id in (f.evidence_id, f.policy_evidence_id):
            st.markdown(f"Freshness of `{f.source}`: **{f.status.upper()}**  \nloaded {f.loaded_at or 'never'}; "
                        f"warn > {f.warn_after_hours} h, error > {f.error_after_hours} h")
            return
    edges = [e for e in env.lineage.edges if e.evidence_id == evidence_id]
    if edges:
        st.markdown("Lineage evidence:  \n" + "  \n".join(f"`{e.upstream}` → `{e.downstream}`" for e in edges))
        return
    if env.clarify:
        for o in env.clarify.options:
            if o.evidence_id == evidence_id:
                st.markdown(f"Candidate version: {o.label}")
                return
    st.caption("Not part of this answer's evidence.")


def explanation(env: Envelope) -> None:
    x = env.explanation
    if x is None:
        return
    st.subheader("Explanation")
    if x.model == DETERMINISTIC:
        st.markdown(":gray-badge[Generated without an LLM] Written by fixed rules from the evidence above.")
    else:
        st.markdown(f":violet-badge[Written by {x.model}] Every citation was checked by AsOf before showing.")
    if x.fallback_used and x.fallback_reason:
        st.caption(f"Showing the explanation written without an LLM: {x.fallback_reason}")
    elif x.validation.dropped:
        st.caption(f"{len(x.validation.dropped)} sentence(s) removed by the citation checks: "
                   + "; ".join(p.detail for p in x.validation.problems[:3]))
    for sentence in x.sentences:
        chips = " ".join(f":blue-badge[{c}]" for c in sentence.citations)
        st.markdown(sentence.text.replace("$", "\\$") + (f" {chips}" if chips else ""))
    if x.citations:
        st.caption("Open a citation:")
        cols = st.columns(min(len(x.citations), 4))
        for i, c in enumerate(x.citations):
            with cols[i % len(cols)].popover(c, width="stretch"):
                _cited(env, c)


def splits(env: Envelope) -> None:
    cols = st.columns(len(env.splits) or 1)
    for col, sp in zip(cols, env.splits):
        with col.container(border=True):
            st.markdown(f"**{sp.start} → {sp.end - timedelta(days=1)}**")
            st.markdown(sp.verdict)
            for ref in sp.selected:
                st.markdown(f"`{ref.evidence_id}`" + (f" · `{ref.metric.formula}`" if ref.metric else ""))


def supporting(env: Envelope) -> None:
    if env.supporting:
        with st.expander(f"Related approved evidence found by search ({len(env.supporting)})"):
            for h in env.supporting:
                st.markdown(f"`{h.evidence_id}` {h.title} · score {h.score}")


def download(payload: str, env: Envelope, key: str) -> None:
    st.download_button("Download evidence envelope (JSON)", payload,
                       file_name=f"asof-envelope-{env.role}-{env.entity_id or 'none'}.json",
                       mime="application/json", key=key)
