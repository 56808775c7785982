/* Bandwidth of softmax (16384 x 4096 f32, CHANNEL mode over 4096) and of the
 * activations on a large tensor, forward and backward, plus a cudaMemcpy
 * copy of the same bytes. Built against FreeDNN and NVIDIA's cuDNN. Prints:
 *
 *     bench <name> bytes=<moved> ms=<median> gbs=<GB/s>
 *
 * "moved" counts each input read once and each output written once (beta != 0
 * adds a read of the output). Inputs are random non-zero values; each timing
 * is the median of 51 runs between CUDA events, after 20 warm-up runs. */
#include "bench_common.h"

/* ---- the measured calls ---- */
typedef struct {
  OTensor *x, *y, *dy, *dx;
  cudnnSoftmaxAlgorithm_t algo;
  cudnnActivationDescriptor_t act;
} Ctx;
static const float kOne = 1.0f, kZero = 0.0f;
static void run_sm_fwd(void *p) {
  Ctx *c = (Ctx *)p;
  last_status = cudnnSoftmaxForward(handle, c->algo, CUDNN_SOFTMAX_MODE_CHANNEL, &kOne, c->x->desc, c->x->dev, &kZero,
                                    c->y->desc, c->y->dev);
}
static void run_sm_bwd(void *p) {
  Ctx *c = (Ctx *)p;
  last_status = cudnnSoftmaxBackward(handle, c->algo, CUDNN_SOFTMAX_MODE_CHANNEL, &kOne, c->y->desc, c->y->dev,
                                     c->dy->desc, c->dy->dev, &kZero, c->dx->desc, c->dx->dev);
}
static void run_act_fwd(void *p) {
  Ctx *c = (Ctx *)p;
  last_status = cudnnActivationForward(handle, c->act, &kOne, c->x->desc, c->x->dev, &kZero, c->y->desc, c->y->dev);
}
static void run_act_bwd(void *p) {
  Ctx *c = (Ctx *)p;
  last_status = cudnnActivationBackward(handle, c->act, &kOne, c->y->desc, c->y->dev, c->dy->desc, c->dy->dev,
                                        c->x->desc, c->x->dev, &kZero, c->dx->desc, c->dx->dev);
}

int main(void) {
  bench_setup(78);

  /* 16384 x 4096 f32 = 256 MB per tensor. */
  int dims[4] = {16384, 4096, 1, 1};
  size_t n = 16384ull * 4096;
  OTensor x, y, dy, dx;
  otensor_packed(&x, CUDNN_DATA_FLOAT, 4, dims, 0);
  otensor_packed(&y, CUDNN_DATA_FLOAT, 4, dims, 0);
  otensor_packed(&dy, CUDNN_DATA_FLOAT, 4, dims, 0);
  otensor_packed(&dx, CUDNN_DATA_FLOAT, 4, dims, 0);
  otensor_fill(&x, 0.25, 2.0);
  otensor_fill(&dy, 0.25, 2.0);
  CopyCtx cc = {y.dev, x.dev, n * 4};
  report("memcpy.d2d.f32.softmax_size", 2.0 * n * 4, time_ms(run_copy, &cc));
  Ctx c = {&x, &y, &dy, &dx, CUDNN_SOFTMAX_ACCURATE, NULL};
  report("softmax.fwd.accurate.16384x4096.f32", 2.0 * n * 4, time_ms(run_sm_fwd, &c));
  run_sm_fwd(&c);
  report("softmax.bwd.accurate.16384x4096.f32", 3.0 * n * 4, time_ms(run_sm_bwd, &c));
  c.algo = CUDNN_SOFTMAX_LOG;
  report("softmax.fwd.log.16384x4096.f32", 2.0 * n * 4, time_ms(run_sm_fwd, &c));
  run_sm_fwd(&c);
  report("softmax.bwd.log.16384x4096.f32", 3.0 * n * 4, time_ms(run_sm_bwd, &c));
  /* Half rows, for the 16-byte vector path with 8 lanes. */
  {
    OTensor hx, hy;
    otensor_packed(&hx, CUDNN_DATA_HALF, 4, dims, 0);
    otensor_packed(&hy, CUDNN_DATA_HALF, 4, dims, 0);
    otensor_fill(&hx, 0.25, 2.0);
    Ctx h = {&hx, &hy, NULL, NULL, CUDNN_SOFTMAX_ACCURATE, NULL};
    report("softmax.fwd.accurate.16384x4096.f16", 2.0 * n * 2, time_ms(run_sm_fwd, &h));
    OTensor hdy, hdx;
    otensor_packed(&hdy, CUDNN_DATA_HALF, 4, dims, 0);
    otensor_packed(&hdx, CUDNN_DATA_HALF, 4, dims, 0);
    otensor_fill(&hdy, 0.25, 2.0);
    h.dy = &hdy;
    h.dx = &hdx;
    run_sm_fwd(&h);
    report("softmax.bwd.accurate.16384x4096.f16", 3.0 * n * 2, time_ms(run_sm_bwd, &h));
    h.algo = CUDNN_SOFTMAX_LOG;
    report("softmax.fwd.log.16384x4096.f16", 2.0 * n * 2, time_ms(run_sm_fwd, &h));
    run_sm_fwd(&h);
    report("softmax.bwd.log.16384x4096.f16", 3.0 * n * 2, time_ms(run_sm_bwd, &h));
    otensor_free(&hx);
    otensor_free(&hy);
    otensor_free(&hdy);
    otensor_free(&hdx);
  }
  /* Activations on the same 64M elements (as 64x256x64x64 NCHW). */
  int adims[4] = {64, 256, 64, 64};
  OTensor ax, ay, ady, adx;
  otensor_packed(&ax, CUDNN_DATA_FLOAT, 4, adims, 0);
  otensor_packed(&ay, CUDNN_DATA_FLOAT, 4, adims, 0);
  otensor_packed(&ady, CUDNN_DATA_FLOAT, 4, adims, 0);
  otensor_packed(&adx, CUDNN_DATA_FLOAT, 4, adims, 0);
  otensor_fill(&ax, 0.25, 2.0);
  otensor_fill(&ady, 0.25, 2.0);
  const char *names[] = {"sigmoid", "relu", "tanh", "clipped_relu", "elu", "identity", "swish"};
  for (int m = 0; m <= 6; ++m) {
    if (m == 3 || m == 5) continue;
    Ctx a = {&ax, &ay, &ady, &adx, CUDNN_SOFTMAX_ACCURATE, NULL};
    DNN_OK(cudnnCreateActivationDescriptor(&a.act));
    DNN_OK(cudnnSetActivationDescriptor(a.act, (cudnnActivationMode_t)m, CUDNN_NOT_PROPAGATE_NAN, 1.0));
    char name[96];
    snprintf(name, sizeof name, "activation.fwd.%s.64x256x64x64.f32", names[m]);
    report(name, 2.0 * n * 4, time_ms(run_act_fwd, &a));
    run_act_fwd(&a);
    snprintf(name, sizeof name, "activation.bwd.%s.64x256x64x64.f32", names[m]);
    report(name, 3.0 * n * 4, time_ms(run_act_bwd, &a));
    cudnnDestroyActivationDescriptor(a.act);
  }
  otensor_free(&x); otensor_free(&y); otensor_free(&dy); otensor_free(&dx);
  otensor_free(&ax); otensor_free(&ay); otensor_free(&ady); otensor_free(&adx);
  cudnnDestroy(handle);
  return 0;
}
