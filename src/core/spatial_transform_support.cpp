#include "core/spatial_transform_support.hpp"

#include <variant>

#include "core/error.hpp"
#include "core/op_support.hpp"

namespace fdnn {

bool is_spatial_transform_type(cudnnDataType_t t) {
  return t == CUDNN_DATA_FLOAT || t == CUDNN_DATA_DOUBLE || t == CUDNN_DATA_HALF;
}

namespace {

using Stage = graph::SpatialTransformOp::Stage;

// Checks one tensor: present, in memory, rank 4 (theta: 3), dims as wanted
// (-1: any), packed when asked, no overlaps when written.
Support check_tensor(const graph::Graph &g, graph::Uid uid, const char *name, std::vector<int64_t> want,
                     bool packed, bool written, cudnnDataType_t dtype) {
  const graph::Tensor *t = g.find_tensor(uid);
  if (t == nullptr) return Support::no(cat(name, " is missing"));
  if (t->by_value) return Support::no(cat(name, " is a by-value scalar"));
  if (t->dims.size() != want.size() || t->strides.size() != t->dims.size())
    return Support::no(cat(name, " must have ", want.size(), " dimensions"));
  for (size_t d = 0; d < want.size(); ++d)
    if (want[d] >= 0 && t->dims[d] != want[d])
      return Support::no(cat(name, " dim ", d, " = ", t->dims[d], ", expected ", want[d]));
  if (t->dtype != dtype) return Support::no(cat(name, " has another data type than the others"));
  if (packed && !t->is_packed_row_major()) return Support::no(cat(name, " must be packed"));
  if (written && has_overlapping_elements(*t)) return Support::no(cat(name, " has overlapping elements"));
  return Support::yes();
}

}  // namespace

Support check_single_spatial_transform(const graph::Graph &g) {
  if (g.ops().size() != 1) return Support::no(cat("graph has ", g.ops().size(), " operations; this engine runs one"));
  const auto *op = std::get_if<graph::SpatialTransformOp>(&g.ops().front());
  if (op == nullptr) return Support::no("not a spatial transform operation");
  if (op->sampler != CUDNN_RESAMPLE_BILINEAR) return Support::no("only the bilinear sampler exists");
  const graph::Tensor *grid = g.find_tensor(op->stage == Stage::grid_backward ? op->dgrid : op->grid);
  if (grid == nullptr || grid->dims.size() != 4) return Support::no("the grid must be [N, H, W, 2]");
  const cudnnDataType_t t = grid->dtype;
  if (!is_spatial_transform_type(t)) return Support::no("data type must be FLOAT, DOUBLE or HALF");
  const int64_t n = grid->dims[0], h = grid->dims[1], w = grid->dims[2];
  const std::vector<int64_t> grid_dims = {n, h, w, 2}, theta_dims = {n, 2, 3};
  Support s = Support::yes();
  auto both = [&](Support next) {
    if (s) s = std::move(next);
  };
  switch (op->stage) {
    case Stage::grid_forward:
      both(check_tensor(g, op->theta, "theta", theta_dims, true, false, t));
      both(check_tensor(g, op->grid, "grid", grid_dims, true, true, t));
      break;
    case Stage::grid_backward:
      both(check_tensor(g, op->dgrid, "dgrid", grid_dims, true, false, t));
      both(check_tensor(g, op->theta, "dtheta", theta_dims, true, true, t));
      break;
    case Stage::sampler_forward:
    case Stage::sampler_backward: {
      both(check_tensor(g, op->grid, "grid", grid_dims, true, false, t));
      both(check_tensor(g, op->x, "x", {n, -1, -1, -1}, false, false, t));
      if (!s) return s;
      const int64_t c = g.tensor(op->x).dims[1];
      if (op->stage == Stage::sampler_forward) {
        both(check_tensor(g, op->y, "y", {n, c, h, w}, false, true, t));
      } else {
        both(check_tensor(g, op->dy, "dy", {n, c, h, w}, false, false, t));
        both(check_tensor(g, op->dx, "dx", g.tensor(op->x).dims, false, true, t));
        both(check_tensor(g, op->dgrid, "dgrid", grid_dims, true, true, t));
      }
      break;
    }
    default: return Support::no("unknown spatial transform stage");
  }
  return s;
}

bool spatial_transform_computes_in_double(const graph::Graph &g) {
  for (const graph::Tensor &t : g.tensors())
    if (t.dtype == CUDNN_DATA_DOUBLE) return true;
  return false;
}

}  // namespace fdnn
