// cudnnMakeFusedOpsPlan's validation and graph building: one internal graph
// per const pack, made of the existing ops (convolution, pointwise,
// reduction, normalization), which the op-by-op engines run.
#pragma once

#include "core/fused_ops_params.hpp"

namespace fdnn::api {

// Validates the const pack for its fused-op kind (BAD_PARAM for missing or
// inconsistent parameters, NOT_SUPPORTED for what FreeDNN does not compute)
// and builds the graph.
fused::FusedGraph build_fused_graph(const cudnnFusedOpsConstParamStruct &pack);

}  // namespace fdnn::api
