// The fast paths of cpu.lrn for cross-channel LRN of FLOAT, HALF and
// BFLOAT16 data (float compute), in the two layouts that matter:
//  - planes (NCHW-like): the spatial dims (or an innermost run of them) are
//    contiguous, so each channel of an image is a plane of L contiguous
//    elements. A tile of T positions is taken across all C channels; the
//    window sum of a channel is the sum of the squares of n whole rows of
//    the tile (rows of T floats, in L1), so every loop runs along the
//    contiguous positions;
//  - channel rows (NHWC-like): channels have stride 1. A group of pixels is
//    laid out as rows of C + n - 1 floats with n - 1 zeros of padding, so
//    the window sums of the whole group are one shifted-add loop over one
//    array (the sums that fall on padding are never used).
// Everything else (DOUBLE data, divisive normalization, other layouts)
// stays on the generic block path of lrn.cpp.
//
// S^-beta is exp(-beta log S) with vec_math's branch-free functions (1 / S
// for beta = 1), run through vm::for_each so that it takes 16 AVX-512 lanes
// where the CPU has them. 16-bit types go through float with the F16C /
// shift conversions of convert_simd.hpp. Inputs are read through pointers
// into the caller's buffers where they are float and no output overlaps
// them, else copied (converted) into the tile's buffers first, so that in
// place calls see their inputs before any output is written.
#pragma once

#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "core/engine.hpp"
#include "core/lrn_support.hpp"
#include "core/thread_pool.hpp"
#include "cpu/convert_simd.hpp"
#include "cpu/dtype_io.hpp"
#include "cpu/vec_math.hpp"

