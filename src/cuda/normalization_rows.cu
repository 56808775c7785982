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
#include <cuda_runtime.h>

#include <algorithm>

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

// Mean and 1/std of row k: given, or from the row's sums (written out in training).
template <class S, class C>
__device__ inline void row_stats(const RowsArgs &a, int64_t k, const S *xr, C &mean, C &inv) {
  if (a.stats_given) {
    mean = a.rms ? C(0) : ld<C>(a.stat[kRMean], set_offset(a.kd, a.stat_stride[kRMean], k));
    inv = a.var_given ? C(1) / sqrt(ld<C>(a.stat[kRVar], set_offset(a.kd, a.stat_stride[kRVar], k)) + C(a.epsilon))
                      : ld<C>(a.stat[kRInv], set_offset(a.kd, a.stat_stride[kRInv], k));
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
  const C D = static_cast<C>(a.width);
  const C dm = s / D;
  const C var = a.rms ? q / D : max(q / D - dm * dm, C(0));
  mean = a.rms ? C(0) : shift + dm;
  inv = C(1) / sqrt(var + C(a.epsilon));
  if (!a.training || a.backward || threadIdx.x != 0) return;
  if (a.stat[kRMean]) st<C>(a.stat[kRMean], set_offset(a.kd, a.stat_stride[kRMean], k), mean);
  if (a.stat[kRInv]) st<C>(a.stat[kRInv], set_offset(a.kd, a.stat_stride[kRInv], k), inv);
  const C f = C(a.factor);
  if (a.stat[kRRmIn])
    st<C>(a.stat[kRRmOut], set_offset(a.kd, a.stat_stride[kRRmOut], k),
          (C(1) - f) * ld<C>(a.stat[kRRmIn], set_offset(a.kd, a.stat_stride[kRRmIn], k)) + f * mean);
  if (a.stat[kRRvIn])
    st<C>(a.stat[kRRvOut], set_offset(a.kd, a.stat_stride[kRRvOut], k),
          (C(1) - f) * ld<C>(a.stat[kRRvIn], set_offset(a.kd, a.stat_stride[kRRvIn], k)) + f * var * C(a.unbias));
}

template <class S, class C>
__device__ inline void store_blend(S *p, C v, C alpha, C beta) {
  C out = alpha * v;
  if (beta != C(0)) out += beta * Storage<S>::template load<C>(*p);
  *p = Storage<S>::store(out);
}

template <class S, class C>
__global__ void __launch_bounds__(1024) rows_forward(RowsArgs a) {
  const S *x = static_cast<const S *>(a.x);
  S *y = static_cast<S *>(a.y);
  const C *scale = static_cast<const C *>(a.param[kRScale]), *bias = static_cast<const C *>(a.param[kRBias]);
  const C alpha = C(a.alpha), beta = C(a.beta);
  for (int64_t k = blockIdx.x; k < a.rows; k += gridDim.x) {
    const int64_t off = set_offset(a.kd, a.x_stride, k);
    const S *xr = x + off;
    S *yr = y + off;
    C mean, inv;
    row_stats<S, C>(a, k, xr, mean, inv);
    if (a.per_channel) {
      const int64_t c = k % a.channels;
      const C sa = (scale ? scale[c * a.param_stride[kRScale]] : C(1)) * inv;
      const C sb = (bias ? bias[c * a.param_stride[kRBias]] : C(0)) - sa * mean;
      for (int64_t i = threadIdx.x; i < a.width; i += blockDim.x)
        store_blend<S, C>(yr + i, sa * Storage<S>::template load<C>(xr[i]) + sb, alpha, beta);
    } else {
      for (int64_t i = threadIdx.x; i < a.width; i += blockDim.x) {
        const C v = (scale ? scale[i] : C(1)) * ((Storage<S>::template load<C>(xr[i]) - mean) * inv) +
                    (bias ? bias[i] : C(0));
        store_blend<S, C>(yr + i, v, alpha, beta);
      }
    }
  }
}

// Workspace: layer / RMS: [blocks][2][width] (dy * xhat, dy) per block;
// instance: [rows][2].
template <class S, class C>
__global__ void __launch_bounds__(1024) rows_backward(RowsArgs a, C *part) {
  const S *x = static_cast<const S *>(a.x), *dy = static_cast<const S *>(a.dy);
  S *dx = static_cast<S *>(a.dx);
  const C *scale = static_cast<const C *>(a.param[kRScale]);
  const bool params = a.param_grads;
  const C alpha = C(a.alpha), beta = C(a.beta), D = static_cast<C>(a.width);
  C *mine = part + static_cast<int64_t>(blockIdx.x) * 2 * a.width;
  bool first = true;
  for (int64_t k = blockIdx.x; k < a.rows; k += gridDim.x) {
    const int64_t off = set_offset(a.kd, a.x_stride, k);
    const S *xr = x + off, *gr = dy + off;
    S *dr = dx + off;
    C mean, inv;
    row_stats<S, C>(a, k, xr, mean, inv);
    const C sc = a.per_channel ? scale[(k % a.channels) * a.param_stride[kRScale]] : C(0);
    C sh = 0, shx = 0;  // per channel: sum(dy), sum(dy xhat); per position: sum(h), sum(h xhat)
    for (int64_t i = threadIdx.x; i < a.width; i += blockDim.x) {
      const C xh = (Storage<S>::template load<C>(xr[i]) - mean) * inv, g = Storage<S>::template load<C>(gr[i]);
      if (a.per_channel) {
        sh += g;
        shx += g * xh;
      } else {
        const C h = scale[i] * g;
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
      const C xh = (Storage<S>::template load<C>(xr[i]) - mean) * inv, g = Storage<S>::template load<C>(gr[i]);
      const C h = (a.per_channel ? sc : scale[i]) * g;
      store_blend<S, C>(dr + i, inv * (h - mh - xh * mhx), alpha, beta);
    }
  }
}

// dscale / dbias: per position over the blocks' partials (layer / RMS), or
// per channel over n (instance), in order; blended with alpha_p / beta_p.
template <class C>
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
  if (C *ds = static_cast<C *>(a.param[kRDscale])) ds[o0] = bp != C(0) ? ap * s0 + bp * ds[o0] : ap * s0;
  if (C *db = static_cast<C *>(a.param[kRDbias])) db[o1] = bp != C(0) ? ap * s1 + bp * db[o1] : ap * s1;
}

template <class S, class C>
void run(const RowsArgs &a, void *workspace, cudaStream_t s) {
  if (!a.backward) {
    rows_forward<S, C><<<a.blocks, a.threads, 0, s>>>(a);
    check_launch("normalization rows forward");
    return;
  }
  C *part = static_cast<C *>(workspace);
  rows_backward<S, C><<<a.blocks, a.threads, 0, s>>>(a, part);
  check_launch("normalization rows backward");
  if (!a.param_grads) return;
  const int64_t n_out = a.per_channel ? a.channels : a.width;
  rows_param_finalize<C><<<static_cast<unsigned>((n_out + 255) / 256), 256, 0, s>>>(a, part, a.blocks);
  check_launch("normalization rows parameter gradients");
}

}  // namespace

size_t normalization_rows_workspace_bytes(const RowsArgs &a) {
  if (!a.backward || !a.param_grads) return 0;
  const size_t c = a.data_type == CUDNN_DATA_DOUBLE ? 8 : 4;
  return a.per_channel ? static_cast<size_t>(2 * a.rows) * c : static_cast<size_t>(2 * a.blocks) * a.width * c;
}

void launch_normalization_rows(const RowsArgs &a, void *workspace, void *stream) {
  const cudaStream_t s = as_stream(stream);
  switch (a.data_type) {
    case CUDNN_DATA_FLOAT: return run<float, float>(a, workspace, s);
    case CUDNN_DATA_DOUBLE: return run<double, double>(a, workspace, s);
    case CUDNN_DATA_HALF: return run<half_bits, float>(a, workspace, s);
    case CUDNN_DATA_BFLOAT16: return run<bf16_bits, float>(a, workspace, s);
    default: fail(CUDNN_STATUS_INTERNAL_ERROR, "cuda.normalization.rows: unexpected data type");
  }
}

}  // namespace fdnn::cuda
