// The tensor-core implicit GEMM of cuda.conv.implicit_gemm for HALF and
// BFLOAT16 data (float accumulation), for problems whose two inputs can be
// gathered as 16-byte runs of 8 channels (channels-innermost tensors with
// per-group channel counts that are multiples of 8, see the engine):
//   forward          A = x   runs along r (c)     B = w  runs along r (c)
//   backward data    A = dy  runs along r (k)     B = w  runs along col (c)
//   backward filter  A = dy  runs along m (k)     B = x  runs along col (c)
// A block computes a 128 x 128 tile with 8 warps (each 64 x 32: 4 x 2 WMMA
// 16x16x16 fragments), or 128 x 64 / 64 x 128 (32 x 32 per warp) when the
// columns / rows are at most 64 (128 x 256, 256 x 128 and 256 x 64 tiles with
// 64 x 64 warps and 4 stages measured slower on the H100's batch-256 ResNet-50
// layers: one block per multiprocessor); the operands go global -> shared
// with cp.async (zero-filled for padding and stride gaps) through a 3-stage
// pipeline, 32 deep in the reduction per stage. The epilogue
// (convolution_tc_epilogue.cuh, shared with convolution_mma.cu) stages the
// tile in shared memory and writes it with the output's own offsets,
// blending alpha and beta, or float partials of a split reduction.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <mma.h>

#include <cstdint>

#include "core/error.hpp"
#include "cuda/convolution_index.cuh"
#include "cuda/cp_async.cuh"
#include "cuda/convolution_tc_epilogue.cuh"
#include "cuda/cuda_util.hpp"

