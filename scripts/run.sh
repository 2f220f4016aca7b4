#!/usr/bin/env bash
# Sets everything up (idempotent), ingests the bundled demo catalog and starts the app.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
bash scripts/setup.sh
.venv/bin/python -m core ingest data/demo --db data/build/demo.duckdb
exec .venv/bin/streamlit run app.py --server.headless true --browser.gatherUsageStats false "$@"
