// The element-wise steps the transforms are made of, each one identity
// PointwiseOp over LaneLayout views (see tensor_views.hpp): a scaled,
// blended, converting copy and a fill with zeros.
#pragma once

#include "api/tensor_views.hpp"
#include "core/handle.hpp"

namespace fdnn::api {

// dst = alpha * src + beta * dst over the common logical dims of the two
// layouts (the data types may differ: the copy converts).
void run_copy(cudnnContext &h, const char *fn, double alpha, double beta, const LaneLayout &src, const void *sp,
              const LaneLayout &dst, void *dp);

// dst = 0.
void run_zero_fill(cudnnContext &h, const char *fn, const LaneLayout &dst, void *dp);

// Bytes of one scalar lane of t (pointer arithmetic on LaneLayout offsets).
size_t lane_bytes(cudnnDataType_t scalar);

}  // namespace fdnn::api
