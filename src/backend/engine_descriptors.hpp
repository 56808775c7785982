// CUDNN_BACKEND_ENGINE_DESCRIPTOR, ENGINECFG, KNOB_CHOICE, KNOB_INFO and
// ENGINEHEUR: choosing an engine (and its knobs) for an operation graph.
#pragma once

#include <memory>

#include "backend/descriptor.hpp"
#include "backend/engine_state.hpp"

namespace fdnn::backend {

class EngineDescriptor : public Descriptor {
 public:
  EngineDescriptor();
  const std::shared_ptr<const EngineState> &state() const { return state_; }

 protected:
  void do_finalize() override;
  void copy_state_from(const Descriptor &other) override;

 private:
  friend class EngineConfigDescriptor;  // builds finalized engines for heuristics
  std::shared_ptr<const EngineState> state_;
  // KNOB_INFO descriptors this engine reports (kept alive for gets).
  std::vector<std::shared_ptr<Descriptor>> owned_;
};

class EngineConfigDescriptor : public Descriptor {
 public:
  EngineConfigDescriptor();
  const std::shared_ptr<const EngineConfigState> &state() const { return state_; }
  // Builds a finalized config of `engine` with default knobs (heuristics).
  static std::shared_ptr<EngineConfigDescriptor> make(const std::shared_ptr<const GraphState> &graph,
                                                      const Engine *engine);

 protected:
  void do_finalize() override;
  void copy_state_from(const Descriptor &other) override;

 private:
  std::shared_ptr<const EngineConfigState> state_;
  std::vector<std::shared_ptr<Descriptor>> owned_;
};

}  // namespace fdnn::backend
