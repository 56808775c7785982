// The matcher behind match_sdpa (core/sdpa_pattern.hpp), in a header so
// that the backward matcher (core/sdpa_bwd_pattern.cpp) reuses its score
// chain and side-expression machinery. Internal to those two files.
#pragma once

#include <map>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "core/error.hpp"
#include "core/pointwise_math.hpp"
#include "core/sdpa_pattern.hpp"
#include "graph/op_io.hpp"

namespace fdnn::sdpa_match {

inline bool is_io_float_type(cudnnDataType_t t) {
  return t == CUDNN_DATA_FLOAT || t == CUDNN_DATA_HALF || t == CUDNN_DATA_BFLOAT16;
}

inline bool is_fp8_type(cudnnDataType_t t) { return t == CUDNN_DATA_FP8_E4M3 || t == CUDNN_DATA_FP8_E5M2; }

// The forward's Q, K, V and O types (FP8 graphs too).
inline bool is_fwd_io_type(cudnnDataType_t t) { return is_io_float_type(t) || is_fp8_type(t); }

inline bool side_mode_ok(cudnnPointwiseMode_t m) {
  switch (m) {
    case CUDNN_POINTWISE_ADD:
    case CUDNN_POINTWISE_SUB:
    case CUDNN_POINTWISE_MUL:
    case CUDNN_POINTWISE_DIV:
    case CUDNN_POINTWISE_MAX:
    case CUDNN_POINTWISE_MIN:
    case CUDNN_POINTWISE_CMP_EQ:
    case CUDNN_POINTWISE_CMP_NEQ:
    case CUDNN_POINTWISE_CMP_GT:
    case CUDNN_POINTWISE_CMP_GE:
    case CUDNN_POINTWISE_CMP_LT:
    case CUDNN_POINTWISE_CMP_LE:
    case CUDNN_POINTWISE_LOGICAL_AND:
    case CUDNN_POINTWISE_LOGICAL_OR:
    case CUDNN_POINTWISE_LOGICAL_NOT:
    case CUDNN_POINTWISE_NEG:
    case CUDNN_POINTWISE_ABS:
    case CUDNN_POINTWISE_IDENTITY: return true;
    default: return false;
  }
}

inline bool step_mode_ok(cudnnPointwiseMode_t m) {
  switch (m) {
    case CUDNN_POINTWISE_ADD:
    case CUDNN_POINTWISE_SUB:
    case CUDNN_POINTWISE_MUL:
    case CUDNN_POINTWISE_DIV:
    case CUDNN_POINTWISE_MAX:
    case CUDNN_POINTWISE_MIN:
    case CUDNN_POINTWISE_BINARY_SELECT:
    case CUDNN_POINTWISE_TANH_FWD:
    case CUDNN_POINTWISE_IDENTITY: return true;
    default: return false;
  }
}

struct NoMatch {
  std::string why;
};

template <class... Args>
[[noreturn]] void no(const Args &...args) {
  throw NoMatch{cat(args...)};
}

class Matcher {
 public:
  explicit Matcher(const graph::Graph &g) : g_(g) {
    for (size_t i = 0; i < g.ops().size(); ++i) {
      const graph::OpIo io = graph::op_io(g.ops()[i]);
      for (graph::Uid u : io.inputs) {
        consumers_[u].push_back(i);
        // An op reading a view of a virtual tensor (a RESHAPE of it, e.g.
        // cudnn-frontend's P^T) consumes that tensor: the pattern decides
        // whether it reads the view as the tensor transposed.
        const graph::Tensor *t = g.find_tensor(u);
        if (t && t->is_view()) {
          const graph::Tensor *of = g.find_tensor(t->view_of);
          if (of && of->is_virtual) consumers_[t->view_of].push_back(i);
        }
      }
      for (graph::Uid u : io.outputs) producer_[u] = i;
    }
  }

