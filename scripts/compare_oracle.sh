#!/usr/bin/env bash
# Runs one differential program against FreeDNN and against NVIDIA's cuDNN and
# compares what they print. Lines starting with '#' are informational and not
# compared (messages differ by design); every other line must be identical.
set -euo pipefail
ours=$1 theirs=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
FREEDNN_DEVICE=${FREEDNN_DEVICE:-cpu} "$ours" >"$tmp/ours.txt"
"$theirs" >"$tmp/theirs.txt"
if ! diff <(grep -v '^#' "$tmp/ours.txt") <(grep -v '^#' "$tmp/theirs.txt") >"$tmp/diff.txt"; then
  echo "FreeDNN and NVIDIA cuDNN disagree ($(basename "$ours")):"
  head -50 "$tmp/diff.txt"
  exit 1
fi
echo "agree: $(grep -vc '^#' "$tmp/ours.txt") lines"
