#include "common/softmax_reference.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace fdnn_test {

namespace {

double compute_roundoff(cudnnDataType_t t) { return t == CUDNN_DATA_DOUBLE ? std::ldexp(1.0, -53) : std::ldexp(1.0, -24); }

// The groups of logical element positions (row-major linear indices) that
// one softmax normalises together.
std::vector<std::vector<int64_t>> groups(cudnnSoftmaxMode_t mode, const std::vector<int64_t> &dims) {
  int64_t n = dims[0], c = dims[1], spatial = 1;
  for (size_t d = 2; d < dims.size(); ++d) spatial *= dims[d];
  std::vector<std::vector<int64_t>> g;
  if (mode == CUDNN_SOFTMAX_MODE_INSTANCE) {
    for (int64_t i = 0; i < n; ++i) {
      g.emplace_back();
      for (int64_t k = 0; k < c * spatial; ++k) g.back().push_back(i * c * spatial + k);
    }
  } else {
    for (int64_t i = 0; i < n; ++i)
      for (int64_t s = 0; s < spatial; ++s) {
        g.emplace_back();
        for (int64_t k = 0; k < c; ++k) g.back().push_back((i * c + k) * spatial + s);
      }
  }
  return g;
}

std::vector<Expect> blend(const std::vector<double> &r, const std::vector<double> &tol, double alpha, double beta,
                          const HostTensor &prior, double u) {
  const std::vector<double> p = prior.values();
  std::vector<Expect> out(r.size());
  for (size_t i = 0; i < r.size(); ++i) {
    out[i].value = alpha * r[i];
    out[i].tolerance = std::fabs(alpha) * tol[i];
    if (beta != 0.0) {
      out[i].value += beta * p[i];
      out[i].tolerance += 4 * u * std::fabs(beta * p[i]);
    }
  }
  return out;
}

}  // namespace

std::vector<Expect> reference_softmax_forward(cudnnSoftmaxAlgorithm_t algo, cudnnSoftmaxMode_t mode, double alpha,
                                              const HostTensor &x, double beta, const HostTensor &y_prior) {
  const double u = compute_roundoff(x.dtype);
  const std::vector<double> xv = x.values();
  std::vector<double> r(xv.size()), tol(xv.size());
  for (const auto &grp : groups(mode, x.dims)) {
    double mx = -std::numeric_limits<double>::infinity();
    for (int64_t i : grp) mx = std::max(mx, xv[i]);
    double sum = 0;
    for (int64_t i : grp) sum += std::exp(xv[i] - mx);
    const double n = static_cast<double>(grp.size());
    for (int64_t i : grp) {
      if (algo == CUDNN_SOFTMAX_LOG) {
        r[i] = xv[i] - mx - std::log(sum);
        tol[i] = 16 * u * (std::fabs(xv[i]) + std::fabs(mx) + std::fabs(std::log(sum)) + std::log2(n + 1));
      } else {
        r[i] = std::exp(xv[i] - mx) / sum;
        // exp's error grows with |x - max|, the sum's with the row length.
        tol[i] = 16 * u * r[i] * (1 + std::fabs(xv[i] - mx) + std::fabs(mx) * (algo == CUDNN_SOFTMAX_FAST) +
                                  std::log2(n + 1) * 4);
      }
    }
  }
  return blend(r, tol, alpha, beta, y_prior, u);
}

std::vector<Expect> reference_softmax_backward(cudnnSoftmaxAlgorithm_t algo, cudnnSoftmaxMode_t mode, double alpha,
                                               const HostTensor &y, const HostTensor &dy, double beta,
                                               const HostTensor &dx_prior) {
  const double u = compute_roundoff(y.dtype);
  const std::vector<double> yv = y.values(), gv = dy.values();
  std::vector<double> r(yv.size()), tol(yv.size());
  for (const auto &grp : groups(mode, y.dims)) {
    double s = 0, mag = 0;
    for (int64_t i : grp) {
      const double term = algo == CUDNN_SOFTMAX_LOG ? gv[i] : yv[i] * gv[i];
      s += term;
      mag += std::fabs(term);
    }
    const double n = static_cast<double>(grp.size());
    for (int64_t i : grp) {
      if (algo == CUDNN_SOFTMAX_LOG) {
        const double e = std::exp(yv[i]);
        r[i] = gv[i] - e * s;
        tol[i] = 16 * u * (std::fabs(gv[i]) + e * (std::fabs(s) + mag * n * 0 + mag * 2) * (1 + std::fabs(yv[i])));
      } else {
        r[i] = yv[i] * (gv[i] - s);
        tol[i] = 16 * u * std::fabs(yv[i]) * (std::fabs(gv[i]) + std::fabs(s) + mag * std::log2(n + 1));
      }
    }
  }
  return blend(r, tol, alpha, beta, dx_prior, u);
}

}  // namespace fdnn_test
