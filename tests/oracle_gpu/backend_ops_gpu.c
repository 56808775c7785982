/* Differential program (GPU): backend-API graphs of one OPERATION_RESHAPE,
 * OPERATION_CONCAT or OPERATION_RNG, run through heuristics -> plan ->
 * execute in FreeDNN and in NVIDIA's cuDNN, and descriptor-level statuses
 * of bad input (compared lines).
 *
 * NVIDIA's cuDNN 9.19 has no engine for these operations alone (its plans
 * answer NOT_SUPPORTED on an H100; they run only inside its fused patterns),
 * so the execution results are printed as information ('#' lines): status,
 * a checksum of the output memory for reshape and concat (which the GPU
 * gtests check element by element), and the fraction of ones for RNG (its
 * draws follow FreeDNN's documented Philox mapping, not NVIDIA's). */
#include "backend_graph_c.h"

static cudnnHandle_t h;

/* Weighted checksum of n floats in memory order. */
static double checksum_f32(const float *v, int64_t n) {
  double s = 0;
  int64_t i;
  for (i = 0; i < n; ++i) s += v[i] * (double)(1 + i % 97);
  return s;
}

static void *dev_upload(const void *host, size_t bytes) {
  void *d;
  CUDA_OK(cudaMalloc(&d, bytes));
  CUDA_OK(cudaMemcpy(d, host, bytes, cudaMemcpyHostToDevice));
  return d;
}

static void reshape_case(const char *name, int xnd, const int64_t *xdims, const int64_t *xstrides, int ynd,
                         const int64_t *ydims, const int64_t *ystrides, int64_t n, int64_t yspan) {
  cudnnBackendDescriptor_t x = bk_tensor(1, CUDNN_DATA_FLOAT, xnd, xdims, xstrides, 0);
  cudnnBackendDescriptor_t y = bk_tensor(2, CUDNN_DATA_FLOAT, ynd, ydims, ystrides, 0);
  cudnnBackendDescriptor_t op, plan;
  float *hx = malloc((size_t)n * 4), *hy = malloc((size_t)yspan * 4);
  void *dx, *dy, *ws = NULL, *ptrs[2];
  int64_t uids[2] = {1, 2}, wsz = 0, i;
  cudnnStatus_t st;
  for (i = 0; i < n; ++i) hx[i] = (float)oracle_nonzero(0.5, 4);
  for (i = 0; i < yspan; ++i) hy[i] = 0;
  dx = dev_upload(hx, (size_t)n * 4);
  dy = dev_upload(hy, (size_t)yspan * 4);
  DNN_OK(cudnnBackendCreateDescriptor(CUDNN_BACKEND_OPERATION_RESHAPE_DESCRIPTOR, &op));
  DNN_OK(cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_RESHAPE_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &x));
  DNN_OK(cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_RESHAPE_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &y));
  st = cudnnBackendFinalize(op);
  if (st == CUDNN_STATUS_SUCCESS) st = bk_plan(h, &op, 1, &plan, &wsz);
  if (st == CUDNN_STATUS_SUCCESS) {
    if (wsz > 0) CUDA_OK(cudaMalloc(&ws, (size_t)wsz));
    ptrs[0] = dx, ptrs[1] = dy;
    st = bk_execute(h, plan, 2, uids, ptrs, ws);
    CUDA_OK(cudaDeviceSynchronize());
    CUDA_OK(cudaMemcpy(hy, dy, (size_t)yspan * 4, cudaMemcpyDeviceToHost));
  }
  printf("# %s st=%d sum=%.9g\n", name, (int)st, st == CUDNN_STATUS_SUCCESS ? checksum_f32(hy, yspan) : 0.0);
  cudaFree(dx), cudaFree(dy), cudaFree(ws), free(hx), free(hy);
}

