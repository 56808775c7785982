// Type- and mode-specialised inner loops of the fast CPU pointwise engine.
//
// A row of elements goes through three stages, one block of kBlock elements
// at a time, in the compute type C (float or double):
//   load   : each input's storage type -> C buffer (contiguous, broadcast
//            or strided source),
//   compute: the mode's formula over the buffers (pointwise_math.hpp),
//   store  : C -> y's storage type, blended with y's prior value.
// Each stage is a function pointer chosen once per plan, so the number of
// instantiations is types + modes + types, not their product, and every loop
// is a simple one the compiler vectorises.
#pragma once

#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#if defined(__F16C__) && defined(__AVX__)
#include <immintrin.h>
#define FDNN_CPU_F16C 1
#endif

#include "core/pointwise_math.hpp"
#include "cpu/convert_simd.hpp"
#include "cpu/dtype_io.hpp"
#include "cpu/vec_math.hpp"

namespace fdnn::cpu {

constexpr int kBlock = 512;

template <class C>
using LoadFn = void (*)(const char *src, int64_t stride, int n, C *out);
template <class C>
using StoreFn = void (*)(char *dst, int64_t stride, int n, const C *r, C alpha, C beta);
template <class C>
using ComputeFn = void (*)(int n, const C *a, const C *b, const C *c, C *out, C alpha1, C alpha2,
                           const pw::Params<C> &p);

template <class ST, class C>
inline C to_compute(typename ST::type v) {
  if constexpr (std::is_same_v<C, float>) return ST::to_float(v);
  else return ST::to_double(v);
}
template <class ST, class C>
inline typename ST::type from_compute(C v) {
  if constexpr (std::is_same_v<C, float>) return ST::from_float(v);
  else return ST::from_double(v);
}

template <class ST, class C>
void load_kernel(const char *src, int64_t stride, int n, C *out) {
  using S = typename ST::type;
  const S *s = reinterpret_cast<const S *>(src);
  if (stride == 1) {
    int i = 0;
    if constexpr (std::is_same_v<C, float>) {
      if constexpr (std::is_same_v<ST, Storage<CUDNN_DATA_HALF>>) i = simd::half_to_float(s, n, out);
      if constexpr (std::is_same_v<ST, Storage<CUDNN_DATA_BFLOAT16>>) i = simd::bf16_to_float(s, n, out);
    }
    for (; i < n; ++i) out[i] = to_compute<ST, C>(s[i]);
  } else if (stride == 0) {
    const C v = to_compute<ST, C>(s[0]);
    for (int i = 0; i < n; ++i) out[i] = v;
  } else {
    for (int i = 0; i < n; ++i) out[i] = to_compute<ST, C>(s[i * stride]);
  }
}

// y = alpha * r (kReadPrior false: y's prior value is never read, so NaN in
// y cannot leak) or y = alpha * r + beta * y.
template <class ST, class C, bool kReadPrior>
void store_kernel(char *dst, int64_t stride, int n, const C *r, C alpha, C beta) {
  using S = typename ST::type;
  S *d = reinterpret_cast<S *>(dst);
  if (stride == 1) {
    int i = 0;
    if constexpr (std::is_same_v<C, float>) {  // 16-bit floats: vector conversions
      if constexpr (std::is_same_v<ST, Storage<CUDNN_DATA_HALF>>)
        i = simd::store_16bit<false, kReadPrior>(d, r, n, alpha, beta);
      if constexpr (std::is_same_v<ST, Storage<CUDNN_DATA_BFLOAT16>>)
        i = simd::store_16bit<true, kReadPrior>(d, r, n, alpha, beta);
    }
    if constexpr (!kReadPrior) {
      for (; i < n; ++i) d[i] = from_compute<ST, C>(alpha * r[i]);
    } else {
      for (; i < n; ++i) d[i] = from_compute<ST, C>(alpha * r[i] + beta * to_compute<ST, C>(d[i]));
    }
  } else {
    for (int i = 0; i < n; ++i) {
      S &out = d[i * stride];
      if constexpr (kReadPrior) out = from_compute<ST, C>(alpha * r[i] + beta * to_compute<ST, C>(out));
      else out = from_compute<ST, C>(alpha * r[i]);
    }
  }
}

template <class OpT, class C>
void compute_kernel(int n, const C *a, const C *b, const C *c, C *out, C alpha1, C alpha2, const pw::Params<C> &p) {
  const pw::Params<C> params = p;  // a local copy lets the compiler keep it in registers
  if constexpr (OpT::arity == 1) {
    for (int i = 0; i < n; ++i) out[i] = OpT::template apply<C>(alpha1 * a[i], C(0), C(0), params);
  } else if constexpr (OpT::arity == 2) {
    for (int i = 0; i < n; ++i) out[i] = OpT::template apply<C>(alpha1 * a[i], alpha2 * b[i], C(0), params);
  } else {
    for (int i = 0; i < n; ++i) out[i] = OpT::template apply<C>(alpha1 * a[i], alpha2 * b[i], c[i], params);
  }
}

// Float activations through vec_math.hpp: pw::Op's formulas call libm
// (tanh, exp, expm1), which keeps the loops above scalar. Same formulas,
// branch-free, so these loops vectorise; mode parameters that are constant
// for the call are tested once, outside the loop.
#define FDNN_FLOAT_KERNEL(MODE)                                                                        \
  template <>                                                                                          \
  inline void compute_kernel<pw::Op<MODE>, float>(int n, const float *a, const float *b, const float *c, \
                                                  float *out, float alpha1, float alpha2,               \
                                                  const pw::Params<float> &p)
FDNN_FLOAT_KERNEL(CUDNN_POINTWISE_EXP) {
  vm::for_each(n, [=](int64_t i) { out[i] = vm::exp(alpha1 * a[i]); });
}
FDNN_FLOAT_KERNEL(CUDNN_POINTWISE_LOG) {
  vm::for_each(n, [=](int64_t i) { out[i] = vm::log(alpha1 * a[i]); });
}
FDNN_FLOAT_KERNEL(CUDNN_POINTWISE_TANH_FWD) {
  vm::for_each(n, [=](int64_t i) { out[i] = vm::tanh(alpha1 * a[i]); });
}
FDNN_FLOAT_KERNEL(CUDNN_POINTWISE_GELU_FWD) {
  vm::for_each(n, [=](int64_t i) {
    const float x = alpha1 * a[i];
    out[i] = x * vm::norm_cdf(x);
  });
}
FDNN_FLOAT_KERNEL(CUDNN_POINTWISE_GELU_BWD) {
  vm::for_each(n, [=](int64_t i) {
    const float x = alpha1 * a[i], dy = alpha2 * b[i];
    out[i] = dy * (vm::norm_cdf(x) + x * 0.39894228040143268f * vm::exp(-0.5f * x * x));
  });
}
FDNN_FLOAT_KERNEL(CUDNN_POINTWISE_SIGMOID_FWD) {
  vm::for_each(n, [=](int64_t i) { out[i] = vm::sigmoid(alpha1 * a[i]); });
}
FDNN_FLOAT_KERNEL(CUDNN_POINTWISE_ELU_FWD) {
  const float ea = p.elu_alpha;
  vm::for_each(n, [=](int64_t i) {
    const float x = alpha1 * a[i];
    const float neg = ea * vm::expm1(x);
    out[i] = x > 0.0f ? x : neg;
  });
}
FDNN_FLOAT_KERNEL(CUDNN_POINTWISE_SWISH_FWD) {
  const float sb = p.swish_beta;
  vm::for_each(n, [=](int64_t i) {
    const float x = alpha1 * a[i];
    out[i] = x * vm::sigmoid(sb * x);
  });
}
FDNN_FLOAT_KERNEL(CUDNN_POINTWISE_GELU_APPROX_TANH_FWD) {
  vm::for_each(n, [=](int64_t i) {
    const float x = alpha1 * a[i];
    out[i] = 0.5f * x * (1.0f + vm::tanh(pw::gelu_tanh_inner(x)));
  });
}
FDNN_FLOAT_KERNEL(CUDNN_POINTWISE_TANH_BWD) {
  if (p.bwd_from_output) {  // a is y = tanh(x): plain arithmetic
    vm::for_each(n, [=](int64_t i) {
      const float t = alpha1 * a[i];
      out[i] = alpha2 * b[i] * (1.0f - t * t);
    });
    return;
  }
  vm::for_each(n, [=](int64_t i) {
    const float t = vm::tanh(alpha1 * a[i]);
    out[i] = alpha2 * b[i] * (1.0f - t * t);
  });
}
FDNN_FLOAT_KERNEL(CUDNN_POINTWISE_SIGMOID_BWD) {
  if (p.bwd_from_output) {
    vm::for_each(n, [=](int64_t i) {
      const float s = alpha1 * a[i];
      out[i] = alpha2 * b[i] * s * (1.0f - s);
    });
    return;
  }
  vm::for_each(n, [=](int64_t i) {
    const float s = vm::sigmoid(alpha1 * a[i]);
    out[i] = alpha2 * b[i] * s * (1.0f - s);
  });
}
FDNN_FLOAT_KERNEL(CUDNN_POINTWISE_ELU_BWD) {
  const float ea = p.elu_alpha;
  if (p.bwd_from_output) {  // a holds y = alpha (e^x - 1) where x <= 0
    vm::for_each(n, [=](int64_t i) {
      const float y = alpha1 * a[i], dy = alpha2 * b[i];
      const float neg = dy * (y + ea);
      out[i] = y > 0.0f ? dy : neg;
    });
    return;
  }
  vm::for_each(n, [=](int64_t i) {
    const float x = alpha1 * a[i], dy = alpha2 * b[i];
    const float neg = dy * ea * vm::exp(x);
    out[i] = x > 0.0f ? dy : neg;
  });
}
FDNN_FLOAT_KERNEL(CUDNN_POINTWISE_SWISH_BWD) {
  const float sb = p.swish_beta;
  vm::for_each(n, [=](int64_t i) {
    const float x = alpha1 * a[i];
    const float s = vm::sigmoid(sb * x);
    out[i] = alpha2 * b[i] * (s + sb * x * s * (1.0f - s));
  });
}
FDNN_FLOAT_KERNEL(CUDNN_POINTWISE_RELU_FWD) {
  const float lo = p.relu_lower_clip, hi = p.relu_upper_clip, slope = p.relu_lower_clip_slope;
  // NaN: kept when propagated (it fails both comparisons), else the lower clip.
  const float nan_lo = p.propagate_nan ? std::numeric_limits<float>::quiet_NaN() : lo;
  const bool slope_zero = slope == 0.0f;
  vm::for_each(n, [=](int64_t i) {
    const float x = alpha1 * a[i];
    float r = x > hi ? hi : x;
    const float below = slope_zero ? lo : lo + slope * (x - lo);  // slope 0: lo even for x = -inf
    r = x < lo ? below : r;
    out[i] = x == x ? r : (nan_lo == nan_lo ? nan_lo : x);
  });
}
FDNN_FLOAT_KERNEL(CUDNN_POINTWISE_RELU_BWD) {
  const float lo = p.relu_lower_clip, hi = p.relu_upper_clip, slope = p.relu_lower_clip_slope;
  vm::for_each(n, [=](int64_t i) {
    const float x = alpha1 * a[i], dy = alpha2 * b[i];
    float r = x >= hi ? 0.0f : dy;
    r = x <= lo ? slope * dy : r;
    out[i] = x != x ? x : r;
  });
}
#undef FDNN_FLOAT_KERNEL

template <class C>
LoadFn<C> load_fn_for(cudnnDataType_t t) {
  LoadFn<C> fn = nullptr;
  visit_fast_type(t, [&](auto st) { fn = &load_kernel<decltype(st), C>; });
  return fn;
}

template <class C>
StoreFn<C> store_fn_for(cudnnDataType_t t, bool read_prior) {
  StoreFn<C> fn = nullptr;
  visit_fast_type(t, [&](auto st) {
    fn = read_prior ? &store_kernel<decltype(st), C, true> : &store_kernel<decltype(st), C, false>;
  });
  return fn;
}

template <class C>
ComputeFn<C> compute_fn_for(cudnnPointwiseMode_t mode) {
  ComputeFn<C> fn = nullptr;
  pw::visit_mode(mode, [&](auto op) { fn = &compute_kernel<decltype(op), C>; });
  return fn;
}

// Raw element copy for same-type identity copies, by element size.
template <class E>
void copy_elements(char *dst, int64_t dst_stride, const char *src, int64_t src_stride, int64_t n) {
  E *d = reinterpret_cast<E *>(dst);
  const E *s = reinterpret_cast<const E *>(src);
  if (dst_stride == 1 && src_stride == 1) {
    std::memcpy(d, s, static_cast<size_t>(n) * sizeof(E));
  } else if (src_stride == 0) {
    const E v = s[0];
    for (int64_t i = 0; i < n; ++i) d[i * dst_stride] = v;
  } else {
    for (int64_t i = 0; i < n; ++i) d[i * dst_stride] = s[i * src_stride];
  }
}

using CopyFn = void (*)(char *dst, int64_t dst_stride, const char *src, int64_t src_stride, int64_t n);

// Copies bytes to memory that will not be read again soon with non-temporal
// stores for the 64-byte-aligned middle: the destination lines are not read
// first (no read-for-ownership) and do not evict useful cache content. The
// caller issues stream_fence() before other threads may read dst.
inline void stream_copy(char *dst, const char *src, size_t bytes) {
#ifdef FDNN_CPU_F16C
  const uintptr_t start = reinterpret_cast<uintptr_t>(dst);
  size_t head = static_cast<size_t>((64 - (start & 63)) & 63);
  if (bytes < head + 64) {
    std::memcpy(dst, src, bytes);
    return;
  }
  std::memcpy(dst, src, head);
  size_t i = head;
  for (; i + 64 <= bytes; i += 64) {
    __m256i v0 = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(src + i));
    __m256i v1 = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(src + i + 32));
    _mm256_stream_si256(reinterpret_cast<__m256i *>(dst + i), v0);
    _mm256_stream_si256(reinterpret_cast<__m256i *>(dst + i + 32), v1);
  }
  std::memcpy(dst + i, src + i, bytes - i);
