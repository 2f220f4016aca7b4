"""Catalog and model text as inert text in Streamlit Markdown (escaping from core.explain.safe_text).

Titles, reasons, formulas and explanations come from catalogs and models, not from us: a title holding
`![x](https://...)` would make every viewer's browser fetch that URL, and `:green-badge[AUTHORITATIVE]`
would draw a badge we did not decide. Every such string goes through `md()` before it reaches
`st.markdown`, a caption, a label or an alert; text for elements that render no Markdown (st.text, st.code)
goes through `inert()`, which still drops control characters and bidi overrides.
"""
from __future__ import annotations

from core.explain.safe_text import md_code, md_escape, plain


def md(text: object) -> str:
    """Text shown literally inside Streamlit Markdown, on one line."""
    return md_escape(text)


def code(text: object) -> str:
    """Text as one inline code span."""
    return md_code(text) if plain(text, oneline=True).strip() else md_escape(text)


def prose(text: object) -> str:
    """Generated prose that quotes formulas and names in backticks: the quoted parts stay code spans (inert
    in Markdown), everything else is escaped. Unbalanced backticks: all of it is escaped."""
    t = plain(text, oneline=True)
    parts = t.split("`")
    if len(parts) % 2 == 0:
        return md_escape(t)
    return "".join(md_escape(p) if i % 2 == 0 else (md_code(p) if p.strip() else "") for i, p in enumerate(parts))


def inert(text: object) -> str:
    """Text for an element that renders no Markdown (st.text, st.code): line breaks kept, but no
    control character, terminal escape or bidi override (one would reverse what the reader sees)."""
    return plain(text)


def dataframe(rows, **kw):
    """st.dataframe with every text cell inert: a table renders no Markdown, but a bidi override in a cell would
    still reverse what the reader sees."""
    import streamlit as st
    cells = [{k: inert(v) if isinstance(v, str) else v for k, v in r.items()} if isinstance(r, dict) else r
             for r in rows] if isinstance(rows, list) else rows
    return st.dataframe(cells, **kw)


def table(rows: list[dict], columns: dict[str, str] | None = None):
    """A static table whose text wraps inside the page's width, so no column is cut at 1024 or 1280 px (a
    st.dataframe scrolls sideways instead). st.table renders each cell and header as Markdown, so every
    text is escaped with `md` (shown literally, never as a link or an image). `columns` renames headers."""
    import pandas as pd
    import streamlit as st
    names = columns or {}
    frame = pd.DataFrame([{md(names.get(k, k)): md(v) if isinstance(v, str) else v for k, v in r.items()} for r in rows])
    # Fixed CSS (no catalog text): the table takes the page's width and long identifiers break anywhere.
    st.html("<style>[data-testid=stTable] table { table-layout: fixed; width: 100%; } "
            "[data-testid=stTable] td, [data-testid=stTable] th, [data-testid=stTable] td *, "
            "[data-testid=stTable] th * { overflow-wrap: anywhere !important; white-space: normal; }</style>")
    return st.table(frame.style.hide(axis="index"))
