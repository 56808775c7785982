// Legacy tensor descriptors: cuDNN 9's exact rules (statuses, values, what a
// failing Set leaves behind) and FreeDNN's messages. The same rules are
// checked against NVIDIA's library by tests/oracle/descriptors.c; these tests
// keep them checked where that library is absent.
#include <cudnn.h>
#include <gtest/gtest.h>

#include "common/expect_status.hpp"
#include "common/legacy_sizes.hpp"

#include <climits>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace {

constexpr int kSentinel = -7;

using fdnn_test::last_error;
using fdnn_test::legacy_element_bytes;

// --- Independent references -------------------------------------------------

// Elements an array of dims/strides reaches: 1 + sum((d-1)*|s|).
int64_t span(const std::vector<int> &dims, const std::vector<int> &strides) {
  int64_t s = 1;
  for (size_t i = 0; i < dims.size(); ++i) s += int64_t(dims[i] - 1) * std::abs(int64_t(strides[i]));
  return s;
}

// Packed strides of dims in NCHW order.
std::vector<int> nchw_strides(const std::vector<int> &dims) {
  std::vector<int> s(dims.size());
  int64_t acc = 1;
  for (size_t i = dims.size(); i-- > 0;) {
    s[i] = int(acc);
    acc *= dims[i];
  }
  return s;
}

// Packed strides of N, C, spatial... dims laid out N, spatial..., C.
std::vector<int> nhwc_strides(const std::vector<int> &dims) {
  std::vector<int> s(dims.size());
  int64_t acc = 1;
  s[1] = 1;
  acc = dims[1];
  for (size_t i = dims.size() - 1; i >= 2; --i) {
    s[i] = int(acc);
    acc *= dims[i];
  }
  s[0] = int(acc);
  return s;
}

struct Tensor {
  cudnnTensorDescriptor_t d = nullptr;
  Tensor() { EXPECT_EQ(cudnnCreateTensorDescriptor(&d), CUDNN_STATUS_SUCCESS); }
  ~Tensor() { EXPECT_EQ(cudnnDestroyTensorDescriptor(d), CUDNN_STATUS_SUCCESS); }
  Tensor(const Tensor &) = delete;
  Tensor &operator=(const Tensor &) = delete;
  operator cudnnTensorDescriptor_t() const { return d; }
};

struct Nd {
  cudnnStatus_t status;
  cudnnDataType_t dtype;
  int nb;
  std::vector<int> dims, strides;
};

Nd get_nd(cudnnTensorDescriptor_t d, int requested = 8) {
  Nd r;
  r.dtype = cudnnDataType_t(kSentinel);
  r.nb = kSentinel;
  r.dims.assign(8, kSentinel);
  r.strides.assign(8, kSentinel);
  r.status = cudnnGetTensorNdDescriptor(d, requested, &r.dtype, &r.nb, r.dims.data(), r.strides.data());
  return r;
}

struct Four {
  cudnnStatus_t status;
  cudnnDataType_t dtype = cudnnDataType_t(kSentinel);
  int v[8] = {kSentinel, kSentinel, kSentinel, kSentinel, kSentinel, kSentinel, kSentinel, kSentinel};
};

Four get_4d(cudnnTensorDescriptor_t d) {
  Four r;
  r.status = cudnnGetTensor4dDescriptor(d, &r.dtype, r.v, r.v + 1, r.v + 2, r.v + 3, r.v + 4, r.v + 5, r.v + 6, r.v + 7);
  return r;
}

size_t size_of(cudnnTensorDescriptor_t d) {
  size_t z = 777;
  EXPECT_EQ(cudnnGetTensorSizeInBytes(d, &z), CUDNN_STATUS_SUCCESS);
  return z;
}

std::vector<int> first(const std::vector<int> &v, int n) { return std::vector<int>(v.begin(), v.begin() + n); }

const cudnnDataType_t kLegacyTypes[] = {CUDNN_DATA_FLOAT,  CUDNN_DATA_DOUBLE, CUDNN_DATA_HALF,    CUDNN_DATA_INT8,
                                        CUDNN_DATA_INT32,  CUDNN_DATA_INT8x4, CUDNN_DATA_UINT8,   CUDNN_DATA_UINT8x4,
                                        CUDNN_DATA_INT8x32, CUDNN_DATA_BFLOAT16};

// --- Create / destroy ----------------------------------------------------------

TEST(TensorDescriptor, CreateNullOutputIsBadParam) {
  EXPECT_FAILS_NAMING(cudnnCreateTensorDescriptor(nullptr), CUDNN_STATUS_BAD_PARAM, "cudnnCreateTensorDescriptor",
                      "tensorDesc");
}

TEST(TensorDescriptor, DestroyNullIsSuccess) { EXPECT_EQ(cudnnDestroyTensorDescriptor(nullptr), CUDNN_STATUS_SUCCESS); }

