// CUDA kernels of cuda.lrn (graph::LrnOp).
//
//  - Cross-channel along planes (a contiguous innermost dim, NCHW-like) of
//    float, half and bfloat16 data with n = 3 or 5: lrn_planes.cu (vector
//    accesses through cp.async rings), tried after the NHWC register rows.
//  - Cross-channel, forward and backward: a thread walks a chunk of channels
//    at one position (N and spatial index), keeping the window sums as
//    running sums (in double for float data, so that values leaving the
//    window leave no residue); the values it revisits are L1 hits. Adjacent
//    threads take adjacent positions, so NCHW reads are coalesced.
//    Backward keeps S and dy*y/S of the last 32 channels in a small ring
//    (y recomputed from x, as cuDNN does).
//  - Cross-channel with contiguous channels (NHWC): rows of up to 128
//    16-byte vectors in registers, the window through warp shuffles
//    (cross_regs_kernel); longer rows or other windows: a warp per row in
//    shared memory (cross_rows_forward / _backward).
//  - Divisive: a thread per element sums its (D x) H x W window directly;
//    backward first writes R = dy * y / S and S^-beta for every element to
//    scratch (and dmeans), then sums R over the window for dx.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <type_traits>

#include "core/env_words.hpp"
#include "cuda/cuda_util.hpp"
#include "cuda/lrn_args.hpp"
#include "cuda/lrn_device.cuh"

