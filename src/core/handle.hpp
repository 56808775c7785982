// The library context behind cudnnHandle_t.
#pragma once

#include <cudnn_graph.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "core/device.hpp"
#include "core/engine.hpp"

namespace fdnn {

// Plans by graph structure, per handle. Legacy calls with the same
// descriptors find their plan here and skip engine selection.
class PlanCache {
 public:
  std::shared_ptr<const ExecutionPlan> find(const std::string &key) const;
  void insert(const std::string &key, std::shared_ptr<const ExecutionPlan> plan);
  size_t size() const;
  uint64_t hits() const { return hits_; }

 private:
  static constexpr size_t kCapacity = 4096;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, std::shared_ptr<const ExecutionPlan>> plans_;
  mutable uint64_t hits_ = 0;
};

}  // namespace fdnn

struct cudnnContext {
  static constexpr uint32_t kAlive = 0x46444e4e;  // "FDNN"
  uint32_t magic = kAlive;
  fdnn::Device device;
  void *stream = nullptr;  // cudaStream_t; nullptr is the legacy default stream
  fdnn::PlanCache plans;
  // FREEDNN_ENGINE=<name prefix>: only engines whose name starts with it run
  // (tests and the bench use this to pin an engine, e.g. cpu.reference).
  std::string engine_filter;
  // Scratch for engines that need a workspace the legacy call does not take.
  std::mutex scratch_mutex;
  void *scratch = nullptr;
  size_t scratch_size = 0;
};

namespace fdnn {

// Checks that h is a live handle; throws BAD_PARAM otherwise.
cudnnContext &checked_handle(cudnnHandle_t h);

// Runs a graph on the handle's device: finds (or makes and caches) a plan,
// executes it, and prints the FREEDNN_VERBOSE line. `api_function` names the
// entry point for messages.
void run_graph(cudnnContext &h, const char *api_function, const graph::Graph &g, VariantPack pack);

// Executes a plan made for g on the handle's device (the scratch workspace
// when the pack has none and the plan needs one) and prints the
// FREEDNN_VERBOSE line.
void execute_plan(cudnnContext &h, const char *api_function, const ExecutionPlan &plan, const graph::Graph &g,
                  VariantPack pack);

// Frees the handle's scratch memory (host or device, by the handle's device).
void release_scratch(cudnnContext &h);

// The plan run_graph would use (tests, bench and verbose use this).
std::shared_ptr<const ExecutionPlan> plan_for(cudnnContext &h, const graph::Graph &g);

}  // namespace fdnn
