// cudnnPoolingForward and cudnnPoolingBackward: each validates like cuDNN,
// then becomes one ResampleOp (the backend API's resample operation) run
// through the engines.
#include <string>

#include "api/guard.hpp"
#include "core/dtype.hpp"
#include "core/handle.hpp"
#include "core/pooling_descriptors.hpp"
#include "core/tensor_desc.hpp"
#include "graph/graph.hpp"

using namespace fdnn;

namespace {

// cuDNN pools over 2 or 3 spatial dimensions (4-d and 5-d tensors).
void check_pooling_rank(const cudnnPoolingStruct &p) {
  check_supported(p.nb_dims == 2 || p.nb_dims == 3, "poolingDesc has ", p.nb_dims,
                  " spatial dimensions; pooling supports 2 (4-d tensors) and 3 (5-d tensors)");
}

void check_tensor_rank(const cudnnPoolingStruct &p, const cudnnTensorStruct &t, const char *name) {
  check_arg(t.nb_dims == p.nb_dims + 2, name, " has ", t.nb_dims, " dimensions but poolingDesc has ", p.nb_dims,
            " spatial dimensions (expected ", p.nb_dims + 2, ")");
}

void check_same_type(const cudnnTensorStruct &a, const char *an, const cudnnTensorStruct &b, const char *bn) {
  check_arg(a.dtype == b.dtype, an, " has data type ", type_info(a.dtype).enum_name, " but ", bn, " has ",
            type_info(b.dtype).enum_name, "; pooling needs one type");
}

void check_same_dims(const cudnnTensorStruct &a, const char *an, const cudnnTensorStruct &b, const char *bn) {
  for (int d = 0; d < a.nb_dims; ++d)
    check_arg(a.dims[d] == b.dims[d], an, " dim ", d, " = ", a.dims[d], " but ", bn, " dim ", d, " = ", b.dims[d],
              "; they must match");
}

// N and C of the input and output must agree.
void check_batch_channels(const cudnnTensorStruct &in, const char *in_name, const cudnnTensorStruct &out,
                          const char *out_name) {
  for (int d = 0; d < 2; ++d)
    check_arg(in.dims[d] == out.dims[d], in_name, " dim ", d, " = ", in.dims[d], " but ", out_name, " dim ", d,
              " = ", out.dims[d], "; pooling keeps N and C");
}

void check_pooling_type(const cudnnTensorStruct &t, const char *name, bool backward) {
  check_supported(t.vect_count == 1, name, " has a vector layout; pooling supports scalar types");
  const cudnnDataType_t d = t.dtype;
  const bool ok = d == CUDNN_DATA_FLOAT || d == CUDNN_DATA_DOUBLE || d == CUDNN_DATA_HALF ||
                  d == CUDNN_DATA_BFLOAT16 || (!backward && d == CUDNN_DATA_INT8);
  check_supported(ok, name, " has data type ", type_info(d).enum_name, "; pooling ", backward ? "backward" : "forward",
                  " supports FLOAT, DOUBLE, HALF, BFLOAT16", backward ? "" : " and INT8");
}

graph::ResampleOp make_op(const cudnnPoolingStruct &p, cudnnDataType_t dtype) {
  graph::ResampleOp op;
  switch (p.mode) {
    case CUDNN_POOLING_MAX:
    case CUDNN_POOLING_MAX_DETERMINISTIC:
      op.mode = CUDNN_RESAMPLE_MAXPOOL;
      op.padding_mode = CUDNN_NEG_INF_PAD;
      break;
    case CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING:
      op.mode = CUDNN_RESAMPLE_AVGPOOL_INCLUDE_PADDING;
      op.padding_mode = CUDNN_ZERO_PAD;
      break;
    case CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING:
      op.mode = CUDNN_RESAMPLE_AVGPOOL_EXCLUDE_PADDING;
      op.padding_mode = CUDNN_ZERO_PAD;
      break;
    default: fail(CUDNN_STATUS_BAD_PARAM, "poolingDesc has mode ", static_cast<int>(p.mode));
  }
  op.deterministic = p.mode == CUDNN_POOLING_MAX_DETERMINISTIC;
  op.nan_propagation = p.nan_propagation;
  op.compute_type = dtype == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
  for (int d = 0; d < p.nb_dims; ++d) {
    op.window.push_back(p.window[d]);
    op.pre_padding.push_back(p.padding[d]);
    op.post_padding.push_back(p.padding[d]);
    op.strides.push_back(p.stride[d]);
  }
  return op;
}

}  // namespace

