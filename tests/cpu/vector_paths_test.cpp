// The fast CPU engines' vector paths, through the public API:
//  - 16-bit float loads and stores (F16C for half, shifts for bfloat16),
//    with and without reading the prior output, odd row lengths (vector
//    body + scalar tail), special values (NaN, subnormals, rounding ties);
//  - contiguous reduction folds (four accumulators, prefetch) over rows of
//    every length around the vector widths and past the row-piece size, in
//    float and double;
//  - vectorised max+argmax for reductions with indices: ties (first wins),
//    NaNs in both NaN modes, signed zeros, strided rows.
#include <cudnn.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "common/buffer.hpp"
#include "common/random.hpp"
#include "common/reference.hpp"
#include "common/tensor_data.hpp"

using namespace fdnn_test;

namespace {

class CpuVectorPaths : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(cudnnCreate(&h), CUDNN_STATUS_SUCCESS); }
  void TearDown() override { cudnnDestroy(h); }

  HostTensor tensor(cudnnDataType_t t, const std::vector<int64_t> &dims, Layout layout = Layout::nchw) {
    HostTensor x = make_tensor(t, dims, packed_strides(dims, layout));
    fill_random(x, rng, -3, 3);
    return x;
  }

  // C = alpha * A + beta * C through cudnnAddTensor.
  void add(const HostTensor &a, HostTensor c, float alpha, float beta) {
    const auto want = reference_scale_add(alpha, &a, 0, beta, c, CUDNN_DATA_FLOAT);
    if (beta == 0) poison(c);
    TensorDesc ad(a), cd(c);
    Buffer ab = upload(a), cb = upload(c);
    ASSERT_EQ(cudnnAddTensor(h, &alpha, ad, ab.get(), &beta, cd, cb.get()), CUDNN_STATUS_SUCCESS);
    download(cb, c);
    EXPECT_TRUE(matches(c, want)) << type_name(c.dtype) << " alpha " << alpha << " beta " << beta;
  }

  void reduce(cudnnReduceTensorOp_t op, bool propagate, bool indices, const HostTensor &a, HostTensor c,
              cudnnDataType_t compute = CUDNN_DATA_FLOAT, float alpha = 1, float beta = 0) {
    cudnnReduceTensorDescriptor_t rd;
    cudnnCreateReduceTensorDescriptor(&rd);
    ASSERT_EQ(cudnnSetReduceTensorDescriptor(rd, op, compute, propagate ? CUDNN_PROPAGATE_NAN : CUDNN_NOT_PROPAGATE_NAN,
                                             indices ? CUDNN_REDUCE_TENSOR_FLATTENED_INDICES
                                                     : CUDNN_REDUCE_TENSOR_NO_INDICES,
                                             CUDNN_32BIT_INDICES),
              CUDNN_STATUS_SUCCESS);
    const ReduceExpect want = reference_reduce(op, propagate, alpha, a, beta, c, compute);
    if (beta == 0) poison(c);
    TensorDesc ad(a), cd(c);
    size_t ws = 0, is = 0;
    ASSERT_EQ(cudnnGetReductionWorkspaceSize(h, rd, ad, cd, &ws), CUDNN_STATUS_SUCCESS);
    ASSERT_EQ(cudnnGetReductionIndicesSize(h, rd, ad, cd, &is), CUDNN_STATUS_SUCCESS);
    Buffer ab = upload(a), cb = upload(c), wb(ws), ib(is);
    const double ad64 = alpha, bd64 = beta;
    const void *pa = compute == CUDNN_DATA_DOUBLE ? static_cast<const void *>(&ad64) : &alpha;
    const void *pb = compute == CUDNN_DATA_DOUBLE ? static_cast<const void *>(&bd64) : &beta;
    char msg[512];
    ASSERT_EQ(cudnnReduceTensor(h, rd, ib.get(), is, wb.get(), ws, pa, ad, ab.get(), pb, cd, cb.get()),
              CUDNN_STATUS_SUCCESS)
        << (cudnnGetLastErrorString(msg, sizeof msg), msg);
    download(cb, c);
    EXPECT_TRUE(matches(c, want.values)) << "op " << op << " propagate " << propagate << " rows of "
                                         << a.dims.back();
    if (indices) {
      std::vector<uint32_t> got(static_cast<size_t>(c.elements()));
      ib.download(got.data(), got.size() * 4);
      for (size_t i = 0; i < got.size(); ++i)
        if (static_cast<int64_t>(got[i]) != want.indices[i]) {
          ADD_FAILURE() << "op " << op << " propagate " << propagate << ": index " << i << " is " << got[i]
                        << ", want " << want.indices[i];
          break;
        }
    }
    cudnnDestroyReduceTensorDescriptor(rd);
  }

  cudnnHandle_t h = nullptr;
  Rng rng{test_seed(401)};
};

