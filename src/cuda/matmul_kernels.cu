// CUDA matmul: 64x64 tiles of c per block, 16-deep slices of k staged in
// shared memory, 4x4 outputs per thread, float (or double) accumulation.
// Any strides: every load goes through the row/column strides, so row- and
// column-major operands need no copies. A plain FMA kernel: correct for
// every type and layout; tensor cores are a later engine's job.
#include <cuda_runtime.h>

#include "cuda/cuda_util.hpp"
#include "cuda/matmul_args.hpp"
#include "cuda/storage_types.cuh"

namespace fdnn::cuda {
namespace {

constexpr int kTile = 64, kDepth = 16, kThreads = 256, kPer = 4;

template <class S, class C>
__device__ inline C ld(const void *p, int64_t i) {
  return Storage<S>::template load<C>(static_cast<const S *>(p)[i]);
}

template <class SA, class SB, class SC, class C>
__global__ void __launch_bounds__(kThreads) matmul_kernel(MatmulArgs a) {
  __shared__ C as[kDepth][kTile + 1];
  __shared__ C bs[kDepth][kTile + 1];
  // Batch offsets.
  int64_t rest = blockIdx.z, ao = 0, bo = 0, co = 0;
  for (int d = a.batch_dims - 1; d >= 0; --d) {
    const int64_t i = rest % a.batch_extent[d];
    rest /= a.batch_extent[d];
    ao += i * a.a_bs[d];
    bo += i * a.b_bs[d];
    co += i * a.c_bs[d];
  }
  const int64_t row0 = static_cast<int64_t>(blockIdx.y) * kTile, col0 = static_cast<int64_t>(blockIdx.x) * kTile;
  const int tr = threadIdx.x / 16, tc = threadIdx.x % 16;  // 16x16 threads, 4x4 outputs each
  C acc[kPer][kPer] = {};
  for (int64_t k0 = 0; k0 < a.k; k0 += kDepth) {
    // Stage a[row0:+64, k0:+16] and b[k0:+16, col0:+64]: 1024 elements each.
    for (int e = threadIdx.x; e < kTile * kDepth; e += kThreads) {
      const int r = e / kDepth, kk = e % kDepth;  // a: consecutive threads walk k
      const int64_t gr = row0 + r, gk = k0 + kk;
      as[kk][r] = (gr < a.m && gk < a.k) ? ld<SA, C>(a.a, ao + gr * a.a_rs + gk * a.a_cs) : C(0);
      const int kb = e / kTile, cc = e % kTile;  // b: consecutive threads walk n
      const int64_t gkb = k0 + kb, gc = col0 + cc;
      bs[kb][cc] = (gkb < a.k && gc < a.n) ? ld<SB, C>(a.b, bo + gkb * a.b_rs + gc * a.b_cs) : C(0);
    }
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < kDepth; ++kk) {
      C av[kPer], bv[kPer];
#pragma unroll
      for (int i = 0; i < kPer; ++i) av[i] = as[kk][tr + 16 * i];
#pragma unroll
      for (int j = 0; j < kPer; ++j) bv[j] = bs[kk][tc + 16 * j];
#pragma unroll
      for (int i = 0; i < kPer; ++i)
#pragma unroll
        for (int j = 0; j < kPer; ++j) acc[i][j] += av[i] * bv[j];
    }
    __syncthreads();
  }
  const C alpha = static_cast<C>(a.alpha), beta = static_cast<C>(a.beta);
#pragma unroll
  for (int i = 0; i < kPer; ++i)
#pragma unroll
    for (int j = 0; j < kPer; ++j) {
      const int64_t gr = row0 + tr + 16 * i, gc = col0 + tc + 16 * j;
      if (gr >= a.m || gc >= a.n) continue;
      SC *out = static_cast<SC *>(a.c) + co + gr * a.c_rs + gc * a.c_cs;
      C v = alpha * acc[i][j];
      if (beta != C(0)) v += beta * Storage<SC>::template load<C>(*out);  // beta == 0 never reads c
      *out = Storage<SC>::store(v);
    }
}

template <class C, class SA, class SB, class SC>
void launch3(const MatmulArgs &a, cudaStream_t stream) {
  check_arg(a.batches < 65536, "cuda.matmul: at most 65535 batches");
  const dim3 grid(static_cast<unsigned>((a.n + kTile - 1) / kTile), static_cast<unsigned>((a.m + kTile - 1) / kTile),
                  static_cast<unsigned>(a.batches));
  matmul_kernel<SA, SB, SC, C><<<grid, kThreads, 0, stream>>>(a);
  check_launch("matmul_kernel");
}

}  // namespace

void launch_matmul(const MatmulArgs &a, void *stream_p) {
  if (a.m == 0 || a.n == 0 || a.batches == 0) return;
  // The engine admits a, b and c of one type only (four kernels, not 64).
  cudaStream_t stream = as_stream(stream_p);
  switch (a.dtype_c) {
    case CUDNN_DATA_FLOAT: launch3<float, float, float, float>(a, stream); break;
    case CUDNN_DATA_DOUBLE: launch3<double, double, double, double>(a, stream); break;
    case CUDNN_DATA_HALF: launch3<float, half_bits, half_bits, half_bits>(a, stream); break;
    case CUDNN_DATA_BFLOAT16: launch3<float, bf16_bits, bf16_bits, bf16_bits>(a, stream); break;
    default: fail(CUDNN_STATUS_NOT_SUPPORTED, "cuda.matmul: unsupported data type ", a.dtype_c);
  }
}

}  // namespace fdnn::cuda
