/* Timing harness shared by the GPU bandwidth programs tests/oracle_gpu/bench_*.c.
 *
 * Each program is built against FreeDNN and against NVIDIA's cuDNN
 * (scripts/gpu-check.sh puts the two side by side) and prints one line per
 * measured call:
 *
 *     bench <name> bytes=<moved> ms=<median> gbs=<GB/s>
 *
 * or `bench <name> failed st=<status>` when the call does not succeed (a
 * failing call is reported, not timed). Timings are the median of runs
 * between CUDA events on a non-blocking stream, after warm-up runs long
 * enough for the clocks to settle (the first calls also load modules and
 * make plans). */
#ifndef FREEDNN_BENCH_COMMON_H
#define FREEDNN_BENCH_COMMON_H

#include "oracle_common.h"

static cudnnHandle_t handle;
static cudaStream_t stream;
static cudaEvent_t ev0, ev1;

/* Status of the last measured call: each RunFn stores its call's status here. */
static cudnnStatus_t last_status = CUDNN_STATUS_SUCCESS;

typedef void (*RunFn)(void *ctx);

/* Creates the handle bound to a non-blocking stream and the timing events;
 * seeds the input generator. */
static void bench_setup(uint64_t seed) {
  oracle_seed(seed);
  DNN_OK(cudnnCreate(&handle));
  CUDA_OK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  DNN_OK(cudnnSetStream(handle, stream));
  CUDA_OK(cudaEventCreate(&ev0));
  CUDA_OK(cudaEventCreate(&ev1));
}

static int bench_cmp_float(const void *a, const void *b) {
  float x = *(const float *)a, y = *(const float *)b;
  return (x > y) - (x < y);
}

enum { kBenchMaxRuns = 101 };

/* Median milliseconds of `runs` calls after `warmups` calls; -1 when the
 * first call fails (last_status says how). */
static double time_ms_runs(RunFn fn, void *ctx, int warmups, int runs) {
  last_status = CUDNN_STATUS_SUCCESS;
  fn(ctx);
  if (last_status != CUDNN_STATUS_SUCCESS) return -1.0;
  for (int i = 0; i < warmups; ++i) fn(ctx);
  CUDA_OK(cudaStreamSynchronize(stream));
  if (runs > kBenchMaxRuns) runs = kBenchMaxRuns;
  float t[kBenchMaxRuns];
  for (int i = 0; i < runs; ++i) {
    CUDA_OK(cudaEventRecord(ev0, stream));
    fn(ctx);
    CUDA_OK(cudaEventRecord(ev1, stream));
    CUDA_OK(cudaEventSynchronize(ev1));
    CUDA_OK(cudaEventElapsedTime(&t[i], ev0, ev1));
  }
  qsort(t, (size_t)runs, sizeof(float), bench_cmp_float);
  return t[runs / 2];
}

/* The default: median of 51 runs after 20 warm-up runs. */
static double time_ms(RunFn fn, void *ctx) { return time_ms_runs(fn, ctx, 20, 51); }

static void report(const char *name, double bytes, double ms) {
  if (ms < 0)
    printf("bench %s failed st=%d\n", name, (int)last_status);
  else
    printf("bench %s bytes=%.0f ms=%.4f gbs=%.1f\n", name, bytes, ms, bytes / (ms * 1e-3) / 1e9);
  fflush(stdout);
}

/* A device-to-device copy of the same bytes: the bandwidth ceiling. */
typedef struct {
  void *dst, *src;
  size_t bytes;
} CopyCtx;
static void run_copy(void *p) {
  CopyCtx *c = (CopyCtx *)p;
  CUDA_OK(cudaMemcpyAsync(c->dst, c->src, c->bytes, cudaMemcpyDeviceToDevice, stream));
}

#endif
