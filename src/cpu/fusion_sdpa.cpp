// cpu.fusion.sdpa: scaled dot-product attention forward graphs
// (core/sdpa_pattern.hpp) computed flash-attention style. Per (batch, block
// of query rows), key blocks are visited in order: S = Q K^T for the block
// (register-tiled loops), the score steps (scale, bias, ALiBi, masks) applied row by row from
// their side expressions, then an online softmax (running max and sum per
// row) accumulates P V into a small float accumulator. The s_q x s_kv scores
// never exist in memory; tasks run on the thread pool. Dropout (the graph's
// MUL by a BERNOULLI RNG op's output, then by a scale) draws the RNG op's
// own Philox words per score element and drops weights after their sum.
//
// FP8 (cudnn-frontend's sdpa_fp8 graph): P is rounded to FP8 after its
// scale, which needs the final row max and sum: two passes over the keys,
// the first for the softmax statistics (it keeps the row block's scores for
// the second when they fit in 16 MiB), the second accumulating FP8(P *
// scale_s) V exactly as the graph rounds it; the output scales and the amax
// outputs (of P, of O before its last scale) are applied at the write.
//
// Paged K/V (PAGED_CACHE_LOAD ops feeding K^T and V): the staging step
// gathers each (sequence, cache head) matrix from its pages straight into
// the float K^T / V scratch; the gathered K / V tensors never exist.
//
// Masked blocks: when the trailing steps are selects of very negative fills
// (-inf, lowest float), a block whose every element is masked is skipped (a
// causal mask halves the work). Its elements would have added exp(fill - max)
// = 0 unless a whole row is masked; such rows (max within ~100 of the fill)
// are recomputed without skipping, so the result is the graph's in every case.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "core/engine.hpp"
#include "core/error.hpp"
#include "core/numeric.hpp"
#include "core/pointwise_math.hpp"
#include "core/sdpa_pattern.hpp"
#include "core/thread_pool.hpp"
#include "cpu/dtype_io.hpp"
#include "cpu/sdpa_kernels.hpp"
#include "cpu/sdpa_score_block.hpp"

namespace fdnn::cpu {
namespace {

using namespace sdpa_kernels;

constexpr int64_t kRowBlock = 64;   // query rows per task
constexpr int64_t kColBlock = 128;  // keys per step of the online softmax

class Plan final : public ExecutionPlan {
 public:
  Plan(const Engine &e, const graph::Graph &g, SdpaPattern p) : ExecutionPlan(e), p_(std::move(p)) {
    q_ = view(g.tensor(p_.q), p_.batch_dims, false);
    k_ = view(g.tensor(p_.kt), p_.batch_dims, true);
    v_ = view(g.tensor(p_.v), p_.batch_dims, false);
    o_ = view(g.tensor(p_.o), p_.batch_dims, false);
    if (p_.stats != graph::kNoTensor) stats_ = view(g.tensor(p_.stats), p_.batch_dims, false);
    batches_ = 1;
    for (int64_t d : p_.batch_dims) batches_ *= d;
    // Distinct K and V matrices (heads shared by grouped queries count once).
    // Paged K / V: gathered from their pages at staging, one matrix per
    // (sequence, cache head).
    if (p_.k_paged != SdpaPattern::kNoOp) k_paged_ = PagedOperand(g, p_.k_paged, p_.batch_dims);
    if (p_.v_paged != SdpaPattern::kNoOp) v_paged_ = PagedOperand(g, p_.v_paged, p_.batch_dims);
    auto slots = [&](const MatrixView &m, const PagedOperand *paged, std::vector<int64_t> *slot,
                     std::vector<int64_t> *rep) {
      std::map<int64_t, int64_t> seen;
      for (int64_t bi = 0; bi < batches_; ++bi) {
        const int64_t key = paged ? paged->matrix_of(bi) : m.offsets[static_cast<size_t>(bi)];
        auto it = seen.emplace(key, static_cast<int64_t>(seen.size())).first;
        if (it->second == static_cast<int64_t>(rep->size())) rep->push_back(bi);
        slot->push_back(it->second);
      }
    };
    slots(k_, p_.k_paged != SdpaPattern::kNoOp ? &k_paged_ : nullptr, &k_slot_, &k_rep_);
    slots(v_, p_.v_paged != SdpaPattern::kNoOp ? &v_paged_ : nullptr, &v_slot_, &v_rep_);
    v_direct_ = v_.dtype == CUDNN_DATA_FLOAT && v_.cs == 1 && v_.rs >= p_.d_v && p_.v_paged == SdpaPattern::kNoOp;
    // The side nodes the steps before the trailing selects need, and those
    // the trailing selects need (a block that is wholly kept skips the latter).
    const SideNodeMarks marks(p_);
    pre_nodes_ = marks.pre;
    trail_nodes_ = marks.trail;
  }

