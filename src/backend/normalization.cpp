// CUDNN_BACKEND_OPERATION_NORM_FORWARD_DESCRIPTOR and NORM_BACKWARD: a
// graph::NormalizationOp each. Epsilon and the exponential-average factor
// are by-value scalar tensors whose values reach the op when the plan runs.
#include "backend/operation.hpp"
#include "core/error.hpp"

namespace fdnn::backend {

namespace {

void set_epsilon(graph::Op &op, double v) { std::get<graph::NormalizationOp>(op).epsilon = v; }
void set_factor(graph::Op &op, double v) { std::get<graph::NormalizationOp>(op).exp_avg_factor = v; }

cudnnBackendNormMode_t checked_mode(cudnnBackendNormMode_t m) {
  check_supported(m == CUDNN_BATCH_NORM || m == CUDNN_LAYER_NORM || m == CUDNN_INSTANCE_NORM || m == CUDNN_RMS_NORM,
                  "normalization mode ", static_cast<int>(m),
                  " is not supported by FreeDNN yet (batch, layer, instance and RMS norm are)");
  return m;
}

class NormForwardOperation : public OperationDescriptor {
 public:
  NormForwardOperation()
      : OperationDescriptor(CUDNN_BACKEND_OPERATION_NORM_FORWARD_DESCRIPTOR,
                            {
                                {CUDNN_ATTR_OPERATION_NORM_FWD_MODE, CUDNN_TYPE_NORM_MODE},
                                {CUDNN_ATTR_OPERATION_NORM_FWD_PHASE, CUDNN_TYPE_NORM_FWD_PHASE},
                                {CUDNN_ATTR_OPERATION_NORM_FWD_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR},
                                {CUDNN_ATTR_OPERATION_NORM_FWD_MEAN_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR},
                                {CUDNN_ATTR_OPERATION_NORM_FWD_INV_VARIANCE_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR},
                                {CUDNN_ATTR_OPERATION_NORM_FWD_SCALE_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR},
                                {CUDNN_ATTR_OPERATION_NORM_FWD_BIAS_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR},
                                {CUDNN_ATTR_OPERATION_NORM_FWD_EPSILON_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR},
                                {CUDNN_ATTR_OPERATION_NORM_FWD_EXP_AVG_FACTOR_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR},
                                {CUDNN_ATTR_OPERATION_NORM_FWD_INPUT_RUNNING_MEAN_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR},
                                {CUDNN_ATTR_OPERATION_NORM_FWD_INPUT_RUNNING_VAR_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR},
                                {CUDNN_ATTR_OPERATION_NORM_FWD_OUTPUT_RUNNING_MEAN_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR},
                                {CUDNN_ATTR_OPERATION_NORM_FWD_OUTPUT_RUNNING_VAR_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR},
                                {CUDNN_ATTR_OPERATION_NORM_FWD_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR},
                                {CUDNN_ATTR_OPERATION_NORM_FWD_PEER_STAT_DESCS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, 64},
                            }) {}

