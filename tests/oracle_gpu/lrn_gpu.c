/* GPU differential program for cross-channel LRN and divisive normalization:
 * cudnnLRNCrossChannelForward/Backward and cudnnDivisiveNormalizationForward/
 * Backward on device memory (types, layouts, 4-d and 5-d, window widths,
 * blending, with and without means), status codes of bad calls, and probes
 * ('#' lines) that hold each library's results against candidate formulas
 * (window placement for even n, numerator of divisive normalization, which y
 * the LRN backward uses, what dMeans is). Built against FreeDNN and against
 * NVIDIA's cuDNN; see oracle_common.h for the output format. */
#include "oracle_program.h"

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

static cudnnLRNDescriptor_t make_lrn(unsigned n, double alpha, double beta, double k) {
  cudnnLRNDescriptor_t d;
  DNN_OK(cudnnCreateLRNDescriptor(&d));
  DNN_OK(cudnnSetLRNDescriptor(d, n, alpha, beta, k));
  return d;
}

/* ------------------------------------------------------------------ results */
/* layout: 0 NCHW packed, 1 NHWC packed, 2 padded strides (4-d only). */
static void strides_for(int nb, const int *dims, int layout, int *strides) {
  if (layout < 2) {
    oracle_packed_strides(nb, dims, layout, strides);
    return;
  }
  /* N, H, W, C order with gaps. */
  strides[1] = 2;
  strides[3] = strides[1] * dims[1] + 3;
  strides[2] = strides[3] * dims[3] + 1;
  strides[0] = strides[2] * dims[2] + 5;
}

static void lrn_case(const char *name, cudnnDataType_t t, int nb, const int *dims, int layout, unsigned n,
                     double lalpha, double lbeta, double lk, double alpha, double beta) {
  int s[8];
  strides_for(nb, dims, layout, s);
  OTensor x, y, dy, dx;
  otensor_init(&x, t, nb, dims, s);
  otensor_init(&y, t, nb, dims, s);
  otensor_init(&dy, t, nb, dims, s);
  otensor_init(&dx, t, nb, dims, s);
  otensor_fill(&x, 0.25, 3.0);
  otensor_fill(&y, 0.25, 2.0);
  otensor_fill(&dy, 0.25, 2.0);
  otensor_fill(&dx, 0.25, 2.0);
  cudnnLRNDescriptor_t d = make_lrn(n, lalpha, lbeta, lk);
  Scale a = scale(alpha), b = scale(beta), one = scale(1), zero = scale(0);
  char nm[160];
  cudnnStatus_t st = cudnnLRNCrossChannelForward(handle, d, CUDNN_LRN_CROSS_CHANNEL_DIM1, sp(&a, t), x.desc, x.dev,
                                                 sp(&b, t), y.desc, y.dev);
  snprintf(nm, sizeof nm, "lrn.fwd.%s", name);
  oracle_report(nm, tol_of(t), st, &y);
  /* Backward with y of a plain forward pass. */
  st = cudnnLRNCrossChannelForward(handle, d, CUDNN_LRN_CROSS_CHANNEL_DIM1, sp(&one, t), x.desc, x.dev, sp(&zero, t),
                                   y.desc, y.dev);
  st = cudnnLRNCrossChannelBackward(handle, d, CUDNN_LRN_CROSS_CHANNEL_DIM1, sp(&a, t), y.desc, y.dev, dy.desc,
                                    dy.dev, x.desc, x.dev, sp(&b, t), dx.desc, dx.dev);
  snprintf(nm, sizeof nm, "lrn.bwd.%s", name);
  oracle_report(nm, tol_of(t) * 4, st, &dx);
  cudnnDestroyLRNDescriptor(d);
  otensor_free(&x);
  otensor_free(&y);
  otensor_free(&dy);
  otensor_free(&dx);
}

