// CUDA kernels of cuda.pooling. Index arithmetic is 32-bit with
// multiply-shift division (the engine keeps every span below 2^31).
//  - Max forward, 2-d, square 2x2 / 3x3 windows of stride 2 (horizontal
//    padding 0 or 1), float / half / bfloat16: row-strip kernels, NCHW-like
//    (average pooling too, NCHW-like only)
//    (rows of stride 1) and NHWC-like (16-byte channel vectors). A warp walks
//    a strip of output rows, loads every input line it needs once (16-byte
//    loads issued back to back), shares window columns between lanes
//    through shuffles and takes the maximum row by row with one min/max
//    instruction per value (per pair of 16-bit values). H100, 256x64x112x112:
//    NCHW f32 1.01 of copy (1.67x cuDNN 9.19), NHWC f16 0.95 (1.57x); the
//    thread-per-output kernel below ran at 0.56 and 0.69 (0.92x, 1.14x).
//  - Forward: one thread per output position and VEC channels (16-byte
//    accesses when channels are innermost). Square 2x2 / 3x3 windows of 2-d
//    problems have compile-time loops whose loads issue back to back.
//  - Max backward, 2-d, 3x3 windows of stride 2, paddings 0 or 1, half /
//    bfloat16 with channels innermost in 16-byte vectors (a multiple of 4):
//    one pass, a CTA streaming down a column strip through a cp.async ring
//    in shared memory, pairs of values per 32-bit instruction
//    (pooling_max_backward_stream). H100, 256x64x112x112 f16 pad 1:
//    0.348 ms, 0.90 of copy, 4.4x cuDNN 9 (the two-pass form: 0.60 ms), in
//    a stand-alone harness. FREEDNN_POOL_STREAM=0 switches it off.
//  - Max backward, 2-d, square 2x2 / 3x3 windows of stride 2, paddings
//    below the window, any layout and type, when the plan has its scratch
//    (a byte per output): two passes, first-maximum codes from x, then a
//    gather of dy by 2 x 2 blocks of dx (pooling_max_codes,
//    pooling_max_backward_codes). H100, 3x3/2 pad 1 on 256x64x112x112:
//    f16 NHWC 0.60 ms (0.74 ms before), f32 NCHW 0.95 ms (1.54 ms before);
//    2.6x and 1.7x cuDNN 9.19. The kernels below stay for the rest and
//    under FREEDNN_POOL_TUNE=nocodes. Rows of stride 1 (NCHW-like) of
//    float / 16-bit data take both passes as row strips with 16-byte row
//    vectors (pooling_max_codes_rows, pooling_max_backward_codes_rows; the
//    second where pairs start at even dx columns): f32 NCHW 0.885 -> 0.699
//    ms, 0.72 -> 0.91 of copy, 2.28x cuDNN (FREEDNN_POOL_TUNE=oldcodes:
//    the thread-per-column passes).
//  - Max backward, 2-d, square 2x2 / 3x3 windows of stride 2 (paddings 0
//    or 1), channels innermost with 16-byte vectors: a row-strip gather
//    (pooling_max_backward_nhwc_rows): no shared memory, no barriers, each
//    dx vector written once. H100, max 3x3/2 backward of 256x64x112x112
//    f16: 0.60 of copy as bench_pooling counts bytes (2.0x cuDNN 9.19); the
//    tiled kernel below ran at 0.55.
//  - Average backward, 2-d, square 2x2 / 3x3 windows of stride 2, paddings
//    0 or 1, float / 16-bit data, NCHW-like rows (16-byte dx row vectors) or
//    channels innermost (16-byte channel vectors): strips of 2 x 2 input
//    blocks down the rows, each dy row loaded once per strip (the next one
//    ahead), sums in the block kernel's order (pooling_avg_backward_rows,
//    pooling_avg_backward_nhwc). H100, 256x64x112x112: f16 NHWC 3x3/2 pad 1
//    0.58 -> 0.84 of copy (4.1x cuDNN 9.19), f32 NCHW 2x2/2 0.68 -> 0.91
//    (2.0x); FREEDNN_POOL_TUNE=oldavg: the block kernel below.
//  - Backward, 2-d with stride 1 or 2 in both dimensions: one thread per
//    S x S block of input positions (every input lies in exactly one block)
//    visits the outputs whose windows touch its block; max pooling finds each
//    such window's first maximum again from x and adds dy where it lies in
//    the block, the average spreads dy / count. Each dx is written once,
//    without atomics, in a fixed order (deterministic).
//  - Backward, anything else: one thread per input position gathers from
//    the outputs whose windows cover it, the same way.
// Max pooling starts from the compute type's lowest finite value (forward,
// HALF data: half's, max_start) and moves on strictly greater values (the
// first maximum wins; a window without input positions gives -FLT_MAX, or
// -65504 for HALF data, as cuDNN); an average over no position is NaN when
// padding is excluded (0/0, as cuDNN) and 0 otherwise, or -0 when the
// window starts past the end (cuDNN's count there is negative).
#include <cuda_runtime.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <type_traits>

#include "core/env_words.hpp"
#include "core/error.hpp"
#include "cuda/cp_async.cuh"
#include "cuda/cuda_util.hpp"
#include "cuda/fast_divmod.hpp"
#include "cuda/pooling_args.hpp"
#include "cuda/storage_types.cuh"

namespace fdnn::cuda {
namespace {

struct Geo {
  int c, cv;
  int in[3], out[3], win[3], pad[3], post[3], str[3];
  int is[5], os[5], xs[5];
  bool is_max, prop, exclude, channels_inner;
  // The thread index space: (n, cq, p0, p1, p2) with cq innermost when
  // channels are innermost, else p2 innermost; ext: extents of p.
  int ext[3];
  FastDivmod d_cv, d_e0, d_e1, d_e2;
  int blk_lo[3];  // block kernel: the first block of each dimension
};

// `v` of the lane `delta` below in the warp, for a vector type P of whole
// 32-bit words (the row-strip kernels' left neighbour of a channel vector).
template <class P>
__device__ inline P shfl_up_words(const P &v, int delta) {
  P r;
#pragma unroll
  for (int w32 = 0; w32 < static_cast<int>(sizeof(P) / 4); ++w32)
    reinterpret_cast<uint32_t *>(&r)[w32] =
        __shfl_up_sync(0xffffffffu, reinterpret_cast<const uint32_t *>(&v)[w32], delta);
  return r;
}

template <class C>
__device__ inline C lowest() {
  if constexpr (sizeof(C) == 8) return -DBL_MAX;
  else return -FLT_MAX;
}

// The start of a forward max window: lowest<C>(), or for HALF data half's
// lowest finite value, -65504 (NVIDIA cuDNN 9.19's HALF result for a window
// without input positions, where -FLT_MAX would round to -inf). Backward
// argmax searches keep lowest<C>().
template <class S, class C>
__device__ inline C max_start() {
  if constexpr (std::is_same_v<S, half_bits>) return C(-65504);
  else return lowest<C>();
}

__device__ inline void split(const Geo &g, uint32_t t, int &n, int &cq, int *p) {
  uint32_t r;
  if (g.channels_inner) {
    t = g.d_cv.divmod(t, r);
    cq = static_cast<int>(r);
    t = g.d_e2.divmod(t, r);
    p[2] = static_cast<int>(r);
    t = g.d_e1.divmod(t, r);
    p[1] = static_cast<int>(r);
    t = g.d_e0.divmod(t, r);
    p[0] = static_cast<int>(r);
    n = static_cast<int>(t);
  } else {
    t = g.d_e2.divmod(t, r);
    p[2] = static_cast<int>(r);
    t = g.d_e1.divmod(t, r);
    p[1] = static_cast<int>(r);
    t = g.d_e0.divmod(t, r);
    p[0] = static_cast<int>(r);
    t = g.d_cv.divmod(t, r);
    cq = static_cast<int>(r);
    n = static_cast<int>(t);
  }
}

// The window's positions in dimension k that an average counts (inside x,
// or inside x and its padding): not clamped at 0, so negative for a window
// that starts past the end (average_count in core/resample_support.hpp says
// why). count_in clamps it: the positions a window really covers.
__device__ inline int signed_count(const Geo &g, int k, int start) {
  const int lo = g.exclude ? 0 : -g.pad[k];
  const int hi = g.exclude ? g.in[k] : g.in[k] + g.post[k];
  return (start + g.win[k] < hi ? start + g.win[k] : hi) - (start > lo ? start : lo);
}
__device__ inline int count_in(const Geo &g, int k, int start) {
  const int n = signed_count(g, k, start);
  return n > 0 ? n : 0;
}

// 1 / (the window's count): NaN or 0 for a count of 0, negative for a
// window past the end (whose empty sum becomes -0).
template <class C>
__device__ inline C inverse_count(const Geo &g, const int *st) {
  const int cnt = signed_count(g, 0, st[0]) * signed_count(g, 1, st[1]) * signed_count(g, 2, st[2]);
  if (cnt != 0) return C(1) / C(cnt);
  return g.exclude ? C(NAN) : C(0);
}

template <class S, class C, int VEC>
__device__ inline void load_vec(const S *p, C *v) {
  if constexpr (VEC > 1) {
    const Pack<S, VEC> pk = *reinterpret_cast<const Pack<S, VEC> *>(p);
#pragma unroll
    for (int l = 0; l < VEC; ++l) v[l] = Storage<S>::template load<C>(pk.v[l]);
  } else {
    v[0] = Storage<S>::template load<C>(*p);
  }
}

template <class S, class C, int VEC>
__device__ inline void store_vec(S *p, const C *v, C alpha, C beta) {
  Pack<S, VEC> pk;
  if (beta != C(0)) pk = *reinterpret_cast<const Pack<S, VEC> *>(p);
#pragma unroll
  for (int l = 0; l < VEC; ++l) {
    C r = alpha * v[l];
    if (beta != C(0)) r += beta * Storage<S>::template load<C>(pk.v[l]);
    pk.v[l] = Storage<S>::store(r);
  }
  *reinterpret_cast<Pack<S, VEC> *>(p) = pk;
}

template <class C>
__device__ inline C fold_max(C acc, C v, bool prop) {
  if (prop) return ((v > acc || v != v) && acc == acc) ? v : acc;
  return v > acc ? v : acc;
}

// Folds one window into acc (max or sum). K > 0: a K x K window of a 2-d
// problem with compile-time loops; K == 0: any window.
template <int K, class S, class C, int VEC>
__device__ inline void fold_window(const Geo &g, const S *base, const int *xs, const int *st, C *acc) {
  if constexpr (K > 0) {
#pragma unroll
    for (int kh = 0; kh < K; ++kh)
#pragma unroll
      for (int kw = 0; kw < K; ++kw) {
        const int h = st[1] + kh, w = st[2] + kw;
        if (static_cast<unsigned>(h) < static_cast<unsigned>(g.in[1]) &&
            static_cast<unsigned>(w) < static_cast<unsigned>(g.in[2])) {
          C v[VEC];
          load_vec<S, C, VEC>(base + h * xs[3] + w * xs[4], v);
#pragma unroll
          for (int l = 0; l < VEC; ++l) acc[l] = g.is_max ? fold_max(acc[l], v[l], g.prop) : acc[l] + v[l];
        }
      }
  } else {
    const int d0 = max(st[0], 0), d1 = min(st[0] + g.win[0], g.in[0]);
    const int h0 = max(st[1], 0), h1 = min(st[1] + g.win[1], g.in[1]);
    const int w0 = max(st[2], 0), w1 = min(st[2] + g.win[2], g.in[2]);
    for (int d = d0; d < d1; ++d)
      for (int h = h0; h < h1; ++h)
#pragma unroll 3
        for (int w = w0; w < w1; ++w) {
          C v[VEC];
          load_vec<S, C, VEC>(base + d * xs[2] + h * xs[3] + w * xs[4], v);
#pragma unroll
          for (int l = 0; l < VEC; ++l) acc[l] = g.is_max ? fold_max(acc[l], v[l], g.prop) : acc[l] + v[l];
        }
  }
}

// The first maximum of a window per lane: its position as d * 2^20 + h * 2^10
// + w... positions are compared whole, so a linear code in the input's
// extents serves: (d * H + h) * W + w; -1 when none.
template <int K, class S, class C, int VEC>
__device__ inline void argmax_window(const Geo &g, const S *base, const int *st, int *at) {
  C best[VEC];
#pragma unroll
  for (int l = 0; l < VEC; ++l) {
    best[l] = lowest<C>();
    at[l] = -1;
  }
  auto visit = [&](int d, int h, int w) {
    C v[VEC];
    load_vec<S, C, VEC>(base + d * g.xs[2] + h * g.xs[3] + w * g.xs[4], v);
    const int code = (d * g.in[1] + h) * g.in[2] + w;
#pragma unroll
    for (int l = 0; l < VEC; ++l) {
      const bool take = g.prop ? (best[l] == best[l] && (v[l] != v[l] || v[l] > best[l])) : v[l] > best[l];
      best[l] = take ? v[l] : best[l];
      at[l] = take ? code : at[l];
    }
  };
  if constexpr (K > 0) {
#pragma unroll
    for (int kh = 0; kh < K; ++kh)
#pragma unroll
      for (int kw = 0; kw < K; ++kw) {
        const int h = st[1] + kh, w = st[2] + kw;
        if (static_cast<unsigned>(h) < static_cast<unsigned>(g.in[1]) &&
            static_cast<unsigned>(w) < static_cast<unsigned>(g.in[2]))
          visit(0, h, w);
      }
  } else {
    const int d0 = max(st[0], 0), d1 = min(st[0] + g.win[0], g.in[0]);
    const int h0 = max(st[1], 0), h1 = min(st[1] + g.win[1], g.in[1]);
    const int w0 = max(st[2], 0), w1 = min(st[2] + g.win[2], g.in[2]);
    for (int d = d0; d < d1; ++d)
      for (int h = h0; h < h1; ++h)
        for (int w = w0; w < w1; ++w) visit(d, h, w);
  }
}

template <int K, class S, class C, int VEC>
__global__ void __launch_bounds__(256) pooling_forward(Geo g, const S *__restrict__ x, S *__restrict__ y, C alpha,
                                                       C beta, uint32_t total) {
  const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= total) return;
  int n, cq, o[3];
  split(g, t, n, cq, o);
  const int c = cq * VEC;
  int st[3];
#pragma unroll
  for (int k = 0; k < 3; ++k) st[k] = o[k] * g.str[k] - g.pad[k];
  C acc[VEC];
#pragma unroll
  for (int l = 0; l < VEC; ++l) acc[l] = g.is_max ? max_start<S, C>() : C(0);
  fold_window<K, S, C, VEC>(g, x + n * g.is[0] + c * g.is[1], g.is, st, acc);
  if (!g.is_max) {
    const C inv = inverse_count<C>(g, st);
#pragma unroll
    for (int l = 0; l < VEC; ++l) acc[l] *= inv;
  }
  store_vec<S, C, VEC>(y + n * g.os[0] + c * g.os[1] + o[0] * g.os[2] + o[1] * g.os[3] + o[2] * g.os[4], acc, alpha,
                       beta);
}

// Backward of a 2-d problem with stride B in both dimensions, one thread per
// B x B block of inputs (thread space: n, cq, 1, block row, block column).
template <int K, int B, class S, class C, int VEC>
__global__ void __launch_bounds__(256) pooling_backward_blocks(Geo g, const S *__restrict__ x,
                                                               const S *__restrict__ dy, S *__restrict__ dx, C alpha,
                                                               C beta, uint32_t total) {
  const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= total) return;
  int n, cq, b[3];
  split(g, t, n, cq, b);
  const int c = cq * VEC;
  const int bh = b[1] + g.blk_lo[1], bw = b[2] + g.blk_lo[2];
  const int r0 = bh * B - g.pad[1], c0 = bw * B - g.pad[2];  // the block's first input row / column
  // Outputs whose windows touch the block: o <= b and o * B >= b * B - win + 1.
  const int oh0 = max(0, bh - (g.win[1] - 1) / B), oh1 = min(bh, g.out[1] - 1);
  const int ow0 = max(0, bw - (g.win[2] - 1) / B), ow1 = min(bw, g.out[2] - 1);
  C acc[B * B][VEC];
#pragma unroll
  for (int j = 0; j < B * B; ++j)
#pragma unroll
    for (int l = 0; l < VEC; ++l) acc[j][l] = C(0);
  const S *xb = x ? x + n * g.xs[0] + c * g.xs[1] : nullptr;
  const S *gb = dy + n * g.os[0] + c * g.os[1];
  for (int oh = oh0; oh <= oh1; ++oh)
    for (int ow = ow0; ow <= ow1; ++ow) {
      const int st[3] = {0, oh * B - g.pad[1], ow * B - g.pad[2]};
      C gv[VEC];
      load_vec<S, C, VEC>(gb + oh * g.os[3] + ow * g.os[4], gv);
      if (g.is_max) {
        int at[VEC];
        argmax_window<K, S, C, VEC>(g, xb, st, at);
#pragma unroll
        for (int l = 0; l < VEC; ++l) {
          const int ah = at[l] < 0 ? -1 : at[l] / g.in[2], aw = at[l] < 0 ? -1 : at[l] - ah * g.in[2];
          const int jh = ah - r0, jw = aw - c0;
#pragma unroll
          for (int j = 0; j < B * B; ++j)
            if (at[l] >= 0 && jh == j / B && jw == j % B) acc[j][l] += gv[l];
        }
      } else {
        const C inv = inverse_count<C>(g, st);
#pragma unroll
        for (int j = 0; j < B * B; ++j) {
          const int h = r0 + j / B, w = c0 + j % B;
          if (h >= st[1] && h < st[1] + g.win[1] && w >= st[2] && w < st[2] + g.win[2])
#pragma unroll
            for (int l = 0; l < VEC; ++l) acc[j][l] += gv[l] * inv;
        }
      }
    }
#pragma unroll
  for (int j = 0; j < B * B; ++j) {
    const int h = r0 + j / B, w = c0 + j % B;
    if (static_cast<unsigned>(h) < static_cast<unsigned>(g.in[1]) &&
        static_cast<unsigned>(w) < static_cast<unsigned>(g.in[2]))
      store_vec<S, C, VEC>(dx + n * g.is[0] + c * g.is[1] + h * g.is[3] + w * g.is[4], acc[j], alpha, beta);
  }
}

