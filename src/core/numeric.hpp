// Scalar conversions between float/double and the storage formats cuDNN
// tensors use: IEEE binary16 (half), bfloat16, the OCP 8-bit floats (E4M3 in
// its "FN" variant without infinities, E5M2), E8M0 scale factors, FP4 E2M1
// and the integer types.
//
// Rounding is round-to-nearest-even everywhere. Overflow follows what NVIDIA's
// conversions do on the GPU, so that the CPU and CUDA backends write the same
// bits:
//  - half, bfloat16: overflow rounds to +-inf (as __float2half_rn does);
//  - FP8 E4M3 / E5M2: saturate to the largest finite value ("satfinite", as
//    the __nv_fp8_e4m3 / __nv_fp8_e5m2 constructors do), infinities too; NaN
//    stays NaN (0x7f/0xff for E4M3, 0x7e/0xfe for E5M2);
//  - integers: round to nearest even, clamp to the type's range, NaN -> 0
//    (the PTX cvt.rni.sat behaviour cuDNN documents for int8 outputs).
//
// Every function is usable in CUDA kernels (FDNN_HD) and in host code.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#ifndef FDNN_HD
#if defined(__CUDACC__)
#define FDNN_HD __host__ __device__
#else
#define FDNN_HD
#endif
#endif

namespace fdnn::num {

FDNN_HD inline uint32_t float_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}
FDNN_HD inline float bits_to_float(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}
FDNN_HD inline uint64_t double_bits(double d) {
  uint64_t u;
  std::memcpy(&u, &d, sizeof u);
  return u;
}

// ---------------------------------------------------------------------------
// Small floating-point formats, generic encoder.
//
// A format with E exponent bits, M mantissa bits and bias B has codes
// (exponent_field << M) | mantissa. For a magnitude a, let e be floor(log2 a)
// clamped below at the smallest normal exponent emin = 1 - B; then
// q = rint(a / 2^(e - M)) and the code is ((e - emin) << M) + q. The same
// formula covers subnormals (e == emin, q < 2^M) and the carry of a rounded-up
// mantissa into the exponent, because codes are ordered like the values.
// ---------------------------------------------------------------------------
struct MiniFloatFormat {
  int mantissa_bits;
  int bias;
  uint32_t max_finite_code;  // magnitude code of the largest finite value
  uint32_t inf_code;         // magnitude code of infinity; 0 when the format has none
  uint32_t nan_code;         // magnitude code written for NaN
  bool saturate;             // overflow (and inf) -> max finite instead of inf
  int sign_shift;            // position of the sign bit
};

FDNN_HD inline uint32_t encode_minifloat(double x, const MiniFloatFormat &f) {
  const uint32_t sign = std::signbit(x) ? (1u << f.sign_shift) : 0u;
  if (std::isnan(x)) return sign | f.nan_code;
  double a = std::fabs(x);
  uint32_t code;
  if (std::isinf(a)) {
    code = f.saturate ? f.max_finite_code : f.inf_code;
  } else if (a == 0.0) {
    code = 0;
  } else {
    const int emin = 1 - f.bias;
    int e = std::ilogb(a);
    if (e < emin) e = emin;
    // (e - emin) < 2^11 for any double, so the code fits in 32 bits.
    double q = std::rint(std::ldexp(a, f.mantissa_bits - e));
    code = (static_cast<uint32_t>(e - emin) << f.mantissa_bits) + static_cast<uint32_t>(q);
    if (code > f.max_finite_code) code = f.saturate ? f.max_finite_code : f.inf_code;
  }
  return sign | code;
}

// Decodes a code of a format whose all-ones exponent is ordinary (E4M3 FN,
// E2M1) or IEEE-like (half, E5M2); the caller handles NaN/inf codes first.
FDNN_HD inline double decode_minifloat_finite(uint32_t magnitude, int mantissa_bits, int bias) {
  const uint32_t exp_field = magnitude >> mantissa_bits;
  const uint32_t mant = magnitude & ((1u << mantissa_bits) - 1u);
  if (exp_field == 0) return std::ldexp(static_cast<double>(mant), 1 - bias - mantissa_bits);
  return std::ldexp(static_cast<double>(mant | (1u << mantissa_bits)),
                    static_cast<int>(exp_field) - bias - mantissa_bits);
}

