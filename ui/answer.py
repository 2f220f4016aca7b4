"""Renders an evidence envelope. Decides nothing: every fact shown is a field of the envelope."""
from __future__ import annotations

from datetime import timedelta

import streamlit as st
from streamlit_agraph import Config, Edge, Node, agraph

from core.envelope import Behavior, Envelope
from core.graph import PATH_COLOUR, graph
from core.summary import summarize

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
        st.caption("No lineage edges recorded for this answer.")
        return
    starts = [s.evidence_id for s in env.selected if s.role_in_answer in ("definition", "model")]
    show_graph(graph(env.lineage, starts), key)
    with st.expander("Lineage as a table"):
        st.dataframe([{"upstream": e.upstream, "downstream": e.downstream, "evidence": e.evidence_id}
                      for e in env.lineage.edges], hide_index=True, width="stretch")
        st.markdown("Raw sources: " + ", ".join(f"`{s}`" for s in env.lineage.raw_sources))


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


def explanation(env: Envelope) -> None:
    st.subheader("Explanation")
    sentences = summarize(env)
    if not sentences:
        st.caption("Nothing to explain for this outcome.")
    for s in sentences:
        st.markdown(f"- {s.text} " + " ".join(f"`[{c}]`" for c in s.cites))
    st.caption("Deterministic summary of the evidence above; every sentence cites the evidence it comes from.")


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
