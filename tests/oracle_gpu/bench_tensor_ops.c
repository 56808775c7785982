/* Bandwidth of the legacy tensor operations on large tensors, next to a plain
 * cudaMemcpy device-to-device copy measured in the same run. Built against
 * FreeDNN and against NVIDIA's cuDNN (scripts/gpu-check.sh puts the two side
 * by side). Prints one line per operation:
 *
 *     bench <name> bytes=<moved> ms=<median> gbs=<GB/s>
 *
 * "moved" counts each input read once and each output written once (beta != 0
 * adds a read of the output). Inputs are random non-zero values; each timing
 * is the median of 51 runs between CUDA events, after 20 warm-up runs. */
#include "bench_common.h"

/* ---- the measured calls ---- */
typedef struct {
  OTensor *a, *b, *c;
  float alpha, alpha2, beta;
  cudnnOpTensorDescriptor_t op;
  cudnnReduceTensorDescriptor_t red;
  void *ws, *idx;
  size_t ws_size, idx_size;
} OpCtx;

static void run_add(void *p) {
  OpCtx *o = (OpCtx *)p;
  last_status = cudnnAddTensor(handle, &o->alpha, o->a->desc, o->a->dev, &o->beta, o->c->desc, o->c->dev);
}
static void run_op(void *p) {
  OpCtx *o = (OpCtx *)p;
  last_status = cudnnOpTensor(handle, o->op, &o->alpha, o->a->desc, o->a->dev, &o->alpha2, o->b->desc, o->b->dev, &o->beta,
                       o->c->desc, o->c->dev);
}
static void run_transform(void *p) {
  OpCtx *o = (OpCtx *)p;
  last_status = cudnnTransformTensor(handle, &o->alpha, o->a->desc, o->a->dev, &o->beta, o->c->desc, o->c->dev);
}
static void run_reduce(void *p) {
  OpCtx *o = (OpCtx *)p;
  last_status = cudnnReduceTensor(handle, o->red, o->idx, o->idx_size, o->ws, o->ws_size, &o->alpha, o->a->desc, o->a->dev,
                           &o->beta, o->c->desc, o->c->dev);
}
static void run_set(void *p) {
  OpCtx *o = (OpCtx *)p;
  last_status = cudnnSetTensor(handle, o->c->desc, o->c->dev, &o->alpha);
}

static void bench_reduce(const char *name, cudnnReduceTensorOp_t op, cudnnDataType_t t, int with_indices, const int *adims,
                         const int *cdims) {
  OTensor a, c;
  otensor_packed(&a, t, 4, adims, 0);
  otensor_packed(&c, t, 4, cdims, 0);
  otensor_fill(&a, 0.25, 2.0);
  otensor_fill(&c, 0.25, 2.0);
  OpCtx o = {&a, NULL, &c, 1.0f, 1.0f, 0.0f, NULL, NULL, NULL, NULL, 0, 0};
  DNN_OK(cudnnCreateReduceTensorDescriptor(&o.red));
  DNN_OK(cudnnSetReduceTensorDescriptor(o.red, op, CUDNN_DATA_FLOAT, CUDNN_NOT_PROPAGATE_NAN,
                                        with_indices ? CUDNN_REDUCE_TENSOR_FLATTENED_INDICES
                                                     : CUDNN_REDUCE_TENSOR_NO_INDICES,
                                        CUDNN_32BIT_INDICES));
  last_status = cudnnGetReductionWorkspaceSize(handle, o.red, a.desc, c.desc, &o.ws_size);
  if (last_status == CUDNN_STATUS_SUCCESS)
    last_status = cudnnGetReductionIndicesSize(handle, o.red, a.desc, c.desc, &o.idx_size);
  if (last_status != CUDNN_STATUS_SUCCESS) {
    report(name, 0, -1.0);
    cudnnDestroyReduceTensorDescriptor(o.red);
    otensor_free(&a);
    otensor_free(&c);
    return;
  }
  if (o.ws_size) CUDA_OK(cudaMalloc(&o.ws, o.ws_size));
  if (with_indices && o.idx_size) CUDA_OK(cudaMalloc(&o.idx, o.idx_size));
  if (!with_indices) o.idx_size = 0;
  size_t an = 1, cn = 1;
  for (int i = 0; i < 4; ++i) { an *= (size_t)adims[i]; cn *= (size_t)cdims[i]; }
  size_t es = oracle_type_size(t);
  report(name, (double)(an * es + cn * es + (with_indices ? cn * 4 : 0)), time_ms(run_reduce, &o));
  if (o.ws) cudaFree(o.ws);
  if (o.idx) cudaFree(o.idx);
  cudnnDestroyReduceTensorDescriptor(o.red);
  otensor_free(&a);
  otensor_free(&c);
}

