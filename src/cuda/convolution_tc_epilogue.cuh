// The epilogue of the tensor-core implicit GEMMs (convolution_wmma.cu,
// convolution_mma.cu): the block's BM x BN float tile, staged in shared
// memory as Cs[BM][BN + 4], goes out with the output's own offsets
// (channels along the warp; 16-byte runs of 8 channels when the output is
// channels-innermost, ConvArgs::vec_out), blending alpha and beta (beta == 0
// never reads the output); a split reduction writes float partials
// ([split][G][M][Ncol], float4 rows when Ncol allows) that
// launch_conv_finalize sums in a fixed order.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "cuda/convolution_index.cuh"

namespace fdnn::cuda {

// Row stride (floats) of the staged tile.
template <int BN>
constexpr int tc_epilogue_ldc() {
  return BN + 4;
}

// Shared memory the epilogue needs: the tile and the per-row / per-column
// output offsets.
constexpr size_t tc_epilogue_smem(int BM, int BN) { return size_t(BM) * (BN + 4) * 4 + size_t(BM + BN) * 4; }

// The fused split reduction (a.fused_split, Ncol % 4 == 0): after every
// thread has written the block's partial tile, the last block of the tile's
// a.split parts to arrive sums the parts in part order (the same sum, in the
// same order, as launch_conv_finalize: deterministic whatever the arrival
// order) and blends into the output. The partials are read through L2
// (__ldcg): other blocks wrote them.
template <class TO, int BM, int BN, int THREADS>
__device__ inline void conv_tc_fused_split(const ConvArgs &a, const int *srow, const int *scol, int g, int m0, int n0,
                                           int tid) {
  __shared__ int is_last;
  unsigned *count = a.split_counts + (static_cast<int64_t>(g) * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
  __threadfence();  // this block's partials are visible before it is counted
  __syncthreads();
  if (tid == 0) is_last = atomicAdd(count, 1u) == static_cast<unsigned>(a.split - 1);
  __syncthreads();
  if (!is_last) return;
  __threadfence();  // the other blocks' partials, counted before, are read after
  const int64_t part_stride = static_cast<int64_t>(a.G) * a.M * a.Ncol;
  const float *src = static_cast<const float *>(a.partial) + static_cast<int64_t>(g) * a.M * a.Ncol;
  TO *out = static_cast<TO *>(a.dst);
  const float alpha = static_cast<float>(a.alpha), beta = static_cast<float>(a.beta);
  for (int idx = tid; idx < BM * BN / 4; idx += THREADS) {
    const int row = idx / (BN / 4), col = (idx % (BN / 4)) * 4;
    const int m = m0 + row, c = n0 + col;
    if (m >= a.M || c >= a.Ncol) continue;
    const float *p = src + static_cast<int64_t>(m) * a.Ncol + c;
    float4 s = __ldcg(reinterpret_cast<const float4 *>(p));
    for (int q = 1; q < a.split; ++q) {
      const float4 v = __ldcg(reinterpret_cast<const float4 *>(p + q * part_stride));
      s.x += v.x, s.y += v.y, s.z += v.z, s.w += v.w;
    }
    const int ro = srow[row];
    blend_store<TO, float>(out, ro + scol[col], s.x, alpha, beta);
    blend_store<TO, float>(out, ro + scol[col + 1], s.y, alpha, beta);
    blend_store<TO, float>(out, ro + scol[col + 2], s.z, alpha, beta);
    blend_store<TO, float>(out, ro + scol[col + 3], s.w, alpha, beta);
  }
  if (tid == 0) *count = 0;  // ready for the next launch (the engine also clears the counts)
}

// Call with Cs filled by every thread of the block, before any barrier: the
// function publishes the offsets and synchronises itself. smem_raw is the
// start of the block's shared memory (Cs at its start).
template <int DIR, class TO, int BM, int BN, int THREADS>
__device__ inline void conv_tc_epilogue(const ConvArgs &a, unsigned char *smem_raw, int g, int part, int m0, int n0,
                                        int tid) {
  using Ix = ConvIndex<DIR>;
  constexpr int LDC = tc_epilogue_ldc<BN>();
  const float *Cs = reinterpret_cast<const float *>(smem_raw);
  int *srow = reinterpret_cast<int *>(smem_raw + size_t(BM) * LDC * 4);
  int *scol = srow + BM;
  if (a.split == 1 || a.fused_split) {
    for (int i = tid; i < BM + BN; i += THREADS) {
      if (i < BM) {
        const int m = m0 + i;
        srow[i] = m < a.M ? Ix::out_row(a, g, m) : -1;
      } else {
        const int col = n0 + i - BM;
        scol[i - BM] = col < a.Ncol ? Ix::out_col(a, g, col) : -1;
      }
    }
  }
  __syncthreads();
  if (a.split == 1) {
    TO *out = static_cast<TO *>(a.dst);
    const float alpha = static_cast<float>(a.alpha), beta = static_cast<float>(a.beta);
    if constexpr (sizeof(TO) == 2) {
      if (a.vec_out) {
        // Runs of 8 columns are 8 contiguous, 16-byte aligned outputs.
        for (int idx = tid; idx < BM * BN / 8; idx += THREADS) {
          const int row = idx / (BN / 8), col = (idx % (BN / 8)) * 8;
          const int ro = srow[row], co = scol[col];
          if (ro < 0 || co < 0) continue;
          const float4 v0 = *reinterpret_cast<const float4 *>(Cs + row * LDC + col);
          const float4 v1 = *reinterpret_cast<const float4 *>(Cs + row * LDC + col + 4);
          const float r[8] = {v0.x, v0.y, v0.z, v0.w, v1.x, v1.y, v1.z, v1.w};
          Pack<TO, 8> *p = reinterpret_cast<Pack<TO, 8> *>(out + ro + co);
          Pack<TO, 8> o;
          if (beta != 0.0f) {
            const Pack<TO, 8> old = *p;
#pragma unroll
            for (int j = 0; j < 8; ++j)
              o.v[j] = Storage<TO>::store(alpha * r[j] + beta * Storage<TO>::template load<float>(old.v[j]));
          } else {
#pragma unroll
            for (int j = 0; j < 8; ++j) o.v[j] = Storage<TO>::store(alpha * r[j]);
          }
          *p = o;
        }
        return;
      }
    }
    for (int idx = tid; idx < BM * BN; idx += THREADS) {
      const int row = idx / BN, col = idx % BN;
      const int ro = srow[row], co = scol[col];
      if (ro < 0 || co < 0) continue;
      blend_store<TO, float>(out, ro + co, Cs[row * LDC + col], alpha, beta);
    }
  } else {
    float *dst = static_cast<float *>(a.partial) + (static_cast<int64_t>(part) * a.G + g) * a.M * a.Ncol;
    if (a.Ncol % 4 == 0) {
      for (int idx = tid; idx < BM * BN / 4; idx += THREADS) {
        const int row = idx / (BN / 4), col = (idx % (BN / 4)) * 4;
        const int m = m0 + row, c = n0 + col;
        if (m < a.M && c < a.Ncol)
          *reinterpret_cast<float4 *>(dst + static_cast<int64_t>(m) * a.Ncol + c) =
              *reinterpret_cast<const float4 *>(Cs + row * LDC + col);
      }
      if (a.fused_split) conv_tc_fused_split<TO, BM, BN, THREADS>(a, srow, scol, g, m0, n0, tid);
      return;
    }
    for (int idx = tid; idx < BM * BN; idx += THREADS) {
      const int row = idx / BN, col = idx % BN;
      const int m = m0 + row, c = n0 + col;
      if (m < a.M && c < a.Ncol) dst[static_cast<int64_t>(m) * a.Ncol + c] = Cs[row * LDC + col];
    }
  }
}

}  // namespace fdnn::cuda
