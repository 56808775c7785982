// cpu.fusion.sdpa_bwd: scaled dot-product attention backward graphs
// (core/sdpa_bwd_pattern.hpp) computed flash-attention-2 style, without the
// s_q x s_kv matrices in memory:
//
//  1. Dot = sum(dO * O) per query row (written to softmax_sum), K^T and V^T of
//     every distinct K / V staged as float.
//  2. Tasks over (group of score batches, block of keys): per query block,
//     S = Q K^T for the block, the score steps (scale, bias, masks, the SUB
//     of the forward's stats), P = exp(S); dV += P^T dO; dP = dO V^T;
//     dS = P (dP - Dot) [dBias += dS]; dS *= scale; dK += dS^T Q; and dS K
//     into a dQ accumulator. A group holds the score batches that share a
//     dK, dV or dBias destination (grouped-query heads, a bias broadcast
//     over the batch), so tasks never write the same dK / dV / dBias
//     accumulator. The tasks are cut into as many contiguous chunks as the
//     pool has threads, each with a dQ accumulator of its own (memory: one
//     dQ per thread, not s_q x s_kv; for a given pool size the result does
//     not depend on scheduling).
//  3. dQ = the sum of the chunks' accumulators (dQ_accum and dQ written);
//     dK, dV, dBias converted from their float accumulators.
//
// Dropout (the RNG op's mask M on P and dP, cudnn-frontend's form) draws the
// RNG op's own Philox words per score element.
//
// cudnn-frontend's products dV = P^T dO and dK = dS^T Q (P^T and dS^T views
// of the virtual P and dS) are the same computation as dV^T = dO^T P and
// dK^T = Q^T dS: the accumulators hold dV / dK rows either way, only the
// views of dO, Q, dV and dK differ.
//
// FP8 (cudnn-frontend's sdpa_fp8_backward): Dot and dP are multiplied by
// their descales, P for dV is rounded to FP8 after its scale, dS (after the
// attention scale) gives amax_dP and is rounded to FP8 after scale_dP before
// the dQ and dK products; dQ, dK, dV go through their descales (amax) and
// output scales when written.
//
// Blocks whose every score the trailing mask selects reject (causal and
// sliding-window fills of -inf / lowest float, after the stats SUB) add
// exp(fill) = 0 to everything and are skipped.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <numeric>
#include <vector>

#include "core/engine.hpp"
#include "core/error.hpp"
#include "core/pointwise_math.hpp"
#include "core/sdpa_bwd_pattern.hpp"
#include "core/thread_pool.hpp"
#include "cpu/dtype_io.hpp"
#include "cpu/sdpa_kernels.hpp"
#include "cpu/sdpa_score_block.hpp"

