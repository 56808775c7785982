#!/usr/bin/env bash
# Runs freednn-bench's default set on the CPU the way docs/perf.md was made:
# a fixed thread count, waiting first until the machine is quiet (it is often
# shared), re-timing problems that other processes disturbed, and keeping the
# full log next to the summary table.
#
#   scripts/bench-cpu.sh [BUILD_DIR] [THREADS] [extra freednn-bench args...]
set -euo pipefail
build=${1:-build}
threads=${2:-2}
shift $(( $# > 2 ? 2 : $# )) || true
bench="$build/bench/freednn-bench"
[ -x "$bench" ] || { echo "no $bench: build first (make build)" >&2; exit 2; }

# Wait (up to 10 minutes) until the 1-minute load average is below 0.5.
for _ in $(seq 60); do
  load=$(cut -d' ' -f1 /proc/loadavg)
  awk -v l="$load" 'BEGIN { exit !(l < 0.5) }' && break
  echo "waiting for a quiet machine (load average $load)" >&2
  sleep 10
done

mkdir -p "$build/bench-results"
log="$build/bench-results/cpu-$(date +%Y%m%d-%H%M%S).txt"
FREEDNN_DEVICE=cpu "$bench" --default-set --threads="$threads" --max-load=0.25 "$@" | tee "$log"
echo "log: $log" >&2
