// The fast pointwise engine's own paths, through the public API with
// problems large enough to reach them: parallel rows, long rows cut into
// pieces, tiled layout changes (direct transposes and the gather + convert
// pipeline, short merged rows), streaming stores of large outputs, vector
// formats. Results are checked against the float64 references.
#include <cudnn.h>
#include <gtest/gtest.h>

#include <vector>

#include "common/buffer.hpp"
#include "common/random.hpp"
#include "common/reference.hpp"
#include "common/tensor_data.hpp"

using namespace fdnn_test;

namespace {

class CpuPointwiseEngine : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(cudnnCreate(&h), CUDNN_STATUS_SUCCESS); }
  void TearDown() override { cudnnDestroy(h); }

  HostTensor tensor(cudnnDataType_t t, const std::vector<int64_t> &dims, Layout layout, double lo = -4, double hi = 4) {
    HostTensor x = make_tensor(t, dims, packed_strides(dims, layout, vector_lanes(t)));
    fill_random(x, rng, lo, hi);
    return x;
  }

  // y = alpha * x + beta * y through cudnnTransformTensor.
  void transform(const HostTensor &x, HostTensor y, double alpha, double beta) {
    const auto want = reference_scale_add(static_cast<float>(alpha), &x, 0, static_cast<float>(beta), y,
                                          CUDNN_DATA_FLOAT);
    if (beta == 0) poison(y);
    TensorDesc xd(x), yd(y);
    Buffer xb = upload(x), yb = upload(y);
    const float a = static_cast<float>(alpha), b = static_cast<float>(beta);
    ASSERT_EQ(cudnnTransformTensor(h, &a, xd, xb.get(), &b, yd, yb.get()), CUDNN_STATUS_SUCCESS);
    download(yb, y);
    EXPECT_TRUE(matches(y, want));
  }

  cudnnHandle_t h = nullptr;
  Rng rng{test_seed(201)};
};

TEST_F(CpuPointwiseEngine, NchwToNhwcAndBackCopies) {
  const std::vector<int64_t> dims = {2, 64, 56, 56};
  HostTensor nchw = tensor(CUDNN_DATA_FLOAT, dims, Layout::nchw), nhwc = tensor(CUDNN_DATA_FLOAT, dims, Layout::nhwc);
  transform(nchw, nhwc, 1, 0);
  transform(nhwc, nchw, 1, 0);
}

TEST_F(CpuPointwiseEngine, LayoutChangeWithScalingAndBlend) {
  const std::vector<int64_t> dims = {3, 40, 33, 17};  // ragged tile edges
  for (auto t : {CUDNN_DATA_FLOAT, CUDNN_DATA_HALF, CUDNN_DATA_DOUBLE, CUDNN_DATA_INT8}) {
    HostTensor nchw = tensor(t, dims, Layout::nchw), nhwc = tensor(t, dims, Layout::nhwc);
    if (t == CUDNN_DATA_DOUBLE) {
      // Doubles take double scaling factors; go through the generic helper.
      const double a = 2, b = 0.5;
      const auto want = reference_scale_add(a, &nchw, 0, b, nhwc, CUDNN_DATA_DOUBLE);
      TensorDesc xd(nchw), yd(nhwc);
      Buffer xb = upload(nchw), yb = upload(nhwc);
      ASSERT_EQ(cudnnTransformTensor(h, &a, xd, xb.get(), &b, yd, yb.get()), CUDNN_STATUS_SUCCESS);
      download(yb, nhwc);
      EXPECT_TRUE(matches(nhwc, want));
      continue;
    }
    transform(nchw, nhwc, 2, 0.5);
    transform(nhwc, nchw, -1, 0);
  }
}

TEST_F(CpuPointwiseEngine, FewChannelsMergeRows) {
  const std::vector<int64_t> dims = {2, 3, 150, 170};
  for (auto t : {CUDNN_DATA_HALF, CUDNN_DATA_FLOAT, CUDNN_DATA_INT8}) {  // (transforms take no UINT8)
    HostTensor nchw = tensor(t, dims, Layout::nchw, 0, 100), nhwc = tensor(t, dims, Layout::nhwc, 0, 100);
    transform(nchw, nhwc, 1, 0);
    transform(nhwc, nchw, 1, 0);
    transform(nchw, nhwc, 0.5, 0);
  }
}