  // K^T of every distinct K as [d x s_kv] float, and V as [s_kv x d_v] float
  // unless it is float with unit column stride already: staging the library
  // keeps in its own scratch (cuDNN reads any layout in place).
  size_t scratch_size() const override { return scratch_floats() * sizeof(float); }

  size_t scratch_floats() const {
    return static_cast<size_t>(k_rep_.size() * p_.s_kv * p_.d + (v_direct_ ? 0 : v_rep_.size() * p_.s_kv * p_.d_v));
  }

  void execute(const ExecContext &ctx, const graph::Graph &g, const VariantPack &pack) const override {
    Run run{*this, g, pack};
    std::vector<float> own;
    float *kv = static_cast<float *>(pack.scratch);
    if (kv == nullptr || pack.scratch_size < scratch_floats() * sizeof(float)) {
      own.resize(scratch_floats());
      kv = own.data();
    }
    run.kt_all = kv;
    run.v_all = v_direct_ ? nullptr : kv + k_rep_.size() * p_.s_kv * p_.d;
    const int64_t nk = static_cast<int64_t>(k_rep_.size()), nv = v_direct_ ? 0 : static_cast<int64_t>(v_rep_.size());
    auto stage = [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        if (i < nk && p_.k_paged != SdpaPattern::kNoOp) {
          k_paged_.gather(pack, k_rep_[i], run.kt_all + i * p_.s_kv * p_.d, 1, p_.s_kv);
        } else if (i >= nk && p_.v_paged != SdpaPattern::kNoOp) {
          v_paged_.gather(pack, v_rep_[i - nk], run.v_all + (i - nk) * p_.s_kv * p_.d_v, p_.d_v, 1);
        } else if (i < nk) {
          float *kt = run.kt_all + i * p_.s_kv * p_.d;
          visit_fast_type(k_.dtype, [&](auto st) {
            using S = decltype(st);
            const auto *k = static_cast<const typename S::type *>(run.k) + k_.offsets[static_cast<size_t>(k_rep_[i])];
            for (int64_t j = 0; j < p_.s_kv; ++j)
              for (int64_t e = 0; e < p_.d; ++e) kt[e * p_.s_kv + j] = to_float_fast<S>(k[j * k_.rs + e * k_.cs]);
          });
        } else {
          load_rows(v_, run.v, v_rep_[i - nk], 0, p_.s_kv, p_.d_v, run.v_all + (i - nk) * p_.s_kv * p_.d_v);
        }
      }
    };
    if (ctx.pool) ctx.pool->parallel_for(nk + nv, stage, nk + nv);
    else stage(0, nk + nv);
    const int64_t row_blocks = (p_.s_q + kRowBlock - 1) / kRowBlock;
    const int64_t tasks = batches_ * row_blocks;
    auto body = [&](int64_t begin, int64_t end) {
      Worker w(run);
      for (int64_t t = begin; t < end; ++t) w.task(t / row_blocks, (t % row_blocks) * kRowBlock);
    };
    if (ctx.pool) ctx.pool->parallel_for(tasks, body, tasks);
    else body(0, tasks);
    if (p_.amax_s != graph::kNoTensor) *static_cast<float *>(pack.get(p_.amax_s)) = run.amax_s;
    if (p_.amax_o != graph::kNoTensor) *static_cast<float *>(pack.get(p_.amax_o)) = run.amax_o;
  }

 private:
  // Per-execution inputs shared by the workers.
  struct Run {
    const Plan &plan;
    const graph::Graph &g;
    const VariantPack &pack;
    const void *q, *k, *v;
    void *o, *stats;
    SideInputs side;
    bool allow_skip = true;
    float max_fill = -std::numeric_limits<float>::infinity();
    float *kt_all = nullptr, *v_all = nullptr;  // staged K^T and V (Plan::scratch_size)

