// cudnnSoftmaxForward / cudnnSoftmaxBackward: validate like cuDNN, then one
// SoftmaxOp over the mode's axes (INSTANCE: C and every spatial dim per n;
// CHANNEL: C per n and spatial position) run through the softmax engines.
#include "api/guard.hpp"
#include "core/dtype.hpp"
#include "core/handle.hpp"
#include "core/tensor_desc.hpp"
#include "graph/graph.hpp"

using namespace fdnn;

namespace {

void check_algorithm_and_mode(cudnnSoftmaxAlgorithm_t algo, cudnnSoftmaxMode_t mode) {
  check_arg(algo == CUDNN_SOFTMAX_FAST || algo == CUDNN_SOFTMAX_ACCURATE || algo == CUDNN_SOFTMAX_LOG,
            "algorithm = ", static_cast<int>(algo), ": expected CUDNN_SOFTMAX_FAST (0), ACCURATE (1) or LOG (2)");
  check_arg(mode == CUDNN_SOFTMAX_MODE_INSTANCE || mode == CUDNN_SOFTMAX_MODE_CHANNEL, "mode = ",
            static_cast<int>(mode), ": expected CUDNN_SOFTMAX_MODE_INSTANCE (0) or CUDNN_SOFTMAX_MODE_CHANNEL (1)");
}

// FLOAT, DOUBLE, HALF, BFLOAT16; the forward call also takes INT8 (cuDNN
// 9.19 accepts it there, not backward).
void check_softmax_type(const cudnnTensorStruct &d, const char *name, bool allow_int8) {
  const cudnnDataType_t t = d.dtype;
  check_supported(t == CUDNN_DATA_FLOAT || t == CUDNN_DATA_DOUBLE || t == CUDNN_DATA_HALF || t == CUDNN_DATA_BFLOAT16 ||
                      (allow_int8 && t == CUDNN_DATA_INT8),
                  name, " has data type ", type_info(t).enum_name,
                  allow_int8 ? "; softmax supports FLOAT, DOUBLE, HALF, BFLOAT16 and INT8"
                             : "; softmax backward supports FLOAT, DOUBLE, HALF and BFLOAT16");
  check_supported(d.vect_count == 1, name, " is a vectorised (NCHW_VECT_C) tensor; softmax takes scalar layouts");
}

void check_same_shape(const cudnnTensorStruct &a, const char *an, const cudnnTensorStruct &b, const char *bn) {
  bool same = a.nb_dims == b.nb_dims;
  for (int i = 0; same && i < a.nb_dims; ++i) same = a.dims[i] == b.dims[i];
  check_arg(same, bn, " has other dimensions than ", an, " (", to_graph_tensor(b).to_string(), " vs ",
            to_graph_tensor(a).to_string(), ")");
  check_arg(a.dtype == b.dtype, bn, " has data type ", type_info(b.dtype).enum_name, " but ", an, " has ",
            type_info(a.dtype).enum_name);
}

bool same_strides(const cudnnTensorStruct &a, const cudnnTensorStruct &b) {
  for (int i = 0; i < a.nb_dims; ++i)
    if (a.strides[i] != b.strides[i]) return false;
  return true;
}

std::vector<int> axes_for(cudnnSoftmaxMode_t mode, int rank) {
  if (mode == CUDNN_SOFTMAX_MODE_CHANNEL) return {1};
  std::vector<int> axes;
  for (int d = 1; d < rank; ++d) axes.push_back(d);
  return axes;
}

graph::SoftmaxOp make_op(cudnnSoftmaxAlgorithm_t algo, cudnnSoftmaxMode_t mode, const cudnnTensorStruct &d,
                         const void *alpha, const void *beta, bool backward) {
  graph::SoftmaxOp op;
  op.backward = backward;
  op.algorithm = algo;
  op.compute_type = d.dtype == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
  op.axes = axes_for(mode, d.nb_dims);
  op.blend.alpha = read_scaling(alpha, d.dtype);
  op.blend.beta = read_scaling(beta, d.dtype);
  return op;
}

}  // namespace