namespace fdnn::cpu::lrn_fast {

// ---- v^-0.75 (cuDNN's default beta) without exp and log --------------------------
//
// r = v^-1/2 and u = r^-1/2 = v^1/4 from the hardware reciprocal square root
// estimate and one Newton step each (relative error about 1e-7 each), then
// v^-3/4 = r r u: a few float roundings, well within the float tolerance of
// LRN. Lanes outside the normal range (v <= 0 with a negative alpha, inf,
// NaN, subnormal) are redone with std::pow so that they follow pow exactly.

// One lane the vector formula does not cover.
inline void pow_lane(float v, float *inv, float *p) {
  *inv = 1.0f / v;
  *p = std::pow(v, -0.75f);
}

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

__attribute__((target("avx512f,avx512vl,avx512dq,avx512bw"))) inline void pow_m075_avx512(
    const float *s, float *inv, float *p, int64_t cnt, float k, float a) {
  const __m512 kv = _mm512_set1_ps(k), av = _mm512_set1_ps(a), half = _mm512_set1_ps(0.5f),
               three_halves = _mm512_set1_ps(1.5f), lo = _mm512_set1_ps(1.17549435e-38f),
               hi = _mm512_set1_ps(3.0e38f);
  int64_t i = 0;
  for (; i + 16 <= cnt; i += 16) {
    const __m512 v = _mm512_fmadd_ps(av, _mm512_loadu_ps(s + i), kv);
    __m512 r = _mm512_rsqrt14_ps(v);
    r = _mm512_mul_ps(r, _mm512_fnmadd_ps(_mm512_mul_ps(half, v), _mm512_mul_ps(r, r), three_halves));
    __m512 u = _mm512_rsqrt14_ps(r);
    u = _mm512_mul_ps(u, _mm512_fnmadd_ps(_mm512_mul_ps(half, r), _mm512_mul_ps(u, u), three_halves));
    const __m512 rr = _mm512_mul_ps(r, r);
    _mm512_storeu_ps(inv + i, rr);
    _mm512_storeu_ps(p + i, _mm512_mul_ps(rr, u));
    const __mmask16 ok = _mm512_cmp_ps_mask(v, lo, _CMP_GE_OQ) & _mm512_cmp_ps_mask(v, hi, _CMP_LE_OQ);
    if (ok != 0xFFFF)
      for (int j = 0; j < 16; ++j)
        if (!((ok >> j) & 1)) pow_lane(k + a * s[i + j], inv + i + j, p + i + j);
  }
  for (; i < cnt; ++i) pow_lane(k + a * s[i], inv + i, p + i);
}

inline void pow_m075_avx2(const float *s, float *inv, float *p, int64_t cnt, float k, float a) {
  const __m256 kv = _mm256_set1_ps(k), av = _mm256_set1_ps(a), half = _mm256_set1_ps(0.5f),
               three_halves = _mm256_set1_ps(1.5f), lo = _mm256_set1_ps(1.17549435e-38f),
               hi = _mm256_set1_ps(3.0e38f);
  int64_t i = 0;
  for (; i + 8 <= cnt; i += 8) {
    const __m256 v = _mm256_fmadd_ps(av, _mm256_loadu_ps(s + i), kv);
    __m256 r = _mm256_rsqrt_ps(v);  // 12 bits: two Newton steps
    r = _mm256_mul_ps(r, _mm256_fnmadd_ps(_mm256_mul_ps(half, v), _mm256_mul_ps(r, r), three_halves));
    r = _mm256_mul_ps(r, _mm256_fnmadd_ps(_mm256_mul_ps(half, v), _mm256_mul_ps(r, r), three_halves));
    __m256 u = _mm256_rsqrt_ps(r);
    u = _mm256_mul_ps(u, _mm256_fnmadd_ps(_mm256_mul_ps(half, r), _mm256_mul_ps(u, u), three_halves));
    u = _mm256_mul_ps(u, _mm256_fnmadd_ps(_mm256_mul_ps(half, r), _mm256_mul_ps(u, u), three_halves));
    const __m256 rr = _mm256_mul_ps(r, r);
    _mm256_storeu_ps(inv + i, rr);
    _mm256_storeu_ps(p + i, _mm256_mul_ps(rr, u));
    const int ok = _mm256_movemask_ps(
        _mm256_and_ps(_mm256_cmp_ps(v, lo, _CMP_GE_OQ), _mm256_cmp_ps(v, hi, _CMP_LE_OQ)));
    if (ok != 0xFF)
      for (int j = 0; j < 8; ++j)
        if (!((ok >> j) & 1)) pow_lane(k + a * s[i + j], inv + i + j, p + i + j);
  }
  for (; i < cnt; ++i) pow_lane(k + a * s[i], inv + i, p + i);
}

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

// The per-element math shared by both layouts.
struct Math {
  float k, a, neg_beta, two_a_beta;
  bool beta_one, beta_075;
  int64_t behind, ahead, n;

