#include "cpu/reduction_support.hpp"

#include <variant>

#include "core/error.hpp"

namespace fdnn::cpu {

bool reduction_has_index_mode(cudnnReduceTensorOp_t mode) {
  return mode == CUDNN_REDUCE_TENSOR_MIN || mode == CUDNN_REDUCE_TENSOR_MAX || mode == CUDNN_REDUCE_TENSOR_AMAX;
}

Support check_single_reduction(const graph::Graph &g) {
  if (g.ops().size() != 1) return Support::no(cat("graph has ", g.ops().size(), " operations; this engine runs one"));
  const auto *op = std::get_if<graph::ReductionOp>(&g.ops().front());
  if (op == nullptr) return Support::no("not a reduction");
  if (!red::visit_mode<double>(op->mode, true, [](auto) {}))
    return Support::no(cat("reduction mode ", static_cast<int>(op->mode), " is not implemented"));
  const graph::Tensor *x = g.find_tensor(op->x), *y = g.find_tensor(op->y);
  if (x == nullptr || y == nullptr) return Support::no("x or y is missing");
  if (x->by_value || y->by_value) return Support::no("by-value x or y");
  if (x->dims.size() != y->dims.size()) return Support::no("x and y differ in rank");
  if (x->strides.size() != x->dims.size() || y->strides.size() != y->dims.size())
    return Support::no("strides do not match dims");
  for (size_t d = 0; d < x->dims.size(); ++d)
    if (y->dims[d] != x->dims[d] && y->dims[d] != 1)
      return Support::no(cat("y dim ", d, " = ", y->dims[d], " is neither x's ", x->dims[d], " nor 1"));
  for (size_t d = 0; d < y->dims.size(); ++d)
    if (y->dims[d] > 1 && y->strides[d] == 0) return Support::no("y has overlapping elements");
  if (op->indices != graph::kNoTensor) {
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

}  // namespace fdnn::cpu
