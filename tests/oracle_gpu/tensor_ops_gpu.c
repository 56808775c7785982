/* GPU differential program for the legacy tensor operations: cudnnAddTensor,
 * cudnnOpTensor, cudnnSetTensor, cudnnScaleTensor, cudnnTransformTensor and
 * cudnnReduceTensor on device memory, plus status codes of bad calls and
 * probes of API decisions (types, ranks, rounding, folding; see "probes").
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

/* ================================================================ probes
 * API decisions that the cuDNN 8.0.3 text leaves open, asked of NVIDIA's
 * library directly: each line prints the status and, on success, the values
 * (small tensors, every element, so that rounding, saturation and element
 * order show). */

/* A scaling-factor buffer whose reading tells its type: read as a float it
 * is 3.0, as a double about 2.0000005, as a half, bfloat16 or int8 it is 0,
 * as an int32 1077936128. */
static union {
  uint64_t u;
  float f;
  double d;
} ambig;
static const void *ambig_ptr(void) {
  ambig.u = (0x40000000ull << 32) | 0x40400000ull; /* high word: double 2.0; low word: float 3.0 */
  return &ambig;
}

/* Prints status and the first `count` lanes (of type lane_t) at dev. */
static void probe_values(const char *name, double tol, cudnnStatus_t st, cudnnDataType_t lane_t, const void *dev,
                         size_t count) {
  CUDA_OK(cudaDeviceSynchronize());
  printf("%s tol=%g st=%d", name, tol, (int)st);
  if (st == CUDNN_STATUS_SUCCESS && dev != NULL && count > 0) {
    size_t es = oracle_type_size(lane_t);
    void *h = malloc(count * es);
    CUDA_OK(cudaMemcpy(h, dev, count * es, cudaMemcpyDeviceToHost));
    printf(" v=");
    for (size_t i = 0; i < count; ++i) printf("%s%.7g", i ? "," : "", oracle_load(lane_t, h, i));
    free(h);
  }
  printf("\n");
}

/* Writes vals (cycled) into every lane the tensor spans, stored as t->type. */
static void probe_upload(OTensor *t, const double *vals, size_t nvals) {
  size_t es = oracle_type_size(t->type);
  void *h = malloc(t->span * es);
  for (size_t i = 0; i < t->span; ++i) oracle_store(t->type, h, i, vals[i % nvals]);
  CUDA_OK(cudaMemcpy(t->dev, h, t->span * es, cudaMemcpyHostToDevice));
  free(h);
}
/* Lane values 1, 2, 3, ... (exact in every type up to 127). */
static void probe_upload_index(OTensor *t, double offset) {
  size_t es = oracle_type_size(t->type);
  void *h = malloc(t->span * es);
  for (size_t i = 0; i < t->span; ++i) oracle_store(t->type, h, i, offset + (double)(i % 120) + 1);
  CUDA_OK(cudaMemcpy(t->dev, h, t->span * es, cudaMemcpyHostToDevice));
  free(h);
}

/* A packed NCHW_VECT_C tensor of a vector type; t->type is the lane type,
 * t->span counts lanes. */
static void probe_vect_tensor(OTensor *t, cudnnDataType_t vt, int n, int c, int h, int w) {
  memset(t, 0, sizeof(*t));
  t->type = vt == CUDNN_DATA_UINT8x4 ? CUDNN_DATA_UINT8 : CUDNN_DATA_INT8;
  t->nb_dims = 4;
  t->span = (size_t)n * c * h * w;
  DNN_OK(cudnnCreateTensorDescriptor(&t->desc));
  DNN_OK(cudnnSetTensor4dDescriptor(t->desc, CUDNN_TENSOR_NCHW_VECT_C, vt, n, c, h, w));
  CUDA_OK(cudaMalloc(&t->dev, t->span + 16));
}

/* Packed row-major dims {2,3,2,...} of any rank (for the rank probes). */
static void probe_rank_dims(int nb, int *dims) {
  for (int i = 0; i < nb; ++i) dims[i] = i == 1 ? 3 : 2;
}

static const char *probe_type_name(cudnnDataType_t t) {
  switch (t) {
    case CUDNN_DATA_INT8x4: return "s8x4";
    case CUDNN_DATA_UINT8x4: return "u8x4";
    case CUDNN_DATA_INT8x32: return "s8x32";
    default: return oracle_type_name(t);
  }
}

static const double kProbeValues[] = {2.5, -2.5, 3.5, -0.75, 1.25, 200, -200, 127.6, 0.4, -1.5, 7, -7};
enum { kProbeValueCount = 12 };

/* ------------------------------------------------- probes: Set / Scale */
static void probe_set_scale(void) {
  char name[160];
  const cudnnDataType_t scalar[] = {CUDNN_DATA_FLOAT, CUDNN_DATA_DOUBLE, CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16,
                                    CUDNN_DATA_INT8,  CUDNN_DATA_UINT8,  CUDNN_DATA_INT32};
  int d4[4] = {1, 4, 2, 2};
  /* Which type valuePtr / alpha are read as. */
  for (int i = 0; i < 7; ++i) {
    cudnnDataType_t t = scalar[i];
    OTensor y;
    otensor_packed(&y, t, 4, d4, 0);
    probe_upload(&y, kProbeValues, kProbeValueCount);
    snprintf(name, sizeof name, "probe.set.ambig.%s", probe_type_name(t));
    probe_values(name, tol_of(t), cudnnSetTensor(handle, y.desc, y.dev, ambig_ptr()), t, y.dev, 4);
    probe_upload(&y, kProbeValues, kProbeValueCount);
    snprintf(name, sizeof name, "probe.scale.ambig.%s", probe_type_name(t));
    probe_values(name, tol_of(t), cudnnScaleTensor(handle, y.desc, y.dev, ambig_ptr()), t, y.dev, 12);
    /* Rounding and saturation of a float factor on the way into y's type. */
    float a = 1.5f;
    double ad = 1.5;
    probe_upload(&y, kProbeValues, kProbeValueCount);
    snprintf(name, sizeof name, "probe.scale.1p5.%s", probe_type_name(t));
    probe_values(name, tol_of(t), cudnnScaleTensor(handle, y.desc, y.dev, t == CUDNN_DATA_DOUBLE ? (void *)&ad : (void *)&a),
                 t, y.dev, 12);
    otensor_free(&y);
  }
  /* Fill values that round or saturate. */
  const float fills[] = {-3.5f, 2.5f, 300.0f, -300.0f, 1e5f, 0.4f};
  const char *fill_names[] = {"m3p5", "2p5", "300", "m300", "1e5", "0p4"};
  const cudnnDataType_t fill_types[] = {CUDNN_DATA_INT8, CUDNN_DATA_UINT8, CUDNN_DATA_INT32, CUDNN_DATA_HALF,
                                        CUDNN_DATA_BFLOAT16};
  for (int k = 0; k < 5; ++k) {
    OTensor y;
    otensor_packed(&y, fill_types[k], 4, d4, 0);
    for (int f = 0; f < 6; ++f) {
      otensor_fill(&y, 0.25, 2.0);
      snprintf(name, sizeof name, "probe.set.%s.%s", fill_names[f], probe_type_name(fill_types[k]));
      probe_values(name, tol_of(fill_types[k]), cudnnSetTensor(handle, y.desc, y.dev, &fills[f]), fill_types[k], y.dev, 2);
    }
    otensor_free(&y);
  }
  /* Vector types. */
  const cudnnDataType_t vt[] = {CUDNN_DATA_INT8x4, CUDNN_DATA_UINT8x4, CUDNN_DATA_INT8x32};
  for (int k = 0; k < 3; ++k) {
    OTensor y;
    probe_vect_tensor(&y, vt[k], 1, vt[k] == CUDNN_DATA_INT8x32 ? 32 : 8, 1, 2);
    double one_to_n[1] = {5};
    probe_upload(&y, one_to_n, 1);
    snprintf(name, sizeof name, "probe.set.ambig.%s", probe_type_name(vt[k]));
    probe_values(name, 0, cudnnSetTensor(handle, y.desc, y.dev, ambig_ptr()), y.type, y.dev, 8);
    float v = 3.0f;
    snprintf(name, sizeof name, "probe.set.f3.%s", probe_type_name(vt[k]));
    probe_values(name, 0, cudnnSetTensor(handle, y.desc, y.dev, &v), y.type, y.dev, 8);
    probe_upload(&y, kProbeValues, kProbeValueCount);
    float a = 1.5f;
    snprintf(name, sizeof name, "probe.scale.1p5.%s", probe_type_name(vt[k]));
    probe_values(name, 0, cudnnScaleTensor(handle, y.desc, y.dev, &a), y.type, y.dev, 12);
    otensor_free(&y);
  }
  /* Ranks. */
  const int ranks[] = {2, 3, 6, 8};
  for (int r = 0; r < 4; ++r) {
    int dims[8];
    probe_rank_dims(ranks[r], dims);
    OTensor y;
    otensor_packed(&y, CUDNN_DATA_FLOAT, ranks[r], dims, 0);
    otensor_fill(&y, 0.25, 2.0);
    float v = -1.25f, a = 2.0f;
    snprintf(name, sizeof name, "probe.set.rank%d", ranks[r]);
    probe_values(name, 0, cudnnSetTensor(handle, y.desc, y.dev, &v), CUDNN_DATA_FLOAT, y.dev, 4);
    snprintf(name, sizeof name, "probe.scale.rank%d", ranks[r]);
    probe_values(name, 0, cudnnScaleTensor(handle, y.desc, y.dev, &a), CUDNN_DATA_FLOAT, y.dev, 4);
    otensor_free(&y);
  }
}

