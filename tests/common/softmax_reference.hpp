// Float64 reference of cudnnSoftmaxForward / cudnnSoftmaxBackward, written
// independently of the library.
#pragma once

#include <cudnn.h>

#include <vector>

#include "common/tensor_data.hpp"

namespace fdnn_test {

// y = alpha * softmax(x) + beta * y_prior over the mode's dims (INSTANCE:
// all but N; CHANNEL: C), FAST / ACCURATE / LOG.
std::vector<Expect> reference_softmax_forward(cudnnSoftmaxAlgorithm_t algo, cudnnSoftmaxMode_t mode, double alpha,
                                              const HostTensor &x, double beta, const HostTensor &y_prior);
// dx = alpha * grad + beta * dx_prior from y and dy.
std::vector<Expect> reference_softmax_backward(cudnnSoftmaxAlgorithm_t algo, cudnnSoftmaxMode_t mode, double alpha,
                                               const HostTensor &y, const HostTensor &dy, double beta,
                                               const HostTensor &dx_prior);

}  // namespace fdnn_test
