#include "common/activation_reference.hpp"

#include <cmath>

namespace fdnn_test {

namespace {

double sigm(double v) { return 1.0 / (1.0 + std::exp(-v)); }

// Relative rounding of the compute type (float for all but DOUBLE tensors).
double compute_roundoff(cudnnDataType_t t) { return t == CUDNN_DATA_DOUBLE ? std::ldexp(1.0, -53) : std::ldexp(1.0, -24); }

}  // namespace

double activation_value(const ActivationSpec &s, double x) {
  if (std::isnan(x)) {
    const bool relu = s.mode == CUDNN_ACTIVATION_RELU || s.mode == CUDNN_ACTIVATION_CLIPPED_RELU;
    return relu && !s.propagate_nan ? 0.0 : x;
  }
  switch (s.mode) {
    case CUDNN_ACTIVATION_SIGMOID: return sigm(x);
    case CUDNN_ACTIVATION_RELU: return x > 0 ? x : 0.0;
    case CUDNN_ACTIVATION_TANH: return std::tanh(x);
    case CUDNN_ACTIVATION_CLIPPED_RELU: return x <= 0 ? 0.0 : (x >= s.coef ? s.coef : x);
    case CUDNN_ACTIVATION_ELU: return x > 0 ? x : s.coef * std::expm1(x);
    case CUDNN_ACTIVATION_IDENTITY: return x;
    case CUDNN_ACTIVATION_SWISH: return x * sigm(s.swish_beta * x);
    default: return std::nan("");
  }
}

double activation_gradient(const ActivationSpec &s, double x, double y, double dy) {
  switch (s.mode) {
    case CUDNN_ACTIVATION_SIGMOID: return dy * y * (1.0 - y);
    case CUDNN_ACTIVATION_RELU: return x > 0 ? dy : 0.0;
    case CUDNN_ACTIVATION_TANH: return dy * (1.0 - y * y);
    case CUDNN_ACTIVATION_CLIPPED_RELU: return x > 0 && x < s.coef ? dy : 0.0;
    case CUDNN_ACTIVATION_ELU: return y > 0 ? dy : dy * (y + s.coef);
    case CUDNN_ACTIVATION_IDENTITY: return dy;
    case CUDNN_ACTIVATION_SWISH: {
      const double g = sigm(s.swish_beta * x);
      return dy * (g + s.swish_beta * x * g * (1.0 - g));
    }
    default: return std::nan("");
  }
}

std::vector<Expect> reference_activation_forward(const ActivationSpec &s, double alpha, const HostTensor &x,
                                                 double beta, const HostTensor &y_prior) {
  const double u = compute_roundoff(x.dtype);
  std::vector<Expect> out;
  for_each_index(x.dims, [&](const std::vector<int64_t> &i) {
    const double xv = x.get(i);
    const double r = activation_value(s, xv);
    double v = alpha * r, tol = 16 * u * std::fabs(alpha) * (std::fabs(r) + std::fabs(xv) + 1e-30);
    if (std::isnan(tol)) tol = 0;  // NaN input: the value (NaN or 0) is exact
    if (beta != 0.0) {
      const double p = y_prior.get(i);
      v += beta * p;
      tol += 4 * u * std::fabs(beta * p);
    }
    out.push_back({v, tol});
  });
  return out;
}

std::vector<Expect> reference_activation_backward(const ActivationSpec &spec, double alpha, const HostTensor &y,
                                                  const HostTensor &dy, const HostTensor &x, double beta,
                                                  const HostTensor &dx_prior) {
  const double u = compute_roundoff(y.dtype);
  // The ceiling as the computation sees it (a float unless the data is
  // DOUBLE): y = ceiling exactly for every x above it.
  ActivationSpec s = spec;
  if (y.dtype != CUDNN_DATA_DOUBLE) s.coef = static_cast<float>(s.coef);
  std::vector<Expect> out;
  for_each_index(y.dims, [&](const std::vector<int64_t> &i) {
    const double xv = x.get(i), yv = y.get(i), g = dy.get(i);
    const double r = activation_gradient(s, xv, yv, g);
    double mag = std::fabs(g) * (1.0 + std::fabs(yv) + std::fabs(xv * s.swish_beta) + std::fabs(s.coef));
    double v = alpha * r, tol = 32 * u * std::fabs(alpha) * mag;
    if (beta != 0.0) {
      const double p = dx_prior.get(i);
      v += beta * p;
      tol += 4 * u * std::fabs(beta * p);
    }
    out.push_back({v, tol});
  });
  return out;
}

}  // namespace fdnn_test