// Backward of anything: one thread per input position.
template <class S, class C, int VEC>
__global__ void __launch_bounds__(256) pooling_backward_gather(Geo g, const S *__restrict__ x,
                                                               const S *__restrict__ dy, S *__restrict__ dx, C alpha,
                                                               C beta, uint32_t total) {
  const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= total) return;
  int n, cq, i[3];
  split(g, t, n, cq, i);
  const int c = cq * VEC;
  // Outputs whose windows cover i: o*s - p <= i <= o*s - p + w - 1.
  int olo[3], ohi[3];
#pragma unroll
  for (int k = 0; k < 3; ++k) {
    const int a = i[k] + g.pad[k] - g.win[k] + 1;  // o*s >= a
    olo[k] = a <= 0 ? 0 : (a + g.str[k] - 1) / g.str[k];
    const int b = i[k] + g.pad[k];  // o*s <= b
    ohi[k] = b < 0 ? 0 : min(b / g.str[k] + 1, g.out[k]);
  }
  const int mine = (i[0] * g.in[1] + i[1]) * g.in[2] + i[2];
  C acc[VEC];
#pragma unroll
  for (int l = 0; l < VEC; ++l) acc[l] = C(0);
  const S *xb = x ? x + n * g.xs[0] + c * g.xs[1] : nullptr;
  const S *gb = dy + n * g.os[0] + c * g.os[1];
  for (int od = olo[0]; od < ohi[0]; ++od)
    for (int oh = olo[1]; oh < ohi[1]; ++oh)
      for (int ow = olo[2]; ow < ohi[2]; ++ow) {
        const int st[3] = {od * g.str[0] - g.pad[0], oh * g.str[1] - g.pad[1], ow * g.str[2] - g.pad[2]};
        C gv[VEC];
        load_vec<S, C, VEC>(gb + od * g.os[2] + oh * g.os[3] + ow * g.os[4], gv);
        if (g.is_max) {
          int at[VEC];
          argmax_window<0, S, C, VEC>(g, xb, st, at);
#pragma unroll
          for (int l = 0; l < VEC; ++l)
            if (at[l] == mine) acc[l] += gv[l];
        } else {
          const C inv = inverse_count<C>(g, st);
#pragma unroll
          for (int l = 0; l < VEC; ++l) acc[l] += gv[l] * inv;
        }
      }
  store_vec<S, C, VEC>(dx + n * g.is[0] + c * g.is[1] + i[0] * g.is[2] + i[1] * g.is[3] + i[2] * g.is[4], acc, alpha,
                       beta);
}

// Max backward of a 2-d problem with channels innermost, a K x K window and
// stride B (the blocks form above, tiled): a CTA takes TBH x TBW blocks of
// B x B inputs for CQT channel vectors. Phase 1 finds each covering output's
// first maximum once (its position in the window, a byte per lane) and keeps
// dy in shared memory; phase 2 has each thread gather its block's gradient
// from those outputs in the order of the generic kernel (output row, then
// column, ascending), so the sums are the same and deterministic.
template <int K, int B, class S, class C, int VEC, int CQT>
__global__ void __launch_bounds__(256) pooling_max_backward_tiled(Geo g, const S *__restrict__ x,
                                                                  const S *__restrict__ dy, S *__restrict__ dx,
                                                                  C alpha, C beta, int tiles_w) {
  constexpr int R = (K - 1) / B;  // outputs before a block's own that touch it
  constexpr int TBW = 8, TBH = 256 / (CQT * TBW);
  constexpr int OH = TBH + R, OW = TBW + R, ITEMS = OH * OW * CQT;
  constexpr uint8_t kNone = 255;
  __shared__ uint8_t code[ITEMS][VEC];
  __shared__ Pack<S, VEC> dys[ITEMS];
  const int n = blockIdx.y;
  const int groups = g.cv / CQT;
  const int cg = static_cast<int>(blockIdx.x % static_cast<unsigned>(groups));
  const int t = static_cast<int>(blockIdx.x / static_cast<unsigned>(groups));
  const int tw = t % tiles_w, th = t / tiles_w;
  const int bh0 = th * TBH + g.blk_lo[1], bw0 = tw * TBW + g.blk_lo[2];
  const S *xn = x + n * g.xs[0];
  for (int item = threadIdx.x; item < ITEMS; item += 256) {
    const int cq = item % CQT, pos = item / CQT;
    const int oh = bh0 - R + pos / OW, ow = bw0 - R + pos % OW;
    const int c = (cg * CQT + cq) * VEC;
    uint8_t at[VEC];
#pragma unroll
    for (int l = 0; l < VEC; ++l) at[l] = kNone;
    if (oh >= 0 && oh < g.out[1] && ow >= 0 && ow < g.out[2]) {
      const int h0 = oh * B - g.pad[1], w0 = ow * B - g.pad[2];
      C best[VEC];
#pragma unroll
      for (int l = 0; l < VEC; ++l) best[l] = lowest<C>();
#pragma unroll
      for (int kh = 0; kh < K; ++kh)
#pragma unroll
        for (int kw = 0; kw < K; ++kw) {
          const int h = h0 + kh, w = w0 + kw;
          if (static_cast<unsigned>(h) < static_cast<unsigned>(g.in[1]) &&
              static_cast<unsigned>(w) < static_cast<unsigned>(g.in[2])) {
            C v[VEC];
            load_vec<S, C, VEC>(xn + c * g.xs[1] + h * g.xs[3] + w * g.xs[4], v);
#pragma unroll
            for (int l = 0; l < VEC; ++l) {
              const bool take = g.prop ? (best[l] == best[l] && (v[l] != v[l] || v[l] > best[l])) : v[l] > best[l];
              best[l] = take ? v[l] : best[l];
              at[l] = take ? static_cast<uint8_t>(kh * K + kw) : at[l];
            }
          }
        }
      dys[item] = *reinterpret_cast<const Pack<S, VEC> *>(dy + n * g.os[0] + c * g.os[1] + oh * g.os[3] + ow * g.os[4]);
    }
#pragma unroll
    for (int l = 0; l < VEC; ++l) code[item][l] = at[l];
  }
  __syncthreads();
  const int cq = threadIdx.x % CQT, bl = threadIdx.x / CQT;
  const int bhl = bl / TBW, bwl = bl % TBW;
  const int bh = bh0 + bhl, bw = bw0 + bwl;
  if (bh - g.blk_lo[1] >= g.ext[1] || bw - g.blk_lo[2] >= g.ext[2]) return;
  const int c = (cg * CQT + cq) * VEC;
  C acc[B * B][VEC];
#pragma unroll
  for (int j = 0; j < B * B; ++j)
#pragma unroll
    for (int l = 0; l < VEC; ++l) acc[j][l] = C(0);
#pragma unroll
  for (int dh = R; dh >= 0; --dh)
#pragma unroll
    for (int dw = R; dw >= 0; --dw) {
      const int oh = bh - dh, ow = bw - dw;
      if (oh < 0 || oh >= g.out[1] || ow < 0 || ow >= g.out[2]) continue;
      const int item = ((bhl + R - dh) * OW + (bwl + R - dw)) * CQT + cq;
      const Pack<S, VEC> gp = dys[item];
#pragma unroll
      for (int l = 0; l < VEC; ++l) {
        const int cd = code[item][l];
        const int jh = cd / K - dh * B, jw = cd % K - dw * B;  // position in the block (cd == 255: out of range)
        const C gv = Storage<S>::template load<C>(gp.v[l]);
#pragma unroll
        for (int j = 0; j < B * B; ++j)
          if (cd != kNone && jh == j / B && jw == j % B) acc[j][l] += gv;
      }
    }
  const int r0 = bh * B - g.pad[1], c0 = bw * B - g.pad[2];
#pragma unroll
  for (int j = 0; j < B * B; ++j) {
    const int h = r0 + j / B, w = c0 + j % B;
    if (static_cast<unsigned>(h) < static_cast<unsigned>(g.in[1]) &&
        static_cast<unsigned>(w) < static_cast<unsigned>(g.in[2]))
      store_vec<S, C, VEC>(dx + n * g.is[0] + c * g.is[1] + h * g.is[3] + w * g.is[4], acc[j], alpha, beta);
  }
}

// Launches the tiled max backward when it applies (true), else nothing.
template <int K, int B, class S, class C, int VEC>
bool launch_max_backward_tiled(const Geo &g, int n, const S *x, const S *dy, S *dx, C alpha, C beta,
                               cudaStream_t stream) {
  auto go = [&](auto cqt) {
    constexpr int CQT = decltype(cqt)::value;
    constexpr int TBW = 8, TBH = 256 / (CQT * TBW);
    const int tiles_w = (g.ext[2] + TBW - 1) / TBW, tiles_h = (g.ext[1] + TBH - 1) / TBH;
    const dim3 grid(static_cast<unsigned>(tiles_w * tiles_h * (g.cv / CQT)), static_cast<unsigned>(n));
    pooling_max_backward_tiled<K, B, S, C, VEC, CQT><<<grid, 256, 0, stream>>>(g, x, dy, dx, alpha, beta, tiles_w);
    check_launch("pooling_max_backward_tiled");
    return true;
  };
  if (g.cv % 8 == 0) return go(std::integral_constant<int, 8>{});
  if (g.cv % 4 == 0) return go(std::integral_constant<int, 4>{});
  return false;
}

// Max backward of a 2-d problem with a K x K window and stride B in both
// dimensions, channels not innermost (NCHW-like): a CTA takes TBH x TBW
// blocks of B x B inputs of one (n, c) plane. It stages the x region the
// covering outputs' windows read in shared memory (coalesced rows), finds
// each covering output's first maximum once (its position in the window),
// keeps dy beside it, then each thread gathers its block's gradient from
// those outputs in the order of the generic kernel (output row, then column,
// ascending): same sums, deterministic, no atomics.
template <int K, int B, class S, class C>
__global__ void __launch_bounds__(256) pooling_max_backward_planes(Geo g, const S *__restrict__ x,
                                                                   const S *__restrict__ dy, S *__restrict__ dx,
                                                                   C alpha, C beta, int tiles_w, int tiles) {
  constexpr int R = (K - 1) / B;
  constexpr int TBW = 32, TBH = 8;
  constexpr int OH = TBH + R, OW = TBW + R, ITEMS = OH * OW;
  constexpr int IH = (TBH - 1 + R) * B + K, IW = (TBW - 1 + R) * B + K;
  constexpr uint8_t kNone = 255;
  __shared__ C xs[IH][IW];
  __shared__ C dys[ITEMS];
  __shared__ uint8_t code[ITEMS];
  const int tile = static_cast<int>(blockIdx.x % static_cast<unsigned>(tiles));
  const int plane = static_cast<int>(blockIdx.x / static_cast<unsigned>(tiles));
  const int n = plane / g.c, c = plane - n * g.c;
  const int tw = tile % tiles_w, th = tile / tiles_w;
  const int bh0 = th * TBH + g.blk_lo[1], bw0 = tw * TBW + g.blk_lo[2];
  const int ih0 = (bh0 - R) * B - g.pad[1], iw0 = (bw0 - R) * B - g.pad[2];  // the region's first input row / column
  const S *xp = x + n * g.xs[0] + c * g.xs[1];
  for (int i = threadIdx.x; i < IH * IW; i += 256) {
    const int r = i / IW, q = i - r * IW;
    const int h = ih0 + r, w = iw0 + q;
    C v = lowest<C>();
    if (static_cast<unsigned>(h) < static_cast<unsigned>(g.in[1]) && static_cast<unsigned>(w) < static_cast<unsigned>(g.in[2]))
      v = Storage<S>::template load<C>(xp[h * g.xs[3] + w * g.xs[4]]);
    xs[r][q] = v;
  }
  const S *dyp = dy + n * g.os[0] + c * g.os[1];
  for (int item = threadIdx.x; item < ITEMS; item += 256) {
    const int oh = bh0 - R + item / OW, ow = bw0 - R + item % OW;
    C gv = C(0);
    if (oh >= 0 && oh < g.out[1] && ow >= 0 && ow < g.out[2]) gv = Storage<S>::template load<C>(dyp[oh * g.os[3] + ow * g.os[4]]);
    dys[item] = gv;
  }
  __syncthreads();
  for (int item = threadIdx.x; item < ITEMS; item += 256) {
    const int ol = item / OW, owl = item % OW;
    const int oh = bh0 - R + ol, ow = bw0 - R + owl;
    uint8_t at = kNone;
    if (oh >= 0 && oh < g.out[1] && ow >= 0 && ow < g.out[2]) {
      const int h0 = oh * B - g.pad[1], w0 = ow * B - g.pad[2];
      C best = lowest<C>();
#pragma unroll
      for (int kh = 0; kh < K; ++kh)
#pragma unroll
        for (int kw = 0; kw < K; ++kw) {
          const int h = h0 + kh, w = w0 + kw;
          if (static_cast<unsigned>(h) < static_cast<unsigned>(g.in[1]) &&
              static_cast<unsigned>(w) < static_cast<unsigned>(g.in[2])) {
            const C v = xs[ol * B + kh][owl * B + kw];
            const bool take = g.prop ? (best == best && (v != v || v > best)) : v > best;
            best = take ? v : best;
            at = take ? static_cast<uint8_t>(kh * K + kw) : at;
          }
        }
    }
    code[item] = at;
  }
  __syncthreads();
  const int bhl = threadIdx.x / TBW, bwl = threadIdx.x % TBW;
  const int bh = bh0 + bhl, bw = bw0 + bwl;
  if (bh - g.blk_lo[1] >= g.ext[1] || bw - g.blk_lo[2] >= g.ext[2]) return;
  C acc[B * B];
#pragma unroll
  for (int j = 0; j < B * B; ++j) acc[j] = C(0);
#pragma unroll
  for (int dh = R; dh >= 0; --dh)
#pragma unroll
    for (int dw = R; dw >= 0; --dw) {
      const int item = (bhl + R - dh) * OW + (bwl + R - dw);
      const int cd = code[item];
      const int jh = cd / K - dh * B, jw = cd % K - dw * B;  // position in the block (cd == 255: none)
      const C gv = dys[item];
#pragma unroll
      for (int j = 0; j < B * B; ++j)
        if (cd != kNone && jh == j / B && jw == j % B) acc[j] += gv;
    }
  const int r0 = bh * B - g.pad[1], c0 = bw * B - g.pad[2];
  S *dxp = dx + n * g.is[0] + c * g.is[1];
#pragma unroll
  for (int j = 0; j < B * B; ++j) {
    const int h = r0 + j / B, w = c0 + j % B;
    if (static_cast<unsigned>(h) < static_cast<unsigned>(g.in[1]) &&
        static_cast<unsigned>(w) < static_cast<unsigned>(g.in[2]))
      store_vec<S, C, 1>(dxp + h * g.is[3] + w * g.is[4], &acc[j], alpha, beta);
  }
}

template <int K, int B, class S, class C>
void launch_max_backward_planes(const Geo &g, int n, const S *x, const S *dy, S *dx, C alpha, C beta,
                                cudaStream_t stream) {
  constexpr int TBW = 32, TBH = 8;
  const int tiles_w = (g.ext[2] + TBW - 1) / TBW, tiles_h = (g.ext[1] + TBH - 1) / TBH;
  const int tiles = tiles_w * tiles_h;
  const unsigned blocks = static_cast<unsigned>(static_cast<int64_t>(tiles) * n * g.c);
  pooling_max_backward_planes<K, B, S, C><<<blocks, 256, 0, stream>>>(g, x, dy, dx, alpha, beta, tiles_w, tiles);
  check_launch("pooling_max_backward_planes");
}

