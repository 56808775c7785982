#include "core/signal_support.hpp"

#include <variant>

#include "core/dtype.hpp"
#include "core/error.hpp"

namespace fdnn {

Support check_single_signal(const graph::Graph &g) {
  if (g.ops().size() != 1) return Support::no(cat("graph has ", g.ops().size(), " operations; this engine runs one"));
  const auto *op = std::get_if<graph::SignalOp>(&g.ops().front());
  if (op == nullptr) return Support::no("not a signal operation");
  if (op->mode != CUDNN_SIGNAL_SET && op->mode != CUDNN_SIGNAL_WAIT)
    return Support::no(cat("signal mode ", static_cast<int>(op->mode), " is not SET or WAIT"));
  const graph::Tensor *flag = g.find_tensor(op->flag), *x = g.find_tensor(op->x);
  if (flag == nullptr || flag->by_value || flag->dtype != CUDNN_DATA_INT64 || flag->element_count() != 1)
    return Support::no("the signal needs a flag tensor of one INT64 in memory");
  if (x == nullptr || x->by_value) return Support::no("the signal needs its pass-through tensor x in memory");
  if (op->y != graph::kNoTensor && op->y != op->x) {
    const graph::Tensor *y = g.find_tensor(op->y);
    if (y == nullptr || y->by_value || y->dtype != x->dtype || y->dims != x->dims || y->strides != x->strides)
      return Support::no("y must have x's type, dims and strides (a pass-through)");
  }
  return Support::yes();
}

SignalCopy signal_pass_through(const graph::Graph &g, const graph::SignalOp &op, const VariantPack &pack) {
  SignalCopy c;
  if (op.y == graph::kNoTensor || op.y == op.x) return c;
  const graph::Tensor &x = g.tensor(op.x);
  c.src = pack.get(op.x);
  c.dst = pack.get(op.y);
  if (c.src == c.dst || x.element_count() == 0) return c;
  check_not_null(c.src, "the signal's x");
  check_not_null(c.dst, "the signal's y");
  c.bytes = lanes_to_bytes(x.dtype, x.span());
  return c;
}

}  // namespace fdnn
