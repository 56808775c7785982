// The LRN descriptor and cudnnLRNCrossChannelForward / Backward. Each compute
// call validates like cuDNN 9, then becomes one graph::LrnOp (cross-channel)
// run through the engines. (Divisive normalization: divisive_normalization.cpp.)
#include <cmath>

#include "api/guard.hpp"
#include "api/lrn_common.hpp"
#include "core/handle.hpp"
#include "core/op_support.hpp"
#include "graph/graph.hpp"

using namespace fdnn;
using namespace fdnn::api;

namespace {

// cuDNN 9 rejects windows outside CUDNN_LRN_MIN_N..CUDNN_LRN_MAX_N, beta below
// CUDNN_LRN_MIN_BETA and k below CUDNN_LRN_MIN_K with BAD_PARAM (measured on
// cuDNN 9.19: NaN passes, as its comparisons are false; alpha is free).
void check_lrn_params(unsigned n, double beta, double k) {
  check_arg(n >= CUDNN_LRN_MIN_N && n <= CUDNN_LRN_MAX_N, "lrnN = ", n, ": expected ", CUDNN_LRN_MIN_N, " to ",
            CUDNN_LRN_MAX_N);
  check_arg(!(beta < CUDNN_LRN_MIN_BETA), "lrnBeta = ", beta, ": expected at least CUDNN_LRN_MIN_BETA (",
            CUDNN_LRN_MIN_BETA, ")");
  check_arg(!(k < CUDNN_LRN_MIN_K), "lrnK = ", k, ": expected at least CUDNN_LRN_MIN_K (", CUDNN_LRN_MIN_K, ")");
}

// cuDNN 9.19 does not look at lrnMode (any value runs the cross-channel
// LRN, measured), so neither do we.

// The layouts cudnnLRNCrossChannel* take (measured on cuDNN 9.19): 3 to 8
// dimensions with non-negative strides (NOT_SUPPORTED otherwise); a 5-d
// tensor must have D, H, W packed in NCDHW order, else BAD_PARAM in forward
// and NOT_SUPPORTED in backward.
void check_lrn_tensor(const cudnnTensorStruct &d, const char *name, cudnnStatus_t unpacked_5d) {
  check_arg(d.nb_dims >= 3, name, " has ", d.nb_dims, " dimensions; LRN takes 3 to 8");
  check_lrn_type(d, name);
  check_supported(!has_negative_stride(d), name, " has a negative stride; LRN takes non-negative strides");
  if (d.nb_dims == 5 &&
      !(d.strides[4] == 1 && d.strides[3] == d.dims[4] && d.strides[2] == d.dims[3] * d.dims[4]))
    fail(unpacked_5d, name, " is 5-d but its D, H, W are not packed in NCDHW order (strides ", d.strides[2], ",",
         d.strides[3], ",", d.strides[4], "); 5-d LRN needs DHW-packed NCDHW");
}

// Types and dims of two operands must match: BAD_PARAM in forward,
// NOT_SUPPORTED in backward (cuDNN 9.19).
void check_matches(const cudnnTensorStruct &a, const char *an, const cudnnTensorStruct &b, const char *bn,
                   cudnnStatus_t status) {
  if (a.dtype != b.dtype)
    fail(status, an, " has data type ", type_info(a.dtype).enum_name, " but ", bn, " has ",
         type_info(b.dtype).enum_name, "; LRN needs one type");
  if (!same_dims(a, b)) fail(status, an, " and ", bn, " have different dimensions");
}

void check_output(const cudnnTensorStruct &d, const char *name) {
  check_supported(!has_overlapping_elements(to_graph_tensor(d)), name,
                  " has a zero stride on a dimension of extent above 1; LRN writes non-overlapping tensors");
}

}  // namespace

