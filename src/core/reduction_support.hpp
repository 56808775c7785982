// Grouped reductions: a y extent that divides x's extent without being 1.
//
// cuDNN 9's reduction operation accepts, per dimension, a y extent equal to
// x's, 1, or any divisor of x's (finalize refuses the rest with BAD_PARAM,
// "xDim % yDim != 0"); cudnn-frontend relies on it for grouped-query
// attention backward, where dK / dV per query head [b, h_q, s, d] are summed
// into [b, h_kv, s, d] by an ADD reduction. Element y[.., k, ..] combines
// x[.., k * g .. k * g + g - 1, ..] with g = x extent / y extent: consecutive
// x positions form a group (einsum's "b (h g) s d -> b h s d").
//
// Engines run such a reduction as the ordinary one it is after splitting
// every grouped dimension d of x into (y extent, g) with strides
// (g * stride, stride) and giving y an extent-1 dimension after its own:
// then every dimension of y is x's or 1 again.
#pragma once

#include "graph/tensor.hpp"

namespace fdnn {

// True when some dimension of y is neither x's extent nor 1 (x and y of
// one rank, every y extent dividing x's: check_single_reduction's rules).
bool reduction_is_grouped(const graph::Tensor &x, const graph::Tensor &y);

// x and y (and the indices tensor when idx is not null; it has y's dims)
// with every grouped dimension split as above; others are unchanged.
void split_grouped_reduction(graph::Tensor &x, graph::Tensor &y, graph::Tensor *idx = nullptr);

}  // namespace fdnn
