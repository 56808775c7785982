// The run's header (machine, threads, copy bandwidth, peers) and the summary
// table printed after several problems, in Markdown so that it can go into
// docs/perf.md unchanged.
#pragma once

#include <string>
#include <vector>

#include "bandwidth.hpp"
#include "runner.hpp"

namespace bench {

// "AMD EPYC ... (2 vCPU)" or the GPU's name.
std::string machine_description();

void print_summary(const std::vector<ProblemResult> &results, const CopyBandwidth *copy);

}  // namespace bench
