/*
 * Differential test of backend descriptors that need no handle: tensor,
 * pointwise, reduction and resample descriptors and their operations (set / get /
 * finalize rules and statuses). Built against FreeDNN and against NVIDIA's
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

int main(void) {
  resamples();
  convolutions();
  tensors();
  types();
  return 0;
}
