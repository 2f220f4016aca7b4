"""AsOf: the entry point. Routes to the pages; which pages a role gets is decided here.

Ask is the default page. Evaluation (and an Audit page, when one exists) are for catalog stewards only.
"""
from pathlib import Path

import streamlit as st

st.set_page_config(page_title="AsOf", page_icon="🕰️", layout="wide")

from ui.resources import store  # noqa: E402

ROOT = Path(__file__).resolve().parent


def _is_steward() -> bool:
    role = st.session_state.get("role") or st.query_params.get("role")
    return any(r.name == role and r.steward for r in store().roles())


pages = [st.Page(str(ROOT / "pages/0_Ask.py"), title="Ask", icon=":material/chat:", default=True),
         st.Page(str(ROOT / "pages/1_Catalog.py"), title="Catalog", icon=":material/menu_book:", url_path="Catalog"),
         st.Page(str(ROOT / "pages/2_Lineage.py"), title="Lineage", icon=":material/account_tree:", url_path="Lineage"),
         st.Page(str(ROOT / "pages/3_Governance_review.py"), title="Governance review", icon=":material/rule:",
                 url_path="Governance_review")]
# Listed for stewards only; for every other role they stay reachable by URL but hidden from the menu, so someone
# sent a link to /Evaluation or /Audit is told by the page why it is not theirs instead of landing on Ask unasked.
shown = "visible" if _is_steward() else "hidden"
pages.append(st.Page(str(ROOT / "pages/4_Evaluation.py"), title="Evaluation", icon=":material/analytics:",
                     url_path="Evaluation", visibility=shown))
pages += [st.Page(str(p), url_path=p.stem.split("_", 1)[-1], icon=":material/history:", visibility=shown)
          for p in sorted((ROOT / "pages").glob("*Audit*.py"))]
st.navigation(pages).run()
