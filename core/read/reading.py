"""A question, read once: `read` turns its text (and the subject a follow-up carries) into one `Reading`, and every
later stage (core/answer/, core/resolve/, core/explain/) takes the Reading instead of the text.

The text itself stays inside: what a stage needs of it is a field here (the intent, the dates, the listing filter,
the comparison's two sides, ...) or, where the answer depends on the role's view, a method that reads the names
that view holds (`named_objects`, `match_entities`, `rank`, ...). A new reading of the words belongs in read/ and is
offered here; tests/read/test_reading_boundary.py fails when a module of answer/, resolve/ or explain/ reads the
question's text itself. Derived readings are computed on first use and kept (`cached_property`): each is read at
most once per question, and a question that never needs one never pays for it.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import date, timedelta
from functools import cached_property

from core.catalog.entities import Match, match_entities
from core.catalog.text import Token, content_words, tokenize, words
from core.read.dates import moves
from core.read.dates.mention import DateMention
from core.read.intents import (
    access,
    column_question,
    comparison,
    dbt_facts,
    described,
    disagreement,
    listing_filter,
    review_question,
)
from core.read.intents import table_facts as table_words
from core.read.intents.intent import (
    CHANGE_ASKED,
    COUNT_WORDS,
    Intent,
    asks_beyond_owner,
    asks_exists,
    asks_in_force,
    downstream_kind,
    inclusion_match,
    meaning_asked,
    parse_intent,
    says_drafted,
    value_reading,
)
from core.read.names import made_up, named, ranker, subject
from core.settings import budget


@dataclass(frozen=True)
class Reading:
    """What one question asks, read from its words. `intent` holds the aspects, kind, dates and periods written,
    versions, overrides and the inclusion and comparison terms (core/read/intents/intent.py); the rest is below."""
    intent: Intent
    day: date  # the evaluation date relative dates were read against
    fiscal_year_start_month: int
    carried: str | None = None  # a follow-up's word on the subject it carried (core/answer/conversation.py)
    _text: str = field(default="", repr=False)

    # ---- the words themselves ----------------------------------------------------------------------------------
    @property
    def search_query(self) -> str:
        """What the search passes embed and match: the question as written (search is over text by design)."""
        return self._text

    @cached_property
    def tokens(self) -> tuple[Token, ...]:
        return tuple(tokenize(self._text))

    @cached_property
    def all_words(self) -> frozenset[str]:
        """Every word, stop words included, so that a name of common words ("no_show_rule") can be said."""
        return frozenset(words(self._text))

    def content_words(self, spans: list[tuple[int, int]] = (), drop: set[str] = frozenset(),
                      end: int | None = None) -> list[str]:
        """The question's own words (normalized) up to `end`, minus stop and asking words, `drop` and `spans`."""
        return content_words(self._text if end is None else self._text[:end], spans, drop)

    def as_written(self, spans) -> list[str]:
        """The words at `spans` (tokens or (start, end) pairs) as the asker wrote them, to say back in an answer."""
        return [self._text[s.start:s.end] if hasattr(s, "start") else self._text[s[0]:s[1]] for s in spans]

    # ---- what is asked, beyond the intent ------------------------------------------------------------------------
    @cached_property
    def asks_stale(self) -> bool:
        return described.asks_stale(self._text)

    @cached_property
    def asks_in_force(self) -> bool:
        """"was the draft of X in force in Q3?": whether a version applied, asked yes or no."""
        return asks_in_force(self._text)

    @cached_property
    def asks_exists(self) -> bool:
        """"is there a draft for X?", "does X have a draft?": whether such a version or document exists, yes or no."""
        return asks_exists(self._text)

    @cached_property
    def says_drafted(self) -> bool:
        return says_drafted(self._text)

    @cached_property
    def asks_access(self) -> bool:
        """"who can see X?": X's access list (core/read/intents/access.py)."""
        return access.asks_access(self._text)

    @cached_property
    def count_spans(self) -> list[tuple[int, int]]:
        """Where a count is asked in other words than "how many" ("in total", "the number of"): no topic."""
        return [m.span() for m in COUNT_WORDS.finditer(self._text)]

    @cached_property
    def roles_named(self) -> tuple[str, ...]:
        """The words naming who sees, as in "can finance see ..." (core/read/intents/access.py)."""
        return tuple(access.roles_named(self._text))

    @cached_property
    def asks_change(self) -> bool:
        """Whether the subject changed, asked of the past in so many words (intent.CHANGE_ASKED)."""
        return bool(CHANGE_ASKED.search(self._text))

    @cached_property
    def asks_beyond_owner(self) -> bool:
        return asks_beyond_owner(self._text)

    @cached_property
    def asks_beyond_owner_and_change(self) -> bool:
        """As `asks_beyond_owner`, with the words asking about the change set aside ("its definition" there asks no
        meaning)."""
        return asks_beyond_owner(CHANGE_ASKED.sub(" ", self._text))

    @cached_property
    def meaning_asked(self) -> bool:
        return meaning_asked(self._text)

    @cached_property
    def listing(self) -> listing_filter.Condition | None:
        """A whole-catalog question's condition ("which models are deprecated?")."""
        return listing_filter.listing_condition(self._text)

    @cached_property
    def yes_no(self) -> str | None:
        """How a whole-catalog question asks yes or no: "any", "every", or None for the list."""
        return listing_filter.yes_no(self._text)

    @cached_property
    def opens_yes_no(self) -> bool:
        """"is X tested?": a table's make-up asked yes or no."""
        return table_words.opens_yes_no(self._text)

    @cached_property
    def property_asked(self) -> tuple[str, str] | None:
        """What dbt recorded, asked yes or no (core/read/intents/dbt_facts.py): "is X incremental?" is
        ("materialized", "incremental"), "is X PII?" is ("pii", "")."""
        return dbt_facts.yes_no_property(self._text) if self.intent.kind == "properties" else None

    @cached_property
    def properties_named(self) -> list[str]:
        """The recorded properties the question names by word (tags, meta, materialized, contract, access, group),
        and "tests" when it names those too."""
        return dbt_facts.properties_named(self._text) if self.intent.kind == "properties" else []

    @cached_property
    def asked_column(self) -> str | None:
        """One column asked about (core/read/intents/column_question.py): the column word of "what does column X of Y
        mean?", or the property of "which column of Y is deprecated?" (deprecated | pii | key)."""
        if self.intent.kind not in ("column_meaning", "column_find"):
            return None
        return column_question.column_asked(self._text)[1]

    @cached_property
    def says_data(self) -> bool:
        return described.says_data(self._text)

    @cached_property
    def names_no_subject(self) -> bool:
        """"is it current?", "who owns it?": every word asks, points back, or is a date or version. A move in time
        ("a year later", "the next quarter") is a date of the conversation's, never a subject, whichever way it
        moves: "later" and "next" are no more a name than "before"."""
        move = self.period_move
        return subject.names_no_subject(self._text, list(self.intent.excluded_spans) + ([move.span] if move else []))

    @cached_property
    def disagreement_kinds(self) -> list[str]:
        """The kinds of document asked whether they disagree ("drafts or wiki pages": draft, wiki)."""
        return disagreement.asked_kinds(self._text)

    @cached_property
    def review_categories(self) -> list[str]:
        """The review-queue kinds asked about (core/read/intents/review_question.py)."""
        return review_question.asked_categories(self._text)

    @cached_property
    def review_subject(self) -> list[Token]:
        """The words a review question names its items by ("gross margin" in "any drafts about gross margin?")."""
        return review_question.subject_words(self._text, self.intent.excluded_spans)

    @cached_property
    def downstream_kind(self) -> str | None:
        """Which kind of reader a downstream question asks for: exposure, model, metric, or any."""
        return downstream_kind(self._text)

    @cached_property
    def names_draft(self) -> bool:
        return comparison.names_draft(self._text)

    @cached_property
    def sides(self) -> tuple[Reading, Reading] | None:
        """The two things compared ("X vs Y"), each read as a question of its own; None when there are not two."""
        both = comparison.sides(self._text)
        if both is None:
            return None
        a, b = (_reading(side, self.day, self.fiscal_year_start_month) for side in both)
        return a, b

    # ---- a follow-up's words about the last answer (core/answer/conversation.py) ----------------------------------
    @cached_property
    def pointed_back(self) -> str | None:
        """The word pointing back to the last subject ("it", "that"), as written."""
        return subject.pointed_back(self._text)

    @cached_property
    def period_move(self) -> moves.Move | None:
        """"and the year before?", "vs last year?": the period on the table moved (core/read/dates/moves.py)."""
        return moves.period_move(self._text)

    @cached_property
    def asks_between_them(self) -> bool:
        """"what changed between them?", "compare the two versions": the two versions the last answer showed."""
        return moves.asks_between_them(self._text)

    # ---- readings over the names the role's view holds (only its names are read) ------------------------------
    def match_entities(self, entities, phrases, spans: list[tuple[int, int]] | None = None,
                       ) -> tuple[list[Match], list[Token]]:
        """Phrase matches of visible names, outside `spans` (default: the intent's dates and versions)."""
        return match_entities(self._text, entities, phrases, self.intent.excluded_spans if spans is None else spans)

    def cues_outside_names(self, view) -> Reading:
        """This reading, with a table's make-up asked only by words outside the visible names: in "where does upsell
        contract revenue come from?" "contract" is part of a metric's name and asks for no dbt contract. A cue inside a
        name is read again with the role's names set aside (another cue outside them still asks) and given back to
        the names. Read once the role's view is known, as only its names can tell."""
        cues = self.intent.kind_spans
        if not cues:
            return self
        kept = [s for s in self.intent.excluded_spans if s not in cues]
        found, toks = match_entities(self._text, view.entities, view.phrases, kept)
        names = [(toks[m.start].start, toks[m.end - 1].end) for m in found]
        # Only a name longer than the cue: a model named `contracts` does not make "does X have a contract?" a name.
        if not any(a <= s and e <= b and b - a > e - s for s, e in cues for a, b in names):
            return self
        masked = list(self._text)
        for a, b in names:
            masked[a:b] = " " * (b - a)
        kind, spans = table_words.table_facts_asked("".join(masked))
        return replace(self, intent=replace(self.intent, kind=kind, kind_spans=spans, excluded_spans=kept + spans))

    def named_objects(self, view) -> list[named.Reference]:
        return named.named_objects(self._text, view)

    def names_nothing_visible(self, view) -> bool:
        return subject.names_nothing_visible(self._text, view, self.intent.excluded_spans)

    def rank(self, view, searcher=None, role: str | None = None) -> ranker.Choice:
        """Which visible entity the question is about (core/read/names/ranker.py)."""
        return ranker.rank_question(self._text, self.intent, view, searcher, role)

    def stands_in(self, view, entity_id: str) -> bool:
        return made_up.stands_in(self._text, view, entity_id, self.intent.excluded_spans)

    def subject_tables(self, view) -> described.SubjectTables:
        return described.subject_tables(self._text, view, self.intent.excluded_spans)

    def named_columns(self, columns: list[str]) -> list[str]:
        return table_words.named_columns(self._text, columns)

    @cached_property
    def column_candidates(self) -> list[str]:
        return table_words.column_candidates(self._text)

    def review_subjects(self, view, near: bool = False) -> set[str]:
        """The visible metrics, models and sources a review question names (review_question.named_subjects)."""
        return review_question.named_subjects(self._text, view, self.intent.excluded_spans, near=near)

    def asks_definition_beside_queue(self, view) -> bool:
        return review_question.asks_definition_beside_queue(self._text, self.intent, view)

    def llm_proposal(self, names: list[tuple[str, str, str]], model: str, timeout_s: float):
        """The optional LLM reading (core/read/llm/reading.py): a proposal, checked later field by field."""
        from core.read.llm.reading import read_question
        return read_question(self._text, names, model, timeout_s)


