/*
 * Differential test of cudnnGetFoldedConvBackwardDataDescriptors: every
 * output descriptor read back after folding a range of backward-data
 * problems (strides, paddings, channel counts that need padding, groups,
 * dilation, modes, types, NCHW/NHWC transform formats), and bad inputs.
 * Built against FreeDNN and against NVIDIA's cuDNN; lines not starting with
 * '#' must be identical. The handle is NULL: the call is descriptor-level.
 */
#include <cudnn.h>

#include <stdio.h>

static void note_error(int status) {
  char msg[512];
  if (status == CUDNN_STATUS_SUCCESS) return;
  msg[0] = '\0';
  cudnnGetLastErrorString(msg, sizeof msg);
  printf("# %s\n", msg);
}

static void show_tensor(const char *name, cudnnTensorDescriptor_t t) {
  cudnnDataType_t dt = (cudnnDataType_t)-7;
  int nb = -7, d[8], s[8], i, st;
  for (i = 0; i < 8; ++i) d[i] = s[i] = -7;
  st = cudnnGetTensorNdDescriptor(t, 8, &dt, &nb, d, s);
  printf(" %s=%d t%d n%d", name, st, (int)dt, nb);
  for (i = 0; i < 4; ++i) printf(" %d/%d", d[i], s[i]);
}

static void show_filter(const char *name, cudnnFilterDescriptor_t f) {
  cudnnDataType_t dt = (cudnnDataType_t)-7;
  cudnnTensorFormat_t fmt = (cudnnTensorFormat_t)-7;
  int nb = -7, d[8], i, st;
  for (i = 0; i < 8; ++i) d[i] = -7;
  st = cudnnGetFilterNdDescriptor(f, 8, &dt, &fmt, &nb, d);
  printf(" %s=%d t%d f%d n%d", name, st, (int)dt, (int)fmt, nb);
  for (i = 0; i < 4; ++i) printf(" %d", d[i]);
}

static void show_conv(const char *name, cudnnConvolutionDescriptor_t c) {
  int nb = -7, p[8], s[8], d[8], g = -7, i, st;
  cudnnConvolutionMode_t m = (cudnnConvolutionMode_t)-7;
  cudnnDataType_t ct = (cudnnDataType_t)-7;
  cudnnMathType_t mt = (cudnnMathType_t)-7;
  for (i = 0; i < 8; ++i) p[i] = s[i] = d[i] = -7;
  st = cudnnGetConvolutionNdDescriptor(c, 2, &nb, p, s, d, &m, &ct);
  cudnnGetConvolutionGroupCount(c, &g);
  cudnnGetConvolutionMathType(c, &mt);
  printf(" %s=%d n%d", name, st, nb);
  for (i = 0; i < 2; ++i) printf(" %d/%d/%d", p[i], s[i], d[i]);
  printf(" m%d t%d g%d math%d", (int)m, (int)ct, g, (int)mt);
}

static void show_transform(const char *name, cudnnTensorTransformDescriptor_t t) {
  cudnnTensorFormat_t fmt = (cudnnTensorFormat_t)-7;
  cudnnFoldingDirection_t dir = (cudnnFoldingDirection_t)-7;
  int pb[4] = {-7, -7, -7, -7}, pa[4] = {-7, -7, -7, -7}, i, st;
  uint32_t fold[2] = {77, 77};
  st = cudnnGetTensorTransformDescriptor(t, 4, &fmt, pb, pa, fold, &dir);
  printf(" %s=%d f%d dir%d fold%u,%u", name, st, (int)fmt, (int)dir, fold[0], fold[1]);
  for (i = 0; i < 4; ++i) printf(" %d/%d", pb[i], pa[i]);
}

struct Outputs {
  cudnnFilterDescriptor_t fw;
  cudnnTensorDescriptor_t pdy, fdx;
  cudnnConvolutionDescriptor_t fc;
  cudnnTensorTransformDescriptor_t t[4];
};

