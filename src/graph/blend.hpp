// Legacy output blending, shared by every op of the internal model.
#pragma once

#include <cudnn_graph.h>

#include <iosfwd>

namespace fdnn::graph {

// Legacy output blending: y = alpha * result + beta * y_prior. With beta == 0
// the prior content of y is never read (NaN in y must not survive). The
// backend API always uses {1, 0}.
struct Blend {
  double alpha = 1.0;
  double beta = 0.0;
};

// Writes ",alpha=..,beta=.." (with_values) or only whether beta is zero, which
// is structural because it decides whether y is read.
void describe_blend(std::ostream &os, const Blend &b, bool with_values);

}  // namespace fdnn::graph
