// Kernels of cuda.normalization. Three launches per pass, all deterministic
// (fixed partition of every reduction, combined in a fixed order):
//   partial:  each block folds one part of the reduced range of one set
//             (rows: the innermost dim is reduced, threads walk it) or of 32
//             neighbouring sets (cols: the innermost dim is kept, threads of
//             a warp take neighbouring sets): Welford (count, mean, M2) for
//             the statistics, or sum(g) and sum(g * (x - mean)) for backward;
//   finalize: one thread per set combines the parts in order, writes the
//             saved / running statistics or the parameter gradients, and
//             turns everything into per-set coefficients;
//   apply:    the same walk as partial, writing y = act(a*x + b (+ z)) and
//             the mask, or dx = A*g + B*x + C and dz = g.
// run_fast tries the one-launch forms first, each in its own file: the
// inference form (normalization_infer.cu), the grid form (_grid.cu), the
// persistent form (_persistent.cu), the resident cluster form
// (_cluster.cu), then this file's cluster kernels and the three launches.
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <mutex>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/normalization_support.hpp"
#include "cuda/cuda_util.hpp"
#include "cuda/element_access.cuh"
#include "cuda/launch_dependent.cuh"
#include "cuda/normalization_args.hpp"
#include "cuda/normalization_device.cuh"
#include "cuda/storage_types.cuh"

namespace fdnn::cuda {
namespace {

using namespace normdev;

constexpr int kBX = 32, kBY = 8;  // block shape

// Programmatic dependent launch (sm_90; NormArgs::pdl): a kernel launched
// with the attribute may start while its predecessor in the stream drains;
// pdl_wait() returns once the predecessor has completed and its writes are
// visible (at once when launched without it), pdl_trigger() lets the
// successor launch early. Both are no-ops before sm_90.
__device__ inline void pdl_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}
__device__ inline void pdl_trigger() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" :::);
#endif
}

template <class C>
struct Ws {
  C *part, *mean, *inv, *ca, *cb, *cc;
};

// Value w (0..2) of part `s` of set k: parts are stored value-major, sets
// innermost, so that blocks of neighbouring sets write neighbouring words.
template <class C>
__device__ inline C &part_at(const NormArgs &a, const Ws<C> &ws, int64_t k, int64_t s, int w) {
  return ws.part[(s * 3 + w) * a.groups + k];
}

// Bytes of the partial sums and coefficients of the three-launch forms
// (256-byte multiple: the persistent form's area follows).
size_t base_workspace_bytes(const NormArgs &a) {
  const size_t c = a.compute_double ? sizeof(double) : sizeof(float);
  return (c * static_cast<size_t>(a.groups * a.splits * 3 + 5 * a.groups) + 255) / 256 * 256;
}

template <class C>
Ws<C> carve(const NormArgs &a, void *base) {
  C *p = static_cast<C *>(base);
  const int64_t k = a.groups, parts = a.groups * a.splits * 3;
  return {p, p + parts, p + parts + k, p + parts + 2 * k, p + parts + 3 * k, p + parts + 4 * k};
}

__device__ inline int64_t kept_offset(const NormArgs &a, int op, uint32_t k) {
  int64_t off = 0;
  for (int d = a.kept_rank - 1; d >= 0; --d) {
    uint32_t rem;
    k = a.kept_div[d].divmod(k, rem);
    off += static_cast<int64_t>(rem) * a.kept_stride[op][d];
  }
  return off;
}

// Offsets of reduced element r for the operands in `ops` (up to 4).
template <int N>
__device__ inline void red_offsets(const NormArgs &a, const int (&ops)[N], uint32_t r, int64_t (&off)[N]) {
  for (int j = 0; j < N; ++j) off[j] = 0;
  for (int d = a.red_rank - 1; d >= 0; --d) {
    uint32_t rem;
    r = a.red_div[d].divmod(r, rem);
    for (int j = 0; j < N; ++j) off[j] += static_cast<int64_t>(rem) * a.red_stride[ops[j]][d];
  }
}

template <class S, class C>
__device__ inline C ld(const void *p, int64_t o) {
  return Storage<S>::template load<C>(static_cast<const S *>(p)[o]);
}
template <class S, class C>
__device__ inline void st(void *p, int64_t o, C v) {
  static_cast<S *>(p)[o] = Storage<S>::store(v);
}

// The generic kernels' access to data operand j: typed, or (S = DynType, the
// mixed-type problems: NormArgs::dyn) through the operand's run-time type.
struct DynType {};
template <class S, class C>
__device__ inline C ldd(const NormArgs &a, int j, int64_t o) {
  if constexpr (std::is_same_v<S, DynType>) return load_element<C>(a.data[j], a.types[j], o);
  else return ld<S, C>(a.data[j], o);
}
template <class S, class C>
__device__ inline void std_(const NormArgs &a, int j, int64_t o, C v) {
  if constexpr (std::is_same_v<S, DynType>) store_element<C>(a.data[j], a.types[j], o, v);
  else st<S, C>(a.data[j], o, v);
}

// The (set, reduced range, thread step) a thread walks.
struct Walk {
  uint32_t k;
  bool active;
  uint32_t r, end, step;
};

__device__ inline Walk walk(const NormArgs &a) {
  Walk w;
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int64_t begin = static_cast<int64_t>(blockIdx.y) * a.chunk;
  const int64_t end = min(a.count, begin + a.chunk);
  if (a.cols) {
    const int64_t k = static_cast<int64_t>(blockIdx.x) * kBX + tx;
    w.k = static_cast<uint32_t>(k);
    w.active = k < a.groups;
    w.r = static_cast<uint32_t>(begin + ty);
    w.step = kBY;
  } else {
    w.k = blockIdx.x;
    w.active = true;
    w.r = static_cast<uint32_t>(begin + tx + kBX * ty);
    w.step = kBX * kBY;
  }
  w.end = static_cast<uint32_t>(end);
  return w;
}

template <class C>
struct Welford {  // no initializers: it lives in shared memory
  C n, m, m2;
  __device__ void add(C v) {
    n += C(1);
    const C d = v - m;
    m += d / n;
    m2 += d * (v - m);
  }
  __device__ void merge(const Welford &o) {
    if (o.n == C(0)) return;
    if (n == C(0)) {
      *this = o;
      return;
    }
    const C t = n + o.n, d = o.m - m;
    m += d * (o.n / t);
    m2 += o.m2 + d * d * (n * o.n / t);
    n = t;
  }
};

template <class S, class C>
__global__ void stats_partial(NormArgs a, Ws<C> ws) {
  const Walk w = walk(a);
  Welford<C> acc{C(0), C(0), C(0)};
  if (w.active) {
    const int64_t kb = kept_offset(a, kNX, w.k);
    const int ops[1] = {kNX};
    for (uint32_t r = w.r; r < w.end; r += w.step) {
      int64_t off[1];
      red_offsets(a, ops, r, off);
      acc.add(ldd<S, C>(a, kNX, kb + off[0]));
    }
  }
  __shared__ Welford<C> sh[kBY][kBX];
  const int tx = threadIdx.x, ty = threadIdx.y;
  sh[ty][tx] = acc;
  __syncthreads();
  if (ty == 0) {
    for (int j = 1; j < kBY; ++j) acc.merge(sh[j][tx]);
    if (!a.cols) {
      // Rows: one result per block; thread 0 merges the columns in order.
      sh[0][tx] = acc;
      __syncwarp();
      if (tx == 0)
        for (int j = 1; j < kBX; ++j) acc.merge(sh[0][j]);
    }
    if ((a.cols || tx == 0) && w.active) {
      part_at(a, ws, w.k, blockIdx.y, 0) = acc.n;
      part_at(a, ws, w.k, blockIdx.y, 1) = acc.m;
      part_at(a, ws, w.k, blockIdx.y, 2) = acc.m2;
    }
  }
}

