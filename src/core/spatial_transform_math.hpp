// The coordinate conventions of the spatial transformer (cuDNN's, which are
// those of "align corners"): usable in host code and in CUDA kernels, so
// that every engine computes the same coordinates.
#pragma once

#include "core/numeric.hpp"  // FDNN_HD

namespace fdnn::stf {

// Normalised coordinate of output position i of n: -1 .. 1 over the extent,
// -1 when n == 1.
template <class T>
FDNN_HD inline T output_coord(long long i, long long n) {
  if (n <= 1) return T(-1);
  return T(-1) + T(2) * T(i) / T(n - 1);
}

// Input pixel position of a normalised coordinate g over an extent of n.
template <class T>
FDNN_HD inline T input_pos(T g, long long n) {
  return (g + T(1)) * T(n - 1) * T(0.5);
}

// d input_pos / d g.
template <class T>
FDNN_HD inline T input_pos_scale(long long n) {
  return T(n - 1) * T(0.5);
}

}  // namespace fdnn::stf
