#include "graph/bn_finalize.hpp"

#include "core/error.hpp"

namespace fdnn::graph {

namespace {

struct Builder {
  Graph &g;
  cudnnDataType_t ct;
  std::vector<int64_t> dims;  // the per-channel shape

  // A packed virtual per-channel tensor in the compute type.
  Uid temp() {
    Tensor t;
    t.dtype = ct;
    t.dims = dims;
    t.strides.assign(dims.size(), 1);
    for (int d = static_cast<int>(dims.size()) - 2; d >= 0; --d) t.strides[d] = t.strides[d + 1] * dims[d + 1];
    t.is_virtual = true;
    return g.add_tensor_auto(t);
  }
  Uid constant(double v) {
    Tensor t;
    t.dtype = ct;
    t.dims.assign(dims.size(), 1);
    t.strides.assign(dims.size(), 1);
    t.by_value = true;
    t.value = v;
    return g.add_tensor_auto(t);
  }
  // y = mode(x, b); y is a new temporary unless given.
  Uid op(cudnnPointwiseMode_t mode, Uid x, Uid b = kNoTensor, Uid y = kNoTensor) {
    if (y == kNoTensor) y = temp();
    PointwiseOp p;
    p.mode = mode;
    p.compute_type = ct;
    p.x = x;
    p.b = b;
    p.y = y;
    g.add_op(p);
    return y;
  }
};

}  // namespace

void append_bn_finalize(Graph &g, const BnFinalizeIo &io) {
  const Uid shape_from = io.training ? io.sum : io.mean;
  check_arg(shape_from != kNoTensor, io.training ? "BN finalize needs the sum" : "BN finalize needs the mean");
  Builder b{g, io.compute_type, g.tensor(shape_from).dims};
  const bool want_stats = io.eq_scale != kNoTensor || io.eq_bias != kNoTensor || io.saved_inv_std != kNoTensor;
  const bool want_running = io.next_running_mean != kNoTensor || io.next_running_var != kNoTensor;
  if (io.eq_scale != kNoTensor) check_arg(io.scale != kNoTensor, "BN finalize: eq_scale needs the scale");
  if (io.eq_bias != kNoTensor)
    check_arg(io.scale != kNoTensor && io.bias != kNoTensor, "BN finalize: eq_bias needs the scale and the bias");
  check_arg(io.epsilon != kNoTensor || !want_stats, "BN finalize needs epsilon");

  Uid mean = io.mean, var = io.variance;
  if (io.training) {
    check_arg(io.sq_sum != kNoTensor && io.count != kNoTensor, "BN finalize (training) needs sq_sum and the count");
    mean = b.op(CUDNN_POINTWISE_DIV, io.sum, io.count);
    if (want_stats || io.next_running_var != kNoTensor) {
      const Uid ex2 = b.op(CUDNN_POINTWISE_DIV, io.sq_sum, io.count);
      const Uid m2 = b.op(CUDNN_POINTWISE_MUL, mean, mean);
      var = b.op(CUDNN_POINTWISE_SUB, ex2, m2);
    }
    if (io.saved_mean != kNoTensor) b.op(CUDNN_POINTWISE_IDENTITY, mean, kNoTensor, io.saved_mean);
  } else {
    check_arg(io.variance != kNoTensor, "BN finalize (inference) needs the variance");
  }
  if (want_stats) {
    const Uid ve = b.op(CUDNN_POINTWISE_ADD, var, io.epsilon);
    const Uid inv_std = b.op(CUDNN_POINTWISE_RSQRT, ve);
    if (io.saved_inv_std != kNoTensor) b.op(CUDNN_POINTWISE_IDENTITY, inv_std, kNoTensor, io.saved_inv_std);
    if (io.eq_scale != kNoTensor || io.eq_bias != kNoTensor) {
      const Uid es = b.op(CUDNN_POINTWISE_MUL, io.scale, inv_std);
      if (io.eq_scale != kNoTensor) b.op(CUDNN_POINTWISE_IDENTITY, es, kNoTensor, io.eq_scale);
      if (io.eq_bias != kNoTensor) {
        const Uid t = b.op(CUDNN_POINTWISE_MUL, mean, es);
        b.op(CUDNN_POINTWISE_SUB, io.bias, t, io.eq_bias);
      }
    }
  }
  if (io.training && want_running) {
    check_arg(io.exp_avg_factor != kNoTensor, "BN finalize: a running update needs the exponential average factor");
    if (io.next_running_mean != kNoTensor) {
      check_arg(io.prev_running_mean != kNoTensor, "BN finalize: the running mean update needs the previous value");
      const Uid d = b.op(CUDNN_POINTWISE_SUB, mean, io.prev_running_mean);
      const Uid t = b.op(CUDNN_POINTWISE_MUL, d, io.exp_avg_factor);
      b.op(CUDNN_POINTWISE_ADD, io.prev_running_mean, t, io.next_running_mean);
    }
    if (io.next_running_var != kNoTensor) {
      check_arg(io.prev_running_var != kNoTensor, "BN finalize: the running variance update needs the previous value");
      // Unbiased variance var * M / (M - 1).
      const Uid vm = b.op(CUDNN_POINTWISE_MUL, var, io.count);
      const Uid m1 = b.op(CUDNN_POINTWISE_SUB, io.count, b.constant(1.0));
      const Uid uv = b.op(CUDNN_POINTWISE_DIV, vm, m1);
      const Uid d = b.op(CUDNN_POINTWISE_SUB, uv, io.prev_running_var);
      const Uid t = b.op(CUDNN_POINTWISE_MUL, d, io.exp_avg_factor);
      b.op(CUDNN_POINTWISE_ADD, io.prev_running_var, t, io.next_running_var);
    }
  }
}

}  // namespace fdnn::graph
