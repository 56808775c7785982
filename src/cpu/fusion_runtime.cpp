// cpu.fusion.runtime: the CPU's generic runtime-fusion engine. It runs the
// graphs of core/fusion_pattern.hpp (one convolution or matmul with
// pointwise prologues, a pointwise epilogue and final reductions, or
// pointwise DAGs with reductions) tile by tile, so that virtual tensors are
// never materialised whole:
//
//  1. The anchor's work is cut into slices: images of a convolution (groups
//     of them, at most about kConvSliceElements output elements), tiles of rows and
//     columns of a matmul (kMatmulTile x kMatmulTile per batch index).
//  2. Per slice: the prologues compute the slice of each anchor input they
//     produce (pointwise_program.hpp) into a small buffer; the anchor runs on
//     the slice through the best single-operation engine (a sub-plan made
//     once per slice shape), writing into a buffer when its output is
//     virtual; the epilogue reads that buffer while it is still in cache and
//     writes the real outputs, and the reductions fold it into per-worker
//     partial results.
//  3. Matmul tiles run in parallel, one tile per worker at a time, each with
//     single-threaded BLAS (the tile's data stays in that core's caches);
//     convolution slices run one after another, each using all threads
//     (the convolution engines parallelise internally).
//
// Backward-filter convolutions sum over images: their slices accumulate into
// the output (beta = 1 after the first slice) and the epilogue runs once at
// the end. Prologues of inputs that no slice cuts (a convolution's filter)
// run once per execution into the workspace.
#include <algorithm>
#include <map>
#include <memory>
#include <numeric>

#include "core/dtype.hpp"
#include "core/error.hpp"
#include "core/fusion_pattern.hpp"
#include "core/thread_pool.hpp"
#include "cpu/pointwise_program.hpp"
#include "graph/op_io.hpp"