namespace fdnn::cuda {
namespace {

using namespace nvcuda;

constexpr int kThreads = 256;
// Block tiles BM x BN (see conv_wmma_tile).
constexpr int BK = 32, PAD = 8;

// Shared-memory extents of one operand tile: runs along the reduction give
// [rows][BK + PAD], runs along rows/cols give [BK][rows + PAD].
template <bool VEC_R>
constexpr int tile_elems(int rows) {
  return VEC_R ? rows * (BK + PAD) : BK * (rows + PAD);
}

template <class WT>
struct WmmaElem;
template <>
struct WmmaElem<half_bits> {
  using T = __half;
};
template <>
struct WmmaElem<bf16_bits> {
  using T = __nv_bfloat16;
};

// Warps along M (8 / WARPS_M along N): 2 x 4 (64 x 32 each) for 128 x 128,
// 4 x 2 (32 x 32) for 128 x 64, 2 x 4 (32 x 32) for 64 x 128; the pipeline
// depth (4 stages for 256-wide tiles) and the shared-memory size below also
// fit the larger tiles that were measured (see the header).
constexpr int warps_m(int BM, int BN) { return BN == 128 && BM <= 128 ? 2 : BN == 256 ? 2 : 4; }
constexpr int stages(int BM, int BN) { return BM >= 256 || BN >= 256 ? 4 : 3; }

template <int DIR, class TI, class TO, bool A_VEC_R, bool B_VEC_R, int BM, int BN>
__global__ void __launch_bounds__(kThreads) conv_wmma_kernel(const ConvArgs a) {
  using Ix = ConvIndex<DIR>;
  using WT = typename WmmaElem<TI>::T;
  constexpr int WARPS_M = warps_m(BM, BN), WARPS_N = 8 / WARPS_M, STAGES = stages(BM, BN);
  constexpr int FM = BM / WARPS_M / 16, FN = BN / WARPS_N / 16;
  constexpr int ALOADS = BM * BK / 8 / kThreads, BLOADS = BN * BK / 8 / kThreads;
  constexpr int SA = tile_elems<A_VEC_R>(BM), SB = tile_elems<B_VEC_R>(BN);
  extern __shared__ __align__(128) unsigned char smem_raw[];
  WT *smem = reinterpret_cast<WT *>(smem_raw);
  const TI *__restrict__ Ap = static_cast<const TI *>(a.A);
  const TI *__restrict__ Bp = static_cast<const TI *>(a.B);

  const int tid = threadIdx.x, warp = tid / 32;
  const int g = blockIdx.z / a.split, part = blockIdx.z % a.split;
  const int m0 = blockIdx.x * BM, n0 = blockIdx.y * BN;
  const int r_begin = part * a.chunk;
  const int r_end = min(a.R, r_begin + a.chunk);

  // Each thread moves ALOADS runs of A and BLOADS of B per stage.
  Line arow[ALOADS], bcol[BLOADS];
  int a_rowi[ALOADS], a_kk[ALOADS], b_coli[BLOADS], b_kk[BLOADS];
  bool aval[ALOADS], bval[BLOADS];
#pragma unroll
  for (int e = 0; e < ALOADS; ++e) {
    const int idx = tid + e * kThreads;
    // The coordinate along the run is the same for every e (written from
    // tid alone), so the loads of one thread share r and its index math.
    if (A_VEC_R) {
      a_rowi[e] = idx / (BK / 8);
      a_kk[e] = (tid % (BK / 8)) * 8;
    } else {
      a_rowi[e] = (tid % (BM / 8)) * 8;
      a_kk[e] = idx / (BM / 8);
    }
    aval[e] = m0 + a_rowi[e] < a.M;
    if (aval[e]) arow[e] = Ix::a_row(a, g, m0 + a_rowi[e]);
  }
#pragma unroll
  for (int e = 0; e < BLOADS; ++e) {
    const int idx = tid + e * kThreads;
    if (B_VEC_R) {
      b_coli[e] = idx / (BK / 8);
      b_kk[e] = (tid % (BK / 8)) * 8;
    } else {
      b_coli[e] = (tid % (BN / 8)) * 8;
      b_kk[e] = idx / (BN / 8);
    }
    bval[e] = n0 + b_coli[e] < a.Ncol;
    if (bval[e]) bcol[e] = Ix::b_col(a, g, n0 + b_coli[e]);
  }

  const auto load_stage = [&](int stage, int k0) {
    WT *As = smem + stage * (SA + SB);
    WT *Bs = As + SA;
#pragma unroll
    for (int e = 0; e < ALOADS; ++e) {
      const int r = k0 + a_kk[e];
      const int off = (aval[e] && r < r_end) ? Ix::a_off(a, arow[e], r) : -1;
      WT *dst = A_VEC_R ? As + a_rowi[e] * (BK + PAD) + a_kk[e] : As + a_kk[e] * (BM + PAD) + a_rowi[e];
      cp_async16(dst, off >= 0 ? static_cast<const void *>(Ap + off) : a.A, off >= 0);
    }
#pragma unroll
    for (int e = 0; e < BLOADS; ++e) {
      const int r = k0 + b_kk[e];
      const int off = (bval[e] && r < r_end) ? Ix::b_off(a, bcol[e], r) : -1;
      WT *dst = B_VEC_R ? Bs + b_coli[e] * (BK + PAD) + b_kk[e] : Bs + b_kk[e] * (BN + PAD) + b_coli[e];
      cp_async16(dst, off >= 0 ? static_cast<const void *>(Bp + off) : a.B, off >= 0);
    }
  };

  using ALayout = typename std::conditional<A_VEC_R, wmma::row_major, wmma::col_major>::type;
  using BLayout = typename std::conditional<B_VEC_R, wmma::col_major, wmma::row_major>::type;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[FM][FN];
#pragma unroll
  for (int i = 0; i < FM; ++i)
#pragma unroll
    for (int j = 0; j < FN; ++j) wmma::fill_fragment(acc[i][j], 0.0f);
  const int wm = (warp % WARPS_M) * (BM / WARPS_M), wn = (warp / WARPS_M) * (BN / WARPS_N);

  const int nk = r_end > r_begin ? (r_end - r_begin + BK - 1) / BK : 0;
#pragma unroll
  for (int st = 0; st < STAGES - 1; ++st) {
    if (st < nk) load_stage(st, r_begin + st * BK);
    cp_async_commit();
  }
  for (int kt = 0; kt < nk; ++kt) {
    cp_async_wait<STAGES - 2>();
    __syncthreads();
    if (kt + STAGES - 1 < nk) load_stage((kt + STAGES - 1) % STAGES, r_begin + (kt + STAGES - 1) * BK);
    cp_async_commit();
    const WT *As = smem + (kt % STAGES) * (SA + SB);
    const WT *Bs = As + SA;
#pragma unroll
    for (int kk = 0; kk < BK; kk += 16) {
      wmma::fragment<wmma::matrix_a, 16, 16, 16, WT, ALayout> fa[FM];
      wmma::fragment<wmma::matrix_b, 16, 16, 16, WT, BLayout> fb[FN];
#pragma unroll
      for (int i = 0; i < FM; ++i) {
        const int row = wm + i * 16;
        if (A_VEC_R) wmma::load_matrix_sync(fa[i], As + row * (BK + PAD) + kk, BK + PAD);
        else wmma::load_matrix_sync(fa[i], As + kk * (BM + PAD) + row, BM + PAD);
      }
#pragma unroll
      for (int j = 0; j < FN; ++j) {
        const int col = wn + j * 16;
        if (B_VEC_R) wmma::load_matrix_sync(fb[j], Bs + col * (BK + PAD) + kk, BK + PAD);
        else wmma::load_matrix_sync(fb[j], Bs + kk * (BN + PAD) + col, BN + PAD);
      }
#pragma unroll
      for (int i = 0; i < FM; ++i)
#pragma unroll
        for (int j = 0; j < FN; ++j) wmma::mma_sync(acc[i][j], fa[i], fb[j], acc[i][j]);
    }
  }
  cp_async_wait<0>();
  __syncthreads();

  // Epilogue: the tile through shared memory, then out with its offsets.
  constexpr int LDC = tc_epilogue_ldc<BN>();
  float *Cs = reinterpret_cast<float *>(smem_raw);
#pragma unroll
  for (int i = 0; i < FM; ++i)
#pragma unroll
    for (int j = 0; j < FN; ++j)
      wmma::store_matrix_sync(Cs + (wm + i * 16) * LDC + wn + j * 16, acc[i][j], LDC, wmma::mem_row_major);
  conv_tc_epilogue<DIR, TO, BM, BN, kThreads>(a, smem_raw, g, part, m0, n0, tid);
}

// The pipeline, or the epilogue's float tile and offsets, whichever is larger
// (each operand tile bounded by its larger form).
constexpr size_t smem_bytes(int BM, int BN) {
  const size_t pipe = size_t(stages(BM, BN)) * ((BM + BN) * (BK + PAD) + 2 * PAD * BK) * 2;
  const size_t epi = tc_epilogue_smem(BM, BN);
  return pipe > epi ? pipe : epi;
}

template <int DIR, class TI, class TO, bool AV, bool BV, int BM, int BN>
void launch_wmma_shape(const ConvArgs &a, cudaStream_t s) {
  const auto kernel = conv_wmma_kernel<DIR, TI, TO, AV, BV, BM, BN>;
  // More than 48 KB of dynamic shared memory needs the attribute (per device).
  constexpr size_t smem = smem_bytes(BM, BN);
  check_cuda(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)),
             "cudaFuncSetAttribute");
  const dim3 grid((a.M + BM - 1) / BM, (a.Ncol + BN - 1) / BN, a.G * a.split);
  kernel<<<grid, kThreads, smem, s>>>(a);
  check_launch("conv_wmma_kernel");
}

