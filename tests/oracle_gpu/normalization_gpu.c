/* GPU differential program for batch normalization and the generic
 * normalization API: cudnnBatchNormalizationForwardInference / Training /
 * Backward, their Ex variants with fused add + relu, cudnnNormalization*,
 * the size queries, and the status codes of bad calls (epsilon, shape and
 * type mismatches, NULL pairs, groupCnt, activation modes). Built against
 * FreeDNN and against NVIDIA's cuDNN; see oracle_common.h for the format.
 * Reserve and workspace sizes are printed as information ('#') only: each
 * library sizes them for its own kernels. */
#include "oracle_program.h"

static cudnnHandle_t handle;

static double tol_of(cudnnDataType_t t) {
  switch (t) {
    case CUDNN_DATA_DOUBLE: return 1e-9;
    case CUDNN_DATA_FLOAT: return 1e-4;
    case CUDNN_DATA_HALF: return 4e-3;
    default: return 2e-2;
  }
}

static cudnnDataType_t ptype(cudnnDataType_t t) { return t == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT; }

/* Parameter tensor 1xCx1x1 (or 1xCxHxW) packed. */
static void param_tensor(OTensor *p, cudnnDataType_t t, int nb, const int *xdims, int per_act) {
  int d[8];
  for (int i = 0; i < nb; ++i) d[i] = i == 0 ? 1 : (i == 1 || per_act ? xdims[i] : 1);
  otensor_packed(p, ptype(t), nb, d, 0);
}

static const char *mode_name(int m) { return m == 0 ? "peract" : (m == 1 ? "spatial" : "persist"); }

static cudnnActivationDescriptor_t relu_desc(cudnnActivationMode_t m, double coef) {
  cudnnActivationDescriptor_t a;
  DNN_OK(cudnnCreateActivationDescriptor(&a));
  DNN_OK(cudnnSetActivationDescriptor(a, m, CUDNN_PROPAGATE_NAN, coef));
  return a;
}

