// An owned activation descriptor set from an ActivationSpec, for the tests
// that run the activation functions (the API tests and the CPU vector paths).
#pragma once

#include <cudnn.h>
#include <gtest/gtest.h>

#include "common/activation_reference.hpp"

namespace fdnn_test {

struct ActDesc {
  cudnnActivationDescriptor_t d = nullptr;
  explicit ActDesc(const ActivationSpec &s) {
    cudnnCreateActivationDescriptor(&d);
    EXPECT_EQ(cudnnSetActivationDescriptor(d, s.mode, s.propagate_nan ? CUDNN_PROPAGATE_NAN : CUDNN_NOT_PROPAGATE_NAN,
                                           s.coef),
              CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(cudnnSetActivationDescriptorSwishBeta(d, s.swish_beta), CUDNN_STATUS_SUCCESS);
  }
  ~ActDesc() { cudnnDestroyActivationDescriptor(d); }
  ActDesc(const ActDesc &) = delete;
  ActDesc &operator=(const ActDesc &) = delete;
  operator cudnnActivationDescriptor_t() const { return d; }
};

}  // namespace fdnn_test