// S: x's type, G: dy's type.
template <class S, class G, class C>
__global__ void grad_partial(NormArgs a, Ws<C> ws) {
  const Walk w = walk(a);
  C sg = 0, sgx = 0;
  if (w.active) {
    const int64_t kx = kept_offset(a, kNX, w.k), kdy = kept_offset(a, kNDY, w.k);
    const int64_t km = a.has_mask ? kept_offset(a, kNMask, w.k) : 0;
    const C mean = ws.mean[w.k];
    const int ops[3] = {kNX, kNDY, kNMask};
    for (uint32_t r = w.r; r < w.end; r += w.step) {
      int64_t off[3];
      red_offsets(a, ops, r, off);
      C g = ldd<G, C>(a, kNDY, kdy + off[1]);
      if (a.has_mask && static_cast<const uint8_t *>(a.data[kNMask])[km + off[2]] == 0) g = C(0);
      sg += g;
      sgx += g * (ldd<S, C>(a, kNX, kx + off[0]) - mean);
    }
  }
  __shared__ C sh[2][kBY][kBX];
  const int tx = threadIdx.x, ty = threadIdx.y;
  sh[0][ty][tx] = sg;
  sh[1][ty][tx] = sgx;
  __syncthreads();
  if (ty == 0) {
    for (int j = 1; j < kBY; ++j) {
      sg += sh[0][j][tx];
      sgx += sh[1][j][tx];
    }
    if (!a.cols) {
      sh[0][0][tx] = sg;
      sh[1][0][tx] = sgx;
      __syncwarp();
      if (tx == 0)
        for (int j = 1; j < kBX; ++j) {
          sg += sh[0][0][j];
          sgx += sh[1][0][j];
        }
    }
    if ((a.cols || tx == 0) && w.active) {
      part_at(a, ws, w.k, blockIdx.y, 0) = sg;
      part_at(a, ws, w.k, blockIdx.y, 1) = sgx;
    }
  }
}

// A team of TEAM threads per set (a warp: 4 sets per 128-thread block; or
// a whole 256-thread block when there are many parts): thread t combines
// parts t, t + TEAM, ... in order, then the team combines in a fixed tree
// (lanes by shuffles, then warps in order: deterministic); thread 0 of the
// team finishes. Loads that do not depend on the sums are issued first.
template <int TEAM>
__device__ inline bool finalize_team(const NormArgs &a, int64_t &k64, int &t) {
  if (TEAM == 32) {
    k64 = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
    t = threadIdx.x & 31;
  } else {
    k64 = blockIdx.x;
    t = threadIdx.x;
  }
  return k64 < a.groups;  // the whole team
}

template <class C, int TEAM>
__device__ inline void team_merge(Welford<C> &acc, int t) {
  for (int off = 16; off > 0; off >>= 1) {
    const Welford<C> o{__shfl_down_sync(0xffffffffu, acc.n, off), __shfl_down_sync(0xffffffffu, acc.m, off),
                       __shfl_down_sync(0xffffffffu, acc.m2, off)};
    if ((t & 31) + off < 32) acc.merge(o);
  }
  if constexpr (TEAM > 32) {
    __shared__ Welford<C> w[TEAM / 32];
    if ((t & 31) == 0) w[t >> 5] = acc;
    __syncthreads();
    if (t == 0)
      for (int i = 1; i < TEAM / 32; ++i) acc.merge(w[i]);
  }
}

template <class C, int TEAM>
__device__ inline void team_sum2(C &x, C &y, int t) {
  for (int off = 16; off > 0; off >>= 1) {
    x += __shfl_down_sync(0xffffffffu, x, off);
    y += __shfl_down_sync(0xffffffffu, y, off);
  }
  if constexpr (TEAM > 32) {
    __shared__ C w[2][TEAM / 32];
    if ((t & 31) == 0) {
      w[0][t >> 5] = x;
      w[1][t >> 5] = y;
    }
    __syncthreads();
    if (t == 0)
      for (int i = 1; i < TEAM / 32; ++i) {
        x += w[0][i];
        y += w[1][i];
      }
  }
}

template <class C, int TEAM>
__global__ void __launch_bounds__(TEAM == 32 ? 128 : TEAM) forward_finalize(NormArgs a, Ws<C> ws) {
  pdl_wait();
  pdl_trigger();
  int64_t k64;
  int t;
  if (!finalize_team<TEAM>(a, k64, t)) return;
  const uint32_t k = static_cast<uint32_t>(k64);
  C scale = 0, bias = 0, rm = 0, rv = 0;
  if (t == 0 && !a.backward) {
    scale = ldst<C>(a, kSScale, k);
    bias = ldst<C>(a, kSBias, k);
    if (!a.stats_given) {
      if (a.stat[kSRmIn]) rm = ldst<C>(a, kSRmIn, k);
      if (a.stat[kSRvIn]) rv = ldst<C>(a, kSRvIn, k);
    }
  }
  C mean, inv;
  if (a.stats_given) {
    if (t != 0) return;
    mean = ldst<C>(a, kSMean, k);
    inv = given_inv<C>(a, k);
  } else {
    Welford<C> acc{C(0), C(0), C(0)};
#pragma unroll 4
    for (int s = t; s < a.splits; s += TEAM)
      acc.merge(Welford<C>{part_at(a, ws, k64, s, 0), part_at(a, ws, k64, s, 1), part_at(a, ws, k64, s, 2)});
    team_merge<C, TEAM>(acc, t);
    if (t != 0) return;
    mean = acc.m;
    const C var = max(acc.m2, C(0)) / C(a.count);
    inv = C(1) / sqrt(var + C(a.epsilon));
    if (!a.backward) {
      if (a.stat[kSMean]) stst<C>(a, kSMean, k, mean);
      if (a.stat[kSInv]) stst<C>(a, kSInv, k, inv);
      const C f = C(a.factor);
      if (a.stat[kSRmIn]) stst<C>(a, kSRmOut, k, (C(1) - f) * rm + f * mean);
      if (a.stat[kSRvIn])
        stst<C>(a, kSRvOut, k, (C(1) - f) * rv + f * var * C(a.unbias));
    }
  }
  ws.mean[k] = mean;
  ws.inv[k] = inv;
  if (!a.backward) {
    affine_coefficients(scale, bias, mean, inv, ws.ca[k], ws.cb[k]);
  }
}

template <class C, int TEAM>
__global__ void __launch_bounds__(TEAM == 32 ? 128 : TEAM) grad_finalize(NormArgs a, Ws<C> ws) {
  pdl_wait();
  pdl_trigger();
  int64_t k64;
  int t;
  if (!finalize_team<TEAM>(a, k64, t)) return;
  const uint32_t k = static_cast<uint32_t>(k64);
  C scale = 0, ds0 = 0, db0 = 0;
  const C ap = C(a.alpha_p), bp = C(a.beta_p);
  if (t == 0) {
    scale = ldst<C>(a, kSScale, k);
    if (bp != C(0)) {
      ds0 = ldst<C>(a, kSDscale, k);
      db0 = ldst<C>(a, kSDbias, k);
    }
  }
  C sg = 0, sgx = 0;
#pragma unroll 4
  for (int s = t; s < a.splits; s += TEAM) {
    sg += part_at(a, ws, k64, s, 0);
    sgx += part_at(a, ws, k64, s, 1);
  }
  team_sum2<C, TEAM>(sg, sgx, t);
  if (t != 0) return;
  const C mean = ws.mean[k], inv = ws.inv[k], m = C(a.count);
  const C dscale = sgx * inv, dbias = sg;
  stst<C>(a, kSDscale, k, bp != C(0) ? ap * dscale + bp * ds0 : ap * dscale);
  stst<C>(a, kSDbias, k, bp != C(0) ? ap * dbias + bp * db0 : ap * dbias);
  const C A = scale * inv;
  const C B = -A * inv * dscale / m;
  ws.ca[k] = A;
  ws.cb[k] = B;
  ws.cc[k] = -A * dbias / m - B * mean;
}

