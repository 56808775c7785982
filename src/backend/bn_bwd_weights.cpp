// CUDNN_BACKEND_OPERATION_BN_BWD_WEIGHTS_DESCRIPTOR: the weight gradients of
// batch norm and the per-channel coefficients of its data gradient,
//   xhat         = (x - mean) * inv_std
//   dscale       = sum(dy * xhat)        dbias = sum(dy)     (over all but C)
//   eq_dy_scale  = scale * inv_std
//   eq_x_scale   = -eq_dy_scale * inv_std * dscale / M
//   eq_bias      = eq_dy_scale * (mean * inv_std * dscale - dbias) / M
// so that dx = eq_dy_scale * dy + eq_x_scale * x + eq_bias, with M the
// element count per channel. There is no such op in the internal model: the
// descriptor expands into pointwise ops (full-size ones into virtual tensors
// in the math precision) and two ADD reductions, which the op-by-op graph
// engine runs. Every tensor is required; the per-channel ones are 1 x C x 1 ...
// cuDNN 9 finalizes the node without any attribute set (its checks come
// later); FreeDNN checks at finalize (BAD_PARAM naming what is missing).
#include "backend/expansion.hpp"
#include "backend/operation.hpp"
#include "core/error.hpp"

namespace fdnn::backend {

namespace {

class BnBwdWeightsOperation : public OperationDescriptor {
 public:
  BnBwdWeightsOperation()
      : OperationDescriptor(CUDNN_BACKEND_OPERATION_BN_BWD_WEIGHTS_DESCRIPTOR,
                            {
                                {CUDNN_ATTR_OPERATION_BN_BWD_WEIGHTS_MATH_PREC, CUDNN_TYPE_DATA_TYPE},
                                {CUDNN_ATTR_OPERATION_BN_BWD_WEIGHTS_MEAN_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR},
                                {CUDNN_ATTR_OPERATION_BN_BWD_WEIGHTS_INVSTD_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR},
                                {CUDNN_ATTR_OPERATION_BN_BWD_WEIGHTS_BN_SCALE_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR},
                                {CUDNN_ATTR_OPERATION_BN_BWD_WEIGHTS_X_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR},
                                {CUDNN_ATTR_OPERATION_BN_BWD_WEIGHTS_DY_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR},
                                {CUDNN_ATTR_OPERATION_BN_BWD_WEIGHTS_DBN_SCALE_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR},
                                {CUDNN_ATTR_OPERATION_BN_BWD_WEIGHTS_DBN_BIAS_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR},
                                {CUDNN_ATTR_OPERATION_BN_BWD_WEIGHTS_EQ_DY_SCALE_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR},
                                {CUDNN_ATTR_OPERATION_BN_BWD_WEIGHTS_EQ_X_SCALE_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR},
                                {CUDNN_ATTR_OPERATION_BN_BWD_WEIGHTS_EQ_BIAS, CUDNN_TYPE_BACKEND_DESCRIPTOR},
                            }) {}

