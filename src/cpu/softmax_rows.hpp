// The row kernels of the fast CPU softmax engine, meant to be included
// twice by softmax_math.hpp (so no include guard): once in namespace v256
// (AVX2, 8-float vectors) and once in namespace v512 under a
// `#pragma GCC target` for AVX-512 (16-float vectors). The including
// namespace defines V (the float vector type), I (the int32 vector of the
// same lanes), kN (its lanes), scale_pow2(p, n) (p *= 2^n) and
// clamp_keep_nan(x, lo, hi) (x clamped to [lo, hi], NaN lanes kept NaN).
//
// Why two copies of source text rather than templates: a function compiled
// for AVX-512 cannot be inlined into one that is not, and GCC inlines
// always_inline helpers bottom up, so every helper on the way from the
// AVX-512 entry point down to an AVX-512 instruction (scalef) must itself be
// compiled for AVX-512. Float rows are written in GCC vector types (GCC does
// not vectorise lane-array reductions of float: the partial maxima / sums
// stay scalar registers); double rows in lane arrays with std::exp.

// ---- Float vector helpers --------------------------------------------------

FDNN_VM_INLINE void vload(V &v, const float *p) { std::memcpy(&v, p, sizeof v); }
FDNN_VM_INLINE void vstore(float *p, const V &v) { std::memcpy(p, &v, sizeof v); }
// The first m < kN elements of p, the other lanes -inf.
FDNN_VM_INLINE void vload_part(V &v, const float *p, int64_t m) {
  v = V{} - std::numeric_limits<float>::infinity();
  std::memcpy(&v, p, static_cast<size_t>(m) * sizeof(float));
}
// Lanes [0, m) of v, the others 0.
FDNN_VM_INLINE void vkeep_first(V &v, int64_t m) {
  I lane;
  for (int l = 0; l < kN; ++l) lane[l] = l;
  v = lane < static_cast<int32_t>(m) ? v : V{};
}
// Horizontal sum by halves (a tree, not a chain of kN adds).
FDNN_VM_INLINE float vhsum(const V &v) {
  float h[kN];
  std::memcpy(h, &v, sizeof h);
  for (int w = kN / 2; w >= 1; w /= 2)
    for (int l = 0; l < w; ++l) h[l] += h[l + w];
  return h[0];
}
FDNN_VM_INLINE float vhmax(const V &v) {
  float r = -std::numeric_limits<float>::infinity();
  for (int l = 0; l < kN; ++l) r = v[l] > r ? v[l] : r;
  return r;
}

// x = vm::exp(x) lane by lane: the same operations (scale_pow2 rounds p * 2^n
// once, as vm::pow2_split does), so the same results.
FDNN_VM_INLINE void vexp(V &x) {
  const V z = {};
  const V xc = clamp_keep_nan(x, z - 104.0f, z + 89.0f);
  const V n = (xc * 1.44269504088896341f + 12582912.0f) - 12582912.0f;
  const V r = (xc - n * 0.693359375f) - n * -2.12194440e-4f;
  V p = z + 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * (r * r) + r + 1.0f;
  scale_pow2(p, n);  // a NaN lane of x is NaN in n, r and p, so in the result
  x = p;
}

// ---- Row primitives: float in vectors, double in lane arrays ---------------

// Maximum of a; a NaN is skipped here but poisons the sum of exponentials,
// so every result of its row is NaN.
FDNN_VM_INLINE float row_max(const float *a, int64_t n) {
  const V ninf = V{} - std::numeric_limits<float>::infinity();
  V m0 = ninf, m1 = ninf, m2 = ninf, m3 = ninf, v0, v1, v2, v3;
  int64_t i = 0;
  for (; i + 4 * kN <= n; i += 4 * kN) {  // four chains: max has a latency of 4
    vload(v0, a + i);
    vload(v1, a + i + kN);
    vload(v2, a + i + 2 * kN);
    vload(v3, a + i + 3 * kN);
    m0 = v0 > m0 ? v0 : m0;
    m1 = v1 > m1 ? v1 : m1;
    m2 = v2 > m2 ? v2 : m2;
    m3 = v3 > m3 ? v3 : m3;
  }
  for (; i + kN <= n; i += kN) {
    vload(v0, a + i);
    m0 = v0 > m0 ? v0 : m0;
  }
  if (i < n) {
    vload_part(v0, a + i, n - i);
    m1 = v0 > m1 ? v0 : m1;
  }
  m0 = m1 > m0 ? m1 : m0;
  m2 = m3 > m2 ? m3 : m2;
  m0 = m2 > m0 ? m2 : m0;
  return vhmax(m0);
}

