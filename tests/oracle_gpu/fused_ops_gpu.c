/* GPU differential program for the fused-ops API (cudnnMakeFusedOpsPlan /
 * cudnnFusedOpsExecute) on every fused-op kind, in the configurations the
 * seed names for NVIDIA's fast paths (half NHWC, C and K multiples of 32,
 * half scale/bias, float statistics) and in float NCHW. NVIDIA supports only
 * some of them on a given GPU: each case prints the make status and the
 * execute status with its results, so unsupported configurations show as
 * status differences. The activation bit mask descriptor follows cuDNN's
 * rule (N*H*W rows of ((C + 63) & ~63) / 32 INT32 words); its population
 * count is compared, the words only printed ('#'); the dactivation case
 * reads the mask its own library generated. */
#include "oracle_program.h"

static cudnnHandle_t handle;

typedef struct {
  cudnnFusedOpsConstParamPack_t c;
  cudnnFusedOpsVariantParamPack_t v;
  cudnnFusedOpsPlan_t p;
  void *ws;
} Fused;

static void fused_init(Fused *f, cudnnFusedOps_t ops) {
  DNN_OK(cudnnCreateFusedOpsConstParamPack(&f->c, ops));
  DNN_OK(cudnnCreateFusedOpsVariantParamPack(&f->v, ops));
  DNN_OK(cudnnCreateFusedOpsPlan(&f->p, ops));
  f->ws = NULL;
}
static void fused_free(Fused *f) {
  cudnnDestroyFusedOpsPlan(f->p);
  cudnnDestroyFusedOpsVariantParamPack(f->v);
  cudnnDestroyFusedOpsConstParamPack(f->c);
  if (f->ws) cudaFree(f->ws);
}
static void cset(Fused *f, cudnnFusedOpsConstParamLabel_t l, const void *p) {
  DNN_OK(cudnnSetFusedOpsConstParamPackAttribute(f->c, l, p));
}
static void cval(Fused *f, cudnnFusedOpsConstParamLabel_t l, int v) { cset(f, l, &v); }
/* Placeholder (16-byte aligned) and pointer. */
static void data(Fused *f, cudnnFusedOpsConstParamLabel_t ph, cudnnFusedOpsVariantParamLabel_t l, void *p) {
  cval(f, ph, CUDNN_PTR_16B_ALIGNED);
  DNN_OK(cudnnSetFusedOpsVariantParamPackAttribute(f->v, l, p));
}
/* Makes and executes; prints "<name>.make" and returns the execute status
 * (or the make status when making failed). */
static cudnnStatus_t run(Fused *f, const char *name) {
  size_t ws = 0;
  cudnnStatus_t st = cudnnMakeFusedOpsPlan(handle, f->p, f->c, &ws);
  printf("%s.make tol=0 st=%d\n", name, (int)st);
  printf("# %s workspace %zu\n", name, ws);
  if (st != CUDNN_STATUS_SUCCESS) {
    char msg[512] = "";
    cudnnGetLastErrorString(msg, sizeof msg);
    printf("# %s: %s\n", name, msg);
    return st;
  }
  if (ws > 0) CUDA_OK(cudaMalloc(&f->ws, ws));
  DNN_OK(cudnnSetFusedOpsVariantParamPackAttribute(f->v, CUDNN_PTR_WORKSPACE, f->ws));
  DNN_OK(cudnnSetFusedOpsVariantParamPackAttribute(f->v, CUDNN_SCALAR_SIZE_T_WORKSPACE_SIZE_IN_BYTES, &ws));
  st = cudnnFusedOpsExecute(handle, f->p, f->v);
  CUDA_OK(cudaDeviceSynchronize());
  printf("%s.exec tol=0 st=%d\n", name, (int)st);
  return st;
}

static double tol_of(cudnnDataType_t t) { return t == CUDNN_DATA_HALF ? 1e-2 : 1e-4; }

static void param(OTensor *p, cudnnDataType_t t, int C) {
  int d[4] = {1, C, 1, 1};
  otensor_packed(p, t, 4, d, 0);
}

