// cudnnSetTensor, cudnnScaleTensor, cudnnAddTensor, cudnnOpTensor: each
// validates like cuDNN, then becomes one PointwiseOp run through the engines.
// (Transforms: transform_tensor.cpp; reductions: reduce_tensor.cpp.)
#include <algorithm>
#include <initializer_list>
#include <string>

#include "api/guard.hpp"
#include "api/tensor_ops_common.hpp"
#include "api/tensor_views.hpp"
#include "core/dtype.hpp"
#include "core/handle.hpp"
#include "core/op_descriptors.hpp"
#include "core/tensor_desc.hpp"
#include "graph/graph.hpp"

using namespace fdnn;
using namespace fdnn::api;

namespace {

// The element-wise tensor calls take 4-d and 5-d tensors. cuDNN 9 rejects
// more dimensions with NOT_SUPPORTED and fewer with BAD_PARAM in AddTensor and
// OpTensor, NOT_SUPPORTED in SetTensor, and in ScaleTensor BAD_PARAM for 2-d
// and NOT_SUPPORTED for 3-d (measured on cuDNN 9.19; see
// tests/oracle_gpu/tensor_ops_gpu.c, "probes").
constexpr int kMinPointwiseDims = 4;
constexpr int kMaxPointwiseDims = 5;

void check_rank(const cudnnTensorStruct &d, const char *name, cudnnStatus_t too_few) {
  if (d.nb_dims < kMinPointwiseDims)
    fail(too_few, name, " has ", d.nb_dims, " dimensions; this function takes ", kMinPointwiseDims, " or ",
         kMaxPointwiseDims);
  check_supported(d.nb_dims <= kMaxPointwiseDims, name, " has ", d.nb_dims, " dimensions; this function supports up to ",
                  kMaxPointwiseDims);
}

// SetTensor, ScaleTensor and AddTensor handle FLOAT, DOUBLE, HALF, BFLOAT16
// and INT8 tensors; cuDNN 9 answers NOT_SUPPORTED for the others (UINT8,
// INT32, the vector types).
void check_elementwise_type(const cudnnTensorStruct &d, const char *name) {
  const cudnnDataType_t t = d.dtype;
  check_supported(t == CUDNN_DATA_FLOAT || t == CUDNN_DATA_DOUBLE || t == CUDNN_DATA_HALF ||
                      t == CUDNN_DATA_BFLOAT16 || t == CUDNN_DATA_INT8,
                  name, " has data type ", type_info(t).enum_name,
                  "; this function supports FLOAT, DOUBLE, HALF, BFLOAT16 and INT8");
}

cudnnDataType_t compute_type_for(cudnnDataType_t t) { return t == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT; }

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

// One row of cuDNN's cudnnOpTensor type table: compute, A (= B), C.
struct OpTensorTypes {
  cudnnDataType_t compute, ab, c;
};
constexpr OpTensorTypes kOpTensorTypes[] = {
    {CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT},       {CUDNN_DATA_FLOAT, CUDNN_DATA_INT8, CUDNN_DATA_FLOAT},
    {CUDNN_DATA_FLOAT, CUDNN_DATA_HALF, CUDNN_DATA_FLOAT},        {CUDNN_DATA_FLOAT, CUDNN_DATA_BFLOAT16, CUDNN_DATA_FLOAT},
    {CUDNN_DATA_DOUBLE, CUDNN_DATA_DOUBLE, CUDNN_DATA_DOUBLE},    {CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, CUDNN_DATA_HALF},
    {CUDNN_DATA_FLOAT, CUDNN_DATA_HALF, CUDNN_DATA_HALF},         {CUDNN_DATA_FLOAT, CUDNN_DATA_INT8, CUDNN_DATA_INT8},
    {CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, CUDNN_DATA_INT8},        {CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, CUDNN_DATA_BFLOAT16},
    {CUDNN_DATA_FLOAT, CUDNN_DATA_BFLOAT16, CUDNN_DATA_BFLOAT16},
};

bool in(cudnnDataType_t t, std::initializer_list<cudnnDataType_t> set) {
  return std::find(set.begin(), set.end(), t) != set.end();
}

// The statuses of cuDNN 9.19 for combinations outside the table, measured
// for every pair of FLOAT, DOUBLE, HALF, BFLOAT16, INT8, UINT8 and INT32
// under FLOAT and DOUBLE compute types (tests/oracle_gpu/tensor_ops_gpu.c,
// probe.opm.*). One exception: cuDNN "succeeds" with DOUBLE compute on
// BFLOAT16 / INT8 / UINT8 / INT32 inputs and a DOUBLE output but writes
// garbage; we answer NOT_SUPPORTED there.
void check_op_tensor_types(cudnnDataType_t compute, cudnnDataType_t a, cudnnDataType_t b, cudnnDataType_t c) {
  const char *an = type_info(a).enum_name, *bn = type_info(b).enum_name, *cn = type_info(c).enum_name;
  check_arg(a == b, "aDesc is ", an, " but bDesc is ", bn, "; cudnnOpTensor needs A and B of one type");
  for (const OpTensorTypes &row : kOpTensorTypes)
    if (row.compute == compute && row.ab == a && row.c == c) return;
  check_supported(in(c, {CUDNN_DATA_FLOAT, CUDNN_DATA_DOUBLE, CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16, CUDNN_DATA_INT8}),
                  "cudnnOpTensor does not write ", cn, " tensors");
  // DOUBLE mixed with FLOAT or HALF.
  const bool a_double = a == CUDNN_DATA_DOUBLE, c_double = c == CUDNN_DATA_DOUBLE;
  check_arg(a_double == c_double || !in(a, {CUDNN_DATA_DOUBLE, CUDNN_DATA_FLOAT, CUDNN_DATA_HALF}), "A is ", an,
            " but C is ", cn, ": DOUBLE tensors go with DOUBLE tensors only");
  const auto unsupported = [&] {
    fail(CUDNN_STATUS_NOT_SUPPORTED, "cudnnOpTensor does not support A = B = ", an, ", C = ", cn,
         " with opTensorCompType ", type_info(compute).enum_name,
         " (DOUBLE data needs DOUBLE, everything else FLOAT; see the type table of cudnnOpTensor)");
  };
  if (compute != CUDNN_DATA_FLOAT || c_double) unsupported();
  // FLOAT compute, C of FLOAT, HALF, BFLOAT16 or INT8, a pair outside the table.
  check_arg(in(a, {CUDNN_DATA_FLOAT, CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16, CUDNN_DATA_INT8}), "A and B of type ", an,
            " are not inputs cudnnOpTensor takes with a FLOAT compute type");
  check_arg(a != CUDNN_DATA_INT8 && c != CUDNN_DATA_INT8, "cudnnOpTensor does not mix ", an, " inputs with a ", cn,
            " output");
  unsupported();  // HALF <-> BFLOAT16
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
    check_elementwise_type(yd, "yDesc");
    check_rank(yd, "yDesc", CUDNN_STATUS_NOT_SUPPORTED);
    // valuePtr is read like alpha and beta: a double for DOUBLE tensors, a
    // float for every other type; the value is then stored like any result
    // (rounded to nearest even, saturated).
    const double value = read_scaling(valuePtr, yd.dtype);

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
    check_elementwise_type(yd, "yDesc");
    check_rank(yd, "yDesc", yd.nb_dims == 2 ? CUDNN_STATUS_BAD_PARAM : CUDNN_STATUS_NOT_SUPPORTED);
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
    check_elementwise_type(cd, "cDesc");
    check_rank(cd, "cDesc", CUDNN_STATUS_BAD_PARAM);
    check_rank(ad, "aDesc", CUDNN_STATUS_BAD_PARAM);
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
    // The unary operations (SQRT, NOT) do not read B, but cuDNN validates
    // B, its descriptor and alpha2 all the same.
    const cudnnTensorStruct &bdesc = checked_tensor(bDesc, "bDesc");
    check_not_null(alpha1, "alpha1");
    check_not_null(alpha2, "alpha2");
    check_not_null(beta, "beta");
    check_not_null(A, "A");
    check_not_null(B, "B");
    check_not_null(C, "C");
    check_op_tensor_types(od.compute_type, ad.dtype, bdesc.dtype, cd.dtype);
    check_rank(cd, "cDesc", CUDNN_STATUS_BAD_PARAM);
    check_rank(ad, "aDesc", CUDNN_STATUS_BAD_PARAM);
    check_rank(bdesc, "bDesc", CUDNN_STATUS_BAD_PARAM);
    const LaneLayout al = lane_layout(ad);
    const LaneLayout cl = lane_layout(cd);
    const LaneLayout bl = lane_layout(bdesc);
    check_broadcast(al, "aDesc", cl, "cDesc", false);
    check_broadcast(bl, "bDesc", cl, "cDesc", true);
    const cudnnTensorStruct *bd = unary ? nullptr : &bdesc;  // B in the graph

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
