// cpu.reduction: the fast CPU engine for a single ReductionOp.
//
// x's iteration space becomes a LoopNest ordered by x's strides, with y's
// strides (0 on reduced dimensions) and, for indices, the flat-index
// multipliers and the indices tensor as further operands, so the usual
// merging keeps every one of them consistent. Two shapes of work follow:
//  - inner reduction (x's innermost dimension is reduced): each output folds
//    rows of x through a multi-accumulator loop (reduction_fold.hpp: four
//    vector accumulators and prefetch where x already holds the compute
//    type contiguously; with indices, a vectorised max+argmax per block);
//    when each output is one whole contiguous row of float / double x
//    (no indices), the rows are folded back to back, each prefetching on
//    into the next (fold_rows); when each output folds several whole runs
//    and neighbouring outputs' runs are neighbours (NCHW per-channel
//    statistics), a range of outputs is walked position by position so that
//    x streams in memory order (fold_runs);
//  - outer reduction (the innermost dimension is kept): a block of up to
//    kWidth neighbouring outputs is accumulated together, one reduced
//    position at a time, so x is read along its contiguous dimension.
// When there are fewer output groups than threads, the reduced range is cut
// into parts whose partial results are combined in order afterwards
// (deterministic). Floats, halves and bfloat16 accumulate in float, doubles
// in double. A grouped reduction (a y extent dividing x's) is the plain one
// with its grouped dims split in two, which the loop nest then merges back
// where it can.
#include <algorithm>
#include <memory>
#include <variant>
#include <vector>

#include "core/dtype.hpp"
#include "core/engine.hpp"
#include "core/env_words.hpp"
#include "core/error.hpp"
#include "core/reduction_support.hpp"
#include "core/thread_pool.hpp"
#include "cpu/loop_nest.hpp"
#include "cpu/pointwise_kernels.hpp"
#include "cpu/reduction_fold.hpp"
#include "cpu/reduction_minmax.hpp"
#include "cpu/reduction_support.hpp"

