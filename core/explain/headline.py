"""The answer at a glance: one short headline and a status line with the bad news first. Pure.

The envelope's `verdict` is complete but long (every version, conflict and the model in one sentence).
An analyst needs the decision in a few plain words, and must not miss failing data, a draft that
disagrees or a definition change hidden further down. Both are computed here, from envelope fields
only, so the app and the CLI word them the same way. Nothing here decides anything new.
"""
from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Iterable, Literal

from pydantic import BaseModel

from core.catalog.envelope import Behavior, Conflict, Envelope, EvidenceRef, FreshnessEntry, VersionAsked
from core.explain.value_headline import period_loaded, period_verdict, value_headline, when
from core.resolve.freshness import age_text
from core.resolve.versions import version_label

MAX_WORDS = 25
Level = Literal["error", "warning", "info", "ok"]
_ORDER = {"error": 0, "warning": 1, "info": 2, "ok": 3}


class Status(BaseModel):
    level: Level
    text: str


def day_text(d: date) -> str:
    """30 Jun 2024: unambiguous in every locale, unlike 06/30 or 30/06."""
    return f"{d.day} {d:%b %Y}"


def clock_text(at: datetime, clock: datetime | None) -> str:
    """Which clock freshness is read against: the catalog's own (a demo's fixed time), one the user set, or
    the real one. `clock`: the catalog's `settings.evaluation_time`."""
    when = f"{day_text(at.date())} {at:%H:%M} UTC"
    if clock is not None and at == clock:
        return f"Clock: this catalog's own, {when} (its evaluation time), so its data reads as the catalog describes it"
    if clock is not None:
        return f"Clock: {when}, set by you (this catalog's own is {day_text(clock.date())} {clock:%H:%M} UTC)"
    return f"Clock: real time, {when}"


def period_text(start: date, end_exclusive: date) -> str:
    last = end_exclusive - timedelta(days=1)
    if start.month == 1 and start.day == 1 and last.month == 12 and last.day == 31 and start.year == last.year:
        return f"all of {start.year}"
    return f"{day_text(start)} to {day_text(last)}"


def _when(env: Envelope) -> str:
    if env.reporting_date:
        return f"on {day_text(env.reporting_date)}"
    if env.period_start and env.period_end:
        return f"for {period_text(env.period_start, env.period_end)}"
    return ""


def _version(ref: EvidenceRef | Conflict) -> str:
    v = ref.version or ""
    return f"v{v}" if v[:1].isdigit() else v


def _label(env: Envelope) -> str:
    return env.entity_label or (env.entity_id or "this").split(".", 1)[-1].replace("_", " ")


def _short(text: str, words: int) -> str:
    parts = text.split()
    return text if len(parts) <= words else " ".join(parts[:words]) + "…"


def _title(text: str, words: int) -> str:
    """A title cut to `words` words as _short does, never ending on a dash ("Slack export -…")."""
    parts = text.split()
    if len(parts) <= words:
        return text
    kept = parts[:words]
    while len(kept) > 1 and not any(ch.isalnum() for ch in kept[-1]):
        kept.pop()
    return " ".join(kept) + "…"


def _whole(text: str, words: int) -> str:
    """At most `words` words, cut after the last whole sentence that fits, else where a clause ends (a "; " between
    listed items, a ": " before them), never inside one: "3 items wait in the review queue you can see (drafts): A; and more below". A text with no such place
    within the words is cut as _short cuts."""
    parts = text.split()
    if len(parts) <= words:
        return text
    # Whole sentences first: "X: roles a and b can see it (its access list). Your role is not on it: ..." keeps the
    # answer, not "X: listed below".
    sentences = [i for i, w in enumerate(parts[:words]) if w.endswith(".") and i + 1 < len(parts)
                 and parts[i + 1][:1].isupper()]
    if sentences:
        return " ".join(parts[:sentences[-1] + 1])
    # After the last whole item ("; "), else at the last ": " that ends a clause of its own: a colon a few words
    # after another names an item ("(open items): Churn rate: draft …"), and cut there the headline would end on it.
    items = [i for i, w in enumerate(parts[:words - 3]) if w.endswith(";")]
    colons = [i for i, w in enumerate(parts[:words - 3]) if w.endswith(":")]
    clauses = [i for n, i in enumerate(colons) if n == 0 or i - colons[n - 1] > 3]
    ends = items or clauses[-1:]
    if not ends:
        return _short(text, words)
    last = ends[-1]
    head = " ".join(parts[:last + 1])[:-1]
    return head + ("; and more below" if parts[last].endswith(";") else ": listed below")


def _cap(text: str) -> str:
    """Never more than MAX_WORDS words: a headline that needs more is a paragraph, cut where a clause ends."""
    text = " ".join(text.split())
    # A quotation is cut inside itself ("…”), as quotes are; any other headline where a clause ends.
    return _short(text, MAX_WORDS) if "“" in text else _whole(text, MAX_WORDS)