namespace fdnn::cpu {
namespace {

// Output elements of one convolution slice (4 MiB of f32): slices of single
// small images run the convolution at a fraction of its batched speed,
// while a slice this size still stays in the cores' L2 for the epilogue.
constexpr int64_t kConvSliceElements = int64_t{1} << 20;
constexpr int64_t kMatmulTile = 256;                      // rows and columns of one matmul tile
constexpr int64_t kMatmulTileElements = kMatmulTile * kMatmulTile;
constexpr int kSlotsPerThread = 4;
constexpr size_t kAlign = 256;

size_t align_up(size_t n) { return (n + kAlign - 1) / kAlign * kAlign; }

// Slices of the anchor: a grid of blocks over `extent`.
struct Grid {
  std::vector<int64_t> extent, block;
  int64_t count() const {
    int64_t n = 1;
    for (size_t d = 0; d < extent.size(); ++d) n *= (extent[d] + block[d] - 1) / block[d];
    return n;
  }
  // Start and extent of slice `index` (row-major over the blocks).
  void slice(int64_t index, std::vector<int64_t> &start, std::vector<int64_t> &size) const {
    start.assign(extent.size(), 0);
    size.assign(extent.size(), 0);
    for (int d = static_cast<int>(extent.size()) - 1; d >= 0; --d) {
      const int64_t blocks = (extent[d] + block[d] - 1) / block[d];
      start[d] = (index % blocks) * block[d];
      size[d] = std::min(block[d], extent[d] - start[d]);
      index /= blocks;
    }
  }
};

// Per dim of a tensor: the grid dim it follows, or -1 (taken whole).
using Follows = std::vector<int>;

std::vector<int64_t> slice_dims(const std::vector<int64_t> &dims, const Follows &f, const std::vector<int64_t> &size) {
  std::vector<int64_t> r = dims;
  for (size_t d = 0; d < dims.size(); ++d)
    if (f[d] >= 0) r[d] = size[f[d]];
  return r;
}

int64_t slice_offset(const std::vector<int64_t> &strides, const Follows &f, const std::vector<int64_t> &start) {
  int64_t o = 0;
  for (size_t d = 0; d < strides.size(); ++d)
    if (f[d] >= 0) o += start[f[d]] * strides[d];
  return o;
}

// Packed strides for `dims`, dims ordered like `like` (largest stride outermost).
std::vector<int64_t> packed_like(const std::vector<int64_t> &dims, const std::vector<int64_t> &like) {
  std::vector<int> order(dims.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return std::abs(like[a]) > std::abs(like[b]); });
  std::vector<int64_t> s(dims.size(), 0);
  int64_t step = 1;
  for (int i = static_cast<int>(order.size()) - 1; i >= 0; --i) {
    s[order[i]] = step;
    step *= std::max<int64_t>(dims[order[i]], 1);
  }
  return s;
}

ThreadPool &serial_pool() {
  static ThreadPool pool(1);
  return pool;
}

struct AnchorIo {
  std::vector<graph::Uid> inputs;
  graph::Uid output = graph::kNoTensor;
};

AnchorIo anchor_io(const graph::Op &op) {
  const graph::OpIo io = graph::op_io(op);
  return {io.inputs, io.outputs.front()};
}

graph::Blend &blend_of(graph::Op &op) {
  if (auto *m = std::get_if<graph::MatmulOp>(&op)) return m->blend;
  return std::get<graph::ConvolutionOp>(op).blend;
}
const graph::Blend &blend_of(const graph::Op &op) { return blend_of(const_cast<graph::Op &>(op)); }

// The structure of one fused execution, shared by the plan and supports().
// supports() builds it with Purpose::check: the anchor's slices only need an
// engine that accepts them, not its plans (oneDNN primitive creation is the
// expensive part of planning, and heuristics ask every engine).
class Layout {
 public:
  enum class Purpose { check, execute };
  Layout(const graph::Graph &g, const FusionPattern &p, Purpose purpose) : pattern_(p), purpose_(purpose) {
    threads_ = ThreadPool::global().size();
    slots_ = threads_ * kSlotsPerThread;
    if (p.anchor >= 0) plan_anchor(g);
    else space_follows_ = Follows(p.space.size(), -1);
    // Buffers: virtual tensors an operation other than the program reads.
    const graph::Op *anchor = p.anchor >= 0 ? &g.ops()[p.anchor] : nullptr;
    if (anchor && g.tensor(io_.output).is_virtual) add_buffer(g, io_.output);
    for (const FusionPrologue &pr : p.prologues)
      if (g.tensor(pr.input).is_virtual) add_buffer(g, pr.input);
    auto strides_of = [&](graph::Uid u) {
      for (const Buffer &b : buffers_)
        if (b.uid == u) return b.strides;
      return g.tensor(u).strides;
    };
    for (const FusionPrologue &pr : p.prologues)
      prologues_.push_back(std::make_unique<PointwiseProgram>(g, pr.ops, std::vector<int>{}, g.tensor(pr.input).dims,
                                                              strides_of, std::vector<graph::Uid>{pr.input}));
    epilogue_ = std::make_unique<PointwiseProgram>(g, p.epilogue, p.reductions, p.space, strides_of,
                                                   std::vector<graph::Uid>{});
    if (anchor) make_sub_plans(g);
    size_t per_worker = 0;
    for (Buffer &b : buffers_) {
      b.offset = per_worker;
      per_worker += align_up(b.bytes);
    }
    sub_workspace_offset_ = per_worker;
    per_worker += align_up(sub_workspace_);
    per_worker_ = per_worker;
    accumulators_offset_ = per_worker_ * static_cast<size_t>(workers());
    workspace_ = accumulators_offset_ + align_up(epilogue_->accumulator_bytes(slots_));
  }

  size_t workspace_size() const { return workspace_; }
  size_t scratch_size() const { return scratch_; }