/* ------------------------------------------------- probes: Add / Op */
static void probe_add_case(const char *name, cudnnDataType_t ta, cudnnDataType_t tc, int nb, const int *cdims,
                           const int *adims, const void *alpha, const void *beta) {
  OTensor a, c;
  otensor_packed(&a, ta, nb, adims, 0);
  otensor_packed(&c, tc, nb, cdims, 0);
  probe_upload(&a, kProbeValues, kProbeValueCount);
  probe_upload_index(&c, 0);
  cudnnStatus_t st = cudnnAddTensor(handle, alpha, a.desc, a.dev, beta, c.desc, c.dev);
  probe_values(name, tol_of(tc), st, tc, c.dev, c.span < 12 ? c.span : 12);
  otensor_free(&a);
  otensor_free(&c);
}

static void probe_op_case(const char *name, cudnnOpTensorOp_t op, cudnnDataType_t comp, cudnnDataType_t ta,
                          cudnnDataType_t tb, cudnnDataType_t tc, int nb, const int *adims, const int *bdims,
                          const int *cdims, const void *a1, const void *a2, const void *beta) {
  cudnnOpTensorDescriptor_t od;
  DNN_OK(cudnnCreateOpTensorDescriptor(&od));
  cudnnStatus_t dst = cudnnSetOpTensorDescriptor(od, op, comp, CUDNN_NOT_PROPAGATE_NAN);
  if (dst != CUDNN_STATUS_SUCCESS) { /* the descriptor refuses the compute type */
    printf("%s tol=0 desc_st=%d\n", name, (int)dst);
    cudnnDestroyOpTensorDescriptor(od);
    return;
  }
  OTensor a, b, c;
  otensor_packed(&a, ta, nb, adims, 0);
  otensor_packed(&b, tb, nb, bdims, 0);
  otensor_packed(&c, tc, nb, cdims, 0);
  probe_upload(&a, kProbeValues, kProbeValueCount);
  probe_upload_index(&b, 0);
  probe_upload_index(&c, 10);
  cudnnStatus_t st = cudnnOpTensor(handle, od, a1, a.desc, a.dev, a2, b.desc, b.dev, beta, c.desc, c.dev);
  probe_values(name, tol_of(tc) * 2, st, tc, c.dev, c.span < 12 ? c.span : 12);
  otensor_free(&a);
  otensor_free(&b);
  otensor_free(&c);
  cudnnDestroyOpTensorDescriptor(od);
}

static void probe_add_op(void) {
  char name[160];
  const float one = 1.0f, zero = 0.0f, half_ = 0.5f, two = 2.0f;
  const double oned = 1.0, zerod = 0.0;
  int c4[4] = {2, 3, 2, 2}, bias[4] = {1, 3, 1, 1};
  /* AddTensor: mixed types (alpha as the ambiguous buffer: whose type is it read as?). */
  struct { cudnnDataType_t a, c; } mixes[] = {
      {CUDNN_DATA_HALF, CUDNN_DATA_FLOAT},  {CUDNN_DATA_FLOAT, CUDNN_DATA_HALF}, {CUDNN_DATA_INT8, CUDNN_DATA_FLOAT},
      {CUDNN_DATA_FLOAT, CUDNN_DATA_INT8},  {CUDNN_DATA_FLOAT, CUDNN_DATA_DOUBLE}, {CUDNN_DATA_DOUBLE, CUDNN_DATA_FLOAT},
      {CUDNN_DATA_BFLOAT16, CUDNN_DATA_FLOAT}, {CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16}};
  for (int i = 0; i < 8; ++i) {
    snprintf(name, sizeof name, "probe.add.mixed.%sto%s", probe_type_name(mixes[i].a), probe_type_name(mixes[i].c));
    probe_add_case(name, mixes[i].a, mixes[i].c, 4, c4, bias, ambig_ptr(), &zerod);
  }
  /* AddTensor on integer types (same type), float factors 1.5 and 0.5. */
  const cudnnDataType_t ints[] = {CUDNN_DATA_INT8, CUDNN_DATA_UINT8, CUDNN_DATA_INT32};
  const float a15 = 1.5f;
  for (int i = 0; i < 3; ++i) {
    snprintf(name, sizeof name, "probe.add.int.%s", probe_type_name(ints[i]));
    probe_add_case(name, ints[i], ints[i], 4, c4, bias, &a15, &half_);
  }
  /* AddTensor ranks. */
  const int ranks[] = {2, 3, 6, 8};
  for (int r = 0; r < 4; ++r) {
    int dims[8], bdims[8];
    probe_rank_dims(ranks[r], dims);
    for (int i = 0; i < ranks[r]; ++i) bdims[i] = i == 1 ? 3 : 1;
    snprintf(name, sizeof name, "probe.add.rank%d.bias", ranks[r]);
    probe_add_case(name, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, ranks[r], dims, bdims, &one, &one);
    snprintf(name, sizeof name, "probe.add.rank%d.same", ranks[r]);
    probe_add_case(name, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, ranks[r], dims, dims, &one, &one);
  }
  /* AddTensor broadcast patterns. */
  int pats[6][4] = {{1, 1, 1, 1}, {2, 1, 2, 2}, {2, 3, 1, 1}, {1, 3, 2, 1}, {2, 1, 1, 1}, {1, 1, 1, 2}};
  for (int p = 0; p < 6; ++p) {
    snprintf(name, sizeof name, "probe.add.bcast.%d%d%d%d", pats[p][0], pats[p][1], pats[p][2], pats[p][3]);
    probe_add_case(name, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, 4, c4, pats[p], &one, &one);
  }
  int c5[5] = {2, 3, 2, 2, 2}, b5[5] = {1, 3, 1, 1, 2};
  probe_add_case("probe.add.bcast.5d", CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, 5, c5, b5, &one, &one);

  /* OpTensor ranks. */
  const int op_ranks[] = {2, 5, 6, 8};
  for (int r = 0; r < 4; ++r) {
    int dims[8];
    probe_rank_dims(op_ranks[r], dims);
    snprintf(name, sizeof name, "probe.op.rank%d", op_ranks[r]);
    probe_op_case(name, CUDNN_OP_TENSOR_ADD, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT,
                  op_ranks[r], dims, dims, dims, &one, &one, &zero);
  }
  int d3[3] = {2, 3, 4};
  probe_op_case("probe.op.rank3.sqrt", CUDNN_OP_TENSOR_SQRT, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT,
                CUDNN_DATA_FLOAT, 3, d3, d3, d3, &one, &one, &zero);
  /* 3-d C with 4-d A/B and the reverse. */
  int d4[4] = {1, 2, 3, 4};
  probe_op_case("probe.op.rank4and3", CUDNN_OP_TENSOR_ADD, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT,
                CUDNN_DATA_FLOAT, 4, d4, d4, d4, &one, &one, &zero);
  /* NOT: 1 - alpha1 * A? with alpha1 = 2, and with a blend. */
  int n8[4] = {1, 12, 1, 1};
  probe_op_case("probe.op.not.alpha2", CUDNN_OP_TENSOR_NOT, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT,
                CUDNN_DATA_FLOAT, 4, n8, n8, n8, &two, &half_, &zero);
  probe_op_case("probe.op.not.beta", CUDNN_OP_TENSOR_NOT, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT,
                CUDNN_DATA_FLOAT, 4, n8, n8, n8, &one, &one, &half_);
  probe_op_case("probe.op.not.f16", CUDNN_OP_TENSOR_NOT, CUDNN_DATA_FLOAT, CUDNN_DATA_HALF, CUDNN_DATA_HALF,
                CUDNN_DATA_HALF, 4, n8, n8, n8, &half_, &one, &zero);
  probe_op_case("probe.op.sqrt.alpha", CUDNN_OP_TENSOR_SQRT, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT,
                CUDNN_DATA_FLOAT, 4, n8, n8, n8, &two, &half_, &zero);
  /* A that broadcasts (C's dims are the output's). */
  int full[4] = {2, 3, 2, 2};
  probe_op_case("probe.op.a_bcast", CUDNN_OP_TENSOR_ADD, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT,
                CUDNN_DATA_FLOAT, 4, bias, full, full, &one, &one, &zero);
  /* Type table: listed and unlisted combinations (comp, A, B, C). */
  struct { cudnnDataType_t comp, a, b, c; } rows[] = {
      {CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, CUDNN_DATA_DOUBLE},
      {CUDNN_DATA_FLOAT, CUDNN_DATA_INT32, CUDNN_DATA_INT32, CUDNN_DATA_INT32},
      {CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, CUDNN_DATA_HALF, CUDNN_DATA_FLOAT},
      {CUDNN_DATA_DOUBLE, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT},
      {CUDNN_DATA_FLOAT, CUDNN_DATA_DOUBLE, CUDNN_DATA_DOUBLE, CUDNN_DATA_DOUBLE},
      {CUDNN_DATA_HALF, CUDNN_DATA_HALF, CUDNN_DATA_HALF, CUDNN_DATA_HALF},
      {CUDNN_DATA_HALF, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT},
      {CUDNN_DATA_BFLOAT16, CUDNN_DATA_BFLOAT16, CUDNN_DATA_BFLOAT16, CUDNN_DATA_BFLOAT16},
      {CUDNN_DATA_FLOAT, CUDNN_DATA_UINT8, CUDNN_DATA_UINT8, CUDNN_DATA_FLOAT},
      {CUDNN_DATA_FLOAT, CUDNN_DATA_HALF, CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16},
      {CUDNN_DATA_FLOAT, CUDNN_DATA_BFLOAT16, CUDNN_DATA_BFLOAT16, CUDNN_DATA_HALF},
      {CUDNN_DATA_FLOAT, CUDNN_DATA_HALF, CUDNN_DATA_HALF, CUDNN_DATA_INT8},
      {CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, CUDNN_DATA_UINT8},
      {CUDNN_DATA_FLOAT, CUDNN_DATA_INT8, CUDNN_DATA_INT8, CUDNN_DATA_HALF},
      {CUDNN_DATA_FLOAT, CUDNN_DATA_INT8, CUDNN_DATA_INT8, CUDNN_DATA_INT8},
      {CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, CUDNN_DATA_INT8},
      {CUDNN_DATA_INT32, CUDNN_DATA_INT8, CUDNN_DATA_INT8, CUDNN_DATA_INT8},
      {CUDNN_DATA_DOUBLE, CUDNN_DATA_DOUBLE, CUDNN_DATA_DOUBLE, CUDNN_DATA_FLOAT}};
  for (int i = 0; i < (int)(sizeof rows / sizeof rows[0]); ++i) {
    snprintf(name, sizeof name, "probe.op.types.%s.%s%s%s", probe_type_name(rows[i].comp), probe_type_name(rows[i].a),
             probe_type_name(rows[i].b), probe_type_name(rows[i].c));
    const void *f1 = rows[i].c == CUDNN_DATA_DOUBLE ? (const void *)&oned : (const void *)&one;
    const void *f0 = rows[i].c == CUDNN_DATA_DOUBLE ? (const void *)&zerod : (const void *)&zero;
    probe_op_case(name, CUDNN_OP_TENSOR_ADD, rows[i].comp, rows[i].a, rows[i].b, rows[i].c, 4, full, bias, full, f1,
                  f1, f0);
  }
  /* Which type the factors of a listed mixed row are read as (C is FLOAT, A/B HALF). */
  probe_op_case("probe.op.ambig.f16f16f32", CUDNN_OP_TENSOR_ADD, CUDNN_DATA_FLOAT, CUDNN_DATA_HALF, CUDNN_DATA_HALF,
                CUDNN_DATA_FLOAT, 4, full, bias, full, ambig_ptr(), &zero, &zero);
}