def _source_name(source: str) -> str:
    return source.split(".", 1)[1] if source.startswith(("source.", "model.", "node.")) else source


_SEVERITY = {"pass": 0, "unknown": 1, "warn": 2, "error": 3}
_FRESH_WORD = {"pass": "fresh", "warn": "stale", "error": "failing", "unknown": "of unknown freshness"}
_CONFLICT_WORD = {"SUPERSEDED": "superseded", "DRAFT": "an unapproved draft", "UNTRUSTED": "untrusted",
                  "NON-AUTHORITATIVE": "not authoritative", "NOT IN EFFECT": "not in effect then",
                  "DEPRECATED": "deprecated"}


def _answer(env: Envelope) -> str:
    definition = next((s for s in env.selected if s.role_in_answer == "definition"), None)
    label = _label(env)
    if definition is None:
        return env.verdict
    part = _part(env, definition, label)
    owner = _owner(env, definition, label)
    return f"{owner}; {part}" if owner else part


def _owner(env: Envelope, definition: EvidenceRef, label: str) -> str | None:
    """"who owns refund rate and is it fresh?", "who owns CAC and what model backs it?": the owner leads, in a few
    words, then the other part's answer, as the owner flow does for "who owns it and what changed?" (`_intent`).
    Read from the definition the answer selected, a version the role can see; an owner alone is the owner flow's."""
    if "owner" not in env.asked or len(env.asked) < 2 or env.ownership is not None:
        return None
    return f"{label} is owned by {definition.owner}" if definition.owner else f"No owner is recorded for {label}"


_MOMENT_WORD = {"pass": "fresh", "warn": "stale", "error": "failing"}


def _at_moment(env: Envelope, f, what: str) -> str:
    """Freshness at a moment the question named, said of that moment from the loads recorded up to it: "On 30 Jun
    2024 at 23:59 UTC, raw_shop.orders had last loaded 4 h before: fresh"."""
    at = env.moment
    when = f"On {day_text(at.date())} at {at:%H:%M} UTC"
    if f.status == "unknown" or f.age_hours is None:
        return f"Not known: {when}, no load of {what} had been recorded"
    before = age_text(f.age_hours).replace(" ago", " before")
    verdict = "Yes" if (f.status == "pass") != env.asks_stale else "No"
    return f"{verdict}: {when}, {what} had last loaded {before}: {_MOMENT_WORD[f.status]}"


