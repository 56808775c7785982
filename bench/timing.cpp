#include "timing.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "common/buffer.hpp"

#ifdef FREEDNN_TEST_CUDA
#include <cuda_runtime_api.h>
#endif

namespace bench {
namespace {

using Clock = std::chrono::steady_clock;

// Wall time of `n` calls in ms, the device drained at both ends.
double timed_batch(const std::function<void()> &call, int64_t n) {
#ifdef FREEDNN_TEST_CUDA
  if (on_gpu()) {
    cudaEvent_t start, stop;
    cudaEventCreate(&start);
    cudaEventCreate(&stop);
    cudaDeviceSynchronize();
    cudaEventRecord(start, nullptr);
    for (int64_t i = 0; i < n; ++i) call();
    cudaEventRecord(stop, nullptr);
    cudaEventSynchronize(stop);
    float ms = 0;
    cudaEventElapsedTime(&ms, start, stop);
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    return ms;
  }
#endif
  auto t0 = Clock::now();
  for (int64_t i = 0; i < n; ++i) call();
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

}  // namespace

bool on_gpu() {
  static const bool gpu = fdnn_test::gpu_mode();
  return gpu;
}

void device_sync() {
#ifdef FREEDNN_TEST_CUDA
  if (on_gpu() && cudaDeviceSynchronize() != cudaSuccess)
    throw std::runtime_error("cudaDeviceSynchronize failed");
#endif
}

Timing measure(const std::function<void()> &call, int samples, double min_sample_ms) {
  // Warm-up: first-touch of pages, plan creation, caches, clocks. At least two
  // calls and about 50 ms, and it gives the first estimate of one call's time.
  double spent = 0;
  int64_t calls = 0;
  double per_call = 0;
  while (calls < 2 || (spent < 50 && calls < 1000)) {
    double t = timed_batch(call, 1);
    spent += t;
    ++calls;
    per_call = t;  // the latest, i.e. warmest
  }
  // Very slow calls (a peer's reference code, say) get 3 samples, not 10:
  // their median is stable enough and the run stays short.
  if (per_call > 10 * min_sample_ms) samples = std::min(samples, 3);
  Timing r;
  r.calls_per_sample = std::max<int64_t>(1, static_cast<int64_t>(std::ceil(min_sample_ms / std::max(per_call, 1e-4))));
  std::vector<double> per;
  for (int s = 0; s < samples; ++s)
    per.push_back(timed_batch(call, r.calls_per_sample) / static_cast<double>(r.calls_per_sample));
  std::sort(per.begin(), per.end());
  r.samples = samples;
  r.min_ms = per.front();
  r.median_ms = per.size() % 2 ? per[per.size() / 2] : 0.5 * (per[per.size() / 2 - 1] + per[per.size() / 2]);
  return r;
}

}  // namespace bench
