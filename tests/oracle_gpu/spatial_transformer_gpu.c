/* GPU differential program for the spatial transformer: grid generator and
 * bilinear sampler, forward and backward, on the same inputs in both
 * libraries (f32, f64, f16; NCHW and NHWC x; alpha/beta; output extents of
 * 1), plus status codes of bad calls. See oracle_common.h for the format. */
#include "oracle_program.h"

static cudnnHandle_t handle;

static double tol_of(cudnnDataType_t t) {
  return t == CUDNN_DATA_DOUBLE ? 1e-9 : (t == CUDNN_DATA_FLOAT ? 1e-4 : 1e-2);
}

/* Theta near the identity with a random perturbation. */
static void fill_theta(OTensor *t) {
  size_t es = oracle_type_size(t->type);
  void *h = malloc(t->span * es);
  for (size_t i = 0; i < t->span; ++i) {
    int k = (int)(i % 6);
    double base = (k == 0 || k == 4) ? 1.0 : 0.0;
    oracle_store(t->type, h, i, base + 0.3 * (2 * oracle_uniform() - 1));
  }
  CUDA_OK(cudaMemcpy(t->dev, h, t->span * es, cudaMemcpyHostToDevice));
  free(h);
}

static void run_case(const char *name, cudnnDataType_t t, int n, int c, int h, int w, int hi, int wi, int nhwc,
                     double alpha, double beta) {
  cudnnSpatialTransformerDescriptor_t st;
  DNN_OK(cudnnCreateSpatialTransformerDescriptor(&st));
  int dims[4] = {n, c, h, w};
  DNN_OK(cudnnSetSpatialTransformerNdDescriptor(st, CUDNN_SAMPLER_BILINEAR, t, 4, dims));
  int tdims[3] = {n, 2, 3}, tstr[3] = {6, 3, 1};
  int gdims[4] = {n, h, w, 2}, xdims[4] = {n, c, hi, wi};
  OTensor theta, grid, x, y, dy, dx, dgrid, dtheta;
  otensor_init(&theta, t, 3, tdims, tstr);
  otensor_packed(&grid, t, 4, gdims, 0);
  otensor_packed(&dgrid, t, 4, gdims, 0);
  otensor_init(&dtheta, t, 3, tdims, tstr);
  otensor_packed(&x, t, 4, xdims, nhwc);
  otensor_packed(&dx, t, 4, xdims, nhwc);
  otensor_packed(&y, t, 4, dims, nhwc);
  otensor_packed(&dy, t, 4, dims, nhwc);
  fill_theta(&theta);
  otensor_fill(&x, 0.25, 2.0);
  otensor_fill(&y, 0.25, 2.0);
  otensor_fill(&dy, 0.25, 2.0);
  otensor_fill(&dx, 0.25, 2.0);
  otensor_fill(&dgrid, 0.25, 2.0);
  char buf[160];
  cudnnStatus_t s = cudnnSpatialTfGridGeneratorForward(handle, st, theta.dev, grid.dev);
  snprintf(buf, sizeof buf, "%s.grid", name);
  oracle_report(buf, tol_of(t), s, &grid);
  Scale al = scale(alpha), be = scale(beta), ga = scale(1.5), gb = scale(beta);
  s = cudnnSpatialTfSamplerForward(handle, st, sp(&al, t), x.desc, x.dev, grid.dev, sp(&be, t), y.desc, y.dev);
  snprintf(buf, sizeof buf, "%s.y", name);
  oracle_report(buf, tol_of(t), s, &y);
  s = cudnnSpatialTfSamplerBackward(handle, st, sp(&al, t), x.desc, x.dev, sp(&be, t), dx.desc, dx.dev, sp(&ga, t),
                                    dy.desc, dy.dev, grid.dev, sp(&gb, t), dgrid.dev);
  snprintf(buf, sizeof buf, "%s.dx", name);
  oracle_report(buf, tol_of(t), s, &dx);
  snprintf(buf, sizeof buf, "%s.dgrid", name);
  oracle_report(buf, tol_of(t) * 10, s, &dgrid);
  s = cudnnSpatialTfGridGeneratorBackward(handle, st, dgrid.dev, dtheta.dev);
  snprintf(buf, sizeof buf, "%s.dtheta", name);
  oracle_report(buf, tol_of(t) * 10, s, &dtheta);
  otensor_free(&theta);
  otensor_free(&grid);
  otensor_free(&dgrid);
  otensor_free(&dtheta);
  otensor_free(&x);
  otensor_free(&dx);
  otensor_free(&y);
  otensor_free(&dy);
  cudnnDestroySpatialTransformerDescriptor(st);
}