// ---------------------------------------------------------------------------
// IEEE binary16
// ---------------------------------------------------------------------------
FDNN_HD inline float half_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t em = h & 0x7fffu;
  if (em >= 0x7c00u) return bits_to_float(sign | 0x7f800000u | ((em & 0x3ffu) << 13));  // inf, NaN
  if (em >= 0x0400u) return bits_to_float(sign | ((em + ((127u - 15u) << 10)) << 13));  // normal
  // Subnormal or zero: em * 2^-24 is exact in float.
  float mag = static_cast<float>(em) * 5.9604644775390625e-8f;
  return bits_to_float(sign | float_bits(mag));
}

FDNN_HD inline uint16_t float_to_half(float x) {
  uint32_t f = float_bits(x);
  const uint32_t sign = (f >> 16) & 0x8000u;
  f &= 0x7fffffffu;
  uint32_t o;
  if (f >= 0x47800000u) {  // >= 65536, inf or NaN
    o = f > 0x7f800000u ? (0x7e00u | ((f >> 13) & 0x3ffu)) : 0x7c00u;
  } else if (f < 0x38800000u) {  // below the smallest normal half (2^-14)
    // Adding 0.5 aligns the value's bits so that float rounding (RNE) does
    // the half rounding; the low bits are then the subnormal code.
    const float magic = 0.5f;
    o = float_bits(bits_to_float(f) + magic) - float_bits(magic);
  } else {
    const uint32_t mant_odd = (f >> 13) & 1u;
    f += (static_cast<uint32_t>(15 - 127) << 23) + 0xfffu + mant_odd;  // re-bias and round
    o = f >> 13;
  }
  return static_cast<uint16_t>(o | sign);
}

FDNN_HD inline uint16_t double_to_half(double x) {
  const MiniFloatFormat f{10, 15, 0x7bffu, 0x7c00u, 0x7e00u, false, 15};
  return static_cast<uint16_t>(encode_minifloat(x, f));
}

// ---------------------------------------------------------------------------
// bfloat16
// ---------------------------------------------------------------------------
FDNN_HD inline float bf16_to_float(uint16_t b) { return bits_to_float(static_cast<uint32_t>(b) << 16); }

