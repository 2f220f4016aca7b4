"""Catalog and model text rendered as text: no terminal escapes, no Markdown or HTML that acts.

Titles, reasons, ids and explanation sentences come from catalog authors, dbt projects and models:
they are data. A terminal must never receive their escape sequences (`ESC[2J` clears the screen), and
a Markdown renderer must never turn them into images (a fetch of an outside URL by every viewer),
links, HTML or Streamlit badges (a fake green "AUTHORITATIVE" inside a verdict).

    plain(text)              -> text without control characters, ANSI/OSC escapes or bidi overrides
    plain(text, oneline=True)-> the same, with line breaks turned into spaces (one field, one line)
    md_escape(text)          -> plain(text) with every Markdown/HTML/Streamlit-directive character escaped
                                and bare URLs/e-mail addresses broken by a word joiner (never autolinked),
                                for st.markdown / st.caption / labels that render Markdown
    md_code(text)            -> plain(text) as one inline code span (backticks inside it cannot close it)
    json_safe(text)          -> JSON text with raw C1/DEL/bidi characters written as \\uXXXX escapes
"""
from __future__ import annotations

import re

# ESC-introduced sequences: CSI (ESC [ ... final byte), OSC (ESC ] ... BEL or ST), DCS/SOS/PM/APC
# (ESC P/X/^/_ ... ST), two-byte escapes (ESC + one character) and the 8-bit CSI (0x9b ...). Other
# C1 controls go with the control characters below.
_ANSI = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]?"          # CSI, final byte optional so a truncated sequence still goes
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"  # OSC (window titles, hyperlinks)
    r"|\x1b[PX^_][^\x1b]*(?:\x1b\\)?"     # DCS, SOS, PM, APC
    r"|\x1b[\s\S]?"                       # any other escape and a lone ESC
    r"|\x9b[0-?]*[ -/]*[@-~]?"            # 8-bit CSI
)
# C0 controls except tab and newline, DEL, C1 controls, every Unicode bidi control that reorders what a
# reader sees ("Trojan source": the Arabic letter mark, LRM/RLM, embeddings, overrides, isolates), and the
# invisible format characters that hide inside a word (zero-width space, word joiner, invisible operators,
# the deprecated shaping controls, the byte-order mark). Zero-width (non-)joiners stay: scripts and emoji
# sequences need them.
_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b\u200e\u200f\u202a-\u202e"
                       r"\u2060-\u2064\u2066-\u206f\ufeff]")
_NEWLINES = re.compile(r"[\n\t\u2028\u2029]+")
# Every ASCII punctuation character may be backslash-escaped in CommonMark and then renders as itself.
# Escaping all of them (not a hand-picked list) also covers Streamlit's own syntax: `:green-badge[...]`,
# `:material/icon:`, `:red[...]`, emoji shortcodes, `$...$` math, and GFM autolinks (`http\://`).
_MD_SPECIAL = re.compile(r"([!\"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~])")
_JSON_UNSAFE = re.compile(r"[\x7f-\x9f\u2028\u2029\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
# Streamlit's Markdown (remark-gfm) links bare URLs, www. names and e-mail addresses by matching the text
# AFTER backslash escapes are resolved, so `http\://` alone still becomes a link. A word joiner (U+2060,
# invisible, not a space) between the scheme's colon and its slashes, after `www` and after `@` breaks
# every autolink pattern while the text reads the same.
WORD_JOINER = "\u2060"
_AUTOLINK = re.compile(r"(?<=:)(?=/)|(?<=\bwww)(?=\.)|(?<=@)", re.I)


def plain(text: object, oneline: bool = False) -> str:
    """`text` as a string with escape sequences and control characters removed."""
    s = "" if text is None else str(text)
    # A lone carriage return would let text overwrite the start of the terminal line: it goes too.
    s = _CONTROLS.sub("", _ANSI.sub("", s.replace("\r\n", "\n")))
    return _NEWLINES.sub(" ", s) if oneline else s


def md_escape(text: object, oneline: bool = True) -> str:
    """Text that Markdown (and Streamlit's Markdown) renders literally: no image, link, HTML, badge.

    One line by default: a line break inside a title must not start a heading, list or table in the
    surrounding Markdown. With oneline=False, line breaks become Markdown hard breaks.
    """
    s = _AUTOLINK.sub(WORD_JOINER, plain(text, oneline=oneline))
    s = _MD_SPECIAL.sub(lambda m: "\\" + m.group(1), s)
    return s if oneline else s.replace("\n", "  \n")


def md_code(text: object) -> str:
    """`text` as one inline code span; a fence longer than any backtick run inside it cannot be closed."""
    s = plain(text, oneline=True)
    longest = max((len(run) for run in re.findall(r"`+", s)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if s.startswith("`") or s.endswith("`") or not s.strip() else ""
    return f"{fence}{pad}{s}{pad}{fence}"


def json_safe(text: str) -> str:
    """JSON output with the characters JSON does not require escaping but a terminal may act on escaped.

    Only valid on JSON text: these characters can occur only inside JSON strings, where \\uXXXX is exact.
    """
    return _JSON_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
