/* GPU differential program for the legacy tensor operations: cudnnAddTensor,
 * cudnnOpTensor, cudnnSetTensor, cudnnScaleTensor, cudnnTransformTensor and
 * cudnnReduceTensor on device memory, plus status codes of bad calls.
 * Built against FreeDNN and against NVIDIA's cuDNN; see oracle_common.h for
 * the output format. */
#include "oracle_common.h"

static cudnnHandle_t handle;

/* Tolerance of a result by output type (relative, see the compare script). */
static double tol_of(cudnnDataType_t t) {
  switch (t) {
    case CUDNN_DATA_DOUBLE: return 1e-9;
    case CUDNN_DATA_FLOAT: return 2e-5;
    case CUDNN_DATA_HALF: return 2e-3;
    case CUDNN_DATA_BFLOAT16: return 1.6e-2;
    default: return 0;  /* integers: exact */
  }
}

/* alpha/beta are double for double tensors, float otherwise. */
typedef struct {
  float f;
  double d;
} Scale;
static Scale scale(double v) {
  Scale s = {(float)v, v};
  return s;
}
static const void *sp(const Scale *s, cudnnDataType_t t) { return t == CUDNN_DATA_DOUBLE ? (const void *)&s->d : (const void *)&s->f; }

/* ------------------------------------------------------------------ AddTensor */
static void add_tensor_case(const char *name, cudnnDataType_t t, int nb, const int *cdims, const int *adims,
                            int channels_last, double alpha, double beta) {
  OTensor a, c;
  otensor_packed(&a, t, nb, adims, channels_last);
  otensor_packed(&c, t, nb, cdims, channels_last);
  otensor_fill(&a, 0.25, 2.0);
  otensor_fill(&c, 0.25, 2.0);
  Scale al = scale(alpha), be = scale(beta);
  cudnnStatus_t st = cudnnAddTensor(handle, sp(&al, t), a.desc, a.dev, sp(&be, t), c.desc, c.dev);
  oracle_report(name, tol_of(t), st, &c);
  otensor_free(&a);
  otensor_free(&c);
}

static void add_tensor_cases(void) {
  int c4[4] = {4, 32, 9, 11}, bias[4] = {1, 32, 1, 1}, same[4] = {4, 32, 9, 11}, hw[4] = {1, 1, 9, 11};
  cudnnDataType_t types[] = {CUDNN_DATA_FLOAT, CUDNN_DATA_HALF, CUDNN_DATA_DOUBLE, CUDNN_DATA_BFLOAT16};
  char name[128];
  for (int i = 0; i < 4; ++i) {
    const char *tn = oracle_type_name(types[i]);
    snprintf(name, sizeof name, "add.bias.nchw.%s", tn);
    add_tensor_case(name, types[i], 4, c4, bias, 0, 0.75, 1.0);
    snprintf(name, sizeof name, "add.bias.nhwc.%s", tn);
    add_tensor_case(name, types[i], 4, c4, bias, 1, -1.5, 0.5);
    snprintf(name, sizeof name, "add.same.beta0.%s", tn);
    add_tensor_case(name, types[i], 4, c4, same, 0, 2.0, 0.0);
    snprintf(name, sizeof name, "add.hw.%s", tn);
    add_tensor_case(name, types[i], 4, c4, hw, 0, 1.0, -0.25);
  }
  int c5[5] = {2, 8, 3, 5, 7}, b5[5] = {1, 8, 1, 1, 1};
  add_tensor_case("add.bias.5d.f32", CUDNN_DATA_FLOAT, 5, c5, b5, 0, 1.0, 1.0);
  add_tensor_case("add.bias.5d.ndhwc.f32", CUDNN_DATA_FLOAT, 5, c5, b5, 1, 1.0, 1.0);
}

