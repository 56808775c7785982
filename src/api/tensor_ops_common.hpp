// Checks shared by the tensor-operation entry points (tensor_ops.cpp,
// transform_tensor.cpp, reduce_tensor.cpp).
#pragma once

#include "core/error.hpp"
#include "core/op_descriptors.hpp"

namespace fdnn::api {

// A live op-tensor / reduce-tensor descriptor. One that was created but never
// set holds the zero defaults (ADD, FLOAT, NOT_PROPAGATE_NAN, no indices),
// which are valid settings, so it is accepted like in cuDNN.
inline const cudnnOpTensorStruct &checked_op_tensor(const cudnnOpTensorStruct *d) {
  if (d == nullptr) fail(CUDNN_STATUS_BAD_PARAM, "opTensorDesc is NULL");
  if (d->magic != cudnnOpTensorStruct::kAlive)
    fail(CUDNN_STATUS_BAD_PARAM, "opTensorDesc is not a live op-tensor descriptor");
  return *d;
}

inline const cudnnReduceTensorStruct &checked_reduce(const cudnnReduceTensorStruct *d, const char *name) {
  if (d == nullptr) fail(CUDNN_STATUS_BAD_PARAM, name, " is NULL");
  if (d->magic != cudnnReduceTensorStruct::kAlive)
    fail(CUDNN_STATUS_BAD_PARAM, name, " is not a live reduce-tensor descriptor");
  return *d;
}

// A transform descriptor must have been set (its rank is meaningless before).
inline const cudnnTensorTransformStruct &checked_transform(const cudnnTensorTransformStruct *d, const char *name) {
  if (d == nullptr) fail(CUDNN_STATUS_BAD_PARAM, name, " is NULL");
  if (d->magic != cudnnTensorTransformStruct::kAlive)
    fail(CUDNN_STATUS_BAD_PARAM, name, " is not a live tensor-transform descriptor");
  if (!d->is_set) fail(CUDNN_STATUS_BAD_PARAM, name, " has not been set (call cudnnSetTensorTransformDescriptor first)");
  return *d;
}

}  // namespace fdnn::api