    Run(const Plan &pl, const graph::Graph &gr, const VariantPack &pk) : plan(pl), g(gr), pack(pk) {
      const SdpaPattern &p = plan.p_;
      q = pack.get(p.q), o = pack.get(p.o);
      k = p.k_paged == SdpaPattern::kNoOp ? pack.get(p.kt) : nullptr;
      v = p.v_paged == SdpaPattern::kNoOp ? pack.get(p.v) : nullptr;
      stats = p.stats != graph::kNoTensor ? pack.get(p.stats) : nullptr;
      side = side_inputs(p, g, pack);
      allow_skip = masked_blocks_skippable(p, side, &max_fill);
      drop = dropout_draw(g, p, pack, side_scalar(p, side, p.dropout_scale));
      two_pass = p.p_type != CUDNN_DATA_FLOAT;
      if (two_pass) allow_skip = false;
      p_scale = side_scalar(p, side, p.p_scale);
      for (int n : p.o_scales) o_scales.push_back(side_scalar(p, side, n));
    }
    DropoutDraw drop;
    // FP8 weights: the exact P = e / l is rounded, so a first pass finds
    // each row's max and sum and a second accumulates FP8(P * p_scale) V.
    bool two_pass = false;
    float p_scale = 1;
    std::vector<float> o_scales;
    // The amax outputs, merged from the workers.
    mutable std::mutex amax_mu;
    mutable float amax_s = 0, amax_o = 0;
    void merge_amax(float s, float o) const {
      std::lock_guard<std::mutex> lock(amax_mu);
      amax_s = std::max(amax_s, s), amax_o = std::max(amax_o, o);
    }
  };

  class Worker {
   public:
    explicit Worker(const Run &run) : run_(run), p_(run.plan.p_), score_(p_, run.side, kRowBlock, kColBlock) {
      const size_t br = static_cast<size_t>(kRowBlock), bc = static_cast<size_t>(kColBlock);
      s_.resize(br * bc);
      acc_.resize(br * static_cast<size_t>(p_.d_v));
      m_.resize(br), l_.resize(br);
      skipped_.resize(br);
      eval_mask_.resize(p_.nodes.size());
      qbuf_.resize(br * static_cast<size_t>(p_.d));
      drop_.resize(bc);
      // FP8's two passes: the first keeps the block's scores for the
      // second, up to 16 MiB per worker.
      if (run.two_pass && br * static_cast<size_t>(p_.s_kv) <= (size_t{1} << 22))
        saved_.resize(br * static_cast<size_t>(p_.s_kv));
    }

    ~Worker() { run_.merge_amax(amax_s_, amax_o_); }

    // Rows [i0, i0 + kRowBlock) of score batch bi.
    void task(int64_t bi, int64_t i0) {
      const int64_t rows = std::min(kRowBlock, p_.s_q - i0);
      load_kv(bi);
      if (run_.two_pass) {
        rows_pass(bi, i0, rows, false, Pass::stats);
        rows_pass(bi, i0, rows, false, Pass::fp8_weights);
        write(bi, i0, rows);
        return;
      }
      rows_pass(bi, i0, rows, run_.allow_skip);
      // Rows that were fully masked and had blocks skipped: recompute alone.
      for (int64_t r = 0; r < rows; ++r) {
        if (!skipped_[static_cast<size_t>(r)] || std::isinf(run_.max_fill)) continue;
        if (m_[static_cast<size_t>(r)] - run_.max_fill >= 110.0f) continue;
        redo_row(bi, i0, r);
      }
      write(bi, i0, rows);
    }

   private:
    void load_kv(int64_t bi) {
      const Plan &pl = run_.plan;
      const size_t b = static_cast<size_t>(bi);
      kt_ptr_ = run_.kt_all + pl.k_slot_[b] * p_.s_kv * p_.d;
      if (pl.v_direct_) {
        v_ptr_ = static_cast<const float *>(run_.v) + pl.v_.offsets[b], v_ld_ = pl.v_.rs;
      } else {
        v_ptr_ = run_.v_all + pl.v_slot_[b] * p_.s_kv * p_.d_v, v_ld_ = p_.d_v;
      }
    }