/* ------------------------------------------------------------------ OpTensor */
/* A and B of type ta, C of type t. */
static void op_tensor_case_mixed(const char *name, cudnnOpTensorOp_t op, cudnnDataType_t ta, cudnnDataType_t t,
                                 cudnnDataType_t comp, cudnnNanPropagation_t nan, int nb, const int *cdims,
                                 const int *bdims, int channels_last, double a1, double a2, double beta, int positive) {
  cudnnOpTensorDescriptor_t od;
  DNN_OK(cudnnCreateOpTensorDescriptor(&od));
  DNN_OK(cudnnSetOpTensorDescriptor(od, op, comp, nan));
  OTensor a, b, c;
  otensor_packed(&a, ta, nb, cdims, channels_last);
  otensor_packed(&b, ta, nb, bdims, channels_last);
  otensor_packed(&c, t, nb, cdims, channels_last);
  /* Integer inputs get values of a few units (the fill rounds them). */
  const double scale_in = (ta == CUDNN_DATA_INT8) ? 20.0 : 1.0;
  if (positive) {
    otensor_fill_positive(&a, 0.25 * scale_in, 4.0 * scale_in);
  } else {
    otensor_fill(&a, 0.25 * scale_in, 2.0 * scale_in);
  }
  otensor_fill(&b, 0.25 * scale_in, 2.0 * scale_in);
  otensor_fill(&c, 0.25, 2.0);
  Scale s1 = scale(a1), s2 = scale(a2), sb = scale(beta);
  cudnnStatus_t st = cudnnOpTensor(handle, od, sp(&s1, t), a.desc, a.dev, sp(&s2, t), b.desc, b.dev, sp(&sb, t), c.desc, c.dev);
  double tol = tol_of(t) > tol_of(ta) ? tol_of(t) : tol_of(ta);
  if (t == CUDNN_DATA_INT8) tol = 1e-6; /* integer results: exact up to a rounding tie */
  oracle_report(name, tol, st, &c);
  otensor_free(&a);
  otensor_free(&b);
  otensor_free(&c);
  cudnnDestroyOpTensorDescriptor(od);
}

static void op_tensor_case(const char *name, cudnnOpTensorOp_t op, cudnnDataType_t t, cudnnDataType_t comp,
                           cudnnNanPropagation_t nan, int nb, const int *cdims, const int *bdims, int channels_last,
                           double a1, double a2, double beta, int positive) {
  op_tensor_case_mixed(name, op, t, t, comp, nan, nb, cdims, bdims, channels_last, a1, a2, beta, positive);
}

static void op_tensor_cases(void) {
  int c4[4] = {3, 16, 7, 13}, bias[4] = {1, 16, 1, 1};
  const cudnnOpTensorOp_t ops[] = {CUDNN_OP_TENSOR_ADD, CUDNN_OP_TENSOR_MUL, CUDNN_OP_TENSOR_MIN, CUDNN_OP_TENSOR_MAX,
                                   CUDNN_OP_TENSOR_SQRT, CUDNN_OP_TENSOR_NOT};
  const char *opn[] = {"add", "mul", "min", "max", "sqrt", "not"};
  cudnnDataType_t types[] = {CUDNN_DATA_FLOAT, CUDNN_DATA_HALF, CUDNN_DATA_DOUBLE};
  char name[128];
  for (int o = 0; o < 6; ++o) {
    for (int i = 0; i < 3; ++i) {
      cudnnDataType_t comp = types[i] == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
      int positive = ops[o] == CUDNN_OP_TENSOR_SQRT;
      snprintf(name, sizeof name, "op.%s.same.%s", opn[o], oracle_type_name(types[i]));
      op_tensor_case(name, ops[o], types[i], comp, CUDNN_NOT_PROPAGATE_NAN, 4, c4, c4, 0, 1.5, -0.5, 0.0, positive);
      snprintf(name, sizeof name, "op.%s.bias.beta.%s", opn[o], oracle_type_name(types[i]));
      op_tensor_case(name, ops[o], types[i], comp, CUDNN_NOT_PROPAGATE_NAN, 4, c4, bias, 0, 0.5, 2.0, 0.75, positive);
      snprintf(name, sizeof name, "op.%s.bias.nhwc.%s", opn[o], oracle_type_name(types[i]));
      op_tensor_case(name, ops[o], types[i], comp, CUDNN_NOT_PROPAGATE_NAN, 4, c4, bias, 1, 1.0, 1.0, 1.0, positive);
    }
  }
  int c3[3] = {5, 6, 40}, b3[3] = {5, 1, 40};
  op_tensor_case("op.add.mid_broadcast.3d.f32", CUDNN_OP_TENSOR_ADD, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT,
                 CUDNN_NOT_PROPAGATE_NAN, 3, c3, b3, 0, 1.0, 3.0, 0.0, 0);
  op_tensor_case("op.mul.bf16", CUDNN_OP_TENSOR_MUL, CUDNN_DATA_BFLOAT16, CUDNN_DATA_FLOAT, CUDNN_NOT_PROPAGATE_NAN, 4,
                 c4, bias, 0, 1.0, 1.0, 0.0, 0);
  /* Mixed types of cudnnOpTensor's table (generic kernel on the GPU). */
  op_tensor_case_mixed("op.add.s8s8f32", CUDNN_OP_TENSOR_ADD, CUDNN_DATA_INT8, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT,
                       CUDNN_NOT_PROPAGATE_NAN, 4, c4, bias, 0, 0.5, 0.25, 0.5, 0);
  op_tensor_case_mixed("op.mul.f16f16f32", CUDNN_OP_TENSOR_MUL, CUDNN_DATA_HALF, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT,
                       CUDNN_NOT_PROPAGATE_NAN, 4, c4, c4, 1, 1.0, 1.0, 0.0, 0);
  op_tensor_case_mixed("op.add.f32f32f16", CUDNN_OP_TENSOR_ADD, CUDNN_DATA_FLOAT, CUDNN_DATA_HALF, CUDNN_DATA_FLOAT,
                       CUDNN_NOT_PROPAGATE_NAN, 4, c4, bias, 0, 1.0, -1.0, 0.0, 0);
  op_tensor_case_mixed("op.max.f32f32s8", CUDNN_OP_TENSOR_MAX, CUDNN_DATA_FLOAT, CUDNN_DATA_INT8, CUDNN_DATA_FLOAT,
                       CUDNN_NOT_PROPAGATE_NAN, 4, c4, c4, 0, 10.0, 10.0, 0.0, 0);
}

