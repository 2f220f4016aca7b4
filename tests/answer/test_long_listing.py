"""A listing longer than it shows (discover.MAX_ITEMS): the count is of every visible row, the rows shown are the
first by label, whatever shortcut builds them (only the first labels' rows are built when no topic filters them).
On a seed bank's catalog of its own: 240 seed lots, two of them with the same label at the cut, one re-versioned,
and 15 lots only the curator may see."""
from datetime import datetime, timezone

import pytest
from conftest import asker

from core.answer.intents.discover import MAX_ITEMS

AT = datetime(2027, 6, 1, 9, tzinfo=timezone.utc)
SHOWN = MAX_ITEMS


def _metric(key: str, label: str, acl: list[str], version: str = "1", since: str = "2025-01-01",
            until: str | None = None) -> dict:
    return {"evidence_id": f"metric.{key}.v{version}", "entity_id": f"metric.{key}", "name": label,
            "kind": "metric_definition",
            "title": f"{label} v{version}", "version": version, "authority": "authoritative",
            "lifecycle": "current" if until is None else "superseded", "authority_class": "metric_registry",
            "valid_from": since, "valid_to": until, "acl": acl, "owner": "Seed Bank (Ines Amaro)",
            "text": f"{label}: germinated seeds of the lot over seeds sown.",
            "metric": {"formula": f"SUM(germinated_{key}) / SUM(sown_{key})", "grain": "one row per lot"}}


def _lots() -> list[dict]:
    out = []
    for i in range(240):
        acl = ["keeper", "curator"] if i % 16 else ["curator"]
        out.append(_metric(f"lot_{i:03d}", f"Germination lot {i:03d}", acl))
    # Two lots named alike exactly where the listing is cut, and one with two versions.
    out.append(_metric("lot_twin", f"Germination lot {SHOWN + 1:03d}", ["keeper", "curator"]))
    out.append(_metric("lot_005", "Germination lot 005", ["keeper", "curator"], "2", since="2026-01-01"))
    out[5] = _metric("lot_005", "Germination lot 005", ["keeper", "curator"], until="2026-01-01")
    return out


@pytest.fixture(scope="module")
def ask_seeds(tmp_path_factory, embedder):
    return asker(tmp_path_factory, embedder, "seed_bank", ["keeper", "curator"], _lots(), AT)


@pytest.mark.parametrize("role", ["keeper", "curator"])
def test_a_long_listing_counts_every_row_and_shows_the_first_by_label(ask_seeds, role):
    visible = sum(role in m["acl"] for m in _lots() if m["version"] == "1")
    env = ask_seeds("which metrics can I see?", role)
    # The same rows built whole: a topic every lot holds takes the path that builds each row.
    whole = ask_seeds("which metrics are about germination?", role)
    first = "Germination lot 000" if role == "curator" else "Germination lot 001"
    assert whole.intent == "discover" and whole.listing.topic == ["germination"], (whole.intent, whole.verdict)
    assert env.verdict.startswith(f"You can see {visible} metrics: {first}"), env.verdict
    assert f"and {visible - 12} more" in env.verdict, env.verdict
    assert len(env.listing.items) == SHOWN
    assert [r.model_dump() for r in env.listing.items] == [r.model_dump() for r in whole.listing.items][:SHOWN]
    labels = [r.label for r in env.listing.items]
    assert labels == sorted(labels, key=str.lower)
    lot5 = next(r for r in env.listing.items if r.entity_id == "metric.lot_005")
    assert lot5.evidence_id == "metric.lot_005.v2" and [v.version for v in lot5.versions] == ["1", "2"]
