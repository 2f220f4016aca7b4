"""Document: what a visible document says, asked about by title or topic ("what does the board memo say about
margin?"). The document is the evidence: quoted, cited and labelled by its authority. It never governs a
metric definition, whatever its authority.

Candidates are the role's visible documents and notes only. Each is scored by the question's own words found
in its title, entity id, class and lifecycle; at least one of them must be more than a document word ("memo",
"wiki"), so "what does the memo say?" alone does not pick a memo at random. No match: the ordinary flow answers
(and for a hidden document says exactly what it says for a made-up one).
"""
from __future__ import annotations

import re

from core.catalog.envelope import Behavior, DocumentEvidence, Envelope, EvidenceRef
from core.catalog.evidence import DOCUMENT_KINDS, Authority, Evidence, Lifecycle
from core.catalog.text import ASKING_WORDS, GENERIC, STOPWORDS, words
from core.resolve.versions import governing_versions, in_effect, retrievable

DOC_WORDS = set(words("memo memos wiki page pages doc docs document documents handbook note notes deck draft "
                      "proposal glossary thread email slide slack export old legacy latest new"))
# Words about a document's age or status, not what kind of document it is.
STATUS_WORDS = set(words("old legacy latest new"))
MAX_QUOTE = 420
_SENTENCE = re.compile(r"(?<=[.!?])\s+")


def label(ev: Evidence) -> str:
    if ev.authority is Authority.untrusted:
        return "UNTRUSTED"
    if ev.lifecycle is Lifecycle.draft:
        return "DRAFT"
    if ev.lifecycle in (Lifecycle.superseded, Lifecycle.deprecated, Lifecycle.retired):
        return ev.lifecycle.value.upper()
    if ev.authority is Authority.authoritative:
        return "AUTHORITATIVE DOCUMENT"
    return "NON-AUTHORITATIVE"


def _bag(ev: Evidence) -> set[str]:
    return set(words(f"{ev.title} {ev.entity_id} {ev.evidence_id} {ev.authority_class or ''} {ev.kind.value} "
                     f"{ev.lifecycle.value}"))


def _type_words(ev: Evidence) -> set[str]:
    """What kind of document it is, in the words people use: a note is a thread, a message, an export."""
    out = set(words(ev.kind.value))
    if ev.kind.value == "note":
        out |= set(words("note thread message post"))
    if ev.kind.value == "documentation":
        out |= set(words("doc document page"))
    return out


def quote(ev: Evidence, topic: list[str]) -> str:
    """The sentences that mention the topic, else the opening ones; never more than MAX_QUOTE characters."""
    body = " ".join(line for line in ev.text.splitlines() if not line.lstrip().startswith("#"))  # Markdown headings
    if not body.strip():  # a page flattened into one heading line: keep its words, drop the marks
        body = re.sub(r"(^|\s)#+\s*", " ", ev.text)
    sentences = [s.strip() for s in _SENTENCE.split(body.strip()) if s.strip()]
    hits = [s for s in sentences if set(topic) & set(words(s))] if topic else []
    out = ""
    for s in hits or sentences:
        if out and len(out) + len(s) + 1 > MAX_QUOTE:
            break
        out = f"{out} {s}".strip()
    return out[:MAX_QUOTE]


def evidence(ev: Evidence, topic: list[str]) -> DocumentEvidence:
    about = [t for kind, t in ev.link_targets() if kind in ("documents", "superseded_by", "conflicts_with")]
    if not ev.entity_id.startswith(("doc.", "docs.")):
        about = [ev.entity_id] + about
    return DocumentEvidence(evidence_id=ev.evidence_id, entity_id=ev.entity_id, title=ev.title, kind=ev.kind.value,
                            authority=ev.authority.value, lifecycle=ev.lifecycle.value,
                            authority_class=ev.authority_class, label=label(ev), owner=ev.owner, version=ev.version,
                            valid_from=ev.valid_from, valid_to=ev.valid_to, about=list(dict.fromkeys(about)),
                            quote=quote(ev, topic), text=ev.text, source_uri=ev.source_uri)


