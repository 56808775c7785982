/* Bandwidth of batch normalization training forward and backward (and
 * inference) on N=256, C=256, 28x28, half NHWC (SPATIAL_PERSISTENT) and float
 * NCHW (SPATIAL), built against FreeDNN and against NVIDIA's cuDNN
 * (scripts/gpu-check.sh puts the two side by side). "moved" counts the
 * fewest bytes: training forward x read once and y written (the statistics
 * pass makes a real kernel read x twice), backward x and dy read, dx
 * written; inference x read, y written. Median of 51 runs after 20 warm-ups.
 * Training lines also come as <name>.x10: ten calls back to back, time per
 * call (the host's per-call work overlaps the GPU's), and a "# host" comment
 * with the host time per call. */
#include <time.h>

#include "bench_common.h"

typedef struct {
  int phase; /* 0 training forward, 1 backward, 2 inference */
  cudnnBatchNormMode_t mode;
  OTensor *x, *y, *dy, *dx, *p;
  void *scale, *bias, *rm, *rv, *sm, *si, *ds, *db;
} Ctx;

static void run(Ctx *c) {
  float one = 1, zero = 0;
  cudnnStatus_t st;
  if (c->phase == 0)
    st = cudnnBatchNormalizationForwardTraining(handle, c->mode, &one, &zero, c->x->desc, c->x->dev, c->y->desc, c->y->dev, c->p->desc,
                                                c->scale, c->bias, 0.1, c->rm, c->rv, 1e-5, c->sm, c->si);
  else if (c->phase == 1)
    st = cudnnBatchNormalizationBackward(handle, c->mode, &one, &zero, &one, &zero, c->x->desc, c->x->dev, c->dy->desc, c->dy->dev,
                                         c->dx->desc, c->dx->dev, c->p->desc, c->scale, c->ds, c->db, 1e-5, c->sm, c->si);
  else
    st = cudnnBatchNormalizationForwardInference(handle, c->mode, &one, &zero, c->x->desc, c->x->dev, c->y->desc, c->y->dev, c->p->desc,
                                                 c->scale, c->bias, c->rm, c->rv, 1e-5);
  if (st != CUDNN_STATUS_SUCCESS) last_status = st;
}

static void run_ctx(void *c) { run((Ctx *)c); }

/* Ten calls back to back: the host enqueues ahead of the GPU, so the time
 * per call leaves out what the host spends per call before its first kernel
 * starts (the single-call figure includes it). */
static void run_ctx10(void *c) {
  for (int i = 0; i < 10; ++i) run((Ctx *)c);
}

/* Microseconds of host time per call (enqueue only, no synchronization),
 * printed as a comment line. */
static void host_us(const char *name, Ctx *c) {
  CUDA_OK(cudaStreamSynchronize(stream));
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (int i = 0; i < 20; ++i) run(c);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  CUDA_OK(cudaStreamSynchronize(stream));
  printf("# host %s %.1f us per call\n", name, ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / 20 / 1e3);
}

/* Reports the single-call median and the back-to-back time per call. */
static void report_both(const char *full, double bytes, Ctx *c) {
  report(full, bytes, time_ms(run_ctx, c));
  char b2b[200];
  snprintf(b2b, sizeof b2b, "%s.x10", full);
  report(b2b, bytes, time_ms_runs(run_ctx10, c, 3, 21) / 10);
  host_us(full, c);
}

static void bench_case(const char *name, cudnnDataType_t t, cudnnBatchNormMode_t mode, int nhwc) {
  /* BENCH_ONLY=<substring>: only the cases whose name contains it. */
  const char *only = getenv("BENCH_ONLY");
  if (only != NULL && *only != '\0' && strstr(name, only) == NULL) return;
  int d[4] = {256, 256, 28, 28}, pd[4] = {1, 256, 1, 1};
  OTensor x, y, dy, dx, p;
  otensor_packed(&x, t, 4, d, nhwc);
  otensor_packed(&y, t, 4, d, nhwc);
  otensor_packed(&dy, t, 4, d, nhwc);
  otensor_packed(&dx, t, 4, d, nhwc);
  otensor_packed(&p, CUDNN_DATA_FLOAT, 4, pd, 0);
  otensor_fill(&x, 0.25, 2.0);
  otensor_fill(&dy, 0.25, 2.0);
  void *params;
  CUDA_OK(cudaMalloc(&params, 8 * 256 * sizeof(float)));
  float h[8 * 256];
  for (int i = 0; i < 8 * 256; ++i) h[i] = (float)(0.5 + oracle_uniform());
  CUDA_OK(cudaMemcpy(params, h, sizeof h, cudaMemcpyHostToDevice));
  float *pp = (float *)params;
  Ctx c = {0, mode, &x, &y, &dy, &dx, &p, pp, pp + 256, pp + 512, pp + 768, pp + 1024, pp + 1280, pp + 1536, pp + 1792};
  const double bytes = (double)x.span * (double)oracle_type_size(t);
  char full[160];
  snprintf(full, sizeof full, "bn.train_fwd.%s", name);
  report_both(full, 2 * bytes, &c);
  c.phase = 1;
  snprintf(full, sizeof full, "bn.bwd.%s", name);
  report_both(full, 3 * bytes, &c);
  c.phase = 2;
  snprintf(full, sizeof full, "bn.inference.%s", name);
  report(full, 2 * bytes, time_ms(run_ctx, &c));
  otensor_free(&x);
  otensor_free(&y);
  otensor_free(&dy);
  otensor_free(&dx);
  otensor_free(&p);
  cudaFree(params);
}

int main(void) {
  bench_setup(91);
  bench_case("nhwc.f16.persistent", CUDNN_DATA_HALF, CUDNN_BATCHNORM_SPATIAL_PERSISTENT, 1);
  bench_case("nchw.f32.spatial", CUDNN_DATA_FLOAT, CUDNN_BATCHNORM_SPATIAL, 0);
  bench_case("nhwc.f32.spatial", CUDNN_DATA_FLOAT, CUDNN_BATCHNORM_SPATIAL, 1);
  bench_case("nchw.f16.spatial", CUDNN_DATA_HALF, CUDNN_BATCHNORM_SPATIAL, 0);
  cudnnDestroy(handle);
  return 0;
}
