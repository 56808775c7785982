#include "common/reference.hpp"

#include <cmath>
#include <limits>

namespace fdnn_test {

namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();

double eps_of(cudnnDataType_t compute_type) {
  return compute_type == CUDNN_DATA_DOUBLE ? std::ldexp(1.0, -53) : std::ldexp(1.0, -24);
}

double fmin_nan(double a, double b, bool propagate) {
  if (std::isnan(a) || std::isnan(b)) {
    if (propagate) return kNaN;
    return std::isnan(a) ? b : a;
  }
  return std::min(a, b);
}
double fmax_nan(double a, double b, bool propagate) {
  if (std::isnan(a) || std::isnan(b)) {
    if (propagate) return kNaN;
    return std::isnan(a) ? b : a;
  }
  return std::max(a, b);
}

double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

// |x| for tolerance magnitudes: a NaN operand adds no magnitude (the result
// is then NaN, or the other operand, exactly).
double mag(double x) { return std::isnan(x) ? 0.0 : std::fabs(x); }

}  // namespace

double broadcast_get(const HostTensor &t, const std::vector<int64_t> &index) {
  std::vector<int64_t> i(index.size());
  for (size_t d = 0; d < index.size(); ++d) i[d] = t.dims[d] == 1 ? 0 : index[d];
  return t.get(i);
}

double pointwise_value(cudnnPointwiseMode_t mode, double a, double b, double c, const PointwiseParams &p) {
  const double pi = 3.14159265358979323846;
  switch (mode) {
    case CUDNN_POINTWISE_ADD: return a + b;
    case CUDNN_POINTWISE_ADD_SQUARE: return a + b * b;
    case CUDNN_POINTWISE_DIV: return a / b;
    case CUDNN_POINTWISE_MAX: return fmax_nan(a, b, p.propagate_nan);
    case CUDNN_POINTWISE_MIN: return fmin_nan(a, b, p.propagate_nan);
    case CUDNN_POINTWISE_MOD: return std::fmod(a, b);
    case CUDNN_POINTWISE_MUL: return a * b;
    case CUDNN_POINTWISE_POW: return std::pow(a, b);
    case CUDNN_POINTWISE_SUB: return a - b;
    case CUDNN_POINTWISE_ATAN2: return std::atan2(a, b);
    case CUDNN_POINTWISE_ABS: return std::fabs(a);
    case CUDNN_POINTWISE_CEIL: return std::ceil(a);
    case CUDNN_POINTWISE_COS: return std::cos(a);
    case CUDNN_POINTWISE_EXP: return std::exp(a);
    case CUDNN_POINTWISE_FLOOR: return std::floor(a);
    case CUDNN_POINTWISE_LOG: return std::log(a);
    case CUDNN_POINTWISE_NEG: return -a;
    case CUDNN_POINTWISE_RSQRT: return 1.0 / std::sqrt(a);
    case CUDNN_POINTWISE_SIN: return std::sin(a);
    case CUDNN_POINTWISE_SQRT: return std::sqrt(a);
    case CUDNN_POINTWISE_TAN: return std::tan(a);
    case CUDNN_POINTWISE_ERF: return std::erf(a);
    case CUDNN_POINTWISE_IDENTITY: return a;
    case CUDNN_POINTWISE_RECIPROCAL: return 1.0 / a;
    case CUDNN_POINTWISE_RELU_FWD:
      if (std::isnan(a)) return a;
      if (a < p.relu_lower_clip) return p.relu_lower_clip + p.relu_lower_clip_slope * (a - p.relu_lower_clip);
      return std::min(a, p.relu_upper_clip);
    case CUDNN_POINTWISE_TANH_FWD: return std::tanh(a);
    case CUDNN_POINTWISE_SIGMOID_FWD: return sigmoid(a);
    case CUDNN_POINTWISE_ELU_FWD: return a > 0 ? a : p.elu_alpha * (std::exp(a) - 1.0);
    case CUDNN_POINTWISE_GELU_FWD: return 0.5 * a * (1.0 + std::erf(a / std::sqrt(2.0)));
    case CUDNN_POINTWISE_SOFTPLUS_FWD: return std::log1p(std::exp(p.softplus_beta * a)) / p.softplus_beta;
    case CUDNN_POINTWISE_SWISH_FWD: return a * sigmoid(p.swish_beta * a);
    case CUDNN_POINTWISE_GELU_APPROX_TANH_FWD:
      return 0.5 * a * (1.0 + std::tanh(std::sqrt(2.0 / pi) * (a + 0.044715 * a * a * a)));
    case CUDNN_POINTWISE_RELU_BWD:
      if (std::isnan(a)) return a;
      if (a <= p.relu_lower_clip) return p.relu_lower_clip_slope * b;
      return a >= p.relu_upper_clip ? 0.0 : b;
    case CUDNN_POINTWISE_TANH_BWD: return b * (1.0 - std::tanh(a) * std::tanh(a));
    case CUDNN_POINTWISE_SIGMOID_BWD: return b * sigmoid(a) * (1.0 - sigmoid(a));
    case CUDNN_POINTWISE_ELU_BWD: return a > 0 ? b : b * p.elu_alpha * std::exp(a);
    case CUDNN_POINTWISE_GELU_BWD: {
      const double cdf = 0.5 * (1.0 + std::erf(a / std::sqrt(2.0)));
      const double pdf = std::exp(-0.5 * a * a) / std::sqrt(2.0 * pi);
      return b * (cdf + a * pdf);
    }
    case CUDNN_POINTWISE_SOFTPLUS_BWD: return b * sigmoid(p.softplus_beta * a);
    case CUDNN_POINTWISE_SWISH_BWD: {
      const double s = sigmoid(p.swish_beta * a);
      return b * (s + p.swish_beta * a * s * (1.0 - s));
    }
    case CUDNN_POINTWISE_GELU_APPROX_TANH_BWD: {
      const double k = std::sqrt(2.0 / pi);
      const double t = std::tanh(k * (a + 0.044715 * a * a * a));
      return b * (0.5 * (1.0 + t) + 0.5 * a * (1.0 - t * t) * k * (1.0 + 3.0 * 0.044715 * a * a));
    }
    case CUDNN_POINTWISE_CMP_EQ: return a == b ? 1.0 : 0.0;
    case CUDNN_POINTWISE_CMP_NEQ: return a != b ? 1.0 : 0.0;
    case CUDNN_POINTWISE_CMP_GT: return a > b ? 1.0 : 0.0;
    case CUDNN_POINTWISE_CMP_GE: return a >= b ? 1.0 : 0.0;
    case CUDNN_POINTWISE_CMP_LT: return a < b ? 1.0 : 0.0;
    case CUDNN_POINTWISE_CMP_LE: return a <= b ? 1.0 : 0.0;
    case CUDNN_POINTWISE_LOGICAL_AND: return (a != 0 && b != 0) ? 1.0 : 0.0;
    case CUDNN_POINTWISE_LOGICAL_OR: return (a != 0 || b != 0) ? 1.0 : 0.0;
    case CUDNN_POINTWISE_LOGICAL_NOT: return a == 0 ? 1.0 : 0.0;
    case CUDNN_POINTWISE_BINARY_SELECT: return c != 0 ? a : b;
    default: ADD_FAILURE() << "pointwise_value: mode " << static_cast<int>(mode) << " has no reference"; return kNaN;
  }
}

