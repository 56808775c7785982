// The correctness check of one problem runs in a child process of the bench
// itself (`freednn-bench --internal-check ...`) started with FREEDNN_VERBOSE=1:
// the library reads that variable once per process, so this is how the check
// learns which engine ran while the timed runs in the parent stay free of
// logging. A crash in the check is reported instead of ending the run.
#pragma once

#include <string>

#include "cli.hpp"
#include "problem.hpp"

namespace bench {

struct CheckOutcome {
  // PASSED, FAILED, UNIMPLEMENTED (the library said NOT_SUPPORTED), ERROR
  // (another status or a bench error), CRASHED (the child died).
  std::string status;
  std::string detail;
  std::string engine;  // from the library's verbose lines; several joined by '+'
  std::string device;  // "cpu", "cuda:0", ...
  std::string output;  // everything the child printed, for failures
};

CheckOutcome check_in_child(const Config &cfg, const Problem &p);

// The child's side: checks the problem in this process and prints the result
// line the parent parses. Returns the exit code.
int run_internal_check(const Config &cfg);

// The protocol line's prefix.
constexpr const char *kCheckLinePrefix = "freednn_bench_check,";

}  // namespace bench
