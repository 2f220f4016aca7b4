"""The number first: when a question asks for a value, the headline is the value, then the version that
computed it; a restatement leads with the restated figure and the difference; two periods compared lead with
both values. And a past period is judged on its own loads: a source that was loaded after the period ended holds
all of it, so today's late load is said quietly, never as a failing banner over a complete value. Pure: from the
envelope's `values` only (core/catalog/values.py), so the headline can never contradict the value block."""
from __future__ import annotations

from datetime import date, timedelta

from core.catalog.envelope import Envelope, FreshnessEntry
from core.catalog.values import MetricValue, PeriodComparison, Restatement, Values
from core.explain.value_text import number, period_label, signed
from core.resolve.freshness import age_text
from core.resolve.values import rolled_up

MAX_PARTS = 4  # more sub-periods than this are a range in the headline; the table lists them all


def _day(d: date) -> str:
    return f"{d.day} {d:%b %Y}"


def when(start: date, end: date) -> str:
    """'in Q3 2023', 'in Apr 2024', 'in 2024', 'on 30 Jun 2024', 'from 1 Apr 2024 to 15 May 2024'."""
    last = end - timedelta(days=1)
    if start == last:
        return f"on {_day(start)}"
    label = period_label(start, end)
    if label[:1].isalpha() or label.isdigit():  # a calendar bucket: "Apr 2024", "Q2 2024", "2024"
        return f"in {label}"
    return f"from {_day(start)} to {_day(last)}"


def _piece(v: MetricValue, whole_year: int | None, today: date | None = None) -> str:
    """A sub-period's short name: 'Q1', 'Apr' inside one year, else its full label; a month cut at the clock's
    day is that month 'so far'."""
    label = period_label(v.start, v.end)
    if today is not None and v.end == today + timedelta(days=1) and v.start.day == 1 and v.end.day != 1:
        label = f"{v.start:%b %Y} so far"
        return label.replace(f" {whole_year}", "") if whole_year is not None else label
    if whole_year is not None and label.endswith(f" {whole_year}"):
        return label[: -len(f" {whole_year}")]
    return label


def _vname(label: str | None) -> str:
    label = label or ""
    return f"v{label}" if label[:1].isdigit() else label


def _fig(value: float | None, unit: str | None) -> str:
    return "no value" if value is None else number(value, unit)


def _pct(percent: float | None) -> str:
    return f", {percent:+.2f}%" if percent is not None else ""


def _versions(names: list[str]) -> str:
    return " then ".join(dict.fromkeys(n for n in names if n))


def _is(label: str, fig: str, said: str, values: Values, env: Envelope) -> str:
    """'X was $1 in Q3 2023'; a period not over yet: 'X is $1 so far in Mar 2028'. A stock (`last`) is said at the
    period's end: 'X was 219 at the end of 2027', and one still running as of the clock's day."""
    running = values.end is not None and values.end > env.evaluated_at.date()
    if values.time_aggregation == "last" and values.start is not None and values.end - values.start > timedelta(days=1):
        if running:
            return f"{label} is {fig} as of {_day(env.evaluated_at.date())}"
        said = when(values.start, values.end)
        end = (f"at the end of {said.split(' ', 1)[1]}" if said.startswith("in ")
               else f"on {_day(values.end - timedelta(days=1))}")
        return f"{label} was {fig} {end}"
    if values.time_aggregation == "average" and values.end - values.start > timedelta(days=31):
        return f"{label} averaged {fig}{' so far' if running else ''} {said}"
    if not running:
        return f"{label} was {fig} {said}"
    return f"{label} is {fig} so far {said}"


def _many(values: Values, n: int) -> str:
    return f"{n} {values.grain}s" if values.grain else f"{n} sub-periods"