def _part(env: Envelope, definition: EvidenceRef, label: str) -> str:
    """The definition's answer to what was asked besides its owner: yes/no, freshness, lineage, model, or which
    version applies."""
    if definition.kind == "source":
        f = env.freshness[0] if env.freshness else None
        if f is None:
            return f"{label}: no freshness is recorded"
        if env.moment is not None:
            return _at_moment(env, f, label)
        if f.status == "unknown" or f.age_hours is None:
            return f"{label}: no load is recorded, so its freshness is not known"
        said = f"{label} is {_FRESH_WORD[f.status]}: last loaded {age_text(f.age_hours)}"
        if "freshness_status" not in env.asked:
            return said
        # Yes or No to the question as put: "is it fresh?" Yes when it is, "is it stale?" Yes when it is not.
        return f"{'Yes' if (f.status == 'pass') != env.asks_stale else 'No'}: {said}"
    v = _version(definition)
    name = f"{label} {v}".strip()
    when = _when(env)
    inc = env.inclusion
    if inc and inc.evidence_id == definition.evidence_id:  # a yes/no question gets yes or no first
        # "does it include X?" is answered Yes when the formula uses X; "does it exclude X?" Yes when it excludes X.
        yes, no = ("No", "Yes") if "exclusion" in env.asked else ("Yes", "No")
        if inc.verdict == "no":
            return f"{no}: {name} excludes {_short(inc.where or inc.term, 10)} {when}".strip()
        if inc.verdict == "yes":
            return f"{yes}: {name}'s formula uses {_short(inc.term, 6)} ({_short(inc.where or '', 4)}) {when}".strip()
        return f"Not stated: {name}'s definition does not mention {_short(inc.term, 8)} {when}".strip()
    if "changed" in env.asked and env.period_start and env.period_end:
        # "churn for 2026, has the definition changed?": one version governed the whole period asked (a version
        # taking over inside it splits the answer instead).
        began = definition.valid_from
        if began and began >= env.period_start:  # it began with the period: whether it replaced another is not here
            return f"{name} took effect on {day_text(began)} and is in effect {when}".strip()
        return f"No: {name} is in effect {when}: nothing changed".strip()
    if env.disagreement is not None and env.disagreement.governing == definition.evidence_id:
        return _disagreement(env, name, when)
    # "is it fresh?" gets the freshness verdict, "where does it come from?" the lineage; a question that also
    # asks what the metric means keeps the definition first, its freshness verdict after it (`_data_verdict`).
    if "freshness_status" in env.asked and env.freshness and "definition" not in env.asked:
        worst = max(env.freshness, key=lambda f: _SEVERITY[f.status])
        if env.moment is not None:
            return _at_moment(env, worst, f"{_source_name(worst.source)} behind {name}")
        # "is it fresh?" is answered Yes when it is; "is it stale?" Yes when it is not fresh.
        fresh, stale = ("No, fresh", "Yes") if env.asks_stale else ("Yes, fresh", "No")
        if worst.status == "pass" and len(env.freshness) == 1:
            return f"{fresh}: {_source_name(worst.source)} behind {name} loaded {age_text(worst.age_hours)}"
        if worst.status == "pass":
            return f"{fresh}: all {len(env.freshness)} sources behind {name} loaded on time"
        if worst.status == "unknown":  # nothing recorded is not a "No": the catalog cannot tell
            return f"Not known: no load of {_source_name(worst.source)} behind {name} is recorded"
        words = {"warn": "stale", "error": "failing"}[worst.status]
        what = (f"last loaded {age_text(worst.age_hours)}" if worst.age_hours is not None else "no load recorded")
        return f"{stale}: {_source_name(worst.source)} behind {name} is {words} ({what})"
    if "lineage" in env.asked and env.lineage.raw_sources and "definition" not in env.asked:
        model = next((s for s in env.selected if s.role_in_answer == "model"), None)
        raw = ", ".join(_source_name(s) for s in env.lineage.raw_sources[:3])
        more = f" and {len(env.lineage.raw_sources) - 3} more" if len(env.lineage.raw_sources) > 3 else ""
        via = f" via {_short(model.title, 4)}" if model else ""
        read = ""
        if env.downstream:  # "which raw tables feed it and what uses it?": both halves, each in a few words
            n = len(env.downstream.items)
            read = (f"; {n} thing{'' if n == 1 else 's'} you can see read{'s' if n == 1 else ''} it" if n
                    else "; nothing you can see reads it")
        return f"{name} comes from {raw}{more}{via} {when}".strip() + read
    model = next((s for s in env.selected if s.role_in_answer == "model"), None)
    if "model" in env.asked and model and "definition" not in env.asked:  # "what model backs it?"
        return f"{name} is backed by {_short(model.title, 5)} {when}".strip()
    if env.version_asked is not None:
        return _in_force(env, env.version_asked, definition, label, name, when)
    if env.reporting_date:
        plain = f"{name} applies {when}"
    elif env.period_start:
        plain = f"{name} applies {when}"
    else:
        plain = f"{name} is the approved definition (no reporting date given)"
    challenged = [c for c in env.conflicts if c.named_in_question]
    if challenged:
        c = challenged[0]
        no = _challenged(c, name, when)
        m = definition.metric
        if m and m.exclusions:
            with_excl = f"{no}, excluding {', '.join(m.exclusions[:3])}"
            if len(with_excl.split()) <= MAX_WORDS:
                return with_excl
        return no
    if "freshness_status" in env.asked and env.freshness and env.moment is None:
        # "what is X and is its data fresh?" asks two things: the definition, then the freshness verdict, both in
        # the headline (the status line then says which sources, worst first)
        return f"{plain}; {_data_verdict(env)}"
    return plain


def _in_force(env: Envelope, asked: VersionAsked, definition: EvidenceRef, label: str, name: str, when: str) -> str:
    """"was the draft of X in force in Q3?", "did v7 of X apply?": No when the role can see no such version, said
    plainly before what did apply; a draft is never in force, named whole; a real version, Yes or No. "is there a
    draft for X?" asks whether it exists: Yes, with what governs beside it."""
    applies = f"{name} applies {when}".strip()
    if not asked.exists:
        return f"No: {label} has no {asked.said} you can see; {applies}"
    if "exists" in env.asked:  # "is there a draft for X?": Yes, it exists; what governs is said beside it
        return _exists(env, asked, definition, label, name, when)
    if asked.said == "draft":
        # The draft by its whole title when the headline has room for it, never cut: the status line names it too.
        governs = f"{name} governs {when}".strip()
        draft = next((c for c in env.conflicts if c.evidence_id == asked.evidence_id), None)
        named = f"No: {' '.join(draft.title.split())} is a draft, never in force; {governs}" if draft else ""
        return named if named and len(named.split()) <= MAX_WORDS else f"No: a draft is never in force; {governs}"
    if asked.evidence_id == definition.evidence_id:
        return f"Yes: {applies}"
    return f"No: {applies}, not {asked.said}"