static void divnorm_case(const char *name, cudnnDataType_t t, int nb, const int *dims, int layout, int with_means,
                         int with_dmeans, unsigned n, double lalpha, double lbeta, double lk, double alpha,
                         double beta) {
  int s[8];
  strides_for(nb, dims, layout, s);
  OTensor x, m, y, dy, dx, dm, t1, t2;
  otensor_init(&x, t, nb, dims, s);
  otensor_init(&m, t, nb, dims, s);
  otensor_init(&y, t, nb, dims, s);
  otensor_init(&dy, t, nb, dims, s);
  otensor_init(&dx, t, nb, dims, s);
  otensor_init(&dm, t, nb, dims, s);
  otensor_init(&t1, t, nb, dims, s);
  otensor_init(&t2, t, nb, dims, s);
  otensor_fill(&x, 0.25, 3.0);
  otensor_fill(&m, 0.1, 1.0);
  otensor_fill(&y, 0.25, 2.0);
  otensor_fill(&dy, 0.25, 2.0);
  otensor_fill(&dx, 0.25, 2.0);
  otensor_fill(&dm, 0.25, 2.0);
  cudnnLRNDescriptor_t d = make_lrn(n, lalpha, lbeta, lk);
  Scale a = scale(alpha), b = scale(beta);
  char nm[160];
  cudnnStatus_t st = cudnnDivisiveNormalizationForward(handle, d, CUDNN_DIVNORM_PRECOMPUTED_MEANS, sp(&a, t), x.desc,
                                                       x.dev, with_means ? m.dev : NULL, t1.dev, t2.dev, sp(&b, t),
                                                       y.desc, y.dev);
  snprintf(nm, sizeof nm, "div.fwd.%s", name);
  oracle_report(nm, tol_of(t), st, &y);
  st = cudnnDivisiveNormalizationBackward(handle, d, CUDNN_DIVNORM_PRECOMPUTED_MEANS, sp(&a, t), x.desc, x.dev,
                                          with_means ? m.dev : NULL, dy.dev, t1.dev, t2.dev, sp(&b, t), dx.desc,
                                          dx.dev, with_dmeans ? dm.dev : NULL);
  snprintf(nm, sizeof nm, "div.bwd.dx.%s", name);
  oracle_report(nm, tol_of(t) * 4, st, &dx);
  if (with_dmeans) {
    snprintf(nm, sizeof nm, "div.bwd.dmeans.%s", name);
    oracle_report(nm, tol_of(t) * 4, st, &dm);
  }
  cudnnDestroyLRNDescriptor(d);
  otensor_free(&x);
  otensor_free(&m);
  otensor_free(&y);
  otensor_free(&dy);
  otensor_free(&dx);
  otensor_free(&dm);
  otensor_free(&t1);
  otensor_free(&t2);
}

static const cudnnDataType_t kTypes[] = {CUDNN_DATA_FLOAT, CUDNN_DATA_DOUBLE, CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16};

static void lrn_cases(void) {
  int d4[4] = {3, 19, 7, 9}, d5[5] = {2, 11, 3, 4, 5};
  char nm[128];
  for (int i = 0; i < 4; ++i) {
    const char *tn = oracle_type_name(kTypes[i]);
    snprintf(nm, sizeof nm, "nchw.n5.%s", tn);
    lrn_case(nm, kTypes[i], 4, d4, 0, 5, 1e-4, 0.75, 2.0, 1.0, 0.0);
    snprintf(nm, sizeof nm, "nchw.n4.big.%s", tn);
    lrn_case(nm, kTypes[i], 4, d4, 0, 4, 2.5, 0.75, 1.0, 1.0, 0.0);
    snprintf(nm, sizeof nm, "nhwc.n6.blend.%s", tn);
    lrn_case(nm, kTypes[i], 4, d4, 1, 6, 3.0, 1.3, 0.5, 0.75, -0.5);
    snprintf(nm, sizeof nm, "strided.n3.%s", tn);
    lrn_case(nm, kTypes[i], 4, d4, 2, 3, 1.5, 0.5, 2.0, 2.0, 1.0);
    snprintf(nm, sizeof nm, "5d.n7.%s", tn);
    lrn_case(nm, kTypes[i], 5, d5, 0, 7, 2.0, 0.9, 1.0, 1.0, 0.0);
  }
  lrn_case("nchw.n1.f32", CUDNN_DATA_FLOAT, 4, d4, 0, 1, 2.0, 0.75, 2.0, 1.0, 0.0);
  lrn_case("nchw.n16.f32", CUDNN_DATA_FLOAT, 4, d4, 0, 16, 4.0, 0.75, 1.0, 1.0, 0.0);
  int big[4] = {4, 96, 17, 23};
  lrn_case("nchw.big.n5.f32", CUDNN_DATA_FLOAT, 4, big, 0, 5, 3.0, 0.75, 1.0, 1.0, 0.0);
  lrn_case("nhwc.big.n5.f32", CUDNN_DATA_FLOAT, 4, big, 1, 5, 3.0, 0.75, 1.0, 1.0, 0.0);
  lrn_case("nhwc.big.n5.f16", CUDNN_DATA_HALF, 4, big, 1, 5, 3.0, 0.75, 1.0, 1.0, 0.0);
  lrn_case("nhwc.big.n3.blend.f32", CUDNN_DATA_FLOAT, 4, big, 1, 3, 2.0, 0.75, 1.0, 0.5, -1.0);
}