 protected:
  void do_finalize() override {
    using namespace expansion;
    tensors_.clear();
    extra_ops_.clear();
    const auto ct = scalar<cudnnDataType_t>(CUDNN_ATTR_OPERATION_BN_BWD_WEIGHTS_MATH_PREC, CUDNN_DATA_FLOAT);
    check_supported(ct == CUDNN_DATA_FLOAT || ct == CUDNN_DATA_DOUBLE, "MATH_PREC = ", static_cast<int>(ct),
                    ": FreeDNN computes BN backward weights in FLOAT or DOUBLE");
    const graph::Uid x = use_tensor(CUDNN_ATTR_OPERATION_BN_BWD_WEIGHTS_X_DESC, "X_DESC", true);
    const graph::Uid dy = use_tensor(CUDNN_ATTR_OPERATION_BN_BWD_WEIGHTS_DY_DESC, "DY_DESC", true);
    const graph::Tensor xt = tensors_[0], dyt = tensors_[1];
    check_arg(xt.rank() >= 3, "x has rank ", xt.rank(), ": expected N, C and spatial dimensions");
    check_arg(dyt.dims == xt.dims, "dy ", dyt.to_string(), " does not have x's dims ", xt.to_string());
    std::vector<int64_t> per_channel(xt.dims.size(), 1);
    per_channel[1] = xt.dims[1];
    const auto channel = [&](cudnnBackendAttributeName_t name, const char *what) {
      const graph::Uid u = use_tensor(name, what, true);
      check_arg(tensors_.back().dims == per_channel, what, " is ", tensors_.back().to_string(),
                ", expected the per-channel shape 1 x ", xt.dims[1], " x 1 ...");
      return u;
    };
    const graph::Uid mean = channel(CUDNN_ATTR_OPERATION_BN_BWD_WEIGHTS_MEAN_DESC, "MEAN_DESC");
    const graph::Uid inv_std = channel(CUDNN_ATTR_OPERATION_BN_BWD_WEIGHTS_INVSTD_DESC, "INVSTD_DESC");
    const graph::Uid scale = channel(CUDNN_ATTR_OPERATION_BN_BWD_WEIGHTS_BN_SCALE_DESC, "BN_SCALE_DESC");
    const graph::Uid dscale = channel(CUDNN_ATTR_OPERATION_BN_BWD_WEIGHTS_DBN_SCALE_DESC, "DBN_SCALE_DESC");
    const graph::Uid dbias = channel(CUDNN_ATTR_OPERATION_BN_BWD_WEIGHTS_DBN_BIAS_DESC, "DBN_BIAS_DESC");
    const graph::Uid eq_dy = channel(CUDNN_ATTR_OPERATION_BN_BWD_WEIGHTS_EQ_DY_SCALE_DESC, "EQ_DY_SCALE_DESC");
    const graph::Uid eq_x = channel(CUDNN_ATTR_OPERATION_BN_BWD_WEIGHTS_EQ_X_SCALE_DESC, "EQ_X_SCALE_DESC");
    const graph::Uid eq_bias = channel(CUDNN_ATTR_OPERATION_BN_BWD_WEIGHTS_EQ_BIAS, "EQ_BIAS");
    const double m = static_cast<double>(xt.element_count() / std::max<int64_t>(xt.dims[1], 1));
    check_arg(m > 0, "x has no elements per channel");

    const auto full = [&] {
      tensors_.push_back(virtual_tensor(xt.dims, ct));
      return tensors_.back().uid;
    };
    const auto chan = [&] {
      tensors_.push_back(virtual_tensor(per_channel, ct));
      return tensors_.back().uid;
    };
    std::vector<graph::Op> ops;
    // dbias = sum(dy): the descriptor's op().
    graph::ReductionOp sum_dy;
    sum_dy.mode = CUDNN_REDUCE_TENSOR_ADD;
    sum_dy.compute_type = ct;
    sum_dy.x = dy;
    sum_dy.y = dbias;
    ops.push_back(sum_dy);
    // dscale = sum(dy * (x - mean) * inv_std).
    const graph::Uid centred = full(), xhat = full(), prod = full();
    ops.push_back(pointwise(CUDNN_POINTWISE_SUB, ct, x, mean, centred));
    ops.push_back(pointwise(CUDNN_POINTWISE_MUL, ct, centred, inv_std, xhat));
    ops.push_back(pointwise(CUDNN_POINTWISE_MUL, ct, xhat, dy, prod));
    graph::ReductionOp sum_prod = sum_dy;
    sum_prod.x = prod;
    sum_prod.y = dscale;
    ops.push_back(sum_prod);
    // The coefficients, per channel.
    ops.push_back(pointwise(CUDNN_POINTWISE_MUL, ct, scale, inv_std, eq_dy));
    const graph::Uid a = chan(), b = chan();
    ops.push_back(pointwise(CUDNN_POINTWISE_MUL, ct, eq_dy, inv_std, a));    // scale * inv_std^2
    ops.push_back(pointwise(CUDNN_POINTWISE_MUL, ct, a, dscale, b));        // ... * dscale
    ops.push_back(pointwise(CUDNN_POINTWISE_IDENTITY, ct, b, graph::kNoTensor, eq_x, -1.0 / m));
    const graph::Uid c = chan(), d = chan(), e = chan();
    ops.push_back(pointwise(CUDNN_POINTWISE_MUL, ct, mean, inv_std, c));
    ops.push_back(pointwise(CUDNN_POINTWISE_MUL, ct, c, dscale, d));        // mean * inv_std * dscale
    ops.push_back(pointwise(CUDNN_POINTWISE_SUB, ct, d, dbias, e, 1.0 / m, 1.0 / m));
    ops.push_back(pointwise(CUDNN_POINTWISE_MUL, ct, eq_dy, e, eq_bias));
    op_ = ops.front();
    extra_ops_.assign(ops.begin() + 1, ops.end());
  }
};

}  // namespace

FDNN_BACKEND_DESCRIPTOR(CUDNN_BACKEND_OPERATION_BN_BWD_WEIGHTS_DESCRIPTOR, BnBwdWeightsOperation)

}  // namespace fdnn::backend
