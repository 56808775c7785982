/*
 * Differential test of the legacy descriptor calls: tensor, filter, op-tensor,
 * reduce-tensor and tensor-transform descriptors, the BN/norm derived
 * descriptors and the size queries.
 *
 * Built twice (against FreeDNN and against NVIDIA's cuDNN); every line not
 * starting with '#' must be identical. Each line is one call (or one call and
 * the Get calls that show its effect): the status and every value returned.
 * Out-parameters start as the sentinel -7 so that partial writes show.
 *
 * Left out on purpose, because NVIDIA's result is undefined there (crash or
 * uninitialised memory): NULL out-pointers that cuDNN dereferences, NULL
 * dimension arrays, double destroy, Get on a never-set op/reduce descriptor,
 * NHWC tensors of rank 2 through cudnnSetTensorNdDescriptorEx, NCHW_VECT_C
 * with nbDims < 2, a NULL direction pointer in
 * cudnnGetTensorTransformDescriptor, and the entry cuDNN writes past the
 * request of a Get call on an NCHW_VECT_C descriptor (dimA[1] when fewer than
 * 2 entries are asked for).
 */
#include <cudnn.h>

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define S (-7) /* sentinel for out-parameters */

static int g_lines = 0;

/* Prints the last error message as a comment line (not compared). */
static void note_error(int status) {
  char msg[512];
  if (status == CUDNN_STATUS_SUCCESS) return;
  msg[0] = '\0';
  cudnnGetLastErrorString(msg, sizeof msg);
  printf("# %s\n", msg);
}

static void end_line(void) {
  printf("\n");
  ++g_lines;
}

/* ---------------------------------------------------------------- tensors */

static cudnnTensorDescriptor_t new_tensor(void) {
  cudnnTensorDescriptor_t d = NULL;
  if (cudnnCreateTensorDescriptor(&d) != CUDNN_STATUS_SUCCESS) printf("create failed\n");
  return d;
}

/* A descriptor previously set to HALF, 8 dims of 9, strides 8: shows which
 * fields a failing call overwrites. */
static cudnnTensorDescriptor_t used_tensor(void) {
  static const int dims[8] = {9, 9, 9, 9, 9, 9, 9, 9};
  static const int strides[8] = {8, 8, 8, 8, 8, 8, 8, 8};
  cudnnTensorDescriptor_t d = new_tensor();
  if (cudnnSetTensorNdDescriptor(d, CUDNN_DATA_HALF, 8, dims, strides) != CUDNN_STATUS_SUCCESS) printf("prep failed\n");
  return d;
}

static void show_get4d(cudnnTensorDescriptor_t d) {
  cudnnDataType_t t = (cudnnDataType_t)S;
  int v[8];
  int i, s;
  for (i = 0; i < 8; ++i) v[i] = S;
  s = cudnnGetTensor4dDescriptor(d, &t, v, v + 1, v + 2, v + 3, v + 4, v + 5, v + 6, v + 7);
  printf(" | g4 %d t%d", s, (int)t);
  for (i = 0; i < 8; ++i) printf(" %d", v[i]);
}

static void show_getnd(cudnnTensorDescriptor_t d, int requested) {
  cudnnDataType_t t = (cudnnDataType_t)S;
  int nb = S, dims[16], strides[16], i, s, copied, untouched = 1;
  for (i = 0; i < 16; ++i) dims[i] = strides[i] = S;
  s = cudnnGetTensorNdDescriptor(d, requested, &t, &nb, dims, strides);
  printf(" | nd(%d) %d t%d nb%d", requested, s, (int)t, nb);
  copied = s == CUDNN_STATUS_SUCCESS ? (requested < nb ? requested : nb) : 0;
  if (copied < 0) copied = 0;
  for (i = 0; i < copied; ++i) printf(" %d/%d", dims[i], strides[i]);
  /* Nothing beyond the copied entries may be written. (cuDNN multiplies
   * dimA[1] of an NCHW_VECT_C descriptor by the lanes even when it copied
   * fewer than 2 entries; FreeDNN does not write past the request, so that
   * entry is not compared.) */
  for (i = copied; i < 16; ++i)
    if ((i != 1 && dims[i] != S) || strides[i] != S) untouched = 0;
  printf(" %s", untouched ? "rest-untouched" : "REST-WRITTEN");
}

static void show_size(cudnnTensorDescriptor_t d) {
  size_t z = 777;
  int s = cudnnGetTensorSizeInBytes(d, &z);
  printf(" | sz %d %lu", s, (unsigned long)z);
}

static void show_tensor(cudnnTensorDescriptor_t d) {
  show_get4d(d);
  show_getnd(d, 8);
  show_size(d);
}

static void t4(int used, int format, int dtype, int n, int c, int h, int w) {
  cudnnTensorDescriptor_t d = used ? used_tensor() : new_tensor();
  int s = cudnnSetTensor4dDescriptor(d, (cudnnTensorFormat_t)format, (cudnnDataType_t)dtype, n, c, h, w);
  printf("set4d%s f%d t%d %d %d %d %d: %d", used ? " used" : "", format, dtype, n, c, h, w, s);
  show_tensor(d);
  end_line();
  note_error(s);
  cudnnDestroyTensorDescriptor(d);
}

static void t4ex(int used, int dtype, const int *a) {
  cudnnTensorDescriptor_t d = used ? used_tensor() : new_tensor();
  int s = cudnnSetTensor4dDescriptorEx(d, (cudnnDataType_t)dtype, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]);
  printf("set4dex%s t%d %d %d %d %d / %d %d %d %d: %d", used ? " used" : "", dtype, a[0], a[1], a[2], a[3], a[4], a[5],
         a[6], a[7], s);
  show_tensor(d);
  end_line();
  note_error(s);
  cudnnDestroyTensorDescriptor(d);
}

static void tnd(int used, int dtype, int nb, const int *dims, const int *strides) {
  cudnnTensorDescriptor_t d = used ? used_tensor() : new_tensor();
  int s = cudnnSetTensorNdDescriptor(d, (cudnnDataType_t)dtype, nb, dims, strides);
  int i;
  printf("setnd%s t%d nb%d", used ? " used" : "", dtype, nb);
  for (i = 0; i < nb && i < 8; ++i) printf(" %d/%d", dims[i], strides[i]);
  printf(": %d", s);
  show_tensor(d);
  end_line();
  note_error(s);
  cudnnDestroyTensorDescriptor(d);
}

static void tndex(int used, int format, int dtype, int nb, const int *dims) {
  cudnnTensorDescriptor_t d = used ? used_tensor() : new_tensor();
  int s = cudnnSetTensorNdDescriptorEx(d, (cudnnTensorFormat_t)format, (cudnnDataType_t)dtype, nb, dims);
  int i;
  printf("setndex%s f%d t%d nb%d", used ? " used" : "", format, dtype, nb);
  for (i = 0; i < nb && i < 8; ++i) printf(" %d", dims[i]);
  printf(": %d", s);
  show_tensor(d);
  end_line();
  note_error(s);
  cudnnDestroyTensorDescriptor(d);
}

