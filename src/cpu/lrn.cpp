// cpu.lrn: the fast CPU engine for graph::LrnOp.
//
// Every operand is gathered, a block at a time, into contiguous buffers of the
// compute type; window sums along a dimension of such a block are `box` sums
// (n shifted adds over whole rows, which vectorise), and results are
// scattered back with the blend. The blocks:
//  - cross-channel: C x B, where B runs along the innermost (smallest-stride)
//    non-channel dimension, so NCHW is vectorised over the spatial dimension;
//    when C itself has the smallest stride (NHWC) B is 1 and the sums run
//    along the contiguous channels;
//  - divisive: one whole (D x) H x W plane of one (n, c), box-summed
//    separably along each spatial dimension; sum (x(q) - m(p))^2 over W(p)
//    is B(x^2) - 2 m B(x) + B(1) m^2 (see graph/op_lrn.hpp for the formulas).
// Blocks are spread over the thread pool. FLOAT, HALF and BFLOAT16 compute
// in float, DOUBLE in double. S^-beta is exp(-beta log S) (vec_math.hpp).
// Cross-channel LRN of FLOAT, HALF and BFLOAT16 data in NCHW-like and
// NHWC-like layouts first tries the fused paths of lrn_cross_fast.hpp (and
// channels contiguous the AVX-512 paths of lrn_rows_avx512.hpp,
// float forward in planes with beta 0.75 or 1 that of lrn_planes_forward.hpp).
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <type_traits>
#include <variant>
#include <vector>

#include "core/engine.hpp"
#include "core/error.hpp"
#include "core/lrn_support.hpp"
#include "core/thread_pool.hpp"
#include "cpu/dtype_io.hpp"
#include "cpu/lrn_cross_fast.hpp"
#include "cpu/lrn_planes_forward.hpp"
#include "cpu/lrn_rows_avx512.hpp"
#include "cpu/vec_math.hpp"

