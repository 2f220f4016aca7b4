"""Ask: which definition applied on the date, for you, and why. A thin page over core.answer.ask."""
from __future__ import annotations

import contextlib
from datetime import date, timedelta
from urllib.parse import urlencode

import streamlit as st

st.set_page_config(page_title="AsOf · Ask", page_icon="🕰️", layout="wide")

from core.answer.ask import Question  # noqa: E402
from core.answer.conversation import follow  # noqa: E402
from core.answer.examples import examples  # noqa: E402
from core.answer.steward import ask_as_steward, grants, steward_view  # noqa: E402
from core.catalog.access import visible  # noqa: E402
from core.catalog.envelope import Behavior, Envelope  # noqa: E402
from core.catalog.history import view_for  # noqa: E402
from core.explain.explain import explain  # noqa: E402
from core.explain.headline import date_source, day_text, markdown  # noqa: E402
from core.explain.value_headline import loaded_for_period  # noqa: E402
from core.read.dates.day_range import check_day  # noqa: E402
from core.read.dates.written import parse_period  # noqa: E402
from core.resolve.parts import part_details  # noqa: E402
from core.settings.budget import too_long  # noqa: E402
from ui import answer  # noqa: E402
from ui import history as history_ui  # noqa: E402
from ui import values as values_ui  # noqa: E402
from ui.dates import clock_note, sidebar_date_note  # noqa: E402
from ui.graph import pick_node_object  # noqa: E402
from ui.resources import explanation_cache, searcher, settings, sidebar, store, value_engine  # noqa: E402
from ui.safe import code, inert, md  # noqa: E402
from ui.steward import badge, scope_for  # noqa: E402

try:  # new answer intents (discover, compare, owner, ...) rendered by their own module when present
    from ui.intents import downstream as render_downstream
    from ui.intents import render_intent
except ImportError:
    render_intent = render_downstream = None


def _read_link() -> None:
    """A shared link (?q=&date= or &period=START..END) fills the session once, on arrival."""
    if st.session_state.get("link_read"):
        return
    st.session_state["link_read"] = True
    p = st.query_params  # its ?role= is the sidebar's (ui/resources.py), as on every page
    problems = []
    which = "date" if p.get("date") else "period"
    try:
        if p.get("date"):
            day = date.fromisoformat(p["date"])
        elif p.get("period"):
            start, end = (date.fromisoformat(x.strip()) for x in p["period"].split("..", 1))
    except ValueError:  # said, never silently replaced by another date
        problems.append(f"The link's {which} {p[which]!r} is not a real {which}, so no reporting date is used. "
                        + ("Write it as YYYY-MM-DD." if which == "date" else "Write it as YYYY-MM-DD..YYYY-MM-DD."))
    else:
        try:  # a real day, but maybe not one AsOf answers for: refused in the CLI's and MCP's words
            if p.get("date"):
                st.session_state["date_mode"], st.session_state["day"] = "Date", check_day(day)
            elif p.get("period"):
                start, end = parse_period(p["period"])
                st.session_state["date_mode"], st.session_state["period"] = "Period", (start, end - timedelta(days=1))
        except ValueError as exc:
            problems.append(f"The link's {which} {p[which]!r}: {exc}, so no reporting date is used.")
    st.session_state["link_problems"] = problems
    if p.get("open"):  # a steward's queue object opened read-only ("Open in Ask" from Governance review)
        st.session_state["asked"] = {"question": p.get("q") or "", "open": p["open"].split(",")}
        st.session_state["question"] = p.get("q") or ""
        return
    if p.get("q"):
        st.session_state["question"] = p["q"]
        # A followed-up question's subject: used only if the recipient's role sees it (core/answer/ask.py)
        st.session_state["asked"] = {"question": p["q"], **({"entity": p["entity"]} if p.get("entity") else {})}


def _link_params(asked: dict, form: dict) -> dict:
    """The link that reproduces this answer: a date chosen for this question only (a clarification, an
    other version, Governance review's "Open in Ask") goes in the link, so it answers the same when shared."""
    params = {"q": asked["question"], "role": form["role"]}
    day, period = form["day"], form["period"]
    if "day" in asked or "period" in asked:
        day, period = asked.get("day"), asked.get("period")
    carried = asked.get("carried")
    if carried:  # a follow-up: the subject and dates it carried, so the link asks what was answered
        params["entity"] = carried["entity"]
        day, period = carried["day"], carried["period"]
    if asked.get("open"):
        params["open"] = ",".join(asked["open"])
    elif day:
        params["date"] = date.fromisoformat(str(day)).isoformat()
    elif period:
        params["period"] = f"{period[0]}..{period[1] - timedelta(days=1)}"
    return params


