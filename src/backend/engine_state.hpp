// What finalized graph, engine, engine-config and plan descriptors share.
// Descriptors keep these by shared_ptr, so a plan stays valid when the
// descriptors it was made from are destroyed (cuDNN allows that).
#pragma once

#include <memory>
#include <vector>

#include "core/engine.hpp"
#include "graph/graph.hpp"

struct cudnnContext;

namespace fdnn::backend {

struct DescriptorRecord;

struct GraphBinding {
  graph::Uid uid;
  size_t op_index;
  void (*apply)(graph::Op &op, double value);
};

struct GraphState {
  std::shared_ptr<const graph::Graph> graph;
  // By-value scalars that set op fields when a plan runs.
  std::vector<GraphBinding> bindings;
  cudnnContext *handle = nullptr;
  Device device;
  // The operations as they were described (for plans serialised to JSON);
  // empty when one of them has no record.
  std::vector<std::shared_ptr<const DescriptorRecord>> op_records;
};

struct EngineState {
  std::shared_ptr<const GraphState> graph;
  const Engine *engine = nullptr;
};

struct EngineConfigState {
  std::shared_ptr<const EngineState> engine;
  std::vector<KnobChoice> knobs;
};

// All engines, in global-index order (the registry's order).
std::vector<const Engine *> engines_by_global_index();

}  // namespace fdnn::backend
