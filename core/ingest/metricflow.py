"""dbt metric values computed by MetricFlow, dbt's own semantic-layer engine, never by SQL written here.

A dbt project with a semantic manifest and a DuckDB target is queried with `mf query` from the dbt toolchain's
own venv (`.venv-dbt`, see requirements-dbt.txt), as a subprocess: its pins (dbt-core, dbt-duckdb, MetricFlow)
are its own, and none of its imports enter AsOf's process. Every query runs in a scratch copy of the project's
`dbt_project.yml` beside the exact semantic manifest to use (the project's own, or one recorded at an earlier
ingest: core/ingest/semantic_history.py), so what was computed is pinned by that manifest's sha256, and the
user's project folder is never written to. The warehouse is the project's own target, read by MetricFlow.

This module checks its inputs and runs the engine; who may see a metric is decided before it is called
(core/answer/dbt_values.py).
"""
from __future__ import annotations

import contextlib
import csv
import fcntl
import hashlib
import json
import math
import os
import re
import shutil
import subprocess
import tempfile
import time
from datetime import date, datetime
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict

from core.ingest.load import CatalogError, file_below, read_text
from core.settings.config import Settings

Grain = Literal["day", "week", "month", "quarter", "year"]
GRAINS: tuple[str, ...] = ("day", "week", "month", "quarter", "year")
# A metric name goes on mf's command line: only dbt's own identifier shape, so it can never be read as an option.
NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,127}")
STDERR_TAIL = 1500


@contextlib.contextmanager
def _warehouse_lock(project: Path, timeout: float):
    """One mf query at a time per project, across threads and processes: dbt-duckdb opens the warehouse file
    for writing, and DuckDB gives that to one process at a time (a second `mf query` fails with "Could not set
    lock on file"). The lock file is in the temp folder, named by the project's path, never in the project."""
    path = Path(tempfile.gettempdir()) / f"asof-mf-{hashlib.sha256(str(project).encode()).hexdigest()[:16]}.lock"
    deadline = time.monotonic() + timeout
    with open(path, "a+") as fh:
        while True:
            try:
                fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise MetricFlowError(f"{project}: another mf query held the warehouse for {timeout:g} s "
                                          "(ASOF_MF_TIMEOUT)") from None
                time.sleep(0.05)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


class MetricFlowError(RuntimeError):
    """A query that could not be run or gave no usable result; the message names the project, metric and cause."""


class DbtToolsMissing(MetricFlowError):
    """The dbt toolchain venv is not there (scripts/setup.sh makes it)."""


class DbtTools(BaseModel):
    """Where the dbt toolchain lives and how long one command may take."""
    model_config = ConfigDict(frozen=True)
    venv: Path
    timeout_s: float = 180.0

    @classmethod
    def from_settings(cls, settings: Settings | None = None) -> "DbtTools":
        settings = settings or Settings.from_env()
        return cls(venv=settings.dbt_venv, timeout_s=settings.mf_timeout_s)

    def tool(self, name: Literal["dbt", "mf"]) -> Path:
        return self.venv / "bin" / name

    def missing(self) -> str | None:
        """Why the toolchain cannot run, or None when it can."""
        for name in ("dbt", "mf"):
            if not os.access(self.tool(name), os.X_OK):
                return (f"{self.tool(name)} is missing: the dbt toolchain venv ({self.venv}) is made by "
                        "scripts/setup.sh from requirements-dbt.txt (ASOF_DBT_VENV points elsewhere)")
        return None


class MetricValue(BaseModel):
    """One value of one metric: for a period starting on `period_start` at `grain`, or for the whole range."""
    model_config = ConfigDict(frozen=True)
    metric: str
    grain: Grain | None
    period_start: date | None
    value: float | None  # None: MetricFlow returned no value (a ratio over nothing, an empty period)


class MetricQuery(BaseModel):
    """One `mf query`: what was asked, with which semantic manifest, and what came back."""
    project: Path
    metric: str
    start: date
    end: date  # inclusive, as mf's --end-time
    grain: Grain | None
    manifest_sha256: str
    command: list[str]
    seconds: float
    rows: list[MetricValue]


