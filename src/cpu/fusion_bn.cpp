// cpu.fusion.bn: the CPU engine for the graph guide's batch-norm patterns
// (core/bn_pattern.hpp), on channels-innermost packed tensors (NHWC, NDHWC):
// a "row" is one position's C channels, contiguous, and every loop runs
// along a row, vectorised across channels. Virtual tensors are never
// materialised:
//
//  - BnAddRelu: one statistics pass (per tile of rows, per channel, sums of
//    x - shift and its square in double, shift = the first row, so there is
//    no E[x^2] - E[x]^2 cancellation for data far from 0), then one apply
//    pass computing y = relu(a x + b [+ z]) and the mask together.
//  - DReluForkDBn: one reduction pass (dReLU on the fly: sums of g and of
//    g (x - mean) per channel; the fork dz is written here when it is real),
//    then one apply pass dx = A g + B x + C with per-channel A, B, C.
//  - DgradDreluBNBwdWeight: the dgrad with the y_bn recomputation, dReLU and
//    reductions done per slice of dgrad output by cpu.fusion.runtime's
//    machinery (see DgradParts), then the per-channel A, B, C.
//  - dBNApply is recognised but left to cpu.fusion.runtime (see check()).
//
// Tiles have a fixed number of rows (not a function of the thread count) and
// their per-channel partial sums are combined in tile order, so results are
// the same for any number of threads. Type conversion happens per row
// (float, half, bfloat16 data; UINT8 masks) outside the inner loops.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <variant>
#include <vector>

#include "core/bn_pattern.hpp"
#include "core/dtype.hpp"
#include "core/error.hpp"
#include "core/normalization_support.hpp"
#include "core/pointwise_math.hpp"
#include "core/thread_pool.hpp"
#include "cpu/dtype_io.hpp"
#include "cpu/normalization_kernels.hpp"
#include "cpu/pointwise_support.hpp"
#include "graph/op_io.hpp"

