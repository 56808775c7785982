// Recognises a scaled dot-product attention forward graph (the composite form
// cudnn-frontend lowers its sdpa node to) and describes it for fused engines:
//
//   S0 = MATMUL(Q, K^T)                        Q [.., s_q, d], K^T [.., d, s_kv]
//   S1..Sn = score steps: pointwise ops with the running score as one operand
//            and a side expression as the other (scale, bias, ALiBi, masks
//            through BINARY_SELECT with a fill value)
//   m = REDUCTION MAX(Sn) [.., s_q, 1];  e = EXP(SUB(Sn, m));
//   l = REDUCTION ADD(e);  P = DIV(e, l);  [stats = ADD(m, LOG(l))]
//   [dropout: P = MUL(P, RNG BERNOULLI y) [-> MUL(P, scalar)], cudnn-frontend's form]
//   O = MATMUL(P, V)                           V [.., s_kv, d_v], O [.., s_q, d_v]
//   [paged K/V: K^T and / or V the virtual outputs of PAGED_CACHE_LOAD ops
//    reading caller containers, page tables and sequence lengths]
//   [FP8: Q, K, V, O of FP8 types; amax_S = AMAX(P), P8 = FP8(P * scale_s),
//    O_f = MATMUL(P8, V) virtual float, MULs by caller scalars (descales)
//    with an AMAX tap (amax_O), the last MUL (scale_o) writing O]
//
// Side expressions are small DAGs of GEN_INDEX (row / column of the score),
// by-value scalars, caller tensors that broadcast to the score (bias, seq_len,
// ALiBi slopes, a scale tensor) and element-wise arithmetic, comparison and
// logic on them. Everything between the matmuls must be virtual; the matcher
// says why not when the graph is anything else.
#pragma once

#include <cudnn_graph.h>

#include <string>
#include <vector>

#include "core/engine.hpp"
#include "graph/graph.hpp"

namespace fdnn {

// A node of a side expression, evaluated per score element (batch, i, j).
struct SdpaSideNode {
  enum class Kind { row, col, constant, tensor, unary, binary };
  Kind kind = Kind::constant;
  cudnnPointwiseMode_t mode = CUDNN_POINTWISE_IDENTITY;  // unary / binary
  int a = -1, b = -1;                                     // operand nodes
  double alpha1 = 1, alpha2 = 1;
  graph::Uid uid = graph::kNoTensor;  // tensor / constant (by-value) source
  // Type of the node's tensor: results are rounded to it (INT32 rounds,
  // BOOLEAN becomes 0/1, FLOAT rounds to float).
  cudnnDataType_t dtype = CUDNN_DATA_FLOAT;
};

// One step of the score chain: score' = f(score, side).
struct SdpaScoreStep {
  cudnnPointwiseMode_t mode = CUDNN_POINTWISE_IDENTITY;
  bool score_is_x = true;     // the score is the op's x (else its b)
  int side = -1;              // binary modes: the other operand's node
  int cond = -1;              // BINARY_SELECT: the condition node
  double alpha_score = 1, alpha_side = 1;
  graph::Uid y = graph::kNoTensor;
};

// Mask families the steps were recognised as (for messages and the bench).
struct SdpaFeatures {
  bool scale = false, bias = false, alibi = false, causal = false, padding = false, window = false;
  std::string to_string() const;
};

struct SdpaPattern {
  graph::Uid q = graph::kNoTensor, kt = graph::kNoTensor, v = graph::kNoTensor, o = graph::kNoTensor;
  graph::Uid stats = graph::kNoTensor;  // kNoTensor when the graph has no stats output
  int rank = 0;                          // of Q, K^T, V, O and the score
  int64_t s_q = 0, s_kv = 0, d = 0, d_v = 0;
  std::vector<int64_t> batch_dims;       // the score's leading dims
  std::vector<SdpaSideNode> nodes;
  std::vector<SdpaScoreStep> steps;
  // The trailing steps that are BINARY_SELECTs of a by-value fill: a score
  // element is "masked" when one of their conditions rejects it; fused
  // engines may skip blocks where every element is masked when every such
  // fill is at most -1e30 (exp(fill - max) is then 0 unless the whole row is
  // masked, which engines detect and recompute).
  size_t first_trailing_select = 0;
  SdpaFeatures features;
  // Dropout of P: the graph's RngOp (BERNOULLI; its y has the scores' dims,
  // element (batch bi, i, j) at logical index (bi * s_q + i) * s_kv + j) and
  // the side node of the scalar multiplied after the mask (-1: none).
  static constexpr size_t kNoRng = static_cast<size_t>(-1);
  static constexpr size_t kNoOp = static_cast<size_t>(-1);
  // Paged K/V: the PagedCacheLoadOp whose virtual output K^T (kt) or V (v)
  // is (kNoOp: a caller tensor). Fused engines gather the pages themselves.
  size_t k_paged = kNoOp, v_paged = kNoOp;
  // FP8 (cudnn-frontend's sdpa_fp8): amax_s = AMAX(P) (a caller float
  // scalar), P rounded to p_type after MUL by the side node p_scale before
  // P V (p_type FLOAT: no rounding, P V reads P itself); O = (P V) * each
  // side node of o_scales in order, amax_o = AMAX of the value after the
  // first o_amax_at of them.
  graph::Uid amax_s = graph::kNoTensor, amax_o = graph::kNoTensor;
  int p_scale = -1;
  cudnnDataType_t p_type = CUDNN_DATA_FLOAT;
  std::vector<int> o_scales;
  size_t o_amax_at = 0;
  size_t rng_op = kNoRng;
  int dropout_scale = -1;
};

// Matches g; on success fills *out. The reason says what did not match.
Support match_sdpa(const graph::Graph &g, SdpaPattern *out);

}  // namespace fdnn
