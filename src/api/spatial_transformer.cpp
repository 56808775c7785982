// Spatial transformer: the descriptor, the affine grid generator and the
// bilinear sampler, forward and backward. Each call becomes one
// graph::SpatialTransformOp (see graph/op_spatial_transform.hpp for the
// coordinate conventions, which are cuDNN's).
//
// The descriptor names the output: N x C x H x W (4-d only). theta is
// N x 2 x 3 and the grid N x H x W x 2, packed, in the descriptor's data
// type; x may be any N x C x Hi x Wi tensor of that type.
#include "api/bound_tensor.hpp"
#include "api/guard.hpp"
#include "core/descriptor_lifetime.hpp"
#include "core/dtype.hpp"
#include "core/handle.hpp"
#include "core/spatial_transform_descriptors.hpp"
#include "core/spatial_transform_support.hpp"
#include "core/tensor_desc.hpp"
#include "graph/graph.hpp"

using namespace fdnn;
using fdnn::api::add_bound_tensor;

namespace {

using Stage = graph::SpatialTransformOp::Stage;

const cudnnSpatialTransformerStruct &checked_st(cudnnSpatialTransformerDescriptor_t d) {
  const cudnnSpatialTransformerStruct &s = live_descriptor(d, "stDesc", "spatial transformer");
  check_arg(s.is_set, "stDesc is not set (cudnnSetSpatialTransformerNdDescriptor)");
  check_supported(s.nb_dims == 4, "stDesc has ", s.nb_dims, " dimensions: only 4-d (N, C, H, W) transforms are supported");
  for (int i = 0; i < 4; ++i)
    check_arg(s.dims[i] > 0, "stDesc dimension ", i, " = ", s.dims[i], ": expected a positive extent");
  return s;
}

graph::Tensor packed(cudnnDataType_t t, std::vector<int64_t> dims) {
  graph::Tensor g;
  g.dtype = t;
  g.dims = std::move(dims);
  g.strides.assign(g.dims.size(), 1);
  for (int i = static_cast<int>(g.dims.size()) - 2; i >= 0; --i) g.strides[i] = g.strides[i + 1] * g.dims[i + 1];
  return g;
}

std::vector<int64_t> grid_dims(const cudnnSpatialTransformerStruct &s) { return {s.dims[0], s.dims[2], s.dims[3], 2}; }
std::vector<int64_t> theta_dims(const cudnnSpatialTransformerStruct &s) { return {s.dims[0], 2, 3}; }

// A 4-d tensor of the descriptor's type; `want` dims (-1: any) checked.
const cudnnTensorStruct &checked_st_tensor(cudnnTensorDescriptor_t desc, const char *name,
                                           const cudnnSpatialTransformerStruct &s, const int (&want)[4],
                                           bool at_least = false) {
  const cudnnTensorStruct &t = checked_tensor(desc, name);
  check_arg(t.nb_dims == 4, name, " has ", t.nb_dims, " dimensions: the spatial transformer takes 4-d tensors");
  check_arg(t.dtype == s.dtype, name, " is ", type_info(t.dtype).enum_name, " but stDesc is ",
            type_info(s.dtype).enum_name);
  for (int i = 0; i < 4; ++i)
    check_arg(want[i] < 0 || t.dims[i] == want[i] || (at_least && t.dims[i] > want[i]), name, " dimension ", i,
              " = ", t.dims[i], ", expected ", at_least ? "at least " : "", want[i], " (from stDesc)");
  return t;
}

// The leading `extent` part of a descriptor's tensor (cudnnSpatialTfSamplerForward
// works on stDesc's extents over larger x and y, as cuDNN 9 accepts them).
graph::Tensor sub_view(const cudnnTensorStruct &d, const int (&extent)[4]) {
  graph::Tensor t = to_graph_tensor(d);
  for (int i = 0; i < 4; ++i)
    if (extent[i] >= 0) t.dims[i] = extent[i];
  return t;
}

}  // namespace