namespace fdnn::cpu {
namespace {

constexpr int64_t kTileElements = 16384;  // elements of one tile of rows (L1/L2 resident)

bool io_type(cudnnDataType_t t) { return t == CUDNN_DATA_FLOAT || t == CUDNN_DATA_HALF || t == CUDNN_DATA_BFLOAT16; }

// Channels innermost and packed: NHWC / NDHWC.
bool channels_last_packed(const graph::Tensor &t) {
  if (t.rank() != 4 && t.rank() != 5) return false;
  int64_t step = 1;
  if (t.dims[1] != 1 && t.strides[1] != 1) return false;
  step = t.dims[1];
  for (int d = t.rank() - 1; d >= 2; --d) {
    if (t.dims[d] != 1 && t.strides[d] != step) return false;
    step *= t.dims[d];
  }
  return t.dims[0] == 1 || t.strides[0] == step;
}

// Row I/O: n elements at element offset `off`, converted to / from float.
void load_row(cudnnDataType_t t, const void *base, int64_t off, int64_t n, float *out) {
  switch (t) {
    case CUDNN_DATA_FLOAT: std::memcpy(out, static_cast<const float *>(base) + off, n * sizeof(float)); return;
    case CUDNN_DATA_HALF: {
      const auto *p = static_cast<const uint16_t *>(base) + off;
      for (int64_t i = simd::half_to_float(p, static_cast<int>(n), out); i < n; ++i)
        out[i] = normk::to_f<normk::Io::f16>(p[i]);
      return;
    }
    case CUDNN_DATA_BFLOAT16: {
      const auto *p = static_cast<const uint16_t *>(base) + off;
      for (int64_t i = simd::bf16_to_float(p, static_cast<int>(n), out); i < n; ++i)
        out[i] = normk::to_f<normk::Io::bf16>(p[i]);
      return;
    }
    case CUDNN_DATA_UINT8: {
      const auto *p = static_cast<const uint8_t *>(base) + off;
      for (int64_t i = 0; i < n; ++i) out[i] = static_cast<float>(p[i]);
      return;
    }
    default: fail(CUDNN_STATUS_INTERNAL_ERROR, "cpu.fusion.bn: unexpected row type");
  }
}

// d = alpha * r + beta * d (beta == 0: d is not read).
void store_row(cudnnDataType_t t, void *base, int64_t off, int64_t n, float *r, float alpha, float beta) {
  if (alpha != 1.0f || beta != 0.0f) {
    if (beta != 0.0f) {
      std::vector<float> prior(static_cast<size_t>(n));
      load_row(t, base, off, n, prior.data());
      for (int64_t i = 0; i < n; ++i) r[i] = alpha * r[i] + beta * prior[i];
    } else {
      for (int64_t i = 0; i < n; ++i) r[i] *= alpha;
    }
  }
  switch (t) {
    case CUDNN_DATA_FLOAT: std::memcpy(static_cast<float *>(base) + off, r, n * sizeof(float)); return;
    case CUDNN_DATA_HALF: {
      auto *p = static_cast<uint16_t *>(base) + off;
      for (int64_t i = simd::store_16bit<false, false>(p, r, static_cast<int>(n), 1.0f, 0.0f); i < n; ++i)
        p[i] = normk::from_f<normk::Io::f16>(r[i]);
      return;
    }
    case CUDNN_DATA_BFLOAT16: {
      auto *p = static_cast<uint16_t *>(base) + off;
      for (int64_t i = simd::store_16bit<true, false>(p, r, static_cast<int>(n), 1.0f, 0.0f); i < n; ++i)
        p[i] = normk::from_f<normk::Io::bf16>(r[i]);
      return;
    }
    case CUDNN_DATA_UINT8: {
      auto *p = static_cast<uint8_t *>(base) + off;
      for (int64_t i = 0; i < n; ++i) p[i] = r[i] != 0.0f ? uint8_t{1} : uint8_t{0};
      return;
    }
    default: fail(CUDNN_STATUS_INTERNAL_ERROR, "cpu.fusion.bn: unexpected row type");
  }
}

// Row kernels over n channels; __restrict lets them vectorise without alias
// checks (each row buffer is distinct).
void affine(float *__restrict v, const float *__restrict a, const float *__restrict b, int64_t n) {
  for (int64_t c = 0; c < n; ++c) v[c] = a[c] * v[c] + b[c];
}
void axpby(float *__restrict v, const float *__restrict z, float kv, float kz, int64_t n) {
  for (int64_t c = 0; c < n; ++c) v[c] = kv * v[c] + kz * z[c];
}
void relu_plain(float *__restrict v, int64_t n, bool propagate_nan) {  // max(v, 0); NaN kept or 0
  if (propagate_nan)
    for (int64_t c = 0; c < n; ++c) v[c] = v[c] < 0.0f ? 0.0f : v[c];
  else
    for (int64_t c = 0; c < n; ++c) v[c] = v[c] > 0.0f ? v[c] : 0.0f;
}
void greater(float *__restrict v, int64_t n, float k, float t, float on) {
  for (int64_t c = 0; c < n; ++c) v[c] = k * v[c] > t ? on : 0.0f;
}
// g = x > 0 ? g : 0 * g (RELU_BWD with the default parameters; NaN x kept).
void drelu_plain(float *__restrict g, const float *__restrict x, int64_t n) {
  for (int64_t c = 0; c < n; ++c) g[c] = x[c] != x[c] ? x[c] : x[c] <= 0.0f ? 0.0f * g[c] : g[c];
}
void shifted_sums(double *__restrict s1, double *__restrict s2, const float *__restrict x, const float *__restrict sh,
                  int64_t n) {
  for (int64_t c = 0; c < n; ++c) {
    const double d = static_cast<double>(x[c] - sh[c]);
    s1[c] += d;
    s2[c] += d * d;
  }
}
void gradient_sums(double *__restrict sg, double *__restrict sgx, const float *__restrict g, const float *__restrict x,
                   const float *__restrict mu, int64_t n) {
  for (int64_t c = 0; c < n; ++c) {
    sg[c] += static_cast<double>(g[c]);
    sgx[c] += static_cast<double>(g[c] * (x[c] - mu[c]));
  }
}
void abc(float *__restrict g, const float *__restrict x, const float *__restrict A, const float *__restrict B,
         const float *__restrict C, int64_t n) {
  for (int64_t c = 0; c < n; ++c) g[c] = A[c] * g[c] + B[c] * x[c] + C[c];
}

// A per-channel FLOAT tensor [1, C, 1, ...] read into / written from a vector.
std::vector<double> load_channels(const graph::Tensor &t, const void *p) {
  std::vector<double> v(static_cast<size_t>(t.dims[1]));
  for (int64_t c = 0; c < t.dims[1]; ++c) v[c] = load_lane(t.dtype, p, c * t.strides[1]);
  return v;
}
void store_channel(const graph::Tensor &t, void *p, int64_t c, double v) {
  store_lane(t.dtype, p, c * t.strides[1], v);
}

void *pointer(const VariantPack &pack, graph::Uid u) {
  if (u == graph::kNoTensor) return nullptr;
  void *p = pack.get(u);
  if (p == nullptr) fail(CUDNN_STATUS_BAD_PARAM, "no data pointer for tensor uid ", u);
  return p;
}

const graph::PointwiseOp *writer_of(const graph::Graph &g, graph::Uid y) {
  for (const graph::Op &op : g.ops())
    if (const auto *p = std::get_if<graph::PointwiseOp>(&op))
      if (p->y == y) return p;
  return nullptr;
}

// Layout and type checks shared by the patterns.
Support check_tensors(const graph::Graph &g, const BnPatternMatch &m) {
  std::vector<graph::Uid> full, channel;
  graph::Uid x = graph::kNoTensor;
  switch (m.kind) {
    case BnPatternKind::bn_add_relu: {
      const auto &n = std::get<graph::NormalizationOp>(g.ops()[m.norm]);
      x = n.x;
      full = {n.x, m.z, m.y};
      channel = {
          n.scale,          n.bias, n.mean, n.inv_variance, n.running_mean_in, n.running_var_in, n.running_mean_out,
          n.running_var_out};
      if (n.scale == graph::kNoTensor || n.bias == graph::kNoTensor) return Support::no("scale and bias are required");
      if (m.mask != graph::kNoTensor) {
        const graph::Tensor &mk = g.tensor(m.mask);
        if (mk.dtype != CUDNN_DATA_UINT8 || mk.strides != g.tensor(n.x).strides)
          return Support::no("the mask is not a UINT8 tensor of x's layout");
      }
      break;
    }
    case BnPatternKind::drelu_fork_dbn: {
      const auto &n = std::get<graph::NormalizationOp>(g.ops()[m.norm]);
      x = n.x;
      full = {n.x, m.dy, n.dx, m.dz};
      channel = {n.scale, n.mean, n.inv_variance, n.dscale, n.dbias};
      const graph::Tensor &ri = g.tensor(m.relu_input);
      if ((ri.dtype != CUDNN_DATA_UINT8 && !io_type(ri.dtype)) || ri.strides != g.tensor(n.x).strides)
        return Support::no("the dReLU's input is not UINT8 / float data of x's layout");
      break;
    }
    case BnPatternKind::dgrad_drelu_bn_bwd_weight: return Support::yes();  // the sub-engines decide (see DgradParts)
    default: return Support::no("pattern not implemented");
  }
  const graph::Tensor &xt = g.tensor(x);
  if (!channels_last_packed(xt)) return Support::no("x is not channels-innermost packed (NHWC / NDHWC)");
  for (graph::Uid u : full) {
    if (u == graph::kNoTensor) continue;
    const graph::Tensor &t = g.tensor(u);
    if (!io_type(t.dtype)) return Support::no(cat("tensor ", u, " is not FLOAT, HALF or BFLOAT16"));
    if (t.dims != xt.dims || t.strides != xt.strides)
      return Support::no(cat("tensor ", u, " does not have x's layout"));
  }
  for (graph::Uid u : channel) {
    if (u == graph::kNoTensor) continue;
    const graph::Tensor &t = g.tensor(u);
    if (t.dtype != CUDNN_DATA_FLOAT || t.by_value)
      return Support::no("statistics and parameters must be FLOAT tensors");
    if (t.rank() != xt.rank() || t.dims[1] != xt.dims[1] || t.element_count() != xt.dims[1])
      return Support::no(cat("tensor ", u, " is not per-channel"));
  }
  // Blending into a real output: only alpha (beta == 0 is structural).
  for (const graph::Op &op : g.ops()) {
    if (const auto *p = std::get_if<graph::PointwiseOp>(&op)) {
      if (p->blend.beta != 0.0) return Support::no("a pointwise op blends into its output");
      if (p->compute_type != CUDNN_DATA_FLOAT) return Support::no("a pointwise op does not compute in FLOAT");
    }
    if (const auto *n = std::get_if<graph::NormalizationOp>(&op)) {
      if (n->compute_type != CUDNN_DATA_FLOAT) return Support::no("the norm does not compute in FLOAT");
      if (!n->backward && n->blend.beta != 0.0) return Support::no("the norm blends into y");
    }
  }
  return Support::yes();
}

Support check(const graph::Graph &g, BnPatternMatch *out) {
  BnPatternMatch m;
  Support s = match_bn_pattern(g, &m);
  if (!s) return s;
  // The guide: dBNApply, once a pre-compiled engine, is now the generic
  // runtime fusion's (a pointwise DAG); cpu.fusion.runtime runs it in one pass.
  if (m.kind == BnPatternKind::dbn_apply)
    return Support::no("dBNApply is a pointwise DAG: the generic runtime fusion engine runs it");
  s = check_tensors(g, m);
  if (!s) return s;
  if (out) *out = std::move(m);
  return Support::yes();
}

struct Rows {
  int64_t rows = 0, C = 0, rows_per_tile = 1, tiles = 1;
  explicit Rows(const graph::Tensor &x) {
    C = x.dims[1];
    rows = C > 0 ? x.element_count() / C : 0;
    rows_per_tile = std::max<int64_t>(1, kTileElements / std::max<int64_t>(C, 1));
    tiles = (rows + rows_per_tile - 1) / rows_per_tile;
  }
  int64_t begin(int64_t t) const { return t * rows_per_tile; }
  int64_t end(int64_t t) const { return std::min(rows, (t + 1) * rows_per_tile); }
};

// Runs body(tile, scratch rows) over every tile, in parallel on the pool.
template <class F>
void for_tiles(const ExecContext &ctx, const Rows &r, int buffers, F &&body) {
  const auto work = [&](int64_t lo, int64_t hi) {
    std::vector<float> buf(static_cast<size_t>(r.C * buffers));
    for (int64_t t = lo; t < hi; ++t) body(t, buf.data());
  };
  if (ctx.pool != nullptr && r.rows * r.C >= 2 * kTileElements)
    ctx.pool->parallel_for(r.tiles, work);
  else
    work(0, r.tiles);
}

// DgradDreluBNBwdWeight in two parts: the head (the convolution, the y_bn
// recomputation, the dReLU, the full-size products and the two reductions)
// is the generic runtime fusion's "dgrad with epilogue and reductions" form,
// so cpu.fusion.runtime runs it per slice of images (the convolution through
// the best single-op engine, the rest tile-wise on the slice while it is in
// cache); the tail (the per-channel coefficients A, B, C from dscale and
// dbias) runs afterwards on the best engine for it.
struct DgradParts {
  std::vector<int> head_ops, tail_ops;
  std::unique_ptr<ExecutionPlan> head, tail;

