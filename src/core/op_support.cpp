#include "core/op_support.hpp"

#include <variant>

#include "core/error.hpp"
#include "core/pointwise_math.hpp"

namespace fdnn {

graph::Uid pointwise_input(const graph::PointwiseOp &op, int j) { return j == 0 ? op.x : (j == 1 ? op.b : op.t); }

const char *pointwise_input_name(int j) { return j == 0 ? "x" : (j == 1 ? "b" : "t"); }

Support check_single_pointwise(const graph::Graph &g) {
  if (g.ops().size() != 1) return Support::no(cat("graph has ", g.ops().size(), " operations; this engine runs one"));
  const auto *op = std::get_if<graph::PointwiseOp>(&g.ops().front());
  if (op == nullptr) return Support::no("not a pointwise operation");
  const int arity = pw::arity(op->mode);
  if (arity < 0) return Support::no(cat("pointwise mode ", static_cast<int>(op->mode), " is not implemented"));
  const graph::Tensor *y = g.find_tensor(op->y);
  if (y == nullptr) return Support::no("y is missing");
  if (y->by_value) return Support::no("y is a by-value scalar");
  if (y->strides.size() != y->dims.size()) return Support::no("y needs as many strides as dims");
  for (int j = 0; j < arity; ++j) {
    const graph::Tensor *t = g.find_tensor(pointwise_input(*op, j));
    const char *name = pointwise_input_name(j);
    if (t == nullptr) return Support::no(cat("input ", name, " is missing"));
    if (t->by_value) continue;
    if (t->dims.size() != y->dims.size() || t->strides.size() != t->dims.size())
      return Support::no(cat("input ", name, " has rank ", t->dims.size(), ", y has ", y->dims.size()));
    for (size_t d = 0; d < y->dims.size(); ++d)
      if (t->dims[d] != y->dims[d] && t->dims[d] != 1)
        return Support::no(cat("input ", name, " dim ", d, " = ", t->dims[d], " does not broadcast to ", y->dims[d]));
  }
  return Support::yes();
}

bool pointwise_computes_in_double(const graph::Graph &g, const graph::PointwiseOp &op) {
  switch (op.compute_type) {
    case CUDNN_DATA_DOUBLE:
    case CUDNN_DATA_INT32:
    case CUDNN_DATA_INT64: return true;
    default: break;
  }
  for (const graph::Tensor &t : g.tensors())
    if (t.dtype == CUDNN_DATA_DOUBLE || t.dtype == CUDNN_DATA_INT64) return true;
  return false;
}

bool reduction_mode_known(cudnnReduceTensorOp_t mode) {
  switch (mode) {
    case CUDNN_REDUCE_TENSOR_ADD:
    case CUDNN_REDUCE_TENSOR_MUL:
    case CUDNN_REDUCE_TENSOR_MIN:
    case CUDNN_REDUCE_TENSOR_MAX:
    case CUDNN_REDUCE_TENSOR_AMAX:
    case CUDNN_REDUCE_TENSOR_AVG:
    case CUDNN_REDUCE_TENSOR_NORM1:
    case CUDNN_REDUCE_TENSOR_NORM2:
    case CUDNN_REDUCE_TENSOR_MUL_NO_ZEROS: return true;
    default: return false;
  }
}

bool reduction_has_index_mode(cudnnReduceTensorOp_t mode) {
  return mode == CUDNN_REDUCE_TENSOR_MIN || mode == CUDNN_REDUCE_TENSOR_MAX || mode == CUDNN_REDUCE_TENSOR_AMAX;
}

bool has_overlapping_elements(const graph::Tensor &t) {
  for (size_t d = 0; d < t.dims.size(); ++d)
    if (t.dims[d] > 1 && t.strides[d] == 0) return true;
  return false;
}

Support check_single_reduction(const graph::Graph &g) {
  if (g.ops().size() != 1) return Support::no(cat("graph has ", g.ops().size(), " operations; this engine runs one"));
  const auto *op = std::get_if<graph::ReductionOp>(&g.ops().front());
  if (op == nullptr) return Support::no("not a reduction");
  if (!reduction_mode_known(op->mode))
    return Support::no(cat("reduction mode ", static_cast<int>(op->mode), " is not implemented"));
  const graph::Tensor *x = g.find_tensor(op->x), *y = g.find_tensor(op->y);
  if (x == nullptr || y == nullptr) return Support::no("x or y is missing");
  if (x->by_value || y->by_value) return Support::no("by-value x or y");
  if (x->dims.size() != y->dims.size()) return Support::no("x and y differ in rank");
  if (x->strides.size() != x->dims.size() || y->strides.size() != y->dims.size())
    return Support::no("strides do not match dims");
  for (size_t d = 0; d < x->dims.size(); ++d)
    if (y->dims[d] != x->dims[d] && y->dims[d] != 1 && (y->dims[d] < 1 || x->dims[d] % y->dims[d] != 0))
      return Support::no(cat("y dim ", d, " = ", y->dims[d], " is neither x's ", x->dims[d],
                             ", 1, nor a divisor of it (a grouped reduction)"));
  if (has_overlapping_elements(*y)) return Support::no("y has overlapping elements");
  if (op->indices != graph::kNoTensor) {
    for (size_t d = 0; d < x->dims.size(); ++d)
      if (y->dims[d] != x->dims[d] && y->dims[d] != 1)
        return Support::no(cat("indices of a grouped reduction (y dim ", d, " = ", y->dims[d], " of x's ",
                               x->dims[d], ") are not supported"));
    if (!reduction_has_index_mode(op->mode)) return Support::no("indices exist only for MIN, MAX and AMAX");
    const graph::Tensor *idx = g.find_tensor(op->indices);
    if (idx == nullptr) return Support::no("indices tensor is missing");
    if (idx->dtype != CUDNN_DATA_INT32 && idx->dtype != CUDNN_DATA_UINT32)
      return Support::no("indices must be 32-bit integers");
    if (idx->dims != y->dims || idx->strides.size() != idx->dims.size())
      return Support::no("indices must have y's dims");
  }
  return Support::yes();
}

bool reduction_computes_in_double(const graph::ReductionOp &op, const graph::Tensor &x, const graph::Tensor &y) {
  return op.compute_type == CUDNN_DATA_DOUBLE || x.dtype == CUDNN_DATA_DOUBLE || y.dtype == CUDNN_DATA_DOUBLE ||
         x.dtype == CUDNN_DATA_INT64 || x.dtype == CUDNN_DATA_INT32;
}

}  // namespace fdnn
