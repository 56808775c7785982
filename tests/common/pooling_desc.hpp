// An owned pooling descriptor set from PoolingParams, for the tests that run
// the pooling calls (the API tests and the CPU engine's own paths).
#pragma once

#include <cudnn.h>
#include <gtest/gtest.h>

#include "common/pooling_reference.hpp"

namespace fdnn_test {

struct PoolDesc {
  cudnnPoolingDescriptor_t d = nullptr;
  explicit PoolDesc(const PoolingParams &p) {
    cudnnCreatePoolingDescriptor(&d);
    EXPECT_EQ(cudnnSetPoolingNdDescriptor(d, p.mode, p.propagate_nan ? CUDNN_PROPAGATE_NAN : CUDNN_NOT_PROPAGATE_NAN,
                                          static_cast<int>(p.window.size()), p.window.data(), p.padding.data(),
                                          p.stride.data()),
              CUDNN_STATUS_SUCCESS);
  }
  ~PoolDesc() { cudnnDestroyPoolingDescriptor(d); }
  PoolDesc(const PoolDesc &) = delete;
  PoolDesc &operator=(const PoolDesc &) = delete;
  operator cudnnPoolingDescriptor_t() const { return d; }
};

}  // namespace fdnn_test