// Max of the row-strip kernels: one min/max instruction per float or per
// pair of 16-bit values, NaN-propagating (max.NaN) or NaN-skipping (IEEE
// maxNum) as the descriptor says. Starting from the lowest finite value
// (float), or from -inf clamped to it on the way out (16-bit pairs), the
// results are those of fold_max (up to the sign of a zero maximum).
__device__ inline float max_nan(float a, float b) {
  float r;
  asm("max.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
  return r;
}
__device__ inline float fmax_fold(float a, float b, bool prop) { return prop ? max_nan(a, b) : fmaxf(a, b); }

template <class S>
struct MaxWord;
template <>
struct MaxWord<float> {
  using T = float;
  __device__ static T low() { return -FLT_MAX; }
  __device__ static T mx(T a, T b, bool prop) { return fmax_fold(a, b, prop); }
  __device__ static void to_float(T v, float *out) { out[0] = v; }
};
__device__ inline float clamp_low(float v, float low = -FLT_MAX) { return v < low ? low : v; }  // NaN stays
template <>
struct MaxWord<half_bits> {
  using T = __half2;
  __device__ static T low() { return __half2half2(__ushort_as_half(0xfc00u)); }
  __device__ static T mx(T a, T b, bool prop) { return prop ? __hmax2_nan(a, b) : __hmax2(a, b); }
  __device__ static void to_float(T v, float *out) {  // -inf to -65504, as max_start
    const float2 f = __half22float2(v);
    out[0] = clamp_low(f.x, -65504.0f);
    out[1] = clamp_low(f.y, -65504.0f);
  }
};
template <>
struct MaxWord<bf16_bits> {
  using T = __nv_bfloat162;
  __device__ static T low() { return __bfloat162bfloat162(__ushort_as_bfloat16(0xff80u)); }
  __device__ static T mx(T a, T b, bool prop) { return prop ? __hmax2_nan(a, b) : __hmax2(a, b); }
  __device__ static void to_float(T v, float *out) {
    const float2 f = __bfloat1622float2(v);
    out[0] = clamp_low(f.x);
    out[1] = clamp_low(f.y);
  }
};

// The row-strip kernels' inputs (pooling_forward_rows, pooling_max_codes_rows):
// NR rows of x from row ih0, the lane's 16-byte vector q of each (rows
// outside x, and lanes past W, load nothing).
template <int NR, int E, class S>
__device__ inline void load_strip_rows(Pack<S, E> (&raw)[NR], const S *xp, int64_t row_stride, int ih0, int H, int q,
                                       bool col_ok) {
#pragma unroll
  for (int i = 0; i < NR; ++i) {
    const int h = ih0 + i;
    if (col_ok && static_cast<unsigned>(h) < static_cast<unsigned>(H))
      raw[i] = *reinterpret_cast<const Pack<S, E> *>(xp + h * row_stride + q * E);
  }
}

// Row h of a strip in the compute type: v[1 .. E] the lane's vector, v[0]
// the element left of it (PW = 1) and v[E + 1] the one right of it (PW = 0,
// K = 3), from the neighbouring lanes by shuffles and loaded at the warp's
// edges; `low` wherever the position lies outside x.
template <int K, int PW, int E, class S, class C>
__device__ inline void strip_row(C (&v)[E + 2], const Pack<S, E> &raw, const S *xp, int64_t row_stride, int h, int H,
                                 int W, bool col_ok, int lane, int w_left, int w_right, C low) {
  const bool row_ok = static_cast<unsigned>(h) < static_cast<unsigned>(H);
#pragma unroll
  for (int l = 0; l < E; ++l) v[1 + l] = col_ok && row_ok ? Storage<S>::template load<C>(raw.v[l]) : low;
  v[0] = v[E + 1] = low;
  if constexpr (PW == 1) {
    C left = __shfl_up_sync(0xffffffffu, v[E], 1);
    if (lane == 0)
      left = row_ok && w_left >= 0 && w_left < W ? Storage<S>::template load<C>(xp[h * row_stride + w_left]) : low;
    v[0] = left;
  }
  if constexpr (PW == 0 && K == 3) {
    C right = __shfl_down_sync(0xffffffffu, v[1], 1);
    if (lane == 31) right = row_ok && w_right < W ? Storage<S>::template load<C>(xp[h * row_stride + w_right]) : low;
    v[E + 1] = right;
  }
}

// Max forward of a 2-d problem with a K x K window (K 2 or 3), stride 2 in
// both dimensions and rows of stride 1 (NCHW-like): a warp takes a strip of
// 32 x E input columns (E = 16 / sizeof(S): one 16-byte load per lane and
// row) and RO output rows of one (n, c) plane. Each lane issues its
// 2 RO + K - 2 row loads back to back (every input line read once per
// strip; the one row two strips share comes from the same CTA), takes the
// elements left and right of its vector from the adjacent lanes (shuffles;
// a direct load at the warp's edges), forms the row maxima of its E / 2
// outputs' windows, then folds them down the column. Max is separable: the
// first maximum of the row maxima, rows in order, is the row-major first
// maximum of the window (same value, signed zeros and NaN rules included).
// Positions outside the input are the window's start (max_start), which
// leaves a fold unchanged, as skipping them does.
//
// AVG: the same walk for average pooling: sums instead of maxima (positions
// outside the input add 0), each output scaled by 1 / its window's count
// (inverse_count: padding included or excluded) before the blend.
template <int K, int PW, int RO, bool AVG, class S, class C>
__global__ void __launch_bounds__(256) pooling_forward_rows(Geo g, const S *__restrict__ x, S *__restrict__ y,
                                                            C alpha, C beta, uint32_t warps_total, bool vec_store) {
  constexpr int E = 16 / sizeof(S), EO = E / 2, NR = 2 * RO + K - 2;
  const uint32_t wid = blockIdx.x * 8 + threadIdx.x / 32;
  if (wid >= warps_total) return;  // whole warps leave: the shuffles below see full warps
  const int lane = static_cast<int>(threadIdx.x & 31);
  uint32_t r;
  uint32_t t = g.d_e2.divmod(wid, r);
  const int q = static_cast<int>(r) * 32 + lane;  // this lane's vector of each row
  t = g.d_e1.divmod(t, r);
  const int oh0 = static_cast<int>(r) * RO;
  t = g.d_cv.divmod(t, r);
  const int c = static_cast<int>(r), n = static_cast<int>(t);
  const int H = g.in[1], W = g.in[2];
  const int ih0 = oh0 * 2 - g.pad[1];
  const S *xp = x + n * g.is[0] + c * g.is[1];
  const bool col_ok = q * E < W;
  Pack<S, E> raw[NR];
  load_strip_rows<NR>(raw, xp, g.is[3], ih0, H, q, col_ok);
  const C low = AVG ? C(0) : max_start<S, C>();
  auto fold = [&](C a, C b) {
    if constexpr (AVG) return a + b;
    else return fmax_fold(a, b, g.prop);
  };
  const int w_left = q * E - 1, w_right = q * E + E;
  S *yp = y + n * g.os[0] + c * g.os[1];
  const int ow0 = q * EO;
  C acc[EO], nxt[EO];
  // Sums of output row oh to averages (the next row's sums start afresh).
  auto average = [&](C *sums, int oh) {
#pragma unroll
    for (int u = 0; u < EO; ++u) {
      const int st[3] = {0, oh * 2 - g.pad[1], (ow0 + u) * 2 - g.pad[2]};
      sums[u] *= inverse_count<C>(g, st);
    }
  };
#pragma unroll
  for (int u = 0; u < EO; ++u) acc[u] = nxt[u] = low;
#pragma unroll
  for (int i = 0; i < NR; ++i) {
    C v[E + 2];
    strip_row<K, PW>(v, raw[i], xp, g.is[3], ih0 + i, H, W, col_ok, lane, w_left, w_right, low);
    C rm[EO];
#pragma unroll
    for (int u = 0; u < EO; ++u) {
      C m = low;
#pragma unroll
      for (int kw = 0; kw < K; ++kw) m = fold(m, v[1 + 2 * u - PW + kw]);
      rm[u] = m;
    }
    // Row i is row i - 2 o of output row o (o = i / 2 and, for K = 3 and
    // even i > 0, also o - 1, whose last row it is).
    if (K == 3 && i >= 2 && i % 2 == 0) {
#pragma unroll
      for (int u = 0; u < EO; ++u) nxt[u] = fold(acc[u], rm[u]);
      const int oh = oh0 + i / 2 - 1;
      if (oh < g.out[1]) {
        if constexpr (AVG) average(nxt, oh);
        S *o = yp + oh * g.os[3] + ow0;
        if (vec_store && ow0 + EO <= g.out[2]) {
          store_vec<S, C, EO>(o, nxt, alpha, beta);
        } else {
#pragma unroll
          for (int u = 0; u < EO; ++u)
            if (ow0 + u < g.out[2]) store_vec<S, C, 1>(o + u, &nxt[u], alpha, beta);
        }
      }
    }
    if (i % 2 == 0 && i / 2 < RO) {
#pragma unroll
      for (int u = 0; u < EO; ++u) acc[u] = fold(low, rm[u]);
    } else if (i / 2 < RO || K == 2) {
#pragma unroll
      for (int u = 0; u < EO; ++u) acc[u] = fold(acc[u], rm[u]);
    }
    if (K == 2 && i % 2 == 1) {
      const int oh = oh0 + i / 2;
      if (oh < g.out[1]) {
        if constexpr (AVG) average(acc, oh);
        S *o = yp + oh * g.os[3] + ow0;
        if (vec_store && ow0 + EO <= g.out[2]) {
          store_vec<S, C, EO>(o, acc, alpha, beta);
        } else {
#pragma unroll
          for (int u = 0; u < EO; ++u)
            if (ow0 + u < g.out[2]) store_vec<S, C, 1>(o + u, &acc[u], alpha, beta);
        }
      }
    }
  }
}

// Launches the row-strip max or average forward when it applies (true),
// else nothing.
template <class S, class C>
bool launch_forward_rows(const PoolingArgs &a, Geo g, const S *x, S *y, C alpha, C beta, cudaStream_t stream) {
  if constexpr (sizeof(S) != 4 && sizeof(S) != 2) {
    return false;
  } else {
    constexpr int E = 16 / sizeof(S), EO = E / 2, RO = 8;
    const bool two_d = g.in[0] == 1 && g.out[0] == 1 && g.win[0] == 1 && g.pad[0] == 0;
    const int K = g.win[1];
    if (!two_d || g.win[2] != K || (K != 2 && K != 3) || g.str[1] != 2 || g.str[2] != 2 ||
        g.pad[1] < 0 || (g.pad[2] != 0 && g.pad[2] != 1) || g.is[4] != 1 || g.os[4] != 1 || g.in[2] % E != 0 ||
        g.is[0] % E != 0 || g.is[1] % E != 0 || g.is[3] % E != 0 || !aligned_to(x, 16))
      return false;
    const bool vec_store = g.os[0] % EO == 0 && g.os[1] % EO == 0 && g.os[3] % EO == 0 && aligned_to(y, EO * sizeof(S));
    const int qsegs = ((g.out[2] + EO - 1) / EO + 31) / 32, hsegs = (g.out[1] + RO - 1) / RO;
    const int64_t warps = a.n * g.c * static_cast<int64_t>(hsegs) * qsegs;
    if (warps == 0 || warps >= (int64_t{1} << 31)) return false;
    g.d_e2 = FastDivmod(static_cast<uint32_t>(qsegs));
    g.d_e1 = FastDivmod(static_cast<uint32_t>(hsegs));
    g.d_cv = FastDivmod(static_cast<uint32_t>(g.c));
    const unsigned blocks = static_cast<unsigned>((warps + 7) / 8);
    const uint32_t wt = static_cast<uint32_t>(warps);
    auto run = [&](auto avg) {
      constexpr bool AVG = decltype(avg)::value;
      if (K == 3 && g.pad[2] == 1)
        pooling_forward_rows<3, 1, RO, AVG, S, C><<<blocks, 256, 0, stream>>>(g, x, y, alpha, beta, wt, vec_store);
      else if (K == 3)
        pooling_forward_rows<3, 0, RO, AVG, S, C><<<blocks, 256, 0, stream>>>(g, x, y, alpha, beta, wt, vec_store);
      else if (g.pad[2] == 1)
        pooling_forward_rows<2, 1, RO, AVG, S, C><<<blocks, 256, 0, stream>>>(g, x, y, alpha, beta, wt, vec_store);
      else
        pooling_forward_rows<2, 0, RO, AVG, S, C><<<blocks, 256, 0, stream>>>(g, x, y, alpha, beta, wt, vec_store);
    };
    if (g.is_max) run(std::false_type{});
    else run(std::true_type{});
    check_launch("pooling_forward_rows");
    return true;
  }
}

// Max forward of a 2-d problem with a K x K window (K 2 or 3) and stride 2,
// channels innermost with 16-byte channel vectors (NHWC-like): a warp takes
// CQT channel vectors (lanes lane % CQT) of 32 / CQT neighbouring output
// columns and RO output rows of one image. Per input row a lane loads the
// last K - 1 positions of its window (the first, for K = 3, is the previous
// column's last: a shuffle, a direct load for the warp's first column), so
// every input vector is read once per strip; rows fold as in the NCHW
// row-strip kernel (separable first maximum).
template <int K, int PW, int RO, int CQT, class S, class C, int VEC>
__global__ void __launch_bounds__(256) pooling_max_forward_nhwc_rows(Geo g, const S *__restrict__ x,
                                                                     S *__restrict__ y, C alpha, C beta,
                                                                     uint32_t warps_total) {
  constexpr int NR = 2 * RO + K - 2, OWW = 32 / CQT;
  const uint32_t wid = blockIdx.x * 8 + threadIdx.x / 32;
  if (wid >= warps_total) return;  // whole warps leave: the shuffles below see full warps
  const int lane = static_cast<int>(threadIdx.x & 31);
  uint32_t r;
  uint32_t t = g.d_e2.divmod(wid, r);
  const int ow = static_cast<int>(r) * OWW + lane / CQT;
  t = g.d_e1.divmod(t, r);
  const int oh0 = static_cast<int>(r) * RO;
  t = g.d_cv.divmod(t, r);  // channel groups of CQT vectors
  const int c = (static_cast<int>(r) * CQT + lane % CQT) * VEC, n = static_cast<int>(t);
  const int H = g.in[1], W = g.in[2];
  const int ih0 = oh0 * 2 - g.pad[1];
  const int s0 = ow * 2 - PW;  // the window's first column
  const S *xp = x + n * g.is[0] + c * g.is[1];
  using P = Pack<S, VEC>;
  // Own columns: s0 + K - 2 and s0 + K - 1 (for K = 3 the first column s0
  // comes from the left neighbour).
  const int wa = s0 + K - 2, wb = s0 + K - 1;
  const bool a_ok = static_cast<unsigned>(wa) < static_cast<unsigned>(W);
  const bool b_ok = static_cast<unsigned>(wb) < static_cast<unsigned>(W);
  P ra[NR], rb[NR];
#pragma unroll
  for (int i = 0; i < NR; ++i) {
    const int h = ih0 + i;
    const bool row_ok = static_cast<unsigned>(h) < static_cast<unsigned>(H);
    if (row_ok && a_ok) ra[i] = *reinterpret_cast<const P *>(xp + h * g.is[3] + wa * g.is[4]);
    if (row_ok && b_ok) rb[i] = *reinterpret_cast<const P *>(xp + h * g.is[3] + wb * g.is[4]);
  }
  using M = MaxWord<S>;
  using T = typename M::T;
  constexpr int NW = static_cast<int>(sizeof(P) / sizeof(T));  // max words per pack
  const T low = M::low();
  const bool first_col = lane < CQT;
  const bool s_ok = static_cast<unsigned>(s0) < static_cast<unsigned>(W);
  S *yp = y + n * g.os[0] + c * g.os[1] + ow * g.os[4];
  const bool col_out = ow < g.out[2];
  const bool prop = g.prop;
  auto words = [](const P &pk) { return reinterpret_cast<const T *>(&pk); };
  auto store = [&](int oh, const T *m) {
    if (!col_out || oh >= g.out[1]) return;
    C v[VEC];
#pragma unroll
    for (int w = 0; w < NW; ++w) M::to_float(m[w], v + w * (VEC / NW));
    store_vec<S, C, VEC>(yp + oh * g.os[3], v, alpha, beta);
  };
  T acc[NW];
#pragma unroll
  for (int w = 0; w < NW; ++w) acc[w] = low;
#pragma unroll
  for (int i = 0; i < NR; ++i) {
    const int h = ih0 + i;
    const bool row_ok = static_cast<unsigned>(h) < static_cast<unsigned>(H);
    T rm[NW];
#pragma unroll
    for (int w = 0; w < NW; ++w) rm[w] = low;
    if constexpr (K == 3) {
      P left = shfl_up_words(rb[i], CQT);
      if (first_col && row_ok && s_ok) left = *reinterpret_cast<const P *>(xp + h * g.is[3] + s0 * g.is[4]);
      if (row_ok && s_ok)
#pragma unroll
        for (int w = 0; w < NW; ++w) rm[w] = words(left)[w];
    }
    if (row_ok && a_ok)
#pragma unroll
      for (int w = 0; w < NW; ++w) rm[w] = M::mx(rm[w], words(ra[i])[w], prop);
    if (row_ok && b_ok)
#pragma unroll
      for (int w = 0; w < NW; ++w) rm[w] = M::mx(rm[w], words(rb[i])[w], prop);
    if (K == 3 && i >= 2 && i % 2 == 0) {
      T fin[NW];
#pragma unroll
      for (int w = 0; w < NW; ++w) fin[w] = M::mx(acc[w], rm[w], prop);
      store(oh0 + i / 2 - 1, fin);
    }
    if (i % 2 == 0 && i / 2 < RO) {
#pragma unroll
      for (int w = 0; w < NW; ++w) acc[w] = rm[w];
    } else if (i / 2 < RO || K == 2) {
#pragma unroll
      for (int w = 0; w < NW; ++w) acc[w] = M::mx(acc[w], rm[w], prop);
    }
    if (K == 2 && i % 2 == 1) store(oh0 + i / 2, acc);
  }
}

// Launches the NHWC row-strip max forward when it applies (true), else nothing.
template <class S, class C, int VEC>
bool launch_max_forward_nhwc_rows(const PoolingArgs &a, Geo g, const S *x, S *y, C alpha, C beta,
                                  cudaStream_t stream) {
  if constexpr (sizeof(S) != 4 && sizeof(S) != 2) {
    return false;
  } else {
    constexpr int RO = 4;
    const bool two_d = g.in[0] == 1 && g.out[0] == 1 && g.win[0] == 1 && g.pad[0] == 0;
    const int K = g.win[1];
    if (!g.is_max || !two_d || !g.channels_inner || g.win[2] != K || (K != 2 && K != 3) || g.str[1] != 2 ||
        g.str[2] != 2 || g.pad[1] < 0 || (g.pad[2] != 0 && g.pad[2] != 1) || (K == 2 && g.pad[2] != 0))
      return false;
    const int cqt = g.cv % 16 == 0 ? 16 : g.cv % 8 == 0 ? 8 : g.cv % 4 == 0 ? 4 : 0;
    if (cqt == 0) return false;
    const int oww = 32 / cqt;
    const int owsegs = (g.out[2] + oww - 1) / oww, hsegs = (g.out[1] + RO - 1) / RO;
    const int64_t warps = a.n * (g.cv / cqt) * static_cast<int64_t>(hsegs) * owsegs;
    if (warps == 0 || warps >= (int64_t{1} << 31)) return false;
    g.d_e2 = FastDivmod(static_cast<uint32_t>(owsegs));
    g.d_e1 = FastDivmod(static_cast<uint32_t>(hsegs));
    g.d_cv = FastDivmod(static_cast<uint32_t>(g.cv / cqt));
    const unsigned blocks = static_cast<unsigned>((warps + 7) / 8);
    const uint32_t wt = static_cast<uint32_t>(warps);
    auto go = [&](auto cq) {
      constexpr int CQT = decltype(cq)::value;
      if (K == 3 && g.pad[2] == 1)
        pooling_max_forward_nhwc_rows<3, 1, RO, CQT, S, C, VEC><<<blocks, 256, 0, stream>>>(g, x, y, alpha, beta, wt);
      else if (K == 3)
        pooling_max_forward_nhwc_rows<3, 0, RO, CQT, S, C, VEC><<<blocks, 256, 0, stream>>>(g, x, y, alpha, beta, wt);
      else
        pooling_max_forward_nhwc_rows<2, 0, RO, CQT, S, C, VEC><<<blocks, 256, 0, stream>>>(g, x, y, alpha, beta, wt);
    };
    if (cqt == 16) go(std::integral_constant<int, 16>{});
    else if (cqt == 8) go(std::integral_constant<int, 8>{});
    else go(std::integral_constant<int, 4>{});
    check_launch("pooling_max_forward_nhwc_rows");
    return true;
  }
}

// The first maxima of stride-2 windows of K (2 or 3) rows, folded row by
// row down a strip of outputs (the separable form of the row-major first
// maximum, NaN rules included: take()). Row i of the strip (its row 0 is
// that of output 0's window) is row i % 2 of output i / 2's window and, for
// K = 3 and even i > 0, the last row of output i / 2 - 1's, which it
// completes. Each row comes as its first maximum over the window's columns
// per lane (rm, at column rk; rk < 0 where the row has no input); each
// completed window's code per lane (kh * K + kw, kNoCode when the window has
// no input) goes to done(output, codes).
constexpr int kNoCode = 255;

template <int K, int OUTS, class C, int VEC>
struct StridedRowFold {
  bool prop;  // NaN propagates
  C best[VEC];
  int at[VEC];

  __device__ explicit StridedRowFold(bool propagate) : prop(propagate) {
#pragma unroll
    for (int l = 0; l < VEC; ++l) {
      best[l] = lowest<C>();
      at[l] = kNoCode;
    }
  }
  // Whether v replaces the running maximum m (the first maximum wins).
  __device__ bool take(C m, C v) const { return prop ? (m == m && (v != v || v > m)) : v > m; }
  // A row's running first maximum m at window column k: v at column kw
  // replaces it when take() says so.
  __device__ void offer(C &m, int &k, C v, int kw) const {
    if (take(m, v)) {
      m = v;
      k = kw;
    }
  }
  template <class Done>
  __device__ void row(int i, const C (&rm)[VEC], const int (&rk)[VEC], Done &&done) {
    if (K == 3 && i >= 2 && i % 2 == 0) {
      int fa[VEC];
#pragma unroll
      for (int l = 0; l < VEC; ++l) fa[l] = rk[l] >= 0 && take(best[l], rm[l]) ? 2 * K + rk[l] : at[l];
      done(i / 2 - 1, fa);
    }
    if (i % 2 == 0 && i / 2 < OUTS) {
#pragma unroll
      for (int l = 0; l < VEC; ++l) {
        best[l] = rm[l];
        at[l] = rk[l] >= 0 ? rk[l] : kNoCode;
      }
    } else if (i % 2 == 1) {
#pragma unroll
      for (int l = 0; l < VEC; ++l)
        if (rk[l] >= 0 && take(best[l], rm[l])) {
          best[l] = rm[l];
          at[l] = K + rk[l];
        }
      if (K == 2) done(i / 2, at);
    }
  }
};

// Max backward of a 2-d problem with a K x K window (K 2 or 3), stride 2 in
// both dimensions, paddings 0 or 1, channels innermost with 16-byte channel
// vectors (NHWC-like): a gather without shared memory or barriers. dx is cut
// into 2 x 2 blocks ("pairs"): pair (q, p) holds rows 2q - ph + K - 2 + {0, 1}
// and columns 2p - pw + K - 2 + {0, 1}; only outputs (q, p), (q, p + 1),
// (q + 1, p) and (q + 1, p + 1) touch it (for K = 2 only (q, p)). A warp
// takes CQT channel vectors (lanes lane % CQT) of OWW = 32 / CQT output
// columns and the RO pair rows of a strip (RO + 1 output rows for K = 3).
// Each lane finds the first maximum of its outputs' windows from x (row by
// row as in the forward row-strip kernel: its own K - 1 window columns
// loaded, the first from the left neighbour by a shuffle), loads their dy,
// takes its right neighbour's maxima positions and dy by shuffles, and
// writes its pair's 4 dx vectors once (the last lane column only helps its
// left neighbour: OWW - 1 pair columns per warp). Each dx sums its windows'
// dy in the order of the generic kernel (output row, then column): the same
// deterministic sums. H100, 3x3/2 pad 1 on 256x64x112x112 f16 (x and dx
// 411 MB each, dy 103 MB): 0.77 ms, 1.2 TB/s of real traffic (0.60 of copy
// as bench_pooling counts bytes); the tiled kernel 0.83 ms.
template <int K, int PW, int RO, int CQT, class S, class C, int VEC>
__global__ void __launch_bounds__(256, sizeof(S) * VEC <= 8 ? 3 : 2)
    pooling_max_backward_nhwc_rows(Geo g, const S *__restrict__ x, const S *__restrict__ dy, S *__restrict__ dx,
                                   C alpha, C beta, uint32_t warps_total, int p_lo, int q_lo) {
  constexpr int OWW = 32 / CQT, NO = RO + (K == 3 ? 1 : 0), NR = 2 * NO + K - 2;
  constexpr int NWC = (VEC + 3) / 4;  // code words (a byte per channel)
  const uint32_t wid = blockIdx.x * 8 + threadIdx.x / 32;
  if (wid >= warps_total) return;  // whole warps leave: the shuffles below see full warps
  const int lane = static_cast<int>(threadIdx.x & 31);
  uint32_t r;
  uint32_t t = g.d_cv.divmod(wid, r);  // channel groups of CQT vectors, innermost
  const int c = (static_cast<int>(r) * CQT + lane % CQT) * VEC;
  t = g.d_e2.divmod(t, r);
  const int j = lane / CQT;
  const int ow = p_lo + static_cast<int>(r) * (OWW - 1) + j;  // this lane's output column (= pair column)
  t = g.d_e1.divmod(t, r);
  const int q0 = q_lo + static_cast<int>(r) * RO;  // the strip's first pair row (= output row)
  const int n = static_cast<int>(t);
  const int H = g.in[1], W = g.in[2];
  const int ph = g.pad[1];
  const int ih0 = 2 * q0 - ph;  // the first x row of output q0's window
  const int s0 = 2 * ow - PW;   // the window's first column
  const S *xp = x + n * g.xs[0] + c * g.xs[1];
  using P = Pack<S, VEC>;
  const int wa = s0 + K - 2, wb = s0 + K - 1;
  const bool a_ok = static_cast<unsigned>(wa) < static_cast<unsigned>(W);
  const bool b_ok = static_cast<unsigned>(wb) < static_cast<unsigned>(W);
  const bool s_ok = static_cast<unsigned>(s0) < static_cast<unsigned>(W);
  const bool col_out = ow >= 0 && ow < g.out[2];
  const bool first_col = j == 0;
  // dy of the strip's outputs (issued first: independent of x).
  P gy[NO];
  const S *dyp = dy + n * g.os[0] + c * g.os[1] + ow * g.os[4];
#pragma unroll
  for (int i = 0; i < NO; ++i) {
    const int oh = q0 + i;
    if (col_out && oh >= 0 && oh < g.out[1]) gy[i] = *reinterpret_cast<const P *>(dyp + oh * g.os[3]);
  }
  // x rows in flight: LA rows ahead of the one being folded (registers
  // bound the depth; all NR rows at once would spill).
  constexpr int LA = NR < 5 ? NR : 5;
  P ra[NR], rb[NR];
  auto load_row = [&](int i) {
    const int h = ih0 + i;
    const bool row_ok = static_cast<unsigned>(h) < static_cast<unsigned>(H);
    if (row_ok && a_ok) ra[i] = *reinterpret_cast<const P *>(xp + h * g.xs[3] + wa * g.xs[4]);
    if (row_ok && b_ok) rb[i] = *reinterpret_cast<const P *>(xp + h * g.xs[3] + wb * g.xs[4]);
  };
#pragma unroll
  for (int i = 0; i < LA; ++i) load_row(i);
  // Codes (window position kh * K + kw, kNoCode when none) of the outputs, a
  // byte per channel.
  uint32_t code[NO][NWC];
  StridedRowFold<K, NO, C, VEC> fold(g.prop);
  auto finish = [&](int i, const int *fa) {
    const int oh = q0 + i;
    const bool ok = col_out && oh >= 0 && oh < g.out[1];
#pragma unroll
    for (int w = 0; w < NWC; ++w) code[i][w] = 0;
#pragma unroll
    for (int l = 0; l < VEC; ++l) code[i][l / 4] |= static_cast<uint32_t>(ok ? fa[l] : kNoCode) << (8 * (l % 4));
  };
#pragma unroll
  for (int i = 0; i < NR; ++i) {
    if (i + LA < NR) load_row(i + LA);
    const int h = ih0 + i;
    const bool row_ok = static_cast<unsigned>(h) < static_cast<unsigned>(H);
    // This row's first maximum over the window's columns, per channel.
    C rm[VEC];
    int rk[VEC];
#pragma unroll
    for (int l = 0; l < VEC; ++l) {
      rm[l] = lowest<C>();
      rk[l] = -1;
    }
    if constexpr (K == 3) {
      P left = shfl_up_words(rb[i], CQT);
      if (first_col && row_ok && s_ok) left = *reinterpret_cast<const P *>(xp + h * g.xs[3] + s0 * g.xs[4]);
      if (row_ok && s_ok)
#pragma unroll
        for (int l = 0; l < VEC; ++l) {
          const C v = Storage<S>::template load<C>(left.v[l]);
          fold.offer(rm[l], rk[l], v, 0);
        }
    }
    if (row_ok && a_ok)
#pragma unroll
      for (int l = 0; l < VEC; ++l) {
        const C v = Storage<S>::template load<C>(ra[i].v[l]);
        fold.offer(rm[l], rk[l], v, K - 2);
      }
    if (row_ok && b_ok)
#pragma unroll
      for (int l = 0; l < VEC; ++l) {
        const C v = Storage<S>::template load<C>(rb[i].v[l]);
        fold.offer(rm[l], rk[l], v, K - 1);
      }
    fold.row(i, rm, rk, finish);
  }
  // The right neighbour's codes and dy (lane + CQT: the next output column).
  uint32_t rcode[NO][NWC];
  P rgy[NO];
#pragma unroll
  for (int i = 0; i < NO; ++i) {
#pragma unroll
    for (int w = 0; w < NWC; ++w) rcode[i][w] = __shfl_down_sync(0xffffffffu, code[i][w], CQT);
    if constexpr (K == 3) {
#pragma unroll
      for (int w32 = 0; w32 < static_cast<int>(sizeof(P) / 4); ++w32)
        reinterpret_cast<uint32_t *>(&rgy[i])[w32] =
            __shfl_down_sync(0xffffffffu, reinterpret_cast<const uint32_t *>(&gy[i])[w32], CQT);
    }
  }
  if (j == OWW - 1) return;  // a helper column
  S *dxp = dx + n * g.is[0] + c * g.is[1];
  auto cd = [](const uint32_t *cw, int l) { return static_cast<int>((cw[l / 4] >> (8 * (l % 4))) & 0xffu); };
#pragma unroll
  for (int i = 0; i < RO; ++i) {
    const int rA = ih0 + 2 * i + K - 2;  // the pair's rows rA, rA + 1
    C d[4][VEC];                          // (rA, wa), (rA, wb), (rA + 1, wa), (rA + 1, wb)
#pragma unroll
    for (int l = 0; l < VEC; ++l) {
      const C g0 = Storage<S>::template load<C>(gy[i].v[l]);
      const int c0 = cd(code[i], l);
      d[0][l] = c0 == (K - 2) * K + K - 2 ? g0 : C(0);
      d[1][l] = c0 == (K - 2) * K + K - 1 ? g0 : C(0);
      d[2][l] = c0 == (K - 1) * K + K - 2 ? g0 : C(0);
      d[3][l] = c0 == (K - 1) * K + K - 1 ? g0 : C(0);
      if constexpr (K == 3) {
        const C g1 = Storage<S>::template load<C>(rgy[i].v[l]);
        const int c1 = cd(rcode[i], l);
        if (c1 == 3) d[1][l] += g1;
        if (c1 == 6) d[3][l] += g1;
        const C g2 = Storage<S>::template load<C>(gy[i + 1].v[l]);
        const int c2 = cd(code[i + 1], l);
        if (c2 == 1) d[2][l] += g2;
        if (c2 == 2) d[3][l] += g2;
        const C g3 = Storage<S>::template load<C>(rgy[i + 1].v[l]);
        if (cd(rcode[i + 1], l) == 0) d[3][l] += g3;
      }
    }
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      const int h = rA + e / 2, w = e % 2 ? wb : wa;
      if (static_cast<unsigned>(h) < static_cast<unsigned>(H) && static_cast<unsigned>(w) < static_cast<unsigned>(W))
        store_vec<S, C, VEC>(dxp + h * g.is[3] + w * g.is[4], d[e], alpha, beta);
    }
  }
}

