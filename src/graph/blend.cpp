#include "graph/blend.hpp"

#include <ostream>

namespace fdnn::graph {

void describe_blend(std::ostream &os, const Blend &b, bool with_values) {
  if (with_values) os << ",alpha=" << b.alpha << ",beta=" << b.beta;
  else os << ",beta0=" << (b.beta == 0.0);
}

}  // namespace fdnn::graph
