#!/usr/bin/env bash
# Sets everything up (idempotent) and runs the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
bash scripts/setup.sh
# The layout cannot rot: stages import only the stages below them, with no circles (pyproject's
# [tool.importlinter]); and the code stays as ruff is configured there.
.venv/bin/lint-imports
.venv/bin/ruff check .
# One worker per core, a test file at a time on one worker (its module fixtures built once); pass `-n 0` to run
# in this process, e.g. under a debugger.
exec .venv/bin/python -m pytest -n auto --dist loadfile "$@"
