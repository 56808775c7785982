// The reduction modes as device accumulators in the compute type C. The
// meaning is the CPU engines' (cpu/reduction_support.hpp), restated here for
// device code:
//  - MIN/MAX/AMAX NaN rules: with PROPAGATE the first NaN wins, with
//    NOT_PROPAGATE NaNs are skipped unless every value is NaN;
//  - indices are flat positions within the reduced slice (row-major over the
//    reduced dims in logical order); on ties the smallest position wins, so
//    the result does not depend on the order partial results are combined in;
//  - AVG divides by the slice size, NORM2 takes the square root at the end,
//    MUL_NO_ZEROS skips zeros.
#pragma once

#include <cudnn_graph.h>

#include <cstdint>

#include "core/pointwise_math.hpp"

namespace fdnn::cuda::red {

template <class C>
__device__ inline C quiet_nan() {
  return C(NAN);
}
template <class C>
__device__ inline C infinity() {
  return C(INFINITY);
}

template <class C>
struct Add {
  static constexpr bool indexable = false;
  __device__ static C init(bool) { return C(0); }
  __device__ static C acc(C a, C v, bool) { return a + v; }
  __device__ static C combine(C a, C b, bool) { return a + b; }
  __device__ static C finish(C a, int64_t) { return a; }
};
template <class C>
struct Mul {
  static constexpr bool indexable = false;
  __device__ static C init(bool) { return C(1); }
  __device__ static C acc(C a, C v, bool) { return a * v; }
  __device__ static C combine(C a, C b, bool) { return a * b; }
  __device__ static C finish(C a, int64_t) { return a; }
};
template <class C>
struct MulNoZeros {
  static constexpr bool indexable = false;
  __device__ static C init(bool) { return C(1); }
  __device__ static C acc(C a, C v, bool) { return v == C(0) ? a : a * v; }
  __device__ static C combine(C a, C b, bool) { return a * b; }
  __device__ static C finish(C a, int64_t) { return a; }
};
// NOT_PROPAGATE starts from NaN, which min_of/max_of replace by the first
// number; PROPAGATE starts from the identity and lets NaN stick.
template <class C>
struct Min {
  static constexpr bool indexable = true;
  __device__ static C init(bool prop) { return prop ? infinity<C>() : quiet_nan<C>(); }
  __device__ static C acc(C a, C v, bool prop) { return pw::min_of(a, v, prop); }
  __device__ static C combine(C a, C b, bool prop) { return pw::min_of(a, b, prop); }
  __device__ static C finish(C a, int64_t) { return a; }
  __device__ static C key(C v) { return v; }
  __device__ static bool before(C v, C a) { return v < a; }
};
template <class C>
struct Max {
  static constexpr bool indexable = true;
  __device__ static C init(bool prop) { return prop ? -infinity<C>() : quiet_nan<C>(); }
  __device__ static C acc(C a, C v, bool prop) { return pw::max_of(a, v, prop); }
  __device__ static C combine(C a, C b, bool prop) { return pw::max_of(a, b, prop); }
  __device__ static C finish(C a, int64_t) { return a; }
  __device__ static C key(C v) { return v; }
  __device__ static bool before(C v, C a) { return v > a; }
};
template <class C>
struct Amax {
  static constexpr bool indexable = true;
  __device__ static C init(bool prop) { return prop ? C(0) : quiet_nan<C>(); }
  __device__ static C acc(C a, C v, bool prop) { return pw::max_of(a, C(fabs(v)), prop); }
  __device__ static C combine(C a, C b, bool prop) { return pw::max_of(a, b, prop); }
  __device__ static C finish(C a, int64_t) { return a; }
  __device__ static C key(C v) { return C(fabs(v)); }
  __device__ static bool before(C v, C a) { return v > a; }
};
template <class C>
struct Avg : Add<C> {
  __device__ static C finish(C a, int64_t n) { return a / static_cast<C>(n); }
};
template <class C>
struct Norm1 : Add<C> {
  __device__ static C acc(C a, C v, bool) { return a + C(fabs(v)); }
};
template <class C>
struct Norm2 : Add<C> {
  __device__ static C acc(C a, C v, bool) { return a + v * v; }
  __device__ static C finish(C a, int64_t) { return C(sqrt(a)); }
};

// Indexed MIN/MAX/AMAX: does candidate (key v at position i) replace the
// current best (key a at position ai; ai < 0 means none yet)?
template <class M, class C>
__device__ inline bool replaces(C v, int64_t i, C a, int64_t ai, bool prop) {
  if (i < 0) return false;  // an empty candidate (a lane that saw nothing)
  if (ai < 0) return true;
  const bool vn = v != v, an = a != a;
  if (vn || an) {
    if (vn && an) return i < ai;
    return prop ? vn : an;  // PROPAGATE: NaN beats numbers; else numbers beat NaN
  }
  if (M::before(v, a)) return true;
  return v == a && i < ai;
}

// Calls f(Mode<C>{}) for the runtime mode; false for unknown modes.
template <class C, class F>
bool visit_mode(cudnnReduceTensorOp_t mode, F &&f) {
  switch (mode) {
    case CUDNN_REDUCE_TENSOR_ADD: f(Add<C>{}); return true;
    case CUDNN_REDUCE_TENSOR_MUL: f(Mul<C>{}); return true;
    case CUDNN_REDUCE_TENSOR_MIN: f(Min<C>{}); return true;
    case CUDNN_REDUCE_TENSOR_MAX: f(Max<C>{}); return true;
    case CUDNN_REDUCE_TENSOR_AMAX: f(Amax<C>{}); return true;
    case CUDNN_REDUCE_TENSOR_AVG: f(Avg<C>{}); return true;
    case CUDNN_REDUCE_TENSOR_NORM1: f(Norm1<C>{}); return true;
    case CUDNN_REDUCE_TENSOR_NORM2: f(Norm2<C>{}); return true;
    case CUDNN_REDUCE_TENSOR_MUL_NO_ZEROS: f(MulNoZeros<C>{}); return true;
    default: return false;
  }
}

}  // namespace fdnn::cuda::red
