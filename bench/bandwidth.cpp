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

#include "problem.hpp"
#include "timing.hpp"

#if defined(__x86_64__)
#include <immintrin.h>
#define BENCH_X86_AVX2 __attribute__((target("avx2,fma")))
#endif

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

volatile float g_sink = 0.0f;

// The pattern ceilings, in AVX2 where the CPU has it (the library's fast
// kernels are built for x86-64-v3): what a well-written kernel of that
// access pattern can reach on this machine.
#if defined(BENCH_X86_AVX2)
BENCH_X86_AVX2 float sum_avx2(const float *p, size_t n) {
  __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    a0 = _mm256_add_ps(a0, _mm256_load_ps(p + i));
    a1 = _mm256_add_ps(a1, _mm256_load_ps(p + i + 8));
    a2 = _mm256_add_ps(a2, _mm256_load_ps(p + i + 16));
    a3 = _mm256_add_ps(a3, _mm256_load_ps(p + i + 24));
  }
  alignas(32) float l[8];
  _mm256_store_ps(l, _mm256_add_ps(_mm256_add_ps(a0, a1), _mm256_add_ps(a2, a3)));
  float r = 0;
  for (float v : l) r += v;
  for (; i < n; ++i) r += p[i];
  return r;
}
BENCH_X86_AVX2 void add_stream_avx2(float *c, const float *a, const float *b, size_t n) {
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    _mm256_stream_ps(c + i, _mm256_add_ps(_mm256_load_ps(a + i), _mm256_load_ps(b + i)));
    _mm256_stream_ps(c + i + 8, _mm256_add_ps(_mm256_load_ps(a + i + 8), _mm256_load_ps(b + i + 8)));
  }
  for (; i < n; ++i) c[i] = a[i] + b[i];
  _mm_sfence();
}
// dst = src with streaming stores, whatever the size: glibc's memcpy
// streams only above its non-temporal threshold (about 100 MB here), so
// below it a "copy" pays for write-allocate reads.
BENCH_X86_AVX2 void copy_stream_avx2(float *dst, const float *src, size_t n) {
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    _mm256_stream_ps(dst + i, _mm256_load_ps(src + i));
    _mm256_stream_ps(dst + i + 8, _mm256_load_ps(src + i + 8));
  }
  for (; i < n; ++i) dst[i] = src[i];
  _mm_sfence();
}
bool have_avx2() { return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"); }
#endif

float sum_plain(const float *p, size_t n) {
  float a[8] = {};
  size_t i = 0;
  for (; i + 8 <= n; i += 8)
    for (int k = 0; k < 8; ++k) a[k] += p[i + k];
  for (; i < n; ++i) a[0] += p[i];
  float r = 0;
  for (float v : a) r += v;
  return r;
}

CopyBandwidth cpu_bandwidth(int threads, int samples) {
  const size_t kCpuBytes = cpu_buffer_bytes();
  size_t n = kCpuBytes / sizeof(float);
  std::unique_ptr<float, FreeDeleter> a(static_cast<float *>(std::aligned_alloc(64, kCpuBytes)));
  std::unique_ptr<float, FreeDeleter> b(static_cast<float *>(std::aligned_alloc(64, kCpuBytes)));
  if (!a || !b) throw std::runtime_error("copy bandwidth: cannot allocate the two buffers");
  std::unique_ptr<float, FreeDeleter> c3(static_cast<float *>(std::aligned_alloc(64, kCpuBytes)));
  if (!c3) throw std::runtime_error("copy bandwidth: cannot allocate the third buffer");
  float *src = a.get(), *dst = b.get(), *third = c3.get();
  // First touch by the same threads that copy.
  parallel_seconds(threads, n, [&](size_t s, size_t e) {
    for (size_t i = s; i < e; ++i) src[i] = static_cast<float>(i & 1023);
    std::memset(dst + s, 0, (e - s) * sizeof(float));
    std::memset(third + s, 0, (e - s) * sizeof(float));
  });

  const double buffer = static_cast<double>(kCpuBytes), bytes = 2.0 * buffer;
  auto run = [&](const std::function<void(size_t, size_t)> &body, double moved = 0) {
    if (moved == 0) moved = bytes;
    parallel_seconds(threads, n, body);  // warm-up
    std::vector<double> gbs;
    for (int s = 0; s < samples; ++s) gbs.push_back(moved / parallel_seconds(threads, n, body) / 1e9);
    return median(gbs);
  };
  CopyBandwidth r;
  r.memcpy_gbs = run([&](size_t s, size_t e) { std::memcpy(dst + s, src + s, (e - s) * sizeof(float)); });
  r.loop_gbs = run([&](size_t s, size_t e) {
    const float q = g_scale;
    for (size_t i = s; i < e; ++i) dst[i] = q * src[i];
  });
  bool avx2 = false;
#if defined(BENCH_X86_AVX2)
  avx2 = have_avx2();
#endif
  // Read-only: each thread sums its part (reductions' pattern).
  r.read_gbs = run(
      [&](size_t s, size_t e) {
#if defined(BENCH_X86_AVX2)
        if (avx2) {
          g_sink = g_sink + sum_avx2(src + s, e - s);
          return;
        }
#endif
        g_sink = g_sink + sum_plain(src + s, e - s);
      },
      buffer);
  // 2 reads + 1 write with streaming stores (OpTensor's pattern).
  r.triad_gbs = run(
      [&](size_t s, size_t e) {
#if defined(BENCH_X86_AVX2)
        if (avx2) {
          add_stream_avx2(third + s, src + s, dst + s, e - s);
          return;
        }
#endif
        for (size_t i = s; i < e; ++i) third[i] = src[i] + dst[i];
      },
      3.0 * buffer);
  // In place: each line read and written back (in-place bias add, scale).
  r.inplace_gbs = run([&](size_t s, size_t e) {
    const float q = g_scale;
    for (size_t i = s; i < e; ++i) dst[i] = q * dst[i];
  });
  r.best_gbs = std::max(r.memcpy_gbs, r.loop_gbs);
  r.buffer_mib = kCpuBytes / double(1 << 20);
  r.threads = threads;
  char how[512];
  std::snprintf(how, sizeof how,
                "CPU, %d thread(s), buffers of %zu MiB, median of %d, read + write bytes: memcpy %.2f GB/s, "
                "scale loop %.2f GB/s; ceilings: read-only sum %.2f GB/s (%.2f x copy), 2R1W streaming %.2f GB/s "
                "(%.2f x copy), in-place %.2f GB/s (%.2f x copy)%s",
                threads, kCpuBytes >> 20, samples, r.memcpy_gbs, r.loop_gbs, r.read_gbs, r.read_gbs / r.best_gbs,
                r.triad_gbs, r.triad_gbs / r.best_gbs, r.inplace_gbs, r.inplace_gbs / r.best_gbs,
                avx2 ? "" : " (no AVX2: plain loops)");
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

PairedCopy::PairedCopy(double bytes, int threads) : threads_(std::max(1, threads)) {
  n_ = std::max<size_t>(16, static_cast<size_t>(bytes / 2 / sizeof(float)) / 16 * 16);
  src_ = static_cast<float *>(std::aligned_alloc(64, n_ * sizeof(float)));
  dst_ = static_cast<float *>(std::aligned_alloc(64, n_ * sizeof(float)));
  if (src_ == nullptr || dst_ == nullptr) {
    std::free(src_);
    std::free(dst_);
    throw std::runtime_error("paired copy: cannot allocate the two buffers");
  }
  float *src = src_, *dst = dst_;
  parallel_seconds(threads_, n_, [&](size_t s, size_t e) {
    for (size_t i = s; i < e; ++i) src[i] = static_cast<float>(i & 1023);
    std::memset(dst + s, 0, (e - s) * sizeof(float));
  });
}

PairedCopy::~PairedCopy() {
  std::free(src_);
  std::free(dst_);
}

double PairedCopy::seconds() {
  float *src = src_, *dst = dst_;
  return parallel_seconds(threads_, n_, [&](size_t s, size_t e) {
#if defined(BENCH_X86_AVX2)
    if (have_avx2()) {
      copy_stream_avx2(dst + s, src + s, e - s);
      return;
    }
#endif
    std::memcpy(dst + s, src + s, (e - s) * sizeof(float));
  });
}

AccessPattern access_pattern(const Problem &p) {
  const std::string &op = p.knobs.op;
  if (op == "reduce") return AccessPattern::read_only;
  if (op == "set") return AccessPattern::write_only;
  if (op == "scale") return AccessPattern::in_place;
  const bool full_b = p.shapes.size() >= 2 && element_count(p.shapes[1]) == element_count(p.shapes[0]);
  if (op == "add")  // C = alpha A + beta C: C read and written in place, A a second stream when full size
    return p.beta_or(1.0) != 0.0 ? (full_b ? AccessPattern::two_read_one_write : AccessPattern::in_place)
                                 : AccessPattern::copy;
  // OpTensor: A and B read, C streamed (beta != 0 reads C too: counted as 2R1W all the same).
  if (op == "optensor") return full_b ? AccessPattern::two_read_one_write : AccessPattern::copy;
  return AccessPattern::copy;  // transforms, and other families until they say otherwise
}

const char *pattern_name(AccessPattern a) {
  switch (a) {
    case AccessPattern::read_only: return "read";
    case AccessPattern::two_read_one_write: return "2R1W";
    case AccessPattern::in_place: return "in-place";
    case AccessPattern::write_only: return "write";
    default: return "copy";
  }
}

CopyBandwidth best_of(const CopyBandwidth &a, const CopyBandwidth &b) {
  CopyBandwidth r = a.best_gbs >= b.best_gbs ? a : b;
  r.read_gbs = std::max(a.read_gbs, b.read_gbs);
  r.triad_gbs = std::max(a.triad_gbs, b.triad_gbs);
  r.inplace_gbs = std::max(a.inplace_gbs, b.inplace_gbs);
  return r;
}

double pattern_ceiling(const CopyBandwidth &c, AccessPattern a) {
  double v = 0;
  switch (a) {
    case AccessPattern::read_only: v = c.read_gbs; break;
    case AccessPattern::two_read_one_write: v = c.triad_gbs; break;
    case AccessPattern::in_place: v = c.inplace_gbs; break;
    default: break;
  }
  return v > 0 ? v : c.best_gbs;
}

CopyBandwidth measure_copy_bandwidth(int threads, int samples) {
#ifdef FREEDNN_TEST_CUDA
  if (on_gpu()) return gpu_bandwidth(samples);
#endif
  return cpu_bandwidth(std::max(1, threads), samples);
}

}  // namespace bench