def _exists(env: Envelope, asked: VersionAsked, definition: EvidenceRef, label: str, name: str, when: str) -> str:
    """"is there a draft for X?", "is there a v1 of X?": Yes, the one that exists named (a draft whole when the
    headline has room, else by its date), then what governs or applies."""
    governs = f"{name} governs {when}".strip()
    if asked.said != "draft":
        applies = f"{name} applies {when}".strip()
        return f"Yes: {applies}" if asked.evidence_id == definition.evidence_id else \
            f"Yes: {label} {asked.said} exists; {applies}"
    found = next((c for c in env.conflicts if c.evidence_id == asked.evidence_id), None)
    if found is None:
        return f"Yes: {label} has a draft; {governs}"
    return _named_or_ref("Yes:", found, "an unapproved draft", "unapproved", governs)


def _challenged(c: Conflict, name: str, when: str) -> str:
    """"the draft says X, is that right?": No, the document named whole when the headline has room for it, else by what
    it is ("the draft of 2025-02-10"), never cut off mid-name (the status line and the conflicts name it in full)."""
    word = _CONFLICT_WORD.get(c.label, c.label.lower())
    return _named_or_ref("No:", c, word, "unapproved" if c.label == "DRAFT" else word, f"{name} governs {when}".strip())


def _named_or_ref(lead: str, c: Conflict, word: str, short: str, governs: str) -> str:
    """`lead`, the document named whole and what it `word` is when the headline has room, else by what it is ("the
    draft of 2025-02-10") and `short`; then what governs."""
    whole = f"{lead} {' '.join(c.title.split())} is {word}; {governs}"
    return whole if len(whole.split()) <= MAX_WORDS else f"{lead} {_document_ref(c)} is {short}; {governs}"


def _document_ref(c: Conflict | EvidenceRef) -> str:
    """A document the headline has no room to name whole, by what it is: "the draft of 2025-02-10"."""
    said = version_label(c.version)
    if c.lifecycle == "draft":
        return f"the {said}" if said.startswith("draft of ") else "the draft you name"
    return "the note you name" if c.kind == "note" else "the page you name"


def _fits_whole(title: str, words: int) -> str | None:
    """`title` whole, spaces tidied, when it has at most `words` words; None when it would have to be cut."""
    parts = title.split()
    return " ".join(parts) if len(parts) <= words else None


def _data_verdict(env: Envelope) -> str:
    """Whether the data behind the answer is fresh, as a clause after what it means: "its data is failing:
    raw_web.sessions last loaded 40 h ago"."""
    worst = max(env.freshness, key=lambda f: _SEVERITY[f.status])
    if worst.status == "unknown" or worst.age_hours is None:
        return f"its data's freshness is not known: no load of {_source_name(worst.source)} is recorded"
    if worst.status == "pass" and len(env.freshness) > 1:
        return f"its data is fresh: all {len(env.freshness)} sources loaded on time"
    return (f"its data is {_FRESH_WORD[worst.status]}: {_source_name(worst.source)} last loaded "
            f"{age_text(worst.age_hours)}")


# How the headline names the kinds a disagreement question asks about (core/read/intents/disagreement.py KINDS).
_KIND_NOUN = {"draft": ("draft", "drafts"), "wiki": ("wiki page", "wiki pages"), "memo": ("memo", "memos"),
              "note": ("note", "notes"), "handbook": ("handbook", "handbooks"), "glossary": ("glossary", "glossaries"),
              "slack": ("Slack note", "Slack notes"), "thread": ("thread", "threads"), "email": ("email", "emails"),
              "deck": ("deck", "decks")}