  // With S = k + a s[i]: p[i] = S^-beta, inv[i] = 1 / S.
  void negpow(const float *s, float *inv, float *p, int64_t cnt) const {
    const float kk = k, aa = a, nb = neg_beta;
    if (beta_075) {
      if (vm::has_avx512()) pow_m075_avx512(s, inv, p, cnt, kk, aa);
      else pow_m075_avx2(s, inv, p, cnt, kk, aa);
    } else if (beta_one) {
      vm::for_each(cnt, [=](int64_t i) {
        const float r = 1.0f / (kk + aa * s[i]);
        inv[i] = r;
        p[i] = r;
      });
    } else {
      vm::for_each(cnt, [=](int64_t i) {
        const float v = kk + aa * s[i];
        inv[i] = 1.0f / v;
        p[i] = vm::exp(nb * vm::log(v));
      });
    }
  }
};

// ---- Rows of one type to and from float -------------------------------------------

template <class ST>
constexpr bool kIsFloat = std::is_same_v<typename ST::type, float>;
template <class ST>
constexpr bool kIsBf16 = std::is_same_v<ST, Storage<CUDNN_DATA_BFLOAT16>>;

template <class ST>
inline void load_row(const typename ST::type *s, int64_t len, float *out) {
  if constexpr (kIsFloat<ST>) {
    std::memcpy(out, s, static_cast<size_t>(len) * sizeof(float));
  } else {
    const int n = static_cast<int>(len);
    int i = kIsBf16<ST> ? simd::bf16_to_float(s, n, out) : simd::half_to_float(s, n, out);
    for (; i < n; ++i) out[i] = ST::to_float(s[i]);
  }
}

// d = alpha v (+ beta d where beta != 0).
template <class ST>
inline void store_row(typename ST::type *d, const float *v, int64_t len, float alpha, float beta) {
  if constexpr (kIsFloat<ST>) {
    if (beta == 0.0f) {
      for (int64_t i = 0; i < len; ++i) d[i] = alpha * v[i];
    } else {
      for (int64_t i = 0; i < len; ++i) d[i] = alpha * v[i] + beta * d[i];
    }
  } else {
    const int n = static_cast<int>(len);
    int i = beta == 0.0f ? simd::store_16bit<kIsBf16<ST>, false>(d, v, n, alpha, beta)
                         : simd::store_16bit<kIsBf16<ST>, true>(d, v, n, alpha, beta);
    for (; i < n; ++i) {
      float o = alpha * v[i];
      if (beta != 0.0f) o += beta * ST::to_float(d[i]);
      d[i] = ST::from_float(o);
    }
  }
}

// ---- Geometry ------------------------------------------------------------------

// An operand: base pointer (bytes) and strides (elements).
struct Arg {
  char *data = nullptr;
  const std::vector<int64_t> *strides = nullptr;
  int64_t stride(int d) const { return (*strides)[static_cast<size_t>(d)]; }
};

// Byte ranges [lo, hi) that a tensor's elements span (strides >= 0 here).
inline bool overlaps(const Arg &a, const Arg &b, const graph::Tensor &t, size_t esize) {
  int64_t span_a = 1, span_b = 1;
  for (int d = 0; d < t.rank(); ++d) {
    span_a += (t.dims[d] - 1) * a.stride(d);
    span_b += (t.dims[d] - 1) * b.stride(d);
  }
  const char *a0 = a.data, *a1 = a.data + span_a * static_cast<int64_t>(esize);
  const char *b0 = b.data, *b1 = b.data + span_b * static_cast<int64_t>(esize);
  return a0 < b1 && b0 < a1;
}

// The layouts the fast paths take, decided from every operand's strides.
enum class Layout { none, planes, channel_rows };

struct Shape {
  Layout layout = Layout::none;
  int rank = 0;
  int64_t channels = 0;
  // planes: dims [first_inner, rank) collapse into one contiguous run of
  // `plane` elements; the other dims (0 and 2 .. first_inner - 1) are outer.
  int first_inner = 0;
  int64_t plane = 1;
  // The dims enumerated outside the channel (planes: 0 and the non-collapsed
  // spatial dims; channel rows: every dim but 1), row-major.
  std::vector<int> outer_dims;
  int64_t outer = 1;
};

inline Shape classify(const graph::Tensor &x, const std::vector<const std::vector<int64_t> *> &all_strides) {
  Shape s;
  s.rank = x.rank();
  s.channels = x.dims[1];
  for (const auto *st : all_strides)
    for (int64_t v : *st)
      if (v < 0) return s;
  // Channel rows: stride 1 on C for every operand (C > 1; a single channel
  // is better served as planes).
  bool rows = s.channels > 1;
  for (const auto *st : all_strides) rows = rows && (*st)[1] == 1;
  if (rows) {
    s.layout = Layout::channel_rows;
    for (int d = 0; d < s.rank; ++d)
      if (d != 1) {
        s.outer_dims.push_back(d);
        s.outer *= x.dims[d];
      }
    return s;
  }
  // Planes: the longest innermost run of spatial dims contiguous in every
  // operand (extent-1 dims are skipped: any stride serves them).
  int first = s.rank;
  int64_t run = 1;
  for (int d = s.rank - 1; d >= 2; --d) {
    bool ok = true;
    for (const auto *st : all_strides) ok = ok && (x.dims[d] == 1 || (*st)[d] == run);
    if (!ok) break;
    run *= x.dims[d];
    first = d;
  }
  if (first == s.rank || run < 8) return s;  // no contiguous run worth a row
  s.layout = Layout::planes;
  s.first_inner = first;
  s.plane = run;
  for (int d = 0; d < first; ++d)
    if (d != 1) {
      s.outer_dims.push_back(d);
      s.outer *= x.dims[d];
    }
  return s;
}

// Element offset of outer position `pos` (row-major over shape.outer_dims).
inline int64_t outer_offset(const Shape &s, const graph::Tensor &x, const Arg &a, int64_t pos) {
  int64_t off = 0;
  for (int i = static_cast<int>(s.outer_dims.size()) - 1; i >= 0; --i) {
    const int d = s.outer_dims[static_cast<size_t>(i)];
    off += (pos % x.dims[d]) * a.stride(d);
    pos /= x.dims[d];
  }
  return off;
}

// Walks outer positions row-major, keeping each operand's element offset.
class OuterWalker {
 public:
  OuterWalker(const Shape &s, const graph::Tensor &x, const Arg *args, int nargs, int64_t start)
      : s_(s), x_(x), args_(args), nargs_(nargs), index_(s.outer_dims.size(), 0) {
    int64_t rest = start;
    for (int i = static_cast<int>(s.outer_dims.size()) - 1; i >= 0; --i) {
      const int d = s.outer_dims[static_cast<size_t>(i)];
      index_[static_cast<size_t>(i)] = rest % x.dims[d];
      rest /= x.dims[d];
    }
    for (int j = 0; j < nargs; ++j) {
      off_[j] = 0;
      for (size_t i = 0; i < index_.size(); ++i) off_[j] += index_[i] * args[j].stride(s.outer_dims[i]);
    }
  }
  int64_t offset(int j) const { return off_[j]; }
  void next() {
    for (int i = static_cast<int>(index_.size()) - 1; i >= 0; --i) {
      const int d = s_.outer_dims[static_cast<size_t>(i)];
      for (int j = 0; j < nargs_; ++j) off_[j] += args_[j].stride(d);
      if (++index_[static_cast<size_t>(i)] < x_.dims[d]) return;
      for (int j = 0; j < nargs_; ++j) off_[j] -= index_[static_cast<size_t>(i)] * args_[j].stride(d);
      index_[static_cast<size_t>(i)] = 0;
    }
  }

