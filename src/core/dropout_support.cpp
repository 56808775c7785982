#include "core/dropout_support.hpp"

#include <variant>

#include "core/error.hpp"
#include "core/op_support.hpp"

namespace fdnn {

bool is_dropout_io_type(cudnnDataType_t t) {
  return t == CUDNN_DATA_FLOAT || t == CUDNN_DATA_DOUBLE || t == CUDNN_DATA_HALF || t == CUDNN_DATA_BFLOAT16;
}

namespace {

bool is_scalar_int64(const graph::Tensor *t) {
  return t != nullptr && !t->by_value && t->dtype == CUDNN_DATA_INT64 && t->element_count() == 1;
}

}  // namespace

Support check_single_dropout(const graph::Graph &g) {
  if (g.ops().size() != 1) return Support::no(cat("graph has ", g.ops().size(), " operations; this engine runs one"));
  const auto *op = std::get_if<graph::DropoutOp>(&g.ops().front());
  if (op == nullptr) return Support::no("not a dropout operation");
  const graph::Tensor *x = g.find_tensor(op->x), *y = g.find_tensor(op->y), *m = g.find_tensor(op->mask);
  if (x == nullptr || y == nullptr || m == nullptr) return Support::no("x, y or mask is missing");
  if (x->by_value || y->by_value || m->by_value) return Support::no("by-value x, y or mask");
  if (x->strides.size() != x->dims.size() || y->strides.size() != y->dims.size())
    return Support::no("strides do not match dims");
  if (!is_dropout_io_type(x->dtype) || x->dtype != y->dtype)
    return Support::no("x and y must both be FLOAT, DOUBLE, HALF or BFLOAT16");
  const int64_t n = x->element_count();
  if (y->element_count() != n) return Support::no("x and y differ in element count");
  if (has_overlapping_elements(*y)) return Support::no("y has overlapping elements");
  if ((m->dtype != CUDNN_DATA_UINT32 && m->dtype != CUDNN_DATA_INT32) ||
      m->element_count() != graph::dropout_mask_words(n) || !m->is_packed_row_major())
    return Support::no("the mask must be packed 32-bit words, one bit per element");
  if (op->direction == graph::DropoutOp::Direction::forward &&
      (!is_scalar_int64(g.find_tensor(op->seed)) || !is_scalar_int64(g.find_tensor(op->offset))))
    return Support::no("forward dropout needs INT64 seed and offset scalars in memory");
  if (op->blend.alpha != 1.0 || op->blend.beta != 0.0) return Support::no("dropout blends only with {1, 0}");
  return Support::yes();
}

float dropout_scale_float(double p) {
  if (p >= 1.0) return 0.0f;
  return 1.0f / (1.0f - static_cast<float>(p));
}

double dropout_scale_double(double p) {
  if (p >= 1.0) return 0.0;
  return 1.0 / (1.0 - p);
}

}  // namespace fdnn