/* Training forward then backward (Ex when ops > 0) on one problem. */
static void bn_case(cudnnDataType_t t, int mode, int nb, const int *dims, int nhwc, int ops, double alpha, double beta) {
  char name[160], base[128];
  snprintf(base, sizeof base, "bn.%s.%s.%dd.%s.ops%d.a%g.b%g", oracle_type_name(t), mode_name(mode), nb,
           nhwc ? "nhwc" : "nchw", ops, alpha, beta);
  OTensor x, y, z, dy, dx, dz, sc, bi, rm, rv, sm, si, ds, db;
  otensor_packed(&x, t, nb, dims, nhwc);
  otensor_packed(&y, t, nb, dims, nhwc);
  otensor_packed(&z, t, nb, dims, nhwc);
  otensor_packed(&dy, t, nb, dims, nhwc);
  otensor_packed(&dx, t, nb, dims, nhwc);
  otensor_packed(&dz, t, nb, dims, nhwc);
  otensor_fill(&x, 0.1, 3.0);
  otensor_fill(&y, 0.5, 1.5);
  otensor_fill(&z, 0.1, 1.0);
  otensor_fill(&dy, 0.1, 2.0);
  otensor_fill(&dx, 0.5, 1.5);
  OTensor *ps[] = {&sc, &bi, &rm, &rv, &sm, &si, &ds, &db};
  for (int i = 0; i < 8; ++i) param_tensor(ps[i], t, nb, dims, mode == 0);
  otensor_fill(&sc, 0.5, 2.0);
  otensor_fill(&bi, 0.1, 1.0);
  otensor_fill(&rm, 0.1, 1.0);
  otensor_fill_positive(&rv, 0.5, 2.0);
  otensor_fill(&ds, 0.5, 1.0);
  otensor_fill(&db, 0.5, 1.0);
  Scale a = scale(alpha), b = scale(beta), one = scale(1), zero = scale(0);
  const double eps = 1e-4, factor = 0.25;
  cudnnActivationDescriptor_t act = ops ? relu_desc(CUDNN_ACTIVATION_RELU, 0) : NULL;
  size_t rs = 0, wsf = 0, wsb = 0;
  void *reserve = NULL, *wf = NULL, *wb = NULL;
  cudnnStatus_t st;
  if (ops) {
    st = cudnnGetBatchNormalizationTrainingExReserveSpaceSize(handle, (cudnnBatchNormMode_t)mode, (cudnnBatchNormOps_t)ops, act, x.desc, &rs);
    printf("# %s reserve st=%d bytes=%zu\n", base, (int)st, rs);
    st = cudnnGetBatchNormalizationForwardTrainingExWorkspaceSize(handle, (cudnnBatchNormMode_t)mode, (cudnnBatchNormOps_t)ops, x.desc,
                                                                  ops == 2 ? z.desc : NULL, y.desc, sc.desc, act, &wsf);
    printf("# %s fwd workspace st=%d bytes=%zu\n", base, (int)st, wsf);
    st = cudnnGetBatchNormalizationBackwardExWorkspaceSize(handle, (cudnnBatchNormMode_t)mode, (cudnnBatchNormOps_t)ops, x.desc, y.desc,
                                                           dy.desc, ops == 2 ? dz.desc : NULL, dx.desc, sc.desc, act, &wsb);
    printf("# %s bwd workspace st=%d bytes=%zu\n", base, (int)st, wsb);
    CUDA_OK(cudaMalloc(&reserve, rs + 16));
    CUDA_OK(cudaMalloc(&wf, wsf + 16));
    CUDA_OK(cudaMalloc(&wb, wsb + 16));
    st = cudnnBatchNormalizationForwardTrainingEx(handle, (cudnnBatchNormMode_t)mode, (cudnnBatchNormOps_t)ops, sp(&a, t), sp(&b, t), x.desc, x.dev,
                                                  ops == 2 ? z.desc : NULL, ops == 2 ? z.dev : NULL, y.desc, y.dev, sc.desc, sc.dev, bi.dev,
                                                  factor, rm.dev, rv.dev, eps, sm.dev, si.dev, act, wf, wsf, reserve, rs);
  } else {
    st = cudnnBatchNormalizationForwardTraining(handle, (cudnnBatchNormMode_t)mode, sp(&a, t), sp(&b, t), x.desc, x.dev, y.desc, y.dev,
                                                sc.desc, sc.dev, bi.dev, factor, rm.dev, rv.dev, eps, sm.dev, si.dev);
  }
  snprintf(name, sizeof name, "%s.fwd.y", base);
  oracle_report(name, tol_of(t), st, &y);
  snprintf(name, sizeof name, "%s.fwd.mean", base);
  oracle_report(name, tol_of(CUDNN_DATA_FLOAT) * (t == CUDNN_DATA_DOUBLE ? 1e-5 : 1), st, &sm);
  snprintf(name, sizeof name, "%s.fwd.invstd", base);
  oracle_report(name, tol_of(CUDNN_DATA_FLOAT) * (t == CUDNN_DATA_DOUBLE ? 1e-5 : 1), st, &si);
  snprintf(name, sizeof name, "%s.fwd.runmean", base);
  oracle_report(name, tol_of(CUDNN_DATA_FLOAT) * (t == CUDNN_DATA_DOUBLE ? 1e-5 : 1), st, &rm);
  snprintf(name, sizeof name, "%s.fwd.runvar", base);
  oracle_report(name, tol_of(CUDNN_DATA_FLOAT) * (t == CUDNN_DATA_DOUBLE ? 1e-5 : 1), st, &rv);
  if (ops) {
    st = cudnnBatchNormalizationBackwardEx(handle, (cudnnBatchNormMode_t)mode, (cudnnBatchNormOps_t)ops, sp(&a, t), sp(&b, t), sp(&one, t),
                                           sp(&zero, t), x.desc, x.dev, y.desc, y.dev, dy.desc, dy.dev, ops == 2 ? dz.desc : NULL,
                                           ops == 2 ? dz.dev : NULL, dx.desc, dx.dev, sc.desc, sc.dev, bi.dev, ds.dev, db.dev, eps,
                                           sm.dev, si.dev, act, wb, wsb, reserve, rs);
  } else {
    st = cudnnBatchNormalizationBackward(handle, (cudnnBatchNormMode_t)mode, sp(&a, t), sp(&b, t), sp(&one, t), sp(&b, t), x.desc, x.dev,
                                         dy.desc, dy.dev, dx.desc, dx.dev, sc.desc, sc.dev, ds.dev, db.dev, eps, sm.dev, si.dev);
  }
  snprintf(name, sizeof name, "%s.bwd.dx", base);
  oracle_report(name, tol_of(t) * 4, st, &dx);
  snprintf(name, sizeof name, "%s.bwd.dscale", base);
  oracle_report(name, tol_of(t), st, &ds);
  snprintf(name, sizeof name, "%s.bwd.dbias", base);
  oracle_report(name, tol_of(t), st, &db);
  if (ops == 2) {
    snprintf(name, sizeof name, "%s.bwd.dz", base);
    oracle_report(name, tol_of(t), st, &dz);
  }
  /* Backward without saved statistics (recomputed from x). */
  if (!ops) {
    st = cudnnBatchNormalizationBackward(handle, (cudnnBatchNormMode_t)mode, sp(&one, t), sp(&zero, t), sp(&one, t), sp(&zero, t),
                                         x.desc, x.dev, dy.desc, dy.dev, dx.desc, dx.dev, sc.desc, sc.dev, ds.dev, db.dev, eps, NULL, NULL);
    snprintf(name, sizeof name, "%s.bwd_nosaved.dx", base);
    oracle_report(name, tol_of(t) * 4, st, &dx);
  }
  /* Inference with the running statistics. */
  st = cudnnBatchNormalizationForwardInference(handle, (cudnnBatchNormMode_t)mode, sp(&a, t), sp(&zero, t), x.desc, x.dev, y.desc, y.dev,
                                               sc.desc, sc.dev, bi.dev, rm.dev, rv.dev, eps);
  snprintf(name, sizeof name, "%s.inf.y", base);
  oracle_report(name, tol_of(t), st, &y);
  if (act) cudnnDestroyActivationDescriptor(act);
  cudaFree(reserve);
  cudaFree(wf);
  cudaFree(wb);
  OTensor *all[] = {&x, &y, &z, &dy, &dx, &dz};
  for (int i = 0; i < 6; ++i) otensor_free(all[i]);
  for (int i = 0; i < 8; ++i) otensor_free(ps[i]);
}

