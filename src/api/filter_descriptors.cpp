// Legacy filter descriptors: create, set, get and size. The rules (cuDNN's
// exact checks and partial updates) live in core/tensor_desc.cpp.
#include "api/guard.hpp"
#include "core/descriptor_lifetime.hpp"
#include "core/tensor_desc.hpp"

using namespace fdnn;

extern "C" {

cudnnStatus_t CUDNNWINAPI cudnnCreateFilterDescriptor(cudnnFilterDescriptor_t *filterDesc) {
  return FDNN_GUARDED([&] {
    create_descriptor(filterDesc, "filterDesc");
  });
}

cudnnStatus_t CUDNNWINAPI cudnnDestroyFilterDescriptor(cudnnFilterDescriptor_t filterDesc) {
  return FDNN_GUARDED([&] {
    destroy_descriptor(filterDesc, "filterDesc", "filter");
  });
}

cudnnStatus_t CUDNNWINAPI cudnnSetFilter4dDescriptor(cudnnFilterDescriptor_t filterDesc, cudnnDataType_t dataType,
                                                     cudnnTensorFormat_t format, int k, int c, int h, int w) {
  return FDNN_GUARDED([&] { set_filter_4d(live_filter(filterDesc, "filterDesc"), dataType, format, k, c, h, w); });
}

cudnnStatus_t CUDNNWINAPI cudnnGetFilter4dDescriptor(const cudnnFilterDescriptor_t filterDesc,
                                                     cudnnDataType_t *dataType, cudnnTensorFormat_t *format, int *k,
                                                     int *c, int *h, int *w) {
  return FDNN_GUARDED([&] {
    const cudnnFilterStruct &d = live_filter(filterDesc, "filterDesc");
    check_not_null(dataType, "dataType");
    check_not_null(format, "format");
    check_not_null(k, "k");
    check_not_null(c, "c");
    check_not_null(h, "h");
    check_not_null(w, "w");
    *dataType = d.dtype;
    *format = d.format;
    // The first four dimensions whatever the rank. cuDNN multiplies an
    // NCHW_VECT_C C by 4 here even for INT8x32 (the Nd query uses 32).
    *k = d.stored_dims[0];
    *c = d.format == CUDNN_TENSOR_NCHW_VECT_C
             ? static_cast<int>(static_cast<uint32_t>(d.stored_dims[1]) * 4u)
             : d.stored_dims[1];
    *h = d.stored_dims[2];
    *w = d.stored_dims[3];
  });
}

cudnnStatus_t CUDNNWINAPI cudnnSetFilterNdDescriptor(cudnnFilterDescriptor_t filterDesc, cudnnDataType_t dataType,
                                                     cudnnTensorFormat_t format, int nbDims, const int filterDimA[]) {
  return FDNN_GUARDED(
      [&] { set_filter_nd(live_filter(filterDesc, "filterDesc"), dataType, format, nbDims, filterDimA); });
}

cudnnStatus_t CUDNNWINAPI cudnnGetFilterNdDescriptor(const cudnnFilterDescriptor_t filterDesc, int nbDimsRequested,
                                                     cudnnDataType_t *dataType, cudnnTensorFormat_t *format,
                                                     int *nbDims, int filterDimA[]) {
  return FDNN_GUARDED([&] {
    const cudnnFilterStruct &d = live_filter(filterDesc, "filterDesc");
    check_arg(nbDimsRequested >= 1, "nbDimsRequested = ", nbDimsRequested, ": must be at least 1");
    check_supported(nbDimsRequested <= CUDNN_DIM_MAX, "nbDimsRequested = ", nbDimsRequested, ": at most ",
                    CUDNN_DIM_MAX, " dimensions exist");
    check_not_null(dataType, "dataType");
    check_not_null(format, "format");
    check_not_null(nbDims, "nbDims");
    check_not_null(filterDimA, "filterDimA");
    *dataType = d.dtype;
    *format = d.format;
    *nbDims = d.nb_dims;
    // cuDNN copies nbDimsRequested entries even beyond the rank (stale ones).
    for (int i = 0; i < nbDimsRequested; ++i) filterDimA[i] = d.dims[i];
  });
}

cudnnStatus_t CUDNNWINAPI cudnnGetFilterSizeInBytes(const cudnnFilterDescriptor_t filterDesc, size_t *size) {
  return FDNN_GUARDED([&] {
    const cudnnFilterStruct &d = live_filter(filterDesc, "filterDesc");
    check_not_null(size, "size");
    *size = filter_size_bytes(d);
  });
}

}  // extern "C"
