// Op-tensor, reduce-tensor and tensor-transform descriptors: accepted values
// (cuDNN 9's), round trips, and that a rejected Set changes nothing.
#include <cudnn.h>
#include <gtest/gtest.h>

#include "common/expect_status.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace {

constexpr int kSentinel = -7;

using fdnn_test::last_error;

// --- Op-tensor ---------------------------------------------------------------

struct OpValues {
  int op = kSentinel, type = kSentinel, nan = kSentinel;
  bool operator==(const OpValues &o) const { return op == o.op && type == o.type && nan == o.nan; }
};

OpValues get_op(cudnnOpTensorDescriptor_t d) {
  cudnnOpTensorOp_t op = cudnnOpTensorOp_t(kSentinel);
  cudnnDataType_t t = cudnnDataType_t(kSentinel);
  cudnnNanPropagation_t n = cudnnNanPropagation_t(kSentinel);
  EXPECT_EQ(cudnnGetOpTensorDescriptor(d, &op, &t, &n), CUDNN_STATUS_SUCCESS);
  return {int(op), int(t), int(n)};
}

TEST(OpTensorDescriptor, AcceptsExactlyCudnnsValues) {
  cudnnOpTensorDescriptor_t d = nullptr;
  ASSERT_EQ(cudnnCreateOpTensorDescriptor(&d), CUDNN_STATUS_SUCCESS);
  for (int op = -1; op <= 6; ++op)
    for (int t = -1; t <= 22; ++t)
      for (int nan = -1; nan <= 2; ++nan) {
        ASSERT_EQ(cudnnSetOpTensorDescriptor(d, CUDNN_OP_TENSOR_MAX, CUDNN_DATA_DOUBLE, CUDNN_PROPAGATE_NAN), 0);
        const bool ok = op >= 0 && op <= 5 && nan >= 0 && nan <= 1 &&
                        (t == CUDNN_DATA_FLOAT || t == CUDNN_DATA_DOUBLE || t == CUDNN_DATA_HALF ||
                         t == CUDNN_DATA_BFLOAT16);
        const cudnnStatus_t s =
            cudnnSetOpTensorDescriptor(d, cudnnOpTensorOp_t(op), cudnnDataType_t(t), cudnnNanPropagation_t(nan));
        EXPECT_EQ(s, ok ? CUDNN_STATUS_SUCCESS : CUDNN_STATUS_BAD_PARAM) << op << " " << t << " " << nan;
#ifndef FDNN_TEST_STATUS_ONLY
        if (!ok) EXPECT_NE(last_error().find("cudnnSetOpTensorDescriptor"), std::string::npos);
#endif
        const OpValues expect = ok ? OpValues{op, t, nan} : OpValues{CUDNN_OP_TENSOR_MAX, CUDNN_DATA_DOUBLE, 1};
        EXPECT_EQ(get_op(d), expect) << op << " " << t << " " << nan;
      }
  EXPECT_EQ(cudnnDestroyOpTensorDescriptor(d), CUDNN_STATUS_SUCCESS);
}

TEST(OpTensorDescriptor, MessagesNameTheArgument) {
  cudnnOpTensorDescriptor_t d = nullptr;
  ASSERT_EQ(cudnnCreateOpTensorDescriptor(&d), CUDNN_STATUS_SUCCESS);
  const char *fn = "cudnnSetOpTensorDescriptor";
  EXPECT_FAILS_NAMING(cudnnSetOpTensorDescriptor(d, cudnnOpTensorOp_t(6), CUDNN_DATA_FLOAT, CUDNN_PROPAGATE_NAN),
                      CUDNN_STATUS_BAD_PARAM, fn, "opTensorOp = 6");
  EXPECT_FAILS_NAMING(cudnnSetOpTensorDescriptor(d, CUDNN_OP_TENSOR_ADD, CUDNN_DATA_INT8, CUDNN_PROPAGATE_NAN),
                      CUDNN_STATUS_BAD_PARAM, fn, "opTensorCompType = 3");
  EXPECT_FAILS_NAMING(cudnnSetOpTensorDescriptor(d, CUDNN_OP_TENSOR_ADD, CUDNN_DATA_FLOAT, cudnnNanPropagation_t(2)),
                      CUDNN_STATUS_BAD_PARAM, fn, "opTensorNanOpt = 2");
  EXPECT_FAILS_NAMING(cudnnSetOpTensorDescriptor(nullptr, CUDNN_OP_TENSOR_ADD, CUDNN_DATA_FLOAT, CUDNN_PROPAGATE_NAN),
                      CUDNN_STATUS_BAD_PARAM, fn, "opTensorDesc");
  cudnnOpTensorOp_t op;
  cudnnDataType_t t;
  cudnnNanPropagation_t n;
  EXPECT_FAILS_NAMING(cudnnGetOpTensorDescriptor(d, nullptr, &t, &n), CUDNN_STATUS_BAD_PARAM,
                      "cudnnGetOpTensorDescriptor", "opTensorOp");
  EXPECT_FAILS_NAMING(cudnnGetOpTensorDescriptor(d, &op, nullptr, &n), CUDNN_STATUS_BAD_PARAM,
                      "cudnnGetOpTensorDescriptor", "opTensorCompType");
  EXPECT_FAILS_NAMING(cudnnGetOpTensorDescriptor(d, &op, &t, nullptr), CUDNN_STATUS_BAD_PARAM,
                      "cudnnGetOpTensorDescriptor", "opTensorNanOpt");
  EXPECT_FAILS_NAMING(cudnnCreateOpTensorDescriptor(nullptr), CUDNN_STATUS_BAD_PARAM, "cudnnCreateOpTensorDescriptor",
                      "opTensorDesc");
  EXPECT_EQ(cudnnDestroyOpTensorDescriptor(d), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnDestroyOpTensorDescriptor(nullptr), CUDNN_STATUS_SUCCESS);
}

