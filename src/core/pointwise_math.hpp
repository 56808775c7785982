// The scalar math of every cudnnPointwiseMode_t, in one table, so that the
// CPU engines (float and double), the float64 reference engine and the CUDA
// kernels compute the same formulas. Adding a mode is one line in
// FDNN_POINTWISE_MODES.
//
// Operand convention (graph::PointwiseOp): a = alpha1 * x, b = alpha2 * b,
// c = the condition t of BINARY_SELECT. For the *_BWD modes a is the forward
// input x and b is the incoming gradient dy; the result is dx.
#pragma once

#include <cudnn_graph.h>

#include <cmath>

#include "core/numeric.hpp"

namespace fdnn::pw {

// Mode parameters, in the compute type.
template <class T>
struct Params {
  T relu_lower_clip = T(0);
  T relu_upper_clip = T(1e30);
  T relu_lower_clip_slope = T(0);
  T elu_alpha = T(1);
  T softplus_beta = T(1);
  T swish_beta = T(1);
  bool propagate_nan = true;  // MIN/MAX/RELU: NaN wins (else the other operand / the lower clip)
  // SIGMOID_BWD, TANH_BWD, ELU_BWD: operand a is the forward OUTPUT y, not the
  // forward input x. The legacy cudnnActivationBackward evaluates these
  // derivatives from y (so that in-place forward activations, which overwrite
  // x, still differentiate correctly); the backend API passes x.
  bool bwd_from_output = false;
};

template <class T>
FDNN_HD inline T min_of(T a, T b, bool propagate_nan) {
  if (a != a) return propagate_nan ? a : b;
  if (b != b) return propagate_nan ? b : a;
  return b < a ? b : a;
}
template <class T>
FDNN_HD inline T max_of(T a, T b, bool propagate_nan) {
  if (a != a) return propagate_nan ? a : b;
  if (b != b) return propagate_nan ? b : a;
  return b > a ? b : a;
}
template <class T>
FDNN_HD inline T sigmoid(T x) {
  using std::exp;
  return T(1) / (T(1) + exp(-x));
}
template <class T>
FDNN_HD inline T relu_fwd(T x, const Params<T> &p) {
  if (x != x && !p.propagate_nan) return p.relu_lower_clip;  // max(NaN, lower) = lower
  if (x < p.relu_lower_clip)  // slope 0: the clip itself, also for x = -inf (0 * -inf would be NaN)
    return p.relu_lower_clip_slope == T(0) ? p.relu_lower_clip
                                           : p.relu_lower_clip + p.relu_lower_clip_slope * (x - p.relu_lower_clip);
  if (x > p.relu_upper_clip) return p.relu_upper_clip;
  return x;  // NaN falls through: it propagates
}
template <class T>
FDNN_HD inline T relu_bwd(T x, T dy, const Params<T> &p) {
  if (x != x) return x;
  if (x <= p.relu_lower_clip) return p.relu_lower_clip_slope * dy;
  if (x >= p.relu_upper_clip) return T(0);
  return dy;
}
template <class T>
FDNN_HD inline T elu_fwd(T x, const Params<T> &p) {
  using std::expm1;
  return x > T(0) ? x : p.elu_alpha * expm1(x);
}
template <class T>
FDNN_HD inline T elu_bwd(T x, T dy, const Params<T> &p) {
  using std::exp;
  if (p.bwd_from_output) return x > T(0) ? dy : dy * (x + p.elu_alpha);  // x holds y = alpha (e^x - 1)
  return x > T(0) ? dy : dy * p.elu_alpha * exp(x);
}
template <class T>
FDNN_HD inline T sigmoid_bwd(T x, T dy, const Params<T> &p) {
  const T s = p.bwd_from_output ? x : sigmoid(x);
  return dy * s * (T(1) - s);
}
template <class T>
FDNN_HD inline T tanh_bwd(T x, T dy, const Params<T> &p) {
  using std::tanh;
  const T t = p.bwd_from_output ? x : tanh(x);
  return dy * (T(1) - t * t);
}
// Standard normal cdf and pdf.
template <class T>
FDNN_HD inline T norm_cdf(T x) {
  using std::erf;
  return T(0.5) * (T(1) + erf(x * T(0.70710678118654752440)));
}
template <class T>
FDNN_HD inline T norm_pdf(T x) {
  using std::exp;
  return T(0.39894228040143267794) * exp(T(-0.5) * x * x);
}
template <class T>
FDNN_HD inline T gelu_tanh_inner(T x) {
  return T(0.79788456080286535588) * (x + T(0.044715) * x * x * x);  // sqrt(2/pi) * (x + 0.044715 x^3)
}
template <class T>
FDNN_HD inline T gelu_tanh_fwd(T x) {
  using std::tanh;
  return T(0.5) * x * (T(1) + tanh(gelu_tanh_inner(x)));
}
template <class T>
FDNN_HD inline T gelu_tanh_bwd(T x, T dy) {
  using std::tanh;
  T t = tanh(gelu_tanh_inner(x));
  T dinner = T(0.79788456080286535588) * (T(1) + T(3) * T(0.044715) * x * x);
  return dy * (T(0.5) * (T(1) + t) + T(0.5) * x * (T(1) - t * t) * dinner);
}
template <class T>
FDNN_HD inline T softplus_fwd(T x, const Params<T> &p) {
  using std::exp;
  using std::log1p;
  T z = p.softplus_beta * x;
  // log(1 + e^z) without overflow: z + log1p(e^-z) for large z.
  T r = z > T(0) ? z + log1p(exp(-z)) : log1p(exp(z));
  return r / p.softplus_beta;
}
template <class T>
FDNN_HD inline T boolean(bool v) {
  return v ? T(1) : T(0);
}
template <class T>
FDNN_HD inline T fmod_of(T a, T b) {
  using std::fmod;
  return fmod(a, b);
}

// X(mode, arity, expression of a, b, c and p). Arity 0 modes (GEN_INDEX)
// depend on the position, not on data: engines handle them specially.
#define FDNN_POINTWISE_MODES(X)                                                                   \
  X(CUDNN_POINTWISE_ADD, 2, a + b)                                                                \
  X(CUDNN_POINTWISE_ADD_SQUARE, 2, a + b * b)                                                     \
  X(CUDNN_POINTWISE_DIV, 2, a / b)                                                                \
  X(CUDNN_POINTWISE_MAX, 2, ::fdnn::pw::max_of(a, b, p.propagate_nan))                           \
  X(CUDNN_POINTWISE_MIN, 2, ::fdnn::pw::min_of(a, b, p.propagate_nan))                           \
  X(CUDNN_POINTWISE_MOD, 2, ::fdnn::pw::fmod_of(a, b))                                           \
  X(CUDNN_POINTWISE_MUL, 2, a * b)                                                                 \
  X(CUDNN_POINTWISE_POW, 2, pow(a, b))                                                            \
  X(CUDNN_POINTWISE_SUB, 2, a - b)                                                                \
  X(CUDNN_POINTWISE_ATAN2, 2, atan2(a, b))                                                        \
  X(CUDNN_POINTWISE_ABS, 1, fabs(a))                                                              \
  X(CUDNN_POINTWISE_CEIL, 1, ceil(a))                                                             \
  X(CUDNN_POINTWISE_COS, 1, cos(a))                                                               \
  X(CUDNN_POINTWISE_EXP, 1, exp(a))                                                               \
  X(CUDNN_POINTWISE_FLOOR, 1, floor(a))                                                           \
  X(CUDNN_POINTWISE_LOG, 1, log(a))                                                               \
  X(CUDNN_POINTWISE_NEG, 1, -a)                                                                   \
  X(CUDNN_POINTWISE_RSQRT, 1, T(1) / sqrt(a))                                                     \
  X(CUDNN_POINTWISE_SIN, 1, sin(a))                                                               \
  X(CUDNN_POINTWISE_SQRT, 1, sqrt(a))                                                             \
  X(CUDNN_POINTWISE_TAN, 1, tan(a))                                                               \
  X(CUDNN_POINTWISE_ERF, 1, erf(a))                                                               \
  X(CUDNN_POINTWISE_IDENTITY, 1, a)                                                               \
  X(CUDNN_POINTWISE_RECIPROCAL, 1, T(1) / a)                                                      \
  X(CUDNN_POINTWISE_RELU_FWD, 1, ::fdnn::pw::relu_fwd(a, p))                                     \
  X(CUDNN_POINTWISE_TANH_FWD, 1, tanh(a))                                                         \
  X(CUDNN_POINTWISE_SIGMOID_FWD, 1, ::fdnn::pw::sigmoid(a))                                      \
  X(CUDNN_POINTWISE_ELU_FWD, 1, ::fdnn::pw::elu_fwd(a, p))                                       \
  X(CUDNN_POINTWISE_GELU_FWD, 1, a * ::fdnn::pw::norm_cdf(a))                                     \
  X(CUDNN_POINTWISE_SOFTPLUS_FWD, 1, ::fdnn::pw::softplus_fwd(a, p))                             \
  X(CUDNN_POINTWISE_SWISH_FWD, 1, a * ::fdnn::pw::sigmoid(p.swish_beta * a))                      \
  X(CUDNN_POINTWISE_GELU_APPROX_TANH_FWD, 1, ::fdnn::pw::gelu_tanh_fwd(a))                       \
  X(CUDNN_POINTWISE_RELU_BWD, 2, ::fdnn::pw::relu_bwd(a, b, p))                                  \
  X(CUDNN_POINTWISE_TANH_BWD, 2, ::fdnn::pw::tanh_bwd(a, b, p))                                  \
  X(CUDNN_POINTWISE_SIGMOID_BWD, 2, ::fdnn::pw::sigmoid_bwd(a, b, p))                            \
  X(CUDNN_POINTWISE_ELU_BWD, 2, ::fdnn::pw::elu_bwd(a, b, p))                                    \
  X(CUDNN_POINTWISE_GELU_BWD, 2, b * (::fdnn::pw::norm_cdf(a) + a * ::fdnn::pw::norm_pdf(a)))     \
  X(CUDNN_POINTWISE_SOFTPLUS_BWD, 2, b * ::fdnn::pw::sigmoid(p.softplus_beta * a))                \
  X(CUDNN_POINTWISE_SWISH_BWD, 2,                                                                 \
    b * (::fdnn::pw::sigmoid(p.swish_beta * a) +                                                   \
        p.swish_beta * a * ::fdnn::pw::sigmoid(p.swish_beta * a) *                                \
            (T(1) - ::fdnn::pw::sigmoid(p.swish_beta * a))))                                      \
  X(CUDNN_POINTWISE_GELU_APPROX_TANH_BWD, 2, ::fdnn::pw::gelu_tanh_bwd(a, b))                    \
  X(CUDNN_POINTWISE_CMP_EQ, 2, ::fdnn::pw::boolean<T>(a == b))                                   \
  X(CUDNN_POINTWISE_CMP_NEQ, 2, ::fdnn::pw::boolean<T>(a != b))                                  \
  X(CUDNN_POINTWISE_CMP_GT, 2, ::fdnn::pw::boolean<T>(a > b))                                    \
  X(CUDNN_POINTWISE_CMP_GE, 2, ::fdnn::pw::boolean<T>(a >= b))                                   \
  X(CUDNN_POINTWISE_CMP_LT, 2, ::fdnn::pw::boolean<T>(a < b))                                    \
  X(CUDNN_POINTWISE_CMP_LE, 2, ::fdnn::pw::boolean<T>(a <= b))                                   \
  X(CUDNN_POINTWISE_LOGICAL_AND, 2, ::fdnn::pw::boolean<T>(a != T(0) && b != T(0)))              \
  X(CUDNN_POINTWISE_LOGICAL_OR, 2, ::fdnn::pw::boolean<T>(a != T(0) || b != T(0)))               \
  X(CUDNN_POINTWISE_LOGICAL_NOT, 1, ::fdnn::pw::boolean<T>(a == T(0)))                           \
  X(CUDNN_POINTWISE_BINARY_SELECT, 3, c != T(0) ? a : b)

// Op<MODE>::apply<T>(a, b, c, p) evaluates one mode.
template <cudnnPointwiseMode_t M>
struct Op;

#define FDNN_PW_DEFINE_OP(MODE, ARITY, EXPR)                                     \
  template <>                                                                    \
  struct Op<MODE> {                                                              \
    static constexpr int arity = ARITY;                                          \
    template <class T>                                                           \
    FDNN_HD static T apply(T a, T b, T c, const Params<T> &p) {                  \
      using std::atan2, std::ceil, std::cos, std::erf, std::exp, std::fabs;      \
      using std::floor, std::log, std::pow, std::sin, std::sqrt, std::tan;       \
      using std::tanh;                                                           \
      (void)b;                                                                   \
      (void)c;                                                                   \
      (void)p;                                                                   \
      return EXPR;                                                               \
    }                                                                            \
  };
FDNN_POINTWISE_MODES(FDNN_PW_DEFINE_OP)
#undef FDNN_PW_DEFINE_OP

// Number of data inputs of a mode (1, 2 or 3); 0 for GEN_INDEX; -1 when the
// mode is not in the table.
FDNN_HD inline int arity(cudnnPointwiseMode_t mode) {
  switch (mode) {
#define FDNN_PW_ARITY(MODE, ARITY, EXPR) \
  case MODE: return ARITY;
    FDNN_POINTWISE_MODES(FDNN_PW_ARITY)
#undef FDNN_PW_ARITY
    case CUDNN_POINTWISE_GEN_INDEX: return 0;
    default: return -1;
  }
}

// Calls f(Op<MODE>{}) for the runtime mode; returns false for modes outside
// the table. Engines use it to instantiate one kernel per mode.
template <class F>
inline bool visit_mode(cudnnPointwiseMode_t mode, F &&f) {
  switch (mode) {
#define FDNN_PW_VISIT(MODE, ARITY, EXPR) \
  case MODE: f(Op<MODE>{}); return true;
    FDNN_POINTWISE_MODES(FDNN_PW_VISIT)
#undef FDNN_PW_VISIT
    default: return false;
  }
}

}  // namespace fdnn::pw