FDNN_HD inline uint16_t float_to_bf16(float x) {
  const uint32_t f = float_bits(x);
  if ((f & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((f >> 16) | 0x40u);  // quiet NaN
  return static_cast<uint16_t>((f + 0x7fffu + ((f >> 16) & 1u)) >> 16);
}

FDNN_HD inline uint16_t double_to_bf16(double x) {
  const MiniFloatFormat f{7, 127, 0x7f7fu, 0x7f80u, 0x7fc0u, false, 15};
  return static_cast<uint16_t>(encode_minifloat(x, f));
}

// ---------------------------------------------------------------------------
// FP8 E4M3 (FN: no infinities, S.1111.111 is NaN, max 448) and E5M2
// ---------------------------------------------------------------------------
FDNN_HD inline uint8_t double_to_e4m3(double x) {
  const MiniFloatFormat f{3, 7, 0x7eu, 0x7eu, 0x7fu, true, 7};
  return static_cast<uint8_t>(encode_minifloat(x, f));
}
FDNN_HD inline uint8_t float_to_e4m3(float x) { return double_to_e4m3(static_cast<double>(x)); }
FDNN_HD inline double e4m3_to_double(uint8_t v) {
  const uint32_t mag = v & 0x7fu;
  double r = mag == 0x7fu ? std::numeric_limits<double>::quiet_NaN() : decode_minifloat_finite(mag, 3, 7);
  return (v & 0x80u) ? -r : r;
}
FDNN_HD inline float e4m3_to_float(uint8_t v) { return static_cast<float>(e4m3_to_double(v)); }

FDNN_HD inline uint8_t double_to_e5m2(double x) {
  const MiniFloatFormat f{2, 15, 0x7bu, 0x7cu, 0x7eu, true, 7};
  return static_cast<uint8_t>(encode_minifloat(x, f));
}
FDNN_HD inline uint8_t float_to_e5m2(float x) { return double_to_e5m2(static_cast<double>(x)); }
FDNN_HD inline double e5m2_to_double(uint8_t v) {
  const uint32_t mag = v & 0x7fu;
  double r;
  if (mag > 0x7cu) r = std::numeric_limits<double>::quiet_NaN();
  else if (mag == 0x7cu) r = std::numeric_limits<double>::infinity();
  else r = decode_minifloat_finite(mag, 2, 15);
  return (v & 0x80u) ? -r : r;
}
FDNN_HD inline float e5m2_to_float(uint8_t v) { return static_cast<float>(e5m2_to_double(v)); }

// ---------------------------------------------------------------------------
// E8M0 (unsigned power-of-two scale, 0xff is NaN): value 2^(code - 127).
// Conversion rounds to the nearest power of two (ties, i.e. mantissa exactly
// 1.5, round up), saturates to 2^127 and sends zero and negatives to 2^-127.
// ---------------------------------------------------------------------------
FDNN_HD inline double e8m0_to_double(uint8_t v) {
  if (v == 0xffu) return std::numeric_limits<double>::quiet_NaN();
  return std::ldexp(1.0, static_cast<int>(v) - 127);
}
FDNN_HD inline uint8_t double_to_e8m0(double x) {
  if (std::isnan(x)) return 0xffu;
  if (!(x > 0.0)) return 0;
  if (std::isinf(x)) return 0xfeu;
  int e = std::ilogb(x);
  double m = std::ldexp(x, -e);  // in [1, 2)
  if (m >= 1.5) ++e;
  e += 127;
  if (e < 0) e = 0;
  if (e > 0xfe) e = 0xfe;
  return static_cast<uint8_t>(e);
}

// ---------------------------------------------------------------------------
// FP4 E2M1 (values 0, 0.5, 1, 1.5, 2, 3, 4, 6; no inf/NaN): a 4-bit code.
// Saturating; NaN becomes the largest magnitude with the NaN's sign.
// ---------------------------------------------------------------------------
FDNN_HD inline uint8_t double_to_e2m1(double x) {
  const MiniFloatFormat f{1, 1, 0x7u, 0x7u, 0x7u, true, 3};
  return static_cast<uint8_t>(encode_minifloat(x, f) & 0xfu);
}
FDNN_HD inline double e2m1_to_double(uint8_t v) {
  double r = decode_minifloat_finite(v & 0x7u, 1, 1);
  return (v & 0x8u) ? -r : r;
}

// ---------------------------------------------------------------------------
// Integers: round to nearest even, saturate, NaN -> 0.
// ---------------------------------------------------------------------------
template <class I>
FDNN_HD inline I saturate_round(double v) {
  if (std::isnan(v)) return I(0);
  const double lo = static_cast<double>(std::numeric_limits<I>::min());
  const double hi = static_cast<double>(std::numeric_limits<I>::max());
  if (v <= lo) return std::numeric_limits<I>::min();
  // hi may round up in double (INT64_MAX -> 2^63): compare with >=.
  if (v >= hi) return std::numeric_limits<I>::max();
  return static_cast<I>(std::rint(v));
}

// float -> int8 on the fast path: the same result as saturate_round<int8_t>
// without going through double.
FDNN_HD inline int8_t float_to_int8(float v) {
  if (v != v) return 0;
  v = v < -128.0f ? -128.0f : (v > 127.0f ? 127.0f : v);
  return static_cast<int8_t>(std::nearbyint(v));
}
FDNN_HD inline uint8_t float_to_uint8(float v) {
  if (v != v) return 0;
  v = v < 0.0f ? 0.0f : (v > 255.0f ? 255.0f : v);
  return static_cast<uint8_t>(std::nearbyint(v));
}

}  // namespace fdnn::num