// Max backward in two passes (2-d, K x K windows with K 2 or 3, stride 2 in
// both dimensions, any paddings below K, any layout): pass 1
// (pooling_max_codes) reads x once and writes each window's first-maximum
// position as a byte per output element into the plan's scratch (255:
// none); pass 2 (pooling_max_backward_codes) has each thread own a 2 x 2
// block of dx ("pair", as in the row-strip gather) and gather dy from the
// <= 4 outputs whose windows touch it, reading their codes instead of x.
// Every dx is written once, coalesced, without atomics, in the order of the
// generic kernel (output row, then column: the same deterministic sums).
// Traffic: x + codes, then dy + codes + dx, against x + dy + dx for the
// one-pass gathers, whose x re-reads and long register-bound strips ran at
// 1.2 TB/s (FREEDNN_POOL_TUNE=nocodes keeps them). H100, 3x3/2 pad 1 on
// 256x64x112x112: f16 NHWC 0.60 ms against 0.74 (1.55 TB/s counting x, dy
// and dx once), f32 NCHW 0.95 ms against 1.54. Tried: pass 2 in column
// strips of 4 pair rows (each output row's dy and codes loaded once, not
// twice): the same times (0.595 / 0.95 ms).
template <int VEC>
struct CodeWords {
  // VEC bytes, one per channel, moved as one access.
  static constexpr int N = (VEC + 3) / 4;
  uint32_t w[N];
  __device__ int get(int l) const { return static_cast<int>((w[l / 4] >> (8 * (l % 4))) & 0xffu); }
  __device__ void clear() {
#pragma unroll
    for (int i = 0; i < N; ++i) w[i] = 0;
  }
  __device__ void put(int l, int code) { w[l / 4] |= static_cast<uint32_t>(code & 0xff) << (8 * (l % 4)); }
  __device__ void store(uint8_t *p) const {
    if constexpr (VEC == 8) *reinterpret_cast<uint2 *>(p) = make_uint2(w[0], w[1]);
    else if constexpr (VEC == 4) *reinterpret_cast<uint32_t *>(p) = w[0];
    else if constexpr (VEC == 2) *reinterpret_cast<uint16_t *>(p) = static_cast<uint16_t>(w[0]);
    else *p = static_cast<uint8_t>(w[0]);
  }
  __device__ void load(const uint8_t *p) {
    if constexpr (VEC == 8) {
      const uint2 v = *reinterpret_cast<const uint2 *>(p);
      w[0] = v.x;
      w[1] = v.y;
    } else if constexpr (VEC == 4) {
      w[0] = *reinterpret_cast<const uint32_t *>(p);
    } else if constexpr (VEC == 2) {
      w[0] = *reinterpret_cast<const uint16_t *>(p);
    } else {
      w[0] = *p;
    }
  }
};

// The codes' index of output (n, c, oh, ow): packed, channels innermost
// when the problem's are, else output columns.
__device__ inline int code_index(const Geo &g, int n, int c, int oh, int ow) {
  return g.channels_inner ? ((n * g.out[1] + oh) * g.out[2] + ow) * g.c + c : ((n * g.c + c) * g.out[1] + oh) * g.out[2] + ow;
}

// Pass 1: one thread per VEC channels of one output column and RO output
// rows (thread space n, cq, strip, column). Rows fold as in the row-strip
// kernels: a row's first maximum over the window's columns, then rows in
// order (the separable form of the row-major first maximum, NaN rules
// included). Input rows are loaded LA rows ahead of the one being folded.
template <int K, int RO, class S, class C, int VEC>
__global__ void __launch_bounds__(256) pooling_max_codes(Geo g, const S *__restrict__ x, uint8_t *__restrict__ codes,
                                                         uint32_t total) {
  constexpr int NR = 2 * RO + K - 2, LA = NR < 3 ? NR : 3;
  const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= total) return;
  int n, cq, b[3];
  split(g, t, n, cq, b);
  const int c = cq * VEC;
  const int oh0 = b[1] * RO, ow = b[2];
  const int H = g.in[1], W = g.in[2];
  const int ih0 = 2 * oh0 - g.pad[1], iw0 = 2 * ow - g.pad[2];
  const S *xp = x + n * g.xs[0] + c * g.xs[1];
  using P = Pack<S, VEC>;
  bool col_ok[K];
