// Recognises a scaled dot-product attention BACKWARD graph (the composite
// form of cudnn-frontend's sdpa_backward, transposes written as strides) and
// describes it for fused engines:
//
//   Dot  = MUL(REDUCTION ADD(MUL(dO, O)) [.., s_q, 1], c) -> softmax_sum
//          (c a scalar: 1, or the dropout keep probability)
//   S0   = MATMUL(Q, K^T); score steps (as the forward's: scale, bias, ALiBi,
//          masks, and here the SUB of the forward's stats)
//   E    = EXP(S)                                  the softmax P recomputed
//   [dropout: E' = MUL(MUL(E, M), scale), M the y of a BERNOULLI RngOp]
//   dV^T = MATMUL(dO^T, [IDENTITY] E')             [-> REDUCTION ADD -> dV^T]
//   dP   = MATMUL(dO, V^T)                         [dropout: MUL(dP, M); not in FP8]
//   dS0  = MUL(SUB(dP, softmax_sum), E)            [dropout: MUL(., scale)]
//                                                  [-> REDUCTION ADD -> dBias]
//   dS   = [MUL(dS0, scale)]
//   dK^T = MATMUL(Q^T, [IDENTITY] dS)              [-> REDUCTION ADD -> dK^T]
//   dQ   = MATMUL(dS, K) [-> dQ_accum float, IDENTITY -> dQ]
//
// FP8 (cudnn-frontend's sdpa_fp8_backward, per-tensor scales): Q, K, V, O,
// dO FP8; Dot and dP multiplied by descale scalars (more MULs by caller
// scalars in their chains); dV^T's matmul reads FP8(E * scale_s), dS (after
// its scale) feeds AMAX (amax_dP) and MUL(scale_dP) into an FP8 dS8 that dQ
// and dK^T read; the products run through float (and the group's ADD
// reduction), MULs by descales and an AMAX tap, then the last MUL (the
// output scale) writes dQ, dK^T, dV^T (SdpaScaledOut).
//
// Q^T, K, dO^T are caller tensors of their own (cuDNN's graphs reach them
// through view reshapes); a fused engine reads each from its own uid, so the
// result is the graph's whatever memory the caller binds. cudnn-frontend's
// own form, dV = MATMUL(P^T, dO) and dK = MATMUL(dS^T, Q) with P^T and dS^T
// RESHAPE views (transposes) of the virtual P and dS cast by the reshape to
// the I/O type, is the same computation: dv_plain / dk_plain below.
#pragma once

#include <vector>

#include "core/engine.hpp"
#include "core/sdpa_pattern.hpp"
#include "graph/graph.hpp"

namespace fdnn {

// A float product written through MULs by caller scalars (side nodes, in
// order), with amax = AMAX of the value after the first amax_at of them.
struct SdpaScaledOut {
  std::vector<int> scales;
  graph::Uid amax = graph::kNoTensor;
  size_t amax_at = 0;
};

struct SdpaBwdPattern {
  // The score chain Q K^T -> steps -> (EXP): q, kt, rank, s_q, s_kv, d,
  // batch_dims, nodes, steps, first_trailing_select, features. Its v, o and
  // stats fields are unused; d_v is set. Dropout: s.rng_op and
  // s.dropout_scale (the scale of the dropped P), ds_drop_scale below.
  SdpaPattern s;
  graph::Uid o = graph::kNoTensor, d_o = graph::kNoTensor, vt = graph::kNoTensor;
  graph::Uid qt = graph::kNoTensor, kn = graph::kNoTensor, d_ot = graph::kNoTensor;
  graph::Uid softmax_sum = graph::kNoTensor;  // written when not virtual
  std::vector<int> dot_scales;                // side nodes of Dot's scalars, in order
  std::vector<int> dp_scales;                 // FP8: dP's descales, in order
  int ds_scale = -1;                          // side node of dS's scalar (-1: none)
  int ds_drop_scale = -1;                     // dropout: side node of the scalar after MUL(., E)
  bool dp_masked = false;                     // dropout: dP is multiplied by the mask (FP8 graphs: not)
  graph::Uid dq = graph::kNoTensor, dq_accum = graph::kNoTensor;  // dq_accum: kNoTensor when dQ comes directly
  graph::Uid dkt = graph::kNoTensor, dvt = graph::kNoTensor;     // dK^T, dV^T: [.., d, s_kv], [.., d_v, s_kv]
  // cudnn-frontend's own products: dV = MATMUL(P^T, dO) and dK = MATMUL(dS^T,
  // Q), P^T / dS^T RESHAPE views of the virtual P / dS cast to the I/O
  // type. Then dvt (dkt) is dV (dK) itself, [.., s_kv, d_v], and d_ot (qt)
  // is dO (Q) itself: engines read them untransposed.
  bool dv_plain = false, dk_plain = false;
  graph::Uid dbias = graph::kNoTensor;
  // FP8: P for dV is FP8(E * p8_scale) of type p8_type (FLOAT: not rounded);
  // dS for dQ and dK is FP8(dS * ds8_scale) of ds8_type; amax_dp = AMAX(dS).
  int p8_scale = -1, ds8_scale = -1;
  cudnnDataType_t p8_type = CUDNN_DATA_FLOAT, ds8_type = CUDNN_DATA_FLOAT;
  graph::Uid amax_dp = graph::kNoTensor;
  SdpaScaledOut dq_out, dk_out, dv_out;
};

// Matches g; on success fills *out. The reason says what did not match.
Support match_sdpa_bwd(const graph::Graph &g, SdpaBwdPattern *out);

}  // namespace fdnn
