// The score chain of an attention pattern (core/sdpa_pattern.hpp) over one
// block of the score matrix, shared by the fused forward and backward
// engines: the side-expression nodes (row / column indices, constants,
// caller tensors, arithmetic on them) evaluated for the block, the score
// steps (scale, bias, masks) applied to its rows, and whether the trailing
// selects mask the whole block, keep all of it, or some of each.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "core/engine.hpp"
#include "core/pointwise_math.hpp"
#include "core/sdpa_pattern.hpp"
#include "cpu/dtype_io.hpp"
#include "cpu/sdpa_kernels.hpp"

namespace fdnn::cpu::sdpa_kernels {

// The side nodes the steps before the trailing selects read (pre) and those
// the trailing selects read (trail), with the nodes they are computed from.
struct SideNodeMarks {
  std::vector<char> pre, trail;
  explicit SideNodeMarks(const SdpaPattern &p) : pre(p.nodes.size(), 0), trail(p.nodes.size(), 0) {
    for (size_t i = 0; i < p.steps.size(); ++i) {
      std::vector<char> &marks = i < p.first_trailing_select ? pre : trail;
      mark(p, p.steps[i].side, marks);
      mark(p, p.steps[i].cond, marks);
    }
  }

 private:
  static void mark(const SdpaPattern &p, int node, std::vector<char> &marks) {
    if (node < 0 || marks[static_cast<size_t>(node)]) return;
    marks[static_cast<size_t>(node)] = 1;
    mark(p, p.nodes[static_cast<size_t>(node)].a, marks);
    mark(p, p.nodes[static_cast<size_t>(node)].b, marks);
  }
};

// The side nodes' inputs of one execution: by-value constants (rounded to
// their node's type), and caller tensors with their views over the score
// batches.
inline SideInputs side_inputs(const SdpaPattern &p, const graph::Graph &g, const VariantPack &pack) {
  SideInputs side;
  side.constant.assign(p.nodes.size(), 0.0f);
  side.data.assign(p.nodes.size(), nullptr);
  side.views.resize(p.nodes.size());
  side.scalar.assign(p.nodes.size(), 0);
  for (size_t i = 0; i < p.nodes.size(); ++i) {
    const SdpaSideNode &n = p.nodes[i];
    if (n.kind == SdpaSideNode::Kind::constant && n.uid != graph::kNoTensor)
      side.constant[i] = round_to_node(n, static_cast<float>(g.tensor(n.uid).value));
    if (n.kind == SdpaSideNode::Kind::tensor) {
      side.data[i] = pack.get(n.uid);
      side.views[i] = view(g.tensor(n.uid), p.batch_dims, false);
      int64_t elements = 1;
      for (int64_t d : g.tensor(n.uid).dims) elements *= d;
      if (elements == 1) {
        side.scalar[i] = 1;
        side.constant[i] = round_to_node(n, static_cast<float>(load_lane(n.dtype, side.data[i], 0)));
      }
    }
  }
  return side;
}

// The value of a scalar node (a by-value constant or a one-element tensor);
// 1 for no node (-1).
inline float side_scalar(const SdpaPattern &p, const SideInputs &side, int node) {
  if (node < 0) return 1.0f;
  const size_t k = static_cast<size_t>(node);
  const SdpaSideNode &n = p.nodes[k];
  if (n.kind == SdpaSideNode::Kind::tensor)
    return round_to_node(n, static_cast<float>(load_lane(n.dtype, side.data[k], 0)));
  return side.constant[k];
}

// Whether blocks that the trailing selects reject entirely may be skipped:
// there are such selects and every fill is at most -1e30, so exp(fill - max)
// is 0 (see SdpaPattern::first_trailing_select). *max_fill: the largest fill.
inline bool masked_blocks_skippable(const SdpaPattern &p, const SideInputs &side, float *max_fill) {
  bool skip = p.first_trailing_select < p.steps.size();
  *max_fill = -std::numeric_limits<float>::infinity();
  for (size_t s = p.first_trailing_select; s < p.steps.size(); ++s) {
    const SdpaScoreStep &st = p.steps[s];
    const float fill = static_cast<float>(st.alpha_side) * side.constant[static_cast<size_t>(st.side)];
    *max_fill = std::max(*max_fill, fill);
    if (!(fill <= -1e30f)) skip = false;
  }
  return skip;
}

// Per worker: node values for blocks of up to max_rows x max_cols scores.
class ScoreBlock {
 public:
  enum class State { masked, kept, mixed };