// S: x's and z's type, O: y's (the same but for the mixed-type problems:
// NormArgs::out_type).
template <class S, class O, class C>
__global__ void forward_apply(NormArgs a, Ws<C> ws) {
  const Walk w = walk(a);
  if (!w.active) return;
  const int64_t kx = kept_offset(a, kNX, w.k), ky = kept_offset(a, kNY, w.k);
  const int64_t kz = a.has_z ? kept_offset(a, kNZ, w.k) : 0, km = a.has_mask ? kept_offset(a, kNMask, w.k) : 0;
  const C ca = ws.ca[w.k], cb = ws.cb[w.k], alpha = C(a.alpha), beta = C(a.beta), clip = C(a.clip);
  const int ops[4] = {kNX, kNY, kNZ, kNMask};
  for (uint32_t r = w.r; r < w.end; r += w.step) {
    int64_t off[4];
    red_offsets(a, ops, r, off);
    C v = ca * ldd<S, C>(a, kNX, kx + off[0]) + cb;
    if (a.has_z) v += ldd<S, C>(a, kNZ, kz + off[2]);
    C out = alpha * norm::activate(v, a.relu, clip);
    if (beta != C(0)) out += beta * ldd<O, C>(a, kNY, ky + off[1]);
    std_<O, C>(a, kNY, ky + off[1], out);
    if (a.has_mask) static_cast<uint8_t *>(a.data[kNMask])[km + off[3]] = norm::passes(v, a.relu, clip) ? 1 : 0;
  }
}

// S: x's type, G: dy's, O: dx's and dz's.
template <class S, class G, class O, class C>
__global__ void backward_apply(NormArgs a, Ws<C> ws) {
  const Walk w = walk(a);
  if (!w.active) return;
  const int64_t kx = kept_offset(a, kNX, w.k), kdy = kept_offset(a, kNDY, w.k), kdx = kept_offset(a, kNDX, w.k);
  const int64_t kdz = a.has_dz ? kept_offset(a, kNDZ, w.k) : 0, km = a.has_mask ? kept_offset(a, kNMask, w.k) : 0;
  const C A = ws.ca[w.k], B = ws.cb[w.k], Cc = ws.cc[w.k], alpha = C(a.alpha), beta = C(a.beta);
  const int ops1[3] = {kNX, kNDY, kNDX};
  const int ops2[2] = {kNDZ, kNMask};
  for (uint32_t r = w.r; r < w.end; r += w.step) {
    int64_t off[3], off2[2];
    red_offsets(a, ops1, r, off);
    C g = ldd<G, C>(a, kNDY, kdy + off[1]);
    if (a.has_mask) {
      red_offsets(a, ops2, r, off2);
      if (static_cast<const uint8_t *>(a.data[kNMask])[km + off2[1]] == 0) g = C(0);
    }
    C out = alpha * (A * g + B * ldd<S, C>(a, kNX, kx + off[0]) + Cc);
    if (beta != C(0)) out += beta * ldd<O, C>(a, kNDX, kdx + off[2]);
    std_<O, C>(a, kNDX, kdx + off[2], out);
    if (a.has_dz) {
      if (!a.has_mask) red_offsets(a, ops2, r, off2);
      std_<O, C>(a, kNDZ, kdz + off2[0], g);
    }
  }
}

// ---------------------------------------------------------------------------
// Vectorised kernels (NormArgs::fast): every data operand has x's strides, so
// one element offset serves all of them; 16-byte loads, kUnroll vectors per
// thread in flight before the first use. The apply kernels take the blocks in
// the reverse order of the partial kernels: the part of x (and dy) read last
// by the statistics pass is still in L2 when the apply pass starts.

constexpr int kFastThreads = 256, kUnroll = 4;

// Deterministic sum of two values over the block (kFastThreads threads);
// thread 0 gets the totals.
template <class C>
__device__ inline void block_sum2(C &x, C &y) {
  __shared__ C sh[2][kFastThreads / 32];
  for (int off = 16; off > 0; off >>= 1) {
    x += __shfl_down_sync(0xffffffffu, x, off);
    y += __shfl_down_sync(0xffffffffu, y, off);
  }
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  if (lane == 0) {
    sh[0][warp] = x;
    sh[1][warp] = y;
  }
  __syncthreads();
  if (threadIdx.x == 0)
    for (int w = 1; w < kFastThreads / 32; ++w) {
      x += sh[0][w];
      y += sh[1][w];
    }
}

// Which (set, part) a rows block takes; `reverse` for the apply passes.
struct RowsBlock {
  uint32_t k;
  int64_t base;
  uint32_t vb, ve;
};
template <int V>
__device__ inline RowsBlock rows_block(const NormArgs &a, bool reverse) {
  const uint32_t k = reverse ? gridDim.x - 1 - blockIdx.x : blockIdx.x;
  const uint32_t part = reverse ? gridDim.y - 1 - blockIdx.y : blockIdx.y;
  const int64_t begin = static_cast<int64_t>(part) * a.chunk;
  const int64_t end = min(a.count, begin + a.chunk);
  return {k, static_cast<int64_t>(k) * a.set_stride, static_cast<uint32_t>(begin / V), static_cast<uint32_t>(end / V)};
}

template <class S, class C, int V>
__global__ void __launch_bounds__(kFastThreads) rows_stats(NormArgs a, Ws<C> ws) {
  pdl_trigger();
  const RowsBlock b = rows_block<V>(a, false);
  const S *x = static_cast<const S *>(a.data[kNX]) + b.base;
  const C shift = cvt<S, C>(x[0]);  // shifted sums: no cancellation when the mean is far from 0
  C s = 0, q = 0;
  for (uint32_t v0 = b.vb + threadIdx.x; v0 < b.ve; v0 += kUnroll * kFastThreads) {
    VecPack<S, V> p[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u)
      if (v0 + u * kFastThreads < b.ve) p[u] = ldv<S, V>(x, rows_offset<V>(a, v0 + u * kFastThreads));
#pragma unroll
    for (int u = 0; u < kUnroll; ++u)
      if (v0 + u * kFastThreads < b.ve)
#pragma unroll
        for (int j = 0; j < V; ++j) {
          const C d = cvt<S, C>(p[u].e[j]) - shift;
          s += d;
          q += d * d;
        }
  }
  block_sum2(s, q);
  if (threadIdx.x == 0) {
    const C n = C(static_cast<int64_t>(b.ve - b.vb) * V);
    part_at(a, ws, b.k, blockIdx.y, 0) = n;
    part_at(a, ws, b.k, blockIdx.y, 1) = shift + s / n;
    part_at(a, ws, b.k, blockIdx.y, 2) = max(q - s * s / n, C(0));
  }
}

template <class S, class C, int V>
__global__ void __launch_bounds__(kFastThreads) rows_grad(NormArgs a, Ws<C> ws) {
  pdl_wait();
  pdl_trigger();
  const RowsBlock b = rows_block<V>(a, false);
  const C mean = ws.mean[b.k];
  C sg = 0, sgx = 0;
  for (uint32_t v0 = b.vb + threadIdx.x; v0 < b.ve; v0 += kUnroll * kFastThreads) {
    VecPack<S, V> px[kUnroll], pg[kUnroll];
    int64_t off[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u)
      if (v0 + u * kFastThreads < b.ve) {
        off[u] = b.base + rows_offset<V>(a, v0 + u * kFastThreads);
        px[u] = ldv<S, V>(a.data[kNX], off[u]);
        pg[u] = ldv<S, V>(a.data[kNDY], off[u]);
      }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u)
      if (v0 + u * kFastThreads < b.ve)
#pragma unroll
        for (int j = 0; j < V; ++j) {
          C g = cvt<S, C>(pg[u].e[j]);
          if (a.has_mask && static_cast<const uint8_t *>(a.data[kNMask])[off[u] + j] == 0) g = C(0);
          sg += g;
          sgx += g * (cvt<S, C>(px[u].e[j]) - mean);
        }
  }
  block_sum2(sg, sgx);
  if (threadIdx.x == 0) {
    part_at(a, ws, b.k, blockIdx.y, 0) = sg;
    part_at(a, ws, b.k, blockIdx.y, 1) = sgx;
  }
}

