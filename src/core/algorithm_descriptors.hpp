// Algorithm descriptors and performance records of the cuDNN 8 API (removed
// in cuDNN 9): a named algorithm of one family, and a (algorithm, status,
// time, memory) record that Find-style calls of the RNN API fill in. Kept for
// source compatibility with 8.x programs.
#pragma once

#include <cudnn_ops_infer.h>

#include <cstddef>
#include <cstdint>

struct cudnnAlgorithmStruct {
  static constexpr uint32_t kAlive = 0x414c474f;  // "ALGO"
  uint32_t magic = kAlive;
  cudnnAlgorithm_t algorithm{};
};

struct cudnnAlgorithmPerformanceStruct {
  static constexpr uint32_t kAlive = 0x50455246;  // "PERF"
  uint32_t magic = kAlive;
  // The descriptor handle as given (cuDNN 8 hands the same handle back).
  cudnnAlgorithmDescriptor_t algorithm = nullptr;
  cudnnStatus_t status = CUDNN_STATUS_SUCCESS;
  float time = 0.0f;
  size_t memory = 0;
};

namespace fdnn {

// What cudnnSaveAlgorithm writes: a tag, the library version that wrote it
// (cudnnRestoreAlgorithm refuses another version with NOT_SUPPORTED, as the
// seed says), and the algorithm value.
struct SavedAlgorithm {
  static constexpr uint64_t kTag = 0x4f474c414e444446ull;  // "FDDNALGO" little-endian
  uint64_t tag = kTag;
  uint64_t version = 0;
  cudnnAlgorithm_t algorithm{};
};

}  // namespace fdnn
