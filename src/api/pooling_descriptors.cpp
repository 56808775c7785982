// The pooling descriptor (create/set/get/destroy) and the output-dimension
// queries. Accepted values and statuses follow cuDNN 9.19, measured on its
// library (tests/oracle_gpu/pooling_gpu.c, "probe" lines):
//  - mode must be a cudnnPoolingMode_t, the NaN option 0 or 1, every window
//    and stride > 0 (BAD_PARAM); paddings are not checked at all (negative
//    ones and ones as large as the window are stored);
//  - SetPoolingNd takes 1..6 spatial dimensions: <= 0 is BAD_PARAM, > 6
//    NOT_SUPPORTED; GetPoolingNd answers NOT_SUPPORTED when asked for more
//    than 6 and copies nbDimsRequested entries (stale ones included);
//  - a Set that fails part-way keeps what it wrote before the bad value
//    (mode, NaN option, rank, then window/padding/stride per dimension);
//  - the output queries need in + 2*pad >= window in every spatial dimension
//    (BAD_PARAM otherwise) and a tensor of exactly nbDims + 2 dimensions.
// Where cuDNN crashes on NULL output pointers we answer BAD_PARAM.
#include "api/guard.hpp"
#include "core/descriptor_lifetime.hpp"
#include "core/pooling_descriptors.hpp"
#include "core/tensor_desc.hpp"

using namespace fdnn;

namespace fdnn {

const cudnnPoolingStruct &checked_pooling(const cudnnPoolingStruct *d, const char *name) {
  return live_descriptor(const_cast<cudnnPoolingStruct *>(d), name, "pooling");
}

int pooling_output_extent(const cudnnPoolingStruct &p, int i, int in) {
  const int64_t reach = static_cast<int64_t>(in) + 2 * static_cast<int64_t>(p.padding[i]);
  check_arg(reach >= p.window[i], "spatial dimension ", i, ": input extent ", in, " + 2 * padding ", p.padding[i],
            " is smaller than the window ", p.window[i]);
  return static_cast<int>(1 + (reach - p.window[i]) / p.stride[i]);
}

}  // namespace fdnn

namespace {

constexpr int kMaxSpatial = cudnnPoolingStruct::kMaxSpatial;

// Mode and NaN option, checked before anything is written.
void check_mode_and_nan(cudnnPoolingMode_t mode, cudnnNanPropagation_t nan) {
  check_arg(mode >= CUDNN_POOLING_MAX && mode <= CUDNN_POOLING_MAX_DETERMINISTIC, "mode = ", static_cast<int>(mode),
            ": expected a cudnnPoolingMode_t (MAX 0, AVERAGE_COUNT_INCLUDE_PADDING 1, "
            "AVERAGE_COUNT_EXCLUDE_PADDING 2, MAX_DETERMINISTIC 3)");
  check_arg(nan == CUDNN_NOT_PROPAGATE_NAN || nan == CUDNN_PROPAGATE_NAN, "maxpoolingNanOpt = ",
            static_cast<int>(nan), ": expected CUDNN_NOT_PROPAGATE_NAN (0) or CUDNN_PROPAGATE_NAN (1)");
}

// Writes the settings like cuDNN: in order, stopping at the first bad value.
void set_pooling(cudnnPoolingStruct &d, cudnnPoolingMode_t mode, cudnnNanPropagation_t nan, int nb, const int *window,
                 const int *padding, const int *stride) {
  d.mode = mode;
  d.nan_propagation = nan;
  d.nb_dims = nb;
  for (int i = 0; i < nb; ++i) {
    check_arg(window[i] > 0, "window dimension ", i, " = ", window[i], ": windows must be positive");
    d.window[i] = window[i];
    d.padding[i] = padding[i];
    check_arg(stride[i] > 0, "stride dimension ", i, " = ", stride[i], ": strides must be positive");
    d.stride[i] = stride[i];
  }
}

}  // namespace

