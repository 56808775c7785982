// Branch-free float math for the CPU engines' inner loops: exp, expm1, log,
// tanh and sigmoid.
//
// Each function is a scalar inline function written only with arithmetic,
// bit casts and selects (no calls, no data-dependent branches), so that a
// plain loop over an array calls it lane by lane and GCC turns the loop into
// AVX2 code (the library builds with -march=x86-64-v3 -fno-trapping-math;
// with trapping math GCC keeps float selects as branches and the loop stays
// scalar). The array helpers at the end are such loops.
//
// Where the CPU has AVX-512 (checked at run time), for_each() runs a loop
// body in a copy of the loop compiled for it: 16 lanes instead of 8, about
// twice the throughput of these compute-bound functions.
//
// Accuracy (tests/cpu/vec_math_check.cpp sweeps the float range against long
// double): exp and log within 2 ulp, expm1 and sigmoid within 3 ulp, tanh within 4,
// subnormal results included. Special values follow IEEE / libm: NaN in, NaN
// out; exp(-inf) = 0, exp(+inf) = +inf, exp overflows to +inf and
// underflows through the subnormals to 0; log(0) = -inf, log(x < 0) = NaN;
// tanh(+-inf) = +-1, sigmoid(-inf) = 0, sigmoid(+inf) = 1.
#pragma once

#include <cstdint>
#include <cstring>
#include <limits>

#include "cpu/cpu_features.hpp"

#define FDNN_VM_INLINE inline __attribute__((always_inline))
#define FDNN_VM_AVX512 __attribute__((target("avx512f,avx512vl,avx512dq,avx512bw,prefer-vector-width=512")))