  void run(SdpaPattern &p) {
    // The two matmuls: the first reads caller tensors only.
    const graph::MatmulOp *mm1 = nullptr, *mm2 = nullptr;
    size_t mm1_index = 0, mm2_index = 0;
    for (size_t i = 0; i < g_.ops().size(); ++i) {
      const auto *m = std::get_if<graph::MatmulOp>(&g_.ops()[i]);
      if (m == nullptr) continue;
      if (!T(m->a).is_virtual && (!T(m->b).is_virtual || paged_producer(m->b) != SdpaPattern::kNoOp)) {
        if (mm1) no("more than one matmul reads caller tensors only");
        mm1 = m, mm1_index = i;
      } else {
        if (mm2) no("more than two matmuls");
        mm2 = m, mm2_index = i;
      }
    }
    if (!mm1 || !mm2) no("an attention graph has two matmuls, Q K^T and P V");
    use(mm1_index);
    use(mm2_index);
    p.k_paged = paged_load(mm1->b, "K^T");
    p.v_paged = paged_load(mm2->b, "V");
    check_matmul(*mm1, "Q K^T");
    check_matmul(*mm2, "P V");
    const graph::Tensor &q = T(mm1->a), &kt = T(mm1->b), &s0 = T(mm1->c);
    const int r = s0.rank();
    if (r < 2 || q.rank() != r || kt.rank() != r) no("Q, K^T and the scores need one rank");
    if (!s0.is_virtual || s0.dtype != CUDNN_DATA_FLOAT) no("the scores Q K^T must be a virtual float tensor");
    p.rank = r;
    p.q = mm1->a, p.kt = mm1->b;
    p.s_q = s0.dims[r - 2], p.s_kv = s0.dims[r - 1], p.d = q.dims[r - 1];
    if (q.dims[r - 2] != p.s_q || kt.dims[r - 2] != p.d || kt.dims[r - 1] != p.s_kv) no("Q K^T shapes do not multiply");
    p.batch_dims.assign(s0.dims.begin(), s0.dims.end() - 2);
    score_dims_ = s0.dims;
    for (int i = 0; i < r - 2; ++i) {
      if (q.dims[i] != s0.dims[i]) no("Q's batch dimension ", i, " differs from the scores'");
      if (!divides(kt.dims[i], s0.dims[i])) no("K's batch dimension ", i, " neither matches Q's nor divides it");
    }
    if (!is_fwd_io_type(q.dtype) || !is_fwd_io_type(kt.dtype)) no("Q and K must be float, half, bfloat16 or FP8");

    // The score chain.
    graph::Uid cur = mm1->c;
    chain_.insert(cur);
    for (;;) {
      std::vector<size_t> cs = data_consumers(cur);
      if (cs.size() == 1) {
        const auto *pw = std::get_if<graph::PointwiseOp>(&g_.ops()[cs[0]]);
        if (pw == nullptr) no("the scores feed a ", graph::op_kind_name(g_.ops()[cs[0]]), " operation");
        use(cs[0]);
        p.steps.push_back(step(*pw, cur));
        cur = pw->y;
        chain_.insert(cur);
        continue;
      }
      if (cs.size() == 2) break;
      no("the scores feed ", cs.size(), " operations (expected one score step, or the softmax's MAX and SUB)");
    }
    classify(p);

    // Softmax: MAX, SUB, EXP, ADD, DIV (and LOG + ADD for the stats).
    const std::vector<size_t> cs = data_consumers(cur);
    const graph::ReductionOp *max_op = nullptr;
    const graph::PointwiseOp *sub_op = nullptr;
    for (size_t i : cs) {
      if (const auto *red = std::get_if<graph::ReductionOp>(&g_.ops()[i])) max_op = red, use(i);
      if (const auto *pw = std::get_if<graph::PointwiseOp>(&g_.ops()[i])) sub_op = pw, use(i);
    }
    if (!max_op || max_op->mode != CUDNN_REDUCE_TENSOR_MAX) no("the softmax starts with a MAX reduction of the scores");
    const graph::Uid m = max_op->y;
    check_row_tensor(m, "the row maximum");
    check_plain_reduction(*max_op);
    if (!sub_op || sub_op->mode != CUDNN_POINTWISE_SUB || sub_op->x != cur || sub_op->b != m)
      no("the softmax subtracts the row maximum from the scores");
    check_plain(*sub_op);
    const graph::PointwiseOp &exp_op = only_pointwise(sub_op->y, CUDNN_POINTWISE_EXP, "EXP of the centred scores");
    const graph::Uid e = exp_op.y;
    check_score_tensor(sub_op->y);
    check_score_tensor(e);
    const std::vector<size_t> ec = data_consumers(e);
    const graph::ReductionOp *sum_op = nullptr;
    const graph::PointwiseOp *div_op = nullptr;
    for (size_t i : ec) {
      if (const auto *red = std::get_if<graph::ReductionOp>(&g_.ops()[i])) sum_op = red, use(i);
      if (const auto *pw = std::get_if<graph::PointwiseOp>(&g_.ops()[i])) div_op = pw, use(i);
    }
    if (ec.size() != 2 || !sum_op || sum_op->mode != CUDNN_REDUCE_TENSOR_ADD) no("the softmax sums the exponentials");
    check_plain_reduction(*sum_op);
    const graph::Uid l = sum_op->y;
    check_row_tensor(l, "the row sum");
    if (!div_op || div_op->mode != CUDNN_POINTWISE_DIV || div_op->x != e || div_op->b != l)
      no("the softmax divides the exponentials by their sum");
    check_plain(*div_op);
    check_score_tensor(div_op->y);
    // Stats: ADD(m, LOG(l)) into a caller tensor.
    const std::vector<size_t> mc = data_consumers(m), lc = data_consumers(l);
    if (lc.size() == 2 || mc.size() == 2) {
      const graph::PointwiseOp *log_op = nullptr;
      for (size_t i : lc)
        if (const auto *pw = std::get_if<graph::PointwiseOp>(&g_.ops()[i]); pw && pw != div_op) log_op = pw, use(i);
      if (!log_op || log_op->mode != CUDNN_POINTWISE_LOG || lc.size() != 2) no("softmax stats need LOG of the row sum");
      check_plain(*log_op);
      check_row_tensor(log_op->y, "the log of the row sum");
      const graph::PointwiseOp &add = only_pointwise(log_op->y, CUDNN_POINTWISE_ADD, "stats = max + log(sum)", true);
      if (mc.size() != 2 || !((add.x == m && add.b == log_op->y) || (add.b == m && add.x == log_op->y)))
        no("softmax stats are the row maximum plus the log of the row sum");
      check_plain(add);
      const graph::Tensor &st = T(add.y);
      if (st.is_virtual || st.dtype != CUDNN_DATA_FLOAT || st.dims != row_dims())
        no("the stats output must be a caller float tensor of the scores' dims with a last extent of 1");
      if (!data_consumers(add.y).empty()) no("the stats output feeds further operations");
      p.stats = add.y;
    } else if (lc.size() != 1 || mc.size() != 1) {
      no("the softmax's row maximum or sum feeds other operations");
    }
    // [Dropout] P V.
    const std::vector<size_t> pc = data_consumers(div_op->y);
    graph::Uid p_final;
    if (pc.size() == 2) {
      p_final = fp8_weights(div_op->y, pc, p);
    } else {
      if (pc.size() != 1) no("the softmax output feeds other operations");
      p_final = dropout_chain(div_op->y, pc[0], p);
      // FP8 with dropout: the dropped P feeds the AMAX and the FP8 scale.
      const std::vector<size_t> dc = p_final != div_op->y ? data_consumers(p_final) : std::vector<size_t>{};
      if (dc.size() == 2) p_final = fp8_weights(p_final, dc, p);
    }
    p.nodes = nodes;
    if (mm2->a != p_final) no("the second matmul does not read the softmax output");
    const graph::Uid o_uid = T(mm2->c).is_virtual ? output_tail(mm2->c, p) : mm2->c;
    const graph::Tensor &v = T(mm2->b), &o = T(o_uid);
    if ((v.is_virtual && p.v_paged == SdpaPattern::kNoOp) || o.is_virtual)
      no("V and O must be caller tensors (or V a paged cache load)");
    if (v.rank() != r || o.rank() != r) no("V and O need the scores' rank");
    p.v = mm2->b, p.o = o_uid;
    p.d_v = v.dims[r - 1];
    if (v.dims[r - 2] != p.s_kv || o.dims[r - 2] != p.s_q || o.dims[r - 1] != p.d_v) no("P V shapes do not multiply");
    for (int i = 0; i < r - 2; ++i) {
      if (o.dims[i] != s0.dims[i]) no("O's batch dimension ", i, " differs from the scores'");
      if (!divides(v.dims[i], s0.dims[i])) no("V's batch dimension ", i, " neither matches Q's nor divides it");
    }
    if (!is_fwd_io_type(v.dtype) || !is_fwd_io_type(o.dtype)) no("V and O must be float, half, bfloat16 or FP8");
    if (!data_consumers(p.o).empty()) no("O feeds further operations");
    p.nodes = nodes;
    for (size_t i = 0; i < g_.ops().size(); ++i)
      if (!used_.count(i)) no("operation ", i, " (", graph::op_kind_name(g_.ops()[i]), ") is not part of the pattern");
  }

