// cudnnConvolutionDescriptor_t: create/set/get/destroy, group count, math and
// reorder types, and the forward output-shape queries. Accepted values and
// statuses follow cuDNN 9 call by call (tests/oracle/descriptors.c compares).
#include "api/guard.hpp"
#include "core/convolution_descriptor.hpp"
#include "core/descriptor_lifetime.hpp"

using namespace fdnn;

extern "C" {

cudnnStatus_t CUDNNWINAPI cudnnCreateConvolutionDescriptor(cudnnConvolutionDescriptor_t *convDesc) {
  return FDNN_GUARDED([&] { create_descriptor(convDesc, "convDesc"); });
}

cudnnStatus_t CUDNNWINAPI cudnnDestroyConvolutionDescriptor(cudnnConvolutionDescriptor_t convDesc) {
  return FDNN_GUARDED([&] { destroy_descriptor(convDesc, "convDesc", "convolution"); });
}

cudnnStatus_t CUDNNWINAPI cudnnSetConvolution2dDescriptor(cudnnConvolutionDescriptor_t convDesc, int pad_h, int pad_w,
                                                          int u, int v, int dilation_h, int dilation_w,
                                                          cudnnConvolutionMode_t mode,
                                                          cudnnDataType_t computeType) {
  return FDNN_GUARDED([&] {
    cudnnConvolutionStruct &d = live_convolution(convDesc, "convDesc");
    const int pad[2] = {pad_h, pad_w}, stride[2] = {u, v}, dilation[2] = {dilation_h, dilation_w};
    set_convolution_nd(d, 2, pad, stride, dilation, mode, computeType);
  });
}

cudnnStatus_t CUDNNWINAPI cudnnGetConvolution2dDescriptor(const cudnnConvolutionDescriptor_t convDesc, int *pad_h,
                                                          int *pad_w, int *u, int *v, int *dilation_h,
                                                          int *dilation_w, cudnnConvolutionMode_t *mode,
                                                          cudnnDataType_t *computeType) {
  return FDNN_GUARDED([&] {
    const cudnnConvolutionStruct &d = live_convolution(convDesc, "convDesc");
    for (const void *p : {static_cast<const void *>(pad_h), static_cast<const void *>(pad_w),
                          static_cast<const void *>(u), static_cast<const void *>(v),
                          static_cast<const void *>(dilation_h), static_cast<const void *>(dilation_w),
                          static_cast<const void *>(mode), static_cast<const void *>(computeType)})
      check_not_null(p, "an output pointer");
    // Like cuDNN, a descriptor of another rank reports its first two entries.
    *pad_h = d.pad[0];
    *pad_w = d.pad[1];
    *u = d.stride[0];
    *v = d.stride[1];
    *dilation_h = d.dilation[0];
    *dilation_w = d.dilation[1];
    *mode = d.mode;
    *computeType = d.compute_type;
  });
}

cudnnStatus_t CUDNNWINAPI cudnnSetConvolutionNdDescriptor(cudnnConvolutionDescriptor_t convDesc, int arrayLength,
                                                          const int padA[], const int filterStrideA[],
                                                          const int dilationA[], cudnnConvolutionMode_t mode,
                                                          cudnnDataType_t computeType) {
  return FDNN_GUARDED([&] {
    cudnnConvolutionStruct &d = live_convolution(convDesc, "convDesc");
    set_convolution_nd(d, arrayLength, padA, filterStrideA, dilationA, mode, computeType);
  });
}

cudnnStatus_t CUDNNWINAPI cudnnGetConvolutionNdDescriptor(const cudnnConvolutionDescriptor_t convDesc,
                                                          int arrayLengthRequested, int *arrayLength, int padA[],
                                                          int strideA[], int dilationA[],
                                                          cudnnConvolutionMode_t *mode,
                                                          cudnnDataType_t *computeType) {
  return FDNN_GUARDED([&] {
    const cudnnConvolutionStruct &d = live_convolution(convDesc, "convDesc");
    check_arg(arrayLengthRequested >= 0, "arrayLengthRequested = ", arrayLengthRequested,
              ": must not be negative");
    if (arrayLengthRequested > CUDNN_DIM_MAX - 2)
      fail(CUDNN_STATUS_NOT_SUPPORTED, "arrayLengthRequested = ", arrayLengthRequested, ": at most ",
           CUDNN_DIM_MAX - 2, " spatial dimensions exist");
    // cuDNN answers NOT_SUPPORTED (not BAD_PARAM) for missing outputs here.
    if (arrayLength == nullptr || mode == nullptr || computeType == nullptr)
      fail(CUDNN_STATUS_NOT_SUPPORTED, "arrayLength, mode and computeType must not be NULL");
    // cuDNN writes as many entries as requested, stale ones included.
    const int n = arrayLengthRequested;
    if (n > 0) {
      check_not_null(padA, "padA");
      check_not_null(strideA, "strideA");
      check_not_null(dilationA, "dilationA");
    }
    *arrayLength = d.nb_spatial;
    for (int i = 0; i < n; ++i) {
      padA[i] = d.pad[i];
      strideA[i] = d.stride[i];
      dilationA[i] = d.dilation[i];
    }
    *mode = d.mode;
    *computeType = d.compute_type;
  });
}

cudnnStatus_t CUDNNWINAPI cudnnSetConvolutionGroupCount(cudnnConvolutionDescriptor_t convDesc, int groupCount) {
  return FDNN_GUARDED([&] {
    cudnnConvolutionStruct &d = live_convolution(convDesc, "convDesc");
    check_arg(groupCount > 0, "groupCount = ", groupCount, ": must be positive");
    d.group_count = groupCount;
  });
}

cudnnStatus_t CUDNNWINAPI cudnnGetConvolutionGroupCount(cudnnConvolutionDescriptor_t convDesc, int *groupCount) {
  return FDNN_GUARDED([&] {
    const cudnnConvolutionStruct &d = live_convolution(convDesc, "convDesc");
    check_not_null(groupCount, "groupCount");
    *groupCount = d.group_count;
  });
}

cudnnStatus_t CUDNNWINAPI cudnnSetConvolutionMathType(cudnnConvolutionDescriptor_t convDesc, cudnnMathType_t mathType) {
  return FDNN_GUARDED([&] {
    cudnnConvolutionStruct &d = live_convolution(convDesc, "convDesc");
    check_arg(mathType >= CUDNN_DEFAULT_MATH && mathType <= CUDNN_FMA_MATH, "mathType = ",
              static_cast<int>(mathType), ": expected CUDNN_DEFAULT_MATH (0) .. CUDNN_FMA_MATH (3)");
    d.math_type = mathType;
  });
}

cudnnStatus_t CUDNNWINAPI cudnnGetConvolutionMathType(cudnnConvolutionDescriptor_t convDesc,
                                                      cudnnMathType_t *mathType) {
  return FDNN_GUARDED([&] {
    const cudnnConvolutionStruct &d = live_convolution(convDesc, "convDesc");
    check_not_null(mathType, "mathType");
    *mathType = d.math_type;
  });
}

cudnnStatus_t CUDNNWINAPI cudnnSetConvolutionReorderType(cudnnConvolutionDescriptor_t convDesc,
                                                         cudnnReorderType_t reorderType) {
  return FDNN_GUARDED([&] {
    cudnnConvolutionStruct &d = live_convolution(convDesc, "convDesc");
    check_arg(reorderType == CUDNN_DEFAULT_REORDER || reorderType == CUDNN_NO_REORDER, "reorderType = ",
              static_cast<int>(reorderType), ": expected CUDNN_DEFAULT_REORDER (0) or CUDNN_NO_REORDER (1)");
    d.reorder_type = reorderType;
  });
}

cudnnStatus_t CUDNNWINAPI cudnnGetConvolutionReorderType(cudnnConvolutionDescriptor_t convDesc,
                                                         cudnnReorderType_t *reorderType) {
  return FDNN_GUARDED([&] {
    const cudnnConvolutionStruct &d = live_convolution(convDesc, "convDesc");
    check_not_null(reorderType, "reorderType");
    *reorderType = d.reorder_type;
  });
}

cudnnStatus_t CUDNNWINAPI cudnnGetConvolution2dForwardOutputDim(const cudnnConvolutionDescriptor_t convDesc,
                                                                const cudnnTensorDescriptor_t inputTensorDesc,
                                                                const cudnnFilterDescriptor_t filterDesc, int *n,
                                                                int *c, int *h, int *w) {
  return FDNN_GUARDED([&] {
    const cudnnConvolutionStruct &d = live_convolution(convDesc, "convDesc");
    const cudnnTensorStruct &x = checked_tensor(inputTensorDesc, "inputTensorDesc");
    const cudnnFilterStruct &f = checked_filter(filterDesc, "filterDesc");
    for (const int *p : {n, c, h, w}) check_not_null(p, "an output pointer");
    check_arg(d.nb_spatial == 2, "convDesc has ", d.nb_spatial,
              " spatial dimensions: the 2d query needs a 2-d convolution");
    // cuDNN clears the outputs first and writes N and K before the spatial check.
    *n = *c = *h = *w = 0;
    std::vector<int64_t> partial;
    try {
      const std::vector<int64_t> out = convolution_forward_output_dims(d, x, f, &partial);
      *n = static_cast<int>(out[0]);
      *c = static_cast<int>(out[1]);
      *h = static_cast<int>(out[2]);
      *w = static_cast<int>(out[3]);
    } catch (const Error &) {
      int *outs[4] = {n, c, h, w};
      for (size_t i = 0; i < partial.size() && i < 4; ++i) *outs[i] = static_cast<int>(partial[i]);
      throw;
    }
  });
}

cudnnStatus_t CUDNNWINAPI cudnnGetConvolutionNdForwardOutputDim(const cudnnConvolutionDescriptor_t convDesc,
                                                                const cudnnTensorDescriptor_t inputTensorDesc,
                                                                const cudnnFilterDescriptor_t filterDesc,
                                                                int nbDims, int tensorOuputDimA[]) {
  return FDNN_GUARDED([&] {
    const cudnnConvolutionStruct &d = live_convolution(convDesc, "convDesc");
    const cudnnTensorStruct &x = checked_tensor(inputTensorDesc, "inputTensorDesc");
    const cudnnFilterStruct &f = checked_filter(filterDesc, "filterDesc");
    check_not_null(tensorOuputDimA, "tensorOuputDimA");
    check_arg(nbDims <= d.nb_spatial + 2, "nbDims = ", nbDims, ": the output has only ", d.nb_spatial + 2,
              " dimensions");
    std::vector<int64_t> partial;
    std::vector<int64_t> out;
    // Like cuDNN: N and K are always written, a spatial extent only when
    // nbDims asks for it, and the extents before a failing one stay written.
    const auto write = [&](const std::vector<int64_t> &dims) {
      for (int i = 0; i < static_cast<int>(dims.size()); ++i)
        if (i < 2 || i < nbDims) tensorOuputDimA[i] = static_cast<int>(dims[i]);
    };
    try {
      out = convolution_forward_output_dims(d, x, f, &partial);
    } catch (const Error &) {
      write(partial);
      throw;
    }
    write(out);
  });
}

}  // extern "C"
