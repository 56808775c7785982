// Device helpers shared by the normalization kernels
// (cuda/normalization_kernels.cu, _persistent.cu, _cluster.cu): statistics
// offsets, the per-channel steps of batch-norm training (forward_channel,
// backward_channel), 16-byte vectors of the fast forms, and the per-vector
// apply steps of forward (y, mask) and backward (dx, dz).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "core/normalization_support.hpp"
#include "cuda/normalization_args.hpp"
#include "cuda/storage_types.cuh"

namespace fdnn::cuda::normdev {

__device__ inline int64_t stat_offset(const NormArgs &a, int st, uint32_t k) {
  int64_t off = 0;
  for (int d = a.kept_rank - 1; d >= 0; --d) {
    uint32_t rem;
    k = a.kept_div[d].divmod(k, rem);
    off += static_cast<int64_t>(rem) * a.stat_stride[st][d];
  }
  return off;
}

template <class C>
__device__ inline C ldp(const void *p, int64_t o) {  // statistics: the compute type
  return static_cast<const C *>(p)[o];
}

// Statistics tensor j at set k in its own type (NormArgs::stat_double: FLOAT
// or DOUBLE, the compute type but for the mixed-type problems); the finalize
// kernels, which the generic and vectorised forms share, read and write
// through these.
template <class C>
__device__ inline C ldst(const NormArgs &a, int j, uint32_t k) {
  const int64_t o = stat_offset(a, j, k);
  return (a.stat_double >> j) & 1u ? static_cast<C>(static_cast<const double *>(a.stat[j])[o])
                                   : static_cast<C>(static_cast<const float *>(a.stat[j])[o]);
}
template <class C>
__device__ inline void stst(const NormArgs &a, int j, uint32_t k, C v) {
  const int64_t o = stat_offset(a, j, k);
  if ((a.stat_double >> j) & 1u) static_cast<double *>(a.stat[j])[o] = static_cast<double>(v);
  else static_cast<float *>(a.stat[j])[o] = static_cast<float>(v);
}

// y = ca x + cb for a set of the given mean and 1/std: every forward form
// (training's finalize steps, inference) computes the coefficients so, in
// this order, and so gets the same bits.
template <class C>
__device__ inline void affine_coefficients(C scale, C bias, C mean, C inv, C &ca, C &cb) {
  ca = scale * inv;
  cb = bias - mean * scale * inv;
}

// 1/std of set k from the given statistics: the variance (inference) or
// the saved inverse (backward with saved statistics).
template <class C>
__device__ inline C given_inv(const NormArgs &a, uint32_t k) {
  return a.var_given ? C(1) / sqrt(ldst<C>(a, kSVar, k) + C(a.epsilon)) : ldst<C>(a, kSInv, k);
}

// Batch-norm training forward, one channel k, from the sums over its m
// elements t = {sum (x - shift), sum (x - shift)^2}: the coefficients of
// y = coef[0] x + coef[1], and, when `write` (one block of the channel's),
// the saved mean and 1/std and the running mean and variance (exponential
// average by a.factor, the variance unbiased by a.unbias). The statistics
// are of the compute type, as backward_channel reads and writes them.
template <class C>
__device__ inline void forward_channel(const NormArgs &a, uint32_t k, const C *t, C m, C shift, C scale, C bias,
                                       bool write, C coef[2]) {
  const C dm = t[0] / m;
  const C mean = shift + dm;
  const C var = max(t[1] / m - dm * dm, C(0));
  const C inv = C(1) / sqrt(var + C(a.epsilon));
  affine_coefficients(scale, bias, mean, inv, coef[0], coef[1]);
  if (!write) return;
  if (a.stat[kSMean]) static_cast<C *>(a.stat[kSMean])[stat_offset(a, kSMean, k)] = mean;
  if (a.stat[kSInv]) static_cast<C *>(a.stat[kSInv])[stat_offset(a, kSInv, k)] = inv;
  const C f = C(a.factor);
  if (a.stat[kSRmIn]) {
    const C prior = ldp<C>(a.stat[kSRmIn], stat_offset(a, kSRmIn, k));
    static_cast<C *>(a.stat[kSRmOut])[stat_offset(a, kSRmOut, k)] = (C(1) - f) * prior + f * mean;
  }
  if (a.stat[kSRvIn]) {
    const C prior = ldp<C>(a.stat[kSRvIn], stat_offset(a, kSRvIn, k));
    static_cast<C *>(a.stat[kSRvOut])[stat_offset(a, kSRvOut, k)] = (C(1) - f) * prior + f * var * C(a.unbias);
  }
}

// Batch-norm backward, one channel k, from the sums over its m elements
// t = {sum (x - shift), sum (x - shift)^2, sum dy, sum dy (x - shift)}:
// mean and 1/std (the saved statistics when given, else from t), dscale and
// dbias (blended into their outputs when `write`), and the coefficients of
// dx = coef[0] dy + coef[1] x + coef[2].
template <class C>
__device__ inline void backward_channel(const NormArgs &a, uint32_t k, const C *t, C m, C shift, C scale, bool write,
                                        C coef[3]) {
  C mean, inv;
  if (a.stats_given) {
    mean = ldp<C>(a.stat[kSMean], stat_offset(a, kSMean, k));
    if (a.var_given) inv = C(1) / sqrt(ldp<C>(a.stat[kSVar], stat_offset(a, kSVar, k)) + C(a.epsilon));
    else inv = ldp<C>(a.stat[kSInv], stat_offset(a, kSInv, k));
  } else {
    const C dm = t[0] / m;
    mean = shift + dm;
    inv = C(1) / sqrt(max(t[1] / m - dm * dm, C(0)) + C(a.epsilon));
  }
  const C sg = t[2], sgx = t[3] - (mean - shift) * t[2];
  const C dscale = sgx * inv, dbias = sg;
  if (write) {
    C *ds = static_cast<C *>(a.stat[kSDscale]) + stat_offset(a, kSDscale, k);
    C *db = static_cast<C *>(a.stat[kSDbias]) + stat_offset(a, kSDbias, k);
    const C ap = C(a.alpha_p), bp = C(a.beta_p);
    *ds = bp != C(0) ? ap * dscale + bp * *ds : ap * dscale;
    *db = bp != C(0) ? ap * dbias + bp * *db : ap * dbias;
  }
  const C A = scale * inv;
  const C B = -A * inv * dscale / m;
  coef[0] = A;
  coef[1] = B;
  coef[2] = -A * dbias / m - B * mean;
}

template <int Bytes>
struct VecWord;
template <>
struct VecWord<16> {
  using type = uint4;
};
template <>
struct VecWord<8> {
  using type = uint2;
};

template <class S, int V>
union VecPack {
  typename VecWord<sizeof(S) * V>::type w;
  S e[V];
};

template <class S, int V>
__device__ inline VecPack<S, V> ldv(const void *p, int64_t o) {
  VecPack<S, V> r;
  r.w = *reinterpret_cast<const typename VecWord<sizeof(S) * V>::type *>(static_cast<const S *>(p) + o);
  return r;
}
template <class S, int V>
__device__ inline void stv(void *p, int64_t o, const VecPack<S, V> &v) {
  *reinterpret_cast<typename VecWord<sizeof(S) * V>::type *>(static_cast<S *>(p) + o) = v.w;
}
// Streaming forms (evict-first in L2): for data read or written once at the
// end of its use, so that it does not push out of L2 what the pass still
// re-reads (NormArgs::stream_hints).
template <class S, int V>
__device__ inline VecPack<S, V> ldv_cs(const void *p, int64_t o) {
  VecPack<S, V> r;
  r.w = __ldcs(reinterpret_cast<const typename VecWord<sizeof(S) * V>::type *>(static_cast<const S *>(p) + o));
  return r;
}
template <class S, int V>
__device__ inline void stv_cs(void *p, int64_t o, const VecPack<S, V> &v) {
  __stcs(reinterpret_cast<typename VecWord<sizeof(S) * V>::type *>(static_cast<S *>(p) + o), v.w);
}
template <class S, int V>
__device__ inline VecPack<S, V> ldv_h(const void *p, int64_t o, bool streaming) {
  return streaming ? ldv_cs<S, V>(p, o) : ldv<S, V>(p, o);
}
template <class S, int V>
__device__ inline void stv_h(void *p, int64_t o, const VecPack<S, V> &v, bool streaming) {
  if (streaming) stv_cs<S, V>(p, o, v);
  else stv<S, V>(p, o, v);
}
template <class S, class C>
__device__ inline C cvt(S v) {
  return Storage<S>::template load<C>(v);
}

// A vector's V values in the compute type, and back; 16-bit values with
// float by pairs (one conversion per value from the pair's word, one per
// pair back). Value by value, nvcc shifted each high half out of its word
// first and packed each result alone (~3 instructions a value). The same
// roundings as cvt and Storage::store.
template <class S, class C, int V>
__device__ inline void unpack(const VecPack<S, V> &p, C (&f)[V]) {
  if constexpr (std::is_same_v<C, float> && std::is_same_v<S, half_bits> && V % 2 == 0) {
    const __half2 *h = reinterpret_cast<const __half2 *>(p.e);
#pragma unroll
    for (int j = 0; j < V / 2; ++j) {
      const float2 t = __half22float2(h[j]);
      f[2 * j] = t.x;
      f[2 * j + 1] = t.y;
    }
  } else {
#pragma unroll
    for (int j = 0; j < V; ++j) f[j] = cvt<S, C>(p.e[j]);
  }
}
template <class S, class C, int V>
__device__ inline void pack(VecPack<S, V> &p, const C (&f)[V]) {
  if constexpr (std::is_same_v<C, float> && std::is_same_v<S, half_bits> && V % 2 == 0) {
    __half2 *h = reinterpret_cast<__half2 *>(p.e);
#pragma unroll
    for (int j = 0; j < V / 2; ++j) h[j] = __floats2half2_rn(f[2 * j], f[2 * j + 1]);
  } else if constexpr (std::is_same_v<C, float> && std::is_same_v<S, bf16_bits> && V % 2 == 0) {
    __nv_bfloat162 *h = reinterpret_cast<__nv_bfloat162 *>(p.e);
#pragma unroll
    for (int j = 0; j < V / 2; ++j) h[j] = __floats2bfloat162_rn(f[2 * j], f[2 * j + 1]);
  } else {
#pragma unroll
    for (int j = 0; j < V; ++j) p.e[j] = Storage<S>::store(f[j]);
  }
}

// L2 prefetch of `bytes` (a multiple of 16) from p (16-byte aligned) by the
// copy engine (sm_90 bulk prefetch; nothing before sm_90): the data is in
// L2 when the loads come, without registers or loads in flight.
__device__ inline void prefetch_l2(const void *p, uint32_t bytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(p), "r"(bytes) : "memory");
#endif
}

