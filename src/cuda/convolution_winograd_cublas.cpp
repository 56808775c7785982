#include "cuda/convolution_winograd_cublas.hpp"

#include <dlfcn.h>

#include <string>

#include "core/error.hpp"
#include "cuda/toolkit_library.hpp"

namespace fdnn::cuda {
namespace {

// The few entry points used, declared by their C ABI (cublas_api.h):
// statuses are ints, handles opaque pointers, CUBLAS_OP_N = 0, CUBLAS_OP_T = 1.
struct Cublas {
  using Create = int (*)(void **);
  using Destroy = int (*)(void *);
  using SetStream = int (*)(void *, void *);
  using SetMathMode = int (*)(void *, int);
  using Sgemm = int (*)(void *, int, int, int, int, int, const float *, const float *, int, long long, const float *,
                        int, long long, const float *, float *, int, long long, int);
  using Dgemm = int (*)(void *, int, int, int, int, int, const double *, const double *, int, long long,
                        const double *, int, long long, const double *, double *, int, long long, int);
  Create create = nullptr;
  Destroy destroy = nullptr;
  SetStream set_stream = nullptr;
  SetMathMode set_math_mode = nullptr;
  Sgemm sgemm = nullptr;
  Dgemm dgemm = nullptr;
  std::string why;

  Cublas() {
    void *lib = open_toolkit_library("libcublas", "cuBLAS", &why);
    if (lib == nullptr) return;
    create = reinterpret_cast<Create>(dlsym(lib, "cublasCreate_v2"));
    destroy = reinterpret_cast<Destroy>(dlsym(lib, "cublasDestroy_v2"));
    set_stream = reinterpret_cast<SetStream>(dlsym(lib, "cublasSetStream_v2"));
    set_math_mode = reinterpret_cast<SetMathMode>(dlsym(lib, "cublasSetMathMode"));
    sgemm = reinterpret_cast<Sgemm>(dlsym(lib, "cublasSgemmStridedBatched"));
    dgemm = reinterpret_cast<Dgemm>(dlsym(lib, "cublasDgemmStridedBatched"));
    if (!create || !destroy || !set_stream || !set_math_mode || !sgemm || !dgemm) {
      create = nullptr;
      why = "the cuBLAS library found lacks an entry point it needs";
    }
  }
};

const Cublas &cublas() {
  static const Cublas c;
  return c;
}

void check_cublas(int status, const char *what) {
  if (status != 0) fail(CUDNN_STATUS_EXECUTION_FAILED, what, " failed with cuBLAS status ", status);
}

}  // namespace

bool cublas_available(const char **why) {
  const Cublas &c = cublas();
  if (why != nullptr) *why = c.why.c_str();
  return c.create != nullptr;
}

CublasHandle::~CublasHandle() {
  if (handle_ != nullptr) cublas().destroy(handle_);
}

template <class T>
void CublasHandle::gemm_strided_batched(void *stream, bool trans_a, bool trans_b, int m, int n, int k, T alpha,
                                        const T *A, int lda, int64_t stride_a, const T *B, int ldb, int64_t stride_b,
                                        T beta, T *C, int ldc, int64_t stride_c, int batch) {
  const Cublas &c = cublas();
  if (c.create == nullptr) fail(CUDNN_STATUS_NOT_SUPPORTED, c.why);
  std::lock_guard<std::mutex> lock(mutex_);
  if (handle_ == nullptr) {
    check_cublas(c.create(&handle_), "cublasCreate");
    check_cublas(c.set_math_mode(handle_, 0 /* CUBLAS_DEFAULT_MATH: no TF32 */), "cublasSetMathMode");
  }
  check_cublas(c.set_stream(handle_, stream), "cublasSetStream");
  const int ta = trans_a ? 1 : 0, tb = trans_b ? 1 : 0;
  if constexpr (sizeof(T) == 4)
    check_cublas(c.sgemm(handle_, ta, tb, m, n, k, &alpha, A, lda, stride_a, B, ldb, stride_b, &beta, C, ldc,
                         stride_c, batch),
                 "cublasSgemmStridedBatched");
  else
    check_cublas(c.dgemm(handle_, ta, tb, m, n, k, &alpha, A, lda, stride_a, B, ldb, stride_b, &beta, C, ldc,
                         stride_c, batch),
                 "cublasDgemmStridedBatched");
}

template void CublasHandle::gemm_strided_batched<float>(void *, bool, bool, int, int, int, float, const float *, int,
                                                        int64_t, const float *, int, int64_t, float, float *, int,
                                                        int64_t, int);
template void CublasHandle::gemm_strided_batched<double>(void *, bool, bool, int, int, int, double, const double *,
                                                         int, int64_t, const double *, int, int64_t, double, double *,
                                                         int, int64_t, int);

}  // namespace fdnn::cuda
