// What the CPU pointwise engines (fast and reference) share: which graphs are
// a single pointwise operation they can run, its operands in a fixed order,
// broadcasting, and the mode parameters in the compute type.
#pragma once

#include <cstdint>
#include <vector>

#include "core/engine.hpp"
#include "core/op_support.hpp"
#include "core/pointwise_math.hpp"
#include "graph/graph.hpp"

namespace fdnn::cpu {

// y first, then the data inputs the mode reads: x, b (binary), t (select).
struct PointwiseOperands {
  int count = 0;
  graph::Uid uid[4] = {graph::kNoTensor, graph::kNoTensor, graph::kNoTensor, graph::kNoTensor};
  cudnnDataType_t dtype[4] = {};
  bool by_value[4] = {};
};

// Operands of the single pointwise op of g (after check_single_pointwise).
PointwiseOperands pointwise_operands(const graph::Graph &g);

// An input's strides as seen from y's dims: 0 where the input broadcasts
// (extent 1 against a larger y extent) and everywhere for by-value scalars.
std::vector<int64_t> broadcast_strides(const graph::Tensor &t, const graph::Tensor &y);

template <class C>
pw::Params<C> make_params(const graph::PointwiseOp &op) {
  pw::Params<C> p;
  p.relu_lower_clip = static_cast<C>(op.relu_lower_clip);
  p.relu_upper_clip = static_cast<C>(op.relu_upper_clip);
  p.relu_lower_clip_slope = static_cast<C>(op.relu_lower_clip_slope);
  p.elu_alpha = static_cast<C>(op.elu_alpha);
  p.softplus_beta = static_cast<C>(op.softplus_beta);
  p.swish_beta = static_cast<C>(op.swish_beta);
  p.propagate_nan = op.nan_propagation != CUDNN_NOT_PROPAGATE_NAN;
  p.bwd_from_output = op.bwd_from_output;
  return p;
}

}  // namespace fdnn::cpu
