/* GPU differential program for pooling: cudnnPoolingForward/Backward over
 * modes, types, layouts, 2-d and 3-d windows, paddings (also as large as the
 * window), windows larger than the input, output extents other than the
 * advised ones, blending, NaN options, ties; bad-input statuses; descriptor
 * probes. Built against FreeDNN and against NVIDIA's cuDNN; see
 * oracle_common.h for the output format. */
#include "oracle_program.h"

static cudnnHandle_t handle;

static double tol_of(cudnnDataType_t t) {
  switch (t) {
    case CUDNN_DATA_DOUBLE: return 1e-9;
    case CUDNN_DATA_FLOAT: return 2e-5;
    case CUDNN_DATA_HALF: return 2e-3;
    case CUDNN_DATA_BFLOAT16: return 1.6e-2;
    default: return 0;
  }
}

static const char *mode_name(cudnnPoolingMode_t m) {
  switch (m) {
    case CUDNN_POOLING_MAX: return "max";
    case CUDNN_POOLING_MAX_DETERMINISTIC: return "maxdet";
    case CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING: return "avginc";
    default: return "avgexc";
  }
}

/* Fills x with values from a small set (ties) when `ties`, else random. */
static void fill_x(OTensor *x, int ties) {
  if (!ties) {
    otensor_fill(x, 0.25, 4.0);
    return;
  }
  size_t es = oracle_type_size(x->type);
  void *h = malloc(x->span * es);
  for (size_t i = 0; i < x->span; ++i) oracle_store(x->type, h, i, (double)(oracle_next() % 2));
  CUDA_OK(cudaMemcpy(x->dev, h, x->span * es, cudaMemcpyHostToDevice));
  free(h);
}

/* Every value of t in logical order on one '#' line (information only, not
 * compared): what the summary line of a disagreeing case cannot show. */
static void dump_values(const char *name, const OTensor *t) {
  CUDA_OK(cudaDeviceSynchronize());
  size_t es = oracle_type_size(t->type);
  void *h = malloc(t->span * es);
  CUDA_OK(cudaMemcpy(h, t->dev, t->span * es, cudaMemcpyDeviceToHost));
  size_t count = 1;
  for (int i = 0; i < t->nb_dims; ++i) count *= (size_t)t->dims[i];
  printf("# %s values:", name);
  for (size_t li = 0; li < count; ++li) {
    size_t rem = li, off = 0;
    for (int d = t->nb_dims - 1; d >= 0; --d) {
      off += (rem % (size_t)t->dims[d]) * (size_t)t->strides[d];
      rem /= (size_t)t->dims[d];
    }
    printf(" %.9g", oracle_load(t->type, h, off));
  }
  printf("\n");
  free(h);
}

/* One forward (and, when bwd, backward) case. ydelta: added to the advised
 * output extents. */
