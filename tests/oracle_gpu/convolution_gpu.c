/* GPU differential program for the legacy convolutions:
 * cudnnConvolutionForward / BackwardData / BackwardFilter / BackwardBias on
 * a handful of problems (f32 NCHW and NHWC with FMA math, f16 and bf16 NHWC,
 * f64, groups, depthwise, dilation, stride, both modes, 3-d), each direction
 * run with the algorithm the library's own _v7 query ranks first (so the two
 * libraries may use different algorithms: the results must agree anyway),
 * plus bad-input statuses. The _v7 lists and workspace sizes are printed as
 * information lines (#): they describe each library, they need not agree.
 * Built against FreeDNN and against NVIDIA's cuDNN; see oracle_common.h. */
#include "oracle_common.h"

static cudnnHandle_t handle;

static double tol_of(cudnnDataType_t t) {
  switch (t) {
    case CUDNN_DATA_DOUBLE: return 1e-9;
    case CUDNN_DATA_FLOAT: return 1e-4;
    case CUDNN_DATA_HALF: return 4e-3;
    case CUDNN_DATA_BFLOAT16: return 3e-2;
    default: return 0;
  }
}

typedef struct {
  float f;
  double d;
} Scale;
static Scale scale(double v) {
  Scale s = {(float)v, v};
  return s;
}
static const void *sp(const Scale *s, cudnnDataType_t t) {
  return t == CUDNN_DATA_DOUBLE ? (const void *)&s->d : (const void *)&s->f;
}

typedef struct {
  const char *name;
  cudnnDataType_t t;
  int nhwc;
  int nsp; /* 2 or 3 */
  int n, c, d, h, w, k, fd, fh, fw;
  int pad, str, dil, groups;
  cudnnConvolutionMode_t mode;
} Case;

typedef struct {
  cudnnFilterDescriptor_t desc;
  int dims[8], nb;
  size_t count;
  void *dev;
} OFilter;

static void ofilter_init(OFilter *f, cudnnDataType_t t, int nhwc, int nb, const int *dims) {
  memset(f, 0, sizeof *f);
  f->nb = nb;
  f->count = 1;
  for (int i = 0; i < nb; ++i) f->dims[i] = dims[i], f->count *= (size_t)dims[i];
  DNN_OK(cudnnCreateFilterDescriptor(&f->desc));
  DNN_OK(cudnnSetFilterNdDescriptor(f->desc, t, nhwc ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW, nb, dims));
  CUDA_OK(cudaMalloc(&f->dev, f->count * oracle_type_size(t) + 16));
}

/* The filter as a tensor of its memory order, for reports and fills. */
static void filter_as_tensor(const OFilter *f, cudnnDataType_t t, int nhwc, OTensor *view) {
  memset(view, 0, sizeof *view);
  view->type = t;
  view->nb_dims = f->nb;
  for (int i = 0; i < f->nb; ++i) view->dims[i] = f->dims[i];
  oracle_packed_strides(f->nb, f->dims, nhwc, view->strides);
  view->span = f->count;
  view->dev = f->dev;
}

static void fill_dev(cudnnDataType_t t, void *dev, size_t count) {
  size_t es = oracle_type_size(t);
  void *h = malloc(count * es);
  for (size_t i = 0; i < count; ++i) oracle_store(t, h, i, oracle_nonzero(0.1, 1.0));
  CUDA_OK(cudaMemcpy(dev, h, count * es, cudaMemcpyHostToDevice));
  free(h);
}

static void *ws_alloc(size_t bytes) {
  void *p = NULL;
  if (bytes) CUDA_OK(cudaMalloc(&p, bytes));
  return p;
}

