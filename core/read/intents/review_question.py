"""How a reviewer's question about the governance review queue is read: which kinds of queue item it asks about
("which drafts contradict the governing definition?"), or the queue as a whole ("what's in my review queue?"), and
the words it uses for them. Pure over the text; the queue itself and its answer are core/answer/intents/review.py."""
from __future__ import annotations

import re

from core.catalog.text import ASKING_WORDS, GENERIC, MONTH_WORDS, Token, in_spans, normalize, tokenize
from core.read.intents import listing_filter
from core.read.intents.disagreement import DISAGREE, DISAGREEING

# A reviewer's question names a kind of queue item: each family by the words that name it, not by one phrasing.
ASKED = {
    "overlap": re.compile(r"\boverlap\w*\b.*\b(versions?|definitions?)\b|\b(versions?|definitions?)\b.*\boverlap\w*"
                          r"|\btwo (approved|authoritative) (versions|definitions)\b", re.I),
    # A question whether drafts disagree (core/read/intents/disagreement.py reads the same words): the queue's only when it
    # names no metric the role can see (core/answer/intents/review.py `queue_answers`).
    "draft_conflict": re.compile(r"\bdrafts?\b.*\b" + DISAGREE + r"|\b" + DISAGREEING + r"\s+drafts?\b", re.I),
    "untrusted_instructions": re.compile(r"\b(untrusted|slack|notes?)\b.*\b(instructions?|injections?|commands?)\b"
                                         r"|\bprompt injections?\b", re.I),
    # A replaced page still in circulation: found by search, or still cited, linked or used ("are superseded wiki pages
    # still being cited?"); only a page said to be replaced is in use this way, never "is X still used?".
    "superseded_surfaced": re.compile(r"\b(superseded|legacy|old|outdated|still)\b.*\b(retrievable|surfac\w*|"
                                      r"searchable|findable|found by search|in search)\b"
                                      r"|\b(superseded|legacy|outdated|replaced)\b.*\b(cited|referenced|linked|used|"
                                      r"in use|circulating|around|live)\b", re.I),
    # An object no role may read, however a reviewer puts it: "an empty ACL", "nobody can see", "no roles assigned",
    # "not shared with any role", "which docs are unassigned" (a page, never an owner: "unassigned owner" is not this).
    "empty_acl": re.compile(
        r"\bempty (?:acls?|access(?: control)? lists?|permissions?|role lists?)\b"
        r"|\b(?:nobody|no[- ]?one|no roles?)\s+(?:can|may|could|is allowed to)\s+(?:see|read|open|access)\b"
        r"|\b(?:nobody|no[- ]?one|no roles?)\s+(?:has|have|is given|was given|has been given)\s+access\b"
        r"|\b(?:no|without(?: any)?|zero)\s+(?:roles?|acls?|acl entries|readers)(?:\s+(?:assigned|set|granted|attached|"
        r"given|at all))?\b"
        r"|\b(?:not|never)\s+(?:shared|visible|assigned|granted)\s+(?:to|with)\s+(?:any|a single|one)\s+roles?\b"
        r"|\b(?:invisible|hidden)\s+(?:to|from)\s+(?:everyone|everybody|all roles|every role)\b"
        r"|\bunassigned\s+(?:docs?|documents?|pages?|objects?|files?|items?|entries)\b"
        r"|\b(?:docs?|documents?|pages?|objects?|files?|items?|entries)\s+(?:that\s+)?(?:is|are|were|remain|left)\s+"
        r"unassigned\b(?!\s+(?:an?\s+)?owners?)", re.I),
    "stale_index": re.compile(r"\bstale (search )?index\b|\bindex (is )?(stale|out of date)\b", re.I),
}
# Words a reviewer's question uses for the kind itself: what is left names which items (a page, a metric).
KIND_WORDS = set(
    "overlap overlapping overlaps version versions definition definitions approved authoritative two draft drafts "
    "contradict contradicts conflict conflicts conflicting disagree disagrees clash governing governs untrusted note "
    "notes instruction instructions injection injections prompt command commands contain contains superseded "
    "outdated page pages still retrievable surfaced surface surfacing searchable search found empty acl "
    "acls nobody see role roles stale index date out metric metrics the assigned unassigned access readers shared "
    "visible invisible everyone everybody zero contradicted contradicting contradictory clashes clashed clashing "
    "disagreed disagreeing conflicted inconsistent odds contrary against mismatch mismatching".split())