static void tensor_sets(void) {
  static const int shapes4[][4] = {
      {2, 8, 3, 5},  {1, 1, 1, 1},      {2, 32, 3, 5}, {3, 64, 1, 7},         {2, 4, 5, 5},   {2, 6, 3, 5},
      {0, 8, 3, 5},  {2, 0, 3, 5},      {2, 8, -3, 5}, {2, 8, 3, 0},          {-1, 1, 1, 1},  {2, 48, 3, 5},
      {46340, 46340, 1, 1}, {46341, 46341, 1, 1}, {65536, 65536, 1, 1}, {1, 65536, 65536, 2}, {1, 1, 1, 2147483647},
      {1, 1, 2147483647, 1}, {1, 256, 65536, 1}, {1, 2, 65536, 65536}, {4, 131072, 4096, 4096}};
  static const int ex[][8] = {
      {2, 3, 4, 5, 60, 20, 5, 1},   {2, 3, 4, 5, 60, 1, 15, 3},   {2, 3, 4, 5, 0, 20, 5, 1},
      {2, 3, 4, 5, 60, 0, 5, 1},    {2, 3, 4, 5, 60, 20, 0, 1},   {2, 3, 4, 5, 60, 20, 5, 0},
      {2, 3, 4, 5, -60, 20, 5, 1},  {2, 3, 4, 5, 60, 20, 5, -1},  {2, 3, 4, 5, -61, -20, -5, -1},
      {2, 3, 4, 5, 1, 1, 1, 1},     {2, 3, 4, 5, 10, 10, 10, 10}, {2, 3, 4, 5, 30, 10, 5, 1},
      {2, 3, 4, 5, 59, 20, 5, 1},   {2, 3, 4, 5, 100, 30, 6, 1},  {2, 3, 4, 5, 60, 20, 1, 4},
      {2, 3, 4, 5, 60, 20, 4, 1},   {2, 3, 4, 5, 60, 20, 5, 2},   {1, 1, 1, 1, 1, 1, 1, 1},
      {1, 1, 1, 1, 0, 0, 0, 0},     {1, 3, 1, 1, 0, 1, 0, 0},     {2, 1, 4, 5, 60, 0, 5, 1},
      {2, 1, 4, 5, 60, -7, 5, 1},   {0, 3, 4, 5, 60, 20, 5, 1},   {2, 0, 4, 5, 60, 20, 5, 1},
      {2, 3, 4, -5, 60, 20, 5, 1},  {2, 3, 0, 5, 60, 0, 0, 1},    {1, 1, 1, 1, 5, 5, 5, 5},
      {2, 3, 4, 5, 1, 2, 6, 24},    {2, 3, 4, 5, 1, 2, 6, 23},    {2, 3, 4, 5, 1, 2, 6, 25},
      {65536, 65536, 1, 1, 65536, 1, 1, 1}, {65536, 65536, 1, 1, 1, 1, 1, 1}, {46341, 46341, 1, 1, 46341, 1, 1, 1},
      {46340, 46340, 1, 1, 46340, 1, 1, 1}, {2147483647, 1, 1, 1, 1, 1, 1, 1}, {2, 1, 1, 1, 2147483647, 1, 1, 1},
      {3, 1, 1, 1, 2147483647, 1, 1, 1}, {1, 1, 1, 2, 1, 1, 1, 1073741824}, {1, 1, 1, 3, 1, 1, 1, 1073741824},
      {2, 3, 4, 5, -2147483647 - 1, 20, 5, 1}, {1, 3, 4, 5, 2147483647, 20, 5, 1}, {2, 3, 4, 5, 2147483647, 20, 5, 1}};
  int f, t, i, used;

  printf("# cudnnSetTensor4dDescriptor: every format and type\n");
  for (f = -1; f <= 3; ++f)
    for (t = -1; t <= 22; ++t) t4(0, f, t, 2, 8, 3, 5);
  printf("# cudnnSetTensor4dDescriptor: shapes\n");
  for (used = 0; used <= 1; ++used)
    for (i = 0; i < (int)(sizeof shapes4 / sizeof shapes4[0]); ++i)
      for (f = 0; f <= 2; ++f) {
        static const int types[] = {CUDNN_DATA_FLOAT, CUDNN_DATA_INT8x4, CUDNN_DATA_UINT8x4, CUDNN_DATA_INT8x32,
                                    CUDNN_DATA_DOUBLE};
        for (t = 0; t < 5; ++t) t4(used, f, types[t], shapes4[i][0], shapes4[i][1], shapes4[i][2], shapes4[i][3]);
      }

  printf("# cudnnSetTensor4dDescriptorEx: strides\n");
  for (t = -1; t <= 11; ++t) t4ex(0, t, ex[0]);
  for (used = 0; used <= 1; ++used)
    for (i = 0; i < (int)(sizeof ex / sizeof ex[0]); ++i) {
      t4ex(used, CUDNN_DATA_FLOAT, ex[i]);
      if (!used) {
        t4ex(used, CUDNN_DATA_INT8x4, ex[i]);
        t4ex(used, CUDNN_DATA_INT8x32, ex[i]);
        t4ex(used, CUDNN_DATA_HALF, ex[i]);
      }
    }

  printf("# cudnnSetTensorNdDescriptor: ranks and types\n");
  {
    static const int dims[10] = {2, 3, 4, 5, 2, 3, 1, 2, 1, 1};
    static const int packed[8][8] = {{1},
                                     {3, 1},
                                     {12, 4, 1},
                                     {60, 20, 5, 1},
                                     {120, 40, 10, 2, 1},
                                     {360, 120, 30, 6, 3, 1},
                                     {360, 120, 30, 6, 3, 1, 1},
                                     {720, 240, 60, 12, 6, 2, 2, 1}};
    int nb;
    for (nb = -1; nb <= 10; ++nb)
      for (t = -1; t <= 11; ++t) {
        const int *st = packed[nb >= 1 && nb <= 8 ? nb - 1 : 7];
        if (t != -1 && t != 0 && t != 5 && t != 8 && t != 11 && (nb < 3 || nb > 5)) continue;
        {
          int strides[10] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
          int k;
          for (k = 0; k < 8; ++k) strides[k] = st[k] ? st[k] : 1;
          tnd(0, t, nb, dims, strides);
          if (t == 0) tnd(1, t, nb, dims, strides);
        }
      }
  }
  printf("# cudnnSetTensorNdDescriptor: dimensions and strides\n");
  for (used = 0; used <= 1; ++used)
    for (i = 0; i < (int)(sizeof ex / sizeof ex[0]); ++i) tnd(used, CUDNN_DATA_FLOAT, 4, ex[i], ex[i] + 4);
  {
    static const int d3[3] = {3, 4, 5}, s3[3] = {42, 7, 1};
    static const int d5[5] = {3, 4, 5, 6, 7}, s5[5] = {840, 210, 42, 7, 1};
    static const int d8[8] = {2, 2, 2, 2, 2, 2, 2, 2}, s8a[8] = {128, 64, 32, 16, 8, 4, 2, 1},
                     s8b[8] = {1, 2, 4, 8, 16, 32, 64, 128}, s8c[8] = {1, 1, 1, 1, 1, 1, 1, 1};
    static const int d8z[8] = {2, 2, 2, 2, 0, 2, 2, 2};
    for (t = 0; t <= 9; ++t) {
      tnd(0, t, 3, d3, s3);
      tnd(0, t, 5, d5, s5);
      tnd(0, t, 8, d8, s8a);
    }
    tnd(0, CUDNN_DATA_FLOAT, 8, d8, s8b);
    tnd(0, CUDNN_DATA_FLOAT, 8, d8, s8c);
    tnd(1, CUDNN_DATA_FLOAT, 8, d8z, s8a);
    tnd(1, CUDNN_DATA_FLOAT, 2, d3, s3 + 1);
    tnd(1, CUDNN_DATA_FLOAT, 3, d3, s3);
  }

  printf("# cudnnSetTensorNdDescriptorEx: formats, types, ranks\n");
  {
    static const int cs[] = {8, 6, 32, 64, 4, 12};
    int nb, ci;
    for (f = -1; f <= 3; ++f)
      for (t = -1; t <= 11; ++t)
        for (nb = -1; nb <= 10; ++nb)
          for (ci = 0; ci < 6; ++ci) {
            int dims[10] = {2, 8, 3, 5, 2, 3, 1, 2, 1, 1};
            dims[1] = cs[ci];
            if (f == CUDNN_TENSOR_NHWC && nb == 2) continue;          /* cuDNN reads garbage */
            if (f == CUDNN_TENSOR_NCHW_VECT_C && nb < 2) continue;    /* cuDNN reads garbage */
            if (ci > 0 && (t < 0 || t > 9 || nb < 2 || nb > 8 || f < 0 || f > 2)) continue;
            if ((t == -1 || t == 11 || f == -1 || f == 3) && nb != 4) continue;
            if (ci > 1 && nb != 4 && nb != 5) continue;
            tndex(0, f, t, nb, dims);
          }
  }
  {
    static const int bad[][5] = {{2, 0, 3, 5, 1}, {0, 4, 3, 5, 1}, {-1, 4, 3, 5, 1}, {2, -4, 3, 5, 1},
                                 {2, 4, -3, 5, 1}, {2, 4, 3, 0, 1}, {2, 8, 3, 5, -2}, {65536, 65536, 1, 1, 1},
                                 {1, 65536, 65536, 2, 1}, {2, 1, 65536, 32768, 1}};
    for (used = 0; used <= 1; ++used)
      for (i = 0; i < (int)(sizeof bad / sizeof bad[0]); ++i)
        for (f = 0; f <= 2; ++f) {
          tndex(used, f, CUDNN_DATA_FLOAT, 4, bad[i]);
          tndex(used, f, CUDNN_DATA_INT8x4, 5, bad[i]);
        }
  }
}

