// freednn-bench: checks and times cuDNN API calls on FreeDNN, benchdnn style.
// `freednn-bench --help` documents the grammar; see docs/perf.md for results.
#include <cudnn.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "bandwidth.hpp"
#include "check_child.hpp"
#include "cli.hpp"
#include "default_set.hpp"
#include "onednn_peer.hpp"
#include "op.hpp"
#include "report.hpp"
#include "runner.hpp"
#include "timing.hpp"

namespace {

using namespace bench;

// The library reads its environment at first use, so everything it should
// see is set here, before any cuDNN call.
void apply_environment(const Config &cfg) {
  if (cfg.threads > 0) setenv("FREEDNN_NUM_THREADS", std::to_string(cfg.threads).c_str(), 1);
  if (!cfg.engine.empty()) setenv("FREEDNN_ENGINE", cfg.engine.c_str(), 1);
  if (!cfg.device.empty()) setenv("FREEDNN_DEVICE", cfg.device.c_str(), 1);
  // Timed runs must not log; the check child turns verbose on for itself.
  if (!cfg.internal_check) unsetenv("FREEDNN_VERBOSE");
}

int effective_threads(const Config &cfg) {
  if (cfg.threads > 0) return cfg.threads;
  if (const char *env = std::getenv("FREEDNN_NUM_THREADS"))
    if (int n = std::atoi(env); n > 0) return n;
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

std::string joined(int argc, char **argv) {
  std::string s = "freednn-bench";
  for (int i = 1; i < argc; ++i) s += std::string(" ") + argv[i];
  return s;
}

void print_copy(const char *when, const CopyBandwidth &c) {
  std::printf("copy bandwidth (%s): %.2f GB/s  [%s]\n", when, c.best_gbs, c.how.c_str());
}

int run(const Config &cfg, const std::string &command) {
  const int threads = effective_threads(cfg);
  if (cfg.mode == "list") {
    for (const Problem &p : cfg.problems) std::printf("%s\n", problem_text(p).c_str());
    return 0;
  }
  if (cfg.mode == "bandwidth") {
    std::printf("machine: %s\n", machine_description().c_str());
    print_copy("this run", measure_copy_bandwidth(threads));
    return 0;
  }
  if (cfg.problems.empty()) {
    std::fprintf(stderr, "freednn-bench: no problems given (try --default-set or --help)\n");
    return 2;
  }

  std::printf("command: %s\n", command.c_str());
  std::printf("machine: %s\n", machine_description().c_str());
  std::printf("library: FreeDNN, cudnnGetVersion() = %zu; threads: %d%s\n", cudnnGetVersion(), threads,
              on_gpu() ? " (GPU run)" : "");
  if (cfg.onednn && !on_gpu()) {
    onednn_set_threads(threads);
    std::printf("peer: %s, %d threads\n", onednn_version().c_str(), threads);
  }

  // The copy ceiling, measured before and after the problems (the machine may
  // be shared and noisy); the better of the two is used for the ratios.
  CopyBandwidth copy;
  const bool perf = cfg.mode == "perf";
  if (perf) {
    copy = measure_copy_bandwidth(threads);
    print_copy("before", copy);
  }

  cudnnHandle_t handle = nullptr;
  if (perf) {
    cudnnStatus_t s = cudnnCreate(&handle);
    if (s != CUDNN_STATUS_SUCCESS) {
      std::fprintf(stderr, "freednn-bench: cudnnCreate failed: %s\n", cudnnGetErrorString(s));
      return 1;
    }
  }

  std::vector<ProblemResult> results;
  for (size_t i = 0; i < cfg.problems.size(); ++i) {
    const Problem &p = cfg.problems[i];
    std::printf("\n[%zu/%zu] %s%s%s\n", i + 1, cfg.problems.size(), p.name.empty() ? "" : (p.name + ": ").c_str(),
                "freednn-bench ", problem_text(p).c_str());
    std::fflush(stdout);
    results.push_back(run_problem(cfg, p, handle, perf ? &copy : nullptr));
  }
  if (handle) cudnnDestroy(handle);

  if (perf) {
    CopyBandwidth after = measure_copy_bandwidth(threads);
    std::printf("\n");
    print_copy("after", after);
    // The table's ratios use the better of the two (the lines printed per
    // problem used the first).
    copy = best_of(copy, after);
  }
  print_summary(results, perf ? &copy : nullptr);
  bool any_failed = std::any_of(results.begin(), results.end(), [](const ProblemResult &r) { return r.failed(); });
  return any_failed ? 1 : 0;
}

}  // namespace

int main(int argc, char **argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  Config cfg;
  try {
    cfg = parse_command_line(args);
    if (cfg.default_set) {
      // The user's settings first, so that --threads etc. apply to the set.
      std::vector<std::string> all = args;
      for (const std::string &a : default_set_arguments()) all.push_back(a);
      cfg = parse_command_line(all);
    }
  } catch (const std::invalid_argument &e) {
    std::fprintf(stderr, "freednn-bench: %s\n", e.what());
    return 2;
  }
  if (cfg.help) {
    print_help();
    return 0;
  }
  apply_environment(cfg);
  if (cfg.internal_check) return run_internal_check(cfg);
  try {
    return run(cfg, joined(argc, argv));
  } catch (const std::exception &e) {
    std::fprintf(stderr, "freednn-bench: %s\n", e.what());
    return 1;
  }
}
