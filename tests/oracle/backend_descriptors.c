/*
 * Differential test of backend descriptors that need no handle: tensor,
 * pointwise, reduction and resample descriptors and their operations, the
 * reshape, concat, RNG, signal operations, kernel caches and device
 * properties (set / get / finalize rules and statuses). Built against FreeDNN and against NVIDIA's
 * cuDNN; lines not starting with '#' must agree.
 *
 * Left out on purpose (NVIDIA's library crashes there): a NULL descriptor
 * out-pointer in cudnnBackendCreateDescriptor and finalizing an empty
 * engine-config descriptor.
 */
#include <cudnn.h>

#include <stdint.h>
#include <stdio.h>

static void note(int st) {
  char msg[512];
  if (st == 0) return;
  msg[0] = 0;
  cudnnGetLastErrorString(msg, sizeof msg);
  printf("# %s\n", msg);
}

#define LINE(label, call)                         \
  do {                                            \
    int st_ = (int)(call);                        \
    printf("%s -> %d\n", label, st_);             \
    note(st_);                                    \
  } while (0)

static cudnnBackendDescriptor_t tensor(int64_t uid, int nd, const int64_t *dims, const int64_t *strides,
                                       int64_t align, int dtype, int is_virtual, int finalize) {
  cudnnBackendDescriptor_t t;
  cudnnDataType_t dt = (cudnnDataType_t)dtype;
  char v = (char)is_virtual;
  cudnnBackendCreateDescriptor(CUDNN_BACKEND_TENSOR_DESCRIPTOR, &t);
  cudnnBackendSetAttribute(t, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &uid);
  if (dtype >= 0) cudnnBackendSetAttribute(t, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &dt);
  if (align >= 0) cudnnBackendSetAttribute(t, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &align);
  if (dims) cudnnBackendSetAttribute(t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, nd, dims);
  if (strides) cudnnBackendSetAttribute(t, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, nd, strides);
  cudnnBackendSetAttribute(t, CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, 1, &v);
  if (finalize) {
    int st = cudnnBackendFinalize(t);
    printf("tensor uid%ld nd%d align%ld dtype%d -> %d\n", (long)uid, nd, (long)align, dtype, st);
    note(st);
  }
  return t;
}

static void show_int64(cudnnBackendDescriptor_t d, int attr, int64_t requested) {
  int64_t n = -7, v[12];
  int i, st;
  for (i = 0; i < 12; ++i) v[i] = -7;
  st = cudnnBackendGetAttribute(d, (cudnnBackendAttributeName_t)attr, CUDNN_TYPE_INT64, requested, &n, v);
  printf("get attr%d req%ld -> %d n%ld", attr, (long)requested, st, (long)n);
  for (i = 0; i < 6; ++i) printf(" %ld", (long)v[i]);
  printf("\n");
}