static void pool_case(const char *tag, cudnnDataType_t t, cudnnPoolingMode_t mode, cudnnNanPropagation_t nan, int nbs,
                      const int *xdims, const int *win, const int *pad, const int *str, int nhwc, int ydelta,
                      double alpha, double beta, int bwd, int ties) {
  cudnnPoolingDescriptor_t p;
  DNN_OK(cudnnCreatePoolingDescriptor(&p));
  DNN_OK(cudnnSetPoolingNdDescriptor(p, mode, nan, nbs, win, pad, str));
  int nb = nbs + 2, ydims[8];
  OTensor x, y;
  otensor_packed(&x, t, nb, xdims, nhwc);
  cudnnStatus_t st = cudnnGetPoolingNdForwardOutputDim(p, x.desc, nb, ydims);
  char name[256];
  snprintf(name, sizeof name, "%s.dims.%s.%s", tag, mode_name(mode), oracle_type_name(t));
  printf("%s tol=0 st=%d", name, (int)st);
  for (int i = 0; i < nb; ++i) printf(" d%d=%d", i, ydims[i]);
  printf("\n");
  for (int i = 2; i < nb; ++i) ydims[i] += ydelta;
  otensor_packed(&y, t, nb, ydims, nhwc);
  fill_x(&x, ties);
  otensor_fill(&y, 0.25, 2.0);
  Scale al = scale(alpha), be = scale(beta);
  st = cudnnPoolingForward(handle, p, sp(&al, t), x.desc, x.dev, sp(&be, t), y.desc, y.dev);
  snprintf(name, sizeof name, "%s.fwd.%s.%s.nan%d.%s", tag, mode_name(mode), oracle_type_name(t), (int)nan,
           nhwc ? "nhwc" : "nchw");
  oracle_report(name, tol_of(t), st, &y);
  /* Windows past the input and its padding (ybig, padwinh): the cases where
   * the libraries' outputs were seen to differ. */
  if (st == CUDNN_STATUS_SUCCESS && (strcmp(tag, "ybig") == 0 || strcmp(tag, "padwinh") == 0)) dump_values(name, &y);
  if (bwd && st == CUDNN_STATUS_SUCCESS) {
    OTensor yy, dy, dx;
    otensor_packed(&yy, t, nb, ydims, nhwc);
    otensor_packed(&dy, t, nb, ydims, nhwc);
    otensor_packed(&dx, t, nb, xdims, nhwc);
    Scale one = scale(1.0), zero = scale(0.0);
    DNN_OK(cudnnPoolingForward(handle, p, sp(&one, t), x.desc, x.dev, sp(&zero, t), yy.desc, yy.dev));
    otensor_fill(&dy, 0.25, 2.0);
    otensor_fill(&dx, 0.25, 2.0);
    st = cudnnPoolingBackward(handle, p, sp(&al, t), yy.desc, yy.dev, dy.desc, dy.dev, x.desc, x.dev, sp(&be, t),
                              dx.desc, dx.dev);
    snprintf(name, sizeof name, "%s.bwd.%s.%s.nan%d.%s", tag, mode_name(mode), oracle_type_name(t), (int)nan,
             nhwc ? "nhwc" : "nchw");
    oracle_report(name, tol_of(t), st, &dx);
    otensor_free(&yy);
    otensor_free(&dy);
    otensor_free(&dx);
  }
  otensor_free(&x);
  otensor_free(&y);
  cudnnDestroyPoolingDescriptor(p);
}

static const cudnnPoolingMode_t kModes[4] = {CUDNN_POOLING_MAX, CUDNN_POOLING_MAX_DETERMINISTIC,
                                             CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING,
                                             CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING};

static void main_cases(void) {
  cudnnDataType_t types[] = {CUDNN_DATA_FLOAT, CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16, CUDNN_DATA_DOUBLE, CUDNN_DATA_INT8};
  int x2[4] = {2, 16, 13, 11}, w2[2] = {3, 3}, p2[2] = {1, 1}, s2[2] = {2, 2};
  int x3[5] = {2, 8, 5, 6, 7}, w3[3] = {2, 3, 2}, p3[3] = {1, 1, 0}, s3[3] = {2, 1, 2};
  for (int ti = 0; ti < 5; ++ti)
    for (int m = 0; m < 4; ++m)
      for (int nhwc = 0; nhwc < 2; ++nhwc) {
        int bwd = types[ti] != CUDNN_DATA_INT8;
        pool_case("p2", types[ti], kModes[m], CUDNN_NOT_PROPAGATE_NAN, 2, x2, w2, p2, s2, nhwc, 0, 1.0, 0.0, bwd, 0);
        pool_case("p3", types[ti], kModes[m], CUDNN_NOT_PROPAGATE_NAN, 3, x3, w3, p3, s3, nhwc, 0, 1.0, 0.0, bwd, 0);
      }
  /* Blending, window larger than the input, pad >= window, oversized y. */
  int xs[4] = {2, 4, 3, 3}, wl[2] = {5, 4}, pl[2] = {2, 1}, sl[2] = {1, 2};
  int xe[4] = {1, 3, 6, 7}, we[2] = {2, 2}, pe[2] = {2, 2}, se[2] = {1, 1};
  int xo[4] = {1, 3, 7, 8}, wo[2] = {3, 2}, po[2] = {1, 0}, so[2] = {2, 3};
  /* Stride 1 and one extra output: the last window overlaps the input and
   * reaches past the padding (include-padding divisor: clipped or whole). */
  int xo1[4] = {1, 3, 5, 6}, wo1[2] = {3, 3}, po1[2] = {1, 1}, so1[2] = {1, 1};
  for (int m = 0; m < 4; ++m) {
    pool_case("blend", CUDNN_DATA_FLOAT, kModes[m], CUDNN_NOT_PROPAGATE_NAN, 2, x2, w2, p2, s2, 0, 0, 0.75, -0.5, 1, 0);
    pool_case("blendh", CUDNN_DATA_HALF, kModes[m], CUDNN_NOT_PROPAGATE_NAN, 2, x2, w2, p2, s2, 1, 0, 1.5, 0.25, 1, 0);
    pool_case("bigwin", CUDNN_DATA_FLOAT, kModes[m], CUDNN_NOT_PROPAGATE_NAN, 2, xs, wl, pl, sl, 0, 0, 1.0, 0.0, 1, 0);
    pool_case("padwin", CUDNN_DATA_FLOAT, kModes[m], CUDNN_NOT_PROPAGATE_NAN, 2, xe, we, pe, se, 0, 0, 1.0, 0.0, 1, 0);
    pool_case("ybig", CUDNN_DATA_FLOAT, kModes[m], CUDNN_NOT_PROPAGATE_NAN, 2, xo, wo, po, so, 0, 1, 1.0, 0.0, 1, 0);
    pool_case("ybig1", CUDNN_DATA_FLOAT, kModes[m], CUDNN_NOT_PROPAGATE_NAN, 2, xo1, wo1, po1, so1, 0, 1, 1.0, 0.0, 1, 0);
    pool_case("padwinh", CUDNN_DATA_HALF, kModes[m], CUDNN_NOT_PROPAGATE_NAN, 2, xe, we, pe, se, 1, 0, 1.0, 0.0, 1, 0);
    pool_case("padwind", CUDNN_DATA_DOUBLE, kModes[m], CUDNN_NOT_PROPAGATE_NAN, 2, xe, we, pe, se, 0, 0, 1.0, 0.0, 1, 0);
    pool_case("ysmall", CUDNN_DATA_FLOAT, kModes[m], CUDNN_NOT_PROPAGATE_NAN, 2, xo, wo, po, so, 0, -1, 1.0, 0.0, 1, 0);
    pool_case("ties", CUDNN_DATA_FLOAT, kModes[m], CUDNN_NOT_PROPAGATE_NAN, 2, x2, w2, p2, s2, 0, 0, 1.0, 0.0, 1, 1);
    pool_case("tiesh", CUDNN_DATA_HALF, kModes[m], CUDNN_NOT_PROPAGATE_NAN, 2, x2, w2, p2, s2, 1, 0, 1.0, 0.0, 1, 1);
  }
  pool_case("padwin8", CUDNN_DATA_INT8, CUDNN_POOLING_MAX, CUDNN_NOT_PROPAGATE_NAN, 2, xe, we, pe, se, 0, 0, 1.0, 0.0, 0, 0);
}