/* ------------------------------------------------------- SetTensor, ScaleTensor */
static void set_scale_cases(void) {
  cudnnDataType_t types[] = {CUDNN_DATA_FLOAT, CUDNN_DATA_HALF, CUDNN_DATA_DOUBLE, CUDNN_DATA_BFLOAT16};
  int dims[4] = {2, 5, 6, 7};
  int strided[4] = {600, 100, 12, 1};  /* gaps between rows must stay untouched */
  char name[128];
  for (int i = 0; i < 4; ++i) {
    cudnnDataType_t t = types[i];
    OTensor y;
    otensor_init(&y, t, 4, dims, strided);
    otensor_fill(&y, 0.25, 2.0);
    Scale v = scale(-1.25);
    snprintf(name, sizeof name, "set.strided.%s", oracle_type_name(t));
    oracle_report(name, tol_of(t), cudnnSetTensor(handle, y.desc, y.dev, sp(&v, t)), &y);
    otensor_fill(&y, 0.25, 2.0);
    Scale a = scale(0.375);
    snprintf(name, sizeof name, "scale.strided.%s", oracle_type_name(t));
    oracle_report(name, tol_of(t), cudnnScaleTensor(handle, y.desc, y.dev, sp(&a, t)), &y);
    otensor_free(&y);
  }
}

/* ------------------------------------------------------------ TransformTensor */
static void transform_case(const char *name, cudnnDataType_t xt, cudnnDataType_t yt, int nb, const int *dims, int x_cl,
                           int y_cl, double alpha, double beta, double lo, double hi) {
  OTensor x, y;
  otensor_packed(&x, xt, nb, dims, x_cl);
  otensor_packed(&y, yt, nb, dims, y_cl);
  otensor_fill(&x, lo, hi);
  otensor_fill(&y, 0.25, 2.0);
  Scale al = scale(alpha), be = scale(beta);
  /* Scaling factors follow the output type. */
  cudnnStatus_t st = cudnnTransformTensor(handle, sp(&al, yt), x.desc, x.dev, sp(&be, yt), y.desc, y.dev);
  double tol = tol_of(yt) > tol_of(xt) ? tol_of(yt) : tol_of(xt);
  oracle_report(name, tol, st, &y);
  otensor_free(&x);
  otensor_free(&y);
}

