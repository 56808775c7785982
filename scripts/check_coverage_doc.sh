#!/usr/bin/env bash
# Fails when docs/coverage.md no longer matches the code (run `make coverage`).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tsv=$root/../shared/spec/functions.tsv
[ -f "$tsv" ] || { echo "spec not found at $tsv; skipping"; exit 0; }
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
python3 "$root/scripts/gen_coverage.py" "$tsv" --output "$tmp" >/dev/null
if ! diff -q "$tmp" "$root/docs/coverage.md" >/dev/null; then
  echo "docs/coverage.md is stale: run 'make coverage' and commit it"
  diff "$root/docs/coverage.md" "$tmp" | head -20
  exit 1
fi
echo "docs/coverage.md matches the code"