static void bad_inputs(void) {
  cudnnSpatialTransformerDescriptor_t st;
  DNN_OK(cudnnCreateSpatialTransformerDescriptor(&st));
  int dims[4] = {2, 3, 4, 5}, d3[3] = {2, 3, 4}, d5[5] = {1, 2, 3, 4, 5};
  int xdims[4] = {2, 3, 6, 7}, bad_c[4] = {2, 4, 6, 7}, bad_y[4] = {2, 3, 4, 6}, gdims[4] = {2, 4, 5, 2};
  OTensor x, y, xc, yb, xh, grid, theta;
  otensor_packed(&x, CUDNN_DATA_FLOAT, 4, xdims, 0);
  otensor_packed(&y, CUDNN_DATA_FLOAT, 4, dims, 0);
  otensor_packed(&xc, CUDNN_DATA_FLOAT, 4, bad_c, 0);
  otensor_packed(&yb, CUDNN_DATA_FLOAT, 4, bad_y, 0);
  otensor_packed(&xh, CUDNN_DATA_HALF, 4, xdims, 0);
  otensor_packed(&grid, CUDNN_DATA_FLOAT, 4, gdims, 0);
  otensor_packed(&theta, CUDNN_DATA_FLOAT, 4, gdims, 0);
  fill_theta(&theta);
  otensor_fill(&grid, 0.1, 0.9);
  otensor_fill(&x, 0.1, 0.9);
  float one = 1, zero = 0;
  oracle_report_status("set.nb3", cudnnSetSpatialTransformerNdDescriptor(st, CUDNN_SAMPLER_BILINEAR, CUDNN_DATA_FLOAT, 3, d3));
  oracle_report_status("grid.nb3", cudnnSpatialTfGridGeneratorForward(handle, st, theta.dev, grid.dev));
  oracle_report_status("set.nb5", cudnnSetSpatialTransformerNdDescriptor(st, CUDNN_SAMPLER_BILINEAR, CUDNN_DATA_FLOAT, 5, d5));
  oracle_report_status("grid.nb5", cudnnSpatialTfGridGeneratorForward(handle, st, theta.dev, grid.dev));
  oracle_report_status("set.bf16", cudnnSetSpatialTransformerNdDescriptor(st, CUDNN_SAMPLER_BILINEAR, CUDNN_DATA_BFLOAT16, 4, dims));
  oracle_report_status("set.int8", cudnnSetSpatialTransformerNdDescriptor(st, CUDNN_SAMPLER_BILINEAR, CUDNN_DATA_INT8, 4, dims));
  oracle_report_status("set.sampler1", cudnnSetSpatialTransformerNdDescriptor(st, (cudnnSamplerType_t)1, CUDNN_DATA_FLOAT, 4, dims));
  oracle_report_status("set.ok", cudnnSetSpatialTransformerNdDescriptor(st, CUDNN_SAMPLER_BILINEAR, CUDNN_DATA_FLOAT, 4, dims));
  oracle_report_status("grid.null_theta", cudnnSpatialTfGridGeneratorForward(handle, st, NULL, grid.dev));
  oracle_report_status("grid.null_handle", cudnnSpatialTfGridGeneratorForward(NULL, st, theta.dev, grid.dev));
  oracle_report_status("gridbwd.null_dgrid", cudnnSpatialTfGridGeneratorBackward(handle, st, NULL, theta.dev));
  oracle_report_status("fwd.ok", cudnnSpatialTfSamplerForward(handle, st, &one, x.desc, x.dev, grid.dev, &zero, y.desc, y.dev));
  oracle_report_status("fwd.null_x", cudnnSpatialTfSamplerForward(handle, st, &one, x.desc, NULL, grid.dev, &zero, y.desc, y.dev));
  oracle_report_status("fwd.null_grid", cudnnSpatialTfSamplerForward(handle, st, &one, x.desc, x.dev, NULL, &zero, y.desc, y.dev));
  oracle_report_status("fwd.bad_c", cudnnSpatialTfSamplerForward(handle, st, &one, xc.desc, xc.dev, grid.dev, &zero, y.desc, y.dev));
  oracle_report_status("fwd.bad_y", cudnnSpatialTfSamplerForward(handle, st, &one, x.desc, x.dev, grid.dev, &zero, yb.desc, yb.dev));
  oracle_report_status("fwd.half_x", cudnnSpatialTfSamplerForward(handle, st, &one, xh.desc, xh.dev, grid.dev, &zero, y.desc, y.dev));
  oracle_report_status("bwd.ok", cudnnSpatialTfSamplerBackward(handle, st, &one, x.desc, x.dev, &zero, x.desc, x.dev, &one,
                                                               y.desc, y.dev, grid.dev, &zero, theta.dev));
  oracle_report_status("bwd.bad_dy", cudnnSpatialTfSamplerBackward(handle, st, &one, x.desc, x.dev, &zero, x.desc, x.dev, &one,
                                                                   yb.desc, yb.dev, grid.dev, &zero, theta.dev));
  oracle_report_status("bwd.bad_dx", cudnnSpatialTfSamplerBackward(handle, st, &one, x.desc, x.dev, &zero, y.desc, y.dev, &one,
                                                                   y.desc, y.dev, grid.dev, &zero, theta.dev));
  oracle_report_status("bwd.null_dgrid", cudnnSpatialTfSamplerBackward(handle, st, &one, x.desc, x.dev, &zero, x.desc, x.dev,
                                                                       &one, y.desc, y.dev, grid.dev, &zero, NULL));
  otensor_free(&x);
  otensor_free(&y);
  otensor_free(&xc);
  otensor_free(&yb);
  otensor_free(&xh);
  otensor_free(&grid);
  otensor_free(&theta);
  cudnnDestroySpatialTransformerDescriptor(st);
}