def _disagreement(env: Envelope, name: str, when: str) -> str:
    """"are there drafts or wiki pages that contradict how churn is defined?" asks whether anything disagrees: Yes,
    with how many and which (of the kinds asked, that the role can see), or No; then which version governs. Never
    "No: the draft is unapproved", which answers whether the draft governs."""
    d = env.disagreement
    governs = f"{name} governs {when}" if when else f"{name} is the approved definition"
    titles = {c.evidence_id: c.title for c in env.conflicts}
    refs = {c.evidence_id: c for c in env.conflicts}
    kind = {c.evidence_id: "draft" if c.lifecycle == "draft" else "note" if c.kind == "note" else "document"
            for c in env.conflicts}

    def noun(ids: list[str], kinds: list[str]) -> tuple[str, str]:
        if len(kinds) == 1:
            return _KIND_NOUN[kinds[0]]
        same = {kind.get(i, "document") for i in ids}
        return _KIND_NOUN[same.pop()] if len(same) == 1 and "document" not in same else ("document", "documents")

    def named(ids: list[str], lead: str, tail: str) -> str:
        """`lead`, as many of the items' titles, each whole, as the headline has words for, then `tail`: a title is
        never cut mid-name ("and N more" counts the rest, which the answer lists in full)."""
        room = MAX_WORDS - len(lead.split()) - len(tail.split())
        shown: list[str] = []
        for k, i in enumerate(ids):
            fits = room - (3 if k < len(ids) - 1 else 0)  # room kept for "and N more"
            # A title with no room whole is a draft by its date ("the draft of 2026-01"), or counted in "N more"
            short = _document_ref(refs[i]) if i in refs else ""
            whole = _fits_whole(titles.get(i, i), fits) or (
                short if short.startswith("the draft of") and len(short.split()) <= fits else None)
            if whole is None:
                break
            shown.append(whole)
            room -= len(whole.split())
        if not shown:
            return f"{lead.rstrip(':')}{tail}"
        rest = len(ids) - len(shown)
        return f"{lead} {', '.join(shown)}" + (f" and {rest} more" if rest else "") + tail

    if d.verdict == "yes":
        one, many = noun(d.evidence_ids, d.asked)
        n = len(d.evidence_ids)
        return named(d.evidence_ids, f"Yes, {n} {one if n == 1 else many} disagree{'s' if n == 1 else ''}:",
                     f"; {governs}")
    if not d.asked:
        return f"No: nothing you can see disagrees; {governs}"
    asked = " or ".join(_KIND_NOUN[k][0] for k in d.asked)
    if not d.others:
        return f"No: no {asked} you can see disagrees; {governs}"
    one, many = noun(d.others, [])
    n = len(d.others)
    return named(d.others, f"No: no {asked} you can see disagrees, but {n} {one if n == 1 else many} "
                           f"{'does' if n == 1 else 'do'}:", f"; {governs}")


_DOWNSTREAM_NOUN = {"exposure": ("dashboard or report", "dashboards or reports"), "model": ("model", "models"),
                    "metric": ("metric", "metrics")}


def _intent(env: Envelope) -> str | None:
    """Intent answers (owner, compare, discover, downstream, document): the fact asked for, in a few words.
    None for an intent without one of these fields (e.g. upcoming, worded as a definition answer)."""
    label = _label(env)
    if env.ownership:
        o = env.ownership
        owner = (f"No owner is recorded for {label}" if not o.owner else f"{label} is owned by {o.owner}"
                 + (" (recorded on a draft, not an approved version)" if o.from_draft else ""))
        if env.intent != "compare":
            return owner
        # "who owns it, and what changed?": both asks, the owner first, then the change without the name again
        return f"{owner}; {_changed(env, '')}"
    if env.comparison:
        # A yes or no to "has it changed?" is about two versions of one thing, never two things side by side.
        return (_changed_yes_no(env, label) if "changed" in env.asked and not env.comparison.right_label
                else _changed(env, label))
    if env.listing:
        li = env.listing
        about = f" about {' '.join(li.topic)}" if li.topic else ""
        from core.answer.intents.discover import NOUNS
        one, many = NOUNS.get(li.kind, (li.kind, li.kind + "s"))
        if li.condition is not None:  # a whole-catalog question: how many of what you can see meet it
            seen = f"{li.checked} {one if li.checked == 1 else many}{about} you can see"
            if not li.checked:
                return f"You can see no {many}{about}: nothing to check"
            if not li.items:
                text = f"None of the {seen} {li.condition}"
            else:
                names = ", ".join(i.label for i in li.items[:3]) + (f" and {len(li.items) - 3} more"
                                                                     if len(li.items) > 3 else "")
                said = li.condition if len(li.items) == 1 else li.condition_many or li.condition
                text = f"{len(li.items)} of the {seen} {said}: {names}"
            return f"{li.answer.capitalize()}: {text[0].lower()}{text[1:]}" if li.answer else text
        return f"You can see {len(li.items)} {one if len(li.items) == 1 else many}{about}"
    if env.downstream and env.intent == "downstream":  # else the downstream half of a definition answer (below)
        n = len(env.downstream.items)
        asked = env.downstream.asked
        if asked:  # "which dashboard uses net revenue?": about dashboards, even when other things read it
            hits = [i for i in env.downstream.items if i.kind == asked]
            one, many = _DOWNSTREAM_NOUN.get(asked, (asked, asked + "s"))
            if not hits:
                others = f"; {n} other thing{'' if n == 1 else 's'} read{'s' if n == 1 else ''} it" if n else ""
                return f"No {one} you can see uses {label}{others}"
            return f"{len(hits)} {one if len(hits) == 1 else many} you can see use{'s' if len(hits) == 1 else ''} {label}"
        if not n:
            return f"Nothing you can see reads {label}"
        return f"{n} thing{'' if n == 1 else 's'} you can see read{'s' if n == 1 else ''} {label}"
    if env.review or env.table_facts:
        return _whole(env.verdict, MAX_WORDS)
    if env.documents:
        return _quoted(env)
    return None


