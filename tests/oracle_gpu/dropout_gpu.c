/* GPU differential program for dropout. NVIDIA's masks come from another
 * generator, so only what must agree is compared: status codes (descriptor
 * calls, bad inputs), the reserve-space size, the kept fraction (within a
 * loose tolerance), the scaling of kept values (exact flags), that dropped
 * values are 0, that backward applies forward's mask, p = 0 / p = 1, the
 * repeatability of a seed and the resumption of a stream by
 * cudnnRestoreDropoutDescriptor. Lines starting with '#' are information. */
#include "oracle_program.h"

static cudnnHandle_t handle;
static void *states;
static size_t states_size;

static void *dev_alloc(size_t bytes) {
  void *p;
  CUDA_OK(cudaMalloc(&p, bytes ? bytes : 1));
  return p;
}

/* Host copy of n elements of a packed tensor as doubles. */
static double *download(cudnnDataType_t t, const void *dev, size_t n) {
  size_t es = oracle_type_size(t);
  void *h = malloc(n * es);
  CUDA_OK(cudaMemcpy(h, dev, n * es, cudaMemcpyDeviceToHost));
  double *v = (double *)malloc(n * sizeof(double));
  for (size_t i = 0; i < n; ++i) v[i] = oracle_load(t, h, i);
  free(h);
  return v;
}

/* Forward then backward on a packed tensor; prints statistics and flags. */
static void case_fb(const char *name, cudnnDataType_t t, int channels_last, float p, unsigned long long seed) {
  int dims[4] = {4, 16, 33, 61};
  OTensor x, y, dy, dx;
  otensor_packed(&x, t, 4, dims, channels_last);
  otensor_packed(&y, t, 4, dims, channels_last);
  otensor_packed(&dy, t, 4, dims, channels_last);
  otensor_packed(&dx, t, 4, dims, channels_last);
  otensor_fill(&x, 0.5, 2.0);
  otensor_fill(&dy, 0.5, 2.0);
  cudnnDropoutDescriptor_t d;
  DNN_OK(cudnnCreateDropoutDescriptor(&d));
  cudnnStatus_t st = cudnnSetDropoutDescriptor(d, handle, p, states, states_size, seed);
  size_t rs = 0;
  DNN_OK(cudnnDropoutGetReserveSpaceSize(x.desc, &rs));
  void *reserve = dev_alloc(rs);
  if (st == CUDNN_STATUS_SUCCESS) st = cudnnDropoutForward(handle, d, x.desc, x.dev, y.desc, y.dev, reserve, rs);
  cudnnStatus_t st2 = st == CUDNN_STATUS_SUCCESS
                          ? cudnnDropoutBackward(handle, d, dy.desc, dy.dev, dx.desc, dx.dev, reserve, rs)
                          : st;
  CUDA_OK(cudaDeviceSynchronize());
  printf("%s.status tol=0 st=%d st2=%d rs=%zu\n", name, (int)st, (int)st2, rs);
  if (st == CUDNN_STATUS_SUCCESS && st2 == CUDNN_STATUS_SUCCESS) {
    size_t n = x.span;
    double *xv = download(t, x.dev, n), *yv = download(t, y.dev, n), *dyv = download(t, dy.dev, n),
           *dxv = download(t, dx.dev, n);
    double scale = p >= 1.0f ? 0.0 : 1.0 / (1.0 - (double)p);
    double rel = t == CUDNN_DATA_DOUBLE ? 1e-12 : (t == CUDNN_DATA_FLOAT ? 1e-6 : (t == CUDNN_DATA_HALF ? 2e-3 : 1.6e-2));
    size_t kept = 0, bad_scale = 0, bad_bwd = 0;
    for (size_t i = 0; i < n; ++i) {
      int k = yv[i] != 0.0;
      kept += (size_t)k;
      if (k && fabs(yv[i] - xv[i] * scale) > rel * fabs(xv[i] * scale)) ++bad_scale;
      double want = k ? dyv[i] * scale : 0.0;
      if (fabs(dxv[i] - want) > rel * fabs(want) + (k ? 0 : 0)) ++bad_bwd;
    }
    printf("%s.stats tol=0.03 kept=%.5f\n", name, (double)kept / (double)n + 1.0);
    printf("%s.flags tol=0 scale_ok=%d bwd_ok=%d\n", name, bad_scale == 0, bad_bwd == 0);
    printf("# %s bad_scale=%zu bad_bwd=%zu n=%zu\n", name, bad_scale, bad_bwd, n);
    free(xv);
    free(yv);
    free(dyv);
    free(dxv);
  }
  cudaFree(reserve);
  cudnnDestroyDropoutDescriptor(d);
  otensor_free(&x);
  otensor_free(&y);
  otensor_free(&dy);
  otensor_free(&dx);
}

