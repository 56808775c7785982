// cudnnSetTensor, cudnnScaleTensor, cudnnAddTensor, cudnnOpTensor: each
// validates like cuDNN, then becomes one PointwiseOp run through the engines.
// (Transforms: transform_tensor.cpp; reductions: reduce_tensor.cpp.)
#include <cstring>
#include <string>

#include "api/guard.hpp"
#include "api/tensor_ops_common.hpp"
#include "api/tensor_views.hpp"
#include "core/dtype.hpp"
#include "core/handle.hpp"
#include "core/numeric.hpp"
#include "core/op_descriptors.hpp"
#include "core/tensor_desc.hpp"
#include "graph/graph.hpp"

using namespace fdnn;
using namespace fdnn::api;

namespace {

// cuDNN's element-wise tensor calls handle up to 5 dimensions.
constexpr int kMaxPointwiseDims = 5;

// The value at valuePtr, which has y's type (one lane of a vector type; all
// lanes of the vector must then be equal, we have no way to store a pattern).
double read_fill_value(const void *p, cudnnDataType_t t) {
  const auto &ti = type_info(t);
  const int lanes = ti.vector_count;
  unsigned char bytes[32];
  std::memcpy(bytes, p, static_cast<size_t>(ti.bits / 8 * lanes));
  for (int i = 1; i < lanes; ++i)
    check_supported(bytes[i] == bytes[0], "a ", ti.enum_name,
                    " fill value with different lanes is not supported (all lanes must be equal)");
  switch (scalar_type(t)) {
    case CUDNN_DATA_FLOAT: { float v; std::memcpy(&v, bytes, 4); return v; }
    case CUDNN_DATA_DOUBLE: { double v; std::memcpy(&v, bytes, 8); return v; }
    case CUDNN_DATA_HALF: { uint16_t v; std::memcpy(&v, bytes, 2); return num::half_to_float(v); }
    case CUDNN_DATA_BFLOAT16: { uint16_t v; std::memcpy(&v, bytes, 2); return num::bf16_to_float(v); }
    case CUDNN_DATA_INT8: return static_cast<int8_t>(bytes[0]);
    case CUDNN_DATA_UINT8: return bytes[0];
    case CUDNN_DATA_INT32: { int32_t v; std::memcpy(&v, bytes, 4); return v; }
    default: fail(CUDNN_STATUS_NOT_SUPPORTED, "cudnnSetTensor does not support ", ti.enum_name);
  }
}

cudnnDataType_t compute_type_for(cudnnDataType_t t) { return t == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT; }

void check_rank(const cudnnTensorStruct &d, const char *name) {
  check_supported(d.nb_dims <= kMaxPointwiseDims, name, " has ", d.nb_dims, " dimensions; this function supports up to ",
                  kMaxPointwiseDims);
}

// Each dimension of `in` must equal out's or be 1 (when `may_broadcast`).
void check_broadcast(const LaneLayout &in, const char *in_name, const LaneLayout &out, const char *out_name,
                     bool may_broadcast) {
  check_arg(in.dims.size() == out.dims.size(), in_name, " has ", in.dims.size(), " dimensions but ", out_name, " has ",
            out.dims.size());
  for (size_t i = 0; i < in.dims.size(); ++i) {
    if (in.dims[i] == out.dims[i]) continue;
    check_arg(may_broadcast && in.dims[i] == 1, in_name, " dim ", i, " = ", in.dims[i], " does not match ", out_name,
              " dim ", i, " = ", out.dims[i], may_broadcast ? " and is not 1" : "");
  }
}

// One row of cuDNN's cudnnOpTensor type table: compute, A, B, C.
struct OpTensorTypes {
  cudnnDataType_t compute, a, b, c;
};
constexpr OpTensorTypes kOpTensorTypes[] = {
    {CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT},
    {CUDNN_DATA_FLOAT, CUDNN_DATA_INT8, CUDNN_DATA_INT8, CUDNN_DATA_FLOAT},
    {CUDNN_DATA_FLOAT, CUDNN_DATA_HALF, CUDNN_DATA_HALF, CUDNN_DATA_FLOAT},
    {CUDNN_DATA_FLOAT, CUDNN_DATA_BFLOAT16, CUDNN_DATA_BFLOAT16, CUDNN_DATA_FLOAT},
    {CUDNN_DATA_DOUBLE, CUDNN_DATA_DOUBLE, CUDNN_DATA_DOUBLE, CUDNN_DATA_DOUBLE},
    {CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, CUDNN_DATA_HALF},
    {CUDNN_DATA_FLOAT, CUDNN_DATA_HALF, CUDNN_DATA_HALF, CUDNN_DATA_HALF},
    {CUDNN_DATA_FLOAT, CUDNN_DATA_INT8, CUDNN_DATA_INT8, CUDNN_DATA_INT8},
    {CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, CUDNN_DATA_INT8},
    {CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, CUDNN_DATA_BFLOAT16},
    {CUDNN_DATA_FLOAT, CUDNN_DATA_BFLOAT16, CUDNN_DATA_BFLOAT16, CUDNN_DATA_BFLOAT16},
};

// BAD_PARAM for a type combination outside the table, NOT_SUPPORTED for a
// listed combination with another compute type.
void check_op_tensor_types(cudnnDataType_t compute, cudnnDataType_t a, cudnnDataType_t b, cudnnDataType_t c) {
  bool listed = false;
  for (const OpTensorTypes &row : kOpTensorTypes) {
    if (row.a != a || row.b != b || row.c != c) continue;
    listed = true;
    if (row.compute == compute) return;
  }
  check_arg(listed, "data types A = ", type_info(a).enum_name, ", B = ", type_info(b).enum_name, ", C = ",
            type_info(c).enum_name, " are not a combination cudnnOpTensor supports");
  fail(CUDNN_STATUS_NOT_SUPPORTED, "opTensorCompType = ", type_info(compute).enum_name, " is not supported with A = ",
       type_info(a).enum_name, ", B = ", type_info(b).enum_name, ", C = ", type_info(c).enum_name,
       " (DOUBLE data needs DOUBLE, everything else FLOAT)");
}

}  // namespace