static void divnorm_cases(void) {
  int d4[4] = {2, 3, 9, 11}, d5[5] = {2, 2, 4, 5, 6};
  char nm[128];
  for (int i = 0; i < 4; ++i) {
    const char *tn = oracle_type_name(kTypes[i]);
    snprintf(nm, sizeof nm, "nomeans.n5.%s", tn);
    divnorm_case(nm, kTypes[i], 4, d4, 0, 0, 1, 5, 2.0, 0.75, 1.0, 1.0, 0.0);
    snprintf(nm, sizeof nm, "means.n3.%s", tn);
    divnorm_case(nm, kTypes[i], 4, d4, 0, 1, 1, 3, 3.0, 0.75, 1.0, 1.0, 0.0);
    snprintf(nm, sizeof nm, "means.n4.blend.%s", tn);
    divnorm_case(nm, kTypes[i], 4, d4, 0, 1, 1, 4, 2.0, 1.3, 0.5, 0.5, 1.5);
    snprintf(nm, sizeof nm, "5d.means.n3.%s", tn);
    divnorm_case(nm, kTypes[i], 5, d5, 0, 1, 1, 3, 2.0, 0.75, 1.0, 1.0, 0.0);
  }
  divnorm_case("means.nodmeans.f32", CUDNN_DATA_FLOAT, 4, d4, 0, 1, 0, 5, 2.0, 0.75, 1.0, 1.0, 0.0);
  divnorm_case("nhwc.means.f32", CUDNN_DATA_FLOAT, 4, d4, 1, 1, 1, 5, 2.0, 0.75, 1.0, 1.0, 0.0);
  divnorm_case("strided.means.f32", CUDNN_DATA_FLOAT, 4, d4, 2, 1, 1, 5, 2.0, 0.75, 1.0, 1.0, 0.0);
  divnorm_case("n16.f32", CUDNN_DATA_FLOAT, 4, d4, 0, 1, 1, 16, 2.0, 0.75, 1.0, 1.0, 0.0);
}

/* ------------------------------------------------------------------ probes */
/* Host formulas over packed NCHW double data of dims (N, C, H, W). behind:
 * elements before the centre; a: the factor of the sum; num_x: numerator x
 * instead of u = x - m. */
typedef struct {
  int N, C, H, W;
} Dims4;
static size_t at(Dims4 d, int n, int c, int h, int w) { return (((size_t)n * d.C + c) * d.H + h) * d.W + w; }

static double win_sum_sq(Dims4 d, const double *u, int n, int c, int h, int w, int cross, int lo, int hi) {
  double s = 0;
  if (cross) {
    for (int j = c + lo; j <= c + hi; ++j)
      if (j >= 0 && j < d.C) s += u[at(d, n, j, h, w)] * u[at(d, n, j, h, w)];
    return s;
  }
  for (int i = h + lo; i <= h + hi; ++i)
    for (int j = w + lo; j <= w + hi; ++j)
      if (i >= 0 && i < d.H && j >= 0 && j < d.W) s += u[at(d, n, c, i, j)] * u[at(d, n, c, i, j)];
  return s;
}

/* S for every element. */
static void s_all(Dims4 d, const double *u, int cross, int behind, int nwin, double a, double k, double *s) {
  for (int n = 0; n < d.N; ++n)
    for (int c = 0; c < d.C; ++c)
      for (int h = 0; h < d.H; ++h)
        for (int w = 0; w < d.W; ++w)
          s[at(d, n, c, h, w)] = k + a * win_sum_sq(d, u, n, c, h, w, cross, -behind, nwin - 1 - behind);
}

/* sum over q whose window holds p of v(q). */
static double win_sum_t(Dims4 d, const double *v, int n, int c, int h, int w, int cross, int behind, int nwin) {
  const int ahead = nwin - 1 - behind;
  double s = 0;
  if (cross) {
    for (int j = c - ahead; j <= c + behind; ++j)
      if (j >= 0 && j < d.C) s += v[at(d, n, j, h, w)];
    return s;
  }
  for (int i = h - ahead; i <= h + behind; ++i)
    for (int j = w - ahead; j <= w + behind; ++j)
      if (i >= 0 && i < d.H && j >= 0 && j < d.W) s += v[at(d, n, c, i, j)];
  return s;
}

static double max_rel_err(const double *got, const double *want, size_t count) {
  double e = 0;
  for (size_t i = 0; i < count; ++i) {
    double r = fabs(got[i] - want[i]) / fmax(fabs(want[i]), 1e-3);
    if (r > e || isnan(r)) e = isnan(r) ? INFINITY : r;
  }
  return e;
}

static void upload_d(OTensor *t, const double *v, size_t count) {
  CUDA_OK(cudaMemcpy(t->dev, v, count * 8, cudaMemcpyHostToDevice));
}
static void download_d(const OTensor *t, double *v, size_t count) {
  CUDA_OK(cudaDeviceSynchronize());
  CUDA_OK(cudaMemcpy(v, t->dev, count * 8, cudaMemcpyDeviceToHost));
}

