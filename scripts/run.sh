#!/usr/bin/env bash
# Sets everything up (idempotent), ingests the bundled demo catalog and starts the app.
#
#   bash scripts/run.sh [streamlit run options...]
#
# Every argument is passed through to `streamlit run` (e.g. --server.port 8600). ASOF_DB serves another catalog
# (a DuckDB file an `asof ingest` wrote, or s3://... for a replica; the demo is then not ingested) and
# ASOF_WAREHOUSE another warehouse to compute values on (the demo's is then not built).
set -euo pipefail
cd "$(dirname "$0")/.."
case "${1:-}" in
  -h|--help) sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
esac
source scripts/env.sh
bash scripts/setup.sh
# A replica of a catalog published to object storage (ASOF_DB=s3://...) reads it from there; see docs/deploy.md.
case "${ASOF_DB:-}" in
  s3://*) ;;
  "") .venv/bin/python -m core ingest data/demo --db data/build/demo.duckdb ;;
  *) if [ ! -f "$ASOF_DB" ]; then
       echo "ASOF_DB=$ASOF_DB: no catalog there; write one with: .venv/bin/python -m core ingest <catalog> --db $ASOF_DB" >&2
       exit 2
     fi
     echo "serving the catalog in ASOF_DB=$ASOF_DB (the demo is not ingested)" >&2 ;;
esac
# The demo warehouse metric values are computed on (deterministic, seeded; built once, a few seconds), unless
# ASOF_WAREHOUSE names another.
if [ -z "${ASOF_WAREHOUSE:-}" ]; then
  [ -f data/build/warehouse.duckdb ] || .venv/bin/python scripts/build_warehouse.py data/build/warehouse.duckdb
else
  echo "computing values on ASOF_WAREHOUSE=$ASOF_WAREHOUSE" >&2
fi
# Local only unless told otherwise (ASOF_HOST=0.0.0.0 to listen on every interface).
# FORWARDED_ALLOW_IPS='': the server reports the real TCP peer instead of an X-Forwarded-For value,
# which ASOF_AUTH=header needs to tell its trusted proxy from everyone else (see core/settings/auth.py).
export FORWARDED_ALLOW_IPS="${FORWARDED_ALLOW_IPS-}"
# ASOF_AUTH=header trusts the identity header only from ASOF_TRUSTED_PROXIES (none by default: refused from
# every address). Say at start-up which addresses are trusted, or why nobody can sign in.
.venv/bin/python -c 'import sys; from core.settings.auth import startup_notice; from core.settings.config import Settings
m = startup_notice(Settings.from_env().auth)
m and print(m, file=sys.stderr)'
if [ $# -gt 0 ]; then echo "passing to streamlit run: $*" >&2; fi
exec .venv/bin/streamlit run app.py --server.headless true --browser.gatherUsageStats false \
    --server.address "${ASOF_HOST:-127.0.0.1}" "$@"
