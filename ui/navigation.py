"""Every page runs under app.py's st.navigation, even when the server's first visitor opens a page by URL.

Streamlit decides once per server process whether the app uses the old `pages/` folder navigation: a
class-wide flag (`PagesManager.uses_pages_directory`) is set when the first session starts, because a
`pages/` folder exists, and only a run of app.py (its `st.navigation`) clears it. If that first visitor
opens /Lineage or /Catalog directly, Streamlit runs the page file itself, app.py never runs, and until
someone opens the root every session gets the folder's navigation: an "app" entry, no icons, and the
steward-only pages listed for every role. Our pages live in `pages/` (other code and tests name those
paths), so instead of renaming the folder, a page that finds itself run that way clears the flag and
reruns: the rerun goes through app.py, which shows the page the URL names with the app's own navigation.
"""
from __future__ import annotations

import streamlit as st


def ensure_app_navigation() -> None:
    try:
        from streamlit.runtime.pages_manager import PagesManager
    except ImportError:  # a Streamlit without the flag: nothing to correct
        return
    if getattr(PagesManager, "uses_pages_directory", None):
        PagesManager.uses_pages_directory = False
        st.rerun()
