// Handles that run one test problem on several engine families: the default
// engines and, when handles bind to the CPU, the cpu.reference engines (pinned
// with FREEDNN_ENGINE), so a test checks the fast engines and the library's
// reference engines against the same independent expectation. On a GPU the
// default engines only.
#pragma once

#include <cudnn.h>

#include <cstddef>
#include <vector>

namespace fdnn_test {

// All the handles at once: all[0] has the default engines, all[1] (CPU only)
// the reference engines; engine_name(i) names all[i] in failure messages.
class EngineHandles {
 public:
  EngineHandles();
  ~EngineHandles();
  EngineHandles(const EngineHandles &) = delete;
  EngineHandles &operator=(const EngineHandles &) = delete;

  cudnnHandle_t main() const { return all.front(); }

  std::vector<cudnnHandle_t> all;
};

const char *engine_name(size_t i);

// One handle at a time: the default engines, or (reference = true) the
// cpu.reference engines. engine_kinds() lists the `reference` values a
// problem runs with on this device.
class EngineHandle {
 public:
  explicit EngineHandle(bool reference = false);
  ~EngineHandle();
  EngineHandle(const EngineHandle &) = delete;
  EngineHandle &operator=(const EngineHandle &) = delete;

  operator cudnnHandle_t() const { return h; }

  cudnnHandle_t h = nullptr;
};

std::vector<bool> engine_kinds();

}  // namespace fdnn_test
