// Host-side helpers of the CUDA engines: error checks that turn CUDA errors
// into fdnn::Error, and cached device properties.
#pragma once

#include <cuda_runtime_api.h>

#include "core/error.hpp"

namespace fdnn::cuda {

inline void check_cuda(cudaError_t e, const char *what) {
  if (e != cudaSuccess)
    fail(CUDNN_STATUS_EXECUTION_FAILED_CUDART, what, " failed: ", cudaGetErrorName(e), " (", cudaGetErrorString(e),
         ")");
}

// After a kernel launch: reports launch errors (bad configuration, no kernel
// image for this GPU) without synchronising.
inline void check_launch(const char *kernel) {
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess)
    fail(CUDNN_STATUS_EXECUTION_FAILED_CUDART, "launch of ", kernel, " failed: ", cudaGetErrorName(e), " (",
         cudaGetErrorString(e), ")");
}

// What kernel planners ask about a device, queried once per device.
struct DeviceFacts {
  int device = 0;
  int sm_count = 1;
  int smem_optin = 0;  // opt-in shared memory per block, bytes
  int l2_bytes = 0;
  int cc_major = 0, cc_minor = 0;
  bool cooperative = false;  // cooperative (grid-synchronised) launches
};

// The current device's facts (thread-safe, cached per device). False, with
// the CUDA error cleared, when there is no current device or a query
// fails: planners then fall back to kernels that need none of them.
bool current_device_facts(DeviceFacts &out);

// Number of multiprocessors of the current device; fails (an fdnn::Error)
// when it cannot be queried.
int sm_count();

// Sets `kernel`'s dynamic shared-memory limit to `smem` bytes and, when
// carveout >= 0, its preferred shared-memory carveout (percent) on the
// current device, skipping the calls when this kernel already has these
// values there: cudaFuncSetAttribute costs microseconds, which kernels
// launched per convolution call should not pay every time.
void set_kernel_smem(const void *kernel, int smem, int carveout = -1);

inline cudaStream_t as_stream(void *s) { return static_cast<cudaStream_t>(s); }

// Bytes rounded up to a multiple of 256 (offsets of the regions a plan
// lays out in the handle's scratch).
inline size_t round256(size_t b) { return (b + 255) / 256 * 256; }

// Runs body(memory) with `bytes` of stream-ordered device memory taken for
// this call alone (no synchronisation; the driver's pool keeps later calls
// cheap) and released after it, also when body throws. For engines whose
// caller gave too little workspace, or none. `what` names the memory in
// errors.
template <class Body>
void with_stream_memory(size_t bytes, void *stream, const char *what, Body &&body) {
  cudaStream_t s = as_stream(stream);
  void *memory = nullptr;
  const cudaError_t e = cudaMallocAsync(&memory, bytes, s);
  if (e != cudaSuccess)
    fail(CUDNN_STATUS_EXECUTION_FAILED_CUDART, "cudaMallocAsync of ", bytes, " bytes (", what,
         ") failed: ", cudaGetErrorName(e));
  try {
    body(memory);
  } catch (...) {
    cudaFreeAsync(memory, s);
    throw;
  }
  check_cuda(cudaFreeAsync(memory, s), what);
}

inline bool aligned_to(const void *p, size_t bytes) { return (reinterpret_cast<uintptr_t>(p) % bytes) == 0; }

}  // namespace fdnn::cuda
