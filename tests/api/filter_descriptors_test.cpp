// Legacy filter descriptors: cuDNN 9's exact rules and FreeDNN's messages
// (the same rules are compared with NVIDIA's library by
// tests/oracle/descriptors.c).
#include <cudnn.h>
#include <gtest/gtest.h>

#include "common/expect_status.hpp"
#include "common/legacy_sizes.hpp"

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace {

constexpr int kSentinel = -7;

using fdnn_test::last_error;
using fdnn_test::legacy_element_bytes;

struct Filter {
  cudnnFilterDescriptor_t d = nullptr;
  Filter() { EXPECT_EQ(cudnnCreateFilterDescriptor(&d), CUDNN_STATUS_SUCCESS); }
  ~Filter() { EXPECT_EQ(cudnnDestroyFilterDescriptor(d), CUDNN_STATUS_SUCCESS); }
  Filter(const Filter &) = delete;
  Filter &operator=(const Filter &) = delete;
  operator cudnnFilterDescriptor_t() const { return d; }
};

struct Nd {
  cudnnStatus_t status;
  cudnnDataType_t dtype = cudnnDataType_t(kSentinel);
  cudnnTensorFormat_t format = cudnnTensorFormat_t(kSentinel);
  int nb = kSentinel;
  std::vector<int> dims = std::vector<int>(8, kSentinel);
};

Nd get_nd(cudnnFilterDescriptor_t d, int requested = 8) {
  Nd r;
  r.status = cudnnGetFilterNdDescriptor(d, requested, &r.dtype, &r.format, &r.nb, r.dims.data());
  return r;
}

struct Four {
  cudnnStatus_t status;
  cudnnDataType_t dtype = cudnnDataType_t(kSentinel);
  cudnnTensorFormat_t format = cudnnTensorFormat_t(kSentinel);
  std::vector<int> kcrs = std::vector<int>(4, kSentinel);
};

Four get_4d(cudnnFilterDescriptor_t d) {
  Four r;
  int *v = r.kcrs.data();
  r.status = cudnnGetFilter4dDescriptor(d, &r.dtype, &r.format, v, v + 1, v + 2, v + 3);
  return r;
}

size_t size_of(cudnnFilterDescriptor_t d) {
  size_t z = 777;
  EXPECT_EQ(cudnnGetFilterSizeInBytes(d, &z), CUDNN_STATUS_SUCCESS);
  return z;
}

std::vector<int> first(const std::vector<int> &v, int n) { return std::vector<int>(v.begin(), v.begin() + n); }

void set_used(cudnnFilterDescriptor_t d) {
  const std::vector<int> nine(8, 9);
  ASSERT_EQ(cudnnSetFilterNdDescriptor(d, CUDNN_DATA_HALF, CUDNN_TENSOR_NHWC, 8, nine.data()), CUDNN_STATUS_SUCCESS);
}

const cudnnDataType_t kFilterTypes[] = {CUDNN_DATA_FLOAT,   CUDNN_DATA_DOUBLE,  CUDNN_DATA_HALF,
                                        CUDNN_DATA_INT8,    CUDNN_DATA_INT8x4,  CUDNN_DATA_UINT8,
                                        CUDNN_DATA_UINT8x4, CUDNN_DATA_INT8x32, CUDNN_DATA_BFLOAT16};

TEST(FilterDescriptor, CreateAndDestroyNull) {
  EXPECT_FAILS_NAMING(cudnnCreateFilterDescriptor(nullptr), CUDNN_STATUS_BAD_PARAM, "cudnnCreateFilterDescriptor",
                      "filterDesc");
  EXPECT_EQ(cudnnDestroyFilterDescriptor(nullptr), CUDNN_STATUS_SUCCESS);
}

TEST(FilterDescriptor, NeverSetDescriptorReportsZeros) {
  Filter f;
  Four g = get_4d(f);
  EXPECT_EQ(g.status, CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(g.dtype, CUDNN_DATA_FLOAT);
  EXPECT_EQ(g.format, CUDNN_TENSOR_NCHW);
  EXPECT_EQ(g.kcrs, std::vector<int>(4, 0));
  Nd nd = get_nd(f);
  EXPECT_EQ(nd.nb, 0);
  EXPECT_EQ(nd.dims, std::vector<int>(8, 0));  // cuDNN copies what was asked for, whatever the rank
  EXPECT_EQ(size_of(f), 0u);
}

TEST(FilterDescriptor, RandomShapesRoundTrip) {
  std::mt19937 rng(3);
  for (int iter = 0; iter < 300; ++iter) {
    const cudnnDataType_t dt = kFilterTypes[rng() % 9];
    const bool vector = dt == CUDNN_DATA_INT8x4 || dt == CUDNN_DATA_UINT8x4 || dt == CUDNN_DATA_INT8x32;
    const cudnnTensorFormat_t fmt = cudnnTensorFormat_t(rng() % (vector ? 3 : 2));
    const int lanes = fmt == CUDNN_TENSOR_NCHW_VECT_C ? (dt == CUDNN_DATA_INT8x32 ? 32 : 4) : 1;
    const int nb = 3 + int(rng() % 6);
    std::vector<int> dims(nb);
    for (int &d : dims) d = 1 + int(rng() % 5);
    dims[1] = lanes * (1 + int(rng() % 4));
    Filter f;
    ASSERT_EQ(cudnnSetFilterNdDescriptor(f, dt, fmt, nb, dims.data()), CUDNN_STATUS_SUCCESS);
    Nd nd = get_nd(f);
    EXPECT_EQ(nd.dtype, dt);
    EXPECT_EQ(nd.format, fmt);
    EXPECT_EQ(nd.nb, nb);
    EXPECT_EQ(first(nd.dims, nb), dims);
    size_t count = 1;
    for (int i = 0; i < nb; ++i) count *= size_t(i == 1 ? dims[i] / lanes : dims[i]);
    EXPECT_EQ(size_of(f), count * legacy_element_bytes(dt));
    if (nb == 4) {
      Four g = get_4d(f);
      // cuDNN's 4d query multiplies a VECT_C C by 4 even for INT8x32.
      std::vector<int> expect = dims;
      if (lanes == 32) expect[1] = dims[1] / 32 * 4;
      EXPECT_EQ(g.kcrs, expect);
    }
  }
}

TEST(FilterDescriptor, VectCRoundsCDownWithoutComplaint) {
  Filter f;
  ASSERT_EQ(cudnnSetFilter4dDescriptor(f, CUDNN_DATA_INT8x4, CUDNN_TENSOR_NCHW_VECT_C, 2, 6, 3, 5),
            CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(get_4d(f).kcrs, (std::vector<int>{2, 4, 3, 5}));
  ASSERT_EQ(cudnnSetFilter4dDescriptor(f, CUDNN_DATA_INT8x4, CUDNN_TENSOR_NCHW_VECT_C, 4, 2, 3, 5),
            CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(get_4d(f).kcrs, (std::vector<int>{4, 0, 3, 5}));
  EXPECT_EQ(size_of(f), 0u);
}

TEST(FilterDescriptor, RejectsBadArguments) {
  Filter f;
  set_used(f);
  const int dims[9] = {4, 8, 3, 5, 2, 2, 2, 2, 2};
  const char *fn4 = "cudnnSetFilter4dDescriptor", *fnd = "cudnnSetFilterNdDescriptor";
  EXPECT_FAILS_NAMING(cudnnSetFilter4dDescriptor(f, CUDNN_DATA_INT32, CUDNN_TENSOR_NCHW, 8, 8, 3, 5),
                      CUDNN_STATUS_BAD_PARAM, fn4, "dataType");
  EXPECT_FAILS_NAMING(cudnnSetFilter4dDescriptor(f, CUDNN_DATA_BOOLEAN, CUDNN_TENSOR_NCHW, 8, 8, 3, 5),
                      CUDNN_STATUS_BAD_PARAM, fn4, "dataType");
  EXPECT_FAILS_NAMING(cudnnSetFilter4dDescriptor(f, CUDNN_DATA_FLOAT, cudnnTensorFormat_t(3), 8, 8, 3, 5),
                      CUDNN_STATUS_BAD_PARAM, fn4, "format");
  EXPECT_FAILS_NAMING(cudnnSetFilter4dDescriptor(f, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW_VECT_C, 8, 8, 3, 5),
                      CUDNN_STATUS_BAD_PARAM, fn4, "NCHW_VECT_C");
  EXPECT_FAILS_NAMING(cudnnSetFilterNdDescriptor(f, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 2, dims),
                      CUDNN_STATUS_BAD_PARAM, fnd, "nbDims = 2");
  EXPECT_FAILS_NAMING(cudnnSetFilterNdDescriptor(f, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 9, dims),
                      CUDNN_STATUS_NOT_SUPPORTED, fnd, "nbDims = 9");
  // The rank is checked before the VECT_C type and the array.
  EXPECT_EQ(cudnnSetFilterNdDescriptor(f, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW_VECT_C, 9, dims),
            CUDNN_STATUS_NOT_SUPPORTED);
  EXPECT_EQ(cudnnSetFilterNdDescriptor(f, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 9, nullptr), CUDNN_STATUS_NOT_SUPPORTED);
  EXPECT_FAILS_NAMING(cudnnSetFilterNdDescriptor(f, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 4, nullptr),
                      CUDNN_STATUS_BAD_PARAM, fnd, "filterDimA");
  EXPECT_FAILS_NAMING(cudnnSetFilter4dDescriptor(nullptr, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 1, 1, 1, 1),
                      CUDNN_STATUS_BAD_PARAM, fn4, "filterDesc");
  // None of these touched it.
  Nd nd = get_nd(f);
  EXPECT_EQ(nd.dtype, CUDNN_DATA_HALF);
  EXPECT_EQ(nd.format, CUDNN_TENSOR_NHWC);
  EXPECT_EQ(nd.nb, 8);
}

TEST(FilterDescriptor, LateFailureKeepsWhatWasCopied) {
  Filter f;
  set_used(f);
  EXPECT_FAILS_NAMING(cudnnSetFilter4dDescriptor(f, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 2, 8, -3, 5),
                      CUDNN_STATUS_BAD_PARAM, "cudnnSetFilter4dDescriptor", "h = -3");
  Four g = get_4d(f);
  EXPECT_EQ(g.dtype, CUDNN_DATA_FLOAT);
  EXPECT_EQ(g.format, CUDNN_TENSOR_NCHW);
  EXPECT_EQ(g.kcrs, (std::vector<int>{2, 8, 9, 9}));
  EXPECT_EQ(get_nd(f).nb, 4);
  EXPECT_EQ(size_of(f), 2u * 8 * 9 * 9 * 4);  // computed from what is stored now
  // With NCHW_VECT_C the C is only turned into vectors once all dims are in.
  const int dims[5] = {4, 8, 0, 5, 2};
  EXPECT_FAILS_NAMING(cudnnSetFilterNdDescriptor(f, CUDNN_DATA_INT8x4, CUDNN_TENSOR_NCHW_VECT_C, 5, dims),
                      CUDNN_STATUS_BAD_PARAM, "cudnnSetFilterNdDescriptor", "filterDimA[2] = 0");
  EXPECT_EQ(get_4d(f).kcrs, (std::vector<int>{4, 32, 9, 9}));  // 8 vectors of 4
}

TEST(FilterDescriptor, GetNdCopiesTheRequestedCount) {
  Filter f;
  set_used(f);
  const int dims[4] = {4, 8, 3, 5};
  ASSERT_EQ(cudnnSetFilterNdDescriptor(f, CUDNN_DATA_BFLOAT16, CUDNN_TENSOR_NCHW, 4, dims), CUDNN_STATUS_SUCCESS);
  for (int req = 1; req <= 8; ++req) {
    Nd nd = get_nd(f, req);
    ASSERT_EQ(nd.status, CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(nd.nb, 4);
    for (int i = 0; i < 8; ++i) {
      // Beyond the rank, the stale values of the earlier 8-dim setting.
      const int expect = i >= req ? kSentinel : i < 4 ? dims[i] : 9;
      EXPECT_EQ(nd.dims[i], expect) << req << " " << i;
    }
  }
  EXPECT_FAILS_NAMING(get_nd(f, 0).status, CUDNN_STATUS_BAD_PARAM, "cudnnGetFilterNdDescriptor", "nbDimsRequested");
  EXPECT_FAILS_NAMING(get_nd(f, 9).status, CUDNN_STATUS_NOT_SUPPORTED, "cudnnGetFilterNdDescriptor",
                      "nbDimsRequested");
  cudnnDataType_t dt;
  cudnnTensorFormat_t fmt;
  int nb, out[8];
  EXPECT_FAILS_NAMING(cudnnGetFilterNdDescriptor(f, 4, &dt, &fmt, &nb, nullptr), CUDNN_STATUS_BAD_PARAM,
                      "cudnnGetFilterNdDescriptor", "filterDimA");
  EXPECT_FAILS_NAMING(cudnnGetFilterNdDescriptor(f, 4, &dt, nullptr, &nb, out), CUDNN_STATUS_BAD_PARAM,
                      "cudnnGetFilterNdDescriptor", "format");
  EXPECT_FAILS_NAMING(cudnnGetFilter4dDescriptor(f, &dt, &fmt, out, nullptr, out + 2, out + 3), CUDNN_STATUS_BAD_PARAM,
                      "cudnnGetFilter4dDescriptor", "c is NULL");
  size_t z;
  EXPECT_FAILS_NAMING(cudnnGetFilterSizeInBytes(f, nullptr), CUDNN_STATUS_BAD_PARAM, "cudnnGetFilterSizeInBytes",
                      "size");
  EXPECT_FAILS_NAMING(cudnnGetFilterSizeInBytes(nullptr, &z), CUDNN_STATUS_BAD_PARAM, "cudnnGetFilterSizeInBytes",
                      "filterDesc");
}

TEST(FilterDescriptor, LargeFiltersHaveNoIntLimit) {
  Filter f;
  ASSERT_EQ(cudnnSetFilter4dDescriptor(f, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 65536, 65536, 2, 1),
            CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(size_of(f), 65536ull * 65536 * 2 * 4);
}

}  // namespace