/* Sequences: what one call leaves for the next. */
static void tensor_sequences(void) {
  static const int dims[4] = {2, 8, 3, 5}, strides[4] = {120, 15, 5, 1}, zero_c[4] = {2, 0, 3, 5};
  static const int d9[9] = {2, 8, 1, 1, 1, 1, 1, 1, 1};
  cudnnTensorDescriptor_t d;
  int s1, s2;

#define SEQ(label, first, second)                \
  d = new_tensor();                              \
  s1 = (first);                                  \
  s2 = (second);                                 \
  printf("seq %s: %d %d", label, s1, s2);        \
  show_tensor(d);                                \
  end_line();                                    \
  cudnnDestroyTensorDescriptor(d)

  printf("# sequences of Set calls\n");
  SEQ("vect then nd", cudnnSetTensorNdDescriptorEx(d, CUDNN_TENSOR_NCHW_VECT_C, CUDNN_DATA_FLOAT, 4, dims),
      cudnnSetTensorNdDescriptor(d, CUDNN_DATA_FLOAT, 4, dims, strides));
  SEQ("vect then nd bad dim", cudnnSetTensorNdDescriptorEx(d, CUDNN_TENSOR_NCHW_VECT_C, CUDNN_DATA_FLOAT, 4, dims),
      cudnnSetTensorNdDescriptor(d, CUDNN_DATA_FLOAT, 4, zero_c, strides));
  SEQ("vect then nd bad rank", cudnnSetTensorNdDescriptorEx(d, CUDNN_TENSOR_NCHW_VECT_C, CUDNN_DATA_FLOAT, 4, dims),
      cudnnSetTensorNdDescriptor(d, CUDNN_DATA_FLOAT, 9, d9, d9));
  SEQ("vect then nd bad type", cudnnSetTensorNdDescriptorEx(d, CUDNN_TENSOR_NCHW_VECT_C, CUDNN_DATA_FLOAT, 4, dims),
      cudnnSetTensorNdDescriptor(d, CUDNN_DATA_BOOLEAN, 4, dims, strides));
  SEQ("vect then 4dex", cudnnSetTensorNdDescriptorEx(d, CUDNN_TENSOR_NCHW_VECT_C, CUDNN_DATA_FLOAT, 4, dims),
      cudnnSetTensor4dDescriptorEx(d, CUDNN_DATA_FLOAT, 2, 8, 3, 5, 120, 15, 5, 1));
  SEQ("vect then 4d", cudnnSetTensorNdDescriptorEx(d, CUDNN_TENSOR_NCHW_VECT_C, CUDNN_DATA_FLOAT, 4, dims),
      cudnnSetTensor4dDescriptor(d, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 2, 8, 3, 5));
  SEQ("vect then 4d bad", cudnnSetTensorNdDescriptorEx(d, CUDNN_TENSOR_NCHW_VECT_C, CUDNN_DATA_FLOAT, 4, dims),
      cudnnSetTensor4dDescriptor(d, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 2, 0, 3, 5));
  SEQ("vect then ndex nchw", cudnnSetTensorNdDescriptorEx(d, CUDNN_TENSOR_NCHW_VECT_C, CUDNN_DATA_FLOAT, 4, dims),
      cudnnSetTensorNdDescriptorEx(d, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 4, dims));
  SEQ("vect then ndex nchw bad", cudnnSetTensorNdDescriptorEx(d, CUDNN_TENSOR_NCHW_VECT_C, CUDNN_DATA_FLOAT, 4, dims),
      cudnnSetTensorNdDescriptorEx(d, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 4, zero_c));
  SEQ("vect then ndex nchw rank9", cudnnSetTensorNdDescriptorEx(d, CUDNN_TENSOR_NCHW_VECT_C, CUDNN_DATA_FLOAT, 4, dims),
      cudnnSetTensorNdDescriptorEx(d, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 9, d9));
  SEQ("vect then ndex int8x4", cudnnSetTensorNdDescriptorEx(d, CUDNN_TENSOR_NCHW_VECT_C, CUDNN_DATA_FLOAT, 4, dims),
      cudnnSetTensorNdDescriptorEx(d, CUDNN_TENSOR_NCHW_VECT_C, CUDNN_DATA_INT8x4, 4, dims));
  SEQ("vect then 4d int8x32 bad", cudnnSetTensorNdDescriptorEx(d, CUDNN_TENSOR_NCHW_VECT_C, CUDNN_DATA_FLOAT, 4, dims),
      cudnnSetTensor4dDescriptor(d, CUDNN_TENSOR_NCHW_VECT_C, CUDNN_DATA_INT8x32, 2, 8, 3, 5));
  SEQ("vect then 4d int8x4", cudnnSetTensorNdDescriptorEx(d, CUDNN_TENSOR_NCHW_VECT_C, CUDNN_DATA_FLOAT, 4, dims),
      cudnnSetTensor4dDescriptor(d, CUDNN_TENSOR_NCHW_VECT_C, CUDNN_DATA_INT8x4, 2, 4, 3, 5));
  SEQ("vect then 4d overflow", cudnnSetTensorNdDescriptorEx(d, CUDNN_TENSOR_NCHW_VECT_C, CUDNN_DATA_FLOAT, 4, dims),
      cudnnSetTensor4dDescriptor(d, CUDNN_TENSOR_NCHW, CUDNN_DATA_INT8x4, 1, 65536, 65536, 1));
  SEQ("4d then vect rank9", cudnnSetTensor4dDescriptor(d, CUDNN_TENSOR_NCHW, CUDNN_DATA_INT8x4, 2, 8, 3, 5),
      cudnnSetTensorNdDescriptorEx(d, CUDNN_TENSOR_NCHW_VECT_C, CUDNN_DATA_INT8x4, 9, d9));
  SEQ("4d then vect rank9 x32", cudnnSetTensor4dDescriptor(d, CUDNN_TENSOR_NCHW, CUDNN_DATA_INT8x4, 2, 8, 3, 5),
      cudnnSetTensorNdDescriptorEx(d, CUDNN_TENSOR_NCHW_VECT_C, CUDNN_DATA_INT8x32, 9, d9));
  SEQ("nd5 then 4d", cudnnSetTensorNdDescriptorEx(d, CUDNN_TENSOR_NHWC, CUDNN_DATA_DOUBLE, 5, d9),
      cudnnSetTensor4dDescriptor(d, CUDNN_TENSOR_NHWC, CUDNN_DATA_HALF, 3, 4, 5, 6));
  SEQ("nd8 then nd3", cudnnSetTensorNdDescriptor(d, CUDNN_DATA_FLOAT, 8, d9, d9),
      cudnnSetTensorNdDescriptor(d, CUDNN_DATA_INT32, 3, dims, strides + 1));
#undef SEQ
}