static void probe_formulas(void) {
  Dims4 d = {1, 7, 5, 6};
  int dims[4] = {d.N, d.C, d.H, d.W};
  size_t cnt = (size_t)d.N * d.C * d.H * d.W;
  double *x = malloc(cnt * 8), *m = malloc(cnt * 8), *dy = malloc(cnt * 8), *yr = malloc(cnt * 8),
         *got = malloc(cnt * 8), *got2 = malloc(cnt * 8), *u = malloc(cnt * 8), *s = malloc(cnt * 8),
         *want = malloc(cnt * 8), *r = malloc(cnt * 8), *ycalc = malloc(cnt * 8);
  for (size_t i = 0; i < cnt; ++i) {
    x[i] = oracle_nonzero(0.25, 3.0);
    m[i] = oracle_nonzero(0.1, 1.5);
    dy[i] = oracle_nonzero(0.25, 2.0);
    yr[i] = oracle_nonzero(0.25, 2.0);
  }
  OTensor tx, tm, ty, tdy, tdx, tdm, t1, t2;
  otensor_packed(&tx, CUDNN_DATA_DOUBLE, 4, dims, 0);
  otensor_packed(&tm, CUDNN_DATA_DOUBLE, 4, dims, 0);
  otensor_packed(&ty, CUDNN_DATA_DOUBLE, 4, dims, 0);
  otensor_packed(&tdy, CUDNN_DATA_DOUBLE, 4, dims, 0);
  otensor_packed(&tdx, CUDNN_DATA_DOUBLE, 4, dims, 0);
  otensor_packed(&tdm, CUDNN_DATA_DOUBLE, 4, dims, 0);
  otensor_packed(&t1, CUDNN_DATA_DOUBLE, 4, dims, 0);
  otensor_packed(&t2, CUDNN_DATA_DOUBLE, 4, dims, 0);
  upload_d(&tx, x, cnt);
  upload_d(&tm, m, cnt);
  upload_d(&tdy, dy, cnt);
  const double one = 1, zero = 0, la = 3.0, lb = 0.8, lk = 1.5;
  unsigned ns[3] = {4, 5, 2};
  for (int ni = 0; ni < 3; ++ni) {
    unsigned n = ns[ni];
    cudnnLRNDescriptor_t desc = make_lrn(n, la, lb, lk);
    /* LRN forward: window placement (behind = (n-1)/2 or n/2) and divisor. */
    cudnnStatus_t st = cudnnLRNCrossChannelForward(handle, desc, CUDNN_LRN_CROSS_CHANNEL_DIM1, &one, tx.desc, tx.dev,
                                                   &zero, ty.desc, ty.dev);
    printf("# probe.lrn.fwd.n%u st=%d", n, (int)st);
    download_d(&ty, got, cnt);
    for (int beh = 0; beh < 2; ++beh) {
      int behind = beh ? (int)n / 2 : ((int)n - 1) / 2;
      for (int div = 0; div < 2; ++div) {
        double a = div ? la : la / n;
        s_all(d, x, 1, behind, (int)n, a, lk, s);
        for (size_t i = 0; i < cnt; ++i) want[i] = x[i] * pow(s[i], -lb);
        printf(" behind%d.%s=%.3g", behind, div ? "alpha" : "alpha/n", max_rel_err(got, want, cnt));
      }
    }
    printf("\n");
    /* LRN backward with an unrelated y: does it use the given y? */
    upload_d(&ty, yr, cnt);
    st = cudnnLRNCrossChannelBackward(handle, desc, CUDNN_LRN_CROSS_CHANNEL_DIM1, &one, ty.desc, ty.dev, tdy.desc,
                                      tdy.dev, tx.desc, tx.dev, &zero, tdx.desc, tdx.dev);
    download_d(&tdx, got, cnt);
    printf("# probe.lrn.bwd.n%u st=%d", n, (int)st);
    for (int beh = 0; beh < 2; ++beh) {
      int behind = beh ? (int)n / 2 : ((int)n - 1) / 2;
      s_all(d, x, 1, behind, (int)n, la / n, lk, s);
      for (int ygiven = 0; ygiven < 2; ++ygiven) {
        for (size_t i = 0; i < cnt; ++i) {
          ycalc[i] = ygiven ? yr[i] : x[i] * pow(s[i], -lb);
          r[i] = dy[i] * ycalc[i] / s[i];
        }
        for (int nn = 0; nn < d.N; ++nn)
          for (int c = 0; c < d.C; ++c)
            for (int h = 0; h < d.H; ++h)
              for (int w = 0; w < d.W; ++w) {
                size_t i = at(d, nn, c, h, w);
                want[i] = dy[i] * pow(s[i], -lb) -
                          2 * la / n * lb * x[i] * win_sum_t(d, r, nn, c, h, w, 1, behind, (int)n);
              }
        printf(" behind%d.%s=%.3g", behind, ygiven ? "ygiven" : "yrecomputed", max_rel_err(got, want, cnt));
      }
    }
    printf("\n");
    /* Divisive forward and backward, with and without means. */
    for (int wm = 0; wm < 2; ++wm) {
      st = cudnnDivisiveNormalizationForward(handle, desc, CUDNN_DIVNORM_PRECOMPUTED_MEANS, &one, tx.desc, tx.dev,
                                             wm ? tm.dev : NULL, t1.dev, t2.dev, &zero, ty.desc, ty.dev);
      download_d(&ty, got, cnt);
      printf("# probe.div.fwd.n%u.means%d st=%d", n, wm, (int)st);
      for (size_t i = 0; i < cnt; ++i) u[i] = wm ? x[i] - m[i] : x[i];
      for (int beh = 0; beh < 2; ++beh) {
        int behind = beh ? (int)n / 2 : ((int)n - 1) / 2;
        for (int div = 0; div < 3; ++div) {
          double a = div == 0 ? la / (n * n) : div == 1 ? la / n : la;
          s_all(d, u, 0, behind, (int)n, a, lk, s);
          for (int numx = 0; numx < 2; ++numx) {
            for (size_t i = 0; i < cnt; ++i) want[i] = (numx ? x[i] : u[i]) * pow(s[i], -lb);
            printf(" b%d.%s.%s=%.3g", behind, div == 0 ? "a/n2" : div == 1 ? "a/n" : "a", numx ? "numx" : "numu",
                   max_rel_err(got, want, cnt));
          }
        }
      }
      printf("\n");
      /* A few raw values for fitting by hand. */
      printf("# probe.div.fwd.raw.n%u.means%d", n, wm);
      for (size_t i = 0; i < 6; ++i) printf(" %.9g", got[i]);
      printf("\n");
      st = cudnnDivisiveNormalizationBackward(handle, desc, CUDNN_DIVNORM_PRECOMPUTED_MEANS, &one, tx.desc, tx.dev,
                                              wm ? tm.dev : NULL, tdy.dev, t1.dev, t2.dev, &zero, tdx.desc, tdx.dev,
                                              tdm.dev);
      download_d(&tdx, got, cnt);
      download_d(&tdm, got2, cnt);
      printf("# probe.div.bwd.n%u.means%d st=%d", n, wm, (int)st);
      for (int beh = 0; beh < 2; ++beh) {
        int behind = beh ? (int)n / 2 : ((int)n - 1) / 2;
        double a = la / (n * n);
        s_all(d, u, 0, behind, (int)n, a, lk, s);
        for (int numx = 0; numx < 2; ++numx) {
          for (size_t i = 0; i < cnt; ++i) r[i] = dy[i] * (numx ? x[i] : u[i]) * pow(s[i], -lb) / s[i];
          double *t = malloc(cnt * 8);
          for (int nn = 0; nn < d.N; ++nn)
            for (int c = 0; c < d.C; ++c)
              for (int h = 0; h < d.H; ++h)
                for (int w = 0; w < d.W; ++w) {
                  size_t i = at(d, nn, c, h, w);
                  t[i] = 2 * a * lb * u[i] * win_sum_t(d, r, nn, c, h, w, 0, behind, (int)n);
                  want[i] = dy[i] * pow(s[i], -lb) - t[i];
                }
          printf(" b%d.%s.dx=%.3g", behind, numx ? "numx" : "numu", max_rel_err(got, want, cnt));
          for (size_t i = 0; i < cnt; ++i) want[i] = -want[i];
          printf(" dm=-dx:%.3g", max_rel_err(got2, want, cnt));
          printf(" dm=T:%.3g", max_rel_err(got2, t, cnt));
          for (size_t i = 0; i < cnt; ++i) t[i] = -t[i];
          printf(" dm=-T:%.3g", max_rel_err(got2, t, cnt));
          free(t);
        }
      }
      printf("\n# probe.div.bwd.raw.n%u.means%d dx", n, wm);
      for (size_t i = 0; i < 4; ++i) printf(" %.9g", got[i]);
      printf(" dm");
      for (size_t i = 0; i < 4; ++i) printf(" %.9g", got2[i]);
      printf("\n");
    }
    cudnnDestroyLRNDescriptor(desc);
  }
  otensor_free(&tx);
  otensor_free(&tm);
  otensor_free(&ty);
  otensor_free(&tdy);
  otensor_free(&tdx);
  otensor_free(&tdm);
  otensor_free(&t1);
  otensor_free(&t2);
  free(x); free(m); free(dy); free(yr); free(got); free(got2); free(u); free(s); free(want); free(r); free(ycalc);
}

