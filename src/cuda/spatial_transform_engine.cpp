// cuda.spatial_transform: the CUDA engine for a single SpatialTransformOp
// (grid generator and bilinear sampler, forward and backward); kernels in
// spatial_transform_kernels.cu.
#include <memory>
#include <variant>

#include "core/engine.hpp"
#include "core/error.hpp"
#include "core/spatial_transform_support.hpp"
#include "cuda/spatial_transform_args.hpp"

namespace fdnn::cuda {
namespace {

using Stage = graph::SpatialTransformOp::Stage;

void copy_strides(const graph::Tensor &t, int64_t (&out)[4]) {
  for (int d = 0; d < 4; ++d) out[d] = t.strides[d];
}

class Plan final : public ExecutionPlan {
 public:
  using ExecutionPlan::ExecutionPlan;

  void execute(const ExecContext &ctx, const graph::Graph &g, const VariantPack &pack) const override {
    const auto &op = std::get<graph::SpatialTransformOp>(g.ops().front());
    SpatialTransformArgs a;
    a.stage = static_cast<int>(op.stage);
    const graph::Tensor &grid = g.tensor(op.stage == Stage::grid_backward ? op.dgrid : op.grid);
    a.dtype = grid.dtype;
    a.n = grid.dims[0];
    a.h = grid.dims[1];
    a.w = grid.dims[2];
    a.alpha = op.blend.alpha;
    a.beta = op.blend.beta;
    a.grid_alpha = op.grid_blend.alpha;
    a.grid_beta = op.grid_blend.beta;
    switch (op.stage) {
      case Stage::grid_forward:
        a.theta = pack.get(op.theta);
        a.grid_out = pack.get(op.grid);
        break;
      case Stage::grid_backward:
        a.dgrid_in = pack.get(op.dgrid);
        a.dtheta = pack.get(op.theta);
        break;
      case Stage::sampler_forward:
      case Stage::sampler_backward: {
        const graph::Tensor &x = g.tensor(op.x);
        a.c = x.dims[1];
        a.hi = x.dims[2];
        a.wi = x.dims[3];
        a.x = pack.get(op.x);
        a.grid = pack.get(op.grid);
        copy_strides(x, a.xs);
        if (op.stage == Stage::sampler_forward) {
          a.y = pack.get(op.y);
          copy_strides(g.tensor(op.y), a.ys);
        } else {
          a.dy = pack.get(op.dy);
          a.dx = pack.get(op.dx);
          a.dgrid = pack.get(op.dgrid);
          copy_strides(g.tensor(op.dy), a.dys);
          copy_strides(g.tensor(op.dx), a.dxs);
        }
        break;
      }
    }
    launch_spatial_transform(a, ctx.stream);
  }
};

class CudaSpatialTransformEngine final : public Engine {
 public:
  const char *name() const override { return "cuda.spatial_transform"; }
  DeviceKind device() const override { return DeviceKind::cuda; }
  int priority() const override { return 10; }
  Support supports(const graph::Graph &g) const override { return check_single_spatial_transform(g); }
  std::unique_ptr<ExecutionPlan> make_plan(const graph::Graph &, const std::vector<KnobChoice> &) const override {
    return std::make_unique<Plan>(*this);
  }
};

}  // namespace
}  // namespace fdnn::cuda

using fdnn::cuda::CudaSpatialTransformEngine;
FDNN_REGISTER_ENGINE(CudaSpatialTransformEngine)