#pragma unroll
  for (int kw = 0; kw < K; ++kw) col_ok[kw] = static_cast<unsigned>(iw0 + kw) < static_cast<unsigned>(W);
  P raw[NR][K];
  auto load_row = [&](int i) {
    const int h = ih0 + i;
    const bool row_ok = static_cast<unsigned>(h) < static_cast<unsigned>(H);
#pragma unroll
    for (int kw = 0; kw < K; ++kw)
      if (row_ok && col_ok[kw]) raw[i][kw] = *reinterpret_cast<const P *>(xp + h * g.xs[3] + (iw0 + kw) * g.xs[4]);
  };
#pragma unroll
  for (int i = 0; i < LA; ++i) load_row(i);
  StridedRowFold<K, RO, C, VEC> fold(g.prop);
  auto emit = [&](int o, const int *fa) {
    const int oh = oh0 + o;
    if (oh >= g.out[1]) return;
    CodeWords<VEC> cw;
    cw.clear();
#pragma unroll
    for (int l = 0; l < VEC; ++l) cw.put(l, fa[l]);
    cw.store(codes + code_index(g, n, c, oh, ow));
  };
#pragma unroll
  for (int i = 0; i < NR; ++i) {
    if (i + LA < NR) load_row(i + LA);
    const bool row_ok = static_cast<unsigned>(ih0 + i) < static_cast<unsigned>(H);
    C rm[VEC];
    int rk[VEC];
#pragma unroll
    for (int l = 0; l < VEC; ++l) {
      rm[l] = lowest<C>();
      rk[l] = -1;
    }
#pragma unroll
    for (int kw = 0; kw < K; ++kw)
      if (row_ok && col_ok[kw])
#pragma unroll
        for (int l = 0; l < VEC; ++l) {
          const C v = Storage<S>::template load<C>(raw[i][kw].v[l]);
          fold.offer(rm[l], rk[l], v, kw);
        }
    fold.row(i, rm, rk, emit);
  }
}

// Pass 2: one thread per pair (q, p) and VEC channels (thread space n, cq,
// pair row, pair column). Pair (q, p) holds rows 2q - ph + K - 2 + {0, 1}
// and columns 2p - pw + K - 2 + {0, 1}; outputs (q + a, p + b), a, b in
// {0, 1} (only (q, p) for K = 2) touch it, each dx at window position
// (K - 2 + e_row - 2a, K - 2 + e_col - 2b): compile-time constants.
template <int K, class S, class C, int VEC>
__global__ void __launch_bounds__(256) pooling_max_backward_codes(Geo g, const uint8_t *__restrict__ codes,
                                                                  const S *__restrict__ dy, S *__restrict__ dx,
                                                                  C alpha, C beta, uint32_t total, int p_lo,
                                                                  int q_lo) {
  constexpr int A = K == 3 ? 2 : 1;
  const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= total) return;
  int n, cq, b[3];
  split(g, t, n, cq, b);
  const int c = cq * VEC;
  const int q = q_lo + b[1], p = p_lo + b[2];
  using P = Pack<S, VEC>;
  P gy[A][A];
  CodeWords<VEC> cw[A][A];
  bool ok[A][A];
  const S *dyp = dy + n * g.os[0] + c * g.os[1];
#pragma unroll
  for (int a = 0; a < A; ++a)
#pragma unroll
    for (int bb = 0; bb < A; ++bb) {
      const int oh = q + a, ow = p + bb;
      ok[a][bb] = static_cast<unsigned>(oh) < static_cast<unsigned>(g.out[1]) &&
                  static_cast<unsigned>(ow) < static_cast<unsigned>(g.out[2]);
      if (ok[a][bb]) {
        gy[a][bb] = *reinterpret_cast<const P *>(dyp + oh * g.os[3] + ow * g.os[4]);
        cw[a][bb].load(codes + code_index(g, n, c, oh, ow));
      }
    }
  C d[4][VEC];
#pragma unroll
  for (int e = 0; e < 4; ++e)
#pragma unroll
    for (int l = 0; l < VEC; ++l) d[e][l] = C(0);
#pragma unroll
  for (int a = 0; a < A; ++a)
#pragma unroll
    for (int bb = 0; bb < A; ++bb) {
      if (!ok[a][bb]) continue;
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const int kh = K - 2 + e / 2 - 2 * a, kw = K - 2 + e % 2 - 2 * bb;
        if (kh < 0 || kh >= K || kw < 0 || kw >= K) continue;
#pragma unroll
        for (int l = 0; l < VEC; ++l)
          if (cw[a][bb].get(l) == kh * K + kw) d[e][l] += Storage<S>::template load<C>(gy[a][bb].v[l]);
      }
    }
  const int r0 = 2 * q - g.pad[1] + K - 2, w0 = 2 * p - g.pad[2] + K - 2;
  S *dxp = dx + n * g.is[0] + c * g.is[1];
#pragma unroll
  for (int e = 0; e < 4; ++e) {
    const int h = r0 + e / 2, w = w0 + e % 2;
    if (static_cast<unsigned>(h) < static_cast<unsigned>(g.in[1]) && static_cast<unsigned>(w) < static_cast<unsigned>(g.in[2]))
      store_vec<S, C, VEC>(dxp + h * g.is[3] + w * g.is[4], d[e], alpha, beta);
  }
}

// The two passes for rows of stride 1 (NCHW-like), as the forward row-strip
// kernel walks them (pooling_forward_rows): a warp takes 32 x E neighbouring
// columns (E = 16 / sizeof(S): one 16-byte access per lane and row) of one
// (n, c) plane and a strip of rows. The thread-per-column kernels above ran
// issue-bound on these layouts (H100, 3x3/2 pad 1 f32 NCHW 256x64x112x112,
// ncu at its locked 1.57 GHz: codes 528 us, gather 532 us, the SMs 86 /
// 91 % busy and DRAM 49 / 59 %; by the issue rate about 130 instructions
// per output in each pass, mostly per-thread index arithmetic, scalar
// strided accesses and bounds tests). These: 349 / 369 us, DRAM 75 / 85 %.
// FREEDNN_POOL_TUNE=oldcodes keeps the old ones.
//
// Pass 1: each lane's row vector and the element left (right, for PW = 0)
// of it by a shuffle give the first maxima of its E / 2 outputs' windows
// per row (a direct load at the warp's edge), folded down RO output rows by
// StridedRowFold as in pooling_max_codes: the same codes. Positions
// outside x hold the lowest value, which a window's first maximum never
// takes (take() moves on strictly greater values or a NaN). PROP: the NaN
// rule as a constant (a run-time one evaluated both forms of each compare).
template <int K, int PW, int RO, bool PROP, class S, class C>
__global__ void __launch_bounds__(256) pooling_max_codes_rows(Geo g, const S *__restrict__ x,
                                                              uint8_t *__restrict__ codes, uint32_t warps_total,
                                                              bool vec_codes) {
  constexpr int E = 16 / sizeof(S), EO = E / 2, NR = 2 * RO + K - 2;
  const uint32_t wid = blockIdx.x * 8 + threadIdx.x / 32;
  if (wid >= warps_total) return;  // whole warps leave: the shuffles below see full warps
  const int lane = static_cast<int>(threadIdx.x & 31);
  uint32_t r;
  uint32_t t = g.d_e2.divmod(wid, r);
  const int q = static_cast<int>(r) * 32 + lane;
  t = g.d_e1.divmod(t, r);
  const int oh0 = static_cast<int>(r) * RO;
  t = g.d_cv.divmod(t, r);
  const int c = static_cast<int>(r), n = static_cast<int>(t);
  const int H = g.in[1], W = g.in[2], OH = g.out[1], OW = g.out[2];
  const int ih0 = oh0 * 2 - g.pad[1];
  const S *xp = x + n * g.xs[0] + c * g.xs[1];
  const bool col_ok = q * E < W;
  Pack<S, E> raw[NR];
  load_strip_rows<NR>(raw, xp, g.xs[3], ih0, H, q, col_ok);
  const C low = lowest<C>();
  const int w_left = q * E - 1, w_right = q * E + E, ow0 = q * EO;
  uint8_t *cp = codes + (n * g.c + c) * OH * OW + ow0;
  StridedRowFold<K, RO, C, EO> fold(PROP);
  // A lane writes its outputs whether or not its own vector lies in x: with
  // column padding 1 and K = 2 the last output's window is the column left
  // of it (W - 1, the left neighbour's), and its lane loads nothing.
  auto emit = [&](int o, const int *fa) {
    const int oh = oh0 + o;
    if (oh >= OH) return;
    if (vec_codes && ow0 + EO <= OW) {  // vec_codes: OW % EO == 0, an aligned word
      CodeWords<EO> cw;
      cw.clear();
#pragma unroll
      for (int u = 0; u < EO; ++u) cw.put(u, fa[u]);
      cw.store(cp + oh * OW);
    } else {
#pragma unroll
      for (int u = 0; u < EO; ++u)
        if (ow0 + u < OW) cp[oh * OW + u] = static_cast<uint8_t>(fa[u]);
    }
  };
#pragma unroll
  for (int i = 0; i < NR; ++i) {
    C v[E + 2];
    strip_row<K, PW>(v, raw[i], xp, g.xs[3], ih0 + i, H, W, col_ok, lane, w_left, w_right, low);
    C rm[EO];
    int rk[EO];
#pragma unroll
    for (int u = 0; u < EO; ++u) {
      rm[u] = low;
      rk[u] = -1;
#pragma unroll
      for (int kw = 0; kw < K; ++kw) {
        const C e = v[1 + 2 * u - PW + kw];
        fold.offer(rm[u], rk[u], e, kw);
      }
    }
    fold.row(i, rm, rk, emit);
  }
}

// Pass 2 where pair p covers dx columns 2p and 2p + 1 (K = 3 with padding
// 1, K = 2 with padding 0): a lane's E dx columns are its EO pairs, one
// 16-byte store per dx row. Per output row of its strip it loads its EO
// outputs' dy and codes as one access each and takes output EO (the right
// neighbour's first) by a shuffle (a direct load at the warp's edge); each
// output row is loaded once for the two pair rows it touches. The sums run
// in the order of pooling_max_backward_codes (output row, then column): the
// same bits.
template <int K, int RO, class S, class C>
__global__ void __launch_bounds__(256) pooling_max_backward_codes_rows(Geo g, const uint8_t *__restrict__ codes,
                                                                       const S *__restrict__ dy, S *__restrict__ dx,
                                                                       C alpha, C beta, uint32_t warps_total,
                                                                       int q_lo) {
  constexpr int E = 16 / sizeof(S), EO = E / 2, A = K == 3 ? 2 : 1, NO = RO + A - 1;
  const uint32_t wid = blockIdx.x * 8 + threadIdx.x / 32;
  if (wid >= warps_total) return;  // whole warps leave: the shuffles below see full warps
  const int lane = static_cast<int>(threadIdx.x & 31);
  uint32_t r;
  uint32_t t = g.d_e2.divmod(wid, r);
  const int q = static_cast<int>(r) * 32 + lane;
  t = g.d_e1.divmod(t, r);
  const int qq0 = q_lo + static_cast<int>(r) * RO;  // the strip's first pair row
  t = g.d_cv.divmod(t, r);
  const int c = static_cast<int>(r), n = static_cast<int>(t);
  const int H = g.in[1], W = g.in[2], OH = g.out[1], OW = g.out[2];
  const bool col_ok = q * E < W;
  const int ow0 = q * EO;
  const uint8_t *cp = codes + (n * g.c + c) * OH * OW;
  const S *dyp = dy + n * g.os[0] + c * g.os[1];
  // Output rows qq0 .. qq0 + NO - 1: dy and codes of outputs ow0 .. ow0 + EO
  // (kNoCode where the output does not exist).
  using PY = Pack<S, EO>;
  PY gyv[NO];
  CodeWords<EO> cwv[NO];
  bool row_ok[NO];
#pragma unroll
  for (int o = 0; o < NO; ++o) {
    const int oh = qq0 + o;
    row_ok[o] = static_cast<unsigned>(oh) < static_cast<unsigned>(OH);
    if (col_ok && row_ok[o]) {
      gyv[o] = *reinterpret_cast<const PY *>(dyp + oh * g.os[3] + ow0);
      cwv[o].load(cp + oh * OW + ow0);
    }
  }
  C gy[NO][EO + 1];
  int cd[NO][EO + 1];
#pragma unroll
  for (int o = 0; o < NO; ++o) {
    const bool ok = col_ok && row_ok[o];
#pragma unroll
    for (int u = 0; u < EO; ++u) {
      gy[o][u] = ok ? Storage<S>::template load<C>(gyv[o].v[u]) : C(0);
      cd[o][u] = ok ? cwv[o].get(u) : kNoCode;
    }
    if constexpr (K == 3) {
      C right = __shfl_down_sync(0xffffffffu, gy[o][0], 1);
      int rc = __shfl_down_sync(0xffffffffu, cd[o][0], 1);
      const int ow = ow0 + EO;
      if (lane == 31) {
        const bool in = row_ok[o] && ow < OW;
        right = in ? Storage<S>::template load<C>(dyp[(qq0 + o) * g.os[3] + ow]) : C(0);
        rc = in ? static_cast<int>(cp[(qq0 + o) * OW + ow]) : kNoCode;
      }
      if (ow >= OW) rc = kNoCode;
      gy[o][EO] = right;
      cd[o][EO] = rc;
    }
  }
  if (!col_ok) return;
  S *dxp = dx + n * g.is[0] + c * g.is[1] + q * E;
  const int top = K - 2 - g.pad[1];  // dx row of pair row qq: 2 qq + top + e
#pragma unroll
  for (int rr = 0; rr < RO; ++rr) {
    C d[2][E];
#pragma unroll
    for (int e = 0; e < 2; ++e)
#pragma unroll
      for (int j = 0; j < E; ++j) {
        d[e][j] = C(0);
#pragma unroll
        for (int a = 0; a < A; ++a)
#pragma unroll
          for (int b = 0; b < A; ++b) {
            const int kh = K - 2 + e - 2 * a, kw = K - 2 + j % 2 - 2 * b;
            if (kh < 0 || kh >= K || kw < 0 || kw >= K) continue;
            if (cd[rr + a][j / 2 + b] == kh * K + kw) d[e][j] += gy[rr + a][j / 2 + b];
          }
      }
#pragma unroll
    for (int e = 0; e < 2; ++e) {
      const int h = 2 * (qq0 + rr) + top + e;
      if (static_cast<unsigned>(h) < static_cast<unsigned>(H)) store_vec<S, C, E>(dxp + h * g.is[3], d[e], alpha, beta);
    }
  }
}

// Max backward of a 2-d problem with 3 x 3 windows of stride 2, paddings 0
// or 1, half or bfloat16 with channels innermost in 16-byte vectors, in one
// pass (pooling_max_backward_stream). A CTA owns CQ channel vectors of one
// image, PT pair columns (the pairs of the two-pass form) and a run of pair
// rows, and walks down the run. Stage j of a ring in shared memory (two
// stages in flight through cp.async) holds x rows 2j - ph + 1 and 2j - ph + 2
// over the 2 PT + 3 columns that the chunk's PT + 1 output columns read, and
// dy row j. Step j finds output row j's first maxima from stage j - 1's last
// row and stage j into a ring of three code rows, then writes pair row j - 2
// from code rows j - 2, j - 1 and dy rows j - 2, j - 1: every dx once, with
// 16-byte stores, no atomics, x read once (plus halos: two rows above and
// two below a run, three columns per chunk), dy once (plus a row per run). Pairs of 16-bit values go through the
// paired compare instructions as 32-bit words: a lane's mask picks the new
// maximum and its window position (kept as a 16-bit number, so the gather
// compares it the same way), and dy where the position matches. The sums
// keep the generic kernel's order and rounding: a dx of one or two windows
// adds in 16 bits when alpha is 1 and beta 0 (a sum of two such values
// rounds the same directly as through float: it is exact in float, or the
// smaller term lies below a quarter unit of the larger), the corner of four
// windows and every blended result go through float. H100, 256x64x112x112
// f16: 0.348 ms, 0.90 of a D2D copy (x, dy, dx counted once), 4.4x cuDNN
// 9; the two-pass form 0.60 ms. With CQ = 4 and PT = 56 (channel counts
// of 4 vectors but not 8): 0.367 ms. Those figures are from a stand-alone
// harness with this kernel's code; the library's path passed the GPU
// tests on 2026-11-23 (PoolingBackward.MaxNhwcStreaming).
// PairBits<T2>: a 32-bit word as a pair T2 of 16-bit values; PairOps<S>
// adds the conversions of storage type S.
template <class T2>
struct PairBits {
  using T = T2;
  __device__ static T as(uint32_t w) { return *reinterpret_cast<const T *>(&w); }
  __device__ static uint32_t bits(T v) { return *reinterpret_cast<const uint32_t *>(&v); }
  __device__ static uint32_t gt(uint32_t a, uint32_t b) { return __hgt2_mask(as(a), as(b)); }
  __device__ static uint32_t gtu(uint32_t a, uint32_t b) { return __hgtu2_mask(as(a), as(b)); }
  __device__ static uint32_t eq(uint32_t a, uint32_t b) { return __heq2_mask(as(a), as(b)); }
  __device__ static uint32_t add(uint32_t a, uint32_t b) { return bits(__hadd2(as(a), as(b))); }
};
template <class S>
struct PairOps;
template <>
struct PairOps<half_bits> : PairBits<__half2> {
  __device__ static uint32_t splat(float f) { return bits(__float2half2_rn(f)); }
  __device__ static float2 to_float2(uint32_t w) { return __half22float2(as(w)); }
  __device__ static uint32_t from_float2(float2 f) { return bits(__float22half2_rn(f)); }
  static constexpr uint32_t kNegInf = 0xfc00fc00u;
};
template <>
struct PairOps<bf16_bits> : PairBits<__nv_bfloat162> {
  __device__ static uint32_t splat(float f) { return bits(__float2bfloat162_rn(f)); }
  __device__ static float2 to_float2(uint32_t w) { return __bfloat1622float2(as(w)); }
  __device__ static uint32_t from_float2(float2 f) { return bits(__float22bfloat162_rn(f)); }
  static constexpr uint32_t kNegInf = 0xff80ff80u;
};

