// Float64 reference of batch normalization (the legacy batch-norm calls and
// the generic normalization API), written independently of the library over
// logical values: x and the other data tensors as HostTensors, statistics and
// parameters as plain vectors indexed by statistics set (channel c per
// channel; c*spatial + s per activation).
#pragma once

#include <cstdint>
#include <vector>

#include "common/tensor_data.hpp"

namespace fdnn_test {

struct NormRefShape {
  std::vector<int64_t> dims;  // x's (N, C, spatial...)
  bool per_activation = false;
  int64_t sets() const;        // statistics sets
  int64_t count() const;       // elements per set (M)
  int64_t set_of(int64_t e) const;  // statistics set of x's e-th element (logical order)
};

// Fused ops: activation 0 none, 1 relu (ceiling `clip`), with optional z.
struct NormRefAct {
  bool relu = false;
  double clip = 1e300;
};

struct NormRefStats {
  std::vector<double> mean, var;  // var biased (over M)
};
NormRefStats norm_batch_stats(const NormRefShape &s, const HostTensor &x);

// Pre-activation values v = scale * (x - mean) * inv_std + bias (+ z), logical order.
std::vector<double> norm_pre_activation(const NormRefShape &s, const HostTensor &x, const HostTensor *z,
                                        const std::vector<double> &scale, const std::vector<double> &bias,
                                        const std::vector<double> &mean, const std::vector<double> &inv_std);

double norm_activate(const NormRefAct &a, double v);
bool norm_act_passes(const NormRefAct &a, double v);

// y = alpha * act(v) + beta * y_prior, with tolerances of a float (or
// double) computation: `mag` is the size of the terms that cancel in v.
std::vector<Expect> norm_forward_expect(const NormRefShape &s, const HostTensor &x, const HostTensor *z,
                                        const std::vector<double> &scale, const std::vector<double> &bias,
                                        const std::vector<double> &mean, const std::vector<double> &inv_std,
                                        const NormRefAct &act, double alpha, double beta, const HostTensor &y_prior,
                                        bool double_compute);

struct NormRefGrad {
  std::vector<Expect> dx, dz;          // logical order of x
  std::vector<Expect> dscale, dbias;   // per statistics set
};
// Backward: g = dy masked by act'(pre-activation v), dx, dz = g, dscale,
// dbias, blended with alpha/beta (data) and alpha_p/beta_p (parameters).
NormRefGrad norm_backward_expect(const NormRefShape &s, const HostTensor &x, const HostTensor &dy,
                                 const std::vector<bool> *pass, const std::vector<double> &scale,
                                 const std::vector<double> &mean, const std::vector<double> &inv_std, double alpha,
                                 double beta, const HostTensor &dx_prior, double alpha_p, double beta_p,
                                 const std::vector<double> &dscale_prior, const std::vector<double> &dbias_prior,
                                 bool double_compute);

}  // namespace fdnn_test