 private:
  const Shape &s_;
  const graph::Tensor &x_;
  const Arg *args_;
  int nargs_;
  std::vector<int64_t> index_;
  int64_t off_[4] = {0, 0, 0, 0};
};

// ---- Planes (NCHW-like) ------------------------------------------------------------------

template <class ST>
struct PlaneRunner {
  using T = typename ST::type;
  const Shape &s;
  const graph::Tensor &xt;
  const Math &m;
  Arg x, dy, out;  // out: y (forward) or dx (backward)
  bool backward;
  bool direct;     // inputs read in place (float, no overlap with the output)
  float alpha, beta;
  int64_t tile;

  int64_t tiles_per_plane() const { return (s.plane + tile - 1) / tile; }
  int64_t items() const { return s.outer * tiles_per_plane(); }

  void run(int64_t begin, int64_t end) const {
    const int64_t C = s.channels, T_ = tile;
    // Buffers: x rows, dy rows (when copied), s, 1/S, P (all C rows when
    // backward), r (backward), one result row.
    std::vector<float> buf(static_cast<size_t>(T_ * (C * (backward ? 4 : 1) + 4)));
    float *xb = buf.data();                               // C rows
    float *dyb = backward ? xb + C * T_ : nullptr;        // C rows
    float *pb = backward ? dyb + C * T_ : nullptr;        // C rows: S^-beta
    float *rb = backward ? pb + C * T_ : nullptr;         // C rows: dy x S^(-beta-1)
    float *sb = (backward ? rb + C * T_ : xb + C * T_);  // window sums
    float *invb = sb + T_, *p1 = invb + T_, *res = p1 + T_;
    std::vector<const float *> xr(static_cast<size_t>(C)), dyr(static_cast<size_t>(C));
    const int64_t tpp = tiles_per_plane();
    for (int64_t item = begin; item < end; ++item) {
      const int64_t pos = item / tpp, p0 = (item % tpp) * T_;
      const int64_t len = std::min(T_, s.plane - p0);
      const int64_t xo = outer_offset(s, xt, x, pos) + p0, oo = outer_offset(s, xt, out, pos) + p0;
      const int64_t dyo = backward ? outer_offset(s, xt, dy, pos) + p0 : 0;
      const T *xp = reinterpret_cast<const T *>(x.data) + xo;
      const T *dyp = backward ? reinterpret_cast<const T *>(dy.data) + dyo : nullptr;
      T *op = reinterpret_cast<T *>(out.data) + oo;
      const int64_t xs1 = x.stride(1), dys1 = backward ? dy.stride(1) : 0, os1 = out.stride(1);
      for (int64_t c = 0; c < C; ++c) {
        if constexpr (kIsFloat<ST>) {
          if (direct) {
            xr[static_cast<size_t>(c)] = reinterpret_cast<const float *>(xp + c * xs1);
            if (backward) dyr[static_cast<size_t>(c)] = reinterpret_cast<const float *>(dyp + c * dys1);
            continue;
          }
        }
        load_row<ST>(xp + c * xs1, len, xb + c * T_);
        xr[static_cast<size_t>(c)] = xb + c * T_;
        if (backward) {
          load_row<ST>(dyp + c * dys1, len, dyb + c * T_);
          dyr[static_cast<size_t>(c)] = dyb + c * T_;
        }
      }
      if (!backward) {
        for (int64_t c = 0; c < C; ++c) {
          window_sum(xr.data(), c, len, sb);
          m.negpow(sb, invb, p1, len);
          const float *xc = xr[static_cast<size_t>(c)];
          for (int64_t i = 0; i < len; ++i) res[i] = xc[i] * p1[i];
          store_row<ST>(op + c * os1, res, len, alpha, beta);
        }
        continue;
      }
      // Backward: dx = dy P - 2 a beta x sum over the transposed window of r,
      // r = dy x P / S (cuDNN recomputes y = x P from x).
      for (int64_t c = 0; c < C; ++c) {
        float *pc = pb + c * T_, *rc = rb + c * T_;
        window_sum(xr.data(), c, len, sb);
        m.negpow(sb, invb, pc, len);
        const float *xc = xr[static_cast<size_t>(c)], *dyc = dyr[static_cast<size_t>(c)];
        for (int64_t i = 0; i < len; ++i) rc[i] = dyc[i] * xc[i] * pc[i] * invb[i];
      }
      const float tab = m.two_a_beta;
      for (int64_t c = 0; c < C; ++c) {
        const int64_t j0 = std::max<int64_t>(0, c - m.ahead), j1 = std::min<int64_t>(C - 1, c + m.behind);
        std::copy(rb + j0 * T_, rb + j0 * T_ + len, sb);
        for (int64_t j = j0 + 1; j <= j1; ++j) {
          const float *rj = rb + j * T_;
          for (int64_t i = 0; i < len; ++i) sb[i] += rj[i];
        }
        const float *xc = xr[static_cast<size_t>(c)], *dyc = dyr[static_cast<size_t>(c)], *pc = pb + c * T_;
        for (int64_t i = 0; i < len; ++i) res[i] = dyc[i] * pc[i] - tab * xc[i] * sb[i];
        store_row<ST>(op + c * os1, res, len, alpha, beta);
      }
    }
  }