namespace fdnn::cpu {
namespace {

constexpr int64_t kBlock = 64;  // cross-channel: positions along the inner dim per block

// buf is [outer][len][inner]; out[o][l][i] = sum over j in [lo, hi] with
// 0 <= l + j < len of in[o][l + j][i] (out is overwritten).
template <class C>
void box_sum(const C *in, C *out, int64_t outer, int64_t len, int64_t inner, int64_t lo, int64_t hi) {
  const int64_t plane = len * inner;
  for (int64_t o = 0; o < outer; ++o) {
    const C *src = in + o * plane;
    C *dst = out + o * plane;
    std::fill(dst, dst + plane, C(0));
    for (int64_t j = lo; j <= hi; ++j) {
      const int64_t l0 = std::max<int64_t>(0, -j), l1 = std::min<int64_t>(len, len - j);
      if (l1 <= l0) continue;
      const C *s = src + (l0 + j) * inner;
      C *d = dst + l0 * inner;
      const int64_t cnt = (l1 - l0) * inner;
      for (int64_t i = 0; i < cnt; ++i) d[i] += s[i];
    }
  }
}

// v^-beta for v > 0 (v >= k > 0 here). Float: exp(-beta log v) with the
// branch-free vec_math functions, which vectorise (std::sqrt and std::pow
// keep errno handling and stay scalar); beta = 1 is a division.
template <class C>
struct NegPow {
  C beta;
  bool one;
  explicit NegPow(double b) : beta(static_cast<C>(b)), one(b == 1.0) {}
  void apply(const C *s, C *out, int64_t cnt) const {
    const C nb = -beta;
    if constexpr (std::is_same_v<C, float>) {
      if (one) vm::for_each(cnt, [=](int64_t i) { out[i] = 1.0f / s[i]; });
      else vm::for_each(cnt, [=](int64_t i) { out[i] = vm::exp(nb * vm::log(s[i])); });
    } else {
      if (one)
        for (int64_t i = 0; i < cnt; ++i) out[i] = C(1) / s[i];
      else
        for (int64_t i = 0; i < cnt; ++i) out[i] = std::pow(s[i], nb);
    }
  }
};

// A tensor operand: its data and strides.
struct Operand {
  char *data = nullptr;
  std::vector<int64_t> strides;
};

// Gathers rows x cols elements (row stride rs, column stride cs) from p.
template <class ST, class C>
void gather(const char *base, int64_t off, int64_t rows, int64_t rs, int64_t cols, int64_t cs, C *out) {
  using T = typename ST::type;
  const T *p = reinterpret_cast<const T *>(base) + off;
  for (int64_t r = 0; r < rows; ++r) {
    const T *row = p + r * rs;
    C *o = out + r * cols;
    if (cs == 1)
      for (int64_t c = 0; c < cols; ++c) o[c] = static_cast<C>(ST::to_double(row[c]));
    else
      for (int64_t c = 0; c < cols; ++c) o[c] = static_cast<C>(ST::to_double(row[c * cs]));
  }
}

template <class ST, class C>
void scatter(char *base, int64_t off, int64_t rows, int64_t rs, int64_t cols, int64_t cs, const C *v, C alpha,
             C beta) {
  using T = typename ST::type;
  T *p = reinterpret_cast<T *>(base) + off;
  for (int64_t r = 0; r < rows; ++r) {
    T *row = p + r * rs;
    const C *s = v + r * cols;
    for (int64_t c = 0; c < cols; ++c) {
      C out = alpha * s[c];
      if (beta != C(0)) out += beta * static_cast<C>(ST::to_double(row[c * cs]));
      if constexpr (sizeof(C) == sizeof(float)) row[c * cs] = ST::from_float(static_cast<float>(out));
      else row[c * cs] = ST::from_double(static_cast<double>(out));
    }
  }
}

// What one block computes, on contiguous buffers of `cnt` elements laid out
// [outer][len][inner] along the normalized dimension(s).
template <class C>
struct BlockMath {
  const graph::LrnOp *op;
  C k, a, two_a_beta;
  NegPow<C> negpow;
  // The normalized dims of a block: (outer, len, inner) per box pass.
  struct Pass {
    int64_t outer, len, inner;
  };
  std::vector<Pass> passes;
  int64_t behind, ahead;

  BlockMath(const graph::LrnOp &o, int rank)
      : op(&o),
        k(static_cast<C>(o.k)),
        a(static_cast<C>(lrn_alpha_over_size(o, rank))),
        two_a_beta(static_cast<C>(2.0 * lrn_alpha_over_size(o, rank) * o.beta)),
        negpow(o.beta),
        behind(graph::lrn_look_behind(o.n)),
        ahead(graph::lrn_look_ahead(o.n)) {}

  // s = box sum over every pass of in (lo..hi window); t is scratch.
  void box(const C *in, C *s, C *t, int64_t cnt, int64_t lo, int64_t hi) const {
    const C *src = in;
    for (size_t i = 0; i < passes.size(); ++i) {
      C *dst = (passes.size() - i) % 2 == 1 ? s : t;  // the last pass lands in s
      box_sum(src, dst, passes[i].outer, passes[i].len, passes[i].inner, lo, hi);
      src = dst;
    }
    (void)cnt;
  }

  // Forward: u -> y (in place in `out`). Buffers: sq, s, t of cnt.
  void forward(const C *u, C *out, C *sq, C *s, C *t, int64_t cnt) const {
    for (int64_t i = 0; i < cnt; ++i) sq[i] = u[i] * u[i];
    box(sq, s, t, cnt, -behind, ahead);
    for (int64_t i = 0; i < cnt; ++i) s[i] = k + a * s[i];
    negpow.apply(s, out, cnt);
    for (int64_t i = 0; i < cnt; ++i) out[i] *= u[i];
  }

