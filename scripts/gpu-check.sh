#!/usr/bin/env bash
# GPU check of FreeDNN, run on a machine with an NVIDIA GPU from the repo root:
#   1. configures and builds the CUDA backend (Release, ninja, sm_90a only);
#   2. runs build-gpu/tests/freednn_tests on a GPU handle;
#   3. runs the differential programs of tests/oracle_gpu/ against our library
#      and against NVIDIA's cuDNN 9 (python3's nvidia.cudnn package) and
#      compares their outputs with tests/oracle_gpu/compare.py;
#   4. compares bandwidths (tests/oracle_gpu/bench_tensor_ops.c) of our calls,
#      NVIDIA's and a cudaMemcpy device-to-device copy;
#   5. prints a summary table last.
# Logs go to build-gpu/out; when $OUT is set (the device tool), the summary and
# a tarball of all logs are copied there at the end. See docs/gpu-check.md.
#
# Options (environment): BUILD=build-gpu  ARCHS=90a  JOBS=$(nproc)
#   GTEST_FILTER='*'  GTEST_SHARDS=8 (parallel gtest processes)  GTEST_TIMEOUT=330 (s, each)
#   SKIP_BUILD=1 (reuse the build)  SKIP_GTEST=1  SKIP_BENCH=1
#   KEEP_BUILD=1 (build incrementally; by default the build dir is wiped,
#   because the copied tree's file times can be older than a kept build's
#   objects, and ninja would then link stale objects)
#   ORACLE_ONLY='*pool*:*lrn*' (globs separated by ':': run only those programs
#   of tests/oracle_gpu, differential ones and bench_* ones alike)
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BUILD=${BUILD:-build-gpu}
# True when program $1 matches one of ORACLE_ONLY's ':'-separated globs.
oracle_selected() {
  local pattern patterns
  IFS=: read -r -a patterns <<<"${ORACLE_ONLY:-*}"
  for pattern in "${patterns[@]}"; do
    case "$1" in $pattern) return 0 ;; esac
  done
  return 1
}
ARCHS=${ARCHS:-90a}
JOBS=${JOBS:-$(nproc)}
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
OUTDIR=$BUILD/out
if [ "${SKIP_BUILD:-0}" != 1 ] && [ "${KEEP_BUILD:-0}" != 1 ]; then rm -rf "$BUILD"; fi
rm -rf "$OUTDIR"
mkdir -p "$OUTDIR"
SUMMARY=$OUTDIR/summary.txt
: >"$SUMMARY"
note() { echo "$*" | tee -a "$SUMMARY"; }
section() { echo; echo "=== $* ==="; }

section device
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.sm,clocks.mem --format=csv,noheader 2>&1 | tee "$OUTDIR/device.txt"
DEVICE=$(head -1 "$OUTDIR/device.txt" | cut -d, -f1)

# ---------------------------------------------------------------- GoogleTest
# The device image may have no GoogleTest: build it from the sources that
# travel with the tree (build-gpu-deps/googletest, a copy of /usr/src/googletest).
CMAKE_EXTRA=()
if [ ! -f /usr/include/gtest/gtest.h ] && [ ! -f /usr/local/include/gtest/gtest.h ]; then
  GT_PREFIX=/tmp/freednn-gtest
  if [ ! -f $GT_PREFIX/include/gtest/gtest.h ]; then
    GT_SRC=""
    for d in build-gpu-deps/googletest /usr/src/googletest; do [ -f "$d/CMakeLists.txt" ] && GT_SRC=$d && break; done
    if [ -n "$GT_SRC" ]; then
      section "building GoogleTest from $GT_SRC"
      cmake -S "$GT_SRC" -B /tmp/freednn-gtest-build -G Ninja -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_INSTALL_PREFIX=$GT_PREFIX -DCMAKE_POSITION_INDEPENDENT_CODE=ON >/dev/null &&
        cmake --build /tmp/freednn-gtest-build -j "$JOBS" >/dev/null &&
        cmake --install /tmp/freednn-gtest-build >/dev/null || echo "GoogleTest build failed"
    fi
  fi
  CMAKE_EXTRA+=(-DCMAKE_PREFIX_PATH=$GT_PREFIX)