// The streaming kernel's shared memory, in 16-byte units: rings of x stages,
// dy rows and code rows.
template <int CQ, int PT>
struct StreamShape {
  static constexpr int kStages = 2;              // stages in flight
  static constexpr int XC = 2 * PT + 3;          // x columns of a stage
  static constexpr int NS = kStages + 2;         // x stages: two read while kStages land
  static constexpr int ND = kStages + 3;         // dy rows: two read while kStages land
  static constexpr int XU = 2 * XC * CQ;         // units of an x stage
  static constexpr int YU = (PT + 1) * CQ;       // units of a dy row, and of a code row
  static constexpr size_t smem_bytes = static_cast<size_t>(NS * XU + ND * YU + 3 * YU) * 16;
};

// Spreads a quarter warp's reads of the code step (8 / CQ output columns, x
// columns two apart) over all banks.
template <int CQ>
__device__ inline int stream_swizzle(int u) {
  if constexpr (CQ == 4) return u ^ (((u >> 3) & 1) << 2);
  else return u;
}

template <int CQ, int PT, class S>
__global__ void __launch_bounds__(256, 2)
    pooling_max_backward_stream(Geo g, const S *__restrict__ x, const S *__restrict__ dy, S *__restrict__ dx,
                                float alpha, float beta, int p_lo, int p_hi, int q_lo, int q_hi, int seg_rows,
                                int chunks, int segs) {
  using L = StreamShape<CQ, PT>;
  using O = PairOps<S>;
  constexpr int VEC = 8, D = L::kStages;
  extern __shared__ uint4 stream_smem[];
  uint4 *xring = stream_smem;
  uint4 *yring = xring + L::NS * L::XU;
  uint4 *cring = yring + L::ND * L::YU;
  const int groups = g.cv / CQ;
  unsigned b = blockIdx.x;
  const int cg = static_cast<int>(b % static_cast<unsigned>(groups));
  b /= static_cast<unsigned>(groups);
  const int chunk = static_cast<int>(b % static_cast<unsigned>(chunks));
  b /= static_cast<unsigned>(chunks);
  const int seg = static_cast<int>(b % static_cast<unsigned>(segs));
  const int n = static_cast<int>(b / static_cast<unsigned>(segs));
  const int p0 = p_lo + chunk * PT;
  const int qa = q_lo + seg * seg_rows, qb = min(qa + seg_rows, q_hi + 1);  // pair rows [qa, qb)
  const int H = g.in[1], W = g.in[2], OH = g.out[1], OW = g.out[2];
  const int ph = g.pad[1], pw = g.pad[2];
  const int xc0 = 2 * p0 - pw;
  const int c0 = cg * CQ * VEC;
  const S *xn = x + n * g.xs[0] + c0;
  const S *dyn = dy + n * g.os[0] + c0;
  const int tid = static_cast<int>(threadIdx.x);
  // Stage j into ring position s = j - qa + 1 (dy from row qa on). Past the
  // run's end an empty group keeps the wait counts.
  auto issue = [&](int j, int s) {
    if (j <= qb) {
      uint4 *xs = xring + (s % L::NS) * L::XU;
      for (int u = tid; u < L::XU; u += 256) {
        const int cv = u % CQ, rc = u / CQ;
        const int r = rc / L::XC, c = rc - r * L::XC;
        const int h = 2 * j - ph + 1 + r, w = xc0 + c;
        const bool ok = static_cast<unsigned>(h) < static_cast<unsigned>(H) &&
                        static_cast<unsigned>(w) < static_cast<unsigned>(W);
        cp_async16(xs + stream_swizzle<CQ>(u), ok ? xn + h * g.xs[3] + w * g.xs[4] + cv * VEC : x, ok);
      }
      if (j >= qa) {
        uint4 *ys = yring + (s % L::ND) * L::YU;
        for (int u = tid; u < L::YU; u += 256) {
          const int cv = u % CQ, ow = p0 + u / CQ;
          const bool ok = static_cast<unsigned>(j) < static_cast<unsigned>(OH) &&
                          static_cast<unsigned>(ow) < static_cast<unsigned>(OW);
          cp_async16(ys + u, ok ? dyn + j * g.os[3] + ow * g.os[4] + cv * VEC : dy, ok);
        }
      }
    }
    cp_async_commit();
  };
#pragma unroll
  for (int k = 0; k <= D; ++k) issue(qa - 1 + k, k);
  const bool plain = alpha == 1.f && beta == 0.f;
  const uint32_t none = O::splat(static_cast<float>(kNoCode));
  for (int j = qa; j <= qb + 1; ++j) {
    const int s = j - qa + 1;
    cp_async_wait<D - 1>();  // stage j has landed (this thread's copies)
    __syncthreads();         // (everyone's), and step j - 1 is done with the slots refilled below
    if (j <= qb) {
      // Output row j's first maxima (window position kh * 3 + kw per lane).
      const uint4 *sa = xring + ((s - 1) % L::NS) * L::XU, *sb = xring + (s % L::NS) * L::XU;
      uint4 *cw = cring + (s % 3) * L::YU;
      for (int it = tid; it < L::YU; it += 256) {
        const int cv = it % CQ, col = it / CQ;
        const int ow = p0 + col;
        uint32_t best[4], at[4];
#pragma unroll
        for (int i = 0; i < 4; ++i) {
          best[i] = O::kNegInf;  // below every value but -inf, as the lowest finite float is
          at[i] = none;
        }
        if (static_cast<unsigned>(j) < static_cast<unsigned>(OH) && static_cast<unsigned>(ow) < static_cast<unsigned>(OW)) {
#pragma unroll
          for (int kh = 0; kh < 3; ++kh) {
            const int h = 2 * j - ph + kh;
            if (static_cast<unsigned>(h) >= static_cast<unsigned>(H)) continue;
            const uint4 *st = kh == 0 ? sa : sb;
            const int r = kh == 0 ? 1 : kh - 1;
#pragma unroll
            for (int kw = 0; kw < 3; ++kw) {
              const int w = 2 * ow - pw + kw;
              if (static_cast<unsigned>(w) >= static_cast<unsigned>(W)) continue;
              const uint4 pk = st[stream_swizzle<CQ>((r * L::XC + 2 * col + kw) * CQ + cv)];
              const uint32_t v[4] = {pk.x, pk.y, pk.z, pk.w};
              const uint32_t code = O::splat(static_cast<float>(kh * 3 + kw));
#pragma unroll
              for (int i = 0; i < 4; ++i) {
                // fold_max's rule per lane: greater, or (propagating) NaN over a non-NaN.
                const uint32_t m = g.prop ? (O::gtu(v[i], best[i]) & O::eq(best[i], best[i])) : O::gt(v[i], best[i]);
                best[i] = (v[i] & m) | (best[i] & ~m);
                at[i] = (code & m) | (at[i] & ~m);
              }
            }
          }
        }
        cw[it] = make_uint4(at[0], at[1], at[2], at[3]);
      }
    }
    if (j - 2 >= qa) {
      // Pair row q = j - 2: outputs (q + a, p + b) touch pair (q, p) at
      // window positions (1 + e_row - 2a, 1 + e_col - 2b).
      const int q = j - 2, sq = s - 2;
      const uint4 *ca = cring + (sq % 3) * L::YU, *cb = cring + ((sq + 1) % 3) * L::YU;
      const uint4 *ga = yring + (sq % L::ND) * L::YU, *gb = yring + ((sq + 1) % L::ND) * L::YU;
      const int rA = 2 * q - ph + 1;
      S *dxn = dx + n * g.is[0] + c0;
      for (int it = tid; it < PT * CQ; it += 256) {
        const int cv = it % CQ, pl = it / CQ;
        const int p = p0 + pl;
        if (p > p_hi) continue;
        const int i0 = pl * CQ + cv, i1 = i0 + CQ;
        const uint4 k00 = ca[i0], k01 = ca[i1], k10 = cb[i0], k11 = cb[i1];
        const uint4 y00 = ga[i0], y01 = ga[i1], y10 = gb[i0], y11 = gb[i1];
        const uint32_t c00[4] = {k00.x, k00.y, k00.z, k00.w}, c01[4] = {k01.x, k01.y, k01.z, k01.w};
        const uint32_t c10[4] = {k10.x, k10.y, k10.z, k10.w}, c11[4] = {k11.x, k11.y, k11.z, k11.w};
        const uint32_t g00[4] = {y00.x, y00.y, y00.z, y00.w}, g01[4] = {y01.x, y01.y, y01.z, y01.w};
        const uint32_t g10[4] = {y10.x, y10.y, y10.z, y10.w}, g11[4] = {y11.x, y11.y, y11.z, y11.w};
        // A window's dy where its first maximum lies at the dx, else +0;
        // t[0]: (rA, wA); t[1..2]: (rA, wA + 1); t[3..4]: (rA + 1, wA);
        // t[5..8]: (rA + 1, wA + 1), each in ascending output order.
        auto sel = [](uint32_t gw, uint32_t cw, int k) { return gw & O::eq(cw, O::splat(static_cast<float>(k))); };
        uint32_t t[9][4];
#pragma unroll
        for (int i = 0; i < 4; ++i) {
          t[0][i] = sel(g00[i], c00[i], 4);
          t[1][i] = sel(g00[i], c00[i], 5);
          t[2][i] = sel(g01[i], c01[i], 3);
          t[3][i] = sel(g00[i], c00[i], 7);
          t[4][i] = sel(g10[i], c10[i], 1);
          t[5][i] = sel(g00[i], c00[i], 8);
          t[6][i] = sel(g01[i], c01[i], 6);
          t[7][i] = sel(g10[i], c10[i], 2);
          t[8][i] = sel(g11[i], c11[i], 0);
        }
        const int wA = 2 * p - pw + 1;
        S *dst[4];
        bool ok[4];
#pragma unroll
        for (int e = 0; e < 4; ++e) {
          const int h = rA + e / 2, w = wA + e % 2;
          ok[e] = static_cast<unsigned>(h) < static_cast<unsigned>(H) && static_cast<unsigned>(w) < static_cast<unsigned>(W);
          dst[e] = dxn + h * g.is[3] + w * g.is[4] + cv * VEC;
        }
        auto plus = [](float2 a, float2 c) { return make_float2(a.x + c.x, a.y + c.y); };
        if (plain) {
          uint32_t d[4][4];
#pragma unroll
          for (int i = 0; i < 4; ++i) {
            d[0][i] = t[0][i];
            d[1][i] = O::add(t[1][i], t[2][i]);
            d[2][i] = O::add(t[3][i], t[4][i]);
            d[3][i] = O::from_float2(plus(plus(plus(O::to_float2(t[5][i]), O::to_float2(t[6][i])), O::to_float2(t[7][i])),
                                          O::to_float2(t[8][i])));
          }
#pragma unroll
          for (int e = 0; e < 4; ++e)
            if (ok[e]) *reinterpret_cast<uint4 *>(dst[e]) = make_uint4(d[e][0], d[e][1], d[e][2], d[e][3]);
        } else {
          float d[4][VEC];
          auto put = [&](int e, int i, float2 f) {
            d[e][2 * i] = f.x;
            d[e][2 * i + 1] = f.y;
          };
#pragma unroll
          for (int i = 0; i < 4; ++i) {
            put(0, i, O::to_float2(t[0][i]));
            put(1, i, plus(O::to_float2(t[1][i]), O::to_float2(t[2][i])));
            put(2, i, plus(O::to_float2(t[3][i]), O::to_float2(t[4][i])));
            put(3, i, plus(plus(plus(O::to_float2(t[5][i]), O::to_float2(t[6][i])), O::to_float2(t[7][i])),
                           O::to_float2(t[8][i])));
          }
#pragma unroll
          for (int e = 0; e < 4; ++e)
            if (ok[e]) store_vec<S, float, VEC>(dst[e], d[e], alpha, beta);
        }
      }
    }
    issue(j + D, s + D);
  }
  cp_async_wait_all();
}

// Floor division by 2 of any int.
inline int floor2(int v) { return v >= 0 ? v / 2 : -((1 - v) / 2); }

// FREEDNN_POOL_TUNE (for measurements), comma-separated: "nocodes" (the
// one-pass max backward kernels instead of the two-pass one), "oldbwd" (the
// tiled NHWC max backward instead of the row-strip gather), "halfpack" (the
// gather with 8-byte halves of the channel vectors per lane: about 80
// registers and 3 blocks per multiprocessor instead of 128 and 2, but
// spills; H100 f16 256x64x112x112: 0.57-0.58 of copy against 0.60),
// "oldcodes" (the thread-per-column max codes passes), "oldavg" (the block
// kernel for average backward instead of the strips).
struct PoolTune {
  bool old_bwd = false, halfpack = false, no_codes = false, old_codes = false, old_avg = false;
};
const PoolTune &pool_tune() {
  static const PoolTune t = [] {
    PoolTune r;
    r.old_bwd = env_has_word("FREEDNN_POOL_TUNE", "oldbwd");
    r.halfpack = env_has_word("FREEDNN_POOL_TUNE", "halfpack");
    r.no_codes = env_has_word("FREEDNN_POOL_TUNE", "nocodes");
    r.old_codes = env_has_word("FREEDNN_POOL_TUNE", "oldcodes");
    r.old_avg = env_has_word("FREEDNN_POOL_TUNE", "oldavg");
    return r;
  }();
  return t;
}

// Whether the streaming max backward (pooling_max_backward_stream) takes
// these args: 2-d, 3 x 3 windows of stride 2, paddings 0 or 1, half or
// bfloat16 with channels innermost in 16-byte vectors (the pointers'
// alignment is checked at launch), a multiple of 4 vectors. It needs no
// scratch (pooling_codes_bytes).
// FREEDNN_POOL_STREAM=0 turns the kernel off, read at every call (tests
// switch it). Either setting is safe for a plan made under the other:
// without codes scratch the two-pass form falls back to the generic kernels.
bool stream_switched_on() {
  const char *v = std::getenv("FREEDNN_POOL_STREAM");
  return v == nullptr || std::strcmp(v, "0") != 0;
}

bool stream_backward_applies(const PoolingArgs &a) {
  const bool two_d = a.in[0] == 1 && a.out[0] == 1 && a.win[0] == 1 && a.pad[0] == 0;
  return stream_switched_on() && a.backward && a.is_max && two_d && a.win[1] == 3 && a.win[2] == 3 &&
         a.str[1] == 2 && a.str[2] == 2 && (a.pad[1] == 0 || a.pad[1] == 1) && (a.pad[2] == 0 || a.pad[2] == 1) &&
         a.channels_inner && a.vec == 8 && (a.dtype == CUDNN_DATA_HALF || a.dtype == CUDNN_DATA_BFLOAT16) &&
         (a.c / 8) % 4 == 0 && a.in[1] >= 1 && a.in[2] >= 1 && a.out[1] >= 1 && a.out[2] >= 1;
}

// Launches the streaming max backward when it applies (true), else nothing:
// CTAs of 8 channel vectors and 28 pair columns, or of 4 and 56 where the
// vector count is only a multiple of 4; runs of pair rows as long as about
// three CTAs per multiprocessor allow (whole columns for 256x64x112x112).
template <class S, class C, int VEC>
bool launch_max_backward_stream(const PoolingArgs &a, const Geo &g, const S *x, const S *dy, S *dx, C alpha, C beta,
                                cudaStream_t stream) {
  if constexpr (sizeof(S) != 2 || VEC != 8 || !std::is_same_v<C, float>) {
    return false;
  } else {
    if (x == nullptr || !stream_backward_applies(a) || g.cv % 4 != 0) return false;
    const int pw = g.pad[2], ph = g.pad[1];
    const int p_lo = -floor2(2 - pw), p_hi = floor2(g.in[2] + pw - 2);
    const int q_lo = -floor2(2 - ph), q_hi = floor2(g.in[1] + ph - 2);
    if (p_hi < p_lo || q_hi < q_lo) return false;  // (never: every input row and column lies in a pair)
    auto go = [&](auto cq, auto pt) {
      constexpr int CQ = decltype(cq)::value, PT = decltype(pt)::value;
      using L = StreamShape<CQ, PT>;
      const int chunks = (p_hi - p_lo + PT) / PT, rows = q_hi - q_lo + 1;
      const int64_t base = a.n * (g.cv / CQ) * chunks;
      const int64_t want = 3 * int64_t{sm_count()};
      int segs = static_cast<int>(std::min<int64_t>((want + base - 1) / base, rows / 4 > 1 ? rows / 4 : 1));
      const int seg_rows = (rows + segs - 1) / segs;
      segs = (rows + seg_rows - 1) / seg_rows;
      const int64_t blocks = base * segs;
      if (blocks >= (int64_t{1} << 31)) return false;
      auto kernel = pooling_max_backward_stream<CQ, PT, S>;
      check_cuda(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(L::smem_bytes)),
                 "cudaFuncSetAttribute");
      kernel<<<static_cast<unsigned>(blocks), 256, L::smem_bytes, stream>>>(g, x, dy, dx, alpha, beta, p_lo, p_hi, q_lo,
                                                                             q_hi, seg_rows, chunks, segs);
      check_launch("pooling_max_backward_stream");
      return true;
    };
    if (g.cv % 8 == 0) return go(std::integral_constant<int, 8>{}, std::integral_constant<int, 28>{});
    return go(std::integral_constant<int, 4>{}, std::integral_constant<int, 56>{});
  }
}

