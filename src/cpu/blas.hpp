// Row-major GEMM for the CPU engines: OpenBLAS when the machine has it
// (opened at first use, with kernels chosen for the CPU: see blas.cpp), else
// a plain loop. OpenBLAS runs single-threaded: the engines split their GEMMs
// over our own thread pool (ExecContext::pool), so that the library's threads
// are the only ones and FREEDNN_NUM_THREADS governs all of them.
#pragma once

#include <cstdint>

namespace fdnn {
class ThreadPool;
}

namespace fdnn::cpu {

// C[M x N] = alpha * op(A) op(B) + beta * C, row-major; op transposes when
// trans_*; beta == 0 never reads C (NaN in C does not survive).
template <class T>
void gemm(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, T alpha, const T *A, int64_t lda,
          const T *B, int64_t ldb, T beta, T *C, int64_t ldc);

// The same, split over the pool: column blocks of C when N is large enough,
// else row blocks.
template <class T>
void parallel_gemm(ThreadPool *pool, bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, T alpha,
                   const T *A, int64_t lda, const T *B, int64_t ldb, T beta, T *C, int64_t ldc);

// True when OpenBLAS could be opened.
bool have_blas();
// The OpenBLAS kernel family in use ("SkylakeX", ...), "none" without it.
const char *blas_core();

}  // namespace fdnn::cpu
