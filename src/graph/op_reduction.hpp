// Reductions: cudnnReduceTensor and the backend reduction operation.
#pragma once

#include <cudnn_graph.h>

#include <cstdint>
#include <iosfwd>
#include <vector>

#include "graph/blend.hpp"
#include "graph/tensor.hpp"

namespace fdnn::graph {

// Reduces x to y's dims (every dimension where y has extent 1 and x does not
// is reduced). Optional indices (legacy MIN/MAX/AMAX) are int32 flat indices
// within the reduced slice, as cuDNN defines them.
struct ReductionOp {
  static constexpr const char *kKind = "reduction";
  cudnnReduceTensorOp_t mode = CUDNN_REDUCE_TENSOR_ADD;
  cudnnDataType_t compute_type = CUDNN_DATA_FLOAT;
  cudnnNanPropagation_t nan_propagation = CUDNN_NOT_PROPAGATE_NAN;
  Uid x = kNoTensor, y = kNoTensor, indices = kNoTensor;
  Blend blend;
};

// One op in the graph's text forms (structural key and verbose lines).
void describe(std::ostream &os, const ReductionOp &op, bool with_values);

}  // namespace fdnn::graph