static void tensor_gets(void) {
  static const int dims[8] = {3, 4, 5, 6, 7, 2, 2, 2}, strides[8] = {6720, 1680, 336, 56, 8, 4, 2, 1};
  cudnnTensorDescriptor_t d = new_tensor();
  int nb, req, s, i;
  cudnnDataType_t t;
  int v[8], w[8], got;

  printf("# Get on a never-set tensor descriptor\n");
  printf("fresh tensor:");
  show_tensor(d);
  end_line();
  show_getnd(d, 0);
  end_line();

  printf("# cudnnGetTensorNdDescriptor with every nbDimsRequested\n");
  for (nb = 2; nb <= 8; ++nb) {
    s = cudnnSetTensorNdDescriptor(d, CUDNN_DATA_DOUBLE, nb, dims, strides + 8 - nb);
    printf("rank %d: %d", nb, s);
    show_get4d(d);
    show_size(d);
    end_line();
    for (req = -2; req <= 9; ++req) {
      printf("rank %d", nb);
      show_getnd(d, req);
      end_line();
    }
  }
  /* A larger request than there are dimensions, with room for it. */
  {
    int big_d[100], big_s[100];
    for (i = 0; i < 100; ++i) big_d[i] = big_s[i] = S;
    t = (cudnnDataType_t)S;
    got = S;
    s = cudnnGetTensorNdDescriptor(d, 100, &t, &got, big_d, big_s);
    printf("getnd 100: %d t%d nb%d", s, (int)t, got);
    for (i = 0; i < 10; ++i) printf(" %d/%d", big_d[i], big_s[i]);
    end_line();
  }
  /* NULL arrays are fine when nothing is copied. */
  t = (cudnnDataType_t)S;
  got = S;
  s = cudnnGetTensorNdDescriptor(d, 0, &t, &got, NULL, NULL);
  printf("getnd 0 with NULL arrays: %d t%d nb%d", s, (int)t, got);
  end_line();
  s = cudnnGetTensorNdDescriptor(d, -3, &t, &got, NULL, NULL);
  printf("getnd -3 with NULL arrays: %d t%d nb%d", s, (int)t, got);
  end_line();

  printf("# NULL arguments cuDNN checks\n");
  for (i = 0; i < 8; ++i) v[i] = w[i] = S;
  t = (cudnnDataType_t)S;
  s = cudnnGetTensor4dDescriptor(d, &t, NULL, v + 1, v + 2, v + 3, v + 4, v + 5, v + 6, v + 7);
  printf("get4d NULL n: %d t%d %d %d", s, (int)t, v[1], v[7]);
  end_line();
  s = cudnnGetTensor4dDescriptor(d, NULL, v, v + 1, v + 2, v + 3, v + 4, v + 5, v + 6, v + 7);
  printf("get4d NULL type: %d %d %d", s, v[0], v[7]);
  end_line();
  s = cudnnGetTensor4dDescriptor(d, &t, v, v + 1, v + 2, v + 3, v + 4, v + 5, v + 6, NULL);
  printf("get4d NULL wStride: %d t%d %d %d", s, (int)t, v[0], v[6]);
  end_line();
  s = cudnnGetTensor4dDescriptor(NULL, &t, v, v + 1, v + 2, v + 3, v + 4, v + 5, v + 6, v + 7);
  printf("get4d NULL desc: %d", s);
  end_line();
  s = cudnnGetTensorNdDescriptor(d, 4, &t, NULL, v, w);
  printf("getnd NULL nbDims: %d t%d %d %d", s, (int)t, v[0], w[0]);
  end_line();
  s = cudnnGetTensorNdDescriptor(NULL, 4, &t, &got, v, w);
  printf("getnd NULL desc: %d", s);
  end_line();
  {
    size_t z = 777;
    s = cudnnGetTensorSizeInBytes(NULL, &z);
  }
  printf("size NULL desc: %d", s);
  end_line();
  s = cudnnSetTensor4dDescriptor(NULL, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 1, 1, 1);
  printf("set4d NULL desc: %d", s);
  end_line();
  s = cudnnSetTensor4dDescriptorEx(NULL, CUDNN_DATA_FLOAT, 1, 1, 1, 1, 1, 1, 1, 1);
  printf("set4dex NULL desc: %d", s);
  end_line();
  s = cudnnSetTensorNdDescriptor(NULL, CUDNN_DATA_FLOAT, 4, dims, strides);
  printf("setnd NULL desc: %d", s);
  end_line();
  s = cudnnSetTensorNdDescriptorEx(NULL, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 4, dims);
  printf("setndex NULL desc: %d", s);
  end_line();
  s = cudnnCreateTensorDescriptor(NULL);
  printf("create NULL: %d", s);
  end_line();
  s = cudnnDestroyTensorDescriptor(NULL);
  printf("destroy NULL: %d", s);
  end_line();
  s = cudnnDestroyTensorDescriptor(d);
  printf("destroy: %d", s);
  end_line();
}

/* ------------------------------------------------------- derived tensors */

static void derive_bn(int format, int dtype, int nb, const int *dims, int mode) {
  cudnnTensorDescriptor_t x = new_tensor(), d = used_tensor();
  int sx = format >= 0 ? cudnnSetTensorNdDescriptorEx(x, (cudnnTensorFormat_t)format, (cudnnDataType_t)dtype, nb, dims)
                       : CUDNN_STATUS_SUCCESS;
  int s = cudnnDeriveBNTensorDescriptor(d, x, (cudnnBatchNormMode_t)mode);
  printf("derive bn f%d t%d nb%d mode %d: %d %d", format, dtype, nb, mode, sx, s);
  show_tensor(d);
  end_line();
  note_error(s);
  cudnnDestroyTensorDescriptor(x);
  cudnnDestroyTensorDescriptor(d);
}

static void derive_norm(int dtype, int nb, const int *dims, int mode, int groups) {
  cudnnTensorDescriptor_t x = new_tensor(), a = used_tensor(), b = used_tensor();
  int sx = cudnnSetTensorNdDescriptorEx(x, CUDNN_TENSOR_NCHW, (cudnnDataType_t)dtype, nb, dims);
  int s = cudnnDeriveNormTensorDescriptor(a, b, x, (cudnnNormMode_t)mode, groups);
  printf("derive norm t%d nb%d mode %d groups %d: %d %d", dtype, nb, mode, groups, sx, s);
  show_tensor(a);
  printf(" ||");
  show_tensor(b);
  end_line();
  note_error(s);
  cudnnDestroyTensorDescriptor(x);
  cudnnDestroyTensorDescriptor(a);
  cudnnDestroyTensorDescriptor(b);
}