    // Online softmax over every key block for rows [i0 + r0, i0 + r0 + rows):
    // leaves m_, l_, acc_ (rows relative to r0) and skipped_.
    // online: the one-pass online softmax; stats: only m_ and l_ (the
    // first of two passes); fp8_weights: with m_ and l_ final, acc_ += FP8(P
    // * p_scale) V (P = exp(s - m) / l as the graph computes it).
    enum class Pass { online, stats, fp8_weights };
    void rows_pass(int64_t bi, int64_t i0, int64_t rows, bool allow_skip, Pass pass = Pass::online) {
      const Plan &pl = run_.plan;
      const int64_t d = p_.d, dv = p_.d_v;
      const float *q;
      int64_t q_ld;
      if (pl.q_.dtype == CUDNN_DATA_FLOAT && pl.q_.cs == 1 && (rows == 1 || pl.q_.rs >= d)) {
        q = static_cast<const float *>(run_.q) + pl.q_.offsets[static_cast<size_t>(bi)] + i0 * pl.q_.rs;
        q_ld = rows == 1 ? d : pl.q_.rs;
      } else {
        // The second FP8 pass runs on the rows the first one loaded.
        if (pass != Pass::fp8_weights) load_rows(pl.q_, run_.q, bi, i0, rows, d, qbuf_.data());
        q = qbuf_.data(), q_ld = d;
      }
      if (pass != Pass::fp8_weights) {
        std::fill(m_.begin(), m_.begin() + rows, -std::numeric_limits<float>::infinity());
        std::fill(l_.begin(), l_.begin() + rows, 0.0f);
      }
      std::fill(acc_.begin(), acc_.begin() + rows * dv, 0.0f);
      std::fill(skipped_.begin(), skipped_.begin() + rows, false);
      for (int64_t j0 = 0; j0 < p_.s_kv; j0 += kColBlock) {
        const int64_t n = std::min(kColBlock, p_.s_kv - j0);
        const Block state = allow_skip ? score_.state(bi, i0, rows, j0, n, run_.plan.trail_nodes_) : Block::mixed;
        if (state == Block::masked) {
          std::fill(skipped_.begin(), skipped_.begin() + rows, true);
          continue;
        }
        // The side nodes the steps still need (block_state evaluated those
        // of the trailing selects already).
        const bool kept = state == Block::kept;
        const Plan &pl = run_.plan;
        for (size_t k = 0; k < p_.nodes.size(); ++k)
          eval_mask_[k] = (kept ? pl.pre_nodes_[k] : 1) && !(allow_skip && pl.trail_nodes_[k]);
        float *s = s_.data();
        // The second FP8 pass reads the scores the first one kept (when
        // the row block's s_q x s_kv fit in saved_), else recomputes them.
        const bool saved = !saved_.empty();
        if (pass == Pass::fp8_weights && saved) {
          for (int64_t r = 0; r < rows; ++r) {
            float *row = s + r * n;
            std::copy(saved_.data() + r * p_.s_kv + j0, saved_.data() + r * p_.s_kv + j0 + n, row);
            fp8_weights(r, row, n, ((bi * p_.s_q) + i0 + r) * p_.s_kv + j0);
          }
          block_gemm(rows, dv, n, s, n, v_ptr_ + j0 * v_ld_, v_ld_, acc_.data(), dv, true);
          continue;
        }
        if (!p_.nodes.empty()) score_.eval_nodes(bi, i0, rows, j0, n, eval_mask_);
        block_gemm(rows, n, d, q, q_ld, kt_ptr_ + j0, p_.s_kv, s, n, false);
        if (pass == Pass::fp8_weights) {
          for (int64_t r = 0; r < rows; ++r) {
            float *row = s + r * n;
            score_.apply_steps(r, n, row, kept);
            fp8_weights(r, row, n, ((bi * p_.s_q) + i0 + r) * p_.s_kv + j0);
          }
          block_gemm(rows, dv, n, s, n, v_ptr_ + j0 * v_ld_, v_ld_, acc_.data(), dv, true);
          continue;
        }
        for (int64_t r = 0; r < rows; ++r) {
          float *row = s + r * n;
          score_.apply_steps(r, n, row, kept);
          if (pass == Pass::stats && saved) std::copy(row, row + n, saved_.data() + r * p_.s_kv + j0);
          softmax_update(r, row, n);
          if (run_.drop.on && pass == Pass::online) {
            // Dropout of the weights after their sum (the graph drops P).
            float *m = drop_.data();
            run_.drop.mask(static_cast<uint64_t>(((bi * p_.s_q) + i0 + r) * p_.s_kv + j0), n, m);
            const float sc = run_.drop.scale;
            for (int64_t t = 0; t < n; ++t) row[t] = m[t] != 0.0f ? row[t] * sc : 0.0f;
          }
        }
        if (pass == Pass::online) block_gemm(rows, dv, n, s, n, v_ptr_ + j0 * v_ld_, v_ld_, acc_.data(), dv, true);
      }
    }