/* n c h w k r s pad stride dilation mode groups dataType tensorFormat transformFormat */
static void fold_case(struct Outputs *o, int n, int c, int h, int w, int k, int r, int s, int ph, int pw, int u,
                      int v, int dil, int mode, int groups, int dtype, int fmt, int tfmt) {
  cudnnFilterDescriptor_t wd;
  cudnnTensorDescriptor_t dy, dx;
  cudnnConvolutionDescriptor_t cd;
  int od[4] = {-7, -7, -7, -7}, st;
  cudnnCreateFilterDescriptor(&wd);
  cudnnCreateTensorDescriptor(&dy);
  cudnnCreateTensorDescriptor(&dx);
  cudnnCreateConvolutionDescriptor(&cd);
  cudnnSetFilter4dDescriptor(wd, (cudnnDataType_t)dtype, (cudnnTensorFormat_t)fmt, k, c / groups, r, s);
  cudnnSetTensor4dDescriptor(dx, (cudnnTensorFormat_t)fmt, (cudnnDataType_t)dtype, n, c, h, w);
  cudnnSetConvolution2dDescriptor(cd, ph, pw, u, v, dil, dil, (cudnnConvolutionMode_t)mode,
                                  dtype == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT);
  cudnnSetConvolutionGroupCount(cd, groups);
  cudnnSetConvolutionMathType(cd, CUDNN_TENSOR_OP_MATH);
  cudnnGetConvolutionNdForwardOutputDim(cd, dx, wd, 4, od);
  cudnnSetTensor4dDescriptor(dy, (cudnnTensorFormat_t)fmt, (cudnnDataType_t)dtype, od[0], od[1], od[2], od[3]);
  st = cudnnGetFoldedConvBackwardDataDescriptors(NULL, wd, dy, cd, dx, (cudnnTensorFormat_t)tfmt, o->fw, o->pdy,
                                                 o->fc, o->fdx, o->t[0], o->t[1], o->t[2], o->t[3]);
  printf("fold n%d c%d %dx%d k%d %dx%d pad%d,%d str%d,%d dil%d m%d g%d t%d f%d tf%d -> %d", n, c, h, w, k, r, s, ph,
         pw, u, v, dil, mode, groups, dtype, fmt, tfmt, st);
  if (st == CUDNN_STATUS_SUCCESS) {
    show_filter("fw", o->fw);
    show_tensor("pdy", o->pdy);
    show_conv("fc", o->fc);
    show_tensor("fdx", o->fdx);
    show_transform("wfold", o->t[0]);
    show_transform("dypad", o->t[1]);
    show_transform("dxfold", o->t[2]);
    show_transform("dxunfold", o->t[3]);
  }
  printf("\n");
  note_error(st);
  cudnnDestroyFilterDescriptor(wd);
  cudnnDestroyTensorDescriptor(dy);
  cudnnDestroyTensorDescriptor(dx);
  cudnnDestroyConvolutionDescriptor(cd);
}

