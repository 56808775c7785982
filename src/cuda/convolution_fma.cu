// CUDA kernels of the convolution engines that compute with FMA:
//  - conv_fma_kernel: the tiled implicit GEMM. A block computes a BM x BN
//    tile of one group's out[m][col] with 256 threads: 8 x 8 results per
//    thread (128 x 128), 8 x 4 or 4 x 8 when a side is at most 64 (two
//    blocks per multiprocessor then), 4 x 4 for double. The A and B tiles
//    (BK = 8 deep) are gathered straight from the tensors through
//    convolution_index.cuh (padding and stride gaps read as zero, the filter
//    flipped on the fly in CONVOLUTION mode), converted to the accumulation
//    type and double-buffered in shared memory: the next tile's global loads
//    are in flight while the current one is multiplied. Forward and the unit-
//    stride data gradient read their per-r index arithmetic from a small
//    table (conv_table_kernel fills it first: IMPLICIT_PRECOMP_GEMM's
//    precomputation) instead of dividing on every load.
//    With a split reduction each block writes its partial tile to the
//    scratch buffer and conv_finalize_kernel sums the parts in a fixed order
//    (deterministic, no atomics) and blends.
//  - conv_direct_kernel: one thread per output element, a plain loop.
//  - conv_im2col_kernel: the explicit lowering of FWD_ALGO_GEMM.
#include <cuda_runtime.h>

#include <cstdint>

#include "core/error.hpp"
#include "cuda/convolution_index.cuh"
#include "cuda/cuda_util.hpp"

namespace fdnn::cuda {
namespace {

constexpr int kThreads = 256;
constexpr int kBK = 8;

template <class Acc>
__device__ inline void load4(const Acc *p, Acc *v) {
  if constexpr (sizeof(Acc) == 4) {
    const float4 q = *reinterpret_cast<const float4 *>(p);
    v[0] = q.x, v[1] = q.y, v[2] = q.z, v[3] = q.w;
  } else {
    const double2 q0 = *reinterpret_cast<const double2 *>(p);
    const double2 q1 = *reinterpret_cast<const double2 *>(p + 2);
    v[0] = q0.x, v[1] = q0.y, v[2] = q1.x, v[3] = q1.y;
  }
}

template <int DIR, class TI, class TO, class Acc, int TM, int TN, bool TAB>
__global__ void __launch_bounds__(kThreads, (TM * TN <= 32) ? 2 : 1) conv_fma_kernel(const ConvArgs a) {
  using Ix = ConvIndex<DIR>;
  // Only forward and the data gradient have a table form.
  constexpr bool kTab = TAB && (DIR == kConvFwd || DIR == kConvBwdData);
  using TabIx = ConvTableIndex<(DIR == kConvBwdData) ? kConvBwdData : kConvFwd>;
  const int4 *__restrict__ tab = static_cast<const int4 *>(a.table);
  constexpr int BM = 16 * TM, BN = 16 * TN, BK = kBK;
  constexpr int ALD = BM * BK / kThreads, BLD = BN * BK / kThreads;
  __shared__ __align__(16) Acc As[2][BK][BM];
  __shared__ __align__(16) Acc Bs[2][BK][BN];
  const TI *__restrict__ Ap = static_cast<const TI *>(a.A);
  const TI *__restrict__ Bp = static_cast<const TI *>(a.B);
  const int tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
  const int g = blockIdx.z / a.split, part = blockIdx.z % a.split;
  const int m0 = blockIdx.x * BM, n0 = blockIdx.y * BN;
  const int r_begin = part * a.chunk;
  const int r_end = min(a.R, r_begin + a.chunk);

  Line arow[ALD], bcol[BLD];
  int am[ALD], akk[ALD], bn[BLD], bkk[BLD];
  bool aval[ALD], bval[BLD];
#pragma unroll
  for (int e = 0; e < ALD; ++e) {
    const int idx = tid + e * kThreads;
    am[e] = a.a_mfast ? idx % BM : idx / BK;
    akk[e] = a.a_mfast ? idx / BM : idx % BK;
    aval[e] = m0 + am[e] < a.M;
    if (aval[e]) {
      if constexpr (kTab) arow[e] = TabIx::a_row(a, g, m0 + am[e]);
      else arow[e] = Ix::a_row(a, g, m0 + am[e]);
    }
  }
#pragma unroll
  for (int e = 0; e < BLD; ++e) {
    const int idx = tid + e * kThreads;
    bn[e] = a.b_cfast ? idx % BN : idx / BK;
    bkk[e] = a.b_cfast ? idx / BN : idx % BK;
    bval[e] = n0 + bn[e] < a.Ncol;
    if (bval[e]) bcol[e] = Ix::b_col(a, g, n0 + bn[e]);
  }
  Acc ra[ALD], rb[BLD];
  const auto fetch = [&](int k0) {
#pragma unroll
    for (int e = 0; e < ALD; ++e) {
      const int r = k0 + akk[e];
      int off = -1;
      if (aval[e] && r < r_end) {
        if constexpr (kTab) off = TabIx::a_off(a, arow[e], __ldg(tab + r));
        else off = Ix::a_off(a, arow[e], r);
      }
      ra[e] = off >= 0 ? Storage<TI>::template load<Acc>(Ap[off]) : Acc(0);
    }
#pragma unroll
    for (int e = 0; e < BLD; ++e) {
      const int r = k0 + bkk[e];
      int off = -1;
      if (bval[e] && r < r_end) {
        if constexpr (kTab) off = bcol[e].base + __ldg(tab + r).y;
        else off = Ix::b_off(a, bcol[e], r);
      }
      rb[e] = off >= 0 ? Storage<TI>::template load<Acc>(Bp[off]) : Acc(0);
    }
  };
  const auto stash = [&](int buf) {
#pragma unroll
    for (int e = 0; e < ALD; ++e) As[buf][akk[e]][am[e]] = ra[e];
#pragma unroll
    for (int e = 0; e < BLD; ++e) Bs[buf][bkk[e]][bn[e]] = rb[e];
  };

  Acc acc[TM][TN];
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) acc[i][j] = Acc(0);

