"""When vector search uses an approximate (ANN) index, and how it is built and queried.

Below ANN_MIN_ROWS a flat (exact) scan of the role's rows is fast enough and exact, so no vector index is
built. From there on the index gets an IVF_FLAT vector index (cosine): the rows are clustered into partitions
and a question scans the nearest nprobes() partitions with full vectors. From RQ_MIN_ROWS the partitions keep
RaBitQ codes of the vectors instead (IVF_RQ, 5 bits a dimension) and the search re-scores REFINE_FACTOR times the
rows it returns with their full vectors (`kind`, `refine_factor`). IVF_HNSW_SQ was measured beside IVF_FLAT on
the 178k rows of the synthetic 100k catalog (2 cores, under load): 212 s to build against 4.5 s, and a search
with the role's pre-filter at p50 33 ms against 18 ms, with no recall to gain over exact distances inside the
probed partitions. Queries keep the permission filter
exact: LanceDB applies `where(..., prefilter=True)` before the ANN search, so a row the role may not see is
never a candidate (stack-notes section 4; tests/retrieve/test_ann.py compares every role's visible sets
with the flat search). What ANN may lose is recall, measured against the flat search on the retrieval suites
(benchmarks/ann_recall.py, benchmarks/bench.py).
"""
from __future__ import annotations

import math
import shutil
from pathlib import Path

VECTOR_COLUMN = "vector"
# Chunk rows, not objects (about 1.8 chunks per object on the synthetic catalogs). The flat scan with the
# role's pre-filter grows linearly with rows (stack-notes section 4: ~11 ms at 10k rows, ~62 ms at 100k) while
# the ANN search stays near 7-10 ms; from 10k rows the index is the faster of the two, below it flat is exact
# and as fast.
ANN_MIN_ROWS = 10_000
# IVF partitions: about the square root of the rows (LanceDB's own default; 422 for the 178,260 rows of the 100k
# benchmark catalog), and a search probes PROBE_SHARE of them. Measured on that catalog (topical texts, every
# role's pre-filter, benchmarks/results/ann_sweep.md): recall@10 against flat rises with the share of rows
# scanned, and finer partitions need a smaller share for the same recall (22 partitions, 8 probed: 0.90;
# 422 partitions, 190 probed: 0.997, and the search as fast). Coarser layouts need a larger share: the catalogs of
# 10k-65k rows get 39-255 partitions, and there 45% fell short where 60% held: 69 partitions of the 10k catalog's
# 17,828 rows 0.961 against 0.992, 208 of the 30k catalog's 53,488 rows 0.980 against 0.998, 128 of the 100k's
# 0.98 against 0.996 (benchmarks/results/ann_sweep.md; ann_sweep_10k.md and ann_sweep_30k.md in git at 7f473c9).
# 60% is not enough either: k-means differs between builds, and another ingest of the same 10k catalog gave 0.984
# at 60% (benchmarks/results/scale_memory.md in git at 7f473c9); 75% gave 0.9995 on both the 10k and the 30k sweeps. A catalog this size
# scans at most ~50k rows, so the larger share costs a few ms.
PROBE_SHARE = 0.45
COARSE_PARTITIONS = 256
COARSE_PROBE_SHARE = 0.75


def wants_ann(rows: int, min_rows: int = ANN_MIN_ROWS) -> bool:
    return rows >= min_rows


# From this many rows the partitions hold RaBitQ codes (IVF_RQ). A probed partition's rows are scanned whatever the
# kind: at the 1M catalog's 1.78M rows the 45% probed are ~800k vectors a question, 1.2 GB of full vectors read. With
# 5-bit codes and 10 x k candidates re-scored with their full vectors, the role-filtered vector query alone took p50 /
# p95 41.4 / 63.9 ms against 72.6 / 111.1 (load ~4; 38.6 / 73.1 against 104.0 / 430.2 at load ~7), and found the flat
# top 10 at least as often (hash vectors, counting equal distances as found: 1.0 against 0.999); at the 494k rows of
# a part of that table 15.9 / 22.3 against 22.8 / 27.8 ms; at the 100k catalog's 178k rows no faster (18.1 / 42.2
# against 16.9 / 43.2), so the threshold sits between. The index is a sixth of IVF_FLAT's size (454 MB against 2.6 GB
# at 1M), and its segmented build peaked 725 MB above the process. IVF_PQ and IVF_SQ were slower than IVF_RQ at the
# same recall (Lance scores PQ codes 4-7 times slower under a pre-filter than without one). benchmarks/ann_kinds.py,
# benchmarks/results/ann_kinds_*.md, docs/scale.md "Vector index kinds at a million".
RQ_MIN_ROWS = 400_000
RQ_BITS = 5
# Candidates re-scored with full vectors, as a multiple of k: the distances a hit carries are then exact (an entity's
# vector score is compared across searches, core/catalog/entities.py) and RaBitQ's order only picks the candidates.
# At 1M, 45% probed: 4 x k found 0.972 of the flat top 10 for the table's own rows as queries, 10 x k 0.996 (questions
# 0.984 and 0.992), for 5 ms more. The probe share stays PROBE_SHARE: 25% probed fell to 0.991 (equal distances
# counted as found) where IVF_FLAT at 45% found 0.999.
REFINE_FACTOR = 10


