#include "backend/operation.hpp"

#include "backend/tensor_descriptor.hpp"
#include "core/error.hpp"

namespace fdnn::backend {

graph::Uid OperationDescriptor::use_tensor(cudnnBackendAttributeName_t name, const char *what, bool required) {
  if (!has(name)) {
    if (required) require(name, what);
    return graph::kNoTensor;
  }
  const auto ds = finalized_descriptors(name, CUDNN_BACKEND_TENSOR_DESCRIPTOR, what);
  const graph::Tensor &t = *tensor_of(ds.front());
  tensors_.push_back(t);
  return t.uid;
}

graph::Uid OperationDescriptor::bind_scalar(cudnnBackendAttributeName_t name, const char *what, bool required,
                                            void (*apply)(graph::Op &, double)) {
  const graph::Uid uid = use_tensor(name, what, required);
  if (uid == graph::kNoTensor) return uid;
  const graph::Tensor &t = tensors_.back();
  check_supported(t.by_value, what, " must be a by-value scalar tensor (IS_BY_VALUE) in FreeDNN");
  check_arg(t.element_count() == 1, what, " must hold one element");
  bindings_.push_back({uid, 0, apply});
  return uid;
}

bool is_operation_type(cudnnBackendDescriptorType_t t) {
  switch (t) {
    case CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR:
    case CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR:
    case CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR:
    case CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR:
    case CUDNN_BACKEND_OPERATION_GEN_STATS_DESCRIPTOR:
    case CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR:
    case CUDNN_BACKEND_OPERATION_BN_FINALIZE_STATISTICS_DESCRIPTOR:
    case CUDNN_BACKEND_OPERATION_REDUCTION_DESCRIPTOR:
    case CUDNN_BACKEND_OPERATION_BN_BWD_WEIGHTS_DESCRIPTOR:
    case CUDNN_BACKEND_OPERATION_RESAMPLE_FWD_DESCRIPTOR:
    case CUDNN_BACKEND_OPERATION_RESAMPLE_BWD_DESCRIPTOR:
    case CUDNN_BACKEND_OPERATION_CONCAT_DESCRIPTOR:
    case CUDNN_BACKEND_OPERATION_SIGNAL_DESCRIPTOR:
    case CUDNN_BACKEND_OPERATION_NORM_FORWARD_DESCRIPTOR:
    case CUDNN_BACKEND_OPERATION_NORM_BACKWARD_DESCRIPTOR:
    case CUDNN_BACKEND_OPERATION_RESHAPE_DESCRIPTOR:
    case CUDNN_BACKEND_OPERATION_RNG_DESCRIPTOR:
    case CUDNN_BACKEND_OPERATION_PAGED_CACHE_LOAD_DESCRIPTOR:
    case CUDNN_BACKEND_OPERATION_BLOCK_SCALE_QUANTIZE_DESCRIPTOR:
    case CUDNN_BACKEND_OPERATION_BLOCK_SCALE_DEQUANTIZE_DESCRIPTOR:
    case CUDNN_BACKEND_OPERATION_EXPAND_BAND_MATRIX_DESCRIPTOR:
    case CUDNN_BACKEND_OPERATION_CONTRACT_BAND_MATRIX_DESCRIPTOR:
    case CUDNN_BACKEND_OPERATION_SDPA_FWD_DESCRIPTOR:
    case CUDNN_BACKEND_OPERATION_MOE_GROUPED_MATMUL_DESCRIPTOR:
    case CUDNN_BACKEND_OPERATION_SDPA_BWD_DESCRIPTOR: return true;
    default: return false;
  }
}

}  // namespace fdnn::backend