namespace fdnn::cuda {
namespace {

using namespace lrn_detail;

template <class T>
struct Io;
template <>
struct Io<float> {
  __device__ static float load(const float *p, int64_t i) { return __ldg(p + i); }
  __device__ static void store(float *p, int64_t i, float v) { p[i] = v; }
};
template <>
struct Io<double> {
  __device__ static double load(const double *p, int64_t i) { return __ldg(p + i); }
  __device__ static void store(double *p, int64_t i, double v) { p[i] = v; }
};
template <>
struct Io<__half> {
  __device__ static float load(const __half *p, int64_t i) { return __half2float(p[i]); }
  __device__ static void store(__half *p, int64_t i, float v) { p[i] = __float2half_rn(v); }
};
template <>
struct Io<__nv_bfloat16> {
  __device__ static float load(const __nv_bfloat16 *p, int64_t i) { return __bfloat162float(p[i]); }
  __device__ static void store(__nv_bfloat16 *p, int64_t i, float v) { p[i] = __float2bfloat16_rn(v); }
};

template <class T, class C>
__device__ inline void blend_store(T *p, int64_t off, C v, const LrnArgs &a) {
  C out = static_cast<C>(a.blend_alpha) * v;
  if (a.blend_beta != 0.0) out += static_cast<C>(a.blend_beta) * static_cast<C>(Io<T>::load(p, off));
  Io<T>::store(p, off, out);
}

template <class T, class C>
__global__ void __launch_bounds__(256) cross_forward(LrnArgs a) {
  const int64_t t = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int64_t chunks = (a.dims[1] + a.chunk - 1) / a.chunk;
  if (t >= a.positions * chunks) return;
  const int64_t p = t % a.positions, ch = t / a.positions;
  const Offsets off = position_offsets(a, p);
  const T *x = static_cast<const T *>(a.ptr[LrnArgs::kX]) + off.o[LrnArgs::kX];
  T *y = static_cast<T *>(a.ptr[LrnArgs::kY]) + off.o[LrnArgs::kY];
  const int64_t xs = a.strides[LrnArgs::kX][1], ys = a.strides[LrnArgs::kY][1];
  const int64_t C_ = a.dims[1];
  const int64_t c0 = ch * a.chunk, c1 = min(C_, c0 + a.chunk);
  const C k = static_cast<C>(a.k), al = static_cast<C>(a.a), beta = static_cast<C>(a.beta);
  const int kind = pow_kind(a.beta);
  // x of the last 32 channels: each element is loaded once, before y at its
  // channel is written, so one chunk per line may run in place.
  C ring[32];
  double acc = 0;
  // Primed so that the first step's removal of x[c0 - behind - 1] balances.
  for (int64_t i = max(int64_t{0}, c0 - a.behind - 1); i < min(C_, c0 + a.ahead); ++i) {
    const C v = static_cast<C>(Io<T>::load(x, i * xs));
    ring[i & 31] = v;
    acc += static_cast<double>(v) * v;
  }
#pragma unroll 4
  for (int64_t c = c0; c < c1; ++c) {
    const int64_t in = c + a.ahead, out = c - a.behind - 1;
    if (in < C_) {
      const C v = static_cast<C>(Io<T>::load(x, in * xs));
      ring[in & 31] = v;
      acc += static_cast<double>(v) * v;
    }
    if (out >= 0) {
      const C v = ring[out & 31];
      acc -= static_cast<double>(v) * v;
    }
    const C s = k + al * static_cast<C>(acc);
    blend_store<T, C>(y, c * ys, ring[c & 31] * neg_pow<C>(s, beta, kind), a);
  }
}

template <class T, class C>
__global__ void __launch_bounds__(256) cross_backward(LrnArgs a) {
  const int64_t t = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int64_t chunks = (a.dims[1] + a.chunk - 1) / a.chunk;
  if (t >= a.positions * chunks) return;
  const int64_t p = t % a.positions, ch = t / a.positions;
  const Offsets off = position_offsets(a, p);
  const T *x = static_cast<const T *>(a.ptr[LrnArgs::kX]) + off.o[LrnArgs::kX];
  const T *dy = static_cast<const T *>(a.ptr[LrnArgs::kDy]) + off.o[LrnArgs::kDy];
  T *dx = static_cast<T *>(a.ptr[LrnArgs::kDx]) + off.o[LrnArgs::kDx];
  const int64_t xs = a.strides[LrnArgs::kX][1], dys = a.strides[LrnArgs::kDy][1], dxs = a.strides[LrnArgs::kDx][1];
  const int64_t C_ = a.dims[1];
  const int64_t c0 = ch * a.chunk, c1 = min(C_, c0 + a.chunk);
  const C k = static_cast<C>(a.k), al = static_cast<C>(a.a), beta = static_cast<C>(a.beta),
          tab = static_cast<C>(a.two_a_beta);
  const int kind = pow_kind(a.beta);
  const int n = a.behind + a.ahead + 1;
  // Lead index j runs from c0 - ahead to c1 - 1 + behind; output c = j - behind.
  // Rings of the last 32 channels' x, dy, S and R: every input element is
  // loaded once, before dx at its channel is written (in place is safe with
  // one chunk per line).
  C ring_x[32], ring_dy[32], ring_s[32];
  double ring_r[32];
  const int64_t j0 = c0 - a.ahead;
  double sq = 0;  // sum of x^2 over [j - behind - 1, j + ahead - 1] before step j
  for (int64_t i = max(int64_t{0}, j0 - a.behind - 1); i < min(C_, j0 + a.ahead); ++i) {
    const C v = static_cast<C>(Io<T>::load(x, i * xs));
    ring_x[i & 31] = v;
    sq += static_cast<double>(v) * v;
  }
  double sum_r = 0;
  for (int64_t j = j0; j < c1 + a.behind; ++j) {
    const int64_t in = j + a.ahead, out = j - a.behind - 1;
    if (in >= 0 && in < C_) {
      const C v = static_cast<C>(Io<T>::load(x, in * xs));
      ring_x[in & 31] = v;
      sq += static_cast<double>(v) * v;
    }
    if (out >= 0 && out < C_) {
      const C v = ring_x[out & 31];
      sq -= static_cast<double>(v) * v;
    }
    const int slot = static_cast<int>((j + 64) & 31);
    double r = 0;
    C s = k;
    if (j >= 0 && j < C_) {
      s = k + al * static_cast<C>(sq);
      const C dyj = static_cast<C>(Io<T>::load(dy, j * dys));
      ring_dy[slot] = dyj;
      // y(j) recomputed from x, as cuDNN does.
      r = static_cast<double>(dyj * ring_x[slot] * neg_pow<C>(s, beta, kind) / s);
    }
    ring_s[slot] = s;
    ring_r[slot] = r;
    sum_r += r;
    if (j - n >= j0) sum_r -= ring_r[(j - n + 64) & 31];
    const int64_t c = j - a.behind;
    if (c >= c0 && c < c1) {
      const int cs = static_cast<int>((c + 64) & 31);
      blend_store<T, C>(dx, c * dxs,
                        ring_dy[cs] * neg_pow<C>(ring_s[cs], beta, kind) - tab * ring_x[cs] * static_cast<C>(sum_r), a);
    }
  }
}

// ---- Divisive: direct window sums over the spatial dims ----

struct Index {
  int64_t i[LrnArgs::kMaxRank];
};

__device__ inline Index decode(const LrnArgs &a, int64_t e) {
  Index r;
  for (int d = a.rank - 1; d >= 0; --d) {
    r.i[d] = e % a.dims[d];
    e /= a.dims[d];
  }
  return r;
}

__device__ inline int64_t offset(const LrnArgs &a, int op, const Index &ix) {
  int64_t o = 0;
  for (int d = 0; d < a.rank; ++d) o += ix.i[d] * a.strides[op][d];
  return o;
}

template <class T>
__device__ inline double load_at(const LrnArgs &a, int op, const Index &ix) {
  return static_cast<double>(Io<T>::load(static_cast<const T *>(a.ptr[op]), offset(a, op, ix)));
}

// Calls f(q) for the q in the window [lo, hi] around ix along dims 2..rank-1.
template <class F>
__device__ inline void for_spatial_window(const LrnArgs &a, const Index &ix, int lo, int hi, F f) {
  const int sd = a.rank - 2;
  int64_t lo_i[3], hi_i[3];
  for (int s = 0; s < 3; ++s) {
    if (s < sd) {
      lo_i[s] = max(int64_t{0}, ix.i[2 + s] + lo);
      hi_i[s] = min(a.dims[2 + s] - 1, ix.i[2 + s] + hi);
    } else {
      lo_i[s] = hi_i[s] = 0;
    }
  }
  Index q = ix;
  for (int64_t i0 = lo_i[0]; i0 <= hi_i[0]; ++i0)
    for (int64_t i1 = lo_i[1]; i1 <= hi_i[1]; ++i1)
      for (int64_t i2 = lo_i[2]; i2 <= hi_i[2]; ++i2) {
        q.i[2] = i0;
        if (sd > 1) q.i[3] = i1;
        if (sd > 2) q.i[4] = i2;
        f(q);
      }
}

__device__ inline int64_t flat_of(const LrnArgs &a, const Index &q) {
  int64_t flat = 0;
  for (int d = 0; d < a.rank; ++d) flat = flat * a.dims[d] + q.i[d];
  return flat;
}

// S(p) = k + a * sum_{q in W(p)} (x(q) - m(p))^2 (graph/op_lrn.hpp).
template <class T, class C>
__device__ inline C s_at(const LrnArgs &a, const Index &ix, C m) {
  C acc = 0;
  for_spatial_window(a, ix, -a.behind, a.ahead, [&](const Index &q) {
    const C d = static_cast<C>(load_at<T>(a, LrnArgs::kX, q)) - m;
    acc += d * d;
  });
  return static_cast<C>(a.k) + static_cast<C>(a.a) * acc;
}

template <class T, class C>
__device__ inline C means_at(const LrnArgs &a, const Index &ix) {
  return a.ptr[LrnArgs::kMeans] != nullptr ? static_cast<C>(load_at<T>(a, LrnArgs::kMeans, ix)) : C(0);
}

template <class T, class C>
__global__ void __launch_bounds__(256) divisive_forward(LrnArgs a) {
  const int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (e >= a.count) return;
  const Index ix = decode(a, e);
  const C s = s_at<T, C>(a, ix, means_at<T, C>(a, ix));
  const C y = static_cast<C>(load_at<T>(a, LrnArgs::kX, ix)) * neg_pow<C>(s, static_cast<C>(a.beta), pow_kind(a.beta));
  blend_store<T, C>(static_cast<T *>(a.ptr[LrnArgs::kY]), offset(a, LrnArgs::kY, ix), y, a);
}

// Pass 1: R(p) = dy(p) x(p) S(p)^(-beta-1) and S(p)^-beta into scratch
// (logical order; [0, count) R, [count, 2 count) S^-beta), and dm(p).
template <class T, class C>
__global__ void __launch_bounds__(256) divisive_backward_r(LrnArgs a) {
  const int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (e >= a.count) return;
  const Index ix = decode(a, e);
  const C m = means_at<T, C>(a, ix);
  const C s = s_at<T, C>(a, ix, m);
  const C x = static_cast<C>(load_at<T>(a, LrnArgs::kX, ix));
  const C dy = static_cast<C>(load_at<T>(a, LrnArgs::kDy, ix));
  const C p = neg_pow<C>(s, static_cast<C>(a.beta), pow_kind(a.beta));
  const C r = dy * x * p / s;
  C *scratch = static_cast<C *>(a.scratch);
  scratch[e] = r;
  scratch[a.count + e] = p;
  if (a.ptr[LrnArgs::kDmeans] != nullptr) {
    C sum = 0;
    for_spatial_window(a, ix, -a.behind, a.ahead,
                       [&](const Index &q) { sum += static_cast<C>(load_at<T>(a, LrnArgs::kX, q)) - m; });
    blend_store<T, C>(static_cast<T *>(a.ptr[LrnArgs::kDmeans]), offset(a, LrnArgs::kDmeans, ix),
                      static_cast<C>(a.two_a_beta) * r * sum, a);
  }
}

// Pass 2: dx(q) = dy(q) S(q)^-beta - 2 a beta sum_{p in W(q)} R(p) (x(q) - m(p)).
template <class T, class C>
__global__ void __launch_bounds__(256) divisive_backward_dx(LrnArgs a) {
  const int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (e >= a.count) return;
  const Index ix = decode(a, e);
  const C *r = static_cast<const C *>(a.scratch);
  const C x = static_cast<C>(load_at<T>(a, LrnArgs::kX, ix));
  C acc = 0;
  for_spatial_window(a, ix, -a.behind, a.ahead,
                     [&](const Index &p) { acc += r[flat_of(a, p)] * (x - means_at<T, C>(a, p)); });
  const C dy = static_cast<C>(load_at<T>(a, LrnArgs::kDy, ix));
  const C dx = dy * r[a.count + e] - static_cast<C>(a.two_a_beta) * acc;
  blend_store<T, C>(static_cast<T *>(a.ptr[LrnArgs::kDx]), offset(a, LrnArgs::kDx, ix), dx, a);
}

// ---- Cross-channel with a compile-time window (BEHIND + 1 + AHEAD) ----
// A thread walks its channel chunk U channels at a time and keeps the
// window's x (and dy) in registers: each step loads the next U channels
// (independent loads, all in flight together) and computes the window sums
// directly (no running sums, so no residue in float). Every element is
// loaded once, before the thread writes anything at its channel: in place
// is safe with one chunk per line, as for the generic kernels.
constexpr int kU = 8;

// Thread t: lane t % 32 of warp w = t / 32; the chunks of one group of 32
// positions are neighbouring warps (their halo channels are read at about
// the same time: cache hits), the 32 lanes neighbouring positions.
__device__ inline bool warp_chunk_position(const LrnArgs &a, int64_t chunks, int64_t &p, int64_t &ch) {
  const int64_t t = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int64_t w = t >> 5;
  ch = w % chunks;
  p = (w / chunks) * 32 + (t & 31);
  return p < a.positions;
}

template <class T, class C, int BEHIND, int AHEAD>
__global__ void __launch_bounds__(256) cross_forward_window(LrnArgs a) {
  const int64_t chunks = (a.dims[1] + a.chunk - 1) / a.chunk;
  int64_t p, ch;
  if (!warp_chunk_position(a, chunks, p, ch)) return;
  const Offsets off = position_offsets(a, p);
  const T *x = static_cast<const T *>(a.ptr[LrnArgs::kX]) + off.o[LrnArgs::kX];
  T *y = static_cast<T *>(a.ptr[LrnArgs::kY]) + off.o[LrnArgs::kY];
  const int64_t xs = a.strides[LrnArgs::kX][1], ys = a.strides[LrnArgs::kY][1];
  const int64_t C_ = a.dims[1];
  const int64_t c0 = ch * a.chunk, c1 = min(C_, c0 + a.chunk);
  const C k = static_cast<C>(a.k), al = static_cast<C>(a.a), beta = static_cast<C>(a.beta);
  const int kind = pow_kind(a.beta);
  constexpr int W = BEHIND + kU + AHEAD;
  C win[W];  // x at channels [c - BEHIND, c + kU + AHEAD)
#pragma unroll
  for (int i = 0; i < W; ++i) {
    const int64_t cc = c0 - BEHIND + i;
    win[i] = cc >= 0 && cc < C_ ? static_cast<C>(Io<T>::load(x, cc * xs)) : C(0);
  }
  for (int64_t c = c0; c < c1; c += kU) {
    C nxt[kU];  // the next step's new channels, loaded before this step's math
#pragma unroll
    for (int u = 0; u < kU; ++u) {
      const int64_t cc = c + kU + AHEAD + u;
      nxt[u] = cc < C_ && c + kU < c1 ? static_cast<C>(Io<T>::load(x, cc * xs)) : C(0);
    }
#pragma unroll
    for (int u = 0; u < kU; ++u) {
      if (c + u >= c1) break;
      C acc = 0;
#pragma unroll
      for (int j = 0; j <= BEHIND + AHEAD; ++j) acc += win[u + j] * win[u + j];
      const C sv = k + al * acc;
      blend_store<T, C>(y, (c + u) * ys, win[u + BEHIND] * neg_pow<C>(sv, beta, kind), a);
    }
#pragma unroll
    for (int i = 0; i < BEHIND + AHEAD; ++i) win[i] = win[i + kU];
#pragma unroll
    for (int u = 0; u < kU; ++u) win[BEHIND + AHEAD + u] = nxt[u];
  }
}

template <class T, class C, int BEHIND, int AHEAD>
__global__ void __launch_bounds__(256, sizeof(C) == 8 ? 1 : 3) cross_backward_window(LrnArgs a) {
  const int64_t chunks = (a.dims[1] + a.chunk - 1) / a.chunk;
  int64_t p, ch;
  if (!warp_chunk_position(a, chunks, p, ch)) return;
  const Offsets off = position_offsets(a, p);
  const T *x = static_cast<const T *>(a.ptr[LrnArgs::kX]) + off.o[LrnArgs::kX];
  const T *dy = static_cast<const T *>(a.ptr[LrnArgs::kDy]) + off.o[LrnArgs::kDy];
  T *dx = static_cast<T *>(a.ptr[LrnArgs::kDx]) + off.o[LrnArgs::kDx];
  const int64_t xs = a.strides[LrnArgs::kX][1], dys = a.strides[LrnArgs::kDy][1], dxs = a.strides[LrnArgs::kDx][1];
  const int64_t C_ = a.dims[1];
  const int64_t c0 = ch * a.chunk, c1 = min(C_, c0 + a.chunk);
  const C k = static_cast<C>(a.k), al = static_cast<C>(a.a), beta = static_cast<C>(a.beta),
          tab = static_cast<C>(a.two_a_beta);
  const int kind = pow_kind(a.beta);
  constexpr int H = BEHIND + AHEAD;
  // dx(c) = dy(c) P(c) - 2 a beta x(c) sum_{j = c - AHEAD}^{c + BEHIND} r(j),
  // r(j) = dy(j) x(j) P(j) / S(j), S(j) = k + a sum_{i = j - BEHIND}^{j + AHEAD} x(i)^2.
  // Windows at step c: x at [c - H, c + kU + H), dy, r and P at
  // j in [c - AHEAD, c + kU + BEHIND). r and P of the first H of those
  // carry over from the previous step (its last H): each is computed once.
  constexpr int WX = kU + 2 * H;
  constexpr int WD = kU + H;
  C xw[WX], dw[WD], r[WD], pw[WD];
#pragma unroll
  for (int i = 0; i < WX; ++i) {
    const int64_t cc = c0 - H + i;
    xw[i] = cc >= 0 && cc < C_ ? static_cast<C>(Io<T>::load(x, cc * xs)) : C(0);
  }
#pragma unroll
  for (int i = 0; i < WD; ++i) {
    const int64_t cc = c0 - AHEAD + i;
    dw[i] = cc >= 0 && cc < C_ ? static_cast<C>(Io<T>::load(dy, cc * dys)) : C(0);
  }
  // r(j), P(j) for window slot i (x index of channel j - BEHIND: i). Out of
  // [0, C), x and dy are 0, so r is 0.
  auto r_at = [&](int i) {
    C acc = 0;
#pragma unroll
    for (int q = 0; q <= H; ++q) acc += xw[i + q] * xw[i + q];
    C pos;
    neg_pow_pair<C>(k + al * acc, beta, kind, pw[i], pos);
    r[i] = dw[i] * xw[i + BEHIND] * pos;
  };
#pragma unroll
  for (int i = 0; i < H; ++i) r_at(i);
  for (int64_t c = c0; c < c1; c += kU) {
    C nx[kU], nd[kU];
    const bool more = c + kU < c1;
#pragma unroll
    for (int u = 0; u < kU; ++u) {
      const int64_t cx = c + kU + H + u, cd = c + kU + BEHIND + u;
      nx[u] = more && cx < C_ ? static_cast<C>(Io<T>::load(x, cx * xs)) : C(0);
      nd[u] = more && cd < C_ ? static_cast<C>(Io<T>::load(dy, cd * dys)) : C(0);
    }
#pragma unroll
    for (int i = H; i < WD; ++i) r_at(i);
#pragma unroll
    for (int u = 0; u < kU; ++u) {
      if (c + u >= c1) break;
      C sr = 0;
#pragma unroll
      for (int q = 0; q <= H; ++q) sr += r[u + q];
      // channel c + u: dy and P index u + AHEAD, x index u + H
      blend_store<T, C>(dx, (c + u) * dxs, dw[u + AHEAD] * pw[u + AHEAD] - tab * xw[u + H] * sr, a);
    }
#pragma unroll
    for (int i = 0; i < H; ++i) {
      r[i] = r[i + kU];
      pw[i] = pw[i + kU];
    }
#pragma unroll
    for (int i = 0; i < 2 * H; ++i) xw[i] = xw[i + kU];
#pragma unroll
    for (int u = 0; u < kU; ++u) xw[2 * H + u] = nx[u];
#pragma unroll
    for (int i = 0; i < H; ++i) dw[i] = dw[i + kU];
#pragma unroll
    for (int u = 0; u < kU; ++u) dw[H + u] = nd[u];
  }
}

// ---- Cross-channel with contiguous channels (NHWC-like) ----
// Every operand has channel stride 1: a warp takes one position's row of
// channels, loads it into shared memory with coalesced loads (zero padding
// around it stands for the channels outside [0, C)), then lane l computes
// channels l, l + 32, ... from the window in shared memory (consecutive
// lanes, consecutive words: no bank conflicts) and stores them coalesced.
// The whole row is read before any of it is written: in place is safe.

// Shared-memory row geometry: [front pad | C channels | back pad], pads zero
// and at least max(behind, ahead) long (backward's window of r runs from
// c - ahead to c + behind).
__host__ __device__ inline int lrn_row_pad(const LrnArgs &a) { return a.behind > a.ahead ? a.behind : a.ahead; }
__host__ __device__ inline int lrn_row_front(const LrnArgs &a) { return (lrn_row_pad(a) + 3) / 4 * 4; }
__host__ __device__ inline int lrn_row_len(const LrnArgs &a) {
  return lrn_row_front(a) + static_cast<int>((a.dims[1] + lrn_row_pad(a) + 3) / 4 * 4);
}

// Channels [0, channels) of one row into dst[0, channels) (shared memory).
// VEC: 16-byte loads (channels a multiple of 16 / sizeof(T), src 16-byte
// aligned), all of a lane's issued before the first use.
template <class T>
struct alignas(16) Row16 {
  T v[16 / sizeof(T)];
};
template <bool VEC, class T, class C>
__device__ inline void load_channels(const T *src, C *dst, int channels, int lane) {
  if constexpr (VEC) {
    constexpr int E = 16 / sizeof(T);
    const int nv = channels / E;
#pragma unroll 4
    for (int v = lane; v < nv; v += 32) {
      const Row16<T> p = reinterpret_cast<const Row16<T> *>(src)[v];
      if constexpr (std::is_same_v<C, float> && E % 4 == 0) {
#pragma unroll
        for (int l = 0; l < E; l += 4)
          *reinterpret_cast<float4 *>(dst + v * E + l) =
              make_float4(to_compute<T, C>(p.v[l]), to_compute<T, C>(p.v[l + 1]), to_compute<T, C>(p.v[l + 2]),
                          to_compute<T, C>(p.v[l + 3]));
      } else {
#pragma unroll
        for (int l = 0; l < E; ++l) dst[v * E + l] = to_compute<T, C>(p.v[l]);
      }
    }
  } else {
#pragma unroll 4
    for (int c = lane; c < channels; c += 32) dst[c] = static_cast<C>(Io<T>::load(src, c));
  }
}

// A warp per position: the grid covers the positions (a warp-stride loop
// all the same). A variant that prefetched the next position's row into
// registers (a grid of one wave walking the positions) measured slower on
// the H100: 0.56 / 0.55 of copy against 0.68 / 0.77 (NHWC 32x256x56x56 f32).
template <bool VEC, class T, class C>
__global__ void cross_rows_forward(LrnArgs a) {
  extern __shared__ __align__(16) unsigned char lrn_rows_shared[];
  const int warps = blockDim.x >> 5, warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const uint32_t step = gridDim.x * static_cast<uint32_t>(warps);
  uint32_t p = blockIdx.x * warps + warp;
  if (p >= static_cast<uint64_t>(a.positions)) return;
  const int front = lrn_row_front(a), len = lrn_row_len(a), channels = static_cast<int>(a.dims[1]);
  C *row = reinterpret_cast<C *>(lrn_rows_shared) + warp * len;
  for (int i = lane; i < front; i += 32) row[i] = C(0);
  for (int i = front + channels + lane; i < len; i += 32) row[i] = C(0);
  const T *x = static_cast<const T *>(a.ptr[LrnArgs::kX]);
  const C k = static_cast<C>(a.k), al = static_cast<C>(a.a), beta = static_cast<C>(a.beta);
  const int kind = pow_kind(a.beta), n = a.behind + a.ahead + 1;
  for (; p < static_cast<uint64_t>(a.positions); p += step) {
    const Offsets off = position_offsets<uint32_t>(a, p);
    load_channels<VEC, T, C>(x + off.o[LrnArgs::kX], row + front, channels, lane);
    __syncwarp();
    T *y = static_cast<T *>(a.ptr[LrnArgs::kY]) + off.o[LrnArgs::kY];
#pragma unroll 2
    for (int c = lane; c < channels; c += 32) {
      const C *w = row + front + c - a.behind;
      C acc = 0;
      for (int j = 0; j < n; ++j) acc += w[j] * w[j];
      blend_store<T, C>(y, c, row[front + c] * neg_pow<C>(k + al * acc, beta, kind), a);
    }
    __syncwarp();  // the row is rewritten next step
  }
}

template <bool VEC, class T, class C>
__global__ void cross_rows_backward(LrnArgs a) {
  extern __shared__ __align__(16) unsigned char lrn_rows_shared[];
  const int warps = blockDim.x >> 5, warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const uint32_t step = gridDim.x * static_cast<uint32_t>(warps);
  uint32_t p = blockIdx.x * warps + warp;
  if (p >= static_cast<uint64_t>(a.positions)) return;
  const int front = lrn_row_front(a), len = lrn_row_len(a), channels = static_cast<int>(a.dims[1]);
  // Per warp: x row, r row (both padded), dy then dy * S^-beta (channels only).
  C *xr = reinterpret_cast<C *>(lrn_rows_shared) + warp * (2 * len + channels);
  C *rr = xr + len;
  C *q = rr + len;
  for (int i = lane; i < front; i += 32) xr[i] = rr[i] = C(0);
  for (int i = front + channels + lane; i < len; i += 32) xr[i] = rr[i] = C(0);
  const T *x = static_cast<const T *>(a.ptr[LrnArgs::kX]);
  const T *dy = static_cast<const T *>(a.ptr[LrnArgs::kDy]);
  const C k = static_cast<C>(a.k), al = static_cast<C>(a.a), beta = static_cast<C>(a.beta),
          tab = static_cast<C>(a.two_a_beta);
  const int kind = pow_kind(a.beta), n = a.behind + a.ahead + 1;
  for (; p < static_cast<uint64_t>(a.positions); p += step) {
    const Offsets off = position_offsets<uint32_t>(a, p);
    // x and dy of a position are read before its dx is written: in place is safe.
    load_channels<VEC, T, C>(x + off.o[LrnArgs::kX], xr + front, channels, lane);
    load_channels<VEC, T, C>(dy + off.o[LrnArgs::kDy], q, channels, lane);
    T *dx = static_cast<T *>(a.ptr[LrnArgs::kDx]) + off.o[LrnArgs::kDx];
    __syncwarp();  // the x and dy rows are complete
#pragma unroll 2
    for (int c = lane; c < channels; c += 32) {
      const C *w = xr + front + c - a.behind;
      C acc = 0;
      for (int j = 0; j < n; ++j) acc += w[j] * w[j];
      C pw, pos;
      neg_pow_pair<C>(k + al * acc, beta, kind, pw, pos);
      const C dyv = q[c];
      rr[front + c] = dyv * xr[front + c] * pos;
      q[c] = dyv * pw;
    }
    __syncwarp();
#pragma unroll 2
    for (int c = lane; c < channels; c += 32) {
      const C *w = rr + front + c - a.ahead;
      C sr = 0;
      for (int j = 0; j < n; ++j) sr += w[j];
      blend_store<T, C>(dx, c, q[c] - tab * xr[front + c] * sr, a);
    }
    __syncwarp();  // the rows are rewritten next step
  }
}

// Launches the row kernels when every operand's channels are contiguous and
// the rows fit in shared memory (true), else nothing.
template <class T, class C>
bool launch_cross_rows(const LrnArgs &a, cudaStream_t s) {
  const int ops[3] = {LrnArgs::kX, a.backward ? LrnArgs::kDy : LrnArgs::kY, a.backward ? LrnArgs::kDx : LrnArgs::kY};
  for (int op : ops)
    if (a.strides[op][1] != 1) return false;
  if (a.dims[1] < 32 || a.positions >= (int64_t{1} << 31) || a.behind > 64 || a.ahead > 64) return false;
  for (int d = 0; d < a.rank; ++d)
    if (a.dims[d] >= (int64_t{1} << 31)) return false;
  const size_t per_warp = sizeof(C) * static_cast<size_t>(a.backward ? 2 * lrn_row_len(a) + a.dims[1] : lrn_row_len(a));
  const size_t budget = 48 * 1024;
  const int warps = static_cast<int>(std::min<size_t>(8, budget / per_warp));
  if (warps < 1) return false;
  const unsigned blocks = static_cast<unsigned>((a.positions + warps - 1) / warps);
  const size_t smem = per_warp * static_cast<size_t>(warps);
  // 16-byte loads when the rows' starts are 16-byte aligned.
  constexpr int E = static_cast<int>(16 / sizeof(T));
  bool vec = a.dims[1] % E == 0;
  for (int op : ops) {
    if (!aligned_to(a.ptr[op], 16)) vec = false;
    for (int d = 0; d < a.rank; ++d)
      if (d != 1 && a.strides[op][d] % E != 0 && a.dims[d] > 1) vec = false;
  }
  // Per warp rows of a multiple of 4 compute values: 16-byte aligned rows.
  if (vec && a.backward) cross_rows_backward<true, T, C><<<blocks, warps * 32, smem, s>>>(a);
  else if (vec) cross_rows_forward<true, T, C><<<blocks, warps * 32, smem, s>>>(a);
  else if (a.backward) cross_rows_backward<false, T, C><<<blocks, warps * 32, smem, s>>>(a);
  else cross_rows_forward<false, T, C><<<blocks, warps * 32, smem, s>>>(a);
  check_launch(a.backward ? "lrn cross_rows_backward" : "lrn cross_rows_forward");
  return true;
}

// ---- Cross-channel with contiguous channels, rows in registers ----
// G lanes per row (G = 8, 16 or 32), 32 / G rows per warp, R such sets of
// rows per step: lane g of a group holds the row's 16-byte vectors g, g + G,
// ..., g + (NV - 1) G (a group's loads are coalesced), and every load of a
// step is issued before the first use. The window's neighbours come from the
// neighbouring lanes by shuffles: the left neighbour of vector g + G k is
// lane g - 1's vector k, or lane G - 1's vector k - 1 for g = 0 (the right
// one likewise), and the vectors at or past the row's end hold zeros: the
// channels outside [0, C). Windows reach at most one vector to each side
// (BEHIND, AHEAD <= VEC). No shared memory and no barriers: a measured
// 0.65 / 0.66 of copy for the shared-memory row kernels above (NHWC f32
// 32x256x56x56, forward / backward) came from each warp's single 1 KB row
// being all the memory traffic it had in flight. A row is read whole before
// any of it is written: in place is safe.

// out[k][i] = sum of v over the channels (k, i) - LB .. (k, i) + RA of the row.
template <int G, int NV, int VEC, int LB, int RA>
__device__ inline void window_sums(const float (&v)[NV][VEC], float (&out)[NV][VEC], int g) {
#pragma unroll
  for (int k = 0; k < NV; ++k) {
    float left[LB > 0 ? LB : 1], right[RA > 0 ? RA : 1];
#pragma unroll
    for (int j = 0; j < LB; ++j) {  // element VEC - LB + j of the left neighbour
      const float up = __shfl_up_sync(0xffffffffu, v[k][VEC - LB + j], 1, G);
      float wrap = 0.0f;
      if (k > 0) wrap = __shfl_sync(0xffffffffu, v[k - 1][VEC - LB + j], G - 1, G);
      left[j] = g == 0 ? wrap : up;
    }
#pragma unroll
    for (int j = 0; j < RA; ++j) {  // element j of the right neighbour
      const float down = __shfl_down_sync(0xffffffffu, v[k][j], 1, G);
      float wrap = 0.0f;
      if (k + 1 < NV) wrap = __shfl_sync(0xffffffffu, v[k + 1][j], 0, G);
      right[j] = g == G - 1 ? wrap : down;
    }
#pragma unroll
    for (int i = 0; i < VEC; ++i) {
      float acc = 0.0f;
#pragma unroll
      for (int d = -LB; d <= RA; ++d) {
        const int e = i + d;
        acc += e < 0 ? left[LB + e] : e >= VEC ? right[e - VEC] : v[k][e];
      }
      out[k][i] = acc;
    }
  }
}

// A warp issues the next step's loads before the current step's math: on a
// persistent grid (one wave; the default for 16-bit data) a load is then in
// flight while the warp computes and stores. With a grid covering every row
// once (float data; FREEDNN_LRN_TUNE=nopf for all) a warp has one step: it
// waits for its rows, computes, stores and exits. H100, NHWC 32x256x56x56
// n = 5, GB/s fwd / bwd, persistent against one step per warp, two runs:
// f16 1745 / 2742 and 1728 / 2685 against 1703 / 2507; f32 2337 / 3607 and
// 2349 / 3596 against 2657 / 3651 (f32 rows of 64 vectors hold twice the
// bytes per warp; fewer, longer-lived warps lost there).
// Tried: loads two steps ahead for 16-bit rows of at most 32 vectors (53
// registers, 4 blocks per multiprocessor): NHWC f16 32x256x56x56 0.71 / 1.01
// of copy forward / backward against 0.79 / 1.15 one step ahead.
template <class T, int G, int NV, int R, int BEHIND, int AHEAD, bool BWD>
__global__ void __launch_bounds__(256) cross_regs_kernel(LrnArgs a) {
  constexpr int VEC = 16 / sizeof(T);
  constexpr int kGroups = 32 / G;  // rows of a warp at once
  using P = Row16<T>;
  const int lane = threadIdx.x & 31, g = lane % G, sub = lane / G;
  const int warps = blockDim.x >> 5;
  const uint32_t positions = static_cast<uint32_t>(a.positions);
  const int nvec = static_cast<int>(a.dims[1]) / VEC;
  const float k = a.kf, al = a.af, beta = a.betaf, tab = a.two_a_beta_f, blend_alpha = a.blend_alpha_f,
              blend_beta = a.blend_beta_f;
  const int kind = a.kind;
  const int out_op = BWD ? LrnArgs::kDx : LrnArgs::kY;
  const uint64_t step = static_cast<uint64_t>(gridDim.x) * warps * kGroups * R;
  // The rows of the step at `base`: x (and dy) vectors, output offsets.
  struct Rows {
    P px[R][NV], pd[BWD ? R : 1][NV];
    int64_t out_off[R];
    bool row_ok[R];
  };
  auto load_rows = [&](uint64_t base, Rows &s) {
#pragma unroll
    for (int r = 0; r < R; ++r) {
      const uint64_t p = base + static_cast<uint64_t>(r) * kGroups + sub;
      s.row_ok[r] = p < positions;
      const uint32_t pp = s.row_ok[r] ? static_cast<uint32_t>(p) : 0u;
      // Evenly spaced rows: a multiply per operand instead of a 32-bit
      // division per dim (about 35 instructions each, every row; as much
      // as a 16-bit row's arithmetic).
      Offsets off;
      if (a.linear_rows) {
        off.o[LrnArgs::kX] = static_cast<int64_t>(pp) * a.row_stride[LrnArgs::kX];
        off.o[LrnArgs::kDy] = static_cast<int64_t>(pp) * a.row_stride[LrnArgs::kDy];
        off.o[out_op] = static_cast<int64_t>(pp) * a.row_stride[out_op];
      } else {
        off = position_offsets<uint32_t>(a, pp);
      }
      s.out_off[r] = off.o[out_op];
      const P *xp = reinterpret_cast<const P *>(static_cast<const T *>(a.ptr[LrnArgs::kX]) + off.o[LrnArgs::kX]);
      const P *dp = BWD ? reinterpret_cast<const P *>(static_cast<const T *>(a.ptr[LrnArgs::kDy]) + off.o[LrnArgs::kDy])
                        : nullptr;
#pragma unroll
      for (int kk = 0; kk < NV; ++kk)
        if (s.row_ok[r] && g + G * kk < nvec) {
          s.px[r][kk] = xp[g + G * kk];
          if constexpr (BWD) s.pd[r][kk] = dp[g + G * kk];
        }
    }
  };
  uint64_t base = (static_cast<uint64_t>(blockIdx.x) * warps + (threadIdx.x >> 5)) * kGroups * R;
  Rows cur;
  if (base < positions) load_rows(base, cur);
  for (; base < positions; base += step) {
    Rows next;
    if (base + step < positions) load_rows(base + step, next);
    // Every load of the step (and the next step's) is issued above, before the first use below.
    float x[R][NV][VEC], dy[BWD ? R : 1][NV][VEC];
#pragma unroll
    for (int r = 0; r < R; ++r)
#pragma unroll
      for (int kk = 0; kk < NV; ++kk) {
        const bool ok = cur.row_ok[r] && g + G * kk < nvec;
#pragma unroll
        for (int i = 0; i < VEC; ++i) {
          x[r][kk][i] = ok ? to_compute<T, float>(cur.px[r][kk].v[i]) : 0.0f;
          if constexpr (BWD) dy[r][kk][i] = ok ? to_compute<T, float>(cur.pd[r][kk].v[i]) : 0.0f;
        }
      }
#pragma unroll
    for (int r = 0; r < R; ++r) {
      float w[NV][VEC], res[NV][VEC];
#pragma unroll
      for (int kk = 0; kk < NV; ++kk)
#pragma unroll
        for (int i = 0; i < VEC; ++i) w[kk][i] = x[r][kk][i] * x[r][kk][i];
      window_sums<G, NV, VEC, BEHIND, AHEAD>(w, res, g);  // res: sums of squares
      // The powers of a row's vector at once (neg_pow_all: one branch on kind).
      if constexpr (!BWD) {
#pragma unroll
        for (int kk = 0; kk < NV; ++kk) {
#pragma unroll
          for (int i = 0; i < VEC; ++i) res[kk][i] = k + al * res[kk][i];
          neg_pow_all<VEC>(res[kk], beta, kind);
#pragma unroll
          for (int i = 0; i < VEC; ++i) res[kk][i] = x[r][kk][i] * res[kk][i];
        }
      } else {
        // dx(c) = dy(c) P(c) - 2 a beta x(c) sum_{j = c - AHEAD}^{c + BEHIND} dy(j) x(j) P(j) / S(j).
#pragma unroll
        for (int kk = 0; kk < NV; ++kk) {
          const bool ok = g + G * kk < nvec;
          float pw[VEC];
#pragma unroll
          for (int i = 0; i < VEC; ++i) res[kk][i] = k + al * res[kk][i];
          neg_pow_pair_all<VEC>(res[kk], pw, beta, kind);  // res: S^(-beta-1)
#pragma unroll
          for (int i = 0; i < VEC; ++i) {
            w[kk][i] = ok ? dy[r][kk][i] * x[r][kk][i] * res[kk][i] : 0.0f;
            dy[r][kk][i] *= pw[i];
          }
        }
        window_sums<G, NV, VEC, AHEAD, BEHIND>(w, res, g);
#pragma unroll
        for (int kk = 0; kk < NV; ++kk)
#pragma unroll
          for (int i = 0; i < VEC; ++i) res[kk][i] = dy[r][kk][i] - tab * x[r][kk][i] * res[kk][i];
      }
      if (!cur.row_ok[r]) continue;
      P *op = reinterpret_cast<P *>(static_cast<T *>(a.ptr[out_op]) + cur.out_off[r]);
#pragma unroll
      for (int kk = 0; kk < NV; ++kk) {
        if (g + G * kk >= nvec) continue;
        P prior, o;
        if (blend_beta != 0.0f) prior = op[g + G * kk];
        // alpha = 1, beta = 0 (the usual call) skips the blend's multiplies:
        // a branch around the loop, as predicated multiplies still cost
        // their issue slots (8 of a 16-bit lane's ~150 per row).
        if (blend_alpha != 1.0f || blend_beta != 0.0f) {
#pragma unroll
          for (int i = 0; i < VEC; ++i) {
            res[kk][i] *= blend_alpha;
            if (blend_beta != 0.0f) res[kk][i] += blend_beta * to_compute<T, float>(prior.v[i]);
          }
        }
#pragma unroll
        for (int i = 0; i < VEC; ++i) {
          const float v = res[kk][i];
          if constexpr (std::is_same_v<T, __half>) o.v[i] = __float2half_rn(v);
          else if constexpr (std::is_same_v<T, __nv_bfloat16>) o.v[i] = __float2bfloat16_rn(v);
          else o.v[i] = v;
        }
        op[g + G * kk] = o;
      }
    }
    cur = next;
  }
}

// FREEDNN_LRN_TUNE (lrn_args.hpp): "old" (the shared-memory row kernels
// instead of the register ones), "r2" (two sets of rows per warp and step
// instead of one for rows of 17..64 vectors). H100, NHWC 32x256x56x56 n = 5,
// GB/s fwd / bwd (bench_lrn.c's bytes; copy 2700): old 1884 / 1912, r2 2559
// / 3173, one set 2596 / 3413 for f32; f16 956 / 1059, 1666 / 1895, 1678 /
// 2462 (all with a grid covering every row once). More warps in flight (40
// registers per thread against 61 for f32 forward) beat more rows per warp.
template <class T, int G, int NV, int R, int BEHIND, int AHEAD, bool BWD>
void launch_cross_regs_kernel(const LrnArgs &a, cudaStream_t s) {
  constexpr int kThreads = 256, kRowsPerBlock = kThreads / G * R;
  const int64_t blocks = (a.positions + kRowsPerBlock - 1) / kRowsPerBlock;
  int64_t grid = std::min<int64_t>(blocks, int64_t{1} << 30);
  if (sizeof(T) == 2 && !lrn_tune().nopf && !lrn_tune().old16) {
    // Persistent: as many blocks as fit on the device at once.
    static const int per_sm = [] {
      int n = 0;
      if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, cross_regs_kernel<T, G, NV, R, BEHIND, AHEAD, BWD>,
                                                        kThreads, 0) != cudaSuccess)
        (void)cudaGetLastError();
      return std::max(n, 1);
    }();
    grid = std::min<int64_t>(grid, int64_t{per_sm} * sm_count());
  }
  cross_regs_kernel<T, G, NV, R, BEHIND, AHEAD, BWD><<<static_cast<unsigned>(grid), kThreads, 0, s>>>(a);
  check_launch(BWD ? "lrn cross_regs_kernel backward" : "lrn cross_regs_kernel forward");
}