 protected:
  void do_finalize() override {
    tensors_.clear();
    bindings_.clear();
    require(CUDNN_ATTR_OPERATION_NORM_FWD_MODE, "the normalization mode");
    require(CUDNN_ATTR_OPERATION_NORM_FWD_PHASE, "the phase");
    check_supported(array<void *>(CUDNN_ATTR_OPERATION_NORM_FWD_PEER_STAT_DESCS).empty(),
                    "peer statistics (multi-GPU batch norm) are not supported");
    graph::NormalizationOp n;
    n.mode = checked_mode(scalar<cudnnBackendNormMode_t>(CUDNN_ATTR_OPERATION_NORM_FWD_MODE, CUDNN_BATCH_NORM));
    n.phase = scalar<cudnnBackendNormFwdPhase_t>(CUDNN_ATTR_OPERATION_NORM_FWD_PHASE, CUDNN_NORM_FWD_TRAINING);
    check_arg(n.phase == CUDNN_NORM_FWD_INFERENCE || n.phase == CUDNN_NORM_FWD_TRAINING, "phase ",
              static_cast<int>(n.phase), " is not a cudnnBackendNormFwdPhase_t value");
    const bool training = n.phase == CUDNN_NORM_FWD_TRAINING;
    n.x = use_tensor(CUDNN_ATTR_OPERATION_NORM_FWD_XDESC, "XDESC", true);
    n.y = use_tensor(CUDNN_ATTR_OPERATION_NORM_FWD_YDESC, "YDESC", true);
    n.scale = use_tensor(CUDNN_ATTR_OPERATION_NORM_FWD_SCALE_DESC, "SCALE_DESC", true);
    // RMS norm: the bias is optional and there is no mean.
    const bool rms = n.mode == CUDNN_RMS_NORM;
    n.bias = use_tensor(CUDNN_ATTR_OPERATION_NORM_FWD_BIAS_DESC, "BIAS_DESC", !rms);
    // Inference reads mean and inverse variance; training writes them
    // (optional there, as saved statistics).
    n.mean = use_tensor(CUDNN_ATTR_OPERATION_NORM_FWD_MEAN_DESC, "MEAN_DESC", !training && !rms);
    n.inv_variance = use_tensor(CUDNN_ATTR_OPERATION_NORM_FWD_INV_VARIANCE_DESC, "INV_VARIANCE_DESC", !training);
    bind_scalar(CUDNN_ATTR_OPERATION_NORM_FWD_EPSILON_DESC, "EPSILON_DESC", true, set_epsilon);
    if (training) {
      n.running_mean_in = use_tensor(CUDNN_ATTR_OPERATION_NORM_FWD_INPUT_RUNNING_MEAN_DESC, "INPUT_RUNNING_MEAN_DESC", false);
      n.running_var_in = use_tensor(CUDNN_ATTR_OPERATION_NORM_FWD_INPUT_RUNNING_VAR_DESC, "INPUT_RUNNING_VAR_DESC", false);
      n.running_mean_out = use_tensor(CUDNN_ATTR_OPERATION_NORM_FWD_OUTPUT_RUNNING_MEAN_DESC, "OUTPUT_RUNNING_MEAN_DESC", false);
      n.running_var_out = use_tensor(CUDNN_ATTR_OPERATION_NORM_FWD_OUTPUT_RUNNING_VAR_DESC, "OUTPUT_RUNNING_VAR_DESC", false);
      const bool any_running = n.running_mean_in != graph::kNoTensor || n.running_var_in != graph::kNoTensor ||
                               n.running_mean_out != graph::kNoTensor || n.running_var_out != graph::kNoTensor;
      if (any_running) {
        check_arg(n.running_mean_in != graph::kNoTensor && n.running_var_in != graph::kNoTensor &&
                      n.running_mean_out != graph::kNoTensor && n.running_var_out != graph::kNoTensor,
                  "the running statistics need all four tensors (input and output mean and variance)");
        bind_scalar(CUDNN_ATTR_OPERATION_NORM_FWD_EXP_AVG_FACTOR_DESC, "EXP_AVG_FACTOR_DESC", true, set_factor);
      }
    }
    n.compute_type = tensors_.front().dtype == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
    op_ = n;
  }
};

class NormBackwardOperation : public OperationDescriptor {
 public:
  NormBackwardOperation()
      : OperationDescriptor(CUDNN_BACKEND_OPERATION_NORM_BACKWARD_DESCRIPTOR,
                            {
                                {CUDNN_ATTR_OPERATION_NORM_BWD_MODE, CUDNN_TYPE_NORM_MODE},
                                {CUDNN_ATTR_OPERATION_NORM_BWD_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR},
                                {CUDNN_ATTR_OPERATION_NORM_BWD_MEAN_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR},
                                {CUDNN_ATTR_OPERATION_NORM_BWD_INV_VARIANCE_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR},
                                {CUDNN_ATTR_OPERATION_NORM_BWD_DYDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR},
                                {CUDNN_ATTR_OPERATION_NORM_BWD_SCALE_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR},
                                {CUDNN_ATTR_OPERATION_NORM_BWD_EPSILON_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR},
                                {CUDNN_ATTR_OPERATION_NORM_BWD_DSCALE_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR},
                                {CUDNN_ATTR_OPERATION_NORM_BWD_DBIAS_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR},
                                {CUDNN_ATTR_OPERATION_NORM_BWD_DXDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR},
                                {CUDNN_ATTR_OPERATION_NORM_BWD_PEER_STAT_DESCS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, 64},
                            }) {}

 protected:
  void do_finalize() override {
    tensors_.clear();
    bindings_.clear();
    require(CUDNN_ATTR_OPERATION_NORM_BWD_MODE, "the normalization mode");
    check_supported(array<void *>(CUDNN_ATTR_OPERATION_NORM_BWD_PEER_STAT_DESCS).empty(),
                    "peer statistics (multi-GPU batch norm) are not supported");
    graph::NormalizationOp n;
    n.backward = true;
    n.mode = checked_mode(scalar<cudnnBackendNormMode_t>(CUDNN_ATTR_OPERATION_NORM_BWD_MODE, CUDNN_BATCH_NORM));
    n.x = use_tensor(CUDNN_ATTR_OPERATION_NORM_BWD_XDESC, "XDESC", true);
    n.dy = use_tensor(CUDNN_ATTR_OPERATION_NORM_BWD_DYDESC, "DYDESC", true);
    n.scale = use_tensor(CUDNN_ATTR_OPERATION_NORM_BWD_SCALE_DESC, "SCALE_DESC", true);
    n.mean = use_tensor(CUDNN_ATTR_OPERATION_NORM_BWD_MEAN_DESC, "MEAN_DESC", false);
    n.inv_variance = use_tensor(CUDNN_ATTR_OPERATION_NORM_BWD_INV_VARIANCE_DESC, "INV_VARIANCE_DESC", false);
    // RMS norm has no mean (only the inverse RMS) and an optional bias.
    const bool rms = n.mode == CUDNN_RMS_NORM;
    if (!rms)
      check_arg((n.mean == graph::kNoTensor) == (n.inv_variance == graph::kNoTensor),
                "MEAN_DESC and INV_VARIANCE_DESC go together: set both or neither");
    // Without saved statistics they are recomputed from x, which needs epsilon.
    bind_scalar(CUDNN_ATTR_OPERATION_NORM_BWD_EPSILON_DESC, "EPSILON_DESC", n.inv_variance == graph::kNoTensor,
                set_epsilon);
    n.dscale = use_tensor(CUDNN_ATTR_OPERATION_NORM_BWD_DSCALE_DESC, "DSCALE_DESC", true);
    n.dbias = use_tensor(CUDNN_ATTR_OPERATION_NORM_BWD_DBIAS_DESC, "DBIAS_DESC", !rms);
    n.dx = use_tensor(CUDNN_ATTR_OPERATION_NORM_BWD_DXDESC, "DXDESC", true);
    n.compute_type = tensors_.front().dtype == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
    op_ = n;
  }
};

}  // namespace

FDNN_BACKEND_DESCRIPTOR(CUDNN_BACKEND_OPERATION_NORM_FORWARD_DESCRIPTOR, NormForwardOperation)
FDNN_BACKEND_DESCRIPTOR(CUDNN_BACKEND_OPERATION_NORM_BACKWARD_DESCRIPTOR, NormBackwardOperation)

}  // namespace fdnn::backend