/* ------------------------------------------------------------------ bad inputs */
typedef struct {
  cudnnLRNDescriptor_t nd;
  OTensor x4, y4, x3, x6, other_dims, f16, bf16, s8, neg, ndhwc5, ncdhw5, ncdhw5pad, nhwc4, x2;
  void *buf[6];
} Bad;

static void make_t(OTensor *t, cudnnDataType_t type, int nb, const int *dims, const int *strides) {
  otensor_init(t, type, nb, dims, strides);
  otensor_fill(t, 0.25, 2.0);
}

static void bad_setup(Bad *b) {
  b->nd = make_lrn(5, 1e-4, 0.75, 2.0);
  int d4[4] = {2, 3, 4, 5}, s4[4] = {60, 20, 5, 1};
  make_t(&b->x4, CUDNN_DATA_FLOAT, 4, d4, s4);
  make_t(&b->y4, CUDNN_DATA_FLOAT, 4, d4, s4);
  int d3[3] = {2, 3, 4}, s3[3] = {12, 4, 1};
  make_t(&b->x3, CUDNN_DATA_FLOAT, 3, d3, s3);
  int d6[6] = {2, 3, 2, 2, 2, 2}, s6[6] = {48, 16, 8, 4, 2, 1};
  make_t(&b->x6, CUDNN_DATA_FLOAT, 6, d6, s6);
  int dd[4] = {2, 3, 4, 6}, sd[4] = {72, 24, 6, 1};
  make_t(&b->other_dims, CUDNN_DATA_FLOAT, 4, dd, sd);
  make_t(&b->f16, CUDNN_DATA_HALF, 4, d4, s4);
  make_t(&b->bf16, CUDNN_DATA_BFLOAT16, 4, d4, s4);
  make_t(&b->s8, CUDNN_DATA_INT8, 4, d4, s4);
  int sneg[4] = {60, 20, -5, 1};
  make_t(&b->neg, CUDNN_DATA_FLOAT, 4, d4, sneg);
  int d5[5] = {2, 3, 2, 2, 2}, s5n[5] = {24, 1, 12, 6, 3}, s5[5] = {24, 8, 4, 2, 1}, s5p[5] = {64, 16, 4, 2, 1};
  make_t(&b->ndhwc5, CUDNN_DATA_FLOAT, 5, d5, s5n);
  make_t(&b->ncdhw5, CUDNN_DATA_FLOAT, 5, d5, s5);
  make_t(&b->ncdhw5pad, CUDNN_DATA_FLOAT, 5, d5, s5p);
  int snhwc[4] = {60, 1, 15, 3};
  make_t(&b->nhwc4, CUDNN_DATA_FLOAT, 4, d4, snhwc);
  for (int i = 0; i < 6; ++i) CUDA_OK(cudaMalloc(&b->buf[i], 1 << 16));
}