namespace fdnn::cpu {
namespace {

using namespace sdpa_kernels;

constexpr int64_t kRows = 64;  // query rows per block
constexpr int64_t kCols = 64;  // keys per task

// exp as the graph's EXP: exp_flush's polynomial, +inf above its range.
inline float exp_graph(float x) {
  const float e = exp_flush(x);
  return x > 88.7f ? std::numeric_limits<float>::infinity() : e;
}

// Distinct matrices of a view over the score batches: per batch its slot,
// per slot one batch that reads it.
void slots_of(const MatrixView &m, int64_t batches, std::vector<int64_t> *slot, std::vector<int64_t> *rep) {
  std::map<int64_t, int64_t> seen;
  for (int64_t bi = 0; bi < batches; ++bi) {
    auto it = seen.emplace(m.offsets[static_cast<size_t>(bi)], static_cast<int64_t>(seen.size())).first;
    if (it->second == static_cast<int64_t>(rep->size())) rep->push_back(bi);
    slot->push_back(it->second);
  }
}

// Element-wise store of a float row into a strided tensor of a fast type.
void store_row(cudnnDataType_t t, void *base, int64_t offset, int64_t stride, const float *v, int64_t n) {
  visit_fast_type(t, [&](auto s) {
    using S = decltype(s);
    auto *p = static_cast<typename S::type *>(base) + offset;
    for (int64_t k = 0; k < n; ++k) p[k * stride] = S::from_float(v[k]);
  });
}

class Plan final : public ExecutionPlan {
 public:
  Plan(const Engine &e, const graph::Graph &g, SdpaBwdPattern bp) : ExecutionPlan(e), bp_(std::move(bp)) {
    const SdpaPattern &p = bp_.s;
    const std::vector<int64_t> &bd = p.batch_dims;
    batches_ = 1;
    for (int64_t d : bd) batches_ *= d;
    q_ = view(g.tensor(p.q), bd, false);
    k_ = view(g.tensor(p.kt), bd, true);
    kn_ = view(g.tensor(bp_.kn), bd, false);
    v_ = view(g.tensor(bp_.vt), bd, true);
    do_ = view(g.tensor(bp_.d_o), bd, false);
    o_ = view(g.tensor(bp_.o), bd, false);
    // dO^T and Q^T as row-major [s_q, ..] matrices: transposed views of their
    // own uids, or (cudnn-frontend's P^T dO and dS^T Q) dO and Q themselves.
    dot_ = view(g.tensor(bp_.d_ot), bd, !bp_.dv_plain);
    qt_ = view(g.tensor(bp_.qt), bd, !bp_.dk_plain);
    dq_ = view(g.tensor(bp_.dq), bd, false);
    if (bp_.dq_accum != graph::kNoTensor) dq_accum_ = view(g.tensor(bp_.dq_accum), bd, false);
    dk_ = view(g.tensor(bp_.dkt), bd, !bp_.dk_plain);
    dv_ = view(g.tensor(bp_.dvt), bd, !bp_.dv_plain);
    write_sum_ = !g.tensor(bp_.softmax_sum).is_virtual;
    if (write_sum_) sum_ = view(g.tensor(bp_.softmax_sum), bd, false);
    slots_of(k_, batches_, &k_slot_, &k_rep_);
    slots_of(v_, batches_, &v_slot_, &v_rep_);
    slots_of(dk_, batches_, &dk_slot_, &dk_rep_);
    slots_of(dv_, batches_, &dv_slot_, &dv_rep_);
    if (bp_.dbias != graph::kNoTensor) {
      db_ = view(g.tensor(bp_.dbias), bd, false);
      slots_of(db_, batches_, &db_slot_, &db_rep_);
    }
    // Groups: score batches joined by a shared dK, dV or dBias matrix.
    std::vector<int64_t> parent(static_cast<size_t>(batches_));
    std::iota(parent.begin(), parent.end(), 0);
    auto find = [&](int64_t x) {
      while (parent[static_cast<size_t>(x)] != x) x = parent[static_cast<size_t>(x)] = parent[static_cast<size_t>(parent[static_cast<size_t>(x)])];
      return x;
    };
    auto join_by = [&](const std::vector<int64_t> &slot) {
      std::map<int64_t, int64_t> first;
      for (int64_t bi = 0; bi < static_cast<int64_t>(slot.size()); ++bi) {
        auto it = first.emplace(slot[static_cast<size_t>(bi)], bi).first;
        parent[static_cast<size_t>(find(bi))] = find(it->second);
      }
    };
    join_by(dk_slot_);
    join_by(dv_slot_);
    if (!db_slot_.empty()) join_by(db_slot_);
    std::map<int64_t, size_t> group_of;
    for (int64_t bi = 0; bi < batches_; ++bi) {
      auto it = group_of.emplace(find(bi), groups_.size()).first;
      if (it->second == groups_.size()) groups_.emplace_back();
      groups_[it->second].push_back(bi);
    }
    key_blocks_ = (p.s_kv + kCols - 1) / kCols;
    const int64_t tasks = static_cast<int64_t>(groups_.size()) * key_blocks_;
    chunks_ = std::max<int64_t>(1, std::min<int64_t>(tasks, ThreadPool::global().size()));
    const SideNodeMarks marks(p);
    pre_nodes_ = marks.pre;
    trail_nodes_ = marks.trail;
    // Scratch layout (floats).
    const int64_t d = p.d, dv = p.d_v;
    size_t at = 0;
    auto take = [&](size_t n) {
      const size_t here = at;
      at += (n + 15) / 16 * 16;
      return here;
    };
    off_kt_ = take(k_rep_.size() * d * p.s_kv);
    off_vt_ = take(v_rep_.size() * dv * p.s_kv);
    off_dk_ = take(dk_rep_.size() * p.s_kv * d);
    off_dv_ = take(dv_rep_.size() * p.s_kv * dv);
    off_db_ = take(db_rep_.size() * p.s_q * p.s_kv);
    off_dq_ = take(static_cast<size_t>(chunks_ * batches_ * p.s_q * d));
    off_dot_ = take(static_cast<size_t>(batches_ * p.s_q));
    scratch_floats_ = at;
  }