def _single(env: Envelope, label: str, values: Values) -> str:
    vs = values.values
    unit = vs[0].unit
    said = when(values.start, values.end)
    names = [_vname(v.version) for v in vs]
    if len(vs) == 1 and vs[0].value is None:
        return f"{label} has no value {said} under {names[0]}: nothing to count in the period"
    if len(vs) == 1:
        return f"{_is(label, _fig(vs[0].value, unit), said, values, env)} under {names[0]}"
    year = values.start.year if values.start.year == (values.end - timedelta(days=1)).year else None
    today = env.evaluated_at.date()
    # One figure for the period as the metric rolls up over time (core/resolve/values.py: over_time): a stock's
    # last value, whichever definition held then; a sum or an average of one definition only (across a definition
    # change it is neither's number); a rate's pieces make none.
    how = values.time_aggregation
    total = (rolled_up([(v.start, v.end, v.value) for v in vs], how)
             if how == "last" or len(set(names)) == 1 else None)
    if total is not None:
        head = f"{_is(label, number(total, unit), said, values, env)} under {_versions(names if how != 'last' else names[-1:])}"
        if len(vs) <= 3:
            return head + ": " + ", ".join(f"{_fig(v.value, unit)} in {_piece(v, year, today)}" for v in vs)
        return head + f"; {_many(values, len(vs))} below"
    if len(vs) <= MAX_PARTS:
        groups: list[tuple[str, list[str]]] = []
        for v, n in zip(vs, names):  # "33.13% in Q1, 34.10% in Q2 under v1; 34.72% in Q4 under v2"
            if not groups or groups[-1][0] != n:
                groups.append((n, []))
            groups[-1][1].append(f"{_fig(v.value, unit)} in {_piece(v, year, today)}")
        return f"{label} {said}: " + "; ".join(f"{', '.join(p)} under {n}" for n, p in groups)
    known = [v for v in vs if v.value is not None]
    if not known:
        return f"{label} {said}: no value in any of its {len(vs)} sub-periods"
    lo, hi = min(known, key=lambda v: v.value), max(known, key=lambda v: v.value)
    return (f"{label} {said} ranged from {number(lo.value, unit)} ({_piece(lo, year)}) to {number(hi.value, unit)} "
            f"({_piece(hi, year)}) under {_versions(names)}; {_many(values, len(vs))} below")


def _restated(label: str, values: Values, r: Restatement) -> str:
    unit = values.values[0].unit if values.values else None
    other = _vname(r.rows[0].other.version) if r.rows else r.other_title
    if r.rows and all(x.other.evidence_id == x.governing.evidence_id for x in r.rows):
        # the version named already governed the whole period: said so, never a difference of +0 against itself
        fig = _fig(r.governing_total if r.governing_total is not None else r.rows[-1].governing.value, unit)
        return f"{other} already governs {label} {when(values.start, values.end)}: {fig}"
    base = _versions([_vname(x.governing.version) for x in r.rows])
    why = (" (today's definition)" if r.why.startswith("today's")
           else " (the old definition)" if r.why.startswith("the old") else "")
    said = when(values.start, values.end)
    if r.difference is not None or len(r.rows) == 1:
        then, now = ((r.governing_total, r.other_total) if r.difference is not None
                     else (r.rows[0].governing.value, r.rows[0].other.value))
        diff, pct = ((r.difference, r.percent) if r.difference is not None
                     else (r.rows[0].difference, r.rows[0].percent))
        return (f"Under {other}{why}, {label} {said} would be {_fig(now, unit)}: {signed(diff, unit)}{_pct(pct)} "
                f"against {_fig(then, unit)} under {base}")
    diffs = [x.difference for x in r.rows if x.difference is not None]
    if not diffs:
        return f"Under {other}{why}, {label} {said} has no value to compare with {base}"
    return (f"Under {other}{why}, {label} {said} would differ from {base} by {signed(min(diffs), unit)} to "
            f"{signed(max(diffs), unit)} across its {len(r.rows)} sub-periods")


def _same_span(a0: date, a1: date, b0: date, b1: date) -> str | None:
    """'1 Jan–29 Nov' when two periods, each inside one year and no calendar bucket, cover the same days of
    their years; None otherwise."""
    la, lb = a1 - timedelta(days=1), b1 - timedelta(days=1)
    if a0.year == b0.year or la.year != a0.year or lb.year != b0.year or when(a0, a1).startswith(("in ", "on ")):
        return None
    if (a0.month, a0.day, la.month, la.day) != (b0.month, b0.day, lb.month, lb.day):
        return None
    return f"{a0.day}–{la.day} {la:%b}" if a0.month == la.month else f"{a0.day} {a0:%b}–{la.day} {la:%b}"


