#include "cpu/blas.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <string>

#include "core/thread_pool.hpp"

namespace fdnn::cpu {

namespace {

// OpenBLAS is opened at first use rather than linked: Debian's build picks
// its kernels by CPU model when it loads, and on CPUs newer than it knows
// (this project's Zen 5 machines) it falls back to its generic "Prescott"
// kernels, 5x slower than its AVX-512 ones (1024^3 sgemm on one core: 7.6
// against 35-40 GFLOP/s under load). Its only switch is OPENBLAS_CORETYPE,
// read once when the library loads, so the choice has to be made before
// that: by the caller's own OPENBLAS_CORETYPE if set, else from the CPU's
// features (AVX-512 -> SkylakeX kernels, AVX2 + FMA -> Haswell).
// OPENBLAS_NUM_THREADS=1 keeps it from starting threads of its own: the
// engines split their GEMMs over our pool.
struct OpenBlas {
  using Sgemm = void (*)(int, int, int, int, int, int, float, const float *, int, const float *, int, float, float *,
                         int);
  using Dgemm = void (*)(int, int, int, int, int, int, double, const double *, int, const double *, int, double,
                         double *, int);
  Sgemm sgemm = nullptr;
  Dgemm dgemm = nullptr;
  std::string core = "none";

  OpenBlas() {
    const char *forced = std::getenv("OPENBLAS_CORETYPE");
    const char *threads = std::getenv("OPENBLAS_NUM_THREADS");
    const std::string saved_core = forced ? forced : "", saved_threads = threads ? threads : "";
    if (forced == nullptr) {
      __builtin_cpu_init();
      if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
          __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq"))
        setenv("OPENBLAS_CORETYPE", "SkylakeX", 1);
      else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        setenv("OPENBLAS_CORETYPE", "Haswell", 1);
    }
    setenv("OPENBLAS_NUM_THREADS", "1", 1);
    void *lib = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) lib = dlopen("libopenblas.so", RTLD_NOW | RTLD_LOCAL);
    // The process's environment is the caller's: put it back as it was.
    if (forced == nullptr) unsetenv("OPENBLAS_CORETYPE");
    if (threads == nullptr) unsetenv("OPENBLAS_NUM_THREADS");
    else setenv("OPENBLAS_NUM_THREADS", saved_threads.c_str(), 1);
    if (lib == nullptr) return;
    sgemm = reinterpret_cast<Sgemm>(dlsym(lib, "cblas_sgemm"));
    dgemm = reinterpret_cast<Dgemm>(dlsym(lib, "cblas_dgemm"));
    auto set_threads = reinterpret_cast<void (*)(int)>(dlsym(lib, "openblas_set_num_threads"));
    auto corename = reinterpret_cast<char *(*)()>(dlsym(lib, "openblas_get_corename"));
    if (sgemm == nullptr || dgemm == nullptr) {
      sgemm = nullptr, dgemm = nullptr;
      return;
    }
    if (set_threads) set_threads(1);
    core = corename ? corename() : "unknown";
  }
};

const OpenBlas &openblas() {
  static const OpenBlas blas;
  return blas;
}

constexpr int kRowMajor = 101, kNoTrans = 111, kTrans = 112;

template <class T>
void naive_gemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, T alpha, const T *A, int64_t lda, const T *B,
                int64_t ldb, T beta, T *C, int64_t ldc) {
  for (int64_t i = 0; i < M; ++i) {
    T *c = C + i * ldc;
    if (beta == T(0)) std::fill(c, c + N, T(0));
    else if (beta != T(1)) for (int64_t j = 0; j < N; ++j) c[j] *= beta;
    for (int64_t k = 0; k < K; ++k) {
      const T a = alpha * (ta ? A[k * lda + i] : A[i * lda + k]);
      if (!tb) {
        const T *b = B + k * ldb;
        for (int64_t j = 0; j < N; ++j) c[j] += a * b[j];
      } else {
        for (int64_t j = 0; j < N; ++j) c[j] += a * B[j * ldb + k];
      }
    }
  }
}

}  // namespace

bool have_blas() { return openblas().sgemm != nullptr; }

const char *blas_core() { return openblas().core.c_str(); }

template <>
void gemm<float>(bool ta, bool tb, int64_t M, int64_t N, int64_t K, float alpha, const float *A, int64_t lda,
                 const float *B, int64_t ldb, float beta, float *C, int64_t ldc) {
  if (M <= 0 || N <= 0) return;
  const OpenBlas &blas = openblas();
  if (K == 0 || blas.sgemm == nullptr) return naive_gemm(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
  blas.sgemm(kRowMajor, ta ? kTrans : kNoTrans, tb ? kTrans : kNoTrans, static_cast<int>(M), static_cast<int>(N),
              static_cast<int>(K), alpha, A, static_cast<int>(lda), B, static_cast<int>(ldb), beta, C,
              static_cast<int>(ldc));
}

template <>
void gemm<double>(bool ta, bool tb, int64_t M, int64_t N, int64_t K, double alpha, const double *A, int64_t lda,
                  const double *B, int64_t ldb, double beta, double *C, int64_t ldc) {
  if (M <= 0 || N <= 0) return;
  const OpenBlas &blas = openblas();
  if (K == 0 || blas.dgemm == nullptr) return naive_gemm(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
  blas.dgemm(kRowMajor, ta ? kTrans : kNoTrans, tb ? kTrans : kNoTrans, static_cast<int>(M), static_cast<int>(N),
              static_cast<int>(K), alpha, A, static_cast<int>(lda), B, static_cast<int>(ldb), beta, C,
              static_cast<int>(ldc));
}

template <class T>
void parallel_gemm(ThreadPool *pool, bool ta, bool tb, int64_t M, int64_t N, int64_t K, T alpha, const T *A,
                   int64_t lda, const T *B, int64_t ldb, T beta, T *C, int64_t ldc) {
  const int threads = pool != nullptr ? pool->size() : 1;
  const double flops = 2.0 * M * N * K;
  if (threads <= 1 || flops < 2e6) return gemm(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
  // Blocks of at least 64 columns (or 16 rows) so each call stays efficient.
  const bool by_columns = N >= 64 * threads || N >= M;
  const int64_t extent = by_columns ? N : M;
  const int64_t quantum = by_columns ? 16 : 4;
  const int64_t chunks = std::min<int64_t>(threads, (extent + quantum - 1) / quantum);
  const int64_t step = ((extent + chunks - 1) / chunks + quantum - 1) / quantum * quantum;
  const int64_t n_chunks = (extent + step - 1) / step;
  pool->parallel_for(
      n_chunks,
      [&](int64_t b, int64_t e) {
        for (int64_t ch = b; ch < e; ++ch) {
          const int64_t lo = ch * step, len = std::min(step, extent - lo);
          if (by_columns) {
            const T *Bb = tb ? B + lo * ldb : B + lo;
            gemm(ta, tb, M, len, K, alpha, A, lda, Bb, ldb, beta, C + lo, ldc);
          } else {
            const T *Ab = ta ? A + lo : A + lo * lda;
            gemm(ta, tb, len, N, K, alpha, Ab, lda, B, ldb, beta, C + lo * ldc, ldc);
          }
        }
      },
      n_chunks);
}

template void parallel_gemm<float>(ThreadPool *, bool, bool, int64_t, int64_t, int64_t, float, const float *, int64_t,
                                   const float *, int64_t, float, float *, int64_t);
template void parallel_gemm<double>(ThreadPool *, bool, bool, int64_t, int64_t, int64_t, double, const double *,
                                    int64_t, const double *, int64_t, double, double *, int64_t);

}  // namespace fdnn::cpu