  size_t scratch_size() const override { return scratch_floats_ * sizeof(float); }

  void execute(const ExecContext &ctx, const graph::Graph &g, const VariantPack &pack) const override {
    const SdpaPattern &p = bp_.s;
    Run run(*this, g, pack);
    std::vector<float> own;
    float *base = static_cast<float *>(pack.scratch);
    if (base == nullptr || pack.scratch_size < scratch_size()) {
      own.resize(scratch_floats_);
      base = own.data();
    }
    run.kt = base + off_kt_, run.vt = base + off_vt_, run.dk = base + off_dk_, run.dv = base + off_dv_;
    run.db = base + off_db_, run.dq = base + off_dq_, run.dot = base + off_dot_;
    std::fill(run.dk, run.dk + dk_rep_.size() * p.s_kv * p.d, 0.0f);
    std::fill(run.dv, run.dv + dv_rep_.size() * p.s_kv * p.d_v, 0.0f);
    std::fill(run.db, run.db + db_rep_.size() * p.s_q * p.s_kv, 0.0f);
    auto par = [&](int64_t n, const std::function<void(int64_t, int64_t)> &f) {
      if (ctx.pool) ctx.pool->parallel_for(n, f, n);
      else f(0, n);
    };
    // 1. Staging and Dot.
    const int64_t nk = static_cast<int64_t>(k_rep_.size()), nv = static_cast<int64_t>(v_rep_.size());
    par(nk + nv + batches_, [&](int64_t begin, int64_t end) {
      std::vector<float> rows;
      for (int64_t i = begin; i < end; ++i) {
        if (i < nk + nv) {
          const bool is_k = i < nk;
          const MatrixView &m = is_k ? k_ : v_;
          const int64_t cols = is_k ? p.d : p.d_v;
          rows.resize(static_cast<size_t>(p.s_kv * cols));
          load_rows(m, is_k ? run.k : run.v, is_k ? k_rep_[i] : v_rep_[i - nk], 0, p.s_kv, cols, rows.data());
          float *t = (is_k ? run.kt + i * p.d * p.s_kv : run.vt + (i - nk) * p.d_v * p.s_kv);
          for (int64_t j = 0; j < p.s_kv; ++j)
            for (int64_t c = 0; c < cols; ++c) t[c * p.s_kv + j] = rows[static_cast<size_t>(j * cols + c)];
        } else {
          dot_rows(run, i - nk - nv);
        }
      }
    });
    // 2. Key-block tasks, in chunks_ contiguous chunks with a dQ accumulator each.
    const int64_t tasks = static_cast<int64_t>(groups_.size()) * key_blocks_;
    const size_t dq_size = static_cast<size_t>(batches_ * p.s_q * p.d);
    par(chunks_, [&](int64_t begin, int64_t end) {
      Worker w(run);
      for (int64_t c = begin; c < end; ++c) {
        float *acc = run.dq + static_cast<size_t>(c) * dq_size;
        std::fill(acc, acc + dq_size, 0.0f);
        for (int64_t t = tasks * c / chunks_; t < tasks * (c + 1) / chunks_; ++t)
          w.task(static_cast<size_t>(t / key_blocks_), t % key_blocks_, acc);
      }
    });
    // 3. dQ from its partials; dK, dV, dBias from their accumulators.
    const int64_t row_blocks = (p.s_q + kRows - 1) / kRows;
    const int64_t ndk = static_cast<int64_t>(dk_rep_.size()), ndv = static_cast<int64_t>(dv_rep_.size());
    const int64_t ndb = static_cast<int64_t>(db_rep_.size());
    par(batches_ * row_blocks + ndk + ndv + ndb, [&](int64_t begin, int64_t end) {
      std::vector<float> acc(static_cast<size_t>(kRows * p.d));
      for (int64_t t = begin; t < end; ++t) {
        if (t < batches_ * row_blocks) {
          write_dq(run, t / row_blocks, (t % row_blocks) * kRows, acc.data());
          continue;
        }
        int64_t s = t - batches_ * row_blocks;
        if (s < ndk) {
          write_matrix(dk_, run.dk_out, dk_rep_[s], run.dk + s * p.s_kv * p.d, p.s_kv, p.d, &run, &run.dk_tail,
                       &run.amax_dk);
        } else if ((s -= ndk) < ndv) {
          write_matrix(dv_, run.dv_out, dv_rep_[s], run.dv + s * p.s_kv * p.d_v, p.s_kv, p.d_v, &run, &run.dv_tail,
                       &run.amax_dv);
        } else {
          s -= ndv;
          write_matrix(db_, run.db_out, db_rep_[s], run.db + s * p.s_q * p.s_kv, p.s_q, p.s_kv);
        }
      }
    });
    auto put = [&](graph::Uid u, float v) {
      if (u != graph::kNoTensor) *static_cast<float *>(pack.get(u)) = v;
    };
    put(bp_.amax_dp, run.amax_dp);
    put(bp_.dq_out.amax, run.amax_dq);
    put(bp_.dk_out.amax, run.amax_dk);
    put(bp_.dv_out.amax, run.amax_dv);
  }

