"""Catalog: the entities your role can see, their versions over time, and what changed between them."""
from datetime import date, timedelta

import altair as alt
import streamlit as st

st.set_page_config(page_title="AsOf · Catalog", page_icon="📚", layout="wide")

from core.resolve import governing_versions, interval_text, version_name  # noqa: E402
from ui.resources import sidebar, store  # noqa: E402

s = store()
form = sidebar(s)
view = s.visible(form["role"])
st.title("Catalog")
entities = {e: ent for e, ent in sorted(view.entities.items()) if ent.is_topic}
st.caption(f"{len(entities)} entities visible to role **{form['role']}**.")
if not entities:
    st.stop()
entity_id = st.selectbox("Entity", list(entities), key="catalog_entity",
                         format_func=lambda e: f"{entities[e].label} ({e})")
ent = entities[entity_id]
objs = view.entity_objects(entity_id)
versions = governing_versions(objs, ent.role)
aliases = sorted({a for o in objs for a in o.aliases})
owners = sorted({o.owner for o in objs if o.owner})
st.markdown(f"**Kind** {ent.role} · **Owner** {', '.join(owners) or '—'} · "
            f"**Aliases** {', '.join(aliases) or '—'}")

st.subheader("Version timeline")
horizon = date.today() + timedelta(days=365)
rows = [{"version": f"{version_name(o)} · {o.lifecycle.value}", "evidence": o.evidence_id,
         "start": (o.valid_from or date(2020, 1, 1)).isoformat(), "end": (o.valid_to or horizon).isoformat(),
         "status": "governs" if o.governs else o.lifecycle.value}
        for o in objs if o.valid_from or o.valid_to]
if rows:
    chart = alt.Chart(alt.Data(values=rows)).mark_bar(height=18).encode(
        x=alt.X("start:T", title="effective from"), x2="end:T", y=alt.Y("version:N", title=None),
        color=alt.Color("status:N", title="status"), tooltip=["evidence:N", "start:T", "end:T", "status:N"])
    st.altair_chart(chart, width="stretch")
else:
    st.caption("No effective intervals recorded.")
for o in objs:
    st.markdown(f"- `{o.evidence_id}` {o.title}: {interval_text(o)} · {o.authority.value} · {o.lifecycle.value}")

if len(versions) >= 2:
    st.subheader("Compare two versions")
    ids = [v.evidence_id for v in versions]
    c1, c2 = st.columns(2)
    a_id = c1.selectbox("From", ids, index=len(ids) - 2, key="diff_a")
    b_id = c2.selectbox("To", ids, index=len(ids) - 1, key="diff_b")
    a, b = (next(v for v in versions if v.evidence_id == x) for x in (a_id, b_id))
    spec = lambda v: v.metric or v.model  # noqa: E731
    fields = ["formula", "grain", "unit", "time_dimension", "exclusions", "filters"] if a.metric else \
        ["relation", "grain", "primary_key", "columns"]
    table = []
    for f in fields:
        va, vb = getattr(spec(a), f, None) if spec(a) else None, getattr(spec(b), f, None) if spec(b) else None
        if isinstance(va, list) or isinstance(vb, list):
            sa, sb = set(va or []), set(vb or [])
            table.append({"field": f, a_id: ", ".join(va or []), b_id: ", ".join(vb or []),
                          "change": ("added: " + ", ".join(sorted(sb - sa)) if sb - sa else "")
                          + (" removed: " + ", ".join(sorted(sa - sb)) if sa - sb else "") or "same"})
        else:
            table.append({"field": f, a_id: va or "—", b_id: vb or "—", "change": "same" if va == vb else "changed"})
    table.append({"field": "effective", a_id: interval_text(a), b_id: interval_text(b), "change": ""})
    st.dataframe(table, hide_index=True, width="stretch")