int main(void) {
  bench_setup(77);

  /* 64M elements: 256 MB of f32, far beyond the L2 cache. */
  int dims[4] = {64, 256, 64, 64}, bias[4] = {1, 256, 1, 1};
  size_t n = 64ull * 256 * 64 * 64;
  OTensor a, b, c, bi, c_nhwc;
  otensor_packed(&a, CUDNN_DATA_FLOAT, 4, dims, 0);
  otensor_packed(&b, CUDNN_DATA_FLOAT, 4, dims, 0);
  otensor_packed(&c, CUDNN_DATA_FLOAT, 4, dims, 0);
  otensor_packed(&bi, CUDNN_DATA_FLOAT, 4, bias, 0);
  otensor_packed(&c_nhwc, CUDNN_DATA_FLOAT, 4, dims, 1);
  otensor_fill(&a, 0.25, 2.0);
  otensor_fill(&b, 0.25, 2.0);
  otensor_fill(&c, 0.25, 2.0);
  otensor_fill(&bi, 0.25, 2.0);

  CopyCtx cc = {c.dev, a.dev, n * 4};
  report("memcpy.d2d.f32", 2.0 * n * 4, time_ms(run_copy, &cc));

  OpCtx o = {&a, &b, &c, 1.0f, 1.0f, 1.0f, NULL, NULL, NULL, NULL, 0, 0};
  report("add.same.beta1.f32", 3.0 * n * 4, time_ms(run_add, &o));
  o.a = &bi;
  report("add.bias.nchw.f32", 2.0 * n * 4, time_ms(run_add, &o));
  o.a = &a;
  o.alpha = 1.0f;
  o.beta = 0.0f;
  report("set.f32", 1.0 * n * 4, time_ms(run_set, &o));

  DNN_OK(cudnnCreateOpTensorDescriptor(&o.op));
  DNN_OK(cudnnSetOpTensorDescriptor(o.op, CUDNN_OP_TENSOR_ADD, CUDNN_DATA_FLOAT, CUDNN_NOT_PROPAGATE_NAN));
  o.alpha = 1.0f;
  o.alpha2 = 0.5f;
  o.beta = 0.0f;
  report("op.add.same.beta0.f32", 3.0 * n * 4, time_ms(run_op, &o));
  DNN_OK(cudnnSetOpTensorDescriptor(o.op, CUDNN_OP_TENSOR_MUL, CUDNN_DATA_FLOAT, CUDNN_NOT_PROPAGATE_NAN));
  o.b = &bi;
  report("op.mul.bias.beta0.f32", 2.0 * n * 4, time_ms(run_op, &o));
  cudnnDestroyOpTensorDescriptor(o.op);

  o.a = &a;
  o.c = &c_nhwc;
  o.beta = 0.0f;
  report("transform.nchw2nhwc.f32", 2.0 * n * 4, time_ms(run_transform, &o));
  o.a = &c_nhwc;
  o.c = &c;
  report("transform.nhwc2nchw.f32", 2.0 * n * 4, time_ms(run_transform, &o));

  /* Half precision transform and a type conversion. */
  {
    OTensor h_nchw, h_nhwc;
    otensor_packed(&h_nchw, CUDNN_DATA_HALF, 4, dims, 0);
    otensor_packed(&h_nhwc, CUDNN_DATA_HALF, 4, dims, 1);
    otensor_fill(&h_nchw, 0.25, 2.0);
    OpCtx oh = {&h_nchw, NULL, &h_nhwc, 1.0f, 1.0f, 0.0f, NULL, NULL, NULL, NULL, 0, 0};
    report("transform.nchw2nhwc.f16", 2.0 * n * 2, time_ms(run_transform, &oh));
    oh.a = &a;
    oh.c = &h_nchw;
    report("transform.f32tof16", 1.0 * n * 4 + 1.0 * n * 2, time_ms(run_transform, &oh));
    otensor_free(&h_nchw);
    otensor_free(&h_nhwc);
  }

  int hw[4] = {64, 256, 1, 1}, ch[4] = {64, 1, 64, 64}, all[4] = {1, 1, 1, 1}, batch[4] = {1, 256, 64, 64};
  bench_reduce("reduce.add.hw.f32", CUDNN_REDUCE_TENSOR_ADD, CUDNN_DATA_FLOAT, 0, dims, hw);
  bench_reduce("reduce.add.c.f32", CUDNN_REDUCE_TENSOR_ADD, CUDNN_DATA_FLOAT, 0, dims, ch);
  bench_reduce("reduce.add.n.f32", CUDNN_REDUCE_TENSOR_ADD, CUDNN_DATA_FLOAT, 0, dims, batch);
  bench_reduce("reduce.add.all.f32", CUDNN_REDUCE_TENSOR_ADD, CUDNN_DATA_FLOAT, 0, dims, all);
  bench_reduce("reduce.max.hw.idx.f32", CUDNN_REDUCE_TENSOR_MAX, CUDNN_DATA_FLOAT, 1, dims, hw);
  bench_reduce("reduce.norm2.all.f32", CUDNN_REDUCE_TENSOR_NORM2, CUDNN_DATA_FLOAT, 0, dims, all);

  otensor_free(&a);
  otensor_free(&b);
  otensor_free(&c);
  otensor_free(&bi);
  otensor_free(&c_nhwc);
  cudnnDestroy(handle);
  return 0;
}
