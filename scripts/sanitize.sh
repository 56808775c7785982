#!/usr/bin/env bash
# Builds FreeDNN's tests with sanitizers (CPU backend only) and runs them.
#
#   scripts/sanitize.sh thread  [gtest filter]  ThreadSanitizer, build-tsan,
#                                               the concurrency-related suites
#   scripts/sanitize.sh address [gtest filter]  AddressSanitizer + UBSan,
#                                               build-asan, the whole suite
#
# Any sanitizer report fails the run (exit status != 0).
set -euo pipefail

mode=${1:-}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
jobs=${JOBS:-$(nproc)}

case "$mode" in
  thread)
    build="$root/build-tsan"
    sanitize="thread"
    # Every suite that starts threads or touches process-wide state.
    filter=${2:-'Threads*:ThreadPool*:LastError*:Logging*:LoggingEnvironment*:Handle*'}
    ;;
  address)
    build="$root/build-asan"
    sanitize="address;undefined"
    filter=${2:-'*'}
    ;;
  *)
    echo "usage: $0 thread|address [gtest filter]" >&2
    exit 2
    ;;
esac

cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFREEDNN_CUDA=OFF \
  -DFREEDNN_BENCH=OFF "-DFREEDNN_SANITIZE=$sanitize" >/dev/null
cmake --build "$build" -j "$jobs" --target freednn_tests freednn_thread_pool_test

export FREEDNN_DEVICE=cpu
# Several pool workers even on a small machine, so that races can show.
export FREEDNN_NUM_THREADS=${FREEDNN_NUM_THREADS:-4}
# Sanitizer reports end the process with a failure status; UBSan included.
export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:${TSAN_OPTIONS:-}"
export ASAN_OPTIONS="abort_on_error=0:detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1:${ASAN_OPTIONS:-}"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:${UBSAN_OPTIONS:-}"

status=0
echo "== $mode: freednn_thread_pool_test"
"$build/tests/freednn_thread_pool_test" --gtest_brief=1 || status=1
echo "== $mode: freednn_tests --gtest_filter=$filter"
"$build/tests/freednn_tests" --gtest_brief=1 "--gtest_filter=$filter" || status=1

if ((status)); then
  echo "sanitize.sh $mode: FAILED" >&2
else
  echo "sanitize.sh $mode: clean"
fi
exit $status
