"""A listing longer than it shows (discover.MAX_ITEMS): the count is of every visible row, the rows shown are the
first by label, whatever shortcut builds them (only the first labels' rows are built when no topic filters them).
On a seed bank's catalog of its own: 240 seed lots, two of them with the same label at the cut, one re-versioned,
and 15 lots only the curator may see; 230 pages of lot notes, a fifth of them drafts, two owners, some only the curator
may see; 400 seed vaults (sources), three in four stale. A document is a row of its own: the rows a condition keeps
are the only ones built, the count is of all; a source's row is built only when shown or named."""
from datetime import datetime, timezone

import pytest
from builders import watched_source
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


def _notes() -> list[dict]:
    out = []
    for i in range(230):
        draft = i % 5 == 0
        out.append({"evidence_id": f"wiki.lot_note_{i:03d}", "entity_id": f"doc.lot_note_{i:03d}",
                    "kind": "documentation", "title": f"Germination note {(i * 7) % 230:03d}",
                    "version": "draft" if draft else "1", "authority": "non_authoritative",
                    "lifecycle": "draft" if draft else "current", "authority_class": "wiki",
                    "valid_from": "2025-01-01", "acl": ["curator"] if i % 9 == 0 else ["keeper", "curator"],
                    "owner": "Seed Bank (Ines Amaro)" if i % 2 else "Vault (Tomas Reis)",
                    "text": f"Germination notes on lot {i:03d}: sowing depth and chilling."})
    # Two notes with the same title where the listing is cut.
    out[1]["title"] = out[2]["title"] = f"Germination note {SHOWN - 1:03d}"
    return out


@pytest.fixture(scope="module")
def ask_seeds(tmp_path_factory, embedder):
    return asker(tmp_path_factory, embedder, "seed_bank", ["keeper", "curator"], _lots() + _notes() + _vaults(), AT)


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


@pytest.mark.parametrize("role", ["keeper", "curator"])
def test_a_long_document_listing_counts_every_page_and_keeps_what_a_condition_asks(ask_seeds, role):
    notes = [n for n in _notes() if role in n["acl"]]
    env = ask_seeds("which documents can I see?", role)
    whole = ask_seeds("which documents are about germination?", role)  # every note holds the word: each row built
    assert whole.intent == "discover" and whole.listing.topic == ["germination"], (whole.intent, whole.verdict)
    assert env.verdict.startswith(f"You can see {len(notes)} documents: "), env.verdict
    assert len(whole.listing.items) == SHOWN
    assert [r.model_dump() for r in env.listing.items] == [r.model_dump() for r in whole.listing.items]
    first = sorted((n["title"].lower(), n["evidence_id"]) for n in notes)[:SHOWN]
    assert [(r.label.lower(), r.evidence_id) for r in env.listing.items] == first
    # A condition: the pages that meet it, out of every page the role may see.
    drafts = ask_seeds("which documents are drafts?", role)
    want = sorted((n["title"].lower(), n["evidence_id"]) for n in notes if n["lifecycle"] == "draft")
    assert [(r.label.lower(), r.evidence_id) for r in drafts.listing.items] == want, drafts.verdict
    assert drafts.listing.checked == len(notes)
    assert drafts.verdict.startswith(f"{len(want)} of the {len(notes)} documents you can see are drafts"), drafts.verdict
    owned = ask_seeds("which documents does Tomas Reis own?", role)
    want = sorted((n["title"].lower(), n["evidence_id"]) for n in notes if "Tomas" in n["owner"])
    assert [(r.label.lower(), r.evidence_id) for r in owned.listing.items] == want, owned.verdict
    assert owned.listing.checked == len(notes) and len(want) < len(notes)


def _vaults() -> list[dict]:
    """400 seed vaults (sources): three in four loaded three days before the clock (stale), one in eight an hour
    before (fresh), one in eight never loaded (not known); every ninth only the curator may see."""
    out = []
    for i in range(VAULTS):
        loaded = {3: "2027-06-01T08:00:00Z", 7: None}.get(i % 8, "2027-05-29T09:00:00Z")
        out += watched_source(_vault(i), _vault_acl(i), loaded, owner="Vault (Tomas Reis)", since="2025-01-01",
                              text=f"Seed vault {i:03d} readings.")
    return out


VAULTS = 400


def _vault(i: int) -> str:
    return f"vault_{(i * 7) % VAULTS:03d}"


def _vault_acl(i: int) -> list[str]:
    return ["curator"] if i % 9 == 0 else ["keeper", "curator"]


@pytest.mark.parametrize("role", ["keeper", "curator"])
def test_a_long_freshness_listing_counts_every_source_and_shows_the_first_by_label(ask_seeds, role):
    seen = [i for i in range(VAULTS) if role in _vault_acl(i)]
    stale = sorted(_vault(i) for i in seen if i % 8 not in (3, 7))
    unknown = [i for i in seen if i % 8 == 7]
    assert len(stale) > SHOWN
    env = ask_seeds("which sources are stale?", role)
    whole = ask_seeds("which vault sources are stale?", role)  # a topic every source holds: each row built
    assert whole.listing.topic == ["vault"], whole.verdict
    assert env.listing.checked == len(seen) and whole.listing.checked == len(seen)
    assert env.verdict.startswith(f"{len(stale)} of the {len(seen)} sources you can see are stale: "), env.verdict
    assert [r.label for r in env.listing.items] == [r.label for r in whole.listing.items] == stale[:SHOWN]
    assert [r.model_dump() for r in env.listing.items] == [r.model_dump() for r in whole.listing.items]
    assert all(r.status.startswith("stale") and r.freshness is not None for r in env.listing.items)
    assert len(env.listing.not_known) == len(unknown) and "Not known for " in env.verdict
    fresh = ask_seeds("are all sources fresh?", role)
    assert fresh.verdict.startswith("No: "), fresh.verdict
    assert f"Stale: {', '.join(stale[:1])}" in fresh.verdict, fresh.verdict
