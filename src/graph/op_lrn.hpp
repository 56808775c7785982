// Local response normalization (cross-channel) and divisive normalization,
// forward and backward: cudnnLRNCrossChannel{Forward,Backward} and
// cudnnDivisiveNormalization{Forward,Backward}.
#pragma once

#include <cudnn_graph.h>

#include <cstdint>
#include <iosfwd>
#include <vector>

#include "graph/blend.hpp"
#include "graph/tensor.hpp"

namespace fdnn::graph {

// Which normalization: across dimension 1 (channels) or over a window of
// every spatial dimension (2..rank-1).
enum class LrnKind { cross_channel, divisive };

// A window of `n` elements along each normalized dimension starts
// lookBehind = (n - 1) / 2 before its centre (for even n one more element lies
// ahead than behind); positions outside the tensor are left out. With
// a = alpha / n^d (d = 1 cross-channel, d = rank - 2 divisive), W(p) the
// window around p:
//
// Cross-channel (cudnnLRNCrossChannel*):
//   S(p)  = k + a * sum_{q in W(p)} x(q)^2,   y(p) = x(p) * S(p)^-beta
//   dx(q) = dy(q) S(q)^-beta - 2 a beta x(q) sum_{p : q in W(p)} dy(p) y(p) / S(p)
//   with y recomputed from x (cuDNN 9 does not read the y it is given).
//
// Divisive (cudnnDivisiveNormalization*, m = means or 0), as cuDNN 9
// computes it (measured, see tests/oracle_gpu/lrn_gpu.c):
//   S(p)  = k + a * sum_{q in W(p)} (x(q) - m(p))^2,   y(p) = x(p) * S(p)^-beta
//   R(p)  = dy(p) x(p) S(p)^(-beta-1)
//   dx(q) = dy(q) S(q)^-beta - 2 a beta sum_{p in W(q)} R(p) (x(q) - m(p))
//   dm(p) = 2 a beta R(p) sum_{q in W(p)} (x(q) - m(p))
//   (the sum for dx runs over W(q), not over {p : q in W(p)}: the two agree
//   for odd n only, so for even n cuDNN's dx is not the exact gradient).
//
// All tensors have x's dims; results are blended into y, dx and dmeans.
struct LrnOp {
  static constexpr const char *kKind = "lrn";
  LrnKind kind = LrnKind::cross_channel;
  bool backward = false;
  int64_t n = 5;  // window width (CUDNN_LRN_MIN_N .. CUDNN_LRN_MAX_N)
  double alpha = 1e-4, beta = 0.75, k = 2.0;
  cudnnDataType_t compute_type = CUDNN_DATA_FLOAT;
  // Forward: x (and divisive: optional means) -> y.
  // Backward: x, dy (divisive: optional means) -> dx (divisive: optional
  // dmeans). y is unused by backward ops (kNoTensor).
  Uid x = kNoTensor, means = kNoTensor, y = kNoTensor, dy = kNoTensor, dx = kNoTensor, dmeans = kNoTensor;
  Blend blend;
};

// lookBehind of a window of width n (the seed's rule: floor((n - 1) / 2)).
inline int64_t lrn_look_behind(int64_t n) { return (n - 1) / 2; }
inline int64_t lrn_look_ahead(int64_t n) { return n - lrn_look_behind(n) - 1; }

// One op in the graph's text forms (structural key and verbose lines).
void describe(std::ostream &os, const LrnOp &op, bool with_values);

}  // namespace fdnn::graph