extern "C" {

// backends: cpu cuda
cudnnStatus_t CUDNNWINAPI cudnnSetTensor(cudnnHandle_t handle, const cudnnTensorDescriptor_t yDesc, void *y,
                                         const void *valuePtr) {
  const char *fn = __func__;  // inside the lambda __func__ would be "operator()"
  return FDNN_GUARDED([&] {
    cudnnContext &h = checked_handle(handle);
    const cudnnTensorStruct &yd = checked_tensor(yDesc, "yDesc");
    check_not_null(y, "y");
    check_not_null(valuePtr, "valuePtr");
    const double value = read_fill_value(valuePtr, yd.dtype);

    graph::Graph g;
    graph::Tensor yt = common_views({lane_layout(yd)})[0];
    graph::Tensor vt;
    vt.dtype = yt.dtype;
    vt.dims.assign(yt.dims.size(), 1);
    vt.strides.assign(yt.dims.size(), 0);
    vt.by_value = true;
    vt.value = value;
    graph::PointwiseOp op;
    op.mode = CUDNN_POINTWISE_IDENTITY;
    op.compute_type = compute_type_for(yt.dtype);
    op.x = g.add_tensor_auto(vt);
    op.y = g.add_tensor_auto(yt);
    g.add_op(op);
    VariantPack pack;
    pack.set(op.y, y);
    run_graph(h, fn, g, pack);
  });
}

// backends: cpu cuda
cudnnStatus_t CUDNNWINAPI cudnnScaleTensor(cudnnHandle_t handle, const cudnnTensorDescriptor_t yDesc, void *y,
                                           const void *alpha) {
  const char *fn = __func__;  // inside the lambda __func__ would be "operator()"
  return FDNN_GUARDED([&] {
    cudnnContext &h = checked_handle(handle);
    const cudnnTensorStruct &yd = checked_tensor(yDesc, "yDesc");
    check_not_null(y, "y");
    check_not_null(alpha, "alpha");
    const double a = read_scaling(alpha, yd.dtype);
    if (a == 1.0) return;  // y * 1 is y, NaN included

    graph::Graph g;
    graph::Tensor yt = common_views({lane_layout(yd)})[0];
    graph::PointwiseOp op;
    op.mode = CUDNN_POINTWISE_IDENTITY;
    op.compute_type = compute_type_for(yt.dtype);
    op.alpha1 = a;
    op.x = g.add_tensor_auto(yt);
    op.y = g.add_tensor_auto(yt);
    g.add_op(op);
    VariantPack pack;
    pack.set(op.x, y);
    pack.set(op.y, y);
    run_graph(h, fn, g, pack);
  });
}

// backends: cpu cuda
cudnnStatus_t CUDNNWINAPI cudnnAddTensor(cudnnHandle_t handle, const void *alpha, const cudnnTensorDescriptor_t aDesc,
                                         const void *A, const void *beta, const cudnnTensorDescriptor_t cDesc,
                                         void *C) {
  const char *fn = __func__;  // inside the lambda __func__ would be "operator()"
  return FDNN_GUARDED([&] {
    cudnnContext &h = checked_handle(handle);
    const cudnnTensorStruct &ad = checked_tensor(aDesc, "aDesc");
    const cudnnTensorStruct &cd = checked_tensor(cDesc, "cDesc");
    check_not_null(alpha, "alpha");
    check_not_null(beta, "beta");
    check_not_null(A, "A");
    check_not_null(C, "C");
    check_arg(ad.dtype == cd.dtype, "aDesc has data type ", type_info(ad.dtype).enum_name, " but cDesc has ",
              type_info(cd.dtype).enum_name, "; cudnnAddTensor needs the same type");
    check_rank(cd, "cDesc");
    check_rank(ad, "aDesc");
    const LaneLayout al = lane_layout(ad);
    const LaneLayout cl = lane_layout(cd);
    check_broadcast(al, "aDesc", cl, "cDesc", true);

    graph::Graph g;
    std::vector<graph::Tensor> v = views_of(al, cl);
    graph::PointwiseOp op;
    op.mode = CUDNN_POINTWISE_IDENTITY;
    op.compute_type = compute_type_for(cl.dtype);
    op.alpha1 = read_scaling(alpha, cd.dtype);
    op.blend.beta = read_scaling(beta, cd.dtype);
    op.x = g.add_tensor_auto(v[0]);
    op.y = g.add_tensor_auto(v[1]);
    g.add_op(op);
    VariantPack pack;
    pack.set(op.x, A);
    pack.set(op.y, C);
    run_graph(h, fn, g, pack);
  });
}

// backends: cpu cuda
cudnnStatus_t CUDNNWINAPI cudnnOpTensor(cudnnHandle_t handle, const cudnnOpTensorDescriptor_t opTensorDesc,
                                        const void *alpha1, const cudnnTensorDescriptor_t aDesc, const void *A,
                                        const void *alpha2, const cudnnTensorDescriptor_t bDesc, const void *B,
                                        const void *beta, const cudnnTensorDescriptor_t cDesc, void *C) {
  const char *fn = __func__;  // inside the lambda __func__ would be "operator()"
  return FDNN_GUARDED([&] {
    cudnnContext &h = checked_handle(handle);
    const cudnnOpTensorStruct &od = checked_op_tensor(opTensorDesc);
    const bool unary = od.op == CUDNN_OP_TENSOR_SQRT || od.op == CUDNN_OP_TENSOR_NOT;
    const cudnnTensorStruct &ad = checked_tensor(aDesc, "aDesc");
    const cudnnTensorStruct &cd = checked_tensor(cDesc, "cDesc");
    // B is not read by the unary operations; its descriptor may be anything.
    const cudnnTensorStruct *bd = unary ? nullptr : &checked_tensor(bDesc, "bDesc");
    check_not_null(alpha1, "alpha1");
    check_not_null(beta, "beta");
    check_not_null(A, "A");
    check_not_null(C, "C");
    if (!unary) {
      check_not_null(alpha2, "alpha2");
      check_not_null(B, "B");
    }
    check_op_tensor_types(od.compute_type, ad.dtype, bd ? bd->dtype : ad.dtype, cd.dtype);
    check_rank(cd, "cDesc");
    check_rank(ad, "aDesc");
    if (bd) check_rank(*bd, "bDesc");
    const LaneLayout al = lane_layout(ad);
    const LaneLayout cl = lane_layout(cd);
    check_broadcast(al, "aDesc", cl, "cDesc", false);
    LaneLayout bl;
    if (bd) {
      bl = lane_layout(*bd);
      check_broadcast(bl, "bDesc", cl, "cDesc", true);
    }

    const double a1 = read_scaling(alpha1, cd.dtype);
    const double a2 = unary ? 1.0 : read_scaling(alpha2, cd.dtype);
    graph::Graph g;
    std::vector<graph::Tensor> v = bd ? views_of(al, cl, bl) : views_of(al, cl);
    graph::PointwiseOp op;
    op.compute_type = od.compute_type;
    op.nan_propagation = od.nan_propagation;
    op.blend.beta = read_scaling(beta, cd.dtype);
    VariantPack pack;
    op.y = g.add_tensor_auto(v[1]);
    pack.set(op.y, C);
    const graph::Uid a_uid = g.add_tensor_auto(v[0]);
    pack.set(a_uid, A);
    switch (od.op) {
      case CUDNN_OP_TENSOR_ADD: op.mode = CUDNN_POINTWISE_ADD; break;
      case CUDNN_OP_TENSOR_MUL: op.mode = CUDNN_POINTWISE_MUL; break;
      case CUDNN_OP_TENSOR_MIN: op.mode = CUDNN_POINTWISE_MIN; break;
      case CUDNN_OP_TENSOR_MAX: op.mode = CUDNN_POINTWISE_MAX; break;
      case CUDNN_OP_TENSOR_SQRT: op.mode = CUDNN_POINTWISE_SQRT; break;
      case CUDNN_OP_TENSOR_NOT: op.mode = CUDNN_POINTWISE_SUB; break;
      default: fail(CUDNN_STATUS_BAD_PARAM, "opTensorDesc has op ", static_cast<int>(od.op), ", not a cudnnOpTensorOp_t");
    }
    if (od.op == CUDNN_OP_TENSOR_NOT) {
      // cuDNN's NOT is 1 - alpha1 * A: SUB with a constant 1 as the first operand.
      graph::Tensor one;
      one.dtype = v[0].dtype;
      one.dims.assign(v[0].dims.size(), 1);
      one.strides.assign(v[0].dims.size(), 0);
      one.by_value = true;
      one.value = 1.0;
      op.x = g.add_tensor_auto(one);
      op.b = a_uid;
      op.alpha2 = a1;
    } else {
      op.x = a_uid;
      op.alpha1 = a1;
      if (!unary) {
        op.b = g.add_tensor_auto(v[2]);
        op.alpha2 = a2;
        pack.set(op.b, B);
      }
    }
    g.add_op(op);
    run_graph(h, fn, g, pack);
  });
}

}  // extern "C"
