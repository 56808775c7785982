// Builders for scaled dot-product attention BACKWARD graphs through the
// public backend API, after cudnn-frontend's sdpa_backward composite node
// (flash attention bprop, the graph guide's 7.8), reusing the forward's
// config, shapes and data (backend_sdpa.hpp):
//
//   Dot  = MUL(REDUCTION ADD over d_v of MUL(dO, O), 1.0 by value)
//          -> softmax_sum, a caller float tensor [.., s_q, 1] (the frontend
//          puts it in its workspace)
//   S    = MATMUL(Q, K^T) -> MUL scale -> [ADD bias] -> [ALiBi] -> [padding
//          SELECT] -> SUB stats -> [causal SELECT] -> [window SELECT]
//   E    = EXP(S)                         (P: the softmax recomputed)
//   dV^T = MATMUL(dO^T, IDENTITY(E) as the I/O type)   [GQA/MQA: per Q head
//          in the I/O type, then REDUCTION ADD over the head group]
//   dP   = MATMUL(dO, V^T)
//   dS0  = MUL(SUB(dP, softmax_sum), E)   [dBias = REDUCTION ADD of dS0]
//   dS   = MUL(dS0, scale)
//   dK^T = MATMUL(Q^T, IDENTITY(dS) as the I/O type) [GQA/MQA as dV]
//   with dropout (f.dropout > 0): Dot's 1 is the keep probability 1 - p, E
//          is MUL(MUL(E, M), 1 / (1 - p)) for dV, dP is MUL(dP, M) and dS0
//          is MUL(dS0, 1 / (1 - p)), M the y of the forward's RNG op
//   dQ_accum = MATMUL(dS, K) (caller float tensor), dQ = IDENTITY(dQ_accum);
//          with dBias: dQ = MATMUL(dS, K) directly (the frontend's two forms)
//
// The frontend expresses the transposes as RESHAPE ops whose output dims
// permute the input's (cuDNN's view reshape: the same memory read with
// permuted strides). These graphs write dV and dK as dV^T / dK^T (dims
// [.., d, s_kv], dV's strides swapped), and form dO^T, Q^T and K either as
// extra uids the caller binds to the same memory as dO, Q and K^T, or
// (reshapes) as RESHAPE views. Casts (the reshapes' type change) are IDENTITY.
#pragma once

#include <cudnn.h>

#include <vector>

#include "common/backend_sdpa.hpp"

namespace fdnn_test {

struct SdpaBwdConfig {
  SdpaConfig f;         // the forward problem (its stats and p_scale are ignored; dropout applies)
  bool dbias = false;   // with f.bias: dBias [1, h, s_q, s_kv] float output
  bool gapped = false;  // dQ, dK, dV with gaps between rows and matrices (their own strides)
  // Q^T, K, dO^T and V^T as the frontend forms them: virtual RESHAPE views of
  // Q, K^T, dO and V (V then bound in its own dims), not extra caller uids.
  bool reshapes = false;
  // cudnn-frontend's products for dV and dK: dV = MATMUL(P^T, dO) and dK =
  // MATMUL(dS^T, Q), P^T and dS^T RESHAPE views of the virtual P and dS
  // (transposed strides, cast to the I/O type), dV and dK written in K's /
  // V's own dims ([.., s_kv, d]); no dO^T or Q^T. Grouped heads then sum
  // [b, h, s_kv, d] into [b, h_kv, s_kv, d] (with f.rank4_groups, a
  // grouped REDUCTION as the frontend's).
  bool frontend = false;
  std::string name() const;
};

// Uids of the backward graph's caller tensors, beyond the forward's.
enum SdpaBwdUid : int64_t {
  kBwdDO = 20, kBwdDQ, kBwdDK, kBwdDV, kBwdDBias, kBwdQT, kBwdKn, kBwdDOT, kBwdSoftmaxSum, kBwdDqAccum, kBwdOne,
};

SdpaGraph build_sdpa_bwd_graph(const SdpaBwdConfig &c);

// Dims and strides of dQ, dK, dV (dK, dV in K's / V's dims, not transposed).
struct SdpaGradShapes {
  std::vector<int64_t> dims, strides;
};
SdpaGradShapes sdpa_grad_shape(const SdpaBwdConfig &c, char which);  // 'q', 'k' or 'v'

// Host data: the forward's inputs (make_sdpa_data), O and stats from a
// float64 forward (rounded to their types), dO random, outputs poisoned.
struct SdpaBwdData {
  SdpaData f;
  HostTensor d_o, dq, dk, dv, dbias, softmax_sum, dq_accum;
};
SdpaBwdData make_sdpa_bwd_data(const SdpaBwdConfig &c, Rng &rng);

// float64 attention backward from the host inputs (O and stats as stored),
// independent of the library; values in logical row-major order of dQ's,
// dK's, dV's and dBias's dims, with per-element tolerances.
struct SdpaBwdExpect {
  std::vector<Expect> dq, dk, dv, dbias, softmax_sum;
};
SdpaBwdExpect sdpa_bwd_reference(const SdpaBwdConfig &c, const SdpaBwdData &d);

// The plain float64 loss gradient for a finite-difference check: L = sum(dO
// * O(Q, K, V)) with O the forward attention (masks as the config says).
double sdpa_loss(const SdpaConfig &c, const SdpaData &d, const HostTensor &d_o);

}  // namespace fdnn_test
