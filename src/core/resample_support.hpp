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
// no overlapping elements, without an index tensor (what the pooling engines
// run).
Support check_single_resample(const graph::Graph &g);

// The same for every resample the library defines: also max pooling with an
// index tensor (an integer type that holds every window position, dims of y
// / dy; backward then needs no x) and the upsampling modes NEAREST and
// BILINEAR (zero or edge-value padding, positive strides).
Support check_any_resample(const graph::Graph &g);

// check_any_resample() restricted to NEAREST and BILINEAR.
Support check_single_interpolation(const graph::Graph &g);

// Where the upsampling modes sample spatial dimension d (see ResampleOp):
// output position o samples s = (o * scale + offset) / denominator, exactly.
struct SampleAxis {
  int64_t scale = 1, offset = 0, denominator = 1;
};
SampleAxis sample_axis(const graph::ResampleOp &op, int d);

// BILINEAR along one dimension of extent n: s clamped to [0, n - 1] lies
// between i0 and i1 with weight w1 on i1 (i1 = i0 + 1, or i1 = i0 and w1 = 0
// when s is an input position or clamped).
struct LinearSample {
  int64_t i0 = 0, i1 = 0;
  double w1 = 0;
};
LinearSample linear_sample(const SampleAxis &a, int64_t o, int64_t n);

// NEAREST along one dimension of extent n: floor(s) clamped to [0, n - 1].
int64_t nearest_sample(const SampleAxis &a, int64_t o, int64_t n);

// The problem in pooling terms: `in` is x (forward) or dx (backward), `out`
// is y (forward) or dy (backward).
struct ResampleOperands {
  const graph::ResampleOp *op = nullptr;
  const graph::Tensor *in = nullptr;   // x or dx
  const graph::Tensor *out = nullptr;  // y or dy
  const graph::Tensor *x = nullptr;    // x (needed by max backward; forward: == in)
  const graph::Tensor *index = nullptr;  // the argmax positions, when present
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
// Not clamped at 0, as cuDNN counts: a window that starts past the end
// (possible when y is larger than the advised output) counts negative there,
// so its average is 0 / (a negative divisor) = -0 (NVIDIA cuDNN 9.19 on the
// H100: -0 where the window starts past the input, NaN where the count is 0).
int64_t average_count(const graph::ResampleOp &op, int d, int64_t start, int64_t n);

// Compute in double when the compute type or any tensor is DOUBLE.
bool resample_computes_in_double(const graph::Graph &g, const graph::ResampleOp &op);

}  // namespace fdnn
