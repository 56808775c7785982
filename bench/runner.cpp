#include "runner.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <thread>
#include <vector>

#include "bandwidth.hpp"

#include "fma_peak.hpp"
#include "load_monitor.hpp"
#include "op.hpp"
#include "onednn_peer.hpp"

namespace bench {
namespace {

// Measured once per run, with the library's thread count, at the first
// compute-bound problem.
const FmaPeak &fma_peak() {
  static const FmaPeak peak = [] {
    int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    if (const char *env = std::getenv("FREEDNN_NUM_THREADS"))
      if (int n = std::atoi(env); n > 0) threads = n;
    FmaPeak p = measure_fma_peak(threads);
    std::printf("  FMA peak: %.1f GFLOP/s (%d threads, %s, per-thread CPU time)\n", p.gflops, p.threads, p.isa);
    return p;
  }();
  return peak;
}

// Seconds per call of `call`, repeated until min_ms have passed.
double seconds_per_call(const std::function<void()> &call, double min_ms) {
  const auto t0 = std::chrono::steady_clock::now();
  int64_t calls = 0;
  double spent = 0;
  do {
    call();
    ++calls;
    spent = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  } while (spent * 1e3 < min_ms);
  return spent / static_cast<double>(calls);
}

// Median over `rounds` alternating rounds (ours first in even rounds) of
// seconds(theirs) / seconds(ours), each side timed for min_ms: both sides
// see the same phases of a noisy machine (a shared guest's clock and
// neighbours change over seconds, longer than one side's whole sample).
struct PairedRatio {
  double median = 0, lo = 0, hi = 0;
  size_t rounds = 0;
};
PairedRatio paired_ratio(const std::function<void()> &ours, const std::function<void()> &theirs, int rounds,
                         double min_ms) {
  std::vector<double> ratios;
  for (int i = 0; i < rounds; ++i) {
    double t_ours, t_theirs;
    if (i % 2 == 0) {
      t_ours = seconds_per_call(ours, min_ms);
      t_theirs = seconds_per_call(theirs, min_ms);
    } else {
      t_theirs = seconds_per_call(theirs, min_ms);
      t_ours = seconds_per_call(ours, min_ms);
    }
    ratios.push_back(t_theirs / t_ours);
  }
  std::sort(ratios.begin(), ratios.end());
  PairedRatio p;
  p.rounds = ratios.size();
  p.median = p.rounds % 2 ? ratios[p.rounds / 2] : 0.5 * (ratios[p.rounds / 2 - 1] + ratios[p.rounds / 2]);
  p.lo = ratios.front();
  p.hi = ratios.back();
  return p;
}

// --paired-copy: cfg.reps rounds, each timing ours and a memcpy of the same
// bytes (in alternating order), and the median of the rounds' ratios
// (ours' GB/s / the copy's).
void time_paired_copy(const Config &cfg, OpRun &run, ProblemResult &r) {
  int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  if (const char *env = std::getenv("FREEDNN_NUM_THREADS"))
    if (int n = std::atoi(env); n > 0) threads = n;
  PairedCopy copy(r.bytes, threads);
  const auto theirs = [&] { copy.seconds(); };
  seconds_per_call(theirs, cfg.min_sample_ms);  // warm-up of the copy's pages
  LoadMonitor load;
  const PairedRatio p = paired_ratio([&] { run.execute(); }, theirs, cfg.reps, cfg.min_sample_ms);
  r.paired_copy_ratio = p.median;
  std::printf("  paired: ours / streaming copy of the same %.1f MB = %.2f (median of %zu alternating rounds; %.2f-%.2f)"
              "  [other load %.2f cores]\n",
              r.bytes / 1e6, p.median, p.rounds, p.lo, p.hi, load.foreign_cores());
}

}  // namespace

bool ProblemResult::failed() const {
  return check.status == "FAILED" || check.status == "UNIMPLEMENTED" || check.status == "ERROR" ||
         check.status == "CRASHED" || !time_error.empty();
}

ProblemResult run_problem(const Config &cfg, const Problem &p, cudnnHandle_t handle, const CopyBandwidth *copy) {
  ProblemResult r;
  r.problem = p;
  const bool timing_wanted = cfg.mode == "perf";

  if (cfg.mode == "check" || cfg.check) {
    r.check = check_in_child(cfg, p);
    std::printf("  check: %s%s%s  engine=%s  device=%s\n", r.check.status.c_str(), r.check.detail.empty() ? "" : " - ",
                r.check.detail.c_str(), r.check.engine.empty() ? "?" : r.check.engine.c_str(),
                r.check.device.empty() ? "?" : r.check.device.c_str());
    if (r.check.status == "CRASHED") std::printf("  check output:\n%s\n", r.check.output.c_str());
  } else {
    r.check.status = "UNTESTED";
  }
  std::fflush(stdout);
  if (!timing_wanted) return r;
  if (r.check.status == "UNIMPLEMENTED" || r.check.status == "ERROR" || r.check.status == "CRASHED") return r;

  try {
    auto run = OpRegistry::instance().find(p.knobs.op)->prepare(handle, p);
    run->fill(cfg.seed);
    r.bytes = run->bytes_moved();
    // Time ours; with --max-load, again (up to 3 times) while other processes
    // were using more than that many cores, keeping the quietest attempt.
    for (int attempt = 1; attempt <= 3; ++attempt) {
      LoadMonitor load;
      Timing t = measure([&] { run->execute(); }, cfg.reps, cfg.min_sample_ms);
      double other = load.foreign_cores();
      if (attempt == 1 || other < r.other_load) {
        r.timing = t;
        r.other_load = other;
      }
      r.attempts = attempt;
      if (cfg.max_load < 0 || other <= cfg.max_load) break;
    }
    r.timed = true;
    r.gbs = r.bytes / (r.timing.median_ms * 1e-3) / 1e9;
    std::printf("  ours:   %9.4f ms (best %.4f; %d samples x %lld calls)  %8.1f MB  %7.2f GB/s", r.timing.median_ms,
                r.timing.min_ms, r.timing.samples, static_cast<long long>(r.timing.calls_per_sample), r.bytes / 1e6,
                r.gbs);
    if (copy && copy->best_gbs > 0) std::printf("  = %.2f x copy(before)", r.gbs / copy->best_gbs);
    std::printf("  [other load %.2f cores%s]\n", r.other_load,
                r.attempts > 1 ? (", " + std::to_string(r.attempts) + " attempts").c_str() : "");
    r.flops = run->flops();
    if (cfg.paired_copy && !on_gpu() && r.flops == 0 && r.bytes > 0) time_paired_copy(cfg, *run, r);
    if (r.flops > 0) {
      r.fma_peak = fma_peak().gflops;
      r.gflops = r.flops / (r.timing.median_ms * 1e-3) / 1e9;
      std::printf("  ours:   %8.1f GFLOP/s (best %.1f) = %.2f of FMA peak\n", r.gflops,
                  r.flops / (r.timing.min_ms * 1e-3) / 1e9, r.fma_peak > 0 ? r.gflops / r.fma_peak : 0.0);
    }
    std::fflush(stdout);

    if (cfg.onednn && !on_gpu()) {
      if (auto peer = run->onednn_peer()) {
        if (cfg.paired_peer) {
          // Both kept alive: rounds of ours and the peer in turn.
          seconds_per_call([&] { peer->execute(); }, cfg.min_sample_ms);  // the peer's warm-up
          LoadMonitor load;
          const PairedRatio pr =
              paired_ratio([&] { run->execute(); }, [&] { peer->execute(); }, cfg.reps, cfg.min_sample_ms);
          r.paired_peer_ratio = pr.median;
          std::printf("  paired: ours / oneDNN = %.2f (median of %zu alternating rounds; %.2f-%.2f)  [other load %.2f cores]\n",
                      pr.median, pr.rounds, pr.lo, pr.hi, load.foreign_cores());
        }
        run.reset();  // free our buffers before the peer allocates its own
        double peer_load = 0;
        for (int attempt = 1; attempt <= 3; ++attempt) {
          LoadMonitor load;
          Timing t = measure([&] { peer->execute(); }, cfg.reps, cfg.min_sample_ms);
          double other = load.foreign_cores();
          if (attempt == 1 || other < peer_load) {
            r.peer_timing = t;
            peer_load = other;
          }
          if (cfg.max_load < 0 || other <= cfg.max_load) break;
        }
        r.peer = true;
        r.peer_name = peer->name();
        r.peer_gbs = r.bytes / (r.peer_timing.median_ms * 1e-3) / 1e9;
        r.other_load = std::max(r.other_load, peer_load);
        std::printf("  oneDNN: %9.4f ms (best %.4f)  %7.2f GB/s  ours/oneDNN = %.2f  [%s; other load %.2f cores]\n",
                    r.peer_timing.median_ms, r.peer_timing.min_ms, r.peer_gbs, r.gbs / r.peer_gbs, r.peer_name.c_str(),
                    peer_load);
        if (r.flops > 0) {
          r.peer_gflops = r.flops / (r.peer_timing.median_ms * 1e-3) / 1e9;
          std::printf("  oneDNN: %8.1f GFLOP/s (best %.1f) = %.2f of FMA peak; ours/oneDNN = %.2f\n", r.peer_gflops,
                      r.flops / (r.peer_timing.min_ms * 1e-3) / 1e9,
                      r.fma_peak > 0 ? r.peer_gflops / r.fma_peak : 0.0, r.gflops / r.peer_gflops);
        }
      }
    }
  } catch (const ApiError &e) {
    r.time_error = e.what();
    std::printf("  timing stopped: %s\n", e.what());
  } catch (const std::exception &e) {
    r.time_error = e.what();
    std::printf("  timing stopped: %s\n", e.what());
  }
  std::fflush(stdout);
  return r;
}

}  // namespace bench