  const int nk = r_end > r_begin ? (r_end - r_begin + BK - 1) / BK : 0;
  if (nk > 0) {
    fetch(r_begin);
    stash(0);
  }
  __syncthreads();
  for (int kt = 0; kt < nk; ++kt) {
    const int cur = kt & 1;
    if (kt + 1 < nk) fetch(r_begin + (kt + 1) * BK);
#pragma unroll
    for (int kk = 0; kk < BK; ++kk) {
      Acc av[TM], bv[TN];
#pragma unroll
      for (int h = 0; h < TM / 4; ++h) load4(&As[cur][kk][h * 64 + tx * 4], &av[h * 4]);
#pragma unroll
      for (int h = 0; h < TN / 4; ++h) load4(&Bs[cur][kk][h * 64 + ty * 4], &bv[h * 4]);
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = fma(av[i], bv[j], acc[i][j]);
    }
    if (kt + 1 < nk) stash(cur ^ 1);
    __syncthreads();
  }

  if (a.split == 1) {
    TO *out = static_cast<TO *>(a.dst);
    const Acc alpha = static_cast<Acc>(a.alpha), beta = static_cast<Acc>(a.beta);
    int ocol[TN];
#pragma unroll
    for (int j = 0; j < TN; ++j) {
      const int col = n0 + (j / 4) * 64 + ty * 4 + j % 4;
      ocol[j] = col < a.Ncol ? Ix::out_col(a, g, col) : -1;
    }
#pragma unroll
    for (int i = 0; i < TM; ++i) {
      const int m = m0 + (i / 4) * 64 + tx * 4 + i % 4;
      if (m >= a.M) continue;
      const int orow = Ix::out_row(a, g, m);
#pragma unroll
      for (int j = 0; j < TN; ++j)
        if (ocol[j] >= 0) blend_store<TO, Acc>(out, orow + ocol[j], acc[i][j], alpha, beta);
    }
  } else {
    Acc *dst = static_cast<Acc *>(a.partial) + (static_cast<int64_t>(part) * a.G + g) * a.M * a.Ncol;
#pragma unroll
    for (int i = 0; i < TM; ++i) {
      const int m = m0 + (i / 4) * 64 + tx * 4 + i % 4;
      if (m >= a.M) continue;
#pragma unroll
      for (int j = 0; j < TN; ++j) {
        const int col = n0 + (j / 4) * 64 + ty * 4 + j % 4;
        if (col < a.Ncol) dst[static_cast<int64_t>(m) * a.Ncol + col] = acc[i][j];
      }
    }
  }
}

// Sums the split parts of every (g, m, col) in order and blends.
template <int DIR, class TO, class Acc>
__global__ void conv_finalize_kernel(const ConvArgs a) {
  using Ix = ConvIndex<DIR>;
  const int64_t per_group = static_cast<int64_t>(a.M) * a.Ncol, total = per_group * a.G;
  const Acc *src = static_cast<const Acc *>(a.partial);
  TO *out = static_cast<TO *>(a.dst);
  const Acc alpha = static_cast<Acc>(a.alpha), beta = static_cast<Acc>(a.beta);
  for (int64_t e = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; e < total; e += int64_t{gridDim.x} * blockDim.x) {
    Acc s = 0;
    for (int p = 0; p < a.split; ++p) s += src[p * total + e];
    const int g = static_cast<int>(e / per_group);
    const int64_t rem = e - g * per_group;
    const int m = static_cast<int>(rem / a.Ncol), col = static_cast<int>(rem % a.Ncol);
    blend_store<TO, Acc>(out, Ix::out_row(a, g, m) + Ix::out_col(a, g, col), s, alpha, beta);
  }
}

template <int DIR, class TI, class TO, class Acc>
__global__ void conv_direct_kernel(const ConvArgs a) {
  using Ix = ConvIndex<DIR>;
  const TI *__restrict__ Ap = static_cast<const TI *>(a.A);
  const TI *__restrict__ Bp = static_cast<const TI *>(a.B);
  TO *out = static_cast<TO *>(a.dst);
  const Acc alpha = static_cast<Acc>(a.alpha), beta = static_cast<Acc>(a.beta);
  const int64_t per_group = static_cast<int64_t>(a.M) * a.Ncol, total = per_group * a.G;
  for (int64_t e = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; e < total; e += int64_t{gridDim.x} * blockDim.x) {
    const int g = static_cast<int>(e / per_group);
    const int64_t rem = e - g * per_group;
    // col fastest: neighbouring threads share the row's A elements.
    const int m = static_cast<int>(rem / a.Ncol), col = static_cast<int>(rem % a.Ncol);
    const Line row = Ix::a_row(a, g, m), cl = Ix::b_col(a, g, col);
    Acc s = 0;
    for (int r = 0; r < a.R; ++r) {
      const int ao = Ix::a_off(a, row, r);
      if (ao < 0) continue;
      const int bo = Ix::b_off(a, cl, r);
      if (bo < 0) continue;
      s = fma(Storage<TI>::template load<Acc>(Ap[ao]), Storage<TI>::template load<Acc>(Bp[bo]), s);
    }
    blend_store<TO, Acc>(out, Ix::out_row(a, g, m) + Ix::out_col(a, g, col), s, alpha, beta);
  }
}

template <class TI>
__global__ void conv_im2col_kernel(const ConvArgs a, TI *cols) {
  using Ix = ConvIndex<kConvFwd>;
  const TI *__restrict__ x = static_cast<const TI *>(a.A);
  const int64_t per_row = a.R, total = static_cast<int64_t>(a.G) * a.M * a.R;
  for (int64_t e = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; e < total; e += int64_t{gridDim.x} * blockDim.x) {
    const int64_t gm = e / per_row;
    const int r = static_cast<int>(e - gm * per_row);
    const int g = static_cast<int>(gm / a.M), m = static_cast<int>(gm % a.M);
    const int off = Ix::a_off(a, Ix::a_row(a, g, m), r);
    TI v;
    if (off >= 0) v = x[off];
    else v = Storage<TI>::store(0.0f);
    cols[e] = v;
  }
}

int grid_for(int64_t total) {
  const int64_t want = (total + 255) / 256, cap = int64_t{sm_count()} * 32;
  return static_cast<int>(want < 1 ? 1 : want > cap ? cap : want);
}

// Thread tile shape: 8 x 8 results per thread (128 x 128 blocks), narrower
// on the side whose extent is at most 64; double keeps 4 x 4.
void fma_shape(ConvTypes t, int M, int Ncol, int *tm, int *tn) {
  if (t == ConvTypes::f64) {
    *tm = *tn = 4;
    return;
  }
  *tn = Ncol <= 64 ? 4 : 8;
  *tm = (M <= 64 && *tn == 8) ? 4 : 8;
}

__global__ void conv_table_kernel(const ConvArgs a) {
  int4 *tab = static_cast<int4 *>(a.table);
  for (int r = blockIdx.x * blockDim.x + threadIdx.x; r < a.R; r += gridDim.x * blockDim.x)
    tab[r] = ConvTable::entry(a, r);
}

template <int DIR, class TI, class TO, class Acc, int TM, int TN>
void launch_fma_shape(const ConvArgs &a, cudaStream_t s) {
  const dim3 grid((a.M + 16 * TM - 1) / (16 * TM), (a.Ncol + 16 * TN - 1) / (16 * TN), a.G * a.split);
  if constexpr (DIR == kConvFwd || DIR == kConvBwdData) {
    if (a.table != nullptr) {
      conv_table_kernel<<<(a.R + 255) / 256, 256, 0, s>>>(a);
      check_launch("conv_table_kernel");
      conv_fma_kernel<DIR, TI, TO, Acc, TM, TN, true><<<grid, kThreads, 0, s>>>(a);
      check_launch("conv_fma_kernel");
      return;
    }
  }
  conv_fma_kernel<DIR, TI, TO, Acc, TM, TN, false><<<grid, kThreads, 0, s>>>(a);
  check_launch("conv_fma_kernel");
}

template <int DIR, ConvTypes T>
void launch_fma_typed(const ConvArgs &a, cudaStream_t s) {
  using M = ConvTypeMap<T>;
  using TI = typename M::In;
  using TO = typename M::Out;
  using Acc = typename M::Acc;
  if constexpr (sizeof(Acc) == 8) {
    launch_fma_shape<DIR, TI, TO, Acc, 4, 4>(a, s);
  } else {
    int tm, tn;
    fma_shape(T, a.M, a.Ncol, &tm, &tn);
    if (tn == 4) launch_fma_shape<DIR, TI, TO, Acc, 8, 4>(a, s);
    else if (tm == 4) launch_fma_shape<DIR, TI, TO, Acc, 4, 8>(a, s);
    else launch_fma_shape<DIR, TI, TO, Acc, 8, 8>(a, s);
  }
}

template <int DIR, ConvTypes T>
void launch_finalize_typed(const ConvArgs &a, cudaStream_t s) {
  using M = ConvTypeMap<T>;
  conv_finalize_kernel<DIR, typename M::Out, typename M::Acc><<<grid_for(int64_t{a.M} * a.Ncol * a.G), 256, 0, s>>>(a);
  check_launch("conv_finalize_kernel");
}

template <int DIR, ConvTypes T>
void launch_direct_typed(const ConvArgs &a, cudaStream_t s) {
  using M = ConvTypeMap<T>;
  conv_direct_kernel<DIR, typename M::In, typename M::Out, typename M::Acc>
      <<<grid_for(int64_t{a.M} * a.Ncol * a.G), 256, 0, s>>>(a);
  check_launch("conv_direct_kernel");
}

}  // namespace

