// The kernel of the large-tile tensor-core implicit GEMM (see
// convolution_mma.cu for what it does and why); included by the three
// per-direction files (convolution_mma_{fwd,bwd_data,bwd_filter}.cu) so that
// their instantiations compile in parallel.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "core/error.hpp"
#include "cuda/convolution_index.cuh"
#include "cuda/convolution_mma.hpp"
#include "cuda/convolution_tc_epilogue.cuh"
#include "cuda/cp_async.cuh"
#include "cuda/cuda_util.hpp"
#include "cuda/mma_sync.cuh"

namespace fdnn::cuda {
namespace mma_detail {

constexpr int BK = kConvMmaDepth;

// Byte offset of 16-byte chunk `chunk` of row `row` in a swizzled tile of
// ROWCH chunks per row (ROWCH a multiple of 8): the 8 rows of one ldmatrix
// phase, and the 8 chunks of one cp.async phase, hit 8 different bank groups.
template <int ROWCH>
__device__ inline uint32_t swz(int row, int chunk) {
  return static_cast<uint32_t>((row * ROWCH + (chunk ^ (row & 7))) * 16);
}

// A block tile: BM x BN, WARPS warps as WARPS_M x (WARPS / WARPS_M),
// STAGES deep, at least MINB blocks per multiprocessor (which caps the
// registers).
// PIPE: the software-pipelined main loop (double-buffered fragments; more
// registers).
template <int BM_, int BN_, int WARPS_M_, int STAGES_, int MINB_, int WARPS_ = 8, bool PIPE_ = false>
struct MmaTile {
  static constexpr int BM = BM_, BN = BN_, WARPS_M = WARPS_M_, STAGES = STAGES_, MINB = MINB_, WARPS = WARPS_;
  static constexpr int THREADS = 32 * WARPS;
  static constexpr bool PIPE = PIPE_;
};

template <class Tile>
constexpr size_t mma_smem_bytes() {
  const size_t pipe = size_t(Tile::STAGES) * (Tile::BM + Tile::BN) * BK * 2;
  const size_t epi = tc_epilogue_smem(Tile::BM, Tile::BN);
  return pipe > epi ? pipe : epi;
}

// KC: the operand's runs lie along the reduction (tile [rows][BK]); else
// along its rows / columns (tile [BK][rows]).
template <int DIR, class TI, bool A_KC, bool B_KC, class Tile>
__global__ void __launch_bounds__(Tile::THREADS, Tile::MINB) conv_mma_kernel(const ConvArgs a) {
  using Ix = ConvIndex<DIR>;
  constexpr int BM = Tile::BM, BN = Tile::BN, STAGES = Tile::STAGES;
  constexpr int kThreads = Tile::THREADS;
  constexpr int WARPS_M = Tile::WARPS_M, WARPS_N = Tile::WARPS / WARPS_M;
  constexpr int WM = BM / WARPS_M, WN = BN / WARPS_N;
  constexpr int FM = WM / 16, FN = WN / 8;
  static_assert(WARPS_M * WARPS_N == Tile::WARPS && WM % 16 == 0 && WN % 16 == 0, "warp layout");
  constexpr int ALOADS = BM * BK / 8 / kThreads, BLOADS = BN * BK / 8 / kThreads;
  constexpr int A_ROWCH = A_KC ? BK / 8 : BM / 8, B_ROWCH = B_KC ? BK / 8 : BN / 8;
  // Non-KC tiles: a pass of the block's threads covers KROWS reduction rows.
  constexpr int KROWS = kThreads / 8, KPASS = BK / KROWS;
  static_assert(A_ROWCH % 8 == 0 && B_ROWCH % 8 == 0 && BK == 64 && BK % KROWS == 0, "swizzle and loader layout");
  constexpr uint32_t SA = BM * BK * 2, SB = BN * BK * 2;  // bytes per stage
  extern __shared__ __align__(128) unsigned char smem_raw[];
  const uint32_t smem = static_cast<uint32_t>(__cvta_generic_to_shared(smem_raw));
  const TI *__restrict__ Ap = static_cast<const TI *>(a.A);
  const TI *__restrict__ Bp = static_cast<const TI *>(a.B);

  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const int g = blockIdx.z / a.split, part = blockIdx.z % a.split;
  const int m0 = blockIdx.x * BM, n0 = blockIdx.y * BN;
  const int r_begin = part * a.chunk;
  const int r_end = min(a.R, r_begin + a.chunk);

  // Loader mapping. KC tiles ([rows][BK], runs along the reduction):
  // thread -> row (tid + e * threads) / 8, chunk tid % 8, so all of a
  // thread's loads (of A and of B, in the forward pass) share one reduction
  // index r. Other tiles ([BK][rows]): thread -> reduction row tid / 8 +
  // KROWS p (KROWS = threads / 8), chunks tid % 8 + 8 j: BK / KROWS r per
  // stage, and 8 threads cover 128 contiguous bytes. The coordinates of r are computed once per stage and r
  // (the same for many loads), not per load: what a load adds is an
  // addition and a bounds check (ConvTable's form, convolution_index.cuh).
  constexpr int A_NKC = A_KC ? 1 : A_ROWCH / 8, B_NKC = B_KC ? 1 : B_ROWCH / 8;  // chunks per reduction row
  constexpr int A_LINES = A_KC ? ALOADS : A_NKC, B_LINES = B_KC ? BLOADS : B_NKC;
  const int q = tid % 8, krow0 = tid / 8;
  // The forward pass and the data gradient gather through table entries
  // (the engine runs this kernel only where conv_table_applies: unit
  // strides for the data gradient, window displacements below 2^15).
  Line aline[A_LINES], bline[B_LINES];
  bool aval[A_LINES], bval[B_LINES];
#pragma unroll
  for (int e = 0; e < A_LINES; ++e) {
    const int m = m0 + (A_KC ? (tid + e * kThreads) / 8 : (q + 8 * e) * 8);
    aval[e] = m < a.M;
    aline[e] = aval[e] ? Ix::a_row(a, g, m) : Line{0, 0, 0, 0};
    if (A_KC) {
      if (DIR == kConvFwd) aline[e].base += aline[e].d * a.xs[2] + aline[e].h * a.xs[3] + aline[e].w * a.xs[4];
      else aline[e].base += aline[e].d * a.ys[2] + aline[e].h * a.ys[3] + aline[e].w * a.ys[4];
    }
  }
#pragma unroll
  for (int e = 0; e < B_LINES; ++e) {
    const int col = n0 + (B_KC ? (tid + e * kThreads) / 8 : (q + 8 * e) * 8);
    bval[e] = col < a.Ncol;
    bline[e] = bval[e] ? Ix::b_col(a, g, col) : Line{0, 0, 0, 0};
    // The filter gradient's x columns: window origin folded into the base.
    if (DIR == kConvBwdFilter) bline[e].base += bline[e].d * a.xs[2] + bline[e].h * a.xs[3] + bline[e].w * a.xs[4];
  }

  const auto load_stage = [&](int stage, int k0) {
    const uint32_t As = smem + stage * (SA + SB), Bs = As + SA;
    if constexpr (DIR == kConvFwd || DIR == kConvBwdData) {
      const int r = k0 + q * 8;  // A's runs (and B's in the forward pass)
      const bool rin = r < r_end;
      int4 en = make_int4(0, 0, 0, 0);
      if (rin) en = ConvTable::entry(a, r);
#pragma unroll
      for (int e = 0; e < ALOADS; ++e) {
        int off = -1;
        if (aval[e] && rin) off = ConvTableIndex<DIR>::a_off(a, aline[e], en);
        cp_async16(As + swz<A_ROWCH>((tid + e * kThreads) / 8, q), off >= 0 ? static_cast<const void *>(Ap + off) : a.A,
                   off >= 0);
      }
      if constexpr (DIR == kConvFwd) {
#pragma unroll
        for (int e = 0; e < BLOADS; ++e) {
          const int off = (bval[e] && rin) ? bline[e].base + en.y : -1;
          cp_async16(Bs + swz<B_ROWCH>((tid + e * kThreads) / 8, q),
                     off >= 0 ? static_cast<const void *>(Bp + off) : a.B, off >= 0);
        }
      } else {
        // The data gradient's w: runs along c, rows r = (tap, k).
#pragma unroll
        for (int p = 0; p < KPASS; ++p) {
          const int krow = krow0 + KROWS * p, rr = k0 + krow;
          const bool rrin = rr < r_end;
          int wo = 0;
          if (rrin) {
            uint32_t k;
            const uint32_t t = a.d_rc.divmod(rr, k);
            int td, th, tw;
            split_dhw(t, a.d_fw, a.d_fh, td, th, tw);
            wo = static_cast<int>(k) * a.ws[0] + filter_tap_offset(a, a.ws, td, th, tw);
          }
#pragma unroll
          for (int j = 0; j < B_NKC; ++j) {
            const int off = (bval[j] && rrin) ? bline[j].base + wo : -1;
            cp_async16(Bs + swz<B_ROWCH>(krow, q + 8 * j), off >= 0 ? static_cast<const void *>(Bp + off) : a.B,
                       off >= 0);
          }
        }
      }
    } else {
      // The filter gradient: rows r = (n, output pixel) of dy (A, runs
      // along k) and x (B, runs along (tap, c)).
#pragma unroll
      for (int p = 0; p < KPASS; ++p) {
        const int krow = krow0 + KROWS * p, rr = k0 + krow;
        const bool rrin = rr < r_end;
        int yo = 0, xo = 0, sd = 0, sh = 0, sw = 0;
        if (rrin) {
          uint32_t pix;
          const int n = static_cast<int>(a.d_P.divmod(rr, pix));
          int od, oh, ow;
          split_dhw(pix, a.d_ow, a.d_oh, od, oh, ow);
          yo = n * a.ys[0] + od * a.ys[2] + oh * a.ys[3] + ow * a.ys[4];
          sd = od * a.str[0], sh = oh * a.str[1], sw = ow * a.str[2];
          xo = n * a.xs[0] + sd * a.xs[2] + sh * a.xs[3] + sw * a.xs[4];
        }
#pragma unroll
        for (int j = 0; j < A_NKC; ++j) {
          const int off = (aval[j] && rrin) ? aline[j].base + yo : -1;
          cp_async16(As + swz<A_ROWCH>(krow, q + 8 * j), off >= 0 ? static_cast<const void *>(Ap + off) : a.A,
                     off >= 0);
        }
#pragma unroll
        for (int j = 0; j < B_NKC; ++j) {
          const bool in = bval[j] && rrin && inside(a, sd + bline[j].d, sh + bline[j].h, sw + bline[j].w);
          const int off = in ? bline[j].base + xo : -1;
          cp_async16(Bs + swz<B_ROWCH>(krow, q + 8 * j), off >= 0 ? static_cast<const void *>(Bp + off) : a.B,
                     off >= 0);
        }
      }
    }
  };

  float acc[FM][FN][4];
  zero_fragments(acc);
  const int wm = (warp % WARPS_M) * WM, wn = (warp / WARPS_M) * WN;

  const int nk = r_end > r_begin ? (r_end - r_begin + BK - 1) / BK : 0;
#pragma unroll
  for (int st = 0; st < STAGES - 1; ++st) {
    if (st < nk) load_stage(st, r_begin + st * BK);
    cp_async_commit();
  }
  // The fragments of reduction slice ks of the stage at As / Bs.
  const auto load_frags = [&](uint32_t (&fa)[FM][4], uint32_t (&fb)[FN][2], uint32_t As, uint32_t Bs, int ks) {
#pragma unroll
    for (int i = 0; i < FM; ++i) {
      if (A_KC) {
        ldmatrix_x4<false>(fa[i], As + swz<A_ROWCH>(wm + i * 16 + (lane & 15), ks * 2 + (lane >> 4)));
      } else {
        const int krow = ks * 16 + (lane & 7) + ((lane >> 4) << 3);
        ldmatrix_x4<true>(fa[i], As + swz<A_ROWCH>(krow, (wm + i * 16) / 8 + ((lane >> 3) & 1)));
      }
    }
#pragma unroll
    for (int jj = 0; jj < FN / 2; ++jj) {
      uint32_t r[4];
      if (B_KC) {
        const int n = wn + jj * 16 + (lane & 7) + ((lane >> 4) << 3);
        ldmatrix_x4<false>(r, Bs + swz<B_ROWCH>(n, ks * 2 + ((lane >> 3) & 1)));
      } else {
        const int krow = ks * 16 + (lane & 7) + (((lane >> 3) & 1) << 3);
        ldmatrix_x4<true>(r, Bs + swz<B_ROWCH>(krow, (wn + jj * 16) / 8 + (lane >> 4)));
      }
      fb[2 * jj][0] = r[0];
      fb[2 * jj][1] = r[1];
      fb[2 * jj + 1][0] = r[2];
      fb[2 * jj + 1][1] = r[3];
    }
  };
  const auto mma_all = [&](const uint32_t (&fa)[FM][4], const uint32_t (&fb)[FN][2]) {
#pragma unroll
    for (int i = 0; i < FM; ++i)
#pragma unroll
      for (int j = 0; j < FN; ++j) mma16816<TI>(acc[i][j], fa[i], fb[j][0], fb[j][1]);
  };
  if constexpr (Tile::PIPE) {
    // Software-pipelined (CUTLASS's multistage form): the fragments of
    // slice ks + 1 -- across the stage boundary too -- load while the mma's
    // of slice ks issue; the barrier sits before the last slice's mma's,
    // and the next stage's cp.async goes out after the first slice's loads.
    uint32_t fa[2][FM][4], fb[2][FN][2];
    cp_async_wait<STAGES - 2>();
    __syncthreads();
    load_frags(fa[0], fb[0], smem, smem + SA, 0);
    for (int kt = 0; kt < nk; ++kt) {
      const uint32_t As = smem + (kt % STAGES) * (SA + SB), Bs = As + SA;
#pragma unroll
      for (int ks = 0; ks < BK / 16; ++ks) {
        if (ks == BK / 16 - 1) {
          // Stage kt + 1 has landed for every thread, and every thread's
          // reads of stage kt - 1 (refilled below in step kt + 1) are done.
          cp_async_wait<STAGES - 2>();
          __syncthreads();
          const uint32_t An = smem + ((kt + 1) % STAGES) * (SA + SB);
          load_frags(fa[(ks + 1) % 2], fb[(ks + 1) % 2], An, An + SA, 0);
        } else {
          load_frags(fa[(ks + 1) % 2], fb[(ks + 1) % 2], As, Bs, ks + 1);
        }
        if (ks == 0) {
          // The stage refilled here, (kt - 1) % STAGES, was last read
          // before the barrier of step kt - 1 (or the prologue's).
          if (kt + STAGES - 1 < nk) load_stage((kt + STAGES - 1) % STAGES, r_begin + (kt + STAGES - 1) * BK);
          cp_async_commit();
        }
        mma_all(fa[ks % 2], fb[ks % 2]);
      }
    }
  } else {
    for (int kt = 0; kt < nk; ++kt) {
      cp_async_wait<STAGES - 2>();
      __syncthreads();
      // The stage refilled here was read in step kt - 1, which every thread
      // has finished (the barrier above).
      if (kt + STAGES - 1 < nk) load_stage((kt + STAGES - 1) % STAGES, r_begin + (kt + STAGES - 1) * BK);
      cp_async_commit();
      const uint32_t As = smem + (kt % STAGES) * (SA + SB), Bs = As + SA;
#pragma unroll
      for (int ks = 0; ks < BK / 16; ++ks) {
        uint32_t fa[FM][4], fb[FN][2];
        load_frags(fa, fb, As, Bs, ks);
        mma_all(fa, fb);
      }
    }
  }
  cp_async_wait<0>();
  __syncthreads();

  // Accumulators -> the staged float tile -> the shared epilogue.
  constexpr int LDC = tc_epilogue_ldc<BN>();
  float *Cs = reinterpret_cast<float *>(smem_raw);
#pragma unroll
  for (int i = 0; i < FM; ++i)
#pragma unroll
    for (int j = 0; j < FN; ++j) {
      const int row = wm + i * 16 + lane / 4, col = wn + j * 8 + (lane % 4) * 2;
      *reinterpret_cast<float2 *>(Cs + row * LDC + col) = make_float2(acc[i][j][0], acc[i][j][1]);
      *reinterpret_cast<float2 *>(Cs + (row + 8) * LDC + col) = make_float2(acc[i][j][2], acc[i][j][3]);
    }
  conv_tc_epilogue<DIR, TI, BM, BN, kThreads>(a, smem_raw, g, part, m0, n0, tid);
}

template <int DIR, class TI, bool AK, bool BKC, class Tile>
void launch_tile(const ConvArgs &a, cudaStream_t s) {
  const auto kernel = conv_mma_kernel<DIR, TI, AK, BKC, Tile>;
  constexpr size_t smem = mma_smem_bytes<Tile>();
  check_cuda(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)),
             "cudaFuncSetAttribute");
  const dim3 grid((a.M + Tile::BM - 1) / Tile::BM, (a.Ncol + Tile::BN - 1) / Tile::BN, a.G * a.split);
  kernel<<<grid, Tile::THREADS, smem, s>>>(a);
  check_launch("conv_mma_kernel");
}

