// Conversion of the double-precision mode parameters to the compute type.
#pragma once

#include "core/pointwise_math.hpp"

namespace fdnn::cuda {

template <class C>
__device__ inline pw::Params<C> to_compute(const pw::Params<double> &d) {
  pw::Params<C> p;
  p.relu_lower_clip = static_cast<C>(d.relu_lower_clip);
  p.relu_upper_clip = static_cast<C>(d.relu_upper_clip);
  p.relu_lower_clip_slope = static_cast<C>(d.relu_lower_clip_slope);
  p.elu_alpha = static_cast<C>(d.elu_alpha);
  p.softplus_beta = static_cast<C>(d.softplus_beta);
  p.swish_beta = static_cast<C>(d.swish_beta);
  p.propagate_nan = d.propagate_nan;
  p.bwd_from_output = d.bwd_from_output;
  return p;
}

}  // namespace fdnn::cuda