  void execute(const ExecContext &ctx, const graph::Graph &g, const VariantPack &pack) const {
    auto *ws = static_cast<char *>(pack.workspace);
    if (workspace_ > 0 && (ws == nullptr || pack.workspace_size < workspace_))
      fail(CUDNN_STATUS_BAD_PARAM, "the fused graph needs ", workspace_, " bytes of workspace, got ",
           pack.workspace_size);
    const PointwiseProgram::Accumulators acc{ws + accumulators_offset_, slots_};
    epilogue_->reset(acc);
    if (pattern_.anchor < 0) {
      epilogue_->run(ctx, g, program_slice(*epilogue_, space_follows_, pack, ws, {}, {}, p_space()), acc);
    } else {
      run_whole_prologues(ctx, g, pack, ws);
      const std::vector<graph::Graph> subs = sub_graphs(g);
      const int64_t n = grid_.count();
      if (parallel_slices_ && ctx.pool != nullptr) {
        const ExecContext serial{ctx.device, nullptr, &serial_pool()};
        ctx.pool->parallel_for(slots_, [&](int64_t lo, int64_t hi) {
          for (int64_t w = lo; w < hi; ++w)
            for (int64_t s = n * w / slots_; s < n * (w + 1) / slots_; ++s)
              run_slice(serial, g, subs, pack, ws + per_worker_ * w, acc, static_cast<int>(w), s);
        }, slots_);
      } else {
        for (int64_t s = 0; s < n; ++s) run_slice(ctx, g, subs, pack, ws, acc, -1, s);
      }
      if (accumulate_) epilogue_->run(ctx, g, program_slice(*epilogue_, space_follows_, pack, ws, {}, {}, p_space()), acc);
    }
    if (epilogue_->has_reductions()) epilogue_->finish(g, acc, pack);
  }

 private:
  struct Buffer {
    graph::Uid uid;
    Follows follows;
    std::vector<int64_t> strides;
    size_t bytes = 0, offset = 0;
  };
  struct SubPlan {
    std::vector<int64_t> size;  // slice extents per grid dim
    bool first = true;          // accumulate mode: the first slice (user beta) or a later one (beta = 1)
    std::unique_ptr<ExecutionPlan> plan;
  };

  const std::vector<int64_t> &p_space() const { return pattern_.space; }
  int workers() const { return parallel_slices_ ? slots_ : 1; }

  void plan_anchor(const graph::Graph &g) {
    const graph::Op &op = g.ops()[pattern_.anchor];
    io_ = anchor_io(op);
    for (graph::Uid u : io_.inputs) follows_[u] = Follows(g.tensor(u).rank(), -1);
    follows_[io_.output] = Follows(g.tensor(io_.output).rank(), -1);
    if (const auto *m = std::get_if<graph::MatmulOp>(&op)) {
      const graph::Tensor &a = g.tensor(m->a), &b = g.tensor(m->b), &c = g.tensor(m->c);
      const int r = c.rank();
      grid_.extent = c.dims;
      grid_.block.assign(r, 1);
      const int64_t rows = c.dims[r - 2], cols = c.dims[r - 1];
      const int64_t nb = std::min(cols, kMatmulTile);
      grid_.block[r - 1] = nb;
      grid_.block[r - 2] = std::min(rows, std::max(kMatmulTile, kMatmulTileElements / nb));
      for (int d = 0; d < r; ++d) follows_[m->c][d] = d;
      for (int d = 0; d < r - 2; ++d) {
        follows_[m->a][d] = a.dims[d] == 1 ? -1 : d;
        follows_[m->b][d] = b.dims[d] == 1 ? -1 : d;
      }
      follows_[m->a][r - 2] = r - 2;
      follows_[m->b][r - 1] = r - 1;
      parallel_slices_ = true;
    } else {
      const auto &conv = std::get<graph::ConvolutionOp>(op);
      // Cut along the images (dim 0) of the tensors that have them.
      const bool wgrad = conv.direction == graph::ConvDirection::backward_filter;
      const graph::Tensor &per_image = wgrad ? g.tensor(conv.x) : g.tensor(io_.output);
      const int64_t image = std::max<int64_t>(per_image.element_count() / std::max<int64_t>(per_image.dims[0], 1), 1);
      const int64_t target = wgrad ? 4 * kConvSliceElements : kConvSliceElements;
      // As few slices as the target allows, of equal size.
      const int64_t images = std::max<int64_t>(per_image.dims[0], 1);
      const int64_t slices = std::clamp<int64_t>((images * image + target - 1) / target, 1, images);
      grid_.extent = {per_image.dims[0]};
      grid_.block = {(images + slices - 1) / slices};
      for (graph::Uid u : {conv.x, conv.y}) follows_[u][0] = 0;
      accumulate_ = wgrad;
    }
    space_follows_ = accumulate_ ? Follows(pattern_.space.size(), -1) : follows_[io_.output];
    if (blend_of(op).beta != 0.0 && g.tensor(io_.output).is_virtual)
      fail(CUDNN_STATUS_NOT_SUPPORTED, "the anchor blends into a virtual output (beta != 0)");
  }