static void tensors(void) {
  int64_t d4[4] = {2, 3, 4, 5}, s4[4] = {60, 20, 5, 1}, s3[3] = {20, 5, 1}, neg[4] = {2, -3, 4, 5},
          sneg[4] = {60, 20, -5, 1}, s0[4] = {60, 20, 5, 0}, d9[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
  int dt;
  cudnnBackendDescriptor_t t;
  t = tensor(1, 4, d4, s4, 16, CUDNN_DATA_FLOAT, 0, 1);
  show_int64(t, CUDNN_ATTR_TENSOR_DIMENSIONS, 8);
  show_int64(t, CUDNN_ATTR_TENSOR_DIMENSIONS, 2);
  show_int64(t, CUDNN_ATTR_TENSOR_STRIDES, 4);
  show_int64(t, CUDNN_ATTR_TENSOR_UNIQUE_ID, 1);
  show_int64(t, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, 1);
  show_int64(t, CUDNN_ATTR_TENSOR_VECTOR_COUNT, 1);
  show_int64(t, CUDNN_ATTR_TENSOR_VECTORIZED_DIMENSION, 1);
  {
    int64_t n = -7;
    printf("count query -> %d", (int)cudnnBackendGetAttribute(t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 0, &n, NULL));
    printf(" n%ld\n", (long)n);
  }
  LINE("get as double", cudnnBackendGetAttribute(t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_DOUBLE, 1, NULL, d4));
  LINE("set after finalize", cudnnBackendSetAttribute(t, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, d4));
  LINE("finalize twice", cudnnBackendFinalize(t));
  LINE("destroy", cudnnBackendDestroyDescriptor(t));
  tensor(2, 4, d4, s4, -1, CUDNN_DATA_FLOAT, 0, 1);
  tensor(3, 4, d4, s4, 16, -1, 0, 1);
  tensor(4, 4, NULL, s4, 16, CUDNN_DATA_FLOAT, 0, 1);
  tensor(5, 4, d4, NULL, 16, CUDNN_DATA_FLOAT, 0, 1);
  tensor(6, 4, neg, s4, 16, CUDNN_DATA_FLOAT, 0, 1);
  tensor(7, 4, d4, sneg, 16, CUDNN_DATA_FLOAT, 0, 1);
  tensor(8, 4, d4, s0, 16, CUDNN_DATA_FLOAT, 0, 1);
  tensor(9, 4, d4, s4, 3, CUDNN_DATA_FLOAT, 0, 1);
  tensor(10, 4, d4, s4, 2, CUDNN_DATA_HALF, 0, 1);
  tensor(11, 4, d4, s4, 1, CUDNN_DATA_HALF, 0, 1);
  tensor(12, 4, d4, s4, 8, CUDNN_DATA_DOUBLE, 0, 1);
  tensor(13, 4, d4, s4, 4, CUDNN_DATA_DOUBLE, 0, 1);
  tensor(14, 4, d4, s4, 16, CUDNN_DATA_FLOAT, 1, 1);
  for (dt = 0; dt <= 14; ++dt) tensor(100 + dt, 4, d4, s4, 16, dt, 0, 1);
  t = tensor(15, 4, d4, NULL, 16, CUDNN_DATA_FLOAT, 0, 0);
  LINE("strides count 3", cudnnBackendSetAttribute(t, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, 3, s3));
  LINE("finalize 4 dims 3 strides", cudnnBackendFinalize(t));
  LINE("dims count 0", cudnnBackendSetAttribute(t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 0, d9));
  LINE("dims count 8", cudnnBackendSetAttribute(t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 8, d9));
  LINE("uid count 2", cudnnBackendSetAttribute(t, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 2, d4));
  LINE("uid count 0", cudnnBackendSetAttribute(t, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 0, d4));
  LINE("uid as int32", cudnnBackendSetAttribute(t, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT32, 1, d4));
  LINE("uid NULL", cudnnBackendSetAttribute(t, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, NULL));
  LINE("pointwise attr on tensor", cudnnBackendSetAttribute(t, CUDNN_ATTR_POINTWISE_MODE, CUDNN_TYPE_INT64, 1, d4));
  LINE("get before finalize", cudnnBackendGetAttribute(t, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, d4, d4));
  LINE("set NULL descriptor", cudnnBackendSetAttribute(NULL, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, d4));
  LINE("finalize NULL", cudnnBackendFinalize(NULL));
  LINE("destroy NULL", cudnnBackendDestroyDescriptor(NULL));
}

/* The types FreeDNN implements so far, and types that cannot be created. */
static void types(void) {
  static const int kTypes[] = {-1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 10, 11, 12, 13, 15, 16, 17, 21, 22, 44, 45, 999};
  unsigned i;
  for (i = 0; i < sizeof kTypes / sizeof kTypes[0]; ++i) {
    cudnnBackendDescriptor_t d = NULL;
    int st = cudnnBackendCreateDescriptor((cudnnBackendDescriptorType_t)kTypes[i], &d);
    printf("create type %d -> %d\n", kTypes[i], st);
    if (st == 0) cudnnBackendDestroyDescriptor(d);
  }
}

/* A convolution descriptor with one attribute left out (skip) or changed. */
static void conv_case(const char *label, int skip, int nspatial, int64_t pad, int64_t stride, int64_t dil, int mode,
                      int ctype, int ncount) {
  cudnnBackendDescriptor_t c;
  int64_t pre[3] = {pad, pad, pad}, post[3] = {pad, pad, pad}, str[3] = {stride, stride, stride},
          dl[3] = {dil, dil, dil}, ns = nspatial;
  cudnnDataType_t ct = (cudnnDataType_t)ctype;
  cudnnConvolutionMode_t m = (cudnnConvolutionMode_t)mode;
  int st;
  cudnnBackendCreateDescriptor(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR, &c);
  if (skip != 0) cudnnBackendSetAttribute(c, CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &ct);
  if (skip != 1) cudnnBackendSetAttribute(c, CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, 1, &m);
  if (skip != 2) cudnnBackendSetAttribute(c, CUDNN_ATTR_CONVOLUTION_DILATIONS, CUDNN_TYPE_INT64, ncount, dl);
  if (skip != 3) cudnnBackendSetAttribute(c, CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, CUDNN_TYPE_INT64, ncount, str);
  if (skip != 4) cudnnBackendSetAttribute(c, CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, CUDNN_TYPE_INT64, ncount, pre);
  if (skip != 5) cudnnBackendSetAttribute(c, CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, CUDNN_TYPE_INT64, ncount, post);
  if (skip != 6) cudnnBackendSetAttribute(c, CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT64, 1, &ns);
  st = cudnnBackendFinalize(c);
  printf("conv %s -> %d\n", label, st);
  note(st);
  if (st == 0) show_int64(c, CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, 3);
  cudnnBackendDestroyDescriptor(c);
}

static void convolutions(void) {
  int skip;
  conv_case("complete", -1, 2, 1, 1, 1, 1, 0, 2);
  for (skip = 0; skip <= 6; ++skip) {
    char label[32];
    sprintf(label, "without attribute %d", skip);
    conv_case(label, skip, 2, 1, 1, 1, 1, 0, 2);
  }
  conv_case("3 spatial", -1, 3, 1, 2, 1, 0, 0, 3);
  conv_case("counts 3 vs spatial 2", -1, 2, 1, 1, 1, 1, 0, 3);
  conv_case("negative pad", -1, 2, -1, 1, 1, 1, 0, 2);
  conv_case("zero stride", -1, 2, 0, 0, 1, 1, 0, 2);
  conv_case("zero dilation", -1, 2, 0, 1, 0, 1, 0, 2);
  conv_case("mode 5", -1, 2, 0, 1, 1, 5, 0, 2);
  conv_case("half compute", -1, 2, 0, 1, 1, 1, 2, 2);
}

/* The resample descriptor: which attribute sets finalize accepts. skip_win:
 * leave the window unset; wcount: window / strides / paddings element count;
 * the window's first element, stride and padding given as fractions. */
static void resample_case(const char *label, int set_mode, int mode, int set_dims, int64_t dims, int set_win,
                          int64_t wcount, int64_t win0, int64_t stride0, int64_t pad0, int set_rest) {
  cudnnBackendDescriptor_t r;
  cudnnResampleMode_t m = (cudnnResampleMode_t)mode;
  cudnnFraction_t win[8], str[8], pad[8];
  int64_t i, n = -7;
  int st;
  for (i = 0; i < 8; ++i) {
    win[i].numerator = i == 0 ? win0 : 2, win[i].denominator = 1;
    str[i].numerator = i == 0 ? stride0 : 2, str[i].denominator = 1;
    pad[i].numerator = i == 0 ? pad0 : 1, pad[i].denominator = 1;
  }
  cudnnBackendCreateDescriptor(CUDNN_BACKEND_RESAMPLE_DESCRIPTOR, &r);
  if (set_mode) cudnnBackendSetAttribute(r, CUDNN_ATTR_RESAMPLE_MODE, CUDNN_TYPE_RESAMPLE_MODE, 1, &m);
  if (set_dims) cudnnBackendSetAttribute(r, CUDNN_ATTR_RESAMPLE_SPATIAL_DIMS, CUDNN_TYPE_INT64, 1, &dims);
  if (set_win) cudnnBackendSetAttribute(r, CUDNN_ATTR_RESAMPLE_WINDOW_DIMS, CUDNN_TYPE_FRACTION, wcount, win);
  if (set_rest) {
    cudnnBackendSetAttribute(r, CUDNN_ATTR_RESAMPLE_STRIDES, CUDNN_TYPE_FRACTION, wcount, str);
    cudnnBackendSetAttribute(r, CUDNN_ATTR_RESAMPLE_PRE_PADDINGS, CUDNN_TYPE_FRACTION, wcount, pad);
    cudnnBackendSetAttribute(r, CUDNN_ATTR_RESAMPLE_POST_PADDINGS, CUDNN_TYPE_FRACTION, wcount, pad);
  }
  st = cudnnBackendFinalize(r);
  printf("resample %s -> %d\n", label, st);
  note(st);
  if (st == 0 && set_win) {
    for (i = 0; i < 8; ++i) str[i].numerator = str[i].denominator = -7;
    st = cudnnBackendGetAttribute(r, CUDNN_ATTR_RESAMPLE_STRIDES, CUDNN_TYPE_FRACTION, 8, &n, str);
    printf("resample %s get strides -> %d n%ld %ld/%ld\n", label, st, (long)n, (long)str[0].numerator,
           (long)str[0].denominator);
  }
  cudnnBackendDestroyDescriptor(r);
}

static void resamples(void) {
  cudnnBackendDescriptor_t r;
  cudnnResampleMode_t m = CUDNN_RESAMPLE_MAXPOOL;
  cudnnPaddingMode_t pm = CUDNN_EDGE_VAL_PAD;
  cudnnFraction_t f[2] = {{3, 1}, {2, 1}};
  int64_t dims = 2, w[2] = {3, 2}, n = -7;
  resample_case("empty", 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
  resample_case("mode only", 1, CUDNN_RESAMPLE_MAXPOOL, 0, 0, 0, 0, 0, 0, 0, 0);
  resample_case("dims only", 0, 0, 1, 2, 0, 0, 0, 0, 0, 0);
  resample_case("mode dims", 1, CUDNN_RESAMPLE_MAXPOOL, 1, 2, 0, 0, 0, 0, 0, 0);
  resample_case("mode dims window", 1, CUDNN_RESAMPLE_MAXPOOL, 1, 2, 1, 2, 2, 2, 0, 0);
  resample_case("complete", 1, CUDNN_RESAMPLE_AVGPOOL_EXCLUDE_PADDING, 1, 2, 1, 2, 3, 2, 1, 1);
  resample_case("3 dims 2 windows", 1, CUDNN_RESAMPLE_MAXPOOL, 1, 3, 1, 2, 2, 2, 0, 0);
  resample_case("zero window", 1, CUDNN_RESAMPLE_MAXPOOL, 1, 2, 1, 2, 0, 2, 0, 1);
  resample_case("zero stride", 1, CUDNN_RESAMPLE_MAXPOOL, 1, 2, 1, 2, 2, 0, 0, 1);
  resample_case("negative padding", 1, CUDNN_RESAMPLE_MAXPOOL, 1, 2, 1, 2, 2, 1, -1, 1);
  resample_case("9 dims", 1, CUDNN_RESAMPLE_MAXPOOL, 1, 9, 0, 0, 0, 0, 0, 0);
  resample_case("0 dims", 1, CUDNN_RESAMPLE_MAXPOOL, 1, 0, 0, 0, 0, 0, 0, 0);
  resample_case("mode 7", 1, 7, 1, 2, 1, 2, 2, 2, 0, 1);
  resample_case("bilinear", 1, CUDNN_RESAMPLE_BILINEAR, 1, 2, 1, 2, 2, 2, 0, 1);
  resample_case("nearest dims", 1, CUDNN_RESAMPLE_NEAREST, 1, 2, 0, 0, 0, 0, 0, 0);
  resample_case("nearest zero window", 1, CUDNN_RESAMPLE_NEAREST, 1, 2, 1, 2, 0, 2, 0, 1);
  resample_case("bilinear 9 dims", 1, CUDNN_RESAMPLE_BILINEAR, 1, 9, 0, 0, 0, 0, 0, 0);
  resample_case("nearest negative dims", 1, CUDNN_RESAMPLE_NEAREST, 1, -1, 0, 0, 0, 0, 0, 0);
  resample_case("avg 6 dims", 1, CUDNN_RESAMPLE_AVGPOOL_INCLUDE_PADDING, 1, 6, 1, 6, 2, 2, 0, 1);
  resample_case("avg 7 dims", 1, CUDNN_RESAMPLE_AVGPOOL_INCLUDE_PADDING, 1, 7, 1, 7, 2, 2, 0, 1);

  cudnnBackendCreateDescriptor(CUDNN_BACKEND_RESAMPLE_DESCRIPTOR, &r);
  LINE("resample set window 0 elements", cudnnBackendSetAttribute(r, CUDNN_ATTR_RESAMPLE_WINDOW_DIMS, CUDNN_TYPE_FRACTION, 0, f));
  LINE("resample set window NULL", cudnnBackendSetAttribute(r, CUDNN_ATTR_RESAMPLE_WINDOW_DIMS, CUDNN_TYPE_FRACTION, 2, NULL));
  LINE("resample set window int64", cudnnBackendSetAttribute(r, CUDNN_ATTR_RESAMPLE_WINDOW_DIMS, CUDNN_TYPE_INT64, 2, w));
  LINE("resample set mode", cudnnBackendSetAttribute(r, CUDNN_ATTR_RESAMPLE_MODE, CUDNN_TYPE_RESAMPLE_MODE, 1, &m));
  LINE("resample set dims", cudnnBackendSetAttribute(r, CUDNN_ATTR_RESAMPLE_SPATIAL_DIMS, CUDNN_TYPE_INT64, 1, &dims));
  LINE("resample get before finalize", cudnnBackendGetAttribute(r, CUDNN_ATTR_RESAMPLE_WINDOW_DIMS, CUDNN_TYPE_FRACTION, 2, &n, f));
  LINE("resample finalize", cudnnBackendFinalize(r));
  LINE("resample set after finalize", cudnnBackendSetAttribute(r, CUDNN_ATTR_RESAMPLE_MODE, CUDNN_TYPE_RESAMPLE_MODE, 1, &m));
  f[0].numerator = f[0].denominator = -7;
  LINE("resample get window fraction", cudnnBackendGetAttribute(r, CUDNN_ATTR_RESAMPLE_WINDOW_DIMS, CUDNN_TYPE_FRACTION, 2, &n, f));
  printf("resample window n%ld %ld/%ld %ld/%ld\n", (long)n, (long)f[0].numerator, (long)f[0].denominator,
         (long)f[1].numerator, (long)f[1].denominator);
  w[0] = w[1] = -7;
  LINE("resample get window int64", cudnnBackendGetAttribute(r, CUDNN_ATTR_RESAMPLE_WINDOW_DIMS, CUDNN_TYPE_INT64, 2, &n, w));
  printf("resample window int64 n%ld %ld %ld\n", (long)n, (long)w[0], (long)w[1]);
  n = -7;
  LINE("resample get padding mode", cudnnBackendGetAttribute(r, CUDNN_ATTR_RESAMPLE_PADDING_MODE, CUDNN_TYPE_PADDING_MODE, 1, &n, &pm));
  printf("resample padding mode n%ld %d\n", (long)n, (int)pm);
  cudnnBackendDestroyDescriptor(r);

  cudnnBackendCreateDescriptor(CUDNN_BACKEND_OPERATION_RESAMPLE_BWD_DESCRIPTOR, &r);
  LINE("resample bwd op empty finalize", cudnnBackendFinalize(r));
  cudnnBackendDestroyDescriptor(r);
}

/* ---- Reshape, concat, RNG, signal, BN ops, kernel cache, device props ----
 * (FreeDNN issue 5, T6). Left out on purpose: a count query of an unset
 * RNG OFFSET_DESC (cuDNN: BAD_PARAM, FreeDNN: count 0), finalizing an empty
 * BN_BWD_WEIGHTS node (cuDNN accepts it, FreeDNN checks at finalize), two
 * graphs on a kernel cache (cuDNN: NOT_SUPPORTED, FreeDNN: BAD_PARAM) and
 * DEVICEPROP finalize (cuDNN queries the GPU), and an empty BN_FINALIZE
 * node (cuDNN answers NOT_SUPPORTED or BAD_PARAM depending on the calls
 * before it; FreeDNN NOT_SUPPORTED). */
static cudnnBackendDescriptor_t mk_desc(int type) { cudnnBackendDescriptor_t d = 0; int st = cudnnBackendCreateDescriptor((cudnnBackendDescriptorType_t)type, &d); printf("create %d -> %d\n", type, st); return d; }
static cudnnBackendDescriptor_t op_tensor(int64_t uid, int nd, const int64_t *dims, int dtype, int byval) {
  cudnnBackendDescriptor_t t; int64_t s[8]; int i; int64_t align = 8; cudnnDataType_t dt = (cudnnDataType_t)dtype; char v = 0, bv = (char)byval;
  s[nd-1]=1; for (i = nd-2; i >= 0; --i) s[i] = s[i+1]*dims[i+1];
  cudnnBackendCreateDescriptor(CUDNN_BACKEND_TENSOR_DESCRIPTOR, &t);
  cudnnBackendSetAttribute(t, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &uid);
  cudnnBackendSetAttribute(t, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &dt);
  cudnnBackendSetAttribute(t, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &align);
  cudnnBackendSetAttribute(t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, nd, dims);
  cudnnBackendSetAttribute(t, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, nd, s);
  cudnnBackendSetAttribute(t, CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, 1, &v);
  if (byval) cudnnBackendSetAttribute(t, CUDNN_ATTR_TENSOR_IS_BY_VALUE, CUDNN_TYPE_BOOLEAN, 1, &bv);
  { int st = cudnnBackendFinalize(t); if (st) printf("tensor finalize -> %d\n", st); }
  return t;
}

static void graph_ops(void) {
  int64_t d4[4] = {2,3,4,5}, d4b[4]={2,3,4,1}, d3[3] = {6,4,5}, one[4]={1,1,1,1};
  double p = 0.3; int64_t seed = 7; int dist = CUDNN_RNG_DISTRIBUTION_BERNOULLI; float pf = 0.3f;
  cudnnBackendDescriptor_t x = op_tensor(1, 4, d4, CUDNN_DATA_FLOAT, 0), y3 = op_tensor(2, 3, d3, CUDNN_DATA_FLOAT, 0);
  cudnnBackendDescriptor_t sd = op_tensor(3, 4, one, CUDNN_DATA_INT64, 0), of = op_tensor(4, 4, one, CUDNN_DATA_INT64, 0);
  cudnnBackendDescriptor_t xb = op_tensor(5, 4, d4b, CUDNN_DATA_FLOAT, 0), cy; int64_t dc[4] = {2,3,4,6};
  cudnnBackendDescriptor_t r, op;
  cy = op_tensor(6, 4, dc, CUDNN_DATA_FLOAT, 0);
  printf("== rng desc\n");
  r = mk_desc(CUDNN_BACKEND_RNG_DESCRIPTOR);
  LINE("rng finalize empty", cudnnBackendFinalize(r));
  r = mk_desc(CUDNN_BACKEND_RNG_DESCRIPTOR);
  LINE("dist as int64", cudnnBackendSetAttribute(r, CUDNN_ATTR_RNG_DISTRIBUTION, CUDNN_TYPE_INT64, 1, &seed));
  LINE("dist count2", cudnnBackendSetAttribute(r, CUDNN_ATTR_RNG_DISTRIBUTION, CUDNN_TYPE_RNG_DISTRIBUTION, 2, &dist));
  LINE("prob float", cudnnBackendSetAttribute(r, CUDNN_ATTR_RNG_BERNOULLI_DIST_PROBABILITY, CUDNN_TYPE_FLOAT, 1, &pf));
  LINE("prob double", cudnnBackendSetAttribute(r, CUDNN_ATTR_RNG_BERNOULLI_DIST_PROBABILITY, CUDNN_TYPE_DOUBLE, 1, &p));
  LINE("rng finalize no dist", cudnnBackendFinalize(r));
  r = mk_desc(CUDNN_BACKEND_RNG_DESCRIPTOR);
  LINE("get before finalize", cudnnBackendGetAttribute(r, CUDNN_ATTR_RNG_BERNOULLI_DIST_PROBABILITY, CUDNN_TYPE_DOUBLE, 1, &seed, &p));
  LINE("dist", cudnnBackendSetAttribute(r, CUDNN_ATTR_RNG_DISTRIBUTION, CUDNN_TYPE_RNG_DISTRIBUTION, 1, &dist));
  LINE("rng finalize no prob", cudnnBackendFinalize(r));
  { int64_t n=-1; double q=-1; LINE("get prob", cudnnBackendGetAttribute(r, CUDNN_ATTR_RNG_BERNOULLI_DIST_PROBABILITY, CUDNN_TYPE_DOUBLE, 1, &n, &q)); printf("n%ld q%g\n",(long)n,q);}
  r = mk_desc(CUDNN_BACKEND_RNG_DESCRIPTOR);
  p = 1.5;
  LINE("dist", cudnnBackendSetAttribute(r, CUDNN_ATTR_RNG_DISTRIBUTION, CUDNN_TYPE_RNG_DISTRIBUTION, 1, &dist));
  LINE("prob 1.5", cudnnBackendSetAttribute(r, CUDNN_ATTR_RNG_BERNOULLI_DIST_PROBABILITY, CUDNN_TYPE_DOUBLE, 1, &p));
  LINE("rng finalize p1.5", cudnnBackendFinalize(r));
  r = mk_desc(CUDNN_BACKEND_RNG_DESCRIPTOR);
  p = -0.5;
  LINE("dist", cudnnBackendSetAttribute(r, CUDNN_ATTR_RNG_DISTRIBUTION, CUDNN_TYPE_RNG_DISTRIBUTION, 1, &dist));
  LINE("prob -0.5", cudnnBackendSetAttribute(r, CUDNN_ATTR_RNG_BERNOULLI_DIST_PROBABILITY, CUDNN_TYPE_DOUBLE, 1, &p));
  LINE("rng finalize p-0.5", cudnnBackendFinalize(r));
  r = mk_desc(CUDNN_BACKEND_RNG_DESCRIPTOR);
  dist = 7;
  LINE("dist7", cudnnBackendSetAttribute(r, CUDNN_ATTR_RNG_DISTRIBUTION, CUDNN_TYPE_RNG_DISTRIBUTION, 1, &dist));
  LINE("rng finalize dist7", cudnnBackendFinalize(r));
  r = mk_desc(CUDNN_BACKEND_RNG_DESCRIPTOR);
  dist = 0; p = 0.3;
  cudnnBackendSetAttribute(r, CUDNN_ATTR_RNG_DISTRIBUTION, CUDNN_TYPE_RNG_DISTRIBUTION, 1, &dist);
  cudnnBackendSetAttribute(r, CUDNN_ATTR_RNG_BERNOULLI_DIST_PROBABILITY, CUDNN_TYPE_DOUBLE, 1, &p);
  LINE("rng finalize ok", cudnnBackendFinalize(r));
  printf("== rng op\n");
  op = mk_desc(CUDNN_BACKEND_OPERATION_RNG_DESCRIPTOR);
  LINE("op finalize empty", cudnnBackendFinalize(op));
  op = mk_desc(CUDNN_BACKEND_OPERATION_RNG_DESCRIPTOR);
  LINE("seed int64", cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_RNG_SEED, CUDNN_TYPE_INT64, 1, &seed));
  LINE("seed desc", cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_RNG_SEED, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &sd));
  LINE("seed double", cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_RNG_SEED, CUDNN_TYPE_DOUBLE, 1, &p));
  LINE("y", cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_RNG_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &x));
  LINE("op finalize no desc", cudnnBackendFinalize(op));
  op = mk_desc(CUDNN_BACKEND_OPERATION_RNG_DESCRIPTOR);
  LINE("desc", cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_RNG_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &r));
  LINE("op finalize no y", cudnnBackendFinalize(op));
  op = mk_desc(CUDNN_BACKEND_OPERATION_RNG_DESCRIPTOR);
  cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_RNG_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &r);
  cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_RNG_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &x);
  LINE("op finalize no seed", cudnnBackendFinalize(op));
  op = mk_desc(CUDNN_BACKEND_OPERATION_RNG_DESCRIPTOR);
  cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_RNG_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &r);
  cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_RNG_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &x);
  cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_RNG_SEED, CUDNN_TYPE_INT64, 1, &seed);
  LINE("op finalize seed value", cudnnBackendFinalize(op));
  { int64_t n=-1, s=-1; LINE("get seed", cudnnBackendGetAttribute(op, CUDNN_ATTR_OPERATION_RNG_SEED, CUDNN_TYPE_INT64, 1, &n, &s)); printf("n%ld s%ld\n",(long)n,(long)s);}
  op = mk_desc(CUDNN_BACKEND_OPERATION_RNG_DESCRIPTOR);
  cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_RNG_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &r);
  cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_RNG_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &x);
  cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_RNG_SEED, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &sd);
  LINE("op finalize seed tensor no offset", cudnnBackendFinalize(op));
  op = mk_desc(CUDNN_BACKEND_OPERATION_RNG_DESCRIPTOR);
  cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_RNG_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &r);
  cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_RNG_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &x);
  cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_RNG_SEED, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &sd);
  cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_RNG_OFFSET_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &of);
  LINE("op finalize seed+offset tensors", cudnnBackendFinalize(op));
  op = mk_desc(CUDNN_BACKEND_OPERATION_RNG_DESCRIPTOR);
  cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_RNG_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &r);
  cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_RNG_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &x);
  cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_RNG_SEED, CUDNN_TYPE_INT64, 1, &seed);
  cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_RNG_OFFSET_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &of);
  LINE("op finalize seed value + offset", cudnnBackendFinalize(op));
  op = mk_desc(CUDNN_BACKEND_OPERATION_RNG_DESCRIPTOR);
  cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_RNG_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &r);
  cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_RNG_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &x);
  cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_RNG_SEED, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &x);
  cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_RNG_OFFSET_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &of);
  LINE("op finalize seed tensor not scalar", cudnnBackendFinalize(op));
  printf("== reshape\n");
  op = mk_desc(CUDNN_BACKEND_OPERATION_RESHAPE_DESCRIPTOR);
  LINE("reshape finalize empty", cudnnBackendFinalize(op));
  op = mk_desc(CUDNN_BACKEND_OPERATION_RESHAPE_DESCRIPTOR);
  LINE("x", cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_RESHAPE_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &x));
  LINE("x count2", cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_RESHAPE_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 2, &x));
  LINE("reshape finalize no y", cudnnBackendFinalize(op));
  op = mk_desc(CUDNN_BACKEND_OPERATION_RESHAPE_DESCRIPTOR);
  cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_RESHAPE_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &x);
  cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_RESHAPE_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &y3);
  LINE("reshape finalize 2x3x4x5->6x4x5", cudnnBackendFinalize(op));
  op = mk_desc(CUDNN_BACKEND_OPERATION_RESHAPE_DESCRIPTOR);
  cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_RESHAPE_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &x);
  cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_RESHAPE_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &xb);
  LINE("reshape finalize count mismatch", cudnnBackendFinalize(op));
  printf("== concat\n");
  op = mk_desc(CUDNN_BACKEND_OPERATION_CONCAT_DESCRIPTOR);
  LINE("concat finalize empty", cudnnBackendFinalize(op));
  op = mk_desc(CUDNN_BACKEND_OPERATION_CONCAT_DESCRIPTOR);
  { cudnnBackendDescriptor_t in[2] = {x, xb}; int64_t axis = 3, ip = 1;
    LINE("axis", cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_CONCAT_AXIS, CUDNN_TYPE_INT64, 1, &axis));
    LINE("inputs", cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_CONCAT_INPUT_DESCS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 2, in));
    LINE("concat finalize no output", cudnnBackendFinalize(op));
    op = mk_desc(CUDNN_BACKEND_OPERATION_CONCAT_DESCRIPTOR);
    cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_CONCAT_INPUT_DESCS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 2, in);
    cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_CONCAT_OUTPUT_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &cy);
    LINE("concat finalize no axis", cudnnBackendFinalize(op));
    op = mk_desc(CUDNN_BACKEND_OPERATION_CONCAT_DESCRIPTOR);
    cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_CONCAT_AXIS, CUDNN_TYPE_INT64, 1, &axis);
    cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_CONCAT_OUTPUT_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &cy);
    LINE("concat finalize no inputs", cudnnBackendFinalize(op));
    op = mk_desc(CUDNN_BACKEND_OPERATION_CONCAT_DESCRIPTOR);
    cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_CONCAT_AXIS, CUDNN_TYPE_INT64, 1, &axis);
    cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_CONCAT_INPUT_DESCS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 2, in);
    cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_CONCAT_OUTPUT_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &cy);
    LINE("concat finalize ok", cudnnBackendFinalize(op));
    { int64_t n=-1, v=-9; LINE("get inplace", cudnnBackendGetAttribute(op, CUDNN_ATTR_OPERATION_CONCAT_INPLACE_INDEX, CUDNN_TYPE_INT64, 1, &n, &v)); printf("n%ld v%ld\n",(long)n,(long)v);}
    op = mk_desc(CUDNN_BACKEND_OPERATION_CONCAT_DESCRIPTOR);
    axis = 2;
    cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_CONCAT_AXIS, CUDNN_TYPE_INT64, 1, &axis);
    cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_CONCAT_INPUT_DESCS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 2, in);
    cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_CONCAT_OUTPUT_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &cy);
    LINE("concat finalize wrong axis", cudnnBackendFinalize(op));
    op = mk_desc(CUDNN_BACKEND_OPERATION_CONCAT_DESCRIPTOR);
    axis = 3; ip = 5;
    cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_CONCAT_AXIS, CUDNN_TYPE_INT64, 1, &axis);
    cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_CONCAT_INPUT_DESCS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 2, in);
    cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_CONCAT_OUTPUT_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &cy);
    cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_CONCAT_INPLACE_INDEX, CUDNN_TYPE_INT64, 1, &ip);
    LINE("concat finalize inplace 5", cudnnBackendFinalize(op));
    op = mk_desc(CUDNN_BACKEND_OPERATION_CONCAT_DESCRIPTOR);
    axis = 7;
    cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_CONCAT_AXIS, CUDNN_TYPE_INT64, 1, &axis);
    cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_CONCAT_INPUT_DESCS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 2, in);
    cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_CONCAT_OUTPUT_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &cy);
    LINE("concat finalize axis 7", cudnnBackendFinalize(op));
    LINE("axis as int32", cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_CONCAT_AXIS, CUDNN_TYPE_INT32, 1, &axis));
  }
  printf("== signal\n");
  op = mk_desc(CUDNN_BACKEND_OPERATION_SIGNAL_DESCRIPTOR);
  LINE("signal finalize empty", cudnnBackendFinalize(op));
  op = mk_desc(CUDNN_BACKEND_OPERATION_SIGNAL_DESCRIPTOR);
  { int mode = CUDNN_SIGNAL_SET; int64_t val = 5;
    LINE("mode", cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_SIGNAL_MODE, CUDNN_TYPE_SIGNAL_MODE, 1, &mode));
    LINE("value", cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_SIGNAL_VALUE, CUDNN_TYPE_INT64, 1, &val));
    LINE("flag", cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_SIGNAL_FLAGDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &of));
    LINE("signal finalize no x", cudnnBackendFinalize(op));
    op = mk_desc(CUDNN_BACKEND_OPERATION_SIGNAL_DESCRIPTOR);
    cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_SIGNAL_MODE, CUDNN_TYPE_SIGNAL_MODE, 1, &mode);
    cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_SIGNAL_VALUE, CUDNN_TYPE_INT64, 1, &val);
    cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_SIGNAL_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &x);
    LINE("signal finalize no flag", cudnnBackendFinalize(op));
    op = mk_desc(CUDNN_BACKEND_OPERATION_SIGNAL_DESCRIPTOR);
    cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_SIGNAL_MODE, CUDNN_TYPE_SIGNAL_MODE, 1, &mode);
    cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_SIGNAL_FLAGDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &of);
    cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_SIGNAL_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &x);
    LINE("signal finalize no value", cudnnBackendFinalize(op));
    op = mk_desc(CUDNN_BACKEND_OPERATION_SIGNAL_DESCRIPTOR);
    cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_SIGNAL_VALUE, CUDNN_TYPE_INT64, 1, &val);
    cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_SIGNAL_FLAGDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &of);
    cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_SIGNAL_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &x);
    LINE("signal finalize no mode", cudnnBackendFinalize(op));
    op = mk_desc(CUDNN_BACKEND_OPERATION_SIGNAL_DESCRIPTOR);
    cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_SIGNAL_MODE, CUDNN_TYPE_SIGNAL_MODE, 1, &mode);
    cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_SIGNAL_VALUE, CUDNN_TYPE_INT64, 1, &val);
    cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_SIGNAL_FLAGDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &of);
    cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_SIGNAL_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &x);
    LINE("signal finalize ok", cudnnBackendFinalize(op));
    op = mk_desc(CUDNN_BACKEND_OPERATION_SIGNAL_DESCRIPTOR);
    cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_SIGNAL_MODE, CUDNN_TYPE_SIGNAL_MODE, 1, &mode);
    cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_SIGNAL_VALUE, CUDNN_TYPE_INT64, 1, &val);
    cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_SIGNAL_FLAGDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &x);
    cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_SIGNAL_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &x);
    LINE("signal finalize float flag", cudnnBackendFinalize(op));
  }
  printf("== kernel cache\n");
  op = mk_desc(CUDNN_BACKEND_KERNEL_CACHE_DESCRIPTOR);
  LINE("kc finalize empty", cudnnBackendFinalize(op));
  { int64_t n=-1; char b=0; LINE("kc get cached", cudnnBackendGetAttribute(op, CUDNN_ATTR_KERNEL_CACHE_IS_ENGINECFG_KERNEL_CACHED, CUDNN_TYPE_BOOLEAN, 1, &n, &b)); printf("n%ld\n",(long)n);}}

