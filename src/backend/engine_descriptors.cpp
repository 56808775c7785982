#include "backend/engine_descriptors.hpp"

#include <algorithm>

#include "backend/operation_graph.hpp"
#include "core/error.hpp"

namespace fdnn::backend {

namespace {

AttrValue int64_value(int64_t v) { return AttrValue::of(CUDNN_TYPE_INT64, std::vector<int64_t>{v}); }

AttrValue descriptor_values(const std::vector<std::shared_ptr<Descriptor>> &ds) {
  std::vector<cudnnBackendDescriptor_t> handles;
  for (const auto &d : ds) handles.push_back(d.get());
  return AttrValue::of(CUDNN_TYPE_BACKEND_DESCRIPTOR, handles);
}

class KnobChoiceDescriptor : public Descriptor {
 public:
  KnobChoiceDescriptor()
      : Descriptor(CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR, {
                                                             {CUDNN_ATTR_KNOB_CHOICE_KNOB_TYPE, CUDNN_TYPE_KNOB_TYPE},
                                                             {CUDNN_ATTR_KNOB_CHOICE_KNOB_VALUE, CUDNN_TYPE_INT64},
                                                         }) {}
  KnobChoice choice{};

 protected:
  void do_finalize() override {
    require(CUDNN_ATTR_KNOB_CHOICE_KNOB_TYPE, "the knob type");
    require(CUDNN_ATTR_KNOB_CHOICE_KNOB_VALUE, "the knob value");
    choice.type = scalar<cudnnBackendKnobType_t>(CUDNN_ATTR_KNOB_CHOICE_KNOB_TYPE, CUDNN_KNOB_TYPE_SPLIT_K);
    choice.value = scalar<int64_t>(CUDNN_ATTR_KNOB_CHOICE_KNOB_VALUE, 0);
  }
  void copy_state_from(const Descriptor &other) override {
    choice = static_cast<const KnobChoiceDescriptor &>(other).choice;
  }
};

// Read-only: made by the library, finalized, then copied into the caller's.
class KnobInfoDescriptor : public Descriptor {
 public:
  KnobInfoDescriptor()
      : Descriptor(CUDNN_BACKEND_KNOB_INFO_DESCRIPTOR,
                   {
                       {CUDNN_ATTR_KNOB_INFO_TYPE, CUDNN_TYPE_KNOB_TYPE, 1, 1, false},
                       {CUDNN_ATTR_KNOB_INFO_MAXIMUM_VALUE, CUDNN_TYPE_INT64, 1, 1, false},
                       {CUDNN_ATTR_KNOB_INFO_MINIMUM_VALUE, CUDNN_TYPE_INT64, 1, 1, false},
                       {CUDNN_ATTR_KNOB_INFO_STRIDE, CUDNN_TYPE_INT64, 1, 1, false},
                   }) {}
  static std::shared_ptr<Descriptor> make(const KnobInfo &k) {
    auto d = std::make_shared<KnobInfoDescriptor>();
    d->put(CUDNN_ATTR_KNOB_INFO_TYPE, AttrValue::of(CUDNN_TYPE_KNOB_TYPE, std::vector<cudnnBackendKnobType_t>{k.type}));
    d->put(CUDNN_ATTR_KNOB_INFO_MAXIMUM_VALUE, int64_value(k.max_value));
    d->put(CUDNN_ATTR_KNOB_INFO_MINIMUM_VALUE, int64_value(k.min_value));
    d->put(CUDNN_ATTR_KNOB_INFO_STRIDE, int64_value(k.stride));
    d->finalize();
    return d;
  }

