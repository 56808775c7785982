// Test data of the batch-normalization tests (the API tests and the CPU
// engine's paths): the parameters' type and dims, parameter tensors, random
// parameter values representable in their type, and the expected statistics
// of a training forward.
#pragma once

#include <cudnn.h>

#include <cmath>
#include <cstddef>
#include <vector>

#include "common/normalization_reference.hpp"
#include "common/random.hpp"
#include "common/tensor_data.hpp"

namespace fdnn_test {

// The type of the scale, bias and statistics tensors for data of type t.
inline cudnnDataType_t param_type(cudnnDataType_t t) {
  return t == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
}

// Dims of the parameters of data x: [1, C, 1, ..] (spatial), or x's dims
// but N (per activation).
inline std::vector<int64_t> param_dims(const std::vector<int64_t> &x, bool per_activation) {
  std::vector<int64_t> d(x.size(), 1);
  d[1] = x[1];
  if (per_activation)
    for (size_t i = 2; i < x.size(); ++i) d[i] = x[i];
  return d;
}

// A packed (NCHW order) tensor of type t holding v.
inline HostTensor param_tensor(cudnnDataType_t t, const std::vector<int64_t> &dims, const std::vector<double> &v) {
  HostTensor h = make_tensor(t, dims, packed_strides(dims, Layout::nchw));
  h.set_values(v);
  return h;
}

// n values uniform in [lo, hi), each rounded to t.
inline std::vector<double> random_values(Rng &rng, size_t n, double lo, double hi, cudnnDataType_t t) {
  std::vector<double> v(n);
  for (double &e : v) e = round_to_type(t, rng.uniform(lo, hi));
  return v;
}

// A statistic's expectation: tolerance relative to |v| + mag.
inline Expect stat_expect(double v, double mag, bool dbl) { return {v, (dbl ? 1e-13 : 4e-6) * (std::fabs(v) + mag)}; }

// What a training forward computes besides y from the batch statistics st:
// 1 / sqrt(var + eps) per set, and the expected saved mean and inverse
// standard deviation and running mean and variance after an update by
// `factor` (m elements per set; the running variance is unbiased).
struct BnTrainingExpect {
  std::vector<double> inv;
  std::vector<Expect> mean, inv_std, running_mean, running_var;
};

inline BnTrainingExpect bn_training_expect(const NormRefStats &st, const std::vector<double> &rmean,
                                           const std::vector<double> &rvar, double eps, double factor, double m,
                                           bool dbl) {
  const size_t sets = st.mean.size();
  BnTrainingExpect w;
  w.inv.resize(sets);
  w.mean.resize(sets), w.inv_std.resize(sets), w.running_mean.resize(sets), w.running_var.resize(sets);
  for (size_t k = 0; k < sets; ++k) {
    w.inv[k] = 1 / std::sqrt(st.var[k] + eps);
    const double sd = std::sqrt(st.var[k]);
    w.mean[k] = stat_expect(st.mean[k], sd, dbl);
    w.inv_std[k] = stat_expect(w.inv[k], 0, dbl);
    w.running_mean[k] = stat_expect((1 - factor) * rmean[k] + factor * st.mean[k], sd + std::fabs(rmean[k]), dbl);
    w.running_var[k] = stat_expect((1 - factor) * rvar[k] + factor * st.var[k] * m / (m - 1), rvar[k], dbl);
  }
  return w;
}

}  // namespace fdnn_test
