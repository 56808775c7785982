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
//   dP   = MATMUL(dO, V^T)                         [dropout: MUL(dP, M)]
//   dS0  = MUL(SUB(dP, softmax_sum), E)            [dropout: MUL(., scale)]
//                                                  [-> REDUCTION ADD -> dBias]
//   dS   = [MUL(dS0, scale)]
//   dK^T = MATMUL(Q^T, [IDENTITY] dS)              [-> REDUCTION ADD -> dK^T]
//   dQ   = MATMUL(dS, K) [-> dQ_accum float, IDENTITY -> dQ]
//
// Q^T, K, dO^T are caller tensors of their own (cuDNN's graphs reach them
// through view reshapes); a fused engine reads each from its own uid, so the
// result is the graph's whatever memory the caller binds.
#pragma once

#include "core/engine.hpp"
#include "core/sdpa_pattern.hpp"
#include "graph/graph.hpp"

namespace fdnn {

struct SdpaBwdPattern {
  // The score chain Q K^T -> steps -> (EXP): q, kt, rank, s_q, s_kv, d,
  // batch_dims, nodes, steps, first_trailing_select, features. Its v, o and
  // stats fields are unused; d_v is set. Dropout: s.rng_op and
  // s.dropout_scale (the scale of the dropped P), ds_drop_scale below.
  SdpaPattern s;
  graph::Uid o = graph::kNoTensor, d_o = graph::kNoTensor, vt = graph::kNoTensor;
  graph::Uid qt = graph::kNoTensor, kn = graph::kNoTensor, d_ot = graph::kNoTensor;
  graph::Uid softmax_sum = graph::kNoTensor;  // written when not virtual
  int dot_scale = -1;                         // side node of Dot's scalar
  int ds_scale = -1;                          // side node of dS's scalar (-1: none)
  int ds_drop_scale = -1;                     // dropout: side node of the scalar after MUL(., E)
  graph::Uid dq = graph::kNoTensor, dq_accum = graph::kNoTensor;  // dq_accum: kNoTensor when dQ comes directly
  graph::Uid dkt = graph::kNoTensor, dvt = graph::kNoTensor;     // dK^T, dV^T: [.., d, s_kv], [.., d_v, s_kv]
  graph::Uid dbias = graph::kNoTensor;
};

// Matches g; on success fills *out. The reason says what did not match.
Support match_sdpa_bwd(const graph::Graph &g, SdpaBwdPattern *out);

}  // namespace fdnn
