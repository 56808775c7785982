// The backend (graph) API's entry points: descriptors with attributes,
// finalize, execute. The descriptor objects live in src/backend/.
#include "api/guard.hpp"
#include "backend/descriptor.hpp"
#include "backend/execution_plan.hpp"
#include "core/handle.hpp"

using namespace fdnn;

extern "C" {

cudnnStatus_t CUDNNWINAPI cudnnBackendCreateDescriptor(cudnnBackendDescriptorType_t descriptorType,
                                                       cudnnBackendDescriptor_t *descriptor) {
  return FDNN_GUARDED([&] {
    if (descriptor == nullptr) fail(CUDNN_STATUS_BAD_PARAM_NULL_POINTER, "descriptor is NULL");
    *descriptor = backend::Descriptor::create(descriptorType).release();
  });
}

cudnnStatus_t CUDNNWINAPI cudnnBackendDestroyDescriptor(cudnnBackendDescriptor_t descriptor) {
  return FDNN_GUARDED([&] {
    backend::Descriptor &d = backend::live(descriptor, "descriptor");
    d.magic = 0;
    delete &d;
  });
}

cudnnStatus_t CUDNNWINAPI cudnnBackendInitialize(cudnnBackendDescriptor_t descriptor) {
  return FDNN_GUARDED([&] {
    // Resets the descriptor to the state cudnnBackendCreateDescriptor gives.
    backend::Descriptor &d = backend::live(descriptor, "descriptor");
    auto fresh = backend::Descriptor::create(d.type());
    d.assign_from(*fresh);
  });
}

cudnnStatus_t CUDNNWINAPI cudnnBackendFinalize(cudnnBackendDescriptor_t descriptor) {
  return FDNN_GUARDED([&] { backend::live(descriptor, "descriptor").finalize(); });
}

cudnnStatus_t CUDNNWINAPI cudnnBackendSetAttribute(cudnnBackendDescriptor_t descriptor,
                                                   cudnnBackendAttributeName_t attributeName,
                                                   cudnnBackendAttributeType_t attributeType, int64_t elementCount,
                                                   const void *arrayOfElements) {
  return FDNN_GUARDED([&] {
    backend::live(descriptor, "descriptor").set(attributeName, attributeType, elementCount, arrayOfElements);
  });
}

cudnnStatus_t CUDNNWINAPI cudnnBackendGetAttribute(cudnnBackendDescriptor_t const descriptor,
                                                   cudnnBackendAttributeName_t attributeName,
                                                   cudnnBackendAttributeType_t attributeType,
                                                   int64_t requestedElementCount, int64_t *elementCount,
                                                   void *arrayOfElements) {
  return FDNN_GUARDED([&] {
    backend::live(descriptor, "descriptor")
        .get(attributeName, attributeType, requestedElementCount, elementCount, arrayOfElements);
  });
}

// backends: cpu cuda
cudnnStatus_t CUDNNWINAPI cudnnBackendExecute(cudnnHandle_t handle, cudnnBackendDescriptor_t executionPlan,
                                              cudnnBackendDescriptor_t variantPack) {
  return FDNN_GUARDED([&] {
    cudnnContext &h = checked_handle(handle);
    backend::execute(h, backend::live(executionPlan, "executionPlan"), backend::live(variantPack, "variantPack"));
  });
}

}  // extern "C"
