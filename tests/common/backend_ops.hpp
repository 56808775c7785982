// Helpers for the backend API tests of reshape, concat, RNG, signal and the
// batch-norm weight / finalize operations: tensor descriptors of any type,
// strides and flags, and a heuristics query that only counts engines.
#pragma once

#include <cudnn.h>
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "common/backend_graph.hpp"

namespace fdnn_test {

inline std::unique_ptr<Desc> tensor_desc(int64_t uid, cudnnDataType_t dtype, const std::vector<int64_t> &dims,
                                         const std::vector<int64_t> &strides, bool is_virtual = false,
                                         bool by_value = false) {
  auto t = std::make_unique<Desc>(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
  const int64_t align = dtype == CUDNN_DATA_DOUBLE || dtype == CUDNN_DATA_INT64 ? 8 : 4;
  EXPECT_EQ(t->set1(CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, uid), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(t->set1(CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, dtype), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(t->set1(CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64,
                    dtype == CUDNN_DATA_INT8 || dtype == CUDNN_DATA_UINT8 || dtype == CUDNN_DATA_BOOLEAN ? int64_t{1}
                    : dtype == CUDNN_DATA_HALF || dtype == CUDNN_DATA_BFLOAT16                            ? int64_t{2}
                                                                                                          : align),
            CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(t->set(CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, dims), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(t->set(CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, strides), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(t->set1(CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, is_virtual), CUDNN_STATUS_SUCCESS);
  if (by_value) {
    EXPECT_EQ(t->set1(CUDNN_ATTR_TENSOR_IS_BY_VALUE, CUDNN_TYPE_BOOLEAN, true), CUDNN_STATUS_SUCCESS);
  }
  EXPECT_EQ(t->finalize(), CUDNN_STATUS_SUCCESS);
  return t;
}

// A finalized convolution descriptor (float compute): pre and post paddings
// `pad`, filter strides and dilations, one entry per spatial dim.
inline std::unique_ptr<Desc> convolution_desc(const std::vector<int64_t> &pad, const std::vector<int64_t> &stride,
                                              const std::vector<int64_t> &dilation,
                                              cudnnConvolutionMode_t mode = CUDNN_CROSS_CORRELATION) {
  auto cd = std::make_unique<Desc>(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR);
  EXPECT_EQ(cd->set1(CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT64, static_cast<int64_t>(pad.size())),
            CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cd->set1(CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, CUDNN_DATA_FLOAT), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cd->set1(CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, mode), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cd->set(CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, CUDNN_TYPE_INT64, pad), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cd->set(CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, CUDNN_TYPE_INT64, pad), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cd->set(CUDNN_ATTR_CONVOLUTION_DILATIONS, CUDNN_TYPE_INT64, dilation), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cd->set(CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, CUDNN_TYPE_INT64, stride), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cd->finalize(), CUDNN_STATUS_SUCCESS);
  return cd;
}

// How many engine configs heuristics mode A offers for the graph of `ops`
// (-1 when the graph does not finalize).
inline int64_t engine_count(cudnnHandle_t handle, const std::vector<Desc *> &ops) {
  cudnnStatus_t finalized = CUDNN_STATUS_SUCCESS;
  const std::unique_ptr<Desc> graph = operation_graph(handle, ops, &finalized);
  if (finalized != CUDNN_STATUS_SUCCESS) return -1;
  return static_cast<int64_t>(engine_configs(*graph).size());
}

}  // namespace fdnn_test
