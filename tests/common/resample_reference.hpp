// Float64 references of the backend API's resample operations that the
// pooling references do not cover: NEAREST and BILINEAR upsampling (forward
// and backward) and max pooling with an index tensor. Written independently
// of the library: sample positions are exact fractions reduced with gcd.
#pragma once

#include <cudnn.h>

#include <cstdint>
#include <vector>

#include "common/tensor_data.hpp"

namespace fdnn_test {

struct Frac {
  int64_t num = 0, den = 1;
};

// The geometry of one upsampling resample, one entry per spatial dimension.
struct UpsampleParams {
  bool bilinear = true;
  std::vector<Frac> window, stride, pre;
};

// y = alpha * upsample(x) + beta * y_prior. Output position o of spatial
// dimension d samples s = o * stride - pre + window / 2 - 1/2 clamped to
// [0, extent - 1]: the nearest mode takes floor(s), bilinear weighs floor(s)
// and floor(s) + 1 by distance. Tolerances: a float computation.
std::vector<Expect> reference_upsample_forward(const UpsampleParams &p, const HostTensor &x, double alpha,
                                               double beta, const HostTensor &y_prior);

// The adjoint: dx = alpha * upsample^T(dy) + beta * dx_prior.
std::vector<Expect> reference_upsample_backward(const UpsampleParams &p, const HostTensor &dy, double alpha,
                                                double beta, const HostTensor &dx_prior);

// Max pooling (NEG_INF padding, integer geometry): the maximum of every
// window (ties: the first in row-major order; an empty window gives
// -FLT_MAX) and its position in the whole window (row-major, padding counted;
// -1 when the window has no input position).
struct MaxPoolResult {
  std::vector<double> y;        // row-major over y's dims
  std::vector<int64_t> index;   // the same order
};
MaxPoolResult reference_maxpool_with_index(const HostTensor &x, const std::vector<int64_t> &y_dims,
                                           const std::vector<int64_t> &window, const std::vector<int64_t> &stride,
                                           const std::vector<int64_t> &pre);

// dx = alpha * (dy scattered to the positions `index` names) + beta * dx_prior.
std::vector<Expect> reference_maxpool_backward_from_index(const HostTensor &dy, const std::vector<int64_t> &index,
                                                          const std::vector<int64_t> &window,
                                                          const std::vector<int64_t> &stride,
                                                          const std::vector<int64_t> &pre, double alpha, double beta,
                                                          const HostTensor &dx_prior);

}  // namespace fdnn_test