def _submit() -> None:
    q = st.session_state.get("question", "").strip()
    if not q:
        st.session_state["empty_question"] = True
        return
    if too_long(q):  # refused before anything reads it (core/settings/budget.py), with the same message as the CLI and MCP
        st.session_state["long_question"] = too_long(q)
        st.session_state.pop("asked", None)
        return
    # The session's last answer at the moment of asking: a follow-up continues from it (core/answer/conversation.py),
    # the same on every rerun of this answer.
    st.session_state["asked"] = {"question": q, "last": st.session_state.get("turn"),
                                 "role": st.session_state.get("role")}
    history = st.session_state.setdefault(_history_key(st.session_state.get("role")), [])
    if q not in history:
        history.insert(0, q)
        del history[10:]


def _history_key(role: str | None) -> str:
    # One list per role: in demo mode a role switch must not show what was asked as another role.
    return f"history:{role}"


def _use(question: str) -> None:
    st.session_state["question"] = question
    _submit()


def _choose(option: dict) -> None:
    """A clarification answer applies to this question only: the sidebar stays as the user set it."""
    asked = dict(st.session_state.get("asked", {}))
    if option.get("date"):
        asked["day"] = option["date"]
        asked["period"] = None
        asked["date_from_form"] = True
    if option.get("entity_id"):
        asked["entity"] = option["entity_id"]
    st.session_state["asked"] = asked


_read_link()
s = store()
form = sidebar(s)
for problem in st.session_state.pop("link_problems", []):
    st.warning(problem)
scope = scope_for(s, form["role"])
view_of_role = steward_view(s, form["role"], scope)  # a steward's own objects plus its review queue; else the role's
with st.sidebar:
    history = st.session_state.get(_history_key(form["role"]), [])
    if history:
        st.markdown("**Your questions**")
        # Fixed CSS: a long question wraps left-aligned, like the short ones.
        st.html("<style>div[class*='st-key-history_'] button, div[class*='st-key-history_'] button p "
                "{ justify-content: flex-start; text-align: left; }</style>")
        for i, q in enumerate(history):
            st.button(md(q), key=f"history_{i}", on_click=_use, args=(q,), type="tertiary")

st.title("Ask")
st.caption("Which definition of a metric applied on your reporting date, for your role: the approved version, "
           "its model, where the numbers come from, whether the data is fresh, and what disagrees.")
# Fixed CSS: the question's text stops short of Streamlit's "Press Enter to submit form" hint, which is drawn
# inside the box at its right end (a long question ran under it at 1024 and 1366 px).
st.html("<style>.st-key-question input { padding-right: 9.5rem; }</style>")
with st.form("ask_form", border=False, enter_to_submit=True):
    c1, c2 = st.columns([6, 1], vertical_alignment="bottom")
    c1.text_input("Question", key="question", placeholder="What did net revenue mean on 30 Jun 2024?")
    c2.form_submit_button("Ask", key="ask", type="primary", on_click=_submit, width="stretch")
recorded_at = history_ui.recorded_at_control()  # transaction time (core/catalog/history.py)
if st.session_state.pop("empty_question", False):
    st.warning("Type a question first, for example “What is net revenue on 2025-03-31?”.")
long_question = st.session_state.pop("long_question", None)
if long_question:
    st.error(long_question)

asked = st.session_state.get("asked")


def _landing() -> None:
    view = view_of_role
    metrics = sorted((e for e in view.entities.values() if e.role == "metric"), key=lambda e: e.label.lower())
    badge(scope)
    tries = examples(view, form["at"])
    if tries:  # a steward's own view may hold none: no empty "Try one" heading then
        st.subheader("Try one")
        cols = st.columns(3)
        for col, ex in zip(cols, tries):
            with col.container(border=True):
                st.caption(ex.label)
                st.button(md(ex.question), key=f"example_{ex.kind}", on_click=_use, args=(ex.question,), width="stretch")
    st.subheader(f"Metrics role {form['role']} can ask about ({len(metrics)})")
    if metrics:
        _metric_pills([m.label for m in metrics], "landing_metric", "Click a metric to ask what it means."
                      + (" Your review queue's objects are read-only." if scope is not None else ""))
    else:
        st.caption("None: this role sees no metric definitions.")


def _metric_pills(labels: list[str], key: str, hint: str) -> None:
    """The metric names as one-click questions ("What is Churn rate?"): at a demo nobody has to type one."""
    st.pills("Ask about a metric", labels, key=key, format_func=md, on_change=_ask_metric, args=(key,),
             label_visibility="collapsed")
    st.caption(hint)


