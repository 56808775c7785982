// cudnnReduceTensor and its size queries. One ReductionOp: C = alpha *
// reduce(A) + beta * C over the dimensions where C has extent 1, with int32
// flat indices for MIN / MAX / AMAX when the descriptor asks for them.
#include <optional>
#include <vector>

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

bool is_index_op(cudnnReduceTensorOp_t op) {
  return op == CUDNN_REDUCE_TENSOR_MIN || op == CUDNN_REDUCE_TENSOR_MAX || op == CUDNN_REDUCE_TENSOR_AMAX;
}

// cuDNN 9 writes 32-bit indices whatever cudnnIndicesType_t the descriptor
// names (and sizes them so in cudnnGetReductionIndicesSize).
constexpr size_t kIndexBytes = 4;

// Types cudnnReduceTensor reads and writes (cuDNN 9.19 answers NOT_SUPPORTED
// for BFLOAT16, UINT8, INT32 and the others).
bool is_reduce_io_type(cudnnDataType_t t) {
  return t == CUDNN_DATA_FLOAT || t == CUDNN_DATA_DOUBLE || t == CUDNN_DATA_HALF || t == CUDNN_DATA_INT8;
}

// cuDNN 9.19's rules, measured for every pair of FLOAT, DOUBLE, HALF,
// BFLOAT16, INT8, UINT8 and INT32 under FLOAT and DOUBLE compute types
// (tests/oracle_gpu/tensor_ops_gpu.c, probe.redm.*): DOUBLE goes with DOUBLE
// only, HALF does not mix with INT8 (BAD_PARAM); DOUBLE data needs a DOUBLE
// compute type, the others FLOAT (NOT_SUPPORTED).
void check_reduce_types(const cudnnReduceTensorStruct &rd, cudnnDataType_t a, cudnnDataType_t c) {
  const char *an = type_info(a).enum_name, *cn = type_info(c).enum_name;
  check_supported(is_reduce_io_type(a), "aDesc data type ", an, " is not supported (FLOAT, DOUBLE, HALF or INT8)");
  check_supported(is_reduce_io_type(c), "cDesc data type ", cn, " is not supported (FLOAT, DOUBLE, HALF or INT8)");
  const bool a_double = a == CUDNN_DATA_DOUBLE, c_double = c == CUDNN_DATA_DOUBLE;
  check_arg(a_double == c_double, "aDesc is ", an, " and cDesc is ", cn, ": DOUBLE tensors must both be DOUBLE");
  const bool half_int8 = (a == CUDNN_DATA_HALF && c == CUDNN_DATA_INT8) || (a == CUDNN_DATA_INT8 && c == CUDNN_DATA_HALF);
  check_arg(!half_int8, "aDesc is ", an, " and cDesc is ", cn, ": HALF and INT8 do not mix in a reduction");
  const cudnnDataType_t want = a_double ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
  check_supported(rd.compute_type == want, "reduceTensorCompType must be ", type_info(want).enum_name, " for ", an,
                  " data, not ", type_info(rd.compute_type).enum_name);
}

// The validated problem; the graph has x, y and (with indices) the indices
// tensor, whose uids the caller binds.
struct Reduction {
  graph::Graph g;
  graph::Uid x = graph::kNoTensor, y = graph::kNoTensor, indices = graph::kNoTensor;
  int64_t outputs = 0;
  bool wants_indices = false;
};

// alpha_p / beta_p are read only after validation (their type depends on
// cDesc's); nullptr stands for 1 and 0 (the size queries).
Reduction build(const cudnnReduceTensorStruct &rd, const cudnnTensorStruct &ad, const cudnnTensorStruct &cd,
                const void *alpha_p, const void *beta_p) {
  check_reduce_types(rd, ad.dtype, cd.dtype);
  check_arg(ad.nb_dims == cd.nb_dims, "aDesc has ", ad.nb_dims, " dimensions but cDesc has ", cd.nb_dims);
  check_arg(ad.nb_dims >= 3, "cudnnReduceTensor takes tensors of 3 to 8 dimensions, not ", ad.nb_dims);
  const LaneLayout al = lane_layout(ad), cl = lane_layout(cd);
  bool reduces = false;
  for (size_t i = 0; i < al.dims.size(); ++i) {
    check_arg(cl.dims[i] == al.dims[i] || cl.dims[i] == 1, "cDesc dim ", i, " = ", cl.dims[i],
              " is neither aDesc's ", al.dims[i], " nor 1");
    reduces = reduces || cl.dims[i] != al.dims[i];
  }
  check_arg(reduces, "aDesc and cDesc have the same dimensions: there is nothing to reduce");

  Reduction r;
  // Indices exist for MIN, MAX and AMAX; the other reductions ignore a
  // request for them (as cuDNN does).
  r.wants_indices = rd.indices == CUDNN_REDUCE_TENSOR_FLATTENED_INDICES && is_index_op(rd.op);
  std::vector<graph::Tensor> v = common_views({al, cl});
  graph::ReductionOp op;
  op.mode = rd.op;
  op.compute_type = rd.compute_type;
  op.nan_propagation = rd.nan_propagation;
  op.blend.alpha = alpha_p ? read_scaling(alpha_p, cd.dtype) : 1.0;
  op.blend.beta = beta_p ? read_scaling(beta_p, cd.dtype) : 0.0;
  op.x = r.x = r.g.add_tensor_auto(v[0]);
  op.y = r.y = r.g.add_tensor_auto(v[1]);
  r.outputs = v[1].element_count();
  if (r.wants_indices) {
    // Packed over C's dims in logical order.
    graph::Tensor idx;
    idx.dtype = CUDNN_DATA_INT32;
    idx.dims = v[1].dims;
    idx.strides = packed_strides(idx.dims);
    op.indices = r.indices = r.g.add_tensor_auto(idx);
  }
  r.g.add_op(op);
  return r;
}

}  // namespace