// The tiles conv_mma_tile picks from: 64 x 64 warps, one block per
// multiprocessor ("big"); 64 x 32 / 32 x 32 warps, two blocks ("mid").
// Tried and dropped (H100, 2026-11-23): 128 x 128 as 4 warps of 64 x 64, two
// blocks (247 registers; reads 2/3 of the shared memory per mma): forward and
// data gradient 0.66-0.86x the 8-warp tile's speed at batch 256, 0.73-0.84x
// at batch 32.
using BigMN = MmaTile<128, 256, 2, 4, 1>;
using BigNM = MmaTile<256, 128, 4, 4, 1>;
using BigM64N = MmaTile<256, 64, 4, 4, 1>;  // 64 x 32 warps
using BigN64M = MmaTile<64, 256, 1, 4, 1>;  // 64 x 32 warps
// The filter gradient's tiles for outputs whose width (taps x channels) is
// a multiple of 192 but not of 256 (3x3 over 64 or 128 channels: 576, 1152
// columns; 64 x 256 / 128 x 256 tiles would compute 33 % / 11 % padding),
// 32 x 48 / 64 x 48 per warp; and 64 x 64 of 4 warps (32 x 32 each) for
// the 1x1 filter gradients of 64 x 64 outputs.
using Wide192 = MmaTile<64, 192, 2, 4, 1>;
using Wide192M = MmaTile<128, 192, 2, 4, 1>;
using Small64 = MmaTile<64, 64, 2, 4, 2, 4>;
using Mid = MmaTile<128, 128, 2, 3, 2>;
using MidM = MmaTile<128, 64, 4, 3, 2>;
using MidN = MmaTile<64, 128, 2, 3, 2>;
// The software-pipelined form of a tile (used for the tiles where it
// compiles without spills: the 64 x 32 / 32 x 32 warp tiles, sm_90a ptxas),
// forward and filter gradient only: the data gradient measured 1.00x at
// batch 256 and, in one run, 0.47x at batch 32 (64x56 3x3.64, H100).
template <class T>
using Piped = MmaTile<T::BM, T::BN, T::WARPS_M, T::STAGES, T::MINB, T::WARPS, true>;

