/* The driver the convolution speed programs share (bench_convolution.c,
 * bench_convolution_bf16.c, bench_convolution_f32.c): each library picks its
 * own fastest algorithm with cudnnFind*Algorithm, then that algorithm is
 * timed (median of 9 runs after 2 warm-up runs, CUDA events on the handle's
 * stream); each layer prints a "bench" line (bytes: x, w and y once each)
 * and a TFLOP/s line, and the same two for <name>.x10: ten calls back to
 * back between the events, time per call (median of 5). A single call's
 * time includes the library's host work before its first kernel starts;
 * back to back, that work overlaps the previous call's kernels, as in a
 * training step that queues its layers ahead of the GPU. A library with a
 * long host path looks slower in the single-call figure than the GPU work
 * it queues (a helper's harness timed cuDNN's 128x28 filter gradient back
 * to back at 572-586 TFLOP/s where these single calls gave 314-423). bench_resnet50() runs the matrix for one type
 * and layout: the seven ResNet-50 layers at batch 32 and 256, three
 * directions each. BENCH_CONV_FILTER (environment), a ','-separated list of
 * substrings, keeps only the cases whose full name contains one of them
 * (e.g. "b256.fwd,3x3.128.b256"). */
#ifndef FREEDNN_BENCH_CONVOLUTION_DRIVER_H
#define FREEDNN_BENCH_CONVOLUTION_DRIVER_H

#include "oracle_common.h"

static cudnnHandle_t handle;
static cudaStream_t stream;
static cudaEvent_t ev0, ev1;

typedef struct {
  cudnnTensorDescriptor_t x, y;
  cudnnFilterDescriptor_t w;
  cudnnConvolutionDescriptor_t conv;
  void *xp, *wp, *yp, *ws;
  size_t ws_bytes;
  int dir, algo;
  cudnnDataType_t t;
} Ctx;

static cudnnStatus_t run(const Ctx *c) {
  float one = 1, zero = 0;
  switch (c->dir) {
    case 0:
      return cudnnConvolutionForward(handle, &one, c->x, c->xp, c->w, c->wp, c->conv, (cudnnConvolutionFwdAlgo_t)c->algo,
                                     c->ws, c->ws_bytes, &zero, c->y, c->yp);
    case 1:
      return cudnnConvolutionBackwardData(handle, &one, c->w, c->wp, c->y, c->yp, c->conv,
                                          (cudnnConvolutionBwdDataAlgo_t)c->algo, c->ws, c->ws_bytes, &zero, c->x,
                                          c->xp);
    default:
      return cudnnConvolutionBackwardFilter(handle, &one, c->x, c->xp, c->y, c->yp, c->conv,
                                            (cudnnConvolutionBwdFilterAlgo_t)c->algo, c->ws, c->ws_bytes, &zero, c->w,
                                            c->wp);
  }
}

static int cmp_float(const void *a, const void *b) {
  float x = *(const float *)a, y = *(const float *)b;
  return (x > y) - (x < y);
}

/* Time per call of `calls` calls back to back between the events, median
 * of `runs` (at most 9). */
static double median_ms(const Ctx *c, int calls, int runs) {
  float t[9];
  for (int i = 0; i < runs; ++i) {
    CUDA_OK(cudaEventRecord(ev0, stream));
    for (int k = 0; k < calls; ++k) run(c);
    CUDA_OK(cudaEventRecord(ev1, stream));
    CUDA_OK(cudaEventSynchronize(ev1));
    CUDA_OK(cudaEventElapsedTime(&t[i], ev0, ev1));
  }
  qsort(t, (size_t)runs, sizeof(float), cmp_float);
  return t[runs / 2] / calls;
}

/* One call's time, median of 9, after a checked call and 2 warm-ups. */
static double time_ms(const Ctx *c, cudnnStatus_t *st) {
  *st = run(c);
  if (*st != CUDNN_STATUS_SUCCESS) return -1.0;
  for (int i = 0; i < 2; ++i) run(c);
  CUDA_OK(cudaStreamSynchronize(stream));
  return median_ms(c, 1, 9);
}

