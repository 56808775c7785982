#include "fma_peak.hpp"

#include <immintrin.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

namespace bench {
namespace {

constexpr int kChains = 16;            // independent accumulators per thread
constexpr long kIterations = 1 << 22;  // per timed run and thread

// Returns a value depending on every accumulator so nothing is optimised away.
// Sixteen named accumulators (an array would be kept in memory at -O2).
#define FDNN_FMA_CHAINS(FMA, ADD, T, SET1)                                                   \
  T c0 = SET1(1.00f), c1 = SET1(1.01f), c2 = SET1(1.02f), c3 = SET1(1.03f), c4 = SET1(1.04f), \
    c5 = SET1(1.05f), c6 = SET1(1.06f), c7 = SET1(1.07f), c8 = SET1(1.08f), c9 = SET1(1.09f), \
    c10 = SET1(1.10f), c11 = SET1(1.11f), c12 = SET1(1.12f), c13 = SET1(1.13f),             \
    c14 = SET1(1.14f), c15 = SET1(1.15f);                                                   \
  const T a = SET1(0.999999f), b = SET1(1e-7f);                                             \
  for (long it = 0; it < iters; ++it) {                                                     \
    c0 = FMA(c0, a, b), c1 = FMA(c1, a, b), c2 = FMA(c2, a, b), c3 = FMA(c3, a, b);         \
    c4 = FMA(c4, a, b), c5 = FMA(c5, a, b), c6 = FMA(c6, a, b), c7 = FMA(c7, a, b);         \
    c8 = FMA(c8, a, b), c9 = FMA(c9, a, b), c10 = FMA(c10, a, b), c11 = FMA(c11, a, b);     \
    c12 = FMA(c12, a, b), c13 = FMA(c13, a, b), c14 = FMA(c14, a, b), c15 = FMA(c15, a, b); \
  }                                                                                         \
  T s = ADD(ADD(ADD(ADD(c0, c1), ADD(c2, c3)), ADD(ADD(c4, c5), ADD(c6, c7))),               \
            ADD(ADD(ADD(c8, c9), ADD(c10, c11)), ADD(ADD(c12, c13), ADD(c14, c15))));

__attribute__((target("avx512f"))) float chains_avx512(long iters) {
  FDNN_FMA_CHAINS(_mm512_fmadd_ps, _mm512_add_ps, __m512, _mm512_set1_ps)
  return _mm512_reduce_add_ps(s);
}

__attribute__((target("avx2,fma"))) float chains_avx2(long iters) {
  FDNN_FMA_CHAINS(_mm256_fmadd_ps, _mm256_add_ps, __m256, _mm256_set1_ps)
  float out[8];
  _mm256_storeu_ps(out, s);
  return out[0] + out[7];
}

}  // namespace

FmaPeak measure_fma_peak(int threads) {
  FmaPeak r;
  r.threads = std::max(1, threads);
  const bool avx512 = __builtin_cpu_supports("avx512f");
  r.isa = avx512 ? "AVX-512" : "AVX2";
  const int lanes = avx512 ? 16 : 8;
  std::atomic<float> sink{0};
  const double flops = 2.0 * lanes * kChains * static_cast<double>(kIterations);
  for (int run = 0; run < 3; ++run) {
    // Each thread's rate over its own CPU time: what a core gives while it
    // runs, so that other processes sharing the machine do not lower the
    // ceiling (they lower the measured GFLOP/s of the op instead, and the
    // runner reports their load).
    std::vector<double> rate(static_cast<size_t>(r.threads), 0);
    std::vector<std::thread> pool;
    for (int t = 0; t < r.threads; ++t)
      pool.emplace_back([&, t] {
        timespec a{}, b{};
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
        sink = sink + (avx512 ? chains_avx512(kIterations) : chains_avx2(kIterations));
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
        const double s = static_cast<double>(b.tv_sec - a.tv_sec) + 1e-9 * static_cast<double>(b.tv_nsec - a.tv_nsec);
        rate[static_cast<size_t>(t)] = flops / s / 1e9;
      });
    for (auto &t : pool) t.join();
    double total = 0;
    for (double v : rate) total += v;
    r.gflops = std::max(r.gflops, total);
  }
  return r;
}

}  // namespace bench
