// Engines do the work. An engine looks at a graph, says whether it can run it
// (and why not), and makes an execution plan for it; plans run many times.
// Engines register per device; heuristics rank them; cudnnFind* times them.
// The same engines serve the legacy API and the backend (graph) API.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/device.hpp"
#include "graph/graph.hpp"

namespace fdnn {

class ThreadPool;

// Answer to "can you run this graph?"; `reason` says why not.
struct Support {
  bool ok = false;
  std::string reason;
  static Support yes() { return {true, {}}; }
  static Support no(std::string why) { return {false, std::move(why)}; }
  explicit operator bool() const { return ok; }
};

// A tunable parameter of an engine (backend API KNOB_INFO).
struct KnobInfo {
  cudnnBackendKnobType_t type;
  int64_t min_value, max_value, stride;
  int64_t default_value;
};
struct KnobChoice {
  cudnnBackendKnobType_t type;
  int64_t value;
};

struct EngineNotes {
  std::vector<cudnnBackendNumericalNote_t> numerical;
  std::vector<cudnnBackendBehaviorNote_t> behavior;
};

// Pointers for one execution: data by tensor uid, plus the workspace.
struct VariantPack {
  std::vector<std::pair<graph::Uid, void *>> pointers;
  void *workspace = nullptr;
  size_t workspace_size = 0;
  // The library's own memory for the plan (ExecutionPlan::scratch_size()),
  // on the handle's device; never the caller's.
  void *scratch = nullptr;
  size_t scratch_size = 0;

  void set(graph::Uid uid, const void *p) { pointers.emplace_back(uid, const_cast<void *>(p)); }
  void *get(graph::Uid uid) const {
    for (const auto &e : pointers)
      if (e.first == uid) return e.second;
    return nullptr;
  }
};

// Where an execution runs: the handle's device, and its stream or thread pool.
struct ExecContext {
  Device device;
  void *stream = nullptr;        // cudaStream_t on a CUDA handle
  ThreadPool *pool = nullptr;    // the CPU pool on a CPU handle
};

class Engine;

// An engine's prepared execution of one graph structure. Runtime values that
// are not structural (alpha, beta, by-value scalars) are read from the graph
// passed to execute(), so one plan serves every call with the same structure.
class ExecutionPlan {
 public:
  explicit ExecutionPlan(const Engine &engine) : engine_(engine) {}
  virtual ~ExecutionPlan() = default;
  const Engine &engine() const { return engine_; }
  // Bytes of workspace the caller provides: what cuDNN's workspace queries
  // report for the algorithm.
  virtual size_t workspace_size() const { return 0; }
  // Bytes the library provides itself from the handle's scratch memory:
  // staging that cuDNN's kernels do not need (they read any layout in
  // place), so that it must not count against the caller's workspace.
  virtual size_t scratch_size() const { return 0; }
  virtual void execute(const ExecContext &ctx, const graph::Graph &g, const VariantPack &pack) const = 0;
  // What the engine made of the graph, for verbose lines (a fusion engine
  // names the pattern it recognised); empty when there is nothing to add.
  virtual std::string detail() const { return {}; }

 private:
  const Engine &engine_;
};

class Engine {
 public:
  virtual ~Engine() = default;
  // Stable name ("cpu.pointwise.strided") used by logs, bench and knobs.
  virtual const char *name() const = 0;
  virtual DeviceKind device() const = 0;
  // Lower runs first when several engines support a graph (heuristic order).
  virtual int priority() const { return 100; }
  // The slow, obviously-correct engines; tests and the bench check against them.
  virtual bool is_reference() const { return false; }
  virtual Support supports(const graph::Graph &g) const = 0;
  // supports(), after refusing graphs with views of virtual tensors unless
  // the engine places those views itself: what heuristics and plans ask.
  Support accepts(const graph::Graph &g) const;
  // Engines that allocate virtual tensors themselves and honour
  // Tensor::view_of for them (the op-by-op engine) say true.
  virtual bool runs_virtual_views() const { return false; }
  virtual std::unique_ptr<ExecutionPlan> make_plan(const graph::Graph &g,
                                                   const std::vector<KnobChoice> &knobs) const = 0;
  virtual std::vector<KnobInfo> knobs() const { return {}; }
  virtual EngineNotes notes() const { return {}; }
  // Stable global index (backend API CUDNN_ATTR_ENGINE_GLOBAL_INDEX).
  int64_t global_index() const { return global_index_; }

 private:
  friend class EngineRegistry;
  int64_t global_index_ = -1;
};

class EngineRegistry {
 public:
  static EngineRegistry &instance();
  // Takes ownership. Called from static registrars at load time.
  void add(std::unique_ptr<Engine> engine);
  // Engines of a device kind, best first (by priority, then by name for a
  // stable order; the global index follows that order too).
  std::vector<const Engine *> engines(DeviceKind kind) const;
  std::vector<const Engine *> all() const;
  const Engine *by_name(const std::string &name) const;

 private:
  void sort_if_needed() const;
  mutable std::vector<std::unique_ptr<Engine>> engines_;
  mutable bool sorted_ = false;
};

// Registers an engine type at library load: FDNN_REGISTER_ENGINE(MyEngine);
#define FDNN_REGISTER_ENGINE(Type)                                                     \
  namespace {                                                                         \
  const bool fdnn_registered_##Type = [] {                                            \
    ::fdnn::EngineRegistry::instance().add(std::make_unique<Type>());                  \
    return true;                                                                      \
  }();                                                                                \
  }

}  // namespace fdnn