  // sb = sum over the window of channel c of x^2.
  void window_sum(const float *const *xr, int64_t c, int64_t len, float *sb) const {
    const int64_t j0 = std::max<int64_t>(0, c - m.behind), j1 = std::min<int64_t>(s.channels - 1, c + m.ahead);
    const float *x0 = xr[j0];
    for (int64_t i = 0; i < len; ++i) sb[i] = x0[i] * x0[i];
    for (int64_t j = j0 + 1; j <= j1; ++j) {
      const float *xj = xr[j];
      for (int64_t i = 0; i < len; ++i) sb[i] += xj[i] * xj[i];
    }
  }
};

// ---- Channel rows (NHWC-like) -------------------------------------------------------------

template <class ST>
struct RowRunner {
  using T = typename ST::type;
  const Shape &s;
  const graph::Tensor &xt;
  const Math &m;
  Arg x, dy, out;
  bool backward;
  bool direct;  // inputs read in place (float, no overlap with the output)
  float alpha, beta;
  int64_t group;  // pixels per item

  int64_t items() const { return (s.outer + group - 1) / group; }

  void run(int64_t begin, int64_t end) const {
    const int64_t C = s.channels, n = m.n, pitch = C + n - 1;
    const int64_t span = group * pitch + n;  // the shifted reads run n - 1 past the last row
    // Buffers: x rows, dy rows (C each per pixel; when copied), padded
    // squares / r, sums, 1/S, P (pitch per pixel), a result row.
    std::vector<float> buf(static_cast<size_t>(group * C * 2 + span * 5 + C));
    float *xb = buf.data(), *dyb = xb + group * C, *pad = dyb + group * C, *sum = pad + span, *inv = sum + span,
          *pw = inv + span, *rsum = pw + span, *res = rsum + span;
    std::vector<const float *> xrow(static_cast<size_t>(group)), dyrow(static_cast<size_t>(group));
    std::vector<int64_t> out_off(static_cast<size_t>(group));
    const Arg args[3] = {x, out, dy};
    const int nargs = backward ? 3 : 2;
    for (int64_t item = begin; item < end; ++item) {
      const int64_t first = item * group, count = std::min(group, s.outer - first);
      OuterWalker walk(s, xt, args, nargs, first);
      for (int64_t q = 0; q < count; ++q, walk.next()) {
        const size_t qi = static_cast<size_t>(q);
        const T *xs = reinterpret_cast<const T *>(x.data) + walk.offset(0);
        const T *dys = backward ? reinterpret_cast<const T *>(dy.data) + walk.offset(2) : nullptr;
        out_off[qi] = walk.offset(1);
        if constexpr (kIsFloat<ST>) {
          if (direct) {
            xrow[qi] = reinterpret_cast<const float *>(xs);
            dyrow[qi] = reinterpret_cast<const float *>(dys);
            continue;
          }
        }
        load_row<ST>(xs, C, xb + q * C);
        xrow[qi] = xb + q * C;
        if (backward) {
          load_row<ST>(dys, C, dyb + q * C);
          dyrow[qi] = dyb + q * C;
        }
      }
      // Squares in padded rows: [behind zeros][C][ahead zeros].
      const int64_t used = count * pitch;
      fill_padding(pad, count, pitch, C, m.behind);
      for (int64_t q = 0; q < count; ++q) {
        const float *xq = xrow[static_cast<size_t>(q)];
        float *d = pad + q * pitch + m.behind;
        for (int64_t c = 0; c < C; ++c) d[c] = xq[c] * xq[c];
      }
      shifted_sum(pad, sum, used, n);  // sum[q pitch + c]: channels c - behind .. c + ahead
      m.negpow(sum, inv, pw, used);
      T *const ob = reinterpret_cast<T *>(out.data);
      if (!backward) {
        for (int64_t q = 0; q < count; ++q) {
          const float *xq = xrow[static_cast<size_t>(q)], *pq = pw + q * pitch;
          for (int64_t c = 0; c < C; ++c) res[c] = xq[c] * pq[c];
          store_row<ST>(ob + out_off[static_cast<size_t>(q)], res, C, alpha, beta);
        }
        continue;
      }
      // r in padded rows [ahead zeros][C][behind zeros], then its sums over
      // the transposed window c - ahead .. c + behind.
      fill_padding(pad, count, pitch, C, m.ahead);
      for (int64_t q = 0; q < count; ++q) {
        const float *xq = xrow[static_cast<size_t>(q)], *dq = dyrow[static_cast<size_t>(q)];
        const float *pq = pw + q * pitch, *iq = inv + q * pitch;
        float *d = pad + q * pitch + m.ahead;
        for (int64_t c = 0; c < C; ++c) d[c] = dq[c] * xq[c] * pq[c] * iq[c];
      }
      shifted_sum(pad, rsum, used, n);
      const float tab = m.two_a_beta;
      for (int64_t q = 0; q < count; ++q) {
        const float *xq = xrow[static_cast<size_t>(q)], *dq = dyrow[static_cast<size_t>(q)];
        const float *pq = pw + q * pitch, *rq = rsum + q * pitch;
        for (int64_t c = 0; c < C; ++c) res[c] = dq[c] * pq[c] - tab * xq[c] * rq[c];
        store_row<ST>(ob + out_off[static_cast<size_t>(q)], res, C, alpha, beta);
      }
    }
  }