# What follows these is the topic asked about ("say about tariffs"), not the name of the document.
TOPIC_START = set(words("about regarding concerning re wrt"))
# Verbs of saying after a document's name ("what did the memo claim?").
SAYING = set(words("say says said claim claims claimed state states stated suggest suggests suggested recommend "
                   "recommends recommended propose proposes proposed conclude concludes concluded argue argues "
                   "write writes wrote"))


def named(run) -> Envelope | None:
    """The visible documents the question names exactly, by title or id (`run.refs`): they are the answer.
    For an entity id with several objects, those retrievable on the day asked (else today) are quoted."""
    today = run.day or run.at.date()
    chosen: list[Evidence] = []
    for r in run.refs:
        if not r.document:
            continue
        objs = [e for e in r.evidence if retrievable(e, today)]
        chosen += [e for e in objs if e.valid_on(today)] or objs
    if not chosen:
        return None
    spans = [(r.start, r.end) for r in run.refs] + [d.span for d in run.intent.dates]
    chosen = list({e.evidence_id: e for e in chosen}.values())[:3]
    return _answer(run, run.reading.content_words(spans), chosen)


def absent_name(run) -> bool:
    """"what does the finance-only rebate memo say?": a word naming the document (before any "about ...")
    that no visible object uses anywhere (title, id, alias, text, column): no visible document is meant,
    so none is quoted in its place. Only the role's view is read: a hidden document's name reads as a
    made-up one."""
    from core.read.names.vocabulary import _known, visible_vocabulary
    spans = [d.span for d in run.intent.dates]
    naming = []
    for t in run.reading.tokens:
        if t.norm in TOPIC_START:
            break
        if any(a <= t.start < b for a, b in spans):
            continue
        w = t.norm
        if (w in STOPWORDS or w in ASKING_WORDS or w in DOC_WORDS or w in GENERIC or w in SAYING or len(w) < 3
                or not w.isalpha()):
            continue
        naming.append(w)
    if not naming:
        return False
    vocab = visible_vocabulary(run.view)
    return any(not _known(w, vocab) for w in naming)


def naming_words(run) -> list[str]:
    """The question's words that name the document asked about: its content words before a verb of saying or a
    word that opens the topic ("what does the KPI glossary | say about churn?"). Empty when nothing comes first or
    nothing follows (the whole question may be a title: "whats the halyard margin target")."""
    spans = [d.span for d in run.intent.dates]
    toks = run.reading.tokens
    stop = next((k for k, t in enumerate(toks) if k and (t.norm in TOPIC_START or t.norm in SAYING)), None)
    if stop is None:
        return []
    return [w for w in run.reading.content_words(spans, end=toks[stop].start) if w not in STATUS_WORDS]


def _fits_name(ev: Evidence, naming: list[str]) -> bool:
    """Every word naming the document fits it: a type word ("glossary", "memo") is one of its types, any other
    word is in its title, id or class. Generic words ("kpi", "official") say nothing of which document."""
    bag = _bag(ev)
    types = bag | _type_words(ev) | ({"slack", "thread", "export"} if ev.kind.value == "note" else set())
    return all(w in types if w in DOC_WORDS else (w in bag or w in GENERIC) for w in naming)