  std::vector<SdpaSideNode> nodes;

 protected:
  // Dropout as cudnn-frontend forms it, starting at op `first` (a consumer
  // of P): MUL(P, y of a BERNOULLI RngOp) [-> MUL(., scalar)]. Returns the
  // uid that carries the dropped P (P itself when op `first` is no such MUL).
  graph::Uid dropout_chain(graph::Uid u, size_t first, SdpaPattern &p) {
    const auto *mul = std::get_if<graph::PointwiseOp>(&g_.ops()[first]);
    if (!mul || mul->mode != CUDNN_POINTWISE_MUL) return u;
    const size_t rng = rng_producer(mul->x == u ? mul->b : mul->x);
    if (rng == SdpaPattern::kNoRng) return u;
    if (p.rng_op != SdpaPattern::kNoRng && p.rng_op != rng) no("two dropout masks");
    p.rng_op = rng;
    use(first);
    check_plain(*mul);
    check_score_tensor(mul->y);
    graph::Uid out = mul->y;
    const std::vector<size_t> cs = data_consumers(out);
    const auto *sc = cs.size() == 1 ? std::get_if<graph::PointwiseOp>(&g_.ops()[cs[0]]) : nullptr;
    if (sc && sc->mode == CUDNN_POINTWISE_MUL) {
      const graph::Uid other = sc->x == out ? sc->b : sc->x;
      if (is_caller_scalar(other)) {
        use(cs[0]);
        check_plain(*sc);
        check_score_tensor(sc->y);
        p.dropout_scale = side(other);
        out = sc->y;
      }
    }
    return out;
  }