extern "C" {

cudnnStatus_t CUDNNWINAPI cudnnCreateLRNDescriptor(cudnnLRNDescriptor_t *normDesc) {
  return FDNN_GUARDED([&] { create_descriptor(normDesc, "normDesc"); });
}

cudnnStatus_t CUDNNWINAPI cudnnDestroyLRNDescriptor(cudnnLRNDescriptor_t lrnDesc) {
  return FDNN_GUARDED([&] { destroy_descriptor(lrnDesc, "lrnDesc", "LRN"); });
}

cudnnStatus_t CUDNNWINAPI cudnnSetLRNDescriptor(cudnnLRNDescriptor_t normDesc, unsigned lrnN, double lrnAlpha,
                                                double lrnBeta, double lrnK) {
  return FDNN_GUARDED([&] {
    cudnnLRNStruct &d = live_descriptor(normDesc, "normDesc", "LRN");
    check_lrn_params(lrnN, lrnBeta, lrnK);
    d.n = lrnN;
    d.alpha = lrnAlpha;
    d.beta = lrnBeta;
    d.k = lrnK;
  });
}

cudnnStatus_t CUDNNWINAPI cudnnGetLRNDescriptor(cudnnLRNDescriptor_t normDesc, unsigned *lrnN, double *lrnAlpha,
                                                double *lrnBeta, double *lrnK) {
  return FDNN_GUARDED([&] {
    const cudnnLRNStruct &d = live_descriptor(normDesc, "normDesc", "LRN");
    // Every out-pointer is optional (as in cuDNN).
    if (lrnN != nullptr) *lrnN = d.n;
    if (lrnAlpha != nullptr) *lrnAlpha = d.alpha;
    if (lrnBeta != nullptr) *lrnBeta = d.beta;
    if (lrnK != nullptr) *lrnK = d.k;
  });
}

// backends: cpu cuda
cudnnStatus_t CUDNNWINAPI cudnnLRNCrossChannelForward(cudnnHandle_t handle, cudnnLRNDescriptor_t normDesc,
                                                      cudnnLRNMode_t lrnMode, const void *alpha,
                                                      const cudnnTensorDescriptor_t xDesc, const void *x,
                                                      const void *beta, const cudnnTensorDescriptor_t yDesc, void *y) {
  const char *fn = __func__;  // inside the lambda __func__ would be "operator()"
  return FDNN_GUARDED([&] {
    const LrnCall call = begin_lrn_call(handle, normDesc, alpha, beta);
    (void)lrnMode;
    const cudnnTensorStruct &xd = checked_tensor(xDesc, "xDesc");
    const cudnnTensorStruct &yd = checked_tensor(yDesc, "yDesc");
    check_not_null(x, "x");
    check_not_null(y, "y");
    check_matches(xd, "xDesc", yd, "yDesc", CUDNN_STATUS_BAD_PARAM);
    check_lrn_tensor(xd, "xDesc", CUDNN_STATUS_BAD_PARAM);
    check_lrn_tensor(yd, "yDesc", CUDNN_STATUS_BAD_PARAM);
    check_output(yd, "yDesc");

    graph::Graph g;
    VariantPack pack;
    graph::LrnOp op = lrn_call_op(call.desc, graph::LrnKind::cross_channel, false, xd, yd, alpha, beta);
    op.x = add_bound_tensor(g, pack, xd, x);
    op.y = add_bound_tensor(g, pack, yd, y);
    g.add_op(op);
    run_graph(call.handle, fn, g, pack);
  });
}

// backends: cpu cuda
cudnnStatus_t CUDNNWINAPI cudnnLRNCrossChannelBackward(cudnnHandle_t handle, cudnnLRNDescriptor_t normDesc,
                                                       cudnnLRNMode_t lrnMode, const void *alpha,
                                                       const cudnnTensorDescriptor_t yDesc, const void *y,
                                                       const cudnnTensorDescriptor_t dyDesc, const void *dy,
                                                       const cudnnTensorDescriptor_t xDesc, const void *x,
                                                       const void *beta, const cudnnTensorDescriptor_t dxDesc,
                                                       void *dx) {
  const char *fn = __func__;  // inside the lambda __func__ would be "operator()"
  return FDNN_GUARDED([&] {
    const LrnCall call = begin_lrn_call(handle, normDesc, alpha, beta);
    (void)lrnMode;
    const cudnnTensorStruct &yd = checked_tensor(yDesc, "yDesc");
    const cudnnTensorStruct &dyd = checked_tensor(dyDesc, "dyDesc");
    const cudnnTensorStruct &xd = checked_tensor(xDesc, "xDesc");
    const cudnnTensorStruct &dxd = checked_tensor(dxDesc, "dxDesc");
    // y is not read: cuDNN recomputes it from x (and accepts y == NULL).
    check_not_null(dy, "dy");
    check_not_null(x, "x");
    check_not_null(dx, "dx");
    check_lrn_tensor(yd, "yDesc", CUDNN_STATUS_NOT_SUPPORTED);
    check_lrn_tensor(dyd, "dyDesc", CUDNN_STATUS_NOT_SUPPORTED);
    check_lrn_tensor(xd, "xDesc", CUDNN_STATUS_NOT_SUPPORTED);
    check_lrn_tensor(dxd, "dxDesc", CUDNN_STATUS_NOT_SUPPORTED);
    check_matches(xd, "xDesc", yd, "yDesc", CUDNN_STATUS_NOT_SUPPORTED);
    check_matches(xd, "xDesc", dyd, "dyDesc", CUDNN_STATUS_NOT_SUPPORTED);
    check_matches(xd, "xDesc", dxd, "dxDesc", CUDNN_STATUS_NOT_SUPPORTED);
    check_output(dxd, "dxDesc");

    graph::Graph g;
    VariantPack pack;
    graph::LrnOp op = lrn_call_op(call.desc, graph::LrnKind::cross_channel, true, xd, dxd, alpha, beta);
    op.x = add_bound_tensor(g, pack, xd, x);
    op.dy = add_bound_tensor(g, pack, dyd, dy);
    op.dx = add_bound_tensor(g, pack, dxd, dx);
    g.add_op(op);
    run_graph(call.handle, fn, g, pack);
  });
}

}  // extern "C"
