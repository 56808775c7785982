// wgmma (sm_90a) filter gradient of 3x3 unit-stride convolutions, NHWC x / dy,
// KRSC dw, 16-bit operands, float accumulation. Standalone harness version.
//
// GEMM per block: rows = 64 filter outputs k per warpgroup, columns = the 3
// taps s of one filter row r times 64 channels c (192), reduction over the
// output pixels (n,p,q) of the block's split part, 64 pixels per stage.
// Both operands sit in shared memory "MN-major" (pixel rows of 64 channels,
// 128 bytes, 128-byte swizzle), the layout wgmma reads with its transpose
// flags set. Loads are cp.async with zero-fill (padding and the pixel tail).
#pragma once
#include <cstdint>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include "wgmma_ops.cuh"

namespace w4 {

__host__ __device__ constexpr int stages_for(int mw) { return mw == 2 ? 4 : 5; }
constexpr int kPix = 64;            // pixels per stage
constexpr int kSlabBytes = kPix * 128;  // one 64-channel slab of a stage
constexpr int kThreads = 256;

struct WgradParams {
  const void *x, *dy;
  float *partial;  // [parts][K][3][3][C]
  int N, H, W, C, K, P, Q, pad_h, pad_w;
  int npix, nchunks, splits;
  int desc_variant;  // 0: LBO = MN-atom stride, SBO = 8-row stride; 1: swapped
};

__device__ __forceinline__ uint32_t smem_u32(const void *p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void cp_async16(uint32_t dst, const void *src, bool valid) {
  int n = valid ? 16 : 0;
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(n));
}
__device__ __forceinline__ void cp_async16_ca(uint32_t dst, const void *src, bool valid) {
  int n = valid ? 16 : 0;
  asm volatile("cp.async.ca.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(n));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N>
__device__ __forceinline__ void cp_async_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N)); }