extern "C" {

cudnnStatus_t CUDNNWINAPI cudnnGetReductionIndicesSize(cudnnHandle_t handle,
                                                        const cudnnReduceTensorDescriptor_t reduceTensorDesc,
                                                        const cudnnTensorDescriptor_t aDesc,
                                                        const cudnnTensorDescriptor_t cDesc, size_t *sizeInBytes) {
  return FDNN_GUARDED([&] {
    checked_handle(handle);
    const cudnnReduceTensorStruct &rd = checked_reduce(reduceTensorDesc, "reduceTensorDesc");
    checked_tensor(aDesc, "aDesc");
    const cudnnTensorStruct &cd = checked_tensor(cDesc, "cDesc");
    check_not_null(sizeInBytes, "sizeInBytes");
    size_t outputs = 1;
    for (int64_t d : lane_layout(cd).dims) outputs *= static_cast<size_t>(d);
    *sizeInBytes = rd.indices == CUDNN_REDUCE_TENSOR_FLATTENED_INDICES ? outputs * kIndexBytes : 0;
  });
}

cudnnStatus_t CUDNNWINAPI cudnnGetReductionWorkspaceSize(cudnnHandle_t handle,
                                                          const cudnnReduceTensorDescriptor_t reduceTensorDesc,
                                                          const cudnnTensorDescriptor_t aDesc,
                                                          const cudnnTensorDescriptor_t cDesc, size_t *sizeInBytes) {
  return FDNN_GUARDED([&] {
    cudnnContext &h = checked_handle(handle);
    const cudnnReduceTensorStruct &rd = checked_reduce(reduceTensorDesc, "reduceTensorDesc");
    const cudnnTensorStruct &ad = checked_tensor(aDesc, "aDesc");
    const cudnnTensorStruct &cd = checked_tensor(cDesc, "cDesc");
    check_not_null(sizeInBytes, "sizeInBytes");
    // cuDNN answers this query without validating the problem (mismatched
    // dimensions, say): cudnnReduceTensor reports those. A problem we
    // cannot build needs no workspace.
    *sizeInBytes = 0;
    std::optional<Reduction> r;
    try {
      r.emplace(build(rd, ad, cd, nullptr, nullptr));
    } catch (const Error &) {
      return;
    }
    *sizeInBytes = plan_for(h, r->g)->workspace_size();
  });
}

// backends: cpu cuda
cudnnStatus_t CUDNNWINAPI cudnnReduceTensor(cudnnHandle_t handle, const cudnnReduceTensorDescriptor_t reduceTensorDesc,
                                            void *indices, size_t indicesSizeInBytes, void *workspace,
                                            size_t workspaceSizeInBytes, const void *alpha,
                                            const cudnnTensorDescriptor_t aDesc, const void *A, const void *beta,
                                            const cudnnTensorDescriptor_t cDesc, void *C) {
  const char *fn = __func__;  // inside the lambda __func__ would be "operator()"
  return FDNN_GUARDED([&] {
    cudnnContext &h = checked_handle(handle);
    const cudnnReduceTensorStruct &rd = checked_reduce(reduceTensorDesc, "reduceTensorDesc");
    const cudnnTensorStruct &ad = checked_tensor(aDesc, "aDesc");
    const cudnnTensorStruct &cd = checked_tensor(cDesc, "cDesc");
    check_not_null(alpha, "alpha");
    check_not_null(beta, "beta");
    check_not_null(A, "A");
    check_not_null(C, "C");
    Reduction r = build(rd, ad, cd, alpha, beta);

    VariantPack pack;
    pack.set(r.x, A);
    pack.set(r.y, C);
    if (r.wants_indices) {
      check_not_null(indices, "indices");
      const size_t need = static_cast<size_t>(r.outputs) * kIndexBytes;
      if (indicesSizeInBytes < need)
        fail(CUDNN_STATUS_BAD_PARAM, "indicesSizeInBytes = ", indicesSizeInBytes, " but the indices need ", need,
             " bytes (cudnnGetReductionIndicesSize)");
      pack.set(r.indices, indices);
    }
    const size_t ws = plan_for(h, r.g)->workspace_size();
    if (workspaceSizeInBytes < ws)
      fail(CUDNN_STATUS_BAD_PARAM, "workspaceSizeInBytes = ", workspaceSizeInBytes, " but this reduction needs ",
           ws, " bytes (cudnnGetReductionWorkspaceSize)");
    if (ws > 0) {
      check_not_null(workspace, "workspace");
      pack.workspace = workspace;
      pack.workspace_size = workspaceSizeInBytes;
    }
    run_graph(h, fn, r.g, pack);
  });
}

}  // extern "C"
