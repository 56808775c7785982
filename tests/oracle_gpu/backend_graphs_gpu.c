/* Differential program (GPU): single-operation and small fused backend-API
 * graphs, built through the backend API only (tensor, operation, operation
 * graph, CUDNN_HEUR_MODE_A, its configs tried in order until a plan
 * finalizes, variant pack, execute), in FreeDNN and in NVIDIA's cuDNN 9:
 *   group 0  MATMUL: f32 (compute FLOAT, TF32 kept out: NVIDIA_TF32_OVERRIDE=0
 *            and engines noted TENSOR_CORE tried last), f16 -> f16,
 *            f16 -> f32, bf16, batched, broadcast batch, column-major b;
 *   group 1, 2  POINTWISE f32, f16: ADD (plain and a per-channel bias),
 *            MUL, RELU/GELU/TANH/SIGMOID, CMP_GT, BINARY_SELECT (0/1 mask of
 *            the data type) NCHW, a subset NHWC too; f16 -> f32 ADD;
 *            a CMP_GT into BOOLEAN whose raw bytes show the bool storage;
 *   group 3  MATMUL + bias ADD + GELU_FWD (virtual float intermediates);
 *   group 4  CONVOLUTION_FORWARD, BACKWARD_DATA, BACKWARD_FILTER (3x3, pad
 *            1: NHWC f16, NCHW f32 without TF32, NHWC f16 stride 2);
 *   group 5  REDUCTION (ADD over the last dim, MAX over H,W, ADD over all);
 *   group 6  bad input: statuses of tensor / operation / graph finalize
 *            (op=<operation finalize> graph=<graph finalize, -1: not reached>).
 * Outputs are NaN-poisoned before execution (convolutions run beta = 0), so
 * an element left unwritten shows in nan=.
 * Result lines (compared by compare.py) carry checksums and sampled values
 * of each output (oracle_report). A graph a library cannot run (operation
 * graph, heuristics or plan refused, or the operation itself) prints an
 * information line
 *     #noengine <name> stage=<op|graph|heur|plan> st=<status>
 * instead: compare.py skips a case NVIDIA cannot run and fails one that only
 * FreeDNN cannot run. '# <name> engine=..' lines say which engine ran. */
#include "backend_graph_c.h"
#include "oracle_program.h"

static cudnnHandle_t h;

/* A tensor of a graph: descriptor, layout and (non-virtual) device memory. */
typedef struct {
  cudnnBackendDescriptor_t desc;
  int64_t uid;
  cudnnDataType_t dt;
  int nd;
  int64_t dims[8], strides[8];
  size_t span;
  void *dev;
} BT;

static cudnnStatus_t bt_make(BT *t, int64_t uid, cudnnDataType_t dt, int nd, const int64_t *dims,
                             const int64_t *strides, int is_virtual) {
  int i;
  memset(t, 0, sizeof *t);
  t->uid = uid, t->dt = dt, t->nd = nd;
  for (i = 0; i < nd; ++i) t->dims[i] = dims[i];
  if (strides)
    for (i = 0; i < nd; ++i) t->strides[i] = strides[i];
  else
    bk_packed(nd, dims, t->strides);
  t->span = 1;
  for (i = 0; i < nd; ++i) t->span += (size_t)(t->dims[i] - 1) * (size_t)t->strides[i];
  if (!is_virtual) {
    /* NaN-poisoned (0xff bytes): an output never written shows as nan= */
    CUDA_OK(cudaMalloc(&t->dev, t->span * oracle_type_size(dt) + 16));
    CUDA_OK(cudaMemset(t->dev, 0xff, t->span * oracle_type_size(dt) + 16));
  }
  return bk_tensor_ex(&t->desc, uid, dt, nd, t->dims, t->strides, is_virtual);
}

/* Packed NCHW-ordered dims in channels-last memory order. */
static cudnnStatus_t bt_make_nhwc(BT *t, int64_t uid, cudnnDataType_t dt, int nd, const int64_t *dims) {
  int64_t s[8];
  bk_channels_last(nd, dims, s);
  return bt_make(t, uid, dt, nd, dims, s, 0);
}

static void bt_fill(BT *t, double lo, double hi) {
  size_t es = oracle_type_size(t->dt), i;
  void *hbuf = malloc(t->span * es);
  for (i = 0; i < t->span; ++i) oracle_store(t->dt, hbuf, i, oracle_nonzero(lo, hi));
  CUDA_OK(cudaMemcpy(t->dev, hbuf, t->span * es, cudaMemcpyHostToDevice));
  free(hbuf);
}

/* 0/1 values (a mask for BINARY_SELECT). */
static void bt_fill_mask(BT *t) {
  size_t es = oracle_type_size(t->dt), i;
  void *hbuf = malloc(t->span * es);
  for (i = 0; i < t->span; ++i) oracle_store(t->dt, hbuf, i, (oracle_next() & 1) ? 1.0 : 0.0);
  CUDA_OK(cudaMemcpy(t->dev, hbuf, t->span * es, cudaMemcpyHostToDevice));
  free(hbuf);
}