  void add_buffer(const graph::Graph &g, graph::Uid uid) {
    const graph::Tensor &t = g.tensor(uid);
    Buffer b{uid, follows_.count(uid) ? follows_[uid] : Follows(t.rank(), -1), {}, 0, 0};
    std::vector<int64_t> block = t.dims;
    for (size_t d = 0; d < block.size(); ++d)
      if (b.follows[d] >= 0) block[d] = grid_.block[b.follows[d]];
    b.strides = packed_like(block, t.strides);
    int64_t elements = 1;
    for (int64_t e : block) elements *= e;
    b.bytes = lanes_to_bytes(t.dtype, elements);
    buffers_.push_back(std::move(b));
  }

  const Buffer *buffer(graph::Uid uid) const {
    for (const Buffer &b : buffers_)
      if (b.uid == uid) return &b;
    return nullptr;
  }

  // The anchor alone on a slice of the given extents: tensors real, dims cut,
  // strides those of the caller's tensor or of its buffer.
  graph::Graph sub_graph(const graph::Graph &g, const std::vector<int64_t> &size, bool first) const {
    graph::Graph sg;
    for (graph::Uid u : io_.inputs) add_sub_tensor(sg, g, u, size);
    add_sub_tensor(sg, g, io_.output, size);
    graph::Op op = g.ops()[pattern_.anchor];
    if (accumulate_ && !first) blend_of(op).beta = 1.0;
    sg.add_op(op);
    return sg;
  }

  void add_sub_tensor(graph::Graph &sg, const graph::Graph &g, graph::Uid u, const std::vector<int64_t> &size) const {
    if (sg.find_tensor(u)) return;
    graph::Tensor t = g.tensor(u);
    t.dims = slice_dims(t.dims, follows_.at(u), size);
    if (const Buffer *b = buffer(u)) t.strides = b->strides;
    t.is_virtual = false;
    sg.add_tensor(t);
  }

  void make_sub_plans(const graph::Graph &g) {
    // Distinct slice shapes: per grid dim the full block and the remainder.
    std::vector<std::vector<int64_t>> choices(grid_.extent.size());
    for (size_t d = 0; d < choices.size(); ++d) {
      choices[d].push_back(std::min(grid_.block[d], grid_.extent[d]));
      if (grid_.extent[d] % grid_.block[d] != 0 && grid_.extent[d] > grid_.block[d])
        choices[d].push_back(grid_.extent[d] % grid_.block[d]);
    }
    std::vector<std::vector<int64_t>> shapes{{}};
    for (const auto &c : choices) {
      std::vector<std::vector<int64_t>> next;
      for (const auto &s : shapes)
        for (int64_t v : c) {
          next.push_back(s);
          next.back().push_back(v);
        }
      shapes = std::move(next);
    }
    const DeviceKind device = DeviceKind::cpu;
    for (const auto &shape : shapes)
      for (bool first : accumulate_ ? std::vector<bool>{true, false} : std::vector<bool>{true}) {
        const graph::Graph sg = sub_graph(g, shape, first);
        const Engine *engine = nullptr;
        for (const Engine *e : EngineRegistry::instance().engines(device))
          if (e->supports(sg)) {
            engine = e;
            break;
          }
        if (engine == nullptr) fail(CUDNN_STATUS_NOT_SUPPORTED, "no engine runs the anchor on a slice");
        if (purpose_ == Purpose::check) continue;
        SubPlan sp{shape, first, engine->make_plan(sg, {})};
        sub_workspace_ = std::max(sub_workspace_, sp.plan->workspace_size());
        scratch_ = std::max(scratch_, sp.plan->scratch_size());
        sub_plans_.push_back(std::move(sp));
      }
    // Library scratch is one region per handle: parallel slices cannot share it.
    if (scratch_ > 0) parallel_slices_ = false;
  }

