// Asynchronous global -> shared copies (cp.async, sm_80 and later): the
// operand pipelines of the tensor-core convolution kernels and the channel
// rings of the LRN kernels.
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
// The same through L1 (.ca): for gathers whose neighbours re-read the same
// lines soon (the wgmma forward's x).
__device__ inline void cp_async16_ca(uint32_t saddr, const void *gmem, bool valid) {
  const int n = valid ? 16 : 0;
  asm volatile("cp.async.ca.shared.global [%0], [%1], 16, %2;\n" ::"r"(saddr), "l"(gmem), "r"(n));
}
__device__ inline void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
// Waits until every copy this thread issued has landed.
__device__ inline void cp_async_wait_all() { asm volatile("cp.async.wait_all;\n" ::: "memory"); }
// Waits until at most N committed groups are still in flight.
template <int N>
__device__ inline void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}

// The ordered forms: the same copies (B = 4, 8 or 16 bytes, zeros when
// !valid) and group operations, with "memory" clobbers, for kernels that read
// a ring in shared memory right after the wait with no barrier in between
// (each thread reads only slots it filled itself): the clobbers keep the
// compiler from moving those plain shared-memory reads above the wait. The
// kernels above put a barrier between wait and read and do without them.
template <int B>
__device__ inline void cp_async_ordered(uint32_t saddr, const void *gmem, bool valid) {
  static_assert(B == 4 || B == 8 || B == 16, "cp.async copies 4, 8 or 16 bytes");
  if constexpr (B == 16)
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(saddr), "l"(gmem), "r"(valid ? 16 : 0)
                 : "memory");
  else
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"(saddr), "l"(gmem), "n"(B),
                 "r"(valid ? B : 0)
                 : "memory");
}
__device__ inline void cp_async_commit_ordered() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int N>
__device__ inline void cp_async_wait_ordered() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

}  // namespace fdnn::cuda