static void transform_cases(void) {
  int d4[4] = {3, 19, 17, 23}, d5[5] = {2, 12, 3, 9, 5}, big[4] = {8, 64, 33, 31};
  transform_case("transform.nchw2nhwc.f32", CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, 4, d4, 0, 1, 1.0, 0.0, 0.25, 2.0);
  transform_case("transform.nhwc2nchw.f32", CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, 4, d4, 1, 0, 1.0, 0.0, 0.25, 2.0);
  transform_case("transform.nchw2nhwc.big.f32", CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, 4, big, 0, 1, 1.0, 0.0, 0.25, 2.0);
  transform_case("transform.nchw2nhwc.blend.f32", CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, 4, d4, 0, 1, 0.5, 2.0, 0.25, 2.0);
  transform_case("transform.nchw2nhwc.f16", CUDNN_DATA_HALF, CUDNN_DATA_HALF, 4, d4, 0, 1, 1.0, 0.0, 0.25, 2.0);
  transform_case("transform.nchw2nhwc.f64", CUDNN_DATA_DOUBLE, CUDNN_DATA_DOUBLE, 4, d4, 0, 1, 1.0, 0.0, 0.25, 2.0);
  transform_case("transform.ncdhw2ndhwc.f32", CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, 5, d5, 0, 1, 1.0, 0.0, 0.25, 2.0);
  transform_case("transform.f32tof16.nchw", CUDNN_DATA_FLOAT, CUDNN_DATA_HALF, 4, d4, 0, 0, 1.0, 0.0, 0.25, 2.0);
  transform_case("transform.f16tof32.nhwc2nchw", CUDNN_DATA_HALF, CUDNN_DATA_FLOAT, 4, d4, 1, 0, 1.0, 0.0, 0.25, 2.0);
  transform_case("transform.f32tobf16.nchw", CUDNN_DATA_FLOAT, CUDNN_DATA_BFLOAT16, 4, d4, 0, 0, 1.0, 0.0, 0.25, 2.0);
  /* Integer outputs: values chosen clearly off the rounding midpoints is not
   * possible for random data, so compare with a tolerance of one step. */
  transform_case("transform.f32tos8.scale", CUDNN_DATA_FLOAT, CUDNN_DATA_INT8, 4, d4, 0, 0, 16.0, 0.0, 0.25, 6.0);
  transform_case("transform.s8tof32", CUDNN_DATA_INT8, CUDNN_DATA_FLOAT, 4, d4, 0, 1, 0.5, 0.0, 1.0, 100.0);
}

/* ------------------------------------------------------------- ReduceTensor */
static void reduce_case_mixed(const char *name, cudnnReduceTensorOp_t op, cudnnDataType_t ta, cudnnDataType_t t,
                              cudnnDataType_t comp, int want_indices, int nb, const int *adims, const int *cdims,
                              int channels_last, double alpha, double beta, double lo, double hi);

static void reduce_case(const char *name, cudnnReduceTensorOp_t op, cudnnDataType_t t, cudnnDataType_t comp,
                        int want_indices, int nb, const int *adims, const int *cdims, int channels_last, double alpha,
                        double beta, double lo, double hi) {
  reduce_case_mixed(name, op, t, t, comp, want_indices, nb, adims, cdims, channels_last, alpha, beta, lo, hi);
}

