// The warp-level tensor-core instructions the mma.sync kernels share
// (convolution_mma_kernel.cuh, convolution_stem.cu): ldmatrix loads of 8x8
// 16-bit tiles from shared memory and the m16n8k16 multiply-add with float
// accumulators, for HALF and BFLOAT16 operands (compute capability 8.0+).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "cuda/storage_types.cuh"

namespace fdnn::cuda {

// Four 8x8 tiles (a warp's 16 x 16 fragment) from the shared-memory address
// saddr each lane gives; TRANS transposes each tile as it loads.
template <bool TRANS>
__device__ inline void ldmatrix_x4(uint32_t (&r)[4], uint32_t saddr) {
  if (TRANS)
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(saddr));
  else
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(saddr));
}

// Two transposed 8x8 tiles (lanes 0-15 give the addresses).
__device__ inline void ldmatrix_x2_trans(uint32_t (&r)[2], uint32_t saddr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];\n"
               : "=r"(r[0]), "=r"(r[1])
               : "r"(saddr));
}

// D = A B + D, m16n8k16, float accumulators (no side effects: not volatile,
// so the compiler may interleave it with the next fragments' loads).
// Zeros a warp's M x N grid of m16n8 float accumulator fragments.
template <int M, int N>
__device__ inline void zero_fragments(float (&acc)[M][N][4]) {
#pragma unroll
  for (int i = 0; i < M; ++i)
#pragma unroll
    for (int j = 0; j < N; ++j)
#pragma unroll
      for (int v = 0; v < 4; ++v) acc[i][j][v] = 0.0f;
}

template <class TI>
__device__ inline void mma16816(float (&c)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1);
template <>
__device__ inline void mma16816<half_bits>(float (&c)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
  asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%0, %1, %2, %3};\n"
      : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
template <>
__device__ inline void mma16816<bf16_bits>(float (&c)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
  asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%0, %1, %2, %3};\n"
      : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

}  // namespace fdnn::cuda