TEST_F(CpuPointwiseEngine, VectorFormatsLarge) {
  const std::vector<int64_t> dims = {4, 64, 31, 33};
  HostTensor i8 = tensor(CUDNN_DATA_INT8, dims, Layout::nchw, -100, 100);
  HostTensor v4 = tensor(CUDNN_DATA_INT8x4, dims, Layout::vect_c, -100, 100);
  HostTensor i8_nhwc = tensor(CUDNN_DATA_INT8, dims, Layout::nhwc, -100, 100);
  HostTensor f_nhwc = tensor(CUDNN_DATA_FLOAT, dims, Layout::nhwc, -100, 100);
  // (cuDNN 9's transforms refuse INT8x32 and UINT8x4; INT8x4 converts.)
  transform(i8, v4, 1, 0);
  transform(v4, i8, 1, 0);
  transform(v4, i8_nhwc, 1, 0);
  transform(i8_nhwc, v4, 1, 1);
  transform(f_nhwc, v4, 0.5, 0);
  transform(v4, f_nhwc, 1, 0.5);
}

TEST_F(CpuPointwiseEngine, ConvertingOpIntoOtherLayout) {
  // C (half, NHWC) = A (float, NCHW) + bias B (float, 1xCx1x1): a tiled
  // layout change through the load / compute / store pipeline.
  const std::vector<int64_t> dims = {2, 48, 20, 30};
  HostTensor a = tensor(CUDNN_DATA_FLOAT, dims, Layout::nchw);
  HostTensor b = tensor(CUDNN_DATA_FLOAT, {1, 48, 1, 1}, Layout::nchw);
  HostTensor c = tensor(CUDNN_DATA_HALF, dims, Layout::nhwc);
  cudnnOpTensorDescriptor_t od;
  cudnnCreateOpTensorDescriptor(&od);
  cudnnSetOpTensorDescriptor(od, CUDNN_OP_TENSOR_ADD, CUDNN_DATA_FLOAT, CUDNN_NOT_PROPAGATE_NAN);
  const float one = 1, half_ = 0.5f, beta = 0.25f;
  const auto want = reference_op_tensor(CUDNN_OP_TENSOR_ADD, false, 1, a, 0.5, &b, 0.25, c, CUDNN_DATA_FLOAT);
  TensorDesc ad(a), bd(b), cd(c);
  Buffer ab = upload(a), bb = upload(b), cb = upload(c);
  ASSERT_EQ(cudnnOpTensor(h, od, &one, ad, ab.get(), &half_, bd, bb.get(), &beta, cd, cb.get()), CUDNN_STATUS_SUCCESS);
  download(cb, c);
  EXPECT_TRUE(matches(c, want));
  cudnnDestroyOpTensorDescriptor(od);
}

TEST_F(CpuPointwiseEngine, LongRowsAndPaddedShortRows) {
  // One long contiguous row (cut into pieces for the threads).
  HostTensor x = tensor(CUDNN_DATA_FLOAT, {1, 1, 1, 200001}, Layout::nchw);
  HostTensor y = tensor(CUDNN_DATA_FLOAT, {1, 1, 1, 200001}, Layout::nchw);
  transform(x, y, 3, -1);
  // Many short rows with gaps between them (nothing merges).
  const std::vector<int64_t> dims = {500, 3, 7};
  HostTensor p = make_tensor(CUDNN_DATA_FLOAT, dims, {40, 10, 1});
  fill_random(p, rng, -4, 4);
  HostTensor q = make_tensor(CUDNN_DATA_FLOAT, dims, {1, 500 * 7 + 3, 500});
  fill_random(q, rng, -4, 4);
  transform(p, q, 1, 0);
  transform(q, p, 2, 1);
}