def _quoted(env: Envelope) -> str:
    """What a document says. Quoted from a document that is not authoritative (untrusted, draft, superseded, old
    wiki), the same line says it does not govern and names what does: the first line is what gets screenshotted,
    and a quote alone there reads as the answer. The quote gives up words so that this tail always fits."""
    d = env.documents[0]
    if d.label == "AUTHORITATIVE DOCUMENT":
        return f"{_short(d.title, 8)} ({d.label.lower()}) says: “{_short(d.quote, 24)}”"
    said = f"{_title(d.title, 6)} ({d.label.lower()}, does not govern) says:"
    governing = [_short(s.title, 5) for s in env.selected if s.role_in_answer == "definition"][:2]
    tail = f"; {' and '.join(governing)} govern{'s' if len(governing) == 1 else ''}" if governing else ""
    room = MAX_WORDS - len(said.split()) - len(tail.split())
    return f"{said} “{_short(d.quote, max(room, 3))}”{tail}"


def _changed(env: Envelope, label: str) -> str:
    """What changed between the two versions compared (`label` names the entity, or is empty after its owner). With
    fewer than two versions the role can see, there is no comparison: the one it can see, and since when."""
    c = env.comparison
    if c is None:
        o = env.ownership
        if o is None or o.from_draft or len(o.history) != 1:
            return f"{label} has no approved version you can see to compare".strip()
        v = o.history[0]
        since = f", in effect from {day_text(v.valid_from)}" if v.valid_from else ""
        return f"{label} {_version(v)} is the only approved version you can see{since}".strip()
    if c.left.evidence_id == c.right.evidence_id:  # one version throughout: never "v2 and v2 are the same"
        return f"{label} {_version(c.left)} is in effect throughout: nothing changed".strip()
    if c.right.lifecycle == "draft":  # a draft against the version that governs (core/answer/intents/compare.py)
        whole = _fits_whole(c.right.title, 10)
        pair = f"{label} {_version(c.left)} and {f'the draft “{whole}”' if whole else _document_ref(c.right)}".strip()
    else:
        pair = (f"{label} and {c.right_label}" if c.right_label else
                f"{label} {_version(c.left)} and {_version(c.right)}".strip())
    # Two versions always differ in their dates: name what changed in the definition itself.
    changed = [f.field.replace("_", " ") for f in c.changed if f.field != "effective"
               and not (c.right_label and f.field == "owner")]
    if not changed:
        return f"{pair} are the same in every field compared"
    return f"{pair} differ in " + (", ".join(changed[:-1]) + " and " + changed[-1] if len(changed) > 1 else changed[0])


def _changed_yes_no(env: Envelope, label: str) -> str:
    """"has churn changed this year?": Yes, naming when the later version took effect, or No when one version was in
    effect throughout what was asked (the comparison chose the two versions by the version rules)."""
    c = env.comparison
    if c.recorded_ingest is not None:  # one object, edited between two ingests
        fields = ", ".join(f.field for f in c.changed if f.field != "effective") or "its text"
        return f"Yes: {label} changed at ingest {c.recorded_ingest} ({day_text(c.recorded_on)}): {fields}"
    said = _changed(env, label)
    if c.left.evidence_id == c.right.evidence_id:
        return f"No: {said}"
    since = f" on {day_text(c.right.valid_from)}" if c.right.valid_from else ""
    if c.left.valid_to and c.right.valid_from and c.left.valid_to < c.right.valid_from:
        # Another version came between the two compared: the first change, then the one that ended with the second.
        since = f" on {day_text(c.left.valid_to)} and again by {day_text(c.right.valid_from)}"
    return f"Yes: {label} changed{since}, {_version(c.left)} to {_version(c.right)}; {said}"


def with_headline(env: Envelope) -> Envelope:
    """`env` carrying its headline: what the CLI's JSON, its batch and the MCP tools hand on, the page's own line."""
    env.headline = headline(env)
    return env