template <int DIR, class TI, bool AK, bool BKC, class Tile>
void launch_piped(const ConvArgs &a, bool pipe, cudaStream_t s) {
  if constexpr (DIR != kConvBwdData) {
    if (pipe) {
      launch_tile<DIR, TI, AK, BKC, Piped<Tile>>(a, s);
      return;
    }
  }
  launch_tile<DIR, TI, AK, BKC, Tile>(a, s);
}

// The filter gradient's own tiles (instantiated for that direction only).
template <int DIR, class TI, bool AK, bool BKC>
bool launch_wgrad_tiles(const ConvArgs &a, int bm, int bn, bool pipe, cudaStream_t s) {
  if constexpr (DIR == kConvBwdFilter) {
    if (bm == 64 && bn == 192) launch_piped<DIR, TI, AK, BKC, Wide192>(a, pipe, s);
    else if (bm == 128 && bn == 192) launch_tile<DIR, TI, AK, BKC, Wide192M>(a, s);
    else if (bm == 64 && bn == 64) launch_piped<DIR, TI, AK, BKC, Small64>(a, pipe, s);
    else return false;
    return true;
  }
  return false;
}

template <int DIR, class TI, bool AK, bool BKC>
void launch_tiles(const ConvArgs &a, int bm, int bn, cudaStream_t s) {
  const bool pipe = a.mma_pipe != 0;
  if (bm == 128 && bn == 256) launch_tile<DIR, TI, AK, BKC, BigMN>(a, s);
  else if (bm == 256 && bn == 128) launch_tile<DIR, TI, AK, BKC, BigNM>(a, s);
  else if (bm == 256 && bn == 64) launch_piped<DIR, TI, AK, BKC, BigM64N>(a, pipe, s);
  else if (bm == 64 && bn == 256) launch_piped<DIR, TI, AK, BKC, BigN64M>(a, pipe, s);
  else if (bm == 128 && bn == 128) launch_tile<DIR, TI, AK, BKC, Mid>(a, s);
  else if (bm == 128 && bn == 64) launch_piped<DIR, TI, AK, BKC, MidM>(a, pipe, s);
  else if (bm == 64 && bn == 128) launch_piped<DIR, TI, AK, BKC, MidN>(a, pipe, s);
  else if (!launch_wgrad_tiles<DIR, TI, AK, BKC>(a, bm, bn, pipe, s))
    fail(CUDNN_STATUS_INTERNAL_ERROR, "no tensor-core convolution tile ", bm, " x ", bn);
}

template <int DIR, bool AK, bool BKC>
void launch_types(const ConvArgs &a, ConvTypes t, int bm, int bn, void *stream) {
  const cudaStream_t s = as_stream(stream);
  switch (t) {
    case ConvTypes::f16: launch_tiles<DIR, half_bits, AK, BKC>(a, bm, bn, s); break;
    case ConvTypes::bf16: launch_tiles<DIR, bf16_bits, AK, BKC>(a, bm, bn, s); break;
    default: fail(CUDNN_STATUS_INTERNAL_ERROR, "the large-tile tensor-core convolution takes HALF or BFLOAT16 data");
  }
}

}  // namespace mma_detail
}  // namespace fdnn::cuda
