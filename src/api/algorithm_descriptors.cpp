// cudnnCreate/Set/Get/Copy/DestroyAlgorithmDescriptor, the algorithm
// performance records, and cudnnGetAlgorithmSpaceSize / cudnnSaveAlgorithm /
// cudnnRestoreAlgorithm (cuDNN 8 only; deprecated there, removed in 9).
// Pure host bookkeeping: the saved form is a few bytes of host memory.
#include <cstring>

#include "api/guard.hpp"
#include "core/algorithm_descriptors.hpp"
#include "core/descriptor_lifetime.hpp"
#include "core/handle.hpp"

using namespace fdnn;

namespace {

cudnnAlgorithmStruct &live_algorithm(cudnnAlgorithmDescriptor_t d, const char *name) {
  return live_descriptor(d, name, "algorithm");
}

cudnnAlgorithmPerformanceStruct &live_performance(cudnnAlgorithmPerformance_t p, const char *name) {
  return live_descriptor(p, name, "algorithm performance");
}

void check_count(int n, const char *name) {
  check_arg(n > 0, name, " = ", n, ": at least one record expected");
}

}  // namespace

extern "C" {

cudnnStatus_t CUDNNWINAPI cudnnCreateAlgorithmDescriptor(cudnnAlgorithmDescriptor_t *algoDesc) {
  return FDNN_GUARDED([&] { create_descriptor(algoDesc, "algoDesc"); });
}

cudnnStatus_t CUDNNWINAPI cudnnDestroyAlgorithmDescriptor(cudnnAlgorithmDescriptor_t algorithmDesc) {
  return FDNN_GUARDED([&] { destroy_descriptor(algorithmDesc, "algorithmDesc", "algorithm"); });
}

cudnnStatus_t CUDNNWINAPI cudnnSetAlgorithmDescriptor(cudnnAlgorithmDescriptor_t algorithmDesc,
                                                      cudnnAlgorithm_t algorithm) {
  return FDNN_GUARDED([&] { live_algorithm(algorithmDesc, "algorithmDesc").algorithm = algorithm; });
}

cudnnStatus_t CUDNNWINAPI cudnnGetAlgorithmDescriptor(const cudnnAlgorithmDescriptor_t algoDesc,
                                                      cudnnAlgorithm_t *algorithm) {
  return FDNN_GUARDED([&] {
    const cudnnAlgorithmStruct &d = live_algorithm(algoDesc, "algoDesc");
    check_not_null(algorithm, "algorithm");
    *algorithm = d.algorithm;
  });
}

cudnnStatus_t CUDNNWINAPI cudnnCopyAlgorithmDescriptor(const cudnnAlgorithmDescriptor_t src,
                                                       cudnnAlgorithmDescriptor_t dest) {
  return FDNN_GUARDED([&] {
    const cudnnAlgorithmStruct &s = live_algorithm(src, "src");
    live_algorithm(dest, "dest").algorithm = s.algorithm;
  });
}

// Creates numberToCreate records: algoPerf is an array of that many handles.
cudnnStatus_t CUDNNWINAPI cudnnCreateAlgorithmPerformance(cudnnAlgorithmPerformance_t *algoPerf,
                                                          int numberToCreate) {
  return FDNN_GUARDED([&] {
    check_not_null(algoPerf, "algoPerf");
    check_count(numberToCreate, "numberToCreate");
    for (int i = 0; i < numberToCreate; ++i) algoPerf[i] = new cudnnAlgorithmPerformanceStruct();
  });
}

cudnnStatus_t CUDNNWINAPI cudnnDestroyAlgorithmPerformance(cudnnAlgorithmPerformance_t *algoPerf,
                                                           int numberToDestroy) {
  return FDNN_GUARDED([&] {
    check_not_null(algoPerf, "algoPerf");
    check_count(numberToDestroy, "numberToDestroy");
    // Check them all first so that a bad entry destroys nothing.
    for (int i = 0; i < numberToDestroy; ++i)
      if (algoPerf[i] != nullptr) live_performance(algoPerf[i], "algoPerf[i]");
    for (int i = 0; i < numberToDestroy; ++i) {
      destroy_descriptor(algoPerf[i], "algoPerf[i]", "algorithm performance");
      algoPerf[i] = nullptr;
    }
  });
}

cudnnStatus_t CUDNNWINAPI cudnnSetAlgorithmPerformance(cudnnAlgorithmPerformance_t algoPerf,
                                                       cudnnAlgorithmDescriptor_t algoDesc, cudnnStatus_t status,
                                                       float time, size_t memory) {
  return FDNN_GUARDED([&] {
    cudnnAlgorithmPerformanceStruct &p = live_performance(algoPerf, "algoPerf");
    live_algorithm(algoDesc, "algoDesc");
    p.algorithm = algoDesc;
    p.status = status;
    p.time = time;
    p.memory = memory;
  });
}

// Any output pointer may be NULL: that field is not wanted.
cudnnStatus_t CUDNNWINAPI cudnnGetAlgorithmPerformance(const cudnnAlgorithmPerformance_t algoPerf,
                                                       cudnnAlgorithmDescriptor_t *algoDesc, cudnnStatus_t *status,
                                                       float *time, size_t *memory) {
  return FDNN_GUARDED([&] {
    const cudnnAlgorithmPerformanceStruct &p = live_performance(algoPerf, "algoPerf");
    if (algoDesc != nullptr) *algoDesc = p.algorithm;
    if (status != nullptr) *status = p.status;
    if (time != nullptr) *time = p.time;
    if (memory != nullptr) *memory = p.memory;
  });
}

cudnnStatus_t CUDNNWINAPI cudnnGetAlgorithmSpaceSize(cudnnHandle_t handle, cudnnAlgorithmDescriptor_t algoDesc,
                                                     size_t *algoSpaceSizeInBytes) {
  return FDNN_GUARDED([&] {
    checked_handle(handle);
    live_algorithm(algoDesc, "algoDesc");
    check_not_null(algoSpaceSizeInBytes, "algoSpaceSizeInBytes");
    *algoSpaceSizeInBytes = sizeof(SavedAlgorithm);
  });
}

cudnnStatus_t CUDNNWINAPI cudnnSaveAlgorithm(cudnnHandle_t handle, cudnnAlgorithmDescriptor_t algoDesc,
                                             void *algoSpace, size_t algoSpaceSizeInBytes) {
  return FDNN_GUARDED([&] {
    checked_handle(handle);
    const cudnnAlgorithmStruct &d = live_algorithm(algoDesc, "algoDesc");
    check_not_null(algoSpace, "algoSpace");
    check_arg(algoSpaceSizeInBytes >= sizeof(SavedAlgorithm), "algoSpaceSizeInBytes = ", algoSpaceSizeInBytes,
              ": cudnnGetAlgorithmSpaceSize asks for ", sizeof(SavedAlgorithm));
    SavedAlgorithm saved;
    saved.version = cudnnGetVersion();
    saved.algorithm = d.algorithm;
    std::memcpy(algoSpace, &saved, sizeof saved);
  });
}

cudnnStatus_t CUDNNWINAPI cudnnRestoreAlgorithm(cudnnHandle_t handle, void *algoSpace, size_t algoSpaceSizeInBytes,
                                                cudnnAlgorithmDescriptor_t algoDesc) {
  return FDNN_GUARDED([&] {
    checked_handle(handle);
    cudnnAlgorithmStruct &d = live_algorithm(algoDesc, "algoDesc");
    check_not_null(algoSpace, "algoSpace");
    check_arg(algoSpaceSizeInBytes >= sizeof(SavedAlgorithm), "algoSpaceSizeInBytes = ", algoSpaceSizeInBytes,
              ": a saved algorithm takes ", sizeof(SavedAlgorithm), " bytes");
    SavedAlgorithm saved;
    std::memcpy(&saved, algoSpace, sizeof saved);
    check_arg(saved.tag == SavedAlgorithm::kTag, "algoSpace does not hold an algorithm saved by cudnnSaveAlgorithm");
    check_supported(saved.version == cudnnGetVersion(), "algoSpace was saved by library version ", saved.version,
                    ", this is ", cudnnGetVersion());
    d.algorithm = saved.algorithm;
  });
}

}  // extern "C"