# The queue itself, no kind named, however a reviewer asks what is theirs to look at: "what's in my review queue?",
# "show me the open review items", "what's waiting for my review?", "anything awaiting review?", "what needs my
# attention?", "anything for me to review?", "what should I review?": every kind.
WHOLE_QUEUE = re.compile(
    r"\breview (queue|items?|list|backlog)\b|\b(my|the|governance) queue\b"
    r"|\b(?:waiting|queued|up|lined up)\s+for\s+(?:my|our|your|a|the)\s+(?:review|approval|sign[- ]?off|attention)\b"
    r"|\bawaiting\s+(?:my\s+|our\s+|your\s+)?(?:review|approval|sign[- ]?off|attention)\b"
    r"|\b(?:need|needs|needing|require|requires|requiring)\s+(?:my|our|your)\s+(?:review|approval|sign[- ]?off|attention)\b"
    r"|\b(?:anything|something|what|things?|stuff)\s+(?:(?:is\s+|are\s+)?(?:there\s+|left\s+|else\s+|for\s+me\s+|"
    r"for\s+us\s+)){0,3}to\s+review\b"
    # "what should I review?", "... first / next / today", not "what should I review to understand X?" (about X).
    r"|\bwhat\s+(?:should|do|must|can|shall)\s+(?:i|we)\s+review\b(?=\s*(?:$|[?.!,]|first|next|now|today|this))"
    r"|\bpending\s+reviews?\b", re.I)


def asked_categories(text: str) -> list[str]:
    """The review-queue kinds a question asks about ("which drafts contradict the governing definition?"); all of
    them when it asks about the queue as a whole."""
    named = [c for c, pattern in ASKED.items() if pattern.search(text)]
    # "which documents are awaiting approval?" lists the drafts of that kind (core/read/intents/listing_filter.py)
    return named or (list(ASKED) if WHOLE_QUEUE.search(text) and not listing_filter.lists_unapproved(text) else [])


# "do any drafts clash with the approved definition of X?": the definition a draft is set against is referred to, not
# asked for; the question is the queue's, about X.
DEFINITION_REFERRED = re.compile(r"\b(?:with|from|against|to)\s+(?:(?:the|its|their|our)\s+)?(?:\w+\s+)?definitions?\b",
                                 re.I)


# Words about the queue and its reviewer, not a subject a definition could be asked of.
QUEUE_WORDS = set("review reviewer reviewers queue steward stewards governance item items anything something "
                  "disagreeing disagreement disagreements contradicting contradiction contradictions clashing "
                  "conflict conflicts conflicting first next".split())


# Words reviewers use around the kinds and the queue ("any open issues?", "drafts that openly disagree", "notes carrying
# instructions", "old pages still showing up in search"): they ask about the queue, they name nothing in it.
_AROUND = ("open outstanding unresolved flagged flag issue problem thing stuff one kind type sort todo backlog "
           "attention needs check checked left remaining moment else other others more existing exist known "
           "disagreement inconsistent inconsistency inconsistencies mismatch mismatches contradictory competing "
           "unapproved progress wip me mine team can get got openly somewhere anywhere carry carrying carries hide "
           "hiding hidden embed embedding embedded injected directive directives telling asking showing shows show "
           "appear appears appearing turn turning pop popping crop cropping surface surfaces retrieved retrieve "
           "returned return result results searches answer answers app assistant system permission permissions "
           "invisible collide colliding collision duplicate duplicates duplicated twice same interval intervals "
           "published production prod now object entry export effect force file everything waiting wait awaiting pending "
           "queued lined approval approve sign signoff")
# Every word that asks about the queue or a kind of its items, as the reader normalizes words (plurals folded).
NOT_A_SUBJECT = {normalize(w) for w in " ".join([" ".join(KIND_WORDS), " ".join(QUEUE_WORDS), _AROUND]).split()}
# Inside the words that ask for a kind ("drafts about gross margin that disagree"), a subject follows one of these and
# runs until a word that goes back to asking ("that", "with", "and").
_SUBJECT_AFTER = {"about", "for", "of", "on", "regarding", "concerning", "around", "re"}
_SUBJECT_ENDS = {"that", "which", "who", "where", "whose", "with", "and", "or", "but"}


