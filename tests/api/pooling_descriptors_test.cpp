// The pooling descriptor and the output-dimension queries, against the
// behaviour of cuDNN 9.19 measured on its library (see
// src/api/pooling_descriptors.cpp).
#include <cudnn.h>
#include <gtest/gtest.h>

#include "common/expect_status.hpp"

namespace {

struct Pool {
  cudnnPoolingDescriptor_t d = nullptr;
  Pool() { EXPECT_EQ(cudnnCreatePoolingDescriptor(&d), CUDNN_STATUS_SUCCESS); }
  ~Pool() { cudnnDestroyPoolingDescriptor(d); }
};

struct Tensor4 {
  cudnnTensorDescriptor_t d = nullptr;
  Tensor4(int n, int c, int h, int w) {
    cudnnCreateTensorDescriptor(&d);
    EXPECT_EQ(cudnnSetTensor4dDescriptor(d, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, n, c, h, w), CUDNN_STATUS_SUCCESS);
  }
  Tensor4(int nb, const int *dims) {
    cudnnCreateTensorDescriptor(&d);
    int strides[8];
    int s = 1;
    for (int i = nb - 1; i >= 0; --i) {
      strides[i] = s;
      s *= dims[i];
    }
    EXPECT_EQ(cudnnSetTensorNdDescriptor(d, CUDNN_DATA_FLOAT, nb, dims, strides), CUDNN_STATUS_SUCCESS);
  }
  ~Tensor4() { cudnnDestroyTensorDescriptor(d); }
};

TEST(PoolingDescriptors, Set2dGet2dAndValidation) {
  Pool p;
  cudnnPoolingMode_t m;
  cudnnNanPropagation_t n;
  int a[6];
  // A created descriptor reads as zeros.
  ASSERT_EQ(cudnnGetPooling2dDescriptor(p.d, &m, &n, &a[0], &a[1], &a[2], &a[3], &a[4], &a[5]), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(a[0], 0);
  ASSERT_EQ(cudnnSetPooling2dDescriptor(p.d, CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING, CUDNN_PROPAGATE_NAN, 3, 2, 1,
                                        -1, 2, 1),
            CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(cudnnGetPooling2dDescriptor(p.d, &m, &n, &a[0], &a[1], &a[2], &a[3], &a[4], &a[5]), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(m, CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING);
  EXPECT_EQ(n, CUDNN_PROPAGATE_NAN);
  EXPECT_EQ(a[0], 3);
  EXPECT_EQ(a[1], 2);
  EXPECT_EQ(a[2], 1);
  EXPECT_EQ(a[3], -1);  // paddings are not checked
  EXPECT_EQ(a[4], 2);
  EXPECT_EQ(a[5], 1);
  // Padding as large as the window is accepted too.
  EXPECT_EQ(cudnnSetPooling2dDescriptor(p.d, CUDNN_POOLING_MAX, CUDNN_NOT_PROPAGATE_NAN, 3, 3, 4, 3, 1, 1),
            CUDNN_STATUS_SUCCESS);
  const auto bad = [&](int mode, int nan, int wh, int ww, int sh, int sw, const char *needle) {
    EXPECT_FAILS_NAMING(cudnnSetPooling2dDescriptor(p.d, static_cast<cudnnPoolingMode_t>(mode),
                                                    static_cast<cudnnNanPropagation_t>(nan), wh, ww, 0, 0, sh, sw),
                        CUDNN_STATUS_BAD_PARAM, "cudnnSetPooling2dDescriptor", needle);
  };
  bad(4, 0, 3, 3, 1, 1, "mode");
  bad(-1, 0, 3, 3, 1, 1, "mode");
  bad(0, 2, 3, 3, 1, 1, "maxpoolingNanOpt");
  bad(0, 0, 0, 3, 1, 1, "window");
  bad(0, 0, 3, -1, 1, 1, "window");
  bad(0, 0, 3, 3, 0, 1, "stride");
  bad(0, 0, 3, 3, 1, -2, "stride");
  EXPECT_FAILS_NAMING(cudnnSetPooling2dDescriptor(nullptr, CUDNN_POOLING_MAX, CUDNN_NOT_PROPAGATE_NAN, 3, 3, 0, 0, 1, 1),
                      CUDNN_STATUS_BAD_PARAM, "cudnnSetPooling2dDescriptor", "poolingDesc");
  EXPECT_FAILS_NAMING(cudnnGetPooling2dDescriptor(p.d, nullptr, &n, &a[0], &a[1], &a[2], &a[3], &a[4], &a[5]),
                      CUDNN_STATUS_BAD_PARAM, "cudnnGetPooling2dDescriptor", "mode");
  EXPECT_EQ(cudnnCreatePoolingDescriptor(nullptr), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnDestroyPoolingDescriptor(nullptr), CUDNN_STATUS_SUCCESS);
}

TEST(PoolingDescriptors, NdRanksStaleEntriesAndPartialSets) {
  Pool p;
  cudnnPoolingMode_t m;
  cudnnNanPropagation_t n;
  int nb, w[6], pd[6], st[6];
  const int w6[6] = {5, 5, 5, 5, 5, 5}, p6[6] = {1, 1, 1, 1, 1, 1}, s6[6] = {2, 2, 2, 2, 2, 2};
  ASSERT_EQ(cudnnSetPoolingNdDescriptor(p.d, CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING, CUDNN_PROPAGATE_NAN, 6, w6,
                                        p6, s6),
            CUDNN_STATUS_SUCCESS);
  EXPECT_FAILS_NAMING(cudnnSetPoolingNdDescriptor(p.d, CUDNN_POOLING_MAX, CUDNN_NOT_PROPAGATE_NAN, 7, w6, p6, s6),
                      CUDNN_STATUS_NOT_SUPPORTED, "cudnnSetPoolingNdDescriptor", "nbDims");
  EXPECT_FAILS_NAMING(cudnnSetPoolingNdDescriptor(p.d, CUDNN_POOLING_MAX, CUDNN_NOT_PROPAGATE_NAN, 0, w6, p6, s6),
                      CUDNN_STATUS_BAD_PARAM, "cudnnSetPoolingNdDescriptor", "nbDims");
  // A failing Set keeps what it wrote before the bad value (cuDNN's order).
  const int wb[3] = {4, 0, 4}, z[3] = {0, 0, 0}, one[3] = {1, 1, 1};
  EXPECT_EQ(cudnnSetPoolingNdDescriptor(p.d, CUDNN_POOLING_MAX, CUDNN_NOT_PROPAGATE_NAN, 3, wb, z, one),
            CUDNN_STATUS_BAD_PARAM);
  ASSERT_EQ(cudnnGetPoolingNdDescriptor(p.d, 6, &m, &n, &nb, w, pd, st), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(m, CUDNN_POOLING_MAX);
  EXPECT_EQ(nb, 3);
  EXPECT_EQ(w[0], 4);
  EXPECT_EQ(w[1], 5);
  EXPECT_EQ(pd[0], 0);
  EXPECT_EQ(pd[1], 1);
  EXPECT_EQ(st[0], 1);
  EXPECT_EQ(st[1], 2);
  // A 2-d set keeps the stale entries beyond it; Get copies what is asked.
  ASSERT_EQ(cudnnSetPooling2dDescriptor(p.d, CUDNN_POOLING_MAX, CUDNN_NOT_PROPAGATE_NAN, 2, 2, 0, 0, 1, 1),
            CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(cudnnGetPoolingNdDescriptor(p.d, 4, &m, &n, &nb, w, pd, st), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(nb, 2);
  EXPECT_EQ(w[2], 5);
  EXPECT_EQ(w[3], 5);
  EXPECT_FAILS_NAMING(cudnnGetPoolingNdDescriptor(p.d, 7, &m, &n, &nb, w, pd, st), CUDNN_STATUS_NOT_SUPPORTED,
                      "cudnnGetPoolingNdDescriptor", "nbDimsRequested");
  EXPECT_EQ(cudnnGetPoolingNdDescriptor(p.d, 0, &m, &n, &nb, nullptr, nullptr, nullptr), CUDNN_STATUS_SUCCESS);
  EXPECT_FAILS_NAMING(cudnnGetPoolingNdDescriptor(nullptr, 2, &m, &n, &nb, w, pd, st), CUDNN_STATUS_BAD_PARAM,
                      "cudnnGetPoolingNdDescriptor", "poolingDesc");
  EXPECT_FAILS_NAMING(cudnnSetPoolingNdDescriptor(p.d, CUDNN_POOLING_MAX, CUDNN_NOT_PROPAGATE_NAN, 2, nullptr, z, one),
                      CUDNN_STATUS_BAD_PARAM, "cudnnSetPoolingNdDescriptor", "windowDimA");
  // Get2d reports the first two entries whatever the rank.
  const int w3[3] = {2, 3, 4}, p3[3] = {1, 0, 2}, s3[3] = {1, 2, 3};
  ASSERT_EQ(cudnnSetPoolingNdDescriptor(p.d, CUDNN_POOLING_MAX, CUDNN_NOT_PROPAGATE_NAN, 3, w3, p3, s3),
            CUDNN_STATUS_SUCCESS);
  int a[6];
  ASSERT_EQ(cudnnGetPooling2dDescriptor(p.d, &m, &n, &a[0], &a[1], &a[2], &a[3], &a[4], &a[5]), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(a[0], 2);
  EXPECT_EQ(a[1], 3);
  EXPECT_EQ(a[5], 2);
}

TEST(PoolingDescriptors, OutputDims) {
  Pool p;
  Tensor4 t(2, 3, 10, 11);
  struct Case {
    int wh, ww, ph, pw, sh, sw;
    cudnnStatus_t status;
    int h, w;
  } cases[] = {
      {3, 3, 1, 1, 2, 2, CUDNN_STATUS_SUCCESS, 5, 6},   {3, 3, 0, 0, 1, 1, CUDNN_STATUS_SUCCESS, 8, 9},
      {11, 3, 0, 0, 1, 1, CUDNN_STATUS_BAD_PARAM, 0, 0}, {14, 3, 2, 0, 1, 1, CUDNN_STATUS_SUCCESS, 1, 9},
      {3, 3, -1, -1, 1, 1, CUDNN_STATUS_SUCCESS, 6, 7}, {3, 3, -5, 0, 1, 1, CUDNN_STATUS_BAD_PARAM, 0, 0},
      {3, 3, 4, 4, 1, 1, CUDNN_STATUS_SUCCESS, 16, 17}, {2, 2, 0, 0, 20, 20, CUDNN_STATUS_SUCCESS, 1, 1},
  };
  for (const Case &c : cases) {
    ASSERT_EQ(cudnnSetPooling2dDescriptor(p.d, CUDNN_POOLING_MAX, CUDNN_NOT_PROPAGATE_NAN, c.wh, c.ww, c.ph, c.pw, c.sh,
                                          c.sw),
              CUDNN_STATUS_SUCCESS);
    int n = -7, ch = -7, h = -7, w = -7;
    EXPECT_EQ(cudnnGetPooling2dForwardOutputDim(p.d, t.d, &n, &ch, &h, &w), c.status);
    EXPECT_EQ(n, 2);
    EXPECT_EQ(ch, 3);
    EXPECT_EQ(h, c.h);
    EXPECT_EQ(w, c.w);
    int o[4] = {-7, -7, -7, -7};
    EXPECT_EQ(cudnnGetPoolingNdForwardOutputDim(p.d, t.d, 4, o), c.status);
    EXPECT_EQ(o[0], 2);
    if (c.status == CUDNN_STATUS_SUCCESS) {
      EXPECT_EQ(o[2], c.h);
      EXPECT_EQ(o[3], c.w);
    }
  }
  int o[8];
  for (int nb : {-1, 0, 3, 5, 9})
    EXPECT_EQ(cudnnGetPoolingNdForwardOutputDim(p.d, t.d, nb, o), CUDNN_STATUS_BAD_PARAM) << nb;
  const int d5[5] = {2, 3, 4, 5, 6};
  Tensor4 t5(5, d5);
  int n, c, h, w;
  EXPECT_FAILS_NAMING(cudnnGetPooling2dForwardOutputDim(p.d, t5.d, &n, &c, &h, &w), CUDNN_STATUS_BAD_PARAM,
                      "cudnnGetPooling2dForwardOutputDim", "inputDesc");
  EXPECT_EQ(cudnnGetPoolingNdForwardOutputDim(p.d, t5.d, 5, o), CUDNN_STATUS_BAD_PARAM);
  const int w3[3] = {2, 3, 4}, p3[3] = {1, 0, 2}, s3[3] = {1, 2, 3};
  ASSERT_EQ(cudnnSetPoolingNdDescriptor(p.d, CUDNN_POOLING_MAX, CUDNN_NOT_PROPAGATE_NAN, 3, w3, p3, s3),
            CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(cudnnGetPoolingNdForwardOutputDim(p.d, t5.d, 5, o), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(o[2], 5);
  EXPECT_EQ(o[3], 2);
  EXPECT_EQ(o[4], 3);
  EXPECT_EQ(cudnnGetPooling2dForwardOutputDim(p.d, t.d, &n, &c, &h, &w), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnGetPoolingNdForwardOutputDim(p.d, t5.d, 4, o), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnGetPoolingNdForwardOutputDim(nullptr, t5.d, 5, o), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnGetPoolingNdForwardOutputDim(p.d, nullptr, 5, o), CUDNN_STATUS_BAD_PARAM);
  cudnnTensorDescriptor_t unset;
  cudnnCreateTensorDescriptor(&unset);
  EXPECT_EQ(cudnnGetPoolingNdForwardOutputDim(p.d, unset, 5, o), CUDNN_STATUS_BAD_PARAM);
  cudnnDestroyTensorDescriptor(unset);
}

}  // namespace
