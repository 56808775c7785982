/* Minimal C helpers for backend-API graphs in the GPU programs
 * (backend_ops_gpu.c, bench_backend_ops.c): tensor descriptors, a plan from
 * the first heuristics result (mode A, then FALLBACK) that finalizes, and
 * execution with a variant pack. Statuses are returned, never fatal, so that
 * a graph one library refuses prints its status rather than aborting. */
#ifndef FREEDNN_BACKEND_GRAPH_C_H
#define FREEDNN_BACKEND_GRAPH_C_H

#include "oracle_common.h"

static cudnnBackendDescriptor_t bk_tensor(int64_t uid, cudnnDataType_t dt, int nd, const int64_t *dims,
                                          const int64_t *strides, int by_value) {
  cudnnBackendDescriptor_t t;
  int64_t align = (dt == CUDNN_DATA_DOUBLE || dt == CUDNN_DATA_INT64) ? 8 : (dt == CUDNN_DATA_HALF ? 2 : 4);
  char v = 0, bv = (char)by_value;
  DNN_OK(cudnnBackendCreateDescriptor(CUDNN_BACKEND_TENSOR_DESCRIPTOR, &t));
  DNN_OK(cudnnBackendSetAttribute(t, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &uid));
  DNN_OK(cudnnBackendSetAttribute(t, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &dt));
  DNN_OK(cudnnBackendSetAttribute(t, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &align));
  DNN_OK(cudnnBackendSetAttribute(t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, nd, dims));
  DNN_OK(cudnnBackendSetAttribute(t, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, nd, strides));
  DNN_OK(cudnnBackendSetAttribute(t, CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, 1, &v));
  if (by_value) DNN_OK(cudnnBackendSetAttribute(t, CUDNN_ATTR_TENSOR_IS_BY_VALUE, CUDNN_TYPE_BOOLEAN, 1, &bv));
  DNN_OK(cudnnBackendFinalize(t));
  return t;
}

static void bk_packed(int nd, const int64_t *dims, int64_t *strides) {
  int i;
  strides[nd - 1] = 1;
  for (i = nd - 2; i >= 0; --i) strides[i] = strides[i + 1] * dims[i + 1];
}

/* The plan of the graph of `ops`, or a failing status (and *plan NULL). */
static cudnnStatus_t bk_plan(cudnnHandle_t h, cudnnBackendDescriptor_t *ops, int nops, cudnnBackendDescriptor_t *plan,
                             int64_t *ws) {
  cudnnBackendDescriptor_t g;
  cudnnStatus_t st;
  int mode_i;
  *plan = NULL;
  DNN_OK(cudnnBackendCreateDescriptor(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, &g));
  DNN_OK(cudnnBackendSetAttribute(g, CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &h));
  DNN_OK(cudnnBackendSetAttribute(g, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, nops, ops));
  st = cudnnBackendFinalize(g);
  if (st != CUDNN_STATUS_SUCCESS) return st;
  for (mode_i = 0; mode_i < 2; ++mode_i) {
    cudnnBackendHeurMode_t mode = mode_i == 0 ? CUDNN_HEUR_MODE_A : CUDNN_HEUR_MODE_FALLBACK;
    cudnnBackendDescriptor_t heur, cfgs[8];
    int64_t count = 0, got = 0, i;
    DNN_OK(cudnnBackendCreateDescriptor(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR, &heur));
    DNN_OK(cudnnBackendSetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &g));
    DNN_OK(cudnnBackendSetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, 1, &mode));
    st = cudnnBackendFinalize(heur);
    if (st != CUDNN_STATUS_SUCCESS) continue;
    cudnnBackendGetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &count, NULL);
    if (count > 8) count = 8;
    for (i = 0; i < count; ++i) DNN_OK(cudnnBackendCreateDescriptor(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, &cfgs[i]));
    if (count > 0)
      cudnnBackendGetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, count, &got, cfgs);
    for (i = 0; i < got; ++i) {
      cudnnBackendDescriptor_t p;
      DNN_OK(cudnnBackendCreateDescriptor(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, &p));
      DNN_OK(cudnnBackendSetAttribute(p, CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, 1, &h));
      DNN_OK(cudnnBackendSetAttribute(p, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
                                      &cfgs[i]));
      if (cudnnBackendFinalize(p) == CUDNN_STATUS_SUCCESS) {
        int64_t n = 0;
        *ws = 0;
        cudnnBackendGetAttribute(p, CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, CUDNN_TYPE_INT64, 1, &n, ws);
        *plan = p;
        return CUDNN_STATUS_SUCCESS;
      }
      cudnnBackendDestroyDescriptor(p);
    }
  }
  return CUDNN_STATUS_NOT_SUPPORTED;
}

static cudnnStatus_t bk_execute(cudnnHandle_t h, cudnnBackendDescriptor_t plan, int n, int64_t *uids, void **ptrs,
                                void *ws) {
  cudnnBackendDescriptor_t pack;
  cudnnStatus_t st;
  DNN_OK(cudnnBackendCreateDescriptor(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, &pack));
  DNN_OK(cudnnBackendSetAttribute(pack, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, n, uids));
  DNN_OK(cudnnBackendSetAttribute(pack, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, n, ptrs));
  DNN_OK(cudnnBackendSetAttribute(pack, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, &ws));
  DNN_OK(cudnnBackendFinalize(pack));
  st = cudnnBackendExecute(h, plan, pack);
  cudnnBackendDestroyDescriptor(pack);
  return st;
}

#endif
