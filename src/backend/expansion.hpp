// Helpers for operation descriptors that expand into several ops of the
// internal model (BN_BWD_WEIGHTS, BN_FINALIZE_STATISTICS): internal virtual
// tensors with uids no user picks, and pointwise ops between them.
#pragma once

#include <atomic>
#include <vector>

#include "graph/op.hpp"
#include "graph/tensor.hpp"

namespace fdnn::backend::expansion {

// Internal uids count down from INT64_MIN / 4 (GEN_STATS uses INT64_MIN / 2
// downwards: the ranges cannot meet in practice).
inline graph::Uid next_internal_uid() {
  static std::atomic<graph::Uid> next{INT64_MIN / 4};
  return next.fetch_sub(1);
}

// A packed virtual tensor of `dims` in type `dtype` with a fresh uid.
inline graph::Tensor virtual_tensor(const std::vector<int64_t> &dims, cudnnDataType_t dtype) {
  graph::Tensor t;
  t.uid = next_internal_uid();
  t.dtype = dtype;
  t.dims = dims;
  t.strides.assign(dims.size(), 1);
  for (int d = static_cast<int>(dims.size()) - 2; d >= 0; --d) t.strides[d] = t.strides[d + 1] * dims[d + 1];
  t.is_virtual = true;
  return t;
}

inline graph::PointwiseOp pointwise(cudnnPointwiseMode_t mode, cudnnDataType_t ct, graph::Uid x, graph::Uid b,
                                    graph::Uid y, double alpha1 = 1.0, double alpha2 = 1.0) {
  graph::PointwiseOp p;
  p.mode = mode;
  p.compute_type = ct;
  p.x = x;
  p.b = b;
  p.y = y;
  p.alpha1 = alpha1;
  p.alpha2 = alpha2;
  return p;
}

}  // namespace fdnn::backend::expansion
