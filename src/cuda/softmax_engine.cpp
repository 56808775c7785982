// cuda.softmax: the CUDA engine for a single SoftmaxOp (cudnnSoftmaxForward /
// Backward). The plan fixes the geometry; each execution reads alpha and beta
// from the graph and launches on the handle's stream (softmax_kernels.cu).
#include <memory>
#include <variant>

#include "core/dtype.hpp"
#include "core/engine.hpp"
#include "core/error.hpp"
#include "core/softmax_support.hpp"
#include "cuda/softmax_args.hpp"

namespace fdnn::cuda {
namespace {

class Plan final : public ExecutionPlan {
 public:
  Plan(const Engine &e, const graph::Graph &g) : ExecutionPlan(e) {
    const auto &op = std::get<graph::SoftmaxOp>(g.ops().front());
    const SoftmaxGeometry G = softmax_geometry(g);
    a_.backward = op.backward;
    a_.algorithm = op.algorithm;
    a_.dtype = G.dtype[0];
    a_.compute_double = softmax_computes_in_double(g, op);
    a_.kept_rank = static_cast<int>(G.kept_dims.size());
    a_.red_rank = static_cast<int>(G.red_dims.size());
    for (int d = 0; d < a_.kept_rank; ++d) {
      a_.kept_extent[d] = G.kept_dims[d];
      for (int o = 0; o < G.operands; ++o) a_.kept_stride[o][d] = G.kept_strides[o][d];
    }
    for (int d = 0; d < a_.red_rank; ++d) {
      a_.red_extent[d] = G.red_dims[d];
      for (int o = 0; o < G.operands; ++o) a_.red_stride[o][d] = G.red_strides[o][d];
    }
    a_.rows = G.rows;
    a_.row_len = G.row_len;
    a_.contiguous = G.contiguous_rows();
    uid_ = G.uid;
  }

  void execute(const ExecContext &ctx, const graph::Graph &g, const VariantPack &pack) const override {
    const auto &op = std::get<graph::SoftmaxOp>(g.ops().front());
    SoftmaxArgs a = a_;
    a.in0 = pack.get(uid_[0]);
    a.in1 = op.backward ? pack.get(uid_[1]) : nullptr;
    a.out = pack.get(uid_.back());
    check_arg(a.in0 != nullptr && a.out != nullptr && (!op.backward || a.in1 != nullptr),
              "softmax: a device pointer is missing");
    a.alpha = op.blend.alpha;
    a.beta = op.blend.beta;
    launch_softmax(a, ctx.stream);
  }

 private:
  SoftmaxArgs a_;
  std::vector<graph::Uid> uid_;
};

class CudaSoftmaxEngine final : public Engine {
 public:
  const char *name() const override { return "cuda.softmax"; }
  DeviceKind device() const override { return DeviceKind::cuda; }
  int priority() const override { return 10; }
  Support supports(const graph::Graph &g) const override {
    Support s = check_single_softmax(g);
    if (!s) return s;
    const auto &op = std::get<graph::SoftmaxOp>(g.ops().front());
    const std::vector<graph::Uid> uids = softmax_operands(op);
    const cudnnDataType_t t = g.tensor(uids[0]).dtype;
    for (graph::Uid u : uids)
      if (g.tensor(u).dtype != t) return Support::no("softmax tensors of different types");
    if (t != CUDNN_DATA_FLOAT && t != CUDNN_DATA_DOUBLE && t != CUDNN_DATA_HALF && t != CUDNN_DATA_BFLOAT16 &&
        t != CUDNN_DATA_INT8)
      return Support::no(cat("data type ", type_info(t).enum_name, " has no CUDA softmax kernel"));
    if (g.tensor(uids[0]).rank() > kMaxRank) return Support::no("rank too large");
    // Half/bfloat16 compute in float; a DOUBLE compute type on them is not offered.
    if (softmax_computes_in_double(g, op) && t != CUDNN_DATA_DOUBLE)
      return Support::no("double compute on non-double tensors");
    return Support::yes();
  }
  std::unique_ptr<ExecutionPlan> make_plan(const graph::Graph &g, const std::vector<KnobChoice> &) const override {
    return std::make_unique<Plan>(*this, g);
  }
};

}  // namespace
}  // namespace fdnn::cuda

using fdnn::cuda::CudaSoftmaxEngine;
FDNN_REGISTER_ENGINE(CudaSoftmaxEngine)
