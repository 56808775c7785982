// cuBLAS for the batched GEMMs of cuda.conv.winograd, opened at first use
// (dlopen) rather than linked: libcudnn.so.9 must load on machines with no
// CUDA toolkit, and without cuBLAS the Winograd engine simply reports the
// algorithm as not supported. Only FMA arithmetic: the handles keep
// CUBLAS_DEFAULT_MATH, under which SGEMM never uses TF32 tensor cores.
#pragma once

#include <cstdint>
#include <mutex>

namespace fdnn::cuda {

// Whether libcublas could be opened (tried once per process); when not,
// `why` says what was tried.
bool cublas_available(const char **why = nullptr);

// One cuBLAS handle, created on first use on the current device, destroyed
// with the object; calls are serialised (a handle has one stream at a time).
class CublasHandle {
 public:
  CublasHandle() = default;
  ~CublasHandle();
  CublasHandle(const CublasHandle &) = delete;
  CublasHandle &operator=(const CublasHandle &) = delete;

  // Column-major strided batched GEMM: C_b = alpha op(A_b) op(B_b) + beta C_b.
  template <class T>
  void gemm_strided_batched(void *stream, bool trans_a, bool trans_b, int m, int n, int k, T alpha, const T *A,
                            int lda, int64_t stride_a, const T *B, int ldb, int64_t stride_b, T beta, T *C, int ldc,
                            int64_t stride_c, int batch);

 private:
  void *handle_ = nullptr;
  std::mutex mutex_;
};

}  // namespace fdnn::cuda
