/* GPU bench of backend-API single-operation graphs: OPERATION_RNG
 * (Bernoulli into 64M f32 / f16), OPERATION_CONCAT (two 32M-element f32
 * inputs along C) and OPERATION_RESHAPE (64M f32, NCHW -> NHWC), timed in
 * FreeDNN and in NVIDIA's cuDNN (where it runs them). Bytes count each input
 * read once and each output written once. */
#include "bench_common.h"
#include "backend_graph_c.h"

typedef struct {
  cudnnBackendDescriptor_t plan, pack;
} Exec;

static void run_exec(void *ctx) {
  Exec *e = (Exec *)ctx;
  last_status = cudnnBackendExecute(handle, e->plan, e->pack);
}

static void bench_graph(const char *name, cudnnBackendDescriptor_t op, int n, int64_t *uids, void **ptrs, double bytes) {
  Exec e;
  int64_t wsz = 0;
  void *ws = NULL;
  cudnnStatus_t st = cudnnBackendFinalize(op);
  if (st == CUDNN_STATUS_SUCCESS) st = bk_plan(handle, &op, 1, &e.plan, &wsz);
  if (st != CUDNN_STATUS_SUCCESS) {
    printf("bench %s failed st=%d\n", name, (int)st);
    return;
  }
  if (wsz > 0) CUDA_OK(cudaMalloc(&ws, (size_t)wsz));
  DNN_OK(cudnnBackendCreateDescriptor(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, &e.pack));
  DNN_OK(cudnnBackendSetAttribute(e.pack, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, n, uids));
  DNN_OK(cudnnBackendSetAttribute(e.pack, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, n, ptrs));
  DNN_OK(cudnnBackendSetAttribute(e.pack, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, &ws));
  DNN_OK(cudnnBackendFinalize(e.pack));
  report(name, bytes, time_ms(run_exec, &e));
  cudaFree(ws);
}

static void bench_rng(const char *name, cudnnDataType_t dt) {
  int64_t dims[4] = {64, 64, 128, 128}, strides[4], one[4] = {1, 1, 1, 1}, n = 64LL * 64 * 128 * 128;
  int64_t seed = 1, offset = 2, uids[3] = {1, 2, 3};
  size_t esize = dt == CUDNN_DATA_HALF ? 2 : 4;
  double p = 0.9;
  cudnnRngDistribution_t dist = CUDNN_RNG_DISTRIBUTION_BERNOULLI;
  cudnnBackendDescriptor_t y, sd, od, r, op;
  void *py, *ps, *po, *ptrs[3];
  bk_packed(4, dims, strides);
  y = bk_tensor(1, dt, 4, dims, strides, 0);
  sd = bk_tensor(2, CUDNN_DATA_INT64, 4, one, one, 0);
  od = bk_tensor(3, CUDNN_DATA_INT64, 4, one, one, 0);
  CUDA_OK(cudaMalloc(&py, (size_t)n * esize));
  CUDA_OK(cudaMalloc(&ps, 8));
  CUDA_OK(cudaMalloc(&po, 8));
  CUDA_OK(cudaMemcpy(ps, &seed, 8, cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(po, &offset, 8, cudaMemcpyHostToDevice));
  DNN_OK(cudnnBackendCreateDescriptor(CUDNN_BACKEND_RNG_DESCRIPTOR, &r));
  DNN_OK(cudnnBackendSetAttribute(r, CUDNN_ATTR_RNG_DISTRIBUTION, CUDNN_TYPE_RNG_DISTRIBUTION, 1, &dist));
  DNN_OK(cudnnBackendSetAttribute(r, CUDNN_ATTR_RNG_BERNOULLI_DIST_PROBABILITY, CUDNN_TYPE_DOUBLE, 1, &p));
  DNN_OK(cudnnBackendFinalize(r));
  DNN_OK(cudnnBackendCreateDescriptor(CUDNN_BACKEND_OPERATION_RNG_DESCRIPTOR, &op));
  DNN_OK(cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_RNG_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &r));
  DNN_OK(cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_RNG_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &y));
  DNN_OK(cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_RNG_SEED, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &sd));
  DNN_OK(cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_RNG_OFFSET_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &od));
  ptrs[0] = py, ptrs[1] = ps, ptrs[2] = po;
  bench_graph(name, op, 3, uids, ptrs, (double)n * (double)esize);
  cudaFree(py), cudaFree(ps), cudaFree(po);
}