/* A of type ta, C of type t. */
static void reduce_case_mixed(const char *name, cudnnReduceTensorOp_t op, cudnnDataType_t ta, cudnnDataType_t t,
                              cudnnDataType_t comp, int want_indices, int nb, const int *adims, const int *cdims,
                              int channels_last, double alpha, double beta, double lo, double hi) {
  cudnnReduceTensorDescriptor_t rd;
  DNN_OK(cudnnCreateReduceTensorDescriptor(&rd));
  DNN_OK(cudnnSetReduceTensorDescriptor(rd, op, comp, CUDNN_NOT_PROPAGATE_NAN,
                                        want_indices ? CUDNN_REDUCE_TENSOR_FLATTENED_INDICES
                                                     : CUDNN_REDUCE_TENSOR_NO_INDICES,
                                        CUDNN_32BIT_INDICES));
  OTensor a, c;
  otensor_packed(&a, ta, nb, adims, channels_last);
  otensor_packed(&c, t, nb, cdims, channels_last);
  otensor_fill(&a, lo, hi);
  otensor_fill(&c, 0.25, 2.0);
  size_t ws = 0, is = 0;
  cudnnStatus_t st = cudnnGetReductionWorkspaceSize(handle, rd, a.desc, c.desc, &ws);
  if (st == CUDNN_STATUS_SUCCESS) st = cudnnGetReductionIndicesSize(handle, rd, a.desc, c.desc, &is);
  void *wsp = NULL, *idx = NULL;
  size_t cn = 1;
  for (int i = 0; i < nb; ++i) cn *= (size_t)cdims[i];
  if (ws) CUDA_OK(cudaMalloc(&wsp, ws));
  size_t ialloc = is > cn * 4 ? is : cn * 4;
  CUDA_OK(cudaMalloc(&idx, ialloc));
  CUDA_OK(cudaMemset(idx, 0xff, ialloc));
  Scale al = scale(alpha), be = scale(beta);
  if (st == CUDNN_STATUS_SUCCESS)
    st = cudnnReduceTensor(handle, rd, want_indices ? idx : NULL, want_indices ? is : 0, wsp, ws, sp(&al, t), a.desc,
                           a.dev, sp(&be, t), c.desc, c.dev);
  /* Sums over many elements: loosen by the reduction length. */
  double tol = tol_of(t);
  if (t != CUDNN_DATA_DOUBLE) tol *= 4;
  oracle_report(name, tol, st, &c);
  if (want_indices) {
    char iname[160];
    snprintf(iname, sizeof iname, "%s.indices", name);
    oracle_report_indices(iname, st, idx, cn);
  }
  if (wsp) cudaFree(wsp);
  cudaFree(idx);
  otensor_free(&a);
  otensor_free(&c);
  cudnnDestroyReduceTensorDescriptor(rd);
}