extern "C" {

cudnnStatus_t CUDNNWINAPI cudnnCreatePoolingDescriptor(cudnnPoolingDescriptor_t *poolingDesc) {
  return FDNN_GUARDED([&] { create_descriptor(poolingDesc, "poolingDesc"); });
}

cudnnStatus_t CUDNNWINAPI cudnnDestroyPoolingDescriptor(cudnnPoolingDescriptor_t poolingDesc) {
  return FDNN_GUARDED([&] { destroy_descriptor(poolingDesc, "poolingDesc", "pooling"); });
}

cudnnStatus_t CUDNNWINAPI cudnnSetPooling2dDescriptor(cudnnPoolingDescriptor_t poolingDesc, cudnnPoolingMode_t mode,
                                                      cudnnNanPropagation_t maxpoolingNanOpt, int windowHeight,
                                                      int windowWidth, int verticalPadding, int horizontalPadding,
                                                      int verticalStride, int horizontalStride) {
  return FDNN_GUARDED([&] {
    cudnnPoolingStruct &d = live_descriptor(poolingDesc, "poolingDesc", "pooling");
    check_mode_and_nan(mode, maxpoolingNanOpt);
    const int window[2] = {windowHeight, windowWidth}, padding[2] = {verticalPadding, horizontalPadding},
              stride[2] = {verticalStride, horizontalStride};
    set_pooling(d, mode, maxpoolingNanOpt, 2, window, padding, stride);
  });
}

cudnnStatus_t CUDNNWINAPI cudnnGetPooling2dDescriptor(const cudnnPoolingDescriptor_t poolingDesc,
                                                      cudnnPoolingMode_t *mode, cudnnNanPropagation_t *maxpoolingNanOpt,
                                                      int *windowHeight, int *windowWidth, int *verticalPadding,
                                                      int *horizontalPadding, int *verticalStride,
                                                      int *horizontalStride) {
  return FDNN_GUARDED([&] {
    const cudnnPoolingStruct &d = checked_pooling(poolingDesc, "poolingDesc");
    check_not_null(mode, "mode");
    check_not_null(maxpoolingNanOpt, "maxpoolingNanOpt");
    check_not_null(windowHeight, "windowHeight");
    check_not_null(windowWidth, "windowWidth");
    check_not_null(verticalPadding, "verticalPadding");
    check_not_null(horizontalPadding, "horizontalPadding");
    check_not_null(verticalStride, "verticalStride");
    check_not_null(horizontalStride, "horizontalStride");
    // cuDNN reports the first two entries whatever the descriptor's rank.
    *mode = d.mode;
    *maxpoolingNanOpt = d.nan_propagation;
    *windowHeight = d.window[0];
    *windowWidth = d.window[1];
    *verticalPadding = d.padding[0];
    *horizontalPadding = d.padding[1];
    *verticalStride = d.stride[0];
    *horizontalStride = d.stride[1];
  });
}

cudnnStatus_t CUDNNWINAPI cudnnSetPoolingNdDescriptor(cudnnPoolingDescriptor_t poolingDesc,
                                                      const cudnnPoolingMode_t mode,
                                                      const cudnnNanPropagation_t maxpoolingNanOpt, int nbDims,
                                                      const int windowDimA[], const int paddingA[],
                                                      const int strideA[]) {
  return FDNN_GUARDED([&] {
    cudnnPoolingStruct &d = live_descriptor(poolingDesc, "poolingDesc", "pooling");
    check_mode_and_nan(mode, maxpoolingNanOpt);
    check_arg(nbDims > 0, "nbDims = ", nbDims, ": pooling needs at least one spatial dimension");
    check_supported(nbDims <= kMaxSpatial, "nbDims = ", nbDims, ": at most ", kMaxSpatial,
                    " spatial dimensions are supported");
    check_not_null(windowDimA, "windowDimA");
    check_not_null(paddingA, "paddingA");
    check_not_null(strideA, "strideA");
    set_pooling(d, mode, maxpoolingNanOpt, nbDims, windowDimA, paddingA, strideA);
  });
}

cudnnStatus_t CUDNNWINAPI cudnnGetPoolingNdDescriptor(const cudnnPoolingDescriptor_t poolingDesc,
                                                      int nbDimsRequested, cudnnPoolingMode_t *mode,
                                                      cudnnNanPropagation_t *maxpoolingNanOpt, int *nbDims,
                                                      int windowDimA[], int paddingA[], int strideA[]) {
  return FDNN_GUARDED([&] {
    const cudnnPoolingStruct &d = checked_pooling(poolingDesc, "poolingDesc");
    check_supported(nbDimsRequested <= kMaxSpatial, "nbDimsRequested = ", nbDimsRequested, ": at most ",
                    kMaxSpatial, " spatial dimensions exist");
    check_not_null(mode, "mode");
    check_not_null(maxpoolingNanOpt, "maxpoolingNanOpt");
    check_not_null(nbDims, "nbDims");
    if (nbDimsRequested > 0) {
      check_not_null(windowDimA, "windowDimA");
      check_not_null(paddingA, "paddingA");
      check_not_null(strideA, "strideA");
    }
    *mode = d.mode;
    *maxpoolingNanOpt = d.nan_propagation;
    *nbDims = d.nb_dims;
    for (int i = 0; i < nbDimsRequested; ++i) {
      windowDimA[i] = d.window[i];
      paddingA[i] = d.padding[i];
      strideA[i] = d.stride[i];
    }
  });
}

cudnnStatus_t CUDNNWINAPI cudnnGetPooling2dForwardOutputDim(const cudnnPoolingDescriptor_t poolingDesc,
                                                            const cudnnTensorDescriptor_t inputDesc, int *outN,
                                                            int *outC, int *outH, int *outW) {
  return FDNN_GUARDED([&] {
    const cudnnPoolingStruct &p = checked_pooling(poolingDesc, "poolingDesc");
    const cudnnTensorStruct &t = checked_tensor(inputDesc, "inputDesc");
    check_not_null(outN, "outN");
    check_not_null(outC, "outC");
    check_not_null(outH, "outH");
    check_not_null(outW, "outW");
    check_arg(p.nb_dims == 2, "poolingDesc has ", p.nb_dims, " spatial dimensions; this function needs 2");
    check_arg(t.nb_dims == 4, "inputDesc has ", t.nb_dims, " dimensions; this function needs 4");
    // cuDNN writes N and C, and zeros for H and W when they are invalid.
    *outN = t.dims[0];
    *outC = t.dims[1];
    *outH = 0;
    *outW = 0;
    const int h = pooling_output_extent(p, 0, t.dims[2]);
    const int w = pooling_output_extent(p, 1, t.dims[3]);
    *outH = h;
    *outW = w;
  });
}

cudnnStatus_t CUDNNWINAPI cudnnGetPoolingNdForwardOutputDim(const cudnnPoolingDescriptor_t poolingDesc,
                                                            const cudnnTensorDescriptor_t inputDesc, int nbDims,
                                                            int outDimA[]) {
  return FDNN_GUARDED([&] {
    const cudnnPoolingStruct &p = checked_pooling(poolingDesc, "poolingDesc");
    const cudnnTensorStruct &t = checked_tensor(inputDesc, "inputDesc");
    check_not_null(outDimA, "outDimA");
    check_arg(nbDims == t.nb_dims, "nbDims = ", nbDims, " but inputDesc has ", t.nb_dims, " dimensions");
    check_arg(nbDims == p.nb_dims + 2, "nbDims = ", nbDims, " but poolingDesc has ", p.nb_dims,
              " spatial dimensions (expected nbDims = ", p.nb_dims + 2, ")");
    // cuDNN writes N and C even when a spatial extent is invalid.
    outDimA[0] = t.dims[0];
    outDimA[1] = t.dims[1];
    int out[CUDNN_DIM_MAX];
    for (int i = 0; i < p.nb_dims; ++i) out[i] = pooling_output_extent(p, i, t.dims[i + 2]);
    for (int i = 0; i < p.nb_dims; ++i) outDimA[i + 2] = out[i];
  });
}

}  // extern "C"
