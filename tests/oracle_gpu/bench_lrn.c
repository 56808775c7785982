/* Bandwidth of cross-channel LRN and divisive normalization on large tensors,
 * next to a cudaMemcpy device-to-device copy measured in the same run. Built
 * against FreeDNN and against NVIDIA's cuDNN (scripts/gpu-check.sh puts the
 * two side by side). Prints one line per call:
 *
 *     bench <name> bytes=<moved> ms=<median> gbs=<GB/s>
 *
 * "moved" counts each tensor the call must read once and each it writes once
 * (forward: x, y; backward: x, y, dy, dx; divisive adds means and dMeans when
 * given). Each timing is the median of 31 runs after 10 warm-up runs. */
#include "bench_common.h"

typedef struct {
  cudnnLRNDescriptor_t nd;
  OTensor *x, *y, *dy, *dx, *m, *dm, *t1, *t2;
  cudnnDataType_t type;
} Ctx;
static const float f1 = 1.0f, f0 = 0.0f;

/* These calls are slower: fewer runs (median of 31 after 10 warm-ups). */
static double time_ms_lrn(RunFn fn, void *ctx) { return time_ms_runs(fn, ctx, 10, 31); }

static void run_lrn_fwd(void *p) {
  Ctx *c = (Ctx *)p;
  last_status = cudnnLRNCrossChannelForward(handle, c->nd, CUDNN_LRN_CROSS_CHANNEL_DIM1, &f1, c->x->desc, c->x->dev,
                                            &f0, c->y->desc, c->y->dev);
}
static void run_lrn_bwd(void *p) {
  Ctx *c = (Ctx *)p;
  last_status = cudnnLRNCrossChannelBackward(handle, c->nd, CUDNN_LRN_CROSS_CHANNEL_DIM1, &f1, c->y->desc, c->y->dev,
                                             c->dy->desc, c->dy->dev, c->x->desc, c->x->dev, &f0, c->dx->desc,
                                             c->dx->dev);
}
static void run_div_fwd(void *p) {
  Ctx *c = (Ctx *)p;
  last_status = cudnnDivisiveNormalizationForward(handle, c->nd, CUDNN_DIVNORM_PRECOMPUTED_MEANS, &f1, c->x->desc,
                                                  c->x->dev, c->m ? c->m->dev : NULL, c->t1->dev, c->t2->dev, &f0,
                                                  c->y->desc, c->y->dev);
}
static void run_div_bwd(void *p) {
  Ctx *c = (Ctx *)p;
  last_status = cudnnDivisiveNormalizationBackward(handle, c->nd, CUDNN_DIVNORM_PRECOMPUTED_MEANS, &f1, c->x->desc,
                                                   c->x->dev, c->m ? c->m->dev : NULL, c->dy->dev, c->t1->dev,
                                                   c->t2->dev, &f0, c->dx->desc, c->dx->dev,
                                                   c->dm ? c->dm->dev : NULL);
}

/* BENCH_ONLY=<substring>: only the cases whose name contains it. */
static int selected(const char *name) {
  const char *only = getenv("BENCH_ONLY");
  return only == NULL || *only == '\0' || strstr(name, only) != NULL;
}

static void bench_lrn(const char *name, cudnnDataType_t t, const int *dims, int channels_last, unsigned n) {
  if (!selected(name)) return;
  OTensor x, y, dy, dx;
  otensor_packed(&x, t, 4, dims, channels_last);
  otensor_packed(&y, t, 4, dims, channels_last);
  otensor_packed(&dy, t, 4, dims, channels_last);
  otensor_packed(&dx, t, 4, dims, channels_last);
  otensor_fill(&x, 0.25, 2.0);
  otensor_fill(&dy, 0.25, 2.0);
  Ctx c = {NULL, &x, &y, &dy, &dx, NULL, NULL, NULL, NULL, t};
  DNN_OK(cudnnCreateLRNDescriptor(&c.nd));
  DNN_OK(cudnnSetLRNDescriptor(c.nd, n, 1e-4, 0.75, 2.0));
  const double bytes = (double)x.span * oracle_type_size(t);
  char nm[128];
  snprintf(nm, sizeof nm, "lrn.fwd.%s", name);
  report(nm, 2 * bytes, time_ms_lrn(run_lrn_fwd, &c));
  run_lrn_fwd(&c);
  snprintf(nm, sizeof nm, "lrn.bwd.%s", name);
  report(nm, 4 * bytes, time_ms_lrn(run_lrn_bwd, &c));
  cudnnDestroyLRNDescriptor(c.nd);
  otensor_free(&x);
  otensor_free(&y);
  otensor_free(&dy);
  otensor_free(&dx);
}

