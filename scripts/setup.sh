#!/usr/bin/env bash
# Creates .venv in the repository root and installs the pinned stack, then AsOf itself with its `test`
# extra (pytest, hypothesis, playwright, ruff) and the `asof` command, and .venv-dbt (dbt + MetricFlow). Idempotent: a stamp holding the
# hash of requirements.txt and pyproject.toml skips pip when nothing changed.
set -euo pipefail
cd "$(dirname "$0")/.."
# Debian's Chromium for the browser tests (Playwright drives it; never `playwright install`), and Debian's
# nginx, the load balancer in front of the app replicas in tests/app/test_replicas.py.
need=()
[ -x /usr/bin/chromium ] || [ "${ASOF_SKIP_BROWSER:-0}" = "1" ] || need+=(chromium)
[ -x /usr/sbin/nginx ] || need+=(nginx-light)
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" = "0" ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
  else
    echo "note: ${need[*]} missing and this is not root; the tests that need them will be skipped" >&2
  fi
fi
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
stamp=.venv/.asof-requirements.sha
want=$(sha256sum requirements.txt pyproject.toml | sha256sum | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  # torch alone first, so nothing else can resolve it to a CUDA build.
  .venv/bin/pip install --quiet torch==2.13.0
  .venv/bin/pip install --quiet -r requirements.txt
  .venv/bin/pip install --quiet -e '.[test]'
  echo "$want" > "$stamp"
fi
# The dbt toolchain (dbt-core, dbt-duckdb, dbt-metricflow) in its own venv: AsOf runs `dbt` and `mf` from it as
# subprocesses to compute dbt metric values (core/ingest/metricflow.py). Separate because its pins are its own
# (requirements-dbt.txt); same stamp scheme as .venv. ASOF_SKIP_DBT=1 skips it (those tests then say why they skip;
# under CI=true they fail instead).
if [ "${ASOF_SKIP_DBT:-0}" != "1" ]; then
  if [ ! -x .venv-dbt/bin/python ]; then
    "$PY" -m venv .venv-dbt
  fi
  dbt_stamp=.venv-dbt/.asof-requirements.sha
  dbt_want=$(sha256sum requirements-dbt.txt | cut -d' ' -f1)
  if [ "$(cat "$dbt_stamp" 2>/dev/null)" != "$dbt_want" ]; then
    .venv-dbt/bin/pip install --quiet -r requirements-dbt.txt
    echo "$dbt_want" > "$dbt_stamp"
  fi
fi
# The official MCP TypeScript SDK, a second MCP client from another implementation for tests/serve/test_mcp_dbt.py:
# `npm ci` from the committed lock file, re-run only when that file changes. Without node the test says why it skips.
if command -v npm >/dev/null 2>&1; then
  node_stamp=tests/mcp_node/node_modules/.asof-lock.sha
  node_want=$(sha256sum tests/mcp_node/package-lock.json | cut -d' ' -f1)
  if [ "$(cat "$node_stamp" 2>/dev/null)" != "$node_want" ]; then
    (cd tests/mcp_node && npm ci --no-audit --no-fund --silent)
    echo "$node_want" > "$node_stamp"
  fi
else
  echo "note: node/npm missing; the MCP TypeScript SDK client test will be skipped" >&2
fi
# The embedding model on ONNX Runtime (core/retrieve/onnx_embed.py): exported once from the packaged weights, cached
# under data/build/models, so neither ingest nor a cold answer imports torch for it.
.venv/bin/python -m core.retrieve.onnx_embed >/dev/null