  // An AMAX reduction of u into a caller float scalar, or null.
  const graph::ReductionOp *amax_of(size_t i, graph::Uid u) const {
    const auto *red = std::get_if<graph::ReductionOp>(&g_.ops()[i]);
    if (!red || red->mode != CUDNN_REDUCE_TENSOR_AMAX || red->x != u) return nullptr;
    check_plain_reduction(*red);
    const graph::Tensor &y = T(red->y);
    bool one = !y.by_value;
    for (int64_t d : y.dims) one = one && d == 1;
    if (y.is_virtual || y.dtype != CUDNN_DATA_FLOAT || !one)
      no("an amax output must be a caller float tensor of one element");
    if (!data_consumers(red->y).empty()) no("an amax output feeds further operations");
    return red;
  }

  // The FP8 weights of cudnn-frontend's sdpa_fp8: P feeds AMAX (amax_s)
  // and MUL by a caller scalar (scale_s) into a virtual FP8 tensor, the
  // second matmul's A. Returns that tensor.
  graph::Uid fp8_weights(graph::Uid u, const std::vector<size_t> &cs, SdpaPattern &p) {
    const graph::ReductionOp *amax = nullptr;
    const graph::PointwiseOp *mul = nullptr;
    for (size_t i : cs) {
      if (const graph::ReductionOp *a = amax_of(i, u)) amax = a, use(i);
      const auto *pw = std::get_if<graph::PointwiseOp>(&g_.ops()[i]);
      if (pw && pw->mode == CUDNN_POINTWISE_MUL) mul = pw, use(i);
    }
    if (!amax || !mul) no("the softmax output feeds two operations that are not FP8's AMAX and scale");
    check_plain(*mul);
    const graph::Uid other = mul->x == u ? mul->b : mul->x;
    if (!is_caller_scalar(other)) no("P's FP8 scale must be a caller scalar");
    const graph::Tensor &y = T(mul->y);
    if (!y.is_virtual || !is_fp8_type(y.dtype) || y.dims != score_dims_)
      no("the scaled P must be a virtual FP8 tensor of the scores' dims");
    if (data_consumers(mul->y).size() != 1) no("the FP8 P feeds other operations");
    p.amax_s = amax->y;
    p.p_scale = side(other);
    p.p_type = y.dtype;
    return mul->y;
  }