__device__ __forceinline__ void fence_proxy_async() { asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory"); }
__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
template <int N>
__device__ __forceinline__ void wgmma_wait() { asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory"); }

// Shared-memory matrix descriptor, 128-byte swizzle.
__device__ __forceinline__ uint64_t make_desc(uint32_t addr, uint32_t lbo, uint32_t sbo) {
  uint64_t d = 0;
  d |= static_cast<uint64_t>((addr & 0x3FFFF) >> 4);
  d |= static_cast<uint64_t>((lbo & 0x3FFFF) >> 4) << 16;
  d |= static_cast<uint64_t>((sbo & 0x3FFFF) >> 4) << 32;
  d |= 1ull << 62;
  return d;
}

// Byte offset of 16-byte chunk `chunk` (0..7) of pixel row `row` in a slab.
__device__ __forceinline__ uint32_t swz(int row, int chunk) {
  return static_cast<uint32_t>(row * 128 + ((chunk ^ (row & 7)) << 4));
}

template <bool BF16>
__device__ __forceinline__ void mma192(float (&d)[96], uint64_t a, uint64_t b, int scale) {
  if constexpr (BF16) wgmma_m64n192k16_bf16_tt(d, a, b, scale);
  else wgmma_m64n192k16_f16_tt(d, a, b, scale);
}

// KSPLIT: the two warpgroups take k rows 0-63 / 64-127 of a 128-row block
// (K % 128 == 0); otherwise (K == 64 or odd multiples) both take the same 64
// rows and split each stage's pixels, writing separate partials.
template <bool BF16, bool KSPLIT, bool XCA, int MW = 1>
__global__ void __launch_bounds__(kThreads, 1) wgrad_wgmma_kernel(const WgradParams p) {
  extern __shared__ __align__(1024) unsigned char smem_raw[];
  unsigned char *smem = reinterpret_cast<unsigned char *>((reinterpret_cast<uintptr_t>(smem_raw) + 1023) & ~uintptr_t(1023));
  constexpr int kStages = stages_for(MW);
  constexpr int kASlabs = KSPLIT ? 2 * MW : 1;
  constexpr int kStageBytes = (kASlabs + 3) * kSlabBytes;
  const int tid = threadIdx.x;
  const int wg = tid / 128;

  // Block coordinates: blockIdx.x = (kblk, r, cblk), blockIdx.y = split.
  const int cblocks = p.C / 64;
  int t = blockIdx.x;
  const int cblk = t % cblocks; t /= cblocks;
  const int r = t % 3; t /= 3;
  const int kblk = t;  // rows kblk*64*kASlabs
  const int k0 = kblk * 64 * kASlabs;
  const int c0 = cblk * 64;
  const int split = blockIdx.y;
  const int ch_begin = static_cast<int>((static_cast<long long>(p.nchunks) * split) / p.splits);
  const int ch_end = static_cast<int>((static_cast<long long>(p.nchunks) * (split + 1)) / p.splits);
  const int nit = ch_end - ch_begin;

  const uint16_t *x = static_cast<const uint16_t *>(p.x);
  const uint16_t *dy = static_cast<const uint16_t *>(p.dy);
  const uint32_t sbase = smem_u32(smem);
  const int PQ = p.P * p.Q;

  auto load_stage = [&](int it) {
    const uint32_t st = sbase + (it % kStages) * kStageBytes;
    const int pix0 = (ch_begin + it) * kPix;
    // x: 3 slabs (s = 0..2) x 64 rows x 8 chunks; thread: chunk tid%8, rows tid/8 + 32j.
    {
      const int chunk = tid & 7;
#pragma unroll
      for (int j = 0; j < 2; ++j) {
        const int row = (tid >> 3) + 32 * j;
        const int pix = pix0 + row;
        const bool in = pix < p.npix;
        int n = 0, pp = 0, q = 0;
        if (in) { n = pix / PQ; int rem = pix - n * PQ; pp = rem / p.Q; q = rem - pp * p.Q; }
        const int h = pp + r - p.pad_h;
        const bool hin = in && h >= 0 && h < p.H;
        const long long rowbase = (static_cast<long long>(n) * p.H + h) * p.W;
#pragma unroll
        for (int s = 0; s < 3; ++s) {
          const int w = q + s - p.pad_w;
          const bool ok = hin && w >= 0 && w < p.W;
          const uint16_t *src = ok ? x + (rowbase + w) * p.C + c0 + chunk * 8 : x;
          const uint32_t dst = st + (kASlabs + s) * kSlabBytes + swz(row, chunk);
          if constexpr (XCA) cp_async16_ca(dst, src, ok);
          else cp_async16(dst, src, ok);
        }
      }
    }
    // dy: kASlabs slabs x 64 rows x 8 chunks.
    {
      constexpr int kChunks = kASlabs * 8;
      constexpr int kRowsPerPass = kThreads / kChunks;
      const int cc = tid % kChunks;
#pragma unroll
      for (int j = 0; j < 64 / kRowsPerPass; ++j) {
        const int row = tid / kChunks + kRowsPerPass * j;
        const int pix = pix0 + row;
        const bool ok = pix < p.npix;
        const uint16_t *src = ok ? dy + static_cast<long long>(pix) * p.K + k0 + cc * 8 : dy;
        const uint32_t dst = st + (cc >> 3) * kSlabBytes + swz(row, cc & 7);
        cp_async16(dst, src, ok);
      }
    }
  };

  float acc[MW][96];
#pragma unroll
  for (int m = 0; m < MW; ++m)
#pragma unroll
    for (int i = 0; i < 96; ++i) acc[m][i] = 0.f;
#pragma unroll
  for (int m = 0; m < MW; ++m)
#pragma unroll
    for (int i = 0; i < 96; ++i) asm volatile("" : "+f"(acc[m][i])::"memory");

  const uint32_t lbo = p.desc_variant ? 1024u : static_cast<uint32_t>(kSlabBytes);
  const uint32_t sbo = p.desc_variant ? static_cast<uint32_t>(kSlabBytes) : 1024u;

#pragma unroll
  for (int it = 0; it < kStages - 2; ++it) {
    if (it < nit) load_stage(it);
    cp_async_commit();
  }
  for (int it = 0; it < nit; ++it) {
    cp_async_wait<kStages - 3>();
    fence_proxy_async();
    __syncthreads();
    if (it + kStages - 2 < nit) load_stage(it + kStages - 2);
    cp_async_commit();
    const uint32_t st = sbase + (it % kStages) * kStageBytes;
    const uint32_t a_base = st + (KSPLIT ? wg * MW * kSlabBytes : 0);
    const uint32_t b_base = st + kASlabs * kSlabBytes;
    wgmma_fence();
    if constexpr (KSPLIT) {
#pragma unroll
      for (int kk = 0; kk < 4; ++kk)
#pragma unroll
        for (int m = 0; m < MW; ++m)
          mma192<BF16>(acc[m], make_desc(a_base + m * kSlabBytes + kk * 2048, lbo, sbo), make_desc(b_base + kk * 2048, lbo, sbo), 1);
    } else {
#pragma unroll
      for (int kk = 0; kk < 2; ++kk) {
        const int k = wg * 2 + kk;
        mma192<BF16>(acc[0], make_desc(a_base + k * 2048, lbo, sbo), make_desc(b_base + k * 2048, lbo, sbo), 1);
      }
    }
    wgmma_commit();
    wgmma_wait<1>();
  }
  wgmma_wait<0>();

  // Epilogue: float partials, part = split (KSPLIT) or split*2 + wg.
  const int part = KSPLIT ? split : split * 2 + wg;
  const int warp = (tid & 127) / 32, lane = tid & 31;
#pragma unroll
  for (int m = 0; m < MW; ++m) {
  const int krow = k0 + (KSPLIT ? (wg * MW + m) * 64 : 0) + warp * 16 + lane / 4;
#pragma unroll
  for (int j = 0; j < 24; ++j) {
    const int n = j * 8 + (lane & 3) * 2;
    const int s = n / 64, c = c0 + (n & 63);
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int k = krow + 8 * h;
      float *dst = p.partial + ((static_cast<long long>(part) * p.K + k) * 9 + r * 3 + s) * p.C + c;
      *reinterpret_cast<float2 *>(dst) = make_float2(acc[m][j * 4 + 2 * h], acc[m][j * 4 + 2 * h + 1]);
    }
  }
  }
}

// Sums the parts and blends: dw = alpha * sum + beta * dw (beta == 0 never reads dw).
template <typename T>
__global__ void wgrad_reduce_kernel(const float *partial, int parts, long long elems, T *dw, float alpha, float beta) {
  long long i4 = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) * 4;
  if (i4 >= elems) return;
  float4 s = *reinterpret_cast<const float4 *>(partial + i4);
  for (int q = 1; q < parts; ++q) {
    float4 v = *reinterpret_cast<const float4 *>(partial + q * elems + i4);
    s.x += v.x; s.y += v.y; s.z += v.z; s.w += v.w;
  }
  float o[4] = {alpha * s.x, alpha * s.y, alpha * s.z, alpha * s.w};
  if (beta != 0.f) {
    for (int e = 0; e < 4; ++e) o[e] += beta * static_cast<float>(dw[i4 + e]);
  }
  for (int e = 0; e < 4; ++e) dw[i4 + e] = static_cast<T>(o[e]);
}

}  // namespace w4
