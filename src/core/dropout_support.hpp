// Structural checks of dropout graphs shared by every device's engines, and
// the numerical rules they all follow (so that masks and results agree).
#pragma once

#include "core/engine.hpp"
#include "graph/graph.hpp"

namespace fdnn {

// Types dropout reads and writes: FLOAT, DOUBLE, HALF, BFLOAT16.
bool is_dropout_io_type(cudnnDataType_t t);

// Support::yes() when g is one DropoutOp whose x and y have one of those
// types (the same), the same element count, no overlapping elements in y,
// a UINT32 mask of dropout_mask_words(n) words and (forward) INT64 seed and
// offset scalars.
Support check_single_dropout(const graph::Graph &g);

// 1 / (1 - p), computed in float as the scale is applied in float (double
// for DOUBLE data); 0 when p == 1 (every element is dropped).
float dropout_scale_float(double p);
double dropout_scale_double(double p);

}  // namespace fdnn