def headline(env: Envelope) -> str:
    """One plain sentence, at most 25 words."""
    label = _label(env)
    b = env.behavior
    said = value_headline(env, label) if b in (Behavior.answer, Behavior.split) else None
    if said:  # a question asking for a number is answered with it
        text = said
    elif b is Behavior.answer:
        text = _intent(env) or _answer(env)
    elif b is Behavior.clarify and env.clarify and env.freshness and "freshness_status" in env.asked:
        # "what is X, and is its data fresh?" asked back for a date: the freshness half is answered all the same
        text = f"{env.clarify.question.split('. ')[0].rstrip('.')}; {_data_verdict(env)}"
    elif b is Behavior.clarify and env.clarify:
        text = env.clarify.question
    elif b is Behavior.split:
        parts = [f"{_version(d)} {day_text(sp.start)}–{day_text(sp.end - timedelta(days=1))}"
                 for sp in env.splits for d in sp.selected[:1]]
        text = f"{label} changed definition {_when(env)}: " + ", then ".join(parts)
        if "changed" in env.asked:  # "..., did the definition change mid year?"
            text = f"Yes: {text}"
    elif b is Behavior.human_review:
        text = f"Two approved versions of {label} overlap {_when(env)}; a governance reviewer must decide".replace("  ", " ")
    elif b is Behavior.not_found_or_not_authorized:
        text = "Nothing you have access to matches this question"
    elif b is Behavior.refuse:
        text = "Refused: AsOf keeps to the catalog's permissions and ignores instructions found in documents"
    elif b is Behavior.abstain and (env.entity_id is None or env.intent == "compare" or env.table_facts is not None):
        # Stopped before an entity was read (time budget), a comparison with nothing to compare, or a table whose
        # make-up is not recorded: its own reason ("X has no draft you can see", "only one approved version", "No
        # columns are recorded for X"), worded for every role alike.
        text = env.verdict
    elif b is Behavior.abstain:
        definition = next((s for s in env.selected if s.role_in_answer == "definition"), None)
        if definition is not None:
            text = f"Only partly answered: {_answer(env)}"
        # Said of what the asker may see, for every role alike (so it tells nothing of hidden objects): a
        # steward reading only its review queue would otherwise be told that a governed metric has no definition.
        elif any(c for c in env.conflicts) or "no approved definition" in env.verdict.lower():
            text = f"No approved definition of {label} you can see {_when(env)}".strip()
        else:
            text = f"No approved version of {label} you can see is in effect {_when(env)}".strip()
    else:
        text = env.verdict
    return _cap(text)


def _freshness_status(f: FreshnessEntry) -> Status:
    src = _source_name(f.source)
    if f.status == "error":
        return Status(level="error", text=f"Failing data: {src} last loaded {age_text(f.age_hours)} "
                                          f"(error after {f.error_after_hours:g} h)" if f.error_after_hours is not None
                      else f"Failing data: {src} last loaded {age_text(f.age_hours)}")
    if f.status == "warn":
        return Status(level="warning", text=f"Stale data: {src} last loaded {age_text(f.age_hours)}"
                      + (f" (warn after {f.warn_after_hours:g} h)" if f.warn_after_hours is not None else ""))
    if f.status == "unknown":
        return Status(level="warning", text=f"Unknown freshness: no load of {src} is recorded")
    return Status(level="ok", text=f"{src} fresh (loaded {age_text(f.age_hours)})")


def status_line(env: Envelope, more_freshness: Iterable[FreshnessEntry] = ()) -> list[Status]:
    """What the reader must know before trusting the headline, worst first.

    `more_freshness`: freshness computed for parts of a split or human-review answer (the envelope's own
    list covers a single answer only)."""
    out: list[Status] = []
    seen: set[str] = set()
    for f in list(env.freshness) + list(more_freshness):
        if f.source in seen:
            continue
        seen.add(f.source)
        quiet = period_loaded(env, f)  # late today, but loaded in full for the past period asked about
        out.append(Status(level=quiet[0], text=quiet[1]) if quiet else _freshness_status(f))
    fresh = [s for s in out if s.level == "ok"]
    out = [s for s in out if s.level != "ok"]
    if fresh:
        # "all 2" beside a stale third source reads as a contradiction: the fresh ones are "the other" ones then.
        many = f"the other {len(fresh)}" if out else f"all {len(fresh)}"
        out.append(Status(level="ok", text="Data fresh: " + fresh[0].text.replace(" fresh (", " (", 1)
                          if len(fresh) == 1 else f"Data fresh: {many} sources loaded on time"))
    verdict = period_verdict(env)  # a value over a past period: were the loads it needed all taken?
    if verdict:
        out.append(Status(level=verdict[0], text=verdict[1]))
    if env.behavior is Behavior.split:
        out.append(Status(level="warning", text=f"The definition of {_label(env)} changes inside this period"))
    if env.behavior is Behavior.human_review:
        out.append(Status(level="error", text="Approved definitions overlap: no single answer until a reviewer decides"))
    drafts = [c for c in env.conflicts if c.label == "DRAFT"]
    for c in drafts[:2]:
        out.append(Status(level="warning", text=f"A draft disagrees: {_short(c.title, 10)}"))
    for c in env.conflicts:
        if c.label in ("SUPERSEDED", "DEPRECATED", "NOT IN EFFECT", "NON-AUTHORITATIVE") and c.named_in_question:
            out.append(Status(level="info", text=f"{_short(c.title, 10)} is {_CONFLICT_WORD[c.label]}"))
    for c in [c for c in env.conflicts if c.label == "UNTRUSTED"][:1]:
        out.append(Status(level="info", text=f"Untrusted content ({_short(c.title, 8)}) was read as data only; "
                                             "any instructions in it were ignored"))
    if env.ignored_instructions:
        out.append(Status(level="info", text="Your question asked to step outside the rules; that part was not followed"))
    for note in env.notes:
        out.append(Status(level="info", text=note))
    if env.index is not None and env.index.status == "stale":
        out.append(Status(level="info", text="The search index is behind the catalog; the live catalog was used"))
    # Said only of a definition no draft is shown beside: a draft listed as still to come (NOT YET IN EFFECT) is a
    # draft on the page, and an owner, a comparison, a listing or who may see it is not a definition a draft contests.
    listed_draft = [c for c in env.conflicts if c.lifecycle == "draft" and c.label != "DRAFT"]
    for c in listed_draft[:1]:  # a change to come, not a disagreement on the date: said as what it is
        out.append(Status(level="info", text=f"A draft starts later: {_short(c.title, 10)} (not in effect "
                                             f"{_asked_when(env)})"))
    if env.behavior is Behavior.answer and not drafts and not listed_draft and env.selected \
            and env.selected[0].kind != "source" and _intent(env) is None and env.intent != "access":
        out.append(Status(level="ok", text="No draft disagrees"))
    return sorted(out, key=lambda s: _ORDER[s.level])


