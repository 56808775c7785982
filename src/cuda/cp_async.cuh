// Asynchronous global -> shared copies (cp.async, sm_80 and later): the
// operand pipelines of the tensor-core convolution kernels.
#pragma once

#include <cstdint>

namespace fdnn::cuda {

// 16 bytes from gmem into shared address `saddr`, or 16 zero bytes when
// !valid (padding and gaps read as zeros without a branch).
__device__ inline void cp_async16(uint32_t saddr, const void *gmem, bool valid) {
  const int n = valid ? 16 : 0;
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(saddr), "l"(gmem), "r"(n));
}
__device__ inline void cp_async16(void *smem, const void *gmem, bool valid) {
  cp_async16(static_cast<uint32_t>(__cvta_generic_to_shared(smem)), gmem, valid);
}
__device__ inline void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
// Waits until every copy this thread issued has landed.
__device__ inline void cp_async_wait_all() { asm volatile("cp.async.wait_all;\n" ::: "memory"); }
// Waits until at most N committed groups are still in flight.
template <int N>
__device__ inline void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}

}  // namespace fdnn::cuda