  ScoreBlock(const SdpaPattern &p, const SideInputs &side, int64_t max_rows, int64_t max_cols)
      : p_(p), side_(side), block_(static_cast<size_t>(max_rows * max_cols)) {
    nodes_.resize(p_.nodes.size() * block_);
    alive_.resize(block_);
    iota_.resize(static_cast<size_t>(max_cols));
    for (size_t t = 0; t < iota_.size(); ++t) iota_[t] = static_cast<float>(t);
  }

  // Whether the trailing selects reject every element of the block, keep
  // every element, or some of each (evaluates the `trail` nodes).
  State state(int64_t bi, int64_t i0, int64_t rows, int64_t j0, int64_t n, const std::vector<char> &trail) {
    eval_nodes(bi, i0, rows, j0, n, trail);
    float *alive = alive_.data();
    const int64_t count = rows * n;
    std::fill(alive, alive + count, 1.0f);
    for (size_t s = p_.first_trailing_select; s < p_.steps.size(); ++s) {
      const SdpaScoreStep &st = p_.steps[s];
      const float *cond = node(st.cond);
      if (st.score_is_x)
        for (int64_t t = 0; t < count; ++t) alive[t] = cond[t] != 0.0f ? alive[t] : 0.0f;
      else
        for (int64_t t = 0; t < count; ++t) alive[t] = cond[t] != 0.0f ? 0.0f : alive[t];
    }
    const bool any_kept = row_max(alive, count) > 0.0f;
    for (int64_t t = 0; t < count; ++t) alive[t] = 1.0f - alive[t];
    const bool any_masked = row_max(alive, count) > 0.0f;
    if (any_kept && any_masked) return State::mixed;
    return any_kept ? State::kept : State::masked;
  }

  // The side nodes marked in `only` over score rows [i0, i0 + rows) x
  // columns [j0, j0 + n) of score batch bi: one pass per node over the block.
  void eval_nodes(int64_t bi, int64_t i0, int64_t rows, int64_t j0, int64_t n, const std::vector<char> &only) {
    const int64_t count = rows * n;
    for (size_t k = 0; k < p_.nodes.size(); ++k) {
      if (!only[k]) continue;
      const SdpaSideNode &nd = p_.nodes[k];
      float *out = node(static_cast<int>(k));
      switch (nd.kind) {
        case SdpaSideNode::Kind::row:
          for (int64_t r = 0; r < rows; ++r) std::fill(out + r * n, out + (r + 1) * n, static_cast<float>(i0 + r));
          break;
        case SdpaSideNode::Kind::col:
          // Column indices from a float iota: int64 -> float conversions
          // do not vectorise (indices stay below 2^24, exact in float).
          for (int64_t r = 0; r < rows; ++r) {
            const float base = static_cast<float>(j0);
            for (int64_t t = 0; t < n; ++t) out[r * n + t] = base + iota_[static_cast<size_t>(t)];
          }
          break;
        case SdpaSideNode::Kind::constant: std::fill(out, out + count, side_.constant[k]); break;
        case SdpaSideNode::Kind::tensor:
          if (side_.scalar[k]) {
            std::fill(out, out + count, side_.constant[k]);
            break;
          }
          for (int64_t r = 0; r < rows; ++r) load_side(k, bi, i0 + r, j0, n, out + r * n);
          break;
        case SdpaSideNode::Kind::unary:
        case SdpaSideNode::Kind::binary: {
          const float *a = node(nd.a), *b = nd.b >= 0 ? node(nd.b) : a;
          const float a1 = static_cast<float>(nd.alpha1), a2 = static_cast<float>(nd.alpha2);
          pw::Params<float> prm;
          pw::visit_mode(nd.mode, [&](auto op) {
            using Op = decltype(op);
            for (int64_t t = 0; t < count; ++t) out[t] = Op::template apply<float>(a1 * a[t], a2 * b[t], 0.0f, prm);
          });
          if (nd.dtype == CUDNN_DATA_INT32)
            for (int64_t t = 0; t < count; ++t) out[t] = std::nearbyint(out[t]);
          else if (nd.dtype == CUDNN_DATA_BOOLEAN)
            for (int64_t t = 0; t < count; ++t) out[t] = out[t] != 0.0f ? 1.0f : 0.0f;
          break;
        }
      }
    }
  }