/* NaN in x: both options, forward and backward. */
static void nan_cases(void) {
  int dims[4] = {1, 2, 6, 6}, w[2] = {2, 2}, p[2] = {0, 0}, s[2] = {2, 2};
  for (int nan = 0; nan < 2; ++nan) {
    cudnnPoolingDescriptor_t pd;
    DNN_OK(cudnnCreatePoolingDescriptor(&pd));
    DNN_OK(cudnnSetPoolingNdDescriptor(pd, CUDNN_POOLING_MAX, (cudnnNanPropagation_t)nan, 2, w, p, s));
    OTensor x, y, dy, dx;
    int yd[4] = {1, 2, 3, 3};
    otensor_packed(&x, CUDNN_DATA_FLOAT, 4, dims, 0);
    otensor_packed(&y, CUDNN_DATA_FLOAT, 4, yd, 0);
    otensor_packed(&dy, CUDNN_DATA_FLOAT, 4, yd, 0);
    otensor_packed(&dx, CUDNN_DATA_FLOAT, 4, dims, 0);
    float h[72];
    for (int i = 0; i < 72; ++i) h[i] = (float)oracle_nonzero(0.25, 4.0);
    h[7] = NAN;
    h[14] = NAN;
    h[15] = NAN; /* a window with two NaNs */
    h[36] = NAN;
    h[37] = NAN;
    h[42] = NAN;
    h[43] = NAN; /* a window of NaNs only (channel 1, rows 0-1, columns 0-1) */
    CUDA_OK(cudaMemcpy(x.dev, h, sizeof h, cudaMemcpyHostToDevice));
    otensor_fill(&dy, 0.25, 2.0);
    float one = 1, zero = 0;
    char name[64];
    cudnnStatus_t st = cudnnPoolingForward(handle, pd, &one, x.desc, x.dev, &zero, y.desc, y.dev);
    snprintf(name, sizeof name, "nan.fwd.opt%d", nan);
    oracle_report(name, 2e-5, st, &y);
    st = cudnnPoolingBackward(handle, pd, &one, y.desc, y.dev, dy.desc, dy.dev, x.desc, x.dev, &zero, dx.desc, dx.dev);
    snprintf(name, sizeof name, "nan.bwd.opt%d", nan);
    oracle_report(name, 2e-5, st, &dx);
    otensor_free(&x);
    otensor_free(&y);
    otensor_free(&dy);
    otensor_free(&dx);
    cudnnDestroyPoolingDescriptor(pd);
  }
}