  static graph::Graph part(const graph::Graph &g, const std::vector<int> &ops) {
    graph::Graph s;
    for (int i : ops) {
      const graph::OpIo io = graph::op_io(g.ops()[i]);
      for (const auto *list : {&io.inputs, &io.outputs})
        for (graph::Uid u : *list)
          if (!s.find_tensor(u)) {
            graph::Tensor t = g.tensor(u);
            s.add_tensor(t);
          }
    }
    for (int i : ops) s.add_op(g.ops()[i]);
    // Tensors crossing the cut are real in both parts (dscale, dbias are already).
    return s;
  }
  graph::Graph head_graph(const graph::Graph &g) const { return part(g, head_ops); }
  graph::Graph tail_graph(const graph::Graph &g) const { return part(g, tail_ops); }

  // Builds the parts' plans; a Support::no when an engine is missing.
  Support make(const Engine &self, const graph::Graph &g, const BnPatternMatch &m) {
    std::vector<bool> in_tail(g.ops().size(), false);
    for (int i : m.tail) in_tail[i] = true;
    for (size_t i = 0; i < g.ops().size(); ++i) (in_tail[i] ? tail_ops : head_ops).push_back(static_cast<int>(i));
    const graph::Graph hg = head_graph(g);
    const Engine *runtime = EngineRegistry::instance().by_name("cpu.fusion.runtime");
    if (runtime == nullptr) return Support::no("no runtime fusion engine for the dgrad part");
    if (Support s = runtime->supports(hg); !s) return Support::no("dgrad part: " + s.reason);
    head = runtime->make_plan(hg, {});
    if (tail_ops.empty()) return Support::yes();
    const graph::Graph tg = tail_graph(g);
    for (const Engine *e : EngineRegistry::instance().engines(DeviceKind::cpu)) {
      if (e == &self || e->is_reference() || !e->supports(tg)) continue;
      tail = e->make_plan(tg, {});
      return Support::yes();
    }
    return Support::no("no engine for the per-channel coefficients");
  }
  size_t workspace() const { return std::max(head ? head->workspace_size() : 0, tail ? tail->workspace_size() : 0); }
  size_t scratch() const { return std::max(head ? head->scratch_size() : 0, tail ? tail->scratch_size() : 0); }
};

class Plan final : public ExecutionPlan {
 public:
  Plan(const Engine &e, const graph::Graph &g, BnPatternMatch m) : ExecutionPlan(e), m_(std::move(m)) {
    if (m_.kind == BnPatternKind::dgrad_drelu_bn_bwd_weight) {
      Support s = dgrad_.make(e, g, m_);
      if (!s) fail(CUDNN_STATUS_NOT_SUPPORTED, s.reason);
    }
  }
  std::string detail() const override { return m_.name; }
  size_t workspace_size() const override { return dgrad_.workspace(); }
  size_t scratch_size() const override { return dgrad_.scratch(); }
  void execute(const ExecContext &ctx, const graph::Graph &g, const VariantPack &pack) const override {
    switch (m_.kind) {
      case BnPatternKind::dgrad_drelu_bn_bwd_weight: {
        dgrad_.head->execute(ctx, dgrad_.head_graph(g), pack);
        if (dgrad_.tail) dgrad_.tail->execute(ctx, dgrad_.tail_graph(g), pack);
        return;
      }
      case BnPatternKind::bn_add_relu: return bn_add_relu(ctx, g, pack);
      case BnPatternKind::drelu_fork_dbn: return drelu_fork_dbn(ctx, g, pack);
      default: fail(CUDNN_STATUS_NOT_SUPPORTED, "cpu.fusion.bn: pattern not implemented");
    }
  }

