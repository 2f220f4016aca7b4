"""Heavy resources, cached once per app process, and the sidebar every page shares."""
from __future__ import annotations

import sys
import threading
from datetime import date, datetime, time, timezone
from pathlib import Path

import streamlit as st

from core.answer.steward import queue_day, steward_view
from core.answer.warm import warm_quietly
from core.catalog.access import seen_text
from core.catalog.store import Store
from core.compute import choose
from core.explain.explain import ExplanationCache, cache_for
from core.explain.headline import clock_text
from core.explain.ingested import ingested_text
from core.read.dates.day_range import FIRST_DAY, LAST_DAY, check_day
from core.read.dates.written import parse_period
from core.retrieve.embed import Embedder
from core.retrieve.search import Searcher
from core.serve.live import Live
from core.settings.auth import startup_notice
from core.settings.config import Settings, apply_offline_env
from core.settings.objects import ObjectStoreError
from ui.identity import allowed_roles
from ui.navigation import ensure_app_navigation
from ui.safe import md
from ui.steward import scope_for

apply_offline_env()


@st.cache_resource
def settings() -> Settings:
    s = Settings.from_env()
    notice = startup_notice(s.auth)  # once per server process: which proxy header identity trusts, or why none
    if notice:
        print(notice, file=sys.stderr, flush=True)
    return s


@st.cache_resource(show_spinner=False)
def _embedder(model: str | None) -> tuple[Embedder, threading.Thread]:
    # Importing sentence-transformers takes seconds; load it in the background so the first,
    # catalog-only answer does not wait for it.
    embedder = Embedder(model)
    thread = threading.Thread(target=lambda: embedder.model, daemon=True)
    thread.start()
    return embedder, thread


def embedder() -> Embedder:
    """The app's embedding model (loaded once per process), for a steward decision's new revision."""
    return _embedder(settings().embed_model)[0]


@st.cache_resource(show_spinner=False)
def _live(catalog: str, model: str | None) -> Live:
    cfg = settings()
    return Live(catalog, _embedder(model)[0], cache_dir=cfg.revisions_dir, poll_s=cfg.poll_s)


def store() -> Store:
    """The catalog database as it is now; one Store per file revision, shared by every session. A replica
    (ASOF_DB=s3://...) reads the revision its object storage's CURRENT names, picked up without a restart."""
    cfg = settings()
    if cfg.catalog_url is None and not cfg.db_path.exists():
        st.error(f"No catalog database at {cfg.db_path}. Run `bash scripts/run.sh` (it ingests the demo catalog), "
                 "or `python -m core ingest CATALOG --db PATH` and set ASOF_DB.")
        st.stop()
    try:
        s = _live(cfg.catalog, cfg.embed_model).store()
    except ObjectStoreError as exc:
        st.error(f"The published catalog cannot be read: {exc}")
        st.stop()
    _warming(str(s.path), s.revision, s)
    return s


@st.cache_resource(show_spinner=False)
def _warming(db: str, revision: str, _store: Store) -> threading.Thread:
    # Once per catalog revision: every role's view and search filter built in the background (core/answer/warm.py),
    # so no role's first question waits for them (seconds at 100,000 objects). The searcher once the model is in.
    cfg = settings()  # read here: the thread below runs outside any Streamlit session
    model, live = _embedder(cfg.embed_model)[1], _live(cfg.catalog, cfg.embed_model)

    def run():
        warm_quietly(_store)
        model.join()
        warm_quietly(_store, live.searcher(_store))
    thread = threading.Thread(target=run, daemon=True, name="asof-warm")
    thread.start()
    return thread


@st.cache_resource(show_spinner=False)
def _engine(db: str, revision: str, path: str, mtime: float | None, timeout_s: float):
    # `store` is read inside: the cache key is the catalog revision and the warehouse file revision.
    return choose.value_engine(store(), settings().model_copy(update={"warehouse_path": Path(path),
                                                                       "value_timeout_s": timeout_s}))


def value_engine():
    """The engine values are computed with (core/compute/choose.py): MetricFlow for a catalog ingested from a dbt
    project with a semantic manifest, the demo's read-only warehouse for its own SQL metrics; once per catalog
    and warehouse file revision; None when there is neither."""
    s, path = store(), settings().warehouse_path
    return _engine(str(s.path), s.revision, str(path), path.stat().st_mtime if path.is_file() else None,
                   settings().value_timeout_s)


@st.cache_resource(show_spinner=False)
def explanation_cache() -> ExplanationCache:
    return cache_for(settings().db_path)


def searcher(s: Store, wait: bool = False) -> Searcher | None:
    """The hybrid searcher paired with this Store, once the embedding model is loaded (None while it
    warms up). Always pass the Store the request started with, so both read the same revision."""
    _, thread = _embedder(settings().embed_model)
    if wait:
        thread.join()
    if thread.is_alive():
        return None
    return _live(settings().catalog, settings().embed_model).searcher(s)


def catalog_today(s: Store) -> date:
    """The day every page calls "today": the catalog's own clock when it names one (the demo's), else the real one,
    so the review queue, the timeline and the answers never show two different todays on one screen, nor the app
    another today than the CLI or an MCP client (the rule lives in core/answer/steward.py)."""
    return queue_day(s)


