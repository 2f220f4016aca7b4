"""A dbt project's decisions go back to its governance overlay and Markdown pages: the real jaffle-shop artifacts
with a copy of its overlay, a model nobody may see, a draft page and a superseded page; the steward decides on all
three, the export is a patch against the overlay folder that `git apply` accepts, and the patched files, ingested,
read as carried."""
from __future__ import annotations

import shutil
import subprocess
from datetime import date

import yaml
from conftest import ROOT, cli

from core.answer.decide import Decider, Request, decide, read_queue
from core.catalog.store import Store
from core.ingest.decision_export import export_patch
from core.ingest.decision_file import read_records

TARGET = ROOT / "tests" / "fixtures" / "realworld" / "jaffle-shop"
STEWARD = Decider(role="governance", identity="demo picker")


def test_dbt_decisions_export_to_the_overlay_and_pages(tmp_path, embedder):
    repo = tmp_path / "repo"
    repo.mkdir()
    shutil.copytree(ROOT / "data" / "dbt" / "docs", repo / "docs")
    overlay = repo / "overlay.yml"
    text = (ROOT / "data" / "dbt" / "jaffle-shop.overlay.yml").read_text()
    # Nobody may see order_items: an empty-ACL item on a dbt model, under the key the overlay already has for it.
    overlay.write_text(text.replace("  model:order_items:\n", "  model:order_items:\n    acl: []\n"))
    db = tmp_path / "jaffle.duckdb"
    ingest = ("ingest", "--dbt", str(TARGET), "--overlay", str(overlay), "--db", str(db))
    assert cli(*ingest).returncode == 0
    store = Store(db)
    q = read_queue(store)
    store.close()
    by_kind = {(i.item.category, i.item.evidence_ids[0]): i for i in q.open}
    model = by_kind[("empty_acl", "model.jaffle_shop.order_items")]
    draft = next(i for k, i in by_kind.items() if k[0] == "draft_conflict")
    page = next(i for k, i in by_kind.items() if k[0] == "superseded_surfaced")
    for item, action, kw in ((model, "set_roles", {"roles": ["analyst", "governance"]}), (draft, "withdraw", {}),
                             (page, "expire", {"from_day": date(2026, 1, 1)})):
        decide(db, STEWARD, Request(item=item.id, action=action, reason="Data council, 3 Dec", **kw), embedder)
    patch = export_patch(db, date(2020, 1, 1), overlay)
    assert overlay.read_text().count("acl: []") == 1  # AsOf never edits their files
    (tmp_path / "d.patch").write_text(patch)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    done = subprocess.run(["git", "apply", "--check", str(tmp_path / "d.patch")], cwd=repo, capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stderr + patch
    subprocess.run(["git", "apply", str(tmp_path / "d.patch")], cwd=repo, check=True)
    objects = yaml.safe_load(overlay.read_text())["objects"]
    assert objects["model:order_items"]["acl"] == ["analyst", "governance"]  # the key they already had
    assert "model.jaffle_shop.order_items" not in objects
    assert "lifecycle: retired" in (repo / "docs" / "revenue-net-of-refunds-draft.md").read_text()
    assert "expires_at: 2026-01-01" in (repo / "docs" / "revenue-wiki-2024.md").read_text()
    r = cli(*ingest)
    assert r.returncode == 0, r.stderr
    check = read_records(db).checks[-1]
    assert len(check.carried) == 3 and not check.contradicted, r.stderr
