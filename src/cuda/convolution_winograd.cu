// The F(4x4, 3x3) transform kernels of cuda.conv.winograd (see
// convolution_winograd.hpp). One thread per (channel, tile) or per filter
// pair; threads of a warp take consecutive tiles, so every one of the 36
// plane writes (and reads) of a thread is a coalesced row across the warp.
// The arithmetic is the shared host/device code of
// convolution_winograd_transforms.hpp, fully unrolled into registers.
#include <cuda_runtime.h>

#include <cstdint>

#include "cuda/convolution_winograd.hpp"
#include "cuda/convolution_winograd_transforms.hpp"
#include "cuda/cuda_util.hpp"

namespace fdnn::cuda {
namespace {

constexpr int kThreads = 256;

int blocks_for(int64_t n) { return static_cast<int>((n + kThreads - 1) / kThreads); }

struct TileAt {
  int n, h0, w0;  // image, first output row / column of the tile
};

__device__ __forceinline__ TileAt tile_at(const WinoTiling &t, int tile) {
  const int per_image = t.tiles_h * t.tiles_w;
  const int n = tile / per_image, r = tile - n * per_image;
  const int th = r / t.tiles_w, tw = r - th * t.tiles_w;
  return {n, th * wino::kOut, tw * wino::kOut};
}

struct PlaneAt {
  int channel, tile;
};

// Where element idx of a [parts][channels][part_tiles] plane belongs.
__device__ __forceinline__ PlaneAt plane_at(const WinoTiling &t, int channels, int64_t idx) {
  const int64_t part_size = int64_t{channels} * t.part_tiles;
  const int p = static_cast<int>(idx / part_size);
  const int r = static_cast<int>(idx - p * part_size);
  const int c = r / t.part_tiles, tp = r - c * t.part_tiles;
  return {c, p * t.part_tiles + tp};
}

template <class T>
__global__ void __launch_bounds__(kThreads) wino_filter_kernel(const T *__restrict__ w, const WinoFilterMap m,
                                                               T *__restrict__ U) {
  const int64_t pairs = int64_t{m.outer} * m.inner;
  const int64_t idx = int64_t{blockIdx.x} * kThreads + threadIdx.x;
  if (idx >= pairs) return;
  const int o = static_cast<int>(idx / m.inner), i = static_cast<int>(idx - int64_t{o} * m.inner);
  const T *base = w + int64_t{o} * m.so + int64_t{i} * m.si;
  T g[3][3];
#pragma unroll
  for (int r = 0; r < 3; ++r)
#pragma unroll
    for (int s = 0; s < 3; ++s) {
      const int rr = m.flip ? 2 - r : r, ss = m.flip ? 2 - s : s;
      g[r][s] = base[rr * m.sr + ss * m.ss];
    }
  T u[wino::kTaps];
  wino::filter_tile(g, u);
#pragma unroll
  for (int e = 0; e < wino::kTaps; ++e) U[e * pairs + idx] = u[e];
}

template <class T>
__global__ void __launch_bounds__(kThreads) wino_input_kernel(const T *__restrict__ src, const WinoTiling t,
                                                              T *__restrict__ V) {
  const int C = t.src.dims[1];
  const int64_t plane = int64_t{C} * t.parts * t.part_tiles;
  const int64_t idx = int64_t{blockIdx.x} * kThreads + threadIdx.x;
  if (idx >= plane) return;
  const PlaneAt pa = plane_at(t, C, idx);
  if (pa.tile >= t.T) {
    for (int e = 0; e < wino::kTaps; ++e) V[e * plane + idx] = T(0);
    return;
  }
  const int c = pa.channel;
  const TileAt at = tile_at(t, pa.tile);
  const int H = t.src.dims[2], W = t.src.dims[3];
  const int sh = t.src.strides[2], sw = t.src.strides[3];
  const T *base = src + int64_t{at.n} * t.src.strides[0] + int64_t{c} * t.src.strides[1];
  const int h0 = at.h0 - t.pad_h, w0 = at.w0 - t.pad_w;
  T d[wino::kTile][wino::kTile];
#pragma unroll
  for (int i = 0; i < wino::kTile; ++i) {
    const int h = h0 + i;
    const bool row_ok = h >= 0 && h < H;
#pragma unroll
    for (int j = 0; j < wino::kTile; ++j) {
      const int x = w0 + j;
      d[i][j] = (row_ok && x >= 0 && x < W) ? base[h * sh + x * sw] : T(0);
    }
  }
  T v[wino::kTaps];
  wino::input_tile(d, v);
#pragma unroll
  for (int e = 0; e < wino::kTaps; ++e) V[e * plane + idx] = v[e];
}

__device__ __forceinline__ bool aligned(const void *p, unsigned bytes) {
  return (reinterpret_cast<uintptr_t>(p) & (bytes - 1)) == 0;
}

// dst[0..n) = alpha * v + beta * dst (beta 0: not read) through one vector
// access of V (float4: n = 4, float2: n = 2).
template <class V>
__device__ __forceinline__ void store_vec(float *dst, const float *v, float alpha, float beta) {
  constexpr int n = sizeof(V) / sizeof(float);
  float out[n];
  if (beta == 0.0f) {
#pragma unroll
    for (int j = 0; j < n; ++j) out[j] = alpha * v[j];
  } else {
    const V old = *reinterpret_cast<const V *>(dst);
    const float *o = reinterpret_cast<const float *>(&old);
#pragma unroll
    for (int j = 0; j < n; ++j) out[j] = alpha * v[j] + beta * o[j];
  }
  *reinterpret_cast<V *>(dst) = *reinterpret_cast<const V *>(out);
}

template <class T>
__global__ void __launch_bounds__(kThreads) wino_output_kernel(const T *__restrict__ M, const WinoTiling t,
                                                               T *__restrict__ dst, T alpha, T beta) {
  const int K = t.dst.dims[1];
  const int64_t plane = int64_t{K} * t.T;
  const int64_t idx = int64_t{blockIdx.x} * kThreads + threadIdx.x;
  if (idx >= plane) return;
  const int k = static_cast<int>(idx / t.T), tile = static_cast<int>(idx - int64_t{k} * t.T);
  const TileAt at = tile_at(t, tile);
  T m[wino::kTaps];
#pragma unroll
  for (int e = 0; e < wino::kTaps; ++e) m[e] = M[e * plane + idx];
  T y[wino::kOut][wino::kOut];
  wino::output_tile(m, y);
  const int H = t.dst.dims[2], W = t.dst.dims[3];
  const int sh = t.dst.strides[2], sw = t.dst.strides[3];
  T *base = dst + int64_t{at.n} * t.dst.strides[0] + int64_t{k} * t.dst.strides[1];
  const bool full_rows = sw == 1 && at.w0 + wino::kOut <= W;
#pragma unroll
  for (int i = 0; i < wino::kOut; ++i) {
    const int h = at.h0 + i;
    if (h >= H) break;
    T *row = base + h * sh + at.w0 * sw;
    // Whole rows of 4 contiguous floats go out as one 16-byte store (or two
    // 8-byte ones): a quarter of the store instructions of the scalar loop.
    if constexpr (sizeof(T) == 4) {
      if (full_rows && aligned(row, 16)) {
        store_vec<float4>(row, y[i], alpha, beta);
        continue;
      }
      if (full_rows && aligned(row, 8)) {
        store_vec<float2>(row, y[i], alpha, beta);
        store_vec<float2>(row + 2, &y[i][2], alpha, beta);
        continue;
      }
    }
#pragma unroll
    for (int j = 0; j < wino::kOut; ++j) {
      const int x = at.w0 + j;
      if (x >= W) break;
      T *p = row + j * sw;
      // beta == 0 never reads the output (NaN there must not survive).
      *p = beta == T(0) ? alpha * y[i][j] : alpha * y[i][j] + beta * *p;
    }
  }
}

template <class T>
__global__ void __launch_bounds__(kThreads) wino_grad_kernel(const T *__restrict__ dy, const WinoTiling t,
                                                             T *__restrict__ Z) {
  const int K = t.dst.dims[1];
  const int64_t plane = int64_t{K} * t.parts * t.part_tiles;
  const int64_t idx = int64_t{blockIdx.x} * kThreads + threadIdx.x;
  if (idx >= plane) return;
  const PlaneAt pa = plane_at(t, K, idx);
  if (pa.tile >= t.T) {
    for (int e = 0; e < wino::kTaps; ++e) Z[e * plane + idx] = T(0);
    return;
  }
  const int k = pa.channel;
  const TileAt at = tile_at(t, pa.tile);
  const int H = t.dst.dims[2], W = t.dst.dims[3];
  const int sh = t.dst.strides[2], sw = t.dst.strides[3];
  const T *base = dy + int64_t{at.n} * t.dst.strides[0] + int64_t{k} * t.dst.strides[1];
  T q[wino::kOut][wino::kOut];
#pragma unroll
  for (int i = 0; i < wino::kOut; ++i) {
    const int h = at.h0 + i;
#pragma unroll
    for (int j = 0; j < wino::kOut; ++j) {
      const int x = at.w0 + j;
      q[i][j] = (h < H && x < W) ? base[h * sh + x * sw] : T(0);
    }
  }
  T z[wino::kTaps];
  wino::grad_tile(q, z);
#pragma unroll
  for (int e = 0; e < wino::kTaps; ++e) Z[e * plane + idx] = z[e];
}

// S[e][0] = sum over p of S[e][p] (in place, in order: deterministic): one
// thread per (tap, filter pair), so that the sum runs 36 times wider than in
// the filter-gradient kernel.
template <class T>
__global__ void __launch_bounds__(kThreads) wino_sum_parts_kernel(T *__restrict__ S, int parts, int64_t pairs) {
  const int64_t idx = int64_t{blockIdx.x} * kThreads + threadIdx.x;
  if (idx >= pairs * wino::kTaps) return;
  const int64_t e = idx / pairs, pair = idx - e * pairs;
  T *base = S + e * parts * pairs + pair;
  T sum = base[0];
  for (int p = 1; p < parts; ++p) sum += base[p * pairs];
  base[0] = sum;
}

template <class T>
__global__ void __launch_bounds__(kThreads) wino_filter_grad_kernel(const T *__restrict__ S, int parts,
                                                                    const WinoFilterMap m, T *__restrict__ dw,
                                                                    T alpha, T beta) {
  const int64_t pairs = int64_t{m.outer} * m.inner;
  const int64_t idx = int64_t{blockIdx.x} * kThreads + threadIdx.x;
  if (idx >= pairs) return;
  const int o = static_cast<int>(idx / m.inner), i = static_cast<int>(idx - int64_t{o} * m.inner);
  T s[wino::kTaps];
#pragma unroll
  for (int e = 0; e < wino::kTaps; ++e) {
    const T *part = S + (int64_t{e} * parts) * pairs + idx;
    T sum = part[0];
    for (int p = 1; p < parts; ++p) sum += part[p * pairs];
    s[e] = sum;
  }
  T g[3][3];
  wino::filter_grad_tile(s, g);
  T *base = dw + int64_t{o} * m.so + int64_t{i} * m.si;
#pragma unroll
  for (int r = 0; r < 3; ++r)
#pragma unroll
    for (int c = 0; c < 3; ++c) {
      const int rr = m.flip ? 2 - r : r, cc = m.flip ? 2 - c : c;
      T *p = base + rr * m.sr + cc * m.ss;
      *p = beta == T(0) ? alpha * g[r][c] : alpha * g[r][c] + beta * *p;
    }
}

}  // namespace

template <class T>
void launch_wino_filter(const T *w, const WinoFilterMap &m, T *U, void *stream) {
  const int64_t n = int64_t{m.outer} * m.inner;
  if (n == 0) return;
  wino_filter_kernel<T><<<blocks_for(n), kThreads, 0, as_stream(stream)>>>(w, m, U);
  check_launch("wino_filter_kernel");
}

template <class T>
void launch_wino_input(const T *src, const WinoTiling &t, T *V, void *stream) {
  const int64_t n = int64_t{t.src.dims[1]} * t.parts * t.part_tiles;
  if (n == 0) return;
  wino_input_kernel<T><<<blocks_for(n), kThreads, 0, as_stream(stream)>>>(src, t, V);
  check_launch("wino_input_kernel");
}

template <class T>
void launch_wino_output(const T *M, const WinoTiling &t, T *dst, T alpha, T beta, void *stream) {
  const int64_t n = int64_t{t.dst.dims[1]} * t.T;
  if (n == 0) return;
  wino_output_kernel<T><<<blocks_for(n), kThreads, 0, as_stream(stream)>>>(M, t, dst, alpha, beta);
  check_launch("wino_output_kernel");
}

template <class T>
void launch_wino_grad(const T *dy, const WinoTiling &t, T *Z, void *stream) {
  const int64_t n = int64_t{t.dst.dims[1]} * t.parts * t.part_tiles;
  if (n == 0) return;
  wino_grad_kernel<T><<<blocks_for(n), kThreads, 0, as_stream(stream)>>>(dy, t, Z);
  check_launch("wino_grad_kernel");
}

template <class T>
void launch_wino_filter_grad(const T *S, int parts, const WinoFilterMap &m, T *dw, T alpha, T beta, void *stream) {
  const int64_t n = int64_t{m.outer} * m.inner;
  if (n == 0) return;
  if (parts > 1) {
    wino_sum_parts_kernel<T><<<blocks_for(n * wino::kTaps), kThreads, 0, as_stream(stream)>>>(const_cast<T *>(S),
                                                                                               parts, n);
    check_launch("wino_sum_parts_kernel");
    parts = 1;
  }
  wino_filter_grad_kernel<T><<<blocks_for(n), kThreads, 0, as_stream(stream)>>>(S, parts, m, dw, alpha, beta);
  check_launch("wino_filter_grad_kernel");
}

#define FDNN_WINO_INSTANTIATE(T)                                                                     \
  template void launch_wino_filter<T>(const T *, const WinoFilterMap &, T *, void *);                \
  template void launch_wino_input<T>(const T *, const WinoTiling &, T *, void *);                    \
  template void launch_wino_output<T>(const T *, const WinoTiling &, T *, T, T, void *);             \
  template void launch_wino_grad<T>(const T *, const WinoTiling &, T *, void *);                     \
  template void launch_wino_filter_grad<T>(const T *, int, const WinoFilterMap &, T *, T, T, void *);
FDNN_WINO_INSTANTIATE(float)
FDNN_WINO_INSTANTIATE(double)
#undef FDNN_WINO_INSTANTIATE

}  // namespace fdnn::cuda