def _role_from_link(roles: list[str]) -> None:
    """A link's ?role= opens the session as that role when it is one on offer, once, on arrival, and says so
    (a shared link must not switch someone's role unseen); a role not on offer is said, not swapped silently."""
    if st.session_state.get("role_link_read"):  # later runs: the address holds the role this app wrote there
        return
    st.session_state["role_link_read"] = True
    linked = st.query_params.get("role")
    if not linked:
        return
    if linked in roles:
        st.session_state["role"] = st.session_state["role_from_link"] = linked
        return
    # Same words whether the role exists or not.
    st.warning(f"The link's role {md(repr(linked))} is not one you can use here, so this page shows role "
               f"{md(st.session_state['role'] if st.session_state.get('role') in roles else roles[0])}.")


def _keep(*keys: str) -> None:
    # Streamlit drops widget state when a page stops rendering the widget; re-assigning keeps
    # role and dates as the user moves between pages.
    for key in keys:
        if key in st.session_state:
            st.session_state[key] = st.session_state[key]


def _out_of_range(defaults: dict) -> list[str]:
    """A form date outside the days AsOf answers for (a value the date pickers never offer: a forged widget
    message, an old session) is refused in the words the CLI and MCP use, and the field is set back to its
    default; before, the pickers raised on it, or the answer overflowed the calendar."""
    said = []
    for key, what in (("day", "reporting date"), ("at_day", "evaluation time")):
        value = st.session_state.get(key)
        if isinstance(value, date):
            try:
                check_day(value, what)
            except ValueError as exc:
                said.append(f"{exc}; the form's {what} was set back to its default.")
                st.session_state[key] = defaults[key]
    period = st.session_state.get("period")
    ends = [d for d in (period if isinstance(period, (tuple, list)) else ()) if isinstance(d, date)]
    for end, what in zip(ends, ("period start", "period end")):
        try:
            check_day(end, what)
        except ValueError as exc:
            said.append(f"{exc}; the form's period was set back to its default.")
            st.session_state["period"] = defaults["period"]
            break
    return said


def sidebar(s: Store, dates: bool = True) -> dict:
    """Role, reporting date or period, evaluation time, and the catalog's status. `dates=False` on pages
    where a date changes nothing. The form starts with no date: a date the user did not choose must not
    fight the one written in the question."""
    ensure_app_navigation()  # a page opened by URL as the server's first visit still runs under app.py
    _keep("role", "date_mode", "day", "period", "at_day", "at_time")
    ident = allowed_roles(s, settings().auth)  # demo: every role; otherwise the signed-in principal's (or stop)
    roles = ident.roles
    # Freshness is read against the catalog's own clock when it names one (the demo), else the real clock.
    now = s.now()
    defaults = {"date_mode": "No date", "day": None, "period": (date(now.year, 1, 1), date(now.year, 12, 31)),
                "at_day": now.date(), "at_time": time(now.hour, now.minute)}
    for key, value in defaults.items():
        st.session_state.setdefault(key, value)
    for problem in _out_of_range(defaults):
        st.error(problem)
    _role_from_link(roles)
    if st.session_state.get("role") not in roles:
        st.session_state["role"] = roles[0]
    role = st.sidebar.selectbox("Role", roles, key="role", help="Everything on every page is limited to what this role may see.")
    if role not in roles:  # a widget value the options never offered (a forged client message)
        st.stop()
    if st.session_state.get("role_from_link") == role:
        st.sidebar.caption(f"Role {md(role)} was set by the link you opened.")
    else:  # chosen here since: the link no longer speaks for it
        st.session_state.pop("role_from_link", None)
    if st.query_params.get("role") not in (None, role):  # the address bar never names a role the page is not using
        st.query_params["role"] = role
    if not dates:
        return {"role": role, "principal": ident.principal, "day": None, "period": None, "at": s.now()}
    mode = st.sidebar.radio("Reporting", ["Date", "Period", "No date"], key="date_mode", horizontal=True)
    day = period = None
    bounds = dict(min_value=FIRST_DAY, max_value=LAST_DAY)  # the days AsOf answers for (core/read/dates/day_range.py)
    if mode == "Date":
        day = st.sidebar.date_input("Reporting date", key="day", **bounds)
    elif mode == "Period":
        value = st.sidebar.date_input("Reporting period", key="period", **bounds)
        if isinstance(value, (tuple, list)) and len(value) == 2:
            period = parse_period(f"{value[0]}..{value[1]}")
    with st.sidebar.expander("Freshness evaluated at", expanded=False):
        at_day = st.date_input("Day (UTC)", key="at_day", **bounds)
        at_time = st.time_input("Time (UTC)", key="at_time")
    at = datetime.combine(at_day, at_time, tzinfo=timezone.utc)
    st.sidebar.caption(clock_text(at, s.clock), help="Freshness (is the data fresh, stale or failing?) is computed "
                       "at this time. A demo catalog names its own evaluation time; real catalogs use the real clock.")
    # Revision and count of the view answers read (a steward's widened by its review queue), so they are the
    # answer's own: hidden objects change neither, and the queue's objects are counted apart (access.seen_text).
    meta, view = s.meta(), steward_view(s, role, scope_for(s, role))
    st.sidebar.caption(f"Catalog revision `{view.revision}` · {seen_text(view)} · "
                       f"{ingested_text(meta.get('ingested_at'), s.clock)}")
    return {"role": role, "principal": ident.principal, "day": day, "period": period, "at": at}
