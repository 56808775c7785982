// The FP8 scaled dot-product attention BACKWARD graph through the public
// backend API, in the form cudnn-frontend's sdpa_fp8_backward node lowers to
// (per-tensor scaling, optional dropout: see SdpaFp8BwdConfig), rank 4 (multi-query heads too), or for
// 1 < h_kv < h the grouped rank-5 form of the other attention graphs:
//
//   Dot  = REDUCTION ADD over d_v of MUL(dO, O) * descale_dO * descale_O
//   S    = MATMUL(Q, K^T) * attn_scale * descale_q * descale_k [causal SELECT]
//   E    = EXP(SUB(S, stats))                (stats: the forward's, float)
//   P8   = FP8(E * scale_s)
//   dV   = matmul_fp8(P8^T, dO, descale_s, descale_dO, scale_dV)   -> amax_dV
//   dP   = MATMUL(dO, V^T) * descale_dO * descale_V
//   dS   = MUL(SUB(dP, Dot), E) * attn_scale;  amax_dP = AMAX(dS)
//   dS8  = FP8(dS * scale_dP)
//   dQ   = matmul_fp8(dS8, K, descale_dP, descale_K, scale_dQ)      -> amax_dQ
//   dK   = matmul_fp8(dS8^T, Q, descale_dP, descale_Q, scale_dK)    -> amax_dK
//
// matmul_fp8(A, B, da, db, sc) is the frontend's: C_f = MATMUL(A, B) [GQA:
// REDUCTION ADD over the head group] * da * db, amax = AMAX(C_f), C =
// FP8(C_f * sc) (the group sum reduces dimension 2 of the rank-5 form, or
// the heads to 1 for multi-query). As in backend_sdpa_bwd.hpp the frontend's transposing
// reshapes are written as strides: dV and dK are written as dV^T / dK^T
// ([.., d, s_kv]), and dO^T, Q^T and K are extra uids bound to the same
// memory as dO, Q and K^T.
//
// The reference (sdpa_fp8_bwd_reference) dequantises, runs the float64
// backward with the graph's FP8 roundings of P8 and dS8 (an element within
// its error bound of a rounding boundary may land on either neighbour: the
// tolerance covers both), and gives the outputs before their final FP8
// rounding (matches() rounds) and the amax values before scaling.
#pragma once

#include <cudnn.h>

#include <string>
#include <utility>
#include <vector>

#include "common/backend_sdpa.hpp"
#include "common/tensor_data.hpp"

namespace fdnn_test {

struct SdpaFp8BwdConfig {
  int64_t b = 1, h = 2, h_kv = 2, s_q = 8, s_kv = 8, d = 16, d_v = 16;
  cudnnDataType_t io_type = CUDNN_DATA_FP8_E4M3;  // Q, K, V, O, dO, dQ, dK, dV
  bool bshd = false;
  bool causal = false;
  double scale = 0.3;  // attention scale (by value)
  double descale_q = 0.5, descale_k = 0.25, descale_v = 0.5, descale_o = 0.25, descale_do = 0.5,
         descale_s = 1.0 / 256, descale_dp = 1.0 / 64;
  double scale_s = 256, scale_dp = 64, scale_dq = 16, scale_dk = 16, scale_dv = 16;
  // Dropout as cudnn-frontend's FP8 backward forms it: P8 = FP8(E * M * 1/(1-p)
  // * scale_s), M the y of an RNG BERNOULLI op (keep 1 - p, INT64 seed and
  // offset tensors); Dot multiplied by 1 - p after its descales; dS =
  // (dP - Dot) E * 1/(1-p) * attn_scale (the frontend does not mask dP).
  double dropout = 0;
  int64_t seed = 4321, offset = 9;
  // cudnn-frontend's own products: dV = matmul_fp8(P8^T, dO) and dK =
  // matmul_fp8(dS8^T, Q), P8^T and dS8^T RESHAPE views (transposes) of the
  // virtual FP8 P8 and dS8, dV and dK in their own dims (bound to the same
  // memory as dV^T / dK^T of the other form).
  bool frontend = false;
  std::string name() const;
};

enum SdpaFp8BwdUid : int64_t {
  kF8Q = 1, kF8Kt, kF8Vt, kF8O, kF8DO, kF8Stats, kF8Qt, kF8Kn, kF8DOt, kF8DQ, kF8DKt, kF8DVt, kF8Scale,
  kF8CausalFill, kF8DescaleQ, kF8DescaleK, kF8DescaleV, kF8DescaleO, kF8DescaleDO, kF8DescaleS, kF8DescaleDP,
  kF8ScaleS, kF8ScaleDP, kF8ScaleDQ, kF8ScaleDK, kF8ScaleDV, kF8AmaxDQ, kF8AmaxDK, kF8AmaxDV, kF8AmaxDP,
  kF8Seed, kF8Offset, kF8DropScale, kF8DropScaleInv,
};

SdpaGraph build_sdpa_fp8_bwd_graph(const SdpaFp8BwdConfig &c);

// Host data in logical dims: q, o, d_o [b, h, s, .], k, v [b, h_kv, s_kv, .],
// dq, dk, dv likewise (their own BHSD or BSHD strides), stats [b, h, s_q, 1]
// from the float64 forward of the dequantised Q and K; the scale scalars.
struct SdpaFp8BwdData {
  HostTensor q, k, v, o, d_o, stats, dq, dk, dv, amax_dq, amax_dk, amax_dv, amax_dp;
  std::vector<std::pair<int64_t, HostTensor>> scalars;
};
SdpaFp8BwdData make_sdpa_fp8_bwd_data(const SdpaFp8BwdConfig &c, Rng &rng);

// uid -> host tensor for the variant pack. The transposed uids get their
// own host tensors (views of the same values with dims and strides
// swapped); outputs dK^T / dV^T are views of dk / dv: swap_last2_view() of
// them after downloading gives dk / dv back.
struct SdpaFp8BwdTensors {
  HostTensor kt, vt, qt, kn, dot, dkt, dvt;
  std::vector<std::pair<int64_t, HostTensor *>> list;
};
void sdpa_fp8_bwd_tensors(const SdpaFp8BwdConfig &c, SdpaFp8BwdData &d, SdpaFp8BwdTensors &t);
HostTensor swap_last2_view(const HostTensor &t);

struct SdpaFp8BwdExpect {
  std::vector<Expect> dq, dk, dv, amax_dq, amax_dk, amax_dv, amax_dp;  // logical row-major order
};
SdpaFp8BwdExpect sdpa_fp8_bwd_reference(const SdpaFp8BwdConfig &c, const SdpaFp8BwdData &d);

}  // namespace fdnn_test