// Launches the NHWC row-strip max backward when it applies (true), else
// nothing. Lanes take whole 16-byte channel vectors (4 lanes per column:
// channel vectors a multiple of 4), or 8-byte halves of them where the
// vector count is only even (or FREEDNN_POOL_TUNE says "halfpack").
template <class S, class C, int VEC>
bool launch_max_backward_nhwc_rows(const PoolingArgs &a, Geo g, const S *x, const S *dy, S *dx, C alpha, C beta,
                                   cudaStream_t stream) {
  if constexpr ((sizeof(S) != 4 && sizeof(S) != 2) || VEC % 2 != 0) {
    return false;
  } else {
    constexpr int CQT = 4, kRowsRO = 4;
    const PoolTune &tu = pool_tune();
    const bool two_d = g.in[0] == 1 && g.out[0] == 1 && g.win[0] == 1 && g.pad[0] == 0;
    const int K = g.win[1];
    if (tu.old_bwd || !g.is_max || x == nullptr || !two_d || !g.channels_inner || g.win[2] != K ||
        (K != 2 && K != 3) || g.str[1] != 2 || g.str[2] != 2 || (g.pad[1] != 0 && g.pad[1] != 1) ||
        (g.pad[2] != 0 && g.pad[2] != 1) || g.in[1] < 2 || g.in[2] < 2)
      return false;
    const bool halves = (tu.halfpack || g.cv % CQT != 0) && g.cv % 2 == 0;
    const int cvk = halves ? 2 * g.cv : g.cv;  // the kernel's channel vectors
    if (cvk % CQT != 0) return false;
    const int RO = kRowsRO;
    const int oww = 32 / CQT;
    // Pair columns p_lo..p_hi (and rows) cover every input column (row).
    const int pw = g.pad[2], ph = g.pad[1];
    const int p_lo = -floor2(K - 1 - pw), p_hi = floor2(g.in[2] - 1 + pw - K + 2);
    const int q_lo = -floor2(K - 1 - ph), q_hi = floor2(g.in[1] - 1 + ph - K + 2);
    const int segs = (p_hi - p_lo + 1 + oww - 2) / (oww - 1), hsegs = (q_hi - q_lo + 1 + RO - 1) / RO;
    const int64_t warps = a.n * (cvk / CQT) * static_cast<int64_t>(hsegs) * segs;
    if (segs <= 0 || hsegs <= 0 || warps == 0 || warps >= (int64_t{1} << 31)) return false;
    g.d_cv = FastDivmod(static_cast<uint32_t>(cvk / CQT));
    g.d_e2 = FastDivmod(static_cast<uint32_t>(segs));
    g.d_e1 = FastDivmod(static_cast<uint32_t>(hsegs));
    const unsigned blocks = static_cast<unsigned>((warps + 7) / 8);
    const uint32_t wt = static_cast<uint32_t>(warps);
    auto rows = [&](auto v) {
      constexpr int V = decltype(v)::value;
      if (K == 3 && pw == 1)
        pooling_max_backward_nhwc_rows<3, 1, kRowsRO, CQT, S, C, V>
            <<<blocks, 256, 0, stream>>>(g, x, dy, dx, alpha, beta, wt, p_lo, q_lo);
      else if (K == 3)
        pooling_max_backward_nhwc_rows<3, 0, kRowsRO, CQT, S, C, V>
            <<<blocks, 256, 0, stream>>>(g, x, dy, dx, alpha, beta, wt, p_lo, q_lo);
      else if (pw == 1)
        pooling_max_backward_nhwc_rows<2, 1, kRowsRO, CQT, S, C, V>
            <<<blocks, 256, 0, stream>>>(g, x, dy, dx, alpha, beta, wt, p_lo, q_lo);
      else
        pooling_max_backward_nhwc_rows<2, 0, kRowsRO, CQT, S, C, V>
            <<<blocks, 256, 0, stream>>>(g, x, dy, dx, alpha, beta, wt, p_lo, q_lo);
    };
    constexpr int VH = VEC / 2;
    if (halves) {
      rows(std::integral_constant<int, VH>{});
    } else {
      rows(std::integral_constant<int, VEC>{});
    }
    check_launch("pooling_max_backward_nhwc_rows");
    return true;
  }
}

// Sets the thread index space: n x cv x e0 x e1 x e2.
uint32_t set_space(Geo &g, int n, const int *e) {
  for (int k = 0; k < 3; ++k) g.ext[k] = e[k];
  g.d_cv = FastDivmod(static_cast<uint32_t>(g.cv));
  g.d_e0 = FastDivmod(static_cast<uint32_t>(e[0]));
  g.d_e1 = FastDivmod(static_cast<uint32_t>(e[1]));
  g.d_e2 = FastDivmod(static_cast<uint32_t>(e[2]));
  return static_cast<uint32_t>(static_cast<int64_t>(n) * g.cv * e[0] * e[1] * e[2]);
}

unsigned blocks_for(uint32_t total) { return (total + 255) / 256; }

// Pass 1 on rows of stride 1 (pooling_max_codes_rows) when the layout
// allows it (true), else nothing. The caller has checked the window (2-d,
// K x K with K 2 or 3, stride 2, paddings below K).
template <class S, class C>
bool launch_max_codes_rows(Geo g, int64_t n, const S *x, uint8_t *codes, cudaStream_t stream) {
  if constexpr (sizeof(S) != 4 && sizeof(S) != 2) {
    return false;
  } else {
    constexpr int E = 16 / sizeof(S), EO = E / 2, RO = 8;
    const int K = g.win[1];
    if (pool_tune().old_codes || g.channels_inner || (g.pad[2] != 0 && g.pad[2] != 1) || g.xs[4] != 1 ||
        g.in[2] % E != 0 || g.xs[0] % E != 0 || g.xs[1] % E != 0 || g.xs[3] % E != 0 || !aligned_to(x, 16))
      return false;
    const int qsegs = ((g.out[2] + EO - 1) / EO + 31) / 32, hsegs = (g.out[1] + RO - 1) / RO;
    const int64_t warps = n * g.c * static_cast<int64_t>(hsegs) * qsegs;
    if (warps == 0 || warps >= (int64_t{1} << 31)) return false;
    g.d_e2 = FastDivmod(static_cast<uint32_t>(qsegs));
    g.d_e1 = FastDivmod(static_cast<uint32_t>(hsegs));
    g.d_cv = FastDivmod(static_cast<uint32_t>(g.c));
    const unsigned blocks = static_cast<unsigned>((warps + 7) / 8);
    const uint32_t wt = static_cast<uint32_t>(warps);
    const bool vec_codes = g.out[2] % EO == 0;
    auto go = [&](auto prop) {
      constexpr bool PROP = decltype(prop)::value;
      if (K == 3 && g.pad[2] == 1)
        pooling_max_codes_rows<3, 1, RO, PROP, S, C><<<blocks, 256, 0, stream>>>(g, x, codes, wt, vec_codes);
      else if (K == 3)
        pooling_max_codes_rows<3, 0, RO, PROP, S, C><<<blocks, 256, 0, stream>>>(g, x, codes, wt, vec_codes);
      else if (g.pad[2] == 1)
        pooling_max_codes_rows<2, 1, RO, PROP, S, C><<<blocks, 256, 0, stream>>>(g, x, codes, wt, vec_codes);
      else
        pooling_max_codes_rows<2, 0, RO, PROP, S, C><<<blocks, 256, 0, stream>>>(g, x, codes, wt, vec_codes);
    };
    if (g.prop) go(std::true_type{});
    else go(std::false_type{});
    check_launch("pooling_max_codes_rows");
    return true;
  }
}

// Pass 2 on rows of stride 1 (pooling_max_backward_codes_rows) when the
// layout allows it (true), else nothing: pairs on dx's even columns (K = 3
// with column padding 1, K = 2 with 0), 16-byte dx rows, dy in aligned
// runs of E / 2 outputs.
template <class S, class C>
bool launch_max_backward_codes_rows(Geo g, int64_t n, const uint8_t *codes, const S *dy, S *dx, C alpha, C beta,
                                    int q_lo, int q_hi, cudaStream_t stream) {
  if constexpr (sizeof(S) != 4 && sizeof(S) != 2) {
    return false;
  } else {
    constexpr int E = 16 / sizeof(S), EO = E / 2, RO = 4;
    const int K = g.win[1];
    if (pool_tune().old_codes || g.channels_inner || K - 2 - g.pad[2] != 0 || g.is[4] != 1 || g.os[4] != 1 ||
        g.in[2] % E != 0 || g.is[0] % E != 0 || g.is[1] % E != 0 || g.is[3] % E != 0 || !aligned_to(dx, 16) ||
        g.out[2] % EO != 0 || g.os[0] % EO != 0 || g.os[1] % EO != 0 || g.os[3] % EO != 0 ||
        !aligned_to(dy, EO * sizeof(S)))
      return false;
    const int qsegs = (g.in[2] / E + 31) / 32, hsegs = (q_hi - q_lo + 1 + RO - 1) / RO;
    const int64_t warps = n * g.c * static_cast<int64_t>(hsegs) * qsegs;
    if (warps == 0 || warps >= (int64_t{1} << 31)) return false;
    g.d_e2 = FastDivmod(static_cast<uint32_t>(qsegs));
    g.d_e1 = FastDivmod(static_cast<uint32_t>(hsegs));
    g.d_cv = FastDivmod(static_cast<uint32_t>(g.c));
    const unsigned blocks = static_cast<unsigned>((warps + 7) / 8);
    const uint32_t wt = static_cast<uint32_t>(warps);
    if (K == 3)
      pooling_max_backward_codes_rows<3, RO, S, C><<<blocks, 256, 0, stream>>>(g, codes, dy, dx, alpha, beta, wt, q_lo);
    else
      pooling_max_backward_codes_rows<2, RO, S, C><<<blocks, 256, 0, stream>>>(g, codes, dy, dx, alpha, beta, wt, q_lo);
    check_launch("pooling_max_backward_codes_rows");
    return true;
  }
}

// Launches the two-pass max backward (true) when the args allow it (see
// pooling_codes_bytes) and the plan gave the codes' scratch.
template <class S, class C, int VEC>
bool launch_max_backward_two_pass(const PoolingArgs &a, Geo g, const S *x, const S *dy, S *dx, C alpha, C beta,
                                  cudaStream_t stream) {
  if (pool_tune().no_codes || a.codes == nullptr || x == nullptr || pooling_codes_bytes(a) == 0 ||
      a.codes_size < pooling_codes_bytes(a))
    return false;
  const int n = static_cast<int>(a.n), K = g.win[1];
  uint8_t *codes = static_cast<uint8_t *>(a.codes);
  const int pw = g.pad[2], ph = g.pad[1];
  const int p_lo = -floor2(K - 1 - pw), p_hi = floor2(g.in[2] - 1 + pw - K + 2);
  const int q_lo = -floor2(K - 1 - ph), q_hi = floor2(g.in[1] - 1 + ph - K + 2);
  if (q_hi < q_lo || p_hi < p_lo) return false;  // (never: every input row and column lies in a pair)
  constexpr int RO = 4;
  if (!launch_max_codes_rows<S, C>(g, n, x, codes, stream)) {
    const int e[3] = {1, (g.out[1] + RO - 1) / RO, g.out[2]};
    const uint32_t total = set_space(g, n, e);
    if (total > 0) {  // (always: pooling_codes_bytes is 0 without outputs)
      if (K == 3) pooling_max_codes<3, RO, S, C, VEC><<<blocks_for(total), 256, 0, stream>>>(g, x, codes, total);
      else pooling_max_codes<2, RO, S, C, VEC><<<blocks_for(total), 256, 0, stream>>>(g, x, codes, total);
      check_launch("pooling_max_codes");
    }
  }
  if (launch_max_backward_codes_rows<S, C>(g, n, codes, dy, dx, alpha, beta, q_lo, q_hi, stream)) return true;
  const int e[3] = {1, q_hi - q_lo + 1, p_hi - p_lo + 1};
  const uint32_t total = set_space(g, n, e);
  if (total == 0) return true;
  if (K == 3)
    pooling_max_backward_codes<3, S, C, VEC>
        <<<blocks_for(total), 256, 0, stream>>>(g, codes, dy, dx, alpha, beta, total, p_lo, q_lo);
  else
    pooling_max_backward_codes<2, S, C, VEC>
        <<<blocks_for(total), 256, 0, stream>>>(g, codes, dy, dx, alpha, beta, total, p_lo, q_lo);
  check_launch("pooling_max_backward_codes");
  return true;
}

// Average backward, 2-d, square 2x2 / 3x3 windows of stride 2, paddings 0
// or 1, float / 16-bit data: strips of 2 x 2 input blocks walked down the
// rows, each dy row loaded once per strip and carried to the next block row
// (the next one loaded before the current one is summed), each dx written
// once with 16-byte stores, the terms summed in the order of
// pooling_backward_blocks (output row, then column, ascending: the same
// bits). FREEDNN_POOL_TUNE=oldavg keeps the block kernel.
//  - pooling_avg_backward_rows: rows of stride 1 (NCHW-like); a thread owns
//    a 16-byte dx row vector (V columns) and the V / 2 outputs of its
//    column run, plus the one left (K = 3, padding 0) or right (padding 1)
//    output its columns also read.
//  - pooling_avg_backward_nhwc: channels innermost in 16-byte vectors; a
//    thread owns a column block (two dx columns) and one channel vector.
// 1 / count of an output window, as inverse_count (the same value).
template <class C>
__device__ inline C inv_of_count(const Geo &g, int cnt) {
  if (cnt > 0) return C(1) / C(cnt);
  return g.exclude ? C(NAN) : C(0);
}

// Whether output offset i (-1 .. V / 2, from the thread's first output
// column) covers dx column u (0 .. V - 1) of the thread's row vector.
constexpr bool avg_covers(int K, int P, int i, int u) { return 2 * i - P <= u && u <= 2 * i - P + K - 1; }

template <int K, int P, class S, class C>
__global__ void __launch_bounds__(256) pooling_avg_backward_rows(Geo g, const S *__restrict__ dy, S *__restrict__ dx,
                                                                 C alpha, C beta, uint32_t total, int ro,
                                                                 bool dy_vec) {
  constexpr int V = 16 / sizeof(S), D = V / 2, NI = D + 2;  // outputs -1 .. D
  const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= total) return;
  uint32_t r;
  uint32_t rest = g.d_e2.divmod(t, r);
  const int q = static_cast<int>(r);
  rest = g.d_e1.divmod(rest, r);
  const int strip = static_cast<int>(r);
  rest = g.d_cv.divmod(rest, r);
  const int c = static_cast<int>(r), n = static_cast<int>(rest);
  const S *gp = dy + n * g.os[0] + c * g.os[1];
  S *xp = dx + n * g.is[0] + c * g.is[1];
  const int ow0 = D * q, w0 = V * q, ph = g.pad[1];
  const int nblk = (g.in[1] - 1 + ph) / 2 + 1;
  const int j0 = strip * ro, j1 = min(j0 + ro, nblk);
  constexpr int KK = K * K;
  const C inv_full = C(1) / C(KK);
  const int c0 = count_in(g, 0, 0);
  bool cval[NI];
  int cw[NI];
#pragma unroll
  for (int i = 0; i < NI; ++i) {
    const int ow = ow0 + i - 1;
    cval[i] = ow >= 0 && ow < g.out[2];
    cw[i] = c0 * count_in(g, 2, 2 * ow - P);
  }
  // Output offsets any column of the vector reads.
  auto needed = [](int i) {
    bool any = false;
    for (int u = 0; u < V; ++u) any = any || avg_covers(K, P, i - 1, u);
    return any;
  };
  auto load_row = [&](int oh, C *gv, C *iv, bool &rv) {
    rv = oh >= 0 && oh < g.out[1];
#pragma unroll
    for (int i = 0; i < NI; ++i) {
      gv[i] = C(0);
      iv[i] = C(0);
    }
    if (!rv) return;
    const S *row = gp + oh * g.os[3];
    if (dy_vec && ow0 + D <= g.out[2]) {
      const Pack<S, D> pk = *reinterpret_cast<const Pack<S, D> *>(row + ow0);
#pragma unroll
      for (int l = 0; l < D; ++l) gv[l + 1] = Storage<S>::template load<C>(pk.v[l]);
    } else {
#pragma unroll
      for (int l = 0; l < D; ++l)
        if (cval[l + 1]) gv[l + 1] = Storage<S>::template load<C>(row[ow0 + l]);
    }
    if (needed(0) && cval[0]) gv[0] = Storage<S>::template load<C>(row[ow0 - 1]);
    if (needed(NI - 1) && cval[NI - 1]) gv[NI - 1] = Storage<S>::template load<C>(row[ow0 + D]);
    const int ch = count_in(g, 1, 2 * oh - ph);
#pragma unroll
    for (int i = 0; i < NI; ++i) {
      const int cnt = ch * cw[i];
      iv[i] = cnt == KK ? inv_full : inv_of_count<C>(g, cnt);
    }
  };
  auto add_row = [&](C *acc, const C *gv, const C *iv, bool rv) {
    if (!rv) return;
#pragma unroll
    for (int i = 0; i < NI; ++i)
      if (needed(i) && cval[i])
#pragma unroll
        for (int u = 0; u < V; ++u)
          if (avg_covers(K, P, i - 1, u)) acc[u] += gv[i] * iv[i];
  };
  auto emit = [&](int h, const C *pg, const C *pi, bool pv, const C *cg, const C *ci, bool cv) {
    if (static_cast<unsigned>(h) >= static_cast<unsigned>(g.in[1])) return;
    C acc[V];
#pragma unroll
    for (int u = 0; u < V; ++u) acc[u] = C(0);
    if (pg != nullptr) add_row(acc, pg, pi, pv);
    add_row(acc, cg, ci, cv);
    S *p = xp + h * g.is[3] + w0;
    if (w0 + V <= g.in[2]) {
      store_vec<S, C, V>(p, acc, alpha, beta);
    } else {
#pragma unroll
      for (int u = 0; u < V; ++u)
        if (w0 + u < g.in[2]) store_vec<S, C, 1>(p + u, acc + u, alpha, beta);
    }
  };
  C pg[NI], pi[NI], cg[NI], ci[NI], ng[NI], ni[NI];
  bool pv = false, cv = false, nv = false;
  if (K == 3) load_row(j0 - 1, pg, pi, pv);
  load_row(j0, cg, ci, cv);
