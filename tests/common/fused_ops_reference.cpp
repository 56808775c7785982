#include "common/fused_ops_reference.hpp"

#include <cmath>

namespace fdnn_test {

int64_t channel_of(const std::vector<int64_t> &dims, int64_t e) {
  int64_t inner = 1;
  for (size_t d = 2; d < dims.size(); ++d) inner *= dims[d];
  return (e / inner) % dims[1];
}

std::vector<double> float_scale_bias_relu(const HostTensor &x, const std::vector<double> &scale,
                                          const std::vector<double> &bias, bool relu, cudnnDataType_t out) {
  std::vector<double> v = x.values();
  for (size_t e = 0; e < v.size(); ++e) {
    const int64_t c = channel_of(x.dims, static_cast<int64_t>(e));
    float t = static_cast<float>(v[e]);
    if (!scale.empty()) t = t * static_cast<float>(scale[c]);
    if (!bias.empty()) t = t + static_cast<float>(bias[c]);
    if (relu) t = t > 0.0f ? t : 0.0f;
    v[e] = round_to_type(out, t);
  }
  return v;
}

std::vector<Expect> scale_bias_add_relu_expect(const std::vector<double> &x, const std::vector<double> &x_tol,
                                               const std::vector<int64_t> &dims, const std::vector<double> &scale,
                                               const std::vector<double> &bias, const HostTensor *z,
                                               const std::vector<double> &z_scale, const std::vector<double> &z_bias,
                                               bool relu) {
  const std::vector<double> zv = z ? z->values() : std::vector<double>();
  std::vector<Expect> r(x.size());
  const double u = std::ldexp(1.0, -23);  // a few float roundings
  for (size_t e = 0; e < x.size(); ++e) {
    const int64_t c = channel_of(dims, static_cast<int64_t>(e));
    const double s = scale.empty() ? 1.0 : scale[c];
    double v = x[e] * s, mag = std::fabs(v), tol = std::fabs(s) * (x_tol.empty() ? 0.0 : x_tol[e]);
    if (!bias.empty()) {
      v += bias[c];
      mag += std::fabs(bias[c]);
    }
    if (z) {
      const double t = zv[e] * (z_scale.empty() ? 1.0 : z_scale[c]);
      v += t;
      mag += std::fabs(t);
    }
    if (!z_bias.empty()) {
      v += z_bias[c];
      mag += std::fabs(z_bias[c]);
    }
    tol += 4 * u * mag;
    if (relu && v <= 0) {
      // Near zero the sign may flip within the tolerance: accept [0, tol].
      r[e] = {v + tol > 0 ? (v + tol) / 2 : 0.0, v + tol > 0 ? (v + tol) / 2 : 0.0};
      continue;
    }
    if (relu && v - tol < 0) {
      r[e] = {v / 2 + tol / 2, v / 2 + tol / 2};
      continue;
    }
    r[e] = {v, tol};
  }
  return r;
}

ChannelSums channel_sums(const HostTensor &y) {
  const std::vector<double> v = y.values();
  const int64_t C = y.dims[1];
  std::vector<double> s(C, 0.0), q(C, 0.0), ms(C, 0.0), mq(C, 0.0);
  for (size_t e = 0; e < v.size(); ++e) {
    const int64_t c = channel_of(y.dims, static_cast<int64_t>(e));
    s[c] += v[e];
    q[c] += v[e] * v[e];
    ms[c] += std::fabs(v[e]);
  }
  const double n = static_cast<double>(v.size() / C);
  const double u = std::ldexp(1.0, -24);
  ChannelSums r;
  for (int64_t c = 0; c < C; ++c) {
    // Float accumulation (any order): n roundings of the running magnitude.
    r.sum.push_back({s[c], 2 * n * u * ms[c] + 1e-30});
    r.sq_sum.push_back({q[c], 3 * n * u * q[c] + 1e-30});
  }
  return r;
}

BnFinalizeRef bn_finalize_training(const std::vector<double> &sum, const std::vector<double> &sq_sum,
                                   const std::vector<double> &scale, const std::vector<double> &bias, int64_t count,
                                   double epsilon, double factor, const std::vector<double> &running_mean,
                                   const std::vector<double> &running_var) {
  BnFinalizeRef r;
  const double m = static_cast<double>(count);
  for (size_t c = 0; c < sum.size(); ++c) {
    const double mean = sum[c] / m;
    const double var = sq_sum[c] / m - mean * mean;
    const double inv = 1.0 / std::sqrt(var + epsilon);
    r.mean.push_back(mean);
    r.inv_std.push_back(inv);
    r.eq_scale.push_back(scale[c] * inv);
    r.eq_bias.push_back(bias[c] - mean * scale[c] * inv);
    r.running_mean.push_back((1 - factor) * running_mean[c] + factor * mean);
    r.running_var.push_back((1 - factor) * running_var[c] + factor * var * m / (m - 1));
  }
  return r;
}

BnFinalizeRef bn_finalize_inference(const std::vector<double> &scale, const std::vector<double> &bias,
                                    const std::vector<double> &mean, const std::vector<double> &var, double epsilon) {
  BnFinalizeRef r;
  for (size_t c = 0; c < scale.size(); ++c) {
    const double inv = 1.0 / std::sqrt(var[c] + epsilon);
    r.inv_std.push_back(inv);
    r.eq_scale.push_back(scale[c] * inv);
    r.eq_bias.push_back(bias[c] - mean[c] * scale[c] * inv);
  }
  return r;
}

std::vector<Expect> expect_close(const std::vector<double> &v, double rel, double abs_floor) {
  std::vector<Expect> r;
  for (double a : v) r.push_back({a, rel * std::fabs(a) + abs_floor});
  return r;
}

}  // namespace fdnn_test
