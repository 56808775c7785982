// Bad inputs of the batch-norm and generic normalization entry points: each
// gets cuDNN's status and a message naming the function and the argument.
// (Rules that need a handle are compared with NVIDIA's on the GPU machine:
// tests/oracle_gpu/normalization_gpu.c.)
#include <cudnn.h>
#include <gtest/gtest.h>

#include <vector>

#include "common/buffer.hpp"
#include "common/expect_status.hpp"

using namespace fdnn_test;

namespace {

struct Fixture {
  cudnnHandle_t h = nullptr;
  cudnnTensorDescriptor_t x = nullptr, bn = nullptr, bad_bn = nullptr, x3 = nullptr, y_other = nullptr, xh = nullptr;
  cudnnActivationDescriptor_t act = nullptr, sig = nullptr;
  Buffer data{4096}, params{4096}, reserve{4096};
  float one = 1, zero = 0;
  Fixture() {
    EXPECT_EQ(cudnnCreate(&h), CUDNN_STATUS_SUCCESS);
    for (auto *d : {&x, &bn, &bad_bn, &x3, &y_other, &xh}) EXPECT_EQ(cudnnCreateTensorDescriptor(d), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(cudnnSetTensor4dDescriptor(x, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 2, 3, 4, 5), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(cudnnSetTensor4dDescriptor(xh, CUDNN_TENSOR_NHWC, CUDNN_DATA_HALF, 2, 3, 4, 5), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(cudnnSetTensor4dDescriptor(y_other, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 2, 3, 4, 6), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(cudnnDeriveBNTensorDescriptor(bn, x, CUDNN_BATCHNORM_SPATIAL), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(cudnnSetTensor4dDescriptor(bad_bn, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 4, 1, 1), CUDNN_STATUS_SUCCESS);
    const int d3[3] = {2, 3, 4}, s3[3] = {12, 4, 1};
    EXPECT_EQ(cudnnSetTensorNdDescriptor(x3, CUDNN_DATA_FLOAT, 3, d3, s3), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(cudnnCreateActivationDescriptor(&act), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(cudnnSetActivationDescriptor(act, CUDNN_ACTIVATION_RELU, CUDNN_PROPAGATE_NAN, 0), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(cudnnCreateActivationDescriptor(&sig), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(cudnnSetActivationDescriptor(sig, CUDNN_ACTIVATION_SIGMOID, CUDNN_PROPAGATE_NAN, 0), CUDNN_STATUS_SUCCESS);
  }
  ~Fixture() {
    for (auto d : {x, bn, bad_bn, x3, y_other, xh}) cudnnDestroyTensorDescriptor(d);
    cudnnDestroyActivationDescriptor(act);
    cudnnDestroyActivationDescriptor(sig);
    cudnnDestroy(h);
  }
  void *d() const { return data.get(); }
  void *p() const { return params.get(); }
  cudnnStatus_t inference(cudnnBatchNormMode_t mode, cudnnTensorDescriptor_t xd, cudnnTensorDescriptor_t yd,
                          cudnnTensorDescriptor_t bd, double eps, const void *mean = reinterpret_cast<void *>(1)) {
    return cudnnBatchNormalizationForwardInference(h, mode, &one, &zero, xd, d(), yd, d(), bd, p(), p(),
                                                   mean ? p() : nullptr, p(), eps);
  }
  cudnnStatus_t training(cudnnTensorDescriptor_t xd, cudnnTensorDescriptor_t bd, double eps, void *rm, void *rv,
                         void *sm, void *si) {
    return cudnnBatchNormalizationForwardTraining(h, CUDNN_BATCHNORM_SPATIAL, &one, &zero, xd, d(), xd, d(), bd, p(),
                                                  p(), 0.1, rm, rv, eps, sm, si);
  }
  cudnnStatus_t backward(cudnnTensorDescriptor_t dxd, cudnnTensorDescriptor_t bd, double eps, const void *sm,
                         const void *si) {
    return cudnnBatchNormalizationBackward(h, CUDNN_BATCHNORM_SPATIAL, &one, &zero, &one, &zero, x, d(), x, d(), dxd,
                                           d(), bd, p(), p(), p(), eps, sm, si);
  }
};

}  // namespace

TEST(BatchNormBadInput, ForwardInference) {
  Fixture f;
  const char *fn = "cudnnBatchNormalizationForwardInference";
  EXPECT_EQ(f.inference(CUDNN_BATCHNORM_SPATIAL, f.x, f.x, f.bn, 1e-5), CUDNN_STATUS_SUCCESS);
  EXPECT_FAILS_NAMING(f.inference(static_cast<cudnnBatchNormMode_t>(3), f.x, f.x, f.bn, 1e-5), CUDNN_STATUS_BAD_PARAM, fn, "mode");
  EXPECT_FAILS_NAMING(f.inference(CUDNN_BATCHNORM_SPATIAL, f.x, f.x, f.bn, -1e-5), CUDNN_STATUS_BAD_PARAM, fn, "epsilon");
  EXPECT_FAILS_NAMING(f.inference(CUDNN_BATCHNORM_SPATIAL, f.x, f.y_other, f.bn, 1e-5), CUDNN_STATUS_BAD_PARAM, fn, "yDesc");
  EXPECT_FAILS_NAMING(f.inference(CUDNN_BATCHNORM_SPATIAL, f.x, f.x, f.bad_bn, 1e-5), CUDNN_STATUS_BAD_PARAM, fn, "bnScaleBiasMeanVarDesc");
  EXPECT_FAILS_NAMING(f.inference(CUDNN_BATCHNORM_PER_ACTIVATION, f.x, f.x, f.bn, 1e-5), CUDNN_STATUS_BAD_PARAM, fn, "1xCxHxW");
  EXPECT_FAILS_NAMING(f.inference(CUDNN_BATCHNORM_SPATIAL, f.x3, f.x3, f.bn, 1e-5), CUDNN_STATUS_BAD_PARAM, fn, "dimensions");
  EXPECT_FAILS_NAMING(f.inference(CUDNN_BATCHNORM_SPATIAL, f.x, f.xh, f.bn, 1e-5), CUDNN_STATUS_BAD_PARAM, fn, "yDesc");
  EXPECT_FAILS_NAMING(f.inference(CUDNN_BATCHNORM_SPATIAL, f.x, f.x, f.bn, 1e-5, nullptr), CUDNN_STATUS_BAD_PARAM, fn, "estimatedMean");
  EXPECT_FAILS_NAMING(f.inference(CUDNN_BATCHNORM_SPATIAL, f.x, f.x, nullptr, 1e-5), CUDNN_STATUS_BAD_PARAM, fn, "bnScaleBiasMeanVarDesc");
  EXPECT_FAILS_NAMING(cudnnBatchNormalizationForwardInference(nullptr, CUDNN_BATCHNORM_SPATIAL, &f.one, &f.zero, f.x, f.d(), f.x, f.d(), f.bn, f.p(), f.p(), f.p(), f.p(), 1e-5),
                      CUDNN_STATUS_BAD_PARAM, fn, "handle");
}

TEST(BatchNormBadInput, ForwardTraining) {
  Fixture f;
  const char *fn = "cudnnBatchNormalizationForwardTraining";
  void *p = f.p();
  EXPECT_EQ(f.training(f.x, f.bn, 1e-5, p, p, nullptr, nullptr), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(f.training(f.x, f.bn, 1e-5, nullptr, nullptr, nullptr, nullptr), CUDNN_STATUS_SUCCESS);
  // cuDNN 9.19 updates the one running statistic it is given.
  EXPECT_EQ(f.training(f.x, f.bn, 1e-5, p, nullptr, nullptr, nullptr), CUDNN_STATUS_SUCCESS);
  EXPECT_FAILS_NAMING(f.training(f.x, f.bn, 1e-5, nullptr, nullptr, nullptr, p), CUDNN_STATUS_BAD_PARAM, fn, "saveMean");
  EXPECT_FAILS_NAMING(f.training(f.x, f.bn, -1, p, p, p, p), CUDNN_STATUS_BAD_PARAM, fn, "epsilon");
  EXPECT_FAILS_NAMING(f.training(f.x, f.bad_bn, 1e-5, p, p, p, p), CUDNN_STATUS_BAD_PARAM, fn, "dim 1");
  EXPECT_FAILS_NAMING(f.training(f.x3, f.bn, 1e-5, p, p, p, p), CUDNN_STATUS_BAD_PARAM, fn, "xDesc");
}

TEST(BatchNormBadInput, Backward) {
  Fixture f;
  const char *fn = "cudnnBatchNormalizationBackward";
  void *p = f.p();
  EXPECT_EQ(f.backward(f.x, f.bn, 1e-5, p, p), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(f.backward(f.x, f.bn, 1e-5, nullptr, nullptr), CUDNN_STATUS_SUCCESS);
  EXPECT_FAILS_NAMING(f.backward(f.x, f.bn, 1e-5, p, nullptr), CUDNN_STATUS_BAD_PARAM, fn, "savedInvVariance");
  EXPECT_FAILS_NAMING(f.backward(f.y_other, f.bn, 1e-5, p, p), CUDNN_STATUS_BAD_PARAM, fn, "dxDesc");
  EXPECT_FAILS_NAMING(f.backward(f.x, f.bad_bn, 1e-5, p, p), CUDNN_STATUS_BAD_PARAM, fn, "dBnScaleBiasDesc");
  EXPECT_FAILS_NAMING(f.backward(f.x, f.bn, -0.5, p, p), CUDNN_STATUS_BAD_PARAM, fn, "epsilon");
  EXPECT_FAILS_NAMING(cudnnBatchNormalizationBackward(f.h, CUDNN_BATCHNORM_SPATIAL, nullptr, &f.zero, &f.one, &f.zero, f.x, f.d(), f.x, f.d(), f.x, f.d(), f.bn, p, p, p, 1e-5, nullptr, nullptr),
                      CUDNN_STATUS_BAD_PARAM, fn, "alphaDataDiff");
}

TEST(BatchNormBadInput, ExVariantsAndSizeQueries) {
  Fixture f;
  void *p = f.p();
  size_t size = 0;
  const char *fn = "cudnnBatchNormalizationForwardTrainingEx";
  // The activation needs reserve space: none, or too little, is BAD_PARAM.
  EXPECT_EQ(cudnnGetBatchNormalizationTrainingExReserveSpaceSize(f.h, CUDNN_BATCHNORM_SPATIAL_PERSISTENT, CUDNN_BATCHNORM_OPS_BN_ACTIVATION, f.act, f.x, &size),
            CUDNN_STATUS_SUCCESS);
  EXPECT_GE(size, 120u);
  EXPECT_FAILS_NAMING(cudnnBatchNormalizationForwardTrainingEx(f.h, CUDNN_BATCHNORM_SPATIAL_PERSISTENT, CUDNN_BATCHNORM_OPS_BN_ACTIVATION, &f.one, &f.zero, f.x, f.d(), nullptr, nullptr, f.x, f.d(), f.bn, p, p, 0.1, nullptr, nullptr, 1e-5, nullptr, nullptr, f.act, nullptr, 0, f.reserve.get(), size - 1),
                      CUDNN_STATUS_BAD_PARAM, fn, "reserveSpaceSizeInBytes");
  EXPECT_FAILS_NAMING(cudnnBatchNormalizationForwardTrainingEx(f.h, CUDNN_BATCHNORM_SPATIAL_PERSISTENT, static_cast<cudnnBatchNormOps_t>(3), &f.one, &f.zero, f.x, f.d(), nullptr, nullptr, f.x, f.d(), f.bn, p, p, 0.1, nullptr, nullptr, 1e-5, nullptr, nullptr, f.act, nullptr, 0, f.reserve.get(), size),
                      CUDNN_STATUS_BAD_PARAM, fn, "bnOps");
  EXPECT_FAILS_NAMING(cudnnBatchNormalizationForwardTrainingEx(f.h, CUDNN_BATCHNORM_SPATIAL_PERSISTENT, CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION, &f.one, &f.zero, f.x, f.d(), nullptr, nullptr, f.x, f.d(), f.bn, p, p, 0.1, nullptr, nullptr, 1e-5, nullptr, nullptr, f.act, nullptr, 0, f.reserve.get(), size),
                      CUDNN_STATUS_BAD_PARAM, fn, "zDesc");
  EXPECT_FAILS_NAMING(cudnnBatchNormalizationForwardTrainingEx(f.h, CUDNN_BATCHNORM_SPATIAL_PERSISTENT, CUDNN_BATCHNORM_OPS_BN_ACTIVATION, &f.one, &f.zero, f.x, f.d(), nullptr, nullptr, f.x, f.d(), f.bn, p, p, 0.1, nullptr, nullptr, 1e-5, nullptr, nullptr, nullptr, nullptr, 0, f.reserve.get(), size),
                      CUDNN_STATUS_BAD_PARAM, fn, "activationDesc");
  EXPECT_FAILS_NAMING(cudnnBatchNormalizationForwardTrainingEx(f.h, CUDNN_BATCHNORM_SPATIAL_PERSISTENT, CUDNN_BATCHNORM_OPS_BN_ACTIVATION, &f.one, &f.zero, f.x, f.d(), nullptr, nullptr, f.x, f.d(), f.bn, p, p, 0.1, nullptr, nullptr, 1e-5, nullptr, nullptr, f.sig, nullptr, 0, f.reserve.get(), size),
                      CUDNN_STATUS_NOT_SUPPORTED, fn, "activation");
  EXPECT_FAILS_NAMING(cudnnBatchNormalizationBackwardEx(f.h, CUDNN_BATCHNORM_SPATIAL, CUDNN_BATCHNORM_OPS_BN_ACTIVATION, &f.one, &f.zero, &f.one, &f.zero, f.x, f.d(), f.x, f.d(), f.x, f.d(), nullptr, nullptr, f.x, f.d(), f.bn, p, p, p, p, 1e-5, p, p, f.act, nullptr, 0, nullptr, 0),
                      CUDNN_STATUS_BAD_PARAM, "cudnnBatchNormalizationBackwardEx", "reserveSpace");
  EXPECT_FAILS_NAMING(cudnnGetBatchNormalizationForwardTrainingExWorkspaceSize(f.h, CUDNN_BATCHNORM_SPATIAL, CUDNN_BATCHNORM_OPS_BN, f.x, nullptr, f.x, f.bn, nullptr, nullptr),
                      CUDNN_STATUS_BAD_PARAM, "cudnnGetBatchNormalizationForwardTrainingExWorkspaceSize", "sizeInBytes");
  EXPECT_FAILS_NAMING(cudnnGetBatchNormalizationBackwardExWorkspaceSize(f.h, CUDNN_BATCHNORM_SPATIAL, CUDNN_BATCHNORM_OPS_BN, f.x, nullptr, f.x, nullptr, f.y_other, f.bn, nullptr, &size),
                      CUDNN_STATUS_BAD_PARAM, "cudnnGetBatchNormalizationBackwardExWorkspaceSize", "dxDesc");
  EXPECT_FAILS_NAMING(cudnnGetBatchNormalizationTrainingExReserveSpaceSize(f.h, static_cast<cudnnBatchNormMode_t>(7), CUDNN_BATCHNORM_OPS_BN, nullptr, f.x, &size),
                      CUDNN_STATUS_BAD_PARAM, "cudnnGetBatchNormalizationTrainingExReserveSpaceSize", "mode");
  EXPECT_EQ(cudnnGetBatchNormalizationTrainingExReserveSpaceSize(f.h, CUDNN_BATCHNORM_SPATIAL, CUDNN_BATCHNORM_OPS_BN, nullptr, f.x, &size), CUDNN_STATUS_SUCCESS);
}

TEST(NormalizationBadInput, GenericApi) {
  Fixture f;
  void *p = f.p();
  size_t size = 0;
  const char *inf = "cudnnNormalizationForwardInference";
  auto inference = [&](cudnnNormMode_t mode, int ops, int algo, int groups, double eps) {
    return cudnnNormalizationForwardInference(f.h, mode, static_cast<cudnnNormOps_t>(ops), static_cast<cudnnNormAlgo_t>(algo), &f.one, &f.zero, f.x, f.d(), f.bn, p, p, f.bn, p, p, nullptr, nullptr, f.act, f.x, f.d(), eps, groups);
  };
  EXPECT_EQ(inference(CUDNN_NORM_PER_CHANNEL, 0, 0, 1, 1e-5), CUDNN_STATUS_SUCCESS);
  EXPECT_FAILS_NAMING(inference(static_cast<cudnnNormMode_t>(2), 0, 0, 1, 1e-5), CUDNN_STATUS_NOT_SUPPORTED, inf, "mode");
  EXPECT_FAILS_NAMING(inference(CUDNN_NORM_PER_CHANNEL, 5, 0, 1, 1e-5), CUDNN_STATUS_BAD_PARAM, inf, "normOps");
  EXPECT_FAILS_NAMING(inference(CUDNN_NORM_PER_CHANNEL, 0, 2, 1, 1e-5), CUDNN_STATUS_NOT_SUPPORTED, inf, "algo");
  EXPECT_FAILS_NAMING(inference(CUDNN_NORM_PER_CHANNEL, 0, 0, 2, 1e-5), CUDNN_STATUS_NOT_SUPPORTED, inf, "groupCnt");
  EXPECT_FAILS_NAMING(inference(CUDNN_NORM_PER_CHANNEL, 0, 0, 0, 1e-5), CUDNN_STATUS_NOT_SUPPORTED, inf, "groupCnt");
  EXPECT_FAILS_NAMING(inference(CUDNN_NORM_PER_CHANNEL, 0, 0, 1, -1), CUDNN_STATUS_BAD_PARAM, inf, "epsilon");
  EXPECT_FAILS_NAMING(inference(CUDNN_NORM_PER_CHANNEL, 2, 0, 1, 1e-5), CUDNN_STATUS_BAD_PARAM, inf, "zDesc");
  EXPECT_FAILS_NAMING(cudnnNormalizationForwardTraining(f.h, CUDNN_NORM_PER_CHANNEL, CUDNN_NORM_OPS_NORM, CUDNN_NORM_ALGO_STANDARD, &f.one, &f.zero, f.x, f.d(), f.bn, p, p, 0.1, f.bad_bn, p, p, 1e-5, p, p, nullptr, nullptr, nullptr, f.x, f.d(), nullptr, 0, nullptr, 0, 1),
                      CUDNN_STATUS_BAD_PARAM, "cudnnNormalizationForwardTraining", "normMeanVarDesc");
  EXPECT_FAILS_NAMING(cudnnNormalizationBackward(f.h, CUDNN_NORM_PER_CHANNEL, CUDNN_NORM_OPS_NORM, CUDNN_NORM_ALGO_STANDARD, &f.one, &f.zero, &f.one, &f.zero, f.x, f.d(), nullptr, nullptr, f.x, f.d(), nullptr, nullptr, f.x, f.d(), f.bn, p, p, p, nullptr, 1e-5, f.bn, p, p, nullptr, nullptr, 0, nullptr, 0, 1),
                      CUDNN_STATUS_BAD_PARAM, "cudnnNormalizationBackward", "dNormBiasData");
  EXPECT_FAILS_NAMING(cudnnGetNormalizationTrainingReserveSpaceSize(f.h, CUDNN_NORM_PER_CHANNEL, CUDNN_NORM_OPS_NORM, CUDNN_NORM_ALGO_STANDARD, nullptr, f.x, &size, 3),
                      CUDNN_STATUS_NOT_SUPPORTED, "cudnnGetNormalizationTrainingReserveSpaceSize", "groupCnt");
  EXPECT_FAILS_NAMING(cudnnGetNormalizationForwardTrainingWorkspaceSize(f.h, CUDNN_NORM_PER_CHANNEL, CUDNN_NORM_OPS_NORM, CUDNN_NORM_ALGO_STANDARD, f.x, nullptr, f.y_other, f.bn, nullptr, f.bn, &size, 1),
                      CUDNN_STATUS_BAD_PARAM, "cudnnGetNormalizationForwardTrainingWorkspaceSize", "yDesc");
  EXPECT_FAILS_NAMING(cudnnGetNormalizationBackwardWorkspaceSize(f.h, CUDNN_NORM_PER_CHANNEL, CUDNN_NORM_OPS_NORM, CUDNN_NORM_ALGO_STANDARD, f.x, nullptr, f.x, nullptr, f.x, f.bad_bn, nullptr, f.bn, &size, 1),
                      CUDNN_STATUS_BAD_PARAM, "cudnnGetNormalizationBackwardWorkspaceSize", "dNormScaleBiasDesc");
}