extern "C" {

cudnnStatus_t CUDNNWINAPI cudnnCreateSpatialTransformerDescriptor(cudnnSpatialTransformerDescriptor_t *stDesc) {
  return FDNN_GUARDED([&] { create_descriptor(stDesc, "stDesc"); });
}

cudnnStatus_t CUDNNWINAPI cudnnDestroySpatialTransformerDescriptor(cudnnSpatialTransformerDescriptor_t stDesc) {
  return FDNN_GUARDED([&] { destroy_descriptor(stDesc, "stDesc", "spatial transformer"); });
}

cudnnStatus_t CUDNNWINAPI cudnnSetSpatialTransformerNdDescriptor(cudnnSpatialTransformerDescriptor_t stDesc,
                                                                 cudnnSamplerType_t samplerType,
                                                                 cudnnDataType_t dataType, const int nbDims,
                                                                 const int dimA[]) {
  return FDNN_GUARDED([&] {
    cudnnSpatialTransformerStruct &s = live_descriptor(stDesc, "stDesc", "spatial transformer");
    check_arg(samplerType == CUDNN_SAMPLER_BILINEAR, "samplerType = ", static_cast<int>(samplerType),
              ": expected CUDNN_SAMPLER_BILINEAR (0)");
    check_not_null(dimA, "dimA");
    // cuDNN 9: INT8 is NOT_SUPPORTED, other types but FLOAT, DOUBLE and
    // HALF are BAD_PARAM; rank and extents are checked by the compute calls.
    check_supported(dataType != CUDNN_DATA_INT8, "dataType CUDNN_DATA_INT8 is not supported");
    check_arg(is_spatial_transform_type(dataType), "dataType = ", static_cast<int>(dataType),
              ": expected CUDNN_DATA_FLOAT, CUDNN_DATA_DOUBLE or CUDNN_DATA_HALF");
    s.sampler = samplerType;
    s.dtype = dataType;
    s.nb_dims = nbDims;
    for (int i = 0; i < nbDims && i < CUDNN_DIM_MAX; ++i) s.dims[i] = dimA[i];
    s.is_set = true;
  });
}

// backends: cpu cuda
cudnnStatus_t CUDNNWINAPI cudnnSpatialTfGridGeneratorForward(cudnnHandle_t handle,
                                                             const cudnnSpatialTransformerDescriptor_t stDesc,
                                                             const void *theta, void *grid) {
  const char *fn = __func__;
  return FDNN_GUARDED([&] {
    cudnnContext &h = checked_handle(handle);
    const cudnnSpatialTransformerStruct &s = checked_st(stDesc);
    check_not_null(theta, "theta");
    check_not_null(grid, "grid");
    graph::Graph g;
    VariantPack pack;
    graph::SpatialTransformOp op;
    op.stage = Stage::grid_forward;
    op.theta = add_bound_tensor(g, pack, packed(s.dtype, theta_dims(s)), theta);
    op.grid = add_bound_tensor(g, pack, packed(s.dtype, grid_dims(s)), grid);
    g.add_op(op);
    run_graph(h, fn, g, pack);
  });
}

// backends: cpu cuda
cudnnStatus_t CUDNNWINAPI cudnnSpatialTfGridGeneratorBackward(cudnnHandle_t handle,
                                                              const cudnnSpatialTransformerDescriptor_t stDesc,
                                                              const void *dgrid, void *dtheta) {
  const char *fn = __func__;
  return FDNN_GUARDED([&] {
    cudnnContext &h = checked_handle(handle);
    const cudnnSpatialTransformerStruct &s = checked_st(stDesc);
    check_not_null(dgrid, "dgrid");
    check_not_null(dtheta, "dtheta");
    graph::Graph g;
    VariantPack pack;
    graph::SpatialTransformOp op;
    op.stage = Stage::grid_backward;
    op.dgrid = add_bound_tensor(g, pack, packed(s.dtype, grid_dims(s)), dgrid);
    op.theta = add_bound_tensor(g, pack, packed(s.dtype, theta_dims(s)), dtheta);
    g.add_op(op);
    run_graph(h, fn, g, pack);
  });
}

// backends: cpu cuda
cudnnStatus_t CUDNNWINAPI cudnnSpatialTfSamplerForward(cudnnHandle_t handle,
                                                       cudnnSpatialTransformerDescriptor_t stDesc,
                                                       const void *alpha, const cudnnTensorDescriptor_t xDesc,
                                                       const void *x, const void *grid, const void *beta,
                                                       cudnnTensorDescriptor_t yDesc, void *y) {
  const char *fn = __func__;
  return FDNN_GUARDED([&] {
    cudnnContext &h = checked_handle(handle);
    const cudnnSpatialTransformerStruct &s = checked_st(stDesc);
    const int any = -1;
    // cuDNN 9 runs with x and y larger than stDesc says (it reads and
    // writes stDesc's extents of them); smaller ones are refused.
    const int x_ext[4] = {s.dims[0], s.dims[1], any, any}, y_ext[4] = {s.dims[0], s.dims[1], s.dims[2], s.dims[3]};
    const cudnnTensorStruct &xd = checked_st_tensor(xDesc, "xDesc", s, x_ext, true);
    const cudnnTensorStruct &yd = checked_st_tensor(yDesc, "yDesc", s, y_ext, true);
    check_not_null(alpha, "alpha");
    check_not_null(beta, "beta");
    check_not_null(x, "x");
    check_not_null(grid, "grid");
    check_not_null(y, "y");
    graph::Graph g;
    graph::SpatialTransformOp op;
    op.stage = Stage::sampler_forward;
    op.blend.alpha = read_scaling(alpha, yd.dtype);
    op.blend.beta = read_scaling(beta, yd.dtype);
    VariantPack pack;
    op.x = add_bound_tensor(g, pack, sub_view(xd, x_ext), x);
    op.grid = add_bound_tensor(g, pack, packed(s.dtype, grid_dims(s)), grid);
    op.y = add_bound_tensor(g, pack, sub_view(yd, y_ext), y);
    g.add_op(op);
    run_graph(h, fn, g, pack);
  });
}

// backends: cpu cuda
cudnnStatus_t CUDNNWINAPI cudnnSpatialTfSamplerBackward(
    cudnnHandle_t handle, cudnnSpatialTransformerDescriptor_t stDesc, const void *alpha,
    const cudnnTensorDescriptor_t xDesc, const void *x, const void *beta, const cudnnTensorDescriptor_t dxDesc,
    void *dx, const void *alphaDgrid, const cudnnTensorDescriptor_t dyDesc, const void *dy, const void *grid,
    const void *betaDgrid, void *dgrid) {
  const char *fn = __func__;
  return FDNN_GUARDED([&] {
    cudnnContext &h = checked_handle(handle);
    const cudnnSpatialTransformerStruct &s = checked_st(stDesc);
    const int any = -1;
    const cudnnTensorStruct &xd = checked_st_tensor(xDesc, "xDesc", s, {s.dims[0], s.dims[1], any, any});
    const cudnnTensorStruct &dxd = checked_st_tensor(dxDesc, "dxDesc", s, {xd.dims[0], xd.dims[1], xd.dims[2], xd.dims[3]});
    const cudnnTensorStruct &dyd =
        checked_st_tensor(dyDesc, "dyDesc", s, {s.dims[0], s.dims[1], s.dims[2], s.dims[3]});
    check_not_null(alpha, "alpha");
    check_not_null(beta, "beta");
    check_not_null(alphaDgrid, "alphaDgrid");
    check_not_null(betaDgrid, "betaDgrid");
    check_not_null(x, "x");
    check_not_null(dx, "dx");
    check_not_null(dy, "dy");
    check_not_null(grid, "grid");
    check_not_null(dgrid, "dgrid");
    graph::Graph g;
    graph::SpatialTransformOp op;
    op.stage = Stage::sampler_backward;
    op.blend.alpha = read_scaling(alpha, dxd.dtype);
    op.blend.beta = read_scaling(beta, dxd.dtype);
    op.grid_blend.alpha = read_scaling(alphaDgrid, s.dtype);
    op.grid_blend.beta = read_scaling(betaDgrid, s.dtype);
    VariantPack pack;
    op.x = add_bound_tensor(g, pack, xd, x);
    op.grid = add_bound_tensor(g, pack, packed(s.dtype, grid_dims(s)), grid);
    op.dy = add_bound_tensor(g, pack, dyd, dy);
    op.dx = add_bound_tensor(g, pack, dxd, dx);
    op.dgrid = add_bound_tensor(g, pack, packed(s.dtype, grid_dims(s)), dgrid);
    g.add_op(op);
    run_graph(h, fn, g, pack);
  });
}

}  // extern "C"
