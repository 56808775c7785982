// cuda.normalization: the CUDA engine for a single NormalizationOp (batch
// norm forward inference / training and backward, with the fused add and
// activation of the legacy Ex calls). The plan sorts x's dims by stride,
// merges what every operand allows, and chooses how many parts each
// statistics set's reduction is cut into so that the GPU is full; kernels
// in cuda/normalization_kernels.cu.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <numeric>
#include <string>
#include <variant>

#include "core/dtype.hpp"
#include "core/engine.hpp"
#include "core/error.hpp"
#include "core/normalization_support.hpp"
#include "cuda/cuda_util.hpp"
#include "cuda/normalization_args.hpp"

namespace fdnn::cuda {
namespace {

struct Uids {
  graph::Uid data[kNormData];
  graph::Uid stat[kNormStats];
};

Uids uids_of(const graph::NormalizationOp &op) {
  return {{op.x, op.y, op.z, op.dy, op.dx, op.dz, op.mask},
          {op.scale, op.bias, op.mean, op.inv_variance, op.variance, op.running_mean_in, op.running_var_in,
           op.running_mean_out, op.running_var_out, op.dscale, op.dbias}};
}

bool is_data_type(cudnnDataType_t t) {
  return t == CUDNN_DATA_FLOAT || t == CUDNN_DATA_DOUBLE || t == CUDNN_DATA_HALF || t == CUDNN_DATA_BFLOAT16;
}

// The type of the outputs (y forward, dx backward; dz with dx) and of dy
// (x's in forward).
cudnnDataType_t output_type(const graph::Graph &g, const graph::NormalizationOp &op) {
  const graph::Uid o = op.backward ? op.dx : op.y;
  return o != graph::kNoTensor ? g.tensor(o).dtype : g.tensor(op.x).dtype;
}
cudnnDataType_t grad_type(const graph::Graph &g, const graph::NormalizationOp &op) {
  return op.backward && op.dy != graph::kNoTensor ? g.tensor(op.dy).dtype : g.tensor(op.x).dtype;
}

// Whether the typed kernels run the problem: x and z in one type, dy in
// one, y, dx and dz in one: all the same, or mixed, each HALF (or each
// BFLOAT16) or FLOAT; the compute type x's (DOUBLE for DOUBLE x, else FLOAT)
// and every statistics tensor in it. Any other mix of the four data types
// and FLOAT / DOUBLE statistics runs the generic kernels with run-time typed
// operands (NormArgs::dyn).
bool typed_kernels_run(const graph::Graph &g, const graph::NormalizationOp &op) {
  const graph::Tensor &x = g.tensor(op.x);
  const Uids u = uids_of(op);
  const cudnnDataType_t ot = output_type(g, op), gt = grad_type(g, op);
  for (int j = 0; j < kNormData; ++j) {
    if (u.data[j] == graph::kNoTensor || j == kNMask) continue;
    const cudnnDataType_t want = j == kNY || j == kNDX || j == kNDZ ? ot : j == kNDY ? gt : x.dtype;
    if (g.tensor(u.data[j]).dtype != want) return false;
  }
  if (ot != x.dtype || gt != x.dtype) {
    cudnnDataType_t low = CUDNN_DATA_FLOAT;
    for (cudnnDataType_t t : {x.dtype, gt, ot}) {
      const bool ok = t == CUDNN_DATA_FLOAT || ((t == CUDNN_DATA_HALF || t == CUDNN_DATA_BFLOAT16) &&
                                                (low == CUDNN_DATA_FLOAT || low == t));
      if (!ok) return false;
      if (t != CUDNN_DATA_FLOAT) low = t;
    }
  }
  const cudnnDataType_t ct = x.dtype == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
  if (normalization_computes_in_double(op) != (ct == CUDNN_DATA_DOUBLE)) return false;
  for (int j = 0; j < kNormStats; ++j)
    if (u.stat[j] != graph::kNoTensor && g.tensor(u.stat[j]).dtype != ct) return false;
  return true;
}

// The generic kernels' compute type for the mixed problems: double when the
// operation asks for it or any tensor is DOUBLE.
bool dyn_computes_in_double(const graph::Graph &g, const graph::NormalizationOp &op) {
  if (normalization_computes_in_double(op)) return true;
  const Uids u = uids_of(op);
  for (graph::Uid id : u.data)
    if (id != graph::kNoTensor && g.tensor(id).dtype == CUDNN_DATA_DOUBLE) return true;
  for (graph::Uid id : u.stat)
    if (id != graph::kNoTensor && g.tensor(id).dtype == CUDNN_DATA_DOUBLE) return true;
  return false;
}

Support check_graph(const graph::Graph &g) {
  if (Support s = check_single_normalization(g); !s) return s;
  const auto &op = std::get<graph::NormalizationOp>(g.ops().front());
  const graph::Tensor &x = g.tensor(op.x);
  if (x.rank() > kNormMaxDims) return Support::no(cat("rank ", x.rank(), " is above ", kNormMaxDims));
  const Uids u = uids_of(op);
  for (int j = 0; j < kNormData; ++j) {
    if (u.data[j] == graph::kNoTensor || j == kNMask) continue;
    if (!is_data_type(g.tensor(u.data[j]).dtype))
      return Support::no(cat("data type ", type_info(g.tensor(u.data[j]).dtype).enum_name,
                             " has no CUDA kernels (FLOAT, DOUBLE, HALF or BFLOAT16)"));
  }
  // Statistics and parameters are FLOAT or DOUBLE (check_single_normalization).
  const std::vector<int64_t> st_dims = normalization_stats_dims(g, op);
  for (int j = 0; j < kNormStats; ++j) {
    if (u.stat[j] == graph::kNoTensor) continue;
    const graph::Tensor &t = g.tensor(u.stat[j]);
    if (t.dims != st_dims) return Support::no("scale / bias broadcast differently from the statistics");
  }
  const NormShape s = normalization_shape(g, op);
  if (s.groups >= (int64_t{1} << 31) || s.count >= (int64_t{1} << 31))
    return Support::no("more than 2^31 statistics sets or elements per set");
  return Support::yes();
}

// The vectorised kernels' form (see NormArgs::fast) and their parts: many
// small blocks (about 16 per multiprocessor) so that the last wave is short,
// each still a few 16-byte vectors per thread.
void choose_fast_path(NormArgs &a, const Uids &u) {
  if (a.dyn) return;
  if (a.out_type != a.data_type || a.grad_type != a.data_type) return;  // mixed types: the generic kernels
  const int64_t esize = a.data_type == CUDNN_DATA_DOUBLE ? 8 : a.data_type == CUDNN_DATA_FLOAT ? 4 : 2;
  const int v = static_cast<int>(16 / esize);
  if (a.kept_rank > 1 || a.red_rank < 1 || a.red_rank > 2) return;
  for (int j = 0; j < kNormData; ++j) {
    if (u.data[j] == graph::kNoTensor) continue;
    for (int d = 0; d < a.kept_rank; ++d)
      if (a.kept_stride[j][d] != a.kept_stride[kNX][d] || a.kept_stride[j][d] <= 0) return;
    for (int d = 0; d < a.red_rank; ++d)
      if (a.red_stride[j][d] != a.red_stride[kNX][d] || a.red_stride[j][d] <= 0) return;
  }
  const int64_t want_blocks = int64_t{sm_count()} * 16;
  if (!a.cols) {
    const int64_t inner = a.red_div[a.red_rank - 1].divisor;
    const int64_t outer_stride = a.red_rank == 2 ? a.red_stride[kNX][0] : 0;
    const int64_t set_stride = a.kept_rank == 1 ? a.kept_stride[kNX][0] : 0;
    if (a.red_stride[kNX][a.red_rank - 1] != 1 || inner % v != 0 || outer_stride % v != 0 || set_stride % v != 0) return;
    a.fast = kFastRows;
    a.vec = v;
    a.inner_vecs = FastDivmod(static_cast<uint32_t>(inner / v));
    a.set_stride = set_stride;
    a.outer_stride = outer_stride;
    const int64_t per_block_min = int64_t{256} * 4 * v;
    int64_t splits = (want_blocks + a.groups - 1) / a.groups;
    splits = std::max<int64_t>(1, std::min({splits, (a.count + per_block_min - 1) / per_block_min, int64_t{65535}}));
    a.chunk = ((a.count + splits - 1) / splits + v - 1) / v * v;
  } else {
    if (a.kept_rank != 1 || a.red_rank != 1 || a.kept_stride[kNX][0] != 1) return;
    const int64_t row = a.red_stride[kNX][0];
    if (a.groups % v != 0 || row % v != 0) return;
    a.fast = kFastCols;
    a.vec = v;
    a.set_stride = 1;
    a.outer_stride = row;
    int bx = 1;
    while (bx < 32 && bx * v < a.groups) bx *= 2;
    a.cols_bx = bx;
    const int64_t by = 256 / bx;
    const int64_t tiles = (a.groups + int64_t{bx} * v - 1) / (int64_t{bx} * v);
    // One block per resident slot, in whole waves: few parts to combine,
    // long loops, no tail. Enough rows per block or more parts.
    const int64_t wave = int64_t{sm_count()} * normalization_cols_blocks_per_sm(a.data_type);
    const int64_t per_block_min = by * 16;
    int64_t splits = std::max<int64_t>(1, wave / tiles);
    splits = std::max<int64_t>(1, std::min({splits, (a.count + per_block_min - 1) / per_block_min, int64_t{65535}}));
    a.chunk = (a.count + splits - 1) / splits;
  }
  a.splits = static_cast<int>((a.count + a.chunk - 1) / a.chunk);
}

// FREEDNN_NORM_TUNE (for measurements; unset: the defaults of NormArgs),
// comma-separated: "norev" (cols apply passes walk rows forwards), "nocs"
// (plain loads and stores in the apply passes), "u4" (4 vectors in flight
// in the one-tensor cols passes), "nopers" (one cluster per set), "ct256" /
// "bct256" (256-thread forward / backward cluster blocks), "pdl" / "nopdl",
// "cmax=N" (largest cluster, up to 16; 0: no cluster kernels), "fwdkb=N" /
// "bwdkb=N" (KiB of shared memory per cluster block), "nopf" (no L2 prefetch
// of the next set in the backward cluster kernel), "old" (no grid form:
// the three-launch cols passes as before it), "gl2=N" (percent of the L2
// the grid form aims its pass-2 re-reads at; 75 by default), "glast"
// (evict-last loads of those rows in pass 1), "grr=N" (at most N rows per
// thread kept in registers by the grid form), "gmin=N" (KiB of x from which
// the grid form runs; 1024 by default); for the resident cluster form (see
// NormArgs::res_form): "nocluster" (off), "nrfwd" (backward only),
// "rkb=N", "rnb=N", "rp=N", "rt=256", "rcmax=N", "rstag=N" (start stagger,
// ns), "rlog" (print each shape once); for the inference form: "noinf"
// (off), "iu=8", "ib=N".
void apply_tuning(NormArgs &a) {
  static const NormArgs tuned = [] {
    NormArgs t;
    const char *e = std::getenv("FREEDNN_NORM_TUNE");
    std::string s = e ? e : "";
    size_t pos = 0;
    while (pos < s.size()) {
      size_t end = s.find(',', pos);
      if (end == std::string::npos) end = s.size();
      const std::string tok = s.substr(pos, end - pos);
      pos = end + 1;
      const size_t eq = tok.find('=');
      const std::string key = tok.substr(0, eq);
      const int val = eq == std::string::npos ? 0 : std::atoi(tok.c_str() + eq + 1);
      if (key == "norev") t.cols_reverse = false;
      else if (key == "u4") t.cols_unroll = 4;
      else if (key == "nocs") t.stream_hints = false;
      else if (key == "nopf") t.cluster_bwd_prefetch = false;
      else if (key == "nopers") t.cluster_persistent = false;
      else if (key == "ct256") t.cluster_threads = 256;
      else if (key == "bct256") t.cluster_threads_bwd = 256;
      else if (key == "pdl") t.pdl = true;
      else if (key == "nopdl") t.pdl = false;
      else if (key == "cmax") t.cluster_max = std::min(val, 16);
      else if (key == "fwdkb" && val > 0) t.cluster_block_kb[0] = val;
      else if (key == "bwdkb" && val > 0) t.cluster_block_kb[1] = val;
      else if (key == "old") t.grid_form = false;
      else if (key == "gl2") t.grid_l2_pct = val;
      else if (key == "glast") t.grid_l2_last = true;
      else if (key == "grr") t.grid_reg_rows = val;
      else if (key == "gmin") t.grid_min_bytes = int64_t{val} * 1024;
      else if (key == "nocluster") t.res_form = false;
      else if (key == "nrfwd") t.res_forward = false;
      else if (key == "rkb" && val > 0) t.res_block_kb = val;
      else if (key == "rnb" && val > 0) t.res_bufs_max = std::min(val, 2);
      else if (key == "rp" && val > 0) t.res_pieces = std::min(val, 8);
      else if (key == "rt") t.res_threads = val == 256 ? 256 : 512;
      else if (key == "rcmax") t.res_cmax = std::min(val, 16);
      else if (key == "rlog") t.res_log = true;
      else if (key == "rstag" && eq != std::string::npos) t.res_stagger_ns = std::max(val, 0);
      else if (key == "noinf") t.infer_form = false;
      else if (key == "iu") t.infer_unroll = val;
      else if (key == "ib") t.infer_blocks = std::max(val, 0);
    }
    return t;
  }();
  a.cols_reverse = tuned.cols_reverse;
  a.cols_unroll = tuned.cols_unroll;
  a.stream_hints = tuned.stream_hints;
  a.cluster_bwd_prefetch = tuned.cluster_bwd_prefetch;
  a.cluster_persistent = tuned.cluster_persistent;
  a.cluster_threads = tuned.cluster_threads;
  a.cluster_threads_bwd = tuned.cluster_threads_bwd;
  a.pdl = tuned.pdl;
  a.cluster_max = tuned.cluster_max;
  a.cluster_block_kb[0] = tuned.cluster_block_kb[0];
  a.cluster_block_kb[1] = tuned.cluster_block_kb[1];
  a.grid_form = tuned.grid_form;
  a.grid_l2_pct = tuned.grid_l2_pct;
  a.grid_l2_last = tuned.grid_l2_last;
  a.grid_reg_rows = tuned.grid_reg_rows;
  a.grid_min_bytes = tuned.grid_min_bytes;
  a.res_form = tuned.res_form;
  a.res_forward = tuned.res_forward;
  a.res_block_kb = tuned.res_block_kb;
  a.res_bufs_max = tuned.res_bufs_max;
  a.res_pieces = tuned.res_pieces;
  a.res_threads = tuned.res_threads;
  a.res_cmax = tuned.res_cmax;
  a.res_log = tuned.res_log;
  a.res_stagger_ns = tuned.res_stagger_ns;
  a.infer_form = tuned.infer_form;
  a.infer_unroll = tuned.infer_unroll;
  a.infer_blocks = tuned.infer_blocks;
}

NormArgs make_geometry(const graph::Graph &g) {
  const auto &op = std::get<graph::NormalizationOp>(g.ops().front());
  const graph::Tensor &x = g.tensor(op.x);
  const NormShape shape = normalization_shape(g, op);
  const Uids u = uids_of(op);
  const int rank = x.rank();
  struct Dim {
    int64_t extent;
    bool reduced;
    int64_t data[kNormData];
    int64_t stat[kNormStats];
  };
  std::vector<Dim> dims;
  for (int d = 0; d < rank; ++d) {
    if (x.dims[d] == 1) continue;
    Dim m{x.dims[d], shape.reduced[d], {}, {}};
    for (int j = 0; j < kNormData; ++j)
      if (u.data[j] != graph::kNoTensor) m.data[j] = g.tensor(u.data[j]).strides[d];
    for (int j = 0; j < kNormStats; ++j)
      if (u.stat[j] != graph::kNoTensor && !m.reduced) m.stat[j] = g.tensor(u.stat[j]).strides[d];
    dims.push_back(m);
  }
  std::stable_sort(dims.begin(), dims.end(), [](const Dim &a, const Dim &b) {
    return std::llabs(a.data[kNX]) > std::llabs(b.data[kNX]);
  });
  std::vector<Dim> merged;
  for (const Dim &d : dims) {
    if (!merged.empty()) {
      Dim &o = merged.back();
      bool ok = o.reduced == d.reduced;
      for (int j = 0; ok && j < kNormData; ++j) ok = o.data[j] == d.data[j] * d.extent;
      for (int j = 0; ok && j < kNormStats; ++j) ok = o.stat[j] == d.stat[j] * d.extent;
      if (ok) {
        o.extent *= d.extent;
        for (int j = 0; j < kNormData; ++j) o.data[j] = d.data[j];
        for (int j = 0; j < kNormStats; ++j) o.stat[j] = d.stat[j];
        continue;
      }
    }
    merged.push_back(d);
  }
  NormArgs a;
  for (const Dim &d : merged) {
    if (d.reduced) {
      const int r = a.red_rank++;
      a.red_div[r] = FastDivmod(static_cast<uint32_t>(d.extent));
      for (int j = 0; j < kNormData; ++j) a.red_stride[j][r] = d.data[j];
    } else {
      const int k = a.kept_rank++;
      a.kept_div[k] = FastDivmod(static_cast<uint32_t>(d.extent));
      for (int j = 0; j < kNormData; ++j) a.kept_stride[j][k] = d.data[j];
      for (int j = 0; j < kNormStats; ++j) a.stat_stride[j][k] = d.stat[j];
    }
  }
  a.groups = shape.groups;
  a.count = shape.count;
  a.cols = !merged.empty() && !merged.back().reduced;
  a.backward = op.backward;
  a.training = !op.backward && op.phase == CUDNN_NORM_FWD_TRAINING;
  a.relu = op.has_activation && op.activation == CUDNN_POINTWISE_RELU_FWD;
  a.has_z = op.z != graph::kNoTensor;
  a.has_mask = op.mask != graph::kNoTensor;
  a.has_dz = op.dz != graph::kNoTensor;
  a.stats_given = op.backward ? op.mean != graph::kNoTensor : op.phase == CUDNN_NORM_FWD_INFERENCE;
  a.var_given = op.variance != graph::kNoTensor;
  a.unbias = unbias_factor(shape.count);
  a.data_type = x.dtype;
  a.out_type = output_type(g, op);
  a.grad_type = grad_type(g, op);
  a.compute_double = normalization_computes_in_double(op);
  if (!typed_kernels_run(g, op)) {
    a.dyn = true;
    a.compute_double = dyn_computes_in_double(g, op);
    for (int j = 0; j < kNormData; ++j)
      a.types[j] = u.data[j] != graph::kNoTensor ? static_cast<int>(g.tensor(u.data[j]).dtype) : CUDNN_DATA_FLOAT;
  }
  // The statistics' own types (the compute type but for the mixed problems).
  for (int j = 0; j < kNormStats; ++j)
    if (u.stat[j] != graph::kNoTensor && g.tensor(u.stat[j]).dtype == CUDNN_DATA_DOUBLE) a.stat_double |= 1u << j;

  // Parts per set: about 8 blocks per multiprocessor in all, each part a few
  // elements per thread at least.
  const int64_t want_blocks = int64_t{sm_count()} * 8;
  const int64_t blocks_per_part = a.cols ? (a.groups + 31) / 32 : a.groups;
  const int64_t per_block_min = a.cols ? 8 * 16 : 256 * 8;
  int64_t splits = (want_blocks + blocks_per_part - 1) / blocks_per_part;
  splits = std::max<int64_t>(1, std::min({splits, (a.count + per_block_min - 1) / per_block_min, int64_t{65535}}));
  a.chunk = (a.count + splits - 1) / splits;
  a.splits = static_cast<int>((a.count + a.chunk - 1) / a.chunk);
  if (a.splits < 1) a.splits = 1;
  choose_fast_path(a, u);
  apply_tuning(a);
  plan_normalization_persistent(a);
  plan_normalization_grid(a);
  plan_normalization_resident(a);
  return a;
}

class Plan final : public ExecutionPlan {
 public:
  Plan(const Engine &e, const graph::Graph &g) : ExecutionPlan(e), geometry_(make_geometry(g)) {}