template <int DIR, class TI, class TO, bool AV, bool BV>
void launch_wmma_kernel(const ConvArgs &a, cudaStream_t s) {
  int bm, bn, bk;
  conv_wmma_tile(a.M, a.Ncol, a.R, &bm, &bn, &bk);
  if (bn == 64) launch_wmma_shape<DIR, TI, TO, AV, BV, 128, 64>(a, s);
  else if (bm == 64) launch_wmma_shape<DIR, TI, TO, AV, BV, 64, 128>(a, s);
  else launch_wmma_shape<DIR, TI, TO, AV, BV, 128, 128>(a, s);
}

template <class TI, class TO>
void launch_dir(const ConvArgs &a, cudaStream_t s) {
  switch (a.dir) {
    case kConvFwd: launch_wmma_kernel<kConvFwd, TI, TO, true, true>(a, s); return;
    case kConvBwdData: launch_wmma_kernel<kConvBwdData, TI, TO, true, false>(a, s); return;
    case kConvBwdFilter: launch_wmma_kernel<kConvBwdFilter, TI, TO, false, false>(a, s); return;
    default: break;
  }
  fail(CUDNN_STATUS_INTERNAL_ERROR, "no tensor-core convolution kernel for direction ", a.dir);
}

}  // namespace

void launch_conv_wmma(const ConvArgs &a, ConvTypes t, void *stream) {
  const cudaStream_t s = as_stream(stream);
  switch (t) {
    case ConvTypes::f16: launch_dir<half_bits, half_bits>(a, s); break;
    case ConvTypes::bf16: launch_dir<bf16_bits, bf16_bits>(a, s); break;
    // Float outputs: the bias-activation forward, and the filter gradient
    // into the float buffer of the few-channel path (convolution_engine.cpp).
    case ConvTypes::f16_to_f32:
      if (a.dir == kConvBwdFilter) launch_wmma_kernel<kConvBwdFilter, half_bits, float, false, false>(a, s);
      else if (a.dir == kConvFwd) launch_wmma_kernel<kConvFwd, half_bits, float, true, true>(a, s);
      else fail(CUDNN_STATUS_INTERNAL_ERROR, "mixed types: forward and filter gradient only");
      break;
    case ConvTypes::bf16_to_f32:
      if (a.dir == kConvBwdFilter) launch_wmma_kernel<kConvBwdFilter, bf16_bits, float, false, false>(a, s);
      else if (a.dir == kConvFwd) launch_wmma_kernel<kConvFwd, bf16_bits, float, true, true>(a, s);
      else fail(CUDNN_STATUS_INTERNAL_ERROR, "mixed types: forward and filter gradient only");
      break;
    default: fail(CUDNN_STATUS_INTERNAL_ERROR, "the tensor-core convolution takes HALF or BFLOAT16 data");
  }
}

void conv_wmma_tile(int M, int Ncol, int, int *bm, int *bn, int *bk) {
  *bk = BK;
  *bn = Ncol <= 64 ? 64 : 128;
  *bm = (M <= 64 && *bn == 128) ? 64 : 128;
}

}  // namespace fdnn::cuda
