// Kernels of cuda.normalization.rows (see cuda/normalization_rows_args.hpp):
// one block per row at a time (grid-stride over the rows).
//  - forward: the row's sums of x - shift and its squares (shift: the row's
//    first element; RMS: no shift, the mean square), a block reduction, the
//    statistics outputs (training), then y = blend(scale * (x - mean) *
//    inv_std + bias) from a second read of the row (L1 / L2);
//  - backward: per row sum(h) and sum(h * xhat) with h = scale * dy, then
//    dx = blend(inv_std * (h - sum(h)/D - xhat * sum(h xhat)/D)) (RMS: no
//    sum(h)/D term). Parameter gradients: layer / RMS norm keep per-block
//    partials of dy * xhat and dy per position in the workspace (each thread
//    owns its positions: no atomics), instance norm per-row sums; a second
//    kernel combines them in a fixed order, so results do not depend on
//    scheduling.
//  - column form (NHWC instance norm, normalization_rows_args.hpp): the same
//    passes over tiles of (n, 32 neighbouring channels): lanes take channels,
//    warps take positions, and the warps' sums are added in a fixed order.
//    When the tiles are too few to fill the GPU, each set's positions are
//    cut into segments: one kernel writes per-segment partial sums, the next
//    adds them in segment order (deterministic) before its pass.
#include <cuda_runtime.h>

#include <algorithm>
#include <type_traits>

#include "cuda/cuda_util.hpp"
#include "cuda/normalization_rows_args.hpp"
#include "cuda/storage_types.cuh"

