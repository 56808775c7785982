// Float64 references of the fused-ops API's computations, composed of the
// tests' convolution and normalization references plus the per-channel
// arithmetic the fused ops add (scale, bias, add, relu, statistics, BN
// finalize). Independent of the library.
#pragma once

#include <cstdint>
#include <vector>

#include "common/tensor_data.hpp"

namespace fdnn_test {

// Per-channel parameters are indexed by channel (dims[1] of the data).
int64_t channel_of(const std::vector<int64_t> &dims, int64_t logical_index);

// act(x * scale + bias) evaluated as the library's op-by-op float chain
// does (one float rounding per step), then rounded to `out` type: exactly
// what the convolution of the fused op reads. scale / bias may be empty
// (absent). Logical order.
std::vector<double> float_scale_bias_relu(const HostTensor &x, const std::vector<double> &scale,
                                          const std::vector<double> &bias, bool relu, cudnnDataType_t out);

// y = act(x * scale + bias + z * z_scale + z_bias) in float64 with the
// tolerance of a short float chain (plus `extra_tol` per element, e.g. the
// error of x itself). Empty vectors / null z: term absent.
std::vector<Expect> scale_bias_add_relu_expect(const std::vector<double> &x, const std::vector<double> &x_tol,
                                               const std::vector<int64_t> &dims, const std::vector<double> &scale,
                                               const std::vector<double> &bias, const HostTensor *z,
                                               const std::vector<double> &z_scale, const std::vector<double> &z_bias,
                                               bool relu);

// Per-channel sum and sum of squares of y's values, with tolerances of a
// float accumulation.
struct ChannelSums {
  std::vector<Expect> sum, sq_sum;
};
ChannelSums channel_sums(const HostTensor &y);

// BN finalize (training from sums over `count` elements, or inference from
// mean / variance).
struct BnFinalizeRef {
  std::vector<double> mean, inv_std, eq_scale, eq_bias, running_mean, running_var;
};
BnFinalizeRef bn_finalize_training(const std::vector<double> &sum, const std::vector<double> &sq_sum,
                                   const std::vector<double> &scale, const std::vector<double> &bias, int64_t count,
                                   double epsilon, double factor, const std::vector<double> &running_mean,
                                   const std::vector<double> &running_var);
BnFinalizeRef bn_finalize_inference(const std::vector<double> &scale, const std::vector<double> &bias,
                                    const std::vector<double> &mean, const std::vector<double> &var, double epsilon);

// Expectations with a relative tolerance (and an absolute floor).
std::vector<Expect> expect_close(const std::vector<double> &v, double rel, double abs_floor = 0.0);

}  // namespace fdnn_test
