// What every device's resample engines share: which graphs are a single
// pooling-style ResampleOp they can run, its operands, and the window rules
// (where a window starts, which positions count in an average).
#pragma once

#include <cstdint>
#include <vector>

#include "core/engine.hpp"
#include "graph/graph.hpp"

namespace fdnn {

// Support::yes() when g is one ResampleOp in a pooling mode (MAXPOOL with
// NEG_INF_PAD, AVGPOOL_* with ZERO_PAD) whose tensors exist, share rank and
// type, agree on every non-spatial dimension, and whose output (y or dx) has
// no overlapping elements. An index tensor is not supported yet.
Support check_single_resample(const graph::Graph &g);

// The problem in pooling terms: `in` is x (forward) or dx (backward), `out`
// is y (forward) or dy (backward).
struct ResampleOperands {
  const graph::ResampleOp *op = nullptr;
  const graph::Tensor *in = nullptr;   // x or dx
  const graph::Tensor *out = nullptr;  // y or dy
  const graph::Tensor *x = nullptr;    // x (needed by max backward; forward: == in)
};
ResampleOperands resample_operands(const graph::Graph &g);

// First input position of output position o in spatial dimension d.
inline int64_t window_start(const graph::ResampleOp &op, int d, int64_t o) {
  return o * op.strides[d] - op.pre_padding[d];
}

// Number of positions of the window starting at `start` (extent `n`) that
// the average divides by in spatial dimension d: in-bounds positions only
// (EXCLUDE_PADDING), or positions inside the padded range [-pre, n + post)
// (INCLUDE_PADDING). The divisor of a window is the product over dimensions.
int64_t average_count(const graph::ResampleOp &op, int d, int64_t start, int64_t n);

// Compute in double when the compute type or any tensor is DOUBLE.
bool resample_computes_in_double(const graph::Graph &g, const graph::ResampleOp &op);

}  // namespace fdnn