static void bn_cases(void) {
  int d4[4] = {4, 24, 9, 7}, d5[5] = {2, 8, 3, 5, 6}, big[4] = {16, 64, 28, 28};
  cudnnDataType_t types[] = {CUDNN_DATA_FLOAT, CUDNN_DATA_HALF, CUDNN_DATA_DOUBLE, CUDNN_DATA_BFLOAT16};
  for (int ti = 0; ti < 4; ++ti)
    for (int mode = 0; mode < 3; ++mode)
      for (int nhwc = 0; nhwc < 2; ++nhwc) {
        bn_case(types[ti], mode, 4, d4, nhwc, 0, 1, 0);
        bn_case(types[ti], mode, 5, d5, nhwc, 0, 0.5, 0.25);
      }
  bn_case(CUDNN_DATA_FLOAT, 1, 4, big, 0, 0, 1, 0);
  bn_case(CUDNN_DATA_HALF, 2, 4, big, 1, 0, 1, 0);
  /* Sets of 0.4-1.6 MB: FreeDNN splits each over a cluster of several blocks. */
  int huge[4] = {64, 32, 56, 56};
  bn_case(CUDNN_DATA_FLOAT, 1, 4, huge, 0, 0, 1, 0.5);
  bn_case(CUDNN_DATA_HALF, 1, 4, huge, 0, 0, 0.5, 0.25);
  /* Fused ops: NVIDIA runs them for NHWC (half) with SPATIAL_PERSISTENT. */
  for (int ops = 1; ops <= 2; ++ops) {
    bn_case(CUDNN_DATA_HALF, 2, 4, big, 1, ops, 1, 0);
    bn_case(CUDNN_DATA_HALF, 2, 4, d4, 1, ops, 1, 0);
    bn_case(CUDNN_DATA_FLOAT, 2, 4, d4, 1, ops, 1, 0);
    bn_case(CUDNN_DATA_HALF, 1, 4, d4, 0, ops, 1, 0);
  }
}