template <class S, class C, int V>
__global__ void __launch_bounds__(kFastThreads) rows_fwd_apply(NormArgs a, Ws<C> ws) {
  pdl_wait();
  const RowsBlock b = rows_block<V>(a, true);
  C ca[V], cb[V];
#pragma unroll
  for (int j = 0; j < V; ++j) {
    ca[j] = ws.ca[b.k];
    cb[j] = ws.cb[b.k];
  }
  for (uint32_t v0 = b.vb + threadIdx.x; v0 < b.ve; v0 += kUnroll * kFastThreads) {
    VecPack<S, V> px[kUnroll];
    int64_t off[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u)
      if (v0 + u * kFastThreads < b.ve) {
        off[u] = b.base + rows_offset<V>(a, v0 + u * kFastThreads);
        px[u] = ldv_h<S, V>(a.data[kNX], off[u], a.stream_hints);
      }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u)
      if (v0 + u * kFastThreads < b.ve) fwd_vec<S, C, V>(a, off[u], px[u], ca, cb);
  }
}

template <class S, class C, int V>
__global__ void __launch_bounds__(kFastThreads) rows_bwd_apply(NormArgs a, Ws<C> ws) {
  pdl_wait();
  const RowsBlock b = rows_block<V>(a, true);
  C A[V], B[V], Cc[V];
#pragma unroll
  for (int j = 0; j < V; ++j) {
    A[j] = ws.ca[b.k];
    B[j] = ws.cb[b.k];
    Cc[j] = ws.cc[b.k];
  }
  for (uint32_t v0 = b.vb + threadIdx.x; v0 < b.ve; v0 += kUnroll * kFastThreads) {
    VecPack<S, V> px[kUnroll], pg[kUnroll];
    int64_t off[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u)
      if (v0 + u * kFastThreads < b.ve) {
        off[u] = b.base + rows_offset<V>(a, v0 + u * kFastThreads);
        px[u] = ldv_h<S, V>(a.data[kNX], off[u], a.stream_hints);
        pg[u] = ldv_h<S, V>(a.data[kNDY], off[u], a.stream_hints);
      }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u)
      if (v0 + u * kFastThreads < b.ve) bwd_vec<S, C, V>(a, off[u], px[u], pg[u], A, B, Cc);
  }
}

// Cols form: block (bx, 256/bx); thread x takes channels [cv*V, cv*V + V)
// of tile blockIdx.x, thread y walks rows of part blockIdx.y.
struct ColsBlock {
  bool active;
  uint32_t part;
  int64_t c0;  // first channel of the thread
  int64_t rb, re;
  int ty, by;
};
template <int V>
__device__ inline ColsBlock cols_block(const NormArgs &a, bool reverse) {
  ColsBlock b;
  const int bx = a.cols_bx;
  b.by = kFastThreads / bx;
  const int tx = threadIdx.x & (bx - 1);
  b.ty = threadIdx.x / bx;
  const uint32_t tile = reverse ? gridDim.x - 1 - blockIdx.x : blockIdx.x;
  b.part = reverse ? gridDim.y - 1 - blockIdx.y : blockIdx.y;
  b.c0 = (static_cast<int64_t>(tile) * bx + tx) * V;
  b.active = b.c0 < a.groups;
  const int64_t begin = static_cast<int64_t>(b.part) * a.chunk;
  b.rb = begin + b.ty;
  b.re = min(a.count, begin + a.chunk);
  return b;
}

// Cols partial sums: every thread holds V channels' sums over its rows; the
// block adds them per channel over the row threads in a fixed order, one
// thread per channel of the tile (bx * V <= kFastThreads), which writes the
// part (coalesced: neighbouring threads, neighbouring sets).
template <class C, int V>
__device__ inline void cols_sum2(const NormArgs &a, C (&x)[V], C (&y)[V], C &tx_out, C &ty_out, int &ch) {
  extern __shared__ unsigned char cols_shared[];
  C *sh = reinterpret_cast<C *>(cols_shared);  // [2][by][bx * V]
  const int bx = a.cols_bx, by = kFastThreads / bx, w = bx * V;
  const int tx = threadIdx.x & (bx - 1), ty = threadIdx.x / bx;
#pragma unroll
  for (int j = 0; j < V; ++j) {
    sh[ty * w + tx * V + j] = x[j];
    sh[(by + ty) * w + tx * V + j] = y[j];
  }
  __syncthreads();
  ch = threadIdx.x;  // channel of the tile this thread sums
  tx_out = ty_out = C(0);
  if (ch < w)
    for (int r = 0; r < by; ++r) {
      tx_out += sh[r * w + ch];
      ty_out += sh[(by + r) * w + ch];
    }
}

template <class S, class C, int V, int U>
__global__ void __launch_bounds__(kFastThreads) cols_stats(NormArgs a, Ws<C> ws) {
  pdl_trigger();
  const ColsBlock b = cols_block<V>(a, false);
  C s[V], q[V], shift[V];
#pragma unroll
  for (int j = 0; j < V; ++j) s[j] = q[j] = shift[j] = C(0);
  if (b.active) {
    const VecPack<S, V> p0 = ldv<S, V>(a.data[kNX], b.c0);
#pragma unroll
    for (int j = 0; j < V; ++j) shift[j] = cvt<S, C>(p0.e[j]);
    const int64_t step = b.by;
    for (int64_t r0 = b.rb; r0 < b.re; r0 += U * step) {
      VecPack<S, V> p[U];
#pragma unroll
      for (int u = 0; u < U; ++u)
        if (r0 + u * step < b.re) p[u] = ldv<S, V>(a.data[kNX], (r0 + u * step) * a.outer_stride + b.c0);
#pragma unroll
      for (int u = 0; u < U; ++u)
        if (r0 + u * step < b.re)
#pragma unroll
          for (int j = 0; j < V; ++j) {
            const C d = cvt<S, C>(p[u].e[j]) - shift[j];
            s[j] += d;
            q[j] += d * d;
          }
    }
  }
  C ts, tq;
  int ch;
  cols_sum2<C, V>(a, s, q, ts, tq, ch);
  const int64_t k = static_cast<int64_t>(blockIdx.x) * a.cols_bx * V + ch;
  if (ch < a.cols_bx * V && k < a.groups) {
    const C n = C(b.re - (b.rb - b.ty));
    const C sh0 = cvt<S, C>(static_cast<const S *>(a.data[kNX])[k]);  // the shift of channel k (row 0)
    part_at(a, ws, k, b.part, 0) = n;
    part_at(a, ws, k, b.part, 1) = sh0 + ts / n;
    part_at(a, ws, k, b.part, 2) = max(tq - ts * ts / n, C(0));
  }
}