fi

# ---------------------------------------------------------------- build
# The library first (the differential programs need only it), then the tests.
BUILD_OK=0
TESTS_OK=0
if [ "${SKIP_BUILD:-0}" = 1 ] && [ -f "$BUILD/libcudnn.so.9" ]; then
  BUILD_OK=1
  [ -f "$BUILD/tests/freednn_tests" ] && TESTS_OK=1
else
  section "configure + build ($BUILD, archs $ARCHS)"
  t0=$SECONDS
  if cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DFREEDNN_CUDA=ON -DFREEDNN_CUDA_ARCHS="$ARCHS" \
       -DFREEDNN_BENCH=OFF "${CMAKE_EXTRA[@]}" >"$OUTDIR/build.log" 2>&1 &&
     cmake --build "$BUILD" -j "$JOBS" --target cudnn >>"$OUTDIR/build.log" 2>&1; then
    BUILD_OK=1
    cmake --build "$BUILD" -j "$JOBS" --target freednn_tests >>"$OUTDIR/build.log" 2>&1 && TESTS_OK=1
  fi
  grep -E "error|FAILED" "$OUTDIR/build.log" | head -40
  echo "build took $((SECONDS - t0)) s"
fi
if [ $BUILD_OK = 1 ]; then note "build: library ok"; else note "build: library FAILED (see build.log)"; tail -30 "$OUTDIR/build.log"; fi
[ $BUILD_OK = 1 ] && [ $TESTS_OK = 0 ] && note "build: freednn_tests FAILED (see build.log)"
LIBDIR=$ROOT/$BUILD

# ---------------------------------------------------------------- gtest on the GPU handle
GTEST_RESULT="not run"
if [ $TESTS_OK = 1 ] && [ "${SKIP_GTEST:-0}" != 1 ]; then
  section "freednn_tests on the GPU handle"
  t0=$SECONDS
  # GTEST_SHARDS processes at once (gtest's own sharding: each takes every
  # n-th test), each with its share of the cores for the CPU-side float64
  # references, so that the whole suite fits one device call. No
  # FREEDNN_DEVICE: handles bind to the GPU and test buffers live on it.
  shards=${GTEST_SHARDS:-8}
  shard_threads=$(( $(nproc) / shards )); [ "$shard_threads" -ge 1 ] || shard_threads=1
  for ((i = 0; i < shards; i++)); do
    env -u FREEDNN_DEVICE GTEST_TOTAL_SHARDS=$shards GTEST_SHARD_INDEX=$i \
      FREEDNN_NUM_THREADS=${FREEDNN_NUM_THREADS:-$shard_threads} timeout "${GTEST_TIMEOUT:-330}" \
      "$BUILD/tests/freednn_tests" --gtest_filter="${GTEST_FILTER:-*}" >"$OUTDIR/gtest.$i.log" 2>&1 &
  done
  rc=0
  for ((i = 0; i < shards; i++)); do wait -n || rc=$?; done
  cat "$OUTDIR"/gtest.*.log >"$OUTDIR/gtest.log"
  passed=$(grep -c '^\[       OK \]' "$OUTDIR/gtest.log")
  skipped=$(grep '^\[  SKIPPED \]' "$OUTDIR/gtest.log" | grep -v 'listed below' | sed 's/ (.*//' | sort -u | grep -c .)
  failed_list=$(grep '^\[  FAILED  \]' "$OUTDIR/gtest.log" | grep -v 'listed below' | sed 's/^\[  FAILED  \] //; s/ (.*//' | sort -u)
  failed=$(printf '%s' "$failed_list" | grep -c . )
  # A shard cut off by its timeout leaves a test started and never ended.
  unfinished=$(for f in "$OUTDIR"/gtest.*.log; do
    awk '/^\[ RUN      \]/{t=$4} /^\[       OK \]|^\[  FAILED  \]|^\[  SKIPPED \]/{t=""} END{if (t != "") print t}' "$f"
  done)
  grep -E '^\[  FAILED  \]|Failure|error:' "$OUTDIR/gtest.log" | head -60
  echo "slowest tests:"
  grep -hE '^\[       OK \]' "$OUTDIR/gtest.log" | sed -E 's/.*\] ([^ ]+) \(([0-9]+) ms\)/\2 \1/' | sort -rn | head -8
  GTEST_RESULT="$passed passed, $failed failed, $skipped skipped ($shards shards, exit $rc, $((SECONDS - t0)) s)"
  note "gtest (GPU handle): $GTEST_RESULT"
  [ -n "$unfinished" ] && printf '%s\n' "$unfinished" | sed 's/^/  cut off by the timeout: /' | tee -a "$SUMMARY"
  [ -n "$failed_list" ] && printf '%s\n' "$failed_list" | head -30 | sed 's/^/  failed: /' | tee -a "$SUMMARY"