def _compared(env: Envelope, label: str, c: PeriodComparison) -> str:
    a, b = c.sides
    unit = a.unit or b.unit

    def one(side) -> str:
        fig = _fig(side.value, unit) if side.value is not None or side.pieces == 1 else "several values (below)"
        running = " so far" if side.end > env.evaluated_at.date() else ""  # a period not over yet
        return f"{fig} {when(side.start, side.end)}{running}"
    text = f"{label} was {one(a)} and {one(b)}"
    span = _same_span(a.start, a.end, b.start, b.end)
    if span is not None:  # "2025 so far vs 2026 so far": the years, then the one span both cover
        month = f"{a.start:%b} " if a.start.month == (a.end - timedelta(days=1)).month else ""
        text = (f"{label} was {one(a).split(' from ')[0]} in {month}{a.start.year} and {one(b).split(' from ')[0]} in "
                f"{month}{b.start.year}{' so far' if b.end > env.evaluated_at.date() else ''}, each {span}")
    if c.difference is not None:
        text += f" ({signed(c.difference, unit)}{_pct(c.percent)})"
    if a.versions == b.versions:
        return text + f", both under {_versions(a.versions)}"
    text += f", under {_versions(a.versions)} and {_versions(b.versions)}"
    if c.changed:
        return text + f", which differ in {', '.join(c.changed[:2])}"
    return text


def value_headline(env: Envelope, label: str) -> str | None:
    """The headline of an answer that asked for a number; None when it asked for none."""
    values = env.values
    if values is None or values.start is None or values.end is None:
        return None  # no period to give a value for: the answer's own headline says what was asked
    if values.status == "not_found_or_not_authorized":
        return f"No value of {label} is available to you {when(values.start, values.end)}"
    if values.status == "unavailable" and values.start > env.evaluated_at.date():
        # short enough for any label: "in Q3 2027" already says when it starts
        return (f"{label} has no value {when(values.start, values.end)}: that period has not happened yet "
                f"(today is {_day(env.evaluated_at.date())})")
    if values.status != "computed" or not values.values:
        # Nothing computed (no warehouse connected, the engine's project missing, a value that is not a number): the
        # definition still answers the question's other half and leads; the value card under it says why.
        return None
    if values.compared is not None and len(values.compared.sides) == 2:
        return _compared(env, label, values.compared)
    if values.restatement is not None and values.restatement.rows:
        return _restated(label, values, values.restatement)
    return _single(env, label, values)


def period_loaded(env: Envelope, f: FreshnessEntry) -> tuple[str, str] | None:
    """(level, text) for a late or failing source whose loads the period asked for were all taken: said quietly,
    as today's news, beside a value that is complete. None when the source's state bears on the value."""
    values = env.values
    if values is None or values.status != "computed" or f.status not in ("warn", "error"):
        return None
    load = next((i for i in values.inputs if i.source == f.source), None)
    if load is None or not load.covers_period:
        return None
    src = f.source.split(".", 1)[1] if f.source.startswith("source.") else f.source
    late = "failing" if f.status == "error" else "late"
    return "info", (f"Today's loads are {late}: {src} last loaded {age_text(f.age_hours)}; it was loaded after "
                    f"{_day(values.end - timedelta(days=1))}, so the value asked for is complete")


def period_verdict(env: Envelope) -> tuple[str, str] | None:
    """Whether the loads a past period needed were all taken, for the status line."""
    values = env.values
    if values is None or values.status != "computed" or not values.inputs or values.start is None:
        return None
    said = when(values.start, values.end)
    if values.loaded_in_full:
        return "ok", f"Loaded in full {said}: every source behind the value was loaded after the period ended"
    if values.end > env.evaluated_at.date():
        return None  # a period still running: today's freshness is its verdict
    missing = [i.source.split(".", 1)[-1] for i in values.inputs if not i.covers_period]
    return "warning", (f"Not loaded in full {said}: {', '.join(missing[:3])} has no load since the period ended, "
                       "so the value may be missing rows")


def loaded_for_period(env: Envelope) -> frozenset[str]:
    """The sources whose loads the past period a value was asked for needed were all taken."""
    values = env.values
    if values is None or values.status != "computed":
        return frozenset()
    return frozenset(i.source for i in values.inputs if i.covers_period)
