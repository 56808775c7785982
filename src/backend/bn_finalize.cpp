// CUDNN_BACKEND_OPERATION_BN_FINALIZE_STATISTICS_DESCRIPTOR: batch-norm
// finalize (sums -> mean, inverse standard deviation, equivalent scale and
// bias, running statistics), expanded into pointwise ops by the builder the
// fused-ops API uses (graph/bn_finalize.hpp); this file only maps the
// attributes onto it. Training reads Y_SUM / Y_SQ_SUM and ACCUM_COUNT;
// inference reads the mean and variance from PREV_RUNNING_MEAN / _VAR.
// The builder's intermediates get internal uids here, and its by-value
// constants become virtual tensors computed from the count (the backend's
// by-value tensors take their values from the variant pack, which has none
// for them).
// cuDNN 9 answers a finalize without attributes with NOT_SUPPORTED; FreeDNN
// does the same when the mode is missing and BAD_PARAM (naming it) when a
// tensor the requested outputs need is missing.
#include <map>
#include <set>

#include "backend/expansion.hpp"
#include "backend/operation.hpp"
#include "core/error.hpp"
#include "graph/bn_finalize.hpp"

namespace fdnn::backend {

namespace {

class BnFinalizeOperation : public OperationDescriptor {
 public:
  BnFinalizeOperation()
      : OperationDescriptor(
            CUDNN_BACKEND_OPERATION_BN_FINALIZE_STATISTICS_DESCRIPTOR,
            {
                {CUDNN_ATTR_OPERATION_BN_FINALIZE_STATS_MODE, CUDNN_TYPE_BN_FINALIZE_STATS_MODE},
                {CUDNN_ATTR_OPERATION_BN_FINALIZE_MATH_PREC, CUDNN_TYPE_DATA_TYPE},
                {CUDNN_ATTR_OPERATION_BN_FINALIZE_Y_SUM_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR},
                {CUDNN_ATTR_OPERATION_BN_FINALIZE_Y_SQ_SUM_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR},
                {CUDNN_ATTR_OPERATION_BN_FINALIZE_SCALE_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR},
                {CUDNN_ATTR_OPERATION_BN_FINALIZE_BIAS_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR},
                {CUDNN_ATTR_OPERATION_BN_FINALIZE_PREV_RUNNING_MEAN_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR},
                {CUDNN_ATTR_OPERATION_BN_FINALIZE_PREV_RUNNING_VAR_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR},
                {CUDNN_ATTR_OPERATION_BN_FINALIZE_UPDATED_RUNNING_MEAN_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR},
                {CUDNN_ATTR_OPERATION_BN_FINALIZE_UPDATED_RUNNING_VAR_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR},
                {CUDNN_ATTR_OPERATION_BN_FINALIZE_SAVED_MEAN_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR},
                {CUDNN_ATTR_OPERATION_BN_FINALIZE_SAVED_INV_STD_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR},
                {CUDNN_ATTR_OPERATION_BN_FINALIZE_EQ_SCALE_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR},
                {CUDNN_ATTR_OPERATION_BN_FINALIZE_EQ_BIAS_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR},
                {CUDNN_ATTR_OPERATION_BN_FINALIZE_ACCUM_COUNT_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR},
                {CUDNN_ATTR_OPERATION_BN_FINALIZE_EPSILON_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR},
                {CUDNN_ATTR_OPERATION_BN_FINALIZE_EXP_AVERATE_FACTOR_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR},
            }) {}

