// cudnnDivisiveNormalizationForward / Backward (CUDNN_DIVNORM_PRECOMPUTED_MEANS):
// validated like cuDNN 9, then one graph::LrnOp of kind divisive. The temp and
// temp2 buffers the API hands over are checked but not needed: the engines
// compute the window sums without a scratch tensor.
#include "api/guard.hpp"
#include "api/lrn_common.hpp"
#include "core/handle.hpp"
#include "core/op_support.hpp"
#include "graph/graph.hpp"

using namespace fdnn;
using namespace fdnn::api;

namespace {

// cuDNN 9.19 does not look at the mode (any value runs
// PRECOMPUTED_MEANS, measured), so neither do we.

// 4-d and 5-d tensors with non-negative strides (the seed: "Number of ...
// dimensions is outside of [4, 5]" and "Any of the tensor strides are
// negative" are BAD_PARAM).
void check_divnorm_tensor(const cudnnTensorStruct &d, const char *name) {
  check_arg(d.nb_dims == 4 || d.nb_dims == 5, name, " has ", d.nb_dims,
            " dimensions; divisive normalization takes 4-d and 5-d tensors");
  check_lrn_type(d, name);
  check_arg(!has_negative_stride(d), name, " has a negative stride; divisive normalization takes non-negative strides");
}

// Output and input strides must agree dimension by dimension (NOT_SUPPORTED),
// their dims and types must match (BAD_PARAM), as in cuDNN 9.19.
void check_pair(const cudnnTensorStruct &in, const char *in_name, const cudnnTensorStruct &out, const char *out_name) {
  check_arg(same_dims(in, out), in_name, " and ", out_name, " have different dimensions");
  check_arg(in.dtype == out.dtype, in_name, " has data type ", type_info(in.dtype).enum_name, " but ", out_name,
                  " has ", type_info(out.dtype).enum_name, "; divisive normalization needs one type");
  check_supported(same_strides(in, out), in_name, " and ", out_name,
                  " have different strides; divisive normalization needs the same layout");
  check_supported(!has_overlapping_elements(to_graph_tensor(out)), out_name,
                  " has a zero stride on a dimension of extent above 1; outputs must not overlap");
}

// x and the output (y or dx) of one call.
void check_divnorm_io(const cudnnTensorStruct &x, const cudnnTensorStruct &out, const char *out_name) {
  check_divnorm_tensor(x, "xDesc");
  check_divnorm_tensor(out, out_name);
  check_pair(x, "xDesc", out, out_name);
}

// The op of one call with x and the optional means (x's layout) bound.
graph::LrnOp divnorm_op(graph::Graph &g, VariantPack &pack, const LrnCall &call, bool backward,
                        const cudnnTensorStruct &xd, const cudnnTensorStruct &out, const void *alpha,
                        const void *beta, const void *x, const void *means) {
  graph::LrnOp op = lrn_call_op(call.desc, graph::LrnKind::divisive, backward, xd, out, alpha, beta);
  op.x = add_bound_tensor(g, pack, xd, x);
  if (means != nullptr) op.means = add_bound_tensor(g, pack, xd, means);
  return op;
}

}  // namespace

extern "C" {

// backends: cpu cuda
cudnnStatus_t CUDNNWINAPI cudnnDivisiveNormalizationForward(cudnnHandle_t handle, cudnnLRNDescriptor_t normDesc,
                                                            cudnnDivNormMode_t mode, const void *alpha,
                                                            const cudnnTensorDescriptor_t xDesc, const void *x,
                                                            const void *means, void *temp, void *temp2,
                                                            const void *beta, const cudnnTensorDescriptor_t yDesc,
                                                            void *y) {
  const char *fn = __func__;  // inside the lambda __func__ would be "operator()"
  return FDNN_GUARDED([&] {
    const LrnCall call = begin_lrn_call(handle, normDesc, alpha, beta);
    (void)mode;
    const cudnnTensorStruct &xd = checked_tensor(xDesc, "xDesc");
    const cudnnTensorStruct &yd = checked_tensor(yDesc, "yDesc");
    check_not_null(x, "x");
    check_not_null(y, "y");
    check_not_null(temp, "temp");
    check_not_null(temp2, "temp2");
    check_divnorm_io(xd, yd, "yDesc");

    graph::Graph g;
    VariantPack pack;
    graph::LrnOp op = divnorm_op(g, pack, call, false, xd, yd, alpha, beta, x, means);
    op.y = add_bound_tensor(g, pack, yd, y);
    g.add_op(op);
    run_graph(call.handle, fn, g, pack);
  });
}

// backends: cpu cuda
cudnnStatus_t CUDNNWINAPI cudnnDivisiveNormalizationBackward(cudnnHandle_t handle, cudnnLRNDescriptor_t normDesc,
                                                             cudnnDivNormMode_t mode, const void *alpha,
                                                             const cudnnTensorDescriptor_t xDesc, const void *x,
                                                             const void *means, const void *dy, void *temp,
                                                             void *temp2, const void *beta,
                                                             const cudnnTensorDescriptor_t dXdMeansDesc, void *dx,
                                                             void *dMeans) {
  const char *fn = __func__;  // inside the lambda __func__ would be "operator()"
  return FDNN_GUARDED([&] {
    const LrnCall call = begin_lrn_call(handle, normDesc, alpha, beta);
    (void)mode;
    const cudnnTensorStruct &xd = checked_tensor(xDesc, "xDesc");
    const cudnnTensorStruct &dxd = checked_tensor(dXdMeansDesc, "dXdMeansDesc");
    check_not_null(x, "x");
    check_not_null(dy, "dy");
    check_not_null(dx, "dx");
    check_not_null(temp, "temp");
    check_not_null(temp2, "temp2");
    check_divnorm_io(xd, dxd, "dXdMeansDesc");

    graph::Graph g;
    VariantPack pack;
    graph::LrnOp op = divnorm_op(g, pack, call, true, xd, dxd, alpha, beta, x, means);
    op.dy = add_bound_tensor(g, pack, xd, dy);
    op.dx = add_bound_tensor(g, pack, dxd, dx);
    // dMeans is optional ("can be NULL" in cuDNN's header).
    if (dMeans != nullptr) op.dmeans = add_bound_tensor(g, pack, dxd, dMeans);
    g.add_op(op);
    run_graph(call.handle, fn, g, pack);
  });
}

}  // extern "C"
