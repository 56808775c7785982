// CUDA kernels of cuda.resample.interp and cuda.resample.maxindex. One
// thread per output element (forward) or per input element (backward, a
// gather: every dx element is written once, no atomics, deterministic).
// Threads step along C first when channels are innermost (NHWC-like), else
// along W. Index arithmetic is 64-bit (the engines bound every value).
//  - Upsampling: output o of a spatial dimension samples
//    s = (o * scale + offset) / denominator, clamped to [0, extent - 1]
//    (core/resample_support). i0 = floor(s) and i1 = ceil(s) are monotone in
//    o, so the outputs that reach input i through i0 (or i1) form a range
//    whose ends are closed-form divisions: the backward pass visits exactly
//    those outputs.
//  - Max pooling with an index: the forward pass finds the window's first
//    maximum (the pooling engines' rules: start at the lowest finite value,
//    move on strictly greater values, the first NaN sticks when propagated)
//    and writes its position in the whole window; the backward pass visits
//    the outputs whose windows cover an input position and adds dy where the
//    stored position is that input's.
#include <cuda_runtime.h>

#include <cfloat>
#include <cstdint>

#include "core/error.hpp"
#include "cuda/cuda_util.hpp"
#include "cuda/resample_interp_args.hpp"
#include "cuda/storage_types.cuh"