// Dispatch on direction and types (mixed: 16-bit inputs, FLOAT output).
#define FDNN_CONV_DISPATCH(LAUNCH)                                                         \
  switch (a.dir) {                                                                         \
    case kConvFwd:                                                                         \
      switch (t) {                                                                         \
        case ConvTypes::f32: LAUNCH<kConvFwd, ConvTypes::f32>(a, s); return;               \
        case ConvTypes::f64: LAUNCH<kConvFwd, ConvTypes::f64>(a, s); return;               \
        case ConvTypes::f16: LAUNCH<kConvFwd, ConvTypes::f16>(a, s); return;               \
        case ConvTypes::bf16: LAUNCH<kConvFwd, ConvTypes::bf16>(a, s); return;             \
        case ConvTypes::f16_to_f32: LAUNCH<kConvFwd, ConvTypes::f16_to_f32>(a, s); return; \
        case ConvTypes::bf16_to_f32: LAUNCH<kConvFwd, ConvTypes::bf16_to_f32>(a, s); return; \
      }                                                                                    \
      break;                                                                               \
    case kConvFwdLowered:                                                                  \
      switch (t) {                                                                         \
        case ConvTypes::f32: LAUNCH<kConvFwdLowered, ConvTypes::f32>(a, s); return;        \
        case ConvTypes::f64: LAUNCH<kConvFwdLowered, ConvTypes::f64>(a, s); return;        \
        case ConvTypes::f16: LAUNCH<kConvFwdLowered, ConvTypes::f16>(a, s); return;        \
        case ConvTypes::bf16: LAUNCH<kConvFwdLowered, ConvTypes::bf16>(a, s); return;      \
        case ConvTypes::f16_to_f32: LAUNCH<kConvFwdLowered, ConvTypes::f16_to_f32>(a, s); return; \
        case ConvTypes::bf16_to_f32: LAUNCH<kConvFwdLowered, ConvTypes::bf16_to_f32>(a, s); return; \
      }                                                                                    \
      break;                                                                               \
    case kConvBwdData:                                                                     \
      switch (t) {                                                                         \
        case ConvTypes::f32: LAUNCH<kConvBwdData, ConvTypes::f32>(a, s); return;           \
        case ConvTypes::f64: LAUNCH<kConvBwdData, ConvTypes::f64>(a, s); return;           \
        case ConvTypes::f16: LAUNCH<kConvBwdData, ConvTypes::f16>(a, s); return;           \
        case ConvTypes::bf16: LAUNCH<kConvBwdData, ConvTypes::bf16>(a, s); return;         \
        case ConvTypes::f16_to_f32: LAUNCH<kConvBwdData, ConvTypes::f16_to_f32>(a, s); return; \
        case ConvTypes::bf16_to_f32: LAUNCH<kConvBwdData, ConvTypes::bf16_to_f32>(a, s); return; \
        default: break;                                                                    \
      }                                                                                    \
      break;                                                                               \
    case kConvBwdFilter:                                                                   \
      switch (t) {                                                                         \
        case ConvTypes::f32: LAUNCH<kConvBwdFilter, ConvTypes::f32>(a, s); return;         \
        case ConvTypes::f64: LAUNCH<kConvBwdFilter, ConvTypes::f64>(a, s); return;         \
        case ConvTypes::f16: LAUNCH<kConvBwdFilter, ConvTypes::f16>(a, s); return;         \
        case ConvTypes::bf16: LAUNCH<kConvBwdFilter, ConvTypes::bf16>(a, s); return;       \
        case ConvTypes::f16_to_f32: LAUNCH<kConvBwdFilter, ConvTypes::f16_to_f32>(a, s); return; \
        case ConvTypes::bf16_to_f32: LAUNCH<kConvBwdFilter, ConvTypes::bf16_to_f32>(a, s); return; \
        default: break;                                                                    \
      }                                                                                    \
      break;                                                                               \
  }                                                                                        \
  fail(CUDNN_STATUS_INTERNAL_ERROR, "no convolution kernel for direction ", a.dir, " and these types");

