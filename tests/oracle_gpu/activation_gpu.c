/* GPU differential program for cudnnActivationForward / Backward and the
 * activation descriptor: every mode, types, layouts, blending, in-place,
 * NaN options, status codes of bad calls, and probes of which forward value
 * (x or y) the legacy backward reads. Built against FreeDNN and NVIDIA's
 * cuDNN; see oracle_common.h for the output format. */
#include "oracle_program.h"

static cudnnHandle_t handle;

static double tol_of(cudnnDataType_t t) {
  switch (t) {
    case CUDNN_DATA_DOUBLE: return 1e-9;
    case CUDNN_DATA_FLOAT: return 2e-5;
    case CUDNN_DATA_HALF: return 4e-3;
    default: return 2e-2;
  }
}

static const char *kModes[] = {"sigmoid", "relu", "tanh", "clipped", "elu", "identity", "swish"};

static cudnnActivationDescriptor_t make_act(int mode, int nan, double coef, double swish_beta) {
  cudnnActivationDescriptor_t a;
  DNN_OK(cudnnCreateActivationDescriptor(&a));
  DNN_OK(cudnnSetActivationDescriptor(a, (cudnnActivationMode_t)mode, (cudnnNanPropagation_t)nan, coef));
  DNN_OK(cudnnSetActivationDescriptorSwishBeta(a, swish_beta));
  return a;
}

/* Forward then backward on one shape; y fed to backward is the forward's
 * (consistent) output unless `independent_y`. */
static void act_case(const char *tag, int mode, cudnnDataType_t t, int nb, const int *dims, int channels_last,
                     double alpha, double beta, int independent_y) {
  char name[160];
  cudnnActivationDescriptor_t a = make_act(mode, 0, mode == 3 ? 1.25 : 0.7, 1.3);
  OTensor x, y, dy, dx;
  otensor_packed(&x, t, nb, dims, channels_last);
  otensor_packed(&y, t, nb, dims, channels_last);
  otensor_packed(&dy, t, nb, dims, channels_last);
  otensor_packed(&dx, t, nb, dims, channels_last);
  otensor_fill(&x, 0.05, 3.0);
  otensor_fill(&y, 0.25, 2.0);
  otensor_fill(&dy, 0.25, 2.0);
  otensor_fill(&dx, 0.25, 2.0);
  Scale al = scale(alpha), be = scale(beta), one = scale(1), zero = scale(0);
  cudnnStatus_t st = cudnnActivationForward(handle, a, sp(&al, t), x.desc, x.dev, sp(&be, t), y.desc, y.dev);
  snprintf(name, sizeof name, "act.fwd.%s.%s.%s", tag, kModes[mode], oracle_type_name(t));
  oracle_report(name, tol_of(t), st, &y);
  if (!independent_y) {  /* y = f(x) exactly, for the backward */
    cudnnActivationForward(handle, a, sp(&one, t), x.desc, x.dev, sp(&zero, t), y.desc, y.dev);
  } else {
    otensor_fill(&y, 0.1, 0.9);
  }
  st = cudnnActivationBackward(handle, a, sp(&al, t), y.desc, y.dev, dy.desc, dy.dev, x.desc, x.dev, sp(&be, t), dx.desc,
                               dx.dev);
  snprintf(name, sizeof name, "act.bwd.%s.%s.%s", tag, kModes[mode], oracle_type_name(t));
  oracle_report(name, tol_of(t), st, &dx);
  otensor_free(&x);
  otensor_free(&y);
  otensor_free(&dy);
  otensor_free(&dx);
  cudnnDestroyActivationDescriptor(a);
}

static void value_cases(void) {
  int d4[4] = {3, 20, 7, 9}, d5[5] = {2, 8, 3, 5, 7};
  cudnnDataType_t types[] = {CUDNN_DATA_FLOAT, CUDNN_DATA_HALF, CUDNN_DATA_DOUBLE, CUDNN_DATA_BFLOAT16};
  for (int m = 0; m <= 6; ++m)
    for (int i = 0; i < 4; ++i) {
      act_case("nchw", m, types[i], 4, d4, 0, 1.0, 0.0, 0);
      act_case("nhwc.blend", m, types[i], 4, d4, 1, -0.75, 0.5, 0);
      act_case("5d", m, types[i], 5, d5, 0, 2.0, 0.0, 0);
    }
  /* Which forward value does the backward read? y independent of x. */
  for (int m = 0; m <= 6; ++m) act_case("probe.indep_y", m, CUDNN_DATA_FLOAT, 4, d4, 0, 1.0, 0.0, 1);
}