  // The virtual float output u of P V through MULs by caller scalars (an
  // AMAX tap on the way) to the caller O. Returns O's uid.
  graph::Uid output_tail(graph::Uid u, SdpaPattern &p) { return scaled_tail(u, p.o_scales, p.amax_o, p.o_amax_at); }

  // A virtual float product u through MULs by caller scalars (their side
  // nodes into scales) to a caller tensor, with at most one AMAX tap (amax,
  // taken after amax_at scales). Returns the caller tensor's uid.
  graph::Uid scaled_tail(graph::Uid u, std::vector<int> &scales, graph::Uid &amax_uid, size_t &amax_at) {
    const std::vector<int64_t> dims = T(u).dims;
    while (T(u).is_virtual) {
      if (T(u).dtype != CUDNN_DATA_FLOAT || T(u).dims != dims) no("the output of P V must stay float of O's dims");
      const std::vector<size_t> cs = data_consumers(u);
      const graph::PointwiseOp *mul = nullptr;
      size_t amaxes = 0;
      for (size_t i : cs) {
        if (amax_of(i, u)) {
          if (amax_uid != graph::kNoTensor) no("two amax outputs of one product");
          amax_uid = std::get<graph::ReductionOp>(g_.ops()[i]).y;
          amax_at = scales.size();
          ++amaxes;
          use(i);
          continue;
        }
        const auto *pw = std::get_if<graph::PointwiseOp>(&g_.ops()[i]);
        if (pw && pw->mode == CUDNN_POINTWISE_MUL) mul = pw, use(i);
      }
      if (!mul || cs.size() != 1 + amaxes) no("a product feeds operations other than scales and an amax");
      check_plain(*mul);
      const graph::Uid other = mul->x == u ? mul->b : mul->x;
      if (!is_caller_scalar(other)) no("a product is multiplied by something other than a caller scalar");
      scales.push_back(side(other));
      u = mul->y;
    }
    return u;
  }

  // The index of the PagedCacheLoadOp whose output u is, or kNoOp.
  size_t paged_producer(graph::Uid u) const {
    auto it = producer_.find(u);
    if (it == producer_.end() || !std::holds_alternative<graph::PagedCacheLoadOp>(g_.ops()[it->second]))
      return SdpaPattern::kNoOp;
    return it->second;
  }

  // Operand u of a matmul: kNoOp for a caller tensor; for the virtual y of
  // a paged cache load (K^T or V gathered from pages) the op's index, marked
  // used. Its container, page table and seq_len are caller tensors.
  size_t paged_load(graph::Uid u, const char *what) {
    if (!T(u).is_virtual) return SdpaPattern::kNoOp;
    const size_t i = paged_producer(u);
    if (i == SdpaPattern::kNoOp) no(what, " is virtual and not the output of a paged cache load");
    const auto &op = std::get<graph::PagedCacheLoadOp>(g_.ops()[i]);
    for (graph::Uid in : {op.container, op.page_table, op.seq_len})
      if (T(in).is_virtual || T(in).by_value) no("the paged cache load of ", what, " reads a virtual or by-value tensor");
    if (T(u).rank() != 4) no("a paged ", what, " must have rank 4");
    if (data_consumers(u).size() != 1) no("the paged ", what, " feeds other operations");
    use(i);
    return i;
  }