std::vector<Expect> reference_scale_add(double alpha, const HostTensor *x, double constant, double beta,
                                        const HostTensor &y_prior, cudnnDataType_t compute_type) {
  const double eps = eps_of(compute_type);
  std::vector<Expect> out;
  for_each_index(y_prior.dims, [&](const std::vector<int64_t> &i) {
    const double xv = x ? broadcast_get(*x, i) : constant;
    double v = alpha * xv, m = mag(v);
    if (beta != 0.0) {  // beta == 0: y is not read, whatever it holds
      const double yv = y_prior.get(i);
      v += beta * yv;
      m += mag(beta * yv);
    }
    out.push_back({v, 4 * eps * m});
  });
  return out;
}

std::vector<Expect> reference_op_tensor(cudnnOpTensorOp_t op, bool propagate_nan, double alpha1, const HostTensor &a,
                                        double alpha2, const HostTensor *b, double beta, const HostTensor &c_prior,
                                        cudnnDataType_t compute_type) {
  const double eps = eps_of(compute_type);
  std::vector<Expect> out;
  for_each_index(c_prior.dims, [&](const std::vector<int64_t> &i) {
    const double av = alpha1 * a.get(i);
    const double bv = b ? alpha2 * broadcast_get(*b, i) : 0.0;
    double r;
    switch (op) {
      case CUDNN_OP_TENSOR_ADD: r = av + bv; break;
      case CUDNN_OP_TENSOR_MUL: r = av * bv; break;
      case CUDNN_OP_TENSOR_MIN: r = fmin_nan(av, bv, propagate_nan); break;
      case CUDNN_OP_TENSOR_MAX: r = fmax_nan(av, bv, propagate_nan); break;
      case CUDNN_OP_TENSOR_SQRT: r = std::sqrt(av); break;
      case CUDNN_OP_TENSOR_NOT: r = 1.0 - av; break;
      default: r = kNaN; ADD_FAILURE() << "unknown op " << op;
    }
    double m = mag(av) + mag(bv) + mag(r) + (op == CUDNN_OP_TENSOR_NOT ? 1.0 : 0.0);
    if (beta != 0.0) {
      const double cv = c_prior.get(i);
      r += beta * cv;
      m += mag(beta * cv);
    }
    out.push_back({r, 6 * eps * m});
  });
  return out;
}

