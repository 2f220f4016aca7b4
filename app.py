"""AsOf: ask which definition applied on a date. Thin page over core.ask."""
from datetime import date

import streamlit as st

from core.ask import Question, ask
from core.config import Settings
from core.render import render_text
from core.store import Store


@st.cache_resource
def store() -> Store:
    return Store(Settings.from_env().db_path)


st.title("AsOf")
s = store()
role = st.sidebar.selectbox("Role", [r.name for r in s.roles()], key="role")
day = st.sidebar.date_input("Reporting date", value=date(2025, 3, 31), key="day")
question = st.text_input("Question", "What does net revenue mean?", key="question")
if question:
    st.code(render_text(ask(s, Question(role=role, text=question, day=day))))
