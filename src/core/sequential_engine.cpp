#include "core/sequential_engine.hpp"

#include <algorithm>
#include <set>

#include "core/dtype.hpp"
#include "core/error.hpp"
#include "graph/op_io.hpp"

namespace fdnn {

namespace {

constexpr size_t kAlign = 256;

size_t align_up(size_t n) { return (n + kAlign - 1) / kAlign * kAlign; }

// Operation indices in an order where every input is ready before its use.
std::vector<size_t> topological_order(const graph::Graph &g) {
  std::set<graph::Uid> produced_later;
  std::vector<graph::OpIo> ios;
  for (const graph::Op &op : g.ops()) {
    ios.push_back(graph::op_io(op));
    for (graph::Uid u : ios.back().outputs) produced_later.insert(u);
  }
  std::set<graph::Uid> ready;
  for (const graph::Tensor &t : g.tensors())
    if (produced_later.count(t.uid) == 0) ready.insert(t.uid);
  std::vector<size_t> order;
  std::vector<bool> done(ios.size(), false);
  for (bool progress = true; progress;) {
    progress = false;
    for (size_t i = 0; i < ios.size(); ++i) {
      if (done[i]) continue;
      // A view is ready when the tensor it reads is.
      if (std::all_of(ios[i].inputs.begin(), ios[i].inputs.end(),
                      [&](graph::Uid u) { return ready.count(g.storage_uid(u)); })) {
        done[i] = progress = true;
        order.push_back(i);
        for (graph::Uid u : ios[i].outputs) ready.insert(u);
      }
    }
  }
  if (order.size() != ios.size()) fail(CUDNN_STATUS_BAD_PARAM, "the graph has a cycle");
  return order;
}

// A graph of op `index` alone; its virtual tensors become real (they live in
// the workspace), runtime values come from g.
graph::Graph single_op_graph(const graph::Graph &g, size_t index) {
  graph::Graph sg;
  const graph::Op &op = g.ops()[index];
  const graph::OpIo io = graph::op_io(op);
  std::set<graph::Uid> seen;
  for (const auto *list : {&io.inputs, &io.outputs})
    for (graph::Uid u : *list) {
      if (!seen.insert(u).second) continue;
      graph::Tensor t = g.tensor(u);
      t.is_virtual = false;
      t.view_of = graph::kNoTensor;  // its pointer is resolved by the caller
      sg.add_tensor(t);
    }
  sg.add_op(op);
  return sg;
}

const Engine *engine_for(DeviceKind device, const graph::Graph &sg) {
  for (const Engine *e : EngineRegistry::instance().engines(device))
    if (dynamic_cast<const SequentialEngine *>(e) == nullptr && e->supports(sg)) return e;
  return nullptr;
}

class SequentialPlan : public ExecutionPlan {
 public:
  struct Step {
    size_t op_index;
    std::unique_ptr<ExecutionPlan> plan;
  };
  SequentialPlan(const Engine &e, const graph::Graph &g) : ExecutionPlan(e) {
    // Each virtual tensor gets room for itself and for the views that read
    // it; a virtual view shares the offset of the tensor it reads.
    for (const graph::Tensor &t : g.tensors()) {
      if (!t.is_virtual || t.is_view()) continue;
      int64_t span = std::max<int64_t>(t.span(), 1);
      for (const graph::Tensor &v : g.tensors())
        if (v.view_of == t.uid) span = std::max(span, v.span());
      offsets_.emplace_back(t.uid, tensors_bytes_);
      tensors_bytes_ += align_up(lanes_to_bytes(t.dtype, span));
    }
    for (const graph::Tensor &t : g.tensors()) {
      if (!t.is_virtual || !t.is_view()) continue;
      const auto base = std::find_if(offsets_.begin(), offsets_.end(),
                                     [&](const std::pair<graph::Uid, size_t> &o) { return o.first == t.view_of; });
      const size_t offset = base->second;  // the viewed tensor is virtual too, so it has one
      offsets_.emplace_back(t.uid, offset);
    }
    for (size_t i : topological_order(g)) {
      graph::Graph sg = single_op_graph(g, i);
      const Engine *engine = engine_for(e.device(), sg);
      if (engine == nullptr) fail(CUDNN_STATUS_NOT_SUPPORTED, "no engine runs operation ", i, " of the graph alone");
      Step s{i, engine->make_plan(sg, {})};
      step_workspace_ = std::max(step_workspace_, s.plan->workspace_size());
      scratch_ = std::max(scratch_, s.plan->scratch_size());
      steps_.push_back(std::move(s));
    }
  }
  size_t workspace_size() const override { return tensors_bytes_ + step_workspace_; }
  size_t scratch_size() const override { return scratch_; }
  void execute(const ExecContext &ctx, const graph::Graph &g, const VariantPack &pack) const override {
    auto *ws = static_cast<unsigned char *>(pack.workspace);
    for (const Step &s : steps_) {
      const graph::Graph sg = single_op_graph(g, s.op_index);
      VariantPack sub;
      for (const graph::Tensor &t : sg.tensors()) {
        void *p = pack.get(t.uid);
        for (const auto &[uid, offset] : offsets_)
          if (uid == t.uid) p = ws + offset;
        sub.set(t.uid, p);
      }
      sub.workspace = step_workspace_ > 0 ? ws + tensors_bytes_ : nullptr;
      sub.workspace_size = step_workspace_;
      sub.scratch = pack.scratch;
      sub.scratch_size = pack.scratch_size;
      s.plan->execute(ctx, sg, sub);
    }
  }

 private:
  std::vector<std::pair<graph::Uid, size_t>> offsets_;
  size_t tensors_bytes_ = 0;
  size_t step_workspace_ = 0;
  size_t scratch_ = 0;
  std::vector<Step> steps_;
};

}  // namespace

Support SequentialEngine::supports(const graph::Graph &g) const {
  if (g.ops().size() < 2) return Support::no("a single operation runs on its own engines");
  try {
    for (size_t i : topological_order(g))
      if (engine_for(device_, single_op_graph(g, i)) == nullptr)
        return Support::no(cat("no engine runs operation ", i, " (", graph::op_kind_name(g.ops()[i]), ") alone"));
  } catch (const Error &e) {
    return Support::no(e.what());
  }
  return Support::yes();
}

std::unique_ptr<ExecutionPlan> SequentialEngine::make_plan(const graph::Graph &g, const std::vector<KnobChoice> &) const {
  return std::make_unique<SequentialPlan>(*this, g);
}

namespace {

struct CpuSequentialEngine : SequentialEngine {
  CpuSequentialEngine() : SequentialEngine(DeviceKind::cpu) {}
};
struct CudaSequentialEngine : SequentialEngine {
  CudaSequentialEngine() : SequentialEngine(DeviceKind::cuda) {}
};

}  // namespace

FDNN_REGISTER_ENGINE(CpuSequentialEngine)
FDNN_REGISTER_ENGINE(CudaSequentialEngine)

}  // namespace fdnn