  // Cross-channel backward: from u, dy and y (nullptr: y = u S^-beta) to dx in `out`.
  void backward(const C *u, const C *dy, const C *y, C *out, C *sq, C *s, C *t, C *r, int64_t cnt) const {
    for (int64_t i = 0; i < cnt; ++i) sq[i] = u[i] * u[i];
    box(sq, s, t, cnt, -behind, ahead);
    for (int64_t i = 0; i < cnt; ++i) s[i] = k + a * s[i];
    negpow.apply(s, out, cnt);  // out = S^-beta
    if (y != nullptr)
      for (int64_t i = 0; i < cnt; ++i) r[i] = dy[i] * y[i] / s[i];
    else
      for (int64_t i = 0; i < cnt; ++i) r[i] = dy[i] * u[i] * out[i] / s[i];
    box(r, sq, t, cnt, -ahead, behind);  // sq = transposed window sums of r
    for (int64_t i = 0; i < cnt; ++i) out[i] = dy[i] * out[i] - two_a_beta * u[i] * sq[i];
  }

  // Divisive (graph/op_lrn.hpp): S = k + a (B(x^2) - 2 m B(x) + B(1) m^2)
  // with B the box sum over W, so that sum (x(q) - m(p))^2 needs no per-p
  // window walk. Buffers: w[0..9] scratch of cnt each.
  void div_sums(const C *x, const C *m, C *s, C *bx, C *cn, C *sq, C *t, int64_t cnt) const {
    for (int64_t i = 0; i < cnt; ++i) sq[i] = x[i] * x[i];
    box(sq, s, t, cnt, -behind, ahead);
    box(x, bx, t, cnt, -behind, ahead);
    for (int64_t i = 0; i < cnt; ++i) sq[i] = C(1);
    box(sq, cn, t, cnt, -behind, ahead);
    for (int64_t i = 0; i < cnt; ++i) s[i] = k + a * (s[i] - C(2) * m[i] * bx[i] + cn[i] * m[i] * m[i]);
  }

  void div_forward(const C *x, const C *m, C *out, C *const *w, int64_t cnt) const {
    C *s = w[0], *bx = w[1], *cn = w[2];
    div_sums(x, m, s, bx, cn, w[3], w[4], cnt);
    negpow.apply(s, out, cnt);
    for (int64_t i = 0; i < cnt; ++i) out[i] *= x[i];
  }