static void bad_input_cases(void) {
  int w[2] = {2, 2}, p[2] = {0, 0}, s[2] = {2, 2};
  cudnnPoolingDescriptor_t pd, p1, p4;
  DNN_OK(cudnnCreatePoolingDescriptor(&pd));
  DNN_OK(cudnnSetPoolingNdDescriptor(pd, CUDNN_POOLING_MAX, CUDNN_NOT_PROPAGATE_NAN, 2, w, p, s));
  DNN_OK(cudnnCreatePoolingDescriptor(&p1));
  DNN_OK(cudnnSetPoolingNdDescriptor(p1, CUDNN_POOLING_MAX, CUDNN_NOT_PROPAGATE_NAN, 1, w, p, s));
  DNN_OK(cudnnCreatePoolingDescriptor(&p4));
  int w4[4] = {2, 2, 2, 2}, z4[4] = {0, 0, 0, 0}, s4[4] = {1, 1, 1, 1};
  DNN_OK(cudnnSetPoolingNdDescriptor(p4, CUDNN_POOLING_MAX, CUDNN_NOT_PROPAGATE_NAN, 4, w4, z4, s4));
  int xd[4] = {1, 2, 4, 4}, yd[4] = {1, 2, 2, 2}, yc[4] = {1, 3, 2, 2}, yn[4] = {2, 2, 2, 2}, y3[4] = {1, 2, 3, 2};
  int x3[3] = {1, 2, 4}, x5[5] = {1, 2, 4, 4, 1}, y5[5] = {1, 2, 2, 2, 1}, x6[6] = {1, 2, 3, 3, 3, 3};
  OTensor x, y, ych, ynn, yh, xi, yi, t3, t5, u5, x8, y8, yy3, t6, dxh;
  otensor_packed(&x, CUDNN_DATA_FLOAT, 4, xd, 0);
  otensor_packed(&y, CUDNN_DATA_FLOAT, 4, yd, 0);
  otensor_packed(&ych, CUDNN_DATA_FLOAT, 4, yc, 0);
  otensor_packed(&ynn, CUDNN_DATA_FLOAT, 4, yn, 0);
  otensor_packed(&yh, CUDNN_DATA_HALF, 4, yd, 0);
  otensor_packed(&dxh, CUDNN_DATA_HALF, 4, xd, 0);
  otensor_packed(&xi, CUDNN_DATA_INT32, 4, xd, 0);
  otensor_packed(&yi, CUDNN_DATA_INT32, 4, yd, 0);
  otensor_packed(&t3, CUDNN_DATA_FLOAT, 3, x3, 0);
  otensor_packed(&t5, CUDNN_DATA_FLOAT, 5, x5, 0);
  otensor_packed(&u5, CUDNN_DATA_FLOAT, 5, y5, 0);
  otensor_packed(&x8, CUDNN_DATA_INT8, 4, xd, 0);
  otensor_packed(&y8, CUDNN_DATA_INT8, 4, yd, 0);
  otensor_packed(&yy3, CUDNN_DATA_FLOAT, 4, y3, 0);
  otensor_packed(&t6, CUDNN_DATA_FLOAT, 6, x6, 0);
  otensor_fill(&x, 0.25, 2);
  otensor_fill(&y, 0.25, 2);
  float one = 1, zero = 0;
#define FWD(name, pdesc, xdesc, xp, ydesc, yp) \
  oracle_report_status("bad.fwd." name, cudnnPoolingForward(handle, pdesc, &one, xdesc, xp, &zero, ydesc, yp))
  FWD("ok", pd, x.desc, x.dev, y.desc, y.dev);
  FWD("nullpool", NULL, x.desc, x.dev, y.desc, y.dev);
  FWD("nullx", pd, x.desc, NULL, y.desc, y.dev);
  FWD("nully", pd, x.desc, x.dev, y.desc, NULL);
  FWD("nullxdesc", pd, NULL, x.dev, y.desc, y.dev);
  FWD("cdiff", pd, x.desc, x.dev, ych.desc, ych.dev);
  FWD("ndiff", pd, x.desc, x.dev, ynn.desc, ynn.dev);
  FWD("typediff", pd, x.desc, x.dev, yh.desc, yh.dev);
  FWD("int32", pd, xi.desc, xi.dev, yi.desc, yi.dev);
  FWD("rank5", pd, t5.desc, t5.dev, u5.desc, u5.dev);
  FWD("rank5y", pd, x.desc, x.dev, u5.desc, u5.dev);
  FWD("pool1d", p1, t3.desc, t3.dev, t3.desc, t3.dev);
  FWD("pool4d", p4, t6.desc, t6.dev, t6.desc, t6.dev);
  FWD("int8", pd, x8.desc, x8.dev, y8.desc, y8.dev);
  oracle_report_status("bad.fwd.nullalpha", cudnnPoolingForward(handle, pd, NULL, x.desc, x.dev, &zero, y.desc, y.dev));
#define BWD(name, ydesc, dydesc, xdesc, dxdesc)                                                                \
  oracle_report_status("bad.bwd." name, cudnnPoolingBackward(handle, pd, &one, ydesc, y.dev, dydesc, y.dev, xdesc, \
                                                             x.dev, &zero, dxdesc, x.dev))
  BWD("ok", y.desc, y.desc, x.desc, x.desc);
  BWD("dydims", y.desc, yy3.desc, x.desc, x.desc);
  BWD("dxtype", y.desc, y.desc, x.desc, dxh.desc);
  BWD("int8", y8.desc, y8.desc, x8.desc, x8.desc);
  BWD("int32", yi.desc, yi.desc, xi.desc, xi.desc);
  BWD("cdiff", ych.desc, ych.desc, x.desc, x.desc);
  BWD("rank5", u5.desc, u5.desc, t5.desc, t5.desc);
  oracle_report_status("bad.bwd.nully", cudnnPoolingBackward(handle, pd, &one, y.desc, NULL, y.desc, y.dev, x.desc,
                                                             x.dev, &zero, x.desc, x.dev));
  oracle_report_status("bad.bwd.nulldx", cudnnPoolingBackward(handle, pd, &one, y.desc, y.dev, y.desc, y.dev, x.desc,
                                                              x.dev, &zero, x.desc, NULL));
  oracle_report_status("bad.bwd.nullx", cudnnPoolingBackward(handle, pd, &one, y.desc, y.dev, y.desc, y.dev, x.desc,
                                                             NULL, &zero, x.desc, x.dev));
  cudnnDestroyPoolingDescriptor(pd);
  cudnnDestroyPoolingDescriptor(p1);
  cudnnDestroyPoolingDescriptor(p4);
}

