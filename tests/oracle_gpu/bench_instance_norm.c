/* GPU bench of instance norm through the backend API (NORM_FORWARD, mode
 * INSTANCE_NORM) on channels-last (NHWC) tensors: forward training (mean and
 * inverse variance written) and inference, f32 and f16, in FreeDNN
 * (cuda.normalization.rows, column form) and in NVIDIA's cuDNN (where it
 * runs them). Bytes count x read once and y written once. */
#include "bench_common.h"
#include "backend_graph_c.h"

typedef struct {
  cudnnBackendDescriptor_t plan, pack;
} Exec;

static void run_exec(void *ctx) {
  Exec *e = (Exec *)ctx;
  last_status = cudnnBackendExecute(handle, e->plan, e->pack);
}

static void set_desc(cudnnBackendDescriptor_t op, cudnnBackendAttributeName_t a, cudnnBackendDescriptor_t d) {
  DNN_OK(cudnnBackendSetAttribute(op, a, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &d));
}

/* x, y [n, c, h, w] channels-last; scale, bias [1, c, 1, 1]; statistics
 * [n, c, 1, 1] (training). */
static void bench_instance(const char *name, cudnnDataType_t dt, int training, int64_t n, int64_t c, int64_t h,
                           int64_t w) {
  const int64_t dims[4] = {n, c, h, w}, strides[4] = {h * w * c, 1, w * c, c};
  const int64_t pd[4] = {1, c, 1, 1}, ps[4] = {c, 1, 1, 1}, sd[4] = {n, c, 1, 1}, ss[4] = {c, 1, 1, 1};
  const int64_t one[4] = {1, 1, 1, 1};
  const int64_t elems = n * c * h * w, esize = dt == CUDNN_DATA_HALF ? 2 : 4;
  cudnnBackendNormMode_t mode = CUDNN_INSTANCE_NORM;
  cudnnBackendNormFwdPhase_t phase = training ? CUDNN_NORM_FWD_TRAINING : CUDNN_NORM_FWD_INFERENCE;
  cudnnBackendDescriptor_t x, y, scale, bias, mean, inv, eps, op;
  void *px, *py, *pscale, *pbias, *pmean, *pinv, *ptrs[7];
  float epsilon = 1e-5f;
  int64_t uids[7] = {1, 2, 3, 4, 5, 6, 7}, wsz = 0;
  void *ws = NULL;
  Exec e;
  cudnnStatus_t st;
  x = bk_tensor(1, dt, 4, dims, strides, 0);
  y = bk_tensor(2, dt, 4, dims, strides, 0);
  scale = bk_tensor(3, CUDNN_DATA_FLOAT, 4, pd, ps, 0);
  bias = bk_tensor(4, CUDNN_DATA_FLOAT, 4, pd, ps, 0);
  mean = bk_tensor(5, CUDNN_DATA_FLOAT, 4, sd, ss, 0);
  inv = bk_tensor(6, CUDNN_DATA_FLOAT, 4, sd, ss, 0);
  eps = bk_tensor(7, CUDNN_DATA_FLOAT, 4, one, one, 1);
  CUDA_OK(cudaMalloc(&px, (size_t)(elems * esize)));
  CUDA_OK(cudaMalloc(&py, (size_t)(elems * esize)));
  CUDA_OK(cudaMalloc(&pscale, (size_t)c * 4));
  CUDA_OK(cudaMalloc(&pbias, (size_t)c * 4));
  CUDA_OK(cudaMalloc(&pmean, (size_t)(n * c) * 4));
  CUDA_OK(cudaMalloc(&pinv, (size_t)(n * c) * 4));
  CUDA_OK(cudaMemset(px, 0, (size_t)(elems * esize)));
  CUDA_OK(cudaMemset(pscale, 0, (size_t)c * 4));
  CUDA_OK(cudaMemset(pbias, 0, (size_t)c * 4));
  CUDA_OK(cudaMemset(pmean, 0, (size_t)(n * c) * 4));
  CUDA_OK(cudaMemset(pinv, 0, (size_t)(n * c) * 4));
  DNN_OK(cudnnBackendCreateDescriptor(CUDNN_BACKEND_OPERATION_NORM_FORWARD_DESCRIPTOR, &op));
  DNN_OK(cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_NORM_FWD_MODE, CUDNN_TYPE_NORM_MODE, 1, &mode));
  DNN_OK(cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_NORM_FWD_PHASE, CUDNN_TYPE_NORM_FWD_PHASE, 1, &phase));
  set_desc(op, CUDNN_ATTR_OPERATION_NORM_FWD_XDESC, x);
  set_desc(op, CUDNN_ATTR_OPERATION_NORM_FWD_YDESC, y);
  set_desc(op, CUDNN_ATTR_OPERATION_NORM_FWD_SCALE_DESC, scale);
  set_desc(op, CUDNN_ATTR_OPERATION_NORM_FWD_BIAS_DESC, bias);
  set_desc(op, CUDNN_ATTR_OPERATION_NORM_FWD_MEAN_DESC, mean);
  set_desc(op, CUDNN_ATTR_OPERATION_NORM_FWD_INV_VARIANCE_DESC, inv);
  set_desc(op, CUDNN_ATTR_OPERATION_NORM_FWD_EPSILON_DESC, eps);
  st = cudnnBackendFinalize(op);
  if (st == CUDNN_STATUS_SUCCESS) st = bk_plan(handle, &op, 1, &e.plan, &wsz);
  if (st != CUDNN_STATUS_SUCCESS) {
    printf("bench %s failed st=%d\n", name, (int)st);
  } else {
    if (wsz > 0) CUDA_OK(cudaMalloc(&ws, (size_t)wsz));
    ptrs[0] = px, ptrs[1] = py, ptrs[2] = pscale, ptrs[3] = pbias, ptrs[4] = pmean, ptrs[5] = pinv;
    ptrs[6] = &epsilon;
    DNN_OK(cudnnBackendCreateDescriptor(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, &e.pack));
    DNN_OK(cudnnBackendSetAttribute(e.pack, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, 7, uids));
    DNN_OK(cudnnBackendSetAttribute(e.pack, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, 7, ptrs));
    DNN_OK(cudnnBackendSetAttribute(e.pack, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, &ws));
    DNN_OK(cudnnBackendFinalize(e.pack));
    report(name, (double)(2 * elems * esize), time_ms(run_exec, &e));
    cudaFree(ws);
  }
  cudaFree(px), cudaFree(py), cudaFree(pscale), cudaFree(pbias), cudaFree(pmean), cudaFree(pinv);
}

int main(void) {
  bench_setup(2026);
  bench_instance("instance_norm.nhwc.fwd_train.f32.8x64x128x128", CUDNN_DATA_FLOAT, 1, 8, 64, 128, 128);
  bench_instance("instance_norm.nhwc.fwd_train.f16.8x64x128x128", CUDNN_DATA_HALF, 1, 8, 64, 128, 128);
  bench_instance("instance_norm.nhwc.fwd_train.f16.32x256x32x32", CUDNN_DATA_HALF, 1, 32, 256, 32, 32);
  bench_instance("instance_norm.nhwc.fwd_infer.f32.8x64x128x128", CUDNN_DATA_FLOAT, 0, 8, 64, 128, 128);
  return 0;
}