template <class T, int G, int NV, int R, int BEHIND, int AHEAD>
void launch_cross_regs_config(const LrnArgs &a, cudaStream_t s) {
  if (a.backward) launch_cross_regs_kernel<T, G, NV, R, BEHIND, AHEAD, true>(a, s);
  else launch_cross_regs_kernel<T, G, NV, R, BEHIND, AHEAD, false>(a, s);
}

template <class T, int BEHIND, int AHEAD>
bool launch_cross_regs_window(const LrnArgs &a, int nvec, cudaStream_t s) {
  const bool r2 = lrn_tune().r2;
  if (nvec <= 8) launch_cross_regs_config<T, 8, 1, 2, BEHIND, AHEAD>(a, s);
  else if (nvec <= 16) launch_cross_regs_config<T, 16, 1, 2, BEHIND, AHEAD>(a, s);
  else if (nvec <= 32 && r2) launch_cross_regs_config<T, 32, 1, 2, BEHIND, AHEAD>(a, s);
  else if (nvec <= 32) launch_cross_regs_config<T, 32, 1, 1, BEHIND, AHEAD>(a, s);
  else if (nvec <= 64 && r2) launch_cross_regs_config<T, 32, 2, 2, BEHIND, AHEAD>(a, s);
  else if (nvec <= 64) launch_cross_regs_config<T, 32, 2, 1, BEHIND, AHEAD>(a, s);
  else if (nvec <= 128) launch_cross_regs_config<T, 32, 4, 1, BEHIND, AHEAD>(a, s);
  else return false;
  return true;
}