TEST_F(CpuVectorPaths, SixteenBitAddAndScaleWithOddRows) {
  const double nan = std::nan("");
  for (cudnnDataType_t t : {CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16}) {
    for (int64_t w : {1, 7, 8, 9, 37, 515}) {
      const std::vector<int64_t> dims = {3, 5, 2, w};
      HostTensor c = tensor(t, dims);
      HostTensor full = tensor(t, dims);
      // Special values pass through the vector body (and the tail when w is odd).
      full.set({0, 0, 0, 0}, nan);
      full.set({1, 1, 1, w - 1}, 1000.25);
      full.set({2, 2, 0, w / 2}, -3.0e-6);  // a half subnormal
      full.set({2, 3, 1, 0}, 1.00390625);  // a bfloat16 rounding tie (1 + 2^-8)
      HostTensor bias = tensor(t, {1, 5, 1, 1});
      add(full, c, 1, 1);      // read the prior C (in place)
      add(full, c, 0.5f, 0);   // prior never read: C poisoned
      add(bias, c, 1, 1);      // bias add
      add(bias, c, -2, 0.25f);
    }
    // cudnnScaleTensor: in place, the prior always read.
    HostTensor y = tensor(t, {2, 3, 11, 13});
    const auto want = reference_scale_add(0.5, &y, 0, 0, y, CUDNN_DATA_FLOAT);
    TensorDesc yd(y);
    Buffer yb = upload(y);
    const float alpha = 0.5f;
    ASSERT_EQ(cudnnScaleTensor(h, yd, yb.get(), &alpha), CUDNN_STATUS_SUCCESS);
    download(yb, y);
    EXPECT_TRUE(matches(y, want)) << type_name(t);
  }
}

TEST_F(CpuVectorPaths, ContiguousFoldsOfEveryRowLength) {
  // Rows around the vector widths (8, 32 floats; 4, 16 doubles), the
  // prefetch distance (256 floats) and past a row piece (16384 elements).
  for (int64_t w : {2, 3, 8, 31, 32, 33, 63, 257, 1000, 16385, 20000}) {
    const int64_t rows = std::max<int64_t>(2, 8000 / w);
    for (cudnnDataType_t t : {CUDNN_DATA_FLOAT, CUDNN_DATA_DOUBLE}) {
      HostTensor a = make_tensor(t, {rows, 1, 1, w}, packed_strides({rows, 1, 1, w}, Layout::nchw));
      fill_random(a, rng, 0.5, 1.5);  // positive: MUL (short rows only) stays finite
      HostTensor c = make_tensor(t, {rows, 1, 1, 1}, {1, 1, 1, 1});
      fill_random(c, rng, -1, 1);
      for (auto op : {CUDNN_REDUCE_TENSOR_ADD, CUDNN_REDUCE_TENSOR_AVG, CUDNN_REDUCE_TENSOR_NORM1,
                      CUDNN_REDUCE_TENSOR_NORM2, CUDNN_REDUCE_TENSOR_MAX, CUDNN_REDUCE_TENSOR_MIN,
                      CUDNN_REDUCE_TENSOR_AMAX})
        reduce(op, false, false, a, c, t, 2, 0);
      reduce(CUDNN_REDUCE_TENSOR_ADD, false, false, a, c, t, 1, 0.5f);
      if (w <= 63) reduce(CUDNN_REDUCE_TENSOR_MUL, false, false, a, c, t);
    }
  }
  // Negative values and a NaN in one row: sums propagate it, MAX skips it.
  HostTensor a = tensor(CUDNN_DATA_FLOAT, {7, 1, 3, 333});
  a.set({4, 0, 1, 200}, std::nan(""));
  HostTensor c = make_tensor(CUDNN_DATA_FLOAT, {7, 1, 1, 1}, {1, 1, 1, 1});
  for (auto op : {CUDNN_REDUCE_TENSOR_ADD, CUDNN_REDUCE_TENSOR_NORM2, CUDNN_REDUCE_TENSOR_MAX, CUDNN_REDUCE_TENSOR_AMAX})
    for (bool propagate : {false, true}) reduce(op, propagate, false, a, c);
}

