// The op-by-op graph engine: runs a multi-operation graph one operation at a
// time with the best single-op engine for each, keeping virtual tensors in
// the workspace. Every graph whose operations are supported one by one runs
// this way; fusing engines rank before it.
#pragma once

#include "core/engine.hpp"

namespace fdnn {

class SequentialEngine : public Engine {
 public:
  explicit SequentialEngine(DeviceKind device) : device_(device) {}
  const char *name() const override { return device_ == DeviceKind::cpu ? "cpu.graph.sequential" : "cuda.graph.sequential"; }
  DeviceKind device() const override { return device_; }
  int priority() const override { return 900; }
  Support supports(const graph::Graph &g) const override;
  bool runs_virtual_views() const override { return true; }
  std::unique_ptr<ExecutionPlan> make_plan(const graph::Graph &g, const std::vector<KnobChoice> &knobs) const override;

 private:
  DeviceKind device_;
};

}  // namespace fdnn