/* The generic API on one problem: training, backward, inference. */
static void norm_case(cudnnDataType_t t, int mode, int nhwc, int ops) {
  int dims[4] = {4, 16, 5, 6};
  char name[160], base[128];
  snprintf(base, sizeof base, "norm.%s.%s.%s.ops%d", oracle_type_name(t), mode ? "perchan" : "peract", nhwc ? "nhwc" : "nchw", ops);
  OTensor x, y, z, dy, dx, dz, sc, bi, rm, rv, sm, si, ds, db;
  otensor_packed(&x, t, 4, dims, nhwc);
  otensor_packed(&y, t, 4, dims, nhwc);
  otensor_packed(&z, t, 4, dims, nhwc);
  otensor_packed(&dy, t, 4, dims, nhwc);
  otensor_packed(&dx, t, 4, dims, nhwc);
  otensor_packed(&dz, t, 4, dims, nhwc);
  otensor_fill(&x, 0.1, 3.0);
  otensor_fill(&z, 0.1, 1.0);
  otensor_fill(&dy, 0.1, 2.0);
  OTensor *ps[] = {&sc, &bi, &rm, &rv, &sm, &si, &ds, &db};
  for (int i = 0; i < 8; ++i) param_tensor(ps[i], t, 4, dims, mode == 0);
  otensor_fill(&sc, 0.5, 2.0);
  otensor_fill(&bi, 0.1, 1.0);
  otensor_fill(&rm, 0.1, 1.0);
  otensor_fill_positive(&rv, 0.5, 2.0);
  Scale one = scale(1), zero = scale(0);
  cudnnActivationDescriptor_t act = ops ? relu_desc(CUDNN_ACTIVATION_RELU, 0) : NULL;
  size_t rs = 0, wf = 0, wb = 0;
  cudnnStatus_t st = cudnnGetNormalizationTrainingReserveSpaceSize(handle, (cudnnNormMode_t)mode, (cudnnNormOps_t)ops, CUDNN_NORM_ALGO_STANDARD, act, x.desc, &rs, 1);
  printf("# %s reserve st=%d bytes=%zu\n", base, (int)st, rs);
  st = cudnnGetNormalizationForwardTrainingWorkspaceSize(handle, (cudnnNormMode_t)mode, (cudnnNormOps_t)ops, CUDNN_NORM_ALGO_STANDARD, x.desc,
                                                         ops == 2 ? z.desc : NULL, y.desc, sc.desc, act, sm.desc, &wf, 1);
  printf("# %s fwd workspace st=%d bytes=%zu\n", base, (int)st, wf);
  st = cudnnGetNormalizationBackwardWorkspaceSize(handle, (cudnnNormMode_t)mode, (cudnnNormOps_t)ops, CUDNN_NORM_ALGO_STANDARD, x.desc, y.desc, dy.desc,
                                                  ops == 2 ? dz.desc : NULL, dx.desc, sc.desc, act, sm.desc, &wb, 1);
  printf("# %s bwd workspace st=%d bytes=%zu\n", base, (int)st, wb);
  void *r = NULL, *w1 = NULL, *w2 = NULL;
  CUDA_OK(cudaMalloc(&r, rs + 16));
  CUDA_OK(cudaMalloc(&w1, wf + 16));
  CUDA_OK(cudaMalloc(&w2, wb + 16));
  st = cudnnNormalizationForwardTraining(handle, (cudnnNormMode_t)mode, (cudnnNormOps_t)ops, CUDNN_NORM_ALGO_STANDARD, sp(&one, t), sp(&zero, t),
                                         x.desc, x.dev, sc.desc, sc.dev, bi.dev, 0.5, sm.desc, rm.dev, rv.dev, 1e-5, sm.dev, si.dev, act,
                                         ops == 2 ? z.desc : NULL, ops == 2 ? z.dev : NULL, y.desc, y.dev, w1, wf, r, rs, 1);
  snprintf(name, sizeof name, "%s.fwd.y", base);
  oracle_report(name, tol_of(t), st, &y);
  snprintf(name, sizeof name, "%s.fwd.runvar", base);
  oracle_report(name, 1e-4, st, &rv);
  st = cudnnNormalizationBackward(handle, (cudnnNormMode_t)mode, (cudnnNormOps_t)ops, CUDNN_NORM_ALGO_STANDARD, sp(&one, t), sp(&zero, t),
                                  sp(&one, t), sp(&zero, t), x.desc, x.dev, y.desc, y.dev, dy.desc, dy.dev, ops == 2 ? dz.desc : NULL,
                                  ops == 2 ? dz.dev : NULL, dx.desc, dx.dev, sc.desc, sc.dev, bi.dev, ds.dev, db.dev, 1e-5, sm.desc, sm.dev,
                                  si.dev, act, w2, wb, r, rs, 1);
  snprintf(name, sizeof name, "%s.bwd.dx", base);
  oracle_report(name, tol_of(t) * 4, st, &dx);
  snprintf(name, sizeof name, "%s.bwd.dscale", base);
  oracle_report(name, tol_of(t), st, &ds);
  st = cudnnNormalizationForwardInference(handle, (cudnnNormMode_t)mode, (cudnnNormOps_t)ops, CUDNN_NORM_ALGO_STANDARD, sp(&one, t),
                                          sp(&zero, t), x.desc, x.dev, sc.desc, sc.dev, bi.dev, sm.desc, rm.dev, rv.dev,
                                          ops == 2 ? z.desc : NULL, ops == 2 ? z.dev : NULL, act, y.desc, y.dev, 1e-5, 1);
  snprintf(name, sizeof name, "%s.inf.y", base);
  oracle_report(name, tol_of(t), st, &y);
  if (act) cudnnDestroyActivationDescriptor(act);
  cudaFree(r);
  cudaFree(w1);
  cudaFree(w2);
  OTensor *all[] = {&x, &y, &z, &dy, &dx, &dz};
  for (int i = 0; i < 6; ++i) otensor_free(all[i]);
  for (int i = 0; i < 8; ++i) otensor_free(ps[i]);
}