// Rows form: prefetches vectors [vb, ve) of the set at `set` into L2, one
// bulk prefetch per plane piece (pieces split over the block's T threads).
template <class S, int V>
__device__ inline void prefetch_rows_share(const NormArgs &a, const void *set, uint32_t vb, uint32_t ve, int T) {
  if (vb >= ve) return;
  const uint32_t iv = a.inner_vecs.divisor;
  const uint32_t p0 = a.inner_vecs.div(vb), p1 = a.inner_vecs.div(ve - 1);
  for (uint32_t p = p0 + threadIdx.x; p <= p1; p += T) {
    const uint32_t s = max(vb, p * iv), e = min(ve, (p + 1) * iv);
    const char *q = reinterpret_cast<const char *>(static_cast<const S *>(set) + static_cast<int64_t>(p) * a.outer_stride +
                                                   static_cast<int64_t>(s - p * iv) * V);
    for (uint64_t left = static_cast<uint64_t>(e - s) * 16; left > 0;) {
      const uint32_t n = static_cast<uint32_t>(left < (1u << 20) ? left : (1u << 20));
      prefetch_l2(q, n);
      q += n;
      left -= n;
    }
  }
}

// Rows form: the element offset (from the set's base) of vector v of a set.
template <int V>
__device__ inline int64_t rows_offset(const NormArgs &a, uint32_t v) {
  uint32_t i;
  const uint32_t n = a.inner_vecs.divmod(v, i);
  return static_cast<int64_t>(n) * a.outer_stride + static_cast<int64_t>(i) * V;
}