def subject_words(text: str, excluded: list[tuple[int, int]] = ()) -> list[Token]:
    """The words a review question names its items by ("gross margin" in "any drafts that disagree about gross
    margin?", "churn" in "churn drafts in conflict?"); none when it asks about the queue or a kind of item alone
    ("what's in my review queue?", "any drafts that disagree with the registry?"). `excluded` are spans read as
    something else (dates, versions). Outside the words that ask for a kind every remaining word counts; inside them
    only the words after "about", "for", "of" ..., so a verb between a kind's words ("notes carrying
    instructions") is never taken for a name."""
    spans = [m.span() for c in asked_categories(text) for m in [ASKED[c].search(text)] if m]
    skip = in_spans(excluded)
    out, inside_after = [], False
    for t in tokenize(text):
        span = next(((a, b) for a, b in spans if a <= t.start < b), None)
        if span is not None:
            if t.norm in _SUBJECT_AFTER:
                inside_after = True
                continue
            if t.norm in _SUBJECT_ENDS:
                inside_after = False
        else:
            inside_after = False
        if skip(t.start) or not t.norm.isalpha() or len(t.norm) < 2 or (span is not None and not inside_after):
            continue
        if t.norm in GENERIC or t.norm in ASKING_WORDS or t.norm in NOT_A_SUBJECT or t.norm in MONTH_WORDS:
            continue
        out.append(t)
    return out


def named_subjects(text: str, view, excluded: list[tuple[int, int]] = (), near: bool = False) -> set[str]:
    """The visible metrics, models and sources a review question names, by name or alias, else (`near`: it has
    subject words) with a word one slip away from a name's word read as that word ("net reveneu", as the ranker reads
    it): the items asked about. Only the view's names are read, so a hidden name is read exactly as a made-up one."""
    from core.catalog.entities import match_entities
    entities = view.entities
    matches, toks = match_entities(text, entities, view.phrases, excluded)
    named = {m.entity_id for m in matches if entities[m.entity_id].is_topic}
    if named or not near:
        return named
    return {e for e in _misspelt_names(toks, view) if entities[e].is_topic}


def _misspelt_names(toks: list[Token], view) -> set[str]:
    from itertools import product

    from rapidfuzz import process
    from rapidfuzz.distance import OSA

    from core.catalog.entities import MAX_NAME_WORDS
    vocab = view.name_words
    options = [[t.norm] if t.norm in vocab or len(t.norm) < 5 else
               [t.norm, *(w for w, _, _ in process.extract(t.norm, vocab, scorer=OSA.distance, score_cutoff=1, limit=3))]
               for t in toks]
    found: set[str] = set()
    for i in range(len(options)):
        for j in range(i + 1, min(len(options), i + MAX_NAME_WORDS) + 1):
            if all(len(o) == 1 for o in options[i:j]):
                continue  # no slip in this run of words: the exact match already read it
            for name in product(*options[i:j]):
                found |= view.phrases.get(name, set())
    return found


def asks_definition_beside_queue(text: str, intent, view) -> bool:
    """"what does net revenue mean on 2025-03-31 and are there drafts disagreeing?": outside the words that ask about
    the queue, the question asks for a definition (a reporting date, or what something means) and names its subject.
    That is a question about the definition on that date, whose answer lists the drafts and superseded pages that
    disagree with it; the review queue (today's, over every entity) would drop the subject and the date. The subject
    is a visible metric, model or source, or words that name nothing the role can see, which the ordinary flow then
    answers as not found: a hidden name and a made-up one read the same."""
    from core.catalog.entities import match_entities
    from core.read.intents.intent import ASPECTS
    queue = [m.span() for c in asked_categories(text) for m in [ASKED[c].search(text)] if m]
    outside = "".join(" " if any(a <= k < b for a, b in queue) else ch for k, ch in enumerate(text))
    if not (intent.reporting or ASPECTS["definition"].search(DEFINITION_REFERRED.sub(" ", outside))):
        return False
    entities = view.entities
    matches, _ = match_entities(outside, entities, view.phrases, intent.excluded_spans)
    if any(entities[m.entity_id].is_topic for m in matches):
        return True
    return bool(subject_words(outside, intent.excluded_spans))
