// Operations of the internal model. Each legacy call and each backend
// operation descriptor becomes one or more of these; engines execute them.
// One header per op family (graph/op_<family>.hpp) holds its struct and its
// describe() for the graph's structural key and verbose text.
#pragma once

#include <variant>

#include "graph/op_concat.hpp"
#include "graph/op_convolution.hpp"
#include "graph/op_dropout.hpp"
#include "graph/op_lrn.hpp"
#include "graph/op_matmul.hpp"
#include "graph/op_normalization.hpp"
#include "graph/op_paged_cache_load.hpp"
#include "graph/op_pointwise.hpp"
#include "graph/op_reduction.hpp"
#include "graph/op_resample.hpp"
#include "graph/op_rng.hpp"
#include "graph/op_signal.hpp"
#include "graph/op_softmax.hpp"
#include "graph/op_spatial_transform.hpp"

namespace fdnn::graph {

using Op = std::variant<PointwiseOp, ReductionOp, SoftmaxOp, ResampleOp, NormalizationOp, LrnOp, DropoutOp,
                        SpatialTransformOp, ConvolutionOp, MatmulOp, RngOp, ConcatOp, SignalOp,
                        PagedCacheLoadOp>;

// Short name for messages ("pointwise", "reduction", ...): the op's kKind.
const char *op_kind_name(const Op &op);

}  // namespace fdnn::graph