  // The index of the BERNOULLI RngOp whose virtual output of the scores'
  // dims u is (marked used), or kNoRng when u is not one.
  size_t rng_producer(graph::Uid u) {
    auto it = producer_.find(u);
    if (it == producer_.end()) return SdpaPattern::kNoRng;
    const auto *rng = std::get_if<graph::RngOp>(&g_.ops()[it->second]);
    if (rng == nullptr) return SdpaPattern::kNoRng;
    if (rng->distribution != CUDNN_RNG_DISTRIBUTION_BERNOULLI) no("a dropout mask needs a BERNOULLI RNG");
    const graph::Tensor &m = T(u);
    if (!m.is_virtual || m.dims != score_dims_) no("the dropout mask must be virtual with the scores' dims");
    use(it->second);
    return it->second;
  }

  // A by-value scalar or a caller tensor of one element.
  bool is_caller_scalar(graph::Uid u) const {
    if (producer_.count(u)) return false;
    const graph::Tensor &t = T(u);
    if (t.by_value) return true;
    for (int64_t d : t.dims)
      if (d != 1) return false;
    return true;
  }

  const graph::Tensor &T(graph::Uid u) const { return g_.tensor(u); }

  // Whether v is a view of x that reads it transposed (its last two dims
  // and strides swapped): cudnn-frontend's RESHAPE of a virtual P or dS.
  bool transposed_view_of(graph::Uid v, graph::Uid x) const {
    const graph::Tensor &t = T(v), &o = T(x);
    if (!t.is_view() || t.view_of != x || t.rank() != o.rank() || t.rank() < 2) return false;
    std::vector<int64_t> dims = o.dims, strides = o.strides;
    std::swap(dims[dims.size() - 1], dims[dims.size() - 2]);
    std::swap(strides[strides.size() - 1], strides[strides.size() - 2]);
    if (t.dims != dims) return false;
    for (size_t i = 0; i < dims.size(); ++i)
      if (dims[i] != 1 && t.strides[i] != strides[i]) return false;
    return true;
  }
  static bool divides(int64_t part, int64_t whole) { return part == whole || (part >= 1 && whole % part == 0); }
  void use(size_t i) { used_.insert(i); }

  std::vector<int64_t> row_dims() const {
    std::vector<int64_t> d = score_dims_;
    d.back() = 1;
    return d;
  }

  // Consumers that read u as data (GEN_INDEX only takes its shape).
  std::vector<size_t> data_consumers(graph::Uid u) const {
    std::vector<size_t> out;
    auto it = consumers_.find(u);
    if (it == consumers_.end()) return out;
    for (size_t i : it->second) {
      const auto *pw = std::get_if<graph::PointwiseOp>(&g_.ops()[i]);
      if (pw && pw->mode == CUDNN_POINTWISE_GEN_INDEX) continue;
      out.push_back(i);
    }
    return out;
  }

  // The single consumer of u: a pointwise op of `mode` reading u as x (or as
  // either operand when `either`).
  const graph::PointwiseOp &only_pointwise(graph::Uid u, cudnnPointwiseMode_t mode, const char *what,
                                           bool either = false) {
    const std::vector<size_t> cs = data_consumers(u);
    const graph::PointwiseOp *pw = cs.size() == 1 ? std::get_if<graph::PointwiseOp>(&g_.ops()[cs[0]]) : nullptr;
    if (!pw || pw->mode != mode || !(pw->x == u || (either && pw->b == u))) no("expected ", what);
    use(cs[0]);
    return *pw;
  }