static const float f1 = 1.0f, f0 = 0.0f;

static void lrn_fwd_st(const char *name, cudnnLRNDescriptor_t nd, int mode, const void *al, const OTensor *x,
                       const void *xp, const void *be, const OTensor *y, void *yp) {
  char nm[128];
  snprintf(nm, sizeof nm, "bad.lrnf.%s", name);
  oracle_report_status(nm, cudnnLRNCrossChannelForward(handle, nd, (cudnnLRNMode_t)mode, al, x ? x->desc : NULL, xp,
                                                       be, y ? y->desc : NULL, yp));
}

static void lrn_bwd_st(const char *name, const OTensor *y, const OTensor *dy, const OTensor *x, const OTensor *dx,
                       int null_which, int mode, Bad *b) {
  char nm[128];
  snprintf(nm, sizeof nm, "bad.lrnb.%s", name);
  void *p[4] = {b->buf[0], b->buf[1], b->buf[2], b->buf[3]};
  if (null_which >= 0) p[null_which] = NULL;
  oracle_report_status(nm, cudnnLRNCrossChannelBackward(handle, b->nd, (cudnnLRNMode_t)mode, &f1, y->desc, p[0],
                                                        dy->desc, p[1], x->desc, p[2], &f0, dx->desc, p[3]));
}

static void div_fwd_st(const char *name, const OTensor *x, const OTensor *y, int null_which, int mode, Bad *b) {
  char nm[128];
  snprintf(nm, sizeof nm, "bad.divf.%s", name);
  void *p[5] = {b->buf[0], b->buf[1], b->buf[2], b->buf[3], b->buf[4]};  /* x means temp temp2 y */
  if (null_which >= 0) p[null_which] = NULL;
  oracle_report_status(nm, cudnnDivisiveNormalizationForward(handle, b->nd, (cudnnDivNormMode_t)mode, &f1, x->desc,
                                                             p[0], p[1], p[2], p[3], &f0, y->desc, p[4]));
}

static void div_bwd_st(const char *name, const OTensor *x, const OTensor *dx, int null_which, int mode, Bad *b) {
  char nm[128];
  snprintf(nm, sizeof nm, "bad.divb.%s", name);
  void *p[7] = {b->buf[0], b->buf[1], b->buf[2], b->buf[3], b->buf[4], b->buf[5], b->buf[1]};
  /* x means dy temp temp2 dx dmeans */
  CUDA_OK(cudaMalloc(&p[6], 1 << 16));
  void *own = p[6];
  if (null_which >= 0) p[null_which] = NULL;
  oracle_report_status(nm, cudnnDivisiveNormalizationBackward(handle, b->nd, (cudnnDivNormMode_t)mode, &f1, x->desc,
                                                              p[0], p[1], p[2], p[3], p[4], &f0, dx->desc, p[5],
                                                              p[6]));
  cudaFree(own);
}

