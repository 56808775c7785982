// Cross-channel LRN along planes (cuda.lrn): every operand's innermost dim
// (after merging trailing dims that are contiguous in every operand) has
// stride 1, so V neighbouring positions of one channel are one 16-, 8- or
// 4-byte access (NCHW: V elements along W).
//
// A thread takes V positions and a chunk of channels (neighbouring warps:
// the chunks of the same 32 x V positions, so that their halo channels are
// cache hits). The channels it needs stream through a ring of its own in
// shared memory, filled by cp.async PF accesses ahead of use: the bytes in
// flight cost no registers. (The scalar window kernels of lrn_kernels.cu,
// one position per thread with eight 2-byte loads in registers, reached
// 0.36 / 0.51 of copy for NCHW f16 32x256x56x56 forward / backward on the
// H100: too few bytes in flight per multiprocessor.) The window's x, and
// backward's r = dy x S^(-beta-1) and q = dy S^-beta, stay in registers as
// floats; each window sum is a direct sum in float (no running sums, so
// large values leave no residue).
//
// A thread reads only ring slots it filled itself: cp.async.wait_group
// orders them and no barrier is needed. Every element is loaded before the
// thread writes at its channel; in place runs with one chunk per line, as
// in lrn_kernels.cu.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "cuda/cp_async.cuh"
#include "cuda/cuda_util.hpp"
#include "cuda/lrn_args.hpp"
#include "cuda/lrn_device.cuh"

