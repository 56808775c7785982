#include "api/transform_copy.hpp"

#include <vector>

#include "core/dtype.hpp"
#include "graph/graph.hpp"

namespace fdnn::api {

namespace {

cudnnDataType_t compute_type_for(cudnnDataType_t t) { return t == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT; }

}  // namespace

size_t lane_bytes(cudnnDataType_t scalar) { return static_cast<size_t>(type_info(scalar).bits / 8); }

void run_copy(cudnnContext &h, const char *fn, double alpha, double beta, const LaneLayout &src, const void *sp,
              const LaneLayout &dst, void *dp) {
  std::vector<graph::Tensor> v = common_views({src, dst});
  graph::Graph g;
  graph::PointwiseOp op;
  op.mode = CUDNN_POINTWISE_IDENTITY;
  op.compute_type = compute_type_for(dst.dtype);
  op.alpha1 = alpha;
  op.blend.beta = beta;
  op.x = g.add_tensor_auto(v[0]);
  op.y = g.add_tensor_auto(v[1]);
  g.add_op(op);
  VariantPack pack;
  pack.set(op.x, sp);
  pack.set(op.y, dp);
  run_graph(h, fn, g, pack);
}

void run_zero_fill(cudnnContext &h, const char *fn, const LaneLayout &dst, void *dp) {
  graph::Tensor yt = common_views({dst})[0];
  graph::Tensor zero;
  zero.dtype = yt.dtype;
  zero.dims.assign(yt.dims.size(), 1);
  zero.strides.assign(yt.dims.size(), 0);
  zero.by_value = true;
  graph::Graph g;
  graph::PointwiseOp op;
  op.mode = CUDNN_POINTWISE_IDENTITY;
  op.x = g.add_tensor_auto(zero);
  op.y = g.add_tensor_auto(yt);
  g.add_op(op);
  VariantPack pack;
  pack.set(op.y, dp);
  run_graph(h, fn, g, pack);
}

}  // namespace fdnn::api
