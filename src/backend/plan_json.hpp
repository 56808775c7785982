// Execution plans as JSON (CUDNN_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION):
// the operations as their callers described them (DescriptorRecord), the
// engine by name and the knob choices. Loading replays those descriptors
// through the same create / set / finalize path a caller would use, so a
// loaded plan is validated exactly like a freshly built one.
#pragma once

#include <memory>
#include <string>

#include "backend/engine_state.hpp"

struct cudnnContext;

namespace fdnn::backend {

// Empty when the graph has no records (see GraphState::op_records).
std::string plan_to_json(const EngineConfigState &config);

// The engine config the JSON describes, its graph bound to `handle`.
// BAD_PARAM for text that is not such JSON, NOT_SUPPORTED when its engine is
// not in this build or cannot run the graph on this handle's device.
std::shared_ptr<const EngineConfigState> config_from_json(const std::string &json, cudnnContext &handle);

}  // namespace fdnn::backend