template <class S, class C, int V>
__global__ void __launch_bounds__(kFastThreads) cols_grad(NormArgs a, Ws<C> ws) {
  pdl_wait();
  pdl_trigger();
  const ColsBlock b = cols_block<V>(a, false);
  C sg[V], sgx[V], mean[V];
#pragma unroll
  for (int j = 0; j < V; ++j) sg[j] = sgx[j] = mean[j] = C(0);
  if (b.active) {
#pragma unroll
    for (int j = 0; j < V; ++j) mean[j] = ws.mean[b.c0 + j];
    const int64_t step = b.by;
    for (int64_t r0 = b.rb; r0 < b.re; r0 += kUnroll * step) {
      VecPack<S, V> px[kUnroll], pg[kUnroll];
      int64_t off[kUnroll];
#pragma unroll
      for (int u = 0; u < kUnroll; ++u)
        if (r0 + u * step < b.re) {
          off[u] = (r0 + u * step) * a.outer_stride + b.c0;
          px[u] = ldv<S, V>(a.data[kNX], off[u]);
          pg[u] = ldv<S, V>(a.data[kNDY], off[u]);
        }
#pragma unroll
      for (int u = 0; u < kUnroll; ++u)
        if (r0 + u * step < b.re)
#pragma unroll
          for (int j = 0; j < V; ++j) {
            C g = cvt<S, C>(pg[u].e[j]);
            if (a.has_mask && static_cast<const uint8_t *>(a.data[kNMask])[off[u] + j] == 0) g = C(0);
            sg[j] += g;
            sgx[j] += g * (cvt<S, C>(px[u].e[j]) - mean[j]);
          }
    }
  }
  C tg, tgx;
  int ch;
  cols_sum2<C, V>(a, sg, sgx, tg, tgx, ch);
  const int64_t k = static_cast<int64_t>(blockIdx.x) * a.cols_bx * V + ch;
  if (ch < a.cols_bx * V && k < a.groups) {
    part_at(a, ws, k, b.part, 0) = tg;
    part_at(a, ws, k, b.part, 1) = tgx;
  }
}

// The apply passes walk each part's rows backwards when a.cols_reverse is
// set: the statistics (gradient) pass read them forwards with the same grid
// resident at once, so the rows it read last, still in L2, come first.
template <class S, class C, int V, int U>
__global__ void __launch_bounds__(kFastThreads) cols_fwd_apply(NormArgs a, Ws<C> ws) {
  pdl_wait();
  const ColsBlock b = cols_block<V>(a, true);
  if (!b.active) return;
  C ca[V], cb[V];
#pragma unroll
  for (int j = 0; j < V; ++j) {
    ca[j] = ws.ca[b.c0 + j];
    cb[j] = ws.cb[b.c0 + j];
  }
  const int64_t step = b.by, first = b.rb - b.ty, n = b.re - first;
  const bool rev = a.cols_reverse;
  for (int64_t i0 = b.ty; i0 < n; i0 += U * step) {
    VecPack<S, V> px[U];
    int64_t off[U];
#pragma unroll
    for (int u = 0; u < U; ++u)
      if (i0 + u * step < n) {
        const int64_t r = rev ? b.re - 1 - (i0 + u * step) : first + i0 + u * step;
        off[u] = r * a.outer_stride + b.c0;
        px[u] = ldv_h<S, V>(a.data[kNX], off[u], a.stream_hints);
      }
#pragma unroll
    for (int u = 0; u < U; ++u)
      if (i0 + u * step < n) fwd_vec<S, C, V>(a, off[u], px[u], ca, cb);
  }
}

template <class S, class C, int V>
__global__ void __launch_bounds__(kFastThreads) cols_bwd_apply(NormArgs a, Ws<C> ws) {
  pdl_wait();
  const ColsBlock b = cols_block<V>(a, true);
  if (!b.active) return;
  C A[V], B[V], Cc[V];
#pragma unroll
  for (int j = 0; j < V; ++j) {
    A[j] = ws.ca[b.c0 + j];
    B[j] = ws.cb[b.c0 + j];
    Cc[j] = ws.cc[b.c0 + j];
  }
  const int64_t step = b.by, first = b.rb - b.ty, n = b.re - first;
  const bool rev = a.cols_reverse;
  for (int64_t i0 = b.ty; i0 < n; i0 += kUnroll * step) {
    VecPack<S, V> px[kUnroll], pg[kUnroll];
    int64_t off[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u)
      if (i0 + u * step < n) {
        const int64_t r = rev ? b.re - 1 - (i0 + u * step) : first + i0 + u * step;
        off[u] = r * a.outer_stride + b.c0;
        px[u] = ldv_h<S, V>(a.data[kNX], off[u], a.stream_hints);
        pg[u] = ldv_h<S, V>(a.data[kNDY], off[u], a.stream_hints);
      }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u)
      if (i0 + u * step < n) bwd_vec<S, C, V>(a, off[u], px[u], pg[u], A, B, Cc);
  }
}

// Training forward of the rows form with a thread-block cluster per set:
// the set's vectors are split over the cluster's blocks, each keeps its
// share in shared memory, so x is read from device memory once (the
// two-pass kernels read it twice). Block sums are combined over the cluster
// through distributed shared memory in a fixed shuffle tree (deterministic);
// every block computes the same coefficients, rank 0 writes the statistics.
// T threads per block; 1024 / T blocks per multiprocessor must fit (at most
// 64 registers).
template <class S, class C, int V, int T>
__global__ void __launch_bounds__(T, 1024 / T) rows_train_cluster(NormArgs a) {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900  // clusters exist from sm_90 on
  namespace cg = cooperative_groups;
  cg::cluster_group cluster = cg::this_cluster();
  extern __shared__ uint4 cluster_cache[];
  VecPack<S, V> *cache = reinterpret_cast<VecPack<S, V> *>(cluster_cache);
  __shared__ C red[2][T / 32];
  __shared__ C part[2];
  __shared__ C coef[2];
  const unsigned cs = cluster.num_blocks(), rank = cluster.block_rank();
  // Persistent over the sets: cluster y takes sets y, y + gridDim.y, ... The
  // two cluster barriers of a set also order the reuse of part / coef / red
  // by the next one; each thread reads back only cache entries it wrote.
  for (uint32_t k = blockIdx.y; k < static_cast<uint32_t>(a.groups); k += gridDim.y) {
    const int64_t base = static_cast<int64_t>(k) * a.set_stride;
    const uint32_t nv = static_cast<uint32_t>(a.count / V);
    const uint32_t per = (nv + cs - 1) / cs;
    const uint32_t vb = min(nv, rank * per), ve = min(nv, vb + per);
    const S *x = static_cast<const S *>(a.data[kNX]) + base;
    const C shift = cvt<S, C>(x[0]);
    C s = 0, q = 0;
    constexpr int U = 8;
    for (uint32_t v0 = vb + threadIdx.x; v0 < ve; v0 += U * T) {
      VecPack<S, V> p[U];
#pragma unroll
      for (int u = 0; u < U; ++u)
        if (v0 + u * T < ve) p[u] = ldv_h<S, V>(x, rows_offset<V>(a, v0 + u * T), a.stream_hints);
#pragma unroll
      for (int u = 0; u < U; ++u)
        if (v0 + u * T < ve) {
          cache[v0 + u * T - vb] = p[u];
          C d[V];
          unpack<S, C, V>(p[u], d);
#pragma unroll
          for (int j = 0; j < V; ++j) {
            d[j] -= shift;
            s += d[j];
            q += d[j] * d[j];
          }
        }
    }
    for (int off = 16; off > 0; off >>= 1) {
      s += __shfl_down_sync(0xffffffffu, s, off);
      q += __shfl_down_sync(0xffffffffu, q, off);
    }
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    if (lane == 0) {
      red[0][warp] = s;
      red[1][warp] = q;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
      for (int w = 1; w < T / 32; ++w) {
        s += red[0][w];
        q += red[1][w];
      }
      part[0] = s;
      part[1] = q;
    }
    C scale = 0, bias = 0;
    if (threadIdx.x == 0) {  // in flight during the cluster barrier
      scale = ldp<C>(a.stat[kSScale], stat_offset(a, kSScale, k));
      bias = ldp<C>(a.stat[kSBias], stat_offset(a, kSBias, k));
    }
    cluster.sync();  // every block's part is written
    if (threadIdx.x < 32) {
      // Lane r reads block r's part; a fixed shuffle tree adds them.
      C ts = 0, tq = 0;
      if (threadIdx.x < cs) {
        const C *pr = cluster.map_shared_rank(part, threadIdx.x);
        ts = pr[0];
        tq = pr[1];
      }
      for (int o = 16; o > 0; o >>= 1) {
        ts += __shfl_down_sync(0xffffffffu, ts, o);
        tq += __shfl_down_sync(0xffffffffu, tq, o);
      }
      if (threadIdx.x == 0) {
        const C t[2] = {ts, tq};
        forward_channel<C>(a, k, t, C(a.count), shift, scale, bias, rank == 0, coef);
      }
    }
    cluster.sync();  // the parts were read (peers may exit) and coef is set
    C ca[V], cb[V];
#pragma unroll
    for (int j = 0; j < V; ++j) {
      ca[j] = coef[0];
      cb[j] = coef[1];
    }
    for (uint32_t v0 = vb + threadIdx.x; v0 < ve; v0 += U * T) {
#pragma unroll
      for (int u = 0; u < U; ++u) {
        const uint32_t v = v0 + u * T;
        if (v < ve) fwd_vec<S, C, V>(a, base + rows_offset<V>(a, v), cache[v - vb], ca, cb);
      }
    }
  }
#else
  __trap();  // never launched: try_rows_cluster finds no cluster support
#endif
}