// --- Reduce-tensor ---------------------------------------------------------------

TEST(ReduceTensorDescriptor, AcceptsExactlyCudnnsValues) {
  cudnnReduceTensorDescriptor_t d = nullptr;
  ASSERT_EQ(cudnnCreateReduceTensorDescriptor(&d), CUDNN_STATUS_SUCCESS);
  for (int op = -1; op <= 9; ++op)
    for (int t = -1; t <= 10; ++t)
      for (int nan = -1; nan <= 2; ++nan)
        for (int ix = -1; ix <= 2; ++ix)
          for (int it = -1; it <= 4; ++it) {
            ASSERT_EQ(cudnnSetReduceTensorDescriptor(d, CUDNN_REDUCE_TENSOR_MAX, CUDNN_DATA_DOUBLE, CUDNN_PROPAGATE_NAN,
                                                     CUDNN_REDUCE_TENSOR_FLATTENED_INDICES, CUDNN_64BIT_INDICES),
                      CUDNN_STATUS_SUCCESS);
            const bool ok = op >= 0 && op <= 8 && (t == 0 || t == 1 || t == 2) && nan >= 0 && nan <= 1 && ix >= 0 &&
                            ix <= 1 && it >= 0 && it <= 3;
            const cudnnStatus_t s = cudnnSetReduceTensorDescriptor(
                d, cudnnReduceTensorOp_t(op), cudnnDataType_t(t), cudnnNanPropagation_t(nan),
                cudnnReduceTensorIndices_t(ix), cudnnIndicesType_t(it));
            ASSERT_EQ(s, ok ? CUDNN_STATUS_SUCCESS : CUDNN_STATUS_BAD_PARAM) << op << t << nan << ix << it;
            cudnnReduceTensorOp_t o;
            cudnnDataType_t ct;
            cudnnNanPropagation_t np;
            cudnnReduceTensorIndices_t ri;
            cudnnIndicesType_t rt;
            ASSERT_EQ(cudnnGetReduceTensorDescriptor(d, &o, &ct, &np, &ri, &rt), CUDNN_STATUS_SUCCESS);
            const std::vector<int> got = {int(o), int(ct), int(np), int(ri), int(rt)};
            const std::vector<int> expect = ok ? std::vector<int>{op, t, nan, ix, it} : std::vector<int>{3, 1, 1, 1, 1};
            ASSERT_EQ(got, expect);
          }
  last_error();
  EXPECT_EQ(cudnnDestroyReduceTensorDescriptor(d), CUDNN_STATUS_SUCCESS);
}