  std::vector<graph::Graph> sub_graphs(const graph::Graph &g) const {
    std::vector<graph::Graph> r;
    for (const SubPlan &sp : sub_plans_) r.push_back(sub_graph(g, sp.size, sp.first));
    return r;
  }

  void *user_pointer(const VariantPack &pack, graph::Uid u) const {
    void *p = pack.get(u);
    if (p == nullptr) fail(CUDNN_STATUS_BAD_PARAM, "no data pointer for tensor uid ", u);
    return p;
  }

  // A program's view of one slice: user tensors at the slice's offset,
  // buffers at their start.
  PointwiseProgram::Slice program_slice(const PointwiseProgram &prog, const Follows &f, const VariantPack &pack,
                                        char *worker_ws, const std::vector<int64_t> &start,
                                        const std::vector<int64_t> &size, const std::vector<int64_t> &dims) const {
    PointwiseProgram::Slice s;
    s.dims = size.empty() ? dims : slice_dims(dims, f, size);
    std::vector<int64_t> space_start(dims.size(), 0);
    if (!start.empty())
      for (size_t d = 0; d < dims.size(); ++d)
        if (f[d] >= 0) space_start[d] = start[f[d]];
    for (const ProgramTensor &t : prog.tensors()) {
      if (const Buffer *b = buffer(t.uid)) {
        s.base.push_back(worker_ws + b->offset);
        continue;
      }
      auto *p = static_cast<char *>(user_pointer(pack, t.uid));
      int64_t o = 0;
      for (size_t d = 0; d < dims.size(); ++d) o += space_start[d] * t.strides[d];
      s.base.push_back(p + o * static_cast<int64_t>(type_info(t.dtype).bits / 8));
    }
    for (size_t r = 0; r < prog.reduction_count(); ++r) s.reduction_offset.push_back(prog.reduction_offset(r, space_start));
    return s;
  }

  // Prologues of inputs no slice cuts run once, over the whole input.
  void run_whole_prologues(const ExecContext &ctx, const graph::Graph &g, const VariantPack &pack, char *ws) const {
    for (size_t i = 0; i < prologues_.size(); ++i) {
      const graph::Uid u = pattern_.prologues[i].input;
      const Follows &f = follows_.at(u);
      if (std::any_of(f.begin(), f.end(), [](int x) { return x >= 0; })) continue;
      const PointwiseProgram::Accumulators none{};
      for (int w = 0; w < workers(); ++w) {  // each worker's copy of the buffer
        prologues_[i]->run(ctx, g, program_slice(*prologues_[i], f, pack, ws + per_worker_ * w, {}, {}, g.tensor(u).dims), none);
        if (!buffer(u)) break;  // a real tensor is written once
      }
    }
  }

