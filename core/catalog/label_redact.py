"""A hidden object's name inside a visible object's own words, rendered away for the role that cannot see it.

A model the clinicians see may say "Feeds Theatre utilisation on the surgical board" while Theatre utilisation is
finance's only: quoted as written, the description tells the clinician that the metric exists. A formula's hidden
inputs were already replaced (core/catalog/redact.py); this does the same to the descriptions and texts people
wrote, for the names of metrics, models and sources of which the role sees no object at all. Only names that are
names (two words or more, or an identifier such as fct_theatre_sessions) are replaced, never a single plain word
("orders"), and never a name a visible object also goes by.
"""
from __future__ import annotations

import re

from core.catalog.redact import HIDDEN_NAME
from core.catalog.rows import acl_sql

_TOPIC_KINDS = ["metric_definition", "model", "source"]
_SUFFIX = re.compile(r"\s*(?:\([^)]*\)|\bv\d+(?:\.\d+)*)\s*$", re.I)  # "(source table)", "v2"


def _label(title: str) -> str:
    before = None
    while before != title:
        before, title = title, _SUFFIX.sub("", title).strip()
    return title


def _is_name(label: str) -> bool:
    return len(label) >= 4 and (len(label.split()) >= 2 or bool(re.search(r"\w[_.]\w", label)))


def hidden_names(con, acl: list) -> HiddenNames | None:
    """The names of entities this view sees no object of; None when there is nothing to hide."""
    rows = con.execute(
        f"""SELECT entity_id, list(DISTINCT title), bool_or({acl_sql()}) FROM evidence
            WHERE kind = ANY(?::VARCHAR[]) GROUP BY entity_id""", [*acl, _TOPIC_KINDS]).fetchall()
    seen = {_label(t).casefold() for _, titles, visible in rows if visible for t in titles if t}
    seen |= {eid.split(".", 1)[-1].casefold() for eid, _, visible in rows if visible}
    hidden = set()
    for eid, titles, visible in rows:
        if visible:
            continue
        for name in [*(_label(t) for t in titles if t), eid.split(".", 1)[-1]]:
            if _is_name(name) and name.casefold() not in seen:
                hidden.add(name)
    return HiddenNames(hidden) if hidden else None


_WORD = re.compile(r"(?<![\w.])[\w.]*\w")  # a word, or an identifier with dots ("hr_raw.pay_runs")


class HiddenNames:
    """The hidden names, looked up by their first word: a catalog may hide thousands of names from a role, and one
    pattern alternating all of them was tried at every position of every text."""

    def __init__(self, names: set[str]):
        self.by_first: dict[str, list[str]] = {}
        for name in sorted(names, key=len, reverse=True):
            first = _WORD.search(name)
            if first:
                self.by_first.setdefault(first.group().casefold(), []).append(name.casefold())

    def sub(self, text: str) -> str:
        out, at = [], 0
        folded = text.casefold()
        for m in _WORD.finditer(text):
            if m.start() < at:
                continue
            for name in self.by_first.get(m.group().casefold(), ()):
                end = m.start() + len(name)
                if folded.startswith(name, m.start()) and (end == len(text) or not (text[end].isalnum() or text[end] in "_")):
                    out += [text[at:m.start()], HIDDEN_NAME]
                    at = end
                    break
        return "".join(out + [text[at:]]) if out else text


def scrub(text: str | None, names: HiddenNames | None) -> str | None:
    return names.sub(text) if text and names is not None else text


def scrubbed(ev, names: HiddenNames | None):
    """The object with hidden names in its text and description replaced (itself when none is there)."""
    if names is None:
        return ev
    text, description = scrub(ev.text, names), scrub(ev.description, names)
    if text == ev.text and description == ev.description:
        return ev
    return ev.model_copy(update={"text": text, "description": description})