static void derived_tensors(void) {
  static const int dims[8] = {2, 8, 3, 5, 7, 2, 2, 2}, dims32[4] = {2, 32, 3, 5};
  int t, mode, nb, f, g;
  cudnnTensorDescriptor_t x, d;
  int s;

  printf("# cudnnDeriveBNTensorDescriptor\n");
  for (t = 0; t <= 9; ++t)
    for (mode = -1; mode <= 3; ++mode) derive_bn(CUDNN_TENSOR_NCHW, t, 4, dims, mode);
  for (f = 0; f <= 2; ++f)
    for (t = 0; t <= 9; ++t)
      for (mode = 0; mode <= 2; ++mode) derive_bn(f, t, 4, t == CUDNN_DATA_INT8x32 ? dims32 : dims, mode);
  for (nb = 2; nb <= 8; ++nb)
    for (mode = 0; mode <= 2; ++mode) {
      derive_bn(CUDNN_TENSOR_NCHW, CUDNN_DATA_HALF, nb, dims, mode);
      derive_bn(CUDNN_TENSOR_NHWC, CUDNN_DATA_DOUBLE, nb == 2 ? 3 : nb, dims, mode);
    }
  derive_bn(-1, CUDNN_DATA_FLOAT, 4, dims, 1); /* x never set */

  x = new_tensor();
  d = used_tensor();
  cudnnSetTensor4dDescriptorEx(x, CUDNN_DATA_FLOAT, 2, 8, 3, 5, 1000, 100, 10, 2);
  s = cudnnDeriveBNTensorDescriptor(d, x, CUDNN_BATCHNORM_PER_ACTIVATION);
  printf("derive bn strided x: %d", s);
  show_tensor(d);
  end_line();
  s = cudnnDeriveBNTensorDescriptor(x, x, CUDNN_BATCHNORM_SPATIAL);
  printf("derive bn in place: %d", s);
  show_tensor(x);
  end_line();
  s = cudnnDeriveBNTensorDescriptor(NULL, x, CUDNN_BATCHNORM_SPATIAL);
  printf("derive bn NULL derived: %d", s);
  end_line();
  s = cudnnSetTensor4dDescriptorEx(x, CUDNN_DATA_FLOAT, 2, 3, 4, 5, 60, 0, 5, 1); /* fails half-way */
  s = cudnnDeriveBNTensorDescriptor(d, x, CUDNN_BATCHNORM_SPATIAL);
  printf("derive bn from half-set x: %d", s);
  show_tensor(d);
  end_line();
  s = cudnnSetTensor4dDescriptor(x, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 65536, 65536, 1);
  s = cudnnDeriveBNTensorDescriptor(d, x, CUDNN_BATCHNORM_PER_ACTIVATION);
  printf("derive bn too large: %d", s);
  show_tensor(d);
  end_line();
  cudnnDestroyTensorDescriptor(x);
  cudnnDestroyTensorDescriptor(d);

  printf("# cudnnDeriveNormTensorDescriptor\n");
  for (t = 0; t <= 9; ++t)
    for (mode = -1; mode <= 2; ++mode)
      for (g = 0; g <= 2; ++g) derive_norm(t, 4, dims, mode, g);
  for (nb = 2; nb <= 8; ++nb)
    for (mode = 0; mode <= 1; ++mode) derive_norm(CUDNN_DATA_HALF, nb, dims, mode, 1);
  derive_norm(CUDNN_DATA_FLOAT, 4, dims, 1, -1);
  derive_norm(CUDNN_DATA_FLOAT, 4, dims, 1, 8);
  derive_norm(CUDNN_DATA_FLOAT, 4, dims, 5, 8);
  {
    cudnnTensorDescriptor_t a = used_tensor(), b = used_tensor();
    x = new_tensor();
    cudnnSetTensor4dDescriptor(x, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 2, 8, 3, 5);
    s = cudnnDeriveNormTensorDescriptor(NULL, b, x, CUDNN_NORM_PER_CHANNEL, 1);
    printf("derive norm NULL scale/bias: %d", s);
    show_tensor(b);
    end_line();
    s = cudnnDeriveNormTensorDescriptor(a, NULL, x, CUDNN_NORM_PER_CHANNEL, 1);
    printf("derive norm NULL mean/var: %d", s);
    show_tensor(a);
    end_line();
    s = cudnnDeriveNormTensorDescriptor(a, b, NULL, CUDNN_NORM_PER_CHANNEL, 2);
    printf("derive norm NULL x groups 2: %d", s);
    end_line();
    s = cudnnDeriveNormTensorDescriptor(a, b, NULL, (cudnnNormMode_t)5, 1);
    printf("derive norm NULL x bad mode: %d", s);
    end_line();
    s = cudnnDeriveNormTensorDescriptor(x, x, x, CUDNN_NORM_PER_ACTIVATION, 1);
    printf("derive norm in place: %d", s);
    show_tensor(x);
    end_line();
    cudnnDestroyTensorDescriptor(a);
    cudnnDestroyTensorDescriptor(b);
    cudnnDestroyTensorDescriptor(x);
  }
}

/* ---------------------------------------------------------------- filters */

static cudnnFilterDescriptor_t new_filter(void) {
  cudnnFilterDescriptor_t d = NULL;
  if (cudnnCreateFilterDescriptor(&d) != CUDNN_STATUS_SUCCESS) printf("create failed\n");
  return d;
}

static cudnnFilterDescriptor_t used_filter(void) {
  static const int dims[8] = {9, 9, 9, 9, 9, 9, 9, 9};
  cudnnFilterDescriptor_t d = new_filter();
  if (cudnnSetFilterNdDescriptor(d, CUDNN_DATA_HALF, CUDNN_TENSOR_NHWC, 8, dims) != CUDNN_STATUS_SUCCESS)
    printf("prep failed\n");
  return d;
}

static void show_filter_nd(cudnnFilterDescriptor_t d, int requested) {
  cudnnDataType_t t = (cudnnDataType_t)S;
  cudnnTensorFormat_t f = (cudnnTensorFormat_t)S;
  int nb = S, dims[16], i, s;
  for (i = 0; i < 16; ++i) dims[i] = S;
  s = cudnnGetFilterNdDescriptor(d, requested, &t, &f, &nb, dims);
  printf(" | fnd(%d) %d t%d f%d nb%d", requested, s, (int)t, (int)f, nb);
  for (i = 0; i < 8; ++i) printf(" %d", dims[i]);
}

static void show_filter(cudnnFilterDescriptor_t d) {
  cudnnDataType_t t = (cudnnDataType_t)S;
  cudnnTensorFormat_t f = (cudnnTensorFormat_t)S;
  int v[4] = {S, S, S, S};
  size_t z = 777;
  int s = cudnnGetFilter4dDescriptor(d, &t, &f, v, v + 1, v + 2, v + 3);
  printf(" | f4 %d t%d f%d %d %d %d %d", s, (int)t, (int)f, v[0], v[1], v[2], v[3]);
  show_filter_nd(d, 8);
  s = cudnnGetFilterSizeInBytes(d, &z);
  printf(" | sz %d %lu", s, (unsigned long)z);
}

static void f4(int used, int dtype, int format, int k, int c, int h, int w) {
  cudnnFilterDescriptor_t d = used ? used_filter() : new_filter();
  int s = cudnnSetFilter4dDescriptor(d, (cudnnDataType_t)dtype, (cudnnTensorFormat_t)format, k, c, h, w);
  printf("setf4d%s t%d f%d %d %d %d %d: %d", used ? " used" : "", dtype, format, k, c, h, w, s);
  show_filter(d);
  end_line();
  note_error(s);
  cudnnDestroyFilterDescriptor(d);
}

static void fnd(int used, int dtype, int format, int nb, const int *dims) {
  cudnnFilterDescriptor_t d = used ? used_filter() : new_filter();
  int s = cudnnSetFilterNdDescriptor(d, (cudnnDataType_t)dtype, (cudnnTensorFormat_t)format, nb, dims);
  int i;
  printf("setfnd%s t%d f%d nb%d", used ? " used" : "", dtype, format, nb);
  for (i = 0; i < nb && i < 8; ++i) printf(" %d", dims[i]);
  printf(": %d", s);
  show_filter(d);
  end_line();
  note_error(s);
  cudnnDestroyFilterDescriptor(d);
}