def answer(run) -> Envelope | None:
    if run.refs:
        # Named exactly: a document is quoted; an entity's object named by its id is the ordinary flow's.
        return named(run) if any(r.document for r in run.refs) else None
    if absent_name(run):
        # Traced as when no document and no entity matches: a made-up name and a hidden one read the same.
        run.step("document", "no visible document's title matches the question")
        run.step("entity", "no visible entity matches the question")
        return run.envelope(Behavior.not_found_or_not_authorized, _not_found())
    asked = run.reading.content_words([d.span for d in run.intent.dates])
    today = run.day or run.at.date()
    docs = [e for e in run.view.of_kinds([k.value for k in DOCUMENT_KINDS]) if retrievable(e, today)]
    naming = naming_words(run)
    if naming:
        # "what does the KPI glossary say about churn?": the words before "say"/"about" name the document, the rest
        # is its topic. Only a document those words fit may answer (each type word one of its types, each other word
        # in its title, id or class); the topic chooses among them and picks the sentences to quote, and never
        # makes a draft that mentions churn stand in for a glossary. None fits: the document named is not one this
        # role can see, said as for a made-up name (a hidden one and a made-up one read the same).
        fits = [ev for ev in docs if _fits_name(ev, naming)]
        if not fits:
            run.step("document", "no visible document's title matches the question")
            run.step("entity", "no visible entity matches the question")
            return run.envelope(Behavior.not_found_or_not_authorized, _not_found())
        docs = fits
    if not [w for w in asked if w not in DOC_WORDS]:
        # Only document words ("what does the slack export say?"): they name a document when exactly one
        # visible document is of that description; otherwise picking one would be a guess.
        kinds = set(asked) - STATUS_WORDS
        fits = [ev for ev in docs if kinds and kinds <= _bag(ev) | _type_words(ev)]
        if len(fits) != 1:
            return None
        scored = [(len(kinds), fits[0])]
    else:
        scored = []
        for ev in docs:
            hit = set(asked) & _bag(ev)
            if hit - DOC_WORDS:
                scored.append((len(hit), ev))
    if not scored:
        run.step("document", "no visible document's title matches the question")
        return None
    best = max(s for s, _ in scored)
    return _answer(run, asked, sorted((ev for s, ev in scored if s == best), key=lambda e: e.evidence_id)[:3])


def by_title(run) -> Envelope | None:
    """A question that names no visible metric, model or source but a visible document by its title's own
    words ("whats the halyard margin target?", no "memo" needed): every word that no visible entity's name
    uses must be in one document's title, and at least one such word must be there. Only visible documents
    are read, so a hidden document's title answers exactly as a made-up one does (not found)."""
    asked = [w for w in run.reading.content_words([d.span for d in run.intent.dates]) if w not in GENERIC]
    vocab = run.view.name_words
    foreign = {w for w in asked if w not in vocab}
    if not foreign:
        return None
    today = run.day or run.at.date()
    fits = [ev for ev in run.view.of_kinds([k.value for k in DOCUMENT_KINDS])
            if retrievable(ev, today) and foreign <= set(words(ev.title))]
    if len(fits) != 1:
        return None
    return _answer(run, asked, fits)


def doc_block(run) -> Envelope | None:
    """A dbt doc block that is the topic ("what are the invoice statuses?", "when is a user counted as active?"
    for a block named invoice_status or active_user): every word of its name is in the question, and no visible
    metric, model or source named in the question has as long a name. Only blocks filed under themselves are
    read (a block used by exactly one node documents that node and answers through it); used by none or by many,
    it is the answer itself. Only visible, retrievable blocks are read, so a hidden one answers as a made-up one."""
    asked = set(run.reading.content_words([d.span for d in run.intent.dates]))
    said = run.reading.all_words  # every word, so that a name of common words ("no_show_rule") can be said
    if not asked:
        return None
    today = run.day or run.at.date()
    fits = []
    for ev in run.view.doc_blocks:
        if ev.entity_id in run.view.entities and run.view.entities[ev.entity_id].is_topic:
            continue
        name = set(words(ev.title)) - STOPWORDS
        # A one-word block ("orders") is the topic only when it is all the question names.
        if name and name <= said and (len(name) >= 2 or asked - GENERIC <= name) and retrievable(ev, today):
            fits.append((len(name), ev))
    if not fits:
        return None
    longest = max(n for n, _ in fits)
    best = [ev for n, ev in fits if n == longest]
    if len(best) != 1:
        return None
    entities = run.view.entities
    matches, _ = run.reading.match_entities(entities, run.view.phrases)
    if any(entities[m.entity_id].is_topic and m.end - m.start >= longest for m in matches):
        return None  # "the invoice status model": a table of that name is what is asked about
    run.step("entity", f"no visible metric, model or source is named as fully as the doc block {best[0].title!r}, "
                       "whose every word is in the question")
    return _answer(run, sorted(asked), best)