static void v9_descriptors(void) {
  cudnnBackendDescriptor_t kc, g, cfg, dp; char b = 1; const char *json = "{}"; int64_t n = -1; int32_t id = 0;
  cudnnBackendCreateDescriptor(CUDNN_BACKEND_KERNEL_CACHE_DESCRIPTOR, &kc);
  cudnnBackendCreateDescriptor(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, &g);
  cudnnBackendCreateDescriptor(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, &cfg);
  LINE("kc cached bool", cudnnBackendSetAttribute(kc, CUDNN_ATTR_KERNEL_CACHE_IS_ENGINECFG_KERNEL_CACHED, CUDNN_TYPE_BOOLEAN, 1, &b));
  LINE("kc cached desc", cudnnBackendSetAttribute(kc, CUDNN_ATTR_KERNEL_CACHE_IS_ENGINECFG_KERNEL_CACHED, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &cfg));
  LINE("kc graph int64", cudnnBackendSetAttribute(kc, CUDNN_ATTR_KERNEL_CACHE_OPERATION_GRAPH, CUDNN_TYPE_INT64, 1, &n));
  LINE("kc graph unfinalized", cudnnBackendSetAttribute(kc, CUDNN_ATTR_KERNEL_CACHE_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &g));
  LINE("kc json char", cudnnBackendSetAttribute(kc, CUDNN_ATTR_KERNEL_CACHE_JSON_REPRESENTATION, CUDNN_TYPE_CHAR, 3, json));
  LINE("kc finalize", cudnnBackendFinalize(kc));
  LINE("kc get json count", cudnnBackendGetAttribute(kc, CUDNN_ATTR_KERNEL_CACHE_JSON_REPRESENTATION, CUDNN_TYPE_CHAR, 0, &n, NULL));
  printf("n%ld\n", (long)n);
  LINE("kc attr other", cudnnBackendSetAttribute(kc, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1, &n));
  cudnnBackendCreateDescriptor(CUDNN_BACKEND_KERNEL_CACHE_DESCRIPTOR, &kc);
  LINE("kc2 finalize empty", cudnnBackendFinalize(kc));
  LINE("kc2 get json", cudnnBackendGetAttribute(kc, CUDNN_ATTR_KERNEL_CACHE_JSON_REPRESENTATION, CUDNN_TYPE_CHAR, 0, &n, NULL));
  cudnnBackendCreateDescriptor(CUDNN_BACKEND_DEVICEPROP_DESCRIPTOR, &dp);
  LINE("dp id int32", cudnnBackendSetAttribute(dp, CUDNN_ATTR_DEVICEPROP_DEVICE_ID, CUDNN_TYPE_INT32, 1, &id));
  LINE("dp id count2", cudnnBackendSetAttribute(dp, CUDNN_ATTR_DEVICEPROP_DEVICE_ID, CUDNN_TYPE_INT32, 2, &id));
  LINE("dp handle int64", cudnnBackendSetAttribute(dp, CUDNN_ATTR_DEVICEPROP_HANDLE, CUDNN_TYPE_INT64, 1, &n));
  LINE("dp json", cudnnBackendSetAttribute(dp, CUDNN_ATTR_DEVICEPROP_JSON_REPRESENTATION, CUDNN_TYPE_CHAR, 3, json));
  LINE("dp get before finalize", cudnnBackendGetAttribute(dp, CUDNN_ATTR_DEVICEPROP_DEVICE_ID, CUDNN_TYPE_INT32, 1, &n, &id));
  LINE("plan kc", 0);
  { cudnnBackendDescriptor_t plan; cudnnBackendCreateDescriptor(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, &plan);
    LINE("plan set kernel cache", cudnnBackendSetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_KERNEL_CACHE, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &kc));
    LINE("plan set deviceprop", cudnnBackendSetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_DEVICEPROP, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &dp));
  }
  { cudnnBackendDescriptor_t h; cudnnBackendCreateDescriptor(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR, &h);
    LINE("heur set deviceprop", cudnnBackendSetAttribute(h, CUDNN_ATTR_ENGINEHEUR_DEVICEPROP, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &dp)); }
  { cudnnBackendDescriptor_t e; cudnnBackendCreateDescriptor(CUDNN_BACKEND_ENGINE_DESCRIPTOR, &e);
    LINE("engine set deviceprop", cudnnBackendSetAttribute(e, CUDNN_ATTR_ENGINE_DEVICEPROP, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &dp)); }
  }

int main(void) {
  resamples();
  convolutions();
  tensors();
  types();
  graph_ops();
  v9_descriptors();
  return 0;
}