static void bt_free(BT *t) {
  if (t->dev) cudaFree(t->dev);
  if (t->desc) cudnnBackendDestroyDescriptor(t->desc);
  t->dev = NULL, t->desc = NULL;
}

static void bt_report(const char *name, double tol, cudnnStatus_t st, const BT *t) {
  OTensor v;
  int i;
  memset(&v, 0, sizeof v);
  v.type = t->dt;
  v.nb_dims = t->nd;
  for (i = 0; i < t->nd; ++i) v.dims[i] = (int)t->dims[i], v.strides[i] = (int)t->strides[i];
  v.span = t->span;
  v.dev = t->dev;
  oracle_report(name, tol, st, &v);
}

static const char *stage_name(BkStage s) {
  return s == BK_STAGE_GRAPH ? "graph" : s == BK_STAGE_HEUR ? "heur" : s == BK_STAGE_PLAN ? "plan" : "done";
}

/* Plans the graph of ops, binds io (every non-virtual tensor), executes and
 * reports each of outs[] as "<name>" (one output) or "<name>.<i>". A case
 * that does not finalize prints its #noengine line. op_st is the first
 * failing operation-finalize status (a case fails there only on a library
 * refusing the operation itself: reported the same way, stage=op). */
static void run_graph(const char *name, double tol, int avoid_tc, cudnnStatus_t op_st, cudnnBackendDescriptor_t *ops,
                      int nops, BT **io, int nio, BT **outs, int nouts) {
  cudnnBackendDescriptor_t plan = NULL;
  int64_t ws_bytes = 0, engine = -1, uids[16];
  void *ptrs[16], *ws = NULL;
  int tc = 0, i;
  BkStage stage = BK_STAGE_GRAPH;
  cudnnStatus_t st;
  char sub[256];
  if (op_st != CUDNN_STATUS_SUCCESS) {
    printf("#noengine %s stage=op st=%d\n", name, (int)op_st);
    return;
  }
  st = bk_plan_ex(h, ops, nops, avoid_tc, &plan, &ws_bytes, &engine, &tc, &stage);
  if (st != CUDNN_STATUS_SUCCESS) {
    printf("#noengine %s stage=%s st=%d\n", name, stage_name(stage), (int)st);
    return;
  }
  printf("# %s engine=%lld tensor_core=%d ws=%lld\n", name, (long long)engine, tc, (long long)ws_bytes);
  if (ws_bytes > 0) CUDA_OK(cudaMalloc(&ws, (size_t)ws_bytes));
  for (i = 0; i < nio; ++i) uids[i] = io[i]->uid, ptrs[i] = io[i]->dev;
  st = bk_execute(h, plan, nio, uids, ptrs, ws);
  CUDA_OK(cudaDeviceSynchronize());
  for (i = 0; i < nouts; ++i) {
    if (nouts == 1) snprintf(sub, sizeof sub, "%s", name);
    else snprintf(sub, sizeof sub, "%s.%d", name, i);
    bt_report(sub, tol, st, outs[i]);
  }
  if (ws) cudaFree(ws);
  cudnnBackendDestroyDescriptor(plan);
}

static double tol_of(cudnnDataType_t t) {
  switch (t) {
    case CUDNN_DATA_FLOAT: return 1e-4;
    case CUDNN_DATA_HALF: return 4e-3;
    case CUDNN_DATA_BFLOAT16: return 3e-2;
    default: return 1e-9;
  }
}

/* ---------------------------------------------------------------- matmul */

/* c[B,M,N] = a[Ba,M,K] x b[Bb,K,N]; b_col: b column-major (strides of a
 * transposed [N,K] matrix). */
static void matmul_case(const char *name, cudnnDataType_t ta, cudnnDataType_t tc, int64_t ba, int64_t bb, int64_t m,
                        int64_t k, int64_t n, int b_col) {
  int64_t da[3] = {ba, m, k}, db[3] = {bb, k, n}, dc[3] = {ba > bb ? ba : bb, m, n};
  int64_t sbcol[3] = {k * n, 1, k};
  BT a, b, c, *io[3], *outs[1];
  cudnnBackendDescriptor_t op;
  cudnnStatus_t st;
  double tol = tol_of(tc) > tol_of(ta) ? tol_of(tc) : tol_of(ta);
  st = bt_make(&a, 1, ta, 3, da, NULL, 0);
  if (st == CUDNN_STATUS_SUCCESS) st = bt_make(&b, 2, ta, 3, db, b_col ? sbcol : NULL, 0);
  if (st == CUDNN_STATUS_SUCCESS) st = bt_make(&c, 3, tc, 3, dc, NULL, 0);
  if (st == CUDNN_STATUS_SUCCESS) {
    bt_fill(&a, 0.1, 1.0), bt_fill(&b, 0.1, 1.0);
    st = bk_matmul_op(&op, CUDNN_DATA_FLOAT, a.desc, b.desc, c.desc);
  }
  io[0] = &a, io[1] = &b, io[2] = &c, outs[0] = &c;
  run_graph(name, tol, ta == CUDNN_DATA_FLOAT, st, &op, 1, io, 3, outs, 1);
  bt_free(&a), bt_free(&b), bt_free(&c);
}

