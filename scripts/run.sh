#!/usr/bin/env bash
# Sets everything up (idempotent), ingests the bundled demo catalog and starts the app.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
bash scripts/setup.sh
# A replica of a catalog published to object storage (ASOF_DB=s3://...) reads it from there; see docs/deploy.md.
case "${ASOF_DB:-}" in
  s3://*) ;;
  *) .venv/bin/python -m core ingest data/demo --db data/build/demo.duckdb ;;
esac
# The demo warehouse metric values are computed on (deterministic, seeded; built once, a few seconds).
[ -f data/build/warehouse.duckdb ] || .venv/bin/python scripts/build_warehouse.py data/build/warehouse.duckdb
# Local only unless told otherwise (ASOF_HOST=0.0.0.0 to listen on every interface).
# FORWARDED_ALLOW_IPS='': the server reports the real TCP peer instead of an X-Forwarded-For value,
# which ASOF_AUTH=header needs to tell its trusted proxy from everyone else (see core/settings/auth.py).
export FORWARDED_ALLOW_IPS="${FORWARDED_ALLOW_IPS-}"
# ASOF_AUTH=header trusts the identity header only from ASOF_TRUSTED_PROXIES (none by default: refused from
# every address). Say at start-up which addresses are trusted, or why nobody can sign in.
.venv/bin/python -c 'import sys; from core.settings.auth import startup_notice; from core.settings.config import Settings
m = startup_notice(Settings.from_env().auth)
m and print(m, file=sys.stderr)'
exec .venv/bin/streamlit run app.py --server.headless true --browser.gatherUsageStats false \
    --server.address "${ASOF_HOST:-127.0.0.1}" "$@"
