// What the fast CPU resample engines (cpu.pooling, cpu.resample.interp,
// cpu.resample.maxindex) share: the problem padded to three spatial
// dimensions (leading extents of 1, so that one loop nest serves 1D, 2D and
// 3D) and the pooling window in the same padded form.
#pragma once

#include <algorithm>
#include <cstdint>

#include "core/engine.hpp"
#include "core/resample_support.hpp"
#include "core/error.hpp"

namespace fdnn::cpu {

// The strides of t (N, C, spatial...) padded to N, C, D, H, W; the padded
// dimensions have extent 1, their stride stays 0.
inline void padded_strides(const graph::Tensor &t, int spatial, int64_t (&st)[5]) {
  st[0] = t.strides[0];
  st[1] = t.strides[1];
  for (int d = 0; d < spatial; ++d) st[2 + 3 - spatial + d] = t.strides[2 + d];
}

struct ResampleGeometry {
  int64_t n = 1, c = 1;
  int64_t in[3] = {1, 1, 1}, out[3] = {1, 1, 1};
  int64_t is[5] = {}, os[5] = {};  // strides of x/dx and y/dy (N, C, D, H, W)
  int64_t cb = 1;                  // channels per unit of work
};

// What the fast resample engines (named `engine` in the reasons) run: 1 to
// 3 spatial dimensions after N and C, FLOAT, DOUBLE, HALF or BFLOAT16 data.
inline Support check_fast_resample_operands(const ResampleOperands &r, const char *engine) {
  const int sp = r.op->spatial_dims();
  if (sp > 3) return Support::no(cat(engine, " runs 1 to 3 spatial dimensions"));
  if (r.in->rank() != 2 + sp) return Support::no(cat(engine, " needs N, C and the spatial dimensions only"));
  const cudnnDataType_t t = r.in->dtype;
  if (t != CUDNN_DATA_FLOAT && t != CUDNN_DATA_DOUBLE && t != CUDNN_DATA_HALF && t != CUDNN_DATA_BFLOAT16)
    return Support::no(cat(engine, " runs FLOAT, DOUBLE, HALF and BFLOAT16"));
  return Support::yes();
}

// Channels go in blocks of up to max_block when they are innermost in both
// tensors (the inner loops then vectorise), one at a time otherwise.
inline ResampleGeometry resample_geometry(const ResampleOperands &r, int64_t max_block) {
  const int s = r.op->spatial_dims();
  ResampleGeometry G;
  G.n = r.in->dims[0];
  G.c = r.in->dims[1];
  for (int d = 0; d < s; ++d) {
    G.in[3 - s + d] = r.in->dims[2 + d];
    G.out[3 - s + d] = r.out->dims[2 + d];
  }
  padded_strides(*r.in, s, G.is);
  padded_strides(*r.out, s, G.os);
  G.cb = G.is[1] == 1 && G.os[1] == 1 ? std::min(G.c, max_block) : 1;
  return G;
}

// A pooling window per padded spatial dimension (extent 1, no padding,
// stride 1 in the padded ones).
struct PoolWindow {
  int64_t win[3] = {1, 1, 1}, pad[3] = {0, 0, 0}, str[3] = {1, 1, 1};
};

inline PoolWindow pool_window(const graph::ResampleOp &op) {
  const int s = op.spatial_dims();
  PoolWindow w;
  for (int d = 0; d < s; ++d) {
    w.win[3 - s + d] = op.window[d];
    w.pad[3 - s + d] = op.pre_padding[d];
    w.str[3 - s + d] = op.strides[d];
  }
  return w;
}

}  // namespace fdnn::cpu