TEST(TensorDescriptor, NeverSetDescriptorReportsZeros) {
  Tensor t;
  Four f = get_4d(t);
  EXPECT_EQ(f.status, CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(f.dtype, CUDNN_DATA_FLOAT);
  for (int v : f.v) EXPECT_EQ(v, 0);
  Nd nd = get_nd(t);
  EXPECT_EQ(nd.status, CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(nd.nb, 0);
  EXPECT_EQ(nd.dims[0], kSentinel);  // nothing copied
  EXPECT_EQ(size_of(t), 0u);
}

// --- Set4d -----------------------------------------------------------------------

TEST(TensorDescriptor, Set4dVectCCountsWholeVectors) {
  Tensor t;
  ASSERT_EQ(cudnnSetTensor4dDescriptor(t, CUDNN_TENSOR_NCHW_VECT_C, CUDNN_DATA_INT8x4, 2, 8, 3, 5),
            CUDNN_STATUS_SUCCESS);
  Four f = get_4d(t);
  ASSERT_EQ(f.status, CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(f.dtype, CUDNN_DATA_INT8x4);
  EXPECT_EQ(std::vector<int>(f.v, f.v + 8), (std::vector<int>{2, 8, 3, 5, 30, 15, 5, 1}));
  EXPECT_EQ(size_of(t), 240u);

  ASSERT_EQ(cudnnSetTensor4dDescriptor(t, CUDNN_TENSOR_NCHW_VECT_C, CUDNN_DATA_INT8x32, 2, 64, 3, 5),
            CUDNN_STATUS_SUCCESS);
  f = get_4d(t);
  EXPECT_EQ(std::vector<int>(f.v, f.v + 8), (std::vector<int>{2, 64, 3, 5, 30, 15, 5, 1}));
  EXPECT_EQ(size_of(t), 60u * 32);  // the strides reach 60 vectors of 32 bytes
}

TEST(TensorDescriptor, Set4dRandomPackedLayouts) {
  std::mt19937 rng(7);
  for (int iter = 0; iter < 300; ++iter) {
    const cudnnDataType_t dt = kLegacyTypes[rng() % 10];
    const bool vector = dt == CUDNN_DATA_INT8x4 || dt == CUDNN_DATA_UINT8x4 || dt == CUDNN_DATA_INT8x32;
    cudnnTensorFormat_t fmt = cudnnTensorFormat_t(rng() % (vector ? 3 : 2));
    const int lanes = fmt == CUDNN_TENSOR_NCHW_VECT_C ? (dt == CUDNN_DATA_INT8x32 ? 32 : 4) : 1;
    std::vector<int> dims = {int(1 + rng() % 5), int(lanes * (1 + rng() % 6)), int(1 + rng() % 9), int(1 + rng() % 9)};
    Tensor t;
    ASSERT_EQ(cudnnSetTensor4dDescriptor(t, fmt, dt, dims[0], dims[1], dims[2], dims[3]), CUDNN_STATUS_SUCCESS);
    std::vector<int> stored = dims;
    stored[1] /= lanes;
    const std::vector<int> expect = fmt == CUDNN_TENSOR_NHWC ? nhwc_strides(stored) : nchw_strides(stored);
    Four f = get_4d(t);
    ASSERT_EQ(f.status, CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(f.dtype, dt);
    EXPECT_EQ(std::vector<int>(f.v, f.v + 4), dims);
    EXPECT_EQ(std::vector<int>(f.v + 4, f.v + 8), expect) << "format " << fmt << " type " << dt;
    Nd nd = get_nd(t);
    EXPECT_EQ(nd.nb, 4);
    EXPECT_EQ(first(nd.dims, 4), dims);
    EXPECT_EQ(first(nd.strides, 4), expect);
    EXPECT_EQ(size_of(t), size_t(span(stored, expect)) * legacy_element_bytes(dt));
  }
}

TEST(TensorDescriptor, Set4dRejectsBadArgumentsAndKeepsTheDescriptor) {
  Tensor t;
  ASSERT_EQ(cudnnSetTensor4dDescriptor(t, CUDNN_TENSOR_NHWC, CUDNN_DATA_HALF, 1, 2, 3, 4), CUDNN_STATUS_SUCCESS);
  const Nd before = get_nd(t);
  const char *fn = "cudnnSetTensor4dDescriptor";
  EXPECT_FAILS_NAMING(cudnnSetTensor4dDescriptor(t, cudnnTensorFormat_t(3), CUDNN_DATA_FLOAT, 2, 8, 3, 5),
                      CUDNN_STATUS_BAD_PARAM, fn, "format");
  EXPECT_FAILS_NAMING(cudnnSetTensor4dDescriptor(t, cudnnTensorFormat_t(-1), CUDNN_DATA_FLOAT, 2, 8, 3, 5),
                      CUDNN_STATUS_BAD_PARAM, fn, "format");
  EXPECT_FAILS_NAMING(cudnnSetTensor4dDescriptor(t, CUDNN_TENSOR_NCHW, cudnnDataType_t(-1), 2, 8, 3, 5),
                      CUDNN_STATUS_BAD_PARAM, fn, "dataType");
  EXPECT_FAILS_NAMING(cudnnSetTensor4dDescriptor(t, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 0, 8, 3, 5),
                      CUDNN_STATUS_BAD_PARAM, fn, "n = 0");
  EXPECT_FAILS_NAMING(cudnnSetTensor4dDescriptor(t, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 2, -1, 3, 5),
                      CUDNN_STATUS_BAD_PARAM, fn, "c = -1");
  EXPECT_FAILS_NAMING(cudnnSetTensor4dDescriptor(t, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 2, 8, 0, 5),
                      CUDNN_STATUS_BAD_PARAM, fn, "h = 0");
  EXPECT_FAILS_NAMING(cudnnSetTensor4dDescriptor(t, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 2, 8, 3, -5),
                      CUDNN_STATUS_BAD_PARAM, fn, "w = -5");
  // NCHW_VECT_C needs a vector type and C a multiple of its lanes.
  EXPECT_FAILS_NAMING(cudnnSetTensor4dDescriptor(t, CUDNN_TENSOR_NCHW_VECT_C, CUDNN_DATA_FLOAT, 2, 8, 3, 5),
                      CUDNN_STATUS_BAD_PARAM, fn, "dataType");
  EXPECT_FAILS_NAMING(cudnnSetTensor4dDescriptor(t, CUDNN_TENSOR_NCHW_VECT_C, CUDNN_DATA_INT8x4, 2, 6, 3, 5),
                      CUDNN_STATUS_BAD_PARAM, fn, "c = 6");
  EXPECT_FAILS_NAMING(cudnnSetTensor4dDescriptor(t, CUDNN_TENSOR_NCHW_VECT_C, CUDNN_DATA_INT8x32, 2, 48, 3, 5),
                      CUDNN_STATUS_BAD_PARAM, fn, "multiple of 32");
  EXPECT_FAILS_NAMING(cudnnSetTensor4dDescriptor(nullptr, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 1, 1, 1),
                      CUDNN_STATUS_BAD_PARAM, fn, "tensorDesc");
  const Nd after = get_nd(t);
  EXPECT_EQ(after.dtype, before.dtype);
  EXPECT_EQ(after.nb, before.nb);
  EXPECT_EQ(after.dims, before.dims);
  EXPECT_EQ(after.strides, before.strides);
}

TEST(TensorDescriptor, TypesOutsideTheLegacySetAreRejected) {
  // cuDNN 9 keeps INT64, BOOLEAN, the FP8 types and the newer ones for the
  // backend API; its legacy descriptors refuse them.
  Tensor t;
  const int dims[4] = {2, 8, 3, 5}, strides[4] = {120, 15, 5, 1};
  for (int dt = 10; dt <= 21; ++dt) {
    EXPECT_FAILS_NAMING(cudnnSetTensor4dDescriptor(t, CUDNN_TENSOR_NCHW, cudnnDataType_t(dt), 2, 8, 3, 5),
                        CUDNN_STATUS_BAD_PARAM, "cudnnSetTensor4dDescriptor", "dataType");
    EXPECT_EQ(cudnnSetTensorNdDescriptor(t, cudnnDataType_t(dt), 4, dims, strides), CUDNN_STATUS_BAD_PARAM);
    EXPECT_EQ(cudnnSetTensorNdDescriptorEx(t, CUDNN_TENSOR_NHWC, cudnnDataType_t(dt), 4, dims), CUDNN_STATUS_BAD_PARAM);
    EXPECT_EQ(cudnnSetTensor4dDescriptorEx(t, cudnnDataType_t(dt), 2, 8, 3, 5, 120, 15, 5, 1), CUDNN_STATUS_BAD_PARAM);
  }
  last_error();
  EXPECT_EQ(get_nd(t).nb, 0);  // never set
}

TEST(TensorDescriptor, Set4dTooLargeIsNotSupportedButStored) {
  Tensor t;
  // 46340^2 elements fit in an int, 46341^2 do not.
  EXPECT_EQ(cudnnSetTensor4dDescriptor(t, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 46340, 46340, 1, 1),
            CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(size_of(t), 46340ull * 46340 * 4);
  EXPECT_FAILS_NAMING(cudnnSetTensor4dDescriptor(t, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 46341, 46341, 1, 1),
                      CUDNN_STATUS_NOT_SUPPORTED, "cudnnSetTensor4dDescriptor", "INT_MAX");
  // Like cuDNN, the values are in place although the call failed.
  Four f = get_4d(t);
  EXPECT_EQ(std::vector<int>(f.v, f.v + 8), (std::vector<int>{46341, 46341, 1, 1, 46341, 1, 1, 1}));
  EXPECT_EQ(size_of(t), 46341ull * 46341 * 4);
}

// --- Set4dEx / SetNd: strides ---------------------------------------------------

TEST(TensorDescriptor, StridesMayOverlapOrBeNegativeButNotZero) {
  Tensor t;
  // Overlapping strides are accepted; the size is what the strides reach.
  ASSERT_EQ(cudnnSetTensor4dDescriptorEx(t, CUDNN_DATA_FLOAT, 2, 3, 4, 5, 1, 1, 1, 1), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(size_of(t), (1u + 1 + 2 + 3 + 4) * 4);
  // Negative strides count by their magnitude.
  ASSERT_EQ(cudnnSetTensor4dDescriptorEx(t, CUDNN_DATA_FLOAT, 2, 3, 4, 5, -61, 20, -5, 1), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(size_of(t), 121u * 4);
  EXPECT_EQ(get_4d(t).v[4], -61);
  // A zero stride is allowed only where the extent is 1.
  ASSERT_EQ(cudnnSetTensor4dDescriptorEx(t, CUDNN_DATA_FLOAT, 1, 3, 1, 1, 0, 1, 0, 0), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(size_of(t), 12u);
  EXPECT_FAILS_NAMING(cudnnSetTensor4dDescriptorEx(t, CUDNN_DATA_FLOAT, 2, 3, 4, 5, 60, 0, 5, 1),
                      CUDNN_STATUS_BAD_PARAM, "cudnnSetTensor4dDescriptorEx", "cStride = 0");
  const int dims[3] = {2, 3, 4}, strides[3] = {12, 4, 0};
  EXPECT_FAILS_NAMING(cudnnSetTensorNdDescriptor(t, CUDNN_DATA_FLOAT, 3, dims, strides), CUDNN_STATUS_BAD_PARAM,
                      "cudnnSetTensorNdDescriptor", "strideA[2] = 0");
}

TEST(TensorDescriptor, SizeIsTheSpanOfRandomStrides) {
  std::mt19937 rng(11);
  for (int iter = 0; iter < 300; ++iter) {
    const int nb = 2 + int(rng() % 7);
    const cudnnDataType_t dt = kLegacyTypes[rng() % 10];
    std::vector<int> dims(nb), strides(nb);
    for (int i = 0; i < nb; ++i) {
      dims[i] = 1 + int(rng() % 4);
      strides[i] = int(rng() % 50) - 25;
      if (strides[i] == 0) strides[i] = 3;
    }
    Tensor t;
    ASSERT_EQ(cudnnSetTensorNdDescriptor(t, dt, nb, dims.data(), strides.data()), CUDNN_STATUS_SUCCESS);
    Nd nd = get_nd(t);
    EXPECT_EQ(nd.nb, nb);
    EXPECT_EQ(nd.dtype, dt);
    EXPECT_EQ(first(nd.dims, nb), dims);
    EXPECT_EQ(first(nd.strides, nb), strides);
    EXPECT_EQ(size_of(t), size_t(span(dims, strides)) * legacy_element_bytes(dt));
  }
}

TEST(TensorDescriptor, SpanBeyondIntMaxIsNotSupported) {
  Tensor t;
  EXPECT_EQ(cudnnSetTensor4dDescriptorEx(t, CUDNN_DATA_FLOAT, 1, 1, 1, 2, 1, 1, 1, 1073741824), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnSetTensor4dDescriptorEx(t, CUDNN_DATA_FLOAT, 1, 1, 1, 3, 1, 1, 1, 1073741824),
            CUDNN_STATUS_NOT_SUPPORTED);
  // Many elements on few addresses are fine: only the span counts.
  EXPECT_EQ(cudnnSetTensor4dDescriptorEx(t, CUDNN_DATA_FLOAT, 65536, 65536, 1, 1, 1, 1, 1, 1), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(size_of(t), 131071u * 4);
  last_error();
}

TEST(TensorDescriptor, NdRankLimits) {
  Tensor t;
  const int dims[9] = {2, 3, 4, 5, 1, 1, 1, 1, 1}, strides[9] = {60, 20, 5, 1, 1, 1, 1, 1, 1};
  for (int nb = 2; nb <= 8; ++nb) EXPECT_EQ(cudnnSetTensorNdDescriptor(t, CUDNN_DATA_FLOAT, nb, dims, strides), 0) << nb;
  EXPECT_EQ(get_nd(t).nb, 8);
  EXPECT_FAILS_NAMING(cudnnSetTensorNdDescriptor(t, CUDNN_DATA_FLOAT, 1, dims, strides), CUDNN_STATUS_BAD_PARAM,
                      "cudnnSetTensorNdDescriptor", "nbDims = 1");
  EXPECT_FAILS_NAMING(cudnnSetTensorNdDescriptor(t, CUDNN_DATA_FLOAT, 0, dims, strides), CUDNN_STATUS_BAD_PARAM,
                      "cudnnSetTensorNdDescriptor", "nbDims = 0");
  EXPECT_FAILS_NAMING(cudnnSetTensorNdDescriptor(t, CUDNN_DATA_FLOAT, 9, dims, strides), CUDNN_STATUS_NOT_SUPPORTED,
                      "cudnnSetTensorNdDescriptor", "nbDims = 9");
  EXPECT_FAILS_NAMING(cudnnSetTensorNdDescriptorEx(t, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 9, dims),
                      CUDNN_STATUS_NOT_SUPPORTED, "cudnnSetTensorNdDescriptorEx", "nbDims = 9");
  EXPECT_FAILS_NAMING(cudnnSetTensorNdDescriptorEx(t, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, -1, dims),
                      CUDNN_STATUS_BAD_PARAM, "cudnnSetTensorNdDescriptorEx", "nbDims = -1");
  // A type error comes before the rank check.
  EXPECT_EQ(cudnnSetTensorNdDescriptor(t, CUDNN_DATA_BOOLEAN, 9, dims, strides), CUDNN_STATUS_BAD_PARAM);
  last_error();
  EXPECT_EQ(get_nd(t).nb, 8);  // all of these left it alone
}

TEST(TensorDescriptor, NullArraysAreBadParamNotACrash) {
  Tensor t;
  const int dims[4] = {2, 3, 4, 5}, strides[4] = {60, 20, 5, 1};
  EXPECT_FAILS_NAMING(cudnnSetTensorNdDescriptor(t, CUDNN_DATA_FLOAT, 4, nullptr, strides), CUDNN_STATUS_BAD_PARAM,
                      "cudnnSetTensorNdDescriptor", "dimA");
  EXPECT_FAILS_NAMING(cudnnSetTensorNdDescriptor(t, CUDNN_DATA_FLOAT, 4, dims, nullptr), CUDNN_STATUS_BAD_PARAM,
                      "cudnnSetTensorNdDescriptor", "strideA");
  EXPECT_FAILS_NAMING(cudnnSetTensorNdDescriptorEx(t, CUDNN_TENSOR_NHWC, CUDNN_DATA_FLOAT, 4, nullptr),
                      CUDNN_STATUS_BAD_PARAM, "cudnnSetTensorNdDescriptorEx", "dimA");
  EXPECT_FAILS_NAMING(cudnnSetTensorNdDescriptor(nullptr, CUDNN_DATA_FLOAT, 4, dims, strides), CUDNN_STATUS_BAD_PARAM,
                      "cudnnSetTensorNdDescriptor", "tensorDesc");
}

// --- What a failing Set leaves --------------------------------------------------

// A descriptor first set to HALF, 8 dims of 9, strides 8.
void set_used(cudnnTensorDescriptor_t t) {
  const std::vector<int> nine(8, 9), eight(8, 8);
  ASSERT_EQ(cudnnSetTensorNdDescriptor(t, CUDNN_DATA_HALF, 8, nine.data(), eight.data()), CUDNN_STATUS_SUCCESS);
}

TEST(TensorDescriptor, LateFailureKeepsTheDimensionsAlreadyCopied) {
  Tensor t;
  set_used(t);
  // Type and rank are recorded first, then dimension after dimension until
  // the bad one.
  const int dims[4] = {2, 3, 0, 5}, strides[4] = {60, 20, 5, 1};
  EXPECT_FAILS_NAMING(cudnnSetTensorNdDescriptor(t, CUDNN_DATA_FLOAT, 4, dims, strides), CUDNN_STATUS_BAD_PARAM,
                      "cudnnSetTensorNdDescriptor", "dimA[2] = 0");
  Nd nd = get_nd(t);
  EXPECT_EQ(nd.dtype, CUDNN_DATA_FLOAT);
  EXPECT_EQ(nd.nb, 4);
  EXPECT_EQ(first(nd.dims, 4), (std::vector<int>{2, 3, 9, 9}));
  EXPECT_EQ(first(nd.strides, 4), (std::vector<int>{60, 20, 8, 8}));
  // The size is the last complete span (8 dims of 9, strides 8: 513
  // elements), now counted in floats.
  EXPECT_EQ(size_of(t), 513u * 4);
}

TEST(TensorDescriptor, EarlyFailureLeavesTheDescriptorAlone) {
  Tensor t;
  set_used(t);
  EXPECT_EQ(cudnnSetTensor4dDescriptor(t, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 2, 0, 3, 5), CUDNN_STATUS_BAD_PARAM);
  const int dims[4] = {2, 6, 3, 5};
  EXPECT_EQ(cudnnSetTensorNdDescriptorEx(t, CUDNN_TENSOR_NCHW_VECT_C, CUDNN_DATA_FLOAT, 4, dims),
            CUDNN_STATUS_BAD_PARAM);
  last_error();
  Nd nd = get_nd(t);
  EXPECT_EQ(nd.dtype, CUDNN_DATA_HALF);
  EXPECT_EQ(nd.nb, 8);
  EXPECT_EQ(nd.dims, std::vector<int>(8, 9));
  EXPECT_EQ(size_of(t), 513u * 2);
}

TEST(TensorDescriptor, GetReportsStaleDimensionsBeyondTheRank) {
  Tensor t;
  set_used(t);
  const int dims[3] = {2, 3, 4}, strides[3] = {12, 4, 1};
  ASSERT_EQ(cudnnSetTensorNdDescriptor(t, CUDNN_DATA_FLOAT, 3, dims, strides), CUDNN_STATUS_SUCCESS);
  // Get4d gives the first four entries whatever the rank, as cuDNN does.
  Four f = get_4d(t);
  EXPECT_EQ(f.status, CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(std::vector<int>(f.v, f.v + 8), (std::vector<int>{2, 3, 4, 9, 12, 4, 1, 8}));
  // GetNd stops at the rank.
  Nd nd = get_nd(t);
  EXPECT_EQ(nd.nb, 3);
  EXPECT_EQ(nd.dims[3], kSentinel);
}

// --- SetNdEx ------------------------------------------------------------------------

TEST(TensorDescriptor, NdExPackedStridesForEveryFormatAndRank) {
  for (int nb = 3; nb <= 8; ++nb)
    for (int f = 0; f <= 2; ++f) {
      std::vector<int> dims = {2, 8, 3, 5, 2, 3, 1, 2};
      dims.resize(nb);
      Tensor t;
      ASSERT_EQ(cudnnSetTensorNdDescriptorEx(t, cudnnTensorFormat_t(f), CUDNN_DATA_INT8x4, nb, dims.data()),
                CUDNN_STATUS_SUCCESS);
      std::vector<int> stored = dims;
      if (f == CUDNN_TENSOR_NCHW_VECT_C) stored[1] /= 4;
      const std::vector<int> expect = f == CUDNN_TENSOR_NHWC ? nhwc_strides(stored) : nchw_strides(stored);
      Nd nd = get_nd(t);
      EXPECT_EQ(first(nd.dims, nb), dims) << nb << " " << f;
      EXPECT_EQ(first(nd.strides, nb), expect) << nb << " " << f;
      EXPECT_EQ(size_of(t), size_t(span(stored, expect)) * 4);
    }
}

TEST(TensorDescriptor, NdExVectCWithAScalarType) {
  // cuDNN accepts NCHW_VECT_C with a scalar type in the Ex call: C counts in
  // vectors of 4 and the size counts one element per vector.
  Tensor t;
  const int dims[4] = {2, 8, 3, 5};
  ASSERT_EQ(cudnnSetTensorNdDescriptorEx(t, CUDNN_TENSOR_NCHW_VECT_C, CUDNN_DATA_FLOAT, 4, dims), CUDNN_STATUS_SUCCESS);
  Nd nd = get_nd(t);
  EXPECT_EQ(first(nd.dims, 4), (std::vector<int>{2, 8, 3, 5}));
  EXPECT_EQ(first(nd.strides, 4), (std::vector<int>{30, 15, 5, 1}));
  EXPECT_EQ(size_of(t), 240u);
  // Get4d refuses that combination after writing the type and n.
  Four f = get_4d(t);
  EXPECT_EQ(f.status, CUDNN_STATUS_BAD_PARAM);
#ifndef FDNN_TEST_STATUS_ONLY
  EXPECT_NE(last_error().find("NCHW_VECT_C"), std::string::npos);
#endif
  EXPECT_EQ(f.dtype, CUDNN_DATA_FLOAT);
  EXPECT_EQ(f.v[0], 2);
  EXPECT_EQ(f.v[1], kSentinel);
  // INT8x32 needs C a multiple of 32.
  EXPECT_FAILS_NAMING(cudnnSetTensorNdDescriptorEx(t, CUDNN_TENSOR_NCHW_VECT_C, CUDNN_DATA_INT8x32, 4, dims),
                      CUDNN_STATUS_BAD_PARAM, "cudnnSetTensorNdDescriptorEx", "dimA[1] = 8");
  EXPECT_FAILS_NAMING(cudnnSetTensorNdDescriptorEx(t, cudnnTensorFormat_t(3), CUDNN_DATA_FLOAT, 4, dims),
                      CUDNN_STATUS_BAD_PARAM, "cudnnSetTensorNdDescriptorEx", "format");
}

TEST(TensorDescriptor, NdExVectCWithTooManyDimsKeepsTheFormat) {
  // cuDNN records NCHW_VECT_C before it rejects the rank.
  Tensor t;
  ASSERT_EQ(cudnnSetTensor4dDescriptor(t, CUDNN_TENSOR_NCHW, CUDNN_DATA_INT8x4, 2, 8, 3, 5), CUDNN_STATUS_SUCCESS);
  const int dims[9] = {2, 8, 1, 1, 1, 1, 1, 1, 1};
  EXPECT_EQ(cudnnSetTensorNdDescriptorEx(t, CUDNN_TENSOR_NCHW_VECT_C, CUDNN_DATA_INT8x4, 9, dims),
            CUDNN_STATUS_NOT_SUPPORTED);
  last_error();
  Nd nd = get_nd(t);
  EXPECT_EQ(first(nd.dims, 4), (std::vector<int>{2, 32, 3, 5}));  // the stored 8 now counts vectors of 4
}

// --- Get ------------------------------------------------------------------------------

TEST(TensorDescriptor, GetNdCopiesAtMostTheRequestedEntries) {
  Tensor t;
  const int dims[5] = {3, 4, 5, 6, 7}, strides[5] = {840, 210, 42, 7, 1};
  ASSERT_EQ(cudnnSetTensorNdDescriptor(t, CUDNN_DATA_DOUBLE, 5, dims, strides), CUDNN_STATUS_SUCCESS);
  for (int req = -2; req <= 9; ++req) {
    Nd nd = get_nd(t, req < 8 ? req : 8);
    ASSERT_EQ(nd.status, CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(nd.nb, 5);
    EXPECT_EQ(nd.dtype, CUDNN_DATA_DOUBLE);
    for (int i = 0; i < 8; ++i) {
      const bool copied = i < req && i < 5;
      EXPECT_EQ(nd.dims[i], copied ? dims[i] : kSentinel) << req << " " << i;
      EXPECT_EQ(nd.strides[i], copied ? strides[i] : kSentinel) << req << " " << i;
    }
  }
  // The arrays may be NULL when nothing is copied.
  cudnnDataType_t dt;
  int nb = 0;
  EXPECT_EQ(cudnnGetTensorNdDescriptor(t, 0, &dt, &nb, nullptr, nullptr), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(nb, 5);
  int a[8], b[8];
  EXPECT_FAILS_NAMING(cudnnGetTensorNdDescriptor(t, 2, &dt, &nb, nullptr, b), CUDNN_STATUS_BAD_PARAM,
                      "cudnnGetTensorNdDescriptor", "dimA");
  EXPECT_FAILS_NAMING(cudnnGetTensorNdDescriptor(t, 2, &dt, &nb, a, nullptr), CUDNN_STATUS_BAD_PARAM,
                      "cudnnGetTensorNdDescriptor", "strideA");
  EXPECT_FAILS_NAMING(cudnnGetTensorNdDescriptor(t, 2, &dt, nullptr, a, b), CUDNN_STATUS_BAD_PARAM,
                      "cudnnGetTensorNdDescriptor", "nbDims");
  EXPECT_FAILS_NAMING(cudnnGetTensorNdDescriptor(t, 2, nullptr, &nb, a, b), CUDNN_STATUS_BAD_PARAM,
                      "cudnnGetTensorNdDescriptor", "dataType");
  EXPECT_FAILS_NAMING(cudnnGetTensorNdDescriptor(nullptr, 2, &dt, &nb, a, b), CUDNN_STATUS_BAD_PARAM,
                      "cudnnGetTensorNdDescriptor", "tensorDesc");
}

TEST(TensorDescriptor, Get4dRejectsEveryNullOutput) {
  Tensor t;
  ASSERT_EQ(cudnnSetTensor4dDescriptor(t, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 2, 8, 3, 5), CUDNN_STATUS_SUCCESS);
  static const char *const names[9] = {"dataType", "n", "c", "h", "w", "nStride", "cStride", "hStride", "wStride"};
  for (int k = 0; k < 9; ++k) {
    cudnnDataType_t dt = cudnnDataType_t(kSentinel);
    int v[8];
    for (int &x : v) x = kSentinel;
    int *p[8];
    for (int i = 0; i < 8; ++i) p[i] = k == i + 1 ? nullptr : v + i;
    EXPECT_FAILS_NAMING(cudnnGetTensor4dDescriptor(t, k == 0 ? nullptr : &dt, p[0], p[1], p[2], p[3], p[4], p[5], p[6],
                                                   p[7]),
                        CUDNN_STATUS_BAD_PARAM, "cudnnGetTensor4dDescriptor", names[k]);
    // Nothing written.
    EXPECT_EQ(int(dt), kSentinel);
    for (int x : v) EXPECT_EQ(x, kSentinel);
  }
  size_t z;
  EXPECT_FAILS_NAMING(cudnnGetTensorSizeInBytes(t, nullptr), CUDNN_STATUS_BAD_PARAM, "cudnnGetTensorSizeInBytes",
                      "size");
  EXPECT_FAILS_NAMING(cudnnGetTensorSizeInBytes(nullptr, &z), CUDNN_STATUS_BAD_PARAM, "cudnnGetTensorSizeInBytes",
                      "tensorDesc");
}

// --- Derived descriptors ------------------------------------------------------------

TEST(TensorDescriptor, DeriveBNShapesAndTypes) {
  struct Case {
    cudnnDataType_t x, derived;
  };
  const Case cases[] = {{CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT},   {CUDNN_DATA_DOUBLE, CUDNN_DATA_DOUBLE},
                        {CUDNN_DATA_HALF, CUDNN_DATA_FLOAT},    {CUDNN_DATA_BFLOAT16, CUDNN_DATA_FLOAT},
                        {CUDNN_DATA_INT8, CUDNN_DATA_FLOAT},    {CUDNN_DATA_UINT8, CUDNN_DATA_UINT8},
                        {CUDNN_DATA_INT32, CUDNN_DATA_INT32},   {CUDNN_DATA_INT8x4, CUDNN_DATA_INT8x4}};
  for (const Case &c : cases)
    for (int mode = 0; mode <= 2; ++mode) {
      Tensor x, d;
      ASSERT_EQ(cudnnSetTensor4dDescriptor(x, CUDNN_TENSOR_NHWC, c.x, 2, 8, 3, 5), CUDNN_STATUS_SUCCESS);
      set_used(d);
      ASSERT_EQ(cudnnDeriveBNTensorDescriptor(d, x, cudnnBatchNormMode_t(mode)), CUDNN_STATUS_SUCCESS);
      Nd nd = get_nd(d);
      EXPECT_EQ(nd.dtype, c.derived) << c.x;
      EXPECT_EQ(nd.nb, 4);
      // Always packed NCHW, whatever x's layout.
      if (mode == CUDNN_BATCHNORM_PER_ACTIVATION) {
        EXPECT_EQ(first(nd.dims, 4), (std::vector<int>{1, 8, 3, 5}));
        EXPECT_EQ(first(nd.strides, 4), (std::vector<int>{120, 15, 5, 1}));
      } else {
        EXPECT_EQ(first(nd.dims, 4), (std::vector<int>{1, 8, 1, 1}));
        EXPECT_EQ(first(nd.strides, 4), (std::vector<int>{8, 1, 1, 1}));
      }
    }
  // Any rank from 2 to 8.
  for (int nb = 2; nb <= 8; ++nb) {
    Tensor x, d;
    std::vector<int> dims = {2, 8, 3, 5, 7, 2, 2, 2};
    dims.resize(nb);
    ASSERT_EQ(cudnnSetTensorNdDescriptorEx(x, CUDNN_TENSOR_NCHW, CUDNN_DATA_HALF, nb, dims.data()), 0);
    ASSERT_EQ(cudnnDeriveBNTensorDescriptor(d, x, CUDNN_BATCHNORM_SPATIAL), CUDNN_STATUS_SUCCESS);
    Nd nd = get_nd(d);
    EXPECT_EQ(nd.nb, nb);
    std::vector<int> expect(nb, 1);
    expect[1] = 8;
    EXPECT_EQ(first(nd.dims, nb), expect);
  }
}

TEST(TensorDescriptor, DeriveBNRejectsBadArguments) {
  Tensor x, d;
  set_used(d);
  EXPECT_FAILS_NAMING(cudnnDeriveBNTensorDescriptor(d, x, CUDNN_BATCHNORM_SPATIAL), CUDNN_STATUS_BAD_PARAM,
                      "cudnnDeriveBNTensorDescriptor", "xDesc");  // never set
  ASSERT_EQ(cudnnSetTensor4dDescriptor(x, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 2, 8, 3, 5), CUDNN_STATUS_SUCCESS);
  EXPECT_FAILS_NAMING(cudnnDeriveBNTensorDescriptor(d, x, cudnnBatchNormMode_t(3)), CUDNN_STATUS_BAD_PARAM,
                      "cudnnDeriveBNTensorDescriptor", "mode = 3");
  EXPECT_FAILS_NAMING(cudnnDeriveBNTensorDescriptor(d, nullptr, CUDNN_BATCHNORM_SPATIAL), CUDNN_STATUS_BAD_PARAM,
                      "cudnnDeriveBNTensorDescriptor", "xDesc");
  EXPECT_FAILS_NAMING(cudnnDeriveBNTensorDescriptor(nullptr, x, CUDNN_BATCHNORM_SPATIAL), CUDNN_STATUS_BAD_PARAM,
                      "cudnnDeriveBNTensorDescriptor", "derivedBnDesc");
  EXPECT_EQ(get_nd(d).nb, 8);  // untouched
  // In place is fine.
  EXPECT_EQ(cudnnDeriveBNTensorDescriptor(x, x, CUDNN_BATCHNORM_SPATIAL), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(first(get_nd(x).dims, 4), (std::vector<int>{1, 8, 1, 1}));
}

TEST(TensorDescriptor, DeriveNorm) {
  Tensor x, a, b;
  ASSERT_EQ(cudnnSetTensor4dDescriptor(x, CUDNN_TENSOR_NCHW, CUDNN_DATA_HALF, 2, 8, 3, 5), CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(cudnnDeriveNormTensorDescriptor(a, b, x, CUDNN_NORM_PER_CHANNEL, 1), CUDNN_STATUS_SUCCESS);
  for (cudnnTensorDescriptor_t d : {a.d, b.d}) {
    Nd nd = get_nd(d);
    EXPECT_EQ(nd.dtype, CUDNN_DATA_FLOAT);
    EXPECT_EQ(first(nd.dims, 4), (std::vector<int>{1, 8, 1, 1}));
  }
  ASSERT_EQ(cudnnDeriveNormTensorDescriptor(a, b, x, CUDNN_NORM_PER_ACTIVATION, 1), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(first(get_nd(b).dims, 4), (std::vector<int>{1, 8, 3, 5}));
  // Grouping is not supported (checked first), bad modes are bad params.
  EXPECT_FAILS_NAMING(cudnnDeriveNormTensorDescriptor(a, b, x, CUDNN_NORM_PER_CHANNEL, 2), CUDNN_STATUS_NOT_SUPPORTED,
                      "cudnnDeriveNormTensorDescriptor", "groupCnt = 2");
  EXPECT_EQ(cudnnDeriveNormTensorDescriptor(a, b, nullptr, cudnnNormMode_t(5), 0), CUDNN_STATUS_NOT_SUPPORTED);
  EXPECT_FAILS_NAMING(cudnnDeriveNormTensorDescriptor(a, b, x, cudnnNormMode_t(2), 1), CUDNN_STATUS_BAD_PARAM,
                      "cudnnDeriveNormTensorDescriptor", "mode = 2");
  // The scale/bias descriptor is derived before the mean/var one is checked.
  Tensor c;
  set_used(c);
  EXPECT_FAILS_NAMING(cudnnDeriveNormTensorDescriptor(c, nullptr, x, CUDNN_NORM_PER_CHANNEL, 1),
                      CUDNN_STATUS_BAD_PARAM, "cudnnDeriveNormTensorDescriptor", "derivedNormMeanVarDesc");
  EXPECT_EQ(get_nd(c).nb, 4);
  EXPECT_FAILS_NAMING(cudnnDeriveNormTensorDescriptor(a, b, nullptr, CUDNN_NORM_PER_CHANNEL, 1),
                      CUDNN_STATUS_BAD_PARAM, "cudnnDeriveNormTensorDescriptor", "xDesc");
}

TEST(TensorDescriptor, ManyDescriptorsAreIndependent) {
  std::vector<cudnnTensorDescriptor_t> ds(64, nullptr);
  for (size_t i = 0; i < ds.size(); ++i) {
    ASSERT_EQ(cudnnCreateTensorDescriptor(&ds[i]), CUDNN_STATUS_SUCCESS);
    ASSERT_EQ(cudnnSetTensor4dDescriptor(ds[i], CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, int(i) + 1, 2, 3, 4), 0);
  }
  for (size_t i = 0; i < ds.size(); ++i) EXPECT_EQ(get_4d(ds[i]).v[0], int(i) + 1);
  for (auto d : ds) EXPECT_EQ(cudnnDestroyTensorDescriptor(d), CUDNN_STATUS_SUCCESS);
}

}  // namespace
