#include "common/normalization_reference.hpp"

#include <cmath>

namespace fdnn_test {

int64_t NormRefShape::sets() const {
  int64_t n = dims[1];
  if (per_activation)
    for (size_t d = 2; d < dims.size(); ++d) n *= dims[d];
  return n;
}

int64_t NormRefShape::count() const {
  int64_t total = 1;
  for (int64_t d : dims) total *= d;
  return total / sets();
}

int64_t NormRefShape::set_of(int64_t e) const {
  int64_t spatial = 1;
  for (size_t d = 2; d < dims.size(); ++d) spatial *= dims[d];
  const int64_t per_sample = dims[1] * spatial;
  return per_activation ? e % per_sample : (e % per_sample) / spatial;
}

NormRefStats norm_batch_stats(const NormRefShape &s, const HostTensor &x) {
  const std::vector<double> v = x.values();
  NormRefStats st;
  st.mean.assign(static_cast<size_t>(s.sets()), 0.0);
  st.var.assign(st.mean.size(), 0.0);
  const double m = static_cast<double>(s.count());
  for (size_t e = 0; e < v.size(); ++e) st.mean[s.set_of(e)] += v[e];
  for (double &a : st.mean) a /= m;
  for (size_t e = 0; e < v.size(); ++e) {
    const double d = v[e] - st.mean[s.set_of(e)];
    st.var[s.set_of(e)] += d * d;
  }
  for (double &a : st.var) a /= m;
  return st;
}

std::vector<double> norm_pre_activation(const NormRefShape &s, const HostTensor &x, const HostTensor *z,
                                        const std::vector<double> &scale, const std::vector<double> &bias,
                                        const std::vector<double> &mean, const std::vector<double> &inv_std) {
  std::vector<double> v = x.values();
  const std::vector<double> zv = z ? z->values() : std::vector<double>();
  for (size_t e = 0; e < v.size(); ++e) {
    const int64_t k = s.set_of(e);
    v[e] = scale[k] * (v[e] - mean[k]) * inv_std[k] + bias[k] + (z ? zv[e] : 0.0);
  }
  return v;
}

double norm_activate(const NormRefAct &a, double v) {
  if (!a.relu) return v;
  return v <= 0 ? 0.0 : (v > a.clip ? a.clip : v);
}

bool norm_act_passes(const NormRefAct &a, double v) { return !a.relu || (v > 0 && v < a.clip); }

std::vector<Expect> norm_forward_expect(const NormRefShape &s, const HostTensor &x, const HostTensor *z,
                                        const std::vector<double> &scale, const std::vector<double> &bias,
                                        const std::vector<double> &mean, const std::vector<double> &inv_std,
                                        const NormRefAct &act, double alpha, double beta, const HostTensor &y_prior,
                                        bool double_compute) {
  const std::vector<double> v = norm_pre_activation(s, x, z, scale, bias, mean, inv_std);
  const std::vector<double> xv = x.values(), yp = y_prior.values();
  const std::vector<double> zv = z ? z->values() : std::vector<double>();
  const double u = double_compute ? 1e-13 : 2e-6;
  std::vector<Expect> out(v.size());
  for (size_t e = 0; e < v.size(); ++e) {
    const int64_t k = s.set_of(e);
    // Magnitudes that meet in the computation: scale*x*inv, scale*mean*inv, bias, z.
    const double mag = std::fabs(scale[k] * inv_std[k]) * (std::fabs(xv[e]) + std::fabs(mean[k]) + 1) +
                       std::fabs(bias[k]) + (z ? std::fabs(zv[e]) : 0.0);
    double val = alpha * norm_activate(act, v[e]);
    double tol = 8 * u * mag * std::fabs(alpha);
    // Near the relu kink or the ceiling either side is acceptable.
    if (act.relu && (std::fabs(v[e]) <= tol * 2 || std::fabs(v[e] - act.clip) <= tol * 2)) tol += std::fabs(alpha) * tol * 2;
    if (beta != 0) {
      val += beta * yp[e];
      tol += 4 * u * std::fabs(beta * yp[e]);
    }
    out[e] = {val, tol};
  }
  return out;
}

NormRefGrad norm_backward_expect(const NormRefShape &s, const HostTensor &x, const HostTensor &dy,
                                 const std::vector<bool> *pass, const std::vector<double> &scale,
                                 const std::vector<double> &mean, const std::vector<double> &inv_std, double alpha,
                                 double beta, const HostTensor &dx_prior, double alpha_p, double beta_p,
                                 const std::vector<double> &dscale_prior, const std::vector<double> &dbias_prior,
                                 bool double_compute) {
  const std::vector<double> xv = x.values(), dyv = dy.values(), dxp = dx_prior.values();
  const size_t n = xv.size(), sets = static_cast<size_t>(s.sets());
  const double m = static_cast<double>(s.count());
  const double u = double_compute ? 1e-13 : 2e-6;
  std::vector<double> g(n), xhat(n), sg(sets, 0), sgx(sets, 0), sabs(sets, 0);
  for (size_t e = 0; e < n; ++e) {
    const int64_t k = s.set_of(e);
    g[e] = (pass == nullptr || (*pass)[e]) ? dyv[e] : 0.0;
    xhat[e] = (xv[e] - mean[k]) * inv_std[k];
    sg[k] += g[e];
    sgx[k] += g[e] * xhat[e];
    sabs[k] += std::fabs(g[e]) * (1 + std::fabs(xhat[e]));
  }
  NormRefGrad r;
  r.dx.resize(n);
  r.dz.resize(n);
  for (size_t e = 0; e < n; ++e) {
    const int64_t k = s.set_of(e);
    const double c = scale[k] * inv_std[k];
    const double val = c * (g[e] - sg[k] / m - xhat[e] * sgx[k] / m);
    // Sums of M terms in float: error ~ u * sqrt-ish growth; bound by u*M^0.5*sum|terms|/M plus roundings.
    const double sum_err = u * (8 + std::sqrt(m)) * sabs[k] / m * (1 + std::fabs(xhat[e]));
    const double mag = std::fabs(c) * (std::fabs(g[e]) + sum_err + 8 * u * (std::fabs(g[e]) + sabs[k] / m * (1 + std::fabs(xhat[e]))));
    double out = alpha * val, tol = std::fabs(alpha) * mag + 1e-300;
    if (beta != 0) {
      out += beta * dxp[e];
      tol += 4 * u * std::fabs(beta * dxp[e]);
    }
    r.dx[e] = {out, tol};
    r.dz[e] = {g[e], 0};
  }
  r.dscale.resize(sets);
  r.dbias.resize(sets);
  for (size_t k = 0; k < sets; ++k) {
    const double tol = u * (8 + std::sqrt(m)) * sabs[k] * 2;
    r.dscale[k] = {alpha_p * sgx[k] + beta_p * dscale_prior[k], std::fabs(alpha_p) * tol + 4 * u * std::fabs(beta_p * dscale_prior[k])};
    r.dbias[k] = {alpha_p * sg[k] + beta_p * dbias_prior[k], std::fabs(alpha_p) * tol + 4 * u * std::fabs(beta_p * dbias_prior[k])};
  }
  return r;
}

}  // namespace fdnn_test
