"""A working session's memory: what a follow-up question carries over from the asker's last answer.

The rule, in one place:

- **What is remembered**: of the last answered question, only its subject (the entity it resolved, by id and
  the label the asker was shown) and its reporting date or period. Never its text, evidence or values.
- **When it is carried**: only to a question that names no subject of its own, as the pipeline itself decides
  (it would otherwise ask back "Which metric, model or source do you mean?"): "and for last year?", "is that
  fresh?", "where does it come from?". A question that names its own subject, or one the catalog cannot place,
  starts afresh. The new question's own dates win; without any, the last answer's date or period is kept.
- **For whom**: the same principal in the same role, within MAX_AGE. Switching role (or signing in as someone
  else) forgets it, so one role's subject never reaches another role's question.
- **How it shows**: the carried question says so first in its notes ("Reading 'it' as Gross bookings from your
  last question"), and the audit log records what was carried (the entity, the dates and the note), so a replay
  asks exactly the question that was answered. The note is shown only when the subject is still visible.

Each surface keeps its own `Turn`: the Ask page per browser session, `asof ask --batch` for lines that say they
follow on, the MCP server per conversation id (`Conversations`, bounded).
"""
from __future__ import annotations

import threading
import time
from collections import Counter, OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import date, timedelta

from core.answer.ask import Question
from core.answer.entity import NO_SUBJECT
from core.catalog.envelope import Behavior, Envelope
from core.read.reading import Reading, read

MAX_AGE_S = 30 * 60  # a follow-up after half an hour away is more likely a new thought than a continuation
MAX_CONVERSATIONS = 1000  # per MCP server, all principals together: the busiest principal's oldest go first
MAX_PER_PRINCIPAL = 100  # per principal: a client opening more threads forgets its own oldest, never another's

@dataclass(frozen=True)
class Turn:
    """The part of an answer a follow-up may carry: whose it was, its subject and its dates."""
    principal: str | None
    role: str
    entity_id: str
    label: str
    day: date | None
    period: tuple[date, date] | None
    asked_at: float  # time.monotonic() when answered
    value: bool = False  # it gave a number: a follow-up moving its period gives the number too
    grain: str | None = None
    versions: tuple[str, ...] = ()  # the version labels it showed (a restatement's two, a comparison's, a split's)
    freshness: bool = False  # it judged freshness: a follow-up naming only a new moment asks it again then


def turn_of(env: Envelope, q: Question, principal: str | None, clock: Callable[[], float] = time.monotonic
            ) -> Turn | None:
    """What `env` leaves for a follow-up: its subject and dates, when it answered about one subject."""
    # Every answer about one subject leaves it: a split across a definition change and an overlap for review too.
    if not env.entity_id or env.behavior not in (Behavior.answer, Behavior.abstain, Behavior.split,
                                                 Behavior.human_review):
        return None
    period = (env.period_start, env.period_end) if env.period_start and env.period_end else None
    compared = env.values.compared if env.values is not None else None
    if period is None and compared is not None:  # "X in 2026 vs 2027": the later period is on the table
        period = (compared.sides[-1].start, compared.sides[-1].end)
    day = env.reporting_date
    if period is None and day is None:  # "compare the two versions" carried Q3 2024 and did not say it back: kept
        period, day = q.period or (q.compare[-1] if q.compare else None), q.day
    return Turn(principal=principal, role=q.role, entity_id=env.entity_id, label=env.entity_label or env.entity_id,
                day=day if period is None else None, period=period, asked_at=clock(),
                value=env.values is not None, grain=env.values.grain if env.values is not None else None,
                versions=_shown_versions(env), freshness="freshness_status" in env.asked)


def _shown_versions(env: Envelope) -> tuple[str, ...]:
    """The versions an answer set before the asker, in order: what "between them" names next."""
    out: list[str | None] = []
    if env.comparison is not None:
        out += [env.comparison.left.version, env.comparison.right.version]
    if env.values is not None and env.values.restatement is not None:
        r = env.values.restatement
        out += [x.governing.version for x in r.rows] + [x.other.version for x in r.rows]
    out += [d.version for sp in env.splits for d in sp.selected[:1]]
    out += [s.version for s in env.selected if s.role_in_answer == "definition"]
    return tuple(dict.fromkeys(v for v in out if v))


