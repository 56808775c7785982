// Structural checks and precision rules shared by every device's engines for
// single pointwise and reduction graphs. Device-specific limits (ranks, data
// types with kernels) stay in the engines; what a well-formed op is, and in
// which precision it is computed, is decided here once.
#pragma once

#include "core/engine.hpp"
#include "graph/graph.hpp"

namespace fdnn {

// The j-th data input of a pointwise op: 0 = x, 1 = b, 2 = t.
graph::Uid pointwise_input(const graph::PointwiseOp &op, int j);
const char *pointwise_input_name(int j);

// Support::yes() when g is one PointwiseOp whose mode is known, whose inputs
// exist with y's rank and broadcast to y, and whose y is a real tensor.
Support check_single_pointwise(const graph::Graph &g);

// Compute in double for DOUBLE and integer compute types and when a tensor is
// DOUBLE or INT64; else in float. Every device follows this rule so that
// results agree across backends.
bool pointwise_computes_in_double(const graph::Graph &g, const graph::PointwiseOp &op);

bool reduction_mode_known(cudnnReduceTensorOp_t mode);
// MIN, MAX and AMAX are the modes that can report indices.
bool reduction_has_index_mode(cudnnReduceTensorOp_t mode);

// Support::yes() when g is one ReductionOp with x and y (y's dims equal to
// x's, 1, or a divisor of x's: a grouped reduction, core/reduction_support.hpp;
// y without overlapping elements) and, if present, a 32-bit
// integer indices tensor of y's dims for an index mode.
Support check_single_reduction(const graph::Graph &g);

// Accumulate in double for DOUBLE compute or tensors and for INT32/INT64
// inputs; else in float.
bool reduction_computes_in_double(const graph::ReductionOp &op, const graph::Tensor &x, const graph::Tensor &y);

// True when writing t would hit one element twice (a zero stride on a
// dimension of extent > 1).
bool has_overlapping_elements(const graph::Tensor &t);

}  // namespace fdnn
