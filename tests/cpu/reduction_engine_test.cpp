// The fast reduction engine's own paths through the public API: full
// reductions split across threads (partial results combined in order),
// inner and outer reductions, indices across split parts (first occurrence
// wins), NaN rules on large inputs, half inputs accumulated in float.
#include <cudnn.h>
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "common/buffer.hpp"
#include "common/random.hpp"
#include "common/reference.hpp"
#include "common/tensor_data.hpp"

using namespace fdnn_test;

namespace {

class CpuReductionEngine : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(cudnnCreate(&h), CUDNN_STATUS_SUCCESS); }
  void TearDown() override { cudnnDestroy(h); }

  HostTensor tensor(cudnnDataType_t t, const std::vector<int64_t> &dims, Layout layout = Layout::nchw) {
    HostTensor x = make_tensor(t, dims, packed_strides(dims, layout));
    fill_random(x, rng, -1, 1);
    return x;
  }

  // Reduces a into c's shape and checks values (and indices when asked).
  void reduce(cudnnReduceTensorOp_t op, bool propagate, bool indices, const HostTensor &a, HostTensor c,
              double alpha = 1, double beta = 0) {
    cudnnReduceTensorDescriptor_t rd;
    cudnnCreateReduceTensorDescriptor(&rd);
    ASSERT_EQ(cudnnSetReduceTensorDescriptor(rd, op, CUDNN_DATA_FLOAT,
                                             propagate ? CUDNN_PROPAGATE_NAN : CUDNN_NOT_PROPAGATE_NAN,
                                             indices ? CUDNN_REDUCE_TENSOR_FLATTENED_INDICES
                                                     : CUDNN_REDUCE_TENSOR_NO_INDICES,
                                             CUDNN_32BIT_INDICES),
              CUDNN_STATUS_SUCCESS);
    const float af = static_cast<float>(alpha), bf = static_cast<float>(beta);
    const ReduceExpect want = reference_reduce(op, propagate, af, a, bf, c, CUDNN_DATA_FLOAT);
    if (beta == 0) poison(c);
    TensorDesc ad(a), cd(c);
    size_t ws = 0, is = 0;
    ASSERT_EQ(cudnnGetReductionWorkspaceSize(h, rd, ad, cd, &ws), CUDNN_STATUS_SUCCESS);
    ASSERT_EQ(cudnnGetReductionIndicesSize(h, rd, ad, cd, &is), CUDNN_STATUS_SUCCESS);
    Buffer ab = upload(a), cb = upload(c), wb(ws), ib(is);
    ASSERT_EQ(cudnnReduceTensor(h, rd, ib.get(), is, wb.get(), ws, &af, ad, ab.get(), &bf, cd, cb.get()),
              CUDNN_STATUS_SUCCESS);
    download(cb, c);
    EXPECT_TRUE(matches(c, want.values)) << "op " << op;
    if (indices) {
      std::vector<uint32_t> got(static_cast<size_t>(c.elements()));
      ib.download(got.data(), got.size() * 4);
      for (size_t i = 0; i < got.size(); ++i)
        if (static_cast<int64_t>(got[i]) != want.indices[i]) {
          ADD_FAILURE() << "op " << op << ": index " << i << " is " << got[i] << ", want " << want.indices[i];
          break;
        }
    }
    cudnnDestroyReduceTensorDescriptor(rd);
  }

  cudnnHandle_t h = nullptr;
  Rng rng{test_seed(301)};
};

TEST_F(CpuReductionEngine, FullReductionsSplitAcrossThreads) {
  HostTensor a = tensor(CUDNN_DATA_FLOAT, {1, 1, 1000, 1000});
  HostTensor c = make_tensor(CUDNN_DATA_FLOAT, {1, 1, 1, 1}, {1, 1, 1, 1});
  for (auto op : {CUDNN_REDUCE_TENSOR_ADD, CUDNN_REDUCE_TENSOR_AVG, CUDNN_REDUCE_TENSOR_NORM1,
                  CUDNN_REDUCE_TENSOR_NORM2, CUDNN_REDUCE_TENSOR_MAX, CUDNN_REDUCE_TENSOR_AMAX})
    reduce(op, false, false, a, c, 2, 0);
  reduce(CUDNN_REDUCE_TENSOR_ADD, false, false, a, c, 1, 1);
}

TEST_F(CpuReductionEngine, IndicesAcrossSplitPartsKeepTheFirstOccurrence) {
  HostTensor a = tensor(CUDNN_DATA_FLOAT, {1, 1, 1000, 1000});
  // The same extreme value early and late: the early one must win even
  // though another thread finds the late one.
  a.set({0, 0, 10, 7}, 5.0);
  a.set({0, 0, 990, 3}, 5.0);
  a.set({0, 0, 20, 1}, -5.0);
  a.set({0, 0, 900, 2}, -5.0);
  HostTensor c = make_tensor(CUDNN_DATA_FLOAT, {1, 1, 1, 1}, {1, 1, 1, 1});
  for (auto op : {CUDNN_REDUCE_TENSOR_MAX, CUDNN_REDUCE_TENSOR_MIN, CUDNN_REDUCE_TENSOR_AMAX})
    reduce(op, false, true, a, c);
}

