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

/* ---- additions for backend_graphs_gpu.c: status-returning builders ---- */

/* A tensor descriptor (16-byte alignment: every buffer comes from cudaMalloc),
 * virtual or not; returns the finalize status, *t set either way. */
static cudnnStatus_t bk_tensor_ex(cudnnBackendDescriptor_t *t, int64_t uid, cudnnDataType_t dt, int nd,
                                  const int64_t *dims, const int64_t *strides, int is_virtual) {
  int64_t align = 16;
  char v = (char)is_virtual;
  DNN_OK(cudnnBackendCreateDescriptor(CUDNN_BACKEND_TENSOR_DESCRIPTOR, t));
  cudnnBackendSetAttribute(*t, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &uid);
  cudnnBackendSetAttribute(*t, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &dt);
  cudnnBackendSetAttribute(*t, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &align);
  cudnnBackendSetAttribute(*t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, nd, dims);
  cudnnBackendSetAttribute(*t, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, nd, strides);
  cudnnBackendSetAttribute(*t, CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, 1, &v);
  return cudnnBackendFinalize(*t);
}

/* Channels-last strides of an NCHW-ordered dims array (rank >= 3). */
static void bk_channels_last(int nd, const int64_t *dims, int64_t *strides) {
  int64_t s = dims[1];
  int i;
  strides[1] = 1;
  for (i = nd - 1; i >= 2; --i) strides[i] = s, s *= dims[i];
  strides[0] = s;
}

/* A pointwise operation y = op(x[, b[, t]]) (b, t may be NULL); returns the
 * operation's finalize status. */
static cudnnStatus_t bk_pointwise_op(cudnnBackendDescriptor_t *op, cudnnPointwiseMode_t mode, cudnnDataType_t prec,
                                     cudnnBackendDescriptor_t x, cudnnBackendDescriptor_t b, cudnnBackendDescriptor_t t,
                                     cudnnBackendDescriptor_t y) {
  cudnnBackendDescriptor_t pw;
  cudnnStatus_t st;
  DNN_OK(cudnnBackendCreateDescriptor(CUDNN_BACKEND_POINTWISE_DESCRIPTOR, &pw));
  cudnnBackendSetAttribute(pw, CUDNN_ATTR_POINTWISE_MODE, CUDNN_TYPE_POINTWISE_MODE, 1, &mode);
  cudnnBackendSetAttribute(pw, CUDNN_ATTR_POINTWISE_MATH_PREC, CUDNN_TYPE_DATA_TYPE, 1, &prec);
  st = cudnnBackendFinalize(pw);
  if (st != CUDNN_STATUS_SUCCESS) return st;
  DNN_OK(cudnnBackendCreateDescriptor(CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR, op));
  cudnnBackendSetAttribute(*op, CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &pw);
  if (x) cudnnBackendSetAttribute(*op, CUDNN_ATTR_OPERATION_POINTWISE_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &x);
  if (b) cudnnBackendSetAttribute(*op, CUDNN_ATTR_OPERATION_POINTWISE_BDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &b);
  if (t) cudnnBackendSetAttribute(*op, CUDNN_ATTR_OPERATION_POINTWISE_TDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &t);
  if (y) cudnnBackendSetAttribute(*op, CUDNN_ATTR_OPERATION_POINTWISE_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &y);
  return cudnnBackendFinalize(*op);
}

/* c = a x b with the given compute type; returns the operation's finalize status. */
static cudnnStatus_t bk_matmul_op(cudnnBackendDescriptor_t *op, cudnnDataType_t comp, cudnnBackendDescriptor_t a,
                                  cudnnBackendDescriptor_t b, cudnnBackendDescriptor_t c) {
  cudnnBackendDescriptor_t mm;
  cudnnStatus_t st;
  DNN_OK(cudnnBackendCreateDescriptor(CUDNN_BACKEND_MATMUL_DESCRIPTOR, &mm));
  cudnnBackendSetAttribute(mm, CUDNN_ATTR_MATMUL_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &comp);
  st = cudnnBackendFinalize(mm);
  if (st != CUDNN_STATUS_SUCCESS) return st;
  DNN_OK(cudnnBackendCreateDescriptor(CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR, op));
  cudnnBackendSetAttribute(*op, CUDNN_ATTR_OPERATION_MATMUL_ADESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &a);
  cudnnBackendSetAttribute(*op, CUDNN_ATTR_OPERATION_MATMUL_BDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &b);
  cudnnBackendSetAttribute(*op, CUDNN_ATTR_OPERATION_MATMUL_CDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &c);
  cudnnBackendSetAttribute(*op, CUDNN_ATTR_OPERATION_MATMUL_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &mm);
  return cudnnBackendFinalize(*op);
}