namespace fdnn::cpu {
namespace {

constexpr int64_t kChunk = 16384;      // elements of one row piece (inner reduction)
constexpr int kWidth = 1024;           // outputs per block (outer reduction)
constexpr int64_t kFlushEvery = 128;   // outer reduction: partial sums per reduced position batch
constexpr int64_t kParallelThreshold = 32768;

enum Operand { kX = 0, kY = 1, kFlat = 2, kIdx = 3 };

struct Layout {
  LoopNest nest;
  bool with_index = false;
  bool inner_reduced = false;
  int64_t slice = 1;        // reduced elements per output
  LoopNest out_nest;        // kept dims (minus the innermost one for outer reductions)
  LoopNest red_nest;        // reduced dims (minus the innermost one for inner reductions)
  int64_t groups = 1;       // output groups (outputs, or blocks of outputs)
  int64_t units = 1;        // reduced work units per group
  int64_t pieces = 1;       // inner reduction: pieces per row
  int64_t blocks = 1;       // outer reduction: blocks along the innermost kept dim
  cudnnDataType_t xt{}, yt{}, it{};
};

LoopNest sub_nest(const LoopNest &n, const std::vector<int> &dims) {
  LoopNest out;
  out.operands = n.operands;
  for (int d : dims) {
    out.dims[out.rank] = n.dims[d];
    for (int o = 0; o < n.operands; ++o) out.strides[o][out.rank] = n.strides[o][d];
    ++out.rank;
  }
  return out;
}

Layout make_layout(const graph::Graph &g) {
  const auto &op = std::get<graph::ReductionOp>(g.ops().front());
  // Grouped reductions: each grouped dim split into (y extent, group), so
  // that y's dims are x's or 1 (core/reduction_support.hpp).
  graph::Tensor x = g.tensor(op.x), y = g.tensor(op.y);
  split_grouped_reduction(x, y);
  Layout L;
  L.xt = x.dtype;
  L.yt = y.dtype;
  L.with_index = op.indices != graph::kNoTensor;
  const int rank = x.rank();

  std::vector<std::vector<int64_t>> strides(L.with_index ? 4 : 2, std::vector<int64_t>(rank, 0));
  strides[kX] = x.strides;
  for (int d = 0; d < rank; ++d) strides[kY][d] = y.dims[d] == 1 ? 0 : y.strides[d];
  if (L.with_index) {
    const graph::Tensor &idx = g.tensor(op.indices);
    L.it = idx.dtype;
    int64_t mult = 1;
    for (int d = rank - 1; d >= 0; --d) {
      const bool reduced = y.dims[d] == 1 && x.dims[d] != 1;
      strides[kFlat][d] = reduced ? mult : 0;
      if (reduced) mult *= x.dims[d];
      strides[kIdx][d] = y.dims[d] == 1 ? 0 : idx.strides[d];
    }
  }
  if (!make_loop_nest(x.dims, strides, L.nest)) fail(CUDNN_STATUS_NOT_SUPPORTED, "cpu.reduction: too many dimensions");
  LoopNest &n = L.nest;
  if (n.rank == 0) {  // one element
    n.rank = 1;
    n.dims[0] = 1;
  }
  // A dimension is reduced when y does not step through it (and x does).
  auto is_reduced = [&](int d) { return n.strides[kY][d] == 0 && n.dims[d] > 1; };
  const int d0 = n.rank - 1;
  L.inner_reduced = is_reduced(d0);
  std::vector<int> kept, red;
  for (int d = 0; d < n.rank; ++d) (is_reduced(d) ? red : kept).push_back(d);
  for (int d : red) L.slice *= n.dims[d];

  if (L.inner_reduced) {
    red.pop_back();  // d0 is walked by the row loop
    L.out_nest = sub_nest(n, kept);
    L.red_nest = sub_nest(n, red);
    L.groups = L.out_nest.element_count();
    L.pieces = (n.dims[d0] + kChunk - 1) / kChunk;
    L.units = L.red_nest.element_count() * L.pieces;
  } else {
    kept.pop_back();  // d0 is walked by the block loop
    L.out_nest = sub_nest(n, kept);
    L.red_nest = sub_nest(n, red);
    L.blocks = (n.dims[d0] + kWidth - 1) / kWidth;
    L.groups = L.out_nest.element_count() * L.blocks;
    L.units = L.red_nest.element_count();
  }
  return L;
}

// Folds n values into one accumulator with 8 independent lanes (vectorisable
// and more accurate than one running sum).
template <class M, class C>
C fold_block(const C *v, int n, bool prop) {
  if constexpr (red::MinMaxTraits<M>::is_minmax) return red::fold_minmax<M>(v, n);
  C a[8];
  for (int k = 0; k < 8; ++k) a[k] = M::init(prop);
  int i = 0;
  for (; i + 8 <= n; i += 8)
    for (int k = 0; k < 8; ++k) a[k] = M::acc(a[k], v[i + k], prop);
  for (; i < n; ++i) a[0] = M::acc(a[0], v[i], prop);
  C r = a[0];
  for (int k = 1; k < 8; ++k) r = M::combine(r, a[k], prop);
  return r;
}

template <class C>
struct Execution {
  const Layout &L;
  const char *x;
  char *y;
  char *idx;
  size_t xes, yes;
  LoadFn<C> load;
  bool x_is_c;  // x's type is the compute type
  StoreFn<C> store;
  C alpha, beta;
  bool prop;
  int64_t parts;
  // Partial results when parts > 1: [group][part][lane].
  std::vector<C> pacc;
  std::vector<int64_t> pidx;

  int lanes() const { return L.inner_reduced ? 1 : kWidth; }

  // n values of x from p in the compute type: where they lie when x already
  // holds C values contiguously, else converted into buf.
  const C *values(const char *p, int64_t stride, int n, C *buf) const {
    if (x_is_c && stride == 1) return reinterpret_cast<const C *>(p);
    load(p, stride, n, buf);
    return buf;
  }

  // Group g: offsets of its first output (every operand) and width m.
  void group_origin(int64_t g, int64_t *off, int64_t &m, int64_t &first) const {
    const LoopNest &n = L.nest;
    const int d0 = n.rank - 1;
    int64_t outer = L.inner_reduced ? g : g / L.blocks;
    OuterCursor cur(L.out_nest, L.out_nest.rank, outer);
    for (int o = 0; o < n.operands; ++o) off[o] = cur.offset(o);
    m = 1;
    first = 0;
    if (!L.inner_reduced) {
      first = (g % L.blocks) * kWidth;
      m = std::min<int64_t>(kWidth, n.dims[d0] - first);
      for (int o = 0; o < n.operands; ++o) off[o] += first * n.strides[o][d0];
    }
  }