static void group_matmul(void) {
  matmul_case("mm.f32.64x96x80", CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, 1, 1, 64, 96, 80, 0);
  matmul_case("mm.f32.batched4", CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, 4, 4, 64, 96, 80, 0);
  matmul_case("mm.f16.f16.batched4", CUDNN_DATA_HALF, CUDNN_DATA_HALF, 4, 4, 64, 96, 80, 0);
  matmul_case("mm.f16.f32.batched4", CUDNN_DATA_HALF, CUDNN_DATA_FLOAT, 4, 4, 64, 96, 80, 0);
  matmul_case("mm.bf16.bf16.batched4", CUDNN_DATA_BFLOAT16, CUDNN_DATA_BFLOAT16, 4, 4, 64, 96, 80, 0);
  matmul_case("mm.f32.bcast_b", CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, 4, 1, 64, 96, 80, 0);
  matmul_case("mm.f16.bcast_b", CUDNN_DATA_HALF, CUDNN_DATA_HALF, 4, 1, 64, 96, 80, 0);
  matmul_case("mm.f32.bcol", CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, 4, 4, 64, 96, 80, 1);
  matmul_case("mm.f16.bcol", CUDNN_DATA_HALF, CUDNN_DATA_HALF, 4, 4, 64, 96, 80, 1);
  matmul_case("mm.f32.odd.3x37x53x29", CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, 3, 3, 37, 53, 29, 0);
}

/* ---------------------------------------------------------------- pointwise */

/* Transcendental modes: NVIDIA's kernels may use fast approximations
 * (tanh.approx, __expf: ~2^-11 relative), so f32 results get 1e-3. */
static double pointwise_tol(cudnnPointwiseMode_t mode, cudnnDataType_t ydt) {
  if (mode == CUDNN_POINTWISE_CMP_GT) return 1e-6;
  if (ydt == CUDNN_DATA_FLOAT && (mode == CUDNN_POINTWISE_GELU_FWD || mode == CUDNN_POINTWISE_TANH_FWD ||
                                  mode == CUDNN_POINTWISE_SIGMOID_FWD))
    return 1e-3;
  return tol_of(ydt);
}

/* y = mode(x[, b[, t]]) on [4,32,16,16]; b is the full shape or a
 * per-channel bias [1,C,1,1] (bias); t a 0/1 mask (BINARY_SELECT). */
static void pointwise_case(const char *name, cudnnPointwiseMode_t mode, cudnnDataType_t dt, int nhwc, int nin,
                           int bias, cudnnDataType_t ydt) {
  int64_t d[4] = {4, 32, 16, 16}, db[4] = {1, 32, 1, 1};
  BT x, b, t, y, *io[4], *outs[1];
  cudnnBackendDescriptor_t op;
  cudnnStatus_t st;
  int nio = 0;
  st = nhwc ? bt_make_nhwc(&x, 1, dt, 4, d) : bt_make(&x, 1, dt, 4, d, NULL, 0);
  io[nio++] = &x;
  bt_fill(&x, 0.05, 3.0);
  if (nin >= 2 && st == CUDNN_STATUS_SUCCESS) {
    st = bias ? bt_make(&b, 2, dt, 4, db, NULL, 0) : nhwc ? bt_make_nhwc(&b, 2, dt, 4, d) : bt_make(&b, 2, dt, 4, d, NULL, 0);
    io[nio++] = &b;
    bt_fill(&b, 0.05, 3.0);
  }
  if (nin >= 3 && st == CUDNN_STATUS_SUCCESS) {
    st = nhwc ? bt_make_nhwc(&t, 3, dt, 4, d) : bt_make(&t, 3, dt, 4, d, NULL, 0);
    io[nio++] = &t;
    bt_fill_mask(&t);
  }
  if (st == CUDNN_STATUS_SUCCESS) {
    st = nhwc ? bt_make_nhwc(&y, 4, ydt, 4, d) : bt_make(&y, 4, ydt, 4, d, NULL, 0);
    io[nio++] = &y;
  }
  if (st == CUDNN_STATUS_SUCCESS)
    st = bk_pointwise_op(&op, mode, CUDNN_DATA_FLOAT, x.desc, nin >= 2 ? b.desc : NULL, nin >= 3 ? t.desc : NULL,
                         y.desc);
  outs[0] = &y;
  run_graph(name, pointwise_tol(mode, ydt), 0, st, &op, 1, io, nio, outs, 1);
  bt_free(&x), bt_free(&y);
  if (nin >= 2) bt_free(&b);
  if (nin >= 3) bt_free(&t);
}

/* One type: every mode NCHW, and NHWC for a subset (each graph may cost
 * NVIDIA a runtime compilation). */