static void concat_case(void) {
  int64_t da[4] = {2, 3, 4, 5}, db[4] = {2, 2, 4, 5}, dy[4] = {2, 5, 4, 5}, sa[4], sb[4], sy[4];
  int64_t na = 120, nb = 80, ny = 200, uids[3] = {1, 2, 3}, wsz = 0, axis = 1, i;
  cudnnBackendDescriptor_t a, b, y, op, plan, in[2];
  float ha[120], hb[80], hy[200];
  void *pa, *pb, *py, *ws = NULL, *ptrs[3];
  cudnnStatus_t st;
  bk_packed(4, da, sa), bk_packed(4, db, sb), bk_packed(4, dy, sy);
  a = bk_tensor(1, CUDNN_DATA_FLOAT, 4, da, sa, 0);
  b = bk_tensor(2, CUDNN_DATA_FLOAT, 4, db, sb, 0);
  y = bk_tensor(3, CUDNN_DATA_FLOAT, 4, dy, sy, 0);
  for (i = 0; i < na; ++i) ha[i] = (float)oracle_nonzero(0.5, 4);
  for (i = 0; i < nb; ++i) hb[i] = (float)oracle_nonzero(0.5, 4);
  for (i = 0; i < ny; ++i) hy[i] = 0;
  pa = dev_upload(ha, sizeof ha), pb = dev_upload(hb, sizeof hb), py = dev_upload(hy, sizeof hy);
  in[0] = a, in[1] = b;
  DNN_OK(cudnnBackendCreateDescriptor(CUDNN_BACKEND_OPERATION_CONCAT_DESCRIPTOR, &op));
  DNN_OK(cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_CONCAT_AXIS, CUDNN_TYPE_INT64, 1, &axis));
  DNN_OK(cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_CONCAT_INPUT_DESCS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 2, in));
  DNN_OK(cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_CONCAT_OUTPUT_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &y));
  st = cudnnBackendFinalize(op);
  if (st == CUDNN_STATUS_SUCCESS) st = bk_plan(h, &op, 1, &plan, &wsz);
  if (st == CUDNN_STATUS_SUCCESS) {
    if (wsz > 0) CUDA_OK(cudaMalloc(&ws, (size_t)wsz));
    ptrs[0] = pa, ptrs[1] = pb, ptrs[2] = py;
    st = bk_execute(h, plan, 3, uids, ptrs, ws);
    CUDA_OK(cudaDeviceSynchronize());
    CUDA_OK(cudaMemcpy(hy, py, sizeof hy, cudaMemcpyDeviceToHost));
  }
  printf("# concat_axis1 st=%d sum=%.9g\n", (int)st, st == CUDNN_STATUS_SUCCESS ? checksum_f32(hy, ny) : 0.0);
  cudaFree(pa), cudaFree(pb), cudaFree(py), cudaFree(ws);
}

static void rng_case(const char *name, double p, cudnnDataType_t dt) {
  int64_t dims[4] = {4, 16, 128, 128}, strides[4], one[4] = {1, 1, 1, 1}, n = 4 * 16 * 128 * 128, wsz = 0, i;
  int64_t seed = 12345, offset = 7, uids[3] = {1, 2, 3}, ones = 0;
  size_t esize = dt == CUDNN_DATA_HALF ? 2 : 4;
  cudnnBackendDescriptor_t y, sd, od, r, op, plan;
  cudnnRngDistribution_t dist = CUDNN_RNG_DISTRIBUTION_BERNOULLI;
  void *py, *ps, *po, *ws = NULL, *ptrs[3];
  unsigned char *hy = malloc((size_t)n * esize);
  cudnnStatus_t st;
  bk_packed(4, dims, strides);
  y = bk_tensor(1, dt, 4, dims, strides, 0);
  sd = bk_tensor(2, CUDNN_DATA_INT64, 4, one, one, 0);
  od = bk_tensor(3, CUDNN_DATA_INT64, 4, one, one, 0);
  CUDA_OK(cudaMalloc(&py, (size_t)n * esize));
  CUDA_OK(cudaMemset(py, 0xff, (size_t)n * esize));
  ps = dev_upload(&seed, 8), po = dev_upload(&offset, 8);
  DNN_OK(cudnnBackendCreateDescriptor(CUDNN_BACKEND_RNG_DESCRIPTOR, &r));
  DNN_OK(cudnnBackendSetAttribute(r, CUDNN_ATTR_RNG_DISTRIBUTION, CUDNN_TYPE_RNG_DISTRIBUTION, 1, &dist));
  DNN_OK(cudnnBackendSetAttribute(r, CUDNN_ATTR_RNG_BERNOULLI_DIST_PROBABILITY, CUDNN_TYPE_DOUBLE, 1, &p));
  DNN_OK(cudnnBackendFinalize(r));
  DNN_OK(cudnnBackendCreateDescriptor(CUDNN_BACKEND_OPERATION_RNG_DESCRIPTOR, &op));
  DNN_OK(cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_RNG_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &r));
  DNN_OK(cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_RNG_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &y));
  DNN_OK(cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_RNG_SEED, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &sd));
  DNN_OK(cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_RNG_OFFSET_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &od));
  st = cudnnBackendFinalize(op);
  if (st == CUDNN_STATUS_SUCCESS) st = bk_plan(h, &op, 1, &plan, &wsz);
  if (st == CUDNN_STATUS_SUCCESS) {
    if (wsz > 0) CUDA_OK(cudaMalloc(&ws, (size_t)wsz));
    ptrs[0] = py, ptrs[1] = ps, ptrs[2] = po;
    st = bk_execute(h, plan, 3, uids, ptrs, ws);
    CUDA_OK(cudaDeviceSynchronize());
    CUDA_OK(cudaMemcpy(hy, py, (size_t)n * esize, cudaMemcpyDeviceToHost));
    for (i = 0; i < n; ++i) {
      if (dt == CUDNN_DATA_HALF) {
        uint16_t v;
        memcpy(&v, hy + i * 2, 2);
        ones += v == 0x3c00;
      } else {
        float v;
        memcpy(&v, hy + i * 4, 4);
        ones += v == 1.0f;
      }
    }
  }
  printf("# %s st=%d ones=%.6f\n", name, (int)st, st == CUDNN_STATUS_SUCCESS ? (double)ones / n : 0.0);
  cudaFree(py), cudaFree(ps), cudaFree(po), cudaFree(ws), free(hy);
}