/* ------------------------------------------------- probes: transforms */
static void probe_transform_case(const char *name, cudnnDataType_t xt, cudnnDataType_t yt, int nb, const int *xdims,
                                 const int *ydims, int x_cl, int y_cl, const double *vals, size_t nvals,
                                 const void *alpha, const void *beta) {
  OTensor x, y;
  otensor_packed(&x, xt, nb, xdims, x_cl);
  otensor_packed(&y, yt, nb, ydims, y_cl);
  probe_upload(&x, vals, nvals);
  probe_upload_index(&y, 0);
  Scale one = scale(1.0), zero = scale(0.0);
  cudnnStatus_t st = cudnnTransformTensor(handle, alpha ? alpha : sp(&one, yt), x.desc, x.dev,
                                          beta ? beta : sp(&zero, yt), y.desc, y.dev);
  double tol = tol_of(yt) > tol_of(xt) ? tol_of(yt) : tol_of(xt);
  probe_values(name, tol, st, yt, y.dev, y.span < 12 ? y.span : 12);
  otensor_free(&x);
  otensor_free(&y);
}

static void probe_transforms(void) {
  char name[160];
  const cudnnDataType_t types[] = {CUDNN_DATA_FLOAT, CUDNN_DATA_DOUBLE, CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16,
                                   CUDNN_DATA_INT8,  CUDNN_DATA_UINT8,  CUDNN_DATA_INT32};
  int d4[4] = {1, 3, 2, 2};
  /* Every pair of scalar types (values that round, saturate, go negative). */
  for (int i = 0; i < 7; ++i)
    for (int j = 0; j < 7; ++j) {
      if (i == j) continue;
      snprintf(name, sizeof name, "probe.xform.%sto%s", probe_type_name(types[i]), probe_type_name(types[j]));
      probe_transform_case(name, types[i], types[j], 4, d4, d4, 0, 0, kProbeValues, kProbeValueCount, NULL, NULL);
    }
  /* Special values from FLOAT. */
  const double special[] = {NAN, INFINITY, -INFINITY, 70000, -70000, 1e-8, 127.5, 128.5, -128.5, 255.5, 0.5, 1.5};
  const cudnnDataType_t outs[] = {CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16, CUDNN_DATA_INT8, CUDNN_DATA_UINT8,
                                  CUDNN_DATA_INT32};
  for (int j = 0; j < 5; ++j) {
    snprintf(name, sizeof name, "probe.xform.special.f32to%s", probe_type_name(outs[j]));
    probe_transform_case(name, CUDNN_DATA_FLOAT, outs[j], 4, d4, d4, 0, 0, special, 12, NULL, NULL);
  }
  /* Whose type the factors are read as when one side is DOUBLE. */
  const cudnnDataType_t dpairs[4][2] = {{CUDNN_DATA_FLOAT, CUDNN_DATA_DOUBLE},
                                        {CUDNN_DATA_DOUBLE, CUDNN_DATA_FLOAT},
                                        {CUDNN_DATA_DOUBLE, CUDNN_DATA_HALF},
                                        {CUDNN_DATA_INT8, CUDNN_DATA_DOUBLE}};
  const double zeros[2] = {0, 0};
  for (int k = 0; k < 4; ++k) {
    snprintf(name, sizeof name, "probe.xform.ambig.%sto%s", probe_type_name(dpairs[k][0]), probe_type_name(dpairs[k][1]));
    probe_transform_case(name, dpairs[k][0], dpairs[k][1], 4, d4, d4, 0, 0, kProbeValues, kProbeValueCount,
                         ambig_ptr(), zeros);
  }
  /* Conversions with layout changes and a blend. */
  int big[4] = {2, 5, 3, 7};
  const float half_ = 0.5f, two = 2.0f;
  probe_transform_case("probe.xform.f16tobf16.nhwc.blend", CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16, 4, big, big, 0, 1,
                       kProbeValues, kProbeValueCount, &two, &half_);
  probe_transform_case("probe.xform.s8tof16.nhwc2nchw", CUDNN_DATA_INT8, CUDNN_DATA_HALF, 4, big, big, 1, 0,
                       kProbeValues, kProbeValueCount, &half_, NULL);
  /* Ranks, and broadcasting x. */
  const int ranks[] = {2, 3, 6, 8};
  for (int r = 0; r < 4; ++r) {
    int dims[8];
    probe_rank_dims(ranks[r], dims);
    snprintf(name, sizeof name, "probe.xform.rank%d.nhwc", ranks[r]);
    probe_transform_case(name, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, ranks[r], dims, dims, 0, 1, kProbeValues,
                         kProbeValueCount, NULL, NULL);
  }
  int bias[4] = {1, 3, 1, 1};
  probe_transform_case("probe.xform.bcast_x", CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, 4, bias, d4, 0, 0, kProbeValues,
                       kProbeValueCount, NULL, NULL);
  /* Vector types: conversions into and out of INT8x4 / INT8x32. */
  struct { cudnnDataType_t x, y; int c; } vpairs[] = {{CUDNN_DATA_FLOAT, CUDNN_DATA_INT8x4, 8},
                                                       {CUDNN_DATA_INT8x4, CUDNN_DATA_FLOAT, 8},
                                                       {CUDNN_DATA_FLOAT, CUDNN_DATA_INT8x32, 32},
                                                       {CUDNN_DATA_HALF, CUDNN_DATA_INT8x4, 8},
                                                       {CUDNN_DATA_INT8x32, CUDNN_DATA_HALF, 32},
                                                       {CUDNN_DATA_FLOAT, CUDNN_DATA_UINT8x4, 8}};
  for (int k = 0; k < 6; ++k) {
    OTensor x, y;
    int dims[4] = {1, vpairs[k].c, 1, 2};
    int xv = vpairs[k].x == CUDNN_DATA_INT8x4 || vpairs[k].x == CUDNN_DATA_INT8x32;
    if (xv) probe_vect_tensor(&x, vpairs[k].x, 1, vpairs[k].c, 1, 2);
    else otensor_packed(&x, vpairs[k].x, 4, dims, 0);
    if (!xv) probe_vect_tensor(&y, vpairs[k].y, 1, vpairs[k].c, 1, 2);
    else otensor_packed(&y, vpairs[k].y, 4, dims, 0);
    probe_upload(&x, kProbeValues, kProbeValueCount);
    probe_upload_index(&y, 0);
    float one = 1.0f, zero = 0.0f;
    snprintf(name, sizeof name, "probe.xform.vect.%sto%s", probe_type_name(vpairs[k].x), probe_type_name(vpairs[k].y));
    probe_values(name, tol_of(y.type), cudnnTransformTensor(handle, &one, x.desc, x.dev, &zero, y.desc, y.dev), y.type,
                 y.dev, 16);
    otensor_free(&x);
    otensor_free(&y);
  }
}

