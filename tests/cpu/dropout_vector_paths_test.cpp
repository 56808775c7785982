// The vector paths of the fast CPU dropout engine (src/cpu/dropout.cpp,
// src/cpu/philox_lanes.hpp: Philox blocks 16 or 8 at a time in vector
// registers, keep bits interleaved with pdep, 32-element words scaled in
// float through the F16C / bfloat16 conversions), through the public API
// against the independent Philox of tests/common:
//  - element counts around a word (31, 32, 33), an odd number of words (the
//    AVX-512 path takes words in pairs) and several thread chunks of 512
//    words with a partial last word;
//  - every type, probabilities 0 (all kept), 1 (all dropped) and between,
//    seeds and offsets with high 32-bit halves set (a restored descriptor);
//  - NaN and infinities in x (dropped elements are exactly 0);
//  - in place (x == y).
// ctest also runs this suite with FREEDNN_CPU_NO_AVX512=1 (the AVX2 path).
#include <cudnn.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "common/buffer.hpp"
#include "common/dropout_desc.hpp"
#include "common/dropout_reference.hpp"
#include "common/engine_handles.hpp"
#include "common/random.hpp"
#include "common/tensor_data.hpp"

using namespace fdnn_test;

namespace {

void add_specials(Rng &rng, HostTensor &x) {
  std::vector<double> v = x.values();
  const double inf = std::numeric_limits<double>::infinity();
  for (double &e : v)
    if (rng.coin(0.02)) e = rng.pick(std::vector<double>{std::nan(""), inf, -inf, 0.0, -0.0});
  x.set_values(v);
}

const char *type_label(cudnnDataType_t t) { return type_name(t); }

// dropout_expect with an exact infinity where the product is infinite (its
// relative tolerance would make the accepted range inf - inf).
std::vector<Expect> expect_with_infinities(const HostTensor &x, const std::vector<bool> &keep, double p,
                                           cudnnDataType_t t) {
  std::vector<Expect> want = dropout_expect(x, keep, p, t);
  for (Expect &e : want)
    if (std::isinf(e.value)) e.tolerance = 0;
  return want;
}

}  // namespace

TEST(CpuDropoutVectorPaths, WordEdgesChunksTypesAndSpecialValues) {
  Rng rng(test_seed(951));
  EngineHandle h;
  const std::vector<int64_t> counts = {1, 31, 32, 33, 3 * 32, 5 * 32 + 7, 512 * 32 * 3 + 32 * 5 + 13};
  for (cudnnDataType_t t : {CUDNN_DATA_FLOAT, CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16, CUDNN_DATA_DOUBLE})
    for (int64_t n : counts) {
      const std::vector<int64_t> dims = {1, 1, 1, n};
      HostTensor x = make_tensor(t, dims, packed_strides(dims, Layout::nchw));
      fill_random(x, rng, -4, 4);
      add_specials(rng, x);
      const float p = static_cast<float>(rng.pick(std::vector<double>{0.0, 0.1, 0.5, 0.9, 1.0}));
      // High halves set: the key's and (after restoring at offset > 2^32
      // calls, which the API cannot reach) the counter's.
      const unsigned long long seed = rng.next() | (1ull << 40);
      Dropout dr(h.h, p, seed);
      const TensorDesc xd(x);
      size_t reserve_bytes = 0;
      ASSERT_EQ(cudnnDropoutGetReserveSpaceSize(xd, &reserve_bytes), CUDNN_STATUS_SUCCESS);
      const Buffer xb = upload(x);
      for (uint64_t call = 0; call < 2; ++call) {
        HostTensor y = x;
        poison(y);
        Buffer yb = upload(y), rb(reserve_bytes);
        ASSERT_EQ(cudnnDropoutForward(h.h, dr.d, xd, xb.get(), xd, yb.get(), rb.get(), rb.size()),
                  CUDNN_STATUS_SUCCESS);
        download(yb, y);
        const std::vector<bool> keep = dropout_keep_mask(seed, call, n, p);
        const std::string what = std::string(type_label(t)) + " n " + std::to_string(n) + " p " +
                                 std::to_string(p) + " call " + std::to_string(call);
        EXPECT_EQ(unpack_mask_bits(rb.download(), n), keep) << what;
        EXPECT_TRUE(matches(y, expect_with_infinities(x, keep, p, t))) << what;
        // Backward applies the same words.
        HostTensor dx = x;
        poison(dx);
        Buffer dxb = upload(dx);
        ASSERT_EQ(cudnnDropoutBackward(h.h, dr.d, xd, xb.get(), xd, dxb.get(), rb.get(), rb.size()),
                  CUDNN_STATUS_SUCCESS);
        download(dxb, dx);
        EXPECT_TRUE(matches(dx, expect_with_infinities(x, keep, p, t))) << what << " backward";
      }
    }
}

TEST(CpuDropoutVectorPaths, InPlaceAcrossChunks) {
  Rng rng(test_seed(952));
  EngineHandle h;
  for (cudnnDataType_t t : {CUDNN_DATA_FLOAT, CUDNN_DATA_HALF}) {
    const std::vector<int64_t> dims = {2, 3, 61, 97};  // 35502 elements: 3 chunks, a partial word
    HostTensor x = make_tensor(t, dims, packed_strides(dims, Layout::nchw));
    fill_random(x, rng, -4, 4);
    const unsigned long long seed = rng.next();
    Dropout dr(h.h, 0.3f, seed);
    const TensorDesc xd(x);
    size_t reserve_bytes = 0;
    ASSERT_EQ(cudnnDropoutGetReserveSpaceSize(xd, &reserve_bytes), CUDNN_STATUS_SUCCESS);
    Buffer b = upload(x), rb(reserve_bytes);
    ASSERT_EQ(cudnnDropoutForward(h.h, dr.d, xd, b.get(), xd, b.get(), rb.get(), rb.size()), CUDNN_STATUS_SUCCESS);
    HostTensor y = x;
    download(b, y);
    const std::vector<bool> keep = dropout_keep_mask(seed, 0, x.elements(), 0.3);
    EXPECT_EQ(unpack_mask_bits(rb.download(), x.elements()), keep) << type_label(t);
    EXPECT_TRUE(matches(y, dropout_expect(x, keep, 0.3, t))) << type_label(t);
  }
}