TEST_F(CpuVectorPaths, ArgmaxTiesNansAndSignedZeros) {
  const double nan = std::nan("");
  for (int64_t w : {5, 8, 100, 513, 1030, 20000}) {
    HostTensor a = tensor(CUDNN_DATA_FLOAT, {6, 1, 1, w});
    // Row 0: the maximum twice, in different 512-blocks when w allows.
    a.set({0, 0, 0, w / 3}, 9.0);
    a.set({0, 0, 0, w - 1}, 9.0);
    a.set({0, 0, 0, w / 2}, -9.0);
    a.set({0, 0, 0, 0}, -9.0);
    // Row 1: NaNs early and late.
    a.set({1, 0, 0, w - 1}, nan);
    a.set({1, 0, 0, w / 4}, nan);
    // Row 2: all NaN.
    for (int64_t i = 0; i < w; ++i) a.set({2, 0, 0, i}, nan);
    // Row 3: zeros of both signs only.
    for (int64_t i = 0; i < w; ++i) a.set({3, 0, 0, i}, i % 3 == 1 ? -0.0 : 0.0);
    // Row 4: NaN first, then numbers.
    a.set({4, 0, 0, 0}, nan);
    HostTensor c = make_tensor(CUDNN_DATA_FLOAT, {6, 1, 1, 1}, {1, 1, 1, 1});
    for (auto op : {CUDNN_REDUCE_TENSOR_MAX, CUDNN_REDUCE_TENSOR_MIN, CUDNN_REDUCE_TENSOR_AMAX})
      for (bool propagate : {false, true}) reduce(op, propagate, true, a, c);
  }
  // Strided rows (the reduced dimension is not the contiguous one) and a
  // half input (converted into blocks first).
  HostTensor s = tensor(CUDNN_DATA_FLOAT, {4, 700, 3, 1}, Layout::nhwc);
  s.set({1, 650, 2, 0}, 7.0);
  s.set({1, 10, 2, 0}, 7.0);
  HostTensor cs = make_tensor(CUDNN_DATA_FLOAT, {4, 1, 3, 1}, packed_strides({4, 1, 3, 1}, Layout::nchw));
  for (bool propagate : {false, true}) reduce(CUDNN_REDUCE_TENSOR_MAX, propagate, true, s, cs);
  HostTensor hh = tensor(CUDNN_DATA_HALF, {3, 1, 2, 999});
  HostTensor ch = make_tensor(CUDNN_DATA_HALF, {3, 1, 2, 1}, packed_strides({3, 1, 2, 1}, Layout::nchw));
  reduce(CUDNN_REDUCE_TENSOR_AMAX, false, true, hh, ch);
}

}  // namespace
