#include "common/lrn_reference.hpp"

#include <cmath>

namespace fdnn_test {
namespace {

// Relative error allowed per value of the compute type: the GPU may use
// fast square roots and powers, so a generous number of roundings.
double eps_of(cudnnDataType_t compute_type) {
  return compute_type == CUDNN_DATA_DOUBLE ? 64 * std::ldexp(1.0, -53) : 64 * std::ldexp(1.0, -24);
}

struct Shape {
  std::vector<int64_t> dims;
  std::vector<int> normalized;  // dims the window runs along
  int64_t count = 1;
  std::vector<int64_t> row;     // row-major multipliers
};

Shape shape_of(const LrnParams &p, const HostTensor &x) {
  Shape s;
  s.dims = x.dims;
  if (p.divisive) {
    for (int d = 2; d < x.rank(); ++d) s.normalized.push_back(d);
  } else {
    s.normalized.push_back(1);
  }
  s.row.assign(x.dims.size(), 1);
  for (int d = x.rank() - 1; d >= 0; --d) {
    s.row[d] = s.count;
    s.count *= x.dims[d];
  }
  return s;
}

// Sum of f(q) over the positions q with q - p in [lo, hi]^d along the
// normalized dims (all inside the tensor).
template <class F>
double window_sum(const Shape &s, int64_t p, int64_t lo, int64_t hi, F f) {
  std::vector<int64_t> idx(s.dims.size());
  for (size_t d = 0; d < s.dims.size(); ++d) idx[d] = (p / s.row[d]) % s.dims[d];
  double total = 0;
  const size_t nd = s.normalized.size();
  int64_t combos = 1;
  for (size_t i = 0; i < nd; ++i) combos *= hi - lo + 1;
  for (int64_t c = 0; c < combos; ++c) {
    int64_t rest = c, q = p;
    bool inside = true;
    for (size_t i = 0; i < nd; ++i) {
      const int64_t off = lo + rest % (hi - lo + 1);
      rest /= hi - lo + 1;
      const int d = s.normalized[i];
      if (idx[d] + off < 0 || idx[d] + off >= s.dims[d]) inside = false;
      q += off * s.row[d];
    }
    if (inside) total += f(q);
  }
  return total;
}

double scale_of(const LrnParams &p, const Shape &s) {
  return p.alpha / std::pow(static_cast<double>(p.n), static_cast<double>(s.normalized.size()));
}

int64_t behind_of(unsigned n) { return (static_cast<int64_t>(n) - 1) / 2; }
int64_t ahead_of(unsigned n) { return static_cast<int64_t>(n) - 1 - behind_of(n); }

// S(p) = k + a * sum_{q in W(p)} (x(q) - m(p))^2 (m = 0 for cross-channel or
// without means).
std::vector<double> s_of(const LrnParams &p, const Shape &sh, const std::vector<double> &x,
                         const std::vector<double> &m) {
  const double a = scale_of(p, sh);
  std::vector<double> s(x.size());
  for (int64_t i = 0; i < sh.count; ++i)
    s[i] = p.k + a * window_sum(sh, i, -behind_of(p.n), ahead_of(p.n),
                                [&](int64_t q) { return (x[q] - m[i]) * (x[q] - m[i]); });
  return s;
}

std::vector<double> means_of(const HostTensor &x, const HostTensor *means) {
  return means != nullptr ? means->values() : std::vector<double>(static_cast<size_t>(x.elements()), 0.0);
}

std::vector<Expect> blended(const std::vector<double> &v, const std::vector<double> &err, double ba, double bb,
                            const HostTensor &prior, double eps) {
  const std::vector<double> old = prior.values();
  std::vector<Expect> out(v.size());
  for (size_t i = 0; i < v.size(); ++i) {
    double value = ba * v[i], tol = std::fabs(ba) * err[i];
    if (bb != 0) {
      value += bb * old[i];
      tol += eps * std::fabs(bb * old[i]);
    }
    out[i] = {value, tol + eps * std::fabs(value)};
  }
  return out;
}

}  // namespace

std::vector<double> lrn_forward_values(const LrnParams &p, const HostTensor &x, const HostTensor *means) {
  const Shape sh = shape_of(p, x);
  const std::vector<double> xv = x.values(), m = means_of(x, means), s = s_of(p, sh, xv, m);
  std::vector<double> y(xv.size());
  for (size_t i = 0; i < y.size(); ++i) y[i] = xv[i] * std::pow(s[i], -p.beta);
  return y;
}

std::vector<Expect> reference_lrn_forward(const LrnParams &p, const HostTensor &x, const HostTensor *means,
                                          double blend_alpha, double blend_beta, const HostTensor &y_prior,
                                          cudnnDataType_t compute_type) {
  const double eps = eps_of(compute_type);
  const std::vector<double> y = lrn_forward_values(p, x, means);
  // Divisive sums of (x - m)^2 may be formed as sum x^2 - 2 m sum x + count m^2.
  const double growth = p.divisive ? 4.0 * (p.n + 4) : (p.n + 4);
  std::vector<double> err(y.size());
  for (size_t i = 0; i < y.size(); ++i) err[i] = eps * growth * std::fabs(y[i]) * std::max(1.0, p.beta);
  return blended(y, err, blend_alpha, blend_beta, y_prior, eps);
}

std::vector<Expect> reference_lrn_backward(const LrnParams &p, const HostTensor &x_t, const HostTensor *means,
                                           const HostTensor &dy_t, double blend_alpha, double blend_beta,
                                           const HostTensor &dx_prior, cudnnDataType_t compute_type,
                                           const HostTensor *dmeans_prior, std::vector<Expect> *dmeans_want) {
  const double eps = eps_of(compute_type);
  const Shape sh = shape_of(p, x_t);
  const std::vector<double> x = x_t.values(), m = means_of(x_t, means), s = s_of(p, sh, x, m), dy = dy_t.values();
  const double a = scale_of(p, sh), tab = 2 * a * p.beta;
  const int64_t behind = behind_of(p.n), ahead = ahead_of(p.n);
  // R(p) = dy(p) y(p) / S(p), y recomputed from x.
  std::vector<double> r(x.size());
  for (int64_t i = 0; i < sh.count; ++i) r[i] = dy[i] * x[i] * std::pow(s[i], -p.beta) / s[i];
  const double growth = (p.divisive ? 8.0 : 2.0) * (p.n + 4) * std::max(1.0, p.beta);
  std::vector<double> dx(x.size()), err(x.size()), dm(x.size()), dm_err(x.size());
  for (int64_t q = 0; q < sh.count; ++q) {
    double acc = 0, acc_abs = 0;
    if (p.divisive) {
      // cuDNN sums over W(q) itself (the exact gradient would sum over the
      // p whose window holds q; the two agree for odd n).
      acc = window_sum(sh, q, -behind, ahead, [&](int64_t i) { return r[i] * (x[q] - m[i]); });
      acc_abs = window_sum(sh, q, -behind, ahead, [&](int64_t i) { return std::fabs(r[i]) * (std::fabs(x[q]) + std::fabs(m[i])); });
    } else {
      acc = window_sum(sh, q, -ahead, behind, [&](int64_t i) { return r[i] * x[q]; });
      acc_abs = window_sum(sh, q, -ahead, behind, [&](int64_t i) { return std::fabs(r[i] * x[q]); });
    }
    const double first = dy[q] * std::pow(s[q], -p.beta);
    dx[q] = first - tab * acc;
    err[q] = eps * growth * (std::fabs(first) + tab * acc_abs);
    if (p.divisive) {
      const double sum = window_sum(sh, q, -behind, ahead, [&](int64_t i) { return x[i] - m[q]; });
      const double sum_abs = window_sum(sh, q, -behind, ahead, [&](int64_t i) { return std::fabs(x[i]) + std::fabs(m[q]); });
      dm[q] = tab * r[q] * sum;
      dm_err[q] = eps * growth * tab * std::fabs(r[q]) * sum_abs;
    }
  }
  if (dmeans_want != nullptr && dmeans_prior != nullptr)
    *dmeans_want = blended(dm, dm_err, blend_alpha, blend_beta, *dmeans_prior, eps);
  return blended(dx, err, blend_alpha, blend_beta, dx_prior, eps);
}

}  // namespace fdnn_test