// out[i] = exp(a[i] - shift) when Store; returns the sum of them.
template <bool Store>
FDNN_VM_INLINE float exp_shift_sum_impl(const float *a, int64_t n, float shift, float *out) {
  V s0 = {}, s1 = {}, e0, e1;
  int64_t i = 0;
  for (; i + 2 * kN <= n; i += 2 * kN) {
    vload(e0, a + i);
    vload(e1, a + i + kN);
    e0 -= shift;
    e1 -= shift;
    vexp(e0);
    vexp(e1);
    if (Store) {
      vstore(out + i, e0);
      vstore(out + i + kN, e1);
    }
    s0 += e0;
    s1 += e1;
  }
  for (; i + kN <= n; i += kN) {
    vload(e0, a + i);
    e0 -= shift;
    vexp(e0);
    if (Store) vstore(out + i, e0);
    s0 += e0;
  }
  if (i < n) {
    vload_part(e0, a + i, n - i);
    e0 -= shift;
    vexp(e0);
    vkeep_first(e0, n - i);
    if (Store) std::memcpy(out + i, &e0, static_cast<size_t>(n - i) * sizeof(float));
    s1 += e0;
  }
  s0 += s1;
  return vhsum(s0);
}
FDNN_VM_INLINE float exp_shift_sum(const float *a, int64_t n, float shift, float *out) {
  return exp_shift_sum_impl<true>(a, n, shift, out);
}
FDNN_VM_INLINE float exp_shift_sum_only(const float *a, int64_t n, float shift) {
  return exp_shift_sum_impl<false>(a, n, shift, nullptr);
}

// Sum of a[i] * b[i] (Dot) or of a[i].
template <bool Dot>
FDNN_VM_INLINE float sum_impl(const float *a, const float *b, int64_t n) {
  V s0 = {}, s1 = {}, s2 = {}, s3 = {}, u, w;
  int64_t i = 0;
  auto term = [&](int64_t at, V &acc) {
    vload(u, a + at);
    if (Dot) {
      vload(w, b + at);
      acc += u * w;
    } else {
      acc += u;
    }
  };
  for (; i + 4 * kN <= n; i += 4 * kN) {
    term(i, s0);
    term(i + kN, s1);
    term(i + 2 * kN, s2);
    term(i + 3 * kN, s3);
  }
  for (; i + kN <= n; i += kN) term(i, s0);
  float r = 0;
  for (; i < n; ++i) r += Dot ? a[i] * b[i] : a[i];
  s0 += s1;
  s2 += s3;
  s0 += s2;
  return r + vhsum(s0);
}
FDNN_VM_INLINE float row_dot(const float *a, const float *b, int64_t n) { return sum_impl<true>(a, b, n); }
FDNN_VM_INLINE float row_sum(const float *a, int64_t n) { return sum_impl<false>(a, a, n); }

FDNN_VM_INLINE double row_max(const double *a, int64_t n) {
  double m[kLanes];
  for (int l = 0; l < kLanes; ++l) m[l] = -std::numeric_limits<double>::infinity();
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int l = 0; l < kLanes; ++l) m[l] = a[i + l] > m[l] ? a[i + l] : m[l];
  double r = -std::numeric_limits<double>::infinity();
  for (; i < n; ++i) r = a[i] > r ? a[i] : r;
  for (int l = 0; l < kLanes; ++l) r = m[l] > r ? m[l] : r;
  return r;
}
FDNN_VM_INLINE double exp_shift_sum(const double *a, int64_t n, double shift, double *out) {
  double s[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int l = 0; l < kLanes; ++l) {
      const double e = std::exp(a[i + l] - shift);
      out[i + l] = e;
      s[l] += e;
    }
  double r = 0;
  for (; i < n; ++i) {
    const double e = std::exp(a[i] - shift);
    out[i] = e;
    r += e;
  }
  for (int l = 0; l < kLanes; ++l) r += s[l];
  return r;
}
FDNN_VM_INLINE double exp_shift_sum_only(const double *a, int64_t n, double shift) {
  double s[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int l = 0; l < kLanes; ++l) s[l] += std::exp(a[i + l] - shift);
  double r = 0;
  for (; i < n; ++i) r += std::exp(a[i] - shift);
  for (int l = 0; l < kLanes; ++l) r += s[l];
  return r;
}
FDNN_VM_INLINE double row_dot(const double *a, const double *b, int64_t n) {
  double s[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int l = 0; l < kLanes; ++l) s[l] += a[i + l] * b[i + l];
  double r = 0;
  for (; i < n; ++i) r += a[i] * b[i];
  for (int l = 0; l < kLanes; ++l) r += s[l];
  return r;
}
FDNN_VM_INLINE double row_sum(const double *a, int64_t n) {
  double s[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int l = 0; l < kLanes; ++l) s[l] += a[i + l];
  double r = 0;
  for (; i < n; ++i) r += a[i];
  for (int l = 0; l < kLanes; ++l) r += s[l];
  return r;
}

