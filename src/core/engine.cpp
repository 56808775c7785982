#include "core/engine.hpp"

#include <algorithm>
#include <cstring>
#include <mutex>

namespace fdnn {

namespace {
std::mutex &registry_mutex() {
  static std::mutex m;
  return m;
}
}  // namespace

Support Engine::accepts(const graph::Graph &g) const {
  if (g.has_virtual_views() && !runs_virtual_views())
    return Support::no("the graph reads a virtual tensor through a RESHAPE view, which this engine does not place");
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