static void run_case(const Case *cs) {
  const cudnnDataType_t t = cs->t;
  const int nb = cs->nsp + 2;
  int xd[5], wd[5], pad[3], str[3], dil[3], yd[5];
  xd[0] = cs->n, xd[1] = cs->c;
  wd[0] = cs->k, wd[1] = cs->c / cs->groups;
  if (cs->nsp == 3) {
    xd[2] = cs->d, xd[3] = cs->h, xd[4] = cs->w;
    wd[2] = cs->fd, wd[3] = cs->fh, wd[4] = cs->fw;
  } else {
    xd[2] = cs->h, xd[3] = cs->w;
    wd[2] = cs->fh, wd[3] = cs->fw;
  }
  for (int i = 0; i < cs->nsp; ++i) pad[i] = cs->pad, str[i] = cs->str, dil[i] = cs->dil;
  cudnnConvolutionDescriptor_t conv;
  DNN_OK(cudnnCreateConvolutionDescriptor(&conv));
  DNN_OK(cudnnSetConvolutionNdDescriptor(conv, cs->nsp, pad, str, dil, cs->mode,
                                         t == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT));
  DNN_OK(cudnnSetConvolutionGroupCount(conv, cs->groups));
  /* float: no TF32 in either library. */
  if (t == CUDNN_DATA_FLOAT) DNN_OK(cudnnSetConvolutionMathType(conv, CUDNN_FMA_MATH));
  else if (t != CUDNN_DATA_DOUBLE) DNN_OK(cudnnSetConvolutionMathType(conv, CUDNN_TENSOR_OP_MATH));

  OTensor x, y, dx, dy;
  OFilter w, dw;
  otensor_packed(&x, t, nb, xd, cs->nhwc);
  ofilter_init(&w, t, cs->nhwc, nb, wd);
  ofilter_init(&dw, t, cs->nhwc, nb, wd);
  char name[256];
  cudnnStatus_t st = cudnnGetConvolutionNdForwardOutputDim(conv, x.desc, w.desc, nb, yd);
  snprintf(name, sizeof name, "%s.outdim", cs->name);
  printf("%s tol=0 st=%d", name, (int)st);
  for (int i = 0; i < nb; ++i) printf(" d%d=%d", i, yd[i]);
  printf("\n");
  otensor_packed(&y, t, nb, yd, cs->nhwc);
  otensor_packed(&dy, t, nb, yd, cs->nhwc);
  otensor_packed(&dx, t, nb, xd, cs->nhwc);
  otensor_fill(&x, 0.1, 1.0);
  fill_dev(t, w.dev, w.count);
  otensor_fill(&dy, 0.1, 1.0);
  const double tol = tol_of(t);
  Scale one = scale(1), zero = scale(0), half = scale(0.5), minus = scale(-1);

  /* Forward: the _v7 top choice, beta = 0, then a blend into the result. */
  {
    cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
    int n = 0;
    st = cudnnGetConvolutionForwardAlgorithm_v7(handle, x.desc, w.desc, conv, y.desc,
                                                CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &n, perf);
    printf("# %s.fwd.v7 st=%d", cs->name, (int)st);
    for (int i = 0; i < n; ++i) printf(" %d:%d:%zu", (int)perf[i].algo, (int)perf[i].status, perf[i].memory);
    printf("\n");
    for (int a = 0; a < CUDNN_CONVOLUTION_FWD_ALGO_COUNT; ++a) {
      size_t b = 0;
      cudnnStatus_t s2 = cudnnGetConvolutionForwardWorkspaceSize(handle, x.desc, w.desc, conv, y.desc,
                                                                 (cudnnConvolutionFwdAlgo_t)a, &b);
      printf("# %s.fwd.ws algo=%d st=%d bytes=%zu\n", cs->name, a, (int)s2, b);
    }
    cudnnConvolutionFwdAlgo_t algo = n > 0 ? perf[0].algo : CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
    size_t wsb = n > 0 ? perf[0].memory : 0;
    void *ws = ws_alloc(wsb);
    st = cudnnConvolutionForward(handle, sp(&one, t), x.desc, x.dev, w.desc, w.dev, conv, algo, ws, wsb, sp(&zero, t),
                                 y.desc, y.dev);
    snprintf(name, sizeof name, "%s.fwd", cs->name);
    oracle_report(name, tol, st, &y);
    st = cudnnConvolutionForward(handle, sp(&half, t), x.desc, x.dev, w.desc, w.dev, conv, algo, ws, wsb,
                                 sp(&minus, t), y.desc, y.dev);
    snprintf(name, sizeof name, "%s.fwd.blend", cs->name);
    oracle_report(name, tol, st, &y);
    cudaFree(ws);
  }
  /* Backward data. */
  {
    cudnnConvolutionBwdDataAlgoPerf_t perf[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
    int n = 0;
    st = cudnnGetConvolutionBackwardDataAlgorithm_v7(handle, w.desc, dy.desc, conv, dx.desc,
                                                     CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &n, perf);
    printf("# %s.bwd_data.v7 st=%d", cs->name, (int)st);
    for (int i = 0; i < n; ++i) printf(" %d:%d:%zu", (int)perf[i].algo, (int)perf[i].status, perf[i].memory);
    printf("\n");
    cudnnConvolutionBwdDataAlgo_t algo = n > 0 ? perf[0].algo : CUDNN_CONVOLUTION_BWD_DATA_ALGO_1;
    size_t wsb = n > 0 ? perf[0].memory : 0;
    void *ws = ws_alloc(wsb);
    st = cudnnConvolutionBackwardData(handle, sp(&one, t), w.desc, w.dev, dy.desc, dy.dev, conv, algo, ws, wsb,
                                      sp(&zero, t), dx.desc, dx.dev);
    snprintf(name, sizeof name, "%s.bwd_data", cs->name);
    oracle_report(name, tol, st, &dx);
    cudaFree(ws);
  }
  /* Backward filter (beta = 1 onto a filled dw: blending too). */
  {
    cudnnConvolutionBwdFilterAlgoPerf_t perf[CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT];
    int n = 0;
    st = cudnnGetConvolutionBackwardFilterAlgorithm_v7(handle, x.desc, dy.desc, conv, dw.desc,
                                                       CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT, &n, perf);
    printf("# %s.bwd_filter.v7 st=%d", cs->name, (int)st);
    for (int i = 0; i < n; ++i) printf(" %d:%d:%zu", (int)perf[i].algo, (int)perf[i].status, perf[i].memory);
    printf("\n");
    cudnnConvolutionBwdFilterAlgo_t algo = n > 0 ? perf[0].algo : CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1;
    size_t wsb = n > 0 ? perf[0].memory : 0;
    void *ws = ws_alloc(wsb);
    fill_dev(t, dw.dev, dw.count);
    OTensor view;
    filter_as_tensor(&dw, t, cs->nhwc, &view);
    st = cudnnConvolutionBackwardFilter(handle, sp(&one, t), x.desc, x.dev, dy.desc, dy.dev, conv, algo, ws, wsb,
                                        sp(&one, t), dw.desc, dw.dev);
    snprintf(name, sizeof name, "%s.bwd_filter", cs->name);
    oracle_report(name, tol, st, &view);
    cudaFree(ws);
  }
  /* Bias gradient. */
  {
    int bd[5] = {1, cs->k, 1, 1, 1};
    OTensor db;
    otensor_packed(&db, t, nb, bd, 0);
    otensor_fill(&db, 0.1, 1.0);
    st = cudnnConvolutionBackwardBias(handle, sp(&one, t), dy.desc, dy.dev, sp(&half, t), db.desc, db.dev);
    snprintf(name, sizeof name, "%s.bwd_bias", cs->name);
    oracle_report(name, tol, st, &db);
    otensor_free(&db);
  }
  otensor_free(&x);
  otensor_free(&y);
  otensor_free(&dx);
  otensor_free(&dy);
  cudnnDestroyFilterDescriptor(w.desc);
  cudnnDestroyFilterDescriptor(dw.desc);
  cudaFree(w.dev);
  cudaFree(dw.dev);
  cudnnDestroyConvolutionDescriptor(conv);
}

static void bad_inputs(void) {
  int xd[4] = {1, 4, 6, 6}, wd[4] = {8, 4, 3, 3}, yd[4] = {1, 8, 4, 4}, ybad[4] = {1, 8, 5, 4};
  int pad[2] = {0, 0}, str[2] = {1, 1}, dil[2] = {1, 1};
  OTensor x, y, yb, x64;
  otensor_packed(&x, CUDNN_DATA_FLOAT, 4, xd, 0);
  otensor_packed(&y, CUDNN_DATA_FLOAT, 4, yd, 0);
  otensor_packed(&yb, CUDNN_DATA_FLOAT, 4, ybad, 0);
  otensor_packed(&x64, CUDNN_DATA_DOUBLE, 4, xd, 0);
  otensor_fill(&x, 0.1, 1);
  OFilter w, w3;
  ofilter_init(&w, CUDNN_DATA_FLOAT, 0, 4, wd);
  int wd3[4] = {8, 3, 3, 3};
  ofilter_init(&w3, CUDNN_DATA_FLOAT, 0, 4, wd3);
  fill_dev(CUDNN_DATA_FLOAT, w.dev, w.count);
  cudnnConvolutionDescriptor_t c;
  DNN_OK(cudnnCreateConvolutionDescriptor(&c));
  DNN_OK(cudnnSetConvolutionNdDescriptor(c, 2, pad, str, dil, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
  float one = 1, zero = 0;
  void *ws = ws_alloc(1 << 20);
  const cudnnConvolutionFwdAlgo_t ig = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
  oracle_report_status("bad.fwd.ok", cudnnConvolutionForward(handle, &one, x.desc, x.dev, w.desc, w.dev, c, ig, ws,
                                                             1 << 20, &zero, y.desc, y.dev));
  oracle_report_status("bad.fwd.null_xdesc", cudnnConvolutionForward(handle, &one, NULL, x.dev, w.desc, w.dev, c, ig,
                                                                     ws, 1 << 20, &zero, y.desc, y.dev));
  oracle_report_status("bad.fwd.null_conv", cudnnConvolutionForward(handle, &one, x.desc, x.dev, w.desc, w.dev, NULL,
                                                                    ig, ws, 1 << 20, &zero, y.desc, y.dev));
  oracle_report_status("bad.fwd.algo8",
                       cudnnConvolutionForward(handle, &one, x.desc, x.dev, w.desc, w.dev, c,
                                               (cudnnConvolutionFwdAlgo_t)8, ws, 1 << 20, &zero, y.desc, y.dev));
  oracle_report_status("bad.fwd.ydims", cudnnConvolutionForward(handle, &one, x.desc, x.dev, w.desc, w.dev, c, ig,
                                                                ws, 1 << 20, &zero, yb.desc, yb.dev));
  oracle_report_status("bad.fwd.channels", cudnnConvolutionForward(handle, &one, x.desc, x.dev, w3.desc, w3.dev, c,
                                                                   ig, ws, 1 << 20, &zero, y.desc, y.dev));
  oracle_report_status("bad.fwd.types", cudnnConvolutionForward(handle, &one, x64.desc, x64.dev, w.desc, w.dev, c, ig,
                                                                ws, 1 << 20, &zero, y.desc, y.dev));
  oracle_report_status("bad.bwd_data.dydims",
                       cudnnConvolutionBackwardData(handle, &one, w.desc, w.dev, yb.desc, yb.dev, c,
                                                    CUDNN_CONVOLUTION_BWD_DATA_ALGO_1, ws, 1 << 20, &zero, x.desc,
                                                    x.dev));
  oracle_report_status("bad.bwd_data.algo6",
                       cudnnConvolutionBackwardData(handle, &one, w.desc, w.dev, y.desc, y.dev, c,
                                                    (cudnnConvolutionBwdDataAlgo_t)6, ws, 1 << 20, &zero, x.desc,
                                                    x.dev));
  oracle_report_status("bad.bwd_filter.algo7",
                       cudnnConvolutionBackwardFilter(handle, &one, x.desc, x.dev, y.desc, y.dev, c,
                                                      (cudnnConvolutionBwdFilterAlgo_t)7, ws, 1 << 20, &zero, w.desc,
                                                      w.dev));
  oracle_report_status("bad.bwd_filter.null_dwdesc",
                       cudnnConvolutionBackwardFilter(handle, &one, x.desc, x.dev, y.desc, y.dev, c,
                                                      CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1, ws, 1 << 20, &zero, NULL,
                                                      w.dev));
  int bdims[4] = {1, 4, 1, 1};
  OTensor db;
  otensor_packed(&db, CUDNN_DATA_FLOAT, 4, bdims, 0);
  oracle_report_status("bad.bwd_bias.channels",
                       cudnnConvolutionBackwardBias(handle, &one, y.desc, y.dev, &zero, db.desc, db.dev));
  int n = 0;
  cudnnConvolutionFwdAlgoPerf_t perf[8];
  oracle_report_status("bad.v7.zero_requested",
                       cudnnGetConvolutionForwardAlgorithm_v7(handle, x.desc, w.desc, c, y.desc, 0, &n, perf));
  size_t b = 0;
  oracle_report_status("bad.ws.algo9", cudnnGetConvolutionForwardWorkspaceSize(handle, x.desc, w.desc, c, y.desc,
                                                                               (cudnnConvolutionFwdAlgo_t)9, &b));
  otensor_free(&db);
  otensor_free(&x);
  otensor_free(&y);
  otensor_free(&yb);
  otensor_free(&x64);
  cudaFree(ws);
  cudnnDestroyConvolutionDescriptor(c);
}

/* cudnnIm2Col: the column matrix (N * out pixels rows, C * taps columns) of
 * a padded, strided input in CONVOLUTION mode, NCHW and NHWC. */
static void im2col_case(const char *label, cudnnDataType_t t, int nhwc) {
  const int xd[4] = {2, 3, 7, 6}, wd[4] = {4, 3, 3, 2}, pad[2] = {1, 0}, str[2] = {1, 2}, dil[2] = {1, 1};
  OTensor x;
  otensor_packed(&x, t, 4, xd, nhwc);
  otensor_fill(&x, 0.25, 2.0);
  cudnnFilterDescriptor_t w;
  DNN_OK(cudnnCreateFilterDescriptor(&w));
  DNN_OK(cudnnSetFilterNdDescriptor(w, t, nhwc ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW, 4, wd));
  cudnnConvolutionDescriptor_t c;
  DNN_OK(cudnnCreateConvolutionDescriptor(&c));
  DNN_OK(cudnnSetConvolutionNdDescriptor(c, 2, pad, str, dil, CUDNN_CONVOLUTION, CUDNN_DATA_FLOAT));
  int yd[4];
  DNN_OK(cudnnGetConvolutionNdForwardOutputDim(c, x.desc, w, 4, yd));
  const int cd[4] = {yd[0] * yd[2] * yd[3], wd[1] * wd[2] * wd[3], 1, 1};
  OTensor col;
  otensor_packed(&col, t, 4, cd, 0);
  char name[96];
  snprintf(name, sizeof name, "im2col.%s", label);
  oracle_report(name, 0, cudnnIm2Col(handle, x.desc, x.dev, w, c, col.dev), &col);
  otensor_free(&col);
  otensor_free(&x);
  cudnnDestroyFilterDescriptor(w);
  cudnnDestroyConvolutionDescriptor(c);
}

int main(void) {
  DNN_OK(cudnnCreate(&handle));
  oracle_seed(0xC0417u);
  const cudnnDataType_t F = CUDNN_DATA_FLOAT, H = CUDNN_DATA_HALF, B = CUDNN_DATA_BFLOAT16, D = CUDNN_DATA_DOUBLE;
  const cudnnConvolutionMode_t XC = CUDNN_CROSS_CORRELATION, CV = CUDNN_CONVOLUTION;
  const Case cases[] = {
      /* name              type nhwc nsp  n   c  d   h   w   k fd fh fw pad str dil g mode */
      {"f32.nchw.3x3", F, 0, 2, 2, 16, 1, 12, 12, 32, 1, 3, 3, 1, 1, 1, 1, XC},
      {"f32.nhwc.3x3s2", F, 1, 2, 2, 16, 1, 12, 12, 24, 1, 3, 3, 1, 2, 1, 1, XC},
      {"f32.nchw.g4.dil2", F, 0, 2, 2, 16, 1, 13, 11, 16, 1, 3, 3, 2, 1, 2, 4, XC},
      {"f32.nchw.dw5x5.conv", F, 0, 2, 2, 8, 1, 10, 10, 8, 1, 5, 5, 2, 1, 1, 8, CV},
      {"f32.nchw.7x7s2", F, 0, 2, 2, 3, 1, 32, 32, 16, 1, 7, 7, 3, 2, 1, 1, XC},
      {"f32.nchw.3d", F, 0, 3, 1, 4, 6, 6, 6, 8, 3, 3, 3, 1, 1, 1, 1, XC},
      {"f64.nchw.3x3.conv", D, 0, 2, 1, 6, 1, 9, 9, 4, 1, 3, 3, 0, 1, 1, 1, CV},
      /* 3x3 stride 1 with 16+ channels: FreeDNN's _v7 ranks WINOGRAD_NONFUSED first */
      {"f32.nchw.3x3.p2.conv", F, 0, 2, 3, 20, 1, 11, 13, 17, 1, 3, 3, 2, 1, 1, 1, CV},
      {"f32.nhwc.3x3.p0", F, 1, 2, 2, 24, 1, 10, 9, 16, 1, 3, 3, 0, 1, 1, 1, XC},
      {"f16.nhwc.3x3", H, 1, 2, 4, 32, 1, 14, 14, 64, 1, 3, 3, 1, 1, 1, 1, XC},
      {"f16.nhwc.1x1", H, 1, 2, 4, 64, 1, 14, 14, 32, 1, 1, 1, 0, 1, 1, 1, XC},
      {"f16.nhwc.g2.3x3", H, 1, 2, 2, 32, 1, 9, 9, 32, 1, 3, 3, 1, 1, 1, 2, XC},
      {"f16.nhwc.3x3s2.conv", H, 1, 2, 2, 16, 1, 15, 15, 16, 1, 3, 3, 1, 2, 1, 1, CV},
      {"bf16.nhwc.3x3", B, 1, 2, 2, 32, 1, 10, 10, 32, 1, 3, 3, 1, 1, 1, 1, XC},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) run_case(&cases[i]);
  bad_inputs();
  im2col_case("f32.nchw", CUDNN_DATA_FLOAT, 0);
  im2col_case("f32.nhwc", CUDNN_DATA_FLOAT, 1);
  im2col_case("f16.nchw", CUDNN_DATA_HALF, 0);
  cudnnDestroy(handle);
  return 0;
}