#else
  std::memcpy(dst, src, bytes);
#endif
}

// dst[i] = alpha * r[i] for C-typed outputs, streaming the 64-byte-aligned
// middle like stream_copy (no staging pass).
template <class C>
inline void stream_scaled(char *dst, const C *r, int n, C alpha) {
  C *d = reinterpret_cast<C *>(dst);
  int i = 0;
#ifdef FDNN_CPU_F16C
  const uintptr_t start = reinterpret_cast<uintptr_t>(dst);
  if (start % sizeof(C) == 0) {
    const int head = static_cast<int>(((64 - (start & 63)) & 63) / sizeof(C));
    for (; i < head && i < n; ++i) d[i] = alpha * r[i];
    if constexpr (std::is_same_v<C, float>) {
      const __m256 va = _mm256_set1_ps(alpha);
      for (; i + 16 <= n; i += 16) {
        _mm256_stream_ps(d + i, _mm256_mul_ps(va, _mm256_loadu_ps(r + i)));
        _mm256_stream_ps(d + i + 8, _mm256_mul_ps(va, _mm256_loadu_ps(r + i + 8)));
      }
    } else {
      const __m256d va = _mm256_set1_pd(alpha);
      for (; i + 8 <= n; i += 8) {
        _mm256_stream_pd(d + i, _mm256_mul_pd(va, _mm256_loadu_pd(r + i)));
        _mm256_stream_pd(d + i + 4, _mm256_mul_pd(va, _mm256_loadu_pd(r + i + 4)));
      }
    }
  }
#endif
  for (; i < n; ++i) d[i] = alpha * r[i];
}

inline void stream_fence() {
#ifdef FDNN_CPU_F16C
  _mm_sfence();
#endif
}

inline CopyFn copy_fn_for(size_t elem_size) {
  switch (elem_size) {
    case 1: return &copy_elements<uint8_t>;
    case 2: return &copy_elements<uint16_t>;
    case 4: return &copy_elements<uint32_t>;
    case 8: return &copy_elements<uint64_t>;
    default: return nullptr;
  }
}

}  // namespace fdnn::cpu
