// What the CPU reduction engines (fast and reference) share: which graphs
// are a single reduction they can run, and the meaning of every reduction
// mode as init / accumulate / combine / finish steps.
//
// NaN rules of MIN, MAX and AMAX (the arithmetic modes propagate NaN by
// themselves): with CUDNN_PROPAGATE_NAN the first NaN wins (its index is
// reported); with CUDNN_NOT_PROPAGATE_NAN NaNs are skipped unless every value
// is NaN. Indices are the flat position within the reduced slice, row-major
// over the reduced dimensions in logical order; on ties the first one wins.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

#include "core/engine.hpp"
#include "core/op_support.hpp"
#include "core/pointwise_math.hpp"
#include "graph/graph.hpp"

namespace fdnn::cpu {

// The reduction modes as accumulators in the compute type C.
namespace red {

template <class C>
struct Add {
  static constexpr bool indexable = false;
  static C init(bool) { return C(0); }
  static C acc(C a, C v, bool) { return a + v; }
  static C combine(C a, C b, bool) { return a + b; }
  static C finish(C a, int64_t) { return a; }
};
template <class C>
struct Mul {
  static constexpr bool indexable = false;
  static C init(bool) { return C(1); }
  static C acc(C a, C v, bool) { return a * v; }
  static C combine(C a, C b, bool) { return a * b; }
  static C finish(C a, int64_t) { return a; }
};
template <class C>
struct MulNoZeros {
  static constexpr bool indexable = false;
  static C init(bool) { return C(1); }
  static C acc(C a, C v, bool) { return v == C(0) ? a : a * v; }
  static C combine(C a, C b, bool) { return a * b; }
  static C finish(C a, int64_t) { return a; }
};
// MIN, MAX and AMAX come in two flavours chosen by the NaN option P, each a
// plain select that vectorises. P (propagate): a NaN operand wins and then
// sticks. !P: the accumulator starts as NaN, the first number replaces it and
// NaN operands never win, so an all-NaN slice stays NaN.
template <class C, bool P>
struct Min {
  static constexpr bool indexable = true;
  static C init(bool) { return P ? std::numeric_limits<C>::infinity() : std::numeric_limits<C>::quiet_NaN(); }
  static C acc(C a, C v, bool) {
    if constexpr (P) return ((v < a) | (v != v)) ? v : a;
    else return ((v < a) | (a != a)) ? v : a;
  }
  static C combine(C a, C b, bool prop) { return acc(a, b, prop); }
  static C finish(C a, int64_t) { return a; }
  static C key(C v) { return v; }
  static bool before(C v, C a) { return v < a; }
};
template <class C, bool P>
struct Max {
  static constexpr bool indexable = true;
  static C init(bool) { return P ? -std::numeric_limits<C>::infinity() : std::numeric_limits<C>::quiet_NaN(); }
  static C acc(C a, C v, bool) {
    if constexpr (P) return ((v > a) | (v != v)) ? v : a;
    else return ((v > a) | (a != a)) ? v : a;
  }
  static C combine(C a, C b, bool prop) { return acc(a, b, prop); }
  static C finish(C a, int64_t) { return a; }
  static C key(C v) { return v; }
  static bool before(C v, C a) { return v > a; }
};
template <class C, bool P>
struct Amax {
  static constexpr bool indexable = true;
  static C init(bool) { return P ? C(0) : std::numeric_limits<C>::quiet_NaN(); }
  static C acc(C a, C v, bool prop) { return Max<C, P>::acc(a, std::fabs(v), prop); }
  static C combine(C a, C b, bool prop) { return Max<C, P>::acc(a, b, prop); }
  static C finish(C a, int64_t) { return a; }
  static C key(C v) { return std::fabs(v); }
  static bool before(C v, C a) { return v > a; }
};
template <class C>
struct Avg : Add<C> {
  static C finish(C a, int64_t n) { return a / static_cast<C>(n); }
};
template <class C>
struct Norm1 : Add<C> {
  static C acc(C a, C v, bool) { return a + std::fabs(v); }
};
template <class C>
struct Norm2 : Add<C> {
  static C acc(C a, C v, bool) { return a + v * v; }
  static C finish(C a, int64_t) { return std::sqrt(a); }
};

// For indexed MIN/MAX/AMAX: does candidate (key v at index i) replace the
// current best (key a at index ai; ai < 0 means none yet)?
template <class M, class C>
inline bool replaces(C v, int64_t i, C a, int64_t ai, bool prop) {
  if (ai < 0) return true;
  const bool vn = v != v, an = a != a;
  if (vn || an) {
    if (vn && an) return i < ai;
    return prop ? vn : an;  // PROPAGATE: NaN beats numbers; else numbers beat NaN
  }
  if (M::before(v, a)) return true;
  return v == a && i < ai;
}

// Calls f(Mode{}) for the runtime mode and NaN option.
template <class C, class F>
bool visit_mode(cudnnReduceTensorOp_t mode, bool propagate_nan, F &&f) {
  switch (mode) {
    case CUDNN_REDUCE_TENSOR_ADD: f(Add<C>{}); return true;
    case CUDNN_REDUCE_TENSOR_MUL: f(Mul<C>{}); return true;
    case CUDNN_REDUCE_TENSOR_MIN:
      if (propagate_nan) f(Min<C, true>{});
      else f(Min<C, false>{});
      return true;
    case CUDNN_REDUCE_TENSOR_MAX:
      if (propagate_nan) f(Max<C, true>{});
      else f(Max<C, false>{});
      return true;
    case CUDNN_REDUCE_TENSOR_AMAX:
      if (propagate_nan) f(Amax<C, true>{});
      else f(Amax<C, false>{});
      return true;
    case CUDNN_REDUCE_TENSOR_AVG: f(Avg<C>{}); return true;
    case CUDNN_REDUCE_TENSOR_NORM1: f(Norm1<C>{}); return true;
    case CUDNN_REDUCE_TENSOR_NORM2: f(Norm2<C>{}); return true;
    case CUDNN_REDUCE_TENSOR_MUL_NO_ZEROS: f(MulNoZeros<C>{}); return true;
    default: return false;
  }
}

}  // namespace red
}  // namespace fdnn::cpu