static void reduce_cases(void) {
  const cudnnReduceTensorOp_t ops[] = {CUDNN_REDUCE_TENSOR_ADD,   CUDNN_REDUCE_TENSOR_MUL,   CUDNN_REDUCE_TENSOR_MIN,
                                       CUDNN_REDUCE_TENSOR_MAX,   CUDNN_REDUCE_TENSOR_AMAX,  CUDNN_REDUCE_TENSOR_AVG,
                                       CUDNN_REDUCE_TENSOR_NORM1, CUDNN_REDUCE_TENSOR_NORM2, CUDNN_REDUCE_TENSOR_MUL_NO_ZEROS};
  const char *opn[] = {"add", "mul", "min", "max", "amax", "avg", "norm1", "norm2", "mulnz"};
  int a4[4] = {4, 24, 5, 6};
  int shapes[5][4] = {{4, 1, 5, 6}, {4, 24, 1, 1}, {1, 1, 1, 1}, {1, 24, 1, 1}, {4, 24, 5, 1}};
  const char *shn[] = {"c", "hw", "all", "nhw", "w"};
  cudnnDataType_t types[] = {CUDNN_DATA_FLOAT, CUDNN_DATA_HALF, CUDNN_DATA_DOUBLE};
  char name[128];
  for (int o = 0; o < 9; ++o) {
    int is_mul = ops[o] == CUDNN_REDUCE_TENSOR_MUL || ops[o] == CUDNN_REDUCE_TENSOR_MUL_NO_ZEROS;
    /* Products over many elements overflow or vanish unless values are near 1. */
    double lo = is_mul ? 0.97 : 0.25, hi = is_mul ? 1.03 : 2.0;
    for (int s = 0; s < 5; ++s) {
      for (int i = 0; i < 3; ++i) {
        cudnnDataType_t comp = types[i] == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
        snprintf(name, sizeof name, "reduce.%s.%s.%s", opn[o], shn[s], oracle_type_name(types[i]));
        reduce_case(name, ops[o], types[i], comp, 0, 4, a4, shapes[s], 0, 1.0, 0.0, lo, hi);
      }
    }
    snprintf(name, sizeof name, "reduce.%s.c.nhwc.blend.f32", opn[o]);
    reduce_case(name, ops[o], CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, 0, 4, a4, shapes[0], 1, 0.5, 1.5, lo, hi);
  }
  /* Indices (flattened, relative to the reduced dimensions). */
  const cudnnReduceTensorOp_t iops[] = {CUDNN_REDUCE_TENSOR_MIN, CUDNN_REDUCE_TENSOR_MAX, CUDNN_REDUCE_TENSOR_AMAX};
  for (int o = 0; o < 3; ++o) {
    for (int s = 0; s < 5; ++s) {
      /* NVIDIA's cuDNN 9.19 crashes (SIGSEGV in the host code) on AMAX with
       * indices over the whole tensor; the big case below covers it for us. */
      if (iops[o] == CUDNN_REDUCE_TENSOR_AMAX && s == 2) continue;
      snprintf(name, sizeof name, "reduce.idx.%s.%s.f32", opn[2 + o], shn[s]);
      reduce_case(name, iops[o], CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, 1, 4, a4, shapes[s], 0, 1.0, 0.0, 0.25, 2.0);
    }
  }
  /* A large reduction (two-level on the GPU). */
  int big[4] = {2, 64, 128, 130}, big_c[4] = {2, 64, 1, 1}, big_all[4] = {1, 1, 1, 1}, big_n[4] = {1, 64, 128, 130};
  reduce_case("reduce.add.big.hw.f32", CUDNN_REDUCE_TENSOR_ADD, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, 0, 4, big, big_c, 0,
              1.0, 0.0, 0.25, 2.0);
  reduce_case("reduce.add.big.all.f32", CUDNN_REDUCE_TENSOR_ADD, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, 0, 4, big, big_all,
              0, 1.0, 0.0, 0.25, 2.0);
  reduce_case("reduce.norm2.big.all.f32", CUDNN_REDUCE_TENSOR_NORM2, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, 0, 4, big,
              big_all, 0, 1.0, 0.0, 0.25, 2.0);
  reduce_case("reduce.max.big.n.f32", CUDNN_REDUCE_TENSOR_MAX, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, 1, 4, big, big_n, 0,
              1.0, 0.0, 0.25, 2.0);
  reduce_case("reduce.amax.big.all.f32", CUDNN_REDUCE_TENSOR_AMAX, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, 0, 4, big,
              big_all, 0, 1.0, 0.0, 0.25, 2.0);
  reduce_case("reduce.amax.big.c.idx.f32", CUDNN_REDUCE_TENSOR_AMAX, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, 1, 4, big,
              big_c, 0, 1.0, 0.0, 0.25, 2.0);
  reduce_case("reduce.add.big.all.f16", CUDNN_REDUCE_TENSOR_ADD, CUDNN_DATA_HALF, CUDNN_DATA_FLOAT, 0, 4, big, big_all,
              0, 1.0, 0.0, 0.25, 2.0);
  /* Mixed types: INT8 and HALF inputs with FLOAT outputs (FLOAT compute). */
  reduce_case_mixed("reduce.add.hw.s8f32", CUDNN_REDUCE_TENSOR_ADD, CUDNN_DATA_INT8, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT,
                    0, 4, a4, shapes[1], 0, 1.0, 0.0, 1.0, 100.0);
  reduce_case_mixed("reduce.max.c.s8f32.idx", CUDNN_REDUCE_TENSOR_MAX, CUDNN_DATA_INT8, CUDNN_DATA_FLOAT,
                    CUDNN_DATA_FLOAT, 1, 4, a4, shapes[0], 0, 1.0, 0.0, 1.0, 100.0);
  reduce_case_mixed("reduce.norm2.c.f16f32", CUDNN_REDUCE_TENSOR_NORM2, CUDNN_DATA_HALF, CUDNN_DATA_FLOAT,
                    CUDNN_DATA_FLOAT, 0, 4, big, big_n, 0, 1.0, 0.0, 0.25, 2.0);
  reduce_case_mixed("reduce.avg.hw.f32f16", CUDNN_REDUCE_TENSOR_AVG, CUDNN_DATA_FLOAT, CUDNN_DATA_HALF,
                    CUDNN_DATA_FLOAT, 0, 4, big, big_c, 0, 1.0, 0.0, 0.25, 2.0);
}

