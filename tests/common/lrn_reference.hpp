// Float64 references of cross-channel LRN and divisive normalization
// (forward and backward), written independently of the library from cuDNN's
// documented parameters and its behaviour measured on cuDNN 9.19
// (tests/oracle_gpu/lrn_gpu.c). W(p): the window of width n along each
// normalized dimension, [p - (n-1)/2, p - (n-1)/2 + n - 1], clipped to the
// tensor; a = alpha / n^d (d = 1 cross-channel, spatial rank for divisive);
// m = means (divisive) or 0:
//
//   S(p)  = k + a * sum_{q in W(p)} (x(q) - m(p))^2,   y = x * S^-beta
//   R(p)  = dy(p) y(p) / S(p)                 (y recomputed from x)
//   cross-channel: dx(q) = dy(q) S(q)^-beta - 2 a beta x(q) sum_{p: q in W(p)} R(p)
//   divisive:      dx(q) = dy(q) S(q)^-beta - 2 a beta sum_{p in W(q)} R(p) (x(q) - m(p))
//                  dm(p) = 2 a beta R(p) sum_{q in W(p)} (x(q) - m(p))
//
// Each result is blended, out = blend_alpha * result + blend_beta * prior,
// and carries a tolerance for a computation in `compute_type`.
#pragma once

#include <vector>

#include "common/tensor_data.hpp"

namespace fdnn_test {

struct LrnParams {
  bool divisive = false;
  unsigned n = 5;
  double alpha = 1e-4, beta = 0.75, k = 2.0;
};

// Forward: y from x (and means, divisive only; nullptr = zero).
std::vector<Expect> reference_lrn_forward(const LrnParams &p, const HostTensor &x, const HostTensor *means,
                                          double blend_alpha, double blend_beta, const HostTensor &y_prior,
                                          cudnnDataType_t compute_type);

// Backward: dx (and dmeans, divisive) from x, means and dy. Returns dx's
// expectations; dmeans' go to *dmeans_want when it is not null.
std::vector<Expect> reference_lrn_backward(const LrnParams &p, const HostTensor &x, const HostTensor *means,
                                           const HostTensor &dy, double blend_alpha,
                                           double blend_beta, const HostTensor &dx_prior,
                                           cudnnDataType_t compute_type, const HostTensor *dmeans_prior = nullptr,
                                           std::vector<Expect> *dmeans_want = nullptr);

// The unblended forward result in float64 (for finite differences).
std::vector<double> lrn_forward_values(const LrnParams &p, const HostTensor &x, const HostTensor *means);

}  // namespace fdnn_test
