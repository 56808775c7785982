// CUDA runtime services for core code (built only with the CUDA backend).
// The runtime is linked statically; every call tolerates a machine with no
// driver or no GPU.
#include <cuda_runtime_api.h>

#include "core/error.hpp"
#include "core/gpu.hpp"

namespace fdnn::gpu {

namespace {
void check(cudaError_t e, const char *what) {
  if (e != cudaSuccess)
    fail(CUDNN_STATUS_EXECUTION_FAILED_CUDART, what, " failed: ", cudaGetErrorName(e), " (", cudaGetErrorString(e), ")");
}
}  // namespace

bool built_with_cuda() { return true; }

int device_count() {
  static const int count = [] {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
      cudaGetLastError();  // clear the sticky "no driver" error for the caller
      return 0;
    }
    return n;
  }();
  return count;
}

int current_device() {
  int d = 0;
  if (cudaGetDevice(&d) != cudaSuccess) return 0;
  return d;
}

int runtime_version() { return CUDART_VERSION; }

int max_device_version() { return 900; }  // sm_90a is the newest code we build

void synchronize(void *stream) { check(cudaStreamSynchronize(static_cast<cudaStream_t>(stream)), "cudaStreamSynchronize"); }

void memcpy_d2h(void *dst, const void *src, size_t bytes, void *stream) {
  check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, static_cast<cudaStream_t>(stream)), "cudaMemcpyAsync");
  synchronize(stream);
}

void memcpy_h2d(void *dst, const void *src, size_t bytes, void *stream) {
  check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, static_cast<cudaStream_t>(stream)), "cudaMemcpyAsync");
  synchronize(stream);
}

void *device_alloc(size_t bytes) {
  void *p = nullptr;
  cudaError_t e = cudaMalloc(&p, bytes ? bytes : 1);
  if (e != cudaSuccess) {
    cudaGetLastError();  // out-of-memory is not sticky; clear it for later calls
    fail(CUDNN_STATUS_ALLOC_FAILED, "cudaMalloc of ", bytes, " bytes of scratch memory failed: ", cudaGetErrorName(e));
  }
  return p;
}

void device_free(void *p) {
  if (p != nullptr) cudaFree(p);
}

}  // namespace fdnn::gpu
