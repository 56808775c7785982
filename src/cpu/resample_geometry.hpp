// What the fast CPU resample engines (cpu.resample.interp,
// cpu.resample.maxindex) share: the problem padded to three spatial
// dimensions, and element access in the compute type.
#pragma once

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "core/resample_support.hpp"

namespace fdnn::cpu {

// N, C and 1 to 3 spatial dimensions, padded to 3 with leading extents of 1
// so that one loop nest serves 1D, 2D and 3D.
struct ResampleGeometry {
  int64_t n = 1, c = 1;
  int64_t in[3] = {1, 1, 1}, out[3] = {1, 1, 1};
  int64_t is[5] = {}, os[5] = {};  // strides of x/dx and y/dy (N, C, D, H, W)
  int64_t cb = 1;                  // channels per unit of work
};

// Channels go in blocks of up to max_block when they are innermost in both
// tensors (the inner loops then vectorise), one at a time otherwise.
inline ResampleGeometry resample_geometry(const ResampleOperands &r, int64_t max_block) {
  const int s = r.op->spatial_dims();
  ResampleGeometry G;
  G.n = r.in->dims[0];
  G.c = r.in->dims[1];
  for (int k = 0; k < 2; ++k) {
    G.is[k] = r.in->strides[k];
    G.os[k] = r.out->strides[k];
  }
  for (int d = 0; d < s; ++d) {
    const int k = 3 - s + d;
    G.in[k] = r.in->dims[2 + d];
    G.out[k] = r.out->dims[2 + d];
    G.is[2 + k] = r.in->strides[2 + d];
    G.os[2 + k] = r.out->strides[2 + d];
  }
  G.cb = G.is[1] == 1 && G.os[1] == 1 ? std::min(G.c, max_block) : 1;
  return G;
}

// Loads a storage element as compute type C (float or double) and stores
// one back.
template <class S, class C>
struct ComputeIo {
  using T = typename S::type;
  static C load(const T *p) {
    if constexpr (std::is_same_v<C, double>) return S::to_double(*p);
    else return S::to_float(*p);
  }
  static T from(C v) {
    if constexpr (std::is_same_v<C, double>) return S::from_double(v);
    else return S::from_float(v);
  }
};

}  // namespace fdnn::cpu