static void filters(void) {
  static const int shapes[][4] = {{8, 8, 3, 5},  {2, 0, 3, 5}, {0, 8, 3, 5},  {2, 8, -3, 5}, {2, 8, 3, 0},
                                  {2, 6, 3, 5},  {2, 4, 3, 5}, {2, 32, 3, 5}, {2, 16, 3, 5}, {3, 4, 3, 5},
                                  {4, 2, 3, 5},  {4, -4, 3, 5}, {4, 64, 3, 5}, {65536, 65536, 1, 1},
                                  {46341, 46341, 1, 1}, {1, 1, 1, 2147483647}, {65536, 65536, 2, 1}};
  static const int dims[10] = {4, 8, 3, 5, 2, 2, 2, 2, 2, 2};
  int t, f, i, nb, used, req, s;

  printf("# cudnnSetFilter4dDescriptor: every type and format\n");
  for (t = -1; t <= 22; ++t)
    for (f = -1; f <= 3; ++f) f4(1, t, f, 8, 8, 3, 5);
  printf("# cudnnSetFilter4dDescriptor: shapes\n");
  for (used = 0; used <= 1; ++used)
    for (i = 0; i < (int)(sizeof shapes / sizeof shapes[0]); ++i)
      for (f = 0; f <= 2; ++f) {
        static const int types[] = {CUDNN_DATA_FLOAT, CUDNN_DATA_INT8x4, CUDNN_DATA_UINT8x4, CUDNN_DATA_INT8x32};
        for (t = 0; t < 4; ++t) f4(used, types[t], f, shapes[i][0], shapes[i][1], shapes[i][2], shapes[i][3]);
      }

  printf("# cudnnSetFilterNdDescriptor\n");
  for (nb = -1; nb <= 10; ++nb)
    for (f = -1; f <= 3; ++f)
      for (t = -1; t <= 11; ++t) {
        if ((t == -1 || t == 11 || t == 4) && f != 0) continue;
        if (t != 0 && t != 5 && t != 8 && t != 9 && t != -1 && t != 11 && t != 4 && nb != 4) continue;
        fnd(1, t, f, nb, dims);
      }
  {
    static const int bad[][5] = {{4, 8, 3, 5, 2}, {4, 6, 3, 5, 2}, {4, 8, 0, 5, 2}, {4, 0, 3, 5, 2},
                                 {4, -4, 3, 5, 2}, {0, 8, 3, 5, 2}, {4, 64, 3, 5, 2}, {4, 40, 3, 5, 2},
                                 {4, 5, 3, 5, 2}, {4, 8, 3, 5, -2}};
    for (used = 0; used <= 1; ++used)
      for (i = 0; i < (int)(sizeof bad / sizeof bad[0]); ++i)
        for (f = 0; f <= 2; ++f) {
          fnd(used, CUDNN_DATA_INT8x4, f, 5, bad[i]);
          fnd(used, CUDNN_DATA_INT8x32, f, 5, bad[i]);
          fnd(used, CUDNN_DATA_UINT8x4, f, 5, bad[i]);
          fnd(used, CUDNN_DATA_FLOAT, f, 5, bad[i]);
        }
  }

  printf("# cudnnGetFilterNdDescriptor with every nbDimsRequested\n");
  {
    cudnnFilterDescriptor_t d = new_filter();
    printf("fresh filter:");
    show_filter(d);
    end_line();
    for (nb = 3; nb <= 8; ++nb) {
      s = cudnnSetFilterNdDescriptor(d, CUDNN_DATA_BFLOAT16, CUDNN_TENSOR_NCHW, nb, dims);
      printf("filter rank %d: %d", nb, s);
      show_filter(d);
      end_line();
      for (req = -1; req <= 9; ++req) {
        printf("filter rank %d", nb);
        show_filter_nd(d, req);
        end_line();
      }
    }
    s = cudnnSetFilter4dDescriptor(d, CUDNN_DATA_INT8x32, CUDNN_TENSOR_NCHW_VECT_C, 4, 64, 3, 5);
    /* From 2: with 1, cuDNN writes filterDimA[1] anyway (past the request). */
    for (req = 2; req <= 8; ++req) {
      printf("filter vect x32 %d", s);
      show_filter_nd(d, req);
      end_line();
    }
    {
      cudnnDataType_t t2 = (cudnnDataType_t)S;
      cudnnTensorFormat_t f2 = (cudnnTensorFormat_t)S;
      int nb2 = S, big[100];
      for (i = 0; i < 100; ++i) big[i] = S;
      s = cudnnGetFilterNdDescriptor(d, 100, &t2, &f2, &nb2, big);
      printf("fnd 100: %d t%d f%d nb%d %d", s, (int)t2, (int)f2, nb2, big[0]);
      end_line();
      s = cudnnGetFilterNdDescriptor(d, 0, &t2, &f2, &nb2, NULL);
      printf("fnd 0 NULL dims: %d t%d f%d nb%d", s, (int)t2, (int)f2, nb2);
      end_line();
      s = cudnnGetFilterNdDescriptor(NULL, 4, &t2, &f2, &nb2, big);
      printf("fnd NULL desc: %d", s);
      end_line();
      s = cudnnGetFilter4dDescriptor(NULL, &t2, &f2, big, big + 1, big + 2, big + 3);
      printf("f4 NULL desc: %d", s);
      end_line();
      {
        size_t z = 777;
        s = cudnnGetFilterSizeInBytes(NULL, &z);
      }
      printf("fsize NULL desc: %d", s);
      end_line();
      s = cudnnSetFilter4dDescriptor(NULL, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 1, 1, 1, 1);
      printf("setf4d NULL desc: %d", s);
      end_line();
      s = cudnnSetFilterNdDescriptor(NULL, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 4, dims);
      printf("setfnd NULL desc: %d", s);
      end_line();
      s = cudnnSetFilterNdDescriptor(d, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 9, NULL);
      printf("setfnd rank 9 NULL dims: %d", s);
      end_line();
      s = cudnnCreateFilterDescriptor(NULL);
      printf("create filter NULL: %d", s);
      end_line();
      s = cudnnDestroyFilterDescriptor(NULL);
      printf("destroy filter NULL: %d", s);
      end_line();
    }
    cudnnDestroyFilterDescriptor(d);
  }
}

/* --------------------------------------------------- op and reduce tensors */

static void op_tensor(void) {
  cudnnOpTensorDescriptor_t d = NULL;
  int op, t, nan, s;
  cudnnOpTensorOp_t o;
  cudnnDataType_t ct;
  cudnnNanPropagation_t np;

  printf("# op-tensor descriptors\n");
  s = cudnnCreateOpTensorDescriptor(NULL);
  printf("create op NULL: %d", s);
  end_line();
  s = cudnnDestroyOpTensorDescriptor(NULL);
  printf("destroy op NULL: %d", s);
  end_line();
  cudnnCreateOpTensorDescriptor(&d);
  for (op = -1; op <= 7; ++op)
    for (t = -1; t <= 22; ++t)
      for (nan = -1; nan <= 2; ++nan) {
        if (nan != 0 && t != 0 && t != 2 && t != 9) continue;
        /* Start from a known value each time; a rejected Set must leave it. */
        cudnnSetOpTensorDescriptor(d, CUDNN_OP_TENSOR_MAX, CUDNN_DATA_DOUBLE, CUDNN_PROPAGATE_NAN);
        s = cudnnSetOpTensorDescriptor(d, (cudnnOpTensorOp_t)op, (cudnnDataType_t)t, (cudnnNanPropagation_t)nan);
        o = (cudnnOpTensorOp_t)S;
        ct = (cudnnDataType_t)S;
        np = (cudnnNanPropagation_t)S;
        printf("set op %d t%d nan %d: %d", op, t, nan, s);
        s = cudnnGetOpTensorDescriptor(d, &o, &ct, &np);
        printf(" | get %d %d %d %d", s, (int)o, (int)ct, (int)np);
        end_line();
      }
  s = cudnnSetOpTensorDescriptor(NULL, CUDNN_OP_TENSOR_ADD, CUDNN_DATA_FLOAT, CUDNN_NOT_PROPAGATE_NAN);
  printf("set op NULL: %d", s);
  end_line();
  s = cudnnGetOpTensorDescriptor(NULL, &o, &ct, &np);
  printf("get op NULL: %d", s);
  end_line();
  s = cudnnDestroyOpTensorDescriptor(d);
  printf("destroy op: %d", s);
  end_line();
}