TEST_F(CpuReductionEngine, InnerAndOuterReductions) {
  HostTensor a = tensor(CUDNN_DATA_FLOAT, {64, 8, 16, 40});
  // Outer: the kept dimensions are the contiguous ones.
  HostTensor c_n = make_tensor(CUDNN_DATA_FLOAT, {1, 8, 16, 40}, packed_strides({1, 8, 16, 40}, Layout::nchw));
  fill_random(c_n, rng, -1, 1);
  // Inner: the contiguous dimension is reduced.
  HostTensor c_w = make_tensor(CUDNN_DATA_FLOAT, {64, 8, 16, 1}, packed_strides({64, 8, 16, 1}, Layout::nchw));
  fill_random(c_w, rng, -1, 1);
  // Mixed: N and H reduced, C and W kept, from an NHWC input.
  HostTensor a_nhwc = tensor(CUDNN_DATA_FLOAT, {64, 8, 16, 40}, Layout::nhwc);
  HostTensor c_nh = make_tensor(CUDNN_DATA_FLOAT, {1, 8, 1, 40}, packed_strides({1, 8, 1, 40}, Layout::nhwc));
  fill_random(c_nh, rng, -1, 1);
  for (auto op : {CUDNN_REDUCE_TENSOR_ADD, CUDNN_REDUCE_TENSOR_MIN, CUDNN_REDUCE_TENSOR_NORM2}) {
    reduce(op, false, false, a, c_n, 1, 0.5);
    reduce(op, false, false, a, c_w);
    reduce(op, false, false, a_nhwc, c_nh, -1, 0);
  }
  for (auto op : {CUDNN_REDUCE_TENSOR_MAX, CUDNN_REDUCE_TENSOR_AMAX}) {
    reduce(op, true, true, a, c_n);
    reduce(op, true, true, a, c_w);
    reduce(op, false, true, a_nhwc, c_nh);
  }
}

// Whole rows folded back to back (the rows path: one reduced dimension,
// x contiguous float rows, no indices), rows long enough for the vector loop
// and its prefetch into the next row plus a scalar tail (1000 = 31 x 32 + 8),
// NaN in a few rows and one row all NaN, every mode, both NaN options.
TEST_F(CpuReductionEngine, RowsFoldedBackToBack) {
  HostTensor a = tensor(CUDNN_DATA_FLOAT, {4, 4, 16, 1000});
  HostTensor c = make_tensor(CUDNN_DATA_FLOAT, {4, 4, 16, 1}, packed_strides({4, 4, 16, 1}, Layout::nchw));
  fill_random(c, rng, -1, 1);
  const double nan = std::nan("");
  a.set({0, 1, 3, 999}, nan);  // in the scalar tail
  a.set({2, 0, 5, 40}, nan);   // in the vector loop
  for (int64_t w = 0; w < 1000; ++w) a.set({3, 3, 15, w}, nan);  // the last row: all NaN
  for (auto op : {CUDNN_REDUCE_TENSOR_ADD, CUDNN_REDUCE_TENSOR_AVG, CUDNN_REDUCE_TENSOR_NORM1,
                  CUDNN_REDUCE_TENSOR_NORM2, CUDNN_REDUCE_TENSOR_MIN, CUDNN_REDUCE_TENSOR_MAX,
                  CUDNN_REDUCE_TENSOR_AMAX})
    for (bool prop : {true, false}) {
      reduce(op, prop, false, a, c);
      reduce(op, prop, false, a, c, -0.5, 0.25);
    }
  // MUL over values near 1, so that the products neither vanish nor overflow.
  HostTensor m = make_tensor(CUDNN_DATA_FLOAT, {2, 3, 8, 1000}, packed_strides({2, 3, 8, 1000}, Layout::nchw));
  fill_random(m, rng, 0.999, 1.001);
  HostTensor cm = make_tensor(CUDNN_DATA_FLOAT, {2, 3, 8, 1}, packed_strides({2, 3, 8, 1}, Layout::nchw));
  reduce(CUDNN_REDUCE_TENSOR_MUL, false, false, m, cm);
}

TEST_F(CpuReductionEngine, NanRulesOnLargeInputs) {
  HostTensor a = tensor(CUDNN_DATA_FLOAT, {4, 1, 300, 300});
  const double nan = std::nan("");
  a.set({1, 0, 250, 7}, nan);   // late in slice 1
  a.set({2, 0, 3, 3}, nan);     // early in slice 2
  a.set({2, 0, 200, 1}, nan);
  for_each_index({1, 1, 300, 300}, [&](const std::vector<int64_t> &i) { a.set({3, 0, i[2], i[3]}, nan); });
  HostTensor c = make_tensor(CUDNN_DATA_FLOAT, {4, 1, 1, 1}, {1, 1, 1, 1});
  for (auto op : {CUDNN_REDUCE_TENSOR_MAX, CUDNN_REDUCE_TENSOR_MIN, CUDNN_REDUCE_TENSOR_AMAX})
    for (bool propagate : {true, false}) reduce(op, propagate, true, a, c);
  // Sums propagate NaN whatever the option.
  reduce(CUDNN_REDUCE_TENSOR_ADD, false, false, a, c);
}

TEST_F(CpuReductionEngine, HalfInputsAccumulateInFloat) {
  HostTensor a = tensor(CUDNN_DATA_HALF, {16, 4, 64, 64});
  HostTensor c = make_tensor(CUDNN_DATA_FLOAT, {1, 4, 1, 1}, {4, 1, 1, 1});
  reduce(CUDNN_REDUCE_TENSOR_ADD, false, false, a, c);
  HostTensor ch = make_tensor(CUDNN_DATA_HALF, {16, 1, 1, 1}, {1, 1, 1, 1});
  reduce(CUDNN_REDUCE_TENSOR_AVG, false, false, a, ch);
  HostTensor b = tensor(CUDNN_DATA_INT8, {16, 4, 64, 64});  // (cuDNN 9 reduces no BFLOAT16)
  reduce(CUDNN_REDUCE_TENSOR_NORM1, false, false, b, c);
}

}  // namespace