TEST(ReduceTensorDescriptor, MessagesNameTheArgument) {
  cudnnReduceTensorDescriptor_t d = nullptr;
  ASSERT_EQ(cudnnCreateReduceTensorDescriptor(&d), CUDNN_STATUS_SUCCESS);
  const char *fn = "cudnnSetReduceTensorDescriptor";
  EXPECT_FAILS_NAMING(cudnnSetReduceTensorDescriptor(d, cudnnReduceTensorOp_t(9), CUDNN_DATA_FLOAT, CUDNN_PROPAGATE_NAN,
                                                     CUDNN_REDUCE_TENSOR_NO_INDICES, CUDNN_32BIT_INDICES),
                      CUDNN_STATUS_BAD_PARAM, fn, "reduceTensorOp = 9");
  EXPECT_FAILS_NAMING(cudnnSetReduceTensorDescriptor(d, CUDNN_REDUCE_TENSOR_ADD, CUDNN_DATA_BFLOAT16,
                                                     CUDNN_PROPAGATE_NAN, CUDNN_REDUCE_TENSOR_NO_INDICES,
                                                     CUDNN_32BIT_INDICES),
                      CUDNN_STATUS_BAD_PARAM, fn, "reduceTensorCompType = 9");
  EXPECT_FAILS_NAMING(cudnnSetReduceTensorDescriptor(d, CUDNN_REDUCE_TENSOR_ADD, CUDNN_DATA_FLOAT, CUDNN_PROPAGATE_NAN,
                                                     cudnnReduceTensorIndices_t(2), CUDNN_32BIT_INDICES),
                      CUDNN_STATUS_BAD_PARAM, fn, "reduceTensorIndices = 2");
  EXPECT_FAILS_NAMING(cudnnSetReduceTensorDescriptor(d, CUDNN_REDUCE_TENSOR_ADD, CUDNN_DATA_FLOAT, CUDNN_PROPAGATE_NAN,
                                                     CUDNN_REDUCE_TENSOR_NO_INDICES, cudnnIndicesType_t(4)),
                      CUDNN_STATUS_BAD_PARAM, fn, "reduceTensorIndicesType = 4");
  cudnnReduceTensorOp_t o;
  cudnnDataType_t ct;
  cudnnNanPropagation_t np;
  cudnnReduceTensorIndices_t ri;
  EXPECT_FAILS_NAMING(cudnnGetReduceTensorDescriptor(d, &o, &ct, &np, &ri, nullptr), CUDNN_STATUS_BAD_PARAM,
                      "cudnnGetReduceTensorDescriptor", "reduceTensorIndicesType");
  EXPECT_FAILS_NAMING(cudnnGetReduceTensorDescriptor(nullptr, &o, &ct, &np, &ri, nullptr), CUDNN_STATUS_BAD_PARAM,
                      "cudnnGetReduceTensorDescriptor", "reduceTensorDesc");
  EXPECT_EQ(cudnnDestroyReduceTensorDescriptor(d), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnDestroyReduceTensorDescriptor(nullptr), CUDNN_STATUS_SUCCESS);
}

// --- Tensor transform -----------------------------------------------------------

struct TransformValues {
  cudnnStatus_t status;
  int format = kSentinel, direction = kSentinel;
  std::vector<int32_t> before = std::vector<int32_t>(8, kSentinel), after = std::vector<int32_t>(8, kSentinel);
  std::vector<uint32_t> fold = std::vector<uint32_t>(8, 77);
};

TransformValues get_transform(cudnnTensorTransformDescriptor_t d, uint32_t requested) {
  TransformValues r;
  cudnnTensorFormat_t f = cudnnTensorFormat_t(kSentinel);
  cudnnFoldingDirection_t dir = cudnnFoldingDirection_t(kSentinel);
  r.status = cudnnGetTensorTransformDescriptor(d, requested, &f, r.before.data(), r.after.data(), r.fold.data(), &dir);
  r.format = int(f);
  r.direction = int(dir);
  return r;
}

