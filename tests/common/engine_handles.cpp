#include "common/engine_handles.hpp"

#include <gtest/gtest.h>

#include "common/buffer.hpp"
#include "common/tensor_data.hpp"

namespace fdnn_test {

namespace {
cudnnHandle_t create_handle(bool reference) {
  cudnnHandle_t h = nullptr;
  if (reference) {
    ScopedEnv pin("FREEDNN_ENGINE", "cpu.reference");
    EXPECT_EQ(cudnnCreate(&h), CUDNN_STATUS_SUCCESS);
  } else {
    EXPECT_EQ(cudnnCreate(&h), CUDNN_STATUS_SUCCESS);
  }
  return h;
}
}  // namespace

EngineHandles::EngineHandles() {
  for (bool reference : engine_kinds()) all.push_back(create_handle(reference));
}

EngineHandles::~EngineHandles() {
  for (cudnnHandle_t h : all) cudnnDestroy(h);
}

const char *engine_name(size_t i) { return i == 0 ? "default engines" : "cpu.reference engines"; }

EngineHandle::EngineHandle(bool reference) : h(create_handle(reference)) {}

EngineHandle::~EngineHandle() { cudnnDestroy(h); }

std::vector<bool> engine_kinds() { return gpu_mode() ? std::vector<bool>{false} : std::vector<bool>{false, true}; }

}  // namespace fdnn_test