 private:
  struct Run {
    const Plan &plan;
    const void *q, *k, *kn, *v, *d_o, *o, *d_ot, *qt;
    void *dq_out, *dq_accum_out, *dk_out, *dv_out, *db_out, *sum_out;
    SideInputs side;
    std::vector<float> dot_scales, dp_scales;
    float ds_scale = 1, ds_drop_scale = 1;
    // FP8: the scales before the roundings of P (for dV) and dS, the
    // output tails, and the amax outputs merged from the tasks.
    float p8_scale = 1, ds8_scale = 1;
    struct Tail {
      std::vector<float> scales;
      bool amax = false;
      size_t at = 0;
    } dq_tail, dk_tail, dv_tail;
    mutable std::mutex amax_mu;
    mutable float amax_dp = 0, amax_dq = 0, amax_dk = 0, amax_dv = 0;
    void merge(float *into, float v) const {
      std::lock_guard<std::mutex> lock(amax_mu);
      *into = std::max(*into, v);
    }
    DropoutDraw drop;
    bool allow_skip = true;
    bool dot_is_do = false, qt_is_q = false;  // the transposed uids alias the plain ones
    float *kt = nullptr, *vt = nullptr, *dk = nullptr, *dv = nullptr, *db = nullptr, *dq = nullptr, *dot = nullptr;

    Run(const Plan &pl, const graph::Graph &g, const VariantPack &pack) : plan(pl) {
      const SdpaBwdPattern &bp = plan.bp_;
      const SdpaPattern &p = bp.s;
      q = pack.get(p.q), k = pack.get(p.kt), kn = pack.get(bp.kn), v = pack.get(bp.vt);
      d_o = pack.get(bp.d_o), o = pack.get(bp.o), d_ot = pack.get(bp.d_ot), qt = pack.get(bp.qt);
      dq_out = pack.get(bp.dq);
      dq_accum_out = bp.dq_accum != graph::kNoTensor ? pack.get(bp.dq_accum) : nullptr;
      dk_out = pack.get(bp.dkt), dv_out = pack.get(bp.dvt);
      db_out = bp.dbias != graph::kNoTensor ? pack.get(bp.dbias) : nullptr;
      sum_out = plan.write_sum_ ? pack.get(bp.softmax_sum) : nullptr;
      side = side_inputs(p, g, pack);
      for (int n : bp.dot_scales) dot_scales.push_back(side_scalar(p, side, n));
      for (int n : bp.dp_scales) dp_scales.push_back(side_scalar(p, side, n));
      p8_scale = side_scalar(p, side, bp.p8_scale);
      ds8_scale = side_scalar(p, side, bp.ds8_scale);
      auto tail = [&](const SdpaScaledOut &o, Tail &t) {
        for (int n : o.scales) t.scales.push_back(side_scalar(p, side, n));
        t.amax = o.amax != graph::kNoTensor, t.at = o.amax_at;
      };
      tail(bp.dq_out, dq_tail);
      tail(bp.dk_out, dk_tail);
      tail(bp.dv_out, dv_tail);
      ds_scale = side_scalar(p, side, bp.ds_scale);
      ds_drop_scale = side_scalar(p, side, bp.ds_drop_scale);
      drop = dropout_draw(g, p, pack, side_scalar(p, side, p.dropout_scale));
      float max_fill = 0;
      allow_skip = masked_blocks_skippable(p, side, &max_fill);
      auto same = [](const MatrixView &a, const MatrixView &b) {
        return a.dtype == b.dtype && a.offsets == b.offsets && a.rs == b.rs && a.cs == b.cs;
      };
      dot_is_do = d_ot == d_o && same(plan.dot_, plan.do_);
      qt_is_q = qt == q && same(plan.qt_, plan.q_);
    }
  };