// y = alpha * act(ca*x + cb (+ z)) (+ beta * y), mask = act'(...) != 0
// for one vector of one set.
template <class S, class C, int V>
__device__ inline void fwd_vec(const NormArgs &a, int64_t off, const VecPack<S, V> &px, const C (&ca)[V], const C (&cb)[V]) {
  VecPack<S, V> pz, py;
  const C alpha = C(a.alpha), beta = C(a.beta), clip = C(a.clip);
  // Plain batch norm (no z, activation or mask; beta 0), the common call:
  // the same bits as the loop below, which predicates every option per
  // element (the grid form's f16 apply pass: ~290 instructions a vector
  // of 8, ~40 here).
  if (!a.has_z && !a.relu && !a.has_mask && beta == C(0)) {
    C v[V];
    unpack<S, C, V>(px, v);
#pragma unroll
    for (int j = 0; j < V; ++j) v[j] = ca[j] * v[j] + cb[j];
    if (alpha != C(1)) {
#pragma unroll
      for (int j = 0; j < V; ++j) v[j] *= alpha;
    }
    pack<S, C, V>(py, v);
    stv_h<S, V>(a.data[kNY], off, py, a.stream_hints);
    return;
  }
  if (a.has_z) pz = ldv<S, V>(a.data[kNZ], off);
  if (beta != C(0)) py = ldv<S, V>(a.data[kNY], off);
#pragma unroll
  for (int j = 0; j < V; ++j) {
    C v = ca[j] * cvt<S, C>(px.e[j]) + cb[j];
    if (a.has_z) v += cvt<S, C>(pz.e[j]);
    C out = alpha * norm::activate(v, a.relu, clip);
    if (beta != C(0)) out += beta * cvt<S, C>(py.e[j]);
    py.e[j] = Storage<S>::store(out);
    if (a.has_mask) static_cast<uint8_t *>(a.data[kNMask])[off + j] = norm::passes(v, a.relu, clip) ? 1 : 0;
  }
  stv_h<S, V>(a.data[kNY], off, py, a.stream_hints);
}

