#include "graph/op_normalization.hpp"

#include <ostream>

#include "graph/structural_key.hpp"

namespace fdnn::graph {

void describe(std::ostream &os, const NormalizationOp &op, bool with_values) {
  os << "norm(mode=" << op.mode << (op.backward ? ",bwd" : op.phase == CUDNN_NORM_FWD_TRAINING ? ",train" : ",infer")
     << ",ct=" << op.compute_type << ",x=" << op.x << ",y=" << op.y << ",z=" << op.z << ",s=" << op.scale
     << ",b=" << op.bias << ",m=" << op.mean << ",iv=" << op.inv_variance << ",v=" << op.variance
     << ",rm=" << op.running_mean_in << '/' << op.running_mean_out << ",rv=" << op.running_var_in << '/'
     << op.running_var_out << ",dy=" << op.dy << ",dx=" << op.dx << ",ds=" << op.dscale << ",db=" << op.dbias
     << ",dz=" << op.dz << ",mask=" << op.mask;
  if (op.has_activation) os << ",act=" << op.activation;
  if (with_values) {
    os << ",eps=" << op.epsilon << ",f=" << op.exp_avg_factor;
    if (op.has_activation) os << ",clip=" << op.relu_upper_clip;
  }
  describe_blend(os, op.blend, with_values);
  if (op.backward) {
    os << ",param";
    describe_blend(os, op.param_blend, with_values);
  }
  os << ')';
}

void append_structural_key(std::string &key, const NormalizationOp &op) {
  key += "\x01norm";
  key_put(key, {static_cast<int64_t>(op.mode), static_cast<int64_t>(op.backward), static_cast<int64_t>(op.phase),
                static_cast<int64_t>(op.compute_type), op.x, op.y, op.z, op.scale, op.bias, op.mean, op.inv_variance,
                op.variance, op.running_mean_in, op.running_mean_out, op.running_var_in, op.running_var_out, op.dy,
                op.dx, op.dscale, op.dbias, op.dz, op.mask, static_cast<int64_t>(op.has_activation),
                static_cast<int64_t>(op.has_activation ? op.activation : CUDNN_POINTWISE_IDENTITY),
                static_cast<int64_t>(op.blend.beta == 0.0),
                static_cast<int64_t>(op.backward && op.param_blend.beta == 0.0)});
}

}  // namespace fdnn::graph