  // dx into out, dmeans into dm; cuDNN's window for dx is W itself.
  void div_backward(const C *x, const C *m, const C *dy, C *out, C *dm, C *const *w, int64_t cnt) const {
    C *s = w[0], *bx = w[1], *cn = w[2], *sq = w[3], *t = w[4], *r = w[5], *rm = w[6], *br = w[7], *brm = w[8];
    div_sums(x, m, s, bx, cn, sq, t, cnt);
    negpow.apply(s, out, cnt);  // out = S^-beta
    for (int64_t i = 0; i < cnt; ++i) {
      r[i] = dy[i] * x[i] * out[i] / s[i];
      rm[i] = r[i] * m[i];
    }
    box(r, br, t, cnt, -behind, ahead);
    box(rm, brm, t, cnt, -behind, ahead);
    for (int64_t i = 0; i < cnt; ++i) {
      out[i] = dy[i] * out[i] - two_a_beta * (x[i] * br[i] - brm[i]);
      dm[i] = two_a_beta * r[i] * (bx[i] - cn[i] * m[i]);
    }
  }
};

// The geometry of a plan: which dims a block spans and how blocks are indexed.
struct Geometry {
  int rank = 0;
  // Block dims (row-major inside the block buffer) and their extents.
  std::vector<int> block_dims;
  std::vector<int64_t> block_extent;
  // Cross-channel: the inner dim is cut into pieces of kBlock (-1: none).
  int cut_dim = -1;
  int64_t pieces = 1;
  // Dims outside the block, enumerated row-major.
  std::vector<int> outer_dims;
  int64_t items = 1;  // outer positions x pieces
};

Geometry make_geometry(const graph::LrnOp &op, const graph::Tensor &x) {
  Geometry g;
  g.rank = x.rank();
  if (op.kind == graph::LrnKind::divisive) {
    for (int d = 2; d < g.rank; ++d) g.block_dims.push_back(d);
  } else {
    // The non-channel dim with the smallest stride (extent > 1) runs inside
    // the block unless C has the smallest stride.
    int inner = -1;
    for (int d = 0; d < g.rank; ++d) {
      if (d == 1 || x.dims[d] == 1) continue;
      if (inner < 0 || std::llabs(x.strides[d]) < std::llabs(x.strides[inner])) inner = d;
    }
    g.block_dims.push_back(1);
    if (inner >= 0 && !(x.dims[1] > 1 && std::llabs(x.strides[1]) < std::llabs(x.strides[inner]))) {
      g.block_dims.push_back(inner);
      g.cut_dim = inner;
    }
  }
  for (int d : g.block_dims) g.block_extent.push_back(x.dims[d]);
  if (g.cut_dim >= 0) {
    g.block_extent.back() = std::min<int64_t>(kBlock, x.dims[g.cut_dim]);
    g.pieces = (x.dims[g.cut_dim] + kBlock - 1) / kBlock;
  }
  for (int d = 0; d < g.rank; ++d)
    if (std::find(g.block_dims.begin(), g.block_dims.end(), d) == g.block_dims.end()) {
      g.outer_dims.push_back(d);
      g.items *= x.dims[d];
    }
  g.items *= g.pieces;
  return g;
}

template <class ST, class C>
class Runner {
 public:
  Runner(const graph::Graph &gr, const graph::LrnOp &op, const VariantPack &pack)
      : op_(op), x_(gr.tensor(op.x)), geo_(make_geometry(op, x_)), math_(op, x_.rank()), math_last_(math_) {
    auto operand = [&](graph::Uid u) {
      Operand o;
      if (u == graph::kNoTensor) return o;
      o.data = static_cast<char *>(pack.get(u));
      o.strides = gr.tensor(u).strides;
      return o;
    };
    x = operand(op.x);
    means = operand(op.means);
    y = operand(op.y);
    dy = operand(op.dy);
    dx = operand(op.dx);
    dmeans = operand(op.dmeans);
    // Box passes over the block buffer [e0][e1]...: one per normalized dim.
    const std::vector<int64_t> &e = geo_.block_extent;
    const int nb = static_cast<int>(e.size());
    auto pass_for = [&](int i) {
      int64_t outer = 1, inner = 1;
      for (int j = 0; j < i; ++j) outer *= e[j];
      for (int j = i + 1; j < nb; ++j) inner *= e[j];
      return typename BlockMath<C>::Pass{outer, e[i], inner};
    };
    if (op.kind == graph::LrnKind::cross_channel) math_.passes.push_back(pass_for(0));
    else
      for (int i = 0; i < nb; ++i) math_.passes.push_back(pass_for(i));
    cnt_max_ = 1;
    for (int64_t v : e) cnt_max_ *= v;
    math_last_ = math_;
    if (geo_.cut_dim >= 0) math_last_.passes[0].inner = x_.dims[geo_.cut_dim] - (geo_.pieces - 1) * kBlock;
  }

