// Device helpers the LRN kernels share (lrn_kernels.cu, lrn_planes.cu):
// the powers S^-beta, per-operand offsets of a position, element conversion.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#include "cuda/lrn_args.hpp"

namespace fdnn::cuda::lrn_detail {

// Compute type C, accumulator type A (double for both, as float sums of
// squares would keep residues when large values leave a running window).
template <class C>
__device__ inline C neg_pow(C s, C beta, int kind) {
  if (kind == 1) {
    const C r = rsqrt(s);
    return r * sqrt(r);
  }
  if (kind == 2) return rsqrt(s);
  if (kind == 3) return C(1) / s;
  return pow(s, -beta);
}
// Float: the approximate square root and reciprocal square root (one
// special-function instruction each, a few ulp), far inside the errors the
// tests and NVIDIA's results allow; S = inf gives 0 as the IEEE forms do.
// The .ftz forms: without it the compiler wraps each special function in a
// test, a scaling and a select for subnormal inputs (about five more
// instructions per call, the largest share of the NHWC and plane kernels'
// float arithmetic). S = k + a sum x^2 with k >= CUDNN_LRN_MIN_K (1e-5) is
// never subnormal, nor are its powers, so the results are the same bits.
// The `_sub` forms keep the subnormal handling: kinds below 0 (the
// measurement switch FREEDNN_LRN_TUNE=noftz, launch_lrn) take them.
__device__ inline float sqrt_approx(float v) {
  float r;
  asm("sqrt.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(v));
  return r;
}
__device__ inline float rsqrt_approx(float v) {
  float r;
  asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(v));
  return r;
}
__device__ inline float sqrt_approx_sub(float v) {
  float r;
  asm("sqrt.approx.f32 %0, %1;" : "=f"(r) : "f"(v));
  return r;
}
__device__ inline float rsqrt_approx_sub(float v) {
  float r;
  asm("rsqrt.approx.f32 %0, %1;" : "=f"(r) : "f"(v));
  return r;
}
template <>
__device__ inline float neg_pow<float>(float s, float beta, int kind) {
  if (kind == 1) {
    const float r = rsqrt_approx(s);
    return r * sqrt_approx(r);
  }
  if (kind == 2) return rsqrt_approx(s);
  if (kind == -1) {
    const float r = rsqrt_approx_sub(s);
    return r * sqrt_approx_sub(r);
  }
  if (kind == -2) return rsqrt_approx_sub(s);
  if (kind == 3 || kind == -3) return 1.0f / s;
  return exp2f(-beta * log2f(s));
}

// S^-beta and S^(-beta-1) together (backward).
template <class C>
__device__ inline void neg_pow_pair(C s, C beta, int kind, C &p, C &p_over_s) {
  p = neg_pow<C>(s, beta, kind);
  p_over_s = p / s;
}
template <>
__device__ inline void neg_pow_pair<float>(float s, float beta, int kind, float &p, float &p_over_s) {
  if (kind == 1 || kind == 2) {
    const float r = rsqrt_approx(s);
    p = kind == 1 ? r * sqrt_approx(r) : r;
    p_over_s = p * (r * r);
  } else if (kind == -1 || kind == -2) {
    const float r = rsqrt_approx_sub(s);
    p = kind == -1 ? r * sqrt_approx_sub(r) : r;
    p_over_s = p * (r * r);
  } else if (kind == 3 || kind == -3) {
    p = 1.0f / s;
    p_over_s = p * p;
  } else {
    p = exp2f(-beta * log2f(s));
    p_over_s = p / s;
  }
}

// The power's form: 1 (beta 0.75), 2 (0.5), 3 (1), 0 (any); the float
// helpers take -1 .. -3 as the same with subnormal handling (see above).
__host__ __device__ inline int pow_kind(double beta) {
  return beta == 0.75 ? 1 : beta == 0.5 ? 2 : beta == 1.0 ? 3 : 0;
}

// S^-beta of every element of s, in place, with one branch on `kind` for
// all of them: a branch per element serialized the elements' chains of
// special-function instructions (no parallelism between them was left).
// The same values as neg_pow<float>.
template <int M>
__device__ inline void neg_pow_all(float (&s)[M], float beta, int kind) {
  if (kind == 1) {
#pragma unroll
    for (int m = 0; m < M; ++m) {
      const float r = rsqrt_approx(s[m]);
      s[m] = r * sqrt_approx(r);
    }
  } else if (kind == 2) {
#pragma unroll
    for (int m = 0; m < M; ++m) s[m] = rsqrt_approx(s[m]);
  } else if (kind == -1) {
#pragma unroll
    for (int m = 0; m < M; ++m) {
      const float r = rsqrt_approx_sub(s[m]);
      s[m] = r * sqrt_approx_sub(r);
    }
  } else if (kind == -2) {
#pragma unroll
    for (int m = 0; m < M; ++m) s[m] = rsqrt_approx_sub(s[m]);
  } else if (kind == 3 || kind == -3) {
#pragma unroll
    for (int m = 0; m < M; ++m) s[m] = 1.0f / s[m];
  } else {
#pragma unroll
    for (int m = 0; m < M; ++m) s[m] = exp2f(-beta * log2f(s[m]));
  }
}

// p = S^-beta and s = S^(-beta-1) for every element, one branch on `kind`
// (the same values as neg_pow_pair<float>).
template <int M>
__device__ inline void neg_pow_pair_all(float (&s)[M], float (&p)[M], float beta, int kind) {
  if (kind == 1) {
#pragma unroll
    for (int m = 0; m < M; ++m) {
      const float r = rsqrt_approx(s[m]);
      p[m] = r * sqrt_approx(r);
      s[m] = p[m] * (r * r);
    }
  } else if (kind == 2) {
#pragma unroll
    for (int m = 0; m < M; ++m) {
      const float r = rsqrt_approx(s[m]);
      p[m] = r;
      s[m] = r * (r * r);
    }
  } else if (kind == -1) {
#pragma unroll
    for (int m = 0; m < M; ++m) {
      const float r = rsqrt_approx_sub(s[m]);
      p[m] = r * sqrt_approx_sub(r);
      s[m] = p[m] * (r * r);
    }
  } else if (kind == -2) {
#pragma unroll
    for (int m = 0; m < M; ++m) {
      const float r = rsqrt_approx_sub(s[m]);
      p[m] = r;
      s[m] = r * (r * r);
    }
  } else if (kind == 3 || kind == -3) {
#pragma unroll
    for (int m = 0; m < M; ++m) {
      p[m] = 1.0f / s[m];
      s[m] = p[m] * p[m];
    }
  } else {
#pragma unroll
    for (int m = 0; m < M; ++m) {
      p[m] = exp2f(-beta * log2f(s[m]));
      s[m] = p[m] / s[m];
    }
  }
}

// Offsets of one position (every dim but `skip_from`..`skip_to`) per operand.
struct Offsets {
  int64_t o[LrnArgs::kOperands];
};

// I is the position's index type: int64_t, or uint32_t where the engine
// has checked that positions fit (32-bit divisions are several times
// cheaper than 64-bit ones). Named, never deduced, so that an int argument
// does not silently pick 32-bit signed arithmetic.
template <class I = int64_t>
__device__ inline Offsets position_offsets(const LrnArgs &a, std::common_type_t<I> p) {
  Offsets r;
#pragma unroll
  for (int k = 0; k < LrnArgs::kOperands; ++k) r.o[k] = 0;
  for (int d = a.rank - 1; d >= 0; --d) {
    if (d == 1) continue;
    const I e = static_cast<I>(a.dims[d]);
    const I i = p % e;
    p /= e;
#pragma unroll
    for (int k = 0; k < LrnArgs::kOperands; ++k) r.o[k] += static_cast<int64_t>(i) * a.strides[k][d];
  }
  return r;
}

template <class T, class C>
__device__ inline C to_compute(T v) {
  if constexpr (std::is_same_v<T, __half>) return __half2float(v);
  else if constexpr (std::is_same_v<T, __nv_bfloat16>) return __bfloat162float(v);
  else return static_cast<C>(v);
}

}  // namespace fdnn::cuda::lrn_detail
