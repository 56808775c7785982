// CUDA softmax kernels.
//  - rows in registers: rows whose reduced elements are one contiguous,
//    16-byte aligned run; a group of threads (a warp for short rows, a
//    256-thread block for long ones) holds the whole row in registers, so x
//    (and dy) are read once and y (dx) written once: the memory-bound ideal.
//    16-bit rows of 33..512 vectors: a warp per row, the row kept packed
//    (softmax_warp_packed_kernel).
//  - generic: any strides and row lengths; LANES threads per row (1 when the
//    rows' innermost kept dim is contiguous, so a warp's threads read
//    neighbouring addresses; else 32) walk the row two or three times.
// Forward: ACCURATE/LOG subtract the row max (no overflow); FAST does not.
#include <cuda_runtime.h>

#include <cfloat>
#include <cmath>

#include "core/env_words.hpp"
#include "cuda/cuda_util.hpp"
#include "cuda/softmax_args.hpp"
#include "cuda/storage_types.cuh"

namespace fdnn::cuda {
namespace {

constexpr int kBlock = 256;

template <class C>
__device__ inline C neg_inf() {
  return -static_cast<C>(INFINITY);
}

template <class C>
__device__ inline C exp_c(C v) {
  return exp(v);
}
template <>
__device__ inline float exp_c<float>(float v) {
  return expf(v);
}

// Reduction over a group of GROUP threads (GROUP a power of two <= 32, or
// the whole block of kBlock threads with `shared` scratch of kBlock / 32).
template <int GROUP, bool MAX, class C>
__device__ inline C group_reduce(C v, C *shared) {
#pragma unroll
  for (int o = (GROUP < 32 ? GROUP : 32) / 2; o > 0; o /= 2) {
    const C w = __shfl_xor_sync(0xffffffffu, v, o);
    v = MAX ? (w > v ? w : v) : v + w;
  }
  if constexpr (GROUP > 32) {
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    __syncthreads();  // shared is reused between reductions
    if (lane == 0) shared[warp] = v;
    __syncthreads();
    v = shared[0];
#pragma unroll
    for (int w = 1; w < GROUP / 32; ++w) v = MAX ? (shared[w] > v ? shared[w] : v) : v + shared[w];
  }
  return v;
}

__device__ inline int64_t kept_offset(const SoftmaxArgs &a, int op, int64_t row) {
  int64_t off = 0;
  for (int d = a.kept_rank - 1; d >= 0; --d) {
    const int64_t e = a.kept_extent[d];
    off += (row % e) * a.kept_stride[op][d];
    row /= e;
  }
  return off;
}

template <class S, class C, int VEC, int NV, int GROUP>
__global__ void __launch_bounds__(kBlock) softmax_rows_kernel(const SoftmaxArgs a) {
  __shared__ C shared[kBlock / 32];
  constexpr int kRowsPerBlock = kBlock / GROUP;
  const int64_t row = static_cast<int64_t>(blockIdx.x) * kRowsPerBlock + threadIdx.x / GROUP;
  const int lane = threadIdx.x % GROUP;
  const bool active = row < a.rows;  // inactive threads still join the block reductions
  const int64_t nvec = a.row_len / VEC;
  using P = Pack<S, VEC>;
  const int nin = a.backward ? 2 : 1;
  const int out_op = nin;
  C v0[NV][VEC], v1[NV][VEC];
  const S *in0 = static_cast<const S *>(a.in0) + (active ? kept_offset(a, 0, row) : 0);
  const S *in1 = a.backward ? static_cast<const S *>(a.in1) + (active ? kept_offset(a, 1, row) : 0) : nullptr;
#pragma unroll
  for (int k = 0; k < NV; ++k) {
    const int64_t v = lane + static_cast<int64_t>(k) * GROUP;
    const bool ok = active && v < nvec;
    P p0, p1;
    if (ok) p0 = reinterpret_cast<const P *>(in0)[v];
    if (ok && nin > 1) p1 = reinterpret_cast<const P *>(in1)[v];
#pragma unroll
    for (int i = 0; i < VEC; ++i) {
      v0[k][i] = ok ? Storage<S>::template load<C>(p0.v[i]) : C(0);
      v1[k][i] = ok && nin > 1 ? Storage<S>::template load<C>(p1.v[i]) : C(0);
    }
  }
  auto valid = [&](int k) { return active && lane + static_cast<int64_t>(k) * GROUP < nvec; };
  if (!a.backward) {
    C mx = C(0);
    if (a.algorithm != CUDNN_SOFTMAX_FAST) {
      mx = neg_inf<C>();
#pragma unroll
      for (int k = 0; k < NV; ++k)
        if (valid(k))
#pragma unroll
          for (int i = 0; i < VEC; ++i) mx = v0[k][i] > mx ? v0[k][i] : mx;
      mx = group_reduce<GROUP, true>(mx, shared);
    }
    C sum = C(0);
#pragma unroll
    for (int k = 0; k < NV; ++k)
#pragma unroll
      for (int i = 0; i < VEC; ++i) {
        const C e = valid(k) ? exp_c(v0[k][i] - mx) : C(0);
        if (a.algorithm != CUDNN_SOFTMAX_LOG) v1[k][i] = e;
        sum += e;
      }
    sum = group_reduce<GROUP, false>(sum, shared);
    if (a.algorithm == CUDNN_SOFTMAX_LOG) {
      const C shift = mx + log(sum);
#pragma unroll
      for (int k = 0; k < NV; ++k)
#pragma unroll
        for (int i = 0; i < VEC; ++i) v1[k][i] = v0[k][i] - shift;
    } else {
      const C inv = C(1) / sum;
#pragma unroll
      for (int k = 0; k < NV; ++k)
#pragma unroll
        for (int i = 0; i < VEC; ++i) v1[k][i] *= inv;
    }
  } else {
    // v0 = y, v1 = dy.
    C s = C(0);
#pragma unroll
    for (int k = 0; k < NV; ++k)
#pragma unroll
      for (int i = 0; i < VEC; ++i) s += a.algorithm == CUDNN_SOFTMAX_LOG ? v1[k][i] : v0[k][i] * v1[k][i];
    s = group_reduce<GROUP, false>(s, shared);
#pragma unroll
    for (int k = 0; k < NV; ++k)
#pragma unroll
      for (int i = 0; i < VEC; ++i)
        v1[k][i] = a.algorithm == CUDNN_SOFTMAX_LOG ? v1[k][i] - exp_c(v0[k][i]) * s : v0[k][i] * (v1[k][i] - s);
  }
  if (!active) return;
  S *out = static_cast<S *>(a.out) + kept_offset(a, out_op, row);
  const C alpha = static_cast<C>(a.alpha), beta = static_cast<C>(a.beta);
#pragma unroll
  for (int k = 0; k < NV; ++k) {
    const int64_t v = lane + static_cast<int64_t>(k) * GROUP;
    if (v >= nvec) continue;
    P prior, r;
    if (beta != C(0)) prior = reinterpret_cast<const P *>(out)[v];
#pragma unroll
    for (int i = 0; i < VEC; ++i) {
      C val = alpha * v1[k][i];
      if (beta != C(0)) val += beta * Storage<S>::template load<C>(prior.v[i]);
      r.v[i] = Storage<S>::store(val);
    }
    reinterpret_cast<P *>(out)[v] = r;
  }
}

__device__ inline int64_t red_offset(const SoftmaxArgs &a, int op, int64_t i) {
  int64_t off = 0;
  for (int d = a.red_rank - 1; d >= 0; --d) {
    const int64_t e = a.red_extent[d];
    off += (i % e) * a.red_stride[op][d];
    i /= e;
  }
  return off;
}

template <class S, class C, int LANES>
__global__ void __launch_bounds__(kBlock) softmax_generic_kernel(const SoftmaxArgs a) {
  const int64_t t = static_cast<int64_t>(blockIdx.x) * kBlock + threadIdx.x;
  const int64_t row = t / LANES;
  const int lane = static_cast<int>(t % LANES);
  const bool active = row < a.rows;
  if (LANES == 1 && !active) return;
  const int nin = a.backward ? 2 : 1;
  const S *in0 = static_cast<const S *>(a.in0) + (active ? kept_offset(a, 0, row) : 0);
  const S *in1 = a.backward ? static_cast<const S *>(a.in1) + (active ? kept_offset(a, 1, row) : 0) : nullptr;
  S *out = static_cast<S *>(a.out) + (active ? kept_offset(a, nin, row) : 0);
  const int64_t n = active ? a.row_len : 0;
  auto ld = [&](const S *p, int op, int64_t i) { return Storage<S>::template load<C>(p[red_offset(a, op, i)]); };
  C mx = C(0), s = C(0);
  if (!a.backward && a.algorithm != CUDNN_SOFTMAX_FAST) {
    mx = neg_inf<C>();
    for (int64_t i = lane; i < n; i += LANES) {
      const C v = ld(in0, 0, i);
      mx = v > mx ? v : mx;
    }
    if (LANES > 1) mx = group_reduce<LANES, true>(mx, static_cast<C *>(nullptr));
  }
  for (int64_t i = lane; i < n; i += LANES) {
    if (!a.backward) s += exp_c(ld(in0, 0, i) - mx);
    else s += a.algorithm == CUDNN_SOFTMAX_LOG ? ld(in1, 1, i) : ld(in0, 0, i) * ld(in1, 1, i);
  }
  if (LANES > 1) s = group_reduce<LANES, false>(s, static_cast<C *>(nullptr));
  const C alpha = static_cast<C>(a.alpha), beta = static_cast<C>(a.beta);
  const C shift = a.algorithm == CUDNN_SOFTMAX_LOG && !a.backward ? mx + log(s) : C(0);
  const C inv = C(1) / s;
  for (int64_t i = lane; i < n; i += LANES) {
    C r;
    if (!a.backward) {
      const C x = ld(in0, 0, i);
      r = a.algorithm == CUDNN_SOFTMAX_LOG ? x - shift : exp_c(x - mx) * inv;
    } else {
      const C y = ld(in0, 0, i), dy = ld(in1, 1, i);
      r = a.algorithm == CUDNN_SOFTMAX_LOG ? dy - exp_c(y) * s : y * (dy - s);
    }
    S &o = out[red_offset(a, nin, i)];
    C val = alpha * r;
    if (beta != C(0)) val += beta * Storage<S>::template load<C>(o);
    o = Storage<S>::store(val);
  }
}

// Forward of the register path, one kernel per algorithm so that x's
// registers hold exp(x - m) in place (fewer registers: more rows in flight
// per multiprocessor). Max and sum come from one group reduction of
// (max, sum) pairs: each thread sums exp(x - its own max), and pairs combine
// as (M, s1 * e^(m1 - M) + s2 * e^(m2 - M)).
template <class C>
__device__ inline C rescale(C d) {  // e^d, with -inf - -inf (two empty parts) as 1
  return d == d ? exp_c(d) : C(1);
}

template <int GROUP, class C>
__device__ inline void group_reduce_max_sum(C &m, C &s, C *shared_m, C *shared_s) {
#pragma unroll
  for (int o = (GROUP < 32 ? GROUP : 32) / 2; o > 0; o /= 2) {
    const C m2 = __shfl_xor_sync(0xffffffffu, m, o), s2 = __shfl_xor_sync(0xffffffffu, s, o);
    const C mm = m2 > m ? m2 : m;
    s = s * rescale(m - mm) + s2 * rescale(m2 - mm);
    m = mm;
  }
  if constexpr (GROUP > 32) {
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    if (lane == 0) {
      shared_m[warp] = m;
      shared_s[warp] = s;
    }
    __syncthreads();
    m = shared_m[0];
    s = shared_s[0];
#pragma unroll
    for (int w = 1; w < GROUP / 32; ++w) {
      const C m2 = shared_m[w], s2 = shared_s[w];
      const C mm = m2 > m ? m2 : m;
      s = s * rescale(m - mm) + s2 * rescale(m2 - mm);
      m = mm;
    }
  }
}

template <class S, class C, int VEC, int NV, int GROUP, int ALGO>
__global__ void __launch_bounds__(kBlock, (NV * VEC <= 16 ? 6 : 1)) softmax_fwd_rows_kernel(const SoftmaxArgs a) {
  __shared__ C shared_m[kBlock / 32], shared_s[kBlock / 32];
  constexpr int kRowsPerBlock = kBlock / GROUP;
  const int64_t row = static_cast<int64_t>(blockIdx.x) * kRowsPerBlock + threadIdx.x / GROUP;
  const int lane = threadIdx.x % GROUP;
  const bool active = row < a.rows;  // inactive threads still join the block reductions
  const int64_t nvec = a.row_len / VEC;
  using P = Pack<S, VEC>;
  C v[NV][VEC];
  const S *in = static_cast<const S *>(a.in0) + (active ? kept_offset(a, 0, row) : 0);
  P p[NV];
#pragma unroll
  for (int k = 0; k < NV; ++k)
    if (active && lane + static_cast<int64_t>(k) * GROUP < nvec) p[k] = reinterpret_cast<const P *>(in)[lane + k * GROUP];
  auto valid = [&](int k) { return active && lane + static_cast<int64_t>(k) * GROUP < nvec; };
  C m = ALGO == CUDNN_SOFTMAX_FAST ? C(0) : neg_inf<C>();
#pragma unroll
  for (int k = 0; k < NV; ++k)
#pragma unroll
    for (int i = 0; i < VEC; ++i) {
      v[k][i] = valid(k) ? Storage<S>::template load<C>(p[k].v[i]) : C(0);
      if (ALGO != CUDNN_SOFTMAX_FAST && valid(k)) m = v[k][i] > m ? v[k][i] : m;
    }
  C s = C(0);
  // A thread whose values are all -inf sums e^-inf = 0 (pair (-inf, 0)), as
  // the row's maximum would give it.
  const C m_sub = m == neg_inf<C>() ? C(0) : m;
#pragma unroll
  for (int k = 0; k < NV; ++k)
#pragma unroll
    for (int i = 0; i < VEC; ++i) {
      const C e = valid(k) ? exp_c(v[k][i] - m_sub) : C(0);
      if (ALGO != CUDNN_SOFTMAX_LOG) v[k][i] = e;
      s += e;
    }
  const C m_own = m;
  if (ALGO == CUDNN_SOFTMAX_FAST) s = group_reduce<GROUP, false>(s, shared_s);
  else group_reduce_max_sum<GROUP>(m, s, shared_m, shared_s);
  if (!active) return;
  // y = e^(x - m_own) * e^(m_own - M) / S, or x - (M + log S).
  const C factor = ALGO == CUDNN_SOFTMAX_FAST ? C(1) / s : (m_own == neg_inf<C>() ? C(0) : rescale(m_own - m)) / s;
  const C shift = m + log(s);
  S *out = static_cast<S *>(a.out) + kept_offset(a, 1, row);
  const C alpha = static_cast<C>(a.alpha), beta = static_cast<C>(a.beta);
#pragma unroll
  for (int k = 0; k < NV; ++k) {
    const int64_t vi = lane + static_cast<int64_t>(k) * GROUP;
    if (vi >= nvec) continue;
    P prior, r;
    if (beta != C(0)) prior = reinterpret_cast<const P *>(out)[vi];
#pragma unroll
    for (int i = 0; i < VEC; ++i) {
      C val = alpha * (ALGO == CUDNN_SOFTMAX_LOG ? v[k][i] - shift : v[k][i] * factor);
      if (beta != C(0)) val += beta * Storage<S>::template load<C>(prior.v[i]);
      r.v[i] = Storage<S>::store(val);
    }
    reinterpret_cast<P *>(out)[vi] = r;
  }
}

// 16-bit rows of up to 32 * NV 16-byte vectors: a warp per row, the row
// kept packed in registers (NV * 4 registers per input: half the registers
// of float copies: the 4096-element forward takes 107 registers, 16 warps
// per multiprocessor, each with its whole 8 KB row in flight), no block
// barriers (warp shuffles only). Values are widened to float where used: the
// exponentials are computed twice (for the sum and for the output) with the
// special-function unit's exp2 (relative error about 2^-22 plus the argument's
// rounding: far below half / bfloat16 precision). EXACT: expf, for measuring.
constexpr int kWarpRowsBlock = 128;

// e^d. (x - m) is formed before the scaling by log2(e): scaling x and m
// apart would round m * log2(e) with an error that grows with |m|.
template <bool EXACT>
__device__ inline float exp_fast(float d) {
  if constexpr (EXACT) return expf(d);
  float r;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(d * 1.4426950408889634f));
  return r;
}

template <class S, int NV, int ALGO, bool BWD, bool EXACT>
__global__ void __launch_bounds__(256) softmax_warp_packed_kernel(const SoftmaxArgs a) {
  constexpr int VEC = 8;
  using P = Pack<S, VEC>;
  const int lane = threadIdx.x & 31;
  const int64_t row = static_cast<int64_t>(blockIdx.x) * (blockDim.x >> 5) + (threadIdx.x >> 5);
  if (row >= a.rows) return;  // the whole warp: the row is its own
  const int nvec = static_cast<int>(a.row_len / VEC);
  const S *in0 = static_cast<const S *>(a.in0) + kept_offset(a, 0, row);
  const S *in1 = BWD ? static_cast<const S *>(a.in1) + kept_offset(a, 1, row) : nullptr;
  P p0[NV], p1[BWD ? NV : 1];
#pragma unroll
  for (int k = 0; k < NV; ++k)
    if (lane + 32 * k < nvec) {
      p0[k] = reinterpret_cast<const P *>(in0)[lane + 32 * k];
      if constexpr (BWD) p1[k] = reinterpret_cast<const P *>(in1)[lane + 32 * k];
    }
  auto ld = [](const P &p, int i) { return Storage<S>::template load<float>(p.v[i]); };
  auto valid = [&](int k) { return lane + 32 * k < nvec; };
  const float alpha = static_cast<float>(a.alpha), beta = static_cast<float>(a.beta);
  // Output of vector k, element i: f(k, i); blended and stored packed.
  auto store = [&](auto f) {
    S *out = static_cast<S *>(a.out) + kept_offset(a, BWD ? 2 : 1, row);
#pragma unroll
    for (int k = 0; k < NV; ++k) {
      if (!valid(k)) continue;
      P prior, r;
      if (beta != 0.0f) prior = reinterpret_cast<const P *>(out)[lane + 32 * k];
#pragma unroll
      for (int i = 0; i < VEC; ++i) {
        float val = f(k, i);
        if (beta != 0.0f) val += beta * ld(prior, i);
        r.v[i] = Storage<S>::store(val);
      }
      reinterpret_cast<P *>(out)[lane + 32 * k] = r;
    }
  };
  if constexpr (!BWD) {
    float m = 0.0f;
    if constexpr (ALGO != CUDNN_SOFTMAX_FAST) {
      m = neg_inf<float>();
#pragma unroll
      for (int k = 0; k < NV; ++k)
        if (valid(k))
#pragma unroll
          for (int i = 0; i < VEC; ++i) m = fmaxf(m, ld(p0[k], i));
      m = group_reduce<32, true>(m, static_cast<float *>(nullptr));
    }
    // A row of -inf only: m = -inf; x - m is NaN as on the other paths.
    float s = 0.0f;
#pragma unroll
    for (int k = 0; k < NV; ++k)
      if (valid(k))
#pragma unroll
        for (int i = 0; i < VEC; ++i) s += exp_fast<EXACT>(ld(p0[k], i) - m);
    s = group_reduce<32, false>(s, static_cast<float *>(nullptr));
    if constexpr (ALGO == CUDNN_SOFTMAX_LOG) {
      const float shift = m + logf(s);
      store([&](int k, int i) { return alpha * (ld(p0[k], i) - shift); });
    } else {
      const float factor = alpha / s;
      store([&](int k, int i) { return exp_fast<EXACT>(ld(p0[k], i) - m) * factor; });
    }
  } else {
    // p0 = y, p1 = dy.
    float s = 0.0f;
#pragma unroll
    for (int k = 0; k < NV; ++k)
      if (valid(k))
#pragma unroll
        for (int i = 0; i < VEC; ++i) s += ALGO == CUDNN_SOFTMAX_LOG ? ld(p1[k], i) : ld(p0[k], i) * ld(p1[k], i);
    s = group_reduce<32, false>(s, static_cast<float *>(nullptr));
    if constexpr (ALGO == CUDNN_SOFTMAX_LOG)
      store([&](int k, int i) { return alpha * (ld(p1[k], i) - exp_fast<EXACT>(ld(p0[k], i)) * s); });
    else
      store([&](int k, int i) { return alpha * (ld(p0[k], i) * (ld(p1[k], i) - s)); });
  }
}

// FREEDNN_SOFTMAX_TUNE (for measurements), comma-separated: "old" (16-bit
// rows on the block kernels, as before the warp kernel), "exact" (the warp
// kernel with expf instead of the approximate exp2), "w8" (8 warps per
// block instead of 4). H100, 16384 x 4096 half, GB/s (copy 2900): forward
// accurate / log 1994 / 1966 old, 2548 / 2619 new, 2425 / 2558 exact,
// 2555 / 2598 w8; backward about 2780 on both kernels.
struct SoftmaxTune {
  bool old = false, exact = false, w8 = false;
};
const SoftmaxTune &softmax_tune() {
  static const SoftmaxTune t = [] {
    SoftmaxTune r;
    r.old = env_has_word("FREEDNN_SOFTMAX_TUNE", "old");
    r.exact = env_has_word("FREEDNN_SOFTMAX_TUNE", "exact");
    r.w8 = env_has_word("FREEDNN_SOFTMAX_TUNE", "w8");
    return r;
  }();
  return t;
}

template <class S, int NV, bool BWD, bool EXACT>
void launch_warp_packed_algo(const SoftmaxArgs &a, cudaStream_t stream) {
  const int threads = softmax_tune().w8 ? 256 : kWarpRowsBlock;
  const int rows_per_block = threads / 32;
  const unsigned g = static_cast<unsigned>((a.rows + rows_per_block - 1) / rows_per_block);
  if (a.algorithm == CUDNN_SOFTMAX_LOG)
    softmax_warp_packed_kernel<S, NV, CUDNN_SOFTMAX_LOG, BWD, EXACT><<<g, threads, 0, stream>>>(a);
  else if (a.algorithm == CUDNN_SOFTMAX_FAST && !BWD)
    softmax_warp_packed_kernel<S, NV, CUDNN_SOFTMAX_FAST, BWD, EXACT><<<g, threads, 0, stream>>>(a);
  else softmax_warp_packed_kernel<S, NV, CUDNN_SOFTMAX_ACCURATE, BWD, EXACT><<<g, threads, 0, stream>>>(a);
  check_launch("softmax_warp_packed_kernel");
}

template <class S, int NV>
void launch_warp_packed(const SoftmaxArgs &a, cudaStream_t stream) {
  if (softmax_tune().exact) {
    if (a.backward) launch_warp_packed_algo<S, NV, true, true>(a, stream);
    else launch_warp_packed_algo<S, NV, false, true>(a, stream);
  } else {
    if (a.backward) launch_warp_packed_algo<S, NV, true, false>(a, stream);
    else launch_warp_packed_algo<S, NV, false, false>(a, stream);
  }
}

// The warp kernel for 16-bit rows of 33..512 vectors (264..4096 elements);
// false when it does not apply.
template <class S>
bool try_warp_packed(const SoftmaxArgs &a, int64_t nvec, cudaStream_t stream) {
  if constexpr (sizeof(S) != 2) {
    return false;
  } else {
    if (softmax_tune().old || nvec <= 32 || nvec > 512) return false;
    if (nvec <= 64) launch_warp_packed<S, 2>(a, stream);
    else if (nvec <= 128) launch_warp_packed<S, 4>(a, stream);
    else if (nvec <= 256) launch_warp_packed<S, 8>(a, stream);
    else launch_warp_packed<S, 16>(a, stream);
    return true;
  }
}

template <class S, class C, int VEC, int NV, int GROUP>
void launch_rows(const SoftmaxArgs &a, cudaStream_t stream) {
  constexpr int kRowsPerBlock = kBlock / GROUP;
  const int64_t blocks = (a.rows + kRowsPerBlock - 1) / kRowsPerBlock;
  const unsigned g = static_cast<unsigned>(blocks);
  // The one-reduction forward kernels measured 0.95 of copy for float rows
  // but below the two-pass kernel for 16-bit rows (H100: 0.58 against 0.69).
  if (a.backward || sizeof(S) < 4) softmax_rows_kernel<S, C, VEC, NV, GROUP><<<g, kBlock, 0, stream>>>(a);
  else if (a.algorithm == CUDNN_SOFTMAX_FAST)
    softmax_fwd_rows_kernel<S, C, VEC, NV, GROUP, CUDNN_SOFTMAX_FAST><<<g, kBlock, 0, stream>>>(a);
  else if (a.algorithm == CUDNN_SOFTMAX_LOG)
    softmax_fwd_rows_kernel<S, C, VEC, NV, GROUP, CUDNN_SOFTMAX_LOG><<<g, kBlock, 0, stream>>>(a);
  else softmax_fwd_rows_kernel<S, C, VEC, NV, GROUP, CUDNN_SOFTMAX_ACCURATE><<<g, kBlock, 0, stream>>>(a);
  check_launch("softmax_rows_kernel");
}

// The register path when it applies; false otherwise.
template <class S, class C>
bool try_rows(const SoftmaxArgs &a, cudaStream_t stream) {
  constexpr int VEC = static_cast<int>(16 / sizeof(S));
  if (!a.contiguous || a.row_len % VEC != 0 || a.rows > 0x7fffffffLL) return false;
  const void *ptrs[3] = {a.in0, a.in1, a.out};
  const int nops = a.backward ? 3 : 2;
  for (int o = 0; o < nops; ++o) {
    const void *p = o == nops - 1 ? a.out : ptrs[o];
    if (!aligned_to(p, 16)) return false;
    for (int d = 0; d < a.kept_rank; ++d)
      if (a.kept_stride[o][d] % VEC != 0) return false;
  }
  const int64_t nvec = a.row_len / VEC;
  if (try_warp_packed<S>(a, nvec, stream)) return true;
  if (nvec <= 32) launch_rows<S, C, VEC, 1, 32>(a, stream);
  else if (nvec <= 128) launch_rows<S, C, VEC, 4, 32>(a, stream);
  else if (nvec <= 2 * kBlock) launch_rows<S, C, VEC, 2, kBlock>(a, stream);
  else if (nvec <= 4 * kBlock) launch_rows<S, C, VEC, 4, kBlock>(a, stream);
  else if (nvec <= 8 * kBlock) launch_rows<S, C, VEC, 8, kBlock>(a, stream);
  else if (nvec <= 16 * kBlock) launch_rows<S, C, VEC, 16, kBlock>(a, stream);
  else return false;
  return true;
}

template <class S, class C>
void launch_typed(const SoftmaxArgs &a, cudaStream_t stream) {
  if (try_rows<S, C>(a, stream)) return;
  // One thread per row when neighbouring rows are neighbouring elements and
  // there are enough rows to fill the GPU; else a warp per row.
  bool inner_contiguous = a.kept_rank > 0;
  for (int o = 0; o < (a.backward ? 3 : 2) && inner_contiguous; ++o)
    inner_contiguous = a.kept_stride[o][a.kept_rank - 1] == 1;
  const bool thread_per_row = inner_contiguous && a.rows >= 32 * sm_count() * 8;
  const int lanes = thread_per_row ? 1 : 32;
  const int64_t blocks = (a.rows * lanes + kBlock - 1) / kBlock;
  check_supported(blocks <= 0x7fffffffLL, "softmax: too many rows for one launch");
  if (thread_per_row) softmax_generic_kernel<S, C, 1><<<static_cast<unsigned>(blocks), kBlock, 0, stream>>>(a);
  else softmax_generic_kernel<S, C, 32><<<static_cast<unsigned>(blocks), kBlock, 0, stream>>>(a);
  check_launch("softmax_generic_kernel");
}

}  // namespace

void launch_softmax(const SoftmaxArgs &a, void *stream_ptr) {
  cudaStream_t stream = as_stream(stream_ptr);
  if (a.rows == 0 || a.row_len == 0) return;
  switch (a.dtype) {
    case CUDNN_DATA_FLOAT: launch_typed<float, float>(a, stream); return;
    case CUDNN_DATA_DOUBLE: launch_typed<double, double>(a, stream); return;
    case CUDNN_DATA_HALF: launch_typed<half_bits, float>(a, stream); return;
    case CUDNN_DATA_BFLOAT16: launch_typed<bf16_bits, float>(a, stream); return;
    case CUDNN_DATA_INT8: launch_typed<int8_t, float>(a, stream); return;
    default: fail(CUDNN_STATUS_NOT_SUPPORTED, "softmax: no CUDA kernel for data type ", a.dtype);
  }
}

}  // namespace fdnn::cuda
