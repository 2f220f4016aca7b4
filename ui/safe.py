"""Catalog and model text as inert text in Streamlit Markdown.

Titles, reasons, formulas and explanations come from catalogs and models, not from us: a title holding
`![x](https://...)` would make every viewer's browser fetch that URL, and `:green-badge[AUTHORITATIVE]`
would draw a badge we did not decide. Every such string goes through `md()` before it reaches
`st.markdown`, a caption, a label or an alert. `core.safe_text` (when present) is preferred so the CLI
and the app escape the same way.
"""
from __future__ import annotations

import re
import string

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069]")
# Every ASCII punctuation character may be backslash-escaped in CommonMark; escaping all of them also
# disarms Streamlit's own `:colour[...]`, `:material/...:` and `$math$` directives and raw HTML.
_PUNCT = re.compile("([" + re.escape(string.punctuation) + "])")


def _clean(text: object) -> str:
    return _CONTROL.sub("", str(text or "")).replace("\n", " ").replace("\r", " ")


def plain(text: object) -> str:
    """Control characters (ANSI escapes, bidi overrides) removed; newlines become spaces."""
    return _clean(text).strip()


def _md(text: object) -> str:
    return _PUNCT.sub(r"\\\1", _clean(text))


try:  # the shared helper, once merged (branch `auth`)
    from core.safe_text import md_escape as _shared
except ImportError:  # pragma: no cover - depends on merge order
    _shared = None


def md(text: object) -> str:
    """Text shown literally inside Streamlit Markdown."""
    if _shared is not None:
        return _shared(_clean(text))
    return _md(text)


def code(text: object) -> str:
    """Inline code: backticks inside the text would end the span, so fall back to escaped text."""
    t = plain(text)
    return f"`{t}`" if "`" not in t and t else md(t)


def prose(text: object) -> str:
    """Generated prose that quotes formulas and names in backticks: the quoted parts stay code spans (inert
    in Markdown), everything else is escaped. Unbalanced backticks: all of it is escaped."""
    t = plain(text)
    parts = t.split("`")
    if len(parts) % 2 == 0:
        return md(t)
    return "".join(_md(p) if i % 2 == 0 else (f"`{p}`" if p.strip() else "") for i, p in enumerate(parts))
