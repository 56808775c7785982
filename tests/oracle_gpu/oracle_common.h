/* Helpers shared by the GPU differential programs in tests/oracle_gpu/.
 *
 * Each program is compiled twice: against FreeDNN's headers and library, and
 * against NVIDIA's cuDNN. Both builds run the same calls on the same inputs
 * (a fixed-seed generator, never zeros) and print one line per result:
 *
 *     <name> tol=<t> st=<status> <key>=<number> ...
 *
 * tests/oracle_gpu/compare.py compares the two outputs token by token:
 * words exactly, numbers within the line's relative tolerance `tol`.
 * Lines starting with '#' are information only (timings, messages).
 */
#ifndef FREEDNN_ORACLE_COMMON_H
#define FREEDNN_ORACLE_COMMON_H

#include <cudnn.h>
#include <cuda_runtime_api.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CUDA_OK(call)                                                                    \
  do {                                                                                   \
    cudaError_t e_ = (call);                                                             \
    if (e_ != cudaSuccess) {                                                             \
      fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,               \
              cudaGetErrorString(e_));                                                   \
      exit(2);                                                                           \
    }                                                                                    \
  } while (0)

#define DNN_OK(call)                                                                     \
  do {                                                                                   \
    cudnnStatus_t s_ = (call);                                                           \
    if (s_ != CUDNN_STATUS_SUCCESS) {                                                    \
      fprintf(stderr, "%s:%d: %s returned %d (%s)\n", __FILE__, __LINE__, #call,         \
              (int)s_, cudnnGetErrorString(s_));                                         \
      exit(3);                                                                           \
    }                                                                                    \
  } while (0)