/* ------------------------------------------------- probes: TransformTensorEx */
/* Source of dims sdims (values 1, 2, 3, ...), destination from
 * cudnnInitTransformDest; prints the destination dims and every value. */
static void probe_transform_ex(const char *name, cudnnDataType_t st_type, int nb, const int *sdims, const int *before,
                               const int *after, const unsigned *fold, cudnnFoldingDirection_t dir,
                               cudnnTensorFormat_t dest_format, const void *alpha, const void *beta) {
  cudnnTensorTransformDescriptor_t tr;
  DNN_OK(cudnnCreateTensorTransformDescriptor(&tr));
  cudnnStatus_t st =
      cudnnSetTensorTransformDescriptor(tr, (uint32_t)nb, dest_format, before, after, fold, dir);
  OTensor x;
  otensor_packed(&x, st_type, nb, sdims, 0);
  probe_upload_index(&x, 0);
  cudnnTensorDescriptor_t dd;
  DNN_OK(cudnnCreateTensorDescriptor(&dd));
  size_t bytes = 0;
  if (st == CUDNN_STATUS_SUCCESS) st = cudnnInitTransformDest(tr, x.desc, dd, &bytes);
  char line[200];
  snprintf(line, sizeof line, "%s.dest", name);
  printf("%s tol=0 st=%d", line, (int)st);
  void *y = NULL;
  cudnnDataType_t dt = st_type;
  if (st == CUDNN_STATUS_SUCCESS) {
    int nbd = 0, dims[8], strides[8];
    DNN_OK(cudnnGetTensorNdDescriptor(dd, 8, &dt, &nbd, dims, strides));
    printf(" bytes=%zu dims=", bytes);
    for (int i = 0; i < nbd; ++i) printf("%s%d", i ? "," : "", dims[i]);
    printf(" strides=");
    for (int i = 0; i < nbd; ++i) printf("%s%d", i ? "," : "", strides[i]);
    CUDA_OK(cudaMalloc(&y, bytes + 16));
    /* Prior destination: 100, 101, ... so that unwritten elements show. */
    size_t n = bytes / oracle_type_size(st_type);
    void *h = malloc(bytes + 16);
    for (size_t i = 0; i < n; ++i) oracle_store(st_type, h, i, 100.0 + (double)(i % 100));
    CUDA_OK(cudaMemcpy(y, h, bytes, cudaMemcpyHostToDevice));
    free(h);
  }
  printf("\n");
  if (st == CUDNN_STATUS_SUCCESS) {
    Scale one = scale(1.0), zero = scale(0.0);
    st = cudnnTransformTensorEx(handle, tr, alpha ? alpha : sp(&one, st_type), x.desc, x.dev,
                                beta ? beta : sp(&zero, st_type), dd, y);
    size_t n = bytes / oracle_type_size(st_type);
    probe_values(name, tol_of(st_type), st, st_type, y, n < 72 ? n : 72);
  }
  if (y) cudaFree(y);
  cudnnDestroyTensorDescriptor(dd);
  otensor_free(&x);
  cudnnDestroyTensorTransformDescriptor(tr);
}

