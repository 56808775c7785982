// Float64 reference implementations of the tensor operations, written
// independently of the library, over HostTensor. Each returns the expected
// output elements (logical order) with the error tolerance of a computation
// in the given compute type (a few roundings of the magnitudes involved;
// for sums, the worst-case bound of a float accumulation).
#pragma once

#include <cudnn.h>

#include <cstdint>
#include <vector>

#include "common/tensor_data.hpp"

namespace fdnn_test {

// The element of t that y's element `index` reads: dimensions where t has
// extent 1 broadcast.
double broadcast_get(const HostTensor &t, const std::vector<int64_t> &index);

// Parameters of the pointwise modes that have them (backend API attributes).
struct PointwiseParams {
  double relu_lower_clip = 0.0;
  double relu_upper_clip = 1e300;
  double relu_lower_clip_slope = 0.0;
  double elu_alpha = 1.0;
  double softplus_beta = 1.0;
  double swish_beta = 1.0;
  bool propagate_nan = true;
};

// The value of one cudnnPointwiseMode_t for operands a, b, c (c: the
// condition of BINARY_SELECT; for *_BWD modes a is x and b is dy).
double pointwise_value(cudnnPointwiseMode_t mode, double a, double b, double c, const PointwiseParams &p);

// y = alpha * x + beta * y_prior, x broadcast to y (x == nullptr: the
// constant `constant` instead). cudnnAddTensor, cudnnScaleTensor,
// cudnnSetTensor and the transforms.
std::vector<Expect> reference_scale_add(double alpha, const HostTensor *x, double constant, double beta,
                                        const HostTensor &y_prior, cudnnDataType_t compute_type);

// cudnnOpTensor: C = op(alpha1 * A, alpha2 * B) + beta * C (B broadcast; B
// unused by SQRT and NOT, where NOT is 1 - alpha1 * A).
std::vector<Expect> reference_op_tensor(cudnnOpTensorOp_t op, bool propagate_nan, double alpha1, const HostTensor &a,
                                        double alpha2, const HostTensor *b, double beta, const HostTensor &c_prior,
                                        cudnnDataType_t compute_type);

struct ReduceExpect {
  std::vector<Expect> values;
  std::vector<int64_t> indices;  // flat, within the reduced slice (MIN, MAX, AMAX)
};

// cudnnReduceTensor: C = alpha * reduce(A) + beta * C over the dimensions
// where C has extent 1. NaN: arithmetic modes propagate; MIN/MAX/AMAX follow
// propagate_nan (first NaN wins) or skip NaNs (NaN only if all are NaN).
ReduceExpect reference_reduce(cudnnReduceTensorOp_t op, bool propagate_nan, double alpha, const HostTensor &a,
                              double beta, const HostTensor &c_prior, cudnnDataType_t compute_type);

}  // namespace fdnn_test