  void run_items(int64_t begin, int64_t end) const {
    constexpr int kBuffers = 16;
    std::vector<C> buf(static_cast<size_t>(cnt_max_ * kBuffers));
    C *w[kBuffers];
    for (int i = 0; i < kBuffers; ++i) w[i] = buf.data() + i * cnt_max_;
    C *u = w[10], *mv = w[11], *dyv = w[12], *out = w[13], *dm = w[14];
    const C alpha = static_cast<C>(op_.blend.alpha), beta = static_cast<C>(op_.blend.beta);
    const bool divisive = op_.kind == graph::LrnKind::divisive;
    for (int64_t item = begin; item < end; ++item) {
      // Decode the outer position and the piece.
      int64_t rest = item / geo_.pieces;
      const int64_t piece = item % geo_.pieces;
      std::vector<int64_t> pos(geo_.rank, 0);
      for (int i = static_cast<int>(geo_.outer_dims.size()) - 1; i >= 0; --i) {
        const int d = geo_.outer_dims[i];
        pos[d] = rest % x_.dims[d];
        rest /= x_.dims[d];
      }
      int64_t cols = 1;
      if (geo_.cut_dim >= 0) {
        pos[geo_.cut_dim] = piece * kBlock;
        cols = std::min<int64_t>(kBlock, x_.dims[geo_.cut_dim] - pos[geo_.cut_dim]);
      }
      const int64_t cnt = block_count(cols);
      auto load = [&](const Operand &o, C *dst) { move<true>(o, pos, cols, dst, C(1), C(0)); };
      load(x, u);
      if (op_.backward) load(dy, dyv);
      if (divisive) {
        if (means.data != nullptr) load(means, mv);
        else std::fill(mv, mv + cnt, C(0));
        if (!op_.backward) {
          math_.div_forward(u, mv, out, w, cnt);
          store(y, pos, cols, out, alpha, beta);
          continue;
        }
        math_.div_backward(u, mv, dyv, out, dm, w, cnt);
        store(dx, pos, cols, out, alpha, beta);
        if (dmeans.data != nullptr) store(dmeans, pos, cols, dm, alpha, beta);
        continue;
      }
      // A narrower last piece has its own row width.
      const BlockMath<C> &m = geo_.cut_dim >= 0 && cols != geo_.block_extent.back() ? math_last_ : math_;
      if (!op_.backward) {
        m.forward(u, out, w[0], w[1], w[2], cnt);
        store(y, pos, cols, out, alpha, beta);
        continue;
      }
      // cuDNN recomputes y from x rather than reading the y it is given.
      m.backward(u, dyv, nullptr, out, w[0], w[1], w[2], w[3], cnt);
      store(dx, pos, cols, out, alpha, beta);
    }
  }

  int64_t items() const { return geo_.items; }
  int64_t work_per_item() const { return cnt_max_; }

 private:
  int64_t block_count(int64_t cols) const {
    int64_t c = 1;
    for (size_t i = 0; i + 1 < geo_.block_extent.size(); ++i) c *= geo_.block_extent[i];
    return c * (geo_.cut_dim >= 0 ? cols : geo_.block_extent.back());
  }


  // Moves a block between the operand and a buffer laid out row-major over
  // the block dims (the cut dim holding `cols`).
  template <bool kLoad>
  void move(const Operand &o, const std::vector<int64_t> &pos, int64_t cols, C *buf, C alpha, C beta) const {
    int64_t base = 0;
    for (int d = 0; d < geo_.rank; ++d) base += pos[d] * o.strides[d];
    const int nb = static_cast<int>(geo_.block_dims.size());
    const int last = geo_.block_dims[nb - 1];
    const int64_t w = geo_.cut_dim >= 0 ? cols : geo_.block_extent[nb - 1];
    // Rows: every index of the block dims but the last, row-major.
    int64_t rows = 1;
    for (int i = 0; i + 1 < nb; ++i) rows *= geo_.block_extent[i];
    if (nb == 1) {
      // A single block dim: one row of w elements.
      if constexpr (kLoad) gather<ST, C>(o.data, base, 1, 0, w, o.strides[last], buf);
      else scatter<ST, C>(o.data, base, 1, 0, w, o.strides[last], buf, alpha, beta);
      return;
    }
    if (nb == 2) {
      const int first = geo_.block_dims[0];
      if constexpr (kLoad) gather<ST, C>(o.data, base, rows, o.strides[first], w, o.strides[last], buf);
      else scatter<ST, C>(o.data, base, rows, o.strides[first], w, o.strides[last], buf, alpha, beta);
      return;
    }
    for (int64_t r = 0; r < rows; ++r) {
      int64_t rest = r, off = base;
      for (int i = nb - 2; i >= 0; --i) {
        const int d = geo_.block_dims[i];
        off += (rest % geo_.block_extent[i]) * o.strides[d];
        rest /= geo_.block_extent[i];
      }
      if constexpr (kLoad) gather<ST, C>(o.data, off, 1, 0, w, o.strides[last], buf + r * w);
      else scatter<ST, C>(o.data, off, 1, 0, w, o.strides[last], buf + r * w, alpha, beta);
    }
  }