def _names_no_subject(env: Envelope) -> bool:
    return env.clarify is not None and env.clarify.question == NO_SUBJECT and not env.entity_id


def _when(turn: Turn) -> str:
    if turn.period:
        start, end = turn.period
        return f" for {start.isoformat()} to {(end - timedelta(days=1)).isoformat()}"
    return f" on {turn.day.isoformat()}" if turn.day else ""


def _unfound_plain(first: Envelope) -> bool:
    """Not found as it stands and asking nothing of its own kind: it may still point back to the last answer."""
    return first.behavior is Behavior.not_found_or_not_authorized and first.intent is None


def _points_back_unfound(words: Reading, first: Envelope) -> bool:
    """"what would it be under today's definition?": not found as it stands (no subject named), but it points back
    with "it" and asks nothing of its own kind; a named subject not found ("what about crew overtime?") never
    carries."""
    return _unfound_plain(first) and (bool(words.pointed_back) and words.intent.restate or words.asks_between_them)


def carried(q: Question, first: Envelope, last: Turn | None, principal: str | None,
            clock: Callable[[], float] = time.monotonic) -> Question | None:
    """The question to answer instead of `q`, with the last turn's subject (and its dates unless `q` gives its
    own), when `q` is a follow-up of it; None when `q` starts afresh. `first` is `q` answered as it stands."""
    if last is None or last.principal != principal or last.role != q.role or clock() - last.asked_at > MAX_AGE_S:
        return None
    if not (_names_no_subject(first) or _unfound_plain(first)):
        return None  # it answered on its own: not read a second time
    # What the follow-up's words say of the last answer (a move of its period, "between them", the word pointing
    # back) is read in core/read/, like every other reading of a question's words.
    words = read(q, first.evaluated_at.date())
    if not (_names_no_subject(first) or _points_back_unfound(words, first)):
        return None
    back = words.pointed_back
    said = f"Reading '{back}' as {last.label}" if back else f"Continuing with {last.label}"
    if words.asks_between_them and len(last.versions) >= 2:
        pair = tuple(sorted(last.versions[:2], key=lambda v: (len(v), v)))
        return replace(q, entity=last.entity_id, day=last.day, period=last.period, compare_versions=pair,
                       carried=f"Comparing the two versions of {last.label} your last answer showed, "
                               f"v{pair[0]} and v{pair[1]}")
    move = words.period_move
    today = first.evaluated_at.date()
    table = last.period or ((last.day, last.day + timedelta(days=1)) if last.day else None)
    undated = table is None and move is not None and not move.compare
    if undated:
        # An answer given with no date was read as of today (its note says so): "and the year before?" moves from
        # today, as it does after a metric whose several versions put today's date in the headline.
        table = (today, today + timedelta(days=1))
    # "and the year before?", "vs last year?": read against the period on the table, not the clock, even where the
    # date reader read the same words against the clock ("last year")
    inside = move is not None and all(d.text.lower() in move.words.lower() for d in first.dates_read)
    if move is not None and table is not None and inside and q.day is None and q.period is None:
        running = move.compare and table[0] <= today < table[1] - timedelta(days=1)
        if running:
            # "vs last year?" of a period still running (2026 so far): set beside the same days of the other one,
            # never a part against a whole
            table = (table[0], today + timedelta(days=1))
        there = move.same_days(table) if running else move.from_period(table)
        pair = tuple(sorted((there, table))) if move.compare else None
        # A reporting date moved is a reporting date, whichever way it moves: "a year later" than 31 Dec 2024 asks
        # what applied on 31 Dec 2025, as "the year before" asks of 31 Dec 2023 (not a period of one day).
        day = there[0] if last.period is None and pair is None else None
        span = f"{there[0].isoformat()} to {(there[1] - timedelta(days=1)).isoformat()}"
        was = _when(last).strip().removeprefix("for ").removeprefix("on ") or f"today, {today.isoformat()}"
        how = (f"{said}: {was} beside {span} ('{move.words}' of it)" if pair
               else f"{said} on {day.isoformat()} ('{move.words}' {was})" if day
               else f"{said} for {span} ('{move.words}' {was})")
        again = last.value and first.intent in (None, "compare") and not first.asked
        return replace(q, entity=last.entity_id, day=day, period=None if pair or day else there, compare=pair,
                       asks_value=again, value_grain=last.grain if again else None,
                       carried=f"{how} from your last question")
    own_dates = bool(first.dates_read) or q.day is not None or q.period is not None
    when = "" if own_dates else _when(last)
    # "and for 2025?", "by quarter?" after a number ask for the number again; "who owns it?", "is it fresh?" ask
    # something of their own
    again = last.value and first.intent is None and not first.asked
    # "and at 6pm yesterday?", "what about last Friday at 9am?" after a freshness answer name only a new moment:
    # freshness again, judged then ("how much was it in Q2?" asks a number instead)
    fresh = (last.freshness and first.intent is None and not first.asked and bool(first.dates_read)
             and not words.intent.value)
    return replace(q, entity=last.entity_id, day=q.day if own_dates else last.day,
                   period=q.period if own_dates else last.period, asks_value=again,
                   value_grain=last.grain if again else None, asks_freshness=fresh,
                   carried=f"{said}{when} from your last question")