void launch_conv_fma(const ConvArgs &a, ConvTypes t, void *stream) {
  const cudaStream_t s = as_stream(stream);
  {
    FDNN_CONV_DISPATCH(launch_fma_typed)
  }
}

void launch_conv_finalize(const ConvArgs &a, ConvTypes t, void *stream) {
  const cudaStream_t s = as_stream(stream);
  FDNN_CONV_DISPATCH(launch_finalize_typed)
}

void launch_conv_direct(const ConvArgs &a, ConvTypes t, void *stream) {
  const cudaStream_t s = as_stream(stream);
  FDNN_CONV_DISPATCH(launch_direct_typed)
}

void launch_conv_im2col(const ConvArgs &a, ConvTypes t, void *cols, void *stream) {
  const cudaStream_t s = as_stream(stream);
  const int grid = grid_for(int64_t{a.G} * a.M * a.R);
  switch (t) {
    case ConvTypes::f32: conv_im2col_kernel<float><<<grid, 256, 0, s>>>(a, static_cast<float *>(cols)); break;
    case ConvTypes::f64: conv_im2col_kernel<double><<<grid, 256, 0, s>>>(a, static_cast<double *>(cols)); break;
    case ConvTypes::f16:
    case ConvTypes::f16_to_f32:
      conv_im2col_kernel<half_bits><<<grid, 256, 0, s>>>(a, static_cast<half_bits *>(cols));
      break;
    case ConvTypes::bf16:
    case ConvTypes::bf16_to_f32:
      conv_im2col_kernel<bf16_bits><<<grid, 256, 0, s>>>(a, static_cast<bf16_bits *>(cols));
      break;
  }
  check_launch("conv_im2col_kernel");
}

void conv_fma_tile(ConvTypes t, int M, int Ncol, int *bm, int *bn, int *bk) {
  int tm, tn;
  fma_shape(t, M, Ncol, &tm, &tn);
  *bm = 16 * tm;
  *bn = 16 * tn;
  *bk = kBK;
}

}  // namespace fdnn::cuda