  void store(const Operand &o, const std::vector<int64_t> &pos, int64_t cols, const C *v, C alpha, C beta) const {
    move<false>(o, pos, cols, const_cast<C *>(v), alpha, beta);
  }

  const graph::LrnOp &op_;
  const graph::Tensor &x_;
  Geometry geo_;
  BlockMath<C> math_, math_last_;
  int64_t cnt_max_ = 1;
  Operand x, means, y, dy, dx, dmeans;
};

template <class ST, class C>
void run(const ExecContext &ctx, const graph::Graph &g, const graph::LrnOp &op, const VariantPack &pack) {
  const Runner<ST, C> runner(g, op, pack);
  const int64_t items = runner.items();
  auto body = [&](int64_t b, int64_t e) { runner.run_items(b, e); };
  if (ctx.pool != nullptr && items > 1 && items * runner.work_per_item() >= 16384)
    ctx.pool->parallel_for(items, body, std::min<int64_t>(items, ctx.pool->size() * 4));
  else body(0, items);
}

class Plan final : public ExecutionPlan {
 public:
  using ExecutionPlan::ExecutionPlan;
  void execute(const ExecContext &ctx, const graph::Graph &g, const VariantPack &pack) const override {
    const auto &op = std::get<graph::LrnOp>(g.ops().front());
    if (lrn_fast::run_rows_avx512(ctx, g, op, pack)) return;
    if (lrn_fast::run_planes_forward(ctx, g, op, pack)) return;
    if (lrn_fast::run_cross_channel(ctx, g, op, pack)) return;
    switch (g.tensor(op.x).dtype) {
      case CUDNN_DATA_FLOAT: run<Storage<CUDNN_DATA_FLOAT>, float>(ctx, g, op, pack); break;
      case CUDNN_DATA_DOUBLE: run<Storage<CUDNN_DATA_DOUBLE>, double>(ctx, g, op, pack); break;
      case CUDNN_DATA_HALF: run<Storage<CUDNN_DATA_HALF>, float>(ctx, g, op, pack); break;
      case CUDNN_DATA_BFLOAT16: run<Storage<CUDNN_DATA_BFLOAT16>, float>(ctx, g, op, pack); break;
      default: fail(CUDNN_STATUS_NOT_SUPPORTED, "cpu.lrn: unsupported data type");
    }
  }
};

class CpuLrnEngine final : public Engine {
 public:
  const char *name() const override { return "cpu.lrn"; }
  DeviceKind device() const override { return DeviceKind::cpu; }
  int priority() const override { return 10; }
  Support supports(const graph::Graph &g) const override {
    if (Support s = check_single_lrn(g); !s) return s;
    const auto &op = std::get<graph::LrnOp>(g.ops().front());
    const cudnnDataType_t t = g.tensor(op.x).dtype;
    if (t != CUDNN_DATA_FLOAT && t != CUDNN_DATA_DOUBLE && t != CUDNN_DATA_HALF && t != CUDNN_DATA_BFLOAT16)
      return Support::no("cpu.lrn handles FLOAT, DOUBLE, HALF and BFLOAT16");
    for (const graph::Tensor &tt : g.tensors())
      if (tt.dtype != t) return Support::no("cpu.lrn needs every tensor of one type");
    if (lrn_computes_in_double(g, op) != (t == CUDNN_DATA_DOUBLE))
      return Support::no("cpu.lrn computes DOUBLE data in double and the rest in float");
    return Support::yes();
  }
  std::unique_ptr<ExecutionPlan> make_plan(const graph::Graph &, const std::vector<KnobChoice> &) const override {
    return std::make_unique<Plan>(*this);
  }
};

}  // namespace
}  // namespace fdnn::cpu

using fdnn::cpu::CpuLrnEngine;
FDNN_REGISTER_ENGINE(CpuLrnEngine)
