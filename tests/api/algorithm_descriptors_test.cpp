// Algorithm descriptors and performance records (cuDNN 8 API): round trips,
// copy, save/restore through host memory, and the refused inputs.
#include <cudnn.h>
#include <gtest/gtest.h>

#include "common/expect_status.hpp"

#include <vector>

namespace {

struct Handle {
  cudnnHandle_t h = nullptr;
  Handle() { EXPECT_EQ(cudnnCreate(&h), CUDNN_STATUS_SUCCESS); }
  ~Handle() { cudnnDestroy(h); }
};

cudnnAlgorithm_t fwd_algo(cudnnConvolutionFwdAlgo_t a) {
  cudnnAlgorithm_t v{};
  v.algo.convFwdAlgo = a;
  return v;
}

TEST(AlgorithmDescriptor, SetGetCopyRoundTrip) {
  cudnnAlgorithmDescriptor_t a = nullptr, b = nullptr;
  ASSERT_EQ(cudnnCreateAlgorithmDescriptor(&a), CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(cudnnCreateAlgorithmDescriptor(&b), CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(cudnnSetAlgorithmDescriptor(a, fwd_algo(CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD)), CUDNN_STATUS_SUCCESS);
  cudnnAlgorithm_t got{};
  ASSERT_EQ(cudnnGetAlgorithmDescriptor(a, &got), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(got.algo.convFwdAlgo, CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD);

  ASSERT_EQ(cudnnCopyAlgorithmDescriptor(a, b), CUDNN_STATUS_SUCCESS);
  got = fwd_algo(CUDNN_CONVOLUTION_FWD_ALGO_GEMM);
  ASSERT_EQ(cudnnGetAlgorithmDescriptor(b, &got), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(got.algo.convFwdAlgo, CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD);

  EXPECT_FAILS_NAMING(cudnnGetAlgorithmDescriptor(a, nullptr), CUDNN_STATUS_BAD_PARAM,
                      "cudnnGetAlgorithmDescriptor", "algorithm");
  EXPECT_FAILS_NAMING(cudnnCopyAlgorithmDescriptor(a, nullptr), CUDNN_STATUS_BAD_PARAM,
                      "cudnnCopyAlgorithmDescriptor", "dest");
  EXPECT_FAILS_NAMING(cudnnCreateAlgorithmDescriptor(nullptr), CUDNN_STATUS_BAD_PARAM,
                      "cudnnCreateAlgorithmDescriptor", "algoDesc");
  EXPECT_EQ(cudnnDestroyAlgorithmDescriptor(a), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnDestroyAlgorithmDescriptor(b), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnDestroyAlgorithmDescriptor(nullptr), CUDNN_STATUS_SUCCESS);
}

TEST(AlgorithmPerformance, ArrayOfRecords) {
  cudnnAlgorithmDescriptor_t a = nullptr;
  ASSERT_EQ(cudnnCreateAlgorithmDescriptor(&a), CUDNN_STATUS_SUCCESS);
  std::vector<cudnnAlgorithmPerformance_t> perf(3, nullptr);
  ASSERT_EQ(cudnnCreateAlgorithmPerformance(perf.data(), 3), CUDNN_STATUS_SUCCESS);
  for (int i = 0; i < 3; ++i)
    ASSERT_EQ(cudnnSetAlgorithmPerformance(perf[i], a, cudnnStatus_t(i == 1 ? CUDNN_STATUS_NOT_SUPPORTED : 0),
                                           1.5f * i, size_t(100) * i),
              CUDNN_STATUS_SUCCESS);
  cudnnAlgorithmDescriptor_t got_desc = nullptr;
  cudnnStatus_t st = CUDNN_STATUS_INTERNAL_ERROR;
  float t = -1;
  size_t mem = 7;
  ASSERT_EQ(cudnnGetAlgorithmPerformance(perf[1], &got_desc, &st, &t, &mem), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(got_desc, a);
  EXPECT_EQ(st, CUDNN_STATUS_NOT_SUPPORTED);
  EXPECT_EQ(t, 1.5f);
  EXPECT_EQ(mem, 100u);
  ASSERT_EQ(cudnnGetAlgorithmPerformance(perf[2], nullptr, nullptr, &t, nullptr), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(t, 3.0f);

  EXPECT_FAILS_NAMING(cudnnCreateAlgorithmPerformance(perf.data(), 0), CUDNN_STATUS_BAD_PARAM,
                      "cudnnCreateAlgorithmPerformance", "numberToCreate");
  EXPECT_FAILS_NAMING(cudnnSetAlgorithmPerformance(perf[0], nullptr, CUDNN_STATUS_SUCCESS, 0, 0),
                      CUDNN_STATUS_BAD_PARAM, "cudnnSetAlgorithmPerformance", "algoDesc");
  EXPECT_EQ(cudnnDestroyAlgorithmPerformance(perf.data(), 3), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(perf[0], nullptr);
  EXPECT_EQ(cudnnDestroyAlgorithmDescriptor(a), CUDNN_STATUS_SUCCESS);
}

TEST(AlgorithmDescriptor, SaveAndRestore) {
  Handle h;
  cudnnAlgorithmDescriptor_t a = nullptr, b = nullptr;
  ASSERT_EQ(cudnnCreateAlgorithmDescriptor(&a), CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(cudnnCreateAlgorithmDescriptor(&b), CUDNN_STATUS_SUCCESS);
  cudnnAlgorithm_t rnn{};
  rnn.algo.RNNAlgo = CUDNN_RNN_ALGO_PERSIST_STATIC;
  ASSERT_EQ(cudnnSetAlgorithmDescriptor(a, rnn), CUDNN_STATUS_SUCCESS);

  size_t bytes = 0;
  ASSERT_EQ(cudnnGetAlgorithmSpaceSize(h.h, a, &bytes), CUDNN_STATUS_SUCCESS);
  ASSERT_GT(bytes, 0u);
  std::vector<unsigned char> space(bytes + 8, 0xAB);
  EXPECT_FAILS_NAMING(cudnnSaveAlgorithm(h.h, a, space.data(), bytes - 1), CUDNN_STATUS_BAD_PARAM,
                      "cudnnSaveAlgorithm", "algoSpaceSizeInBytes");
  ASSERT_EQ(cudnnSaveAlgorithm(h.h, a, space.data(), bytes), CUDNN_STATUS_SUCCESS);
  for (size_t i = bytes; i < space.size(); ++i) EXPECT_EQ(space[i], 0xAB) << "wrote past the saved size";

  ASSERT_EQ(cudnnRestoreAlgorithm(h.h, space.data(), bytes, b), CUDNN_STATUS_SUCCESS);
  cudnnAlgorithm_t got{};
  ASSERT_EQ(cudnnGetAlgorithmDescriptor(b, &got), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(got.algo.RNNAlgo, CUDNN_RNN_ALGO_PERSIST_STATIC);

  std::vector<unsigned char> junk(bytes, 0x11);
  EXPECT_FAILS_NAMING(cudnnRestoreAlgorithm(h.h, junk.data(), bytes, b), CUDNN_STATUS_BAD_PARAM,
                      "cudnnRestoreAlgorithm", "algoSpace");
  EXPECT_FAILS_NAMING(cudnnGetAlgorithmSpaceSize(nullptr, a, &bytes), CUDNN_STATUS_BAD_PARAM,
                      "cudnnGetAlgorithmSpaceSize", "handle");
  EXPECT_FAILS_NAMING(cudnnGetAlgorithmSpaceSize(h.h, a, nullptr), CUDNN_STATUS_BAD_PARAM,
                      "cudnnGetAlgorithmSpaceSize", "algoSpaceSizeInBytes");
  EXPECT_EQ(cudnnDestroyAlgorithmDescriptor(a), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnDestroyAlgorithmDescriptor(b), CUDNN_STATUS_SUCCESS);
}

}  // namespace
