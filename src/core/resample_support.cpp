#include "core/resample_support.hpp"

#include <algorithm>
#include <cstdint>
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
  if (r.op->index != graph::kNoTensor) r.index = g.find_tensor(r.op->index);
  return r;
}

namespace {

bool index_type(cudnnDataType_t t) {
  return t == CUDNN_DATA_INT8 || t == CUDNN_DATA_UINT8 || t == CUDNN_DATA_INT32 || t == CUDNN_DATA_INT64;
}

// The largest window position (plus the -1 marker) an index type holds.
int64_t index_capacity(cudnnDataType_t t) {
  switch (t) {
    case CUDNN_DATA_INT8: return 127;
    case CUDNN_DATA_UINT8: return 254;  // 255 is the -1 marker
    case CUDNN_DATA_INT32: return INT32_MAX;
    default: return INT64_MAX;
  }
}

// What every resample graph needs; `extended`: also the index tensor and the
// upsampling modes.
Support check_resample(const graph::Graph &g, bool extended) {
  if (g.ops().size() != 1) return Support::no(cat("graph has ", g.ops().size(), " operations; this engine runs one"));
  const auto *op = std::get_if<graph::ResampleOp>(&g.ops().front());
  if (op == nullptr) return Support::no("not a resample operation");
  const bool interp = op->is_interpolation();
  if (interp && !extended) return Support::no("upsampling resample modes are not implemented by this engine");
  if (interp) {
    if (op->padding_mode != CUDNN_ZERO_PAD && op->padding_mode != CUDNN_EDGE_VAL_PAD)
      return Support::no(cat("resample mode ", static_cast<int>(op->mode), " with padding mode ",
                             static_cast<int>(op->padding_mode), " is not implemented (zero or edge-value padding)"));
  } else if (!pooling_mode(*op)) {
    return Support::no(cat("resample mode ", static_cast<int>(op->mode), " with padding mode ",
                           static_cast<int>(op->padding_mode), " is not implemented"));
  }
  if (op->index != graph::kNoTensor) {
    if (!extended) return Support::no("resample index tensors are not implemented by this engine");
    if (!op->is_max()) return Support::no("only max pooling has an index tensor");
  }
  const int s = op->spatial_dims();
  if (s < 1 || op->pre_padding.size() != static_cast<size_t>(s) || op->post_padding.size() != static_cast<size_t>(s) ||
      op->strides.size() != static_cast<size_t>(s))
    return Support::no("window, paddings and strides need one entry per spatial dimension");
  if (interp) {
    if (op->strides_ratio.size() != static_cast<size_t>(s) || op->pre_padding_ratio.size() != static_cast<size_t>(s) ||
        op->window_ratio.size() != static_cast<size_t>(s))
      return Support::no("upsampling needs the fractional geometry of the backend API");
    for (int d = 0; d < s; ++d)
      if (op->strides_ratio[d].num <= 0 || op->strides_ratio[d].den <= 0 || op->window_ratio[d].den <= 0 ||
          op->pre_padding_ratio[d].den <= 0)
        return Support::no("upsampling strides must be positive");
  } else {
    for (int d = 0; d < s; ++d)
      if (op->window[d] < 1 || op->strides[d] < 1) return Support::no("windows and strides must be positive");
  }
  std::vector<graph::Uid> uids = op->backward ? std::vector<graph::Uid>{op->dx, op->dy} : std::vector<graph::Uid>{op->x, op->y};
  if (op->backward && op->is_max() && op->index == graph::kNoTensor) {
    if (op->x == graph::kNoTensor) return Support::no("max pooling backward needs x or an index tensor");
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
    if (spatial && interp && in.dims[d] < 1) return Support::no("upsampling needs a non-empty input");
  }
  if (op->backward) {
    if (op->x != graph::kNoTensor && g.tensor(op->x).dims != in.dims) return Support::no("x and dx differ in dims");
    if (op->y != graph::kNoTensor && g.tensor(op->y).dims != out.dims) return Support::no("y and dy differ in dims");
  }
  if (has_overlapping_elements(op->backward ? in : out)) return Support::no("the output has overlapping elements");
  if (op->index != graph::kNoTensor) {
    const graph::Tensor *idx = g.find_tensor(op->index);
    if (idx == nullptr) return Support::no(cat("tensor ", op->index, " is missing"));
    if (idx->by_value || idx->is_virtual) return Support::no("the index tensor must be a real tensor");
    if (idx->dims != out.dims || idx->strides.size() != idx->dims.size())
      return Support::no(op->backward ? "the index tensor does not have the dimensions of dy"
                                      : "the index tensor does not have the dimensions of y");
    if (!index_type(idx->dtype))
      return Support::no(cat("index tensors of type ", static_cast<int>(idx->dtype),
                             " are not supported (INT8, UINT8, INT32 or INT64)"));
    int64_t positions = 1;
    for (int64_t w : op->window) positions = positions > INT64_MAX / w ? INT64_MAX : positions * w;
    if (positions - 1 > index_capacity(idx->dtype))
      return Support::no(cat("a window of ", positions, " positions does not fit the index type"));
    if (!op->backward && has_overlapping_elements(*idx)) return Support::no("the index tensor has overlapping elements");
  }
  return Support::yes();
}

int64_t gcd64(int64_t a, int64_t b) {
  while (b != 0) {
    const int64_t t = a % b;
    a = b;
    b = t;
  }
  return a < 0 ? -a : a;
}

int64_t lcm64(int64_t a, int64_t b) { return a / gcd64(a, b) * b; }

}  // namespace