 private:
  void bn_add_relu(const ExecContext &ctx, const graph::Graph &g, const VariantPack &pack) const {
    const auto &n = std::get<graph::NormalizationOp>(g.ops()[m_.norm]);
    const graph::Tensor &xt = g.tensor(n.x);
    const Rows r(xt);
    const int64_t C = r.C;
    const void *x = pointer(pack, n.x);
    // Pass 1: per tile and channel, sums of x - shift and (x - shift)^2.
    std::vector<float> shift(static_cast<size_t>(C));
    load_row(xt.dtype, x, 0, C, shift.data());
    std::vector<double> part(static_cast<size_t>(r.tiles * 2 * C), 0.0);
    for_tiles(ctx, r, 1, [&](int64_t t, float *row) {
      double *s1 = part.data() + t * 2 * C, *s2 = s1 + C;
      const float *sh = shift.data();
      for (int64_t i = r.begin(t); i < r.end(t); ++i) {
        load_row(xt.dtype, x, i * C, C, row);
        shifted_sums(s1, s2, row, sh, C);
      }
    });
    // Per channel: statistics, saved and running outputs, coefficients.
    const double M = static_cast<double>(r.rows), eps = n.epsilon, f = n.exp_avg_factor;
    const auto scale = load_channels(g.tensor(n.scale), pointer(pack, n.scale));
    const auto bias = load_channels(g.tensor(n.bias), pointer(pack, n.bias));
    void *mean = pointer(pack, n.mean), *inv = pointer(pack, n.inv_variance);
    void *rm_in = pointer(pack, n.running_mean_in), *rv_in = pointer(pack, n.running_var_in);
    void *rm_out = pointer(pack, n.running_mean_out), *rv_out = pointer(pack, n.running_var_out);
    std::vector<double> rm = rm_in ? load_channels(g.tensor(n.running_mean_in), rm_in) : std::vector<double>{};
    std::vector<double> rv = rv_in ? load_channels(g.tensor(n.running_var_in), rv_in) : std::vector<double>{};
    std::vector<float> a(static_cast<size_t>(C)), b(static_cast<size_t>(C));
    for (int64_t c = 0; c < C; ++c) {
      double s1 = 0, s2 = 0;
      for (int64_t t = 0; t < r.tiles; ++t) s1 += part[t * 2 * C + c], s2 += part[t * 2 * C + C + c];
      const double d = s1 / M, mu = shift[c] + d, var = std::max(s2 / M - d * d, 0.0);
      const double istd = 1.0 / std::sqrt(var + eps);
      if (mean) store_channel(g.tensor(n.mean), mean, c, mu);
      if (inv) store_channel(g.tensor(n.inv_variance), inv, c, istd);
      if (rm_out) store_channel(g.tensor(n.running_mean_out), rm_out, c, (1 - f) * rm[c] + f * mu);
      if (rv_out)
        store_channel(g.tensor(n.running_var_out), rv_out, c, (1 - f) * rv[c] + f * var * unbias_factor(r.rows));
      const double sa = scale[c] * istd * n.blend.alpha;
      a[c] = static_cast<float>(sa);
      b[c] = static_cast<float>((bias[c] - mu * scale[c] * istd) * n.blend.alpha);
    }
    // The chain's runtime values: ADD's alphas (which operand is the norm's),
    // ReLU's parameters, CMP_GT's threshold.
    float ka = 1, kz = 1, out_alpha = 1;
    pw::Params<float> relu_params;
    float relu_alpha = 1;
    float cmp_a = 1, cmp_t = 0;
    const void *z = pointer(pack, m_.z);
    if (m_.z != graph::kNoTensor) {
      const graph::PointwiseOp *add = nullptr;
      for (const graph::Op &op : g.ops())
        if (const auto *p = std::get_if<graph::PointwiseOp>(&op))
          if (p->mode == CUDNN_POINTWISE_ADD) add = p;
      const bool z_is_x = add->x == m_.z;
      ka = static_cast<float>(z_is_x ? add->alpha2 : add->alpha1);
      kz = static_cast<float>(z_is_x ? add->alpha1 : add->alpha2);
      if (add->y == m_.y) out_alpha = static_cast<float>(add->blend.alpha);
    }
    if (m_.relu) {
      for (const graph::Op &op : g.ops())
        if (const auto *p = std::get_if<graph::PointwiseOp>(&op))
          if (p->mode == CUDNN_POINTWISE_RELU_FWD) {
            relu_params = make_params<float>(*p);
            relu_alpha = static_cast<float>(p->alpha1);
            if (p->y == m_.y) out_alpha = static_cast<float>(p->blend.alpha);
          }
    }
    void *mask = pointer(pack, m_.mask);
    float mask_alpha = 1;
    if (mask) {
      const graph::PointwiseOp *cmp = writer_of(g, m_.mask);
      cmp_a = static_cast<float>(cmp->alpha1);
      cmp_t = static_cast<float>(cmp->alpha2 * g.tensor(cmp->b).value);
      mask_alpha = static_cast<float>(cmp->blend.alpha);
    }
    const graph::Tensor &yt = g.tensor(m_.y);
    void *y = pointer(pack, m_.y);
    const cudnnDataType_t zt = z ? g.tensor(m_.z).dtype : CUDNN_DATA_FLOAT;
    const bool relu = m_.relu;
    const bool plain_relu = relu && relu_alpha == 1.0f && relu_params.relu_lower_clip == 0.0f &&
                            relu_params.relu_lower_clip_slope == 0.0f &&
                            relu_params.relu_upper_clip >= std::numeric_limits<float>::max();
    // Pass 2: normalise, add, ReLU, mask.
    for_tiles(ctx, r, 2, [&](int64_t t, float *row) {
      float *zr = row + C;
      const float *pa = a.data(), *pb = b.data();
      for (int64_t i = r.begin(t); i < r.end(t); ++i) {
        load_row(xt.dtype, x, i * C, C, row);
        affine(row, pa, pb, C);
        if (z) {
          load_row(zt, z, i * C, C, zr);
          axpby(row, zr, ka, kz, C);
        }
        if (plain_relu)
          relu_plain(row, C, relu_params.propagate_nan);
        else if (relu)
          for (int64_t c = 0; c < C; ++c) row[c] = pw::relu_fwd(relu_alpha * row[c], relu_params);
        store_row(yt.dtype, y, i * C, C, row, out_alpha, 0.0f);
        if (mask) {
          // CMP_GT reads y as stored.
          if (yt.dtype != CUDNN_DATA_FLOAT) load_row(yt.dtype, y, i * C, C, row);
          greater(row, C, cmp_a, cmp_t, mask_alpha);
          store_row(CUDNN_DATA_UINT8, mask, i * C, C, row, 1.0f, 0.0f);
        }
      }
    });
  }

