// CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR and VARIANT_PACK, and the execution
// of a plan (cudnnBackendExecute).
#pragma once

#include "backend/descriptor.hpp"

struct cudnnContext;

namespace fdnn::backend {

// Runs a finalized plan with a finalized variant pack on the handle.
void execute(cudnnContext &handle, const Descriptor &plan, const Descriptor &variant_pack);

}  // namespace fdnn::backend