def _project_dir(project: Path) -> Path:
    project = Path(project).resolve()
    if not (project / "dbt_project.yml").is_file():
        raise MetricFlowError(f"{project}: not a dbt project (no dbt_project.yml)")
    return project


def project_manifest(project: Path) -> str:
    """The project's current semantic manifest (target/semantic_manifest.json, written by `dbt parse`)."""
    project = _project_dir(project)
    # The rule of every file read inside a folder (core/ingest/load.py): no level below the project may be a link,
    # and what is read is the file that was found, even if target/ is swapped for a link in between.
    try:
        found = file_below(project, "target", "semantic_manifest.json")
        if found is None:
            raise MetricFlowError(f"{project / 'target' / 'semantic_manifest.json'}: missing; run `dbt parse` in "
                                  f"{project} first")
        return read_text(found, follow=False)
    except CatalogError as exc:
        raise MetricFlowError(str(exc)) from None


def manifest_metrics(manifest: str, where: str = "semantic_manifest.json") -> dict[str, dict]:
    """Metric name -> its definition, from a semantic manifest's text; a clear error names the file if unusable."""
    try:
        doc = json.loads(manifest)
    except ValueError as exc:
        raise MetricFlowError(f"{where}: not JSON ({exc})") from exc
    metrics = doc.get("metrics") if isinstance(doc, dict) else None
    if not isinstance(metrics, list):
        raise MetricFlowError(f"{where}: no `metrics` list; is this a dbt semantic manifest?")
    return {m["name"]: m for m in metrics if isinstance(m, dict) and isinstance(m.get("name"), str)}


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def profiles_dir(project: Path) -> Path:
    # dbt's own order: an explicit DBT_PROFILES_DIR, else profiles.yml in the project, else ~/.dbt.
    if os.environ.get("DBT_PROFILES_DIR"):
        return Path(os.environ["DBT_PROFILES_DIR"])
    return project if (project / "profiles.yml").is_file() else Path.home() / ".dbt"


def tool_env(project: Path, project_dir: Path | None = None) -> dict[str, str]:
    """The environment dbt and mf run in: the caller's (profiles may read env_var()), minus AsOf's venv, with
    usage tracking off and the project and profiles folders named."""
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME")}
    env.update(DBT_SEND_ANONYMOUS_USAGE_STATS="False", DO_NOT_TRACK="1", DBT_PROFILES_DIR=str(profiles_dir(project)),
               DBT_PROJECT_DIR=str(project_dir or project), PYTHONDONTWRITEBYTECODE="1")
    return env


def run_dbt(project: Path, args: list[str], tools: DbtTools | None = None) -> subprocess.CompletedProcess:
    """Run one dbt command in the project (build, seed, parse); raises MetricFlowError with dbt's output."""
    tools = tools or DbtTools.from_settings()
    if reason := tools.missing():
        raise DbtToolsMissing(reason)
    project = _project_dir(project)
    cmd = [str(tools.tool("dbt")), *args]
    done = _run(cmd, project, tool_env(project), tools.timeout_s, f"{project}: dbt {' '.join(args)}")
    return done


def _run(cmd: list[str], cwd: Path, env: dict, timeout: float, what: str) -> subprocess.CompletedProcess:
    try:
        done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout,
                              stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired as exc:
        raise MetricFlowError(f"{what}: no answer within {timeout:g} s (ASOF_MF_TIMEOUT)") from exc
    if done.returncode != 0:
        tail = (done.stderr.strip() or done.stdout.strip())[-STDERR_TAIL:]
        raise MetricFlowError(f"{what}: exit {done.returncode}: {tail}")
    return done


def _period(text: str) -> date:
    return datetime.fromisoformat(text.strip().replace(" ", "T")).date()


def _number(text: str, metric: str) -> float | None:
    text = text.strip()
    if text in ("", "None", "null", "NULL", "nan"):
        return None
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value):  # the answer says the value could not be computed, and why; it does not fail
        raise MetricFlowError(f"mf's value for {metric} is not a number")
    return value