 protected:
  void do_finalize() override {
    if (!has(CUDNN_ATTR_KNOB_INFO_TYPE))
      fail(CUDNN_STATUS_NOT_SUPPORTED, "knob-info descriptors are produced by engines, not finalized by callers");
  }
  void copy_state_from(const Descriptor &) override {}
};

}  // namespace

// --- Engine ---------------------------------------------------------------------

EngineDescriptor::EngineDescriptor()
    : Descriptor(CUDNN_BACKEND_ENGINE_DESCRIPTOR,
                 {
                     {CUDNN_ATTR_ENGINE_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR},
                     {CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64},
                     {CUDNN_ATTR_ENGINE_KNOB_INFO, CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, 1 << 10, false},
                     {CUDNN_ATTR_ENGINE_NUMERICAL_NOTE, CUDNN_TYPE_NUMERICAL_NOTE, 0, 64, false},
                     {CUDNN_ATTR_ENGINE_BEHAVIOR_NOTE, CUDNN_TYPE_BEHAVIOR_NOTE, 0, 64, false},
                     {CUDNN_ATTR_ENGINE_SM_COUNT_TARGET, CUDNN_TYPE_INT32},
                     {CUDNN_ATTR_ENGINE_DEVICEPROP, CUDNN_TYPE_BACKEND_DESCRIPTOR},  // accepted, ignored
                 }) {}

void EngineDescriptor::do_finalize() {
  require(CUDNN_ATTR_ENGINE_OPERATION_GRAPH, "the operation graph");
  require(CUDNN_ATTR_ENGINE_GLOBAL_INDEX, "the engine's global index");
  const auto g = finalized_descriptors(CUDNN_ATTR_ENGINE_OPERATION_GRAPH, CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR,
                                       "the operation graph");
  const auto &graph_state = static_cast<const OperationGraphDescriptor *>(g.front())->state();
  const int64_t index = scalar<int64_t>(CUDNN_ATTR_ENGINE_GLOBAL_INDEX, -1);
  const std::vector<const Engine *> all = engines_by_global_index();
  if (index < 0 || index >= static_cast<int64_t>(all.size()))
    fail(CUDNN_STATUS_NOT_SUPPORTED, "engine global index ", index, " is out of range 0..",
         static_cast<int64_t>(all.size()) - 1);
  const Engine *engine = all[static_cast<size_t>(index)];
  if (engine->device() != graph_state->device.kind)
    fail(CUDNN_STATUS_NOT_SUPPORTED, "engine ", index, " (", engine->name(), ") runs on another device than the "
                                                                              "graph's handle");
  Support s = engine->accepts(*graph_state->graph);
  if (!s) fail(CUDNN_STATUS_NOT_SUPPORTED, "engine ", index, " (", engine->name(), ") does not support this graph: ", s.reason);
  auto st = std::make_shared<EngineState>();
  st->graph = graph_state;
  st->engine = engine;
  state_ = st;
  owned_.clear();
  for (const KnobInfo &k : engine->knobs()) owned_.push_back(KnobInfoDescriptor::make(k));
  put(CUDNN_ATTR_ENGINE_KNOB_INFO, descriptor_values(owned_));
  const EngineNotes notes = engine->notes();
  put(CUDNN_ATTR_ENGINE_NUMERICAL_NOTE, AttrValue::of(CUDNN_TYPE_NUMERICAL_NOTE, notes.numerical));
  put(CUDNN_ATTR_ENGINE_BEHAVIOR_NOTE, AttrValue::of(CUDNN_TYPE_BEHAVIOR_NOTE, notes.behavior));
}

void EngineDescriptor::copy_state_from(const Descriptor &other) {
  const auto &o = static_cast<const EngineDescriptor &>(other);
  state_ = o.state_;
  owned_ = o.owned_;
}

// --- Engine config -------------------------------------------------------------

EngineConfigDescriptor::EngineConfigDescriptor()
    : Descriptor(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR,
                 {
                     {CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_TYPE_BACKEND_DESCRIPTOR},
                     {CUDNN_ATTR_ENGINECFG_KNOB_CHOICES, CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, 1 << 10},
                     {CUDNN_ATTR_ENGINECFG_WORKSPACE_SIZE, CUDNN_TYPE_INT64, 1, 1, false},
                 }) {}

void EngineConfigDescriptor::do_finalize() {
  require(CUDNN_ATTR_ENGINECFG_ENGINE, "the engine");
  const auto e = finalized_descriptors(CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_BACKEND_ENGINE_DESCRIPTOR, "the engine");
  auto st = std::make_shared<EngineConfigState>();
  st->engine = static_cast<const EngineDescriptor *>(e.front())->state();
  const std::vector<KnobInfo> infos = st->engine->engine->knobs();
  for (const Descriptor *d : finalized_descriptors(CUDNN_ATTR_ENGINECFG_KNOB_CHOICES,
                                                   CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR, "a knob choice")) {
    const KnobChoice c = static_cast<const KnobChoiceDescriptor *>(d)->choice;
    const KnobInfo *info = nullptr;
    for (const KnobInfo &k : infos)
      if (k.type == c.type) info = &k;
    if (info == nullptr)
      fail(CUDNN_STATUS_NOT_SUPPORTED, "knob type ", static_cast<int>(c.type), " is not a knob of engine ",
           st->engine->engine->name());
    if (c.value < info->min_value || c.value > info->max_value ||
        (info->stride > 0 && (c.value - info->min_value) % info->stride != 0))
      fail(CUDNN_STATUS_NOT_SUPPORTED, "knob ", static_cast<int>(c.type), " = ", c.value, ": valid values are ",
           info->min_value, "..", info->max_value, " in steps of ", info->stride);
    st->knobs.push_back(c);
  }
  // The plan knows its workspace; making one here keeps the answer exact.
  const auto plan = st->engine->engine->make_plan(*st->engine->graph->graph, st->knobs);
  put(CUDNN_ATTR_ENGINECFG_WORKSPACE_SIZE, int64_value(static_cast<int64_t>(plan->workspace_size())));
  state_ = st;
}

void EngineConfigDescriptor::copy_state_from(const Descriptor &other) {
  const auto &o = static_cast<const EngineConfigDescriptor &>(other);
  state_ = o.state_;
  owned_ = o.owned_;
}

std::shared_ptr<EngineConfigDescriptor> EngineConfigDescriptor::make(const std::shared_ptr<const GraphState> &graph,
                                                                     const Engine *engine) {
  auto st = std::make_shared<EngineState>();
  st->graph = graph;
  st->engine = engine;
  auto engine_desc = std::make_shared<EngineDescriptor>();
  engine_desc->state_ = st;
  engine_desc->put(CUDNN_ATTR_ENGINE_GLOBAL_INDEX, int64_value(engine->global_index()));
  for (const KnobInfo &k : engine->knobs()) engine_desc->owned_.push_back(KnobInfoDescriptor::make(k));
  engine_desc->put(CUDNN_ATTR_ENGINE_KNOB_INFO, descriptor_values(engine_desc->owned_));
  const EngineNotes notes = engine->notes();
  engine_desc->put(CUDNN_ATTR_ENGINE_NUMERICAL_NOTE, AttrValue::of(CUDNN_TYPE_NUMERICAL_NOTE, notes.numerical));
  engine_desc->put(CUDNN_ATTR_ENGINE_BEHAVIOR_NOTE, AttrValue::of(CUDNN_TYPE_BEHAVIOR_NOTE, notes.behavior));
  engine_desc->mark_finalized();

  auto cfg = std::make_shared<EngineConfigDescriptor>();
  auto cs = std::make_shared<EngineConfigState>();
  cs->engine = st;
  const auto plan = engine->make_plan(*graph->graph, {});
  cfg->put(CUDNN_ATTR_ENGINECFG_WORKSPACE_SIZE, int64_value(static_cast<int64_t>(plan->workspace_size())));
  cfg->owned_.push_back(engine_desc);
  cfg->put(CUDNN_ATTR_ENGINECFG_ENGINE, descriptor_values(cfg->owned_));
  cfg->put(CUDNN_ATTR_ENGINECFG_KNOB_CHOICES, AttrValue::of(CUDNN_TYPE_BACKEND_DESCRIPTOR, std::vector<void *>{}));
  cfg->state_ = cs;
  cfg->mark_finalized();
  return cfg;
}

// --- Heuristics ------------------------------------------------------------------

namespace {

class EngineHeuristicsDescriptor : public Descriptor {
 public:
  EngineHeuristicsDescriptor()
      : Descriptor(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR,
                   {
                       {CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR},
                       {CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE},
                       {CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, 1 << 10, false,
                        CUDNN_TYPE_BACKEND_DESCRIPTOR, true, false, true},
                       {CUDNN_ATTR_ENGINEHEUR_SM_COUNT_TARGET, CUDNN_TYPE_INT32},
                       {CUDNN_ATTR_ENGINEHEUR_DEVICEPROP, CUDNN_TYPE_BACKEND_DESCRIPTOR},  // accepted, ignored
                   }) {}