  // Dot of every query row of batch bi (and softmax_sum).
  void dot_rows(Run &run, int64_t bi) const {
    const SdpaPattern &p = bp_.s;
    std::vector<float> a(static_cast<size_t>(kRows * p.d_v)), b(a.size());
    for (int64_t i0 = 0; i0 < p.s_q; i0 += kRows) {
      const int64_t rows = std::min(kRows, p.s_q - i0);
      load_rows(do_, run.d_o, bi, i0, rows, p.d_v, a.data());
      load_rows(o_, run.o, bi, i0, rows, p.d_v, b.data());
      for (int64_t r = 0; r < rows; ++r) {
        float part[8] = {};
        const float *x = a.data() + r * p.d_v, *y = b.data() + r * p.d_v;
        int64_t e = 0;
        for (; e + 8 <= p.d_v; e += 8)
          for (int k = 0; k < 8; ++k) part[k] += x[e + k] * y[e + k];
        float s = 0;
        for (; e < p.d_v; ++e) s += x[e] * y[e];
        for (float v : part) s += v;
        float dot = s;
        for (float c : run.dot_scales) dot *= c;
        run.dot[bi * p.s_q + i0 + r] = dot;
        if (run.sum_out)
          static_cast<float *>(run.sum_out)[sum_.offsets[static_cast<size_t>(bi)] + (i0 + r) * sum_.rs] = dot;
      }
    }
  }

  void write_dq(const Run &run, int64_t bi, int64_t i0, float *acc) const {
    const SdpaPattern &p = bp_.s;
    const int64_t rows = std::min(kRows, p.s_q - i0), d = p.d;
    std::fill(acc, acc + rows * d, 0.0f);
    for (int64_t c = 0; c < chunks_; ++c) {
      const float *part = run.dq + ((c * batches_ + bi) * p.s_q + i0) * d;
      for (int64_t t = 0; t < rows * d; ++t) acc[t] += part[t];
    }
    float amax = 0;
    for (int64_t r = 0; r < rows; ++r) {
      float *row = acc + r * d;
      apply_tail(run.dq_tail, row, d, &amax);
      if (run.dq_accum_out)
        store_row(dq_accum_.dtype, run.dq_accum_out,
                  dq_accum_.offsets[static_cast<size_t>(bi)] + (i0 + r) * dq_accum_.rs, dq_accum_.cs, row, d);
      store_row(dq_.dtype, run.dq_out, dq_.offsets[static_cast<size_t>(bi)] + (i0 + r) * dq_.rs, dq_.cs, row, d);
    }
    if (run.dq_tail.amax) run.merge(&run.amax_dq, amax);
  }

  // FP8 outputs: row *= each scale in order; *amax tracks |row| after the
  // first t.at of them.
  static void apply_tail(const Run::Tail &t, float *row, int64_t n, float *amax) {
    if (t.scales.empty() && !t.amax) return;
    float a = *amax;
    for (int64_t c = 0; c < n; ++c) {
      float v = row[c];
      for (size_t k = 0; k < t.scales.size(); ++k) {
        if (t.amax && k == t.at) a = std::max(a, std::fabs(v));
        v *= t.scales[k];
      }
      if (t.amax && t.at == t.scales.size()) a = std::max(a, std::fabs(v));
      row[c] = v;
    }
    *amax = a;
  }