// Backward of the rows form with a cluster per set: x and dy of the set are
// kept in the cluster's shared memory between the sums and dx, so each is
// read from device memory once.
// T threads per block (512: one block per multiprocessor; 256: two).
template <class S, class C, int V, int T>
__global__ void __launch_bounds__(T, 512 / T) rows_backward_cluster(NormArgs a) {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900  // clusters exist from sm_90 on
  namespace cg = cooperative_groups;
  cg::cluster_group cluster = cg::this_cluster();
  extern __shared__ uint4 cluster_cache[];
  const unsigned cs = cluster.num_blocks(), rank = cluster.block_rank();
  const uint32_t nv = static_cast<uint32_t>(a.count / V);
  const uint32_t per = (nv + cs - 1) / cs;
  VecPack<S, V> *cx = reinterpret_cast<VecPack<S, V> *>(cluster_cache);
  VecPack<S, V> *cg_ = cx + per;
  __shared__ C red[4][T / 32];
  __shared__ C part[4];
  __shared__ C coef[3];
  // Persistent over the sets: cluster y takes sets y, y + gridDim.y, ... The
  // two cluster barriers of a set also order the reuse of part / coef / red
  // by the next one; each thread reads back only cache entries it wrote.
  for (uint32_t k = blockIdx.y; k < static_cast<uint32_t>(a.groups); k += gridDim.y) {
    const int64_t base = static_cast<int64_t>(k) * a.set_stride;
    const uint32_t vb = min(nv, rank * per), ve = min(nv, vb + per);
    const S *x = static_cast<const S *>(a.data[kNX]) + base;
    const S *dy = static_cast<const S *>(a.data[kNDY]) + base;
    const C shift = cvt<S, C>(x[0]);
    C acc[4] = {0, 0, 0, 0};  // sum (x - shift), sum (x - shift)^2, sum g, sum g (x - shift)
    constexpr int U = 4;
    for (uint32_t v0 = vb + threadIdx.x; v0 < ve; v0 += U * T) {
      VecPack<S, V> px[U], pg[U];
      int64_t off[U];
#pragma unroll
      for (int u = 0; u < U; ++u)
        if (v0 + u * T < ve) {
          off[u] = rows_offset<V>(a, v0 + u * T);
          px[u] = ldv_h<S, V>(x, off[u], a.stream_hints);
          pg[u] = ldv_h<S, V>(dy, off[u], a.stream_hints);
        }
#pragma unroll
      for (int u = 0; u < U; ++u)
        if (v0 + u * T < ve) {
          cx[v0 + u * T - vb] = px[u];
          cg_[v0 + u * T - vb] = pg[u];
          C d[V], g[V];
          unpack<S, C, V>(px[u], d);
          unpack<S, C, V>(pg[u], g);
          if (a.has_mask) {  // one branch, not a predicated load per element
#pragma unroll
            for (int j = 0; j < V; ++j)
              if (static_cast<const uint8_t *>(a.data[kNMask])[base + off[u] + j] == 0) g[j] = C(0);
          }
#pragma unroll
          for (int j = 0; j < V; ++j) {
            d[j] -= shift;
            acc[0] += d[j];
            acc[1] += d[j] * d[j];
            acc[2] += g[j];
            acc[3] += g[j] * d[j];
          }
        }
    }
    // The next set's x and dy stream into L2 while this set's sums are
    // combined and its dx written: device memory stays busy through the
    // cluster barriers and the store phase, and the next reads hit L2.
    if (a.cluster_bwd_prefetch && k + gridDim.y < static_cast<uint32_t>(a.groups)) {
      const int64_t next = static_cast<int64_t>(gridDim.y) * a.set_stride;
      prefetch_rows_share<S, V>(a, x + next, vb, ve, T);
      prefetch_rows_share<S, V>(a, dy + next, vb, ve, T);
    }
#pragma unroll
    for (int i = 0; i < 4; ++i)
      for (int o = 16; o > 0; o >>= 1) acc[i] += __shfl_down_sync(0xffffffffu, acc[i], o);
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    if (lane == 0)
#pragma unroll
      for (int i = 0; i < 4; ++i) red[i][warp] = acc[i];
    __syncthreads();
    if (threadIdx.x == 0) {
      for (int w = 1; w < T / 32; ++w)
#pragma unroll
        for (int i = 0; i < 4; ++i) acc[i] += red[i][w];
#pragma unroll
      for (int i = 0; i < 4; ++i) part[i] = acc[i];
    }
    cluster.sync();
    C t[4] = {0, 0, 0, 0};
    if (threadIdx.x < 32) {
      // Lane r reads block r's part; a fixed shuffle tree adds them.
      if (threadIdx.x < cs) {
        const C *pr = cluster.map_shared_rank(part, threadIdx.x);
#pragma unroll
        for (int i = 0; i < 4; ++i) t[i] = pr[i];
      }
#pragma unroll
      for (int i = 0; i < 4; ++i)
        for (int o = 16; o > 0; o >>= 1) t[i] += __shfl_down_sync(0xffffffffu, t[i], o);
    }
    if (threadIdx.x == 0)
      backward_channel<C>(a, k, t, C(a.count), shift, ldp<C>(a.stat[kSScale], stat_offset(a, kSScale, k)), rank == 0,
                          coef);
    cluster.sync();
    C A[V], B[V], Cc[V];
#pragma unroll
    for (int j = 0; j < V; ++j) {
      A[j] = coef[0];
      B[j] = coef[1];
      Cc[j] = coef[2];
    }
    for (uint32_t v = vb + threadIdx.x; v < ve; v += T)
      bwd_vec<S, C, V>(a, base + rows_offset<V>(a, v), cx[v - vb], cg_[v - vb], A, B, Cc);
  }
#else
  __trap();  // never launched: try_rows_cluster finds no cluster support
#endif
}

