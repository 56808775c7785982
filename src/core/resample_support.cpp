#include "core/resample_support.hpp"

#include <algorithm>
#include <variant>

#include "core/error.hpp"
#include "core/op_support.hpp"

namespace fdnn {

namespace {

bool pooling_mode(const graph::ResampleOp &op) {
  switch (op.mode) {
    case CUDNN_RESAMPLE_MAXPOOL: return op.padding_mode == CUDNN_NEG_INF_PAD;
    case CUDNN_RESAMPLE_AVGPOOL_INCLUDE_PADDING:
    case CUDNN_RESAMPLE_AVGPOOL_EXCLUDE_PADDING: return op.padding_mode == CUDNN_ZERO_PAD;
    default: return false;
  }
}

}  // namespace

ResampleOperands resample_operands(const graph::Graph &g) {
  ResampleOperands r;
  r.op = &std::get<graph::ResampleOp>(g.ops().front());
  if (r.op->backward) {
    r.in = &g.tensor(r.op->dx);
    r.out = &g.tensor(r.op->dy);
    r.x = r.op->x != graph::kNoTensor ? &g.tensor(r.op->x) : nullptr;
  } else {
    r.in = &g.tensor(r.op->x);
    r.out = &g.tensor(r.op->y);
    r.x = r.in;
  }
  return r;
}

Support check_single_resample(const graph::Graph &g) {
  if (g.ops().size() != 1) return Support::no(cat("graph has ", g.ops().size(), " operations; this engine runs one"));
  const auto *op = std::get_if<graph::ResampleOp>(&g.ops().front());
  if (op == nullptr) return Support::no("not a resample operation");
  if (!pooling_mode(*op))
    return Support::no(cat("resample mode ", static_cast<int>(op->mode), " with padding mode ",
                           static_cast<int>(op->padding_mode), " is not implemented"));
  if (op->index != graph::kNoTensor) return Support::no("resample index tensors are not implemented");
  const int s = op->spatial_dims();
  if (s < 1 || op->pre_padding.size() != static_cast<size_t>(s) || op->post_padding.size() != static_cast<size_t>(s) ||
      op->strides.size() != static_cast<size_t>(s))
    return Support::no("window, paddings and strides need one entry per spatial dimension");
  for (int d = 0; d < s; ++d)
    if (op->window[d] < 1 || op->strides[d] < 1) return Support::no("windows and strides must be positive");
  std::vector<graph::Uid> uids = op->backward ? std::vector<graph::Uid>{op->dx, op->dy} : std::vector<graph::Uid>{op->x, op->y};
  if (op->backward && op->is_max()) {
    if (op->x == graph::kNoTensor) return Support::no("max pooling backward needs x");
    uids.push_back(op->x);
  }
  if (op->backward && op->y != graph::kNoTensor) uids.push_back(op->y);
  std::vector<const graph::Tensor *> ts;
  for (graph::Uid u : uids) {
    const graph::Tensor *t = g.find_tensor(u);
    if (t == nullptr) return Support::no(cat("tensor ", u, " is missing"));
    if (t->by_value || t->is_virtual) return Support::no("resample operands must be real tensors");
    ts.push_back(t);
  }
  const graph::Tensor &in = *ts[0], &out = *ts[1];
  const int rank = in.rank();
  if (rank < 2 + s) return Support::no(cat("tensors of rank ", rank, " have no ", s, " spatial dimensions"));
  for (size_t k = 0; k < ts.size(); ++k) {
    const graph::Tensor &t = *ts[k];
    if (t.rank() != rank || t.strides.size() != t.dims.size()) return Support::no("operands differ in rank");
    if (t.dtype != in.dtype) return Support::no("operands differ in data type");
  }
  for (int d = 0; d < rank; ++d) {
    const bool spatial = d >= 2 && d < 2 + s;
    if (!spatial && in.dims[d] != out.dims[d]) return Support::no(cat("non-spatial dimension ", d, " differs"));
  }
  if (op->backward) {
    if (op->x != graph::kNoTensor && g.tensor(op->x).dims != in.dims) return Support::no("x and dx differ in dims");
    if (op->y != graph::kNoTensor && g.tensor(op->y).dims != out.dims) return Support::no("y and dy differ in dims");
  }
  if (has_overlapping_elements(op->backward ? in : out)) return Support::no("the output has overlapping elements");
  return Support::yes();
}

int64_t average_count(const graph::ResampleOp &op, int d, int64_t start, int64_t n) {
  const int64_t lo = op.mode == CUDNN_RESAMPLE_AVGPOOL_EXCLUDE_PADDING ? 0 : -op.pre_padding[d];
  const int64_t hi = op.mode == CUDNN_RESAMPLE_AVGPOOL_EXCLUDE_PADDING ? n : n + op.post_padding[d];
  return std::max<int64_t>(0, std::min(start + op.window[d], hi) - std::max(start, lo));
}

bool resample_computes_in_double(const graph::Graph &g, const graph::ResampleOp &op) {
  if (op.compute_type == CUDNN_DATA_DOUBLE) return true;
  for (const graph::Tensor &t : g.tensors())
    if (t.dtype == CUDNN_DATA_DOUBLE) return true;
  return false;
}

}  // namespace fdnn