def _ask_metric(key: str) -> None:
    label = st.session_state.get(key)
    st.session_state[key] = None  # unselected again: the next "not found" list starts clean
    if label:
        _use(f"What is {label}?")


def _open_objects(ids: list[str]) -> None:
    """A steward opening a queue item nobody may ask about (an empty ACL, an untrusted note): read-only."""
    st.query_params.from_dict(_link_params(asked, form))  # shareable: the link opens the same item
    badge(scope)
    objs = _queue_objects(ids)
    if not objs:
        st.info("This item is not in your review queue.")
        return
    st.markdown(f"### {md(objs[0].title)}")
    _object_cards(objs)


def _queue_objects(ids: list[str]) -> list:
    return [e for e in view_of_role.by_ids(ids) if e.evidence_id in ids]


def _object_cards(objs: list) -> None:
    for i, e in enumerate(objs):
        with st.container(border=True, key=f"queue_object_{i}"):
            standing = answer.STANDING.get(e.authority.value, md(e.authority.value))
            life = answer.LIFE.get(e.lifecycle.value, md(e.lifecycle.value))
            st.markdown(f"**{md(e.title)}** · {code(e.evidence_id)} · {standing}, {life}")
            st.caption(f"Who may see it: {', '.join(md(r) for r in e.acl) or 'nobody (empty ACL)'} · "
                       f"owner: {md(e.owner or '—')}")
            st.text(inert(e.text))


def _answer(asked: dict) -> None:
    day, period = form["day"], form["period"]
    if "day" in asked or "period" in asked:  # chosen in a clarification: this question only
        day, period = asked.get("day"), asked.get("period")
    q = Question(role=form["role"], text=asked["question"], day=day, period=period, at=form["at"],
                 entity=asked.get("entity"), date_from_form=asked.get("date_from_form", False),
                 recorded_at=recorded_at, grants=grants(scope))
    q, env, turn = follow(q, asked.get("last"), form.get("principal"),
                          lambda asking: ask_as_steward(s, asking, scope, searcher(s), engine=value_engine())[0])
    # A question asked as one role and shown again after a switch to another starts no thread for the new role:
    # its next follow-up would read as continuing a conversation it never had.
    st.session_state["turn"] = turn if asked.get("role") == form["role"] else None
    asked["carried"] = {"entity": q.entity, "day": q.day, "period": q.period} if q.carried else None
    cfg = settings()
    with st.spinner("Writing the explanation…") if cfg.llm_model else contextlib.nullcontext():
        # Citations are checked against the state that answered (a past state when recorded_at is set).
        env.explanation = explain(env, asked["question"], view_for(s, env).visible_ids, cfg.llm_model,
                                  cfg.llm_timeout_s, explanation_cache())
    history_ui.record_answer(env, q, form.get("principal"))  # audit log: one record per distinct answer
    history_ui.recorded_note(env)
    st.session_state["envelope_json"] = env.model_dump_json(indent=2)  # exactly what the download serves
    st.query_params.from_dict(_link_params(asked, form))
    if render_intent is not None and _is_intent(env):  # owner, compare, list, downstream, document
        answer.top(env, _notes(env, asked, day, period))
        values_ui.render(env)  # "X in 2026 vs 2027": both periods' values above the versions compared
        render_intent(env)
        answer.explanation(env)
        answer.decided(env)
        _share(env, asked)
        return
    _render(env, asked, form_day=day, form_period=period)
    _share(env, asked)


def _is_intent(env: Envelope) -> bool:
    # A definition answer may carry a downstream half ("...and what uses it?"): it is drawn below its lineage.
    return bool(env.listing or env.comparison or env.ownership or (env.downstream and env.intent == "downstream")
                or env.documents or env.review or env.table_facts)


def _notes(env: Envelope, asked: dict, form_day, form_period) -> list[str]:
    """Where the date came from, and which clock freshness was read at, under the headline."""
    if asked.get("day"):
        where = f"using {day_text(asked['day'])} for this question (the sidebar is unchanged)"
    else:
        # The sidebar's date when the answer took it; else where the question's own date came from.
        where = sidebar_date_note(env, form_day, form_period) or date_source(env, None, None,
                                                                             carried=bool(asked.get("carried")))
    return [n for n in (where, clock_note(env, s.clock)) if n]


