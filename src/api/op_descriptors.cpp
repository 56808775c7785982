// Descriptors of the legacy tensor operations: op-tensor (cudnnOpTensor),
// reduce-tensor (cudnnReduceTensor) and tensor-transform
// (cudnnTransformTensorEx). Accepted values follow cuDNN 9; a rejected Set
// leaves the descriptor as it was.
#include "api/guard.hpp"
#include "core/descriptor_lifetime.hpp"
#include "core/op_descriptors.hpp"

using namespace fdnn;

namespace {

void check_nan_opt(cudnnNanPropagation_t v, const char *name) {
  check_arg(v == CUDNN_NOT_PROPAGATE_NAN || v == CUDNN_PROPAGATE_NAN, name, " = ", static_cast<int>(v),
            ": expected CUDNN_NOT_PROPAGATE_NAN (0) or CUDNN_PROPAGATE_NAN (1)");
}

}  // namespace

extern "C" {

// --- Op-tensor --------------------------------------------------------------

cudnnStatus_t CUDNNWINAPI cudnnCreateOpTensorDescriptor(cudnnOpTensorDescriptor_t *opTensorDesc) {
  return FDNN_GUARDED([&] {
    create_descriptor(opTensorDesc, "opTensorDesc");
  });
}

cudnnStatus_t CUDNNWINAPI cudnnDestroyOpTensorDescriptor(cudnnOpTensorDescriptor_t opTensorDesc) {
  return FDNN_GUARDED([&] { destroy_descriptor(opTensorDesc, "opTensorDesc", "op-tensor"); });
}

cudnnStatus_t CUDNNWINAPI cudnnSetOpTensorDescriptor(cudnnOpTensorDescriptor_t opTensorDesc,
                                                     cudnnOpTensorOp_t opTensorOp, cudnnDataType_t opTensorCompType,
                                                     cudnnNanPropagation_t opTensorNanOpt) {
  return FDNN_GUARDED([&] {
    cudnnOpTensorStruct &d = live_descriptor(opTensorDesc, "opTensorDesc", "op-tensor");
    check_arg(opTensorOp >= CUDNN_OP_TENSOR_ADD && opTensorOp <= CUDNN_OP_TENSOR_NOT, "opTensorOp = ",
              static_cast<int>(opTensorOp), ": expected a cudnnOpTensorOp_t value (ADD 0 .. NOT 5)");
    check_arg(opTensorCompType == CUDNN_DATA_FLOAT || opTensorCompType == CUDNN_DATA_DOUBLE ||
                  opTensorCompType == CUDNN_DATA_HALF || opTensorCompType == CUDNN_DATA_BFLOAT16,
              "opTensorCompType = ", static_cast<int>(opTensorCompType),
              ": expected CUDNN_DATA_FLOAT, CUDNN_DATA_DOUBLE, CUDNN_DATA_HALF or CUDNN_DATA_BFLOAT16");
    check_nan_opt(opTensorNanOpt, "opTensorNanOpt");
    d.op = opTensorOp;
    d.compute_type = opTensorCompType;
    d.nan_propagation = opTensorNanOpt;
    d.is_set = true;
  });
}

cudnnStatus_t CUDNNWINAPI cudnnGetOpTensorDescriptor(const cudnnOpTensorDescriptor_t opTensorDesc,
                                                     cudnnOpTensorOp_t *opTensorOp, cudnnDataType_t *opTensorCompType,
                                                     cudnnNanPropagation_t *opTensorNanOpt) {
  return FDNN_GUARDED([&] {
    const cudnnOpTensorStruct &d = live_descriptor(opTensorDesc, "opTensorDesc", "op-tensor");
    check_not_null(opTensorOp, "opTensorOp");
    check_not_null(opTensorCompType, "opTensorCompType");
    check_not_null(opTensorNanOpt, "opTensorNanOpt");
    *opTensorOp = d.op;
    *opTensorCompType = d.compute_type;
    *opTensorNanOpt = d.nan_propagation;
  });
}

// --- Reduce-tensor ------------------------------------------------------------

cudnnStatus_t CUDNNWINAPI cudnnCreateReduceTensorDescriptor(cudnnReduceTensorDescriptor_t *reduceTensorDesc) {
  return FDNN_GUARDED([&] {
    create_descriptor(reduceTensorDesc, "reduceTensorDesc");
  });
}

cudnnStatus_t CUDNNWINAPI cudnnDestroyReduceTensorDescriptor(cudnnReduceTensorDescriptor_t reduceTensorDesc) {
  return FDNN_GUARDED([&] { destroy_descriptor(reduceTensorDesc, "reduceTensorDesc", "reduce-tensor"); });
}

cudnnStatus_t CUDNNWINAPI cudnnSetReduceTensorDescriptor(cudnnReduceTensorDescriptor_t reduceTensorDesc,
                                                         cudnnReduceTensorOp_t reduceTensorOp,
                                                         cudnnDataType_t reduceTensorCompType,
                                                         cudnnNanPropagation_t reduceTensorNanOpt,
                                                         cudnnReduceTensorIndices_t reduceTensorIndices,
                                                         cudnnIndicesType_t reduceTensorIndicesType) {
  return FDNN_GUARDED([&] {
    cudnnReduceTensorStruct &d = live_descriptor(reduceTensorDesc, "reduceTensorDesc", "reduce-tensor");
    check_arg(reduceTensorOp >= CUDNN_REDUCE_TENSOR_ADD && reduceTensorOp <= CUDNN_REDUCE_TENSOR_MUL_NO_ZEROS,
              "reduceTensorOp = ", static_cast<int>(reduceTensorOp),
              ": expected a cudnnReduceTensorOp_t value (ADD 0 .. MUL_NO_ZEROS 8)");
    check_arg(reduceTensorCompType == CUDNN_DATA_FLOAT || reduceTensorCompType == CUDNN_DATA_DOUBLE ||
                  reduceTensorCompType == CUDNN_DATA_HALF,
              "reduceTensorCompType = ", static_cast<int>(reduceTensorCompType),
              ": expected CUDNN_DATA_FLOAT, CUDNN_DATA_DOUBLE or CUDNN_DATA_HALF");
    check_nan_opt(reduceTensorNanOpt, "reduceTensorNanOpt");
    check_arg(reduceTensorIndices == CUDNN_REDUCE_TENSOR_NO_INDICES ||
                  reduceTensorIndices == CUDNN_REDUCE_TENSOR_FLATTENED_INDICES,
              "reduceTensorIndices = ", static_cast<int>(reduceTensorIndices),
              ": expected CUDNN_REDUCE_TENSOR_NO_INDICES (0) or CUDNN_REDUCE_TENSOR_FLATTENED_INDICES (1)");
    check_arg(reduceTensorIndicesType >= CUDNN_32BIT_INDICES && reduceTensorIndicesType <= CUDNN_8BIT_INDICES,
              "reduceTensorIndicesType = ", static_cast<int>(reduceTensorIndicesType),
              ": expected a cudnnIndicesType_t value (32BIT 0 .. 8BIT 3)");
    d.op = reduceTensorOp;
    d.compute_type = reduceTensorCompType;
    d.nan_propagation = reduceTensorNanOpt;
    d.indices = reduceTensorIndices;
    d.indices_type = reduceTensorIndicesType;
    d.is_set = true;
  });
}

cudnnStatus_t CUDNNWINAPI cudnnGetReduceTensorDescriptor(const cudnnReduceTensorDescriptor_t reduceTensorDesc,
                                                         cudnnReduceTensorOp_t *reduceTensorOp,
                                                         cudnnDataType_t *reduceTensorCompType,
                                                         cudnnNanPropagation_t *reduceTensorNanOpt,
                                                         cudnnReduceTensorIndices_t *reduceTensorIndices,
                                                         cudnnIndicesType_t *reduceTensorIndicesType) {
  return FDNN_GUARDED([&] {
    const cudnnReduceTensorStruct &d = live_descriptor(reduceTensorDesc, "reduceTensorDesc", "reduce-tensor");
    check_not_null(reduceTensorOp, "reduceTensorOp");
    check_not_null(reduceTensorCompType, "reduceTensorCompType");
    check_not_null(reduceTensorNanOpt, "reduceTensorNanOpt");
    check_not_null(reduceTensorIndices, "reduceTensorIndices");
    check_not_null(reduceTensorIndicesType, "reduceTensorIndicesType");
    *reduceTensorOp = d.op;
    *reduceTensorCompType = d.compute_type;
    *reduceTensorNanOpt = d.nan_propagation;
    *reduceTensorIndices = d.indices;
    *reduceTensorIndicesType = d.indices_type;
  });
}

// --- Tensor transform ---------------------------------------------------------

cudnnStatus_t CUDNNWINAPI cudnnCreateTensorTransformDescriptor(cudnnTensorTransformDescriptor_t *transformDesc) {
  return FDNN_GUARDED([&] {
    create_descriptor(transformDesc, "transformDesc");
  });
}

cudnnStatus_t CUDNNWINAPI cudnnDestroyTensorTransformDescriptor(cudnnTensorTransformDescriptor_t transformDesc) {
  return FDNN_GUARDED([&] { destroy_descriptor(transformDesc, "transformDesc", "tensor-transform"); });
}

cudnnStatus_t CUDNNWINAPI cudnnSetTensorTransformDescriptor(cudnnTensorTransformDescriptor_t transformDesc,
                                                            const uint32_t nbDims,
                                                            const cudnnTensorFormat_t destFormat,
                                                            const int32_t padBeforeA[], const int32_t padAfterA[],
                                                            const uint32_t foldA[],
                                                            const cudnnFoldingDirection_t direction) {
  return FDNN_GUARDED([&] {
    cudnnTensorTransformStruct &d = live_descriptor(transformDesc, "transformDesc", "tensor-transform");
    check_arg(nbDims >= 2, "nbDims = ", nbDims, ": a transform needs at least 2 dimensions");
    check_supported(nbDims <= CUDNN_DIM_MAX, "nbDims = ", nbDims, ": at most ", CUDNN_DIM_MAX,
                    " dimensions are supported");
    check_supported(static_cast<int>(destFormat) <= static_cast<int>(CUDNN_TENSOR_NCHW_VECT_C), "destFormat = ",
                    static_cast<int>(destFormat), ": expected CUDNN_TENSOR_NCHW, NHWC or NCHW_VECT_C");
    d.nb_dims = nbDims;
    d.dest_format = destFormat;
    // cuDNN skips a NULL array and keeps the previous values.
    if (padBeforeA != nullptr)
      for (uint32_t i = 0; i < nbDims; ++i) d.pad_before[i] = padBeforeA[i];
    if (padAfterA != nullptr)
      for (uint32_t i = 0; i < nbDims; ++i) d.pad_after[i] = padAfterA[i];
    if (foldA != nullptr)
      for (uint32_t i = 0; i + 2 < nbDims; ++i) d.fold[i] = foldA[i];
    d.direction = direction == CUDNN_TRANSFORM_FOLD ? CUDNN_TRANSFORM_FOLD : CUDNN_TRANSFORM_UNFOLD;
    d.is_set = true;
  });
}

cudnnStatus_t CUDNNWINAPI cudnnGetTensorTransformDescriptor(cudnnTensorTransformDescriptor_t transformDesc,
                                                            uint32_t nbDimsRequested, cudnnTensorFormat_t *destFormat,
                                                            int32_t padBeforeA[], int32_t padAfterA[],
                                                            uint32_t foldA[], cudnnFoldingDirection_t *direction) {
  return FDNN_GUARDED([&] {
    const cudnnTensorTransformStruct &d = live_descriptor(transformDesc, "transformDesc", "tensor-transform");
    check_arg(nbDimsRequested >= 3 && nbDimsRequested <= CUDNN_DIM_MAX, "nbDimsRequested = ", nbDimsRequested,
              ": expected 3 to ", CUDNN_DIM_MAX);
    // Like cuDNN, every out-pointer is optional, and nbDimsRequested entries
    // are copied whatever the stored rank.
    if (destFormat != nullptr) *destFormat = d.dest_format;
    if (padBeforeA != nullptr)
      for (uint32_t i = 0; i < nbDimsRequested; ++i) padBeforeA[i] = d.pad_before[i];
    if (padAfterA != nullptr)
      for (uint32_t i = 0; i < nbDimsRequested; ++i) padAfterA[i] = d.pad_after[i];
    if (foldA != nullptr)
      for (uint32_t i = 0; i + 2 < nbDimsRequested; ++i) foldA[i] = d.fold[i];
    if (direction != nullptr) *direction = d.direction;
  });
}

}  // extern "C"