// The register row kernels when every operand's channels are contiguous,
// 16-byte aligned rows of at most 128 vectors, n = 3 or 5 (true); else nothing.
template <class T, class C>
bool launch_cross_regs(const LrnArgs &a, cudaStream_t s) {
  if constexpr (!std::is_same_v<C, float>) {
    return false;
  } else {
    if (lrn_tune().old) return false;
    constexpr int E = static_cast<int>(16 / sizeof(T));
    const int ops[3] = {LrnArgs::kX, a.backward ? LrnArgs::kDy : LrnArgs::kY,
                        a.backward ? LrnArgs::kDx : LrnArgs::kY};
    if (a.dims[1] % E != 0 || a.dims[1] > 128 * E || a.positions >= (int64_t{1} << 31)) return false;
    for (int d = 0; d < a.rank; ++d)
      if (a.dims[d] >= (int64_t{1} << 31)) return false;
    for (int op : ops) {
      if (a.strides[op][1] != 1 || !aligned_to(a.ptr[op], 16)) return false;
      for (int d = 0; d < a.rank; ++d)
        if (d != 1 && a.strides[op][d] % E != 0 && a.dims[d] > 1) return false;
    }
    const int nvec = static_cast<int>(a.dims[1] / E);
    // Rows evenly spaced in every operand: each non-channel dim's stride is
    // the innermost one's times the extents inside it.
    LrnArgs b = a;
    b.linear_rows = !lrn_tune().divrows;
    for (int op : ops) {
      int64_t row = 0, inner = 1;
      bool first = true;
      for (int d = a.rank - 1; d >= 0; --d) {
        if (d == 1 || a.dims[d] == 1) continue;
        if (first) row = a.strides[op][d], first = false;
        if (a.strides[op][d] != row * inner) b.linear_rows = false;
        inner *= a.dims[d];
      }
      b.row_stride[op] = row;
    }
    if (a.behind == 2 && a.ahead == 2) return launch_cross_regs_window<T, 2, 2>(b, nvec, s);
    if (a.behind == 1 && a.ahead == 1) return launch_cross_regs_window<T, 1, 1>(b, nvec, s);
    return false;
  }
}

