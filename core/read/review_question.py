"""How a reviewer's question about the governance review queue is read: which kinds of queue item it asks about
("which drafts contradict the governing definition?"), or the queue as a whole ("what's in my review queue?"), and
the words it uses for them. Pure over the text; the queue itself and its answer are core/answer/review.py."""
from __future__ import annotations

import re

# A reviewer's question names a kind of queue item: each family by the words that name it, not by one phrasing.
ASKED = {
    "overlap": re.compile(r"\boverlap\w*\b.*\b(versions?|definitions?)\b|\b(versions?|definitions?)\b.*\boverlap\w*"
                          r"|\btwo (approved|authoritative) (versions|definitions)\b", re.I),
    "draft_conflict": re.compile(r"\bdrafts?\b.*\b(contradict|conflict|disagree|clash)\w*", re.I),
    "untrusted_instructions": re.compile(r"\b(untrusted|slack|notes?)\b.*\b(instructions?|injections?|commands?)\b"
                                         r"|\bprompt injections?\b", re.I),
    "superseded_surfaced": re.compile(r"\b(superseded|legacy|old|outdated|still)\b.*\b(retrievable|surfac\w*|"
                                      r"searchable|findable|found by search|in search)\b", re.I),
    "empty_acl": re.compile(r"\bempty acls?\b|\bnobody (can|may) see\b|\bno roles? (can|may) see\b", re.I),
    "stale_index": re.compile(r"\bstale (search )?index\b|\bindex (is )?(stale|out of date)\b", re.I),
}
# Words a reviewer's question uses for the kind itself: what is left names which items (a page, a metric).
KIND_WORDS = set(
    "overlap overlapping overlaps version versions definition definitions approved authoritative two draft drafts "
    "contradict contradicts conflict conflicts conflicting disagree disagrees clash governing governs untrusted note "
    "notes instruction instructions injection injections prompt command commands contain contains superseded "
    "outdated page pages still retrievable surfaced surface surfacing searchable search found empty acl "
    "acls nobody see role roles stale index date out metric metrics the".split())


# The queue itself, no kind named ("what's in my review queue?", "show me the open review items"): every kind.
WHOLE_QUEUE = re.compile(r"\breview (queue|items?|list|backlog)\b|\b(my|the|governance) queue\b", re.I)


def asked_categories(text: str) -> list[str]:
    """The review-queue kinds a question asks about ("which drafts contradict the governing definition?"); all of
    them when it asks about the queue as a whole."""
    named = [c for c, pattern in ASKED.items() if pattern.search(text)]
    return named or (list(ASKED) if WHOLE_QUEUE.search(text) else [])


# Words about the queue and its reviewer, not a subject a definition could be asked of.
QUEUE_WORDS = set("review reviewer reviewers queue steward stewards governance item items anything something "
                  "disagreeing disagreement disagreements contradicting contradiction contradictions clashing "
                  "conflict conflicts conflicting".split())