static void norm_cases(void) {
  for (int mode = 0; mode < 2; ++mode)
    for (int nhwc = 0; nhwc < 2; ++nhwc) norm_case(CUDNN_DATA_FLOAT, mode, nhwc, 0);
  norm_case(CUDNN_DATA_HALF, 1, 1, 1);
  norm_case(CUDNN_DATA_HALF, 1, 1, 2);
  norm_case(CUDNN_DATA_FLOAT, 1, 0, 1);
}

/* Status codes of bad calls (and of calls at the edge of what is allowed). */
static void bad_input_cases(void) {
  int d4[4] = {2, 3, 4, 5}, d3[3] = {2, 3, 20}, dother[4] = {2, 3, 4, 6}, d6[6] = {2, 3, 2, 2, 2, 2};
  int p4[4] = {1, 3, 1, 1}, pbad[4] = {1, 4, 1, 1}, pact[4] = {1, 3, 4, 5}, p3[3] = {1, 3, 1}, p6[6] = {1, 3, 1, 1, 1, 1};
  OTensor x, xh, x3, xo, x6, xi8, p, pb, pa, pd, p3t, p6t, xd;
  otensor_packed(&x, CUDNN_DATA_FLOAT, 4, d4, 0);
  otensor_packed(&xh, CUDNN_DATA_HALF, 4, d4, 1);
  otensor_packed(&xd, CUDNN_DATA_DOUBLE, 4, d4, 0);
  otensor_packed(&x3, CUDNN_DATA_FLOAT, 3, d3, 0);
  otensor_packed(&xo, CUDNN_DATA_FLOAT, 4, dother, 0);
  otensor_packed(&x6, CUDNN_DATA_FLOAT, 6, d6, 0);
  otensor_packed(&xi8, CUDNN_DATA_INT8, 4, d4, 0);
  otensor_packed(&p, CUDNN_DATA_FLOAT, 4, p4, 0);
  otensor_packed(&pb, CUDNN_DATA_FLOAT, 4, pbad, 0);
  otensor_packed(&pa, CUDNN_DATA_FLOAT, 4, pact, 0);
  otensor_packed(&pd, CUDNN_DATA_DOUBLE, 4, p4, 0);
  otensor_packed(&p3t, CUDNN_DATA_FLOAT, 3, p3, 0);
  otensor_packed(&p6t, CUDNN_DATA_FLOAT, 6, p6, 0);
  otensor_fill(&x, 0.5, 1.0);
  otensor_fill_positive(&p, 0.5, 1.0);
  void *buf, *pbuf, *res;
  CUDA_OK(cudaMalloc(&buf, 1 << 16));
  CUDA_OK(cudaMalloc(&pbuf, 1 << 12));
  CUDA_OK(cudaMalloc(&res, 1 << 16));
  CUDA_OK(cudaMemset(pbuf, 0, 1 << 12));
  float one = 1, zero = 0;
  double done = 1, dzero = 0;
#define INF(name, mode, xdsc, ydsc, pdsc, eps) \
  oracle_report_status(name, cudnnBatchNormalizationForwardInference(handle, mode, &one, &zero, xdsc, buf, ydsc, buf, pdsc, pbuf, pbuf, pbuf, pbuf, eps))
  INF("bad.inf.ok", CUDNN_BATCHNORM_SPATIAL, x.desc, x.desc, p.desc, 1e-5);
  INF("bad.inf.eps_zero", CUDNN_BATCHNORM_SPATIAL, x.desc, x.desc, p.desc, 0.0);
  INF("bad.inf.eps_neg", CUDNN_BATCHNORM_SPATIAL, x.desc, x.desc, p.desc, -1e-5);
  INF("bad.inf.mode3", (cudnnBatchNormMode_t)3, x.desc, x.desc, p.desc, 1e-5);
  INF("bad.inf.ydims", CUDNN_BATCHNORM_SPATIAL, x.desc, xo.desc, p.desc, 1e-5);
  INF("bad.inf.ytype", CUDNN_BATCHNORM_SPATIAL, x.desc, xh.desc, p.desc, 1e-5);
  INF("bad.inf.pdims", CUDNN_BATCHNORM_SPATIAL, x.desc, x.desc, pb.desc, 1e-5);
  INF("bad.inf.peract_with_spatial_p", CUDNN_BATCHNORM_PER_ACTIVATION, x.desc, x.desc, p.desc, 1e-5);
  INF("bad.inf.spatial_with_peract_p", CUDNN_BATCHNORM_SPATIAL, x.desc, x.desc, pa.desc, 1e-5);
  INF("bad.inf.ptype_double", CUDNN_BATCHNORM_SPATIAL, x.desc, x.desc, pd.desc, 1e-5);
  INF("bad.inf.rank3", CUDNN_BATCHNORM_SPATIAL, x3.desc, x3.desc, p3t.desc, 1e-5);
  INF("bad.inf.rank6", CUDNN_BATCHNORM_SPATIAL, x6.desc, x6.desc, p6t.desc, 1e-5);
  INF("bad.inf.int8", CUDNN_BATCHNORM_SPATIAL, xi8.desc, xi8.desc, p.desc, 1e-5);
  INF("bad.inf.half_x_float_p", CUDNN_BATCHNORM_SPATIAL, xh.desc, xh.desc, p.desc, 1e-5);
  oracle_report_status("bad.inf.double_x_double_p", cudnnBatchNormalizationForwardInference(handle, CUDNN_BATCHNORM_SPATIAL, &done, &dzero, xd.desc, buf, xd.desc, buf, pd.desc, pbuf, pbuf, pbuf, pbuf, 1e-5));
  INF("bad.inf.double_x_float_p", CUDNN_BATCHNORM_SPATIAL, xd.desc, xd.desc, p.desc, 1e-5);
  oracle_report_status("bad.inf.null_mean", cudnnBatchNormalizationForwardInference(handle, CUDNN_BATCHNORM_SPATIAL, &one, &zero, x.desc, buf, x.desc, buf, p.desc, pbuf, pbuf, NULL, pbuf, 1e-5));
  oracle_report_status("bad.inf.null_alpha", cudnnBatchNormalizationForwardInference(handle, CUDNN_BATCHNORM_SPATIAL, NULL, &zero, x.desc, buf, x.desc, buf, p.desc, pbuf, pbuf, pbuf, pbuf, 1e-5));
#undef INF
#define TRAIN(name, xdsc, pdsc, eps, rm, rv, sm, si) \
  oracle_report_status(name, cudnnBatchNormalizationForwardTraining(handle, CUDNN_BATCHNORM_SPATIAL, &one, &zero, xdsc, buf, xdsc, buf, pdsc, pbuf, pbuf, 0.1, rm, rv, eps, sm, si))
  TRAIN("bad.train.ok", x.desc, p.desc, 1e-5, pbuf, pbuf, res, (char *)res + 64);
  TRAIN("bad.train.nulls", x.desc, p.desc, 1e-5, NULL, NULL, NULL, NULL);
  TRAIN("bad.train.one_running", x.desc, p.desc, 1e-5, pbuf, NULL, NULL, NULL);
  TRAIN("bad.train.one_saved", x.desc, p.desc, 1e-5, NULL, NULL, NULL, res);
  TRAIN("bad.train.eps_neg", x.desc, p.desc, -1.0, NULL, NULL, NULL, NULL);
  TRAIN("bad.train.pdims", x.desc, pb.desc, 1e-5, NULL, NULL, NULL, NULL);
  TRAIN("bad.train.rank3", x3.desc, p3t.desc, 1e-5, NULL, NULL, NULL, NULL);
  oracle_report_status("bad.train.ymismatch", cudnnBatchNormalizationForwardTraining(handle, CUDNN_BATCHNORM_SPATIAL, &one, &zero, x.desc, buf, xo.desc, buf, p.desc, pbuf, pbuf, 0.1, NULL, NULL, 1e-5, NULL, NULL));
#undef TRAIN
#define BWD(name, dxd, pdsc, eps, sm, si) \
  oracle_report_status(name, cudnnBatchNormalizationBackward(handle, CUDNN_BATCHNORM_SPATIAL, &one, &zero, &one, &zero, x.desc, buf, x.desc, buf, dxd, res, pdsc, pbuf, (char *)pbuf + 256, (char *)pbuf + 512, eps, sm, si))
  BWD("bad.bwd.ok", x.desc, p.desc, 1e-5, pbuf, pbuf);
  BWD("bad.bwd.nosaved", x.desc, p.desc, 1e-5, NULL, NULL);
  BWD("bad.bwd.one_saved", x.desc, p.desc, 1e-5, pbuf, NULL);
  BWD("bad.bwd.dxdims", xo.desc, p.desc, 1e-5, NULL, NULL);
  BWD("bad.bwd.pdims", x.desc, pb.desc, 1e-5, NULL, NULL);
  BWD("bad.bwd.eps_neg", x.desc, p.desc, -1e-5, NULL, NULL);
#undef BWD
  /* Ex: activation modes, ops values, reserve space. */
  cudnnActivationDescriptor_t acts[6];
  cudnnActivationMode_t modes[6] = {CUDNN_ACTIVATION_SIGMOID, CUDNN_ACTIVATION_RELU, CUDNN_ACTIVATION_TANH,
                                    CUDNN_ACTIVATION_CLIPPED_RELU, CUDNN_ACTIVATION_ELU, CUDNN_ACTIVATION_IDENTITY};
  char name[128];
  for (int i = 0; i < 6; ++i) {
    acts[i] = relu_desc(modes[i], 2.0);
    size_t rs = 0;
    cudnnStatus_t st = cudnnGetBatchNormalizationTrainingExReserveSpaceSize(handle, CUDNN_BATCHNORM_SPATIAL_PERSISTENT, CUDNN_BATCHNORM_OPS_BN_ACTIVATION, acts[i], xh.desc, &rs);
    snprintf(name, sizeof name, "bad.ex.reserve_query.act%d", (int)modes[i]);
    oracle_report_status(name, st);
    st = cudnnBatchNormalizationForwardTrainingEx(handle, CUDNN_BATCHNORM_SPATIAL_PERSISTENT, CUDNN_BATCHNORM_OPS_BN_ACTIVATION, &one, &zero, xh.desc, buf, NULL, NULL, xh.desc, buf, p.desc, pbuf, pbuf, 0.1, NULL, NULL, 1e-5, NULL, NULL, acts[i], NULL, 0, res, 1 << 16);
    snprintf(name, sizeof name, "bad.ex.fwd.act%d", (int)modes[i]);
    oracle_report_status(name, st);
  }
  oracle_report_status("bad.ex.fwd.ops3", cudnnBatchNormalizationForwardTrainingEx(handle, CUDNN_BATCHNORM_SPATIAL_PERSISTENT, (cudnnBatchNormOps_t)3, &one, &zero, xh.desc, buf, NULL, NULL, xh.desc, buf, p.desc, pbuf, pbuf, 0.1, NULL, NULL, 1e-5, NULL, NULL, acts[1], NULL, 0, res, 1 << 16));
  oracle_report_status("bad.ex.fwd.no_reserve", cudnnBatchNormalizationForwardTrainingEx(handle, CUDNN_BATCHNORM_SPATIAL_PERSISTENT, CUDNN_BATCHNORM_OPS_BN_ACTIVATION, &one, &zero, xh.desc, buf, NULL, NULL, xh.desc, buf, p.desc, pbuf, pbuf, 0.1, NULL, NULL, 1e-5, NULL, NULL, acts[1], NULL, 0, NULL, 0));
  oracle_report_status("bad.ex.fwd.add_no_z", cudnnBatchNormalizationForwardTrainingEx(handle, CUDNN_BATCHNORM_SPATIAL_PERSISTENT, CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION, &one, &zero, xh.desc, buf, NULL, NULL, xh.desc, buf, p.desc, pbuf, pbuf, 0.1, NULL, NULL, 1e-5, NULL, NULL, acts[1], NULL, 0, res, 1 << 16));
  oracle_report_status("bad.ex.fwd.act_null_desc", cudnnBatchNormalizationForwardTrainingEx(handle, CUDNN_BATCHNORM_SPATIAL_PERSISTENT, CUDNN_BATCHNORM_OPS_BN_ACTIVATION, &one, &zero, xh.desc, buf, NULL, NULL, xh.desc, buf, p.desc, pbuf, pbuf, 0.1, NULL, NULL, 1e-5, NULL, NULL, NULL, NULL, 0, res, 1 << 16));
  oracle_report_status("bad.ex.fwd.nchw_float_relu", cudnnBatchNormalizationForwardTrainingEx(handle, CUDNN_BATCHNORM_SPATIAL, CUDNN_BATCHNORM_OPS_BN_ACTIVATION, &one, &zero, x.desc, buf, NULL, NULL, x.desc, buf, p.desc, pbuf, pbuf, 0.1, NULL, NULL, 1e-5, NULL, NULL, acts[1], NULL, 0, res, 1 << 16));
  for (int i = 0; i < 6; ++i) cudnnDestroyActivationDescriptor(acts[i]);
  /* Generic API: groupCnt, algo, modes. */
  int groups[4] = {0, 1, 2, -1};
  for (int i = 0; i < 4; ++i) {
    snprintf(name, sizeof name, "bad.norm.inf.groups%d", groups[i]);
    oracle_report_status(name, cudnnNormalizationForwardInference(handle, CUDNN_NORM_PER_CHANNEL, CUDNN_NORM_OPS_NORM, CUDNN_NORM_ALGO_STANDARD, &one, &zero, x.desc, buf, p.desc, pbuf, pbuf, p.desc, pbuf, pbuf, NULL, NULL, NULL, x.desc, buf, 1e-5, groups[i]));
    size_t rs;
    snprintf(name, sizeof name, "bad.norm.reserve.groups%d", groups[i]);
    oracle_report_status(name, cudnnGetNormalizationTrainingReserveSpaceSize(handle, CUDNN_NORM_PER_CHANNEL, CUDNN_NORM_OPS_NORM, CUDNN_NORM_ALGO_STANDARD, NULL, x.desc, &rs, groups[i]));
  }
  oracle_report_status("bad.norm.inf.mode2", cudnnNormalizationForwardInference(handle, (cudnnNormMode_t)2, CUDNN_NORM_OPS_NORM, CUDNN_NORM_ALGO_STANDARD, &one, &zero, x.desc, buf, p.desc, pbuf, pbuf, p.desc, pbuf, pbuf, NULL, NULL, NULL, x.desc, buf, 1e-5, 1));
  oracle_report_status("bad.norm.inf.algo2", cudnnNormalizationForwardInference(handle, CUDNN_NORM_PER_CHANNEL, CUDNN_NORM_OPS_NORM, (cudnnNormAlgo_t)2, &one, &zero, x.desc, buf, p.desc, pbuf, pbuf, p.desc, pbuf, pbuf, NULL, NULL, NULL, x.desc, buf, 1e-5, 1));
  oracle_report_status("bad.norm.inf.eps_neg", cudnnNormalizationForwardInference(handle, CUDNN_NORM_PER_CHANNEL, CUDNN_NORM_OPS_NORM, CUDNN_NORM_ALGO_STANDARD, &one, &zero, x.desc, buf, p.desc, pbuf, pbuf, p.desc, pbuf, pbuf, NULL, NULL, NULL, x.desc, buf, -1.0, 1));
  oracle_report_status("bad.norm.inf.meanvar_dims", cudnnNormalizationForwardInference(handle, CUDNN_NORM_PER_CHANNEL, CUDNN_NORM_OPS_NORM, CUDNN_NORM_ALGO_STANDARD, &one, &zero, x.desc, buf, p.desc, pbuf, pbuf, pb.desc, pbuf, pbuf, NULL, NULL, NULL, x.desc, buf, 1e-5, 1));
  OTensor *all[] = {&x, &xh, &x3, &xo, &x6, &xi8, &p, &pb, &pa, &pd, &p3t, &p6t, &xd};
  for (int i = 0; i < 13; ++i) otensor_free(all[i]);
  cudaFree(buf);
  cudaFree(pbuf);
  cudaFree(res);
}