template <class T, class C>
void launch_typed(const LrnArgs &a, cudaStream_t s) {
  constexpr int kThreads = 256;
  if (a.cross) {
    if (launch_cross_regs<T, C>(a, s)) return;
    if (launch_lrn_planes(a, s)) return;
    if (launch_cross_rows<T, C>(a, s)) return;
    const int64_t chunks = (a.dims[1] + a.chunk - 1) / a.chunk;
    const bool window = (a.behind == 2 && a.ahead == 2) || (a.behind == 1 && a.ahead == 1);
    // The window kernels take whole warps of positions per chunk.
    const int64_t threads = window ? (a.positions + 31) / 32 * 32 * chunks : a.positions * chunks;
    const unsigned blocks = static_cast<unsigned>((threads + kThreads - 1) / kThreads);
    if (a.behind == 2 && a.ahead == 2) {  // n = 5, the default
      if (a.backward) cross_backward_window<T, C, 2, 2><<<blocks, kThreads, 0, s>>>(a);
      else cross_forward_window<T, C, 2, 2><<<blocks, kThreads, 0, s>>>(a);
    } else if (a.behind == 1 && a.ahead == 1) {
      if (a.backward) cross_backward_window<T, C, 1, 1><<<blocks, kThreads, 0, s>>>(a);
      else cross_forward_window<T, C, 1, 1><<<blocks, kThreads, 0, s>>>(a);
    } else if (a.backward) {
      cross_backward<T, C><<<blocks, kThreads, 0, s>>>(a);
    } else {
      cross_forward<T, C><<<blocks, kThreads, 0, s>>>(a);
    }
    check_launch(a.backward ? "lrn cross_backward" : "lrn cross_forward");
    return;
  }
  const unsigned blocks = static_cast<unsigned>((a.count + kThreads - 1) / kThreads);
  if (!a.backward) {
    divisive_forward<T, C><<<blocks, kThreads, 0, s>>>(a);
    check_launch("lrn divisive_forward");
    return;
  }
  divisive_backward_r<T, C><<<blocks, kThreads, 0, s>>>(a);
  check_launch("lrn divisive_backward_r");
  divisive_backward_dx<T, C><<<blocks, kThreads, 0, s>>>(a);
  check_launch("lrn divisive_backward_dx");
}

}  // namespace