namespace fdnn::cuda {
namespace {

constexpr int kThreads = 256;

template <class C>
__device__ inline C lowest() {
  if constexpr (sizeof(C) == 8) return -DBL_MAX;
  else return -FLT_MAX;
}

// Splits a thread index into n, c and the three output (or input) positions.
__device__ inline void split(const ResampleKernelArgs &a, const int64_t *ext, int64_t t, int64_t &n, int64_t &c,
                             int64_t *p) {
  if (a.channels_inner) {
    c = t % a.c;
    t /= a.c;
  }
  p[2] = t % ext[2];
  t /= ext[2];
  p[1] = t % ext[1];
  t /= ext[1];
  p[0] = t % ext[0];
  t /= ext[0];
  if (!a.channels_inner) {
    c = t % a.c;
    t /= a.c;
  }
  n = t;
}

// The sample of output o in dimension k: i0 = floor(s), i1 = ceil(s) (both
// clamped), weight w1 on i1.
template <class C>
__device__ inline void sample(const ResampleKernelArgs &a, int k, int64_t o, int64_t &i0, int64_t &i1, C &w1) {
  const int64_t num = o * a.scale[k] + a.offset[k], q = a.denominator[k], n = a.in[k];
  w1 = C(0);
  if (num <= 0) {
    i0 = i1 = 0;
    return;
  }
  const int64_t i = num / q;
  if (i >= n - 1) {
    i0 = i1 = n - 1;
    return;
  }
  const int64_t rest = num - i * q;
  i0 = i;
  i1 = rest != 0 ? i + 1 : i;
  w1 = static_cast<C>(rest) / static_cast<C>(q);
}

__device__ inline int64_t ceil_div(int64_t x, int64_t y) {  // y > 0
  return x >= 0 ? (x + y - 1) / y : -((-x) / y);
}

__device__ inline int64_t clamp64(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : v > hi ? hi : v; }

// The first output whose i0 (tap 0) or i1 (tap 1) is >= i, in dimension k.
__device__ inline int64_t first_output(const ResampleKernelArgs &a, int k, int tap, int64_t i) {
  const int64_t n = a.in[k], out = a.out[k];
  if (i <= 0) return 0;
  if (i > n - 1) return out;
  const int64_t q = a.denominator[k];
  // tap 0: floor(s) >= i <=> o * scale >= i * q - offset;
  // tap 1: ceil(s) >= i <=> o * scale >= (i - 1) * q - offset + 1.
  const int64_t rhs = tap == 0 ? i * q - a.offset[k] : (i - 1) * q - a.offset[k] + 1;
  return clamp64(ceil_div(rhs, a.scale[k]), 0, out);
}

template <class S, class C>
__global__ void __launch_bounds__(kThreads) interp_forward(ResampleKernelArgs a, int64_t total) {
  const S *x = static_cast<const S *>(a.x);
  S *y = static_cast<S *>(a.y);
  const C alpha = static_cast<C>(a.alpha), beta = static_cast<C>(a.beta);
  for (int64_t t = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; t < total;
       t += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int64_t n, c, o[3];
    split(a, a.out, t, n, c, o);
    int64_t i0[3], i1[3];
    C w1[3];
    for (int k = 0; k < 3; ++k) sample<C>(a, k, o[k], i0[k], i1[k], w1[k]);
    const S *base = x + n * a.is[0] + c * a.is[1];
    C v = 0;
    if (a.bilinear) {
      for (int d = 0; d < 2; ++d) {
        const int64_t id = d ? i1[0] : i0[0];
        const C wd = d ? w1[0] : C(1) - w1[0];
        for (int h = 0; h < 2; ++h) {
          const int64_t ih = h ? i1[1] : i0[1];
          const C wh = wd * (h ? w1[1] : C(1) - w1[1]);
          const S *row = base + id * a.is[2] + ih * a.is[3];
          v += wh * ((C(1) - w1[2]) * Storage<S>::template load<C>(row[i0[2] * a.is[4]]) +
                     w1[2] * Storage<S>::template load<C>(row[i1[2] * a.is[4]]));
        }
      }
    } else {
      v = Storage<S>::template load<C>(base[i0[0] * a.is[2] + i0[1] * a.is[3] + i0[2] * a.is[4]]);
    }
    S *q = y + n * a.os[0] + c * a.os[1] + o[0] * a.os[2] + o[1] * a.os[3] + o[2] * a.os[4];
    C r = alpha * v;
    if (beta != C(0)) r += beta * Storage<S>::template load<C>(*q);
    *q = Storage<S>::store(r);
  }
}

template <class S, class C>
__global__ void __launch_bounds__(kThreads) interp_backward(ResampleKernelArgs a, int64_t total) {
  const S *dy = static_cast<const S *>(a.dy);
  S *dx = static_cast<S *>(a.dx);
  const C alpha = static_cast<C>(a.alpha), beta = static_cast<C>(a.beta);
  const int taps = a.bilinear ? 2 : 1;
  for (int64_t t = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; t < total;
       t += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int64_t n, c, i[3];
    split(a, a.in, t, n, c, i);
    // The output ranges of each dimension and tap.
    int64_t lo[3][2], hi[3][2];
    for (int k = 0; k < 3; ++k)
      for (int tap = 0; tap < taps; ++tap) {
        lo[k][tap] = first_output(a, k, tap, i[k]);
        hi[k][tap] = first_output(a, k, tap, i[k] + 1);
      }
    const S *base = dy + n * a.os[0] + c * a.os[1];
    C acc = 0;
    for (int td = 0; td < taps; ++td)
      for (int64_t od = lo[0][td]; od < hi[0][td]; ++od) {
        int64_t j0, j1;
        C wd;
        sample<C>(a, 0, od, j0, j1, wd);
        wd = a.bilinear ? (td ? wd : C(1) - wd) : C(1);
        for (int th = 0; th < taps; ++th)
          for (int64_t oh = lo[1][th]; oh < hi[1][th]; ++oh) {
            C wh;
            sample<C>(a, 1, oh, j0, j1, wh);
            wh = wd * (a.bilinear ? (th ? wh : C(1) - wh) : C(1));
            const S *row = base + od * a.os[2] + oh * a.os[3];
            for (int tw = 0; tw < taps; ++tw)
              for (int64_t ow = lo[2][tw]; ow < hi[2][tw]; ++ow) {
                C ww;
                sample<C>(a, 2, ow, j0, j1, ww);
                ww = a.bilinear ? (tw ? ww : C(1) - ww) : C(1);
                acc += wh * ww * Storage<S>::template load<C>(row[ow * a.os[4]]);
              }
          }
      }
    S *q = dx + n * a.is[0] + c * a.is[1] + i[0] * a.is[2] + i[1] * a.is[3] + i[2] * a.is[4];
    C r = alpha * acc;
    if (beta != C(0)) r += beta * Storage<S>::template load<C>(*q);
    *q = Storage<S>::store(r);
  }
}

template <class I>
__device__ inline I no_index() {
  return static_cast<I>(-1);  // all bits set: 255 for uint8_t
}

template <class S, class C, class I>
__global__ void __launch_bounds__(kThreads) maxindex_forward(ResampleKernelArgs a, int64_t total) {
  const S *x = static_cast<const S *>(a.x);
  S *y = static_cast<S *>(a.y);
  I *index = static_cast<I *>(a.index);
  const C alpha = static_cast<C>(a.alpha), beta = static_cast<C>(a.beta);
  for (int64_t t = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; t < total;
       t += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int64_t n, c, o[3];
    split(a, a.out, t, n, c, o);
    const S *base = x + n * a.is[0] + c * a.is[1];
    C best = lowest<C>();
    int64_t at = -1, pos = 0;
    for (int64_t kd = 0; kd < a.win[0]; ++kd) {
      const int64_t id = o[0] * a.str[0] - a.pad[0] + kd;
      for (int64_t kh = 0; kh < a.win[1]; ++kh) {
        const int64_t ih = o[1] * a.str[1] - a.pad[1] + kh;
        for (int64_t kw = 0; kw < a.win[2]; ++kw, ++pos) {
          const int64_t iw = o[2] * a.str[2] - a.pad[2] + kw;
          if (id < 0 || id >= a.in[0] || ih < 0 || ih >= a.in[1] || iw < 0 || iw >= a.in[2]) continue;
          const C v = Storage<S>::template load<C>(base[id * a.is[2] + ih * a.is[3] + iw * a.is[4]]);
          const bool take = a.propagate_nan ? (best == best && (v != v || v > best)) : v > best;
          if (take) {
            best = v;
            at = pos;
          }
        }
      }
    }
    S *q = y + n * a.os[0] + c * a.os[1] + o[0] * a.os[2] + o[1] * a.os[3] + o[2] * a.os[4];
    C r = alpha * best;
    if (beta != C(0)) r += beta * Storage<S>::template load<C>(*q);
    *q = Storage<S>::store(r);
    index[n * a.xs[0] + c * a.xs[1] + o[0] * a.xs[2] + o[1] * a.xs[3] + o[2] * a.xs[4]] =
        at >= 0 ? static_cast<I>(at) : no_index<I>();
  }
}

template <class S, class C, class I>
__global__ void __launch_bounds__(kThreads) maxindex_backward(ResampleKernelArgs a, int64_t total) {
  const S *dy = static_cast<const S *>(a.dy);
  S *dx = static_cast<S *>(a.dx);
  const I *index = static_cast<const I *>(a.index);
  const C alpha = static_cast<C>(a.alpha), beta = static_cast<C>(a.beta);
  for (int64_t t = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; t < total;
       t += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int64_t n, c, i[3];
    split(a, a.in, t, n, c, i);
    // Outputs whose windows cover i: o * str - pad <= i < o * str - pad + win.
    int64_t lo[3], hi[3];
    for (int k = 0; k < 3; ++k) {
      lo[k] = clamp64(ceil_div(i[k] + a.pad[k] - a.win[k] + 1, a.str[k]), 0, a.out[k]);
      const int64_t top = i[k] + a.pad[k];
      hi[k] = top < 0 ? 0 : clamp64(top / a.str[k] + 1, 0, a.out[k]);
    }
    C acc = 0;
    for (int64_t od = lo[0]; od < hi[0]; ++od)
      for (int64_t oh = lo[1]; oh < hi[1]; ++oh)
        for (int64_t ow = lo[2]; ow < hi[2]; ++ow) {
          const int64_t kd = i[0] - (od * a.str[0] - a.pad[0]), kh = i[1] - (oh * a.str[1] - a.pad[1]),
                        kw = i[2] - (ow * a.str[2] - a.pad[2]);
          const int64_t pos = (kd * a.win[1] + kh) * a.win[2] + kw;
          const int64_t stored = static_cast<int64_t>(
              index[n * a.xs[0] + c * a.xs[1] + od * a.xs[2] + oh * a.xs[3] + ow * a.xs[4]]);
          if (stored == pos)
            acc += Storage<S>::template load<C>(
                dy[n * a.os[0] + c * a.os[1] + od * a.os[2] + oh * a.os[3] + ow * a.os[4]]);
        }
    S *q = dx + n * a.is[0] + c * a.is[1] + i[0] * a.is[2] + i[1] * a.is[3] + i[2] * a.is[4];
    C r = alpha * acc;
    if (beta != C(0)) r += beta * Storage<S>::template load<C>(*q);
    *q = Storage<S>::store(r);
  }
}

int64_t grid_for(int64_t total) {
  const int64_t blocks = (total + kThreads - 1) / kThreads;
  const int64_t cap = static_cast<int64_t>(sm_count()) * 16;
  return blocks < cap ? blocks : cap;
}

int64_t element_total(const ResampleKernelArgs &a, const int64_t *ext) { return a.n * a.c * ext[0] * ext[1] * ext[2]; }

template <class S, class C>
void launch_interp_typed(const ResampleKernelArgs &a, cudaStream_t s) {
  const int64_t total = element_total(a, a.backward ? a.in : a.out);
  if (total == 0) return;
  const int64_t grid = grid_for(total);
  if (a.backward) interp_backward<S, C><<<static_cast<unsigned>(grid), kThreads, 0, s>>>(a, total);
  else interp_forward<S, C><<<static_cast<unsigned>(grid), kThreads, 0, s>>>(a, total);
  check_launch(a.backward ? "interp_backward" : "interp_forward");
}

template <class S, class C, class I>
void launch_maxindex_typed(const ResampleKernelArgs &a, cudaStream_t s) {
  const int64_t total = element_total(a, a.backward ? a.in : a.out);
  if (total == 0) return;
  const int64_t grid = grid_for(total);
  if (a.backward) maxindex_backward<S, C, I><<<static_cast<unsigned>(grid), kThreads, 0, s>>>(a, total);
  else maxindex_forward<S, C, I><<<static_cast<unsigned>(grid), kThreads, 0, s>>>(a, total);
  check_launch(a.backward ? "maxindex_backward" : "maxindex_forward");
}

template <class S, class C>
void launch_maxindex_for_index(const ResampleKernelArgs &a, cudaStream_t s) {
  switch (a.index_type) {
    case CUDNN_DATA_INT8: launch_maxindex_typed<S, C, int8_t>(a, s); break;
    case CUDNN_DATA_UINT8: launch_maxindex_typed<S, C, uint8_t>(a, s); break;
    case CUDNN_DATA_INT32: launch_maxindex_typed<S, C, int32_t>(a, s); break;
    case CUDNN_DATA_INT64: launch_maxindex_typed<S, C, int64_t>(a, s); break;
    default: fail(CUDNN_STATUS_NOT_SUPPORTED, "cuda.resample.maxindex: unsupported index type");
  }
}

}  // namespace

void launch_resample_interp(const ResampleKernelArgs &a, void *stream) {
  const cudaStream_t s = as_stream(stream);
  switch (a.dtype) {
    case CUDNN_DATA_FLOAT: launch_interp_typed<float, float>(a, s); break;
    case CUDNN_DATA_DOUBLE: launch_interp_typed<double, double>(a, s); break;
    case CUDNN_DATA_HALF: launch_interp_typed<half_bits, float>(a, s); break;
    case CUDNN_DATA_BFLOAT16: launch_interp_typed<bf16_bits, float>(a, s); break;
    default: fail(CUDNN_STATUS_NOT_SUPPORTED, "cuda.resample.interp: unsupported data type");
  }
}

void launch_resample_maxindex(const ResampleKernelArgs &a, void *stream) {
  const cudaStream_t s = as_stream(stream);
  switch (a.dtype) {
    case CUDNN_DATA_FLOAT: launch_maxindex_for_index<float, float>(a, s); break;
    case CUDNN_DATA_DOUBLE: launch_maxindex_for_index<double, double>(a, s); break;
    case CUDNN_DATA_HALF: launch_maxindex_for_index<half_bits, float>(a, s); break;
    case CUDNN_DATA_BFLOAT16: launch_maxindex_for_index<bf16_bits, float>(a, s); break;
    default: fail(CUDNN_STATUS_NOT_SUPPORTED, "cuda.resample.maxindex: unsupported data type");
  }
}

}  // namespace fdnn::cuda