  template <class M>
  void run_group_part(int64_t g, int64_t u0, int64_t u1, C *acc, int64_t *best) const {
    const LoopNest &n = L.nest;
    const int d0 = n.rank - 1;
    int64_t off[kMaxNestOperands], m, first;
    group_origin(g, off, m, first);
    alignas(64) C buf[kWidth > kBlock ? kWidth : kBlock];  // a row block or a block of outputs
    const int64_t s0 = n.strides[kX][d0];

    if (L.inner_reduced) {
      C a = M::init(prop);
      int64_t bi = -1;
      const int64_t row_len = n.dims[d0];
      const int64_t f0 = L.with_index ? n.strides[kFlat][d0] : 0;
      OuterCursor rc(L.red_nest, L.red_nest.rank, u0 / L.pieces);
      int64_t piece = u0 % L.pieces;
      for (int64_t u = u0; u < u1; ++u) {
        const int64_t begin = piece * kChunk, len = std::min(kChunk, row_len - begin);
        const char *row = x + (off[kX] + rc.offset(kX) + begin * s0) * static_cast<int64_t>(xes);
        const int64_t flat = L.with_index ? off[kFlat] + rc.offset(kFlat) + begin * f0 : 0;
        if constexpr (red::has_contiguous_fold<M, C>()) {
          // The whole piece where it lies, four accumulators, prefetched.
          if (x_is_c && s0 == 1 && !L.with_index) {
            a = M::combine(a, red::fold_contiguous<M>(reinterpret_cast<const C *>(row), len), prop);
            if (++piece == L.pieces) {
              piece = 0;
              rc.next();
            }
            continue;
          }
        }
        for (int64_t i = 0; i < len; i += kBlock) {
          const int k = static_cast<int>(std::min<int64_t>(kBlock, len - i));
          const C *v = values(row + i * s0 * static_cast<int64_t>(xes), s0, k, buf);
          if constexpr (M::indexable) {
            if (L.with_index) {
              // The block's winner (vectorised), then the usual rule against
              // the best so far: blocks come in increasing flat order within
              // a row, and replaces() settles ties across rows by index.
              C key;
              const int j = red::block_argbest<M>(v, k, prop, key);
              const int64_t fi = flat + (i + j) * f0;
              if (red::replaces<M>(key, fi, a, bi, prop)) {
                a = key;
                bi = fi;
              }
              continue;
            }
          }
          if constexpr (red::has_contiguous_fold<M, C>()) {
            a = M::combine(a, red::fold_contiguous<M>(v, k), prop);
            continue;
          }
          a = M::combine(a, fold_block<M>(v, k, prop), prop);
        }
        if (++piece == L.pieces) {
          piece = 0;
          rc.next();
        }
      }
      acc[0] = a;
      if (best) best[0] = bi;
      return;
    }

    // Outer reduction: m outputs along d0, one reduced position at a time.
    alignas(64) C part[kWidth];
    for (int j = 0; j < m; ++j) {
      acc[j] = M::init(prop);
      part[j] = M::init(prop);
      if (best) best[j] = -1;
    }
    OuterCursor rc(L.red_nest, L.red_nest.rank, u0);
    int64_t since_flush = 0;
    for (int64_t u = u0; u < u1; ++u, rc.next()) {
      const char *src = x + (off[kX] + rc.offset(kX)) * static_cast<int64_t>(xes);
      const C *v = values(src, s0, static_cast<int>(m), buf);
      if constexpr (M::indexable) {
        if (L.with_index) {
          const int64_t fi = off[kFlat] + rc.offset(kFlat);
          for (int j = 0; j < m; ++j) {
            const C key = M::key(v[j]);
            if (red::replaces<M>(key, fi, acc[j], best[j], prop)) {
              acc[j] = key;
              best[j] = fi;
            }
          }
          continue;
        }
      }
      if constexpr (red::MinMaxTraits<M>::is_minmax) red::accumulate_minmax<M>(part, v, static_cast<int>(m));
      else
        for (int j = 0; j < m; ++j) part[j] = M::acc(part[j], v[j], prop);
      if (++since_flush == kFlushEvery) {
        for (int j = 0; j < m; ++j) {
          acc[j] = M::combine(acc[j], part[j], prop);
          part[j] = M::init(prop);
        }
        since_flush = 0;
      }
    }
    if (!L.with_index)
      for (int j = 0; j < m; ++j) acc[j] = M::combine(acc[j], part[j], prop);
  }