def _render(env: Envelope, asked: dict, form_day, form_period) -> None:
    view = visible(s, env.role, frozenset(env.granted))
    details = []
    if env.behavior is Behavior.split:
        for sp in env.splits:
            lin, fresh = part_details(view, sp.selected, sp.start, env.evaluated_at)
            title = f"{day_text(sp.start)} to {day_text(sp.end - timedelta(days=1))}"
            details.append((title, sp.selected, lin, fresh))
    elif env.behavior is Behavior.human_review:
        for ref in (r for r in env.selected if r.role_in_answer == "overlap"):
            lin, fresh = part_details(view, [ref], env.reporting_date or (env.period_start or None), env.evaluated_at)
            details.append((ref.title, [ref], lin, fresh))
    # A steward's widened answer says "Steward view ..." in its status line (the note comes from core/answer/steward.py).
    answer.top(env, _notes(env, asked, form_day, form_period), [f for d in details for f in d[3]])
    answer.other_versions(env, _choose)
    values_ui.render(env)  # the number under what governed, when the question asked for one
    if env.behavior is Behavior.clarify and env.clarify and env.clarify.options:  # no options: the question says it
        cols = st.columns(len(env.clarify.options))
        for i, (col, option) in enumerate(zip(cols, env.clarify.options)):
            col.button(md(option.label), key=f"clarify_{i}", on_click=_choose,
                       args=(option.model_dump(mode="python"),), width="stretch")
        if any(o.version and o.date for o in env.clarify.options):  # say which date a version button uses
            st.caption("A version button answers for that version's first day in effect. For another date, "
                       "write it in the question or set it in the sidebar.")
    elif env.behavior is Behavior.not_found_or_not_authorized:
        # The engine's own words (a question AsOf does not answer reads differently from a missing object); the page
        # adds only where to go next, never a reason of its own.
        st.caption(md(env.verdict))
        if scope is not None:  # a steward widens only to its review queue: say where that is
            st.caption("Your review queue is on the Governance review page; each item there opens here read-only.")
        _landing_metrics()
    elif details:
        answer.parts(env, details)
        answer.conflicts(env)
    elif env.selected:
        answer.cards(env.selected)
        answer.conflicts(env)
        starts = [r.evidence_id for r in env.selected if r.role_in_answer in ("definition", "model")]
        clicked = answer.lineage(env.lineage, starts, env.freshness, key="answer")
        if clicked:
            _node_details(clicked, env)
        answer.columns(env)
        answer.freshness(env.freshness, loaded_for_period(env))
        if env.downstream and render_downstream is not None:  # "...and what uses it?": the other half
            render_downstream(env)
    else:
        answer.conflicts(env)
    answer.explanation(env)
    answer.decided(env)


def _landing_metrics() -> None:
    metrics = sorted((e.label for e in view_of_role.entities.values() if e.role == "metric"), key=str.lower)
    if metrics:
        st.markdown("**Metrics you can ask about**")
        _metric_pills(metrics, "not_found_metric", "Click a metric to ask what it means.")


def _node_details(node: str, env: Envelope) -> None:
    """What a clicked lineage node opens: that object, through the view that answered."""
    objs = visible(s, env.role, frozenset(env.granted)).by_ids([node])
    if not objs:
        return
    e = pick_node_object(node, objs)
    with st.container(border=True, key="node_details"):
        st.markdown(f"**Opened: {md(e.title)}** · {md(e.kind.value.replace('_', ' '))} · {code(e.evidence_id)}")
        if e.text:
            st.text(inert(e.text))
        if st.button("Explore its lineage", key="explore_node"):
            st.session_state["lineage_entity"] = e.entity_id
            st.switch_page("pages/2_Lineage.py")


def _share(env: Envelope, asked: dict) -> None:
    link = (st.context.url or "").split("?")[0] + "?" + urlencode(_link_params(asked, form))
    c1, c2, c3 = st.columns(3)
    with c1.popover("Copy link", icon=":material/link:", width="stretch"):
        st.caption("Opening this link asks the same question, as the same role, on the same date.")
        st.code(link, language=None, wrap_lines=True)
    with c2.popover("Copy as Markdown", icon=":material/content_copy:", width="stretch"):
        st.code(markdown(env, md), language="markdown", wrap_lines=True)
    c3.download_button("Download evidence (JSON)", st.session_state["envelope_json"],
                       file_name=f"asof-envelope-{env.role}-{env.entity_id or 'none'}.json",
                       mime="application/json", key="download", width="stretch", icon=":material/download:")


if asked and asked.get("open"):
    _open_objects(asked["open"])
elif asked and too_long(asked.get("question")):  # a shared link (?q=) carrying an over-long question
    st.error(too_long(asked["question"]))
elif asked:
    _answer(asked)
else:
    _landing()