static void probe_transforms_ex(void) {
  int s4[4] = {1, 2, 3, 3};
  int pb[4] = {0, 0, 1, 1}, pa[4] = {0, 0, 1, 0}, none[4] = {0, 0, 0, 0}, crop[4] = {0, 0, -1, 0};
  unsigned nofold[2] = {1, 1}, fold22[2] = {2, 2}, fold21[2] = {2, 1};
  const float two = 2.0f, one = 1.0f, half_ = 0.5f;
  probe_transform_ex("probe.xformex.pad", CUDNN_DATA_FLOAT, 4, s4, pb, pa, nofold, CUDNN_TRANSFORM_FOLD,
                     CUDNN_TENSOR_NCHW, NULL, NULL);
  probe_transform_ex("probe.xformex.pad.alpha2", CUDNN_DATA_FLOAT, 4, s4, pb, pa, nofold, CUDNN_TRANSFORM_FOLD,
                     CUDNN_TENSOR_NCHW, &two, NULL);
  probe_transform_ex("probe.xformex.pad.beta1", CUDNN_DATA_FLOAT, 4, s4, pb, pa, nofold, CUDNN_TRANSFORM_FOLD,
                     CUDNN_TENSOR_NCHW, &one, &one);
  probe_transform_ex("probe.xformex.pad.alpha2beta0p5", CUDNN_DATA_FLOAT, 4, s4, pb, pa, nofold, CUDNN_TRANSFORM_FOLD,
                     CUDNN_TENSOR_NCHW, &two, &half_);
  probe_transform_ex("probe.xformex.pad.nhwc", CUDNN_DATA_FLOAT, 4, s4, pb, pa, nofold, CUDNN_TRANSFORM_FOLD,
                     CUDNN_TENSOR_NHWC, NULL, NULL);
  probe_transform_ex("probe.xformex.crop", CUDNN_DATA_FLOAT, 4, s4, crop, none, nofold, CUDNN_TRANSFORM_FOLD,
                     CUDNN_TENSOR_NCHW, NULL, NULL);
  probe_transform_ex("probe.xformex.nopad.alpha2beta0p5", CUDNN_DATA_FLOAT, 4, s4, none, none, nofold,
                     CUDNN_TRANSFORM_FOLD, CUDNN_TENSOR_NHWC, &two, &half_);
  /* Folding and unfolding. */
  int f4[4] = {1, 2, 4, 4}, u4[4] = {1, 8, 2, 2}, odd[4] = {1, 1, 3, 5};
  probe_transform_ex("probe.xformex.fold22", CUDNN_DATA_FLOAT, 4, f4, none, none, fold22, CUDNN_TRANSFORM_FOLD,
                     CUDNN_TENSOR_NCHW, NULL, NULL);
  probe_transform_ex("probe.xformex.fold22.nhwc", CUDNN_DATA_FLOAT, 4, f4, none, none, fold22, CUDNN_TRANSFORM_FOLD,
                     CUDNN_TENSOR_NHWC, NULL, NULL);
  probe_transform_ex("probe.xformex.fold21", CUDNN_DATA_FLOAT, 4, f4, none, none, fold21, CUDNN_TRANSFORM_FOLD,
                     CUDNN_TENSOR_NCHW, NULL, NULL);
  probe_transform_ex("probe.xformex.unfold22", CUDNN_DATA_FLOAT, 4, u4, none, none, fold22, CUDNN_TRANSFORM_UNFOLD,
                     CUDNN_TENSOR_NCHW, NULL, NULL);
  probe_transform_ex("probe.xformex.fold22.odd", CUDNN_DATA_FLOAT, 4, odd, none, none, fold22, CUDNN_TRANSFORM_FOLD,
                     CUDNN_TENSOR_NCHW, NULL, NULL);
  probe_transform_ex("probe.xformex.fold22.pad", CUDNN_DATA_FLOAT, 4, odd, pb, pa, fold22, CUDNN_TRANSFORM_FOLD,
                     CUDNN_TENSOR_NCHW, NULL, NULL);
  probe_transform_ex("probe.xformex.fold22.alpha2", CUDNN_DATA_FLOAT, 4, f4, none, none, fold22, CUDNN_TRANSFORM_FOLD,
                     CUDNN_TENSOR_NCHW, &two, &half_);
  probe_transform_ex("probe.xformex.fold22.f16", CUDNN_DATA_HALF, 4, f4, none, none, fold22, CUDNN_TRANSFORM_FOLD,
                     CUDNN_TENSOR_NCHW, NULL, NULL);
  /* TransformTensorEx with a type change (FLOAT source, HALF destination). */
  {
    cudnnTensorTransformDescriptor_t tr;
    DNN_OK(cudnnCreateTensorTransformDescriptor(&tr));
    DNN_OK(cudnnSetTensorTransformDescriptor(tr, 4, CUDNN_TENSOR_NCHW, pb, pa, nofold, CUDNN_TRANSFORM_FOLD));
    int dd[4] = {1, 2, 5, 4};
    OTensor x, y;
    otensor_packed(&x, CUDNN_DATA_FLOAT, 4, s4, 0);
    otensor_packed(&y, CUDNN_DATA_HALF, 4, dd, 0);
    probe_upload(&x, kProbeValues, kProbeValueCount);
    probe_upload_index(&y, 0);
    float zero = 0.0f;
    probe_values("probe.xformex.pad.f32tof16", tol_of(CUDNN_DATA_HALF),
                 cudnnTransformTensorEx(handle, tr, &one, x.desc, x.dev, &zero, y.desc, y.dev), CUDNN_DATA_HALF, y.dev,
                 40);
    otensor_free(&x);
    otensor_free(&y);
    cudnnDestroyTensorTransformDescriptor(tr);
  }
  /* TransformFilter with a type change and padding. */
  {
    cudnnTensorTransformDescriptor_t tr;
    DNN_OK(cudnnCreateTensorTransformDescriptor(&tr));
    DNN_OK(cudnnSetTensorTransformDescriptor(tr, 4, CUDNN_TENSOR_NHWC, none, none, nofold, CUDNN_TRANSFORM_FOLD));
    cudnnFilterDescriptor_t xf, yf;
    DNN_OK(cudnnCreateFilterDescriptor(&xf));
    DNN_OK(cudnnCreateFilterDescriptor(&yf));
    DNN_OK(cudnnSetFilter4dDescriptor(xf, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 2, 3, 2, 2));
    DNN_OK(cudnnSetFilter4dDescriptor(yf, CUDNN_DATA_HALF, CUDNN_TENSOR_NHWC, 2, 3, 2, 2));
    void *xd, *yd;
    CUDA_OK(cudaMalloc(&xd, 24 * 4));
    CUDA_OK(cudaMalloc(&yd, 24 * 2));
    float h[24];
    for (int i = 0; i < 24; ++i) h[i] = (float)kProbeValues[i % kProbeValueCount];
    CUDA_OK(cudaMemcpy(xd, h, sizeof h, cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemset(yd, 0, 48));
    float zero = 0.0f;
    probe_values("probe.xformfilter.f32tof16.nhwc", tol_of(CUDNN_DATA_HALF),
                 cudnnTransformFilter(handle, tr, &one, xf, xd, &zero, yf, yd), CUDNN_DATA_HALF, yd, 24);
    cudaFree(xd);
    cudaFree(yd);
    cudnnDestroyFilterDescriptor(xf);
    cudnnDestroyFilterDescriptor(yf);
    cudnnDestroyTensorTransformDescriptor(tr);
  }
}

/* ------------------------------------------------- probes: ReduceTensor */
/* Runs one reduction with the given buffers; indices are read back raw as
 * bytes (their type is the question). ws < 0: as queried. */
static void probe_reduce_case(const char *name, cudnnReduceTensorOp_t op, cudnnDataType_t comp, cudnnDataType_t ta,
                              cudnnDataType_t tc, cudnnReduceTensorIndices_t want_idx, cudnnIndicesType_t itype, int nb,
                              const int *adims, const int *cdims, const void *alpha, const void *beta, long ws_override,
                              long is_override) {
  cudnnReduceTensorDescriptor_t rd;
  DNN_OK(cudnnCreateReduceTensorDescriptor(&rd));
  cudnnStatus_t dst = cudnnSetReduceTensorDescriptor(rd, op, comp, CUDNN_NOT_PROPAGATE_NAN, want_idx, itype);
  if (dst != CUDNN_STATUS_SUCCESS) { /* the descriptor refuses the compute type */
    printf("%s tol=0 desc_st=%d\n", name, (int)dst);
    cudnnDestroyReduceTensorDescriptor(rd);
    return;
  }
  OTensor a, c;
  otensor_packed(&a, ta, nb, adims, 0);
  otensor_packed(&c, tc, nb, cdims, 0);
  probe_upload(&a, kProbeValues, kProbeValueCount);
  probe_upload_index(&c, 0);
  size_t ws = 0, is = 0;
  cudnnStatus_t wst = cudnnGetReductionWorkspaceSize(handle, rd, a.desc, c.desc, &ws);
  cudnnStatus_t ist = cudnnGetReductionIndicesSize(handle, rd, a.desc, c.desc, &is);
  /* Workspace sizes are the library's own business: information only. */
  printf("# %s ws=%zu\n", name, ws);
  printf("%s.sizes tol=0 st=%d ist=%d isize=%zu\n", name, (int)wst, (int)ist, is);
  void *wsp = NULL, *idx = NULL;
  CUDA_OK(cudaMalloc(&wsp, (ws > 0 ? ws : 16) + 1024));
  CUDA_OK(cudaMalloc(&idx, 4096));
  CUDA_OK(cudaMemset(idx, 0xee, 4096));
  size_t ws_pass = ws_override >= 0 ? (size_t)ws_override : ws;
  size_t is_pass = is_override >= 0 ? (size_t)is_override : (is > 0 ? is : 4096);
  cudnnStatus_t st = cudnnReduceTensor(handle, rd, idx, is_pass, ws_pass ? wsp : NULL, ws_pass, alpha, a.desc, a.dev,
                                       beta, c.desc, c.dev);
  size_t cn = c.span < 12 ? c.span : 12;
  probe_values(name, tol_of(tc) * 4, st, tc, c.dev, cn);
  if (want_idx == CUDNN_REDUCE_TENSOR_FLATTENED_INDICES && st == CUDNN_STATUS_SUCCESS) {
    char iname[200];
    snprintf(iname, sizeof iname, "%s.idxbytes", name);
    probe_values(iname, 0, st, CUDNN_DATA_UINT8, idx, 16);
  }
  cudaFree(wsp);
  cudaFree(idx);
  otensor_free(&a);
  otensor_free(&c);
  cudnnDestroyReduceTensorDescriptor(rd);
}

static void probe_reduce(void) {
  char name[160];
  const float one = 1.0f, zero = 0.0f, two = 2.0f;
  const double oned = 1.0, zerod = 0.0;
  const double zeros[2] = {0, 0};
  int a4[4] = {2, 3, 2, 2}, c_hw[4] = {2, 3, 1, 1}, c_c[4] = {2, 1, 2, 2};
  const cudnnReduceTensorIndices_t NOI = CUDNN_REDUCE_TENSOR_NO_INDICES, FLAT = CUDNN_REDUCE_TENSOR_FLATTENED_INDICES;
  const cudnnIndicesType_t I32 = CUDNN_32BIT_INDICES;
  const cudnnDataType_t F = CUDNN_DATA_FLOAT, D = CUDNN_DATA_DOUBLE;
  /* Nothing to reduce: C has A's dims. */
  probe_reduce_case("probe.reduce.same.add", CUDNN_REDUCE_TENSOR_ADD, F, F, F, NOI, I32, 4, a4, a4, &two, &zero, -1, -1);
  probe_reduce_case("probe.reduce.same.max.idx", CUDNN_REDUCE_TENSOR_MAX, F, F, F, FLAT, I32, 4, a4, a4, &two, &zero, -1,
                    -1);
  probe_reduce_case("probe.reduce.same.norm2", CUDNN_REDUCE_TENSOR_NORM2, F, F, F, NOI, I32, 4, a4, a4, &one, &zero, -1,
                    -1);
  probe_reduce_case("probe.reduce.same.avg.beta", CUDNN_REDUCE_TENSOR_AVG, F, F, F, NOI, I32, 4, a4, a4, &one, &one, -1,
                    -1);
  /* DOUBLE mixed with FLOAT; factors from the ambiguous buffer. */
  struct { cudnnDataType_t comp, a, c; } dmix[] = {{F, F, D}, {D, F, D}, {D, D, F}, {F, D, F}, {F, D, D}, {D, F, F},
                                                  {D, CUDNN_DATA_HALF, CUDNN_DATA_HALF}};
  for (int i = 0; i < 7; ++i) {
    snprintf(name, sizeof name, "probe.reduce.types.%s.%sto%s", probe_type_name(dmix[i].comp), probe_type_name(dmix[i].a),
             probe_type_name(dmix[i].c));
    probe_reduce_case(name, CUDNN_REDUCE_TENSOR_ADD, dmix[i].comp, dmix[i].a, dmix[i].c, NOI, I32, 4, a4, c_hw,
                      ambig_ptr(), zeros, -1, -1);
  }
  /* Other type combinations with FLOAT / HALF compute types. */
  struct { cudnnDataType_t comp, a, c; } tmix[] = {
      {CUDNN_DATA_HALF, CUDNN_DATA_HALF, CUDNN_DATA_HALF}, {CUDNN_DATA_HALF, F, F},
      {F, CUDNN_DATA_INT8, CUDNN_DATA_INT8},               {F, F, CUDNN_DATA_INT8},
      {F, CUDNN_DATA_INT32, F},                            {F, CUDNN_DATA_BFLOAT16, CUDNN_DATA_BFLOAT16},
      {F, CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16},           {F, CUDNN_DATA_UINT8, F},
      {F, F, CUDNN_DATA_INT32},                            {CUDNN_DATA_BFLOAT16, CUDNN_DATA_BFLOAT16, F},
      {CUDNN_DATA_INT32, CUDNN_DATA_INT8, CUDNN_DATA_INT32}};
  for (int i = 0; i < (int)(sizeof tmix / sizeof tmix[0]); ++i) {
    snprintf(name, sizeof name, "probe.reduce.types.%s.%sto%s", probe_type_name(tmix[i].comp), probe_type_name(tmix[i].a),
             probe_type_name(tmix[i].c));
    probe_reduce_case(name, CUDNN_REDUCE_TENSOR_ADD, tmix[i].comp, tmix[i].a, tmix[i].c, NOI, I32, 4, a4, c_hw, &one,
                      &zero, -1, -1);
  }
  /* Indices: requested of ops that have none, other index types, too little room. */
  const cudnnReduceTensorOp_t no_index_ops[] = {CUDNN_REDUCE_TENSOR_ADD, CUDNN_REDUCE_TENSOR_NORM1,
                                                CUDNN_REDUCE_TENSOR_AVG};
  const char *nio_names[] = {"add", "norm1", "avg"};
  for (int i = 0; i < 3; ++i) {
    snprintf(name, sizeof name, "probe.reduce.flat.%s", nio_names[i]);
    probe_reduce_case(name, no_index_ops[i], F, F, F, FLAT, I32, 4, a4, c_c, &one, &zero, -1, -1);
  }
  probe_reduce_case("probe.reduce.noidx.max", CUDNN_REDUCE_TENSOR_MAX, F, F, F, NOI, I32, 4, a4, c_c, &one, &zero, -1,
                    -1);
  const cudnnIndicesType_t itypes[] = {CUDNN_64BIT_INDICES, CUDNN_16BIT_INDICES, CUDNN_8BIT_INDICES};
  const char *itn[] = {"i64", "i16", "i8"};
  for (int i = 0; i < 3; ++i) {
    snprintf(name, sizeof name, "probe.reduce.max.%s", itn[i]);
    probe_reduce_case(name, CUDNN_REDUCE_TENSOR_MAX, F, F, F, FLAT, itypes[i], 4, a4, c_c, &one, &zero, -1, -1);
  }
  /* Indices 8 outputs x 4 bytes = 32: pass 31, and 0. */
  probe_reduce_case("probe.reduce.max.idx_small", CUDNN_REDUCE_TENSOR_MAX, F, F, F, FLAT, I32, 4, a4, c_c, &one, &zero,
                    -1, 31);
  probe_reduce_case("probe.reduce.max.idx_zero", CUDNN_REDUCE_TENSOR_MAX, F, F, F, FLAT, I32, 4, a4, c_c, &one, &zero,
                    -1, 0);
  /* Workspace: a reduction large enough to need some (both libraries), given too little. */
  int big[4] = {4, 64, 64, 64}, big_all[4] = {1, 1, 1, 1}, big_c[4] = {4, 64, 1, 1};
  probe_reduce_case("probe.reduce.ws_zero.all", CUDNN_REDUCE_TENSOR_ADD, F, F, F, NOI, I32, 4, big, big_all, &one,
                    &zero, 0, -1);
  probe_reduce_case("probe.reduce.ws_zero.hw", CUDNN_REDUCE_TENSOR_ADD, F, F, F, NOI, I32, 4, big, big_c, &one, &zero,
                    0, -1);
  probe_reduce_case("probe.reduce.ws_one.all", CUDNN_REDUCE_TENSOR_ADD, F, F, F, NOI, I32, 4, big, big_all, &one,
                    &zero, 1, -1);
  /* Ranks. */
  const int ranks[] = {2, 3, 6, 8};
  for (int r = 0; r < 4; ++r) {
    int dims[8], cdims[8];
    probe_rank_dims(ranks[r], dims);
    for (int i = 0; i < ranks[r]; ++i) cdims[i] = i == 1 ? 3 : 1;
    snprintf(name, sizeof name, "probe.reduce.rank%d", ranks[r]);
    probe_reduce_case(name, CUDNN_REDUCE_TENSOR_ADD, F, F, F, NOI, I32, ranks[r], dims, cdims, &one, &zero, -1, -1);
  }
  /* Rank mismatch and mismatched dims: the size queries and the call. */
  {
    int c3[3] = {2, 3, 1};
    cudnnReduceTensorDescriptor_t rd;
    DNN_OK(cudnnCreateReduceTensorDescriptor(&rd));
    DNN_OK(cudnnSetReduceTensorDescriptor(rd, CUDNN_REDUCE_TENSOR_MAX, F, CUDNN_NOT_PROPAGATE_NAN, FLAT, I32));
    OTensor a, c, cbad;
    int bad[4] = {2, 2, 1, 1};
    otensor_packed(&a, F, 4, a4, 0);
    otensor_packed(&c, F, 3, c3, 0);
    otensor_packed(&cbad, F, 4, bad, 0);
    size_t ws = 0, is = 0;
    printf("probe.reduce.rank_mismatch.sizes tol=0 st=%d", (int)cudnnGetReductionWorkspaceSize(handle, rd, a.desc, c.desc, &ws));
    printf(" ist=%d", (int)cudnnGetReductionIndicesSize(handle, rd, a.desc, c.desc, &is));
    printf(" isize=%zu\n", is);
    is = 0;
    printf("probe.reduce.dims_mismatch.sizes tol=0 st=%d",
           (int)cudnnGetReductionWorkspaceSize(handle, rd, a.desc, cbad.desc, &ws));
    printf(" ist=%d", (int)cudnnGetReductionIndicesSize(handle, rd, a.desc, cbad.desc, &is));
    printf(" isize=%zu\n", is);
    /* Types that cudnnReduceTensor rejects: does the workspace query? */
    OTensor cd;
    otensor_packed(&cd, D, 4, c_hw, 0);
    printf("probe.reduce.type_mismatch.sizes tol=0 st=%d\n",
           (int)cudnnGetReductionWorkspaceSize(handle, rd, a.desc, cd.desc, &ws));
    printf("probe.reduce.same_dims.sizes tol=0 st=%d\n",
           (int)cudnnGetReductionWorkspaceSize(handle, rd, a.desc, a.desc, &ws));
    otensor_free(&a);
    otensor_free(&c);
    otensor_free(&cbad);
    otensor_free(&cd);
    cudnnDestroyReduceTensorDescriptor(rd);
  }
  (void)oned;
  (void)zerod;
}

/* ------------------------------------------------- probes: type tables */
static void probe_type_tables(void) {
  char name[160];
  const cudnnDataType_t types[] = {CUDNN_DATA_FLOAT, CUDNN_DATA_DOUBLE, CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16,
                                   CUDNN_DATA_INT8,  CUDNN_DATA_UINT8,  CUDNN_DATA_INT32};
  const cudnnDataType_t comps[] = {CUDNN_DATA_FLOAT, CUDNN_DATA_DOUBLE};
  const float one = 1.0f, zero = 0.0f;
  const double oned = 1.0, zerod = 0.0;
  const double zeros[2] = {0, 0};
  int full[4] = {2, 3, 2, 2}, bias[4] = {1, 3, 1, 1}, c_hw[4] = {2, 3, 1, 1};
  /* cudnnOpTensor: every (A = B, C) pair under both compute types. */
  for (int k = 0; k < 2; ++k)
    for (int i = 0; i < 7; ++i)
      for (int j = 0; j < 7; ++j) {
        snprintf(name, sizeof name, "probe.opm.%s.%s.%s", probe_type_name(comps[k]), probe_type_name(types[i]),
                 probe_type_name(types[j]));
        const void *f1 = types[j] == CUDNN_DATA_DOUBLE ? (const void *)&oned : (const void *)&one;
        const void *f0 = types[j] == CUDNN_DATA_DOUBLE ? (const void *)&zerod : (const void *)&zero;
        probe_op_case(name, CUDNN_OP_TENSOR_ADD, comps[k], types[i], types[i], types[j], 4, full, bias, full, f1, f1,
                      f0);
      }
  /* A and B of different types. */
  struct { cudnnDataType_t a, b, c; } ab[] = {{CUDNN_DATA_FLOAT, CUDNN_DATA_HALF, CUDNN_DATA_HALF},
                                              {CUDNN_DATA_HALF, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT},
                                              {CUDNN_DATA_INT8, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT},
                                              {CUDNN_DATA_FLOAT, CUDNN_DATA_INT8, CUDNN_DATA_INT8}};
  for (int i = 0; i < 4; ++i) {
    snprintf(name, sizeof name, "probe.opm.ab.%s.%s.%s", probe_type_name(ab[i].a), probe_type_name(ab[i].b),
             probe_type_name(ab[i].c));
    probe_op_case(name, CUDNN_OP_TENSOR_MUL, CUDNN_DATA_FLOAT, ab[i].a, ab[i].b, ab[i].c, 4, full, bias, full, &one,
                  &one, &zero);
  }
  /* cudnnReduceTensor: every (A, C) pair under both compute types; alpha
   * from the ambiguous buffer (its reading shows the factors' type). */
  for (int k = 0; k < 2; ++k)
    for (int i = 0; i < 7; ++i)
      for (int j = 0; j < 7; ++j) {
        snprintf(name, sizeof name, "probe.redm.%s.%s.%s", probe_type_name(comps[k]), probe_type_name(types[i]),
                 probe_type_name(types[j]));
        probe_reduce_case(name, CUDNN_REDUCE_TENSOR_ADD, comps[k], types[i], types[j], CUDNN_REDUCE_TENSOR_NO_INDICES,
                          CUDNN_32BIT_INDICES, 4, full, c_hw, ambig_ptr(), zeros, -1, -1);
      }
  probe_reduce_case("probe.redm.max.idx.s8", CUDNN_REDUCE_TENSOR_MAX, CUDNN_DATA_FLOAT, CUDNN_DATA_INT8,
                    CUDNN_DATA_INT8, CUDNN_REDUCE_TENSOR_FLATTENED_INDICES, CUDNN_32BIT_INDICES, 4, full, c_hw, &one,
                    &zero, -1, -1);
  probe_reduce_case("probe.redm.amax.idx.f16f32", CUDNN_REDUCE_TENSOR_AMAX, CUDNN_DATA_FLOAT, CUDNN_DATA_HALF,
                    CUDNN_DATA_FLOAT, CUDNN_REDUCE_TENSOR_FLATTENED_INDICES, CUDNN_32BIT_INDICES, 4, full, c_hw, &one,
                    &zero, -1, -1);
}

/* ------------------------------------------------- probes: more shapes and layouts */
static void probe_more(void) {
  char name[160];
  const float one = 1.0f, zero = 0.0f, two = 2.0f, half_ = 0.5f;
  /* Ranks 4 and 5 of Set / Scale (ranks 2, 3, 6, 8 are refused). */
  for (int nb = 4; nb <= 5; ++nb) {
    int dims[8];
    probe_rank_dims(nb, dims);
    OTensor y;
    otensor_packed(&y, CUDNN_DATA_FLOAT, nb, dims, 1);
    otensor_fill(&y, 0.25, 2.0);
    float v = -1.25f;
    snprintf(name, sizeof name, "probe.set.rank%d.nhwc", nb);
    probe_values(name, 0, cudnnSetTensor(handle, y.desc, y.dev, &v), CUDNN_DATA_FLOAT, y.dev, 4);
    probe_upload(&y, kProbeValues, kProbeValueCount);
    snprintf(name, sizeof name, "probe.scale.rank%d.nhwc", nb);
    probe_values(name, 2e-5, cudnnScaleTensor(handle, y.desc, y.dev, &two), CUDNN_DATA_FLOAT, y.dev, 12);
    otensor_free(&y);
  }
  /* AddTensor on vector types (same type, whole vectors). */
  const cudnnDataType_t vt[] = {CUDNN_DATA_INT8x4, CUDNN_DATA_UINT8x4, CUDNN_DATA_INT8x32};
  for (int k = 0; k < 3; ++k) {
    int c = vt[k] == CUDNN_DATA_INT8x32 ? 32 : 8;
    OTensor a, y;
    probe_vect_tensor(&a, vt[k], 1, c, 1, 2);
    probe_vect_tensor(&y, vt[k], 1, c, 1, 2);
    probe_upload(&a, kProbeValues, kProbeValueCount);
    probe_upload_index(&y, 0);
    snprintf(name, sizeof name, "probe.add.vect.%s", probe_type_name(vt[k]));
    probe_values(name, 0, cudnnAddTensor(handle, &one, a.desc, a.dev, &one, y.desc, y.dev), y.type, y.dev, 12);
    cudnnOpTensorDescriptor_t od;
    DNN_OK(cudnnCreateOpTensorDescriptor(&od));
    DNN_OK(cudnnSetOpTensorDescriptor(od, CUDNN_OP_TENSOR_ADD, CUDNN_DATA_FLOAT, CUDNN_NOT_PROPAGATE_NAN));
    snprintf(name, sizeof name, "probe.op.vect.%s", probe_type_name(vt[k]));
    probe_values(name, 0, cudnnOpTensor(handle, od, &one, a.desc, a.dev, &one, a.desc, a.dev, &zero, y.desc, y.dev),
                 y.type, y.dev, 12);
    cudnnDestroyOpTensorDescriptor(od);
    otensor_free(&a);
    otensor_free(&y);
  }
  /* Same-type transforms of UINT8 / INT32 (layout change). */
  int d4[4] = {2, 3, 2, 2};
  probe_transform_case("probe.xform.same.u8.nhwc", CUDNN_DATA_UINT8, CUDNN_DATA_UINT8, 4, d4, d4, 0, 1, kProbeValues,
                       kProbeValueCount, NULL, NULL);
  probe_transform_case("probe.xform.same.s32.nhwc", CUDNN_DATA_INT32, CUDNN_DATA_INT32, 4, d4, d4, 0, 1, kProbeValues,
                       kProbeValueCount, NULL, NULL);
  probe_transform_case("probe.xform.same.s8.nhwc.blend", CUDNN_DATA_INT8, CUDNN_DATA_INT8, 4, d4, d4, 0, 1,
                       kProbeValues, kProbeValueCount, &half_, &two);
  /* Vector formats with the same lane type, and INT8x4 with other types. */
  struct { cudnnDataType_t x, y; int c; } vp[] = {
      {CUDNN_DATA_INT8, CUDNN_DATA_INT8x4, 8},     {CUDNN_DATA_INT8x4, CUDNN_DATA_INT8, 8},
      {CUDNN_DATA_INT8, CUDNN_DATA_INT8x32, 32},   {CUDNN_DATA_INT8x32, CUDNN_DATA_INT8, 32},
      {CUDNN_DATA_INT8x4, CUDNN_DATA_INT8x32, 32}, {CUDNN_DATA_INT8x32, CUDNN_DATA_INT8x4, 32},
      {CUDNN_DATA_UINT8, CUDNN_DATA_UINT8x4, 8},   {CUDNN_DATA_UINT8x4, CUDNN_DATA_UINT8, 8},
      {CUDNN_DATA_INT8x4, CUDNN_DATA_INT8x4, 8},   {CUDNN_DATA_BFLOAT16, CUDNN_DATA_INT8x4, 8},
      {CUDNN_DATA_INT8x4, CUDNN_DATA_DOUBLE, 8},   {CUDNN_DATA_FLOAT, CUDNN_DATA_INT8x4, 16},
      {CUDNN_DATA_INT8x32, CUDNN_DATA_INT8x32, 32}, {CUDNN_DATA_UINT8x4, CUDNN_DATA_UINT8x4, 8}};
  for (int k = 0; k < (int)(sizeof vp / sizeof vp[0]); ++k) {
    OTensor x, y;
    int dims[4] = {1, vp[k].c, 1, 2};
    int xv = vp[k].x == CUDNN_DATA_INT8x4 || vp[k].x == CUDNN_DATA_INT8x32 || vp[k].x == CUDNN_DATA_UINT8x4;
    int yv = vp[k].y == CUDNN_DATA_INT8x4 || vp[k].y == CUDNN_DATA_INT8x32 || vp[k].y == CUDNN_DATA_UINT8x4;
    if (xv) probe_vect_tensor(&x, vp[k].x, 1, vp[k].c, 1, 2);
    else otensor_packed(&x, vp[k].x, 4, dims, 1);
    if (yv) probe_vect_tensor(&y, vp[k].y, 1, vp[k].c, 1, 2);
    else otensor_packed(&y, vp[k].y, 4, dims, 1);
    probe_upload(&x, kProbeValues, kProbeValueCount);
    probe_upload_index(&y, 0);
    snprintf(name, sizeof name, "probe.xform.vect2.%sto%s.c%d", probe_type_name(vp[k].x), probe_type_name(vp[k].y),
             vp[k].c);
    /* With a DOUBLE side, the factors' type is a question: the ambiguous buffer. */
    const double zeros[2] = {0, 0};
    const int has_double = vp[k].x == CUDNN_DATA_DOUBLE || vp[k].y == CUDNN_DATA_DOUBLE;
    probe_values(name, tol_of(y.type),
                 cudnnTransformTensor(handle, has_double ? ambig_ptr() : (const void *)&one, x.desc, x.dev,
                                      has_double ? (const void *)zeros : (const void *)&zero, y.desc, y.dev),
                 y.type, y.dev, 16);
    otensor_free(&x);
    otensor_free(&y);
  }
  /* Factors of TransformTensorEx / TransformFilter from a DOUBLE source. */
  {
    cudnnTensorTransformDescriptor_t tr;
    int none[4] = {0, 0, 0, 0};
    unsigned nofold[2] = {1, 1};
    DNN_OK(cudnnCreateTensorTransformDescriptor(&tr));
    DNN_OK(cudnnSetTensorTransformDescriptor(tr, 4, CUDNN_TENSOR_NCHW, none, none, nofold, CUDNN_TRANSFORM_FOLD));
    OTensor x, y;
    otensor_packed(&x, CUDNN_DATA_DOUBLE, 4, d4, 0);
    otensor_packed(&y, CUDNN_DATA_FLOAT, 4, d4, 1);
    probe_upload(&x, kProbeValues, kProbeValueCount);
    const double zeros[2] = {0, 0};
    probe_values("probe.xformex.ambig.f64tof32", 2e-5,
                 cudnnTransformTensorEx(handle, tr, ambig_ptr(), x.desc, x.dev, zeros, y.desc, y.dev), CUDNN_DATA_FLOAT,
                 y.dev, 12);
    cudnnFilterDescriptor_t xf, yf;
    DNN_OK(cudnnCreateFilterDescriptor(&xf));
    DNN_OK(cudnnCreateFilterDescriptor(&yf));
    DNN_OK(cudnnSetFilter4dDescriptor(xf, CUDNN_DATA_DOUBLE, CUDNN_TENSOR_NCHW, 2, 3, 2, 2));
    DNN_OK(cudnnSetFilter4dDescriptor(yf, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NHWC, 2, 3, 2, 2));
    probe_values("probe.xformfilter.ambig.f64tof32", 2e-5,
                 cudnnTransformFilter(handle, tr, ambig_ptr(), xf, x.dev, zeros, yf, y.dev), CUDNN_DATA_FLOAT, y.dev,
                 12);
    cudnnDestroyFilterDescriptor(xf);
    cudnnDestroyFilterDescriptor(yf);
    otensor_free(&x);
    otensor_free(&y);
    cudnnDestroyTensorTransformDescriptor(tr);
  }
  /* Folding: blends over implicit and explicit padding, unfolding with
   * padding and with channels that do not fill the groups, 5-d. */
  int odd[4] = {1, 1, 3, 5}, u4[4] = {1, 8, 2, 2}, u6[4] = {1, 6, 2, 2}, pb[4] = {0, 0, 1, 1}, pa[4] = {0, 0, 1, 0},
      none[4] = {0, 0, 0, 0};
  unsigned fold22[2] = {2, 2}, fold13[2] = {1, 3};
  probe_transform_ex("probe.xformex.fold22.odd.beta", CUDNN_DATA_FLOAT, 4, odd, none, none, fold22,
                     CUDNN_TRANSFORM_FOLD, CUDNN_TENSOR_NCHW, &two, &half_);
  probe_transform_ex("probe.xformex.fold22.pad.beta", CUDNN_DATA_FLOAT, 4, odd, pb, pa, fold22, CUDNN_TRANSFORM_FOLD,
                     CUDNN_TENSOR_NCHW, &one, &half_);
  probe_transform_ex("probe.xformex.fold13.odd", CUDNN_DATA_FLOAT, 4, odd, none, none, fold13, CUDNN_TRANSFORM_FOLD,
                     CUDNN_TENSOR_NHWC, NULL, NULL);
  probe_transform_ex("probe.xformex.unfold22.pad", CUDNN_DATA_FLOAT, 4, u4, pb, pa, fold22, CUDNN_TRANSFORM_UNFOLD,
                     CUDNN_TENSOR_NCHW, NULL, NULL);
  probe_transform_ex("probe.xformex.unfold22.c6", CUDNN_DATA_FLOAT, 4, u6, none, none, fold22, CUDNN_TRANSFORM_UNFOLD,
                     CUDNN_TENSOR_NCHW, NULL, NULL);
  probe_transform_ex("probe.xformex.unfold22.blend", CUDNN_DATA_FLOAT, 4, u4, none, none, fold22,
                     CUDNN_TRANSFORM_UNFOLD, CUDNN_TENSOR_NHWC, &two, &half_);
  int s5[5] = {1, 1, 2, 4, 4}, n5[5] = {0, 0, 0, 0, 0};
  unsigned fold222[3] = {2, 2, 2};
  probe_transform_ex("probe.xformex.fold222.5d", CUDNN_DATA_FLOAT, 5, s5, n5, n5, fold222, CUDNN_TRANSFORM_FOLD,
                     CUDNN_TENSOR_NCHW, NULL, NULL);
  probe_transform_ex("probe.xformex.fold22.s8", CUDNN_DATA_INT8, 4, odd, none, none, fold22, CUDNN_TRANSFORM_FOLD,
                     CUDNN_TENSOR_NCHW, NULL, NULL);
  /* OpTensor unary ops: is B still validated? */
  {
    int c4[4] = {1, 4, 2, 2}, bbad[4] = {2, 2, 2, 2};
    OTensor a, c, b_bad, b_half;
    otensor_packed(&a, CUDNN_DATA_FLOAT, 4, c4, 0);
    otensor_packed(&c, CUDNN_DATA_FLOAT, 4, c4, 0);
    otensor_packed(&b_bad, CUDNN_DATA_FLOAT, 4, bbad, 0);
    otensor_packed(&b_half, CUDNN_DATA_HALF, 4, c4, 0);
    otensor_fill_positive(&a, 0.25, 2.0);
    cudnnOpTensorDescriptor_t od;
    DNN_OK(cudnnCreateOpTensorDescriptor(&od));
    DNN_OK(cudnnSetOpTensorDescriptor(od, CUDNN_OP_TENSOR_SQRT, CUDNN_DATA_FLOAT, CUDNN_NOT_PROPAGATE_NAN));
    probe_values("probe.op.sqrt.b_dims_bad", 2e-5,
                 cudnnOpTensor(handle, od, &one, a.desc, a.dev, &one, b_bad.desc, b_bad.dev, &zero, c.desc, c.dev),
                 CUDNN_DATA_FLOAT, c.dev, 4);
    probe_values("probe.op.sqrt.b_half", 2e-5,
                 cudnnOpTensor(handle, od, &one, a.desc, a.dev, &one, b_half.desc, b_half.dev, &zero, c.desc, c.dev),
                 CUDNN_DATA_FLOAT, c.dev, 4);
    DNN_OK(cudnnSetOpTensorDescriptor(od, CUDNN_OP_TENSOR_NOT, CUDNN_DATA_FLOAT, CUDNN_NOT_PROPAGATE_NAN));
    probe_values("probe.op.not.b_dims_bad", 2e-5,
                 cudnnOpTensor(handle, od, &one, a.desc, a.dev, &one, b_bad.desc, b_bad.dev, &zero, c.desc, c.dev),
                 CUDNN_DATA_FLOAT, c.dev, 4);
    cudnnDestroyOpTensorDescriptor(od);
    otensor_free(&a);
    otensor_free(&c);
    otensor_free(&b_bad);
    otensor_free(&b_half);
  }
}

/* ------------------------------------------------- probes that may crash */
/* NULL arguments that cuDNN might not check; kept last, in their own group. */
static void probe_risky(void) {
  int d4[4] = {1, 4, 2, 2};
  const float one = 1.0f, zero = 0.0f;
  OTensor a, c;
  otensor_packed(&a, CUDNN_DATA_FLOAT, 4, d4, 0);
  otensor_packed(&c, CUDNN_DATA_FLOAT, 4, d4, 0);
  probe_upload(&a, kProbeValues, kProbeValueCount);
  cudnnOpTensorDescriptor_t od;
  DNN_OK(cudnnCreateOpTensorDescriptor(&od));
  DNN_OK(cudnnSetOpTensorDescriptor(od, CUDNN_OP_TENSOR_SQRT, CUDNN_DATA_FLOAT, CUDNN_NOT_PROPAGATE_NAN));
  probe_values("probe.risky.sqrt.b_data_null", 2e-5,
               cudnnOpTensor(handle, od, &one, a.desc, a.dev, &one, a.desc, NULL, &zero, c.desc, c.dev),
               CUDNN_DATA_FLOAT, c.dev, 4);
  probe_values("probe.risky.sqrt.alpha2_null", 2e-5,
               cudnnOpTensor(handle, od, &one, a.desc, a.dev, NULL, a.desc, a.dev, &zero, c.desc, c.dev),
               CUDNN_DATA_FLOAT, c.dev, 4);
  probe_values("probe.risky.sqrt.b_desc_null", 2e-5,
               cudnnOpTensor(handle, od, &one, a.desc, a.dev, &one, NULL, NULL, &zero, c.desc, c.dev),
               CUDNN_DATA_FLOAT, c.dev, 4);
  cudnnDestroyOpTensorDescriptor(od);
  /* (A reduction with a NULL indices buffer or a NULL workspace of the
   * right size makes NVIDIA's cuDNN 9.19 write through the NULL pointer, an
   * illegal address: not compared; FreeDNN answers BAD_PARAM.) */
  otensor_free(&a);
  otensor_free(&c);
}

/* Groups of cases; scripts/gpu-check.sh runs each group in its own process so
 * that a crash of either library loses one group only. */
enum { kGroups = 15 };

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
  if (which < 0 || which == 7) probe_set_scale();
  if (which < 0 || which == 8) probe_add_op();
  if (which < 0 || which == 9) probe_transforms();
  if (which < 0 || which == 10) probe_transforms_ex();
  if (which < 0 || which == 11) probe_reduce();
  if (which < 0 || which == 12) probe_type_tables();
  if (which < 0 || which == 13) probe_more();
  if (which < 0 || which == 14) probe_risky();
  cudnnDestroy(handle);
  return 0;
}