template <class C>
FDNN_VM_INLINE void scale_row(C *r, int64_t n, C f) {
  for (int64_t i = 0; i < n; ++i) r[i] *= f;
}

// ---- Rows ------------------------------------------------------------------

// Forward: r = softmax / log-softmax of a times alpha.
template <class C>
FDNN_VM_INLINE void forward_row_impl(cudnnSoftmaxAlgorithm_t algo, const C *a, int64_t n, C *r, C alpha) {
  if (algo == CUDNN_SOFTMAX_FAST) {  // no shift: large inputs overflow, as in cuDNN
    const C sum = exp_shift_sum(a, n, C(0), r);
    scale_row(r, n, alpha / sum);
    return;
  }
  if (n <= kChunk) {  // one chunk: no rescaling
    const C mx = row_max(a, n);
    Online<C> st;
    const C shift = st.advance(mx);
    if (algo == CUDNN_SOFTMAX_LOG) {
      const C sum = exp_shift_sum_only(a, n, shift);
      const C total = shift + std::log(sum);
      for (int64_t i = 0; i < n; ++i) r[i] = alpha * (a[i] - total);
      return;
    }
    const C sum = exp_shift_sum(a, n, shift, r);
    scale_row(r, n, mx == -std::numeric_limits<C>::infinity() ? std::numeric_limits<C>::quiet_NaN() : alpha / sum);
    return;
  }
  Online<C> st;
  const int64_t chunks = (n + kChunk - 1) / kChunk;
  C shifts_small[16];
  C *shifts = shifts_small;
  std::unique_ptr<C[]> shifts_big;
  if (chunks > 16) {
    shifts_big.reset(new C[static_cast<size_t>(chunks)]);
    shifts = shifts_big.get();
  }
  for (int64_t k = 0; k < chunks; ++k) {
    const int64_t c0 = k * kChunk, len = std::min(kChunk, n - c0);
    const C shift = st.advance(row_max(a + c0, len));
    shifts[k] = st.max;  // -inf: the chunk's exponentials (shift 0) are zeros
    if (algo == CUDNN_SOFTMAX_LOG) st.sum += exp_shift_sum_only(a + c0, len, shift);
    else st.sum += exp_shift_sum(a + c0, len, shift, r + c0);
  }
  if (algo == CUDNN_SOFTMAX_LOG) {
    const C total = st.shift() + std::log(st.sum);
    for (int64_t i = 0; i < n; ++i) r[i] = alpha * (a[i] - total);
    return;
  }
  const bool all_neg_inf = st.max == -std::numeric_limits<C>::infinity();
  for (int64_t k = 0; k < chunks; ++k) {
    const int64_t c0 = k * kChunk, len = std::min(kChunk, n - c0);
    // Chunks seen before the first finite maximum hold zeros (or NaN).
    C f = shifts[k] == -std::numeric_limits<C>::infinity() ? C(0) : exp_of(shifts[k] - st.max) * (alpha / st.sum);
    if (all_neg_inf || st.sum != st.sum) f = std::numeric_limits<C>::quiet_NaN();
    scale_row(r + c0, len, f);
  }
}

// Backward from y (a) and dy (b), times alpha.
template <class C>
FDNN_VM_INLINE void backward_row_impl(cudnnSoftmaxAlgorithm_t algo, const C *y, const C *dy, int64_t n, C *r,
                                      C alpha) {
  if (algo == CUDNN_SOFTMAX_LOG) {
    const C s = row_sum(dy, n);
    for (int64_t i = 0; i < n; ++i) r[i] = alpha * (dy[i] - exp_of(y[i]) * s);
  } else {
    const C s = row_dot(y, dy, n);
    for (int64_t i = 0; i < n; ++i) r[i] = alpha * (y[i] * (dy[i] - s));
  }
}

// ACCURATE backward of a float row written with streaming stores (whole
// aligned vectors; the row's unaligned head and its tail with ordinary
// ones): the same operations as backward_row_impl, so the same results.
FDNN_VM_INLINE void backward_accurate_stream_impl(const float *y, const float *dy, int64_t n, float *r, float alpha) {
  const float s = row_dot(y, dy, n);
  int64_t i = 0;
  for (; i < n && (reinterpret_cast<uintptr_t>(r + i) & (sizeof(V) - 1)) != 0; ++i) r[i] = alpha * (y[i] * (dy[i] - s));
  const V av = V{} + alpha, sv = V{} + s;
  for (; i + kN <= n; i += kN) {
    V yv, dv;
    std::memcpy(&yv, y + i, sizeof(V));
    std::memcpy(&dv, dy + i, sizeof(V));
    stream_store(r + i, av * (yv * (dv - sv)));
  }
  for (; i < n; ++i) r[i] = alpha * (y[i] * (dy[i] - s));
}