/* y = reduce(x) over the dims where y's extent is 1. */
static cudnnStatus_t bk_reduction_op(cudnnBackendDescriptor_t *op, cudnnReduceTensorOp_t mode, cudnnDataType_t comp,
                                     cudnnBackendDescriptor_t x, cudnnBackendDescriptor_t y) {
  cudnnBackendDescriptor_t r;
  cudnnStatus_t st;
  DNN_OK(cudnnBackendCreateDescriptor(CUDNN_BACKEND_REDUCTION_DESCRIPTOR, &r));
  cudnnBackendSetAttribute(r, CUDNN_ATTR_REDUCTION_OPERATOR, CUDNN_TYPE_REDUCTION_OPERATOR_TYPE, 1, &mode);
  cudnnBackendSetAttribute(r, CUDNN_ATTR_REDUCTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &comp);
  st = cudnnBackendFinalize(r);
  if (st != CUDNN_STATUS_SUCCESS) return st;
  DNN_OK(cudnnBackendCreateDescriptor(CUDNN_BACKEND_OPERATION_REDUCTION_DESCRIPTOR, op));
  cudnnBackendSetAttribute(*op, CUDNN_ATTR_OPERATION_REDUCTION_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &x);
  cudnnBackendSetAttribute(*op, CUDNN_ATTR_OPERATION_REDUCTION_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &y);
  cudnnBackendSetAttribute(*op, CUDNN_ATTR_OPERATION_REDUCTION_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &r);
  return cudnnBackendFinalize(*op);
}

/* A 2-d cross-correlation descriptor (same padding, stride, dilation on both dims). */
static cudnnStatus_t bk_conv_desc(cudnnBackendDescriptor_t *c, cudnnDataType_t comp, int64_t pad, int64_t stride,
                                  int64_t dil) {
  int64_t nsp = 2, p[2] = {pad, pad}, s[2] = {stride, stride}, d[2] = {dil, dil};
  cudnnConvolutionMode_t mode = CUDNN_CROSS_CORRELATION;
  DNN_OK(cudnnBackendCreateDescriptor(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR, c));
  cudnnBackendSetAttribute(*c, CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &comp);
  cudnnBackendSetAttribute(*c, CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, 1, &mode);
  cudnnBackendSetAttribute(*c, CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT64, 1, &nsp);
  cudnnBackendSetAttribute(*c, CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, CUDNN_TYPE_INT64, 2, p);
  cudnnBackendSetAttribute(*c, CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, CUDNN_TYPE_INT64, 2, p);
  cudnnBackendSetAttribute(*c, CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, CUDNN_TYPE_INT64, 2, s);
  cudnnBackendSetAttribute(*c, CUDNN_ATTR_CONVOLUTION_DILATIONS, CUDNN_TYPE_INT64, 2, d);
  return cudnnBackendFinalize(*c);
}

/* A convolution operation: which 0 forward (a = x, b = w, c = y), 1 data
 * gradient (a = dx, b = w, c = dy), 2 filter gradient (a = x, b = dw, c = dy);
 * alpha 1, beta 0 (float scalars). */
static cudnnStatus_t bk_conv_op(cudnnBackendDescriptor_t *op, int which, cudnnBackendDescriptor_t conv,
                                cudnnBackendDescriptor_t a, cudnnBackendDescriptor_t b, cudnnBackendDescriptor_t c) {
  static const cudnnBackendAttributeName_t attrs[3][6] = {
      {CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA,
       CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X,
       CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y},
      {CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_ALPHA, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_BETA,
       CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_CONV_DESC, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX,
       CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_W, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY},
      {CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_ALPHA, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_BETA,
       CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_CONV_DESC, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_X,
       CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DW, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DY}};
  static const cudnnBackendDescriptorType_t types[3] = {CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR,
                                                        CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR,
                                                        CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR};
  float alpha = 1.0f, beta = 0.0f;
  DNN_OK(cudnnBackendCreateDescriptor(types[which], op));
  cudnnBackendSetAttribute(*op, attrs[which][0], CUDNN_TYPE_FLOAT, 1, &alpha);
  cudnnBackendSetAttribute(*op, attrs[which][1], CUDNN_TYPE_FLOAT, 1, &beta);
  cudnnBackendSetAttribute(*op, attrs[which][2], CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &conv);
  cudnnBackendSetAttribute(*op, attrs[which][3], CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &a);
  cudnnBackendSetAttribute(*op, attrs[which][4], CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &b);
  cudnnBackendSetAttribute(*op, attrs[which][5], CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &c);
  return cudnnBackendFinalize(*op);
}

/* Where bk_plan_ex stopped. */
typedef enum { BK_STAGE_GRAPH = 1, BK_STAGE_HEUR = 2, BK_STAGE_PLAN = 3, BK_STAGE_DONE = 4 } BkStage;

/* True when the engine of cfg carries CUDNN_NUMERICAL_NOTE_TENSOR_CORE; its
 * global index in *index (-1 when unknown). */
