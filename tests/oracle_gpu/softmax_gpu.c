/* GPU differential program for cudnnSoftmaxForward / Backward: algorithms,
 * modes, types, layouts (NCHW, NHWC, padded strides), blending, large inputs,
 * and status codes of bad calls. Built against FreeDNN and NVIDIA's cuDNN;
 * see oracle_common.h for the output format. */
#include "oracle_program.h"

static cudnnHandle_t handle;

static double tol_of(cudnnDataType_t t) {
  switch (t) {
    case CUDNN_DATA_DOUBLE: return 1e-9;
    case CUDNN_DATA_FLOAT: return 5e-5;
    case CUDNN_DATA_HALF: return 4e-3;
    default: return 2e-2;
  }
}

static const char *kAlgos[] = {"fast", "accurate", "log"};
static const char *kModes[] = {"instance", "channel"};

/* layout: 0 NCHW, 1 NHWC, 2 padded (every stride one larger than packed). */
static void make(OTensor *t, cudnnDataType_t type, int nb, const int *dims, int layout) {
  if (layout < 2) {
    otensor_packed(t, type, nb, dims, layout);
    return;
  }
  int s[8];
  s[nb - 1] = 1;
  for (int d = nb - 2; d >= 0; --d) s[d] = s[d + 1] * dims[d + 1] + 1;
  otensor_init(t, type, nb, dims, s);
}

static void sm_case(const char *tag, int algo, int mode, cudnnDataType_t t, int nb, const int *dims, int layout,
                    double alpha, double beta, double lo, double hi) {
  char name[160];
  OTensor x, y, dy, dx;
  make(&x, t, nb, dims, layout);
  make(&y, t, nb, dims, layout);
  make(&dy, t, nb, dims, layout);
  make(&dx, t, nb, dims, layout);
  otensor_fill(&x, lo, hi);
  otensor_fill(&y, 0.25, 2.0);
  otensor_fill(&dy, 0.25, 2.0);
  otensor_fill(&dx, 0.25, 2.0);
  Scale al = scale(alpha), be = scale(beta), one = scale(1), zero = scale(0);
  cudnnStatus_t st = cudnnSoftmaxForward(handle, (cudnnSoftmaxAlgorithm_t)algo, (cudnnSoftmaxMode_t)mode, sp(&al, t),
                                         x.desc, x.dev, sp(&be, t), y.desc, y.dev);
  snprintf(name, sizeof name, "sm.fwd.%s.%s.%s.%s", tag, kAlgos[algo], kModes[mode], oracle_type_name(t));
  oracle_report(name, tol_of(t), st, &y);
  cudnnSoftmaxForward(handle, (cudnnSoftmaxAlgorithm_t)algo, (cudnnSoftmaxMode_t)mode, sp(&one, t), x.desc, x.dev,
                      sp(&zero, t), y.desc, y.dev);
  st = cudnnSoftmaxBackward(handle, (cudnnSoftmaxAlgorithm_t)algo, (cudnnSoftmaxMode_t)mode, sp(&al, t), y.desc, y.dev,
                            dy.desc, dy.dev, sp(&be, t), dx.desc, dx.dev);
  snprintf(name, sizeof name, "sm.bwd.%s.%s.%s.%s", tag, kAlgos[algo], kModes[mode], oracle_type_name(t));
  oracle_report(name, tol_of(t), st, &dx);
  otensor_free(&x);
  otensor_free(&y);
  otensor_free(&dy);
  otensor_free(&dx);
}

static void value_cases(void) {
  int d4[4] = {3, 37, 5, 6}, d5[5] = {2, 9, 3, 4, 5}, rows[4] = {64, 1000, 1, 1}, wide[4] = {8, 5000, 1, 1};
  cudnnDataType_t types[] = {CUDNN_DATA_FLOAT, CUDNN_DATA_HALF, CUDNN_DATA_DOUBLE, CUDNN_DATA_BFLOAT16};
  for (int a = 0; a <= 2; ++a)
    for (int m = 0; m <= 1; ++m)
      for (int i = 0; i < 4; ++i) {
        sm_case("nchw", a, m, types[i], 4, d4, 0, 1.0, 0.0, 0.05, 4.0);
        sm_case("nhwc.blend", a, m, types[i], 4, d4, 1, -0.5, 0.75, 0.05, 4.0);
        sm_case("padded.5d", a, m, types[i], 5, d5, 2, 1.0, 0.0, 0.05, 4.0);
        sm_case("rows", a, m, types[i], 4, rows, 0, 1.0, 0.0, 0.05, 4.0);
        sm_case("wide", a, m, types[i], 4, wide, 0, 1.0, 0.0, 0.05, 4.0);
      }
  /* ACCURATE and LOG must not overflow. */
  for (int a = 1; a <= 2; ++a) sm_case("large", a, 1, CUDNN_DATA_FLOAT, 4, rows, 0, 1.0, 0.0, 1000.0, 1010.0);
}