  template <class M>
  void finish_group(int64_t g, C *acc, const int64_t *best) const {
    const LoopNest &n = L.nest;
    const int d0 = n.rank - 1;
    int64_t off[kMaxNestOperands], m, first;
    group_origin(g, off, m, first);
    for (int j = 0; j < m; ++j) acc[j] = M::finish(acc[j], L.slice);
    const int64_t ys = L.inner_reduced ? 0 : n.strides[kY][d0];
    store(y + off[kY] * static_cast<int64_t>(yes), ys, static_cast<int>(m), acc, alpha, beta);
    if (L.with_index) {
      const int64_t is = L.inner_reduced ? 0 : n.strides[kIdx][d0];
      for (int j = 0; j < m; ++j) {
        const uint32_t v = static_cast<uint32_t>(best[j] < 0 ? 0 : best[j]);
        std::memcpy(idx + (off[kIdx] + j * is) * 4, &v, 4);
      }
    }
  }

  // Rows path: each output folds one whole contiguous row of x that holds C
  // values (the reduced dimensions merged into x's innermost one), no
  // indices, no split. The rows are folded back to back, each prefetching on
  // into the next, with no per-row set-up beyond a cursor step.
  template <class M>
  bool rows_path() const {
    if constexpr (!red::has_contiguous_fold<M, C>()) {
      return false;
    } else {
      // FREEDNN_CPU_REDUCE_ROWS=0 turns the path off (to measure against it).
      static const bool enabled = env_on("FREEDNN_CPU_REDUCE_ROWS");
      return enabled && L.inner_reduced && !L.with_index && parts == 1 && L.pieces == 1 &&
             L.red_nest.element_count() == 1 && x_is_c && L.nest.strides[kX][L.nest.rank - 1] == 1;
    }
  }

  template <class M>
  void fold_rows(int64_t lo, int64_t hi) const {
    if constexpr (red::has_contiguous_fold<M, C>()) {
      const int64_t len = L.nest.dims[L.nest.rank - 1];
      const int64_t xs = static_cast<int64_t>(xes), ys = static_cast<int64_t>(yes);
      OuterCursor cur(L.out_nest, L.out_nest.rank, lo);
      const C *row = reinterpret_cast<const C *>(x + cur.offset(kX) * xs);
      int64_t y_off = cur.offset(kY);
      for (int64_t g = lo; g < hi; ++g) {
        const C *next = nullptr;
        int64_t y_next = 0;
        if (g + 1 < hi) {
          cur.next();
          next = reinterpret_cast<const C *>(x + cur.offset(kX) * xs);
          y_next = cur.offset(kY);
        }
        C a = M::combine(M::init(prop), red::fold_contiguous<M>(row, len, next), prop);
        a = M::finish(a, L.slice);
        store(y + y_off * ys, 0, 1, &a, alpha, beta);
        row = next;
        y_off = y_next;
      }
    }
  }

  // Runs path: each output folds several whole contiguous runs of x that
  // holds C values (per-channel statistics of NCHW: one run of H x W per
  // image), no indices, no split. A range of outputs is walked one reduced
  // position at a time, the outputs' runs of that position in turn, so that
  // where neighbouring outputs' runs are neighbours in memory (NCHW: the
  // planes of one image) x is read as one stream instead of one short run
  // per output and image (64x256x56x56 f32 per-channel sums, 2 threads: runs
  // of 12.5 KB, 3.2 MB apart). Each output still combines its runs in
  // reduced order, so the results are those of run_group_part bit for bit.
  template <class M>
  bool runs_path() const {
    if constexpr (!red::has_contiguous_fold<M, C>()) {
      return false;
    } else {
      // FREEDNN_CPU_REDUCE_RUNS=0 turns the path off (to measure against it).
      static const bool enabled = env_on("FREEDNN_CPU_REDUCE_RUNS");
      const LoopNest &n = L.nest;
      const int d0 = n.rank - 1;
      if (!enabled || !L.inner_reduced || L.with_index || parts != 1 || L.pieces != 1 || !x_is_c ||
          n.strides[kX][d0] != 1 || L.red_nest.element_count() < 2 || L.out_nest.rank == 0)
        return false;
      // Neighbouring outputs' runs adjacent: the innermost kept dim steps x by one run.
      return L.out_nest.strides[kX][L.out_nest.rank - 1] == n.dims[d0];
    }
  }