// Clusters of `cs` blocks with `smem` bytes each of `kernel` that can be
// resident at once on the current device (0: none). The driver's answer and
// the kernel's shared-memory attributes are set once per (device, kernel,
// shape): the query costs more host time than the launch.
int cluster_slots(const void *kernel, int cs, int threads, size_t smem) {
  struct Entry {
    int device;
    const void *kernel;
    int cs;
    size_t smem;
    int clusters;
  };
  static std::mutex mu;
  static std::vector<Entry> cache;
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  std::lock_guard<std::mutex> lock(mu);
  for (const Entry &e : cache)
    if (e.device == device && e.kernel == kernel && e.cs == cs && e.smem == smem) return e.clusters;
  int clusters = 0;
  bool ok = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)) == cudaSuccess;
  if (ok && cs > 8) ok = cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1) == cudaSuccess;
  if (ok) {
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(static_cast<unsigned>(cs), 1);
    cfg.blockDim = dim3(static_cast<unsigned>(threads));
    cfg.dynamicSmemBytes = smem;
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = static_cast<unsigned>(cs);
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    if (cudaOccupancyMaxActiveClusters(&clusters, kernel, &cfg) != cudaSuccess) clusters = 0;
  }
  if (!ok || clusters < 1) {
    cudaGetLastError();
    clusters = 0;
  }
  // A later call with a smaller cluster must not run with a smaller limit
  // than an earlier, larger one set: each shape keeps its own entry, and
  // the attribute only grows.
  size_t top = smem;
  for (const Entry &e : cache)
    if (e.device == device && e.kernel == kernel) top = std::max(top, e.smem);
  if (top != smem) cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(top));
  cudaGetLastError();
  cache.push_back({device, kernel, cs, smem, clusters});
  return clusters;
}

// Launches rows_train_cluster (forward training) or rows_backward_cluster
// when the set's cached tensors fit in the shared memory of a cluster of at
// most a.cluster_max blocks and the GPU can run such clusters. The grid is
// as many clusters as can be resident (at most one per set): each walks
// the sets y, y + grid, ... so no cluster waits for a free group of
// multiprocessors, and a block's stores of one set overlap its loads of
// the next.
template <class S, class C, int V>
bool try_rows_cluster(const NormArgs &a, cudaStream_t stream) {
  if (a.fast != kFastRows || a.groups > 65535 || a.cluster_max < 1) return false;
  if (!a.backward && a.stats_given) return false;  // inference: one pass already
  const int cached = a.backward ? 2 : 1;           // x (and dy)
  const int64_t bytes = a.count * static_cast<int64_t>(sizeof(S)) * cached;
  // Forward: two blocks per multiprocessor; backward: one (a.cluster_block_kb).
  const int64_t per_block = int64_t{a.backward ? a.cluster_block_kb[1] : a.cluster_block_kb[0]} * 1024;
  const int64_t cs = std::max<int64_t>(1, (bytes + per_block - 1) / per_block);
  if (cs > a.cluster_max) return false;
  const int64_t nv = a.count / V;
  const size_t smem = static_cast<size_t>((nv + cs - 1) / cs) * sizeof(VecPack<S, V>) * cached;
  const int threads = (a.backward ? a.cluster_threads_bwd : a.cluster_threads) == 256 ? 256 : 512;
  auto kernel = a.backward ? (threads == 256 ? rows_backward_cluster<S, C, V, 256> : rows_backward_cluster<S, C, V, 512>)
                           : (threads == 256 ? rows_train_cluster<S, C, V, 256> : rows_train_cluster<S, C, V, 512>);
  const int slots = cluster_slots(reinterpret_cast<const void *>(kernel), static_cast<int>(cs), threads, smem);
  if (slots < 1) return false;
  const int64_t clusters = a.cluster_persistent ? std::min<int64_t>(a.groups, slots) : a.groups;
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(static_cast<unsigned>(cs), static_cast<unsigned>(clusters));
  cfg.blockDim = dim3(static_cast<unsigned>(threads));
  cfg.dynamicSmemBytes = smem;
  cfg.stream = stream;
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = static_cast<unsigned>(cs);
  attr[0].val.clusterDim.y = 1;
  attr[0].val.clusterDim.z = 1;
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  check_cuda(cudaLaunchKernelEx(&cfg, kernel, a), "normalization rows cluster kernel");
  check_launch("normalization rows cluster kernel");
  return true;
}

bool aligned16(const NormArgs &a) {
  for (int j = 0; j < kNormData; ++j)
    if (j != kNMask && a.data[j] != nullptr && reinterpret_cast<uintptr_t>(a.data[j]) % 16 != 0) return false;
  return true;
}

bool pdl_supported() {
  DeviceFacts f;
  return current_device_facts(f) && f.cc_major >= 9;
}

// A block per set for the finalize kernels when each set has many parts
// (the cols form: hundreds) and the sets are few: the parts are read in one
// round instead of a warp's long loop.
bool wide_finalize(const NormArgs &a, bool sums_given) {
  return !sums_given && a.splits >= 64 && a.groups <= (int64_t{1} << 24);
}

// The vectorised passes; false when the generic kernels must run instead.
template <class S, class C>
bool run_fast(const NormArgs &a, const Ws<C> &ws, void *pers_ws, cudaStream_t s) {
  constexpr int V = 16 / sizeof(S);
  if (a.fast == kFastNone || a.vec != V || !aligned16(a)) return false;
  if (launch_normalization_inference(a, s)) return true;
  if (launch_normalization_grid(a, static_cast<char *>(pers_ws) + normalization_persistent_workspace_bytes(a), s))
    return true;
  if (launch_normalization_persistent(a, pers_ws, s)) return true;
  const unsigned fin_blocks = static_cast<unsigned>((a.groups * 32 + 127) / 128);
  const bool rows = a.fast == kFastRows;
  const dim3 grid = rows ? dim3(static_cast<unsigned>(a.groups), static_cast<unsigned>(a.splits))
                         : dim3(static_cast<unsigned>((a.groups + int64_t{a.cols_bx} * V - 1) / (int64_t{a.cols_bx} * V)),
                                static_cast<unsigned>(a.splits));
  if (launch_normalization_resident(a, s)) return true;
  if (try_rows_cluster<S, C, V>(a, s)) return true;
  const size_t shared = rows ? 0 : 2 * static_cast<size_t>(kFastThreads) * V * sizeof(C);
  const bool pdl = a.pdl && pdl_supported();  // not for the first kernel: it reads what came before the call
  const dim3 fin(fin_blocks);
  bool dep = false;  // a kernel of this call came before
  if (!a.stats_given) {
    if (rows) rows_stats<S, C, V><<<grid, kFastThreads, 0, s>>>(a, ws);
    else if (a.cols_unroll >= 8) cols_stats<S, C, V, 8><<<grid, kFastThreads, shared, s>>>(a, ws);
    else cols_stats<S, C, V, kUnroll><<<grid, kFastThreads, shared, s>>>(a, ws);
    check_launch("normalization stats (vectorised)");
    dep = true;
  }
  if (wide_finalize(a, a.stats_given))
    launch_dep(pdl && dep, forward_finalize<C, 256>, dim3(static_cast<unsigned>(a.groups)), 256, 0, s,
               "normalization forward_finalize", a, ws);
  else launch_dep(pdl && dep, forward_finalize<C, 32>, fin, 128, 0, s, "normalization forward_finalize", a, ws);
  if (!a.backward) {
    if (rows) launch_dep(pdl, rows_fwd_apply<S, C, V>, grid, kFastThreads, 0, s, "normalization forward apply", a, ws);
    else if (a.cols_unroll >= 8)
      launch_dep(pdl, cols_fwd_apply<S, C, V, 8>, grid, kFastThreads, 0, s, "normalization forward apply", a, ws);
    else launch_dep(pdl, cols_fwd_apply<S, C, V, kUnroll>, grid, kFastThreads, 0, s, "normalization forward apply", a, ws);
    return true;
  }
  if (rows) launch_dep(pdl, rows_grad<S, C, V>, grid, kFastThreads, 0, s, "normalization grad", a, ws);
  else launch_dep(pdl, cols_grad<S, C, V>, grid, kFastThreads, shared, s, "normalization grad", a, ws);
  if (wide_finalize(a, false))
    launch_dep(pdl, grad_finalize<C, 256>, dim3(static_cast<unsigned>(a.groups)), 256, 0, s, "normalization grad_finalize",
               a, ws);
  else launch_dep(pdl, grad_finalize<C, 32>, fin, 128, 0, s, "normalization grad_finalize", a, ws);
  if (rows) launch_dep(pdl, rows_bwd_apply<S, C, V>, grid, kFastThreads, 0, s, "normalization backward apply", a, ws);
  else launch_dep(pdl, cols_bwd_apply<S, C, V>, grid, kFastThreads, 0, s, "normalization backward apply", a, ws);
  return true;
}