static void bad_inputs(void) {
  int64_t d4[4] = {2, 3, 4, 5}, s4[4], d3[4] = {2, 3, 4, 6}, s3[4], axis = 3, ip = 5;
  cudnnBackendDescriptor_t x, y, op, in[2];
  double p = 1.5;
  cudnnBackendDescriptor_t r;
  bk_packed(4, d4, s4), bk_packed(4, d3, s3);
  x = bk_tensor(1, CUDNN_DATA_FLOAT, 4, d4, s4, 0);
  y = bk_tensor(2, CUDNN_DATA_FLOAT, 4, d3, s3, 0);
  DNN_OK(cudnnBackendCreateDescriptor(CUDNN_BACKEND_OPERATION_RESHAPE_DESCRIPTOR, &op));
  cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_RESHAPE_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &x);
  cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_RESHAPE_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &y);
  printf("bad_reshape_count tol=0 st=%d\n", (int)cudnnBackendFinalize(op));
  in[0] = x, in[1] = x;
  DNN_OK(cudnnBackendCreateDescriptor(CUDNN_BACKEND_OPERATION_CONCAT_DESCRIPTOR, &op));
  cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_CONCAT_AXIS, CUDNN_TYPE_INT64, 1, &axis);
  cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_CONCAT_INPUT_DESCS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 2, in);
  cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_CONCAT_OUTPUT_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &y);
  printf("bad_concat_sum tol=0 st=%d\n", (int)cudnnBackendFinalize(op));
  DNN_OK(cudnnBackendCreateDescriptor(CUDNN_BACKEND_OPERATION_CONCAT_DESCRIPTOR, &op));
  in[1] = bk_tensor(3, CUDNN_DATA_FLOAT, 4, (int64_t[]){2, 3, 4, 1}, (int64_t[]){12, 4, 1, 1}, 0);
  cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_CONCAT_AXIS, CUDNN_TYPE_INT64, 1, &axis);
  cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_CONCAT_INPUT_DESCS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 2, in);
  cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_CONCAT_OUTPUT_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &y);
  cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_CONCAT_INPLACE_INDEX, CUDNN_TYPE_INT64, 1, &ip);
  printf("bad_concat_inplace tol=0 st=%d\n", (int)cudnnBackendFinalize(op));
  DNN_OK(cudnnBackendCreateDescriptor(CUDNN_BACKEND_RNG_DESCRIPTOR, &r));
  cudnnBackendSetAttribute(r, CUDNN_ATTR_RNG_BERNOULLI_DIST_PROBABILITY, CUDNN_TYPE_DOUBLE, 1, &p);
  printf("bad_rng_probability tol=0 st=%d\n", (int)cudnnBackendFinalize(r));
}

int main(void) {
  int64_t d4[4] = {2, 3, 8, 5}, nchw[4], nhwc[4] = {120, 1, 15, 3};
  int64_t dm[3] = {4, 6, 10}, sm[3], d2[2] = {24, 10}, s2[2];
  oracle_seed(2026);
  DNN_OK(cudnnCreate(&h));
  bk_packed(4, d4, nchw), bk_packed(3, dm, sm), bk_packed(2, d2, s2);
  reshape_case("reshape_nchw_to_nhwc", 4, d4, nchw, 4, d4, nhwc, 240, 240);
  reshape_case("reshape_merge_dims", 3, dm, sm, 2, d2, s2, 240, 240);
  concat_case();
  rng_case("rng_bernoulli_p03_f32", 0.3, CUDNN_DATA_FLOAT);
  rng_case("rng_bernoulli_p0_f32", 0.0, CUDNN_DATA_FLOAT);
  rng_case("rng_bernoulli_p1_f32", 1.0, CUDNN_DATA_FLOAT);
  rng_case("rng_bernoulli_p09_f16", 0.9, CUDNN_DATA_HALF);
  bad_inputs();
  cudnnDestroy(h);
  return 0;
}
