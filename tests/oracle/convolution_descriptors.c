/*
 * Differential test of the convolution descriptor calls (set/get 2d and Nd,
 * group count, math and reorder types) and the forward output-shape queries.
 * Built against FreeDNN and against NVIDIA's cuDNN; lines not starting with
 * '#' must be identical. Out-parameters start as the sentinel -7.
 *
 * Left out on purpose (NVIDIA's library crashes there): NULL out-pointers of
 * cudnnGetConvolution2dDescriptor, cudnnGetConvolutionGroupCount and
 * cudnnGetConvolution2dForwardOutputDim, and NULL arrays passed to
 * cudnnSetConvolutionNdDescriptor.
 */
#include <cudnn.h>

#include <stdio.h>

#define S (-7)

static void note_error(int status) {
  char msg[512];
  if (status == CUDNN_STATUS_SUCCESS) return;
  msg[0] = '\0';
  cudnnGetLastErrorString(msg, sizeof msg);
  printf("# %s\n", msg);
}

static void show_2d(cudnnConvolutionDescriptor_t c) {
  int ph = S, pw = S, u = S, v = S, dh = S, dw = S;
  cudnnConvolutionMode_t m = (cudnnConvolutionMode_t)S;
  cudnnDataType_t t = (cudnnDataType_t)S;
  int st = cudnnGetConvolution2dDescriptor(c, &ph, &pw, &u, &v, &dh, &dw, &m, &t);
  printf(" get2d=%d %d %d %d %d %d %d m%d t%d", st, ph, pw, u, v, dh, dw, (int)m, (int)t);
}

static void show_nd(cudnnConvolutionDescriptor_t c, int requested) {
  int n = S, pad[8], str[8], dil[8], i;
  cudnnConvolutionMode_t m = (cudnnConvolutionMode_t)S;
  cudnnDataType_t t = (cudnnDataType_t)S;
  int st;
  for (i = 0; i < 8; ++i) pad[i] = str[i] = dil[i] = S;
  st = cudnnGetConvolutionNdDescriptor(c, requested, &n, pad, str, dil, &m, &t);
  printf(" getNd(%d)=%d n%d", requested, st, n);
  for (i = 0; i < 7; ++i) printf(" %d/%d/%d", pad[i], str[i], dil[i]);
  printf(" m%d t%d", (int)m, (int)t);
}

static void set2d(cudnnConvolutionDescriptor_t c, int ph, int pw, int u, int v, int dh, int dw, int mode, int type) {
  int st = cudnnSetConvolution2dDescriptor(c, ph, pw, u, v, dh, dw, (cudnnConvolutionMode_t)mode, (cudnnDataType_t)type);
  printf("set2d %d %d %d %d %d %d m%d t%d -> %d", ph, pw, u, v, dh, dw, mode, type, st);
  show_2d(c);
  show_nd(c, 6);
  printf("\n");
  note_error(st);
}

static void setnd(cudnnConvolutionDescriptor_t c, int len, const int *pad, const int *str, const int *dil, int mode,
                  int type) {
  int st = cudnnSetConvolutionNdDescriptor(c, len, pad, str, dil, (cudnnConvolutionMode_t)mode, (cudnnDataType_t)type);
  printf("setNd len%d m%d t%d -> %d", len, mode, type, st);
  show_2d(c);
  show_nd(c, 6);
  printf("\n");
  note_error(st);
}