def _asked_when(env: Envelope) -> str:
    """When the question is about, as what is or is not in effect is said of it: its reporting date, else its
    period ("in Q1 2024"), and the evaluation date only for a question about neither. Never the clock's day for a
    question about another: a draft "not in effect on 29 Nov 2026" says nothing of Q1 2024."""
    if env.reporting_date:
        return f"on {day_text(env.reporting_date)}"
    if env.period_start and env.period_end:
        return when(env.period_start, env.period_end)
    return f"on {day_text(env.evaluated_at.date())}"


def date_source(env: Envelope, form_day: date | None, form_period: tuple[date, date] | None,
                carried: bool = False) -> str | None:
    """'using 30 Jun 2024 from your question' when the date came from the text, not the form. `carried`: the question
    is a follow-up answered with what it carried from the last one (core/answer/conversation.py), whose note, first
    among the answer's notes, says which date it carried or moved to."""
    if form_day or form_period or env.behavior in (Behavior.not_found_or_not_authorized, Behavior.refuse):
        return None
    # "is it still right?", "right now" and "today" all ask about the evaluation date, which a demo or a replayed
    # catalog sets to another day than the calendar's: said as today, never as a date the question wrote.
    now = next((d for d in env.dates_read if ("as of the evaluation date" in d.rule and d.rule.startswith("'"))
                or d.rule.startswith("today, from the evaluation date")), None)
    if env.reporting_date and env.today_by_default:
        return (f"no reporting date given: answered for today, {day_text(env.reporting_date)} (the evaluation date); "
                f"{len(env.other_versions)} other version{'' if len(env.other_versions) == 1 else 's'} below")
    if env.reporting_date and now:  # "is the handbook still right?": no date written, the question asks about now
        return f"using today, {day_text(env.reporting_date)}: your question asks about now ('{now.text}')"
    if not any(_reporting(d) for d in env.dates_read):
        if carried:  # "and a year later?": the date is the last question's, moved; never "today"
            return None
        # The date was set by a rule, not written: "what's upcoming?" (after today), a version held for review (as of
        # today). Never "from your question" for a date the question does not hold.
        return (f"no reporting date given: answered as of today, {day_text(env.reporting_date)} (the evaluation date)"
                if env.reporting_date else None)
    if env.reporting_date:
        return f"using {day_text(env.reporting_date)} from your question"
    if env.period_start and env.period_end:
        return f"using {period_text(env.period_start, env.period_end)} from your question"
    return None


def _reporting(d) -> bool:
    """A date the question wrote that was read as the reporting date (not an evaluation time, nor a date inside a
    document's name, a quotation or a change's start)."""
    return not d.read_as.startswith("evaluation time") and "not the reporting date" not in d.read_as


def markdown(env: Envelope, escape) -> str:
    """The answer as Markdown for pasting into a ticket or a doc. `escape` makes catalog text inert."""
    lines = [f"**{escape(headline(env))}**", ""]
    for s in status_line(env):
        lines.append(f"- {s.level.upper()}: {escape(s.text)}")
    for ref in env.selected:
        if ref.role_in_answer in ("definition", "model", "overlap"):
            lines.append(f"- {escape(ref.title)} (`{ref.evidence_id}`)"
                         + (f": {escape(ref.metric.formula)}" if ref.metric else ""))
    for c in env.conflicts:
        lines.append(f"- {c.label}: {escape(c.title)} (`{c.evidence_id}`)")
    lines.append("")
    lines.append(f"Role {env.role} · catalog revision {env.catalog_revision} · evaluated {env.evaluated_at:%Y-%m-%d %H:%M} UTC")
    return "\n".join(lines)