  size_t workspace_size() const override { return normalization_workspace_bytes(geometry_); }

  void execute(const ExecContext &ctx, const graph::Graph &g, const VariantPack &pack) const override {
    const auto &op = std::get<graph::NormalizationOp>(g.ops().front());
    NormArgs a = geometry_;
    const Uids u = uids_of(op);
    for (int j = 0; j < kNormData; ++j) a.data[j] = u.data[j] != graph::kNoTensor ? pack.get(u.data[j]) : nullptr;
    for (int j = 0; j < kNormStats; ++j) a.stat[j] = u.stat[j] != graph::kNoTensor ? pack.get(u.stat[j]) : nullptr;
    a.epsilon = op.epsilon;
    a.factor = op.exp_avg_factor;
    a.clip = static_cast<float>(std::min(op.relu_upper_clip, 3.0e38));
    a.alpha = op.blend.alpha;
    a.beta = op.blend.beta;
    a.alpha_p = op.param_blend.alpha;
    a.beta_p = op.param_blend.beta;
    if (pack.workspace == nullptr || pack.workspace_size < workspace_size())
      fail(CUDNN_STATUS_INTERNAL_ERROR, "cuda.normalization: no workspace");
    launch_normalization(a, pack.workspace, ctx.stream);
  }

 private:
  NormArgs geometry_;
};

class CudaNormalizationEngine final : public Engine {
 public:
  const char *name() const override { return "cuda.normalization"; }
  DeviceKind device() const override { return DeviceKind::cuda; }
  Support supports(const graph::Graph &g) const override { return check_graph(g); }
  std::unique_ptr<ExecutionPlan> make_plan(const graph::Graph &g, const std::vector<KnobChoice> &) const override {
    return std::make_unique<Plan>(*this, g);
  }
};

}  // namespace
}  // namespace fdnn::cuda

using fdnn::cuda::CudaNormalizationEngine;
FDNN_REGISTER_ENGINE(CudaNormalizationEngine)
