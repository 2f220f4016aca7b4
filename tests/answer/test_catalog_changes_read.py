"""The catalog's changes read only the entities that may have changed (Visible.dated_between), and list the first
discover.MAX_ITEMS of them. On a tide-gauge network's catalog of its own: 230 gauge metrics (a sixteenth only the
hydrologist may see), all first valid in 2025; some re-versioned on the edges of a year, one recorded just after
midnight in a time zone east of UTC (the day before in UTC), drafts with and without a start, models and sources.
Every answer is the one given when every visible object is read, for each role."""
from datetime import datetime, timezone

import pytest
from conftest import asker

from core.answer.intents.discover import MAX_ITEMS

AT = datetime(2027, 3, 15, 9, tzinfo=timezone.utc)
ROLES = ["observer", "hydrologist"]


def _version(key: str, version: str, since: str, until: str | None = None, acl=None, **extra) -> dict:
    return {"evidence_id": f"metric.{key}.v{version}", "entity_id": f"metric.{key}",
            "name": f"Tide level {key.removeprefix('gauge_')}", "kind": "metric_definition",
            "title": f"Tide level {key.removeprefix('gauge_')} v{version}", "version": version,
            "authority": "authoritative", "lifecycle": "current" if until is None else "superseded",
            "authority_class": "metric_registry", "valid_from": since, "valid_to": until,
            "acl": acl or ROLES, "owner": "Harbour Office (Mei Tanaka)",
            "text": f"Mean water level at gauge {key} over the tide cycle.",
            "metric": {"formula": f"AVG(level_{key})", "grain": "one row per tide cycle"}, **extra}


def _gauges() -> list[dict]:
    out = []
    for i in range(230):
        key, acl = f"gauge_{i:03d}", (["hydrologist"] if i % 16 == 0 else ROLES)
        if i % 23 == 1:  # re-versioned on the first day of 2026
            out += [_version(key, "1", "2025-01-01", "2026-01-01", acl), _version(key, "2", "2026-01-01", acl=acl)]
        elif i % 23 == 2:  # re-versioned on the last day of 2025
            out += [_version(key, "1", "2025-01-01", "2025-12-31", acl), _version(key, "2", "2025-12-31", acl=acl)]
        elif i % 23 == 3:  # a version still to come, and a draft proposing another
            out += [_version(key, "1", "2025-01-01", "2027-06-01", acl), _version(key, "2", "2027-06-01", acl=acl),
                    {**_version(key, "3", "2027-09-01", acl=acl), "lifecycle": "draft"}]
        elif i % 23 == 4:  # a draft with no start (one of them versioned by its name)
            out += [_version(key, "1", "2025-01-01", acl=acl),
                    {**_version(key, "draft-2027-09" if i == 4 else "2", "2025-01-01", acl=acl), "lifecycle": "draft",
                     "valid_from": None}]
        elif i % 23 == 5:  # recorded at 01:30 on 1 March 2026 in UTC+05:00: 28 February in UTC
            out.append(_version(key, "1", "2025-01-01", acl=acl, recorded_at="2026-03-01T01:30:00+05:00"))
        else:
            out.append(_version(key, "1", "2025-01-01", acl=acl))
    for i in range(12):
        name, acl = f"stg_gauge_{i:02d}", (["hydrologist"] if i % 4 == 0 else ROLES)
        out.append({"evidence_id": f"model.{name}.v1", "entity_id": f"model.{name}", "kind": "model", "title": name,
                    "version": "1", "authority": "authoritative", "lifecycle": "current",
                    "authority_class": "dbt_manifest", "valid_from": "2026-01-01" if i % 3 else "2023-05-01",
                    "acl": acl, "model": {"relation": f"analytics.{name}", "grain": "one row per reading"},
                    "text": f"{name}: gauge readings cleaned."})
        out.append({"evidence_id": f"source.raw_gauge_{i:02d}.table", "entity_id": f"source.raw_gauge_{i:02d}",
                    "kind": "source", "title": f"raw_gauge_{i:02d} (source table)", "version": "1",
                    "authority": "authoritative", "lifecycle": "current", "authority_class": "dbt_manifest",
                    "valid_from": "2024-07-01", "acl": acl, "text": "Gauge readings exported hourly."})
    return out


@pytest.fixture(scope="module")
def ask_tides(tmp_path_factory, embedder):
    return asker(tmp_path_factory, embedder, "tides", ROLES, _gauges(), AT)


QUESTIONS = ["which metrics changed in 2025?", "which metrics changed in 2026?", "what changes are coming?",
             "what changed in February 2026?", "what changed in March 2026?", "which models changed in 2026?",
             "which sources changed since 2024-06-01?", "what changed since last month?",
             "which definitions changed in Q1 2026?"]


def _said(env):
    return (env.behavior.value, env.verdict, env.listing.model_dump() if env.listing else None, env.notes,
            [(s.rule, s.detail) for s in env.trace])


@pytest.mark.parametrize("role", ROLES)
def test_the_changes_are_those_read_from_every_object(ask_tides, role, monkeypatch):
    from core.catalog.access import Visible
    asked = {q: _said(ask_tides(q, role)) for q in QUESTIONS}
    monkeypatch.setattr(Visible, "dated_between", lambda self, kinds, start, end, drafts: self.listed(kinds))
    whole = {q: _said(ask_tides(q, role)) for q in QUESTIONS}
    for q in QUESTIONS:
        assert asked[q] == whole[q], q
    def seen(*kinds_of_change):
        return sum(1 for i in range(230) if i % 23 in kinds_of_change and (i % 16 or role == "hydrologist"))
    coming = asked["what changes are coming?"][1]  # versions from June 2027, drafts
    assert coming.startswith(f"{seen(3, 4)} of the "), coming
    assert "Tide level 003 draft v3 proposed from 1 Sep 2027" in coming
    assert "Tide level 004 draft of 2027-09 proposed;" in coming and "vdraft" not in coming
    february = asked["what changed in February 2026?"][1]
    assert "Tide level 005 v1 recorded on 28 Feb 2026" in february and february.startswith(f"{seen(5)} of the "), february
    assert asked["what changed in March 2026?"][1].startswith("None of the "), asked["what changed in March 2026?"]


@pytest.mark.parametrize("role", ROLES)
def test_a_long_list_of_changes_counts_every_one_and_shows_the_first(ask_tides, role):
    seen = sorted({e["entity_id"] for e in _gauges() if e["kind"] == "metric_definition" and role in e["acl"]})
    env = ask_tides("which metrics changed in 2025?", role)
    assert env.verdict.startswith(f"{len(seen)} of the {len(seen)} metrics you can see changed from 1 Jan 2025 "
                                  "to 31 Dec 2025: "), env.verdict
    assert [r.entity_id for r in env.listing.items] == seen[:MAX_ITEMS]
    assert f"Only the first {MAX_ITEMS} are listed; add a date or a kind to narrow the list." in env.notes
    assert all(r.versions for r in env.listing.items)
