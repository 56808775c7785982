#include "core/engine.hpp"

#include <algorithm>
#include <cstring>
#include <mutex>
#include <set>
#include <variant>

#include "core/error.hpp"
#include "graph/op_io.hpp"

namespace fdnn {

namespace {
std::mutex &registry_mutex() {
  static std::mutex m;
  return m;
}
}  // namespace

namespace {

// What NVIDIA's cuDNN lets through operation and graph finalize but no
// engine can run (the backend oracle shows cuDNN 9.19 finalizing both): a
// virtual tensor that is read but written by no operation of the graph, and
// a pointwise input whose dims neither match the output's nor are 1. Every
// engine is refused such a graph here, so heuristics offer none.
Support well_formed(const graph::Graph &g) {
  std::set<graph::Uid> produced;
  std::vector<graph::OpIo> ios;
  for (const graph::Op &op : g.ops()) {
    ios.push_back(graph::op_io(op));
    produced.insert(ios.back().outputs.begin(), ios.back().outputs.end());
  }
  for (const graph::OpIo &io : ios)
    for (graph::Uid u : io.inputs) {
      const graph::Tensor &t = g.tensor(u);
      if (t.is_virtual && !t.is_view() && produced.count(u) == 0)
        return Support::no(cat("virtual tensor ", u, " is read but no operation of the graph writes it"));
    }
  for (const graph::Op &op : g.ops()) {
    const auto *p = std::get_if<graph::PointwiseOp>(&op);
    if (p == nullptr) continue;
    const graph::Tensor &y = g.tensor(p->y);
    for (graph::Uid u : {p->x, p->b, p->t}) {
      if (u == graph::kNoTensor) continue;
      const graph::Tensor &t = g.tensor(u);
      if (t.rank() != y.rank()) return Support::no(cat("pointwise input ", u, " has rank ", t.rank(), ", y ", y.rank()));
      for (int i = 0; i < y.rank(); ++i)
        if (t.dims[i] != y.dims[i] && t.dims[i] != 1)
          return Support::no(cat("pointwise input ", u, " dimension ", i, " (", t.dims[i],
                                 ") neither matches the output's (", y.dims[i], ") nor broadcasts (1)"));
    }
  }
  return Support::yes();
}

}  // namespace

Support Engine::accepts(const graph::Graph &g) const {
  if (g.has_virtual_views() && !runs_virtual_views())
    return Support::no("the graph reads a virtual tensor through a RESHAPE view, which this engine does not place");
  if (Support s = well_formed(g); !s) return s;
  return supports(g);
}

EngineRegistry &EngineRegistry::instance() {
  static EngineRegistry *r = new EngineRegistry();
  return *r;
}

void EngineRegistry::add(std::unique_ptr<Engine> engine) {
  std::lock_guard<std::mutex> lock(registry_mutex());
  engines_.push_back(std::move(engine));
  sorted_ = false;
}

void EngineRegistry::sort_if_needed() const {
  if (sorted_) return;
  // Global indices are assigned by (device, name) so that they stay the same
  // from run to run whatever the static-initialisation order was.
  std::sort(engines_.begin(), engines_.end(), [](const auto &a, const auto &b) {
    if (a->device() != b->device()) return a->device() < b->device();
    return std::strcmp(a->name(), b->name()) < 0;
  });
  for (size_t i = 0; i < engines_.size(); ++i) engines_[i]->global_index_ = static_cast<int64_t>(i);
  sorted_ = true;
}

std::vector<const Engine *> EngineRegistry::engines(DeviceKind kind) const {
  std::lock_guard<std::mutex> lock(registry_mutex());
  sort_if_needed();
  std::vector<const Engine *> out;
  for (const auto &e : engines_)
    if (e->device() == kind) out.push_back(e.get());
  std::stable_sort(out.begin(), out.end(),
                   [](const Engine *a, const Engine *b) { return a->priority() < b->priority(); });
  return out;
}

std::vector<const Engine *> EngineRegistry::all() const {
  std::lock_guard<std::mutex> lock(registry_mutex());
  sort_if_needed();
  std::vector<const Engine *> out;
  for (const auto &e : engines_) out.push_back(e.get());
  return out;
}

const Engine *EngineRegistry::by_name(const std::string &name) const {
  for (const Engine *e : all())
    if (name == e->name()) return e;
  return nullptr;
}

}  // namespace fdnn