  void drelu_fork_dbn(const ExecContext &ctx, const graph::Graph &g, const VariantPack &pack) const {
    const auto &n = std::get<graph::NormalizationOp>(g.ops()[m_.norm]);
    const graph::PointwiseOp *drelu = writer_of(g, n.dy);
    const graph::Tensor &xt = g.tensor(n.x);
    const Rows r(xt);
    const int64_t C = r.C;
    const void *x = pointer(pack, n.x), *dy = pointer(pack, m_.dy), *ri = pointer(pack, m_.relu_input);
    void *dz = pointer(pack, m_.dz);
    const cudnnDataType_t dyt = g.tensor(m_.dy).dtype, rit = g.tensor(m_.relu_input).dtype;
    const pw::Params<float> rp = make_params<float>(*drelu);
    const float a1 = static_cast<float>(drelu->alpha1), a2 = static_cast<float>(drelu->alpha2),
                ga = static_cast<float>(drelu->blend.alpha);
    const auto mean_d = load_channels(g.tensor(n.mean), pointer(pack, n.mean));
    const auto istd_d = load_channels(g.tensor(n.inv_variance), pointer(pack, n.inv_variance));
    const auto scale = load_channels(g.tensor(n.scale), pointer(pack, n.scale));
    std::vector<float> mean(mean_d.begin(), mean_d.end());
    const bool plain = a1 == 1.0f && a2 == 1.0f && ga == 1.0f && rp.relu_lower_clip == 0.0f &&
                       rp.relu_lower_clip_slope == 0.0f && rp.relu_upper_clip >= std::numeric_limits<float>::max();
    // g = relu_bwd(a1 * input, a2 * dy) * blend alpha, into `row`.
    const auto gradient = [&](int64_t i, float *row, float *tmp) {
      load_row(rit, ri, i * C, C, tmp);
      load_row(dyt, dy, i * C, C, row);
      if (plain)
        drelu_plain(row, tmp, C);
      else
        for (int64_t c = 0; c < C; ++c) row[c] = ga * pw::relu_bwd(a1 * tmp[c], a2 * row[c], rp);
    };
    // Pass 1: sums of g and g (x - mean) per tile and channel; the fork.
    std::vector<double> part(static_cast<size_t>(r.tiles * 2 * C), 0.0);
    for_tiles(ctx, r, 3, [&](int64_t t, float *row) {
      float *tmp = row + C, *xr = row + 2 * C;
      double *sg = part.data() + t * 2 * C, *sgx = sg + C;
      const float *mu = mean.data();
      for (int64_t i = r.begin(t); i < r.end(t); ++i) {
        gradient(i, row, tmp);
        load_row(xt.dtype, x, i * C, C, xr);
        gradient_sums(sg, sgx, row, xr, mu, C);
        if (dz) store_row(g.tensor(m_.dz).dtype, dz, i * C, C, row, 1.0f, 0.0f);
      }
    });
    const double M = static_cast<double>(r.rows);
    void *dscale = pointer(pack, n.dscale), *dbias = pointer(pack, n.dbias);
    const double pa = n.param_blend.alpha, pb = n.param_blend.beta;
    std::vector<float> A(static_cast<size_t>(C)), B(static_cast<size_t>(C)), Cc(static_cast<size_t>(C));
    for (int64_t c = 0; c < C; ++c) {
      double sg = 0, sgx = 0;
      for (int64_t t = 0; t < r.tiles; ++t) sg += part[t * 2 * C + c], sgx += part[t * 2 * C + C + c];
      const double is = istd_d[c], ds = sgx * is, db = sg;
      if (dscale) {
        const graph::Tensor &t = g.tensor(n.dscale);
        store_channel(t, dscale, c, pa * ds + (pb != 0 ? pb * load_lane(t.dtype, dscale, c * t.strides[1]) : 0.0));
      }
      if (dbias) {
        const graph::Tensor &t = g.tensor(n.dbias);
        store_channel(t, dbias, c, pa * db + (pb != 0 ? pb * load_lane(t.dtype, dbias, c * t.strides[1]) : 0.0));
      }
      // dx = scale is / M (M g - db - xhat ds) = A g + B x + C.
      const double k = scale[c] * is;
      A[c] = static_cast<float>(k);
      B[c] = static_cast<float>(-k * is * ds / M);
      Cc[c] = static_cast<float>(-k / M * (db - mean_d[c] * is * ds));
    }
    // Pass 2: dx.
    const graph::Tensor &dxt = g.tensor(n.dx);
    void *dx = pointer(pack, n.dx);
    const float alpha = static_cast<float>(n.blend.alpha), beta = static_cast<float>(n.blend.beta);
    for_tiles(ctx, r, 3, [&](int64_t t, float *row) {
      float *tmp = row + C, *xr = row + 2 * C;
      const float *pA = A.data(), *pB = B.data(), *pC = Cc.data();
      for (int64_t i = r.begin(t); i < r.end(t); ++i) {
        gradient(i, row, tmp);
        load_row(xt.dtype, x, i * C, C, xr);
        abc(row, xr, pA, pB, pC, C);
        store_row(dxt.dtype, dx, i * C, C, row, alpha, beta);
      }
    });
  }

  BnPatternMatch m_;
  DgradParts dgrad_;
};

class BnFusionEngine final : public Engine {
 public:
  const char *name() const override { return "cpu.fusion.bn"; }
  DeviceKind device() const override { return DeviceKind::cpu; }
  // Before the generic runtime fusion (60): a more specific pattern.
  int priority() const override { return 55; }
  Support supports(const graph::Graph &g) const override {
    BnPatternMatch m;
    Support s = check(g, &m);
    if (!s || m.kind != BnPatternKind::dgrad_drelu_bn_bwd_weight) return s;
    try {
      DgradParts parts;
      return parts.make(*this, g, m);
    } catch (const Error &e) {
      return Support::no(e.what());
    }
  }
  std::unique_ptr<ExecutionPlan> make_plan(const graph::Graph &g, const std::vector<KnobChoice> &) const override {
    BnPatternMatch m;
    Support s = check(g, &m);
    if (!s) fail(CUDNN_STATUS_NOT_SUPPORTED, s.reason);
    return std::make_unique<Plan>(*this, g, std::move(m));
  }
};

}  // namespace
}  // namespace fdnn::cpu

using fdnn::cpu::BnFusionEngine;
FDNN_REGISTER_ENGINE(BnFusionEngine)