def follow(q: Question, last: Turn | None, principal: str | None, answer: Callable[[Question], Envelope],
           clock: Callable[[], float] = time.monotonic) -> tuple[Question, Envelope, Turn | None]:
    """Answer `q` in a session whose last turn was `last`: (the question answered, its envelope, the new last turn).
    An answer about one subject is the new last turn; a question asked back for want of a subject keeps the last
    one; any other answer (a listing, not found) ends the thread, since "it" after a list names no one thing."""
    env = answer(q)
    again = carried(q, env, last, principal, clock)
    if again is not None:
        followed = answer(again)
        if followed.entity_id == last.entity_id:  # still visible to this role: the carry holds
            q, env = again, followed
    turn = turn_of(env, q, principal, clock)
    if turn is None:
        return q, env, last if _names_no_subject(env) else None
    return q, env, _keeps_number(turn, last)


def _keeps_number(turn: Turn, last: Turn | None) -> Turn:
    """A side question about the same subject and period ("who owns it?", "is it fresh?") between a number and a move
    of its version or period leaves the thread's number: "under v1" next restates it, as it would have right after."""
    if last is None or turn.value or not last.value or (turn.entity_id, turn.period) != (last.entity_id, last.period):
        return turn
    return replace(turn, value=True, grain=last.grain, versions=turn.versions or last.versions)


class Conversations:
    """The MCP server's memory of each conversation's last turn, keyed by principal and conversation id (so one
    principal can never continue another's), bounded and expiring. Thread-safe: tools run on many threads.

    Bounded per principal first: one busy client (a script opening a conversation per call) forgets its own oldest
    threads and never another principal's. The overall bound, for many principals at once, forgets the oldest
    thread of whoever holds the most."""

    def __init__(self, max_items: int = MAX_CONVERSATIONS, clock: Callable[[], float] = time.monotonic,
                 per_principal: int = MAX_PER_PRINCIPAL):
        self._turns: OrderedDict[tuple[str | None, str], Turn] = OrderedDict()  # least recently answered first
        self._held: Counter[str | None] = Counter()  # principal -> its remembered conversations
        self._lock = threading.Lock()
        self.max_items, self.clock, self.per_principal = max_items, clock, per_principal

    def last(self, principal: str | None, conversation: str) -> Turn | None:
        with self._lock:
            turn = self._turns.get((principal, conversation))
            if turn is not None and self.clock() - turn.asked_at > MAX_AGE_S:
                self._forget((principal, conversation))
                return None
            return turn

    def remember(self, principal: str | None, conversation: str, turn: Turn | None) -> None:
        with self._lock:
            key = (principal, conversation)
            self._forget(key)
            if turn is None:
                return
            self._turns[key] = turn
            self._held[principal] += 1
            if self._held[principal] > self.per_principal:
                self._forget_oldest_of(principal)
            while len(self._turns) > self.max_items:
                busiest = max(self._held, key=lambda p: self._held[p])
                self._forget_oldest_of(busiest)

    def _forget(self, key: tuple[str | None, str]) -> None:
        if self._turns.pop(key, None) is not None:
            self._held[key[0]] -= 1
            if not self._held[key[0]]:
                del self._held[key[0]]

    def _forget_oldest_of(self, principal: str | None) -> None:
        self._forget(next(k for k in self._turns if k[0] == principal))