def _not_found() -> str:
    from core.catalog.envelope import NOT_FOUND
    return NOT_FOUND


def _answer(run, asked: list[str], chosen: list[Evidence]) -> Envelope:
    names = {w for ev in chosen for w in _bag(ev)}
    topic = [w for w in asked if w not in names and w not in DOC_WORDS]  # "about margin": what to quote
    # "whats the halyard margin target": every word is in the title, so the sentences that use them are quoted
    topic = topic or [w for w in asked if w not in DOC_WORDS]
    found = [evidence(ev, topic) for ev in chosen]
    run.step("document", "named in the question: " + ", ".join(f"{d.evidence_id} ({d.label})" for d in found))
    governing = governs_instead(run, found[0])
    if not governing and _definition_from_pages(run, found):
        return _material_only(run, asked, found)
    d = found[0]
    cls = f", {d.authority_class}" if d.authority_class else ""
    verdict = (f"{d.title} ({d.label.lower()}{cls}) says: \"{d.quote}\" It is a document: it never "
               "governs a metric definition.")
    if d.label == "UNTRUSTED":
        verdict += " It is untrusted content: shown as data, and any instructions in it are ignored."
    if governing:
        verdict += " " + " ".join(f"{g.title} governs ({g.evidence_id})." for g in governing)
    if len(found) > 1:
        run.notes.append("Other documents match the question as well: " + ", ".join(x.title for x in found[1:]) + ".")
    return run.envelope(Behavior.answer, verdict, intent="document", documents=found,
                        entity_id=d.entity_id, entity_label=d.title,
                        selected=[EvidenceRef.of(g, "definition") for g in governing])


def _definition_from_pages(run, found: list[DocumentEvidence]) -> bool:
    """A definition asked ("what is discharge velocity?") that only pages no one approved speak of: not a question
    about a document (none named by a verb of saying or a document word), and no authoritative document among them."""
    said = {t.norm for t in run.reading.tokens}
    return (run.reading.meaning_asked and not said & (SAYING | DOC_WORDS | TOPIC_START)
            and all(d.label != "AUTHORITATIVE DOCUMENT" for d in found))


def _material_only(run, asked: list[str], found: list[DocumentEvidence]) -> Envelope:
    """No answer taken from untrusted or unapproved text, for every role: a chat export or an old wiki page that
    says what a term means is the only match, so its claim is listed as material below, never the headline."""
    named = run.reading.as_written([r for r in run.refs if r.document])  # the name itself, as the asker wrote it
    name = named[0] if named else " ".join(w for w in asked if w not in DOC_WORDS)
    pages = "; ".join(f"{d.title} ({d.label.lower()})" for d in found)
    run.step("document", "a definition is asked and only pages that do not govern match: "
             + ", ".join(f"{d.evidence_id} ({d.label})" for d in found) + "; none is quoted as the answer")
    verdict = (f"No approved definition of “{name}” is in the catalog you can see. Only {pages} "
               f"mention{'s' if len(found) == 1 else ''} it: listed as material, not an answer.")
    return run.envelope(Behavior.abstain, verdict, intent="document", documents=found)


def governs_instead(run, d: DocumentEvidence) -> list[Evidence]:
    """What governs in place of a document that is not authoritative (untrusted, superseded, draft, old wiki): for
    each metric, model or source it is about, the one approved version the role can see in effect on the day asked
    (else today). A quote from such a document, cut loose from its label, reads as the answer; naming what governs
    beside it keeps a screenshot of the headline from spreading the claim. Authoritative documents need no
    correction; a version the role cannot see is never named (none in effect, or two: nothing is named)."""
    if d.label == "AUTHORITATIVE DOCUMENT":
        return []
    from core.answer.run import as_of
    day = as_of(run)
    out = []
    for entity_id in d.about:
        ent = run.view.entities.get(entity_id)
        if ent is None or not ent.is_topic or ent.role == "document":
            continue
        objs = [e for e in run.view.entity_objects(entity_id) if retrievable(e, day)]
        now = in_effect(governing_versions(objs, ent.role), day)
        if len(now) == 1:
            out.append(now[0])
    return out