/* ------------------------------------------------------------ bad inputs */
static void bad_input_cases(void) {
  int d[4] = {2, 3, 4, 5}, other[4] = {2, 3, 4, 6}, bias[4] = {1, 3, 1, 1};
  OTensor a, c, b, wrong_type;
  otensor_packed(&a, CUDNN_DATA_FLOAT, 4, d, 0);
  otensor_packed(&c, CUDNN_DATA_FLOAT, 4, other, 0);
  otensor_packed(&b, CUDNN_DATA_FLOAT, 4, bias, 0);
  otensor_packed(&wrong_type, CUDNN_DATA_HALF, 4, d, 0);
  float one = 1.0f, zero = 0.0f;
  oracle_report_status("bad.add.dims_mismatch", cudnnAddTensor(handle, &one, a.desc, a.dev, &zero, c.desc, c.dev));
  oracle_report_status("bad.add.null_handle", cudnnAddTensor(NULL, &one, b.desc, b.dev, &zero, a.desc, a.dev));
  oracle_report_status("bad.add.type_mismatch",
                       cudnnAddTensor(handle, &one, wrong_type.desc, wrong_type.dev, &zero, a.desc, a.dev));
  oracle_report_status("bad.add.larger_src", cudnnAddTensor(handle, &one, a.desc, a.dev, &zero, b.desc, b.dev));
  cudnnOpTensorDescriptor_t od;
  DNN_OK(cudnnCreateOpTensorDescriptor(&od));
  DNN_OK(cudnnSetOpTensorDescriptor(od, CUDNN_OP_TENSOR_ADD, CUDNN_DATA_FLOAT, CUDNN_NOT_PROPAGATE_NAN));
  oracle_report_status("bad.op.dims_mismatch",
                       cudnnOpTensor(handle, od, &one, a.desc, a.dev, &one, c.desc, c.dev, &zero, a.desc, a.dev));
  /* (A NULL opTensorDesc crashes NVIDIA's cuDNN 9.19: not compared.) */
  oracle_report_status("bad.op.type_mismatch", cudnnOpTensor(handle, od, &one, wrong_type.desc, wrong_type.dev, &one,
                                                             a.desc, a.dev, &zero, a.desc, a.dev));
  oracle_report_status("bad.transform.dims_mismatch",
                       cudnnTransformTensor(handle, &one, a.desc, a.dev, &zero, c.desc, c.dev));
  oracle_report_status("bad.set.null_value", cudnnSetTensor(handle, a.desc, a.dev, NULL));
  cudnnReduceTensorDescriptor_t rd;
  DNN_OK(cudnnCreateReduceTensorDescriptor(&rd));
  DNN_OK(cudnnSetReduceTensorDescriptor(rd, CUDNN_REDUCE_TENSOR_ADD, CUDNN_DATA_FLOAT, CUDNN_NOT_PROPAGATE_NAN,
                                        CUDNN_REDUCE_TENSOR_NO_INDICES, CUDNN_32BIT_INDICES));
  size_t ws = 0;
  oracle_report_status("bad.reduce.ws_dims_mismatch", cudnnGetReductionWorkspaceSize(handle, rd, a.desc, c.desc, &ws));
  void *wsp = NULL;
  CUDA_OK(cudaMalloc(&wsp, 1 << 20));
  oracle_report_status("bad.reduce.dims_mismatch", cudnnReduceTensor(handle, rd, NULL, 0, wsp, 1 << 20, &one, a.desc,
                                                                     a.dev, &zero, c.desc, c.dev));
  oracle_report_status("bad.reduce.larger_output", cudnnReduceTensor(handle, rd, NULL, 0, wsp, 1 << 20, &one, b.desc,
                                                                     b.dev, &zero, a.desc, a.dev));
  /* Indices requested for ADD. */
  DNN_OK(cudnnSetReduceTensorDescriptor(rd, CUDNN_REDUCE_TENSOR_ADD, CUDNN_DATA_FLOAT, CUDNN_NOT_PROPAGATE_NAN,
                                        CUDNN_REDUCE_TENSOR_FLATTENED_INDICES, CUDNN_32BIT_INDICES));
  oracle_report_status("bad.reduce.indices_for_add", cudnnReduceTensor(handle, rd, wsp, 1 << 20, wsp, 1 << 20, &one,
                                                                       a.desc, a.dev, &zero, b.desc, b.dev));
  cudaFree(wsp);
  cudnnDestroyReduceTensorDescriptor(rd);
  cudnnDestroyOpTensorDescriptor(od);
  otensor_free(&a);
  otensor_free(&b);
  otensor_free(&c);
  otensor_free(&wrong_type);
}