fi

# ---------------------------------------------------------------- NVIDIA's cuDNN
# nvidia.cudnn is a namespace package (no __file__): take its path.
NV_DIR=$(python3 -c 'import nvidia.cudnn; print(list(nvidia.cudnn.__path__)[0])' 2>/dev/null || true)
NV_LIBPATH=""
if [ -n "$NV_DIR" ] && [ -f "$NV_DIR/include/cudnn.h" ]; then
  NV_SITE=$(dirname "$NV_DIR")
  for d in "$NV_SITE"/*/lib; do NV_LIBPATH="$NV_LIBPATH${NV_LIBPATH:+:}$d"; done
  note "NVIDIA cuDNN: $NV_DIR ($(grep -E '#define CUDNN_(MAJOR|MINOR|PATCHLEVEL) ' "$NV_DIR/include/cudnn_version.h" | awk '{print $3}' | paste -sd.))"
else
  note "NVIDIA cuDNN: not found (pip package nvidia-cudnn)"
  NV_DIR=""
fi

# Builds tests/oracle_gpu/<prog>.c twice: <prog>_ours and <prog>_nvidia.
CFLAGS=(-O2 -std=c99 -D_POSIX_C_SOURCE=200809L -Wall -Wno-deprecated-declarations -Wno-unused-function)
ORACLE_BIN=$BUILD/oracle_gpu
mkdir -p "$ORACLE_BIN"
build_oracle() {
  local prog=$1 ok=0
  gcc "${CFLAGS[@]}" "tests/oracle_gpu/$prog.c" -Iinclude -I"$CUDA_HOME/include" -L"$LIBDIR" -l:libcudnn.so.9 \
    -L"$CUDA_HOME/lib64" -lcudart -lm -Wl,-rpath,"$LIBDIR" -o "$ORACLE_BIN/${prog}_ours" 2>>"$OUTDIR/oracle_build.log" || ok=1
  if [ -n "$NV_DIR" ]; then
    gcc "${CFLAGS[@]}" "tests/oracle_gpu/$prog.c" -I"$NV_DIR/include" -I"$CUDA_HOME/include" "$NV_DIR/lib/libcudnn.so.9" \
      -L"$CUDA_HOME/lib64" -lcudart -lm -Wl,-rpath,"$NV_DIR/lib" -o "$ORACLE_BIN/${prog}_nvidia" 2>>"$OUTDIR/oracle_build.log" || ok=1
  fi
  return $ok
}

# ---------------------------------------------------------------- differential programs
ORACLE_RESULT="not run"
if [ $BUILD_OK = 1 ]; then
  section "differential programs (tests/oracle_gpu) vs NVIDIA cuDNN"
  : >"$OUTDIR/oracle_build.log"
  : >"$OUTDIR/oracle.txt"
  for src in tests/oracle_gpu/*.c; do
    prog=$(basename "$src" .c)
    case "$prog" in bench_*) continue ;; esac
    oracle_selected "$prog" || continue
    if ! build_oracle "$prog"; then
      note "oracle $prog: build FAILED"; cat "$OUTDIR/oracle_build.log" | head -20; continue
    fi
    # Programs that answer --groups run one process per group: a crash in
    # either library then costs that group only.
    groups=$(env -u FREEDNN_DEVICE LD_LIBRARY_PATH="$LIBDIR:$CUDA_HOME/lib64" "$ORACLE_BIN/${prog}_ours" --groups 2>/dev/null)
    case "$groups" in ''|*[!0-9]*) group_args=("") ;; *) group_args=($(seq 0 $((groups - 1)))) ;; esac
    : >"$OUTDIR/${prog}.ours.txt"
    : >"$OUTDIR/${prog}.nvidia.txt"
    for g in "${group_args[@]}"; do
      timeout 120 env -u FREEDNN_DEVICE LD_LIBRARY_PATH="$LIBDIR:$CUDA_HOME/lib64" "$ORACLE_BIN/${prog}_ours" $g \
        >>"$OUTDIR/${prog}.ours.txt" 2>&1 || echo "ours exit $? (group $g)" | tee -a "$OUTDIR/${prog}.ours.txt"
      if [ -n "$NV_DIR" ]; then
        timeout 120 env LD_LIBRARY_PATH="$NV_LIBPATH:$CUDA_HOME/lib64" "$ORACLE_BIN/${prog}_nvidia" $g \
          >>"$OUTDIR/${prog}.nvidia.txt" 2>&1 || echo "nvidia exit $? (group $g)" | tee -a "$OUTDIR/${prog}.nvidia.txt"
      fi
    done
    if [ -n "$NV_DIR" ]; then
      python3 tests/oracle_gpu/compare.py "$OUTDIR/${prog}.ours.txt" "$OUTDIR/${prog}.nvidia.txt" \
        --report "$OUTDIR/${prog}.diff.txt" | tee -a "$OUTDIR/oracle.txt" | tail -40
      ORACLE_RESULT=$(tail -1 "$OUTDIR/${prog}.diff.txt")
      note "oracle $prog: $ORACLE_RESULT"
    else
      note "oracle $prog: ran ours only (no NVIDIA cuDNN)"
    fi
  done
fi

# ---------------------------------------------------------------- bandwidth
if [ $BUILD_OK = 1 ] && [ "${SKIP_BENCH:-0}" != 1 ]; then
  section "bandwidth: ours vs NVIDIA cuDNN vs cudaMemcpy"
  # Every tests/oracle_gpu/bench_*.c prints "bench <name> bytes= ms= gbs=" lines;
  # bench_tensor_ops also measures the cudaMemcpy ceiling the table divides by.
  : >"$OUTDIR/bench.ours.txt"
  : >"$OUTDIR/bench.nvidia.txt"
  for src in tests/oracle_gpu/bench_*.c; do
    prog=$(basename "$src" .c)
    [ "$prog" = bench_tensor_ops ] || oracle_selected "$prog" || continue
    if ! build_oracle "$prog"; then note "bench $prog: build FAILED"; continue; fi
    timeout 150 env -u FREEDNN_DEVICE LD_LIBRARY_PATH="$LIBDIR:$CUDA_HOME/lib64" "$ORACLE_BIN/${prog}_ours" \
      >>"$OUTDIR/bench.ours.txt" 2>&1
    [ -n "$NV_DIR" ] && timeout 150 env LD_LIBRARY_PATH="$NV_LIBPATH:$CUDA_HOME/lib64" \
      "$ORACLE_BIN/${prog}_nvidia" >>"$OUTDIR/bench.nvidia.txt" 2>&1
  done
  grep -v '^bench' "$OUTDIR/bench.ours.txt" | head -5
  python3 tests/oracle_gpu/bench_table.py "$OUTDIR/bench.ours.txt" "$OUTDIR/bench.nvidia.txt" >"$OUTDIR/bench_table.txt"
fi

# ---------------------------------------------------------------- summary
section "summary ($DEVICE)"
cat "$SUMMARY"
[ -f "$OUTDIR/bench_table.txt" ] && { echo; cat "$OUTDIR/bench_table.txt"; cat "$OUTDIR/bench_table.txt" >>"$SUMMARY"; }
if [ -n "${OUT:-}" ]; then
  cp "$SUMMARY" "$OUT/summary.txt"
  tar -czf "$OUT/gpu-check-logs.tar.gz" -C "$OUTDIR" . 2>/dev/null
fi
exit 0