static cudnnActivationDescriptor_t act_desc(cudnnActivationMode_t m) {
  cudnnActivationDescriptor_t a;
  DNN_OK(cudnnCreateActivationDescriptor(&a));
  DNN_OK(cudnnSetActivationDescriptor(a, m, CUDNN_NOT_PROPAGATE_NAN, 0.0));
  return a;
}

static cudnnFilterDescriptor_t filter(cudnnDataType_t t, int nhwc, int K, int C, int R, int S) {
  cudnnFilterDescriptor_t w;
  DNN_OK(cudnnCreateFilterDescriptor(&w));
  DNN_OK(cudnnSetFilter4dDescriptor(w, t, nhwc ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW, K, C, R, S));
  return w;
}

/* Tensor cores for half; FMA for float (TF32 would round the inputs). */
static cudnnConvolutionDescriptor_t conv(int pad, cudnnDataType_t t) {
  cudnnConvolutionDescriptor_t c;
  DNN_OK(cudnnCreateConvolutionDescriptor(&c));
  DNN_OK(cudnnSetConvolution2dDescriptor(c, pad, pad, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
  DNN_OK(cudnnSetConvolutionMathType(c, t == CUDNN_DATA_HALF ? CUDNN_TENSOR_OP_MATH : CUDNN_FMA_MATH));
  return c;
}

/* Scale/bias/relu + conv + batch-norm statistics, and the same prologue with
 * the weight gradient. */
static void conv_cases(cudnnDataType_t t, int nhwc, int R) {
  char name[128];
  const int N = 2, C = 32, K = 32, H = 8, W = 8, pad = R / 2;
  int xd[4] = {N, C, H, W}, yd[4] = {N, K, H, W};
  OTensor x, y, dy, sc, bi, ysum, ysq, wt, dw;
  otensor_packed(&x, t, 4, xd, nhwc);
  otensor_packed(&y, t, 4, yd, nhwc);
  otensor_packed(&dy, t, 4, yd, nhwc);
  int wd[4] = {K, C, R, R};
  otensor_packed(&wt, t, 4, wd, nhwc);
  otensor_packed(&dw, t, 4, wd, nhwc);
  param(&sc, t, C);
  param(&bi, t, C);
  param(&ysum, CUDNN_DATA_FLOAT, K);
  param(&ysq, CUDNN_DATA_FLOAT, K);
  otensor_fill(&x, 0.1, 1.0);
  otensor_fill(&dy, 0.1, 1.0);
  otensor_fill(&wt, 0.05, 0.3);
  otensor_fill_positive(&sc, 0.5, 1.5);
  otensor_fill(&bi, 0.1, 0.5);
  cudnnFilterDescriptor_t wdesc = filter(t, nhwc, K, C, R, R);
  cudnnConvolutionDescriptor_t cd = conv(pad, t);
  cudnnActivationDescriptor_t relu = act_desc(CUDNN_ACTIVATION_RELU);
  Fused f;
  fused_init(&f, CUDNN_FUSED_SCALE_BIAS_ACTIVATION_CONV_BNSTATS);
  cval(&f, CUDNN_PARAM_BN_MODE, CUDNN_BATCHNORM_SPATIAL);
  cset(&f, CUDNN_PARAM_XDESC, x.desc);
  data(&f, CUDNN_PARAM_XDATA_PLACEHOLDER, CUDNN_PTR_XDATA, x.dev);
  cset(&f, CUDNN_PARAM_BN_EQSCALEBIAS_DESC, sc.desc);
  data(&f, CUDNN_PARAM_BN_EQSCALE_PLACEHOLDER, CUDNN_PTR_BN_EQSCALE, sc.dev);
  data(&f, CUDNN_PARAM_BN_EQBIAS_PLACEHOLDER, CUDNN_PTR_BN_EQBIAS, bi.dev);
  cset(&f, CUDNN_PARAM_ACTIVATION_DESC, relu);
  cset(&f, CUDNN_PARAM_CONV_DESC, cd);
  cset(&f, CUDNN_PARAM_WDESC, wdesc);
  data(&f, CUDNN_PARAM_WDATA_PLACEHOLDER, CUDNN_PTR_WDATA, wt.dev);
  cset(&f, CUDNN_PARAM_YDESC, y.desc);
  data(&f, CUDNN_PARAM_YDATA_PLACEHOLDER, CUDNN_PTR_YDATA, y.dev);
  cset(&f, CUDNN_PARAM_YSTATS_DESC, ysum.desc);
  data(&f, CUDNN_PARAM_YSUM_PLACEHOLDER, CUDNN_PTR_YSUM, ysum.dev);
  data(&f, CUDNN_PARAM_YSQSUM_PLACEHOLDER, CUDNN_PTR_YSQSUM, ysq.dev);
  snprintf(name, sizeof name, "conv_bnstats.%s.%s.r%d", oracle_type_name(t), nhwc ? "nhwc" : "nchw", R);
  cudnnStatus_t st = run(&f, name);
  char n2[160];
  snprintf(n2, sizeof n2, "%s.y", name);
  oracle_report(n2, tol_of(t), st, &y);
  snprintf(n2, sizeof n2, "%s.ysum", name);
  oracle_report(n2, tol_of(t), st, &ysum);
  snprintf(n2, sizeof n2, "%s.ysqsum", name);
  oracle_report(n2, tol_of(t), st, &ysq);
  fused_free(&f);

  fused_init(&f, CUDNN_FUSED_SCALE_BIAS_ACTIVATION_WGRAD);
  cval(&f, CUDNN_PARAM_BN_MODE, CUDNN_BATCHNORM_SPATIAL);
  cset(&f, CUDNN_PARAM_XDESC, x.desc);
  data(&f, CUDNN_PARAM_XDATA_PLACEHOLDER, CUDNN_PTR_XDATA, x.dev);
  cset(&f, CUDNN_PARAM_BN_EQSCALEBIAS_DESC, sc.desc);
  data(&f, CUDNN_PARAM_BN_EQSCALE_PLACEHOLDER, CUDNN_PTR_BN_EQSCALE, sc.dev);
  data(&f, CUDNN_PARAM_BN_EQBIAS_PLACEHOLDER, CUDNN_PTR_BN_EQBIAS, bi.dev);
  cset(&f, CUDNN_PARAM_ACTIVATION_DESC, relu);
  cset(&f, CUDNN_PARAM_CONV_DESC, cd);
  cset(&f, CUDNN_PARAM_DWDESC, wdesc);
  data(&f, CUDNN_PARAM_DWDATA_PLACEHOLDER, CUDNN_PTR_DWDATA, dw.dev);
  cset(&f, CUDNN_PARAM_DYDESC, dy.desc);
  data(&f, CUDNN_PARAM_DYDATA_PLACEHOLDER, CUDNN_PTR_DYDATA, dy.dev);
  snprintf(name, sizeof name, "wgrad.%s.%s.r%d", oracle_type_name(t), nhwc ? "nhwc" : "nchw", R);
  st = run(&f, name);
  snprintf(n2, sizeof n2, "%s.dw", name);
  oracle_report(n2, tol_of(t) * 4, st, &dw);
  fused_free(&f);

  /* conv + scale + bias + add + relu */
  OTensor z, zs, zb, y2;
  otensor_packed(&z, t, 4, yd, nhwc);
  otensor_packed(&y2, t, 4, yd, nhwc);
  otensor_fill(&z, 0.1, 1.0);
  param(&zs, t, K);
  param(&zb, t, K);
  otensor_fill_positive(&zs, 0.5, 1.5);
  otensor_fill(&zb, 0.1, 0.5);
  fused_init(&f, CUDNN_FUSED_CONV_SCALE_BIAS_ADD_ACTIVATION);
  cset(&f, CUDNN_PARAM_XDESC, x.desc);
  data(&f, CUDNN_PARAM_XDATA_PLACEHOLDER, CUDNN_PTR_XDATA, x.dev);
  cset(&f, CUDNN_PARAM_CONV_DESC, cd);
  cset(&f, CUDNN_PARAM_WDESC, wdesc);
  data(&f, CUDNN_PARAM_WDATA_PLACEHOLDER, CUDNN_PTR_WDATA, wt.dev);
  cset(&f, CUDNN_PARAM_BN_EQSCALEBIAS_DESC, zs.desc);
  data(&f, CUDNN_PARAM_BN_EQSCALE_PLACEHOLDER, CUDNN_PTR_BN_EQSCALE, zs.dev);
  cset(&f, CUDNN_PARAM_ZDESC, z.desc);
  data(&f, CUDNN_PARAM_ZDATA_PLACEHOLDER, CUDNN_PTR_ZDATA, z.dev);
  cset(&f, CUDNN_PARAM_BN_Z_EQSCALEBIAS_DESC, zs.desc);
  data(&f, CUDNN_PARAM_BN_Z_EQSCALE_PLACEHOLDER, CUDNN_PTR_BN_Z_EQSCALE, zs.dev);
  data(&f, CUDNN_PARAM_BN_Z_EQBIAS_PLACEHOLDER, CUDNN_PTR_BN_Z_EQBIAS, zb.dev);
  cset(&f, CUDNN_PARAM_ACTIVATION_DESC, relu);
  cset(&f, CUDNN_PARAM_YDESC, y2.desc);
  data(&f, CUDNN_PARAM_YDATA_PLACEHOLDER, CUDNN_PTR_YDATA, y2.dev);
  snprintf(name, sizeof name, "conv_sbar.%s.%s.r%d", oracle_type_name(t), nhwc ? "nhwc" : "nchw", R);
  st = run(&f, name);
  snprintf(n2, sizeof n2, "%s.y", name);
  oracle_report(n2, tol_of(t), st, &y2);
  fused_free(&f);

  OTensor *all[] = {&x, &y, &dy, &sc, &bi, &ysum, &ysq, &wt, &dw, &z, &zs, &zb, &y2};
  for (int i = 0; i < 13; ++i) otensor_free(all[i]);
  cudnnDestroyFilterDescriptor(wdesc);
  cudnnDestroyConvolutionDescriptor(cd);
  cudnnDestroyActivationDescriptor(relu);
}

static void bn_finalize_cases(cudnnDataType_t eq_t) {
  char name[128], n2[160];
  const int C = 32;
  OTensor sum, sq, sc, bi, sm, si, rm, rv, eqs, eqb;
  param(&sum, CUDNN_DATA_FLOAT, C);
  param(&sq, CUDNN_DATA_FLOAT, C);
  OTensor *fp[] = {&sc, &bi, &sm, &si, &rm, &rv};
  for (int i = 0; i < 6; ++i) param(fp[i], CUDNN_DATA_FLOAT, C);
  param(&eqs, eq_t, C);
  param(&eqb, eq_t, C);
  /* Sums of 128 values near 0.5 +- 0.3: sum ~ 64, sqsum ~ 36. */
  otensor_fill_positive(&sum, 60, 68);
  otensor_fill_positive(&sq, 40, 44);
  otensor_fill_positive(&sc, 0.5, 1.5);
  otensor_fill(&bi, 0.1, 0.5);
  otensor_fill(&rm, 0.1, 0.5);
  otensor_fill_positive(&rv, 0.5, 1.5);
  int64_t count = 128;
  double eps = 1e-4, factor = 0.25;
  Fused f;
  fused_init(&f, CUDNN_FUSED_BN_FINALIZE_STATISTICS_TRAINING);
  cval(&f, CUDNN_PARAM_BN_MODE, CUDNN_BATCHNORM_SPATIAL);
  cset(&f, CUDNN_PARAM_YSTATS_DESC, sum.desc);
  data(&f, CUDNN_PARAM_YSUM_PLACEHOLDER, CUDNN_PTR_YSUM, sum.dev);
  data(&f, CUDNN_PARAM_YSQSUM_PLACEHOLDER, CUDNN_PTR_YSQSUM, sq.dev);
  cset(&f, CUDNN_PARAM_BN_SCALEBIAS_MEANVAR_DESC, sc.desc);
  data(&f, CUDNN_PARAM_BN_SCALE_PLACEHOLDER, CUDNN_PTR_BN_SCALE, sc.dev);
  data(&f, CUDNN_PARAM_BN_BIAS_PLACEHOLDER, CUDNN_PTR_BN_BIAS, bi.dev);
  data(&f, CUDNN_PARAM_BN_SAVED_MEAN_PLACEHOLDER, CUDNN_PTR_BN_SAVED_MEAN, sm.dev);
  data(&f, CUDNN_PARAM_BN_SAVED_INVSTD_PLACEHOLDER, CUDNN_PTR_BN_SAVED_INVSTD, si.dev);
  data(&f, CUDNN_PARAM_BN_RUNNING_MEAN_PLACEHOLDER, CUDNN_PTR_BN_RUNNING_MEAN, rm.dev);
  data(&f, CUDNN_PARAM_BN_RUNNING_VAR_PLACEHOLDER, CUDNN_PTR_BN_RUNNING_VAR, rv.dev);
  cset(&f, CUDNN_PARAM_BN_EQSCALEBIAS_DESC, eqs.desc);
  data(&f, CUDNN_PARAM_BN_EQSCALE_PLACEHOLDER, CUDNN_PTR_BN_EQSCALE, eqs.dev);
  data(&f, CUDNN_PARAM_BN_EQBIAS_PLACEHOLDER, CUDNN_PTR_BN_EQBIAS, eqb.dev);
  DNN_OK(cudnnSetFusedOpsVariantParamPackAttribute(f.v, CUDNN_SCALAR_INT64_T_BN_ACCUMULATION_COUNT, &count));
  DNN_OK(cudnnSetFusedOpsVariantParamPackAttribute(f.v, CUDNN_SCALAR_DOUBLE_BN_EPSILON, &eps));
  DNN_OK(cudnnSetFusedOpsVariantParamPackAttribute(f.v, CUDNN_SCALAR_DOUBLE_BN_EXP_AVG_FACTOR, &factor));
  snprintf(name, sizeof name, "bnfin_train.eq_%s", oracle_type_name(eq_t));
  cudnnStatus_t st = run(&f, name);
  const char *outs[] = {"saved_mean", "saved_invstd", "running_mean", "running_var", "eqscale", "eqbias"};
  OTensor *ot[] = {&sm, &si, &rm, &rv, &eqs, &eqb};
  for (int i = 0; i < 6; ++i) {
    snprintf(n2, sizeof n2, "%s.%s", name, outs[i]);
    oracle_report(n2, i >= 4 ? tol_of(eq_t) : 1e-4, st, ot[i]);
  }
  fused_free(&f);

  fused_init(&f, CUDNN_FUSED_BN_FINALIZE_STATISTICS_INFERENCE);
  cval(&f, CUDNN_PARAM_BN_MODE, CUDNN_BATCHNORM_SPATIAL);
  cset(&f, CUDNN_PARAM_BN_SCALEBIAS_MEANVAR_DESC, sc.desc);
  data(&f, CUDNN_PARAM_BN_SCALE_PLACEHOLDER, CUDNN_PTR_BN_SCALE, sc.dev);
  data(&f, CUDNN_PARAM_BN_BIAS_PLACEHOLDER, CUDNN_PTR_BN_BIAS, bi.dev);
  data(&f, CUDNN_PARAM_BN_RUNNING_MEAN_PLACEHOLDER, CUDNN_PTR_BN_RUNNING_MEAN, rm.dev);
  data(&f, CUDNN_PARAM_BN_RUNNING_VAR_PLACEHOLDER, CUDNN_PTR_BN_RUNNING_VAR, rv.dev);
  cset(&f, CUDNN_PARAM_BN_EQSCALEBIAS_DESC, eqs.desc);
  data(&f, CUDNN_PARAM_BN_EQSCALE_PLACEHOLDER, CUDNN_PTR_BN_EQSCALE, eqs.dev);
  data(&f, CUDNN_PARAM_BN_EQBIAS_PLACEHOLDER, CUDNN_PTR_BN_EQBIAS, eqb.dev);
  DNN_OK(cudnnSetFusedOpsVariantParamPackAttribute(f.v, CUDNN_SCALAR_DOUBLE_BN_EPSILON, &eps));
  snprintf(name, sizeof name, "bnfin_infer.eq_%s", oracle_type_name(eq_t));
  st = run(&f, name);
  snprintf(n2, sizeof n2, "%s.eqscale", name);
  oracle_report(n2, tol_of(eq_t), st, &eqs);
  snprintf(n2, sizeof n2, "%s.eqbias", name);
  oracle_report(n2, tol_of(eq_t), st, &eqb);
  fused_free(&f);
  OTensor *all[] = {&sum, &sq, &sc, &bi, &sm, &si, &rm, &rv, &eqs, &eqb};
  for (int i = 0; i < 10; ++i) otensor_free(all[i]);
}

static int popcount32(uint32_t v) {
  int n = 0;
  while (v) { n += (int)(v & 1u); v >>= 1; }
  return n;
}

/* scale + bias + add + relu with the bit mask, then dactivation + fork +
 * dbatchnorm reading that mask. */
static void mask_cases(cudnnDataType_t t, int nhwc) {
  char name[128], n2[160];
  const int N = 2, C = 32, H = 4, W = 4;
  int xd[4] = {N, C, H, W}, md[4] = {N * H * W, ((C + 63) & ~63) / 32, 1, 1};
  OTensor x, z, y, sc, bi, zs, zb, mask, dy, dx, dz, bsc, bbi, sm, si, ds, db;
  otensor_packed(&x, t, 4, xd, nhwc);
  otensor_packed(&z, t, 4, xd, nhwc);
  otensor_packed(&y, t, 4, xd, nhwc);
  otensor_packed(&dy, t, 4, xd, nhwc);
  otensor_packed(&dx, t, 4, xd, nhwc);
  otensor_packed(&dz, t, 4, xd, nhwc);
  otensor_packed(&mask, CUDNN_DATA_INT32, 4, md, 0);
  param(&sc, t, C);
  param(&bi, t, C);
  param(&zs, t, C);
  param(&zb, t, C);
  OTensor *fp[] = {&bsc, &bbi, &sm, &si, &ds, &db};
  for (int i = 0; i < 6; ++i) param(fp[i], CUDNN_DATA_FLOAT, C);
  otensor_fill(&x, 0.1, 2.0);
  otensor_fill(&z, 0.1, 2.0);
  otensor_fill(&dy, 0.1, 1.0);
  otensor_fill_positive(&sc, 0.5, 1.5);
  otensor_fill(&bi, 0.1, 0.5);
  otensor_fill_positive(&zs, 0.5, 1.5);
  otensor_fill(&zb, 0.1, 0.5);
  otensor_fill_positive(&bsc, 0.5, 1.5);
  otensor_fill(&bbi, 0.1, 0.5);
  otensor_fill(&sm, 0.1, 0.5);
  otensor_fill_positive(&si, 0.5, 1.5);
  const int mask_words = md[0] * md[1];
  CUDA_OK(cudaMemset(mask.dev, 0, (size_t)mask_words * 4));
  cudnnActivationDescriptor_t relu = act_desc(CUDNN_ACTIVATION_RELU);
  Fused f;
  fused_init(&f, CUDNN_FUSED_SCALE_BIAS_ADD_ACTIVATION_GEN_BITMASK);
  cval(&f, CUDNN_PARAM_BN_MODE, CUDNN_BATCHNORM_SPATIAL);
  cset(&f, CUDNN_PARAM_XDESC, x.desc);
  data(&f, CUDNN_PARAM_XDATA_PLACEHOLDER, CUDNN_PTR_XDATA, x.dev);
  cset(&f, CUDNN_PARAM_BN_EQSCALEBIAS_DESC, sc.desc);
  data(&f, CUDNN_PARAM_BN_EQSCALE_PLACEHOLDER, CUDNN_PTR_BN_EQSCALE, sc.dev);
  data(&f, CUDNN_PARAM_BN_EQBIAS_PLACEHOLDER, CUDNN_PTR_BN_EQBIAS, bi.dev);
  cset(&f, CUDNN_PARAM_ZDESC, z.desc);
  data(&f, CUDNN_PARAM_ZDATA_PLACEHOLDER, CUDNN_PTR_ZDATA, z.dev);
  cset(&f, CUDNN_PARAM_BN_Z_EQSCALEBIAS_DESC, zs.desc);
  data(&f, CUDNN_PARAM_BN_Z_EQSCALE_PLACEHOLDER, CUDNN_PTR_BN_Z_EQSCALE, zs.dev);
  data(&f, CUDNN_PARAM_BN_Z_EQBIAS_PLACEHOLDER, CUDNN_PTR_BN_Z_EQBIAS, zb.dev);
  cset(&f, CUDNN_PARAM_ACTIVATION_DESC, relu);
  cset(&f, CUDNN_PARAM_YDESC, y.desc);
  data(&f, CUDNN_PARAM_YDATA_PLACEHOLDER, CUDNN_PTR_YDATA, y.dev);
  cset(&f, CUDNN_PARAM_ACTIVATION_BITMASK_DESC, mask.desc);
  data(&f, CUDNN_PARAM_ACTIVATION_BITMASK_PLACEHOLDER, CUDNN_PTR_ACTIVATION_BITMASK, mask.dev);
  snprintf(name, sizeof name, "sbar_mask.%s.%s", oracle_type_name(t), nhwc ? "nhwc" : "nchw");
  cudnnStatus_t st = run(&f, name);
  snprintf(n2, sizeof n2, "%s.y", name);
  oracle_report(n2, tol_of(t), st, &y);
  {
    uint32_t words[256];
    int ones = 0;
    CUDA_OK(cudaMemcpy(words, mask.dev, (size_t)mask_words * 4, cudaMemcpyDeviceToHost));
    for (int i = 0; i < mask_words; ++i) ones += popcount32(words[i]);
    printf("%s.mask_ones tol=0 st=%d ones=%d\n", name, (int)st, st == CUDNN_STATUS_SUCCESS ? ones : -1);
    printf("# %s mask words %08x %08x %08x %08x\n", name, words[0], words[1], words[2], words[3]);
  }
  fused_free(&f);

  fused_init(&f, CUDNN_FUSED_DACTIVATION_FORK_DBATCHNORM);
  cval(&f, CUDNN_PARAM_BN_MODE, CUDNN_BATCHNORM_SPATIAL);
  cset(&f, CUDNN_PARAM_ACTIVATION_DESC, relu);
  cset(&f, CUDNN_PARAM_XDESC, x.desc);
  data(&f, CUDNN_PARAM_XDATA_PLACEHOLDER, CUDNN_PTR_XDATA, x.dev);
  cset(&f, CUDNN_PARAM_DYDESC, dy.desc);
  data(&f, CUDNN_PARAM_DYDATA_PLACEHOLDER, CUDNN_PTR_DYDATA, dy.dev);
  cset(&f, CUDNN_PARAM_DXDESC, dx.desc);
  data(&f, CUDNN_PARAM_DXDATA_PLACEHOLDER, CUDNN_PTR_DXDATA, dx.dev);
  cset(&f, CUDNN_PARAM_DZDESC, dz.desc);
  data(&f, CUDNN_PARAM_DZDATA_PLACEHOLDER, CUDNN_PTR_DZDATA, dz.dev);
  cset(&f, CUDNN_PARAM_ACTIVATION_BITMASK_DESC, mask.desc);
  data(&f, CUDNN_PARAM_ACTIVATION_BITMASK_PLACEHOLDER, CUDNN_PTR_ACTIVATION_BITMASK, mask.dev);
  cset(&f, CUDNN_PARAM_BN_SCALEBIAS_MEANVAR_DESC, bsc.desc);
  data(&f, CUDNN_PARAM_BN_SCALE_PLACEHOLDER, CUDNN_PTR_BN_SCALE, bsc.dev);
  data(&f, CUDNN_PARAM_BN_BIAS_PLACEHOLDER, CUDNN_PTR_BN_BIAS, bbi.dev);
  data(&f, CUDNN_PARAM_BN_SAVED_MEAN_PLACEHOLDER, CUDNN_PTR_BN_SAVED_MEAN, sm.dev);
  data(&f, CUDNN_PARAM_BN_SAVED_INVSTD_PLACEHOLDER, CUDNN_PTR_BN_SAVED_INVSTD, si.dev);
  data(&f, CUDNN_PARAM_BN_DSCALE_PLACEHOLDER, CUDNN_PTR_BN_DSCALE, ds.dev);
  data(&f, CUDNN_PARAM_BN_DBIAS_PLACEHOLDER, CUDNN_PTR_BN_DBIAS, db.dev);
  {
    double eps = 1e-4;
    DNN_OK(cudnnSetFusedOpsVariantParamPackAttribute(f.v, CUDNN_SCALAR_DOUBLE_BN_EPSILON, &eps));
  }
  snprintf(name, sizeof name, "dact_fork_dbn.%s.%s", oracle_type_name(t), nhwc ? "nhwc" : "nchw");
  st = run(&f, name);
  snprintf(n2, sizeof n2, "%s.dz", name);
  oracle_report(n2, tol_of(t), st, &dz);
  snprintf(n2, sizeof n2, "%s.dx", name);
  oracle_report(n2, tol_of(t) * 4, st, &dx);
  snprintf(n2, sizeof n2, "%s.dscale", name);
  oracle_report(n2, tol_of(t) * 4, st, &ds);
  snprintf(n2, sizeof n2, "%s.dbias", name);
  oracle_report(n2, tol_of(t) * 4, st, &db);
  fused_free(&f);
  OTensor *all[] = {&x, &z, &y, &sc, &bi, &zs, &zb, &mask, &dy, &dx, &dz, &bsc, &bbi, &sm, &si, &ds, &db};
  for (int i = 0; i < 17; ++i) otensor_free(all[i]);
  cudnnDestroyActivationDescriptor(relu);
}

/* Bad calls with a live handle. */
static void bad_cases(void) {
  Fused f, g;
  size_t ws = 0;
  fused_init(&f, CUDNN_FUSED_BN_FINALIZE_STATISTICS_INFERENCE);
  fused_init(&g, CUDNN_FUSED_SCALE_BIAS_ACTIVATION_WGRAD);
  printf("bad.make_null_ws tol=0 st=%d\n", (int)cudnnMakeFusedOpsPlan(handle, f.p, f.c, NULL));
  printf("bad.make_mismatch tol=0 st=%d\n", (int)cudnnMakeFusedOpsPlan(handle, g.p, f.c, &ws));
  printf("bad.make_empty tol=0 st=%d\n", (int)cudnnMakeFusedOpsPlan(handle, f.p, f.c, &ws));
  printf("bad.exec_unmade tol=0 st=%d\n", (int)cudnnFusedOpsExecute(handle, g.p, g.v));
  fused_free(&f);
  fused_free(&g);
}

int main(int argc, char **argv) {
  int which;
  if (oracle_groups_query(argc, argv, 4, &which)) return 0;
  if (!oracle_open(&handle, 20261122)) return 1;
  if (which < 0 || which == 0) {
    conv_cases(CUDNN_DATA_HALF, 1, 3);
    conv_cases(CUDNN_DATA_HALF, 1, 1);
    conv_cases(CUDNN_DATA_FLOAT, 0, 3);
  }
  if (which < 0 || which == 1) {
    bn_finalize_cases(CUDNN_DATA_HALF);
    bn_finalize_cases(CUDNN_DATA_FLOAT);
  }
  if (which < 0 || which == 2) {
    mask_cases(CUDNN_DATA_HALF, 1);
    mask_cases(CUDNN_DATA_FLOAT, 0);
  }
  if (which < 0 || which == 3) bad_cases();
  cudnnDestroy(handle);
  return 0;
}