static void reduce_tensor(void) {
  cudnnReduceTensorDescriptor_t d = NULL;
  int op, t, nan, ix, it, s, changed;
  cudnnReduceTensorOp_t o;
  cudnnDataType_t ct;
  cudnnNanPropagation_t np;
  cudnnReduceTensorIndices_t ri;
  cudnnIndicesType_t rt;

  printf("# reduce-tensor descriptors\n");
  s = cudnnCreateReduceTensorDescriptor(NULL);
  printf("create reduce NULL: %d", s);
  end_line();
  s = cudnnDestroyReduceTensorDescriptor(NULL);
  printf("destroy reduce NULL: %d", s);
  end_line();
  cudnnCreateReduceTensorDescriptor(&d);
  for (op = -1; op <= 10; ++op)
    for (t = -1; t <= 22; ++t)
      for (nan = -1; nan <= 2; ++nan)
        for (ix = -1; ix <= 2; ++ix)
          for (it = -1; it <= 4; ++it) {
            changed = (op != 3) + (t != 1) + (nan != 1) + (ix != 1) + (it != 1);
            /* Every value of one parameter at a time, and all valid combinations of op/type/indices. */
            if (changed > 1 && !(op >= 0 && op <= 8 && t >= 0 && t <= 2 && nan >= 0 && nan <= 1 && ix >= 0 &&
                                 ix <= 1 && it >= 0 && it <= 3 && (nan == 1 || it == 1)))
              continue;
            cudnnSetReduceTensorDescriptor(d, CUDNN_REDUCE_TENSOR_MAX, CUDNN_DATA_DOUBLE, CUDNN_PROPAGATE_NAN,
                                           CUDNN_REDUCE_TENSOR_FLATTENED_INDICES, CUDNN_64BIT_INDICES);
            s = cudnnSetReduceTensorDescriptor(d, (cudnnReduceTensorOp_t)op, (cudnnDataType_t)t,
                                               (cudnnNanPropagation_t)nan, (cudnnReduceTensorIndices_t)ix,
                                               (cudnnIndicesType_t)it);
            printf("set reduce %d t%d nan %d ind %d %d: %d", op, t, nan, ix, it, s);
            o = (cudnnReduceTensorOp_t)S;
            ct = (cudnnDataType_t)S;
            np = (cudnnNanPropagation_t)S;
            ri = (cudnnReduceTensorIndices_t)S;
            rt = (cudnnIndicesType_t)S;
            s = cudnnGetReduceTensorDescriptor(d, &o, &ct, &np, &ri, &rt);
            printf(" | get %d %d %d %d %d %d", s, (int)o, (int)ct, (int)np, (int)ri, (int)rt);
            end_line();
          }
  s = cudnnSetReduceTensorDescriptor(NULL, CUDNN_REDUCE_TENSOR_ADD, CUDNN_DATA_FLOAT, CUDNN_NOT_PROPAGATE_NAN,
                                     CUDNN_REDUCE_TENSOR_NO_INDICES, CUDNN_32BIT_INDICES);
  printf("set reduce NULL: %d", s);
  end_line();
  s = cudnnGetReduceTensorDescriptor(NULL, &o, &ct, &np, &ri, &rt);
  printf("get reduce NULL: %d", s);
  end_line();
  s = cudnnDestroyReduceTensorDescriptor(d);
  printf("destroy reduce: %d", s);
  end_line();
}

/* ------------------------------------------------------ tensor transforms */

static void show_transform(cudnnTensorTransformDescriptor_t d, unsigned requested, int with_arrays) {
  cudnnTensorFormat_t f = (cudnnTensorFormat_t)S;
  cudnnFoldingDirection_t dir = (cudnnFoldingDirection_t)S;
  int32_t pb[8], pa[8];
  uint32_t fold[8];
  int i, s;
  for (i = 0; i < 8; ++i) {
    pb[i] = pa[i] = S;
    fold[i] = 77;
  }
  s = cudnnGetTensorTransformDescriptor(d, requested, &f, with_arrays ? pb : NULL, with_arrays ? pa : NULL,
                                        with_arrays ? fold : NULL, &dir);
  printf(" | get(%u) %d f%d dir%d", requested, s, (int)f, (int)dir);
  for (i = 0; i < 8; ++i) printf(" %d/%d/%u", pb[i], pa[i], fold[i]);
}

static cudnnTensorTransformDescriptor_t used_transform(void) {
  static const int32_t pads[8] = {9, 9, 9, 9, 9, 9, 9, 9};
  static const uint32_t folds[8] = {7, 7, 7, 7, 7, 7, 7, 7};
  cudnnTensorTransformDescriptor_t d = NULL;
  cudnnCreateTensorTransformDescriptor(&d);
  if (cudnnSetTensorTransformDescriptor(d, 8, CUDNN_TENSOR_NHWC, pads, pads, folds, CUDNN_TRANSFORM_UNFOLD) != 0)
    printf("prep failed\n");
  return d;
}

static void transforms(void) {
  static const int32_t pb[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9}, pa[9] = {0, 1, 0, 2, 0, 3, 0, 4, 0},
                       neg[9] = {-1, 0, -3, 0, 0, 0, 0, 0, 0};
  static const uint32_t fold[9] = {1, 2, 1, 3, 1, 1, 1, 1, 1}, zero[9] = {0};
  cudnnTensorTransformDescriptor_t d;
  int nb, f, dir, s;
  unsigned req;

  printf("# tensor-transform descriptors\n");
  s = cudnnCreateTensorTransformDescriptor(NULL);
  printf("create transform NULL: %d", s);
  end_line();
  s = cudnnDestroyTensorTransformDescriptor(NULL);
  printf("destroy transform NULL: %d", s);
  end_line();
  cudnnCreateTensorTransformDescriptor(&d);
  printf("fresh transform:");
  show_transform(d, 8, 1);
  end_line();
  cudnnDestroyTensorTransformDescriptor(d);

  for (nb = -1; nb <= 10; ++nb)
    for (f = -5; f <= 100; ++f)
      for (dir = -1; dir <= 7; ++dir) {
        if (f > 4 && f != 100) continue;
        if ((f != 0 || dir != 0) && nb != 4 && nb != 0 && nb != 9) continue;
        if (dir > 2 && dir != 7) continue;
        d = used_transform();
        s = cudnnSetTensorTransformDescriptor(d, (uint32_t)nb, (cudnnTensorFormat_t)f, pb, pa, fold,
                                              (cudnnFoldingDirection_t)dir);
        printf("set transform nb%d f%d dir%d: %d", nb, f, dir, s);
        show_transform(d, 8, 1);
        end_line();
        note_error(s);
        cudnnDestroyTensorTransformDescriptor(d);
      }

#define TR(label, call)                 \
  d = used_transform();                 \
  s = (call);                           \
  printf("set transform %s: %d", label, s); \
  show_transform(d, 8, 1);              \
  end_line();                           \
  cudnnDestroyTensorTransformDescriptor(d)

  TR("negative pads", cudnnSetTensorTransformDescriptor(d, 4, CUDNN_TENSOR_NCHW, neg, neg, fold, CUDNN_TRANSFORM_FOLD));
  TR("zero folds", cudnnSetTensorTransformDescriptor(d, 4, CUDNN_TENSOR_NCHW, pb, pa, zero, CUDNN_TRANSFORM_FOLD));
  TR("NULL padBefore", cudnnSetTensorTransformDescriptor(d, 4, CUDNN_TENSOR_NCHW, NULL, pa, fold, CUDNN_TRANSFORM_FOLD));
  TR("NULL padAfter", cudnnSetTensorTransformDescriptor(d, 4, CUDNN_TENSOR_NCHW, pb, NULL, fold, CUDNN_TRANSFORM_FOLD));
  TR("NULL fold", cudnnSetTensorTransformDescriptor(d, 4, CUDNN_TENSOR_NCHW, pb, pa, NULL, CUDNN_TRANSFORM_FOLD));
  TR("NULL arrays", cudnnSetTensorTransformDescriptor(d, 5, CUDNN_TENSOR_NCHW, NULL, NULL, NULL, CUDNN_TRANSFORM_FOLD));
  TR("uint max", cudnnSetTensorTransformDescriptor(d, 0xffffffffu, CUDNN_TENSOR_NCHW, pb, pa, fold, CUDNN_TRANSFORM_FOLD));
#undef TR
  s = cudnnSetTensorTransformDescriptor(NULL, 4, CUDNN_TENSOR_NCHW, pb, pa, fold, CUDNN_TRANSFORM_FOLD);
  printf("set transform NULL desc: %d", s);
  end_line();

  printf("# cudnnGetTensorTransformDescriptor with every nbDimsRequested\n");
  for (nb = 2; nb <= 8; ++nb) {
    d = used_transform();
    s = cudnnSetTensorTransformDescriptor(d, (uint32_t)nb, CUDNN_TENSOR_NCHW_VECT_C, pb, pa, fold,
                                          CUDNN_TRANSFORM_UNFOLD);
    for (req = 0; req <= 10; ++req) {
      printf("transform rank %d: %d", nb, s);
      show_transform(d, req <= 8 ? req : 8 + (req - 8) * 1000, 1);
      end_line();
    }
    printf("transform rank %d without arrays:", nb);
    show_transform(d, 4, 0);
    end_line();
    cudnnDestroyTensorTransformDescriptor(d);
  }
  {
    cudnnTensorFormat_t fmt = (cudnnTensorFormat_t)S;
    cudnnFoldingDirection_t dr = (cudnnFoldingDirection_t)S;
    d = used_transform();
    s = cudnnGetTensorTransformDescriptor(d, 4, NULL, NULL, NULL, NULL, &dr);
    printf("get transform only direction: %d dir%d", s, (int)dr);
    end_line();
    s = cudnnGetTensorTransformDescriptor(NULL, 4, &fmt, NULL, NULL, NULL, &dr);
    printf("get transform NULL desc: %d", s);
    end_line();
    s = cudnnDestroyTensorTransformDescriptor(d);
    printf("destroy transform: %d", s);
    end_line();
  }
}

