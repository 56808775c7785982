// Legacy tensor descriptors: create, set, get, size, and the batch/norm
// derived descriptors. The rules themselves (cuDNN's exact checks and partial
// updates) live in core/tensor_desc.cpp; this file checks the handles and the
// out-pointers and reports what Get shows.
#include <memory>

#include "api/guard.hpp"
#include "core/dtype.hpp"
#include "core/descriptor_lifetime.hpp"
#include "core/tensor_desc.hpp"

using namespace fdnn;

namespace {

// Lanes Get4d multiplies the stored C by; cuDNN refuses the call (after
// writing the type and n) for an NCHW_VECT_C descriptor of a scalar type.
int get4d_c_lanes(const cudnnTensorStruct &d) {
  if (d.format != CUDNN_TENSOR_NCHW_VECT_C) return 1;
  switch (d.dtype) {
    case CUDNN_DATA_INT8x4:
    case CUDNN_DATA_UINT8x4: return 4;
    case CUDNN_DATA_INT8x32: return 32;
    default: return 0;
  }
}

}  // namespace

extern "C" {

cudnnStatus_t CUDNNWINAPI cudnnCreateTensorDescriptor(cudnnTensorDescriptor_t *tensorDesc) {
  return FDNN_GUARDED([&] {
    create_descriptor(tensorDesc, "tensorDesc");
  });
}

cudnnStatus_t CUDNNWINAPI cudnnDestroyTensorDescriptor(cudnnTensorDescriptor_t tensorDesc) {
  return FDNN_GUARDED([&] {
    destroy_descriptor(tensorDesc, "tensorDesc", "tensor");
  });
}

cudnnStatus_t CUDNNWINAPI cudnnSetTensor4dDescriptor(cudnnTensorDescriptor_t tensorDesc, cudnnTensorFormat_t format,
                                                     cudnnDataType_t dataType, int n, int c, int h, int w) {
  return FDNN_GUARDED([&] { set_tensor_4d(live_tensor(tensorDesc, "tensorDesc"), format, dataType, n, c, h, w); });
}

cudnnStatus_t CUDNNWINAPI cudnnSetTensor4dDescriptorEx(cudnnTensorDescriptor_t tensorDesc, cudnnDataType_t dataType,
                                                       int n, int c, int h, int w, int nStride, int cStride,
                                                       int hStride, int wStride) {
  return FDNN_GUARDED([&] {
    set_tensor_4d_ex(live_tensor(tensorDesc, "tensorDesc"), dataType, n, c, h, w, nStride, cStride, hStride, wStride);
  });
}

cudnnStatus_t CUDNNWINAPI cudnnGetTensor4dDescriptor(const cudnnTensorDescriptor_t tensorDesc,
                                                     cudnnDataType_t *dataType, int *n, int *c, int *h, int *w,
                                                     int *nStride, int *cStride, int *hStride, int *wStride) {
  return FDNN_GUARDED([&] {
    const cudnnTensorStruct &d = live_tensor(tensorDesc, "tensorDesc");
    check_not_null(dataType, "dataType");
    check_not_null(n, "n");
    check_not_null(c, "c");
    check_not_null(h, "h");
    check_not_null(w, "w");
    check_not_null(nStride, "nStride");
    check_not_null(cStride, "cStride");
    check_not_null(hStride, "hStride");
    check_not_null(wStride, "wStride");
    // Like cuDNN: the first four dimensions whatever the rank (stale values
    // beyond it), and the type and n are written before the VECT_C check.
    *dataType = d.dtype;
    *n = d.stored_dims[0];
    const int lanes = get4d_c_lanes(d);
    check_arg(lanes != 0, "tensorDesc has format CUDNN_TENSOR_NCHW_VECT_C with the scalar type ",
              type_info(d.dtype).enum_name,
              "; cudnnGetTensor4dDescriptor only reports vector types (INT8x4, UINT8x4, INT8x32) in that format "
              "(use cudnnGetTensorNdDescriptor)");
    *c = static_cast<int>(static_cast<uint32_t>(d.stored_dims[1]) * static_cast<uint32_t>(lanes));
    *h = d.stored_dims[2];
    *w = d.stored_dims[3];
    *nStride = d.strides[0];
    *cStride = d.strides[1];
    *hStride = d.strides[2];
    *wStride = d.strides[3];
  });
}

cudnnStatus_t CUDNNWINAPI cudnnSetTensorNdDescriptor(cudnnTensorDescriptor_t tensorDesc, cudnnDataType_t dataType,
                                                     int nbDims, const int dimA[], const int strideA[]) {
  return FDNN_GUARDED([&] { set_tensor_nd(live_tensor(tensorDesc, "tensorDesc"), dataType, nbDims, dimA, strideA); });
}

cudnnStatus_t CUDNNWINAPI cudnnSetTensorNdDescriptorEx(cudnnTensorDescriptor_t tensorDesc, cudnnTensorFormat_t format,
                                                       cudnnDataType_t dataType, int nbDims, const int dimA[]) {
  return FDNN_GUARDED(
      [&] { set_tensor_nd_ex(live_tensor(tensorDesc, "tensorDesc"), format, dataType, nbDims, dimA); });
}

cudnnStatus_t CUDNNWINAPI cudnnGetTensorNdDescriptor(const cudnnTensorDescriptor_t tensorDesc, int nbDimsRequested,
                                                     cudnnDataType_t *dataType, int *nbDims, int dimA[],
                                                     int strideA[]) {
  return FDNN_GUARDED([&] {
    const cudnnTensorStruct &d = live_tensor(tensorDesc, "tensorDesc");
    check_not_null(dataType, "dataType");
    check_not_null(nbDims, "nbDims");
    // Up to nbDimsRequested entries; the arrays may be NULL when none is asked.
    const int count = nbDimsRequested < d.nb_dims ? nbDimsRequested : d.nb_dims;
    if (count > 0) {
      check_not_null(dimA, "dimA");
      check_not_null(strideA, "strideA");
    }
    *dataType = d.dtype;
    *nbDims = d.nb_dims;
    for (int i = 0; i < count; ++i) {
      dimA[i] = d.dims[i];
      strideA[i] = d.strides[i];
    }
  });
}

cudnnStatus_t CUDNNWINAPI cudnnGetTensorSizeInBytes(const cudnnTensorDescriptor_t tensorDesc, size_t *size) {
  return FDNN_GUARDED([&] {
    const cudnnTensorStruct &d = live_tensor(tensorDesc, "tensorDesc");
    check_not_null(size, "size");
    *size = tensor_size_bytes(d);
  });
}

cudnnStatus_t CUDNNWINAPI cudnnDeriveBNTensorDescriptor(cudnnTensorDescriptor_t derivedBnDesc,
                                                        const cudnnTensorDescriptor_t xDesc,
                                                        cudnnBatchNormMode_t mode) {
  return FDNN_GUARDED([&] {
    cudnnTensorStruct &derived = live_tensor(derivedBnDesc, "derivedBnDesc");
    const cudnnTensorStruct &x = live_tensor(xDesc, "xDesc");
    derive_bn_tensor(derived, x, mode);
  });
}

cudnnStatus_t CUDNNWINAPI cudnnDeriveNormTensorDescriptor(cudnnTensorDescriptor_t derivedNormScaleBiasDesc,
                                                          cudnnTensorDescriptor_t derivedNormMeanVarDesc,
                                                          const cudnnTensorDescriptor_t xDesc, cudnnNormMode_t mode,
                                                          int groupCnt) {
  return FDNN_GUARDED([&] {
    check_supported(groupCnt == 1, "groupCnt = ", groupCnt, ": only 1 (no grouping) is supported");
    check_arg(mode == CUDNN_NORM_PER_ACTIVATION || mode == CUDNN_NORM_PER_CHANNEL, "mode = ", static_cast<int>(mode),
              ": expected CUDNN_NORM_PER_ACTIVATION (0) or CUDNN_NORM_PER_CHANNEL (1)");
    const int bn_mode = mode == CUDNN_NORM_PER_ACTIVATION ? CUDNN_BATCHNORM_PER_ACTIVATION : CUDNN_BATCHNORM_SPATIAL;
    const cudnnTensorStruct &x = live_tensor(xDesc, "xDesc");
    // One after the other, as cuDNN: a bad second descriptor leaves the first derived.
    derive_bn_tensor(live_tensor(derivedNormScaleBiasDesc, "derivedNormScaleBiasDesc"), x, bn_mode);
    derive_bn_tensor(live_tensor(derivedNormMeanVarDesc, "derivedNormMeanVarDesc"), x, bn_mode);
  });
}

}  // extern "C"
