"""`asof ingest --ray ADDRESS` against a real local Ray cluster the test starts (a head and a second worker process,
one CPU each): the cluster chunks and embeds, and the index holds the vectors and gives the answers a local
ingest does."""
from __future__ import annotations

import json
import os
from datetime import date
from pathlib import Path

import lancedb
import numpy as np
import pytest
from conftest import cli

from core.answer.ask import Question, ask
from core.catalog.store import Store
from core.retrieve.index import index_path
from core.retrieve.search import Searcher

if os.environ.get("CI") != "true":
    pytest.importorskip("ray")

ROLES = [{"name": "dispatcher"}, {"name": "auditor"}]
ASKED = [("What does on-time departures mean?", "dispatcher"), ("How is fuel burn per trip defined?", "auditor"),
         ("What does the depot handbook say about late buses?", "dispatcher"),
         ("What is the on-time departures rate for 2025-03-31?", "auditor")]


def _catalog(folder: Path) -> Path:
    both = ["dispatcher", "auditor"]
    evidence = [
        {"evidence_id": "metric.on_time_departures.v1", "entity_id": "metric.on_time_departures",
         "kind": "metric_definition", "title": "On-time departures", "version": "1", "authority": "authoritative",
         "lifecycle": "current", "acl": both, "valid_from": "2024-01-01", "aliases": ["punctuality"],
         "text": "Share of scheduled departures that left the depot within three minutes of the timetable.",
         "metric": {"formula": "COUNT(on_time) / COUNT(departures)", "grain": "one row per departure"}},
        {"evidence_id": "metric.fuel_burn.v1", "entity_id": "metric.fuel_burn", "kind": "metric_definition",
         "title": "Fuel burn per trip", "version": "1", "authority": "authoritative", "lifecycle": "current",
         "acl": ["auditor"], "valid_from": "2024-01-01",
         "text": "Litres of diesel drawn at the pump divided by completed trips, per bus.",
         "metric": {"formula": "SUM(litres) / COUNT(trips)", "grain": "one row per bus per day"}},
        {"evidence_id": "doc.depot_handbook", "entity_id": "doc.depot_handbook", "kind": "documentation",
         "title": "Depot handbook", "authority": "non_authoritative", "lifecycle": "current", "acl": both,
         "text": " ".join(f"Rule {n}: a bus that leaves more than {n + 3} minutes late is logged by the yard "
                          f"supervisor and counted against route {n}." for n in range(30))},
        {"evidence_id": "note.dispatch_chat", "entity_id": "metric.on_time_departures", "kind": "note",
         "title": "Dispatch chat export", "authority": "untrusted", "lifecycle": "current", "acl": ["dispatcher"],
         "text": "Someone said punctuality should allow five minutes. Nobody agreed."},
    ]
    path = folder / "depot.json"
    path.write_text(json.dumps({"roles": ROLES, "evidence": evidence}))
    return path


@pytest.fixture(scope="module")
def ray_cluster():
    """A head and a second worker node, one CPU each, started by Ray's own multi-node test harness (the raylets
    are real processes; only their machine is shared) and shut down at the end."""
    from ray.cluster_utils import Cluster

    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False})
    try:
        cluster.add_node(num_cpus=1)
        cluster.wait_for_nodes(timeout=120)
        yield cluster.address
    finally:
        cluster.shutdown()


def _rows(db: Path) -> dict[str, tuple[str, np.ndarray]]:
    data = lancedb.connect(str(index_path(db))).open_table("chunks").to_arrow()
    return {c: (t, np.asarray(v, dtype=np.float32)) for c, t, v in zip(
        data["chunk_id"].to_pylist(), data["text"].to_pylist(), data["vector"].to_pylist())}


def _answers(db: Path, embedder) -> list[tuple]:
    store = Store(db)
    searcher = Searcher(store, embedder)
    try:
        out = []
        for text, role in ASKED:
            env = ask(store, Question(role=role, text=text, day=date(2025, 3, 31)), searcher=searcher)
            out.append((env.behavior, [e.evidence_id for e in env.selected], [h.evidence_id for h in env.conflicts]))
        return out
    finally:
        store.close()


def test_ray_ingest_writes_the_vectors_and_answers_of_a_local_one(tmp_path, ray_cluster, embedder):
    catalog = _catalog(tmp_path)
    local, remote = tmp_path / "local.duckdb", tmp_path / "ray.duckdb"
    assert cli("ingest", str(catalog), "--db", str(local)).returncode == 0
    r = cli("ingest", str(catalog), "--db", str(remote), "--ray", ray_cluster, "--ray-workers", "2")
    assert r.returncode == 0, r.stderr
    want, got = _rows(local), _rows(remote)
    assert f"{len(want)} chunks, {len(want)} embedded" in r.stdout, r.stdout  # every chunk embedded on the cluster
    assert sorted(got) == sorted(want) and len(got) > len(ASKED)
    for chunk_id, (text, vector) in want.items():
        assert got[chunk_id][0] == text
        assert float(np.dot(vector, got[chunk_id][1])) >= 0.9999, chunk_id
    assert _answers(remote, embedder) == _answers(local, embedder)
