// cuda.normalization.rows: the CUDA engine for layer norm, RMS norm and
// instance norm whose statistics sets are contiguous rows of x (layer / RMS
// norm over the trailing dims; instance norm over the spatial dims of NCHW),
// forward training / inference and backward, and instance norm with the
// channels innermost (NHWC) in the column form of normalization_rows_args.hpp. cuda.normalization takes
// scale and bias of the statistics' shape only (batch norm); here scale,
// bias, dscale and dbias are per position in the row (laid out as the row
// is) or, for instance norm, per channel. Kernels in cuda/normalization_rows.cu.
#include <algorithm>
#include <array>
#include <memory>
#include <variant>
#include <vector>

#include "core/engine.hpp"
#include "core/error.hpp"
#include "core/normalization_operands.hpp"
#include "core/normalization_support.hpp"
#include "cuda/cuda_util.hpp"
#include "cuda/normalization_rows_args.hpp"

namespace fdnn::cuda {
namespace {

// The data operands' types and the statistics' / parameters' type, and
// whether they are the same-type problem (x's type throughout, FLOAT or
// DOUBLE statistics after it) or a mix the kernels take (see
// normalization_rows_args.hpp): float compute with FLOAT, HALF, BFLOAT16 data
// and FLOAT statistics; double compute (any DOUBLE operand) with any of the
// four data types, dy in x's type, DOUBLE statistics (FLOAT ones only with
// DOUBLE data throughout).
struct Types {
  bool mixed = false, compute_double = false;
  cudnnDataType_t side = CUDNN_DATA_FLOAT;
};

Support check_types(const graph::Graph &g, const graph::NormalizationOp &op, Types *out) {
  const graph::Tensor &x = g.tensor(op.x);
  if (!normop::data_type_ok(x.dtype)) return Support::no("x's type");
  bool any_double = x.dtype == CUDNN_DATA_DOUBLE, all_double = any_double, same = true;
  for (graph::Uid u : {op.y, op.dy, op.dx}) {
    if (u == graph::kNoTensor) continue;
    const cudnnDataType_t t = g.tensor(u).dtype;
    if (!normop::data_type_ok(t)) return Support::no("a data tensor's type");
    any_double |= t == CUDNN_DATA_DOUBLE;
    all_double &= t == CUDNN_DATA_DOUBLE;
    same &= t == x.dtype;
  }
  bool have_side = false;
  cudnnDataType_t side = CUDNN_DATA_FLOAT;
  const std::array<graph::Uid, 7> stats = normop::stat_uids(op);
  std::vector<graph::Uid> sides(stats.begin(), stats.end());
  for (graph::Uid u : {op.scale, op.bias, op.dscale, op.dbias}) sides.push_back(u);
  for (graph::Uid u : sides) {
    if (u == graph::kNoTensor) continue;
    const graph::Tensor &t = g.tensor(u);
    if (t.by_value) return Support::no("a statistics tensor is a by-value scalar");
    if (t.dtype != CUDNN_DATA_FLOAT && t.dtype != CUDNN_DATA_DOUBLE) return Support::no("statistics / parameter type");
    if (have_side && t.dtype != side) return Support::no("statistics / parameters mix FLOAT and DOUBLE");
    have_side = true;
    side = t.dtype;
  }
  Types r;
  const bool dbl_x = x.dtype == CUDNN_DATA_DOUBLE;
  if (!have_side) side = dbl_x ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
  r.side = side;
  r.compute_double = any_double || side == CUDNN_DATA_DOUBLE || normalization_computes_in_double(op);
  r.mixed = !same || r.compute_double != dbl_x || side != (dbl_x ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT);
  if (r.mixed && r.compute_double) {
    if (op.dy != graph::kNoTensor && g.tensor(op.dy).dtype != x.dtype)
      return Support::no("double compute with dy's type differing from x's");
    if (side == CUDNN_DATA_FLOAT && !all_double)
      return Support::no("FLOAT statistics next to non-DOUBLE data with DOUBLE operands");
  }
  if (out) *out = r;
  return Support::yes();
}

Support check_rows(const graph::Graph &g, RowsArgs *out) {
  if (Support s = check_single_normalization(g, true); !s) return s;
  const auto &op = std::get<graph::NormalizationOp>(g.ops().front());
  const bool instance = op.mode == CUDNN_INSTANCE_NORM;
  if (op.mode != CUDNN_LAYER_NORM && op.mode != CUDNN_RMS_NORM && !instance)
    return Support::no("not layer, RMS or instance norm");
  if (op.has_activation || op.z != graph::kNoTensor || op.dz != graph::kNoTensor || op.mask != graph::kNoTensor)
    return Support::no("fused residual / activation are not implemented here");
  // x, y, dy, dx in one type, or mixed (check_types).
  Types types;
  if (Support s = check_types(g, op, &types); !s) return s;
  const bool mixed = types.mixed;
  const graph::Tensor &x = g.tensor(op.x);
  const int rank = x.rank();
  const NormShape shape = normalization_shape(g, op);
  if (instance) {
    if (rank < 3) return Support::no("instance norm needs N, C and spatial dims");
    const std::vector<int64_t> st = normalization_stats_dims(g, op);
    for (int d = 0; d < rank; ++d)
      if (st[d] != (d < 2 ? x.dims[d] : 1)) return Support::no("statistics are not [N, C, 1, ...]");
  }
  // The reduced dims: one contiguous block of x, innermost stride 1.
  std::vector<int> red, kept;
  for (int d = 0; d < rank; ++d) {
    if (x.dims[d] == 1) continue;
    (shape.reduced[d] ? red : kept).push_back(d);
  }
  if (kept.size() > 2) return Support::no("more than two kept dims");
  std::stable_sort(red.begin(), red.end(), [&](int a, int b) { return x.strides[a] > x.strides[b]; });
  // Each set is one row of x: the reduced dims merge into one of stride
  // `step0`: 1 (a contiguous row), or, for instance norm with contiguous
  // channels (NHWC), any stride (the column form).
  const bool channels_inner = instance && x.dims[1] > 1 && x.strides[1] == 1 && !red.empty();
  const int64_t step0 = channels_inner ? x.strides[red.back()] : 1;
  int64_t step = step0;
  for (size_t i = red.size(); i-- > 0;) {
    if (x.strides[red[i]] != step)
      return Support::no(channels_inner ? "the spatial dims of NHWC x do not merge into one strided dim"
                                        : "a normalised set is not one contiguous row of x");
    step *= x.dims[red[i]];
  }
  RowsArgs a;
  a.columns = channels_inner && step0 != 1;
  if (mixed && a.columns) {
    if (types.compute_double)
      return Support::no("double compute with mixed types in the column form (NHWC instance norm)");
    if (op.dy != graph::kNoTensor && g.tensor(op.dy).dtype != x.dtype)
      return Support::no("dy's type differs from x's in the column form (NHWC instance norm)");
  }
  // y / dx and dy: x's dims; their rows laid out as x's (same strides on the
  // reduced dims), own row offsets (the column form: x's strides).
  const graph::Uid out_uid = op.backward ? op.dx : op.y;
  for (graph::Uid u : {op.y, op.dy, op.dx}) {
    if (u == graph::kNoTensor) continue;
    const graph::Tensor &t = g.tensor(u);
    if (t.dims != x.dims) return Support::no("a data tensor's dims differ from x's");
    if (t.strides == x.strides) continue;
    if (a.columns) return Support::no("data tensors differ in strides in the column form (NHWC instance norm)");
    for (int d = 0; d < rank; ++d)
      if (shape.reduced[d] && x.dims[d] > 1 && t.strides[d] != x.strides[d])
        return Support::no("a data tensor's rows are not laid out as x's");
  }
  a.col_stride = step0;
  a.rows = shape.groups;
  a.width = shape.count;
  if (a.rows < 1 || a.width < 1) return Support::no("empty tensor");
  if (a.rows >= (int64_t{1} << 31) || a.width >= (int64_t{1} << 31)) return Support::no("too large");
  for (size_t i = 0; i < kept.size(); ++i) {
    const size_t slot = kept.size() == 1 ? 1 : i;
    a.kd[slot] = x.dims[kept[i]];
    a.x_stride[slot] = x.strides[kept[i]];
    a.out_stride[slot] = out_uid != graph::kNoTensor ? g.tensor(out_uid).strides[kept[i]] : x.strides[kept[i]];
    a.grad_stride[slot] = op.dy != graph::kNoTensor ? g.tensor(op.dy).strides[kept[i]] : x.strides[kept[i]];
  }
  const std::array<graph::Uid, 7> stats = normop::stat_uids(op);
  static_assert(kRowsStats == 7, "the statistics slots of normop::stat_uids");
  for (int j = 0; j < kRowsStats; ++j) {
    if (stats[j] == graph::kNoTensor) continue;
    const graph::Tensor &t = g.tensor(stats[j]);
    for (size_t i = 0; i < kept.size(); ++i)
      a.stat_stride[j][kept.size() == 1 ? 1 : i] = t.dims[kept[i]] == 1 ? 0 : t.strides[kept[i]];
  }
  const graph::Uid params[kRowsParams] = {op.scale, op.bias, op.dscale, op.dbias};
  for (int j = 0; j < kRowsParams; ++j) {
    if (params[j] == graph::kNoTensor) continue;
    const graph::Tensor &t = g.tensor(params[j]);
    if (instance) {
      for (int d = 0; d < rank; ++d)
        if (d != 1 && t.dims[d] != 1) return Support::no("scale / bias are not [1, C, 1, ...]");
      if (j >= kRDscale && t.dims[1] != x.dims[1]) return Support::no("dscale / dbias broadcast over channels");
      a.param_stride[j] = t.dims[1] == 1 ? 0 : t.strides[1];
      continue;
    }
    // Per position: laid out as x's row (same dims and strides on the reduced dims).
    for (int d = 0; d < rank; ++d) {
      if (!shape.reduced[d] && t.dims[d] != 1) return Support::no("scale / bias vary along a kept dim");
      if (shape.reduced[d] && x.dims[d] > 1 && (t.dims[d] != x.dims[d] || t.strides[d] != x.strides[d]))
        return Support::no("scale / bias are not laid out as x's rows");
    }
  }
  a.per_channel = instance;
  a.channels = x.dims[1];
  a.rms = op.mode == CUDNN_RMS_NORM;
  a.backward = op.backward;
  a.training = !op.backward && op.phase == CUDNN_NORM_FWD_TRAINING;
  a.stats_given = op.backward ? op.inv_variance != graph::kNoTensor : op.phase == CUDNN_NORM_FWD_INFERENCE;
  a.var_given = !op.backward && op.variance != graph::kNoTensor;
  a.param_grads = op.backward && (op.dscale != graph::kNoTensor || op.dbias != graph::kNoTensor);
  a.unbias = unbias_factor(a.width);
  a.data_type = x.dtype;
  a.compute_double = types.compute_double;
  a.side_type = types.side;
  const graph::Uid o = op.backward ? op.dx : op.y;
  a.out_type = o != graph::kNoTensor ? g.tensor(o).dtype : x.dtype;
  a.grad_type = op.backward && op.dy != graph::kNoTensor ? g.tensor(op.dy).dtype : x.dtype;
  if (out) *out = a;
  return Support::yes();
}

// Threads per block: about four elements per thread, 32 to 1024; blocks:
// enough to fill the GPU (backward: partial rows of the parameter gradients
// per block bounded to 2^24 elements).
void choose_launch(RowsArgs &a) {
  if (a.columns) {
    // 32 channels per warp, warps over the positions (about four each).
    // Fewer tiles than eight per SM (eight blocks of eight warps fill one):
    // the positions are cut into segments of at least 128 (eight warps per
    // block then).
    const int64_t tiles = a.kd[0] * ((a.channels + 31) / 32), want = int64_t{sm_count()} * 8;
    int64_t segments = 1;
    if (tiles < want) segments = std::min((want + tiles - 1) / tiles, std::max<int64_t>(1, a.width / 128));
    a.seg_len = (a.width + segments - 1) / segments;
    a.segments = (a.width + a.seg_len - 1) / a.seg_len;
    int warps = 1;
    while (warps < (a.segments > 1 ? 8 : 32) && int64_t{warps} * 4 < a.seg_len) warps *= 2;
    a.threads = 32 * warps;
    const int64_t items = tiles * a.segments;
    a.blocks = static_cast<int>(
        std::max<int64_t>(1, std::min<int64_t>(items, int64_t{sm_count()} * std::max(1, 2048 / a.threads))));
    return;
  }
  int t = 32;
  while (t < 1024 && int64_t{t} * 4 < a.width) t *= 2;
  a.threads = t;
  const int64_t per_sm = std::max(1, 2048 / t);
  int64_t blocks = std::min<int64_t>(a.rows, int64_t{sm_count()} * per_sm);
  if (a.backward && !a.per_channel && a.param_grads)
    blocks = std::min<int64_t>(blocks, std::max<int64_t>(1, (int64_t{1} << 24) / (2 * a.width)));
  a.blocks = static_cast<int>(std::max<int64_t>(1, blocks));
}

class Plan final : public ExecutionPlan {
 public:
  Plan(const Engine &e, RowsArgs a) : ExecutionPlan(e), args_(a) { choose_launch(args_); }