    // Row r's scores s (n of them) become FP8(P * p_scale) as float, P = e
    // / l with e = exp(s - m): the graph's DIV, MUL and FP8 rounding; the
    // amax of P is tracked (rows whose max is -inf give NaN and are left out).
    // With dropout P is first dropped (mask of score element `first` on, as
    // the RNG op numbers them) and scaled, and the amax is the dropped P's.
    void fp8_weights(int64_t r, float *s, int64_t n, int64_t first) {
      const size_t ri = static_cast<size_t>(r);
      const float m = m_[ri], l = l_[ri], sc = run_.p_scale;
      if (m == -std::numeric_limits<float>::infinity()) {
        std::fill(s, s + n, 0.0f);
        return;
      }
      float amax = amax_s_;
      if (run_.drop.on) {
        float *mk = drop_.data();
        run_.drop.mask(static_cast<uint64_t>(first), n, mk);
        const float dsc = run_.drop.scale;
        for (int64_t t = 0; t < n; ++t) {
          const float p = mk[t] != 0.0f ? (exp_flush(s[t] - m) / l) * dsc : 0.0f;
          amax = std::max(amax, p);
          s[t] = p * sc;
        }
      } else {
        for (int64_t t = 0; t < n; ++t) {
          const float p = exp_flush(s[t] - m) / l;
          amax = std::max(amax, p);
          s[t] = p * sc;
        }
      }
      amax_s_ = amax;
      if (p_.p_type == CUDNN_DATA_FP8_E4M3)
        for (int64_t t = 0; t < n; ++t) s[t] = round_to_e4m3(s[t]);
      else
        for (int64_t t = 0; t < n; ++t) s[t] = round_to_e5m2(s[t]);
    }

    void redo_row(int64_t bi, int64_t i0, int64_t r) {
      // Save the block's state, recompute row r alone, put its result back.
      const int64_t dv = p_.d_v;
      std::vector<float> m = m_, l = l_, acc = acc_;
      std::vector<char> sk = skipped_;
      rows_pass(bi, i0 + r, 1, false);
      m[static_cast<size_t>(r)] = m_[0], l[static_cast<size_t>(r)] = l_[0];
      std::copy(acc_.begin(), acc_.begin() + dv, acc.begin() + r * dv);
      m_.swap(m), l_.swap(l), acc_.swap(acc), skipped_.swap(sk);
    }

    // Whether the trailing selects reject every element of the block, keep
    // every element, or some of each.
    using Block = ScoreBlock::State;
    // One key block of row r: s becomes its softmax weights against the new
    // running max; the running sum and the accumulator row are rescaled.
    void softmax_update(int64_t r, float *s, int64_t n) {
      const float mx = row_max(s, n);
      const size_t ri = static_cast<size_t>(r);
      const float m_new = std::max(m_[ri], mx);
      if (m_new == -std::numeric_limits<float>::infinity()) {
        // Everything so far is -inf: it adds exp(-inf - max) = 0 later, or
        // the row ends all -inf and its result is NaN (written at the end).
        std::fill(s, s + n, 0.0f);
        return;
      }
      for (int64_t t = 0; t < n; ++t) s[t] = exp_flush(s[t] - m_new);
      // Eight partial sums so that the loop vectorises.
      float part[8] = {};
      int64_t t = 0;
      for (; t + 8 <= n; t += 8)
        for (int k = 0; k < 8; ++k) part[k] += s[t + k];
      float sum = 0;
      for (; t < n; ++t) sum += s[t];
      for (float v : part) sum += v;
      const float corr = exp_flush(m_[ri] - m_new);
      if (corr != 1.0f) {
        float *a = acc_.data() + r * p_.d_v;
        for (int64_t c = 0; c < p_.d_v; ++c) a[c] *= corr;
      }
      l_[ri] = l_[ri] * corr + sum;
      m_[ri] = m_new;
    }

