// cpu.concat.copies / cuda.concat.copies: a concatenation as one strided
// copy per input. Input k becomes a pointwise IDENTITY graph whose output is
// the sub-view of y it fills (its dims, y's strides, y's pointer advanced by
// concat_view_offset), run on the best pointwise engine of the device, so
// every layout and type the pointwise engines handle is handled here. The
// in-place input (INPLACE_INDEX) is skipped when its pointer already is its
// sub-view.
#include <memory>
#include <variant>
#include <vector>

#include "core/concat_support.hpp"
#include "core/dtype.hpp"
#include "core/engine.hpp"
#include "core/error.hpp"

namespace fdnn {

namespace {

graph::Graph copy_graph(const graph::Graph &g, const graph::ConcatOp &op, size_t k) {
  const graph::Tensor &in = g.tensor(op.inputs[k]), &y = g.tensor(op.y);
  graph::Graph sg;
  graph::Tensor x = in;
  x.is_virtual = false;
  sg.add_tensor(x);
  sg.add_tensor(graph::concat_view(in, y));
  graph::PointwiseOp copy;
  copy.mode = CUDNN_POINTWISE_IDENTITY;
  copy.compute_type = (in.dtype == CUDNN_DATA_DOUBLE || y.dtype == CUDNN_DATA_DOUBLE) ? CUDNN_DATA_DOUBLE
                                                                                    : CUDNN_DATA_FLOAT;
  copy.x = in.uid;
  copy.y = y.uid;
  sg.add_op(copy);
  return sg;
}


const Engine *copy_engine_for(const Engine &self, const graph::Graph &sg) {
  for (const Engine *e : EngineRegistry::instance().engines(self.device()))
    if (e != &self && e->supports(sg)) return e;
  return nullptr;
}

class Plan final : public ExecutionPlan {
 public:
  Plan(const Engine &e, const graph::Graph &g) : ExecutionPlan(e) {
    const auto &op = std::get<graph::ConcatOp>(g.ops().front());
    for (size_t k = 0; k < op.inputs.size(); ++k) {
      const graph::Graph sg = copy_graph(g, op, k);
      const Engine *engine = copy_engine_for(e, sg);
      if (engine == nullptr) fail(CUDNN_STATUS_NOT_SUPPORTED, "no engine copies concat input ", k);
      auto plan = engine->make_plan(sg, {});
      workspace_ = std::max(workspace_, plan->workspace_size());
      scratch_ = std::max(scratch_, plan->scratch_size());
      steps_.push_back(std::move(plan));
    }
  }
  size_t workspace_size() const override { return workspace_; }
  size_t scratch_size() const override { return scratch_; }
  void execute(const ExecContext &ctx, const graph::Graph &g, const VariantPack &pack) const override {
    const auto &op = std::get<graph::ConcatOp>(g.ops().front());
    const graph::Tensor &y = g.tensor(op.y);
    const auto inputs = concat_inputs(g, op);
    auto *ybase = static_cast<unsigned char *>(pack.get(op.y));
    for (size_t k = 0; k < op.inputs.size(); ++k) {
      if (inputs[k]->element_count() == 0) continue;
      const int64_t offset = graph::concat_view_offset(op, inputs, y, k);
      void *view = ybase + lanes_to_bytes(y.dtype, offset);
      const void *src = pack.get(op.inputs[k]);
      if (static_cast<int64_t>(k) == op.in_place_index && src == view && inputs[k]->strides == y.strides &&
          inputs[k]->dtype == y.dtype)
        continue;  // already in place
      VariantPack sub;
      sub.set(op.inputs[k], src);
      sub.set(op.y, view);
      sub.workspace = pack.workspace;
      sub.workspace_size = pack.workspace_size;
      sub.scratch = pack.scratch;
      sub.scratch_size = pack.scratch_size;
      steps_[k]->execute(ctx, copy_graph(g, op, k), sub);
    }
  }

 private:
  std::vector<std::unique_ptr<ExecutionPlan>> steps_;
  size_t workspace_ = 0, scratch_ = 0;
};

class ConcatCopiesEngine : public Engine {
 public:
  explicit ConcatCopiesEngine(DeviceKind device) : device_(device) {}
  const char *name() const override { return device_ == DeviceKind::cpu ? "cpu.concat.copies" : "cuda.concat.copies"; }
  DeviceKind device() const override { return device_; }
  Support supports(const graph::Graph &g) const override {
    if (Support s = check_single_concat(g); !s) return s;
    const auto &op = std::get<graph::ConcatOp>(g.ops().front());
    const graph::Tensor &y = g.tensor(op.y);
    if (type_info(y.dtype).bits < 8) return Support::no("sub-byte output types are not supported");
    for (size_t k = 0; k < op.inputs.size(); ++k)
      if (copy_engine_for(*this, copy_graph(g, op, k)) == nullptr)
        return Support::no(cat("no pointwise engine copies input ", k, " into its view of y"));
    return Support::yes();
  }
  std::unique_ptr<ExecutionPlan> make_plan(const graph::Graph &g, const std::vector<KnobChoice> &) const override {
    return std::make_unique<Plan>(*this, g);
  }

 private:
  DeviceKind device_;
};

struct CpuConcatCopiesEngine : ConcatCopiesEngine {
  CpuConcatCopiesEngine() : ConcatCopiesEngine(DeviceKind::cpu) {}
};
struct CudaConcatCopiesEngine : ConcatCopiesEngine {
  CudaConcatCopiesEngine() : ConcatCopiesEngine(DeviceKind::cuda) {}
};

}  // namespace

FDNN_REGISTER_ENGINE(CpuConcatCopiesEngine)
FDNN_REGISTER_ENGINE(CudaConcatCopiesEngine)

}  // namespace fdnn