static void bad_lrn_fwd(Bad *b) {
  void *x = b->buf[0], *y = b->buf[1];
  lrn_fwd_st("ok", b->nd, 0, &f1, &b->x4, x, &f0, &b->y4, y);
  lrn_fwd_st("mode1", b->nd, 1, &f1, &b->x4, x, &f0, &b->y4, y);
  lrn_fwd_st("mode_neg", b->nd, -1, &f1, &b->x4, x, &f0, &b->y4, y);
  lrn_fwd_st("rank3", b->nd, 0, &f1, &b->x3, x, &f0, &b->x3, y);
  lrn_fwd_st("rank6", b->nd, 0, &f1, &b->x6, x, &f0, &b->x6, y);
  lrn_fwd_st("dims", b->nd, 0, &f1, &b->x4, x, &f0, &b->other_dims, y);
  lrn_fwd_st("type_mix", b->nd, 0, &f1, &b->x4, x, &f0, &b->f16, y);
  lrn_fwd_st("f16", b->nd, 0, &f1, &b->f16, x, &f0, &b->f16, y);
  lrn_fwd_st("bf16", b->nd, 0, &f1, &b->bf16, x, &f0, &b->bf16, y);
  lrn_fwd_st("s8", b->nd, 0, &f1, &b->s8, x, &f0, &b->s8, y);
  lrn_fwd_st("neg_x", b->nd, 0, &f1, &b->neg, x, &f0, &b->y4, y);
  lrn_fwd_st("neg_y", b->nd, 0, &f1, &b->x4, x, &f0, &b->neg, y);
  lrn_fwd_st("ndhwc5", b->nd, 0, &f1, &b->ndhwc5, x, &f0, &b->ndhwc5, y);
  lrn_fwd_st("ncdhw5", b->nd, 0, &f1, &b->ncdhw5, x, &f0, &b->ncdhw5, y);
  lrn_fwd_st("ncdhw5pad", b->nd, 0, &f1, &b->ncdhw5pad, x, &f0, &b->ncdhw5pad, y);
  lrn_fwd_st("nhwc_to_nchw", b->nd, 0, &f1, &b->nhwc4, x, &f0, &b->x4, y);
  lrn_fwd_st("x5_y4", b->nd, 0, &f1, &b->ncdhw5, x, &f0, &b->x4, y);
}

static void bad_lrn_fwd_null(Bad *b) {
  void *x = b->buf[0], *y = b->buf[1];
  lrn_fwd_st("null_x", b->nd, 0, &f1, &b->x4, NULL, &f0, &b->y4, y);
  lrn_fwd_st("null_y", b->nd, 0, &f1, &b->x4, x, &f0, &b->y4, NULL);
  lrn_fwd_st("null_alpha", b->nd, 0, NULL, &b->x4, x, &f0, &b->y4, y);
  lrn_fwd_st("null_beta", b->nd, 0, &f1, &b->x4, x, NULL, &b->y4, y);
}

static void bad_lrn_fwd_null_desc(Bad *b) {
  void *x = b->buf[0], *y = b->buf[1];
  lrn_fwd_st("null_xdesc", b->nd, 0, &f1, NULL, x, &f0, &b->y4, y);
  lrn_fwd_st("null_ydesc", b->nd, 0, &f1, &b->x4, x, &f0, NULL, y);
  lrn_fwd_st("null_norm", NULL, 0, &f1, &b->x4, x, &f0, &b->y4, y);
}

static void bad_lrn_bwd(Bad *b) {
  OTensor *X = &b->x4;
  lrn_bwd_st("ok", X, X, X, &b->y4, -1, 0, b);
  lrn_bwd_st("mode1", X, X, X, &b->y4, -1, 1, b);
  lrn_bwd_st("rank3", &b->x3, &b->x3, &b->x3, &b->x3, -1, 0, b);
  lrn_bwd_st("rank6", &b->x6, &b->x6, &b->x6, &b->x6, -1, 0, b);
  lrn_bwd_st("dims_dy", X, &b->other_dims, X, &b->y4, -1, 0, b);
  lrn_bwd_st("dims_dx", X, X, X, &b->other_dims, -1, 0, b);
  lrn_bwd_st("type_dx", X, X, X, &b->f16, -1, 0, b);
  lrn_bwd_st("bf16", &b->bf16, &b->bf16, &b->bf16, &b->bf16, -1, 0, b);
  lrn_bwd_st("s8", &b->s8, &b->s8, &b->s8, &b->s8, -1, 0, b);
  lrn_bwd_st("neg_x", X, X, &b->neg, &b->y4, -1, 0, b);
  lrn_bwd_st("neg_dx", X, X, X, &b->neg, -1, 0, b);
  lrn_bwd_st("ndhwc5", &b->ndhwc5, &b->ndhwc5, &b->ndhwc5, &b->ndhwc5, -1, 0, b);
  lrn_bwd_st("nhwc_mix", &b->nhwc4, X, X, &b->y4, -1, 0, b);
  lrn_bwd_st("null_y", X, X, X, &b->y4, 0, 0, b);
  lrn_bwd_st("null_dy", X, X, X, &b->y4, 1, 0, b);
  lrn_bwd_st("null_x", X, X, X, &b->y4, 2, 0, b);
  lrn_bwd_st("null_dx", X, X, X, &b->y4, 3, 0, b);
}

