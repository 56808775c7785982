// Row kernels of the fast CPU softmax engine: plain loops over contiguous
// buffers of the compute type that the compiler vectorises (partial sums in
// kLanes independent accumulators, a polynomial exp without library calls).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include <cudnn_ops.h>

namespace fdnn::cpu::softmax {

constexpr int kLanes = 16;

// exp(x) for float with about 2 ulp error: x = n ln2 + r, |r| <= ln2/2, a
// degree-7 Taylor polynomial of e^r, scaled by 2^n through the exponent bits.
// Inputs below -87.3 give about 1e-38 instead of 0 (an absolute error far
// below every tolerance); NaN stays NaN.
inline float exp_fast(float x) {
  // Branch-free so that the row loops vectorise: plain selects for the clamp
  // (NaN fails both tests and stays NaN) and round-to-nearest through the
  // 1.5 * 2^23 constant instead of std::floor, which GCC keeps as control
  // flow. Rounding to nearest keeps |r| <= ln2/2 just the same.
  x = x < -87.3f ? -87.3f : x;
  x = x > 88.7f ? 88.7f : x;
  const float n = (x * 1.44269504088896341f + 12582912.0f) - 12582912.0f;
  const float r = (x - n * 0.693145751953125f) - n * 1.428606765330187e-6f;
  float p = 1.0f / 5040;
  p = p * r + 1.0f / 720;
  p = p * r + 1.0f / 120;
  p = p * r + 1.0f / 24;
  p = p * r + 1.0f / 6;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  const int32_t bits = (static_cast<int32_t>(n) + 127) << 23;
  float scale;
  std::memcpy(&scale, &bits, sizeof scale);
  return p * scale;
}
inline double exp_fast(double x) { return std::exp(x); }

template <class C>
C row_max(const C *a, int64_t n) {
  C m[kLanes];
  for (int l = 0; l < kLanes; ++l) m[l] = -std::numeric_limits<C>::infinity();
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int l = 0; l < kLanes; ++l) m[l] = a[i + l] > m[l] ? a[i + l] : m[l];
  C r = -std::numeric_limits<C>::infinity();
  for (; i < n; ++i) r = std::max(r, a[i]);
  for (int l = 0; l < kLanes; ++l) r = std::max(r, m[l]);
  return r;  // a NaN is skipped here but poisons the sum of exponentials, so every result is NaN
}

// out[i] = exp(a[i] - shift); returns the sum.
template <class C>
C exp_shift_sum(const C *a, int64_t n, C shift, C *out) {
  C s[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int l = 0; l < kLanes; ++l) {
      const C e = exp_fast(a[i + l] - shift);
      out[i + l] = e;
      s[l] += e;
    }
  C r = 0;
  for (; i < n; ++i) {
    out[i] = exp_fast(a[i] - shift);
    r += out[i];
  }
  for (int l = 0; l < kLanes; ++l) r += s[l];
  return r;
}

template <class C>
C row_dot(const C *a, const C *b, int64_t n) {
  C s[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int l = 0; l < kLanes; ++l) s[l] += a[i + l] * b[i + l];
  C r = 0;
  for (; i < n; ++i) r += a[i] * b[i];
  for (int l = 0; l < kLanes; ++l) r += s[l];
  return r;
}

template <class C>
C row_sum(const C *a, int64_t n) {
  C s[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int l = 0; l < kLanes; ++l) s[l] += a[i + l];
  C r = 0;
  for (; i < n; ++i) r += a[i];
  for (int l = 0; l < kLanes; ++l) r += s[l];
  return r;
}

// Forward: r = softmax / log-softmax of a (r may alias nothing).
template <class C>
void forward_row(cudnnSoftmaxAlgorithm_t algo, const C *a, int64_t n, C *r) {
  const C mx = algo == CUDNN_SOFTMAX_FAST ? C(0) : row_max(a, n);
  const C sum = exp_shift_sum(a, n, mx, r);
  if (algo == CUDNN_SOFTMAX_LOG) {
    const C shift = mx + std::log(sum);
    for (int64_t i = 0; i < n; ++i) r[i] = a[i] - shift;
  } else {
    const C inv = C(1) / sum;
    for (int64_t i = 0; i < n; ++i) r[i] *= inv;
  }
}

// Backward from y (a) and dy (b).
template <class C>
void backward_row(cudnnSoftmaxAlgorithm_t algo, const C *y, const C *dy, int64_t n, C *r) {
  if (algo == CUDNN_SOFTMAX_LOG) {
    const C s = row_sum(dy, n);
    for (int64_t i = 0; i < n; ++i) r[i] = dy[i] - exp_fast(y[i]) * s;
  } else {
    const C s = row_dot(y, dy, n);
    for (int64_t i = 0; i < n; ++i) r[i] = y[i] * (dy[i] - s);
  }
}

}  // namespace fdnn::cpu::softmax