static void bench_concat(void) {
  int64_t d[4] = {64, 32, 128, 128}, dy[4] = {64, 64, 128, 128}, s[4], sy[4], axis = 1, uids[3] = {1, 2, 3};
  int64_t n = 64LL * 32 * 128 * 128;
  cudnnBackendDescriptor_t a, b, y, op, in[2];
  void *pa, *pb, *py, *ptrs[3];
  bk_packed(4, d, s), bk_packed(4, dy, sy);
  a = bk_tensor(1, CUDNN_DATA_FLOAT, 4, d, s, 0);
  b = bk_tensor(2, CUDNN_DATA_FLOAT, 4, d, s, 0);
  y = bk_tensor(3, CUDNN_DATA_FLOAT, 4, dy, sy, 0);
  CUDA_OK(cudaMalloc(&pa, (size_t)n * 4));
  CUDA_OK(cudaMalloc(&pb, (size_t)n * 4));
  CUDA_OK(cudaMalloc(&py, (size_t)n * 8));
  CUDA_OK(cudaMemset(pa, 0, (size_t)n * 4));
  CUDA_OK(cudaMemset(pb, 0, (size_t)n * 4));
  in[0] = a, in[1] = b;
  DNN_OK(cudnnBackendCreateDescriptor(CUDNN_BACKEND_OPERATION_CONCAT_DESCRIPTOR, &op));
  DNN_OK(cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_CONCAT_AXIS, CUDNN_TYPE_INT64, 1, &axis));
  DNN_OK(cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_CONCAT_INPUT_DESCS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 2, in));
  DNN_OK(cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_CONCAT_OUTPUT_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &y));
  ptrs[0] = pa, ptrs[1] = pb, ptrs[2] = py;
  bench_graph("backend.concat.f32.2x32M", op, 3, uids, ptrs, (double)n * 16);
  cudaFree(pa), cudaFree(pb), cudaFree(py);
}

static void bench_reshape(void) {
  int64_t d[4] = {64, 64, 128, 128}, s[4], nhwc[4] = {64 * 128 * 128, 1, 128 * 64, 64}, uids[2] = {1, 2};
  int64_t n = 64LL * 64 * 128 * 128;
  cudnnBackendDescriptor_t x, y, op;
  void *px, *py, *ptrs[2];
  bk_packed(4, d, s);
  x = bk_tensor(1, CUDNN_DATA_FLOAT, 4, d, s, 0);
  y = bk_tensor(2, CUDNN_DATA_FLOAT, 4, d, nhwc, 0);
  CUDA_OK(cudaMalloc(&px, (size_t)n * 4));
  CUDA_OK(cudaMalloc(&py, (size_t)n * 4));
  CUDA_OK(cudaMemset(px, 0, (size_t)n * 4));
  DNN_OK(cudnnBackendCreateDescriptor(CUDNN_BACKEND_OPERATION_RESHAPE_DESCRIPTOR, &op));
  DNN_OK(cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_RESHAPE_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &x));
  DNN_OK(cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_RESHAPE_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &y));
  ptrs[0] = px, ptrs[1] = py;
  bench_graph("backend.reshape.f32.nchw_to_nhwc.64M", op, 2, uids, ptrs, (double)n * 8);
  cudaFree(px), cudaFree(py);
}

int main(void) {
  bench_setup(2026);
  bench_rng("backend.rng.bernoulli.f32.64M", CUDNN_DATA_FLOAT);
  bench_rng("backend.rng.bernoulli.f16.64M", CUDNN_DATA_HALF);
  bench_concat();
  bench_reshape();
  return 0;
}