namespace fdnn::cpu::vm {

// ---- Runtime ISA dispatch --------------------------------------------------------

inline bool has_avx512() { return avx512_usable(); }

// body(i) for i in [0, n): the body is inlined into each copy, so its loop
// vectorises at the copy's width. Bodies capture by value ([=]): the local
// copy below then lives in registers, where stores through the body's
// output pointer cannot alias its parameters (captures by reference would
// be reloaded every iteration and keep the loop scalar).
template <class F>
FDNN_VM_AVX512 void for_each_avx512(int64_t n, const F &body) {
  const F f = body;
  for (int64_t i = 0; i < n; ++i) f(i);
}
template <class F>
void for_each_avx2(int64_t n, const F &body) {
  const F f = body;
  for (int64_t i = 0; i < n; ++i) f(i);
}
template <class F>
FDNN_VM_INLINE void for_each(int64_t n, const F &body) {
  if (has_avx512()) for_each_avx512(n, body);
  else for_each_avx2(n, body);
}

FDNN_VM_INLINE float bits_to_float(int32_t i) {
  float f;
  std::memcpy(&f, &i, sizeof f);
  return f;
}
FDNN_VM_INLINE int32_t float_to_bits(float f) {
  int32_t i;
  std::memcpy(&i, &f, sizeof i);
  return i;
}

// 2^n for integer-valued n in [-152, 128], as the product of two normal
// powers of two (so subnormal and infinite results come out of one rounding
// of the final multiply).
FDNN_VM_INLINE float pow2_split(float n, float p) {
  const int32_t k = static_cast<int32_t>(n);
  const int32_t k1 = k >> 1, k2 = k - k1;
  return p * bits_to_float((k1 + 127) << 23) * bits_to_float((k2 + 127) << 23);
}

// e^x. x = n ln2 + r with |r| <= ln2/2 (Cody-Waite: ln2 in two parts, the
// first exact in a few bits), e^r = 1 + r + r^2 P(r) with Cephes' minimax P.
FDNN_VM_INLINE float exp(float x) {
  // Clamp through selects that NaN fails (it becomes the lower bound, and is
  // restored at the end): n stays in [-151, 129] and converts safely.
  float xc = x > -104.0f ? x : -104.0f;
  xc = xc < 89.0f ? xc : 89.0f;
  const float n = (xc * 1.44269504088896341f + 12582912.0f) - 12582912.0f;
  const float r = (xc - n * 0.693359375f) - n * -2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * (r * r) + r + 1.0f;
  const float y = pow2_split(n, p);
  return x == x ? y : x;
}

// e^x - 1, accurate near 0: a Taylor polynomial for |x| < 0.5 (terms to
// x^9, truncation below 1e-9 relative), exp(x) - 1 elsewhere (no
// cancellation there: |e^x - 1| > 0.39).
FDNN_VM_INLINE float expm1(float x) {
  const float ax = x < 0.0f ? -x : x;
  float p = 1.0f / 362880;
  p = p * x + 1.0f / 40320;
  p = p * x + 1.0f / 5040;
  p = p * x + 1.0f / 720;
  p = p * x + 1.0f / 120;
  p = p * x + 1.0f / 24;
  p = p * x + 1.0f / 6;
  p = p * x + 0.5f;
  const float small = p * (x * x) + x;
  const float large = vm::exp(x) - 1.0f;
  const float r = ax < 0.5f ? small : large;  // NaN fails the test and takes exp's NaN
  return x == 0.0f ? x : r;                   // keeps the sign of -0
}

// Natural logarithm: x = 2^e m with m in [sqrt(1/2), sqrt(2)), log(m) by
// Cephes' polynomial in m - 1, e ln2 added in two parts.
FDNN_VM_INLINE float log(float x) {
  // Subnormal inputs are scaled by 2^23 first.
  const bool sub = x < 1.17549435e-38f;
  const float xs = sub ? x * 8388608.0f : x;
  const int32_t bits = float_to_bits(xs);
  float e = static_cast<float>(((bits >> 23) & 0xff) - 126) - (sub ? 23.0f : 0.0f);
  float m = bits_to_float((bits & 0x007fffff) | 0x3f000000);  // [0.5, 1)
  const bool lo = m < 0.707106781186547524f;
  e = lo ? e - 1.0f : e;
  m = lo ? m + m - 1.0f : m - 1.0f;
  const float z = m * m;
  float y = 7.0376836292e-2f;
  y = y * m - 1.1514610310e-1f;
  y = y * m + 1.1676998740e-1f;
  y = y * m - 1.2420140846e-1f;
  y = y * m + 1.4249322787e-1f;
  y = y * m - 1.6668057665e-1f;
  y = y * m + 2.0000714765e-1f;
  y = y * m - 2.4999993993e-1f;
  y = y * m + 3.3333331174e-1f;
  y = y * m * z;
  y = y + e * -2.12194440e-4f;
  y = y - 0.5f * z;
  float r = m + y;
  r = r + e * 0.693359375f;
  const float inf = std::numeric_limits<float>::infinity();
  r = x == inf ? inf : r;
  r = x == 0.0f ? -inf : r;
  r = x < 0.0f ? std::numeric_limits<float>::quiet_NaN() : r;
  return x == x ? r : x;
}

// tanh: a rational minimax approximation x P(x^2) / Q(x^2) (degrees 13 / 6,
// Eigen's coefficients) on |x| < 7.905, no exp and one division. Beyond it
// tanh = 1 - 2 e^-2|x| + ..., where 2 e^-2|x| < 2.8e-7 (under 5 ulp of 1):
// e^-2|x| needs only a few correct bits there, so a linear-mantissa 2^t
// (error under 6.2 %) serves.
FDNN_VM_INLINE float tanh(float x) {
  constexpr float kLimit = 7.90531110763549805f;
  float xc = x < kLimit ? x : kLimit;
  xc = xc > -kLimit ? xc : -kLimit;
  const float z = xc * xc;
  float p = -2.76076847742355e-16f;
  p = p * z + 2.00018790482477e-13f;
  p = p * z - 8.60467152213735e-11f;
  p = p * z + 5.12229709037114e-08f;
  p = p * z + 1.48572235717979e-05f;
  p = p * z + 6.37261928875436e-04f;
  p = p * z + 4.89352455891786e-03f;
  float q = 1.19825839466702e-06f;
  q = q * z + 1.18534705686654e-04f;
  q = q * z + 2.26843463243900e-03f;
  q = q * z + 4.89352518554385e-03f;
  const float mid = xc * p / q;
  const float ax = x < 0.0f ? -x : x;
  const float t = -2.88539008177792681f * (ax < 20.0f ? ax : 20.0f);  // log2(e^-2|x|), in [-57.7, 0]
  const float e = bits_to_float(static_cast<int32_t>(t * 8388608.0f) + (127 << 23));
  const float tail = 1.0f - 2.0f * e;
  const float r = ax > kLimit ? (x < 0.0f ? -tail : tail) : mid;
  return ax < 0.0004f || x != x ? x : r;  // tiny |x| (and +-0): tanh x = x; NaN stays
}

// 1 / (1 + e^-x), from e = e^-|x| so that neither side overflows and small
// results (x very negative, subnormal included) keep their precision.
FDNN_VM_INLINE float sigmoid(float x) {
  const float ax = x < 0.0f ? -x : x;
  const float e = vm::exp(-ax);
  const float r = 1.0f / (1.0f + e);
  return x < 0.0f ? e * r : r;  // NaN: e is NaN, so is r
}

// The standard normal CDF Phi(x) = erfc(-x / sqrt 2) / 2 (GELU's gate).
// erfc(z) for z >= 0 is Numerical Recipes' Chebyshev fit t e^(-z^2 + P(t)),
// t = 1 / (1 + z/2), whose relative error stays below 1.2e-7 over the whole
// range; for x < 0 Phi is that erfc itself, so the far tail keeps its
// relative accuracy (1 + erf(x) would cancel; libm's float erf rounds it to
// 0 beyond x = -5.5). Measured: 8.5 ulp on [-2, 4], 26 at -3.85, 200 in the
// far tail (Phi ~ 1e-36) where exp's argument loses bits. NaN gives NaN.
FDNN_VM_INLINE float norm_cdf(float x) {
  const float z = (x < 0.0f ? -x : x) * 0.70710678118654752f;
  const float t = 1.0f / (1.0f + 0.5f * z);
  float p = 0.17087277f;
  p = p * t - 0.82215223f;
  p = p * t + 1.48851587f;
  p = p * t - 1.13520398f;
  p = p * t + 0.27886807f;
  p = p * t - 0.18628806f;
  p = p * t + 0.09678418f;
  p = p * t + 0.37409196f;
  p = p * t + 1.00002368f;
  p = p * t - 1.26551223f;
  const float erfc_z = t * vm::exp(p - z * z);
  return x >= 0.0f ? 1.0f - 0.5f * erfc_z : 0.5f * erfc_z;
}

// ---- Array forms: plain loops that vectorise -----------------------------------

inline void exp_n(const float *x, float *y, int64_t n) {
  for_each(n, [=](int64_t i) { y[i] = vm::exp(x[i]); });
}
inline void tanh_n(const float *x, float *y, int64_t n) {
  for_each(n, [=](int64_t i) { y[i] = vm::tanh(x[i]); });
}
inline void sigmoid_n(const float *x, float *y, int64_t n) {
  for_each(n, [=](int64_t i) { y[i] = vm::sigmoid(x[i]); });
}
inline void expm1_n(const float *x, float *y, int64_t n) {
  for_each(n, [=](int64_t i) { y[i] = vm::expm1(x[i]); });
}
inline void log_n(const float *x, float *y, int64_t n) {
  for_each(n, [=](int64_t i) { y[i] = vm::log(x[i]); });
}

}  // namespace fdnn::cpu::vm