 protected:
  void do_finalize() override {
    require(CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, "the operation graph");
    require(CUDNN_ATTR_ENGINEHEUR_MODE, "the heuristics mode");
    const auto mode = scalar<cudnnBackendHeurMode_t>(CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_HEUR_MODE_A);
    check_arg(mode >= CUDNN_HEUR_MODE_INSTANT && mode < CUDNN_HEUR_MODES_COUNT, "heuristics mode ",
              static_cast<int>(mode), " is not a cudnnBackendHeurMode_t value");
    const auto g = finalized_descriptors(CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH,
                                         CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, "the operation graph");
    const auto &graph = static_cast<const OperationGraphDescriptor *>(g.front())->state();
    // Modes A, B and INSTANT rank by the engines' priority, fastest first.
    // FALLBACK puts the most general engines first (the op-by-op and the
    // reference engines, priority 900 and up), then the others, so that it
    // answers on every device (a GPU has no reference engines).
    results_.clear();
    std::vector<const Engine *> order = EngineRegistry::instance().engines(graph->device.kind);
    if (mode == CUDNN_HEUR_MODE_FALLBACK)
      std::stable_partition(order.begin(), order.end(), [](const Engine *e) { return e->priority() >= 900; });
    for (const Engine *e : order) {
      if (!e->accepts(*graph->graph)) continue;
      results_.push_back(EngineConfigDescriptor::make(graph, e));
    }
    put(CUDNN_ATTR_ENGINEHEUR_RESULTS, descriptor_values(results_));
  }
  void copy_state_from(const Descriptor &other) override {
    results_ = static_cast<const EngineHeuristicsDescriptor &>(other).results_;
  }

 private:
  std::vector<std::shared_ptr<Descriptor>> results_;
};

}  // namespace

FDNN_BACKEND_DESCRIPTOR(CUDNN_BACKEND_ENGINE_DESCRIPTOR, EngineDescriptor)
FDNN_BACKEND_DESCRIPTOR(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, EngineConfigDescriptor)
FDNN_BACKEND_DESCRIPTOR(CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR, KnobChoiceDescriptor)
FDNN_BACKEND_DESCRIPTOR(CUDNN_BACKEND_KNOB_INFO_DESCRIPTOR, KnobInfoDescriptor)
FDNN_BACKEND_DESCRIPTOR(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR, EngineHeuristicsDescriptor)

}  // namespace fdnn::backend