def kind(rows: int) -> str:
    """The vector index kind for a table of `rows` rows."""
    return "IVF_RQ" if rows >= RQ_MIN_ROWS else "IVF_FLAT"


def refine_factor(index_type: str | None) -> int | None:
    """How many times k candidates a search of an index of this kind re-scores with full vectors (None: none, its
    distances are exact already)."""
    return REFINE_FACTOR if index_type == "IVF_RQ" else None


# Fewer, larger partitions below ~65k rows: k-means wants a few hundred vectors a centroid, and a partition of a
# few dozen rows is noise (a catalog forced onto the index, as tests/retrieve/test_ann.py does, stays one partition).
MIN_PARTITION_ROWS = 256


def partitions(rows: int) -> int:
    """IVF partitions for `rows` vectors: about sqrt(rows), none smaller than MIN_PARTITION_ROWS, at least one."""
    return max(1, min(round(math.sqrt(rows)), rows // MIN_PARTITION_ROWS))


def nprobes(trained_partitions: int) -> int:
    """Partitions a search probes in an index trained with `trained_partitions` (read from the index itself,
    `trained_partitions` below): the share holds whatever size the index was trained at."""
    share = COARSE_PROBE_SHARE if trained_partitions < COARSE_PARTITIONS else PROBE_SHARE
    return max(1, math.ceil(share * trained_partitions))


def trained_partitions(stats: dict) -> int:
    """The IVF partition count of a vector index, from its statistics (pylance `ds.stats.index_stats`, LanceDB
    `table.index_stats`'s raw dict): the largest of its segments (a delta index keeps its parent's layout).
    Read with LANCE_INCLUDE_VECTOR_CENTROIDS=false (core/settings/config.py): with the centroids the statistics
    of the 100k benchmark's index are 7 MB and take half a second, without them 14 kB and 16 ms."""
    parts = [seg.get("num_partitions") or 0 for seg in stats.get("segments") or stats.get("indices") or []]
    return max([p for p in parts if p] or [1])


# Rows of a shuffle partition while the IVF index sorts the vectors into its partitions, in Lance batches (1,024 rows):
# Lance's default (10,240 batches, ten million rows) keeps a large catalog's vectors in memory at once. Built with
# 16 (16k rows), one at a time, the build's peak memory grew by 54 MB from 178k to 534k rows where it had grown by
# 300 MB, at the same CPU (one-off script, random clustered vectors, docs/scale.md "Bounded memory").
SHUFFLE_BATCHES = 16


# Above this many rows the index is built in segments of about this many rows each (whole fragments), every segment
# assigning its rows to the same centroids, trained once on a sample, and the segments merged into one index. Built
# whole, the 1M catalog's index (1,782,697 rows) added 1.3-1.7 GB to the process's peak; in segments of 250k rows
# about 1.0 GB, and segments of 100k rows no less (one-off rebuilds, docs/scale.md "A million, 6 December (evening)").
SEGMENT_ROWS = 250_000
# Vectors a partition sampled to train the shared centroids (85k of them, 131 MB, for the 1,335 partitions of 1.78M
# rows), a quarter of Lance's default: recall@10 against flat 0.917-0.918 in two segmented builds of the hash-vector
# 1M catalog against 0.923 built whole by Lance (60 queries), and 200 of 200 answers the same as flat.
TRAIN_PER_PARTITION = 64


def create(table, rows: int) -> None:
    """Train and write the vector index of `table` (a LanceDB table, `kind(rows)`) through Lance itself, whose index
    builder takes the shuffle settings LanceDB's does not pass on; the table is then moved to the version that
    holds it."""
    dataset = table.to_lance()
    _give_back_memory()
    if rows <= SEGMENT_ROWS:
        dataset.create_index(VECTOR_COLUMN, index_type=kind(rows), metric="cosine",
                             num_partitions=partitions(rows), shuffle_partition_batches=SHUFFLE_BATCHES,
                             shuffle_partition_concurrency=1, replace=True, **_quantizer(dataset, rows))
    else:
        _create_in_segments(dataset, rows)
    table.checkout_latest()


def _quantizer(dataset, rows: int) -> dict:
    """The build arguments of `kind(rows)`'s codes: for IVF_RQ one RaBitQ rotation, which every segment of a
    segmented build must share for their codes to be comparable once merged."""
    if kind(rows) != "IVF_RQ":
        return {}
    from lance.lance import indices
    dim = dataset.schema.field(VECTOR_COLUMN).type.list_size
    return {"rabitq_model": indices.build_rq_model(dimension=dim, num_bits=RQ_BITS)}


def _create_in_segments(dataset, rows: int) -> None:
    import lance
    import numpy as np
    from lance.util import KMeans

    count = partitions(rows)
    sample = dataset.sample(min(rows, count * TRAIN_PER_PARTITION), columns=[VECTOR_COLUMN])
    sample = sample.column(VECTOR_COLUMN).combine_chunks()
    vectors = sample.values.to_numpy().reshape(len(sample), -1)
    # Lance's k-means has no cosine: on unit vectors (every embedder's, core/retrieve/embed.py) L2 orders the same.
    vectors = vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
    kmeans = KMeans(count, metric_type="l2", max_iters=50)
    kmeans.fit(vectors)
    centroids = kmeans.centroids
    del sample, vectors, kmeans
    quantizer = _quantizer(dataset, rows)
    uri, segments, committed = dataset.uri, [], None
    try:
        for group in _fragment_groups(dataset, SEGMENT_ROWS):
            _give_back_memory()
            # A dataset opened afresh for each segment: the one before keeps what it read cached.
            segments.append(lance.dataset(uri, version=dataset.version).create_index_uncommitted(
                VECTOR_COLUMN, kind(rows), metric="cosine", num_partitions=count, ivf_centroids=centroids,
                fragment_ids=group, shuffle_partition_batches=SHUFFLE_BATCHES, shuffle_partition_concurrency=1,
                replace=True, **quantizer))
        merged = dataset.merge_existing_index_segments(segments) if len(segments) > 1 else segments[0]
        segments.append(merged)
        current = next((ix["name"] for ix in dataset.list_indices() if VECTOR_COLUMN in ix["fields"]), None)
        if current is not None:
            dataset.drop_index(current)
        lance.dataset(uri).commit_existing_index_segments(f"{VECTOR_COLUMN}_idx", VECTOR_COLUMN, [merged])
        committed = merged.uuid
    finally:
        # A segment merged into another, or never committed, is in no version's manifest, and nothing would ever
        # remove its files (the 1M catalog's seven segments: 2.6 GB beside the merged index).
        for segment in segments:
            if segment.uuid != committed:
                shutil.rmtree(Path(uri) / "_indices" / segment.uuid, ignore_errors=True)
    _give_back_memory()


def _fragment_groups(dataset, rows: int) -> list[list[int]]:
    """The dataset's fragments in runs of at least `rows` rows each (the last may be smaller)."""
    groups, run, held = [], [], 0
    for fragment in dataset.get_fragments():
        run.append(fragment.fragment_id)
        held += fragment.count_rows()
        if held >= rows:
            groups.append(run)
            run, held = [], 0
    return groups + [run] if run else groups


def _give_back_memory() -> None:
    """Return the freed memory of the steps before to the system: Arrow's pool and the C allocator keep it otherwise,
    and an index build's peak comes on top of whatever they hold (measured in a 1M ingest: 980 MB resident when the
    build started, 820 of it before the scalar indexes were built)."""
    import ctypes

    import pyarrow as pa
    pa.default_memory_pool().release_unused()
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):  # not glibc: nothing to trim
        pass


# A re-ingest that added or changed more than this share of rows retrains the index; fewer are found by
# LanceDB's exact scan of unindexed rows, which is cheap while they are few.
RETRAIN_SHARE = 0.1


# A re-ingest also retrains an index whose partition count is this far from what its present size wants (a
# catalog that shrank or grew a lot, or an index from before the layout changed): a probe share fit for one
# layout is not for another (benchmarks/results/ann_sweep.md).
RETRAIN_LAYOUT = 0.25


def _vector_index(table):
    return next((ix for ix in table.list_indices() if VECTOR_COLUMN in ix.columns), None)


def has_vector_index(table) -> bool:
    return _vector_index(table) is not None


def build(table, min_rows: int = ANN_MIN_ROWS) -> bool:
    """Build the vector index when the table is large enough (again when many rows are not in it), or
    drop it below the threshold (a catalog that shrank goes back to exact search). True when the table
    has a vector index afterwards."""
    rows = table.count_rows()
    current = _vector_index(table)
    if not wants_ann(rows, min_rows):
        if current is not None:
            table.drop_index(current.name)
        return False
    if current is not None:
        stats = table.index_stats(current.name)
        wanted = partitions(rows)
        lance_stats = table.to_lance().stats.index_stats(current.name)
        trained = trained_partitions(lance_stats)
        # An index of the other kind (a catalog that crossed RQ_MIN_ROWS, or one built before the kinds) is retrained.
        if (stats.num_unindexed_rows <= RETRAIN_SHARE * rows and abs(trained - wanted) <= RETRAIN_LAYOUT * wanted
                and lance_stats.get("index_type") == kind(rows)):
            return True
    create(table, rows)
    return True