  // rows x cols float accumulator into the matrix of `m` read by batch rep
  // (through the FP8 tail t when there is one: acc is scaled in place).
  static void write_matrix(const MatrixView &m, void *out, int64_t rep, float *acc, int64_t rows, int64_t cols,
                           const Run *run = nullptr, const Run::Tail *t = nullptr, float *amax_out = nullptr) {
    float amax = 0;
    for (int64_t r = 0; r < rows; ++r) {
      if (t) apply_tail(*t, acc + r * cols, cols, &amax);
      store_row(m.dtype, out, m.offsets[static_cast<size_t>(rep)] + r * m.rs, m.cs, acc + r * cols, cols);
    }
    if (t && t->amax) run->merge(amax_out, amax);
  }

  class Worker {
   public:
    ~Worker() {
      if (pl_.bp_.amax_dp != graph::kNoTensor) run_.merge(&run_.amax_dp, amax_dp_);
    }
    explicit Worker(const Run &run)
        : run_(run), pl_(run.plan), bp_(run.plan.bp_), p_(run.plan.bp_.s), score_(p_, run.side, kRows, kCols) {
      const size_t br = kRows, bc = kCols, d = static_cast<size_t>(p_.d), dv = static_cast<size_t>(p_.d_v);
      s_.resize(br * bc), dp_.resize(br * bc), t_.resize(br * bc), mask_.resize(br * bc);
      q_.resize(br * d), qt_.resize(br * d), do_.resize(br * dv), dot_.resize(br * dv);
      kn_.resize(bc * d), dk_.resize(bc * d), dv_.resize(bc * dv);
      kt_blk_.resize(d * bc), vt_blk_.resize(dv * bc);
      eval_mask_.resize(p_.nodes.size());
    }

    void task(size_t group, int64_t kb, float *dq_acc) {
      const int64_t j0 = kb * kCols, n = std::min(kCols, p_.s_kv - j0);
      for (int64_t bi : pl_.groups_[group]) batch(bi, j0, n, dq_acc + bi * p_.s_q * p_.d);
    }