static void pointwise_type(cudnnDataType_t dt) {
  static const struct {
    const char *name;
    cudnnPointwiseMode_t mode;
    int nin, bias, nhwc;
  } modes[] = {{"add_bias", CUDNN_POINTWISE_ADD, 2, 1, 1},        {"add", CUDNN_POINTWISE_ADD, 2, 0, 0},
               {"mul", CUDNN_POINTWISE_MUL, 2, 0, 1},             {"relu", CUDNN_POINTWISE_RELU_FWD, 1, 0, 0},
               {"gelu", CUDNN_POINTWISE_GELU_FWD, 1, 0, 1},       {"tanh", CUDNN_POINTWISE_TANH_FWD, 1, 0, 0},
               {"sigmoid", CUDNN_POINTWISE_SIGMOID_FWD, 1, 0, 1}, {"cmp_gt", CUDNN_POINTWISE_CMP_GT, 2, 0, 0},
               {"select", CUDNN_POINTWISE_BINARY_SELECT, 3, 0, 1}};
  char name[128];
  size_t m;
  int nhwc;
  for (m = 0; m < sizeof modes / sizeof modes[0]; ++m)
    for (nhwc = 0; nhwc <= modes[m].nhwc; ++nhwc) {
      snprintf(name, sizeof name, "pw.%s.%s.%s", modes[m].name, oracle_type_name(dt), nhwc ? "nhwc" : "nchw");
      pointwise_case(name, modes[m].mode, dt, nhwc, modes[m].nin, modes[m].bias, dt);
    }
}

/* CMP_GT into a BOOLEAN y of 64 elements: the bytes written show how each
 * library stores BOOLEAN (a byte per element, or packed bits); compared as
 * words, the byte string printed in hex (0xff bytes: not written). */
