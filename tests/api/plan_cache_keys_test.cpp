// The legacy calls cache one plan per graph structure (Graph::structural_key).
// These tests call the same function on one handle with the same
// descriptors but a different structure each time (beta zero or not,
// optional outputs present or absent) and check each result: a key that
// missed a structural field would hand a call the plan of the previous one
// (one that never reads y, or never writes the running statistics).
#include <cudnn.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "common/buffer.hpp"
#include "common/expect_status.hpp"

namespace fdnn_test {
namespace {

std::vector<float> download_floats(const Buffer &b, size_t n) {
  std::vector<float> v(n);
  b.download(v.data(), n * sizeof(float));
  return v;
}

TEST(PlanCacheKeys, AddTensorAlternatesBetaZeroAndOne) {
  cudnnHandle_t h = nullptr;
  ASSERT_EQ(cudnnCreate(&h), CUDNN_STATUS_SUCCESS);
  cudnnTensorDescriptor_t bd = nullptr, yd = nullptr;
  ASSERT_EQ(cudnnCreateTensorDescriptor(&bd), CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(cudnnCreateTensorDescriptor(&yd), CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(cudnnSetTensor4dDescriptor(bd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 3, 1, 1), CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(cudnnSetTensor4dDescriptor(yd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 2, 3, 2, 2), CUDNN_STATUS_SUCCESS);
  const std::vector<float> bias{1.5f, -2.0f, 0.25f};
  Buffer b(bias.size() * sizeof(float)), y(24 * sizeof(float));
  b.upload(bias.data(), bias.size() * sizeof(float));
  const std::vector<float> nan(24, std::numeric_limits<float>::quiet_NaN());
  const float one = 1.0f, zero = 0.0f;
  for (int round = 0; round < 2; ++round) {
    // beta 0: y is never read (NaN stays out), y = bias.
    y.upload(nan.data(), nan.size() * sizeof(float));
    ASSERT_EQ(cudnnAddTensor(h, &one, bd, b.get(), &zero, yd, y.get()), CUDNN_STATUS_SUCCESS) << last_error();
    std::vector<float> got = download_floats(y, 24);
    for (int i = 0; i < 24; ++i) ASSERT_EQ(got[static_cast<size_t>(i)], bias[static_cast<size_t>(i / 4 % 3)]) << i;
    // beta 1 on the same descriptors: y = bias + y = 2 bias.
    ASSERT_EQ(cudnnAddTensor(h, &one, bd, b.get(), &one, yd, y.get()), CUDNN_STATUS_SUCCESS) << last_error();
    got = download_floats(y, 24);
    for (int i = 0; i < 24; ++i) ASSERT_EQ(got[static_cast<size_t>(i)], 2 * bias[static_cast<size_t>(i / 4 % 3)]) << i;
  }
  cudnnDestroyTensorDescriptor(bd);
  cudnnDestroyTensorDescriptor(yd);
  cudnnDestroy(h);
}

TEST(PlanCacheKeys, BatchNormTrainingWithAndWithoutRunningStatistics) {
  cudnnHandle_t h = nullptr;
  ASSERT_EQ(cudnnCreate(&h), CUDNN_STATUS_SUCCESS);
  cudnnTensorDescriptor_t xd = nullptr, sd = nullptr;
  ASSERT_EQ(cudnnCreateTensorDescriptor(&xd), CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(cudnnCreateTensorDescriptor(&sd), CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(cudnnSetTensor4dDescriptor(xd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 2, 2, 2, 2), CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(cudnnSetTensor4dDescriptor(sd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 2, 1, 1), CUDNN_STATUS_SUCCESS);
  std::vector<float> xv(16);
  for (int i = 0; i < 16; ++i) xv[static_cast<size_t>(i)] = static_cast<float>(i % 7) - 2.0f;
  // Channel c holds elements n * 8 + c * 4 + (0..3).
  double mean[2] = {0, 0};
  for (int i = 0; i < 16; ++i) mean[i / 4 % 2] += xv[static_cast<size_t>(i)] / 8.0;
  const std::vector<float> scale{1.0f, 1.0f}, bias{0.0f, 0.0f}, old_mean{10.0f, -10.0f}, old_var{1.0f, 1.0f};
  Buffer x(16 * sizeof(float)), y(16 * sizeof(float)), s(8), bb(8), rm(8), rv(8);
  x.upload(xv.data(), 64);
  s.upload(scale.data(), 8);
  bb.upload(bias.data(), 8);
  const float one = 1.0f, zero = 0.0f;
  const double factor = 0.5;
  for (int round = 0; round < 2; ++round) {
    // Without running statistics (NULL pointers) ...
    ASSERT_EQ(cudnnBatchNormalizationForwardTraining(h, CUDNN_BATCHNORM_SPATIAL, &one, &zero, xd, x.get(), xd, y.get(),
                                                     sd, s.get(), bb.get(), factor, nullptr, nullptr, 1e-5, nullptr,
                                                     nullptr),
              CUDNN_STATUS_SUCCESS)
        << last_error();
    // ... then with them, on the same descriptors: they must be updated.
    rm.upload(old_mean.data(), 8);
    rv.upload(old_var.data(), 8);
    ASSERT_EQ(cudnnBatchNormalizationForwardTraining(h, CUDNN_BATCHNORM_SPATIAL, &one, &zero, xd, x.get(), xd, y.get(),
                                                     sd, s.get(), bb.get(), factor, rm.get(), rv.get(), 1e-5, nullptr,
                                                     nullptr),
              CUDNN_STATUS_SUCCESS)
        << last_error();
    const std::vector<float> got = download_floats(rm, 2);
    for (int c = 0; c < 2; ++c)
      EXPECT_NEAR(got[static_cast<size_t>(c)], (1 - factor) * old_mean[static_cast<size_t>(c)] + factor * mean[c], 1e-5)
          << "channel " << c;
  }
  cudnnDestroyTensorDescriptor(xd);
  cudnnDestroyTensorDescriptor(sd);
  cudnnDestroy(h);
}

}  // namespace
}  // namespace fdnn_test