  template <class M>
  void fold_runs(int64_t lo, int64_t hi) const {
    if constexpr (red::has_contiguous_fold<M, C>()) {
      const int64_t len = L.nest.dims[L.nest.rank - 1], xs = static_cast<int64_t>(xes);
      const int64_t count = hi - lo;
      std::vector<C> acc(static_cast<size_t>(count), M::init(prop));
      std::vector<int64_t> base(static_cast<size_t>(count));
      OuterCursor cur(L.out_nest, L.out_nest.rank, lo);
      for (int64_t g = 0; g < count; ++g, cur.next()) base[static_cast<size_t>(g)] = cur.offset(kX);
      OuterCursor rc(L.red_nest, L.red_nest.rank, 0);
      const int64_t units = L.red_nest.element_count();
      for (int64_t u = 0; u < units; ++u) {
        const int64_t ru = rc.offset(kX);
        rc.next();
        const int64_t ru_next = u + 1 < units ? rc.offset(kX) : 0;
        for (int64_t g = 0; g < count; ++g) {
          const C *run = reinterpret_cast<const C *>(x + (base[static_cast<size_t>(g)] + ru) * xs);
          const C *next = g + 1 < count ? reinterpret_cast<const C *>(x + (base[static_cast<size_t>(g + 1)] + ru) * xs)
                          : u + 1 < units ? reinterpret_cast<const C *>(x + (base[0] + ru_next) * xs)
                                          : nullptr;
          acc[static_cast<size_t>(g)] = M::combine(acc[static_cast<size_t>(g)], red::fold_contiguous<M>(run, len, next), prop);
        }
      }
      for (int64_t g = 0; g < count; ++g) finish_group<M>(lo + g, &acc[static_cast<size_t>(g)], nullptr);
    }
  }

  template <class M>
  void run(const ExecContext &ctx) {
    const bool par = ctx.pool != nullptr && ctx.pool->size() > 1 && L.nest.element_count() >= kParallelThreshold;
    if (rows_path<M>()) {
      auto rows = [&](int64_t lo, int64_t hi) { fold_rows<M>(lo, hi); };
      if (par && L.groups > 1) ctx.pool->parallel_for(L.groups, rows, std::min<int64_t>(L.groups, ctx.pool->size() * 4));
      else rows(0, L.groups);
      return;
    }
    if (runs_path<M>()) {
      auto runs = [&](int64_t lo, int64_t hi) { fold_runs<M>(lo, hi); };
      if (par && L.groups > 1) ctx.pool->parallel_for(L.groups, runs, std::min<int64_t>(L.groups, ctx.pool->size() * 4));
      else runs(0, L.groups);
      return;
    }
    const int W = lanes();
    auto item = [&](int64_t it) {
      const int64_t g = it / parts, p = it % parts;
      const int64_t u0 = L.units * p / parts, u1 = L.units * (p + 1) / parts;
      if (parts == 1) {
        alignas(64) C acc[kWidth];
        int64_t best[kWidth];
        run_group_part<M>(g, u0, u1, acc, L.with_index ? best : nullptr);
        finish_group<M>(g, acc, best);
      } else {
        C *acc = &pacc[static_cast<size_t>(it * W)];
        int64_t *best = L.with_index ? &pidx[static_cast<size_t>(it * W)] : nullptr;
        run_group_part<M>(g, u0, u1, acc, best);
      }
    };
    const int64_t items = L.groups * parts;
    auto body = [&](int64_t lo, int64_t hi) {
      for (int64_t it = lo; it < hi; ++it) item(it);
    };
    if (par && items > 1) ctx.pool->parallel_for(items, body, std::min<int64_t>(items, ctx.pool->size() * 4));
    else body(0, items);
    if (parts == 1) return;

    // Combine the parts of each group in order, then store.
    auto combine = [&](int64_t lo, int64_t hi) {
      for (int64_t g = lo; g < hi; ++g) {
        C *acc0 = &pacc[static_cast<size_t>(g * parts * W)];
        int64_t *best0 = L.with_index ? &pidx[static_cast<size_t>(g * parts * W)] : nullptr;
        for (int64_t p = 1; p < parts; ++p) {
          const C *acc = acc0 + p * W;
          for (int j = 0; j < W; ++j) {
            if constexpr (M::indexable) {
              if (L.with_index) {
                const int64_t *best = best0 + p * W;
                if (best[j] >= 0 && red::replaces<M>(acc[j], best[j], acc0[j], best0[j], prop)) {
                  acc0[j] = acc[j];
                  best0[j] = best[j];
                }
                continue;
              }
            }
            acc0[j] = M::combine(acc0[j], acc[j], prop);
          }
        }
        finish_group<M>(g, acc0, best0);
      }
    };
    if (par && L.groups > 1) ctx.pool->parallel_for(L.groups, combine);
    else combine(0, L.groups);
  }
};

class Plan final : public ExecutionPlan {
 public:
  Plan(const Engine &e, const graph::Graph &g) : ExecutionPlan(e), L_(make_layout(g)) {
    const auto &op = std::get<graph::ReductionOp>(g.ops().front());
    use_double_ = reduction_computes_in_double(op, g.tensor(op.x), g.tensor(op.y));
  }