/* --------------------------------------------------- NaN handling of MIN/MAX */
static void nan_cases(void) {
  int d[4] = {1, 4, 8, 8}; /* cudnnOpTensor takes 4-d and 5-d tensors */
  OTensor a, b, c;
  otensor_packed(&a, CUDNN_DATA_FLOAT, 4, d, 0);
  otensor_packed(&b, CUDNN_DATA_FLOAT, 4, d, 0);
  otensor_packed(&c, CUDNN_DATA_FLOAT, 4, d, 0);
  float h[256];
  for (int i = 0; i < 256; ++i) h[i] = (float)oracle_nonzero(0.25, 2.0);
  for (int i = 0; i < 256; i += 7) h[i] = NAN;
  CUDA_OK(cudaMemcpy(a.dev, h, sizeof h, cudaMemcpyHostToDevice));
  otensor_fill(&b, 0.25, 2.0);
  const cudnnNanPropagation_t nans[] = {CUDNN_NOT_PROPAGATE_NAN, CUDNN_PROPAGATE_NAN};
  const char *nn[] = {"not_propagate", "propagate"};
  for (int k = 0; k < 2; ++k) {
    cudnnOpTensorDescriptor_t od;
    DNN_OK(cudnnCreateOpTensorDescriptor(&od));
    char name[128];
    float one = 1.0f, zero = 0.0f;
    DNN_OK(cudnnSetOpTensorDescriptor(od, CUDNN_OP_TENSOR_MAX, CUDNN_DATA_FLOAT, nans[k]));
    snprintf(name, sizeof name, "nan.op.max.%s", nn[k]);
    oracle_report(name, 2e-5, cudnnOpTensor(handle, od, &one, a.desc, a.dev, &one, b.desc, b.dev, &zero, c.desc, c.dev), &c);
    DNN_OK(cudnnSetOpTensorDescriptor(od, CUDNN_OP_TENSOR_MIN, CUDNN_DATA_FLOAT, nans[k]));
    snprintf(name, sizeof name, "nan.op.min.%s", nn[k]);
    oracle_report(name, 2e-5, cudnnOpTensor(handle, od, &one, a.desc, a.dev, &one, b.desc, b.dev, &zero, c.desc, c.dev), &c);
    cudnnDestroyOpTensorDescriptor(od);
  }
  otensor_free(&a);
  otensor_free(&b);
  otensor_free(&c);
}

/* Groups of cases; scripts/gpu-check.sh runs each group in its own process so
 * that a crash of either library loses one group only. */
enum { kGroups = 7 };

int main(int argc, char **argv) {
  int which = argc > 1 ? atoi(argv[1]) : -1;  /* one group (0 .. kGroups-1), or all */
  if (argc > 1 && strcmp(argv[1], "--groups") == 0) {
    printf("%d\n", kGroups);
    return 0;
  }
  oracle_seed(20240611);
  setvbuf(stdout, NULL, _IOLBF, 0); /* keep every finished line if a library crashes */
  cudnnStatus_t st = cudnnCreate(&handle);
  printf("create tol=0 st=%d\n", (int)st);
  if (st != CUDNN_STATUS_SUCCESS) return 1;
  printf("# cudnnGetVersion %zu\n", cudnnGetVersion());
  if (which < 0 || which == 0) add_tensor_cases();
  if (which < 0 || which == 1) op_tensor_cases();
  if (which < 0 || which == 2) set_scale_cases();
  if (which < 0 || which == 3) transform_cases();
  if (which < 0 || which == 4) reduce_cases();
  if (which < 0 || which == 5) bad_input_cases();
  if (which < 0 || which == 6) nan_cases();
  cudnnDestroy(handle);
  return 0;
}
