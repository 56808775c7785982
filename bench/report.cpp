#include "report.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <thread>

#include "op.hpp"
#include "timing.hpp"

#ifdef FREEDNN_TEST_CUDA
#include <cuda_runtime_api.h>
#endif

namespace bench {

std::string machine_description() {
#ifdef FREEDNN_TEST_CUDA
  if (on_gpu()) {
    cudaDeviceProp prop{};
    int dev = 0;
    cudaGetDevice(&dev);
    if (cudaGetDeviceProperties(&prop, dev) == cudaSuccess)
      return std::string(prop.name) + " (" + std::to_string(prop.totalGlobalMem >> 30) + " GiB)";
  }
#endif
  std::ifstream in("/proc/cpuinfo");
  std::string line, model = "unknown CPU";
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0) {
      model = line.substr(line.find(':') + 2);
      break;
    }
  return model + " (" + std::to_string(std::thread::hardware_concurrency()) + " logical CPUs)";
}

namespace {

std::string cell_problem(const ProblemResult &r) {
  std::string text = problem_text(r.problem);
  if (!r.problem.name.empty()) text = r.problem.name + ": " + text;
  return "`" + text + "`";
}

// The compute-bound problems again, in GFLOP/s against the FMA peak.
void print_compute_summary(const std::vector<ProblemResult> &results) {
  bool any = false;
  for (const ProblemResult &r : results) any = any || r.flops > 0;
  if (!any) return;
  std::printf("\n| # | problem | engine | check | ms | GFLOP/s | x FMA peak | oneDNN GFLOP/s (impl) | ours/oneDNN | other load |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|\n");
  int i = 0;
  for (const ProblemResult &r : results) {
    ++i;
    if (r.flops <= 0) continue;
    std::printf("| %d | %s | %s | %s | %.3f | %.1f | %.2f |", i, cell_problem(r).c_str(),
                r.check.engine.empty() ? "?" : r.check.engine.c_str(), r.check.status.c_str(), r.timing.median_ms,
                r.gflops, r.fma_peak > 0 ? r.gflops / r.fma_peak : 0.0);
    std::string impl = r.peer_name.substr(r.peer_name.find(':') + 1);
    if (r.peer) std::printf(" %.1f (%s) | %.2f |", r.peer_gflops, impl.c_str(), r.gflops / r.peer_gflops);
    else std::printf(" n/a | n/a |");
    std::printf(" %.2f |\n", r.other_load);
  }
  if (!results.empty()) {
    double peak = 0;
    for (const ProblemResult &r : results) peak = std::max(peak, r.fma_peak);
    std::printf("FMA peak (x FMA peak = GFLOP/s / %.1f): vector FMA chains on every thread, rate over CPU time\n", peak);
  }
}

}  // namespace

void print_summary(const std::vector<ProblemResult> &results, const CopyBandwidth *copy) {
  std::printf("\n| # | problem | engine | check | ms | GB/s | x copy | pattern | x pattern | oneDNN GB/s (impl) | ours/oneDNN | other load |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  int i = 0, passed = 0, failed = 0, untested = 0;
  for (const ProblemResult &r : results) {
    ++i;
    if (r.failed()) ++failed;
    else if (r.check.status == "PASSED") ++passed;
    else ++untested;
    std::printf("| %d | %s | %s | %s |", i, cell_problem(r).c_str(), r.check.engine.empty() ? "?" : r.check.engine.c_str(),
                r.check.status.c_str());
    if (r.timed) {
      std::printf(" %.3f | %.2f |", r.timing.median_ms, r.gbs);
      if (copy && copy->best_gbs > 0) std::printf(" %.2f |", r.gbs / copy->best_gbs);
      else std::printf(" - |");
      // The same GB/s against the ceiling of the problem's own access pattern.
      const AccessPattern pat = access_pattern(r.problem);
      if (copy && copy->best_gbs > 0) std::printf(" %s | %.2f |", pattern_name(pat), r.gbs / pattern_ceiling(*copy, pat));
      else std::printf(" %s | - |", pattern_name(pat));
    } else {
      std::printf(" - | - | - | - | - |");
    }
    std::string impl = r.peer_name.substr(r.peer_name.find(':') + 1);
    if (r.peer) std::printf(" %.2f (%s) | %.2f |", r.peer_gbs, impl.c_str(), r.gbs / r.peer_gbs);
    else std::printf(" n/a | n/a |");
    if (r.timed) std::printf(" %.2f |\n", r.other_load);
    else std::printf(" - |\n");
  }
  print_compute_summary(results);
  std::printf("\n%d problems: %d passed, %d failed or unimplemented, %d untested\n", i, passed, failed, untested);
  std::printf("other load = cores' worth of CPU time used by other processes while timing\n");
  if (copy && copy->best_gbs > 0) {
    std::printf("copy bandwidth (x copy = GB/s / %.2f): %s\n", copy->best_gbs, copy->how.c_str());
    std::printf("x pattern = GB/s / the ceiling of the problem's access pattern: read %.2f, 2R1W %.2f, in-place %.2f, "
                "copy and write %.2f GB/s\n",
                pattern_ceiling(*copy, AccessPattern::read_only), pattern_ceiling(*copy, AccessPattern::two_read_one_write),
                pattern_ceiling(*copy, AccessPattern::in_place), copy->best_gbs);
  }
}

}  // namespace bench