static void bench_div(const char *name, cudnnDataType_t t, const int *dims, int with_means, unsigned n) {
  if (!selected(name)) return;
  OTensor x, y, dy, dx, m, dm, t1, t2;
  otensor_packed(&x, t, 4, dims, 0);
  otensor_packed(&y, t, 4, dims, 0);
  otensor_packed(&dy, t, 4, dims, 0);
  otensor_packed(&dx, t, 4, dims, 0);
  otensor_packed(&m, t, 4, dims, 0);
  otensor_packed(&dm, t, 4, dims, 0);
  otensor_packed(&t1, t, 4, dims, 0);
  otensor_packed(&t2, t, 4, dims, 0);
  otensor_fill(&x, 0.25, 2.0);
  otensor_fill(&dy, 0.25, 2.0);
  otensor_fill(&m, 0.1, 0.5);
  Ctx c = {NULL, &x, &y, &dy, &dx, with_means ? &m : NULL, with_means ? &dm : NULL, &t1, &t2, t};
  DNN_OK(cudnnCreateLRNDescriptor(&c.nd));
  DNN_OK(cudnnSetLRNDescriptor(c.nd, n, 1e-4, 0.75, 2.0));
  const double bytes = (double)x.span * oracle_type_size(t);
  char nm[128];
  snprintf(nm, sizeof nm, "div.fwd.%s", name);
  report(nm, (with_means ? 3 : 2) * bytes, time_ms_lrn(run_div_fwd, &c));
  snprintf(nm, sizeof nm, "div.bwd.%s", name);
  report(nm, (with_means ? 5 : 3) * bytes, time_ms_lrn(run_div_bwd, &c));
  cudnnDestroyLRNDescriptor(c.nd);
  otensor_free(&x);
  otensor_free(&y);
  otensor_free(&dy);
  otensor_free(&dx);
  otensor_free(&m);
  otensor_free(&dm);
  otensor_free(&t1);
  otensor_free(&t2);
}

int main(void) {
  bench_setup(78);

  int dims[4] = {32, 256, 56, 56};
  size_t n = 32ull * 256 * 56 * 56;
  OTensor a, b;
  otensor_packed(&a, CUDNN_DATA_FLOAT, 4, dims, 0);
  otensor_packed(&b, CUDNN_DATA_FLOAT, 4, dims, 0);
  otensor_fill(&a, 0.25, 2.0);
  CopyCtx cc = {b.dev, a.dev, n * 4};
  report("lrn.memcpy.d2d.f32", 2.0 * n * 4, time_ms_lrn(run_copy, &cc));
  otensor_free(&a);
  otensor_free(&b);

  bench_lrn("nchw.n5.f32", CUDNN_DATA_FLOAT, dims, 0, 5);
  bench_lrn("nhwc.n5.f32", CUDNN_DATA_FLOAT, dims, 1, 5);
  bench_lrn("nchw.n5.f16", CUDNN_DATA_HALF, dims, 0, 5);
  bench_lrn("nhwc.n5.f16", CUDNN_DATA_HALF, dims, 1, 5);
  int ddims[4] = {32, 64, 56, 56};
  bench_div("nomeans.n5.f32", CUDNN_DATA_FLOAT, ddims, 0, 5);
  bench_div("means.n5.f32", CUDNN_DATA_FLOAT, ddims, 1, 5);
  return 0;
}
