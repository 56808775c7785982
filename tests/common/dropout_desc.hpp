// An owned dropout descriptor with its RNG states on the handle's device,
// for the dropout tests (the API tests and the CPU vector paths).
#pragma once

#include <cudnn.h>
#include <gtest/gtest.h>

#include <cstddef>

#include "common/buffer.hpp"

namespace fdnn_test {

struct Dropout {
  cudnnDropoutDescriptor_t d = nullptr;
  Buffer states;
  Dropout(cudnnHandle_t h, float p, unsigned long long seed) {
    EXPECT_EQ(cudnnCreateDropoutDescriptor(&d), CUDNN_STATUS_SUCCESS);
    size_t bytes = 0;
    EXPECT_EQ(cudnnDropoutGetStatesSize(h, &bytes), CUDNN_STATUS_SUCCESS);
    states = Buffer(bytes);
    EXPECT_EQ(cudnnSetDropoutDescriptor(d, h, p, states.get(), bytes, seed), CUDNN_STATUS_SUCCESS);
  }
  ~Dropout() { cudnnDestroyDropoutDescriptor(d); }
  Dropout(const Dropout &) = delete;
  Dropout &operator=(const Dropout &) = delete;
};

}  // namespace fdnn_test