/* ---- deterministic generator (splitmix64) ---- */
static uint64_t oracle_rng_state = 0x1234567887654321ull;
static void oracle_seed(uint64_t s) { oracle_rng_state = s; }
static uint64_t oracle_next(void) {
  uint64_t z = (oracle_rng_state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
static double oracle_uniform(void) { return (double)(oracle_next() >> 11) * (1.0 / 9007199254740992.0); }
/* Non-zero value: random sign, magnitude in [lo, hi). */
static double oracle_nonzero(double lo, double hi) {
  double m = lo + (hi - lo) * oracle_uniform();
  return (oracle_next() & 1) ? m : -m;
}

/* ---- scalar conversions (host side, round to nearest even) ---- */
static uint16_t oracle_f2h(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000u, e = (x >> 23) & 0xffu, mant = x & 0x7fffffu;
  if (e == 0xff) return (uint16_t)(sign | 0x7c00u | (mant ? 0x200u : 0));
  int exp = (int)e - 127 + 15;
  if (exp >= 31) return (uint16_t)(sign | 0x7c00u);
  if (exp <= 0) {
    if (exp < -10) return (uint16_t)sign;
    mant |= 0x800000u;
    int shift = 14 - exp;
    uint32_t h = mant >> shift, rem = mant & ((1u << shift) - 1), half = 1u << (shift - 1);
    if (rem > half || (rem == half && (h & 1))) h++;
    return (uint16_t)(sign | h);
  }
  uint32_t h = ((uint32_t)exp << 10) | (mant >> 13), rem = mant & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1))) h++;
  return (uint16_t)(sign | h);
}
static float oracle_h2f(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, mant = h & 0x3ffu, x;
  if (e == 0) {
    if (mant == 0) {
      x = sign;
    } else {
      int shift = 0;
      while (!(mant & 0x400u)) { mant <<= 1; ++shift; }
      mant &= 0x3ffu;
      x = sign | ((uint32_t)(127 - 15 + 1 - shift) << 23) | (mant << 13);
    }
  } else if (e == 31) {
    x = sign | 0x7f800000u | (mant << 13);
  } else {
    x = sign | ((e - 15 + 127) << 23) | (mant << 13);
  }
  float f;
  memcpy(&f, &x, 4);
  return f;
}
static uint16_t oracle_f2bf(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  if ((x & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((x >> 16) | 0x40u);
  x += 0x7fffu + ((x >> 16) & 1u);
  return (uint16_t)(x >> 16);
}
static float oracle_bf2f(uint16_t b) {
  uint32_t x = (uint32_t)b << 16;
  float f;
  memcpy(&f, &x, 4);
  return f;
}

static size_t oracle_type_size(cudnnDataType_t t) {
  switch (t) {
    case CUDNN_DATA_DOUBLE:
    case CUDNN_DATA_INT64: return 8;
    case CUDNN_DATA_HALF:
    case CUDNN_DATA_BFLOAT16: return 2;
    case CUDNN_DATA_INT8:
    case CUDNN_DATA_UINT8: return 1;
    default: return 4;
  }
}
static const char *oracle_type_name(cudnnDataType_t t) {
  switch (t) {
    case CUDNN_DATA_FLOAT: return "f32";
    case CUDNN_DATA_DOUBLE: return "f64";
    case CUDNN_DATA_HALF: return "f16";
    case CUDNN_DATA_BFLOAT16: return "bf16";
    case CUDNN_DATA_INT8: return "s8";
    case CUDNN_DATA_UINT8: return "u8";
    case CUDNN_DATA_INT32: return "s32";
    case CUDNN_DATA_INT64: return "s64";
    default: return "other";
  }
}
static void oracle_store(cudnnDataType_t t, void *base, size_t i, double v) {
  switch (t) {
    case CUDNN_DATA_FLOAT: ((float *)base)[i] = (float)v; break;
    case CUDNN_DATA_DOUBLE: ((double *)base)[i] = v; break;
    case CUDNN_DATA_HALF: ((uint16_t *)base)[i] = oracle_f2h((float)v); break;
    case CUDNN_DATA_BFLOAT16: ((uint16_t *)base)[i] = oracle_f2bf((float)v); break;
    case CUDNN_DATA_INT8: ((int8_t *)base)[i] = (int8_t)lrint(v); break;
    case CUDNN_DATA_UINT8: ((uint8_t *)base)[i] = (uint8_t)lrint(v); break;
    case CUDNN_DATA_INT32: ((int32_t *)base)[i] = (int32_t)lrint(v); break;
    case CUDNN_DATA_INT64: ((int64_t *)base)[i] = (int64_t)llrint(v); break;
    default: break;
  }
}
static double oracle_load(cudnnDataType_t t, const void *base, size_t i) {
  switch (t) {
    case CUDNN_DATA_FLOAT: return ((const float *)base)[i];
    case CUDNN_DATA_DOUBLE: return ((const double *)base)[i];
    case CUDNN_DATA_HALF: return oracle_h2f(((const uint16_t *)base)[i]);
    case CUDNN_DATA_BFLOAT16: return oracle_bf2f(((const uint16_t *)base)[i]);
    case CUDNN_DATA_INT8: return ((const int8_t *)base)[i];
    case CUDNN_DATA_UINT8: return ((const uint8_t *)base)[i];
    case CUDNN_DATA_INT32: return ((const int32_t *)base)[i];
    case CUDNN_DATA_INT64: return (double)((const int64_t *)base)[i];
    default: return 0.0;
  }
}

/* ---- device tensors ---- */
typedef struct {
  cudnnTensorDescriptor_t desc;
  cudnnDataType_t type;
  int nb_dims;
  int dims[8], strides[8];
  size_t span;  /* elements the strides reach */
  void *dev;
} OTensor;

static void otensor_init(OTensor *t, cudnnDataType_t type, int nb, const int *dims, const int *strides) {
  memset(t, 0, sizeof(*t));
  t->type = type;
  t->nb_dims = nb;
  size_t span = 1;
  for (int i = 0; i < nb; ++i) {
    t->dims[i] = dims[i];
    t->strides[i] = strides[i];
    span += (size_t)(dims[i] - 1) * (size_t)strides[i];
  }
  t->span = span;
  DNN_OK(cudnnCreateTensorDescriptor(&t->desc));
  DNN_OK(cudnnSetTensorNdDescriptor(t->desc, type, nb, dims, strides));
  CUDA_OK(cudaMalloc(&t->dev, span * oracle_type_size(type) + 16));
}
/* Packed layouts: NCHW-like row-major or channels-last ("NHWC") order. */
static void oracle_packed_strides(int nb, const int *dims, int channels_last, int *strides) {
  if (!channels_last) {
    int s = 1;
    for (int i = nb - 1; i >= 0; --i) { strides[i] = s; s *= dims[i]; }
    return;
  }
  int s = 1;
  strides[1] = s;
  s *= dims[1];
  for (int i = nb - 1; i >= 2; --i) { strides[i] = s; s *= dims[i]; }
  strides[0] = s;
}
static void otensor_packed(OTensor *t, cudnnDataType_t type, int nb, const int *dims, int channels_last) {
  int strides[8];
  oracle_packed_strides(nb, dims, channels_last, strides);
  otensor_init(t, type, nb, dims, strides);
}
static void otensor_free(OTensor *t) {
  cudnnDestroyTensorDescriptor(t->desc);
  cudaFree(t->dev);
}
/* Fills every element the strides reach with non-zero values in +-[lo, hi). */
static void otensor_fill(OTensor *t, double lo, double hi) {
  size_t es = oracle_type_size(t->type);
  void *h = malloc(t->span * es);
  for (size_t i = 0; i < t->span; ++i) oracle_store(t->type, h, i, oracle_nonzero(lo, hi));
  CUDA_OK(cudaMemcpy(t->dev, h, t->span * es, cudaMemcpyHostToDevice));
  free(h);
}
static void otensor_fill_positive(OTensor *t, double lo, double hi) {
  size_t es = oracle_type_size(t->type);
  void *h = malloc(t->span * es);
  for (size_t i = 0; i < t->span; ++i) oracle_store(t->type, h, i, fabs(oracle_nonzero(lo, hi)));
  CUDA_OK(cudaMemcpy(t->dev, h, t->span * es, cudaMemcpyHostToDevice));
  free(h);
}

/* Prints the logical elements of t (in row-major order of its dims): checksums
 * that do not cancel (sum of positive parts, of negative parts, of squares)
 * and a few sampled values. */
static void oracle_report(const char *name, double tol, cudnnStatus_t st, const OTensor *t) {
  CUDA_OK(cudaDeviceSynchronize());
  printf("%s tol=%g st=%d", name, tol, (int)st);
  if (st != CUDNN_STATUS_SUCCESS) {
    printf("\n");
    return;
  }
  size_t es = oracle_type_size(t->type);
  void *h = malloc(t->span * es);
  CUDA_OK(cudaMemcpy(h, t->dev, t->span * es, cudaMemcpyDeviceToHost));
  size_t count = 1;
  for (int i = 0; i < t->nb_dims; ++i) count *= (size_t)t->dims[i];
  double pos = 0, neg = 0, sq = 0;
  size_t nans = 0;
  double samples[8];
  size_t step = count / 8 ? count / 8 : 1;
  int ns = 0;
  for (size_t li = 0; li < count; ++li) {
    size_t rem = li, off = 0;
    for (int d = t->nb_dims - 1; d >= 0; --d) {
      off += (rem % (size_t)t->dims[d]) * (size_t)t->strides[d];
      rem /= (size_t)t->dims[d];
    }
    double v = oracle_load(t->type, h, off);
    if (isnan(v)) { ++nans; }
    else {
      if (v > 0) pos += v; else neg += v;
      sq += v * v;
    }
    if (li % step == 0 && ns < 8) samples[ns++] = v;
  }
  printf(" n=%zu nan=%zu pos=%.6e neg=%.6e sq=%.6e s=", count, nans, pos, neg, sq);
  for (int i = 0; i < ns; ++i) printf("%s%.6g", i ? "," : "", samples[i]);
  printf("\n");
  free(h);
}

/* Indices are compared exactly. */
static void oracle_report_indices(const char *name, cudnnStatus_t st, const void *dev, size_t count) {
  CUDA_OK(cudaDeviceSynchronize());
  printf("%s tol=0 st=%d", name, (int)st);
  if (st != CUDNN_STATUS_SUCCESS) {
    printf("\n");
    return;
  }
  uint32_t *h = (uint32_t *)malloc(count * 4);
  CUDA_OK(cudaMemcpy(h, dev, count * 4, cudaMemcpyDeviceToHost));
  unsigned long long sum = 0;
  for (size_t i = 0; i < count; ++i) sum += h[i];
  printf(" n=%zu isum=%llu i=", count, sum);
  size_t step = count / 8 ? count / 8 : 1;
  for (size_t i = 0, k = 0; i < count && k < 8; i += step, ++k) printf("%s%u", k ? "," : "", h[i]);
  printf("\n");
  free(h);
}

static void oracle_report_status(const char *name, cudnnStatus_t st) { printf("%s tol=0 st=%d\n", name, (int)st); }

#endif
