/* Bandwidth of cudnnDropoutForward and cudnnDropoutBackward on a large f32
 * tensor (64M elements, p = 0.5), in both libraries (scripts/gpu-check.sh puts
 * them side by side with the copy ceiling of bench_tensor_ops). Bytes count
 * x read, y written and the reserve space written (forward) or read
 * (backward) once; NVIDIA's reserve is the same size as ours. */
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

static void bench_case(const char *name, cudnnDataType_t t, int channels_last) {
  int dims[4] = {64, 256, 64, 64};
  OTensor x, y;
  otensor_packed(&x, t, 4, dims, channels_last);
  otensor_packed(&y, t, 4, dims, channels_last);
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
  bench_case("f32", CUDNN_DATA_FLOAT, 0);
  bench_case("f16", CUDNN_DATA_HALF, 0);
  bench_case("f32.nhwc", CUDNN_DATA_FLOAT, 1);
  cudnnDestroy(handle);
  return 0;
}