#pragma unroll 1
  for (int j = j0; j < j1; ++j) {
    if (j + 1 < j1) load_row(j + 1, ng, ni, nv);
    const int h0 = 2 * j - ph;
    // Row h0 reads output rows j - 1 (3x3) and j; row h0 + 1 reads j.
    emit(h0, K == 3 ? pg : nullptr, pi, pv, cg, ci, cv);
    emit(h0 + 1, nullptr, pi, pv, cg, ci, cv);
#pragma unroll
    for (int i = 0; i < NI; ++i) {
      pg[i] = cg[i];
      pi[i] = ci[i];
      cg[i] = ng[i];
      ci[i] = ni[i];
    }
    pv = cv;
    cv = nv;
  }
}

template <int K, class S, class C, int VEC>
__global__ void __launch_bounds__(256) pooling_avg_backward_nhwc(Geo g, const S *__restrict__ dy, S *__restrict__ dx,
                                                                 C alpha, C beta, uint32_t total, int ro) {
  const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= total) return;
  uint32_t r;
  uint32_t rest = g.d_cv.divmod(t, r);
  const int c = static_cast<int>(r) * VEC;
  rest = g.d_e2.divmod(rest, r);
  const int bw = static_cast<int>(r);
  rest = g.d_e1.divmod(rest, r);
  const int strip = static_cast<int>(r), n = static_cast<int>(rest);
  const S *gp = dy + n * g.os[0] + c * g.os[1];
  S *xp = dx + n * g.is[0] + c * g.is[1];
  const int ph = g.pad[1], pw = g.pad[2];
  const int nblk = (g.in[1] - 1 + ph) / 2 + 1;
  const int j0 = strip * ro, j1 = min(j0 + ro, nblk);
  const int w0 = 2 * bw - pw;
  constexpr int KK = K * K;
  const C inv_full = C(1) / C(KK);
  const int c0 = count_in(g, 0, 0);
  // Output columns a = bw - 1 (3x3: reads column w0) and b = bw (w0, w0 + 1).
  const bool av = K == 3 && bw - 1 >= 0 && bw - 1 < g.out[2], bv = bw < g.out[2];
  const int cwa = c0 * count_in(g, 2, 2 * (bw - 1) - pw), cwb = c0 * count_in(g, 2, 2 * bw - pw);
  const bool st0 = static_cast<unsigned>(w0) < static_cast<unsigned>(g.in[2]);
  const bool st1 = static_cast<unsigned>(w0 + 1) < static_cast<unsigned>(g.in[2]);
  struct Row {
    Pack<S, VEC> a, b;
    C ia, ib;
    bool v;
  };
  auto load_row = [&](int oh, Row &rw) {
    rw.v = oh >= 0 && oh < g.out[1];
    if (!rw.v) return;
    const S *row = gp + oh * g.os[3];
    if (av) rw.a = *reinterpret_cast<const Pack<S, VEC> *>(row + (bw - 1) * g.os[4]);
    if (bv) rw.b = *reinterpret_cast<const Pack<S, VEC> *>(row + bw * g.os[4]);
    const int ch = count_in(g, 1, 2 * oh - ph);
    const int ca = ch * cwa, cb = ch * cwb;
    rw.ia = ca == KK ? inv_full : inv_of_count<C>(g, ca);
    rw.ib = cb == KK ? inv_full : inv_of_count<C>(g, cb);
  };
  // Adds one output row's terms (column a, then b) to dx columns w0, w0 + 1.
  auto add_row = [&](C *acc0, C *acc1, const Row &rw) {
    if (!rw.v) return;
    if (av) {
#pragma unroll
      for (int l = 0; l < VEC; ++l) acc0[l] += Storage<S>::template load<C>(rw.a.v[l]) * rw.ia;
    }
    if (bv) {
#pragma unroll
      for (int l = 0; l < VEC; ++l) {
        const C gb = Storage<S>::template load<C>(rw.b.v[l]);
        acc0[l] += gb * rw.ib;
        acc1[l] += gb * rw.ib;
      }
    }
  };
  auto emit = [&](int h, const Row *prev, const Row &cur) {
    if (static_cast<unsigned>(h) >= static_cast<unsigned>(g.in[1])) return;
    C acc0[VEC], acc1[VEC];
#pragma unroll
    for (int l = 0; l < VEC; ++l) acc0[l] = acc1[l] = C(0);
    if (prev != nullptr) add_row(acc0, acc1, *prev);
    add_row(acc0, acc1, cur);
    S *p = xp + h * g.is[3] + w0 * g.is[4];
    if (st0) store_vec<S, C, VEC>(p, acc0, alpha, beta);
    if (st1) store_vec<S, C, VEC>(p + g.is[4], acc1, alpha, beta);
  };
  Row pr{}, cu{}, nx{};
  if (K == 3) load_row(j0 - 1, pr);
  load_row(j0, cu);
#pragma unroll 1
  for (int j = j0; j < j1; ++j) {
    if (j + 1 < j1) load_row(j + 1, nx);
    const int h0 = 2 * j - ph;
    emit(h0, K == 3 ? &pr : nullptr, cu);
    emit(h0 + 1, nullptr, cu);
    pr = cu;
    cu = nx;
  }
}

// The average backward strips above when they apply (true), else nothing.
template <class S, class C, int VEC>
bool launch_avg_backward_rows(Geo g, int n, const S *dy, S *dx, C alpha, C beta, cudaStream_t stream) {
  if constexpr (sizeof(S) != 4 && sizeof(S) != 2) {
    return false;
  } else {
    const int K = g.win[1];
    const bool two_d = g.in[0] == 1 && g.out[0] == 1 && g.win[0] == 1 && g.pad[0] == 0;
    if (pool_tune().old_avg || g.is_max || !two_d || g.win[2] != K || (K != 2 && K != 3) || g.str[1] != 2 ||
        g.str[2] != 2 || (g.pad[1] != 0 && g.pad[1] != 1) || (g.pad[2] != 0 && g.pad[2] != 1))
      return false;
    constexpr int RO = 8;  // block rows (16 dx rows) per strip
    const int nblk = (g.in[1] - 1 + g.pad[1]) / 2 + 1, strips = (nblk + RO - 1) / RO;
    if constexpr (VEC > 1) {
      if (!g.channels_inner) return false;
      const int nbw = (g.in[2] - 1 + g.pad[2]) / 2 + 1;
      const int64_t total = static_cast<int64_t>(n) * strips * nbw * g.cv;
      if (total == 0 || total >= (int64_t{1} << 31)) return false;
      g.d_cv = FastDivmod(static_cast<uint32_t>(g.cv));
      g.d_e2 = FastDivmod(static_cast<uint32_t>(nbw));
      g.d_e1 = FastDivmod(static_cast<uint32_t>(strips));
      const uint32_t tt = static_cast<uint32_t>(total);
      if (K == 3)
        pooling_avg_backward_nhwc<3, S, C, VEC><<<blocks_for(tt), 256, 0, stream>>>(g, dy, dx, alpha, beta, tt, RO);
      else
        pooling_avg_backward_nhwc<2, S, C, VEC><<<blocks_for(tt), 256, 0, stream>>>(g, dy, dx, alpha, beta, tt, RO);
      check_launch("pooling_avg_backward_nhwc");
      return true;
    } else {
      constexpr int V = 16 / sizeof(S), D = V / 2;
      if (g.channels_inner || g.is[4] != 1 || g.os[4] != 1 || g.is[0] % V != 0 || g.is[1] % V != 0 ||
          g.is[3] % V != 0 || !aligned_to(dx, 16))
        return false;
      const bool dy_vec = g.os[0] % D == 0 && g.os[1] % D == 0 && g.os[3] % D == 0 && aligned_to(dy, 8);
      const int qn = (g.in[2] + V - 1) / V;
      const int64_t total = static_cast<int64_t>(n) * g.c * strips * qn;
      if (total == 0 || total >= (int64_t{1} << 31)) return false;
      g.d_cv = FastDivmod(static_cast<uint32_t>(g.c));
      g.d_e2 = FastDivmod(static_cast<uint32_t>(qn));
      g.d_e1 = FastDivmod(static_cast<uint32_t>(strips));
      const uint32_t tt = static_cast<uint32_t>(total);
      const unsigned blocks = blocks_for(tt);
      if (K == 3 && g.pad[2] == 1)
        pooling_avg_backward_rows<3, 1, S, C><<<blocks, 256, 0, stream>>>(g, dy, dx, alpha, beta, tt, RO, dy_vec);
      else if (K == 3)
        pooling_avg_backward_rows<3, 0, S, C><<<blocks, 256, 0, stream>>>(g, dy, dx, alpha, beta, tt, RO, dy_vec);
      else if (g.pad[2] == 1)
        pooling_avg_backward_rows<2, 1, S, C><<<blocks, 256, 0, stream>>>(g, dy, dx, alpha, beta, tt, RO, dy_vec);
      else
        pooling_avg_backward_rows<2, 0, S, C><<<blocks, 256, 0, stream>>>(g, dy, dx, alpha, beta, tt, RO, dy_vec);
      check_launch("pooling_avg_backward_rows");
      return true;
    }
  }
}

template <class S, class C, int VEC>
void launch_typed(const PoolingArgs &a, Geo g, cudaStream_t stream) {
  g.cv = g.c / VEC;
  const int n = static_cast<int>(a.n);
  const C alpha = static_cast<C>(a.alpha), beta = static_cast<C>(a.beta);
  const S *x = static_cast<const S *>(a.x);
  const bool two_d = g.in[0] == 1 && g.out[0] == 1 && g.win[0] == 1 && g.pad[0] == 0;
  const bool square = two_d && g.win[1] == g.win[2];
  if (!a.backward) {
    const uint32_t total = set_space(g, n, g.out);
    if (total == 0) return;
    S *y = static_cast<S *>(a.y);
    if constexpr (VEC == 1) {
      if (!g.channels_inner && launch_forward_rows<S, C>(a, g, x, y, alpha, beta, stream)) return;
    } else {
      if (launch_max_forward_nhwc_rows<S, C, VEC>(a, g, x, y, alpha, beta, stream)) return;
    }
    if (square && g.win[1] == 3)
      pooling_forward<3, S, C, VEC><<<blocks_for(total), 256, 0, stream>>>(g, x, y, alpha, beta, total);
    else if (square && g.win[1] == 2)
      pooling_forward<2, S, C, VEC><<<blocks_for(total), 256, 0, stream>>>(g, x, y, alpha, beta, total);
    else
      pooling_forward<0, S, C, VEC><<<blocks_for(total), 256, 0, stream>>>(g, x, y, alpha, beta, total);
    check_launch("pooling_forward");
    return;
  }
  const S *dy = static_cast<const S *>(a.dy);
  S *dx = static_cast<S *>(a.dx);
  const int stride = g.str[1];
  const bool blocks = two_d && g.str[1] == g.str[2] && (stride == 1 || stride == 2) && g.pad[1] >= 0 &&
                      g.pad[2] >= 0;
  if (blocks) {
    // Input row r lies in block (r + pad) / stride.
    int e[3] = {1, 0, 0};
    for (int k = 1; k < 3; ++k) {
      g.blk_lo[k] = g.pad[k] / stride;
      e[k] = (g.in[k] - 1 + g.pad[k]) / stride - g.blk_lo[k] + 1;
    }
    const uint32_t total = set_space(g, n, e);
    if (total == 0) return;
    if (!g.is_max && launch_avg_backward_rows<S, C, VEC>(g, n, dy, dx, alpha, beta, stream)) return;
    if (launch_max_backward_stream<S, C, VEC>(a, g, x, dy, dx, alpha, beta, stream)) return;
    if (launch_max_backward_two_pass<S, C, VEC>(a, g, x, dy, dx, alpha, beta, stream)) return;
    if constexpr (VEC > 1) {
      // Channels innermost, max, a square 2x2 or 3x3 window of stride 2: the
      // row-strip gather (no shared memory, every dx written once).
      if (launch_max_backward_nhwc_rows<S, C, VEC>(a, g, x, dy, dx, alpha, beta, stream)) return;
      // Channels innermost, max, a square 2x2 or 3x3 window: the tiled kernel
      // (each window's maximum found once, not once per block it touches).
      if (g.is_max && g.channels_inner && x != nullptr && square && n < 65536) {
        bool done = false;
        if (stride == 2 && g.win[1] == 3) done = launch_max_backward_tiled<3, 2, S, C, VEC>(g, n, x, dy, dx, alpha, beta, stream);
        else if (stride == 2 && g.win[1] == 2) done = launch_max_backward_tiled<2, 2, S, C, VEC>(g, n, x, dy, dx, alpha, beta, stream);
        else if (stride == 1 && g.win[1] == 3) done = launch_max_backward_tiled<3, 1, S, C, VEC>(g, n, x, dy, dx, alpha, beta, stream);
        if (done) return;
      }
    }
    if constexpr (VEC == 1) {
      // Channels not innermost, max, a square 2x2 / 3x3 window of stride 2:
      // the plane-tiled kernel (x staged once per tile in shared memory).
      if (g.is_max && !g.channels_inner && x != nullptr && square && stride == 2 &&
          static_cast<int64_t>(n) * g.c * ((g.ext[1] + 7) / 8) * ((g.ext[2] + 31) / 32) < (int64_t{1} << 31)) {
        if (g.win[1] == 3) return launch_max_backward_planes<3, 2, S, C>(g, n, x, dy, dx, alpha, beta, stream);
        if (g.win[1] == 2) return launch_max_backward_planes<2, 2, S, C>(g, n, x, dy, dx, alpha, beta, stream);
      }
    }
#define FDNN_POOL_BLOCKS(K, B) \
  pooling_backward_blocks<K, B, S, C, VEC><<<blocks_for(total), 256, 0, stream>>>(g, x, dy, dx, alpha, beta, total)
    if (stride == 2) {
      if (square && g.win[1] == 3) FDNN_POOL_BLOCKS(3, 2);
      else if (square && g.win[1] == 2) FDNN_POOL_BLOCKS(2, 2);
      else FDNN_POOL_BLOCKS(0, 2);
    } else {
      if (square && g.win[1] == 3) FDNN_POOL_BLOCKS(3, 1);
      else FDNN_POOL_BLOCKS(0, 1);
    }
#undef FDNN_POOL_BLOCKS
    check_launch("pooling_backward_blocks");
    return;
  }
  const uint32_t total = set_space(g, n, g.in);
  if (total == 0) return;
  pooling_backward_gather<S, C, VEC><<<blocks_for(total), 256, 0, stream>>>(g, x, dy, dx, alpha, beta, total);
  check_launch("pooling_backward_gather");
}

template <class S, class C>
void launch_vec(const PoolingArgs &a, const Geo &g, cudaStream_t stream) {
  constexpr int kVec = 16 / sizeof(S) > 8 ? 8 : 16 / sizeof(S);
  if constexpr (kVec > 1) {
    if (a.vec == kVec) {
      launch_typed<S, C, kVec>(a, g, stream);
      return;
    }
  }
  launch_typed<S, C, 1>(a, g, stream);
}

}  // namespace

size_t pooling_codes_bytes(const PoolingArgs &a) {
  if (stream_backward_applies(a)) return 0;  // the one-pass kernel takes it
  const bool two_d = a.in[0] == 1 && a.out[0] == 1 && a.win[0] == 1 && a.pad[0] == 0;
  const int64_t K = a.win[1];
  if (!a.backward || !a.is_max || !two_d || a.win[2] != K || (K != 2 && K != 3) || a.str[1] != 2 || a.str[2] != 2 ||
      a.pad[1] < 0 || a.pad[1] >= K || a.pad[2] < 0 || a.pad[2] >= K)
    return 0;
  return static_cast<size_t>(a.n * a.c * a.out[1] * a.out[2]);
}

void launch_pooling(const PoolingArgs &a, void *stream) {
  Geo g{};
  g.c = static_cast<int>(a.c);
  for (int k = 0; k < 3; ++k) {
    g.in[k] = static_cast<int>(a.in[k]);
    g.out[k] = static_cast<int>(a.out[k]);
    g.win[k] = static_cast<int>(a.win[k]);
    g.pad[k] = static_cast<int>(a.pad[k]);
    g.post[k] = static_cast<int>(a.post[k]);
    g.str[k] = static_cast<int>(a.str[k]);
  }
  for (int k = 0; k < 5; ++k) {
    g.is[k] = static_cast<int>(a.is[k]);
    g.os[k] = static_cast<int>(a.os[k]);
    g.xs[k] = static_cast<int>(a.xs[k]);
  }
  g.is_max = a.is_max;
  g.prop = a.propagate_nan;
  g.exclude = a.exclude_padding;
  g.channels_inner = a.channels_inner;
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  switch (a.dtype) {
    case CUDNN_DATA_FLOAT: launch_vec<float, float>(a, g, s); break;
    case CUDNN_DATA_DOUBLE: launch_vec<double, double>(a, g, s); break;
    case CUDNN_DATA_HALF: launch_vec<half_bits, float>(a, g, s); break;
    case CUDNN_DATA_BFLOAT16: launch_vec<bf16_bits, float>(a, g, s); break;
    case CUDNN_DATA_INT8: launch_vec<int8_t, float>(a, g, s); break;
    default: fail(CUDNN_STATUS_NOT_SUPPORTED, "cuda.pooling: no kernel for this data type");
  }
}

}  // namespace fdnn::cuda