Support check_single_resample(const graph::Graph &g) { return check_resample(g, false); }

Support check_any_resample(const graph::Graph &g) { return check_resample(g, true); }

Support check_single_interpolation(const graph::Graph &g) {
  if (Support s = check_resample(g, true); !s) return s;
  if (!std::get<graph::ResampleOp>(g.ops().front()).is_interpolation())
    return Support::no("not an upsampling (NEAREST or BILINEAR) resample");
  return Support::yes();
}

SampleAxis sample_axis(const graph::ResampleOp &op, int d) {
  // s = o * stride - pre + window / 2 - 1 / 2 over the common denominator.
  const auto &st = op.strides_ratio[d], &pre = op.pre_padding_ratio[d], &win = op.window_ratio[d];
  const int64_t q = lcm64(lcm64(st.den, pre.den), 2 * win.den);
  SampleAxis a;
  a.denominator = q;
  a.scale = st.num * (q / st.den);
  a.offset = -pre.num * (q / pre.den) + win.num * (q / (2 * win.den)) - q / 2;
  return a;
}

LinearSample linear_sample(const SampleAxis &a, int64_t o, int64_t n) {
  const __int128 num = static_cast<__int128>(o) * a.scale + a.offset;
  LinearSample r;
  if (num <= 0) return r;  // clamped to 0
  if (num / a.denominator >= n - 1) {
    r.i0 = r.i1 = n - 1;
    return r;
  }
  const int64_t i0 = static_cast<int64_t>(num / a.denominator);
  const __int128 rest = num - static_cast<__int128>(i0) * a.denominator;
  r.i0 = i0;
  r.i1 = rest == 0 ? i0 : i0 + 1;  // on a sample point both taps are the same input
  r.w1 = static_cast<double>(rest) / static_cast<double>(a.denominator);
  return r;
}

int64_t nearest_sample(const SampleAxis &a, int64_t o, int64_t n) {
  const __int128 num = static_cast<__int128>(o) * a.scale + a.offset;
  if (num <= 0) return 0;
  const __int128 i = num / a.denominator;
  return i >= n - 1 ? n - 1 : static_cast<int64_t>(i);
}

int64_t average_count(const graph::ResampleOp &op, int d, int64_t start, int64_t n) {
  const int64_t lo = op.mode == CUDNN_RESAMPLE_AVGPOOL_EXCLUDE_PADDING ? 0 : -op.pre_padding[d];
  const int64_t hi = op.mode == CUDNN_RESAMPLE_AVGPOOL_EXCLUDE_PADDING ? n : n + op.post_padding[d];
  return std::min(start + op.window[d], hi) - std::max(start, lo);
}

bool resample_computes_in_double(const graph::Graph &g, const graph::ResampleOp &op) {
  if (op.compute_type == CUDNN_DATA_DOUBLE) return true;
  for (const graph::Tensor &t : g.tensors())
    if (t.dtype == CUDNN_DATA_DOUBLE) return true;
  return false;
}

}  // namespace fdnn
