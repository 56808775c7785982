/* Prints a hash of cudnnLRNCrossChannelForward's output bytes for a set of
 * cases, so that two runs under different FREEDNN_LRN_TUNE words can be
 * diffed for bit-identical results. Build on the device machine:
 *   gcc -O2 -I include -I /usr/local/cuda/include scripts/dev/lrn-hash.c \
 *     -L build-gpu -lcudnn -L /usr/local/cuda/lib64 -lcudart -o /tmp/lrn-hash
 *   LD_LIBRARY_PATH=build-gpu:/usr/local/cuda/lib64 FREEDNN_LRN_TUNE=alt /tmp/lrn-hash */
#include <cuda_runtime.h>
#include <cudnn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CK(x) do { if ((x) != 0) { fprintf(stderr, "%s:%d: %s failed\n", __FILE__, __LINE__, #x); exit(1); } } while (0)

static uint16_t f2h(float f) { /* round to nearest f16 via the bit pattern (values here are small, normal) */
  uint32_t u; memcpy(&u, &f, 4);
  uint32_t s = (u >> 16) & 0x8000u; int e = (int)((u >> 23) & 0xff) - 127 + 15; uint32_t m = u & 0x7fffffu;
  if (e <= 0) return (uint16_t)s;
  uint32_t h = s | ((uint32_t)e << 10) | (m >> 13);
  if ((m & 0x1fffu) > 0x1000u || ((m & 0x1fffu) == 0x1000u && (h & 1u))) ++h;
  return (uint16_t)h;
}

static void run_case(cudnnHandle_t h, cudnnDataType_t t, int n, int c, int hh, int w, int nhwc, unsigned lrn_n,
                     double beta, float alpha_b, float beta_b) {
  const size_t count = (size_t)n * c * hh * w, es = t == CUDNN_DATA_FLOAT ? 4 : 2;
  void *host = malloc(count * es), *out = malloc(count * es);
  uint64_t st = 88172645463325252ull ^ count ^ (uint64_t)lrn_n;
  for (size_t i = 0; i < count; ++i) {
    st ^= st << 13; st ^= st >> 7; st ^= st << 17;
    const float v = (float)((int64_t)(st % 20001) - 10000) / 2500.0f;
    if (t == CUDNN_DATA_FLOAT) ((float *)host)[i] = v;
    else if (t == CUDNN_DATA_HALF) ((uint16_t *)host)[i] = f2h(v);
    else { uint32_t u; memcpy(&u, &v, 4); ((uint16_t *)host)[i] = (uint16_t)(u >> 16); }
  }
  void *x, *y;
  CK(cudaMalloc(&x, count * es));
  CK(cudaMalloc(&y, count * es));
  CK(cudaMemcpy(x, host, count * es, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(y, host, count * es, cudaMemcpyHostToDevice)); /* blending reads y */
  cudnnTensorDescriptor_t d;
  CK(cudnnCreateTensorDescriptor(&d));
  CK(cudnnSetTensor4dDescriptor(d, nhwc ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW, t, n, c, hh, w));
  cudnnLRNDescriptor_t ld;
  CK(cudnnCreateLRNDescriptor(&ld));
  CK(cudnnSetLRNDescriptor(ld, lrn_n, 1e-3, beta, 1.5));
  /* (NVIDIA's legacy LRN call, and so ours, takes no BFLOAT16: such cases print their status.) */
  const cudnnStatus_t status =
      cudnnLRNCrossChannelForward(h, ld, CUDNN_LRN_CROSS_CHANNEL_DIM1, &alpha_b, d, x, &beta_b, d, y);
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(out, y, count * es, cudaMemcpyDeviceToHost));
  uint64_t hash = 1469598103934665603ull;
  for (size_t i = 0; i < count * es; ++i) hash = (hash ^ ((unsigned char *)out)[i]) * 1099511628211ull;
  printf("lrn-hash %s %dx%dx%dx%d %s n%u beta%.2f blend%.1f/%.1f status %d %016llx\n",
         t == CUDNN_DATA_FLOAT ? "f32" : t == CUDNN_DATA_HALF ? "f16" : "bf16", n, c, hh, w, nhwc ? "nhwc" : "nchw",
         lrn_n, beta, alpha_b, beta_b, (int)status, (unsigned long long)hash);
  cudnnDestroyLRNDescriptor(ld);
  cudnnDestroyTensorDescriptor(d);
  cudaFree(x);
  cudaFree(y);
  free(host);
  free(out);
}

int main(void) {
  cudnnHandle_t h;
  CK(cudnnCreate(&h));
  const cudnnDataType_t ts[3] = {CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16, CUDNN_DATA_FLOAT};
  for (int ti = 0; ti < 3; ++ti) {
    run_case(h, ts[ti], 32, 256, 56, 56, 0, 5, 0.75, 1.0f, 0.0f);
    run_case(h, ts[ti], 3, 37, 12, 16, 0, 5, 0.75, 1.0f, 0.0f);
    run_case(h, ts[ti], 2, 100, 9, 8, 0, 3, 0.75, 1.0f, 0.0f);
    run_case(h, ts[ti], 2, 70, 8, 8, 0, 5, 0.6, 1.0f, 0.0f);
    run_case(h, ts[ti], 2, 70, 8, 8, 0, 5, 0.5, 0.5f, 0.25f);
    run_case(h, ts[ti], 4, 33, 4, 8, 0, 5, 1.0, 1.0f, 0.0f);
  }
  cudnnDestroy(h);
  return 0;
}