/* Repeatability and restore: masks as "y != 0" patterns compared on the host. */
static void stream_cases(void) {
  int dims[4] = {2, 8, 17, 19};
  OTensor x, y;
  otensor_packed(&x, CUDNN_DATA_FLOAT, 4, dims, 0);
  otensor_packed(&y, CUDNN_DATA_FLOAT, 4, dims, 0);
  otensor_fill(&x, 0.5, 2.0);
  size_t n = x.span, rs = 0;
  DNN_OK(cudnnDropoutGetReserveSpaceSize(x.desc, &rs));
  void *reserve = dev_alloc(rs);
  double *m[5];
  cudnnDropoutDescriptor_t a, b;
  DNN_OK(cudnnCreateDropoutDescriptor(&a));
  DNN_OK(cudnnCreateDropoutDescriptor(&b));
  /* a: three calls from seed 5. */
  DNN_OK(cudnnSetDropoutDescriptor(a, handle, 0.5f, states, states_size, 5));
  for (int k = 0; k < 3; ++k) {
    DNN_OK(cudnnDropoutForward(handle, a, x.desc, x.dev, y.desc, y.dev, reserve, rs));
    m[k] = download(CUDNN_DATA_FLOAT, y.dev, n);
  }
  /* Same seed again: the first mask again. */
  DNN_OK(cudnnSetDropoutDescriptor(a, handle, 0.5f, states, states_size, 5));
  DNN_OK(cudnnDropoutForward(handle, a, x.desc, x.dev, y.desc, y.dev, reserve, rs));
  m[3] = download(CUDNN_DATA_FLOAT, y.dev, n);
  /* b restored on the same states continues a's stream: the second mask. */
  cudnnStatus_t st = cudnnRestoreDropoutDescriptor(b, handle, 0.5f, states, states_size, 5);
  if (st == CUDNN_STATUS_SUCCESS) st = cudnnDropoutForward(handle, b, x.desc, x.dev, y.desc, y.dev, reserve, rs);
  m[4] = st == CUDNN_STATUS_SUCCESS ? download(CUDNN_DATA_FLOAT, y.dev, n) : NULL;
  size_t same01 = 0, same03 = 0, same14 = 0, same04 = 0;
  for (size_t i = 0; i < n; ++i) {
    same01 += (m[0][i] != 0) == (m[1][i] != 0);
    same03 += (m[0][i] != 0) == (m[3][i] != 0);
    if (m[4]) {
      same14 += (m[1][i] != 0) == (m[4][i] != 0);
      same04 += (m[0][i] != 0) == (m[4][i] != 0);
    }
  }
  printf("stream.repeat tol=0 st=%d same_seed_same_mask=%d next_call_differs=%d\n", (int)st, same03 == n, same01 != n);
  printf("stream.restore tol=0 st=%d resumes=%d not_first=%d\n", (int)st, same14 == n, same04 != n);
  printf("# stream same01=%zu same03=%zu same14=%zu same04=%zu n=%zu\n", same01, same03, same14, same04, n);
  for (int k = 0; k < 5; ++k) free(m[k]);
  cudnnDestroyDropoutDescriptor(a);
  cudnnDestroyDropoutDescriptor(b);
  cudaFree(reserve);
  otensor_free(&x);
  otensor_free(&y);
}

