// cudnnConvolutionForward, cudnnConvolutionBackwardData,
// cudnnConvolutionBackwardFilter and cudnnConvolutionBackwardBias (cudnnIm2Col:
// convolution_extras.cpp). Each validates like cuDNN and runs one op of the internal
// model (a ConvolutionOp carrying the requested algorithm; a ReductionOp for
// the bias gradient). Algorithm queries: convolution_algorithms.cpp; the
// fused bias-activation call: convolution_bias_activation.cpp.
#include <cstring>
#include <vector>

#include "api/convolution_common.hpp"
#include "api/guard.hpp"
#include "core/dtype.hpp"
#include "core/error.hpp"
#include "core/handle.hpp"

using namespace fdnn;
using namespace fdnn::api;
using graph::ConvDirection;

extern "C" {

// backends: cpu cuda
cudnnStatus_t CUDNNWINAPI cudnnConvolutionForward(cudnnHandle_t handle, const void *alpha,
                                                  const cudnnTensorDescriptor_t xDesc, const void *x,
                                                  const cudnnFilterDescriptor_t wDesc, const void *w,
                                                  const cudnnConvolutionDescriptor_t convDesc,
                                                  cudnnConvolutionFwdAlgo_t algo, void *workSpace,
                                                  size_t workSpaceSizeInBytes, const void *beta,
                                                  const cudnnTensorDescriptor_t yDesc, void *y) {
  const char *fn = __func__;
  return FDNN_GUARDED([&] {
    cudnnContext &h = checked_handle(handle);
    ConvProblem p = convolution_problem(ConvDirection::forward, xDesc, wDesc, convDesc, yDesc, static_cast<int>(algo));
    check_algo_value(p.dir, static_cast<int>(algo));
    check_not_null(x, "x");
    check_not_null(w, "w");
    check_not_null(y, "y");
    check_not_null(alpha, "alpha");
    check_not_null(beta, "beta");
    const cudnnDataType_t out = yDesc->dtype;
    run_convolution(h, fn, p, x, w, y, read_scaling(alpha, out), read_scaling(beta, out), workSpace,
                    workSpaceSizeInBytes);
  });
}

// backends: cpu cuda
cudnnStatus_t CUDNNWINAPI cudnnConvolutionBackwardData(cudnnHandle_t handle, const void *alpha,
                                                       const cudnnFilterDescriptor_t wDesc, const void *w,
                                                       const cudnnTensorDescriptor_t dyDesc, const void *dy,
                                                       const cudnnConvolutionDescriptor_t convDesc,
                                                       cudnnConvolutionBwdDataAlgo_t algo, void *workSpace,
                                                       size_t workSpaceSizeInBytes, const void *beta,
                                                       const cudnnTensorDescriptor_t dxDesc, void *dx) {
  const char *fn = __func__;
  return FDNN_GUARDED([&] {
    cudnnContext &h = checked_handle(handle);
    ConvProblem p =
        convolution_problem(ConvDirection::backward_data, dxDesc, wDesc, convDesc, dyDesc, static_cast<int>(algo));
    check_algo_value(p.dir, static_cast<int>(algo));
    check_not_null(w, "w");
    check_not_null(dy, "dy");
    check_not_null(dx, "dx");
    check_not_null(alpha, "alpha");
    check_not_null(beta, "beta");
    const cudnnDataType_t out = dxDesc->dtype;
    run_convolution(h, fn, p, dx, w, dy, read_scaling(alpha, out), read_scaling(beta, out), workSpace,
                    workSpaceSizeInBytes);
  });
}

// backends: cpu cuda
cudnnStatus_t CUDNNWINAPI cudnnConvolutionBackwardFilter(cudnnHandle_t handle, const void *alpha,
                                                         const cudnnTensorDescriptor_t xDesc, const void *x,
                                                         const cudnnTensorDescriptor_t dyDesc, const void *dy,
                                                         const cudnnConvolutionDescriptor_t convDesc,
                                                         cudnnConvolutionBwdFilterAlgo_t algo, void *workSpace,
                                                         size_t workSpaceSizeInBytes, const void *beta,
                                                         const cudnnFilterDescriptor_t dwDesc, void *dw) {
  const char *fn = __func__;
  return FDNN_GUARDED([&] {
    cudnnContext &h = checked_handle(handle);
    ConvProblem p =
        convolution_problem(ConvDirection::backward_filter, xDesc, dwDesc, convDesc, dyDesc, static_cast<int>(algo));
    check_algo_value(p.dir, static_cast<int>(algo));
    check_not_null(x, "x");
    check_not_null(dy, "dy");
    check_not_null(dw, "dw");
    check_not_null(alpha, "alpha");
    check_not_null(beta, "beta");
    const cudnnDataType_t out = dwDesc->dtype;
    run_convolution(h, fn, p, x, dw, dy, read_scaling(alpha, out), read_scaling(beta, out), workSpace,
                    workSpaceSizeInBytes);
  });
}

// db = alpha * (dy summed over every dimension but C) + beta * db: a
// reduction of the internal model.
// backends: cpu cuda
cudnnStatus_t CUDNNWINAPI cudnnConvolutionBackwardBias(cudnnHandle_t handle, const void *alpha,
                                                       const cudnnTensorDescriptor_t dyDesc, const void *dy,
                                                       const void *beta, const cudnnTensorDescriptor_t dbDesc,
                                                       void *db) {
  const char *fn = __func__;
  return FDNN_GUARDED([&] {
    cudnnContext &h = checked_handle(handle);
    const cudnnTensorStruct &dyd = checked_tensor(dyDesc, "dyDesc");
    const cudnnTensorStruct &dbd = checked_tensor(dbDesc, "dbDesc");
    check_not_null(dy, "dy");
    check_not_null(db, "db");
    check_not_null(alpha, "alpha");
    check_not_null(beta, "beta");
    check_arg(dyd.dtype == dbd.dtype, "dyDesc is ", type_info(dyd.dtype).enum_name, " but dbDesc is ",
              type_info(dbd.dtype).enum_name, "; they must match");
    check_arg(dbd.nb_dims == dyd.nb_dims, "dbDesc has ", dbd.nb_dims, " dimensions but dyDesc has ", dyd.nb_dims);
    check_arg(dyd.nb_dims >= 3, "dyDesc has ", dyd.nb_dims, " dimensions; at least 3 are needed");
    check_arg(dbd.dims[1] == dyd.dims[1], "dbDesc has ", dbd.dims[1], " channels but dyDesc has ", dyd.dims[1]);
    for (int i = 0; i < dbd.nb_dims; ++i)
      check_arg(i == 1 || dbd.dims[i] == 1, "dbDesc dimension ", i, " is ", dbd.dims[i],
                "; the bias gradient has shape 1 x C x 1 ... x 1");
    const cudnnDataType_t t = dyd.dtype;
    // BFLOAT16 is NOT_SUPPORTED as in cuDNN 9 (measured on an H100).
    check_supported(t == CUDNN_DATA_FLOAT || t == CUDNN_DATA_DOUBLE || t == CUDNN_DATA_HALF,
                    "cudnnConvolutionBackwardBias supports FLOAT, DOUBLE and HALF, not ", type_info(t).enum_name);
    graph::Graph g;
    graph::ReductionOp op;
    op.mode = CUDNN_REDUCE_TENSOR_ADD;
    op.compute_type = t == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
    op.x = g.add_tensor_auto(to_graph_tensor(dyd));
    op.y = g.add_tensor_auto(to_graph_tensor(dbd));
    op.blend.alpha = read_scaling(alpha, t);
    op.blend.beta = read_scaling(beta, t);
    g.add_op(op);
    VariantPack pack;
    pack.set(op.x, dy);
    pack.set(op.y, db);
    run_graph(h, fn, g, pack);
  });
}

}  // extern "C"
