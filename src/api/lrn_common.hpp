// Checks shared by the LRN entry points (lrn.cpp) and the divisive
// normalization ones (divisive_normalization.cpp).
#pragma once

#include "api/bound_tensor.hpp"
#include "core/descriptor_lifetime.hpp"
#include "core/dtype.hpp"
#include "core/error.hpp"
#include "core/handle.hpp"
#include "core/lrn_descriptors.hpp"
#include "core/tensor_desc.hpp"
#include "graph/op_lrn.hpp"

namespace fdnn::api {

inline const cudnnLRNStruct &checked_lrn(const cudnnLRNStruct *d) {
  return live_descriptor(const_cast<cudnnLRNStruct *>(d), "normDesc", "LRN");
}

// LRN and divisive normalization compute on FLOAT, DOUBLE and HALF tensors
// (in double for DOUBLE, else in float); cuDNN 9.19 answers NOT_SUPPORTED for
// BFLOAT16 and the others. (It also runs INT8 in cudnnLRNCrossChannelForward,
// which FreeDNN does not.)
inline void check_lrn_type(const cudnnTensorStruct &d, const char *name) {
  const cudnnDataType_t t = d.dtype;
  check_supported(t == CUDNN_DATA_FLOAT || t == CUDNN_DATA_DOUBLE || t == CUDNN_DATA_HALF, name, " has data type ",
                  type_info(t).enum_name, "; LRN supports FLOAT, DOUBLE and HALF");
}

inline bool same_dims(const cudnnTensorStruct &a, const cudnnTensorStruct &b) {
  if (a.nb_dims != b.nb_dims) return false;
  for (int i = 0; i < a.nb_dims; ++i)
    if (a.dims[i] != b.dims[i]) return false;
  return true;
}

inline bool same_strides(const cudnnTensorStruct &a, const cudnnTensorStruct &b) {
  for (int i = 0; i < a.nb_dims; ++i)
    if (a.strides[i] != b.strides[i]) return false;
  return true;
}

inline bool has_negative_stride(const cudnnTensorStruct &d) {
  for (int i = 0; i < d.nb_dims; ++i)
    if (d.strides[i] < 0) return true;
  return false;
}

// Parameters of the op from the descriptor; the compute type follows the data.
inline graph::LrnOp lrn_op_from(const cudnnLRNStruct &d, graph::LrnKind kind, bool backward, cudnnDataType_t t) {
  graph::LrnOp op;
  op.kind = kind;
  op.backward = backward;
  op.n = d.n;
  op.alpha = d.alpha;
  op.beta = d.beta;
  op.k = d.k;
  op.compute_type = t == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
  return op;
}

// The op of one compute call: parameters from the descriptor, the compute
// type from x, alpha / beta read as the output's type expects them.
inline graph::LrnOp lrn_call_op(const cudnnLRNStruct &d, graph::LrnKind kind, bool backward, const cudnnTensorStruct &x,
                                const cudnnTensorStruct &out, const void *alpha, const void *beta) {
  graph::LrnOp op = lrn_op_from(d, kind, backward, x.dtype);
  op.blend.alpha = read_scaling(alpha, out.dtype);
  op.blend.beta = read_scaling(beta, out.dtype);
  return op;
}

// What every LRN and divisive normalization call checks first, in cuDNN's
// order: the handle, the LRN descriptor, alpha and beta.
struct LrnCall {
  cudnnContext &handle;
  const cudnnLRNStruct &desc;
};
inline LrnCall begin_lrn_call(cudnnHandle_t handle, const cudnnLRNStruct *norm_desc, const void *alpha,
                              const void *beta) {
  cudnnContext &h = checked_handle(handle);
  const cudnnLRNStruct &nd = checked_lrn(norm_desc);
  check_not_null(alpha, "alpha");
  check_not_null(beta, "beta");
  return {h, nd};
}

}  // namespace fdnn::api
