// Batched matrix multiplication: the backend MATMUL operation.
#pragma once

#include <cudnn_graph.h>

#include <cstdint>
#include <iosfwd>

#include "graph/blend.hpp"
#include "graph/tensor.hpp"

namespace fdnn::graph {

// c[..., m, n] = sum_k a[..., m, k] * b[..., k, n]. The last two dims are the
// matrices; the leading (batch) dims of a and b broadcast to c's (an extent
// of 1 repeats). Row- or column-major storage is just a choice of strides.
struct MatmulOp {
  static constexpr const char *kKind = "matmul";
  cudnnDataType_t compute_type = CUDNN_DATA_FLOAT;
  Uid a = kNoTensor, b = kNoTensor, c = kNoTensor;
  Blend blend;
};

void describe(std::ostream &os, const MatmulOp &op, bool with_values);

}  // namespace fdnn::graph
