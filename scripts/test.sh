#!/usr/bin/env bash
# Sets everything up (idempotent) and runs the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
bash scripts/setup.sh
exec .venv/bin/python -m pytest "$@"