int main(void) {
  oracle_seed(99);
  DNN_OK(cudnnCreate(&handle));
  run_case("st.f32.nchw", CUDNN_DATA_FLOAT, 2, 3, 7, 9, 8, 10, 0, 1.0, 0.0);
  run_case("st.f32.nchw.blend", CUDNN_DATA_FLOAT, 2, 3, 7, 9, 8, 10, 0, 0.5, 1.5);
  run_case("st.f32.nhwc", CUDNN_DATA_FLOAT, 2, 4, 6, 5, 9, 7, 1, 1.0, 0.0);
  run_case("st.f64.nchw", CUDNN_DATA_DOUBLE, 3, 2, 5, 6, 7, 4, 0, 1.0, 0.0);
  run_case("st.f16.nchw", CUDNN_DATA_HALF, 2, 3, 7, 9, 8, 10, 0, 1.0, 0.0);
  run_case("st.f32.w1", CUDNN_DATA_FLOAT, 1, 2, 5, 1, 6, 6, 0, 1.0, 0.0);
  run_case("st.f32.h1", CUDNN_DATA_FLOAT, 1, 2, 1, 5, 6, 6, 0, 1.0, 0.0);
  run_case("st.f32.in1x1", CUDNN_DATA_FLOAT, 1, 2, 4, 4, 1, 1, 0, 1.0, 0.0);
  run_case("st.f32.big", CUDNN_DATA_FLOAT, 4, 16, 32, 48, 40, 40, 0, 1.0, 0.0);
  bad_inputs();
  cudnnDestroy(handle);
  return 0;
}