namespace fdnn::cuda {
namespace {

template <class C>
__device__ inline C warp_sum(C v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

// Sums a and b over the block; every thread gets the totals.
template <class C>
__device__ inline void block_sum2(C &a, C &b) {
  __shared__ C sh[2][32];
  a = warp_sum(a);
  b = warp_sum(b);
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
  __syncthreads();  // the previous use of sh is over
  if (lane == 0) sh[0][warp] = a, sh[1][warp] = b;
  __syncthreads();
  a = lane < warps ? sh[0][lane] : C(0);
  b = lane < warps ? sh[1][lane] : C(0);
  a = warp_sum(a);
  b = warp_sum(b);
}

__device__ inline int64_t set_offset(const int64_t kd[2], const int64_t s[2], int64_t k) {
  return (k / kd[1]) * s[0] + (k % kd[1]) * s[1];
}

template <class C>
__device__ inline C ld(const void *p, int64_t o) {
  return static_cast<const C *>(p)[o];
}
template <class C>
__device__ inline void st(void *p, int64_t o, C v) {
  static_cast<C *>(p)[o] = v;
}

// Mean and 1/std of set k from the given statistics (inference, backward
// with saved statistics).
// P: the statistics' type (C's but for the mixed-type problems).
template <class P, class C>
__device__ inline void given_stats(const RowsArgs &a, int64_t k, C &mean, C &inv) {
  mean = a.rms ? C(0) : C(ld<P>(a.stat[kRMean], set_offset(a.kd, a.stat_stride[kRMean], k)));
  inv = a.var_given ? C(1) / sqrt(C(ld<P>(a.stat[kRVar], set_offset(a.kd, a.stat_stride[kRVar], k))) + C(a.epsilon))
                    : C(ld<P>(a.stat[kRInv], set_offset(a.kd, a.stat_stride[kRInv], k)));
}

// Mean, 1/std and variance of set k from its sums s and q of x - shift and
// of its squares; forward training writes the statistics outputs (`writer`:
// one thread per set).
template <class P, class C>
__device__ inline void finish_stats(const RowsArgs &a, int64_t k, C shift, C s, C q, bool writer, C &mean, C &inv) {
  const C D = static_cast<C>(a.width);
  const C dm = s / D;
  const C var = a.rms ? q / D : max(q / D - dm * dm, C(0));
  mean = a.rms ? C(0) : shift + dm;
  inv = C(1) / sqrt(var + C(a.epsilon));
  if (!a.training || a.backward || !writer) return;
  if (a.stat[kRMean]) st<P>(a.stat[kRMean], set_offset(a.kd, a.stat_stride[kRMean], k), P(mean));
  if (a.stat[kRInv]) st<P>(a.stat[kRInv], set_offset(a.kd, a.stat_stride[kRInv], k), P(inv));
  const C f = C(a.factor);
  if (a.stat[kRRmIn])
    st<P>(a.stat[kRRmOut], set_offset(a.kd, a.stat_stride[kRRmOut], k),
          P((C(1) - f) * C(ld<P>(a.stat[kRRmIn], set_offset(a.kd, a.stat_stride[kRRmIn], k))) + f * mean));
  if (a.stat[kRRvIn])
    st<P>(a.stat[kRRvOut], set_offset(a.kd, a.stat_stride[kRRvOut], k),
          P((C(1) - f) * C(ld<P>(a.stat[kRRvIn], set_offset(a.kd, a.stat_stride[kRRvIn], k))) + f * var * C(a.unbias)));
}

// Mean and 1/std of row k: given, or from the row's sums (written out in training).
template <class S, class P, class C>
__device__ inline void row_stats(const RowsArgs &a, int64_t k, const S *xr, C &mean, C &inv) {
  if (a.stats_given) {
    given_stats<P, C>(a, k, mean, inv);
    return;
  }
  const C shift = a.rms ? C(0) : Storage<S>::template load<C>(xr[0]);
  C s = 0, q = 0;
  for (int64_t i = threadIdx.x; i < a.width; i += blockDim.x) {
    const C v = Storage<S>::template load<C>(xr[i]) - shift;
    s += v;
    q += v * v;
  }
  block_sum2(s, q);
  finish_stats<P, C>(a, k, shift, s, q, threadIdx.x == 0, mean, inv);
}

template <class S, class C>
__device__ inline void store_blend(S *p, C v, C alpha, C beta) {
  C out = alpha * v;
  if (beta != C(0)) out += beta * Storage<S>::template load<C>(*p);
  *p = Storage<S>::store(out);
}

// ---- column form (NHWC instance norm) ----------------------------------------

// Sums a and b over the block's warps (threadIdx.y) per lane, in warp order;
// every thread gets its lane's totals.
template <class C>
__device__ inline void column_sum2(C &a, C &b) {
  __shared__ C sh[2][32][32];
  const int lane = threadIdx.x, w = threadIdx.y;
  __syncthreads();  // the previous use of sh is over
  sh[0][w][lane] = a;
  sh[1][w][lane] = b;
  __syncthreads();
  if (w == 0) {
    C s = 0, q = 0;
    for (int j = 0; j < static_cast<int>(blockDim.y); ++j) s += sh[0][j][lane], q += sh[1][j][lane];
    sh[0][0][lane] = s;
    sh[1][0][lane] = q;
  }
  __syncthreads();
  a = sh[0][0][lane];
  b = sh[1][0][lane];
}

// The tile of the column form a thread works on: n, its channel c (live:
// c < channels), set k and the element offset of the set's first position.
struct ColumnTile {
  int64_t k, off;
  bool live;
};

__device__ inline ColumnTile column_tile(const RowsArgs &a, int64_t t, int64_t ctiles) {
  const int64_t n = t / ctiles, c = (t % ctiles) * 32 + threadIdx.x;
  ColumnTile ct;
  ct.live = c < a.channels;
  ct.k = n * a.channels + (ct.live ? c : 0);
  ct.off = n * a.x_stride[0] + (ct.live ? c : 0);
  return ct;
}

// The positions [i0, i1) of segment `seg` of a set.
struct Segment {
  int64_t i0, i1;
};
__device__ inline Segment segment(const RowsArgs &a, int64_t seg) {
  const int64_t i0 = seg * a.seg_len;
  return {i0, min(a.width, i0 + a.seg_len)};
}

// Sums of x - shift and of its squares over the positions [i0, i1) of the
// thread's set, over the block's warps (all threads call it: it syncs).
template <class S, class C>
__device__ inline void column_sums(const RowsArgs &a, const ColumnTile &ct, const S *x, C shift, Segment r, C &s,
                                   C &q) {
  s = 0, q = 0;
  if (ct.live) {
    // Four loads in flight per thread before the sums use them.
    const S *xc = x + ct.off;
    const int64_t step = blockDim.y;
    for (int64_t i = r.i0 + threadIdx.y; i < r.i1; i += 4 * step) {
      C v[4];
#pragma unroll
      for (int u = 0; u < 4; ++u) {
        const int64_t j = i + u * step;
        v[u] = j < r.i1 ? Storage<S>::template load<C>(xc[j * a.col_stride]) - shift : C(0);
      }
#pragma unroll
      for (int u = 0; u < 4; ++u) s += v[u], q += v[u] * v[u];
    }
  }
  column_sum2(s, q);
}

template <class S, class C>
__device__ inline C column_shift(const RowsArgs &a, const ColumnTile &ct, const S *x) {
  return a.rms || !ct.live ? C(0) : Storage<S>::template load<C>(x[ct.off]);
}

// row_stats for a column: given; or the sums of the segments' partials `sp`
// ([segments][rows][2], in segment order); or (sp null) the set's sums over
// all its positions (all threads call it then: it syncs). `writer`: this
// block writes the statistics outputs of its sets.
template <class S, class C>
__device__ inline void column_stats(const RowsArgs &a, const ColumnTile &ct, const S *x, const C *sp, bool writer,
                                    C &mean, C &inv) {
  if (a.stats_given) {
    mean = C(0), inv = C(1);
    if (ct.live) given_stats<C, C>(a, ct.k, mean, inv);
    return;
  }
  const C shift = column_shift<S, C>(a, ct, x);
  C s = 0, q = 0;
  if (sp == nullptr) {
    column_sums<S, C>(a, ct, x, shift, Segment{0, a.width}, s, q);
  } else if (ct.live) {
    for (int64_t j = 0; j < a.segments; ++j) s += sp[(j * a.rows + ct.k) * 2], q += sp[(j * a.rows + ct.k) * 2 + 1];
  }
  finish_stats<C, C>(a, ct.k, shift, s, q, writer && ct.live && threadIdx.y == 0, mean, inv);
}

// Work items of the column form: (tile, segment), segment fastest.
__device__ inline int64_t column_items(const RowsArgs &a, int64_t ctiles) { return a.kd[0] * ctiles * a.segments; }

// Several segments: each item's partial sums of x - shift and squares into sp.
template <class S, class C>
__global__ void __launch_bounds__(1024) columns_partial_stats(RowsArgs a, C *sp) {
  const S *x = static_cast<const S *>(a.x);
  const int64_t ctiles = (a.channels + 31) / 32, items = column_items(a, ctiles);
  for (int64_t it = blockIdx.x; it < items; it += gridDim.x) {
    const int64_t seg = it % a.segments;
    const ColumnTile ct = column_tile(a, it / a.segments, ctiles);
    C s, q;
    column_sums<S, C>(a, ct, x, column_shift<S, C>(a, ct, x), segment(a, seg), s, q);
    if (ct.live && threadIdx.y == 0) sp[(seg * a.rows + ct.k) * 2] = s, sp[(seg * a.rows + ct.k) * 2 + 1] = q;
  }
}

// y over each item's positions; statistics from sp (several segments) or
// from the whole set (one segment).
// O: y's type (x's but for the mixed-type problems).
template <class S, class O, class C>
__global__ void __launch_bounds__(1024) columns_forward(RowsArgs a, const C *sp) {
  const S *x = static_cast<const S *>(a.x);
  O *y = static_cast<O *>(a.y);
  const C *scale = static_cast<const C *>(a.param[kRScale]), *bias = static_cast<const C *>(a.param[kRBias]);
  const C alpha = C(a.alpha), beta = C(a.beta);
  const int64_t ctiles = (a.channels + 31) / 32, items = column_items(a, ctiles);
  for (int64_t it = blockIdx.x; it < items; it += gridDim.x) {
    const int64_t seg = it % a.segments;
    const ColumnTile ct = column_tile(a, it / a.segments, ctiles);
    C mean, inv;
    column_stats<S, C>(a, ct, x, sp, seg == 0, mean, inv);
    if (!ct.live) continue;  // no barrier below: the other threads go on alone
    const int64_t c = ct.k % a.channels;
    const C sa = (scale ? scale[c * a.param_stride[kRScale]] : C(1)) * inv;
    const C sb = (bias ? bias[c * a.param_stride[kRBias]] : C(0)) - sa * mean;
    const Segment r = segment(a, seg);
    const int64_t step = blockDim.y;
    for (int64_t i = r.i0 + threadIdx.y; i < r.i1; i += 4 * step) {
      C v[4];  // four loads in flight before the stores (y may alias x)
#pragma unroll
      for (int u = 0; u < 4; ++u) {
        const int64_t j = i + u * step;
        if (j < r.i1) v[u] = Storage<S>::template load<C>(x[ct.off + j * a.col_stride]);
      }
#pragma unroll
      for (int u = 0; u < 4; ++u) {
        const int64_t j = i + u * step;
        if (j < r.i1) store_blend<O, C>(y + ct.off + j * a.col_stride, sa * v[u] + sb, alpha, beta);
      }
    }
  }
}

// sum(dy) and sum(dy xhat) over the positions r of the thread's set, over
// the block's warps (all threads call it: it syncs).
template <class S, class G, class C>
__device__ inline void column_grad_sums(const RowsArgs &a, const ColumnTile &ct, Segment r, C mean, C inv, C &sh,
                                        C &shx) {
  const S *x = static_cast<const S *>(a.x);
  const G *dy = static_cast<const G *>(a.dy);
  sh = 0, shx = 0;
  if (ct.live)
    for (int64_t i = r.i0 + threadIdx.y; i < r.i1; i += blockDim.y) {
      const int64_t o = ct.off + i * a.col_stride;
      const C xh = (Storage<S>::template load<C>(x[o]) - mean) * inv, g = Storage<G>::template load<C>(dy[o]);
      sh += g;
      shx += g * xh;
    }
  column_sum2(sh, shx);
}

// Several segments: each item's partial sum(dy), sum(dy xhat) into gp
// ([segments][rows][2]).
template <class S, class G, class C>
__global__ void __launch_bounds__(1024) columns_partial_grads(RowsArgs a, const C *sp, C *gp) {
  const S *x = static_cast<const S *>(a.x);
  const int64_t ctiles = (a.channels + 31) / 32, items = column_items(a, ctiles);
  for (int64_t it = blockIdx.x; it < items; it += gridDim.x) {
    const int64_t seg = it % a.segments;
    const ColumnTile ct = column_tile(a, it / a.segments, ctiles);
    C mean, inv, sh, shx;
    column_stats<S, C>(a, ct, x, sp, false, mean, inv);
    column_grad_sums<S, G, C>(a, ct, segment(a, seg), mean, inv, sh, shx);
    if (ct.live && threadIdx.y == 0) gp[(seg * a.rows + ct.k) * 2] = sh, gp[(seg * a.rows + ct.k) * 2 + 1] = shx;
  }
}

// dx over each item's positions; the gradient sums from gp (several
// segments) or from the whole set (one segment). Parameter partials per set
// as in rows_backward's instance-norm case ([rows][2]: sum(dy xhat), sum(dy)).
template <class S, class G, class O, class C>
__global__ void __launch_bounds__(1024) columns_backward(RowsArgs a, C *part, const C *sp, const C *gp) {
  const S *x = static_cast<const S *>(a.x);
  const G *dy = static_cast<const G *>(a.dy);
  O *dx = static_cast<O *>(a.dx);
  const C *scale = static_cast<const C *>(a.param[kRScale]);
  const C alpha = C(a.alpha), beta = C(a.beta), D = static_cast<C>(a.width);
  const int64_t ctiles = (a.channels + 31) / 32, items = column_items(a, ctiles);
  for (int64_t it = blockIdx.x; it < items; it += gridDim.x) {
    const int64_t seg = it % a.segments;
    const ColumnTile ct = column_tile(a, it / a.segments, ctiles);
    C mean, inv, sh = 0, shx = 0;
    column_stats<S, C>(a, ct, x, sp, false, mean, inv);
    if (gp == nullptr) {
      column_grad_sums<S, G, C>(a, ct, Segment{0, a.width}, mean, inv, sh, shx);
    } else if (ct.live) {
      for (int64_t j = 0; j < a.segments; ++j) sh += gp[(j * a.rows + ct.k) * 2], shx += gp[(j * a.rows + ct.k) * 2 + 1];
    }
    if (!ct.live) continue;  // no barrier below
    if (seg == 0 && threadIdx.y == 0 && a.param_grads) part[2 * ct.k] = shx, part[2 * ct.k + 1] = sh;
    const C sc = scale[(ct.k % a.channels) * a.param_stride[kRScale]];
    const C mh = sc * sh / D, mhx = sc * shx / D;
    const Segment r = segment(a, seg);
    for (int64_t i = r.i0 + threadIdx.y; i < r.i1; i += blockDim.y) {
      const int64_t o = ct.off + i * a.col_stride;
      const C xh = (Storage<S>::template load<C>(x[o]) - mean) * inv, g = Storage<G>::template load<C>(dy[o]);
      store_blend<O, C>(dx + o, inv * (sc * g - mh - xh * mhx), alpha, beta);
    }
  }
}

// S: x's type, O: y's, P: scale's, bias' and the statistics' (x's and C's
// but for the mixed-type problems). y's rows start at its own offsets
// (out_stride).
template <class S, class O, class P, class C>
__global__ void __launch_bounds__(1024) rows_forward(RowsArgs a) {
  const S *x = static_cast<const S *>(a.x);
  O *y = static_cast<O *>(a.y);
  const P *scale = static_cast<const P *>(a.param[kRScale]), *bias = static_cast<const P *>(a.param[kRBias]);
  const C alpha = C(a.alpha), beta = C(a.beta);
  for (int64_t k = blockIdx.x; k < a.rows; k += gridDim.x) {
    const int64_t off = set_offset(a.kd, a.x_stride, k);
    const S *xr = x + off;
    O *yr = y + set_offset(a.kd, a.out_stride, k);
    C mean, inv;
    row_stats<S, P, C>(a, k, xr, mean, inv);
    if (a.per_channel) {
      const int64_t c = k % a.channels;
      const C sa = (scale ? C(scale[c * a.param_stride[kRScale]]) : C(1)) * inv;
      const C sb = (bias ? C(bias[c * a.param_stride[kRBias]]) : C(0)) - sa * mean;
      for (int64_t i = threadIdx.x; i < a.width; i += blockDim.x)
        store_blend<O, C>(yr + i, sa * Storage<S>::template load<C>(xr[i]) + sb, alpha, beta);
    } else {
      for (int64_t i = threadIdx.x; i < a.width; i += blockDim.x) {
        const C v = (scale ? C(scale[i]) : C(1)) * ((Storage<S>::template load<C>(xr[i]) - mean) * inv) +
                    (bias ? C(bias[i]) : C(0));
        store_blend<O, C>(yr + i, v, alpha, beta);
      }
    }
  }
}

// Workspace: layer / RMS: [blocks][2][width] (dy * xhat, dy) per block;
// instance: [rows][2].
// S: x's type, G: dy's, O: dx's, P: scale's and the statistics' (x's and
// C's but for the mixed-type problems). dy's and dx's rows start at their own
// offsets (grad_stride, out_stride).
template <class S, class G, class O, class P, class C>
__global__ void __launch_bounds__(1024) rows_backward(RowsArgs a, C *part) {
  const S *x = static_cast<const S *>(a.x);
  const G *dy = static_cast<const G *>(a.dy);
  O *dx = static_cast<O *>(a.dx);
  const P *scale = static_cast<const P *>(a.param[kRScale]);
  const bool params = a.param_grads;
  const C alpha = C(a.alpha), beta = C(a.beta), D = static_cast<C>(a.width);
  C *mine = part + static_cast<int64_t>(blockIdx.x) * 2 * a.width;
  bool first = true;
  for (int64_t k = blockIdx.x; k < a.rows; k += gridDim.x) {
    const int64_t off = set_offset(a.kd, a.x_stride, k);
    const S *xr = x + off;
    const G *gr = dy + set_offset(a.kd, a.grad_stride, k);
    O *dr = dx + set_offset(a.kd, a.out_stride, k);
    C mean, inv;
    row_stats<S, P, C>(a, k, xr, mean, inv);
    const C sc = a.per_channel ? C(scale[(k % a.channels) * a.param_stride[kRScale]]) : C(0);
    C sh = 0, shx = 0;  // per channel: sum(dy), sum(dy xhat); per position: sum(h), sum(h xhat)
    for (int64_t i = threadIdx.x; i < a.width; i += blockDim.x) {
      const C xh = (Storage<S>::template load<C>(xr[i]) - mean) * inv, g = Storage<G>::template load<C>(gr[i]);
      if (a.per_channel) {
        sh += g;
        shx += g * xh;
      } else {
        const C h = C(scale[i]) * g;
        sh += h;
        shx += h * xh;
        if (params) {
          mine[i] = first ? g * xh : mine[i] + g * xh;
          mine[a.width + i] = first ? g : mine[a.width + i] + g;
        }
      }
    }
    first = false;
    block_sum2(sh, shx);
    if (a.per_channel) {
      if (threadIdx.x == 0 && params) part[2 * k] = shx, part[2 * k + 1] = sh;
      sh *= sc, shx *= sc;
    }
    const C mh = a.rms ? C(0) : sh / D, mhx = shx / D;
    for (int64_t i = threadIdx.x; i < a.width; i += blockDim.x) {
      const C xh = (Storage<S>::template load<C>(xr[i]) - mean) * inv, g = Storage<G>::template load<C>(gr[i]);
      const C h = (a.per_channel ? sc : C(scale[i])) * g;
      store_blend<O, C>(dr + i, inv * (h - mh - xh * mhx), alpha, beta);
    }
  }
}

// dscale / dbias: per position over the blocks' partials (layer / RMS), or
// per channel over n (instance), in order; blended with alpha_p / beta_p.
template <class P, class C>
__global__ void rows_param_finalize(RowsArgs a, const C *part, int parts) {
  const int64_t n_out = a.per_channel ? a.channels : a.width;
  const int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (i >= n_out) return;
  C s0 = 0, s1 = 0;
  if (a.per_channel) {
    for (int64_t k = i; k < a.rows; k += a.channels) s0 += part[2 * k], s1 += part[2 * k + 1];
  } else {
    for (int b = 0; b < parts; ++b) s0 += part[(2 * b) * a.width + i], s1 += part[(2 * b + 1) * a.width + i];
  }
  const C ap = C(a.alpha_p), bp = C(a.beta_p);
  const int64_t o0 = a.per_channel ? i * a.param_stride[kRDscale] : i;
  const int64_t o1 = a.per_channel ? i * a.param_stride[kRDbias] : i;
  if (P *ds = static_cast<P *>(a.param[kRDscale])) ds[o0] = P(bp != C(0) ? ap * s0 + bp * C(ds[o0]) : ap * s0);
  if (P *db = static_cast<P *>(a.param[kRDbias])) db[o1] = P(bp != C(0) ? ap * s1 + bp * C(db[o1]) : ap * s1);
}

// The column form's workspace after the parameter partials: the statistics
// partials sp (several segments, statistics not given), then the gradient
// partials gp (several segments, backward).
template <class C>
void column_partials(const RowsArgs &a, void *workspace, const C **sp_out, C **gp_out) {
  C *p = static_cast<C *>(workspace) + (a.backward && a.param_grads ? 2 * a.rows : 0);
  *sp_out = nullptr;
  *gp_out = nullptr;
  if (a.segments <= 1) return;
  if (!a.stats_given) {
    *sp_out = p;
    p += 2 * a.segments * a.rows;
  }
  if (a.backward) *gp_out = p;
}

// S: x's type, G: dy's, O: y's / dx's (x's but for the mixed-type problems).
template <class S, class G, class O, class C>
void run_columns(const RowsArgs &a, void *workspace, cudaStream_t s) {
  const dim3 block(32, static_cast<unsigned>(a.threads / 32));
  const C *sp;
  C *gp;
  column_partials<C>(a, workspace, &sp, &gp);
  if (sp != nullptr) {
    columns_partial_stats<S, C><<<a.blocks, block, 0, s>>>(a, const_cast<C *>(sp));
    check_launch("normalization columns statistics");
  }
  if (!a.backward) {
    columns_forward<S, O, C><<<a.blocks, block, 0, s>>>(a, sp);
    check_launch("normalization columns forward");
    return;
  }
  if (gp != nullptr) {
    columns_partial_grads<S, G, C><<<a.blocks, block, 0, s>>>(a, sp, gp);
    check_launch("normalization columns gradient sums");
  }
  columns_backward<S, G, O, C><<<a.blocks, block, 0, s>>>(a, static_cast<C *>(workspace), sp, gp);
  check_launch("normalization columns backward");
}

// The parameter gradients' pass (backward with dscale / dbias).
template <class P, class C>
void finish_params(const RowsArgs &a, void *workspace, cudaStream_t s) {
  if (!a.backward || !a.param_grads) return;
  const int64_t n_out = a.per_channel ? a.channels : a.width;
  rows_param_finalize<P, C><<<static_cast<unsigned>((n_out + 255) / 256), 256, 0, s>>>(
      a, static_cast<C *>(workspace), a.blocks);
  check_launch("normalization rows parameter gradients");
}

template <class S, class C>
void run(const RowsArgs &a, void *workspace, cudaStream_t s) {
  if (a.columns) {
    run_columns<S, S, S, C>(a, workspace, s);
  } else if (!a.backward) {
    rows_forward<S, S, C, C><<<a.blocks, a.threads, 0, s>>>(a);
    check_launch("normalization rows forward");
    return;
  } else {
    rows_backward<S, S, S, C, C><<<a.blocks, a.threads, 0, s>>>(a, static_cast<C *>(workspace));
    check_launch("normalization rows backward");
  }
  finish_params<C, C>(a, workspace, s);
}

// Mixed types (see normalization_rows_args.hpp): x S, dy G, y / dx O.
// Float compute: each FLOAT, HALF or BFLOAT16, statistics FLOAT (rows form;
// column form with G == S). Double compute: each of the four types, G == S,
// statistics DOUBLE (or FLOAT with DOUBLE data throughout), rows form.
template <class T>
struct TypeTag {
  using type = T;
};
template <bool kWithDouble, class F>
void pick_type(cudnnDataType_t t, F &&f) {
  switch (t) {
    case CUDNN_DATA_FLOAT: f(TypeTag<float>{}); break;
    case CUDNN_DATA_HALF: f(TypeTag<half_bits>{}); break;
    case CUDNN_DATA_BFLOAT16: f(TypeTag<bf16_bits>{}); break;
    case CUDNN_DATA_DOUBLE:
      if constexpr (kWithDouble) {
        f(TypeTag<double>{});
        break;
      }
      [[fallthrough]];
    default: fail(CUDNN_STATUS_INTERNAL_ERROR, "cuda.normalization.rows: unexpected mixed data type");
  }
}

void run_mixed_float(const RowsArgs &a, void *workspace, cudaStream_t s) {
  pick_type<false>(a.data_type, [&](auto xs) {
    using S = typename decltype(xs)::type;
    pick_type<false>(a.out_type, [&](auto os) {
      using O = typename decltype(os)::type;
      if (a.columns) {
        if (a.grad_type != a.data_type) fail(CUDNN_STATUS_INTERNAL_ERROR, "cuda.normalization.rows: dy's type");
        run_columns<S, S, O, float>(a, workspace, s);
        return;
      }
      if (!a.backward) {
        rows_forward<S, O, float, float><<<a.blocks, a.threads, 0, s>>>(a);
        check_launch("normalization rows forward (mixed types)");
        return;
      }
      pick_type<false>(a.grad_type, [&](auto gs) {
        using G = typename decltype(gs)::type;
        rows_backward<S, G, O, float, float><<<a.blocks, a.threads, 0, s>>>(a, static_cast<float *>(workspace));
        check_launch("normalization rows backward (mixed types)");
      });
    });
  });
  finish_params<float, float>(a, workspace, s);
}

template <class P>
void run_mixed_double(const RowsArgs &a, void *workspace, cudaStream_t s) {
  if (a.columns || (a.backward && a.grad_type != a.data_type))
    fail(CUDNN_STATUS_INTERNAL_ERROR, "cuda.normalization.rows: unexpected double-compute mix");
  if constexpr (std::is_same_v<P, float>) {
    // FLOAT statistics: DOUBLE data throughout (the engine's check).
    if (a.data_type != CUDNN_DATA_DOUBLE || a.out_type != CUDNN_DATA_DOUBLE)
      fail(CUDNN_STATUS_INTERNAL_ERROR, "cuda.normalization.rows: FLOAT statistics with non-DOUBLE data");
    if (!a.backward) {
      rows_forward<double, double, float, double><<<a.blocks, a.threads, 0, s>>>(a);
    } else {
      rows_backward<double, double, double, float, double>
          <<<a.blocks, a.threads, 0, s>>>(a, static_cast<double *>(workspace));
    }
    check_launch("normalization rows (double data, float statistics)");
    finish_params<float, double>(a, workspace, s);
    return;
  }
  pick_type<true>(a.data_type, [&](auto xs) {
    using S = typename decltype(xs)::type;
    pick_type<true>(a.out_type, [&](auto os) {
      using O = typename decltype(os)::type;
      if (!a.backward) {
        rows_forward<S, O, P, double><<<a.blocks, a.threads, 0, s>>>(a);
        check_launch("normalization rows forward (double compute, mixed types)");
      } else {
        rows_backward<S, S, O, P, double><<<a.blocks, a.threads, 0, s>>>(a, static_cast<double *>(workspace));
        check_launch("normalization rows backward (double compute, mixed types)");
      }
    });
  });
  finish_params<P, double>(a, workspace, s);
}

}  // namespace

size_t normalization_rows_workspace_bytes(const RowsArgs &a) {
  const size_t c = a.compute_double ? 8 : 4;
  size_t n = 0;
  if (a.backward && a.param_grads)
    n += a.per_channel ? static_cast<size_t>(2 * a.rows) : static_cast<size_t>(2 * a.blocks) * static_cast<size_t>(a.width);
  if (a.columns && a.segments > 1) {
    if (!a.stats_given) n += static_cast<size_t>(2 * a.segments * a.rows);
    if (a.backward) n += static_cast<size_t>(2 * a.segments * a.rows);
  }
  return n * c;
}

void launch_normalization_rows(const RowsArgs &a, void *workspace, void *stream) {
  const cudaStream_t s = as_stream(stream);
  const bool dbl = a.data_type == CUDNN_DATA_DOUBLE;
  const bool same = a.out_type == a.data_type && a.grad_type == a.data_type && a.compute_double == dbl &&
                    a.side_type == (dbl ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT);
  if (!same) {
    if (!a.compute_double) return run_mixed_float(a, workspace, s);
    if (a.side_type == CUDNN_DATA_DOUBLE) return run_mixed_double<double>(a, workspace, s);
    return run_mixed_double<float>(a, workspace, s);
  }
  switch (a.data_type) {
    case CUDNN_DATA_FLOAT: return run<float, float>(a, workspace, s);
    case CUDNN_DATA_DOUBLE: return run<double, double>(a, workspace, s);
    case CUDNN_DATA_HALF: return run<half_bits, float>(a, workspace, s);
    case CUDNN_DATA_BFLOAT16: return run<bf16_bits, float>(a, workspace, s);
    default: fail(CUDNN_STATUS_INTERNAL_ERROR, "cuda.normalization.rows: unexpected data type");
  }
}

}  // namespace fdnn::cuda
