// Float64 references of the legacy convolutions over HostTensor, written
// independently of the library: straightforward loops over every output
// element and every contributing (channel, tap) pair.
#pragma once

#include <cudnn.h>

#include <vector>

#include "common/tensor_data.hpp"

namespace fdnn_test {

struct ConvParams {
  std::vector<int> pad, stride, dilation;  // one per spatial dimension
  cudnnConvolutionMode_t mode = CUDNN_CROSS_CORRELATION;
  int groups = 1;
};

// N, K, spatial extents of the forward output (1 + (in + 2p - ((f-1)d+1)) / s).
std::vector<int64_t> conv_output_dims(const ConvParams &p, const std::vector<int64_t> &x_dims,
                                      const std::vector<int64_t> &w_dims);

// Tolerances: `slack` times the unit roundoff of `compute` times the sum of
// the magnitudes of the products (plus the blend terms).
std::vector<Expect> reference_conv_forward(const ConvParams &p, const HostTensor &x, const HostTensor &w, double alpha,
                                           double beta, const HostTensor &y_prior, cudnnDataType_t compute,
                                           double slack);
std::vector<Expect> reference_conv_backward_data(const ConvParams &p, const HostTensor &w, const HostTensor &dy,
                                                 double alpha, double beta, const HostTensor &dx_prior,
                                                 cudnnDataType_t compute, double slack);
std::vector<Expect> reference_conv_backward_filter(const ConvParams &p, const HostTensor &x, const HostTensor &dy,
                                                   double alpha, double beta, const HostTensor &dw_prior,
                                                   cudnnDataType_t compute, double slack);

}  // namespace fdnn_test