 protected:
  void do_finalize() override {
    tensors_.clear();
    extra_ops_.clear();
    check_supported(has(CUDNN_ATTR_OPERATION_BN_FINALIZE_STATS_MODE),
                    "BN finalize needs STATS_MODE (TRAINING or INFERENCE)");
    const auto mode = scalar<cudnnBnFinalizeStatsMode_t>(CUDNN_ATTR_OPERATION_BN_FINALIZE_STATS_MODE,
                                                         CUDNN_BN_FINALIZE_STATISTICS_TRAINING);
    check_arg(mode == CUDNN_BN_FINALIZE_STATISTICS_TRAINING || mode == CUDNN_BN_FINALIZE_STATISTICS_INFERENCE,
              "STATS_MODE = ", static_cast<int>(mode), " is not a cudnnBnFinalizeStatsMode_t");
    const auto ct = scalar<cudnnDataType_t>(CUDNN_ATTR_OPERATION_BN_FINALIZE_MATH_PREC, CUDNN_DATA_FLOAT);
    check_supported(ct == CUDNN_DATA_FLOAT || ct == CUDNN_DATA_DOUBLE, "MATH_PREC = ", static_cast<int>(ct),
                    ": FreeDNN computes BN finalize in FLOAT or DOUBLE");
    graph::BnFinalizeIo io;
    io.training = mode == CUDNN_BN_FINALIZE_STATISTICS_TRAINING;
    io.compute_type = ct;
    const auto opt = [&](cudnnBackendAttributeName_t n, const char *what) { return use_tensor(n, what, false); };
    if (io.training) {
      io.sum = use_tensor(CUDNN_ATTR_OPERATION_BN_FINALIZE_Y_SUM_DESC, "Y_SUM_DESC", true);
      io.sq_sum = use_tensor(CUDNN_ATTR_OPERATION_BN_FINALIZE_Y_SQ_SUM_DESC, "Y_SQ_SUM_DESC", true);
      io.count = use_tensor(CUDNN_ATTR_OPERATION_BN_FINALIZE_ACCUM_COUNT_DESC, "ACCUM_COUNT_DESC", true);
      io.prev_running_mean = opt(CUDNN_ATTR_OPERATION_BN_FINALIZE_PREV_RUNNING_MEAN_DESC, "PREV_RUNNING_MEAN_DESC");
      io.prev_running_var = opt(CUDNN_ATTR_OPERATION_BN_FINALIZE_PREV_RUNNING_VAR_DESC, "PREV_RUNNING_VAR_DESC");
      io.next_running_mean =
          opt(CUDNN_ATTR_OPERATION_BN_FINALIZE_UPDATED_RUNNING_MEAN_DESC, "UPDATED_RUNNING_MEAN_DESC");
      io.next_running_var = opt(CUDNN_ATTR_OPERATION_BN_FINALIZE_UPDATED_RUNNING_VAR_DESC, "UPDATED_RUNNING_VAR_DESC");
      io.exp_avg_factor = opt(CUDNN_ATTR_OPERATION_BN_FINALIZE_EXP_AVERATE_FACTOR_DESC, "EXP_AVERATE_FACTOR_DESC");
      io.saved_mean = opt(CUDNN_ATTR_OPERATION_BN_FINALIZE_SAVED_MEAN_DESC, "SAVED_MEAN_DESC");
    } else {
      io.mean = use_tensor(CUDNN_ATTR_OPERATION_BN_FINALIZE_PREV_RUNNING_MEAN_DESC,
                           "PREV_RUNNING_MEAN_DESC (the mean, in inference)", true);
      io.variance = use_tensor(CUDNN_ATTR_OPERATION_BN_FINALIZE_PREV_RUNNING_VAR_DESC,
                               "PREV_RUNNING_VAR_DESC (the variance, in inference)", true);
    }
    io.scale = opt(CUDNN_ATTR_OPERATION_BN_FINALIZE_SCALE_DESC, "SCALE_DESC");
    io.bias = opt(CUDNN_ATTR_OPERATION_BN_FINALIZE_BIAS_DESC, "BIAS_DESC");
    io.epsilon = opt(CUDNN_ATTR_OPERATION_BN_FINALIZE_EPSILON_DESC, "EPSILON_DESC");
    io.saved_inv_std = opt(CUDNN_ATTR_OPERATION_BN_FINALIZE_SAVED_INV_STD_DESC, "SAVED_INV_STD_DESC");
    io.eq_scale = opt(CUDNN_ATTR_OPERATION_BN_FINALIZE_EQ_SCALE_DESC, "EQ_SCALE_DESC");
    io.eq_bias = opt(CUDNN_ATTR_OPERATION_BN_FINALIZE_EQ_BIAS_DESC, "EQ_BIAS_DESC");

    // Build in a scratch graph, then give the builder's tensors internal uids.
    graph::Graph g;
    std::set<graph::Uid> user;
    for (const graph::Tensor &t : tensors_)
      if (user.insert(t.uid).second) g.add_tensor(t);
    graph::append_bn_finalize(g, io);
    check_arg(!g.ops().empty(), "BN finalize: no output is requested");
    std::map<graph::Uid, graph::Uid> remap;
    std::vector<graph::Op> ops;
    graph::Uid one = graph::kNoTensor;
    for (const graph::Tensor &t : g.tensors()) {
      if (user.count(t.uid)) continue;
      if (t.by_value) {
        // A constant c: c * (count / count), computed in the graph.
        check_arg(io.count != graph::kNoTensor, "BN finalize: internal constant without the count");
        if (one == graph::kNoTensor) {
          graph::Tensor o = expansion::virtual_tensor(t.dims, ct);
          one = o.uid;
          tensors_.push_back(o);
          ops.push_back(expansion::pointwise(CUDNN_POINTWISE_DIV, ct, io.count, io.count, one));
        }
        graph::Tensor c = expansion::virtual_tensor(t.dims, ct);
        remap[t.uid] = c.uid;
        tensors_.push_back(c);
        ops.push_back(expansion::pointwise(CUDNN_POINTWISE_IDENTITY, ct, one, graph::kNoTensor, c.uid, t.value));
        continue;
      }
      graph::Tensor v = t;
      v.uid = expansion::next_internal_uid();
      remap[t.uid] = v.uid;
      tensors_.push_back(v);
    }
    const auto map = [&](graph::Uid u) {
      auto it = remap.find(u);
      return it == remap.end() ? u : it->second;
    };
    for (const graph::Op &o : g.ops()) {
      const auto *p = std::get_if<graph::PointwiseOp>(&o);
      check_supported(p != nullptr, "BN finalize: the builder made a ", graph::op_kind_name(o), " op");
      graph::PointwiseOp q = *p;
      q.x = map(q.x), q.b = map(q.b), q.t = map(q.t), q.y = map(q.y);
      ops.push_back(q);
    }
    op_ = ops.front();
    extra_ops_.assign(ops.begin() + 1, ops.end());
  }
};

}  // namespace

FDNN_BACKEND_DESCRIPTOR(CUDNN_BACKEND_OPERATION_BN_FINALIZE_STATISTICS_DESCRIPTOR, BnFinalizeOperation)

}  // namespace fdnn::backend
