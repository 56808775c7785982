// An owned LRN descriptor set from LrnParams, and the strided NCHW layouts
// the tests of the CPU engine's plane paths use.
#pragma once

#include <cudnn.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "common/lrn_reference.hpp"

namespace fdnn_test {

struct LrnDescriptor {
  cudnnLRNDescriptor_t d = nullptr;
  explicit LrnDescriptor(const LrnParams &p) {
    EXPECT_EQ(cudnnCreateLRNDescriptor(&d), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(cudnnSetLRNDescriptor(d, p.n, p.alpha, p.beta, p.k), CUDNN_STATUS_SUCCESS);
  }
  ~LrnDescriptor() { cudnnDestroyLRNDescriptor(d); }
  LrnDescriptor(const LrnDescriptor &) = delete;
  LrnDescriptor &operator=(const LrnDescriptor &) = delete;
};

// Packed NCHW / NCDHW strides with `gap` spare elements after each channel
// plane and after each image.
inline std::vector<int64_t> planes_with_gaps(const std::vector<int64_t> &d, int64_t gap) {
  std::vector<int64_t> s(d.size());
  s.back() = 1;
  for (size_t i = d.size() - 1; i-- > 2;) s[i] = s[i + 1] * d[i + 1];
  s[1] = s[2] * d[2] + gap;
  s[0] = s[1] * d[1] + gap;
  return s;
}

}  // namespace fdnn_test