def parse_csv(path: Path, metric: str, grain: str | None) -> list[MetricValue]:
    """mf's --csv output (a header, then one row per period) as values, in period order."""
    with open(path, newline="", encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    if not rows:
        raise MetricFlowError(f"{path}: mf wrote no CSV header for {metric}")
    header = [h.strip().lower() for h in rows[0]]
    if metric.lower() not in header:
        raise MetricFlowError(f"{path}: mf's CSV has no column {metric!r} (columns: {', '.join(header)})")
    at = header.index(metric.lower())
    time_col = next((i for i, h in enumerate(header) if h.startswith("metric_time")), None)
    if grain and time_col is None:
        raise MetricFlowError(f"{path}: mf's CSV has no metric_time column (columns: {', '.join(header)})")
    out = [MetricValue(metric=metric, grain=grain, period_start=_period(r[time_col]) if grain else None,
                       value=_number(r[at], metric)) for r in rows[1:] if r]
    return sorted(out, key=lambda v: v.period_start or date.min)


def check_request(metric: str, start: date, end: date, grain: str | None) -> None:
    if not NAME.fullmatch(metric or ""):
        raise MetricFlowError(f"metric {metric!r}: not a dbt metric name (letters, digits and _)")
    if grain is not None and grain not in GRAINS:
        raise MetricFlowError(f"grain {grain!r}: expected one of {', '.join(GRAINS)} or none")
    if start > end:
        raise MetricFlowError(f"period {start.isoformat()}..{end.isoformat()}: the start is after the end")


def query_metric(project: Path, metric: str, start: date, end: date, grain: Grain | None = "month", *,
                 manifest: str | None = None, tools: DbtTools | None = None) -> MetricQuery:
    """`metric` from `start` to `end` (both inclusive) per `grain` (None: one value for the whole range),
    computed by MetricFlow over the project's warehouse with `manifest` (default: the project's current
    semantic manifest)."""
    check_request(metric, start, end, grain)
    tools = tools or DbtTools.from_settings()
    if reason := tools.missing():
        raise DbtToolsMissing(reason)
    project = _project_dir(project)
    manifest = project_manifest(project) if manifest is None else manifest
    where = f"{project} (semantic manifest {sha256(manifest)[:12]})"
    if metric not in manifest_metrics(manifest, where):
        raise MetricFlowError(f"{where}: no metric {metric!r} in the semantic manifest")
    with tempfile.TemporaryDirectory(prefix="asof-mf-") as scratch:
        # mf reads <project dir>/target/semantic_manifest.json and the profile named in dbt_project.yml; this
        # scratch project gives it exactly the manifest asked for. cwd stays the real project, so a relative
        # DuckDB path in profiles.yml means what it means to dbt there.
        shadow = Path(scratch) / "project"
        (shadow / "target").mkdir(parents=True)
        shutil.copy2(project / "dbt_project.yml", shadow / "dbt_project.yml")
        (shadow / "target" / "semantic_manifest.json").write_text(manifest, encoding="utf-8")
        out = Path(scratch) / "values.csv"
        args = ["query", "--metrics", metric, "--start-time", start.isoformat(), "--end-time", end.isoformat()]
        if grain:
            args += ["--group-by", f"metric_time__{grain}", "--order", f"metric_time__{grain}"]
        cmd = [str(tools.tool("mf")), *args, "--csv", str(out), "--quiet"]
        with _warehouse_lock(project, tools.timeout_s):
            began = time.perf_counter()
            _run(cmd, project, tool_env(project, shadow), tools.timeout_s, f"{where}: mf query {metric}")
            seconds = time.perf_counter() - began
        if not out.is_file():
            raise MetricFlowError(f"{where}: mf query {metric} wrote no CSV")
        rows = parse_csv(out, metric, grain)
    return MetricQuery(project=project, metric=metric, start=start, end=end, grain=grain,
                       manifest_sha256=sha256(manifest), command=["mf", *args],
                       seconds=round(seconds, 3), rows=rows)


def metric_values(project: Path, metric: str, start: date, end: date, grain: Grain | None = "month", *,
                  manifest: str | None = None, tools: DbtTools | None = None) -> list[MetricValue]:
    """The values alone (see query_metric for the manifest hash and the command that produced them)."""
    return query_metric(project, metric, start, end, grain, manifest=manifest, tools=tools).rows
