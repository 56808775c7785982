/* GPU bench of backend-API single MATMUL graphs (cuda.matmul.cublaslt in
 * FreeDNN), timed in FreeDNN and in NVIDIA's cuDNN: square and batched
 * products in f16 / bf16 (f16, bf16 or f32 c), f32 (no TF32: FLOAT compute
 * and NVIDIA_TF32_OVERRIDE=0 as gpu-check.sh sets it) and f64, b row- or
 * column-major, b broadcast over the batch. Bytes count a and b read once
 * and c written once; the names carry batch x m x n x k, so that
 * TFLOP/s = 2 * batch * m * n * k / (ms * 1e9). */
#include "bench_common.h"
#include "backend_graph_c.h"

typedef struct {
  cudnnBackendDescriptor_t plan, pack;
} Exec;

static void run_exec(void *ctx) {
  Exec *e = (Exec *)ctx;
  last_status = cudnnBackendExecute(handle, e->plan, e->pack);
}

static size_t esize(cudnnDataType_t t) {
  return t == CUDNN_DATA_DOUBLE ? 8 : (t == CUDNN_DATA_FLOAT ? 4 : 2);
}

/* c [batch, m, n] = a [batch, m, k] b [bb, k, n]; b column-major when bcol. */
static void bench_matmul(cudnnDataType_t tab, cudnnDataType_t tc, int64_t batch, int64_t bb, int64_t m, int64_t n,
                         int64_t k, int bcol) {
  int64_t ad[3] = {batch, m, k}, bd[3] = {bb, k, n}, cd[3] = {batch, m, n}, as[3], bs[3], cs[3];
  int64_t uids[3] = {1, 2, 3}, wsz = 0;
  cudnnDataType_t comp = tc == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
  cudnnBackendDescriptor_t a, b, c, op;
  void *pa, *pb, *pc, *ws = NULL, *ptrs[3];
  size_t na = (size_t)(batch * m * k), nb = (size_t)(bb * k * n), nc = (size_t)(batch * m * n);
  char name[160];
  Exec e;
  cudnnStatus_t st;
  snprintf(name, sizeof name, "backend.matmul.%s.%s.%lldx%lldx%lldx%lld%s%s", oracle_type_name(tab), oracle_type_name(tc),
           (long long)batch, (long long)m, (long long)n, (long long)k, bcol ? ".bcol" : "",
           bb == 1 && batch > 1 ? ".bcast_b" : "");
  bk_packed(3, ad, as), bk_packed(3, bd, bs), bk_packed(3, cd, cs);
  if (bcol) bs[1] = 1, bs[2] = k;
  a = bk_tensor(1, tab, 3, ad, as, 0);
  b = bk_tensor(2, tab, 3, bd, bs, 0);
  c = bk_tensor(3, tc, 3, cd, cs, 0);
  CUDA_OK(cudaMalloc(&pa, na * esize(tab)));
  CUDA_OK(cudaMalloc(&pb, nb * esize(tab)));
  CUDA_OK(cudaMalloc(&pc, nc * esize(tc)));
  CUDA_OK(cudaMemset(pa, 0, na * esize(tab)));
  CUDA_OK(cudaMemset(pb, 0, nb * esize(tab)));
  st = bk_matmul_op(&op, comp, a, b, c);
  if (st == CUDNN_STATUS_SUCCESS) st = bk_plan(handle, &op, 1, &e.plan, &wsz);
  if (st != CUDNN_STATUS_SUCCESS) {
    printf("bench %s failed st=%d\n", name, (int)st);
  } else {
    if (wsz > 0) CUDA_OK(cudaMalloc(&ws, (size_t)wsz));
    ptrs[0] = pa, ptrs[1] = pb, ptrs[2] = pc;
    DNN_OK(cudnnBackendCreateDescriptor(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, &e.pack));
    DNN_OK(cudnnBackendSetAttribute(e.pack, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, 3, uids));
    DNN_OK(cudnnBackendSetAttribute(e.pack, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, 3, ptrs));
    DNN_OK(cudnnBackendSetAttribute(e.pack, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, &ws));
    DNN_OK(cudnnBackendFinalize(e.pack));
    report(name, (double)(na + nb) * (double)esize(tab) + (double)nc * (double)esize(tc), time_ms(run_exec, &e));
    cudaFree(ws);
  }
  cudaFree(pa), cudaFree(pb), cudaFree(pc);
}

int main(void) {
  const cudnnDataType_t f16 = CUDNN_DATA_HALF, bf16 = CUDNN_DATA_BFLOAT16, f32 = CUDNN_DATA_FLOAT;
  bench_setup(2026);
  bench_matmul(f16, f16, 1, 1, 4096, 4096, 4096, 0);
  bench_matmul(f16, f32, 1, 1, 4096, 4096, 4096, 0);
  bench_matmul(bf16, bf16, 1, 1, 4096, 4096, 4096, 0);
  bench_matmul(bf16, f32, 1, 1, 4096, 4096, 4096, 1);
  bench_matmul(f16, f16, 32, 32, 512, 512, 512, 0);
  bench_matmul(f16, f16, 32, 1, 512, 512, 512, 1);
  bench_matmul(f32, f32, 1, 1, 2048, 2048, 2048, 0);
  bench_matmul(CUDNN_DATA_DOUBLE, CUDNN_DATA_DOUBLE, 1, 1, 1024, 1024, 1024, 0);
  return 0;
}
