// CUDA spatial transformer kernels (conventions of
// graph/op_spatial_transform.hpp, shared through core/spatial_transform_math.hpp).
//  - grid generator: one thread per output pixel;
//  - grid gradient: one block per image, a block reduction of 6 sums;
//  - sampler: one thread per y element (consecutive threads take
//    consecutive w, so grid reads and y writes coalesce for NCHW);
//  - sampler gradient: one thread per output pixel walks the channels,
//    writes dgrid and scatters dx into a compute-type buffer with atomics;
//    a last kernel blends that buffer into dx.
// Float for FLOAT and HALF data, double for DOUBLE.
#include <cuda_runtime.h>

#include "core/spatial_transform_math.hpp"
#include "cuda/cuda_util.hpp"
#include "cuda/spatial_transform_args.hpp"
#include "cuda/storage_types.cuh"

namespace fdnn::cuda {
namespace {

constexpr int kThreads = 256;

template <class S, class C>
__device__ inline C ld(const void *p, int64_t i) {
  return Storage<S>::template load<C>(static_cast<const S *>(p)[i]);
}
template <class S, class C>
__device__ inline void st(void *p, int64_t i, C v) {
  static_cast<S *>(p)[i] = Storage<S>::store(v);
}

template <class C>
struct Corners {
  int64_t x0, y0;
  C fx, fy;
  bool valid;
};

template <class C>
__device__ inline Corners<C> locate(C gx, C gy, int64_t hi, int64_t wi) {
  const C ix = stf::input_pos<C>(gx, wi), iy = stf::input_pos<C>(gy, hi);
  Corners<C> k{};
  k.valid = fabs(ix) < C(1e9) && fabs(iy) < C(1e9);
  if (!k.valid) return k;
  const C x0 = floor(ix), y0 = floor(iy);
  k.x0 = static_cast<int64_t>(x0);
  k.y0 = static_cast<int64_t>(y0);
  k.fx = ix - x0;
  k.fy = iy - y0;
  return k;
}

template <class S, class C>
__global__ void grid_forward_kernel(SpatialTransformArgs a) {
  const int64_t p = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (p >= a.n * a.h * a.w) return;
  const int64_t j = p % a.w, i = (p / a.w) % a.h, b = p / (a.w * a.h);
  const C xt = stf::output_coord<C>(j, a.w), yt = stf::output_coord<C>(i, a.h);
  C t[6];
#pragma unroll
  for (int k = 0; k < 6; ++k) t[k] = ld<S, C>(a.theta, b * 6 + k);
  st<S, C>(a.grid_out, 2 * p, t[0] * xt + t[1] * yt + t[2]);
  st<S, C>(a.grid_out, 2 * p + 1, t[3] * xt + t[4] * yt + t[5]);
}

template <class S, class C>
__global__ void grid_backward_kernel(SpatialTransformArgs a) {
  const int64_t b = blockIdx.x;
  C acc[6] = {};
  for (int64_t q = threadIdx.x; q < a.h * a.w; q += kThreads) {
    const int64_t j = q % a.w, i = q / a.w;
    const C xt = stf::output_coord<C>(j, a.w), yt = stf::output_coord<C>(i, a.h);
    const int64_t o = (b * a.h * a.w + q) * 2;
    const C dx = ld<S, C>(a.dgrid_in, o), dy = ld<S, C>(a.dgrid_in, o + 1);
    acc[0] += dx * xt;
    acc[1] += dx * yt;
    acc[2] += dx;
    acc[3] += dy * xt;
    acc[4] += dy * yt;
    acc[5] += dy;
  }
  __shared__ C part[kThreads / 32][6];
#pragma unroll
  for (int k = 0; k < 6; ++k) {
    C v = acc[k];
    for (int s = 16; s > 0; s >>= 1) v += __shfl_xor_sync(0xffffffffu, v, s);
    if ((threadIdx.x & 31) == 0) part[threadIdx.x / 32][k] = v;
  }
  __syncthreads();
  if (threadIdx.x < 6) {
    C v = 0;
    for (int w = 0; w < kThreads / 32; ++w) v += part[w][threadIdx.x];
    st<S, C>(a.dtheta, b * 6 + threadIdx.x, v);
  }
}

template <class S, class C>
__global__ void sampler_forward_kernel(SpatialTransformArgs a) {
  const int64_t e = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (e >= a.n * a.c * a.h * a.w) return;
  const int64_t j = e % a.w, i = (e / a.w) % a.h, ch = (e / (a.w * a.h)) % a.c, b = e / (a.w * a.h * a.c);
  const int64_t g = ((b * a.h + i) * a.w + j) * 2;
  const Corners<C> k = locate<C>(ld<S, C>(a.grid, g), ld<S, C>(a.grid, g + 1), a.hi, a.wi);
  C v = 0;
  if (k.valid) {
    const int64_t base = b * a.xs[0] + ch * a.xs[1];
#pragma unroll
    for (int q = 0; q < 4; ++q) {
      const int64_t yy = k.y0 + q / 2, xx = k.x0 + q % 2;
      if (yy >= 0 && yy < a.hi && xx >= 0 && xx < a.wi) {
        const C wt = (q % 2 ? k.fx : 1 - k.fx) * (q / 2 ? k.fy : 1 - k.fy);
        v += wt * ld<S, C>(a.x, base + yy * a.xs[2] + xx * a.xs[3]);
      }
    }
  }
  const int64_t yo = b * a.ys[0] + ch * a.ys[1] + i * a.ys[2] + j * a.ys[3];
  C out = static_cast<C>(a.alpha) * v;
  if (a.beta != 0.0) out += static_cast<C>(a.beta) * ld<S, C>(a.y, yo);
  st<S, C>(a.y, yo, out);
}

template <class S, class C>
__global__ void sampler_backward_kernel(SpatialTransformArgs a, C *acc) {
  const int64_t p = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (p >= a.n * a.h * a.w) return;
  const int64_t j = p % a.w, i = (p / a.w) % a.h, b = p / (a.w * a.h);
  const int64_t g = 2 * p;
  const Corners<C> k = locate<C>(ld<S, C>(a.grid, g), ld<S, C>(a.grid, g + 1), a.hi, a.wi);
  C gx = 0, gy = 0;
  if (k.valid) {
    const C wx[2] = {1 - k.fx, k.fx}, wy[2] = {1 - k.fy, k.fy};
    const int64_t dyo = b * a.dys[0] + i * a.dys[2] + j * a.dys[3];
#pragma unroll
    for (int q = 0; q < 4; ++q) {
      const int64_t yy = k.y0 + q / 2, xx = k.x0 + q % 2;
      if (!(yy >= 0 && yy < a.hi && xx >= 0 && xx < a.wi)) continue;
      const C wk = wx[q % 2] * wy[q / 2];
      const C dwx = (q % 2 ? C(1) : C(-1)) * wy[q / 2], dwy = wx[q % 2] * (q / 2 ? C(1) : C(-1));
      const int64_t xo = b * a.xs[0] + yy * a.xs[2] + xx * a.xs[3];
      C *ap = acc + ((b * a.c) * a.hi + yy) * a.wi + xx;
      for (int64_t ch = 0; ch < a.c; ++ch) {
        const C d = ld<S, C>(a.dy, dyo + ch * a.dys[1]);
        atomicAdd(ap + ch * a.hi * a.wi, wk * d);
        const C dv = d * ld<S, C>(a.x, xo + ch * a.xs[1]);
        gx += dv * dwx;
        gy += dv * dwy;
      }
    }
  }
  C ox = static_cast<C>(a.grid_alpha) * gx * stf::input_pos_scale<C>(a.wi);
  C oy = static_cast<C>(a.grid_alpha) * gy * stf::input_pos_scale<C>(a.hi);
  if (a.grid_beta != 0.0) {
    ox += static_cast<C>(a.grid_beta) * ld<S, C>(a.dgrid, g);
    oy += static_cast<C>(a.grid_beta) * ld<S, C>(a.dgrid, g + 1);
  }
  st<S, C>(a.dgrid, g, ox);
  st<S, C>(a.dgrid, g + 1, oy);
}

template <class S, class C>
__global__ void blend_dx_kernel(SpatialTransformArgs a, const C *acc) {
  const int64_t e = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (e >= a.n * a.c * a.hi * a.wi) return;
  const int64_t q = e % a.wi, p = (e / a.wi) % a.hi, ch = (e / (a.wi * a.hi)) % a.c, b = e / (a.wi * a.hi * a.c);
  const int64_t o = b * a.dxs[0] + ch * a.dxs[1] + p * a.dxs[2] + q * a.dxs[3];
  C out = static_cast<C>(a.alpha) * acc[e];
  if (a.beta != 0.0) out += static_cast<C>(a.beta) * ld<S, C>(a.dx, o);
  st<S, C>(a.dx, o, out);
}

unsigned blocks_for(int64_t n) {
  const int64_t b = (n + kThreads - 1) / kThreads;
  check_arg(b < (int64_t{1} << 31), "cuda.spatial_transform: problem too large");
  return static_cast<unsigned>(b > 0 ? b : 1);
}

template <class S, class C>
void launch_typed(const SpatialTransformArgs &a, cudaStream_t stream) {
  switch (a.stage) {
    case 0:
      grid_forward_kernel<S, C><<<blocks_for(a.n * a.h * a.w), kThreads, 0, stream>>>(a);
      check_launch("grid_forward_kernel");
      break;
    case 1:
      grid_backward_kernel<S, C><<<static_cast<unsigned>(a.n), kThreads, 0, stream>>>(a);
      check_launch("grid_backward_kernel");
      break;
    case 2:
      sampler_forward_kernel<S, C><<<blocks_for(a.n * a.c * a.h * a.w), kThreads, 0, stream>>>(a);
      check_launch("sampler_forward_kernel");
      break;
    case 3: {
      const int64_t count = a.n * a.c * a.hi * a.wi;
      const size_t bytes = static_cast<size_t>(count) * sizeof(C);
      with_stream_memory(bytes, stream, "the dx accumulator", [&](void *acc) {
        check_cuda(cudaMemsetAsync(acc, 0, bytes, stream), "cudaMemsetAsync");
        sampler_backward_kernel<S, C><<<blocks_for(a.n * a.h * a.w), kThreads, 0, stream>>>(a, static_cast<C *>(acc));
        check_launch("sampler_backward_kernel");
        blend_dx_kernel<S, C><<<blocks_for(count), kThreads, 0, stream>>>(a, static_cast<const C *>(acc));
        check_launch("blend_dx_kernel");
      });
      break;
    }
    default: fail(CUDNN_STATUS_INTERNAL_ERROR, "cuda.spatial_transform: unknown stage");
  }
}

}  // namespace

void launch_spatial_transform(const SpatialTransformArgs &a, void *stream_p) {
  cudaStream_t stream = as_stream(stream_p);
  switch (a.dtype) {
    case CUDNN_DATA_FLOAT: launch_typed<float, float>(a, stream); break;
    case CUDNN_DATA_DOUBLE: launch_typed<double, double>(a, stream); break;
    case CUDNN_DATA_HALF: launch_typed<half_bits, float>(a, stream); break;
    default: fail(CUDNN_STATUS_NOT_SUPPORTED, "cuda.spatial_transform: unsupported data type");
  }
}

}  // namespace fdnn::cuda
