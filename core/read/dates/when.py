"""When a question is about: the reporting date or period, and when freshness is evaluated.

Pure: the form's values and the dates written in the text go in; a decision (with the trace lines
that explain it) or a clarification comes out. A date in the text that disagrees with the form's
is asked about, never silently preferred.

Two clocks, kept apart (brief section 6). The reporting date says which definition applies; the
evaluation time says when freshness is evaluated. A time written in the question ("fresh at
2026-10-10T09:00Z") sets the evaluation time, also over the form's (which defaults to now); "now",
"right now", "currently", "still" (and "today" in a freshness question) name the evaluation time, so
with a reporting date on the form they leave it standing. Only two reporting dates that disagree
(form against text, or two in the text) are asked back.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import date, datetime, time, timedelta, timezone

from core.catalog.envelope import ClarifyOption, DateReading, TraceStep
from core.read.dates.mention import DateMention
from core.read.dates.written import NO_QUARTER


@dataclass
class When:
    day: date | None
    period: tuple[date, date] | None  # half-open
    at: datetime
    steps: list[TraceStep] = field(default_factory=list)
    # The "now" words read as the evaluation time while the form's reporting date stands ("is that the rule now?").
    now: list[DateMention] = field(default_factory=list)
    moment: bool = False  # the evaluation time is a moment the question named: freshness is judged then


@dataclass
class AskBack:
    question: str
    options: list[ClarifyOption]
    why: str


def label(day: date | None, period: tuple[date, date] | None) -> str:
    if day:
        return str(day)
    if period:
        return f"{period[0]} to {period[1] - timedelta(days=1)}"
    return "no date"


def dates_read(mentions: list[DateMention], now: list[DateMention] = (), at: datetime | None = None
               ) -> list[DateReading]:
    """For the envelope: each date written in the question, what it was read as, and the rule. `now`: the
    "now" words read as the evaluation time `at` (the form's reporting date stood)."""
    out = []
    for m in mentions:
        if m.kind == "timestamp":
            read = f"evaluation time {m.at.isoformat()}"
        elif m in now and at is not None:
            read = f"evaluation time {at.isoformat()} (not the reporting date: the form's stands)"
        elif m.kind == "ambiguous":
            read = " or ".join(str(d) for d in m.readings)
        elif m.kind == "invalid":
            out.append(DateReading(text=m.text, read_as=m.qualifier, rule=m.rule))
            continue
        else:
            read = _mention(m)
        if m.qualifier:
            read = f"{read} ({m.qualifier}, not the reporting date)"
        out.append(DateReading(text=m.text, read_as=read, rule=m.rule))
    return out


def _long(d: date) -> str:
    return f"{d.day} {d.strftime('%B')} {d.year}"


def _mention(m: DateMention) -> str:
    return str(m.start) if m.kind == "date" else label(None, (m.start, m.end))


def _agree(day, period, m: DateMention) -> bool:
    if m.kind == "date":
        return m.start == day if day else period[0] <= m.start < period[1]
    if day:
        return m.start <= day < m.end
    return period == (m.start, m.end)


def decide(day: date | None, period: tuple[date, date] | None, at: datetime, at_from_form: bool,
           mentions: list[DateMention], confirmed_form: bool = False, freshness: bool = False,
           moment: bool = False) -> When | AskBack:
    """`mentions`: the text's dates, periods and timestamps. `confirmed_form`: the user already chose
    the form's date over the text's (the answer to an earlier clarification). `freshness`: the question
    asks about freshness ("today" then names the evaluation time too). `moment`: it asks it of a moment past ("was
    X fresh at the end of Q2 2024?"): a day written alone is judged at its end (23:59 UTC)."""
    decided = _decide(day, period, at, at_from_form, mentions, confirmed_form, freshness)
    if isinstance(decided, AskBack):
        return decided
    decided.moment = freshness and any(m.kind == "timestamp" for m in mentions)
    last = decided.day or (decided.period[1] - timedelta(days=1) if decided.period else None)
    if moment and freshness and not decided.moment and last is not None and last < at.date():
        decided.at = datetime.combine(last, time(23, 59), timezone.utc)
        decided.moment = True
        decided.steps.append(TraceStep(rule="evaluation time", detail=f"freshness judged at the end of {last} "
                                       f"({decided.at.isoformat()}): the question asks it of that moment"))
    return decided


def _decide(day: date | None, period: tuple[date, date] | None, at: datetime, at_from_form: bool,
            mentions: list[DateMention], confirmed_form: bool = False, freshness: bool = False) -> When | AskBack:
    steps: list[TraceStep] = []
    if not freshness:
        # A time of day written beside a day ("3 May 2025 at 9am") in a question that asks nothing of freshness: its
        # day is the reporting date. An ISO timestamp (no day kept on it) stays the evaluation time.
        mentions = [replace(m, kind="date", at=None) if m.kind == "timestamp" and m.start else m for m in mentions]
    stamps = sorted({m.at for m in mentions if m.kind == "timestamp"})
    if len(stamps) > 1:
        return AskBack("The question names several evaluation times. Which one?",
                       [ClarifyOption(label=s.isoformat()) for s in stamps], "several timestamps in the text")
    if stamps:
        # The question's own time is when freshness is evaluated; the form's evaluation time (by default the
        # moment the form was opened) gives way to it. It is a second clock, never a reporting date.
        replaced = f"; the form's evaluation time {at.isoformat()} is not used" if at_from_form and at != stamps[0] else ""
        at = stamps[0]
        steps.append(TraceStep(rule="evaluation time",
                               detail=f"freshness evaluated at {at.isoformat()} (from the question{replaced})"))
    written = [m for m in mentions if m.kind != "timestamp" and not m.qualifier]
    form = label(day, period)
    now = [m for m in written if m.now and (freshness or m.text.lower() != "today")]
    if now and (day or period):
        written = [m for m in written if m not in now]
        steps.append(TraceStep(rule="evaluation time", detail=(
            f"{now[0].text!r} is the evaluation time ({at.isoformat()}), not a reporting date: the form's "
            f"reporting date {form} stands" + ("; freshness is evaluated at that time" if freshness else ""))))
    else:
        now = []
    bad = [m for m in mentions if m.kind == "invalid"]
    if bad and not (confirmed_form and (day or period)):
        m = bad[0]
        if m.rule == NO_QUARTER:  # "Q5 2024": said as it is, not asked as a day
            return AskBack(f"There is no {m.text}: a year has four quarters, Q1 to Q4. Which quarter do you mean?",
                           [], f"{m.text!r} names a quarter that does not exist ({m.rule})")
        options = [ClarifyOption(label=_long(d), date=d) for d in m.readings]
        if day or period:
            options.append(ClarifyOption(label=form, date=day or period[0]))
        return AskBack(f"{m.text} is not a date I can answer for ({m.rule}). Which day do you mean?"
                       + ("" if options else " Write the reporting date again."), options,
                       f"{m.text!r} reads as a date but names no day an answer can use ({m.rule})")
    unsure = [m for m in written if m.kind == "ambiguous"]
    if unsure and not (confirmed_form and (day or period)):
        m = unsure[0]
        return AskBack(f"Does {m.text} mean {_long(m.readings[0])} or {_long(m.readings[1])}?",
                       [ClarifyOption(label=_long(d), date=d) for d in m.readings],
                       f"the numeric date {m.text} is valid read as day/month and as month/day")
    if confirmed_form and (day or period):
        steps.append(TraceStep(rule="reporting date", detail=f"from the form, confirmed by the user: {form}"))
        return When(day, period, at, steps, now)
    if len({(m.kind, m.start, m.end) for m in written}) > 1:
        return AskBack("The question names several reporting dates. Which one should I use?",
                       [ClarifyOption(label=_mention(m), date=m.start) for m in written],
                       "several dates or periods in the text")
    if not written:
        if day or period:
            steps.append(TraceStep(rule="reporting date", detail=f"from the form: {form}"))
        return When(day, period, at, steps, now)
    m = written[0]
    if (day or period) and not _agree(day, period, m):
        return AskBack(f"The question says {_mention(m)} but the form says {form}. Which one?",
                       [ClarifyOption(label=form, date=day or period[0]), ClarifyOption(label=_mention(m), date=m.start)],
                       "the question's date disagrees with the form's date")
    how = f" ({m.text!r}: {m.rule})" if m.text and m.rule else ""
    steps.append(TraceStep(rule="reporting date", detail=f"from the question: {_mention(m)}{how}"
                           + (f" (agrees with the form's {form})" if (day or period) else "")))
    if m.kind == "date":
        return When(m.start, None, at, steps)
    return When(None, (m.start, m.end), at, steps)