    void write(int64_t bi, int64_t i0, int64_t rows) {
      const Plan &pl = run_.plan;
      const int64_t dv = p_.d_v;
      const float nan = std::numeric_limits<float>::quiet_NaN();
      const std::vector<float> &scales = run_.o_scales;
      const bool amax_o = p_.amax_o != graph::kNoTensor;
      visit_fast_type(pl.o_.dtype, [&](auto s) {
        using S = decltype(s);
        auto *o = static_cast<typename S::type *>(run_.o) + pl.o_.offsets[static_cast<size_t>(bi)];
        for (int64_t r = 0; r < rows; ++r) {
          const size_t ri = static_cast<size_t>(r);
          const bool dead = m_[ri] == -std::numeric_limits<float>::infinity();
          // The two-pass accumulator holds P V already (P normalised).
          const float inv = dead ? nan : run_.two_pass ? 1.0f : 1.0f / l_[ri];
          const float *a = acc_.data() + r * dv;
          auto *orow = o + (i0 + r) * pl.o_.rs;
          if (scales.empty() && !amax_o) {
            for (int64_t c = 0; c < dv; ++c) orow[c * pl.o_.cs] = S::from_float(a[c] * inv);
            continue;
          }
          // O = (P V) * each scale in order; amax_O taps after o_amax_at.
          for (int64_t c = 0; c < dv; ++c) {
            float v = a[c] * inv;
            for (size_t k = 0; k < scales.size(); ++k) {
              if (amax_o && k == p_.o_amax_at && !dead) amax_o_ = std::max(amax_o_, std::fabs(v));
              v *= scales[k];
            }
            if (amax_o && p_.o_amax_at == scales.size() && !dead) amax_o_ = std::max(amax_o_, std::fabs(v));
            orow[c * pl.o_.cs] = S::from_float(v);
          }
        }
      });
      if (run_.stats) {
        float *st = static_cast<float *>(run_.stats) + pl.stats_.offsets[static_cast<size_t>(bi)];
        for (int64_t r = 0; r < rows; ++r) {
          const size_t ri = static_cast<size_t>(r);
          const bool dead = m_[ri] == -std::numeric_limits<float>::infinity();
          st[(i0 + r) * pl.stats_.rs] = dead ? nan : m_[ri] + std::log(l_[ri]);
        }
      }
    }

    const Run &run_;
    const SdpaPattern &p_;
    std::vector<float> acc_, m_, l_;
    UninitFloats s_, qbuf_, drop_;  // every element is written before it is read
    ScoreBlock score_;
    std::vector<char> skipped_, eval_mask_;
    const float *kt_ptr_ = nullptr, *v_ptr_ = nullptr;
    int64_t v_ld_ = 0;
    float amax_s_ = 0, amax_o_ = 0;  // this worker's share of the amax outputs
    std::vector<float> saved_;        // the first FP8 pass's scores, rows x s_kv
  };

  SdpaPattern p_;
  MatrixView q_, k_, v_, o_, stats_;
  int64_t batches_ = 1;
  std::vector<int64_t> k_slot_, k_rep_, v_slot_, v_rep_;  // per score batch: staged matrix; per matrix: a batch
  bool v_direct_ = false;
  PagedOperand k_paged_, v_paged_;  // when K / V come from paged caches
  std::vector<char> pre_nodes_, trail_nodes_;
};

class FusedSdpaEngine final : public Engine {
 public:
  const char *name() const override { return "cpu.fusion.sdpa"; }
  DeviceKind device() const override { return DeviceKind::cpu; }
  // Before the op-by-op engine (900), which runs the same graphs with the
  // s_q x s_kv scores materialised.
  int priority() const override { return 50; }
  Support supports(const graph::Graph &g) const override {
    SdpaPattern p;
    Support s = match_sdpa(g, &p);
    if (!s) return s;
    for (const SdpaSideNode &n : p.nodes)
      if (n.kind == SdpaSideNode::Kind::tensor && !is_fast_type(n.dtype) && n.dtype != CUDNN_DATA_BOOLEAN)
        return Support::no(cat("mask or bias tensor ", n.uid, " has a data type this engine does not read"));
    if (p.d <= 0 || p.d_v <= 0 || p.s_kv <= 0) return Support::no("empty attention");
    return Support::yes();
  }
  std::unique_ptr<ExecutionPlan> make_plan(const graph::Graph &g, const std::vector<KnobChoice> &) const override {
    SdpaPattern p;
    Support s = match_sdpa(g, &p);
    if (!s) fail(CUDNN_STATUS_NOT_SUPPORTED, s.reason);
    return std::make_unique<Plan>(*this, g, std::move(p));
  }
};

}  // namespace
}  // namespace fdnn::cpu

using fdnn::cpu::FusedSdpaEngine;
FDNN_REGISTER_ENGINE(FusedSdpaEngine)