static void bool_probe(void) {
  int64_t d[4] = {1, 1, 1, 64};
  BT x, b, y, *io[3];
  cudnnBackendDescriptor_t op, plan = NULL;
  float hx[64], hb[64];
  unsigned char hy[64];
  int64_t ws_bytes = 0, engine = -1, uids[3] = {1, 2, 3};
  void *ptrs[3], *ws = NULL;
  int tc = 0, i;
  BkStage stage;
  cudnnStatus_t st;
  bt_make(&x, 1, CUDNN_DATA_FLOAT, 4, d, NULL, 0), bt_make(&b, 2, CUDNN_DATA_FLOAT, 4, d, NULL, 0);
  st = bt_make(&y, 3, CUDNN_DATA_BOOLEAN, 4, d, NULL, 0);
  for (i = 0; i < 64; ++i) hx[i] = (float)oracle_nonzero(0.1, 1.0), hb[i] = (float)oracle_nonzero(0.1, 1.0);
  CUDA_OK(cudaMemcpy(x.dev, hx, sizeof hx, cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(b.dev, hb, sizeof hb, cudaMemcpyHostToDevice));
  printf("# probe.cmp_gt.bool expected(x>b, element 0 first):");
  for (i = 0; i < 64; ++i) printf("%s%d", i % 8 ? "" : " ", hx[i] > hb[i]);
  printf("\n");
  if (st == CUDNN_STATUS_SUCCESS)
    st = bk_pointwise_op(&op, CUDNN_POINTWISE_CMP_GT, CUDNN_DATA_FLOAT, x.desc, b.desc, NULL, y.desc);
  if (st == CUDNN_STATUS_SUCCESS) st = bk_plan_ex(h, &op, 1, 0, &plan, &ws_bytes, &engine, &tc, &stage);
  else stage = BK_STAGE_GRAPH;
  if (st != CUDNN_STATUS_SUCCESS) {
    printf("#noengine probe.cmp_gt.bool stage=%s st=%d\n", stage_name(stage), (int)st);
  } else {
    printf("# probe.cmp_gt.bool engine=%lld\n", (long long)engine);
    if (ws_bytes > 0) CUDA_OK(cudaMalloc(&ws, (size_t)ws_bytes));
    io[0] = &x, io[1] = &b, io[2] = &y;
    for (i = 0; i < 3; ++i) ptrs[i] = io[i]->dev;
    st = bk_execute(h, plan, 3, uids, ptrs, ws);
    CUDA_OK(cudaDeviceSynchronize());
    CUDA_OK(cudaMemcpy(hy, y.dev, sizeof hy, cudaMemcpyDeviceToHost));
    printf("probe.cmp_gt.bool tol=0 st=%d bytes=", (int)st);
    for (i = 0; i < 64 && st == CUDNN_STATUS_SUCCESS; ++i) printf("%02x", hy[i]);
    printf("\n");
    if (ws) cudaFree(ws);
    cudnnBackendDestroyDescriptor(plan);
  }
  bt_free(&x), bt_free(&b), bt_free(&y);
}

static void group_pointwise_f32(void) {
  pointwise_type(CUDNN_DATA_FLOAT);
  bool_probe();
}

static void group_pointwise_f16(void) {
  pointwise_type(CUDNN_DATA_HALF);
  /* f16 in, f32 out */
  pointwise_case("pw.add_bias.f16_to_f32.nchw", CUDNN_POINTWISE_ADD, CUDNN_DATA_HALF, 0, 2, 1, CUDNN_DATA_FLOAT);
}

/* ---------------------------------------------------------------- matmul + bias + gelu */

static void fusion_case(const char *name, cudnnDataType_t dt, int64_t batch, int64_t m, int64_t k, int64_t n) {
  int64_t da[3] = {batch, m, k}, db[3] = {batch, k, n}, dc[3] = {batch, m, n}, dbias[3] = {1, 1, n};
  BT a, b, c, bias, t, y, *io[4], *outs[1];
  cudnnBackendDescriptor_t ops[3];
  cudnnStatus_t st;
  st = bt_make(&a, 1, dt, 3, da, NULL, 0);
  if (st == CUDNN_STATUS_SUCCESS) st = bt_make(&b, 2, dt, 3, db, NULL, 0);
  if (st == CUDNN_STATUS_SUCCESS) st = bt_make(&bias, 3, dt, 3, dbias, NULL, 0);
  if (st == CUDNN_STATUS_SUCCESS) st = bt_make(&c, 100, CUDNN_DATA_FLOAT, 3, dc, NULL, 1);
  if (st == CUDNN_STATUS_SUCCESS) st = bt_make(&t, 101, CUDNN_DATA_FLOAT, 3, dc, NULL, 1);
  if (st == CUDNN_STATUS_SUCCESS) st = bt_make(&y, 4, dt, 3, dc, NULL, 0);
  if (st == CUDNN_STATUS_SUCCESS) {
    bt_fill(&a, 0.05, 0.5), bt_fill(&b, 0.05, 0.5), bt_fill(&bias, 0.1, 1.0);
    st = bk_matmul_op(&ops[0], CUDNN_DATA_FLOAT, a.desc, b.desc, c.desc);
  }
  if (st == CUDNN_STATUS_SUCCESS)
    st = bk_pointwise_op(&ops[1], CUDNN_POINTWISE_ADD, CUDNN_DATA_FLOAT, c.desc, bias.desc, NULL, t.desc);
  if (st == CUDNN_STATUS_SUCCESS)
    st = bk_pointwise_op(&ops[2], CUDNN_POINTWISE_GELU_FWD, CUDNN_DATA_FLOAT, t.desc, NULL, NULL, y.desc);
  io[0] = &a, io[1] = &b, io[2] = &bias, io[3] = &y, outs[0] = &y;
  run_graph(name, dt == CUDNN_DATA_FLOAT ? 1e-3 : tol_of(dt), dt == CUDNN_DATA_FLOAT, st, ops, 3, io, 4, outs, 1);
  bt_free(&a), bt_free(&b), bt_free(&bias), bt_free(&c), bt_free(&t), bt_free(&y);
}

static void group_fusion(void) {
  fusion_case("mm_bias_gelu.f16.1x64x96x80", CUDNN_DATA_HALF, 1, 64, 96, 80);
  fusion_case("mm_bias_gelu.f16.4x128x64x128", CUDNN_DATA_HALF, 4, 128, 64, 128);
  fusion_case("mm_bias_gelu.bf16.4x128x64x128", CUDNN_DATA_BFLOAT16, 4, 128, 64, 128);
  fusion_case("mm_bias_gelu.f32.4x64x96x80", CUDNN_DATA_FLOAT, 4, 64, 96, 80);
}

/* ---------------------------------------------------------------- convolution */

/* which: 0 forward, 1 data gradient, 2 filter gradient. 3x3, pad 1. */
static void conv_case(const char *name, int which, cudnnDataType_t dt, int nhwc, int64_t n, int64_t c, int64_t hw,
                      int64_t k, int64_t stride) {
  int64_t ho = (hw + 2 - 3) / stride + 1;
  int64_t dx[4] = {n, c, hw, hw}, dw[4] = {k, c, 3, 3}, dy[4] = {n, k, ho, ho};
  BT x, w, y, *io[3], *outs[1];
  cudnnBackendDescriptor_t conv, op;
  cudnnStatus_t st;
  st = nhwc ? bt_make_nhwc(&x, 1, dt, 4, dx) : bt_make(&x, 1, dt, 4, dx, NULL, 0);
  if (st == CUDNN_STATUS_SUCCESS) st = nhwc ? bt_make_nhwc(&w, 2, dt, 4, dw) : bt_make(&w, 2, dt, 4, dw, NULL, 0);
  if (st == CUDNN_STATUS_SUCCESS) st = nhwc ? bt_make_nhwc(&y, 3, dt, 4, dy) : bt_make(&y, 3, dt, 4, dy, NULL, 0);
  if (st == CUDNN_STATUS_SUCCESS) {
    if (which != 1) bt_fill(&x, 0.1, 1.0);
    if (which != 2) bt_fill(&w, 0.1, 1.0);
    if (which != 0) bt_fill(&y, 0.1, 1.0);
    st = bk_conv_desc(&conv, CUDNN_DATA_FLOAT, 1, stride, 1);
  }
  if (st == CUDNN_STATUS_SUCCESS) st = bk_conv_op(&op, which, conv, x.desc, w.desc, y.desc);
  io[0] = &x, io[1] = &w, io[2] = &y;
  outs[0] = which == 0 ? &y : which == 1 ? &x : &w;
  run_graph(name, tol_of(dt), dt == CUDNN_DATA_FLOAT, st, &op, 1, io, 3, outs, 1);
  bt_free(&x), bt_free(&w), bt_free(&y);
}

static void group_conv(void) {
  static const char *dir[3] = {"fwd", "dgrad", "wgrad"};
  char name[128];
  int which;
  for (which = 0; which < 3; ++which) {
    snprintf(name, sizeof name, "conv.%s.f16.nhwc.8x64x28x28.k64", dir[which]);
    conv_case(name, which, CUDNN_DATA_HALF, 1, 8, 64, 28, 64, 1);
    snprintf(name, sizeof name, "conv.%s.f32.nchw.4x16x20x20.k32", dir[which]);
    conv_case(name, which, CUDNN_DATA_FLOAT, 0, 4, 16, 20, 32, 1);
    snprintf(name, sizeof name, "conv.%s.f16.nhwc.4x32x17x17.k48.s2", dir[which]);
    conv_case(name, which, CUDNN_DATA_HALF, 1, 4, 32, 17, 48, 2);
  }
}

/* ---------------------------------------------------------------- reduction */

static void reduction_case(const char *name, cudnnReduceTensorOp_t mode, cudnnDataType_t dt, int nhwc,
                           const int64_t *dy) {
  int64_t dx[4] = {4, 16, 32, 64};
  BT x, y, *io[2], *outs[1];
  cudnnBackendDescriptor_t op;
  cudnnStatus_t st;
  st = nhwc ? bt_make_nhwc(&x, 1, dt, 4, dx) : bt_make(&x, 1, dt, 4, dx, NULL, 0);
  if (st == CUDNN_STATUS_SUCCESS) st = bt_make(&y, 2, CUDNN_DATA_FLOAT, 4, dy, NULL, 0);
  if (st == CUDNN_STATUS_SUCCESS) {
    bt_fill(&x, 0.1, 1.0);
    st = bk_reduction_op(&op, mode, CUDNN_DATA_FLOAT, x.desc, y.desc);
  }
  io[0] = &x, io[1] = &y, outs[0] = &y;
  run_graph(name, dt == CUDNN_DATA_FLOAT ? 1e-4 : 1e-3, 0, st, &op, 1, io, 2, outs, 1);
  bt_free(&x), bt_free(&y);
}

static void group_reduction(void) {
  int64_t last[4] = {4, 16, 32, 1}, hw[4] = {4, 16, 1, 1}, all[4] = {1, 1, 1, 1};
  reduction_case("red.add.lastdim.f32", CUDNN_REDUCE_TENSOR_ADD, CUDNN_DATA_FLOAT, 0, last);
  reduction_case("red.add.lastdim.f16", CUDNN_REDUCE_TENSOR_ADD, CUDNN_DATA_HALF, 0, last);
  reduction_case("red.max.hw.f32", CUDNN_REDUCE_TENSOR_MAX, CUDNN_DATA_FLOAT, 0, hw);
  reduction_case("red.max.hw.f32.nhwc", CUDNN_REDUCE_TENSOR_MAX, CUDNN_DATA_FLOAT, 1, hw);
  reduction_case("red.add.all.f32", CUDNN_REDUCE_TENSOR_ADD, CUDNN_DATA_FLOAT, 0, all);
}

/* ---------------------------------------------------------------- bad input */

/* Builds the graph of one operation and prints the finalize statuses of the
 * operation and (where it finalized) the graph: -1 for a stage not reached. */
static void print_bad(const char *name, cudnnStatus_t op_st, cudnnBackendDescriptor_t op) {
  cudnnBackendDescriptor_t g;
  cudnnStatus_t gst = (cudnnStatus_t)-1;
  if (op_st == CUDNN_STATUS_SUCCESS) {
    DNN_OK(cudnnBackendCreateDescriptor(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, &g));
    gst = cudnnBackendSetAttribute(g, CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &h);
    if (gst == CUDNN_STATUS_SUCCESS)
      gst = cudnnBackendSetAttribute(g, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &op);
    if (gst == CUDNN_STATUS_SUCCESS) gst = cudnnBackendFinalize(g);
    cudnnBackendDestroyDescriptor(g);
  }
  printf("%s tol=0 op=%d graph=%d\n", name, (int)op_st, (int)gst);
}

static void group_bad(void) {
  int64_t da[3] = {1, 64, 96}, db[3] = {1, 95, 80}, dc[3] = {1, 64, 80}, dcbad[3] = {1, 64, 81};
  int64_t d4[4] = {2, 3, 4, 5}, d4b[4] = {2, 3, 4, 4}, dz[4] = {2, 0, 4, 5}, dneg[4] = {2, -3, 4, 5};
  int64_t dx[4] = {2, 8, 10, 10}, dw[4] = {16, 8, 3, 3}, dybad[4] = {2, 16, 9, 9}, dwbad[4] = {16, 4, 3, 3};
  int64_t dy[4] = {2, 16, 8, 8}, d3[3] = {2, 3, 4}, dyr[4] = {2, 3, 4, 3};
  BT a, b, c, x, y, z, w;
  cudnnBackendDescriptor_t op, conv, t;
  cudnnStatus_t st;
  int64_t zs[4];
  /* matmul: k of a (96) != k of b (95) */
  bt_make(&a, 1, CUDNN_DATA_FLOAT, 3, da, NULL, 1), bt_make(&b, 2, CUDNN_DATA_FLOAT, 3, db, NULL, 1);
  bt_make(&c, 3, CUDNN_DATA_FLOAT, 3, dc, NULL, 1);
  st = bk_matmul_op(&op, CUDNN_DATA_FLOAT, a.desc, b.desc, c.desc);
  print_bad("bad.matmul_k_mismatch", st, op);
  bt_free(&b), bt_free(&c);
  /* matmul: n of c (81) != n of b (80) */
  bt_make(&b, 2, CUDNN_DATA_FLOAT, 3, (int64_t[]){1, 96, 80}, NULL, 1);
  bt_make(&c, 3, CUDNN_DATA_FLOAT, 3, dcbad, NULL, 1);
  st = bk_matmul_op(&op, CUDNN_DATA_FLOAT, a.desc, b.desc, c.desc);
  print_bad("bad.matmul_n_mismatch", st, op);
  bt_free(&a), bt_free(&b), bt_free(&c);
  /* pointwise: no y */
  bt_make(&x, 1, CUDNN_DATA_FLOAT, 4, d4, NULL, 1), bt_make(&y, 2, CUDNN_DATA_FLOAT, 4, d4, NULL, 1);
  st = bk_pointwise_op(&op, CUDNN_POINTWISE_ADD, CUDNN_DATA_FLOAT, x.desc, y.desc, NULL, NULL);
  printf("bad.pointwise_no_y tol=0 st=%d\n", (int)st);
  /* pointwise: unary mode with no x */
  st = bk_pointwise_op(&op, CUDNN_POINTWISE_RELU_FWD, CUDNN_DATA_FLOAT, NULL, NULL, NULL, y.desc);
  printf("bad.pointwise_no_x tol=0 st=%d\n", (int)st);
  /* pointwise: binary mode with no b */
  st = bk_pointwise_op(&op, CUDNN_POINTWISE_ADD, CUDNN_DATA_FLOAT, x.desc, NULL, NULL, y.desc);
  print_bad("bad.pointwise_add_no_b", st, op);
  /* pointwise: b not broadcastable to y */
  bt_make(&z, 3, CUDNN_DATA_FLOAT, 4, d4b, NULL, 1);
  st = bk_pointwise_op(&op, CUDNN_POINTWISE_ADD, CUDNN_DATA_FLOAT, x.desc, z.desc, NULL, y.desc);
  print_bad("bad.pointwise_b_shape", st, op);
  bt_free(&z);
  /* pointwise: rank of x != rank of y */
  bt_make(&z, 3, CUDNN_DATA_FLOAT, 3, d3, NULL, 1);
  st = bk_pointwise_op(&op, CUDNN_POINTWISE_RELU_FWD, CUDNN_DATA_FLOAT, z.desc, NULL, NULL, y.desc);
  print_bad("bad.pointwise_rank", st, op);
  bt_free(&z);
  /* pointwise: two operations writing the same y (uid 2) */
  {
    cudnnBackendDescriptor_t ops[2], g;
    cudnnStatus_t s1, s2, gst = (cudnnStatus_t)-1;
    s1 = bk_pointwise_op(&ops[0], CUDNN_POINTWISE_RELU_FWD, CUDNN_DATA_FLOAT, x.desc, NULL, NULL, y.desc);
    s2 = bk_pointwise_op(&ops[1], CUDNN_POINTWISE_TANH_FWD, CUDNN_DATA_FLOAT, x.desc, NULL, NULL, y.desc);
    if (s1 == CUDNN_STATUS_SUCCESS && s2 == CUDNN_STATUS_SUCCESS) {
      DNN_OK(cudnnBackendCreateDescriptor(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, &g));
      gst = cudnnBackendSetAttribute(g, CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &h);
      if (gst == CUDNN_STATUS_SUCCESS)
        gst = cudnnBackendSetAttribute(g, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 2, ops);
      if (gst == CUDNN_STATUS_SUCCESS) gst = cudnnBackendFinalize(g);
      cudnnBackendDestroyDescriptor(g);
    }
    printf("bad.graph_two_writers tol=0 op=%d,%d graph=%d\n", (int)s1, (int)s2, (int)gst);
  }
  bt_free(&x), bt_free(&y);
  /* tensors: a zero dim, a negative dim, strides count != dims count */
  bk_packed(4, dz, zs);
  st = bk_tensor_ex(&t, 9, CUDNN_DATA_FLOAT, 4, dz, zs, 0);
  printf("bad.tensor_zero_dim tol=0 st=%d\n", (int)st);
  cudnnBackendDestroyDescriptor(t);
  {
    /* the zero-dim tensors in a RELU: operation and graph finalize */
    cudnnBackendDescriptor_t zx, zy;
    cudnnStatus_t s1 = bk_tensor_ex(&zx, 10, CUDNN_DATA_FLOAT, 4, dz, zs, 0);
    cudnnStatus_t s2 = bk_tensor_ex(&zy, 11, CUDNN_DATA_FLOAT, 4, dz, zs, 0);
    if (s1 == CUDNN_STATUS_SUCCESS && s2 == CUDNN_STATUS_SUCCESS) {
      st = bk_pointwise_op(&op, CUDNN_POINTWISE_RELU_FWD, CUDNN_DATA_FLOAT, zx, NULL, NULL, zy);
      print_bad("bad.pointwise_zero_dim", st, op);
    } else {
      printf("bad.pointwise_zero_dim tol=0 tensors=%d,%d\n", (int)s1, (int)s2);
    }
    cudnnBackendDestroyDescriptor(zx), cudnnBackendDestroyDescriptor(zy);
  }
  st = bk_tensor_ex(&t, 9, CUDNN_DATA_FLOAT, 4, dneg, zs, 0);
  printf("bad.tensor_negative_dim tol=0 st=%d\n", (int)st);
  cudnnBackendDestroyDescriptor(t);
  {
    int64_t s3[3] = {20, 5, 1}, align = 16, uid = 9;
    cudnnDataType_t dt = CUDNN_DATA_FLOAT;
    DNN_OK(cudnnBackendCreateDescriptor(CUDNN_BACKEND_TENSOR_DESCRIPTOR, &t));
    cudnnBackendSetAttribute(t, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &uid);
    cudnnBackendSetAttribute(t, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &dt);
    cudnnBackendSetAttribute(t, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &align);
    cudnnBackendSetAttribute(t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 4, d4);
    cudnnBackendSetAttribute(t, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, 3, s3);
    printf("bad.tensor_stride_count tol=0 st=%d\n", (int)cudnnBackendFinalize(t));
    cudnnBackendDestroyDescriptor(t);
  }
  /* convolution: y of the wrong size; w with the wrong channel count */
  bk_conv_desc(&conv, CUDNN_DATA_FLOAT, 0, 1, 1);
  bt_make(&x, 1, CUDNN_DATA_FLOAT, 4, dx, NULL, 1), bt_make(&w, 2, CUDNN_DATA_FLOAT, 4, dw, NULL, 1);
  bt_make(&y, 3, CUDNN_DATA_FLOAT, 4, dybad, NULL, 1);
  st = bk_conv_op(&op, 0, conv, x.desc, w.desc, y.desc);
  print_bad("bad.conv_fwd_y_dims", st, op);
  bt_free(&y), bt_free(&w);
  bt_make(&w, 2, CUDNN_DATA_FLOAT, 4, dwbad, NULL, 1), bt_make(&y, 3, CUDNN_DATA_FLOAT, 4, dy, NULL, 1);
  st = bk_conv_op(&op, 0, conv, x.desc, w.desc, y.desc);
  print_bad("bad.conv_fwd_w_channels", st, op);
  bt_free(&x), bt_free(&w), bt_free(&y);
  /* reduction: y extent 3 of an x extent 5 (neither 1 nor a divisor) */
  bt_make(&x, 1, CUDNN_DATA_FLOAT, 4, d4, NULL, 1), bt_make(&y, 2, CUDNN_DATA_FLOAT, 4, dyr, NULL, 1);
  st = bk_reduction_op(&op, CUDNN_REDUCE_TENSOR_ADD, CUDNN_DATA_FLOAT, x.desc, y.desc);
  print_bad("bad.reduction_y_dims", st, op);
  bt_free(&x), bt_free(&y);
}

int main(int argc, char **argv) {
  int which, g;
  static void (*const groups[])(void) = {group_matmul, group_pointwise_f32, group_pointwise_f16, group_fusion,
                                          group_conv,   group_reduction,     group_bad};
  const int ngroups = (int)(sizeof groups / sizeof groups[0]);
  /* f32 matmuls and convolutions without TF32 in NVIDIA's engines */
  setenv("NVIDIA_TF32_OVERRIDE", "0", 1);
  if (oracle_groups_query(argc, argv, ngroups, &which)) return 0;
  if (!oracle_open(&h, 2026 + (which < 0 ? 0 : (uint64_t)which))) return 1;
  for (g = 0; g < ngroups; ++g)
    if (which < 0 || which == g) {
      if (which < 0) oracle_seed(2026 + (uint64_t)g);
      groups[g]();
    }
  cudnnDestroy(h);
  return 0;
}