  // The score steps on row r (n scores at s) of the evaluated block;
  // `kept`: the trailing selects keep every element, so only the steps
  // before them run.
  void apply_steps(int64_t r, int64_t n, float *s, bool kept) const {
    const size_t steps = kept ? p_.first_trailing_select : p_.steps.size();
    for (size_t si = 0; si < steps; ++si) {
      const SdpaScoreStep &st = p_.steps[si];
      const float as = static_cast<float>(st.alpha_score), ad = static_cast<float>(st.alpha_side);
      const float *side = st.side >= 0 ? node(st.side) + r * n : nullptr;
      if (st.mode == CUDNN_POINTWISE_BINARY_SELECT) {
        const float *cond = node(st.cond) + r * n;
        if (st.score_is_x)
          for (int64_t t = 0; t < n; ++t) s[t] = cond[t] != 0.0f ? as * s[t] : ad * side[t];
        else
          for (int64_t t = 0; t < n; ++t) s[t] = cond[t] != 0.0f ? ad * side[t] : as * s[t];
        continue;
      }
      // The common arithmetic steps as plain loops (they vectorise).
      if (st.mode == CUDNN_POINTWISE_MUL && side) {
        for (int64_t t = 0; t < n; ++t) s[t] = (as * s[t]) * (ad * side[t]);
        continue;
      }
      if (st.mode == CUDNN_POINTWISE_ADD && side) {
        for (int64_t t = 0; t < n; ++t) s[t] = (as * s[t]) + (ad * side[t]);
        continue;
      }
      if (st.mode == CUDNN_POINTWISE_SUB && side && st.score_is_x) {
        for (int64_t t = 0; t < n; ++t) s[t] = (as * s[t]) - (ad * side[t]);
        continue;
      }
      pw::Params<float> prm;
      pw::visit_mode(st.mode, [&](auto op) {
        using Op = decltype(op);
        if (!side)
          for (int64_t t = 0; t < n; ++t) s[t] = Op::template apply<float>(as * s[t], 0.0f, 0.0f, prm);
        else if (st.score_is_x)
          for (int64_t t = 0; t < n; ++t) s[t] = Op::template apply<float>(as * s[t], ad * side[t], 0.0f, prm);
        else
          for (int64_t t = 0; t < n; ++t) s[t] = Op::template apply<float>(ad * side[t], as * s[t], 0.0f, prm);
      });
    }
  }

 private:
  // Node i's values over the current block: rows x n, row-major.
  const float *node(int i) const { return nodes_.data() + static_cast<size_t>(i) * block_; }
  float *node(int i) { return nodes_.data() + static_cast<size_t>(i) * block_; }

  void load_side(size_t k, int64_t bi, int64_t i, int64_t j0, int64_t n, float *out) const {
    const MatrixView &m = side_.views[k];
    const int64_t base = m.offsets[static_cast<size_t>(bi)] + i * m.rs + j0 * m.cs;
    const bool ok = visit_fast_type(m.dtype, [&](auto s) {
      using S = decltype(s);
      const auto *p = static_cast<const typename S::type *>(side_.data[k]) + base;
      for (int64_t t = 0; t < n; ++t) out[t] = S::to_float(p[t * m.cs]);
    });
    if (!ok)
      for (int64_t t = 0; t < n; ++t) out[t] = static_cast<float>(load_lane(m.dtype, side_.data[k], base + t * m.cs));
  }

  const SdpaPattern &p_;
  const SideInputs &side_;
  size_t block_;
  std::vector<float> iota_;
  UninitFloats nodes_, alive_;  // every element is written before it is read
};

}  // namespace fdnn::cpu::sdpa_kernels