  // Zeros in each row's `lead` leading and pitch - C - lead trailing slots,
  // and in the n slots after the last row (read by the shifted sums).
  void fill_padding(float *pad, int64_t count, int64_t pitch, int64_t C, int64_t lead) const {
    for (int64_t q = 0; q < count; ++q) {
      float *row = pad + q * pitch;
      std::fill(row, row + lead, 0.0f);
      std::fill(row + lead + C, row + pitch, 0.0f);
    }
    std::fill(pad + count * pitch, pad + count * pitch + m.n, 0.0f);
  }

  // out[i] = in[i] + in[i + 1] + ... + in[i + n - 1]: one pass with the
  // window width a constant.
  template <int N>
  static void shifted_sum_n(const float *in, float *out, int64_t cnt) {
    for (int64_t i = 0; i < cnt; ++i) {
      float acc = in[i];
      for (int j = 1; j < N; ++j) acc += in[i + j];
      out[i] = acc;
    }
  }
  static void shifted_sum(const float *in, float *out, int64_t cnt, int64_t n) {
    switch (n) {
#define FDNN_LRN_SHIFTED(N) \
  case N: shifted_sum_n<N>(in, out, cnt); return;
      FDNN_LRN_SHIFTED(1) FDNN_LRN_SHIFTED(2) FDNN_LRN_SHIFTED(3) FDNN_LRN_SHIFTED(4) FDNN_LRN_SHIFTED(5)
      FDNN_LRN_SHIFTED(6) FDNN_LRN_SHIFTED(7) FDNN_LRN_SHIFTED(8) FDNN_LRN_SHIFTED(9) FDNN_LRN_SHIFTED(10)
      FDNN_LRN_SHIFTED(11) FDNN_LRN_SHIFTED(12) FDNN_LRN_SHIFTED(13) FDNN_LRN_SHIFTED(14) FDNN_LRN_SHIFTED(15)
      FDNN_LRN_SHIFTED(16)
#undef FDNN_LRN_SHIFTED
      default: break;
    }
    std::copy(in, in + cnt, out);
    for (int64_t j = 1; j < n; ++j) {
      const float *src = in + j;
      for (int64_t i = 0; i < cnt; ++i) out[i] += src[i];
    }
  }
};

// ---- Entry ---------------------------------------------------------------------------

inline Math make_math(const graph::LrnOp &op, int rank) {
  Math m;
  m.k = static_cast<float>(op.k);
  m.a = static_cast<float>(lrn_alpha_over_size(op, rank));
  m.neg_beta = static_cast<float>(-op.beta);
  m.two_a_beta = static_cast<float>(2.0 * lrn_alpha_over_size(op, rank) * op.beta);
  m.beta_one = op.beta == 1.0;
  m.beta_075 = op.beta == 0.75;
  m.n = op.n;
  m.behind = graph::lrn_look_behind(op.n);
  m.ahead = graph::lrn_look_ahead(op.n);
  return m;
}

// An LRN op's operands as the fast paths take them: their common layout
// (Layout::none: no fast path fits), x, the output, dy (backward), the
// blend, and whether the output overlaps an input (float inputs are then
// copied before any output is written).
struct Operands {
  Shape shape;
  Arg x, out, dy;
  float alpha = 1, beta = 0;
  bool alias = false;
};

inline Operands operands_of(const graph::Graph &g, const graph::LrnOp &op, const VariantPack &pack, size_t esize) {
  const graph::Tensor &xt = g.tensor(op.x);
  const graph::Uid out_uid = op.backward ? op.dx : op.y;
  std::vector<const std::vector<int64_t> *> strides = {&xt.strides, &g.tensor(out_uid).strides};
  if (op.backward) strides.push_back(&g.tensor(op.dy).strides);
  Operands o;
  o.shape = classify(xt, strides);
  if (o.shape.layout == Layout::none) return o;
  auto arg = [&](graph::Uid u) {
    Arg a;
    a.data = static_cast<char *>(pack.get(u));
    a.strides = &g.tensor(u).strides;
    return a;
  };
  o.x = arg(op.x);
  o.out = arg(out_uid);
  if (op.backward) o.dy = arg(op.dy);
  o.alpha = static_cast<float>(op.blend.alpha);
  o.beta = static_cast<float>(op.blend.beta);
  o.alias = overlaps(o.x, o.out, xt, esize) || (op.backward && overlaps(o.dy, o.out, xt, esize));
  return o;
}

// body(b, e) over items [0, items), spread over the pool when the work
// (items x work_per_item elements) is worth it.
template <class F>
void run_items(const ExecContext &ctx, int64_t items, int64_t work_per_item, const F &body) {
  if (ctx.pool != nullptr && items > 1 && items * work_per_item >= 16384)
    ctx.pool->parallel_for(items, body, std::min<int64_t>(items, ctx.pool->size() * 8));
  else body(0, items);
}

template <class ST>
bool run_typed(const ExecContext &ctx, const graph::Graph &g, const graph::LrnOp &op, const VariantPack &pack) {
  const graph::Tensor &xt = g.tensor(op.x);
  const Operands o = operands_of(g, op, pack, sizeof(typename ST::type));
  if (o.shape.layout == Layout::none) return false;
  const Math m = make_math(op, xt.rank());
  const int64_t C = o.shape.channels;
  const bool direct = kIsFloat<ST> && !o.alias;
  if (o.shape.layout == Layout::planes) {
    // A tile of T positions over C channels: C T floats per buffer, kept
    // within L2 (forward reads its rows once more from L1).
    int64_t tile = std::clamp<int64_t>((op.backward ? 32768 : 65536) / C, 64, 1024) / 16 * 16;
    tile = std::min(tile, (o.shape.plane + 15) / 16 * 16);
    const PlaneRunner<ST> r{o.shape, xt, m, o.x, o.dy, o.out, op.backward, direct, o.alpha, o.beta, tile};
    run_items(ctx, r.items(), C * tile, [&](int64_t b, int64_t e) { r.run(b, e); });
    return true;
  }
  const int64_t group = std::max<int64_t>(1, 2048 / (C + op.n - 1));
  const RowRunner<ST> r{o.shape, xt, m, o.x, o.dy, o.out, op.backward, direct, o.alpha, o.beta, group};
  run_items(ctx, r.items(), C * group, [&](int64_t b, int64_t e) { r.run(b, e); });
  return true;
}

// Runs the op on a fast path and returns true, or returns false when none fits.
inline bool run_cross_channel(const ExecContext &ctx, const graph::Graph &g, const graph::LrnOp &op,
                              const VariantPack &pack) {
  if (op.kind != graph::LrnKind::cross_channel) return false;
  switch (g.tensor(op.x).dtype) {
    case CUDNN_DATA_FLOAT: return run_typed<Storage<CUDNN_DATA_FLOAT>>(ctx, g, op, pack);
    case CUDNN_DATA_HALF: return run_typed<Storage<CUDNN_DATA_HALF>>(ctx, g, op, pack);
    case CUDNN_DATA_BFLOAT16: return run_typed<Storage<CUDNN_DATA_BFLOAT16>>(ctx, g, op, pack);
    default: return false;
  }
}

}  // namespace fdnn::cpu::lrn_fast