   private:
    void batch(int64_t bi, int64_t j0, int64_t n, float *dq) {
      const int64_t d = p_.d, dv = p_.d_v, s_kv = p_.s_kv;
      const size_t b = static_cast<size_t>(bi);
      // This key block of K^T and V^T, packed ([d x n], [dv x n]): the staged
      // rows are s_kv apart, a stride that maps every row to the same cache
      // sets when s_kv is a multiple of 1024.
      const float *kt_all = run_.kt + pl_.k_slot_[b] * d * s_kv;
      const float *vt_all = run_.vt + pl_.v_slot_[b] * dv * s_kv;
      float *kt = kt_blk_.data(), *vt = vt_blk_.data();
      for (int64_t e = 0; e < d; ++e) std::copy(kt_all + e * s_kv + j0, kt_all + e * s_kv + j0 + n, kt + e * n);
      for (int64_t e = 0; e < dv; ++e) std::copy(vt_all + e * s_kv + j0, vt_all + e * s_kv + j0 + n, vt + e * n);
      load_rows(pl_.kn_, run_.kn, bi, j0, n, d, kn_.data());
      std::fill(dk_.begin(), dk_.begin() + n * d, 0.0f);
      std::fill(dv_.begin(), dv_.begin() + n * dv, 0.0f);
      float *db = pl_.db_slot_.empty() ? nullptr : run_.db + pl_.db_slot_[b] * p_.s_q * s_kv;
      const float *dot = run_.dot + bi * p_.s_q;
      for (int64_t i0 = 0; i0 < p_.s_q; i0 += kRows) {
        const int64_t rows = std::min(kRows, p_.s_q - i0);
        const Block state = run_.allow_skip ? score_.state(bi, i0, rows, j0, n, pl_.trail_nodes_) : Block::mixed;
        if (state == Block::masked) continue;
        const bool kept = state == Block::kept;
        for (size_t k = 0; k < p_.nodes.size(); ++k)
          eval_mask_[k] = (kept ? pl_.pre_nodes_[k] : 1) && !(run_.allow_skip && pl_.trail_nodes_[k]);
        if (!p_.nodes.empty()) score_.eval_nodes(bi, i0, rows, j0, n, eval_mask_);
        load_rows(pl_.q_, run_.q, bi, i0, rows, d, q_.data());
        const float *qt = q_.data();
        if (!run_.qt_is_q) load_rows(pl_.qt_, run_.qt, bi, i0, rows, d, qt_.data()), qt = qt_.data();
        load_rows(pl_.do_, run_.d_o, bi, i0, rows, dv, do_.data());
        const float *dot_rows = do_.data();
        if (!run_.dot_is_do) load_rows(pl_.dot_, run_.d_ot, bi, i0, rows, dv, dot_.data()), dot_rows = dot_.data();
        // P = exp(steps(Q K^T)).
        float *s = s_.data(), *dp = dp_.data(), *t = t_.data();
        block_gemm(rows, n, d, q_.data(), d, kt, n, s, n, false);
        for (int64_t r = 0; r < rows; ++r) {
          float *row = s + r * n;
          score_.apply_steps(r, n, row, kept);
          for (int64_t c = 0; c < n; ++c) row[c] = exp_graph(row[c]);
        }
        // [Dropout mask M.] dV += (P M scale)^T dO.
        const DropoutDraw &drop = run_.drop;
        float *mk = mask_.data();
        if (drop.on) {
          for (int64_t r = 0; r < rows; ++r)
            drop.mask(static_cast<uint64_t>((bi * p_.s_q + i0 + r) * s_kv + j0), n, mk + r * n);
          for (int64_t r = 0; r < rows; ++r)
            for (int64_t c = 0; c < n; ++c) t[c * rows + r] = mk[r * n + c] != 0.0f ? s[r * n + c] * drop.scale : 0.0f;
        } else {
          transpose(s, rows, n, t);
        }
        if (bp_.p8_type != CUDNN_DATA_FLOAT) round_fp8(bp_.p8_type, run_.p8_scale, t, rows * n);
        block_gemm(n, dv, rows, t, rows, dot_rows, dv, dv_.data(), dv, true);
        // dS = P (dO V^T [M] - Dot) [dropout scale] [dBias] * scale.
        block_gemm(rows, n, dv, do_.data(), dv, vt, n, dp, n, false);
        const float scale = run_.ds_scale;
        for (int64_t r = 0; r < rows; ++r) {
          const float dr = dot[i0 + r];
          float *x = dp + r * n;
          const float *pr = s + r * n;
          for (float sc : run_.dp_scales)
            for (int64_t c = 0; c < n; ++c) x[c] *= sc;
          if (drop.on && bp_.dp_masked) {
            const float *mr = mk + r * n, ds_drop = run_.ds_drop_scale;
            for (int64_t c = 0; c < n; ++c) x[c] = ((x[c] * mr[c] - dr) * pr[c]) * ds_drop;
          } else if (drop.on) {  // cudnn-frontend's FP8 form: dP unmasked
            const float ds_drop = run_.ds_drop_scale;
            for (int64_t c = 0; c < n; ++c) x[c] = ((x[c] - dr) * pr[c]) * ds_drop;
          } else {
            for (int64_t c = 0; c < n; ++c) x[c] = (x[c] - dr) * pr[c];
          }
          if (db) {
            float *y = db + (i0 + r) * s_kv + j0;
            for (int64_t c = 0; c < n; ++c) y[c] += x[c];
          }
          for (int64_t c = 0; c < n; ++c) x[c] *= scale;
          if (bp_.amax_dp != graph::kNoTensor)
            for (int64_t c = 0; c < n; ++c) amax_dp_ = std::max(amax_dp_, std::fabs(x[c]));
          if (bp_.ds8_type != CUDNN_DATA_FLOAT) round_fp8(bp_.ds8_type, run_.ds8_scale, x, n);
        }
        // dQ partial += dS K; dK += dS^T Q.
        block_gemm(rows, d, n, dp, n, kn_.data(), d, dq + i0 * d, d, true);
        transpose(dp, rows, n, t);
        block_gemm(n, d, rows, t, rows, qt, d, dk_.data(), d, true);
      }
      float *dk = run_.dk + (pl_.dk_slot_[b] * s_kv + j0) * d;
      float *dvv = run_.dv + (pl_.dv_slot_[b] * s_kv + j0) * dv;
      for (int64_t k = 0; k < n * d; ++k) dk[k] += dk_[static_cast<size_t>(k)];
      for (int64_t k = 0; k < n * dv; ++k) dvv[k] += dv_[static_cast<size_t>(k)];
    }