static void bad_inputs(void) {
  cudnnDropoutDescriptor_t d;
  DNN_OK(cudnnCreateDropoutDescriptor(&d));
  int dims[4] = {2, 3, 4, 5}, small[4] = {2, 3, 4, 4};
  OTensor x, y, h, s, i8, i32, nhwc;
  otensor_packed(&x, CUDNN_DATA_FLOAT, 4, dims, 0);
  otensor_packed(&y, CUDNN_DATA_FLOAT, 4, dims, 0);
  otensor_packed(&h, CUDNN_DATA_HALF, 4, dims, 0);
  otensor_packed(&s, CUDNN_DATA_FLOAT, 4, small, 0);
  otensor_packed(&i8, CUDNN_DATA_INT8, 4, dims, 0);
  otensor_packed(&i32, CUDNN_DATA_INT32, 4, dims, 0);
  otensor_packed(&nhwc, CUDNN_DATA_FLOAT, 4, dims, 1);
  size_t rs = 0, sz = 0;
  DNN_OK(cudnnDropoutGetReserveSpaceSize(x.desc, &rs));
  void *reserve = dev_alloc(rs);
  oracle_report_status("bad.fwd.no_states", cudnnDropoutForward(handle, d, x.desc, x.dev, y.desc, y.dev, reserve, rs));
  oracle_report_status("bad.set.p_above_1", cudnnSetDropoutDescriptor(d, handle, 1.5f, states, states_size, 1));
  oracle_report_status("bad.set.p_negative", cudnnSetDropoutDescriptor(d, handle, -0.5f, states, states_size, 1));
  oracle_report_status("bad.set.null_desc", cudnnSetDropoutDescriptor(NULL, handle, 0.5f, states, states_size, 1));
  oracle_report_status("bad.set.states_small", cudnnSetDropoutDescriptor(d, handle, 0.5f, states, 1, 1));
  oracle_report_status("bad.restore.states_small", cudnnRestoreDropoutDescriptor(d, handle, 0.5f, states, 1, 1));
  oracle_report_status("ok.set.nostates", cudnnSetDropoutDescriptor(d, handle, 0.5f, NULL, 0, 1));
  oracle_report_status("bad.fwd.after_set_nostates", cudnnDropoutForward(handle, d, x.desc, x.dev, y.desc, y.dev, reserve, rs));
  DNN_OK(cudnnSetDropoutDescriptor(d, handle, 0.5f, states, states_size, 1));
  {
    float p = 0;
    void *sp = NULL;
    unsigned long long seed = 0;
    cudnnStatus_t st = cudnnGetDropoutDescriptor(d, handle, &p, &sp, &seed);
    printf("get.after_set tol=0 st=%d p=%g states_same=%d seed=%llu\n", (int)st, p, sp == states, seed);
    oracle_report_status("bad.get.null_p", cudnnGetDropoutDescriptor(d, handle, NULL, &sp, &seed));
  }
  oracle_report_status("bad.fwd.null_handle", cudnnDropoutForward(NULL, d, x.desc, x.dev, y.desc, y.dev, reserve, rs));
  oracle_report_status("bad.fwd.type_mismatch", cudnnDropoutForward(handle, d, x.desc, x.dev, h.desc, y.dev, reserve, rs));
  oracle_report_status("bad.fwd.count_mismatch", cudnnDropoutForward(handle, d, x.desc, x.dev, s.desc, y.dev, reserve, rs));
  oracle_report_status("bad.fwd.reserve_small", cudnnDropoutForward(handle, d, x.desc, x.dev, y.desc, y.dev, reserve, rs - 1));
  oracle_report_status("bad.fwd.inplace_strides", cudnnDropoutForward(handle, d, x.desc, x.dev, nhwc.desc, x.dev, reserve, rs));
  oracle_report_status("bad.fwd.int8", cudnnDropoutForward(handle, d, i8.desc, i8.dev, i8.desc, i8.dev, reserve, rs));
  oracle_report_status("probe.fwd.int32", cudnnDropoutForward(handle, d, i32.desc, i32.dev, i32.desc, i32.dev, reserve, rs));
  oracle_report_status("ok.fwd.nchw_to_nhwc", cudnnDropoutForward(handle, d, x.desc, x.dev, nhwc.desc, y.dev, reserve, rs));
  oracle_report_status("bad.bwd.reserve_small", cudnnDropoutBackward(handle, d, x.desc, x.dev, y.desc, y.dev, reserve, rs - 1));
  oracle_report_status("bad.bwd.count_mismatch", cudnnDropoutBackward(handle, d, x.desc, x.dev, s.desc, y.dev, reserve, rs));
  oracle_report_status("bad.bwd.type_mismatch", cudnnDropoutBackward(handle, d, x.desc, x.dev, h.desc, y.dev, reserve, rs));
  {
    int d3[4] = {1, 2, 60, 1};
    OTensor r;
    otensor_packed(&r, CUDNN_DATA_FLOAT, 4, d3, 0);
    oracle_report_status("probe.fwd.other_dims_same_count",
                         cudnnDropoutForward(handle, d, x.desc, x.dev, r.desc, r.dev, reserve, rs));
    otensor_free(&r);
  }
  cudnnStatus_t st = cudnnDropoutGetReserveSpaceSize(i32.desc, &sz);
  printf("probe.rs.int32 tol=0 st=%d\n", (int)st);
  printf("# states size %zu\n", states_size);
  cudaFree(reserve);
  cudnnDestroyDropoutDescriptor(d);
  otensor_free(&x);
  otensor_free(&y);
  otensor_free(&h);
  otensor_free(&s);
  otensor_free(&i8);
  otensor_free(&i32);
  otensor_free(&nhwc);
}

/* "--groups" prints the number of groups; an argument runs one group (a
 * crash then costs that group only); no argument runs all. */
int main(int argc, char **argv) {
  enum { kGroups = 7 };
  int only;
  if (oracle_groups_query(argc, argv, kGroups, &only)) return 0;
  setvbuf(stdout, NULL, _IONBF, 0);
  oracle_seed(4242);
  DNN_OK(cudnnCreate(&handle));
  DNN_OK(cudnnDropoutGetStatesSize(handle, &states_size));
  states = dev_alloc(states_size);
  cudnnDataType_t types[4] = {CUDNN_DATA_FLOAT, CUDNN_DATA_DOUBLE, CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16};
  float ps[5] = {0.0f, 0.1f, 0.5f, 0.9f, 1.0f};
  char name[64];
  for (int t = 0; t < 4; ++t) {
    if (only >= 0 && only != t) continue;
    for (int k = 0; k < 5; ++k) {
      snprintf(name, sizeof name, "fb.%s.p%g", oracle_type_name(types[t]), ps[k]);
      case_fb(name, types[t], 0, ps[k], 100 + k);
    }
  }
  if (only < 0 || only == 4) case_fb("fb.nhwc.f32.p0.3", CUDNN_DATA_FLOAT, 1, 0.3f, 9);
  if (only < 0 || only == 5) stream_cases();
  if (only < 0 || only == 6) bad_inputs();
  cudaFree(states);
  cudnnDestroy(handle);
  return 0;
}
