/* Bandwidth of cudnnDropoutForward and cudnnDropoutBackward on large tensors
 * (64M elements, p = 0.5; packed NCHW and channels-last), in both libraries
 * (scripts/gpu-check.sh puts them side by side with the copy ceiling of
 * bench_tensor_ops). Bytes count x read, y written and the reserve space
 * written (forward) or read (backward) once; NVIDIA's reserve is the same size as ours. */
#include "bench_common.h"

/* ---- the measured calls ---- */
typedef struct {
  cudnnDropoutDescriptor_t d;
  OTensor *x, *y;
  void *reserve;
  size_t rs;
} DropCtx;

static void run_fwd(void *p) {
  DropCtx *c = (DropCtx *)p;
  last_status = cudnnDropoutForward(handle, c->d, c->x->desc, c->x->dev, c->y->desc, c->y->dev, c->reserve, c->rs);
}
static void run_bwd(void *p) {
  DropCtx *c = (DropCtx *)p;
  last_status = cudnnDropoutBackward(handle, c->d, c->x->desc, c->x->dev, c->y->desc, c->y->dev, c->reserve, c->rs);
}

static void bench_case(const char *name, cudnnDataType_t t, int nb, const int *dims, int channels_last) {
  /* BENCH_ONLY=<substring>: only the cases whose name contains it. */
  const char *only = getenv("BENCH_ONLY");
  if (only != NULL && *only != '\0' && strstr(name, only) == NULL) return;
  OTensor x, y;
  otensor_packed(&x, t, nb, dims, channels_last);
  otensor_packed(&y, t, nb, dims, channels_last);
  otensor_fill(&x, 0.25, 2.0);
  DropCtx c = {NULL, &x, &y, NULL, 0};
  size_t states_size = 0;
  void *states = NULL;
  DNN_OK(cudnnDropoutGetStatesSize(handle, &states_size));
  CUDA_OK(cudaMalloc(&states, states_size));
  DNN_OK(cudnnCreateDropoutDescriptor(&c.d));
  DNN_OK(cudnnSetDropoutDescriptor(c.d, handle, 0.5f, states, states_size, 1234));
  DNN_OK(cudnnDropoutGetReserveSpaceSize(x.desc, &c.rs));
  CUDA_OK(cudaMalloc(&c.reserve, c.rs));
  const double n = (double)x.span, es = (double)oracle_type_size(t);
  char buf[96];
  snprintf(buf, sizeof buf, "dropout.fwd.%s", name);
  report(buf, 2 * n * es + (double)c.rs, time_ms(run_fwd, &c));
  snprintf(buf, sizeof buf, "dropout.bwd.%s", name);
  report(buf, 2 * n * es + (double)c.rs, time_ms(run_bwd, &c));
  cudnnDestroyDropoutDescriptor(c.d);
  cudaFree(states);
  cudaFree(c.reserve);
  otensor_free(&x);
  otensor_free(&y);
}

int main(void) {
  bench_setup(77);
  const int d4[4] = {64, 256, 64, 64};
  /* Channels-last with C and H * W off the tiles of the permuted-layout
   * kernel (200 = 6 * 32 + 8, 2500 = 39 * 64 + 4, rows not on mask words),
   * 28 x 28 images (rows on mask bytes, not words), and 5-d channels-last
   * (NDHWC). */
  const int odd[4] = {128, 200, 50, 50}, d28[4] = {320, 256, 28, 28}, d5[5] = {16, 256, 16, 32, 32};
  bench_case("f32", CUDNN_DATA_FLOAT, 4, d4, 0);
  bench_case("f16", CUDNN_DATA_HALF, 4, d4, 0);
  bench_case("f32.nhwc", CUDNN_DATA_FLOAT, 4, d4, 1);
  bench_case("f16.nhwc", CUDNN_DATA_HALF, 4, d4, 1);
  bench_case("bf16.nhwc", CUDNN_DATA_BFLOAT16, 4, d4, 1);
  bench_case("f32.nhwc.odd", CUDNN_DATA_FLOAT, 4, odd, 1);
  bench_case("f16.nhwc.odd", CUDNN_DATA_HALF, 4, odd, 1);
  bench_case("bf16.nhwc.odd", CUDNN_DATA_BFLOAT16, 4, odd, 1);
  bench_case("f16.nhwc.28", CUDNN_DATA_HALF, 4, d28, 1);
  bench_case("f32.ndhwc", CUDNN_DATA_FLOAT, 5, d5, 1);
  cudnnDestroy(handle);
  return 0;
}