/* ------------------------------------------------------- random sequences */

/* A fixed pseudo-random sequence of calls on a few descriptors, with values
 * drawn mostly from the valid range: finds rule interactions the tables
 * above do not list. Deterministic (own generator), so both builds see the
 * same calls. */
#ifndef RANDOM_STEPS
#define RANDOM_STEPS 1500
#endif
#ifndef RANDOM_SEED
#define RANDOM_SEED 12345
#endif
static unsigned long g_rng = RANDOM_SEED;

static int rnd(int n) {
  g_rng = g_rng * 1103515245ul + 12345ul;
  return (int)((g_rng >> 16) % (unsigned long)n);
}

static int pick(const int *values, int count) { return values[rnd(count)]; }

static void random_sequences(void) {
  static const int dtypes[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 2, 5, 8, 10, 11, 12, -1};
  static const int formats[] = {0, 1, 2, 0, 1, 2, 3};
  static const int extents[] = {1, 2, 3, 4, 8, 32, 64, 5, 7, 0, -1, 12, 6};
  static const int strides_pool[] = {1, 2, 3, 4, 8, 16, 60, 0, -1, -5, 1000};
  cudnnTensorDescriptor_t t[3];
  cudnnFilterDescriptor_t f[2];
  int step, i, s;

  printf("# random sequences\n");
  for (i = 0; i < 3; ++i) t[i] = new_tensor();
  for (i = 0; i < 2; ++i) f[i] = new_filter();
  for (step = 0; step < RANDOM_STEPS; ++step) {
    int which = rnd(8);
    int fmt = pick(formats, 7), dt = pick(dtypes, 18);
    int nb = 2 + rnd(8); /* 2..9 */
    int dims[9], strides[9];
    for (i = 0; i < 9; ++i) {
      dims[i] = rnd(4) ? pick(extents, 9) : pick(extents, 13);
      strides[i] = pick(strides_pool, rnd(5) ? 7 : 11);
    }
    if (which <= 5) {
      cudnnTensorDescriptor_t d = t[rnd(3)];
      switch (which) {
        case 0:
          s = cudnnSetTensor4dDescriptor(d, (cudnnTensorFormat_t)fmt, (cudnnDataType_t)dt, dims[0], dims[1], dims[2],
                                         dims[3]);
          printf("r%d set4d f%d t%d %d %d %d %d: %d", step, fmt, dt, dims[0], dims[1], dims[2], dims[3], s);
          break;
        case 1:
          s = cudnnSetTensor4dDescriptorEx(d, (cudnnDataType_t)dt, dims[0], dims[1], dims[2], dims[3], strides[0],
                                           strides[1], strides[2], strides[3]);
          printf("r%d set4dex t%d %d %d %d %d / %d %d %d %d: %d", step, dt, dims[0], dims[1], dims[2], dims[3],
                 strides[0], strides[1], strides[2], strides[3], s);
          break;
        case 2:
          s = cudnnSetTensorNdDescriptor(d, (cudnnDataType_t)dt, nb, dims, strides);
          printf("r%d setnd t%d nb%d", step, dt, nb);
          for (i = 0; i < nb; ++i) printf(" %d/%d", dims[i], strides[i]);
          printf(": %d", s);
          break;
        case 3:
          if (fmt == CUDNN_TENSOR_NHWC && nb == 2) nb = 3; /* cuDNN reads garbage for rank 2 NHWC */
          s = cudnnSetTensorNdDescriptorEx(d, (cudnnTensorFormat_t)fmt, (cudnnDataType_t)dt, nb, dims);
          printf("r%d setndex f%d t%d nb%d", step, fmt, dt, nb);
          for (i = 0; i < nb; ++i) printf(" %d", dims[i]);
          printf(": %d", s);
          break;
        case 4: {
          int mode = rnd(4);
          s = cudnnDeriveBNTensorDescriptor(d, t[rnd(3)], (cudnnBatchNormMode_t)mode);
          printf("r%d derive bn mode %d: %d", step, mode, s);
          break;
        }
        default: {
          int mode = rnd(3), groups = rnd(6) ? 1 : 2;
          cudnnTensorDescriptor_t other = t[rnd(3)];
          s = cudnnDeriveNormTensorDescriptor(d, other, t[rnd(3)], (cudnnNormMode_t)mode, groups);
          printf("r%d derive norm mode %d groups %d: %d", step, mode, groups, s);
          show_tensor(other);
          break;
        }
      }
      show_tensor(d);
      end_line();
    } else {
      cudnnFilterDescriptor_t d = f[rnd(2)];
      if (which == 6) {
        s = cudnnSetFilter4dDescriptor(d, (cudnnDataType_t)dt, (cudnnTensorFormat_t)fmt, dims[0], dims[1], dims[2],
                                       dims[3]);
        printf("r%d setf4d t%d f%d %d %d %d %d: %d", step, dt, fmt, dims[0], dims[1], dims[2], dims[3], s);
      } else {
        s = cudnnSetFilterNdDescriptor(d, (cudnnDataType_t)dt, (cudnnTensorFormat_t)fmt, nb, dims);
        printf("r%d setfnd t%d f%d nb%d", step, dt, fmt, nb);
        for (i = 0; i < nb; ++i) printf(" %d", dims[i]);
        printf(": %d", s);
      }
      show_filter(d);
      end_line();
    }
  }
  for (i = 0; i < 3; ++i) cudnnDestroyTensorDescriptor(t[i]);
  for (i = 0; i < 2; ++i) cudnnDestroyFilterDescriptor(f[i]);
}

int main(void) {
  /* Tensor, filter and op descriptors work without a handle (and without a GPU). */
  tensor_sets();
  tensor_sequences();
  tensor_gets();
  derived_tensors();
  filters();
  op_tensor();
  reduce_tensor();
  transforms();
  random_sequences();
  printf("# %d lines\n", g_lines);
  return 0;
}