/* Running variance with one element per set (M = 1: the unbiased factor). */
static void probe_single_element(void) {
  int d4[4] = {1, 4, 1, 1};
  OTensor x, y, p, rm, rv;
  otensor_packed(&x, CUDNN_DATA_FLOAT, 4, d4, 0);
  otensor_packed(&y, CUDNN_DATA_FLOAT, 4, d4, 0);
  otensor_packed(&p, CUDNN_DATA_FLOAT, 4, d4, 0);
  otensor_packed(&rm, CUDNN_DATA_FLOAT, 4, d4, 0);
  otensor_packed(&rv, CUDNN_DATA_FLOAT, 4, d4, 0);
  otensor_fill(&x, 0.5, 1);
  otensor_fill(&p, 0.5, 1);
  otensor_fill_positive(&rm, 0.5, 1);
  otensor_fill_positive(&rv, 0.5, 1);
  float one = 1, zero = 0;
  cudnnStatus_t st = cudnnBatchNormalizationForwardTraining(handle, CUDNN_BATCHNORM_SPATIAL, &one, &zero, x.desc, x.dev, y.desc, y.dev, p.desc, p.dev, p.dev, 0.5, rm.dev, rv.dev, 1e-5, NULL, NULL);
  oracle_report("probe.m1.y", 1e-4, st, &y);
  oracle_report("probe.m1.runvar", 1e-4, st, &rv);
  otensor_free(&x);
  otensor_free(&y);
  otensor_free(&p);
  otensor_free(&rm);
  otensor_free(&rv);
}

enum { kGroups = 4 };

int main(int argc, char **argv) {
  int which;
  if (oracle_groups_query(argc, argv, kGroups, &which)) return 0;
  if (!oracle_open(&handle, 20241125)) return 1;
  if (which < 0 || which == 0) bn_cases();
  if (which < 0 || which == 1) norm_cases();
  if (which < 0 || which == 2) bad_input_cases();
  if (which < 0 || which == 3) probe_single_element();
  cudnnDestroy(handle);
  return 0;
}