    // x = FP8(x * scale) as float (the graph's MUL into an FP8 tensor).
    static void round_fp8(cudnnDataType_t t, float scale, float *x, int64_t n) {
      if (t == CUDNN_DATA_FP8_E4M3)
        for (int64_t c = 0; c < n; ++c) x[c] = round_to_e4m3(x[c] * scale);
      else
        for (int64_t c = 0; c < n; ++c) x[c] = round_to_e5m2(x[c] * scale);
    }

    static void transpose(const float *a, int64_t rows, int64_t cols, float *out) {
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = 0; c < cols; ++c) out[c * rows + r] = a[r * cols + c];
    }

    using Block = ScoreBlock::State;
    const Run &run_;
    const Plan &pl_;
    const SdpaBwdPattern &bp_;
    float amax_dp_ = 0;  // this worker's share of amax_dP
    const SdpaPattern &p_;
    std::vector<float> kn_, dk_, dv_;
    UninitFloats s_, dp_, t_, mask_, q_, qt_, do_, dot_, kt_blk_, vt_blk_;
    ScoreBlock score_;
    std::vector<char> eval_mask_;
  };

  SdpaBwdPattern bp_;
  int64_t batches_ = 1, key_blocks_ = 1, chunks_ = 1;
  MatrixView q_, k_, kn_, v_, do_, o_, dot_, qt_, dq_, dq_accum_, dk_, dv_, sum_, db_;
  bool write_sum_ = false;
  std::vector<int64_t> k_slot_, k_rep_, v_slot_, v_rep_, dk_slot_, dk_rep_, dv_slot_, dv_rep_, db_slot_, db_rep_;
  std::vector<std::vector<int64_t>> groups_;
  std::vector<char> pre_nodes_, trail_nodes_;
  size_t off_kt_ = 0, off_vt_ = 0, off_dk_ = 0, off_dv_ = 0, off_db_ = 0, off_dq_ = 0, off_dot_ = 0;
  size_t scratch_floats_ = 0;
};

class FusedSdpaBwdEngine final : public Engine {
 public:
  const char *name() const override { return "cpu.fusion.sdpa_bwd"; }
  DeviceKind device() const override { return DeviceKind::cpu; }
  // As cpu.fusion.sdpa: before the op-by-op engine (900).
  int priority() const override { return 50; }
  // cudnn-frontend's P^T and dS^T are views of virtual tensors; the matcher
  // takes a graph with views only where it reads them as those transposes,
  // and this engine never materialises either.
  bool runs_virtual_views() const override { return true; }
  Support supports(const graph::Graph &g) const override {
    SdpaBwdPattern p;
    Support s = match_sdpa_bwd(g, &p);
    if (!s) return s;
    for (const SdpaSideNode &n : p.s.nodes)
      if (n.kind == SdpaSideNode::Kind::tensor && !is_fast_type(n.dtype) && n.dtype != CUDNN_DATA_BOOLEAN)
        return Support::no(cat("mask, bias or stats tensor ", n.uid, " has a data type this engine does not read"));
    for (graph::Uid u : {p.s.q, p.s.kt, p.kn, p.vt, p.d_o, p.o, p.d_ot, p.qt, p.dq, p.dkt, p.dvt})
      if (!is_fast_type(g.tensor(u).dtype)) return Support::no(cat("tensor ", u, " is not float, half or bfloat16"));
    if (p.dbias != graph::kNoTensor && !is_fast_type(g.tensor(p.dbias).dtype))
      return Support::no("dBias is not float, half or bfloat16");
    if (p.s.d <= 0 || p.s.d_v <= 0 || p.s.s_kv <= 0 || p.s.s_q <= 0) return Support::no("empty attention");
    return Support::yes();
  }
  std::unique_ptr<ExecutionPlan> make_plan(const graph::Graph &g, const std::vector<KnobChoice> &) const override {
    SdpaBwdPattern p;
    Support s = match_sdpa_bwd(g, &p);
    if (!s) fail(CUDNN_STATUS_NOT_SUPPORTED, s.reason);
    return std::make_unique<Plan>(*this, g, std::move(p));
  }
};

}  // namespace
}  // namespace fdnn::cpu

using fdnn::cpu::FusedSdpaBwdEngine;
FDNN_REGISTER_ENGINE(FusedSdpaBwdEngine)