int main(void) {
  struct Outputs o;
  int i, c, u, v, st;
  cudnnTensorDescriptor_t x5;
  cudnnCreateFilterDescriptor(&o.fw);
  cudnnCreateTensorDescriptor(&o.pdy);
  cudnnCreateTensorDescriptor(&o.fdx);
  cudnnCreateConvolutionDescriptor(&o.fc);
  for (i = 0; i < 4; ++i) cudnnCreateTensorTransformDescriptor(&o.t[i]);

  fold_case(&o, 2, 3, 9, 10, 4, 3, 3, 1, 2, 2, 3, 1, 1, 1, 0, 0, 0);
  fold_case(&o, 2, 16, 9, 10, 16, 3, 3, 0, 0, 2, 2, 1, 1, 1, 0, 0, 0);
  fold_case(&o, 2, 3, 13, 14, 4, 5, 5, 3, 4, 2, 3, 1, 1, 1, 0, 0, 0);
  fold_case(&o, 1, 1, 7, 7, 1, 1, 1, 0, 0, 2, 2, 1, 1, 1, 0, 0, 0);
  fold_case(&o, 2, 3, 9, 10, 4, 3, 3, 1, 2, 1, 1, 1, 1, 1, 0, 0, 0);
  fold_case(&o, 2, 3, 9, 10, 4, 3, 3, 1, 2, 2, 3, 1, 0, 1, 0, 0, 0);
  fold_case(&o, 2, 4, 9, 10, 4, 3, 3, 1, 2, 2, 3, 1, 1, 2, 0, 0, 0);
  fold_case(&o, 2, 3, 9, 10, 4, 3, 3, 1, 2, 2, 3, 2, 1, 1, 0, 0, 0);
  fold_case(&o, 2, 3, 9, 10, 4, 3, 3, 1, 2, 2, 3, 1, 1, 1, 1, 0, 0);
  fold_case(&o, 2, 3, 9, 10, 4, 3, 3, 1, 2, 2, 3, 1, 1, 1, 2, 0, 0);
  fold_case(&o, 2, 3, 9, 10, 4, 3, 3, 1, 2, 2, 3, 1, 1, 1, 9, 0, 0);
  fold_case(&o, 2, 3, 9, 10, 4, 3, 3, 1, 2, 2, 3, 1, 1, 1, 0, 1, 1);
  fold_case(&o, 2, 3, 9, 10, 4, 3, 3, 1, 2, 2, 3, 1, 1, 1, 0, 0, 1);
  fold_case(&o, 2, 3, 9, 10, 4, 3, 3, 1, 2, 2, 3, 1, 1, 1, 0, 1, 0);
  fold_case(&o, 3, 33, 17, 15, 9, 4, 2, 2, 0, 3, 2, 1, 1, 1, 0, 0, 0);
  /* The channel padding rule over strides and channel counts. */
  for (u = 1; u <= 3; ++u)
    for (v = 1; v <= 3; ++v)
      for (c = 1; c <= 13; c += 3) fold_case(&o, 1, c, 12, 12, c + 2, 3, 3, 1, 1, u, v, 1, 1, 1, 0, 0, 0);

  /* Bad inputs: NULL descriptors, a 5-d gradient. */
  {
    cudnnFilterDescriptor_t wd;
    cudnnTensorDescriptor_t dy, dx;
    cudnnConvolutionDescriptor_t cd;
    cudnnCreateFilterDescriptor(&wd);
    cudnnCreateTensorDescriptor(&dy);
    cudnnCreateTensorDescriptor(&dx);
    cudnnCreateConvolutionDescriptor(&cd);
    cudnnSetFilter4dDescriptor(wd, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 4, 3, 3, 3);
    cudnnSetTensor4dDescriptor(dx, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 2, 3, 9, 9);
    cudnnSetTensor4dDescriptor(dy, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 2, 4, 5, 5);
    cudnnSetConvolution2dDescriptor(cd, 1, 1, 2, 2, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT);
    st = cudnnGetFoldedConvBackwardDataDescriptors(NULL, NULL, dy, cd, dx, CUDNN_TENSOR_NCHW, o.fw, o.pdy, o.fc,
                                                   o.fdx, o.t[0], o.t[1], o.t[2], o.t[3]);
    printf("null filterDesc -> %d\n", st);
    note_error(st);
    st = cudnnGetFoldedConvBackwardDataDescriptors(NULL, wd, NULL, cd, dx, CUDNN_TENSOR_NCHW, o.fw, o.pdy, o.fc,
                                                   o.fdx, o.t[0], o.t[1], o.t[2], o.t[3]);
    printf("null diffDesc -> %d\n", st);
    note_error(st);
    st = cudnnGetFoldedConvBackwardDataDescriptors(NULL, wd, dy, NULL, dx, CUDNN_TENSOR_NCHW, o.fw, o.pdy, o.fc,
                                                   o.fdx, o.t[0], o.t[1], o.t[2], o.t[3]);
    printf("null convDesc -> %d\n", st);
    note_error(st);
    st = cudnnGetFoldedConvBackwardDataDescriptors(NULL, wd, dy, cd, NULL, CUDNN_TENSOR_NCHW, o.fw, o.pdy, o.fc,
                                                   o.fdx, o.t[0], o.t[1], o.t[2], o.t[3]);
    printf("null gradDesc -> %d\n", st);
    note_error(st);
    st = cudnnGetFoldedConvBackwardDataDescriptors(NULL, wd, dy, cd, dx, CUDNN_TENSOR_NCHW, NULL, o.pdy, o.fc,
                                                   o.fdx, o.t[0], o.t[1], o.t[2], o.t[3]);
    printf("null foldedFilterDesc -> %d\n", st);
    note_error(st);
    st = cudnnGetFoldedConvBackwardDataDescriptors(NULL, wd, dy, cd, dx, CUDNN_TENSOR_NCHW, o.fw, o.pdy, o.fc,
                                                   o.fdx, o.t[0], o.t[1], o.t[2], NULL);
    printf("null gradUnfoldTransDesc -> %d\n", st);
    note_error(st);
    {
      int dims[5] = {2, 3, 9, 9, 9}, strides[5] = {2187, 729, 81, 9, 1};
      cudnnCreateTensorDescriptor(&x5);
      cudnnSetTensorNdDescriptor(x5, CUDNN_DATA_FLOAT, 5, dims, strides);
      st = cudnnGetFoldedConvBackwardDataDescriptors(NULL, wd, dy, cd, x5, CUDNN_TENSOR_NCHW, o.fw, o.pdy, o.fc,
                                                     o.fdx, o.t[0], o.t[1], o.t[2], o.t[3]);
      printf("5-d gradDesc -> %d\n", st);
      note_error(st);
      cudnnDestroyTensorDescriptor(x5);
    }
    cudnnDestroyFilterDescriptor(wd);
    cudnnDestroyTensorDescriptor(dy);
    cudnnDestroyTensorDescriptor(dx);
    cudnnDestroyConvolutionDescriptor(cd);
  }

  cudnnDestroyFilterDescriptor(o.fw);
  cudnnDestroyTensorDescriptor(o.pdy);
  cudnnDestroyTensorDescriptor(o.fdx);
  cudnnDestroyConvolutionDescriptor(o.fc);
  for (i = 0; i < 4; ++i) cudnnDestroyTensorTransformDescriptor(o.t[i]);
  return 0;
}