  void execute(const ExecContext &ctx, const graph::Graph &g, const VariantPack &pack) const override {
    if (use_double_) run<double>(ctx, g, pack);
    else run<float>(ctx, g, pack);
  }

 private:
  template <class C>
  void run(const ExecContext &ctx, const graph::Graph &g, const VariantPack &pack) const {
    const auto &op = std::get<graph::ReductionOp>(g.ops().front());
    Execution<C> ex{L_,
                    static_cast<const char *>(pack.get(op.x)),
                    static_cast<char *>(pack.get(op.y)),
                    L_.with_index ? static_cast<char *>(pack.get(op.indices)) : nullptr,
                    static_cast<size_t>(type_info(L_.xt).bits / 8),
                    static_cast<size_t>(type_info(L_.yt).bits / 8),
                    load_fn_for<C>(L_.xt),
                    L_.xt == (std::is_same_v<C, float> ? CUDNN_DATA_FLOAT : CUDNN_DATA_DOUBLE),
                    store_fn_for<C>(L_.yt, op.blend.beta != 0.0),
                    static_cast<C>(op.blend.alpha),
                    static_cast<C>(op.blend.beta),
                    op.nan_propagation != CUDNN_NOT_PROPAGATE_NAN,
                    1,
                    {},
                    {}};
    if (ex.x == nullptr || ex.y == nullptr || (L_.with_index && ex.idx == nullptr))
      fail(CUDNN_STATUS_BAD_PARAM, "cpu.reduction: a data pointer is missing");
    // Split the reduced range when there are too few groups to feed the threads.
    const int threads = ctx.pool ? ctx.pool->size() : 1;
    const int64_t elements = L_.nest.element_count();
    if (threads > 1 && elements >= kParallelThreshold && L_.groups < 2 * threads) {
      int64_t want = (4 * threads + L_.groups - 1) / L_.groups;
      int64_t by_size = std::max<int64_t>(1, elements / L_.groups / 8192);
      ex.parts = std::max<int64_t>(1, std::min({want, by_size, L_.units}));
    }
    if (ex.parts > 1) {
      ex.pacc.resize(static_cast<size_t>(L_.groups * ex.parts * ex.lanes()));
      if (L_.with_index) ex.pidx.resize(ex.pacc.size(), -1);
    }
    red::visit_mode<C>(op.mode, ex.prop, [&](auto mode) { ex.template run<decltype(mode)>(ctx); });
  }

  Layout L_;
  bool use_double_ = false;
};

class ReductionEngine final : public Engine {
 public:
  const char *name() const override { return "cpu.reduction"; }
  DeviceKind device() const override { return DeviceKind::cpu; }
  int priority() const override { return 10; }
  Support supports(const graph::Graph &g) const override {
    Support s = check_single_reduction(g);
    if (!s) return s;
    const auto &op = std::get<graph::ReductionOp>(g.ops().front());
    for (graph::Uid u : {op.x, op.y})
      if (!is_fast_type(g.tensor(u).dtype))
        return Support::no(cat("data type ", type_info(g.tensor(u).dtype).enum_name, " has no fast CPU kernels"));
    return Support::yes();
  }
  std::unique_ptr<ExecutionPlan> make_plan(const graph::Graph &g, const std::vector<KnobChoice> &) const override {
    return std::make_unique<Plan>(*this, g);
  }
};

}  // namespace
}  // namespace fdnn::cpu

using fdnn::cpu::ReductionEngine;
FDNN_REGISTER_ENGINE(ReductionEngine)