const LrnTune &lrn_tune() {
  static const LrnTune t = [] {
    LrnTune r;
    const auto has = [](const char *word) { return env_has_word("FREEDNN_LRN_TUNE", word); };
    r.old = has("old");
    r.r2 = has("r2");
    r.old16 = has("old16");
    r.old32 = has("old32");
    r.nopf = has("nopf");
    r.v8 = has("v8");
    r.noftz = has("noftz");
    r.divrows = has("divrows");
    r.noalt = has("noalt");
    r.lb8 = has("lb8");
    r.pf12 = has("pf12");
    for (int c : {16, 32, 64})
      if (has(("c" + std::to_string(c)).c_str())) r.chunk = c;
    return r;
  }();
  return t;
}

size_t lrn_scratch_bytes(const LrnArgs &a) {
  if (a.cross || !a.backward) return 0;
  return 2 * static_cast<size_t>(a.count) * (a.compute_double ? sizeof(double) : sizeof(float));
}

void launch_lrn(const LrnArgs &args, void *stream) {
  cudaStream_t s = as_stream(stream);
  LrnArgs a = args;
  a.kf = static_cast<float>(a.k);
  a.af = static_cast<float>(a.a);
  a.betaf = static_cast<float>(a.beta);
  a.two_a_beta_f = static_cast<float>(a.two_a_beta);
  a.blend_alpha_f = static_cast<float>(a.blend_alpha);
  a.blend_beta_f = static_cast<float>(a.blend_beta);
  a.kind = lrn_tune().noftz ? -pow_kind(a.beta) : pow_kind(a.beta);
  switch (a.dtype) {
    case CUDNN_DATA_FLOAT: launch_typed<float, float>(a, s); break;
    case CUDNN_DATA_DOUBLE: launch_typed<double, double>(a, s); break;
    case CUDNN_DATA_HALF: launch_typed<__half, float>(a, s); break;
    case CUDNN_DATA_BFLOAT16: launch_typed<__nv_bfloat16, float>(a, s); break;
    default: fail(CUDNN_STATUS_NOT_SUPPORTED, "cuda.lrn: unsupported data type");
  }
}

}  // namespace fdnn::cuda