TEST(TensorTransformDescriptor, RoundTripAndRequestedCounts) {
  cudnnTensorTransformDescriptor_t d = nullptr;
  ASSERT_EQ(cudnnCreateTensorTransformDescriptor(&d), CUDNN_STATUS_SUCCESS);
  // Never set: zeros.
  TransformValues v = get_transform(d, 8);
  EXPECT_EQ(v.status, CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(v.format, 0);
  EXPECT_EQ(v.direction, 0);
  EXPECT_EQ(v.before, std::vector<int32_t>(8, 0));
  const int32_t before[8] = {1, 2, 3, 4, 5, 6, 7, 8}, after[8] = {0, 1, 0, 2, 0, 3, 0, 4};
  const uint32_t fold[8] = {1, 2, 1, 3, 1, 1, 1, 1};
  ASSERT_EQ(cudnnSetTensorTransformDescriptor(d, 4, CUDNN_TENSOR_NHWC, before, after, fold, CUDNN_TRANSFORM_UNFOLD),
            CUDNN_STATUS_SUCCESS);
  for (uint32_t req = 3; req <= 8; ++req) {
    v = get_transform(d, req);
    ASSERT_EQ(v.status, CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(v.format, CUDNN_TENSOR_NHWC);
    EXPECT_EQ(v.direction, CUDNN_TRANSFORM_UNFOLD);
    for (uint32_t i = 0; i < 8; ++i) {
      // nbDimsRequested entries are copied, also past the 4 that were set
      // (those are still zero); folds exist for spatial dims only.
      EXPECT_EQ(v.before[i], i >= req ? kSentinel : i < 4 ? before[i] : 0) << req << " " << i;
      EXPECT_EQ(v.after[i], i >= req ? kSentinel : i < 4 ? after[i] : 0) << req << " " << i;
      EXPECT_EQ(v.fold[i], i + 2 >= req ? 77u : i < 2 ? fold[i] : 0u) << req << " " << i;
    }
  }
  for (uint32_t req : {0u, 1u, 2u, 9u, 1000u})
    EXPECT_FAILS_NAMING(get_transform(d, req).status, CUDNN_STATUS_BAD_PARAM, "cudnnGetTensorTransformDescriptor",
                        "nbDimsRequested");
  // Every out-pointer is optional.
  cudnnFoldingDirection_t dir = cudnnFoldingDirection_t(kSentinel);
  EXPECT_EQ(cudnnGetTensorTransformDescriptor(d, 4, nullptr, nullptr, nullptr, nullptr, &dir), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(dir, CUDNN_TRANSFORM_UNFOLD);
  EXPECT_EQ(cudnnGetTensorTransformDescriptor(d, 4, nullptr, nullptr, nullptr, nullptr, nullptr), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnDestroyTensorTransformDescriptor(d), CUDNN_STATUS_SUCCESS);
}

TEST(TensorTransformDescriptor, SetRules) {
  cudnnTensorTransformDescriptor_t d = nullptr;
  ASSERT_EQ(cudnnCreateTensorTransformDescriptor(&d), CUDNN_STATUS_SUCCESS);
  const int32_t pads[8] = {9, 9, 9, 9, 9, 9, 9, 9};
  const uint32_t folds[8] = {7, 7, 7, 7, 7, 7, 7, 7};
  ASSERT_EQ(cudnnSetTensorTransformDescriptor(d, 8, CUDNN_TENSOR_NCHW, pads, pads, folds, CUDNN_TRANSFORM_FOLD), 0);
  const char *fn = "cudnnSetTensorTransformDescriptor";
  EXPECT_FAILS_NAMING(cudnnSetTensorTransformDescriptor(d, 1, CUDNN_TENSOR_NCHW, pads, pads, folds,
                                                        CUDNN_TRANSFORM_FOLD),
                      CUDNN_STATUS_BAD_PARAM, fn, "nbDims = 1");
  EXPECT_FAILS_NAMING(cudnnSetTensorTransformDescriptor(d, 9, CUDNN_TENSOR_NCHW, pads, pads, folds,
                                                        CUDNN_TRANSFORM_FOLD),
                      CUDNN_STATUS_NOT_SUPPORTED, fn, "nbDims = 9");
  EXPECT_FAILS_NAMING(cudnnSetTensorTransformDescriptor(d, 4, cudnnTensorFormat_t(3), pads, pads, folds,
                                                        CUDNN_TRANSFORM_FOLD),
                      CUDNN_STATUS_NOT_SUPPORTED, fn, "destFormat = 3");
  EXPECT_FAILS_NAMING(cudnnSetTensorTransformDescriptor(nullptr, 4, CUDNN_TENSOR_NCHW, pads, pads, folds,
                                                        CUDNN_TRANSFORM_FOLD),
                      CUDNN_STATUS_BAD_PARAM, fn, "transformDesc");
  // Rank 2 is accepted (no folds); a NULL array keeps the previous values;
  // any direction other than FOLD is stored as UNFOLD.
  const int32_t zero[8] = {0};
  EXPECT_EQ(cudnnSetTensorTransformDescriptor(d, 2, CUDNN_TENSOR_NCHW, zero, nullptr, nullptr,
                                              cudnnFoldingDirection_t(7)),
            CUDNN_STATUS_SUCCESS);
  TransformValues v = get_transform(d, 8);
  EXPECT_EQ(v.direction, CUDNN_TRANSFORM_UNFOLD);
  EXPECT_EQ(v.before, (std::vector<int32_t>{0, 0, 9, 9, 9, 9, 9, 9}));
  EXPECT_EQ(v.after, std::vector<int32_t>(8, 9));
  EXPECT_EQ(v.fold, (std::vector<uint32_t>{7, 7, 7, 7, 7, 7, 77, 77}));
  EXPECT_EQ(cudnnDestroyTensorTransformDescriptor(d), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnDestroyTensorTransformDescriptor(nullptr), CUDNN_STATUS_SUCCESS);
  EXPECT_FAILS_NAMING(cudnnCreateTensorTransformDescriptor(nullptr), CUDNN_STATUS_BAD_PARAM,
                      "cudnnCreateTensorTransformDescriptor", "transformDesc");
}

}  // namespace