static int bk_cfg_tensor_core(cudnnBackendDescriptor_t cfg, int64_t *index) {
  cudnnBackendDescriptor_t eng;
  cudnnBackendNumericalNote_t notes[CUDNN_NUMERICAL_NOTE_TYPE_COUNT];
  int64_t n = 0, k;
  int tc = 0;
  *index = -1;
  if (cudnnBackendCreateDescriptor(CUDNN_BACKEND_ENGINE_DESCRIPTOR, &eng) != CUDNN_STATUS_SUCCESS) return 0;
  if (cudnnBackendGetAttribute(cfg, CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &n, &eng) ==
      CUDNN_STATUS_SUCCESS) {
    cudnnBackendGetAttribute(eng, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1, &n, index);
    n = 0;
    if (cudnnBackendGetAttribute(eng, CUDNN_ATTR_ENGINE_NUMERICAL_NOTE, CUDNN_TYPE_NUMERICAL_NOTE,
                                 CUDNN_NUMERICAL_NOTE_TYPE_COUNT, &n, notes) == CUDNN_STATUS_SUCCESS)
      for (k = 0; k < n && k < CUDNN_NUMERICAL_NOTE_TYPE_COUNT; ++k) tc |= notes[k] == CUDNN_NUMERICAL_NOTE_TENSOR_CORE;
  }
  cudnnBackendDestroyDescriptor(eng);
  return tc;
}

/* Like bk_plan, but never exits on a refused graph: the operation graph of
 * `ops`, CUDNN_HEUR_MODE_A's configs tried in order (up to 64) until a plan
 * finalizes. With avoid_tc, configs whose engine is noted TENSOR_CORE (TF32
 * for float data) are tried only after all the others. Returns the status
 * of the stage that failed (*stage says which) or SUCCESS with *plan, *ws
 * (workspace bytes) and *engine (global index) set. */
static cudnnStatus_t bk_plan_ex(cudnnHandle_t h, cudnnBackendDescriptor_t *ops, int nops, int avoid_tc,
                                cudnnBackendDescriptor_t *plan, int64_t *ws, int64_t *engine, int *tensor_core,
                                BkStage *stage) {
  enum { MAXCFG = 64 };
  cudnnBackendDescriptor_t g, heur, cfgs[MAXCFG];
  cudnnBackendHeurMode_t mode = CUDNN_HEUR_MODE_A;
  cudnnStatus_t st, last = CUDNN_STATUS_NOT_SUPPORTED;
  int64_t count = 0, got = 0, i;
  int pass, done = 0;
  *plan = NULL, *ws = 0, *engine = -1, *tensor_core = 0;
  *stage = BK_STAGE_GRAPH;
  DNN_OK(cudnnBackendCreateDescriptor(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, &g));
  st = cudnnBackendSetAttribute(g, CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &h);
  if (st == CUDNN_STATUS_SUCCESS)
    st = cudnnBackendSetAttribute(g, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, nops, ops);
  if (st == CUDNN_STATUS_SUCCESS) st = cudnnBackendFinalize(g);
  if (st != CUDNN_STATUS_SUCCESS) {
    cudnnBackendDestroyDescriptor(g);
    return st;
  }
  *stage = BK_STAGE_HEUR;
  DNN_OK(cudnnBackendCreateDescriptor(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR, &heur));
  cudnnBackendSetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &g);
  cudnnBackendSetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, 1, &mode);
  st = cudnnBackendFinalize(heur);
  if (st == CUDNN_STATUS_SUCCESS)
    st = cudnnBackendGetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &count, NULL);
  if (st != CUDNN_STATUS_SUCCESS || count <= 0) {
    cudnnBackendDestroyDescriptor(heur), cudnnBackendDestroyDescriptor(g);
    return st != CUDNN_STATUS_SUCCESS ? st : CUDNN_STATUS_NOT_SUPPORTED;
  }
  if (count > MAXCFG) count = MAXCFG;
  for (i = 0; i < count; ++i) DNN_OK(cudnnBackendCreateDescriptor(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, &cfgs[i]));
  st = cudnnBackendGetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, count, &got, cfgs);
  if (st != CUDNN_STATUS_SUCCESS) got = 0;
  if (got > count) got = count;
  *stage = BK_STAGE_PLAN;
  for (pass = avoid_tc ? 0 : 1; pass < 2 && !done; ++pass) {
    for (i = 0; i < got && !done; ++i) {
      int64_t index;
      int tc = bk_cfg_tensor_core(cfgs[i], &index);
      cudnnBackendDescriptor_t p;
      if (avoid_tc && (pass == 0) == (tc != 0)) continue; /* pass 0: no tensor cores; pass 1: the rest */
      DNN_OK(cudnnBackendCreateDescriptor(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, &p));
      cudnnBackendSetAttribute(p, CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, 1, &h);
      cudnnBackendSetAttribute(p, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &cfgs[i]);
      st = cudnnBackendFinalize(p);
      if (st == CUDNN_STATUS_SUCCESS) {
        int64_t n = 0;
        cudnnBackendGetAttribute(p, CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, CUDNN_TYPE_INT64, 1, &n, ws);
        *plan = p, *engine = index, *tensor_core = tc, done = 1;
      } else {
        last = st;
        cudnnBackendDestroyDescriptor(p);
      }
    }
  }
  for (i = 0; i < count; ++i) cudnnBackendDestroyDescriptor(cfgs[i]);
  cudnnBackendDestroyDescriptor(heur), cudnnBackendDestroyDescriptor(g);
  if (!done) return last;
  *stage = BK_STAGE_DONE;
  return CUDNN_STATUS_SUCCESS;
}

#endif