static void descriptor_calls(void) {
  cudnnConvolutionDescriptor_t c;
  int i, st;
  printf("create NULL -> %d\n", (int)cudnnCreateConvolutionDescriptor(NULL));
  cudnnCreateConvolutionDescriptor(&c);
  printf("fresh");
  show_2d(c);
  show_nd(c, 2);
  show_nd(c, 8);
  {
    int g = S;
    cudnnMathType_t mt = (cudnnMathType_t)S;
    cudnnReorderType_t rt = (cudnnReorderType_t)S;
    printf(" group=%d", (int)cudnnGetConvolutionGroupCount(c, &g));
    printf(" %d math=%d", g, (int)cudnnGetConvolutionMathType(c, &mt));
    printf(" %d reorder=%d %d\n", (int)mt, (int)cudnnGetConvolutionReorderType(c, &rt), (int)rt);
  }
  {
    static const int v[][6] = {{0, 0, 1, 1, 1, 1}, {-1, 0, 1, 1, 1, 1}, {0, -1, 1, 1, 1, 1}, {0, 0, 0, 1, 1, 1},
                               {0, 0, 1, 0, 1, 1}, {0, 0, -1, 1, 1, 1}, {0, 0, 1, 1, 0, 1}, {0, 0, 1, 1, 1, 0},
                               {0, 0, 1, 1, -2, 1}, {5, 5, 3, 3, 2, 2},  {7, 1, 4, 1, 1, 9}, {0, 0, 1, 1, 1, 1}};
    for (i = 0; i < (int)(sizeof v / sizeof v[0]); ++i) set2d(c, v[i][0], v[i][1], v[i][2], v[i][3], v[i][4], v[i][5], i & 1, 0);
  }
  for (i = -1; i <= 19; ++i) set2d(c, 1, 2, 1, 2, 1, 1, 1, i);
  for (i = -1; i <= 3; ++i) set2d(c, 1, 1, 1, 1, 1, 1, i, 0);
  printf("set2d NULL -> %d\n", (int)cudnnSetConvolution2dDescriptor(NULL, 0, 0, 1, 1, 1, 1, CUDNN_CONVOLUTION, CUDNN_DATA_FLOAT));
  {
    int pad[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9}, str[9] = {2, 3, 4, 5, 6, 7, 8, 9, 10}, dil[9] = {3, 1, 2, 1, 2, 1, 2, 1, 2};
    for (i = -1; i <= 9; ++i) setnd(c, i, pad, str, dil, CUDNN_CROSS_CORRELATION, CUDNN_DATA_HALF);
    setnd(c, 3, pad, str, dil, CUDNN_CONVOLUTION, CUDNN_DATA_DOUBLE);
    for (i = -1; i <= 8; ++i) {
      show_nd(c, i);
      printf("\n");
    }
    {
      int bad[3] = {1, -1, 1};
      setnd(c, 3, bad, str, dil, 0, 0);
      setnd(c, 3, pad, bad, dil, 0, 0);
      setnd(c, 3, pad, str, bad, 0, 0);
      setnd(c, 3, pad, str, dil, 5, 0);
      setnd(c, 3, pad, str, dil, 0, 9);
    }
    setnd(c, 1, pad, str, dil, 0, 0);
    setnd(c, 0, pad, str, dil, 0, 0);
  }
  {
    static const int groups[] = {0, -1, 1, 2, 3, 1000000};
    for (i = 0; i < 6; ++i) {
      int g = S;
      st = cudnnSetConvolutionGroupCount(c, groups[i]);
      printf("group %d -> %d", groups[i], st);
      printf(" get=%d %d\n", (int)cudnnGetConvolutionGroupCount(c, &g), g);
      note_error(st);
    }
  }
  for (i = -1; i <= 5; ++i) {
    cudnnMathType_t mt = (cudnnMathType_t)S;
    st = cudnnSetConvolutionMathType(c, (cudnnMathType_t)i);
    printf("math %d -> %d get=%d", i, st, (int)cudnnGetConvolutionMathType(c, &mt));
    printf(" %d\n", (int)mt);
  }
  for (i = -1; i <= 3; ++i) {
    cudnnReorderType_t rt = (cudnnReorderType_t)S;
    st = cudnnSetConvolutionReorderType(c, (cudnnReorderType_t)i);
    printf("reorder %d -> %d get=%d", i, st, (int)cudnnGetConvolutionReorderType(c, &rt));
    printf(" %d\n", (int)rt);
  }
  /* Group, math and reorder survive a new geometry. */
  cudnnSetConvolutionGroupCount(c, 4);
  set2d(c, 1, 1, 1, 1, 1, 1, 0, 0);
  {
    int g = S;
    cudnnGetConvolutionGroupCount(c, &g);
    printf("group after set2d %d\n", g);
  }
  printf("destroy -> %d\n", (int)cudnnDestroyConvolutionDescriptor(c));
  printf("destroy NULL -> %d\n", (int)cudnnDestroyConvolutionDescriptor(NULL));
}

/* One output-dims case: x NCHW (or 5-d), filter KCRS, the convolution. */
static void out_case(int nb, const int *xd, int wt, const int *wd, int spatial, const int *pad, const int *str,
                     const int *dil, int groups, int req) {
  cudnnTensorDescriptor_t x;
  cudnnFilterDescriptor_t w;
  cudnnConvolutionDescriptor_t c;
  int xs[8], i, st, st2, od[8];
  int n = S, k = S, h = S, ww = S;
  cudnnCreateTensorDescriptor(&x);
  cudnnCreateFilterDescriptor(&w);
  cudnnCreateConvolutionDescriptor(&c);
  xs[nb - 1] = 1;
  for (i = nb - 2; i >= 0; --i) xs[i] = xs[i + 1] * xd[i + 1];
  cudnnSetTensorNdDescriptor(x, CUDNN_DATA_FLOAT, nb, xd, xs);
  cudnnSetFilterNdDescriptor(w, (cudnnDataType_t)wt, CUDNN_TENSOR_NCHW, nb, wd);
  cudnnSetConvolutionNdDescriptor(c, spatial, pad, str, dil, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT);
  cudnnSetConvolutionGroupCount(c, groups);
  printf("out x");
  for (i = 0; i < nb; ++i) printf(" %d", xd[i]);
  printf(" w");
  for (i = 0; i < nb; ++i) printf(" %d", wd[i]);
  printf(" sp%d g%d req%d:", spatial, groups, req);
  if (nb == 4 && spatial == 2) {
    st = cudnnGetConvolution2dForwardOutputDim(c, x, w, &n, &k, &h, &ww);
    printf(" 2d=%d %d %d %d %d", st, n, k, h, ww);
  }
  for (i = 0; i < 8; ++i) od[i] = S;
  st2 = cudnnGetConvolutionNdForwardOutputDim(c, x, w, req, od);
  printf(" nd=%d", st2);
  for (i = 0; i < 6; ++i) printf(" %d", od[i]);
  printf("\n");
  note_error(st2);
  cudnnDestroyTensorDescriptor(x);
  cudnnDestroyFilterDescriptor(w);
  cudnnDestroyConvolutionDescriptor(c);
}