ReduceExpect reference_reduce(cudnnReduceTensorOp_t op, bool propagate_nan, double alpha, const HostTensor &a,
                              double beta, const HostTensor &c_prior, cudnnDataType_t compute_type) {
  const double eps = eps_of(compute_type);
  const size_t rank = a.dims.size();
  std::vector<int64_t> slice_dims(rank, 1);
  int64_t n = 1;
  for (size_t d = 0; d < rank; ++d)
    if (c_prior.dims[d] == 1) {
      slice_dims[d] = a.dims[d];
      n *= a.dims[d];
    }
  ReduceExpect out;
  for_each_index(c_prior.dims, [&](const std::vector<int64_t> &ci) {
    // The slice of A in row-major order of the reduced dimensions.
    std::vector<double> v;
    for_each_index(slice_dims, [&](const std::vector<int64_t> &si) {
      std::vector<int64_t> ai(rank);
      for (size_t d = 0; d < rank; ++d) ai[d] = c_prior.dims[d] == 1 ? si[d] : ci[d];
      v.push_back(a.get(ai));
    });
    double r = 0, err = 0;
    int64_t index = 0;
    switch (op) {
      case CUDNN_REDUCE_TENSOR_ADD:
      case CUDNN_REDUCE_TENSOR_AVG:
      case CUDNN_REDUCE_TENSOR_NORM1: {
        double sum = 0, abs_sum = 0;
        for (double x : v) {
          sum += op == CUDNN_REDUCE_TENSOR_NORM1 ? std::fabs(x) : x;
          abs_sum += std::fabs(x);
        }
        const double div = op == CUDNN_REDUCE_TENSOR_AVG ? static_cast<double>(n) : 1.0;
        r = sum / div;
        err = (static_cast<double>(n) + 4) * eps * abs_sum / div;
        break;
      }
      case CUDNN_REDUCE_TENSOR_NORM2: {
        double sq = 0;
        for (double x : v) sq += x * x;
        r = std::sqrt(sq);
        err = (static_cast<double>(n) + 4) * eps * r;
        break;
      }
      case CUDNN_REDUCE_TENSOR_MUL:
      case CUDNN_REDUCE_TENSOR_MUL_NO_ZEROS: {
        double p = 1;
        for (double x : v)
          if (op == CUDNN_REDUCE_TENSOR_MUL || x != 0.0) p *= x;
        r = p;
        err = (static_cast<double>(n) + 4) * eps * std::fabs(p);
        break;
      }
      case CUDNN_REDUCE_TENSOR_MIN:
      case CUDNN_REDUCE_TENSOR_MAX:
      case CUDNN_REDUCE_TENSOR_AMAX: {
        int64_t best = -1, first_nan = -1;
        for (size_t k = 0; k < v.size(); ++k) {
          const double x = op == CUDNN_REDUCE_TENSOR_AMAX ? std::fabs(v[k]) : v[k];
          if (std::isnan(x)) {
            if (first_nan < 0) first_nan = static_cast<int64_t>(k);
            continue;
          }
          if (best < 0) {
            best = static_cast<int64_t>(k);
            continue;
          }
          const double cur = op == CUDNN_REDUCE_TENSOR_AMAX ? std::fabs(v[best]) : v[best];
          if (op == CUDNN_REDUCE_TENSOR_MIN ? x < cur : x > cur) best = static_cast<int64_t>(k);
        }
        if (first_nan >= 0 && (propagate_nan || best < 0)) {
          r = kNaN;
          index = first_nan;
        } else {
          r = op == CUDNN_REDUCE_TENSOR_AMAX ? std::fabs(v[best]) : v[best];
          index = best;
        }
        err = 2 * eps * std::fabs(r);
        break;
      }
      default: ADD_FAILURE() << "unknown reduce op " << op;
    }
    double value = alpha * r;
    err = std::isnan(err) ? 0.0 : err * std::fabs(alpha);
    err += 2 * eps * mag(value);
    if (beta != 0.0) {
      const double cv = c_prior.get(ci);
      value += beta * cv;
      err += 4 * eps * (mag(beta * cv) + mag(value));
    }
    out.values.push_back({value, err});
    out.indices.push_back(index);
  });
  return out;
}

}  // namespace fdnn_test
