// cuda.concat.elements: a concatenation whose output has a sub-byte type
// (BOOLEAN, INT4, UINT4, FP4_E2M1), which cuda.concat.copies refuses (its
// per-input views of y start at byte addresses). One kernel per input
// (concat_elements.cu) converts each element through double and writes it at
// its bit position in y, as cpu.reference.concat does.
#include <algorithm>
#include <memory>
#include <variant>
#include <vector>

#include "core/concat_support.hpp"
#include "core/dtype.hpp"
#include "core/engine.hpp"
#include "core/error.hpp"
#include "cuda/concat_elements_args.hpp"
#include "cuda/kernel_args.hpp"

namespace fdnn::cuda {
namespace {

class Plan final : public ExecutionPlan {
 public:
  using ExecutionPlan::ExecutionPlan;

  void execute(const ExecContext &ctx, const graph::Graph &g, const VariantPack &pack) const override {
    const auto &op = std::get<graph::ConcatOp>(g.ops().front());
    const graph::Tensor &y = g.tensor(op.y);
    const auto inputs = concat_inputs(g, op);
    void *yd = pack.get(op.y);
    for (size_t k = 0; k < inputs.size(); ++k) {
      const graph::Tensor &x = *inputs[k];
      if (x.element_count() == 0) continue;
      ConcatCopyArgs a;
      a.rank = x.rank();
      for (int d = 0; d < a.rank; ++d) {
        a.dims[d] = x.dims[d];
        a.x_strides[d] = x.strides[d];
        a.y_strides[d] = y.strides[d];
      }
      a.count = x.element_count();
      a.y_offset = graph::concat_view_offset(op, inputs, y, k);
      a.x_type = x.dtype;
      a.y_type = y.dtype;
      a.x = pack.get(op.inputs[k]);
      a.y = yd;
      // The in-place input (INPLACE_INDEX) is copied as well: where its
      // memory is its own slice of y, each element is rewritten with its own
      // value by the thread that read it.
      launch_concat_copy(a, ctx.stream);
    }
  }
};

class CudaConcatElementsEngine final : public Engine {
 public:
  const char *name() const override { return "cuda.concat.elements"; }
  DeviceKind device() const override { return DeviceKind::cuda; }
  Support supports(const graph::Graph &g) const override {
    if (Support s = check_single_concat(g); !s) return s;
    const auto &op = std::get<graph::ConcatOp>(g.ops().front());
    const graph::Tensor &y = g.tensor(op.y);
    if (type_info(y.dtype).bits >= 8)
      return Support::no("byte-addressed outputs go to cuda.concat.copies (the pointwise engines' copies)");
    if (!element_access_type(y.dtype)) return Support::no(cat("no kernel writes ", type_info(y.dtype).enum_name));
    if (y.rank() > kConcatMaxDims) return Support::no(cat("rank above ", kConcatMaxDims));
    for (graph::Uid u : op.inputs)
      if (!element_access_type(g.tensor(u).dtype))
        return Support::no(cat("no kernel reads ", type_info(g.tensor(u).dtype).enum_name));
    return Support::yes();
  }
  std::unique_ptr<ExecutionPlan> make_plan(const graph::Graph &, const std::vector<KnobChoice> &) const override {
    return std::make_unique<Plan>(*this);
  }
};

}  // namespace
}  // namespace fdnn::cuda

using fdnn::cuda::CudaConcatElementsEngine;
FDNN_REGISTER_ENGINE(CudaConcatElementsEngine)