extern "C" {

// backends: cpu cuda
cudnnStatus_t CUDNNWINAPI cudnnSoftmaxForward(cudnnHandle_t handle, cudnnSoftmaxAlgorithm_t algorithm,
                                              cudnnSoftmaxMode_t mode, const void *alpha,
                                              const cudnnTensorDescriptor_t xDesc, const void *x, const void *beta,
                                              const cudnnTensorDescriptor_t yDesc, void *y) {
  const char *fn = __func__;  // inside the lambda __func__ would be "operator()"
  return FDNN_GUARDED([&] {
    cudnnContext &h = checked_handle(handle);
    check_algorithm_and_mode(algorithm, mode);
    const cudnnTensorStruct &xd = checked_tensor(xDesc, "xDesc");
    const cudnnTensorStruct &yd = checked_tensor(yDesc, "yDesc");
    check_not_null(alpha, "alpha");
    check_not_null(beta, "beta");
    check_not_null(x, "x");
    check_not_null(y, "y");
    check_same_shape(xd, "xDesc", yd, "yDesc");
    check_softmax_type(xd, "xDesc", true);
    // (cuDNN 9.19 accepts x == y with different strides; so do we, with
    // results as undefined as theirs.)

    graph::Graph g;
    graph::SoftmaxOp op = make_op(algorithm, mode, xd, alpha, beta, false);
    op.x = g.add_tensor_auto(to_graph_tensor(xd));
    op.y = g.add_tensor_auto(to_graph_tensor(yd));
    g.add_op(op);
    VariantPack pack;
    pack.set(op.x, x);
    pack.set(op.y, y);
    run_graph(h, fn, g, pack);
  });
}

// backends: cpu cuda
cudnnStatus_t CUDNNWINAPI cudnnSoftmaxBackward(cudnnHandle_t handle, cudnnSoftmaxAlgorithm_t algorithm,
                                               cudnnSoftmaxMode_t mode, const void *alpha,
                                               const cudnnTensorDescriptor_t yDesc, const void *y,
                                               const cudnnTensorDescriptor_t dyDesc, const void *dy,
                                               const void *beta, const cudnnTensorDescriptor_t dxDesc, void *dx) {
  const char *fn = __func__;  // inside the lambda __func__ would be "operator()"
  return FDNN_GUARDED([&] {
    cudnnContext &h = checked_handle(handle);
    check_algorithm_and_mode(algorithm, mode);
    const cudnnTensorStruct &yd = checked_tensor(yDesc, "yDesc");
    const cudnnTensorStruct &dyd = checked_tensor(dyDesc, "dyDesc");
    const cudnnTensorStruct &dxd = checked_tensor(dxDesc, "dxDesc");
    check_not_null(alpha, "alpha");
    check_not_null(beta, "beta");
    check_not_null(y, "y");
    check_not_null(dy, "dy");
    check_not_null(dx, "dx");
    check_same_shape(yd, "yDesc", dyd, "dyDesc");
    check_same_shape(yd, "yDesc", dxd, "dxDesc");
    check_softmax_type(yd, "yDesc", false);
    // cuDNN 9.19 answers BAD_PARAM when dy's strides differ from y's; dx may
    // have any layout, even in place (tests/oracle_gpu/softmax_gpu.c,
    // sm.bad.bwd.layouts, sm.bad.probe.bwd.dx_layout, sm.bad.bwd.inplace_strides).
    check_arg(same_strides(yd, dyd), "dyDesc has other strides than yDesc");

    graph::Graph g;
    graph::SoftmaxOp op = make_op(algorithm, mode, yd, alpha, beta, true);
    op.y = g.add_tensor_auto(to_graph_tensor(yd));
    op.dy = g.add_tensor_auto(to_graph_tensor(dyd));
    op.dx = g.add_tensor_auto(to_graph_tensor(dxd));
    g.add_op(op);
    VariantPack pack;
    pack.set(op.y, y);
    pack.set(op.dy, dy);
    pack.set(op.dx, dx);
    run_graph(h, fn, g, pack);
  });
}

}  // extern "C"
