#include "core/normalization_support.hpp"

#include <algorithm>
#include <numeric>
#include <variant>

#include "core/error.hpp"

namespace fdnn {

namespace {

bool is_norm_data_type(cudnnDataType_t t) {
  return t == CUDNN_DATA_FLOAT || t == CUDNN_DATA_DOUBLE || t == CUDNN_DATA_HALF || t == CUDNN_DATA_BFLOAT16;
}

}  // namespace

const graph::Tensor &normalization_stats_tensor(const graph::Graph &g, const graph::NormalizationOp &op) {
  for (graph::Uid u : {op.mean, op.inv_variance, op.variance, op.running_mean_in, op.scale, op.dscale})
    if (u != graph::kNoTensor) return g.tensor(u);
  fail(CUDNN_STATUS_INTERNAL_ERROR, "normalization op has no statistics, scale or dscale tensor");
}

std::vector<int64_t> normalization_stats_dims(const graph::Graph &g, const graph::NormalizationOp &op) {
  for (graph::Uid u : {op.mean, op.inv_variance, op.variance, op.running_mean_in})
    if (u != graph::kNoTensor) return g.tensor(u).dims;
  const graph::Tensor &x = g.tensor(op.x);
  if (op.mode == CUDNN_LAYER_NORM || op.mode == CUDNN_RMS_NORM || op.mode == CUDNN_INSTANCE_NORM) {
    std::vector<int64_t> d(x.dims.size(), 1);
    const size_t kept = op.mode == CUDNN_INSTANCE_NORM ? 2 : 1;
    for (size_t i = 0; i < kept && i < d.size(); ++i) d[i] = x.dims[i];
    return d;
  }
  return normalization_stats_tensor(g, op).dims;
}

Support check_single_normalization(const graph::Graph &g, bool allow_rms) {
  if (g.ops().size() != 1) return Support::no(cat("graph has ", g.ops().size(), " operations; this engine runs one"));
  const auto *op = std::get_if<graph::NormalizationOp>(&g.ops().front());
  if (op == nullptr) return Support::no("not a normalization");
  const bool rms = op->mode == CUDNN_RMS_NORM && allow_rms;
  if (op->mode != CUDNN_BATCH_NORM && op->mode != CUDNN_LAYER_NORM && op->mode != CUDNN_INSTANCE_NORM && !rms)
    return Support::no(cat("normalization mode ", static_cast<int>(op->mode), " is not implemented"));
  if (rms && (op->mean != graph::kNoTensor || op->variance != graph::kNoTensor ||
              op->running_mean_in != graph::kNoTensor || op->running_var_in != graph::kNoTensor ||
              op->has_activation || op->z != graph::kNoTensor))
    return Support::no("RMS norm has no mean, running statistics, residual or fused activation");
  if (op->has_activation && !normalization_activation_known(op->activation))
    return Support::no(cat("fused activation ", static_cast<int>(op->activation), " is not implemented"));
  const graph::Tensor *x = g.find_tensor(op->x);
  if (x == nullptr) return Support::no("x is missing");
  if (!is_norm_data_type(x->dtype)) return Support::no("x's data type is not FLOAT, DOUBLE, HALF or BFLOAT16");
  const int rank = x->rank();
  auto same_as_x = [&](graph::Uid u, const char *name) -> Support {
    if (u == graph::kNoTensor) return Support::yes();
    const graph::Tensor *t = g.find_tensor(u);
    if (t == nullptr) return Support::no(cat(name, " is missing"));
    if (t->dims != x->dims) return Support::no(cat(name, " does not have x's dims"));
    if (t->by_value) return Support::no(cat(name, " is a by-value scalar"));
    return Support::yes();
  };
  auto per_stat = [&](graph::Uid u, const char *name) -> Support {
    if (u == graph::kNoTensor) return Support::yes();
    const graph::Tensor *t = g.find_tensor(u);
    if (t == nullptr) return Support::no(cat(name, " is missing"));
    if (t->rank() != rank) return Support::no(cat(name, " does not have x's rank"));
    for (int d = 0; d < rank; ++d)
      if (t->dims[d] != x->dims[d] && t->dims[d] != 1) return Support::no(cat(name, " dim ", d, " is neither x's nor 1"));
    if (t->dtype != CUDNN_DATA_FLOAT && t->dtype != CUDNN_DATA_DOUBLE)
      return Support::no(cat(name, " is not FLOAT or DOUBLE"));
    return Support::yes();
  };
  const struct {
    graph::Uid u;
    const char *name;
  } data[] = {{op->y, "y"}, {op->z, "z"}, {op->dy, "dy"}, {op->dx, "dx"}, {op->dz, "dz"}, {op->mask, "mask"}};
  for (const auto &d : data)
    if (Support s = same_as_x(d.u, d.name); !s) return s;
  const struct {
    graph::Uid u;
    const char *name;
  } stats[] = {{op->scale, "scale"},           {op->bias, "bias"},
               {op->mean, "mean"},             {op->inv_variance, "inv_variance"},
               {op->variance, "variance"},     {op->running_mean_in, "running_mean_in"},
               {op->running_var_in, "running_var_in"}, {op->running_mean_out, "running_mean_out"},
               {op->running_var_out, "running_var_out"}, {op->dscale, "dscale"},
               {op->dbias, "dbias"}};
  for (const auto &s : stats)
    if (Support r = per_stat(s.u, s.name); !r) return r;
  // Statistics sets must agree in shape (scale and bias may broadcast further).
  const std::vector<int64_t> st = normalization_stats_dims(g, *op);
  for (graph::Uid u : {op->mean, op->inv_variance, op->variance, op->running_mean_in, op->running_var_in,
                       op->running_mean_out, op->running_var_out})
    if (u != graph::kNoTensor && g.tensor(u).dims != st) return Support::no("statistics tensors differ in shape");
  if (op->mask != graph::kNoTensor && g.tensor(op->mask).dtype != CUDNN_DATA_UINT8)
    return Support::no("mask is not UINT8");
  if (op->backward) {
    if (op->dy == graph::kNoTensor || op->dx == graph::kNoTensor || op->scale == graph::kNoTensor)
      return Support::no("backward needs dy, dx and scale");
    if (!rms && (op->mean == graph::kNoTensor) != (op->inv_variance == graph::kNoTensor))
      return Support::no("backward needs both saved mean and inv_variance, or neither");
    if (op->has_activation && op->mask == graph::kNoTensor) return Support::no("backward activation needs the mask");
  } else {
    if (op->y == graph::kNoTensor) return Support::no("forward needs y");
    if (op->phase == CUDNN_NORM_FWD_INFERENCE) {
      if (rms && op->inv_variance == graph::kNoTensor) return Support::no("RMS inference needs inv_variance");
      if (rms) return Support::yes();
      if (op->mean == graph::kNoTensor || (op->variance == graph::kNoTensor && op->inv_variance == graph::kNoTensor))
        return Support::no("inference needs mean and variance (or inv_variance)");
    } else if ((op->running_mean_in == graph::kNoTensor) != (op->running_mean_out == graph::kNoTensor) ||
               (op->running_var_in == graph::kNoTensor) != (op->running_var_out == graph::kNoTensor)) {
      return Support::no("running statistics need both their input and their output");
    }
  }
  return Support::yes();
}

NormShape normalization_shape(const graph::Graph &g, const graph::NormalizationOp &op) {
  const graph::Tensor &x = g.tensor(op.x);
  const std::vector<int64_t> st = normalization_stats_dims(g, op);
  NormShape s;
  s.dims = x.dims;
  s.reduced.resize(x.dims.size());
  for (size_t d = 0; d < x.dims.size(); ++d) {
    s.reduced[d] = st[d] == 1 && x.dims[d] != 1;
    (s.reduced[d] ? s.count : s.groups) *= x.dims[d];
  }
  return s;
}

std::vector<int64_t> broadcast_strides(const graph::Tensor &t) {
  std::vector<int64_t> s(t.dims.size(), 0);
  for (size_t d = 0; d < t.dims.size(); ++d) s[d] = t.dims[d] == 1 ? 0 : t.strides[d];
  return s;
}

std::vector<int64_t> normalization_mask_strides(const graph::Tensor &x) {
  const size_t rank = x.dims.size();
  std::vector<size_t> order(rank);
  std::iota(order.begin(), order.end(), size_t{0});
  // Largest |stride| outermost; ties keep the logical order.
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    int64_t sa = x.strides[a] < 0 ? -x.strides[a] : x.strides[a];
    int64_t sb = x.strides[b] < 0 ? -x.strides[b] : x.strides[b];
    return sa > sb;
  });
  std::vector<int64_t> s(rank, 0);
  int64_t step = 1;
  for (size_t k = rank; k-- > 0;) {
    s[order[k]] = step;
    step *= x.dims[order[k]];
  }
  return s;
}

}  // namespace fdnn