/* The fastest algorithm by the library's own Find, and its workspace. */
static int find_best(Ctx *c) {
  int n = 0;
  cudnnStatus_t st;
  if (c->dir == 0) {
    cudnnConvolutionFwdAlgoPerf_t p[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
    st = cudnnFindConvolutionForwardAlgorithm(handle, c->x, c->w, c->conv, c->y, CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &n, p);
    if (st != CUDNN_STATUS_SUCCESS || n < 1 || p[0].status != CUDNN_STATUS_SUCCESS) return 0;
    c->algo = (int)p[0].algo, c->ws_bytes = p[0].memory;
  } else if (c->dir == 1) {
    cudnnConvolutionBwdDataAlgoPerf_t p[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
    st = cudnnFindConvolutionBackwardDataAlgorithm(handle, c->w, c->y, c->conv, c->x,
                                                   CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &n, p);
    if (st != CUDNN_STATUS_SUCCESS || n < 1 || p[0].status != CUDNN_STATUS_SUCCESS) return 0;
    c->algo = (int)p[0].algo, c->ws_bytes = p[0].memory;
  } else {
    cudnnConvolutionBwdFilterAlgoPerf_t p[CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT];
    st = cudnnFindConvolutionBackwardFilterAlgorithm(handle, c->x, c->y, c->conv, c->w,
                                                     CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT, &n, p);
    if (st != CUDNN_STATUS_SUCCESS || n < 1 || p[0].status != CUDNN_STATUS_SUCCESS) return 0;
    c->algo = (int)p[0].algo, c->ws_bytes = p[0].memory;
  }
  return 1;
}

/* Random nonzero values: a block of up to 2^20 + 7 drawn on the host,
 * repeated over the buffer (an odd period, so rows do not repeat in step). */
static void fill(cudnnDataType_t t, void *dev, size_t count) {
  const size_t es = oracle_type_size(t);
  const size_t block = count < (1u << 20) + 7 ? count : (1u << 20) + 7;
  void *h = malloc(block * es);
  for (size_t i = 0; i < block; ++i) oracle_store(t, h, i, oracle_nonzero(0.1, 1.0));
  for (size_t off = 0; off < count; off += block) {
    const size_t n = count - off < block ? count - off : block;
    CUDA_OK(cudaMemcpy((char *)dev + off * es, h, n * es, cudaMemcpyHostToDevice));
  }
  free(h);
}

/* Whether BENCH_CONV_FILTER keeps the case named `full`. */
static int bench_selected(const char *full) {
  const char *f = getenv("BENCH_CONV_FILTER");
  if (f == NULL || *f == 0) return 1;
  char buf[512];
  snprintf(buf, sizeof buf, "%s", f);
  for (char *tok = strtok(buf, ","); tok != NULL; tok = strtok(NULL, ","))
    if (*tok && strstr(full, tok) != NULL) return 1;
  return 0;
}

static void bench_layer(const char *name, cudnnDataType_t t, int nhwc, int n, int c, int hw, int k, int r, int str,
                        int pad) {
  {
    static const char *d3[3] = {"fwd", "bwd_data", "bwd_filter"};
    int any = 0;
    for (int d = 0; d < 3; ++d) {
      char full[200];
      snprintf(full, sizeof full, "conv.%s.%s.%s.%s", name, d3[d], nhwc ? "nhwc" : "nchw", oracle_type_name(t));
      any |= bench_selected(full);
    }
    if (!any) return;
  }
  Ctx cx;
  memset(&cx, 0, sizeof cx);
  cx.t = t;
  const cudnnTensorFormat_t fmt = nhwc ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW;
  DNN_OK(cudnnCreateTensorDescriptor(&cx.x));
  DNN_OK(cudnnCreateTensorDescriptor(&cx.y));
  DNN_OK(cudnnCreateFilterDescriptor(&cx.w));
  DNN_OK(cudnnCreateConvolutionDescriptor(&cx.conv));
  DNN_OK(cudnnSetTensor4dDescriptor(cx.x, fmt, t, n, c, hw, hw));
  DNN_OK(cudnnSetFilter4dDescriptor(cx.w, t, fmt, k, c, r, r));
  DNN_OK(cudnnSetConvolution2dDescriptor(cx.conv, pad, pad, str, str, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
  DNN_OK(cudnnSetConvolutionMathType(cx.conv, t == CUDNN_DATA_FLOAT ? CUDNN_FMA_MATH : CUDNN_TENSOR_OP_MATH));
  int yn, yc, yh, yw;
  DNN_OK(cudnnGetConvolution2dForwardOutputDim(cx.conv, cx.x, cx.w, &yn, &yc, &yh, &yw));
  DNN_OK(cudnnSetTensor4dDescriptor(cx.y, fmt, t, yn, yc, yh, yw));
  const size_t es = oracle_type_size(t);
  const size_t xc = (size_t)n * c * hw * hw, wc = (size_t)k * c * r * r, yc_ = (size_t)yn * yc * yh * yw;
  CUDA_OK(cudaMalloc(&cx.xp, xc * es));
  CUDA_OK(cudaMalloc(&cx.wp, wc * es));
  CUDA_OK(cudaMalloc(&cx.yp, yc_ * es));
  fill(t, cx.xp, xc);
  fill(t, cx.wp, wc);
  fill(t, cx.yp, yc_);
  const double bytes = (double)(xc + wc + yc_) * (double)es;
  const double flops = 2.0 * n * k * c * (double)yh * yw * r * r;
  static const char *dirs[3] = {"fwd", "bwd_data", "bwd_filter"};
  for (int d = 0; d < 3; ++d) {
    cx.dir = d;
    char full[200];
    snprintf(full, sizeof full, "conv.%s.%s.%s.%s", name, dirs[d], nhwc ? "nhwc" : "nchw", oracle_type_name(t));
    if (!bench_selected(full)) continue;
    if (!find_best(&cx)) {
      printf("bench %s failed st=find\n", full);
      continue;
    }
    cx.ws = NULL;
    if (cx.ws_bytes) CUDA_OK(cudaMalloc(&cx.ws, cx.ws_bytes));
    cudnnStatus_t st;
    const double ms = time_ms(&cx, &st);
    if (ms < 0) {
      printf("bench %s failed st=%d\n", full, (int)st);
    } else {
      printf("bench %s bytes=%.0f ms=%.4f gbs=%.1f\n", full, bytes, ms, bytes / (ms * 1e-3) / 1e9);
      printf("# %s tflops=%.2f algo=%d ws=%zu\n", full, flops / (ms * 1e-3) / 1e12, cx.algo, cx.ws_bytes);
      const double ms10 = median_ms(&cx, 10, 5);
      printf("bench %s.x10 bytes=%.0f ms=%.4f gbs=%.1f\n", full, bytes, ms10, bytes / (ms10 * 1e-3) / 1e9);
      printf("# %s.x10 tflops=%.2f algo=%d ws=%zu\n", full, flops / (ms10 * 1e-3) / 1e12, cx.algo, cx.ws_bytes);
    }
    fflush(stdout);
    if (cx.ws) cudaFree(cx.ws);
  }
  cudaFree(cx.xp);
  cudaFree(cx.wp);
  cudaFree(cx.yp);
  cudnnDestroyTensorDescriptor(cx.x);
  cudnnDestroyTensorDescriptor(cx.y);
  cudnnDestroyFilterDescriptor(cx.w);
  cudnnDestroyConvolutionDescriptor(cx.conv);
}

/* The matrix for one type and layout: the seven ResNet-50 layers
 * (C, HW, K, R, stride, pad) at batch 32 and 256, three directions each.
 * Names: conv.r50.<C>x<HW>.<R>x<R>[s<stride>].<K>.b<N>.<dir>.<layout>.<type>. */
static void bench_resnet50(cudnnDataType_t t, int nhwc) {
  static const int layers[7][6] = {{64, 56, 64, 1, 1, 0},    {64, 56, 64, 3, 1, 1},   {64, 56, 256, 1, 1, 0},
                                   {128, 28, 128, 3, 1, 1},  {256, 14, 256, 3, 1, 1}, {512, 7, 512, 3, 1, 1},
                                   {3, 224, 64, 7, 2, 3}};
  for (int l = 0; l < 7; ++l) {
    for (int b = 0; b < 2; ++b) {
      const int *L = layers[l];
      const int n = b == 0 ? 32 : 256;
      char name[96];
      if (L[4] == 1) snprintf(name, sizeof name, "r50.%dx%d.%dx%d.%d.b%d", L[0], L[1], L[3], L[3], L[2], n);
      else snprintf(name, sizeof name, "r50.%dx%d.%dx%ds%d.%d.b%d", L[0], L[1], L[3], L[3], L[4], L[2], n);
      bench_layer(name, t, nhwc, n, L[0], L[1], L[2], L[3], L[4], L[5]);
    }
  }
}

static void bench_begin(uint64_t seed) {
  oracle_seed(seed);
  DNN_OK(cudnnCreate(&handle));
  CUDA_OK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  DNN_OK(cudnnSetStream(handle, stream));
  CUDA_OK(cudaEventCreate(&ev0));
  CUDA_OK(cudaEventCreate(&ev1));
}

static void bench_end(void) { cudnnDestroy(handle); }

#endif