  size_t workspace_size() const override { return normalization_rows_workspace_bytes(args_); }

  void execute(const ExecContext &ctx, const graph::Graph &g, const VariantPack &pack) const override {
    const auto &op = std::get<graph::NormalizationOp>(g.ops().front());
    RowsArgs a = args_;
    const auto get = [&](graph::Uid u) -> void * {
      if (u == graph::kNoTensor) return nullptr;
      void *p = pack.get(u);
      if (p == nullptr) fail(CUDNN_STATUS_BAD_PARAM, "no data pointer for tensor uid ", u);
      return p;
    };
    a.x = get(op.x);
    a.y = get(op.y);
    a.dy = get(op.dy);
    a.dx = get(op.dx);
    const graph::Uid stats[kRowsStats] = {op.mean,           op.inv_variance,     op.variance,      op.running_mean_in,
                                          op.running_var_in, op.running_mean_out, op.running_var_out};
    for (int j = 0; j < kRowsStats; ++j) a.stat[j] = get(stats[j]);
    const graph::Uid params[kRowsParams] = {op.scale, op.bias, op.dscale, op.dbias};
    for (int j = 0; j < kRowsParams; ++j) a.param[j] = get(params[j]);
    if (op.backward) a.param[kRBias] = nullptr;
    a.epsilon = op.epsilon;
    a.factor = op.exp_avg_factor;
    a.alpha = op.blend.alpha;
    a.beta = op.blend.beta;
    a.alpha_p = op.param_blend.alpha;
    a.beta_p = op.param_blend.beta;
    const size_t ws = workspace_size();
    if (ws > 0 && (pack.workspace == nullptr || pack.workspace_size < ws))
      fail(CUDNN_STATUS_INTERNAL_ERROR, "cuda.normalization.rows: no workspace");
    launch_normalization_rows(a, pack.workspace, ctx.stream);
  }

 private:
  RowsArgs args_;
};

class CudaRowsNormalizationEngine final : public Engine {
 public:
  const char *name() const override { return "cuda.normalization.rows"; }
  DeviceKind device() const override { return DeviceKind::cuda; }
  Support supports(const graph::Graph &g) const override { return check_rows(g, nullptr); }
  std::unique_ptr<ExecutionPlan> make_plan(const graph::Graph &g, const std::vector<KnobChoice> &) const override {
    RowsArgs a;
    Support s = check_rows(g, &a);
    if (!s) fail(CUDNN_STATUS_NOT_SUPPORTED, s.reason);
    return std::make_unique<Plan>(*this, a);
  }
};

}  // namespace
}  // namespace fdnn::cuda

using fdnn::cuda::CudaRowsNormalizationEngine;
FDNN_REGISTER_ENGINE(CudaRowsNormalizationEngine)
