#include "graph/op_normalization.hpp"

#include <ostream>

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

}  // namespace fdnn::graph