// ---- Lanes: kN rows at once, their elements strided -------------------------

// Rows whose elements are far apart (CHANNEL mode on NCHW: a pixel's
// channels lie H x W apart) but whose neighbours are neighbours in memory
// (the next pixel): kN rows are taken at once, one per vector lane, element
// i of all of them one vector load at a + i * as. The same operations per
// lane as forward_row_impl / backward_row_impl (one chunk: the rows are
// short), only the sums' order differs. r may be a (in place).
FDNN_VM_INLINE V lane_shift(const V &m) {
  const V ninf = V{} - std::numeric_limits<float>::infinity();
  return m == ninf ? V{} : m;  // all -inf so far: shift 0 (exp(-inf - -inf) would be NaN)
}
FDNN_VM_INLINE void forward_lanes_impl(cudnnSoftmaxAlgorithm_t algo, const float *a, int64_t n, int64_t as, float *r,
                                       int64_t rs, float alpha) {
  const V ninf = V{} - std::numeric_limits<float>::infinity();
  V m = ninf, v, s = {};
  if (algo != CUDNN_SOFTMAX_FAST)
    for (int64_t i = 0; i < n; ++i) {
      vload(v, a + i * as);
      m = v > m ? v : m;  // a NaN is skipped here and poisons the sum
    }
  const V shift = algo == CUDNN_SOFTMAX_FAST ? V{} : lane_shift(m);
  if (algo == CUDNN_SOFTMAX_LOG) {
    for (int64_t i = 0; i < n; ++i) {
      vload(v, a + i * as);
      v -= shift;
      vexp(v);
      s += v;
    }
    V total;
    for (int l = 0; l < kN; ++l) total[l] = shift[l] + std::log(s[l]);
    for (int64_t i = 0; i < n; ++i) {
      vload(v, a + i * as);
      vstore(r + i * rs, alpha * (v - total));
    }
    return;
  }
  for (int64_t i = 0; i < n; ++i) {
    vload(v, a + i * as);
    v -= shift;
    vexp(v);
    vstore(r + i * rs, v);
    s += v;
  }
  V f = alpha / s;
  if (algo != CUDNN_SOFTMAX_FAST) f = m == ninf ? V{} + std::numeric_limits<float>::quiet_NaN() : f;
  for (int64_t i = 0; i < n; ++i) {
    vload(v, r + i * rs);
    vstore(r + i * rs, v * f);
  }
}
FDNN_VM_INLINE void backward_lanes_impl(cudnnSoftmaxAlgorithm_t algo, const float *y, int64_t ys, const float *dy,
                                        int64_t ds, int64_t n, float *r, int64_t rs, float alpha) {
  V s = {}, u, w;
  for (int64_t i = 0; i < n; ++i) {
    vload(w, dy + i * ds);
    if (algo == CUDNN_SOFTMAX_LOG) {
      s += w;
    } else {
      vload(u, y + i * ys);
      s += u * w;
    }
  }
  for (int64_t i = 0; i < n; ++i) {
    vload(u, y + i * ys);
    vload(w, dy + i * ds);
    if (algo == CUDNN_SOFTMAX_LOG) {
      vexp(u);
      vstore(r + i * rs, alpha * (w - u * s));
    } else {
      vstore(r + i * rs, alpha * (u * (w - s)));
    }
  }
}

inline void forward_lanes(cudnnSoftmaxAlgorithm_t algo, const float *a, int64_t n, int64_t as, float *r, int64_t rs,
                          float alpha) {
  forward_lanes_impl(algo, a, n, as, r, rs, alpha);
}
inline void backward_lanes(cudnnSoftmaxAlgorithm_t algo, const float *y, int64_t ys, const float *dy, int64_t ds,
                           int64_t n, float *r, int64_t rs, float alpha) {
  backward_lanes_impl(algo, y, ys, dy, ds, n, r, rs, alpha);
}

// The entry points of this copy (not inlined: one per width and type).
inline void backward_accurate_stream(const float *y, const float *dy, int64_t n, float *r, float alpha) {
  backward_accurate_stream_impl(y, dy, n, r, alpha);
}
template <class C>
void forward_row(cudnnSoftmaxAlgorithm_t algo, const C *a, int64_t n, C *r, C alpha) {
  forward_row_impl(algo, a, n, r, alpha);
}
template <class C>
void backward_row(cudnnSoftmaxAlgorithm_t algo, const C *y, const C *dy, int64_t n, C *r, C alpha) {
  backward_row_impl(algo, y, dy, n, r, alpha);
}
