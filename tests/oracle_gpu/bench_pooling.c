/* Bandwidth of cudnnPoolingForward / cudnnPoolingBackward on large tensors,
 * built against FreeDNN and against NVIDIA's cuDNN (scripts/gpu-check.sh puts
 * the two side by side; bench_tensor_ops measures the copy ceiling). The main
 * case is max pooling 3x3, stride 2, padding 1 on 256x64x112x112 half NHWC.
 * "moved" counts the fewest bytes: x read and y written (forward); dy and x
 * read, dx written (max backward: y is not needed, the maxima are found
 * again from x); dy read, dx written (average backward). Each tensor once.
 * (Until 2026-11-23 the backward lines counted x twice more for max and once
 * more for average: old figures are 1 + (x - y) / (2 x + y) = 1.44 times
 * these for max 3x3/2, 1.8 times for average.) Median of 51 runs after 20
 * warm-up runs. */
#include "bench_common.h"

typedef struct {
  cudnnPoolingDescriptor_t p;
  OTensor *x, *y, *dy, *dx;
  int backward;
} Ctx;

static void run(Ctx *c) {
  float one = 1, zero = 0;
  double oned = 1, zerod = 0;
  int dbl = c->x->type == CUDNN_DATA_DOUBLE;
  const void *a = dbl ? (const void *)&oned : (const void *)&one, *b = dbl ? (const void *)&zerod : (const void *)&zero;
  cudnnStatus_t st;
  if (c->backward)
    st = cudnnPoolingBackward(handle, c->p, a, c->y->desc, c->y->dev, c->dy->desc, c->dy->dev, c->x->desc, c->x->dev,
                              b, c->dx->desc, c->dx->dev);
  else
    st = cudnnPoolingForward(handle, c->p, a, c->x->desc, c->x->dev, b, c->y->desc, c->y->dev);
  if (st != CUDNN_STATUS_SUCCESS) last_status = st;
}

static void run_ctx(void *c) { run((Ctx *)c); }

static void bench_case(const char *name, cudnnDataType_t t, cudnnPoolingMode_t mode, const int *xd, int nhwc, int win,
                       int pad, int str) {
  /* BENCH_ONLY=<substring>: only the cases whose name contains it. */
  const char *only = getenv("BENCH_ONLY");
  if (only != NULL && *only != '\0' && strstr(name, only) == NULL) return;
  cudnnPoolingDescriptor_t p;
  DNN_OK(cudnnCreatePoolingDescriptor(&p));
  DNN_OK(cudnnSetPooling2dDescriptor(p, mode, CUDNN_NOT_PROPAGATE_NAN, win, win, pad, pad, str, str));
  OTensor x, y, dy, dx;
  otensor_packed(&x, t, 4, xd, nhwc);
  int yd[4];
  DNN_OK(cudnnGetPooling2dForwardOutputDim(p, x.desc, &yd[0], &yd[1], &yd[2], &yd[3]));
  otensor_packed(&y, t, 4, yd, nhwc);
  otensor_packed(&dy, t, 4, yd, nhwc);
  otensor_packed(&dx, t, 4, xd, nhwc);
  otensor_fill(&x, 0.25, 2.0);
  otensor_fill(&dy, 0.25, 2.0);
  const double es = (double)oracle_type_size(t);
  const double xb = (double)x.span * es, yb = (double)y.span * es;
  Ctx c = {p, &x, &y, &dy, &dx, 0};
  char full[160];
  snprintf(full, sizeof full, "pool.fwd.%s", name);
  report(full, xb + yb, time_ms(run_ctx, &c));
  run(&c); /* y = pool(x) for the backward */
  c.backward = 1;
  snprintf(full, sizeof full, "pool.bwd.%s", name);
  const int is_max = mode == CUDNN_POOLING_MAX || mode == CUDNN_POOLING_MAX_DETERMINISTIC;
  report(full, yb + xb + (is_max ? xb : 0), time_ms(run_ctx, &c));
  otensor_free(&x);
  otensor_free(&y);
  otensor_free(&dy);
  otensor_free(&dx);
  cudnnDestroyPoolingDescriptor(p);
}

int main(void) {
  bench_setup(78);
  int big[4] = {256, 64, 112, 112};
  bench_case("max3s2.nhwc.f16", CUDNN_DATA_HALF, CUDNN_POOLING_MAX, big, 1, 3, 1, 2);
  bench_case("maxdet3s2.nhwc.f16", CUDNN_DATA_HALF, CUDNN_POOLING_MAX_DETERMINISTIC, big, 1, 3, 1, 2);
  bench_case("avg3s2.nhwc.f16", CUDNN_DATA_HALF, CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING, big, 1, 3, 1, 2);
  bench_case("max3s2.nchw.f32", CUDNN_DATA_FLOAT, CUDNN_POOLING_MAX, big, 0, 3, 1, 2);
  bench_case("avg2s2.nchw.f32", CUDNN_DATA_FLOAT, CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING, big, 0, 2, 0, 2);
  cudnnDestroy(handle);
  return 0;
}