static void bad_div_fwd(Bad *b) {
  OTensor *X = &b->x4;
  div_fwd_st("ok", X, &b->y4, -1, 0, b);
  div_fwd_st("nomeans", X, &b->y4, 1, 0, b);
  div_fwd_st("mode1", X, &b->y4, -1, 1, b);
  div_fwd_st("rank3", &b->x3, &b->x3, -1, 0, b);
  div_fwd_st("rank6", &b->x6, &b->x6, -1, 0, b);
  div_fwd_st("dims", X, &b->other_dims, -1, 0, b);
  div_fwd_st("type_mix", X, &b->f16, -1, 0, b);
  div_fwd_st("f16", &b->f16, &b->f16, -1, 0, b);
  div_fwd_st("bf16", &b->bf16, &b->bf16, -1, 0, b);
  div_fwd_st("s8", &b->s8, &b->s8, -1, 0, b);
  div_fwd_st("neg", &b->neg, &b->neg, -1, 0, b);
  div_fwd_st("stride_mismatch", X, &b->nhwc4, -1, 0, b);
  div_fwd_st("nhwc", &b->nhwc4, &b->nhwc4, -1, 0, b);
  div_fwd_st("ndhwc5", &b->ndhwc5, &b->ndhwc5, -1, 0, b);
  div_fwd_st("null_x", X, &b->y4, 0, 0, b);
  div_fwd_st("null_temp", X, &b->y4, 2, 0, b);
  div_fwd_st("null_temp2", X, &b->y4, 3, 0, b);
  div_fwd_st("null_y", X, &b->y4, 4, 0, b);
}

static void bad_div_bwd(Bad *b) {
  OTensor *X = &b->x4;
  div_bwd_st("ok", X, &b->y4, -1, 0, b);
  div_bwd_st("nomeans", X, &b->y4, 1, 0, b);
  div_bwd_st("nodmeans", X, &b->y4, 6, 0, b);
  div_bwd_st("mode1", X, &b->y4, -1, 1, b);
  div_bwd_st("rank3", &b->x3, &b->x3, -1, 0, b);
  div_bwd_st("rank6", &b->x6, &b->x6, -1, 0, b);
  div_bwd_st("dims", X, &b->other_dims, -1, 0, b);
  div_bwd_st("type_mix", X, &b->f16, -1, 0, b);
  div_bwd_st("bf16", &b->bf16, &b->bf16, -1, 0, b);
  div_bwd_st("s8", &b->s8, &b->s8, -1, 0, b);
  div_bwd_st("neg", &b->neg, &b->neg, -1, 0, b);
  div_bwd_st("stride_mismatch", X, &b->nhwc4, -1, 0, b);
  div_bwd_st("ndhwc5", &b->ndhwc5, &b->ndhwc5, -1, 0, b);
  div_bwd_st("null_x", X, &b->y4, 0, 0, b);
  div_bwd_st("null_dy", X, &b->y4, 2, 0, b);
  div_bwd_st("null_temp", X, &b->y4, 3, 0, b);
  div_bwd_st("null_dx", X, &b->y4, 5, 0, b);
}

enum { kGroups = 9 };

int main(int argc, char **argv) {
  int which;
  if (oracle_groups_query(argc, argv, kGroups, &which)) return 0;
  if (!oracle_open(&handle, 20261122)) return 1;
  if (which < 0 || which == 0) lrn_cases();
  if (which < 0 || which == 1) divnorm_cases();
  if (which < 0 || which == 2) probe_formulas();
  if (which >= 3 || which < 0) {
    Bad b;
    bad_setup(&b);
    if (which < 0 || which == 3) bad_lrn_fwd(&b);
    if (which < 0 || which == 4) bad_lrn_fwd_null(&b);
    if (which < 0 || which == 5) bad_lrn_fwd_null_desc(&b);
    if (which < 0 || which == 6) bad_lrn_bwd(&b);
    if (which < 0 || which == 7) bad_div_fwd(&b);
    if (which < 0 || which == 8) bad_div_bwd(&b);
  }
  cudnnDestroy(handle);
  return 0;
}