static void nan_cases(void) {
  int dims[4] = {1, 1, 1, 4};
  for (int m = 1; m <= 3; m += 2)
    for (int nan = 0; nan <= 1; ++nan) {
      cudnnActivationDescriptor_t a = make_act(m, nan, 2.0, 1.0);
      OTensor x, y;
      otensor_packed(&x, CUDNN_DATA_FLOAT, 4, dims, 0);
      otensor_packed(&y, CUDNN_DATA_FLOAT, 4, dims, 0);
      float h[4] = {NAN, -1.0f, 0.5f, 7.0f};
      CUDA_OK(cudaMemcpy(x.dev, h, sizeof h, cudaMemcpyHostToDevice));
      float one = 1, zero = 0;
      char name[64];
      snprintf(name, sizeof name, "act.nan.%s.%d", kModes[m], nan);
      oracle_report(name, 1e-6, cudnnActivationForward(handle, a, &one, x.desc, x.dev, &zero, y.desc, y.dev), &y);
      otensor_free(&x);
      otensor_free(&y);
      cudnnDestroyActivationDescriptor(a);
    }
}

static void bad_input_cases(void) {
  int dims[4] = {2, 3, 4, 5}, other[4] = {2, 3, 4, 6}, d3[3] = {2, 3, 20}, d6[6] = {1, 2, 1, 2, 1, 2};
  OTensor x, xh, xo, xn, x8, x3, x6, dx;
  otensor_packed(&x, CUDNN_DATA_FLOAT, 4, dims, 0);
  otensor_packed(&xn, CUDNN_DATA_FLOAT, 4, dims, 1);
  otensor_packed(&dx, CUDNN_DATA_FLOAT, 4, dims, 0);
  otensor_packed(&xh, CUDNN_DATA_HALF, 4, dims, 0);
  otensor_packed(&xo, CUDNN_DATA_FLOAT, 4, other, 0);
  otensor_packed(&x8, CUDNN_DATA_INT8, 4, dims, 0);
  otensor_packed(&x3, CUDNN_DATA_FLOAT, 3, d3, 0);
  otensor_packed(&x6, CUDNN_DATA_FLOAT, 6, d6, 0);
  otensor_fill(&x, 0.25, 2.0);
  otensor_fill(&dx, 0.25, 2.0);
  cudnnActivationDescriptor_t a = make_act(1, 0, 0.0, 1.0);
  float one = 1, zero = 0;
#define ST(n, call) oracle_report_status("act.bad." n, (call))
  ST("fwd.null_handle", cudnnActivationForward(NULL, a, &one, x.desc, x.dev, &zero, dx.desc, dx.dev));
  ST("fwd.null_desc", cudnnActivationForward(handle, NULL, &one, x.desc, x.dev, &zero, dx.desc, dx.dev));
  ST("fwd.null_alpha", cudnnActivationForward(handle, a, NULL, x.desc, x.dev, &zero, dx.desc, dx.dev));
  ST("fwd.null_xdesc", cudnnActivationForward(handle, a, &one, NULL, x.dev, &zero, dx.desc, dx.dev));
  ST("fwd.null_x", cudnnActivationForward(handle, a, &one, x.desc, NULL, &zero, dx.desc, dx.dev));
  ST("fwd.null_y", cudnnActivationForward(handle, a, &one, x.desc, x.dev, &zero, dx.desc, NULL));
  ST("fwd.dims", cudnnActivationForward(handle, a, &one, x.desc, x.dev, &zero, xo.desc, xo.dev));
  ST("fwd.type", cudnnActivationForward(handle, a, &one, x.desc, x.dev, &zero, xh.desc, xh.dev));
  ST("fwd.int8", cudnnActivationForward(handle, a, &one, x8.desc, x8.dev, &zero, x8.desc, x8.dev));
  ST("fwd.rank3", cudnnActivationForward(handle, a, &one, x3.desc, x3.dev, &zero, x3.desc, x3.dev));
  ST("fwd.rank6", cudnnActivationForward(handle, a, &one, x6.desc, x6.dev, &zero, x6.desc, x6.dev));
  ST("fwd.inplace_strides", cudnnActivationForward(handle, a, &one, x.desc, x.dev, &zero, xn.desc, x.dev));
  ST("fwd.layouts", cudnnActivationForward(handle, a, &one, x.desc, x.dev, &zero, xn.desc, xn.dev));
  ST("bwd.null_handle", cudnnActivationBackward(NULL, a, &one, x.desc, x.dev, x.desc, x.dev, x.desc, x.dev, &zero, dx.desc, dx.dev));
  ST("bwd.null_desc", cudnnActivationBackward(handle, NULL, &one, x.desc, x.dev, x.desc, x.dev, x.desc, x.dev, &zero, dx.desc, dx.dev));
  ST("bwd.null_y", cudnnActivationBackward(handle, a, &one, x.desc, NULL, x.desc, x.dev, x.desc, x.dev, &zero, dx.desc, dx.dev));
  ST("bwd.null_x", cudnnActivationBackward(handle, a, &one, x.desc, x.dev, x.desc, x.dev, x.desc, NULL, &zero, dx.desc, dx.dev));
  ST("bwd.null_dx", cudnnActivationBackward(handle, a, &one, x.desc, x.dev, x.desc, x.dev, x.desc, x.dev, &zero, dx.desc, NULL));
  ST("bwd.dims", cudnnActivationBackward(handle, a, &one, x.desc, x.dev, xo.desc, xo.dev, x.desc, x.dev, &zero, dx.desc, dx.dev));
  ST("bwd.type", cudnnActivationBackward(handle, a, &one, x.desc, x.dev, x.desc, x.dev, x.desc, x.dev, &zero, xh.desc, xh.dev));
  ST("bwd.int8", cudnnActivationBackward(handle, a, &one, x8.desc, x8.dev, x8.desc, x8.dev, x8.desc, x8.dev, &zero, x8.desc, x8.dev));
  ST("bwd.y_dy_strides", cudnnActivationBackward(handle, a, &one, x.desc, x.dev, xn.desc, xn.dev, x.desc, x.dev, &zero, dx.desc, dx.dev));
  ST("bwd.x_dx_strides", cudnnActivationBackward(handle, a, &one, x.desc, x.dev, x.desc, x.dev, x.desc, x.dev, &zero, xn.desc, xn.dev));
  ST("bwd.inplace_strides", cudnnActivationBackward(handle, a, &one, x.desc, x.dev, x.desc, dx.dev, x.desc, x.dev, &zero, xn.desc, dx.dev));
  {
    cudnnActivationDescriptor_t sg = make_act(0, 0, 0.0, 1.0), sw = make_act(6, 0, 0.0, 1.0);
    ST("probe.bwd.sigmoid.null_x", cudnnActivationBackward(handle, sg, &one, x.desc, x.dev, x.desc, x.dev, x.desc, NULL, &zero, dx.desc, dx.dev));
    ST("probe.bwd.sigmoid.null_y", cudnnActivationBackward(handle, sg, &one, x.desc, NULL, x.desc, x.dev, x.desc, x.dev, &zero, dx.desc, dx.dev));
    ST("probe.bwd.swish.null_y", cudnnActivationBackward(handle, sw, &one, x.desc, NULL, x.desc, x.dev, x.desc, x.dev, &zero, dx.desc, dx.dev));
    ST("probe.bwd.x_vs_y_layout", cudnnActivationBackward(handle, sg, &one, xn.desc, xn.dev, xn.desc, xn.dev, x.desc, x.dev, &zero, dx.desc, dx.dev));
    ST("probe.fwd.int8_to_f32", cudnnActivationForward(handle, a, &one, x8.desc, x8.dev, &zero, x.desc, x.dev));
    cudnnDestroyActivationDescriptor(sg);
    cudnnDestroyActivationDescriptor(sw);
  }
  cudnnActivationMode_t m;
  cudnnNanPropagation_t n;
  double c;
  ST("desc.set_mode7", cudnnSetActivationDescriptor(a, (cudnnActivationMode_t)7, CUDNN_PROPAGATE_NAN, 1.0));
  ST("desc.set_nan2", cudnnSetActivationDescriptor(a, CUDNN_ACTIVATION_RELU, (cudnnNanPropagation_t)2, 1.0));
  ST("desc.get_null", cudnnGetActivationDescriptor(NULL, &m, &n, &c));
#undef ST
  cudnnDestroyActivationDescriptor(a);
  otensor_free(&x); otensor_free(&xn); otensor_free(&dx); otensor_free(&xh); otensor_free(&xo); otensor_free(&x8);
  otensor_free(&x3); otensor_free(&x6);
}

int main(void) {
  if (!oracle_open(&handle, 20250301)) return 1;
  value_cases();
  nan_cases();
  bad_input_cases();
  cudnnDestroy(handle);
  return 0;
}
