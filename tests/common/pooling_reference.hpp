// Float64 references of cudnnPoolingForward / cudnnPoolingBackward over
// HostTensor, written independently of the library. Windows are walked in
// row-major order; max pooling's gradient goes to the window's first
// maximum (ties resolved towards the lowest position).
#pragma once

#include <cudnn.h>

#include <vector>

#include "common/tensor_data.hpp"

namespace fdnn_test {

struct PoolingParams {
  cudnnPoolingMode_t mode = CUDNN_POOLING_MAX;
  bool propagate_nan = false;
  std::vector<int> window, padding, stride;  // one per spatial dimension (2 or 3)
};

// The output extent cuDNN advises: 1 + (in + 2 * pad - window) / stride.
std::vector<int64_t> pooling_output_dims(const PoolingParams &p, const std::vector<int64_t> &x_dims);

// y = alpha * pool(x) + beta * y_prior, with tolerances of a computation in
// `compute` (FLOAT or DOUBLE).
std::vector<Expect> reference_pooling_forward(const PoolingParams &p, const HostTensor &x, double alpha, double beta,
                                              const HostTensor &y_prior, cudnnDataType_t compute);

// dx = alpha * grad + beta * dx_prior (x is read by the max modes).
std::vector<Expect> reference_pooling_backward(const PoolingParams &p, const HostTensor &x, const HostTensor &dy,
                                               double alpha, double beta, const HostTensor &dx_prior,
                                               cudnnDataType_t compute);

}  // namespace fdnn_test