  void run_slice(const ExecContext &ctx, const graph::Graph &g, const std::vector<graph::Graph> &subs,
                 const VariantPack &pack, char *worker_ws, const PointwiseProgram::Accumulators &acc, int slot,
                 int64_t index) const {
    std::vector<int64_t> start, size;
    grid_.slice(index, start, size);
    const PointwiseProgram::Accumulators none{};
    for (size_t i = 0; i < prologues_.size(); ++i) {
      const graph::Uid u = pattern_.prologues[i].input;
      const Follows &f = follows_.at(u);
      if (std::none_of(f.begin(), f.end(), [](int x) { return x >= 0; })) continue;
      const auto s = program_slice(*prologues_[i], f, pack, worker_ws, start, size, g.tensor(u).dims);
      if (slot < 0) prologues_[i]->run(ctx, g, s, none);
      else prologues_[i]->run_serial(g, s, none, 0);
    }
    // The anchor on this slice.
    const bool first = index == 0;
    size_t k = 0;
    while (k < sub_plans_.size() && (sub_plans_[k].size != size || (accumulate_ && sub_plans_[k].first != first))) ++k;
    if (k == sub_plans_.size()) fail(CUDNN_STATUS_INTERNAL_ERROR, "no sub-plan for a slice shape");
    VariantPack sub;
    for (const graph::Tensor &t : subs[k].tensors()) {
      if (const Buffer *b = buffer(t.uid)) {
        sub.set(t.uid, worker_ws + b->offset);
        continue;
      }
      const graph::Tensor &full = g.tensor(t.uid);
      auto *p = static_cast<char *>(user_pointer(pack, t.uid));
      sub.set(t.uid, p + slice_offset(full.strides, follows_.at(t.uid), start) *
                             static_cast<int64_t>(type_info(full.dtype).bits / 8));
    }
    sub.workspace = sub_workspace_ > 0 ? worker_ws + sub_workspace_offset_ : nullptr;
    sub.workspace_size = sub_workspace_;
    sub.scratch = pack.scratch;
    sub.scratch_size = pack.scratch_size;
    sub_plans_[k].plan->execute(ctx, subs[k], sub);
    if (accumulate_) return;
    const auto s = program_slice(*epilogue_, space_follows_, pack, worker_ws, start, size, pattern_.space);
    if (slot < 0) epilogue_->run(ctx, g, s, acc);
    else epilogue_->run_serial(g, s, acc, slot);
  }

  FusionPattern pattern_;
  AnchorIo io_;
  Grid grid_;
  std::map<graph::Uid, Follows> follows_;
  Follows space_follows_;
  bool parallel_slices_ = false, accumulate_ = false;
  int threads_ = 1, slots_ = 1;
  std::vector<Buffer> buffers_;
  std::vector<std::unique_ptr<PointwiseProgram>> prologues_;
  std::unique_ptr<PointwiseProgram> epilogue_;
  Purpose purpose_;
  std::vector<SubPlan> sub_plans_;
  size_t sub_workspace_ = 0, scratch_ = 0, sub_workspace_offset_ = 0, per_worker_ = 0;
  size_t accumulators_offset_ = 0, workspace_ = 0;
};

class Plan final : public ExecutionPlan {
 public:
  Plan(const Engine &e, const graph::Graph &g, const FusionPattern &p)
      : ExecutionPlan(e), layout_(g, p, Layout::Purpose::execute), pattern_name_(p.name) {}
  std::string detail() const override { return pattern_name_; }
  size_t workspace_size() const override { return layout_.workspace_size(); }
  size_t scratch_size() const override { return layout_.scratch_size(); }
  void execute(const ExecContext &ctx, const graph::Graph &g, const VariantPack &pack) const override {
    layout_.execute(ctx, g, pack);
  }

 private:
  Layout layout_;
  std::string pattern_name_;
};

class RuntimeFusionEngine final : public Engine {
 public:
  const char *name() const override { return "cpu.fusion.runtime"; }
  DeviceKind device() const override { return DeviceKind::cpu; }
  // After the attention engine (a more specific pattern), before op by op.
  int priority() const override { return 60; }
  Support supports(const graph::Graph &g) const override {
    FusionPattern p;
    Support s = match_fusion(g, &p);
    if (!s) return s;
    try {
      Layout layout(g, p, Layout::Purpose::check);  // compiles the programs, finds the anchor's engines
    } catch (const Error &e) {
      return Support::no(e.what());
    }
    return Support::yes();
  }
  std::unique_ptr<ExecutionPlan> make_plan(const graph::Graph &g, const std::vector<KnobChoice> &) const override {
    FusionPattern p;
    Support s = match_fusion(g, &p);
    if (!s) fail(CUDNN_STATUS_NOT_SUPPORTED, s.reason);
    return std::make_unique<Plan>(*this, g, p);
  }
};

}  // namespace
}  // namespace fdnn::cpu

using fdnn::cpu::RuntimeFusionEngine;
FDNN_REGISTER_ENGINE(RuntimeFusionEngine)
