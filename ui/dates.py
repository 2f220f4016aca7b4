"""Which dates an Ask answer used, said under its headline: the sidebar's reporting date when the answer took it,
and the clock freshness was read against when the question asked about freshness. Words only; decides nothing."""
from __future__ import annotations

from datetime import date, datetime

from core.catalog.envelope import Behavior, Envelope
from core.explain.headline import day_text, period_text


def sidebar_date_note(env: Envelope, form_day: date | None, form_period: tuple[date, date] | None) -> str | None:
    """A date set in the sidebar is applied to every question until it is cleared, even one the user did not
    tie to it ("is anything stale?"): the answer says it used it, so it is never a silent re-dating."""
    if env.behavior in (Behavior.not_found_or_not_authorized, Behavior.refuse):
        return None
    if form_day and env.reporting_date == form_day:
        return f"using {day_text(form_day)}, the reporting date set in the sidebar"
    if form_period and (env.period_start, env.period_end) == tuple(form_period):
        return f"using {period_text(*form_period)}, the reporting period set in the sidebar"
    return None


def clock_note(env: Envelope, clock: datetime | None) -> str | None:
    """Freshness is read at the evaluation time, never on the reporting date: when an answer to a freshness
    question has a reporting date too, both are named, so the two dates on the page are not read as one. A question
    that names its own moment was judged at that moment: said so, never as the sidebar's clock."""
    if "freshness_status" not in env.asked or not (env.reporting_date or env.period_start):
        return None
    if env.moment is not None:  # "was X fresh at the end of Q2?": judged at the question's moment, not a clock's
        return f"freshness judged as at {day_text(env.moment.date())} {env.moment:%H:%M} UTC, the moment your question names"
    at = env.evaluated_at
    whose = "this catalog's own clock" if clock is not None and at == clock else "the sidebar's clock"
    return f"freshness checked at {day_text(at.date())} {at:%H:%M} UTC ({whose}), not on the reporting date"
