#include "cpu/blas.hpp"

#include <algorithm>
#include <mutex>

#include "core/thread_pool.hpp"

#ifdef FREEDNN_WITH_OPENBLAS
// Declared here rather than through <cblas.h>, whose installed variant
// (netlib or OpenBLAS) depends on the machine's alternatives; the enum
// parameters are passed as their int values (CblasRowMajor = 101, ...).
extern "C" {
void cblas_sgemm(int order, int trans_a, int trans_b, int m, int n, int k, float alpha, const float *a, int lda,
                 const float *b, int ldb, float beta, float *c, int ldc);
void cblas_dgemm(int order, int trans_a, int trans_b, int m, int n, int k, double alpha, const double *a, int lda,
                 const double *b, int ldb, double beta, double *c, int ldc);
void openblas_set_num_threads(int num_threads);
}
#endif

namespace fdnn::cpu {

namespace {

#ifdef FREEDNN_WITH_OPENBLAS
void single_threaded_blas() {
  static std::once_flag once;
  std::call_once(once, [] { openblas_set_num_threads(1); });
}
constexpr int kRowMajor = 101, kNoTrans = 111, kTrans = 112;
#endif

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

bool have_blas() {
#ifdef FREEDNN_WITH_OPENBLAS
  return true;
#else
  return false;
#endif
}

template <>
void gemm<float>(bool ta, bool tb, int64_t M, int64_t N, int64_t K, float alpha, const float *A, int64_t lda,
                 const float *B, int64_t ldb, float beta, float *C, int64_t ldc) {
  if (M <= 0 || N <= 0) return;
#ifdef FREEDNN_WITH_OPENBLAS
  single_threaded_blas();
  if (K == 0) return naive_gemm(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
  cblas_sgemm(kRowMajor, ta ? kTrans : kNoTrans, tb ? kTrans : kNoTrans, static_cast<int>(M), static_cast<int>(N),
              static_cast<int>(K), alpha, A, static_cast<int>(lda), B, static_cast<int>(ldb), beta, C,
              static_cast<int>(ldc));
#else
  naive_gemm(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
#endif
}

template <>
void gemm<double>(bool ta, bool tb, int64_t M, int64_t N, int64_t K, double alpha, const double *A, int64_t lda,
                  const double *B, int64_t ldb, double beta, double *C, int64_t ldc) {
  if (M <= 0 || N <= 0) return;
#ifdef FREEDNN_WITH_OPENBLAS
  single_threaded_blas();
  if (K == 0) return naive_gemm(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
  cblas_dgemm(kRowMajor, ta ? kTrans : kNoTrans, tb ? kTrans : kNoTrans, static_cast<int>(M), static_cast<int>(N),
              static_cast<int>(K), alpha, A, static_cast<int>(lda), B, static_cast<int>(ldb), beta, C,
              static_cast<int>(ldc));
#else
  naive_gemm(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
#endif
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