namespace fdnn::cuda {
namespace {

using namespace lrn_detail;

constexpr int kPlaneThreads = 128;
constexpr int kFwdSlots = 8, kFwdAhead = 7;     // ring slots, accesses in flight
constexpr int kBwdSlots = 16, kBwdAhead = 12;   // per operand (x, dy)
constexpr int kBwdUnroll = 1;  // channels per loop body
constexpr int kFwdMinBlocks = 4, kBwdMinBlocks = 3;  // per SM (__launch_bounds__)

template <class T, int V>
struct alignas(sizeof(T) * V) Lanes {
  T v[V];
};

template <class T, int V>
__device__ inline void to_floats(const Lanes<T, V> &l, float (&f)[V]) {
#pragma unroll
  for (int e = 0; e < V; ++e) f[e] = to_compute<T, float>(l.v[e]);
}

// out = alpha v + beta out (out read only when beta != 0), rounded to T.
template <class T, int V>
__device__ inline void store_blended(T *p, float (&v)[V], float alpha, float beta) {
  using L = Lanes<T, V>;
  L *q = reinterpret_cast<L *>(p);
  if (beta != 0.0f) {
    float prior[V];
    to_floats<T, V>(*q, prior);
#pragma unroll
    for (int e = 0; e < V; ++e) v[e] = alpha * v[e] + beta * prior[e];
  } else if (alpha != 1.0f) {  // (a branch: predicated multiplies still take issue slots)
#pragma unroll
    for (int e = 0; e < V; ++e) v[e] *= alpha;
  }
  L o;
  if constexpr (std::is_same_v<T, __half>) {
#pragma unroll
    for (int e = 0; e < V; e += 2) *reinterpret_cast<__half2 *>(&o.v[e]) = __floats2half2_rn(v[e], v[e + 1]);
  } else if constexpr (std::is_same_v<T, __nv_bfloat16>) {
#pragma unroll
    for (int e = 0; e < V; e += 2)
      *reinterpret_cast<__nv_bfloat162 *>(&o.v[e]) = __floats2bfloat162_rn(v[e], v[e + 1]);
  } else {
#pragma unroll
    for (int e = 0; e < V; ++e) o.v[e] = v[e];
  }
  *q = o;
}

// The thread's V positions and channel chunk; false past the last position.
struct PlaneWork {
  int64_t vp, c0, c1;
};
__device__ inline bool plane_work(const LrnArgs &a, int64_t vpos, int chunk, PlaneWork &w) {
  const int64_t chunks = (a.dims[1] + chunk - 1) / chunk;
  const int64_t t = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int64_t warp = t >> 5;
  w.vp = (warp / chunks) * 32 + (t & 31);
  w.c0 = (warp % chunks) * chunk;
  w.c1 = min(a.dims[1], w.c0 + chunk);
  return w.vp < vpos;
}

// A thread's ring of slots in the kernel's dynamic shared memory: slot s is
// word s * kPlaneThreads + threadIdx.x (a warp's accesses are consecutive
// words: no bank conflicts), filled by cp.async at slot_addr(s).
template <class L>
struct PlaneRing {
  static constexpr uint32_t slot_bytes = kPlaneThreads * sizeof(L);
  const L *mine;  // this thread's slot 0
  uint32_t addr;  // its shared-memory address
  __device__ explicit PlaneRing(const unsigned char *base)
      : mine(reinterpret_cast<const L *>(base) + threadIdx.x),
        addr(static_cast<uint32_t>(__cvta_generic_to_shared(mine))) {}
  __device__ uint32_t slot_addr(int s) const { return addr + s * slot_bytes; }
  __device__ const L &slot(int s) const { return mine[s * kPlaneThreads]; }
};

// planes_forward: every odd chunk of channels is walked from its last
// channel down when `alt` is set (the default for 16-byte accesses;
// FREEDNN_LRN_TUNE=noalt turns it off), MINB blocks per SM for
// __launch_bounds__ and a ring of D slots with PF accesses in flight.
// Neighbouring chunks share 2 x (BEHIND + AHEAD) halo channels. Walked the
// same way, one chunk reads them at its start and the other at its end, a
// block's lifetime apart, and the second read missed L2: ncu of NCHW f16
// 32x256x56x56 n = 5 (51.4 MB of x) counted 55.8 MB of DRAM reads. Walked in
// opposite directions, both chunks read them at about the same time: 51.4
// MB, 41.1 -> 39.6 us. The reversed walk sums the window in ascending
// channel order too (j from N - 1 down): the same bits. H100, same run, of
// copy (x cuDNN 9.19), old -> alternating: f16 NCHW 0.70-0.72 (2.80-2.88)
// -> 0.74-0.76 (2.98-3.04), f32 NCHW 0.82-0.83 -> 0.85-0.86. Measured and
// left as words: "lb8" (8 blocks per SM, 64 registers: 0.74 with the
// alternation, 0.71 without), "pf12" (16 slots, 12 in flight: 0.74); chunks
// of 32 channels ("c32", 1.2 waves) 0.66.
template <bool REV, class T, int V, int BEHIND, int AHEAD, int D, int PF>
__device__ __forceinline__ void planes_forward_walk(const LrnArgs &a, const PlaneWork &w, const T *x, T *y,
                                                    const unsigned char *ring_base) {
  using L = Lanes<T, V>;
  constexpr int N = BEHIND + AHEAD + 1;
  static_assert(PF < D, "a slot is refilled only after its read");
  const int64_t xs = a.strides[LrnArgs::kX][1], ys = a.strides[LrnArgs::kY][1], C_ = a.dims[1];
  // Access i: x at channel c0 - BEHIND + i (REV: c1 - 1 + AHEAD - i), into slot i % D.
  const int loads = static_cast<int>(w.c1 - w.c0) + N - 1;
  const PlaneRing<L> ring(ring_base);
  auto issue = [&](int i) {
    if (i < loads) {
      const int64_t c = REV ? w.c1 - 1 + AHEAD - i : w.c0 - BEHIND + i;
      const bool ok = c >= 0 && c < C_;
      cp_async_ordered<sizeof(L)>(ring.slot_addr(i % D), ok ? x + c * xs : x, ok);
    }
    cp_async_commit_ordered();  // empty groups past the end keep the count uniform
  };
#pragma unroll
  for (int i = 0; i < PF; ++i) issue(i);
  const float k = a.kf, al = a.af, beta = a.betaf, blend_alpha = a.blend_alpha_f, blend_beta = a.blend_beta_f;
  const int kind = a.kind;
  float xw[N][V] = {};  // x of the last N accesses
  for (int i = 0; i < loads; ++i) {
    issue(i + PF);
    cp_async_wait_ordered<PF>();  // access i has landed
    const L v = ring.slot(i % D);
#pragma unroll
    for (int j = 0; j + 1 < N; ++j)
#pragma unroll
      for (int e = 0; e < V; ++e) xw[j][e] = xw[j + 1][e];
    to_floats<T, V>(v, xw[N - 1]);
    if (i < N - 1) continue;
    // Forward: xw[j] is channel c - BEHIND + j; REV: c + AHEAD - j.
    float out[V];
#pragma unroll
    for (int e = 0; e < V; ++e) {
      float acc = 0.0f;
#pragma unroll
      for (int jj = 0; jj < N; ++jj) {
        const int j = REV ? N - 1 - jj : jj;
        acc += xw[j][e] * xw[j][e];
      }
      out[e] = k + al * acc;
    }
    neg_pow_all<V>(out, beta, kind);
#pragma unroll
    for (int e = 0; e < V; ++e) out[e] = xw[REV ? AHEAD : BEHIND][e] * out[e];
    const int64_t c = REV ? w.c1 - 1 - (i - (N - 1)) : w.c0 + i - (N - 1);
    store_blended<T, V>(y + c * ys, out, blend_alpha, blend_beta);
  }
}

template <class T, int V, int BEHIND, int AHEAD, int MINB, int D, int PF>
__global__ void __launch_bounds__(kPlaneThreads, MINB)
    planes_forward(LrnArgs a, int64_t vpos, int chunk, int alt) {
  extern __shared__ __align__(16) unsigned char lrn_planes_ring[];
  PlaneWork w;
  if (!plane_work(a, vpos, chunk, w)) return;
  const Offsets off = position_offsets(a, w.vp * V);
  const T *x = static_cast<const T *>(a.ptr[LrnArgs::kX]) + off.o[LrnArgs::kX];
  T *y = static_cast<T *>(a.ptr[LrnArgs::kY]) + off.o[LrnArgs::kY];
  if (alt && ((w.c0 / chunk) & 1))
    planes_forward_walk<true, T, V, BEHIND, AHEAD, D, PF>(a, w, x, y, lrn_planes_ring);
  else
    planes_forward_walk<false, T, V, BEHIND, AHEAD, D, PF>(a, w, x, y, lrn_planes_ring);
}

// dx(c) = q(c) - 2 a beta x(c) sum_{j = c - AHEAD}^{c + BEHIND} r(j),
// q(j) = dy(j) P(j), r(j) = dy(j) x(j) P(j) / S(j), P = S^-beta,
// S(j) = k + a sum_{i = j - BEHIND}^{j + AHEAD} x(i)^2 (y recomputed from x, as cuDNN does).
template <class T, int V, int BEHIND, int AHEAD>
__global__ void __launch_bounds__(kPlaneThreads, kBwdMinBlocks) planes_backward(LrnArgs a, int64_t vpos, int chunk) {
  using L = Lanes<T, V>;
  constexpr int H = BEHIND + AHEAD, N = H + 1, D = kBwdSlots, PF = kBwdAhead;
  static_assert(PF + AHEAD < D, "dy of access i - AHEAD is still in its slot at access i");
  extern __shared__ __align__(16) unsigned char lrn_planes_ring[];
  PlaneWork w;
  if (!plane_work(a, vpos, chunk, w)) return;
  const Offsets off = position_offsets(a, w.vp * V);
  const T *x = static_cast<const T *>(a.ptr[LrnArgs::kX]) + off.o[LrnArgs::kX];
  const T *dy = static_cast<const T *>(a.ptr[LrnArgs::kDy]) + off.o[LrnArgs::kDy];
  T *dx = static_cast<T *>(a.ptr[LrnArgs::kDx]) + off.o[LrnArgs::kDx];
  const int64_t xs = a.strides[LrnArgs::kX][1], dys = a.strides[LrnArgs::kDy][1],
                dxs = a.strides[LrnArgs::kDx][1], C_ = a.dims[1];
  // Access i: channel c0 - H + i; x into slot i % D, dy into slot D + i % D
  // (dy only for the channels [c0 - AHEAD, c1 + BEHIND) whose r the chunk needs).
  const int loads = static_cast<int>(w.c1 - w.c0) + 2 * H;
  const PlaneRing<L> ring(lrn_planes_ring);
  auto issue = [&](int i) {
    if (i < loads) {
      const int64_t c = w.c0 - H + i;
      const bool ok = c >= 0 && c < C_;
      const bool ok_dy = ok && c >= w.c0 - AHEAD && c < w.c1 + BEHIND;
      cp_async_ordered<sizeof(L)>(ring.slot_addr(i % D), ok ? x + c * xs : x, ok);
      cp_async_ordered<sizeof(L)>(ring.slot_addr(D + i % D), ok_dy ? dy + c * dys : dy, ok_dy);
    }
    cp_async_commit_ordered();
  };
#pragma unroll
  for (int i = 0; i < PF; ++i) issue(i);
  const float k = a.kf, al = a.af, beta = a.betaf, tab = a.two_a_beta_f, blend_alpha = a.blend_alpha_f,
              blend_beta = a.blend_beta_f;
  const int kind = a.kind;
  // At access i: xw = x of accesses i - H .. i; j = channel of access i - AHEAD
  // (its window is complete); rw = r of the last N such j, qw = q of the last
  // BEHIND + 1; output channel c = j - BEHIND (access i - H: x at xw[0]).
  float xw[N][V] = {}, rw[N][V] = {}, qw[BEHIND + 1][V] = {};
  for (int i0 = 0; i0 < loads; i0 += kBwdUnroll) {
#pragma unroll
    for (int u = 0; u < kBwdUnroll; ++u) {
      const int i = i0 + u;
      if (i >= loads) break;
      issue(i + PF);
      cp_async_wait_ordered<PF>();
      const L v = ring.slot(i % D);
#pragma unroll
      for (int j = 0; j + 1 < N; ++j)
#pragma unroll
        for (int e = 0; e < V; ++e) xw[j][e] = xw[j + 1][e];
      to_floats<T, V>(v, xw[N - 1]);
      if (i < H) continue;  // j < c0 - AHEAD: no output needs its r
      float d[V];
      to_floats<T, V>(ring.slot(D + (i - AHEAD) % D), d);
#pragma unroll
      for (int j = 0; j + 1 < N; ++j)
#pragma unroll
        for (int e = 0; e < V; ++e) rw[j][e] = rw[j + 1][e];
#pragma unroll
      for (int j = 0; j < BEHIND; ++j)
#pragma unroll
        for (int e = 0; e < V; ++e) qw[j][e] = qw[j + 1][e];
      float sv[V], pw[V];
#pragma unroll
      for (int e = 0; e < V; ++e) {
        float acc = 0.0f;
#pragma unroll
        for (int j = 0; j < N; ++j) acc += xw[j][e] * xw[j][e];
        sv[e] = k + al * acc;
      }
      neg_pow_pair_all<V>(sv, pw, beta, kind);  // sv: S^(-beta-1)
#pragma unroll
      for (int e = 0; e < V; ++e) {
        rw[N - 1][e] = d[e] * xw[BEHIND][e] * sv[e];
        qw[BEHIND][e] = d[e] * pw[e];
      }
      if (i < 2 * H) continue;
      float out[V];
#pragma unroll
      for (int e = 0; e < V; ++e) {
        float sr = 0.0f;
#pragma unroll
        for (int j = 0; j < N; ++j) sr += rw[j][e];
        out[e] = qw[0][e] - tab * xw[0][e] * sr;
      }
      store_blended<T, V>(dx + (w.c0 + i - 2 * H) * dxs, out, blend_alpha, blend_beta);
    }
  }
}

template <class T, int V, int BEHIND, int AHEAD>
void launch_planes(const LrnArgs &a, int64_t vpos, int chunk, cudaStream_t s) {
  const int64_t chunks = (a.dims[1] + chunk - 1) / chunk;
  const int64_t threads = (vpos + 31) / 32 * 32 * chunks;
  const unsigned blocks = static_cast<unsigned>((threads + kPlaneThreads - 1) / kPlaneThreads);
  constexpr size_t slot = sizeof(Lanes<T, V>) * kPlaneThreads;
  if (a.backward) {
    constexpr size_t smem = 2 * kBwdSlots * slot;
    check_cuda(cudaFuncSetAttribute(planes_backward<T, V, BEHIND, AHEAD>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    static_cast<int>(smem)),
               "cudaFuncSetAttribute of lrn planes_backward");
    planes_backward<T, V, BEHIND, AHEAD><<<blocks, kPlaneThreads, smem, s>>>(a, vpos, chunk);
    check_launch("lrn planes_backward");
  } else {
    const LrnTune &tune = lrn_tune();
    const int alt = sizeof(Lanes<T, V>) == 16 && !tune.noalt ? 1 : 0;
    if (tune.pf12) {
      constexpr size_t smem = 16 * slot;
      planes_forward<T, V, BEHIND, AHEAD, kFwdMinBlocks, 16, 12>
          <<<blocks, kPlaneThreads, smem, s>>>(a, vpos, chunk, alt);
    } else if (tune.lb8) {
      constexpr size_t smem = kFwdSlots * slot;
      planes_forward<T, V, BEHIND, AHEAD, 8, kFwdSlots, kFwdAhead>
          <<<blocks, kPlaneThreads, smem, s>>>(a, vpos, chunk, alt);
    } else {
      constexpr size_t smem = kFwdSlots * slot;
      planes_forward<T, V, BEHIND, AHEAD, kFwdMinBlocks, kFwdSlots, kFwdAhead>
          <<<blocks, kPlaneThreads, smem, s>>>(a, vpos, chunk, alt);
    }
    check_launch("lrn planes_forward");
  }
}

template <class T, int V>
void launch_planes_window(const LrnArgs &a, int64_t vpos, int chunk, cudaStream_t s) {
  if (a.behind == 2) launch_planes<T, V, 2, 2>(a, vpos, chunk, s);
  else launch_planes<T, V, 1, 1>(a, vpos, chunk, s);
}

template <class T>
void launch_planes_typed(const LrnArgs &a, int v_bytes, int64_t vpos, int chunk, cudaStream_t s) {
  constexpr int E = static_cast<int>(sizeof(T));
  if (v_bytes == 16) launch_planes_window<T, 16 / E>(a, vpos, chunk, s);
  else if constexpr (E <= 4) {
    if (v_bytes == 8) launch_planes_window<T, 8 / E>(a, vpos, chunk, s);
    else if constexpr (E == 2) launch_planes_window<T, 2>(a, vpos, chunk, s);
  }
}

}  // namespace

bool launch_lrn_planes(const LrnArgs &args, void *stream) {
  const LrnTune &tune = lrn_tune();
  if (!args.cross || args.count == 0) return false;
  const int type_bytes = args.dtype == CUDNN_DATA_FLOAT ? 4
                         : args.dtype == CUDNN_DATA_HALF || args.dtype == CUDNN_DATA_BFLOAT16 ? 2
                                                                                               : 0;
  if (type_bytes == 0 || tune.old_paths(type_bytes)) return false;
  if (!((args.behind == 2 && args.ahead == 2) || (args.behind == 1 && args.ahead == 1))) return false;
  const int ops_fwd[] = {LrnArgs::kX, LrnArgs::kY}, ops_bwd[] = {LrnArgs::kX, LrnArgs::kDy, LrnArgs::kDx};
  const int *ops = args.backward ? ops_bwd : ops_fwd;
  const int n_ops = args.backward ? 3 : 2;
  // Trailing dims (past C) that are contiguous in every operand become one.
  LrnArgs a = args;
  while (a.rank > 3) {
    const int d = a.rank - 1;
    bool merge = true;
    for (int o = 0; o < n_ops; ++o)
      if (a.strides[ops[o]][d - 1] != a.strides[ops[o]][d] * a.dims[d]) merge = false;
    if (!merge) break;
    a.dims[d - 1] *= a.dims[d];
    for (int o = 0; o < n_ops; ++o) a.strides[ops[o]][d - 1] = a.strides[ops[o]][d];
    --a.rank;
  }
  const int last = a.rank - 1;
  if (last < 2) return false;
  for (int o = 0; o < n_ops; ++o)
    if (a.strides[ops[o]][last] != 1) return false;
  // The widest access (16, 8 or 4 bytes, at least 2 elements) that the
  // innermost dim, every other stride and every pointer allow.
  int v_bytes = 0;
  for (int vb : {16, 8, 4}) {
    if (tune.v8 && vb == 16) continue;
    const int v = vb / type_bytes;
    if (v < 2 || a.dims[last] % v != 0) continue;
    bool ok = true;
    for (int o = 0; o < n_ops && ok; ++o) {
      if (!aligned_to(a.ptr[ops[o]], static_cast<size_t>(vb))) ok = false;
      for (int d = 0; d < last; ++d)
        if (a.dims[d] > 1 && a.strides[ops[o]][d] % v != 0) ok = false;
    }
    if (ok) {
      v_bytes = vb;
      break;
    }
  }
  if (v_bytes == 0) return false;
  const int64_t vpos = a.positions / (v_bytes / type_bytes);
  const int64_t C_ = a.dims[1];
  // Channels per thread: one chunk per line in place (see the top), else the
  // longest of 64, 32, 16 that still gives 1024 threads per SM forward, 256
  // backward (whose threads hold more registers). Each chunk re-reads its
  // halo channels (cache hits): backward, with twice the halo, gains from
  // longer chunks. H100, NCHW f16 32x256x56x56, GB/s (copy about 2750):
  // backward 2725-2740 with 64 channels (the default), 2259 with 16;
  // forward 2010-2099 with 16 (the default), 2038 with 64: within the
  // spread of two runs. 8-byte accesses ("v8"): 1979 / 2290.
  const void *out = a.ptr[a.backward ? LrnArgs::kDx : LrnArgs::kY];
  const bool in_place = out == a.ptr[LrnArgs::kX] || (a.backward && out == a.ptr[LrnArgs::kDy]);
  int64_t chunk = 64;
  if (tune.chunk > 0) chunk = tune.chunk;
  else
    while (chunk > 16 && vpos * ((C_ + chunk - 1) / chunk) < int64_t{a.backward ? 256 : 1024} * sm_count())
      chunk /= 2;
  if (in_place || chunk > C_) chunk = C_;
  if (C_ >= (int64_t{1} << 31) || (vpos + 31) / 32 * 32 * ((C_ + chunk - 1) / chunk) >= (int64_t{1} << 38))
    return false;
  cudaStream_t s = as_stream(stream);
  const int ch = static_cast<int>(chunk);
  if (args.dtype == CUDNN_DATA_FLOAT) launch_planes_typed<float>(a, v_bytes, vpos, ch, s);
  else if (args.dtype == CUDNN_DATA_HALF) launch_planes_typed<__half>(a, v_bytes, vpos, ch, s);
  else launch_planes_typed<__nv_bfloat16>(a, v_bytes, vpos, ch, s);
  return true;
}

}  // namespace fdnn::cuda