static void output_dims(void) {
  unsigned seed = 12345u;
  int i;
  /* Hand-picked edge cases. */
  {
    int x[4] = {2, 3, 8, 8}, w[4] = {4, 3, 3, 3}, p1[2] = {1, 1}, p0[2] = {0, 0}, s1[2] = {1, 1}, s2[2] = {2, 2},
        d2[2] = {2, 2};
    int xs[4] = {2, 3, 2, 2}, wbig[4] = {4, 3, 5, 5}, wc2[4] = {4, 2, 3, 3}, x4[4] = {2, 4, 8, 8},
        w6[4] = {6, 2, 3, 3}, w3[4] = {3, 2, 3, 3}, wodd[4] = {4, 3, 10, 9};
    out_case(4, x, 0, w, 2, p1, s1, s1, 1, 4);
    out_case(4, x, 0, w, 2, p0, s2, s1, 1, 4);
    out_case(4, x, 0, w, 2, p0, s1, d2, 1, 4);
    out_case(4, xs, 0, w, 2, p0, s1, s1, 1, 4);
    out_case(4, xs, 0, wbig, 2, p1, s1, s1, 1, 4);
    out_case(4, x, 0, wc2, 2, p1, s1, s1, 1, 4);
    out_case(4, x4, 0, wc2, 2, p1, s1, s1, 2, 4);
    out_case(4, x4, 0, w6, 2, p1, s1, s1, 2, 4);
    out_case(4, x4, 0, w3, 2, p1, s1, s1, 2, 4);
    out_case(4, x, 2, w, 2, p1, s1, s1, 1, 4);
    out_case(4, x, 0, wodd, 2, p1, s1, s1, 1, 4);
    for (i = 0; i <= 6; ++i) out_case(4, x, 0, w, 2, p1, s1, s1, 1, i);
  }
  {
    int x5[5] = {2, 3, 8, 9, 10}, w5[5] = {4, 3, 3, 2, 1}, p[3] = {1, 0, 2}, s[3] = {1, 2, 3}, d[3] = {1, 2, 1};
    int x4[4] = {2, 3, 8, 8}, w4[4] = {4, 3, 3, 3};
    out_case(5, x5, 0, w5, 3, p, s, d, 1, 5);
    out_case(5, x5, 0, w5, 2, p, s, d, 1, 5);
    out_case(4, x4, 0, w4, 3, p, s, d, 1, 4);
    out_case(4, x4, 0, w4, 1, p, s, d, 1, 4);
  }
  {
    int x3[3] = {2, 3, 17}, w3[3] = {5, 3, 4}, p[1] = {2}, s[1] = {3}, d[1] = {2};
    out_case(3, x3, 0, w3, 1, p, s, d, 1, 3);
  }
  /* Random 2-d and 3-d cases, some of which do not fit. */
  for (i = 0; i < 200; ++i) {
    int nb = 4 + (i & 1), sp = nb - 2, x[5], w[5], p[3], s[3], d[3], j, g;
#define RND(m) ((int)((seed = seed * 1103515245u + 12345u) >> 16) % (m))
    g = 1 + RND(3);
    x[0] = 1 + RND(4);
    w[1] = 1 + RND(4);
    x[1] = w[1] * g;
    w[0] = g * (1 + RND(3));
    for (j = 0; j < sp; ++j) {
      x[2 + j] = 1 + RND(12);
      w[2 + j] = 1 + RND(5);
      p[j] = RND(3);
      s[j] = 1 + RND(3);
      d[j] = 1 + RND(2);
    }
    if (RND(8) == 0) x[1] += 1; /* channel mismatch */
    out_case(nb, x, 0, w, sp, p, s, d, g, nb);
#undef RND
  }
}

int main(void) {
  descriptor_calls();
  output_dims();
  return 0;
}