TEST_F(CpuPointwiseEngine, LargeOutputsUseStreamingStores) {
  // 18 MiB of output: the streaming-store path, for a scale, a fill and a copy.
  const std::vector<int64_t> dims = {1, 8, 512, 1152};
  HostTensor y = tensor(CUDNN_DATA_FLOAT, dims, Layout::nchw);
  TensorDesc yd(y);
  {
    const float alpha = 3;
    const auto want = reference_scale_add(3, &y, 0, 0, y, CUDNN_DATA_FLOAT);
    Buffer yb = upload(y);
    ASSERT_EQ(cudnnScaleTensor(h, yd, yb.get(), &alpha), CUDNN_STATUS_SUCCESS);
    HostTensor got = y;
    download(yb, got);
    EXPECT_TRUE(matches(got, want));
  }
  {
    HostTensor got = y;
    poison(got);
    Buffer yb = upload(got);
    const float v = -1.25f;
    ASSERT_EQ(cudnnSetTensor(h, yd, yb.get(), &v), CUDNN_STATUS_SUCCESS);
    download(yb, got);
    EXPECT_TRUE(matches(got, std::vector<Expect>(static_cast<size_t>(got.elements()), Expect{-1.25, 0})));
  }
  HostTensor z = tensor(CUDNN_DATA_FLOAT, dims, Layout::nchw);
  transform(y, z, 1, 0);
  // Layout changes of that size stream their transposed tiles.
  HostTensor w = tensor(CUDNN_DATA_FLOAT, dims, Layout::nhwc);
  transform(y, w, 1, 0);
  transform(w, z, 1, 0);
}

// An 18 MiB OpTensor output with beta = 0: the general rows path with
// streaming stores and its input prefetch ahead of each block (the last
// blocks of each piece prefetch past it), into a NaN-poisoned C.
TEST_F(CpuPointwiseEngine, LargeOpTensorStreamsWithPrefetch) {
  const std::vector<int64_t> dims = {1, 8, 512, 1031};  // 16.9 MB; rows of an odd length: partial last blocks
  HostTensor a = tensor(CUDNN_DATA_FLOAT, dims, Layout::nchw);
  HostTensor b = tensor(CUDNN_DATA_FLOAT, dims, Layout::nchw);
  HostTensor c = tensor(CUDNN_DATA_FLOAT, dims, Layout::nchw);
  const float alpha1 = 1.5f, alpha2 = -2, beta = 0;
  const auto want = reference_op_tensor(CUDNN_OP_TENSOR_ADD, false, alpha1, a, alpha2, &b, beta, c, CUDNN_DATA_FLOAT);
  poison(c);
  cudnnOpTensorDescriptor_t od;
  ASSERT_EQ(cudnnCreateOpTensorDescriptor(&od), CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(cudnnSetOpTensorDescriptor(od, CUDNN_OP_TENSOR_ADD, CUDNN_DATA_FLOAT, CUDNN_NOT_PROPAGATE_NAN),
            CUDNN_STATUS_SUCCESS);
  TensorDesc ad(a), bd(b), cd(c);
  Buffer ab = upload(a), bb = upload(b), cb = upload(c);
  EXPECT_EQ(cudnnOpTensor(h, od, &alpha1, ad, ab.get(), &alpha2, bd, bb.get(), &beta, cd, cb.get()),
            CUDNN_STATUS_SUCCESS);
  cudnnDestroyOpTensorDescriptor(od);
  download(cb, c);
  EXPECT_TRUE(matches(c, want));
}

// The same size through cudnnAddTensor with beta != 0 (a per-channel bias
// added in place): the rows that prefetch y for writing.
TEST_F(CpuPointwiseEngine, LargeAddTensorInPlacePrefetchesY) {
  const std::vector<int64_t> dims = {1, 8, 512, 1031};
  HostTensor bias = tensor(CUDNN_DATA_FLOAT, {1, 8, 1, 1}, Layout::nchw);
  HostTensor c = tensor(CUDNN_DATA_FLOAT, dims, Layout::nchw);
  const float alpha = 0.5f, beta = 1.25f;
  const auto want = reference_scale_add(alpha, &bias, 0, beta, c, CUDNN_DATA_FLOAT);
  TensorDesc bd(bias), cd(c);
  Buffer bb = upload(bias), cb = upload(c);
  EXPECT_EQ(cudnnAddTensor(h, &alpha, bd, bb.get(), &beta, cd, cb.get()), CUDNN_STATUS_SUCCESS);
  download(cb, c);
  EXPECT_TRUE(matches(c, want));
}

TEST_F(CpuPointwiseEngine, BetaZeroNeverReadsOutput) {
  // NaN everywhere in y, beta = 0: no NaN may survive, for every path.
  for (auto layout : {Layout::nchw, Layout::nhwc}) {
    HostTensor x = tensor(CUDNN_DATA_FLOAT, {2, 16, 40, 40}, Layout::nchw);
    HostTensor y = tensor(CUDNN_DATA_FLOAT, {2, 16, 40, 40}, layout);
    transform(x, y, 0.5, 0);  // transform() poisons y for beta == 0
  }
}

}  // namespace
