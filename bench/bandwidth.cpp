#include "bandwidth.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <stdexcept>
#include <thread>
#include <vector>

#include <unistd.h>

#include "timing.hpp"

#ifdef FREEDNN_TEST_CUDA
#include <cuda_runtime_api.h>
#endif

namespace bench {
namespace {

using Clock = std::chrono::steady_clock;

constexpr size_t kGpuBytes = size_t(1) << 30;

// Each CPU buffer is at least twice the last-level cache (and >= 256 MiB), so
// the copy streams from and to DRAM the way the large problems do. Server
// parts (and VMs on them) report L3 sizes from 32 MiB to several hundred.
size_t cpu_buffer_bytes() {
  long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
  size_t bytes = size_t(256) << 20;
  if (l3 > 0) bytes = std::max(bytes, 2 * static_cast<size_t>(l3));
  return (bytes + (size_t(1) << 20) - 1) >> 20 << 20;  // whole MiB
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

// Runs body(thread, begin, end) on `threads` threads over [0, n) and returns
// the wall time in seconds.
double parallel_seconds(int threads, size_t n, const std::function<void(size_t, size_t)> &body) {
  auto t0 = Clock::now();
  std::vector<std::thread> pool;
  size_t chunk = (n + threads - 1) / threads;
  chunk = (chunk + 15) / 16 * 16;  // keep every chunk 64-byte aligned for floats
  for (int t = 0; t < threads; ++t) {
    size_t b = std::min(n, t * chunk), e = std::min(n, b + chunk);
    pool.emplace_back([&body, b, e] { body(b, e); });
  }
  for (auto &th : pool) th.join();
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

struct FreeDeleter {
  void operator()(float *p) const { std::free(p); }
};

// Scale factor read at run time so that the compiler cannot turn the loop
// into a memcpy call or fold it away.
volatile float g_scale = 1.0f;

CopyBandwidth cpu_bandwidth(int threads, int samples) {
  const size_t kCpuBytes = cpu_buffer_bytes();
  size_t n = kCpuBytes / sizeof(float);
  std::unique_ptr<float, FreeDeleter> a(static_cast<float *>(std::aligned_alloc(64, kCpuBytes)));
  std::unique_ptr<float, FreeDeleter> b(static_cast<float *>(std::aligned_alloc(64, kCpuBytes)));
  if (!a || !b) throw std::runtime_error("copy bandwidth: cannot allocate the two buffers");
  float *src = a.get(), *dst = b.get();
  // First touch by the same threads that copy.
  parallel_seconds(threads, n, [&](size_t s, size_t e) {
    for (size_t i = s; i < e; ++i) src[i] = static_cast<float>(i & 1023);
    std::memset(dst + s, 0, (e - s) * sizeof(float));
  });

  const double bytes = 2.0 * static_cast<double>(kCpuBytes);
  auto run = [&](const std::function<void(size_t, size_t)> &body) {
    parallel_seconds(threads, n, body);  // warm-up
    std::vector<double> gbs;
    for (int s = 0; s < samples; ++s) gbs.push_back(bytes / parallel_seconds(threads, n, body) / 1e9);
    return median(gbs);
  };
  CopyBandwidth r;
  r.memcpy_gbs = run([&](size_t s, size_t e) { std::memcpy(dst + s, src + s, (e - s) * sizeof(float)); });
  r.loop_gbs = run([&](size_t s, size_t e) {
    const float q = g_scale;
    for (size_t i = s; i < e; ++i) dst[i] = q * src[i];
  });
  r.best_gbs = std::max(r.memcpy_gbs, r.loop_gbs);
  r.buffer_mib = kCpuBytes / double(1 << 20);
  r.threads = threads;
  char how[256];
  std::snprintf(how, sizeof how,
                "CPU copy, %d thread(s), 2 x %zu MiB, median of %d: memcpy %.2f GB/s, scale loop %.2f GB/s "
                "(read + write bytes)",
                threads, kCpuBytes >> 20, samples, r.memcpy_gbs, r.loop_gbs);
  r.how = how;
  return r;
}

#ifdef FREEDNN_TEST_CUDA
CopyBandwidth gpu_bandwidth(int samples) {
  void *a = nullptr, *b = nullptr;
  if (cudaMalloc(&a, kGpuBytes) != cudaSuccess || cudaMalloc(&b, kGpuBytes) != cudaSuccess)
    throw std::runtime_error("copy bandwidth: cannot allocate 2 x 1 GiB on the GPU");
  cudaMemset(a, 1, kGpuBytes);
  cudaMemset(b, 0, kGpuBytes);
  auto once = [&] { cudaMemcpyAsync(b, a, kGpuBytes, cudaMemcpyDeviceToDevice, nullptr); };
  Timing t = measure(once, samples, 20);
  cudaFree(a);
  cudaFree(b);
  CopyBandwidth r;
  r.best_gbs = r.memcpy_gbs = 2.0 * kGpuBytes / (t.median_ms * 1e-3) / 1e9;
  r.buffer_mib = kGpuBytes / double(1 << 20);
  char how[256];
  std::snprintf(how, sizeof how, "GPU cudaMemcpy device-to-device, 2 x 1 GiB, median of %d: %.1f GB/s (read + write bytes)",
                samples, r.best_gbs);
  r.how = how;
  return r;
}
#endif

}  // namespace

CopyBandwidth measure_copy_bandwidth(int threads, int samples) {
#ifdef FREEDNN_TEST_CUDA
  if (on_gpu()) return gpu_bandwidth(samples);
#endif
  return cpu_bandwidth(std::max(1, threads), samples);
}

}  // namespace bench