static void bad_input_cases(void) {
  int dims[4] = {2, 3, 4, 5}, other[4] = {2, 3, 4, 6}, d3[3] = {2, 3, 20}, d6[6] = {1, 2, 1, 2, 1, 2};
  OTensor x, xn, xh, xo, x8, x3, x6, dx;
  otensor_packed(&x, CUDNN_DATA_FLOAT, 4, dims, 0);
  otensor_packed(&xn, CUDNN_DATA_FLOAT, 4, dims, 1);
  otensor_packed(&dx, CUDNN_DATA_FLOAT, 4, dims, 0);
  otensor_packed(&xh, CUDNN_DATA_HALF, 4, dims, 0);
  otensor_packed(&xo, CUDNN_DATA_FLOAT, 4, other, 0);
  otensor_packed(&x8, CUDNN_DATA_INT8, 4, dims, 0);
  otensor_packed(&x3, CUDNN_DATA_FLOAT, 3, d3, 0);
  otensor_packed(&x6, CUDNN_DATA_FLOAT, 6, d6, 0);
  otensor_fill(&x, 0.25, 2.0);
  float one = 1, zero = 0;
  const cudnnSoftmaxAlgorithm_t A = CUDNN_SOFTMAX_ACCURATE;
  const cudnnSoftmaxMode_t M = CUDNN_SOFTMAX_MODE_CHANNEL;
#define ST(n, call) oracle_report_status("sm.bad." n, (call))
  ST("fwd.null_handle", cudnnSoftmaxForward(NULL, A, M, &one, x.desc, x.dev, &zero, dx.desc, dx.dev));
  ST("fwd.algo3", cudnnSoftmaxForward(handle, (cudnnSoftmaxAlgorithm_t)3, M, &one, x.desc, x.dev, &zero, dx.desc, dx.dev));
  ST("fwd.mode2", cudnnSoftmaxForward(handle, A, (cudnnSoftmaxMode_t)2, &one, x.desc, x.dev, &zero, dx.desc, dx.dev));
  ST("fwd.null_alpha", cudnnSoftmaxForward(handle, A, M, NULL, x.desc, x.dev, &zero, dx.desc, dx.dev));
  ST("fwd.null_xdesc", cudnnSoftmaxForward(handle, A, M, &one, NULL, x.dev, &zero, dx.desc, dx.dev));
  ST("fwd.null_x", cudnnSoftmaxForward(handle, A, M, &one, x.desc, NULL, &zero, dx.desc, dx.dev));
  ST("fwd.null_y", cudnnSoftmaxForward(handle, A, M, &one, x.desc, x.dev, &zero, dx.desc, NULL));
  ST("fwd.dims", cudnnSoftmaxForward(handle, A, M, &one, x.desc, x.dev, &zero, xo.desc, xo.dev));
  ST("fwd.type", cudnnSoftmaxForward(handle, A, M, &one, x.desc, x.dev, &zero, xh.desc, xh.dev));
  ST("fwd.int8", cudnnSoftmaxForward(handle, A, M, &one, x8.desc, x8.dev, &zero, x8.desc, x8.dev));
  ST("fwd.rank3", cudnnSoftmaxForward(handle, A, M, &one, x3.desc, x3.dev, &zero, x3.desc, x3.dev));
  ST("fwd.rank6", cudnnSoftmaxForward(handle, A, M, &one, x6.desc, x6.dev, &zero, x6.desc, x6.dev));
  ST("fwd.inplace_strides", cudnnSoftmaxForward(handle, A, M, &one, x.desc, x.dev, &zero, xn.desc, x.dev));
  ST("fwd.layouts", cudnnSoftmaxForward(handle, A, M, &one, x.desc, x.dev, &zero, xn.desc, xn.dev));
  ST("bwd.null_handle", cudnnSoftmaxBackward(NULL, A, M, &one, x.desc, x.dev, x.desc, x.dev, &zero, dx.desc, dx.dev));
  ST("bwd.algo3", cudnnSoftmaxBackward(handle, (cudnnSoftmaxAlgorithm_t)3, M, &one, x.desc, x.dev, x.desc, x.dev, &zero, dx.desc, dx.dev));
  ST("bwd.null_y", cudnnSoftmaxBackward(handle, A, M, &one, x.desc, NULL, x.desc, x.dev, &zero, dx.desc, dx.dev));
  ST("bwd.null_dx", cudnnSoftmaxBackward(handle, A, M, &one, x.desc, x.dev, x.desc, x.dev, &zero, dx.desc, NULL));
  ST("bwd.dims", cudnnSoftmaxBackward(handle, A, M, &one, x.desc, x.dev, xo.desc, xo.dev, &zero, dx.desc, dx.dev));
  ST("bwd.type", cudnnSoftmaxBackward(handle, A, M, &one, x.desc, x.dev, x.desc, x.dev, &zero, xh.desc, xh.dev));
  ST("bwd.int8", cudnnSoftmaxBackward(handle, A, M, &one, x8.desc, x8.dev, x8.desc, x8.dev, &zero, x8.desc, x8.dev));
  ST("bwd.layouts", cudnnSoftmaxBackward(handle, A, M, &one, x.desc, x.dev, xn.desc, xn.dev, &zero, dx.desc, dx.dev));
  ST("probe.bwd.dx_layout", cudnnSoftmaxBackward(handle, A, M, &one, x.desc, x.dev, x.desc, x.dev, &zero, xn.desc, xn.dev));
  ST("probe.bwd.y_layout", cudnnSoftmaxBackward(handle, A, M, &one, xn.desc, xn.dev, x.desc, x.dev, &zero, x.desc, dx.dev));
  ST("probe.bwd.int8", cudnnSoftmaxBackward(handle, A, M, &one, x8.desc, x8.dev, x8.desc, x8.dev, &zero, x8.desc, x8.dev));
  ST("bwd.inplace_strides", cudnnSoftmaxBackward(handle, A, M, &one, x.desc, x.dev, x.desc, dx.dev, &zero, xn.desc, dx.dev));
#undef ST
  otensor_free(&x); otensor_free(&xn); otensor_free(&dx); otensor_free(&xh); otensor_free(&xo); otensor_free(&x8);
  otensor_free(&x3); otensor_free(&x6);
}

int main(void) {
  if (!oracle_open(&handle, 20250302)) return 1;
  value_cases();
  bad_input_cases();
  cudnnDestroy(handle);
  return 0;
}