extern "C" {

// backends: cpu cuda
cudnnStatus_t CUDNNWINAPI cudnnPoolingForward(cudnnHandle_t handle, const cudnnPoolingDescriptor_t poolingDesc,
                                              const void *alpha, const cudnnTensorDescriptor_t xDesc, const void *x,
                                              const void *beta, const cudnnTensorDescriptor_t yDesc, void *y) {
  const char *fn = __func__;  // inside the lambda __func__ would be "operator()"
  return FDNN_GUARDED([&] {
    cudnnContext &h = checked_handle(handle);
    const cudnnPoolingStruct &p = checked_pooling(poolingDesc, "poolingDesc");
    const cudnnTensorStruct &xd = checked_tensor(xDesc, "xDesc");
    const cudnnTensorStruct &yd = checked_tensor(yDesc, "yDesc");
    check_not_null(alpha, "alpha");
    check_not_null(beta, "beta");
    check_not_null(x, "x");
    check_not_null(y, "y");
    check_same_type(xd, "xDesc", yd, "yDesc");
    check_pooling_type(xd, "xDesc", false);
    check_pooling_rank(p);
    check_tensor_rank(p, xd, "xDesc");
    check_tensor_rank(p, yd, "yDesc");
    check_batch_channels(xd, "xDesc", yd, "yDesc");

    graph::Graph g;
    graph::ResampleOp op = make_op(p, xd.dtype);
    op.blend.alpha = read_scaling(alpha, xd.dtype);
    op.blend.beta = read_scaling(beta, xd.dtype);
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
cudnnStatus_t CUDNNWINAPI cudnnPoolingBackward(cudnnHandle_t handle, const cudnnPoolingDescriptor_t poolingDesc,
                                               const void *alpha, const cudnnTensorDescriptor_t yDesc, const void *y,
                                               const cudnnTensorDescriptor_t dyDesc, const void *dy,
                                               const cudnnTensorDescriptor_t xDesc, const void *xData,
                                               const void *beta, const cudnnTensorDescriptor_t dxDesc, void *dx) {
  const char *fn = __func__;  // inside the lambda __func__ would be "operator()"
  return FDNN_GUARDED([&] {
    cudnnContext &h = checked_handle(handle);
    const cudnnPoolingStruct &p = checked_pooling(poolingDesc, "poolingDesc");
    const cudnnTensorStruct &yd = checked_tensor(yDesc, "yDesc");
    const cudnnTensorStruct &dyd = checked_tensor(dyDesc, "dyDesc");
    const cudnnTensorStruct &xd = checked_tensor(xDesc, "xDesc");
    const cudnnTensorStruct &dxd = checked_tensor(dxDesc, "dxDesc");
    check_not_null(alpha, "alpha");
    check_not_null(beta, "beta");
    check_not_null(y, "y");
    check_not_null(dy, "dy");
    check_not_null(xData, "x");
    check_not_null(dx, "dx");
    check_same_type(xd, "xDesc", yd, "yDesc");
    check_same_type(xd, "xDesc", dyd, "dyDesc");
    check_same_type(xd, "xDesc", dxd, "dxDesc");
    check_pooling_type(xd, "xDesc", true);
    check_pooling_rank(p);
    check_tensor_rank(p, xd, "xDesc");
    check_tensor_rank(p, yd, "yDesc");
    check_tensor_rank(p, dyd, "dyDesc");
    check_tensor_rank(p, dxd, "dxDesc");
    check_same_dims(yd, "yDesc", dyd, "dyDesc");
    check_same_dims(xd, "xDesc", dxd, "dxDesc");
    check_batch_channels(xd, "xDesc", yd, "yDesc");

    graph::Graph g;
    graph::ResampleOp op = make_op(p, xd.dtype);
    op.backward = true;
    op.blend.alpha = read_scaling(alpha, xd.dtype);
    op.blend.beta = read_scaling(beta, xd.dtype);
    op.dy = g.add_tensor_auto(to_graph_tensor(dyd));
    op.dx = g.add_tensor_auto(to_graph_tensor(dxd));
    VariantPack pack;
    pack.set(op.dy, dy);
    pack.set(op.dx, dx);
    if (op.is_max()) {  // the average's gradient reads neither x nor y
      op.x = g.add_tensor_auto(to_graph_tensor(xd));
      pack.set(op.x, xData);
    }
    g.add_op(op);
    run_graph(h, fn, g, pack);
  });
}

}  // extern "C"