def check_length(question) -> None:
    """Refuse a question too long to read (budget.QuestionTooLong) before anything reads it."""
    budget.check_question(question.text)


def read(question, day: date, fiscal_year_start_month: int = 1) -> Reading:
    """`question` (core/answer/ask.py's Question: its text and what a follow-up carried), read against `day`."""
    reading = _reading(question.text, day, fiscal_year_start_month, question.carried)
    intent = carried_asks(reading.intent, question)
    return reading if intent is reading.intent else replace(reading, intent=intent)


def carried_asks(intent: Intent, question) -> Intent:
    """A follow-up's carried asks (core/answer/conversation.py sets them on the Question), read as if its words had
    said them: the number (by the last grain unless it names one), the two versions "between them" names, the
    two periods of "vs last year?" as the two dates a comparison reads, and freshness asked again at a new moment. `intent` itself is left as parsed."""
    changed: dict = {}
    move = moves.period_move(question.text) if getattr(question, "carried", None) and \
        (getattr(question, "period", None) or getattr(question, "day", None)) else None
    if move is not None:
        # "and the next quarter?", "a year earlier?": the move carried the period on the table to a new one; the same
        # words read against the clock (the quarter after today) are not a second date asked
        a, b = move.span
        kept = [d for d in intent.dates if not (a <= d.span[0] and d.span[1] <= b)]
        if len(kept) < len(intent.dates):
            # nor a period that makes it ask for a number ("a year earlier?" is no "AOV last month"): the number is
            # asked again only as the last answer gave one (`asks_value` below)
            changed.update(dates=kept, **value_reading(question.text, kept, inclusion_match(question.text)))
    if getattr(question, "asks_value", False):
        restate = intent.restate or intent.under_version  # "under v1" after a number: the period restated under v1
        changed.update(value=True, restate=restate,
                       value_grain=intent.value_grain or question.value_grain or ("month" if restate else None))
    if getattr(question, "compare_versions", None):
        changed.update(versions=[(label, 0) for label in question.compare_versions], kind="compare")
    if getattr(question, "compare", None):
        said = [DateMention("period", start=a, end=b, text=f"{a} to {b - timedelta(days=1)}",
                            rule="moved from the period of your last question") for a, b in question.compare]
        changed.update(dates=said + [d for d in intent.dates if d.kind == "timestamp"],
                       kind=changed.get("kind") or intent.kind or "compare")
    if getattr(question, "asks_freshness", False):  # "and at 6pm yesterday?" after "is it fresh?": judged then
        changed.update(aspects=set(intent.aspects) | {"freshness_status"}, moment=True)
    return replace(intent, **changed) if changed else intent


def _reading(text: str, day: date, fiscal_year_start_month: int, carried: str | None = None) -> Reading:
    return Reading(intent=parse_intent(text, day, fiscal_year_start_month), day=day,
                   fiscal_year_start_month=fiscal_year_start_month, carried=carried, _text=text)