// The generic kernels: forward (x, z: S; y: O) and backward (x: S; dy: G;
// dx, dz: O). Both start with the statistics (unless given) and their
// finalize; the launch shapes are shared.
struct GenericLaunch {
  dim3 block, grid;
  unsigned fin_blocks;  // a warp per set
};
template <class S, class C>
GenericLaunch run_statistics(const NormArgs &a, const Ws<C> &ws, cudaStream_t s) {
  GenericLaunch l;
  l.block = dim3(kBX, kBY);
  l.grid = dim3(static_cast<unsigned>(a.cols ? (a.groups + kBX - 1) / kBX : a.groups), static_cast<unsigned>(a.splits));
  l.fin_blocks = static_cast<unsigned>((a.groups * 32 + 127) / 128);
  if (!a.stats_given) {
    stats_partial<S, C><<<l.grid, l.block, 0, s>>>(a, ws);
    check_launch("normalization stats_partial");
  }
  forward_finalize<C, 32><<<l.fin_blocks, 128, 0, s>>>(a, ws);
  check_launch("normalization forward_finalize");
  return l;
}

template <class S, class O, class C>
void run_forward(const NormArgs &a, const Ws<C> &ws, cudaStream_t s) {
  const GenericLaunch l = run_statistics<S, C>(a, ws, s);
  forward_apply<S, O, C><<<l.grid, l.block, 0, s>>>(a, ws);
  check_launch("normalization forward_apply");
}

template <class S, class G, class O, class C>
void run_backward(const NormArgs &a, const Ws<C> &ws, cudaStream_t s) {
  const GenericLaunch l = run_statistics<S, C>(a, ws, s);
  grad_partial<S, G, C><<<l.grid, l.block, 0, s>>>(a, ws);
  check_launch("normalization grad_partial");
  grad_finalize<C, 32><<<l.fin_blocks, 128, 0, s>>>(a, ws);
  check_launch("normalization grad_finalize");
  backward_apply<S, G, O, C><<<l.grid, l.block, 0, s>>>(a, ws);
  check_launch("normalization backward_apply");
}

// Every data operand of type S: the vectorised forms when they apply.
template <class S, class C>
void run(const NormArgs &a, void *workspace, cudaStream_t s) {
  const Ws<C> ws = carve<C>(a, workspace);
  if (run_fast<S, C>(a, ws, static_cast<char *>(workspace) + base_workspace_bytes(a), s)) return;
  if (a.backward) run_backward<S, S, S, C>(a, ws, s);
  else run_forward<S, S, C>(a, ws, s);
}

// Mixed types (the forms check_graph in normalization_engine.cpp accepts):
// each of x (and z), dy, and y (dx, dz) is L (HALF or BFLOAT16) or FLOAT;
// the generic kernels only.
template <class T>
struct TypeTag {
  using type = T;
};
template <class L, class F>
void pick_type(cudnnDataType_t t, F &&f) {
  if (t == CUDNN_DATA_FLOAT) f(TypeTag<float>{});
  else f(TypeTag<L>{});
}

template <class L>
void run_mixed(const NormArgs &a, void *workspace, cudaStream_t s) {
  const Ws<float> ws = carve<float>(a, workspace);
  pick_type<L>(a.data_type, [&](auto x) {
    using S = typename decltype(x)::type;
    pick_type<L>(a.out_type, [&](auto o) {
      using O = typename decltype(o)::type;
      if (!a.backward) {
        run_forward<S, O, float>(a, ws, s);
        return;
      }
      pick_type<L>(a.grad_type, [&](auto g) { run_backward<S, typename decltype(g)::type, O, float>(a, ws, s); });
    });
  });
}

// Any other mix of types (NormArgs::dyn): the generic kernels with
// run-time typed operands, computed in C.
template <class C>
void run_dyn(const NormArgs &a, void *workspace, cudaStream_t s) {
  const Ws<C> ws = carve<C>(a, workspace);
  if (a.backward) run_backward<DynType, DynType, DynType, C>(a, ws, s);
  else run_forward<DynType, DynType, C>(a, ws, s);
}

template <class S, class C>
int cols_blocks_per_sm() {
  constexpr int V = 16 / sizeof(S);
  const size_t shared = 2 * static_cast<size_t>(kFastThreads) * V * sizeof(C);
  int best = 1 << 30, n = 0;
  auto take = [&](const void *f, size_t sh) {
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, f, kFastThreads, sh) == cudaSuccess && n > 0) best = std::min(best, n);
  };
  take(reinterpret_cast<const void *>(cols_stats<S, C, V, 8>), shared);
  take(reinterpret_cast<const void *>(cols_grad<S, C, V>), shared);
  take(reinterpret_cast<const void *>(cols_fwd_apply<S, C, V, 8>), 0);
  take(reinterpret_cast<const void *>(cols_bwd_apply<S, C, V>), 0);
  return best == (1 << 30) ? 2 : best;
}

}  // namespace

int normalization_cluster_slots(const void *kernel, int cs, int threads, size_t smem) {
  return cluster_slots(kernel, cs, threads, smem);
}

int normalization_cols_blocks_per_sm(cudnnDataType_t t) {
  switch (t) {
    case CUDNN_DATA_FLOAT: return cols_blocks_per_sm<float, float>();
    case CUDNN_DATA_DOUBLE: return cols_blocks_per_sm<double, double>();
    case CUDNN_DATA_HALF: return cols_blocks_per_sm<half_bits, float>();
    case CUDNN_DATA_BFLOAT16: return cols_blocks_per_sm<bf16_bits, float>();
    default: return 2;
  }
}

size_t normalization_workspace_bytes(const NormArgs &a) {
  // 256: the base's alignment; the grid form aligns its own area.
  return 256 + base_workspace_bytes(a) + normalization_persistent_workspace_bytes(a) +
         normalization_grid_workspace_bytes(a);
}

void launch_normalization(const NormArgs &a, void *workspace, void *stream) {
  cudaStream_t s = as_stream(stream);
  workspace = reinterpret_cast<void *>((reinterpret_cast<uintptr_t>(workspace) + 255) & ~uintptr_t{255});
  if (a.dyn) {
    if (a.compute_double) run_dyn<double>(a, workspace, s);
    else run_dyn<float>(a, workspace, s);
    return;
  }
  if (a.out_type != a.data_type || a.grad_type != a.data_type) {
    const auto low = [&](cudnnDataType_t t) { return a.data_type == t || a.out_type == t || a.grad_type == t; };
    if (low(CUDNN_DATA_HALF)) run_mixed<half_bits>(a, workspace, s);
    else run_mixed<bf16_bits>(a, workspace, s);
    return;
  }
  switch (a.data_type) {
    case CUDNN_DATA_FLOAT: run<float, float>(a, workspace, s); break;
    case CUDNN_DATA_DOUBLE: run<double, double>(a, workspace, s); break;
    case CUDNN_DATA_HALF: run<half_bits, float>(a, workspace, s); break;
    case CUDNN_DATA_BFLOAT16: run<bf16_bits, float>(a, workspace, s); break;
    default: fail(CUDNN_STATUS_NOT_SUPPORTED, "cuda.normalization: data type ", static_cast<int>(a.data_type));
  }
}

}  // namespace fdnn::cuda
