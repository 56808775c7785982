// Float64 reference of the legacy activations (cudnnActivationForward /
// Backward), written independently of the library.
#pragma once

#include <cudnn.h>

#include <vector>

#include "common/tensor_data.hpp"

namespace fdnn_test {

struct ActivationSpec {
  cudnnActivationMode_t mode = CUDNN_ACTIVATION_RELU;
  bool propagate_nan = false;
  double coef = 0.0;        // CLIPPED_RELU ceiling, ELU alpha
  double swish_beta = 1.0;
};

// f(x).
double activation_value(const ActivationSpec &s, double x);
// The legacy backward's dx for one element. cuDNN evaluates SIGMOID, TANH and
// ELU from the forward output y, RELU, CLIPPED_RELU and SWISH from the input
// x (measured on cuDNN 9.19 with a y unrelated to x).
double activation_gradient(const ActivationSpec &s, double x, double y, double dy);

// y = alpha * f(x) + beta * y_prior, with tolerances for float (or double)
// computation.
std::vector<Expect> reference_activation_forward(const ActivationSpec &s, double alpha, const HostTensor &x,
                                                 double beta, const HostTensor &y_prior);
// dx = alpha * f'(.) * dy + beta * dx_prior.
std::vector<Expect> reference_activation_backward(const ActivationSpec &s, double alpha, const HostTensor &y,
                                                  const HostTensor &dy, const HostTensor &x, double beta,
                                                  const HostTensor &dx_prior);

}  // namespace fdnn_test