// dx = alpha * (A*g + B*x + Cc) (+ beta * dx), dz = g for one vector.
template <class S, class C, int V>
__device__ inline void bwd_vec(const NormArgs &a, int64_t off, const VecPack<S, V> &px, VecPack<S, V> pg, const C (&A)[V],
                               const C (&B)[V], const C (&Cc)[V]) {
  const C alpha = C(a.alpha), beta = C(a.beta);
  VecPack<S, V> pdx;
  if (!a.has_mask && !a.has_dz && beta == C(0)) {  // plain: as in fwd_vec
    C g[V], xv[V];
    unpack<S, C, V>(pg, g);
    unpack<S, C, V>(px, xv);
#pragma unroll
    for (int j = 0; j < V; ++j) g[j] = alpha * (A[j] * g[j] + B[j] * xv[j] + Cc[j]);
    pack<S, C, V>(pdx, g);
    stv_h<S, V>(a.data[kNDX], off, pdx, a.stream_hints);
    return;
  }
  if (beta != C(0)) pdx = ldv<S, V>(a.data[kNDX], off);
#pragma unroll
  for (int j = 0; j < V; ++j) {
    C g = cvt<S, C>(pg.e[j]);
    if (a.has_mask && static_cast<const uint8_t *>(a.data[kNMask])[off + j] == 0) {
      g = C(0);
      pg.e[j] = Storage<S>::store(C(0));
    }
    C out = alpha * (A[j] * g + B[j] * cvt<S, C>(px.e[j]) + Cc[j]);
    if (beta != C(0)) out += beta * cvt<S, C>(pdx.e[j]);
    pdx.e[j] = Storage<S>::store(out);
  }
  stv_h<S, V>(a.data[kNDX], off, pdx, a.stream_hints);
  if (a.has_dz) stv_h<S, V>(a.data[kNDZ], off, pg, a.stream_hints);
}

}  // namespace fdnn::cuda::normdev
