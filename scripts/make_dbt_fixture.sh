#!/usr/bin/env bash
# Regenerate tests/fixtures/generated/acme-analytics: write the 1,000-model dbt project with
# scripts/gen_dbt_project.py, parse it with dbt-core + dbt-duckdb (`dbt parse`: no warehouse needed), and keep
# the artifacts AsOf reads, gzip-compressed. dbt lives in its own venv, never in the project's requirements:
#   python3 -m venv /tmp/dbtvenv && /tmp/dbtvenv/bin/pip install "dbt-core~=1.10.0" "dbt-duckdb~=1.10.0"
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
DBT="${DBT:-/tmp/dbtvenv/bin/dbt}"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
python3 "$ROOT/scripts/gen_dbt_project.py" "$WORK/acme"
(cd "$WORK/acme" && "$DBT" parse --profiles-dir . --no-partial-parse --quiet)
OUT="$ROOT/tests/fixtures/generated/acme-analytics"
mkdir -p "$OUT"
for f in manifest semantic_manifest; do
  gzip -9 -n -c "$WORK/acme/target/$f.json" > "$OUT/$f.json.gz"
done
"$DBT" --version | head -2 | tr -s ' ' > "$OUT/DBT_VERSION"
ls -la "$OUT"
