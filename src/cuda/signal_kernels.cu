// CUDA kernels of OPERATION_SIGNAL: one thread each. The flag may live in
// device, managed or host-mapped memory, so the accesses use generic
// addresses and system scope. sm_70 and later have the .sys release /
// acquire forms; older targets fall back to volatile accesses with system
// fences.
#include <cuda_runtime.h>

#include "cuda/cuda_util.hpp"
#include "cuda/signal_args.hpp"

namespace fdnn::cuda {
namespace {

__global__ void signal_set_kernel(int64_t *flag, int64_t value) {
  // The fence makes the writes of earlier work in the stream (the
  // pass-through copy, producers of x) visible system-wide before the store.
  __threadfence_system();
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
  asm volatile("st.release.sys.b64 [%0], %1;" ::"l"(flag), "l"(value) : "memory");
#else
  *reinterpret_cast<volatile int64_t *>(flag) = value;
  __threadfence_system();
#endif
}

__device__ inline int64_t load_acquire_sys(const int64_t *flag) {
  int64_t v;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
  asm volatile("ld.acquire.sys.b64 %0, [%1];" : "=l"(v) : "l"(flag) : "memory");
#else
  v = *reinterpret_cast<const volatile int64_t *>(flag);
  __threadfence_system();
#endif
  return v;
}

__global__ void signal_wait_kernel(const int64_t *flag, int64_t value) {
  while (load_acquire_sys(flag) != value) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
    __nanosleep(64);  // back off: the flag's writer may share the memory system
#endif
  }
}

}  // namespace

void launch_signal_set(int64_t *flag, int64_t value, void *stream) {
  signal_set_kernel<<<1, 1, 0, as_stream(stream)>>>(flag, value);
  check_launch("signal_set_kernel");
}

void launch_signal_wait(const int64_t *flag, int64_t value, void *stream) {
  signal_wait_kernel<<<1, 1, 0, as_stream(stream)>>>(flag, value);
  check_launch("signal_wait_kernel");
}

}  // namespace fdnn::cuda