  void check_matmul(const graph::MatmulOp &m, const char *what) const {
    if (m.compute_type != CUDNN_DATA_FLOAT) no("the ", what, " matmul must compute in float");
    if (m.blend.alpha != 1.0 || m.blend.beta != 0.0) no("the ", what, " matmul blends its output");
  }
  static void check_plain(const graph::PointwiseOp &op) {
    if (op.alpha1 != 1.0 || op.alpha2 != 1.0 || op.blend.alpha != 1.0 || op.blend.beta != 0.0)
      no("softmax operations with alpha or beta scaling");
  }
  static void check_plain_reduction(const graph::ReductionOp &op) {
    if (op.blend.alpha != 1.0 || op.blend.beta != 0.0 || op.indices != graph::kNoTensor)
      no("softmax reductions with scaling or indices");
  }
  void check_score_tensor(graph::Uid u) const {
    const graph::Tensor &t = T(u);
    if (!t.is_virtual || t.dtype != CUDNN_DATA_FLOAT || t.dims != score_dims_)
      no("tensor ", u, " between the matmuls must be virtual float with the scores' dims");
  }
  void check_row_tensor(graph::Uid u, const char *what) const {
    const graph::Tensor &t = T(u);
    if (!t.is_virtual || t.dtype != CUDNN_DATA_FLOAT || t.dims != row_dims())
      no(what, " must be a virtual float tensor of the scores' dims with a last extent of 1");
  }

  SdpaScoreStep step(const graph::PointwiseOp &pw, graph::Uid cur) {
    if (!step_mode_ok(pw.mode)) no("pointwise mode ", static_cast<int>(pw.mode), " on the scores is not supported");
    if (pw.blend.alpha != 1.0 || pw.blend.beta != 0.0) no("score operations with output blending");
    check_score_tensor(pw.y);
    SdpaScoreStep s;
    s.mode = pw.mode;
    s.y = pw.y;
    const int arity = pw::arity(pw.mode);
    if (pw.t == cur) no("the scores are used as a select condition");
    if (pw.x == cur) {
      s.score_is_x = true;
      s.alpha_score = pw.alpha1, s.alpha_side = pw.alpha2;
      if (arity >= 2) s.side = side(pw.b);
      if (pw.b == cur) no("an operation reads the scores twice");
    } else {
      if (arity < 2 || pw.b != cur) no("a score operation does not read the scores");
      s.score_is_x = false;
      s.alpha_score = pw.alpha2, s.alpha_side = pw.alpha1;
      s.side = side(pw.x);
    }
    if (arity == 3) s.cond = side(pw.t);
    return s;
  }

  // The node of a side expression rooted at u (memoised).
  int side(graph::Uid u) {
    auto it = node_of_.find(u);
    if (it != node_of_.end()) return it->second;
    if (chain_.count(u)) no("a side expression reads the scores");
    const graph::Tensor &t = T(u);
    if (!t.by_value) {
      if (t.rank() != static_cast<int>(score_dims_.size())) no("tensor ", u, " does not have the scores' rank");
      for (size_t i = 0; i < score_dims_.size(); ++i)
        if (t.dims[i] != 1 && t.dims[i] != score_dims_[i]) no("tensor ", u, " does not broadcast to the scores");
    }
    SdpaSideNode n;
    n.uid = u;
    n.dtype = t.dtype;
    auto pit = producer_.find(u);
    if (pit == producer_.end()) {
      if (t.is_virtual) no("virtual tensor ", u, " has no producer");
      n.kind = t.by_value ? SdpaSideNode::Kind::constant : SdpaSideNode::Kind::tensor;
    } else {
      if (!t.is_virtual) no("tensor ", u, " is written inside the pattern but is not virtual");
      if (t.dtype != CUDNN_DATA_FLOAT && t.dtype != CUDNN_DATA_INT32 && t.dtype != CUDNN_DATA_BOOLEAN)
        no("mask and bias intermediates must be float, int32 or boolean");
      const auto *pw = std::get_if<graph::PointwiseOp>(&g_.ops()[pit->second]);
      if (pw == nullptr) no("tensor ", u, " comes from a ", graph::op_kind_name(g_.ops()[pit->second]), " operation");
      if (pw->blend.alpha != 1.0 || pw->blend.beta != 0.0) no("mask operations with output blending");
      use(pit->second);
      const int r = static_cast<int>(score_dims_.size());
      if (pw->mode == CUDNN_POINTWISE_GEN_INDEX) {
        if (pw->axis == r - 2) n.kind = SdpaSideNode::Kind::row;
        else if (pw->axis == r - 1) n.kind = SdpaSideNode::Kind::col;
        else no("GEN_INDEX along axis ", pw->axis, " (only the score's rows and columns)");
        if (t.dims[static_cast<size_t>(pw->axis)] == 1) n.kind = SdpaSideNode::Kind::constant, n.uid = graph::kNoTensor;
      } else {
        if (!side_mode_ok(pw->mode)) no("pointwise mode ", static_cast<int>(pw->mode), " in a mask or bias");
        const int arity = pw::arity(pw->mode);
        n.mode = pw->mode;
        n.alpha1 = pw->alpha1, n.alpha2 = pw->alpha2;
        n.a = side(pw->x);
        if (arity == 2) n.b = side(pw->b);
        n.kind = arity == 2 ? SdpaSideNode::Kind::binary : SdpaSideNode::Kind::unary;
      }
    }
    nodes.push_back(n);
    const int index = static_cast<int>(nodes.size()) - 1;
    node_of_[u] = index;
    return index;
  }