/* Descriptor probes (also checked on the CPU machine's libcudnn). */
static void probe_descriptors(void) {
  cudnnPoolingDescriptor_t p;
  DNN_OK(cudnnCreatePoolingDescriptor(&p));
  int bad[][8] = {{4, 0, 3, 3, 0, 0, 1, 1}, {0, 2, 3, 3, 0, 0, 1, 1}, {0, 0, 0, 3, 0, 0, 1, 1},
                  {0, 0, 3, 3, -1, 0, 1, 1}, {0, 0, 3, 3, 3, 0, 1, 1}, {0, 0, 3, 3, 0, 0, 0, 1}};
  for (int i = 0; i < 6; ++i) {
    int *c = bad[i];
    cudnnStatus_t st = cudnnSetPooling2dDescriptor(p, (cudnnPoolingMode_t)c[0], (cudnnNanPropagation_t)c[1], c[2], c[3],
                                                   c[4], c[5], c[6], c[7]);
    printf("probe.set2d.%d tol=0 st=%d\n", i, (int)st);
  }
  int w[8] = {3, 3, 3, 3, 3, 3, 3, 3}, pd[8] = {0}, s[8] = {1, 1, 1, 1, 1, 1, 1, 1};
  for (int nb = 0; nb <= 8; ++nb)
    printf("probe.setNd.%d tol=0 st=%d\n", nb, (int)cudnnSetPoolingNdDescriptor(p, CUDNN_POOLING_MAX, CUDNN_NOT_PROPAGATE_NAN, nb, w, pd, s));
  cudnnDestroyPoolingDescriptor(p);
}

int main(int argc, char **argv) {
  (void)argc;
  (void)argv;
  if (!oracle_open(&handle, 20261122)) return 1;
  main_cases();
  nan_cases();
  bad_input_cases();
  probe_descriptors();
  cudnnDestroy(handle);
  return 0;
}
