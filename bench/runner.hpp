// Runs one problem the way the mode asks (check in a child, then timing and
// the oneDNN peer in this process) and prints its lines as it goes.
#pragma once

#include <cudnn.h>

#include <string>

#include "bandwidth.hpp"
#include "check_child.hpp"
#include "cli.hpp"
#include "timing.hpp"

namespace bench {

struct ProblemResult {
  Problem problem;
  CheckOutcome check;      // status "UNTESTED" when the check was off
  bool timed = false;
  Timing timing;
  double bytes = 0;        // per call, read + written
  double gbs = 0;
  std::string time_error;  // why timing did not happen or stopped
  bool peer = false;
  std::string peer_name;
  Timing peer_timing;
  double peer_gbs = 0;
  double other_load = 0;   // cores used by other processes while timing (see load_monitor.hpp)
  int attempts = 0;        // timing attempts (more than 1 when --max-load rejected one)
  // Compute-bound ops (OpRun::flops() > 0): per call, GFLOP/s of ours and of
  // the peer, and the machine's measured FMA peak (fma_peak.hpp).
  double flops = 0;
  double gflops = 0;
  double peer_gflops = 0;
  double fma_peak = 0;
  // --paired-copy: ours' GB/s over a same-size memcpy's, timed in turns.
  double paired_copy_ratio = 0;
  // --paired-peer: ours' speed over the oneDNN peer's, timed in turns.
  double paired_peer_ratio = 0;

  // A problem counts as a failure for the exit status.
  bool failed() const;
};

// `copy` may be null (no ratio printed).
ProblemResult run_problem(const Config &cfg, const Problem &p, cudnnHandle_t handle, const CopyBandwidth *copy);

}  // namespace bench