  // What kinds of nodes a side expression contains.
  struct Contents {
    bool row = false, col = false, tensor = false, constant = false, boolean = false;
  };
  Contents contents(int n) const {
    Contents c;
    if (n < 0) return c;
    const SdpaSideNode &s = nodes[static_cast<size_t>(n)];
    c.boolean = s.dtype == CUDNN_DATA_BOOLEAN;
    switch (s.kind) {
      case SdpaSideNode::Kind::row: c.row = true; break;
      case SdpaSideNode::Kind::col: c.col = true; break;
      case SdpaSideNode::Kind::tensor: c.tensor = true; break;
      case SdpaSideNode::Kind::constant: c.constant = true; break;
      default: {
        const Contents a = contents(s.a), b = contents(s.b);
        c.row = a.row || b.row, c.col = a.col || b.col, c.tensor = a.tensor || b.tensor;
        c.constant = a.constant || b.constant;
      }
    }
    return c;
  }

  void classify(SdpaPattern &p) const {
    p.nodes = nodes;
    p.first_trailing_select = p.steps.size();
    while (p.first_trailing_select > 0) {
      const SdpaScoreStep &s = p.steps[p.first_trailing_select - 1];
      if (s.mode != CUDNN_POINTWISE_BINARY_SELECT || nodes[static_cast<size_t>(s.side)].kind != SdpaSideNode::Kind::constant)
        break;
      --p.first_trailing_select;
    }
    for (const SdpaScoreStep &s : p.steps) {
      const Contents side = contents(s.side);
      if (s.mode == CUDNN_POINTWISE_MUL && !side.row && !side.col) p.features.scale = true;
      if (s.mode == CUDNN_POINTWISE_ADD && side.row && side.col) p.features.alibi = true;
      else if (s.mode == CUDNN_POINTWISE_ADD && side.tensor) p.features.bias = true;
      if (s.mode == CUDNN_POINTWISE_BINARY_SELECT) {
        const Contents cond = contents(s.cond);
        if (cond.tensor) p.features.padding = true;
        else if (cond.constant) p.features.window = true;
        else if (cond.row && cond.col) p.features.causal = true;
      }
    }
  }

  const graph::Graph &g_;
  std::map<graph::Uid, std::vector<size_t>> consumers_;
  std::map<graph::Uid, size_t> producer_;
  std::set<size_t> used_;
  std::set<graph::Uid> chain_;
  std::map<graph::Uid, int> node_of_;
  std::vector<int64_t> score_dims_;
};

}  // namespace fdnn::sdpa_match
