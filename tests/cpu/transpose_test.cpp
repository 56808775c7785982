// Layout changes (NCHW <-> NHWC and padded variants) through
// cudnnTransformTensor, sized to hit the edges of the CPU's whole-line
// transpose (src/cpu/transpose_lines.*: blocks of 64 bytes, i.e. 16 f32,
// 32 f16/bf16, 8 doubles): channel and pixel counts just below, at and above
// multiples of a block, padded strides (rows at different offsets within a
// cache line), outputs that start inside a cache line, and outputs large
// enough for streaming stores. On a GPU handle the same problems run on the
// CUDA engines. ctest also runs this suite with FREEDNN_CPU_NO_AVX512=1 to
// keep the generic tiled path covered on AVX-512 machines.
#include <cudnn.h>
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "common/buffer.hpp"
#include "common/random.hpp"
#include "common/random_layout.hpp"
#include "common/reference.hpp"
#include "common/tensor_data.hpp"

using namespace fdnn_test;

namespace {

// NCHW or NHWC strides with `pad` unused elements after each innermost row
// (W for NCHW, C for NHWC) and after each image.
std::vector<int64_t> padded_strides(const std::vector<int64_t> &d, bool nhwc, int64_t pad) {
  const int64_t n = d[0], c = d[1], h = d[2], w = d[3];
  (void)n;
  if (nhwc) {
    const int64_t sw = c + pad, sh = w * sw, sn = h * sh + pad;
    return {sn, 1, sh, sw};
  }
  const int64_t sh = w + pad, sc = h * sh, sn = c * sc + pad;
  return {sn, sc, sh, 1};
}

class CpuLineTranspose : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(cudnnCreate(&h), CUDNN_STATUS_SUCCESS); }
  void TearDown() override { cudnnDestroy(h); }

  // y = alpha * x + beta * y with y placed `offset` bytes into its buffer
  // (the bytes before it must stay untouched); y poisoned when beta == 0.
  void transform(const HostTensor &x, HostTensor y, double alpha, double beta, size_t offset = 0) {
    const cudnnDataType_t ct = x.dtype == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
    const auto want = reference_scale_add(alpha, &x, 0, beta, y, ct);
    if (beta == 0) poison(y);
    const HostTensor before = y;
    std::vector<uint8_t> image(offset, 0x5a);
    image.insert(image.end(), y.bytes.begin(), y.bytes.end());
    image.resize(image.size() + 64, 0x5a);  // and after it
    Buffer yb(image);
    TensorDesc xd(x), yd(y);
    Buffer xb = upload(x);
    const float af = static_cast<float>(alpha), bf = static_cast<float>(beta);
    const void *ap = ct == CUDNN_DATA_DOUBLE ? static_cast<const void *>(&alpha) : &af;
    const void *bp = ct == CUDNN_DATA_DOUBLE ? static_cast<const void *>(&beta) : &bf;
    const std::string what = "x " + describe(x) + " y " + describe(y) + " alpha " + std::to_string(alpha) +
                             " beta " + std::to_string(beta) + " y offset " + std::to_string(offset);
    ASSERT_EQ(cudnnTransformTensor(h, ap, xd, xb.get(), bp, yd, static_cast<char *>(yb.get()) + offset),
              CUDNN_STATUS_SUCCESS)
        << what;
    const std::vector<uint8_t> got_image = yb.download();
    std::memcpy(y.bytes.data(), got_image.data() + offset, y.bytes.size());
    EXPECT_TRUE(matches(y, want)) << what;
    EXPECT_TRUE(gaps_untouched(y, before)) << what;
    for (size_t i = 0; i < offset; ++i) ASSERT_EQ(got_image[i], 0x5a) << what << ": byte " << i << " before y";
    for (size_t i = offset + y.bytes.size(); i < got_image.size(); ++i)
      ASSERT_EQ(got_image[i], 0x5a) << what << ": byte " << i - offset - y.bytes.size() << " after y";
  }

  HostTensor tensor(cudnnDataType_t t, const std::vector<int64_t> &dims, const std::vector<int64_t> &strides) {
    HostTensor x = make_tensor(t, dims, strides);
    fill_random(x, rng, t == CUDNN_DATA_INT8 ? -20 : -4, t == CUDNN_DATA_INT8 ? 20 : 4);
    return x;
  }

  cudnnHandle_t h = nullptr;
  Rng rng{test_seed(207)};
};

// Extents around the block sizes (8, 16, 32 elements) and their multiples.
int64_t edge_extent(Rng &rng) {
  static const std::vector<int64_t> kEdges = {1, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 47, 48, 63, 64, 65, 97};
  return rng.pick(kEdges);
}

TEST_F(CpuLineTranspose, BlockEdgesEveryTypeBothDirections) {
  const std::vector<cudnnDataType_t> types = {CUDNN_DATA_FLOAT, CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16,
                                              CUDNN_DATA_DOUBLE, CUDNN_DATA_INT8};
  for (int it = 0; it < 60; ++it) {
    const cudnnDataType_t t = types[static_cast<size_t>(it) % types.size()];
    const int64_t hw = edge_extent(rng);
    const int64_t w = hw % 8 == 0 && rng.coin(0.5) ? 8 : 1;  // H*W = hw, sometimes as hw/8 x 8
    const std::vector<int64_t> dims = {rng.integer(1, 3), edge_extent(rng), hw / w, w};
    const bool to_nhwc = it % 2 == 0;
    HostTensor x = tensor(t, dims, padded_strides(dims, !to_nhwc, 0));
    HostTensor y = tensor(t, dims, padded_strides(dims, to_nhwc, 0));
    transform(x, y, 1, 0);  // the same-type copy: the whole-line blocks
    if (it % 5 == 0) transform(x, y, 2, 0);
    if (it % 5 == 1) transform(x, y, -0.5, 1.5);
  }
}

TEST_F(CpuLineTranspose, PaddedRowsAndMisalignedOutputs) {
  const std::vector<cudnnDataType_t> types = {CUDNN_DATA_FLOAT, CUDNN_DATA_HALF, CUDNN_DATA_DOUBLE};
  for (int it = 0; it < 24; ++it) {
    const cudnnDataType_t t = types[static_cast<size_t>(it) % types.size()];
    const std::vector<int64_t> dims = {2, edge_extent(rng) + 16, rng.integer(3, 9), rng.integer(5, 12)};
    const bool to_nhwc = it % 2 == 0;
    HostTensor x = tensor(t, dims, padded_strides(dims, !to_nhwc, rng.integer(0, 5)));
    HostTensor y = tensor(t, dims, padded_strides(dims, to_nhwc, rng.integer(0, 5)));
    const size_t es = lane_bytes(t);
    transform(x, y, 1, 0, es * static_cast<size_t>(rng.integer(0, 9)));
  }
}

// NHWC -> NCHW (short x rows, far-apart y rows) is cut into items of a few
// blocks of channels by runs of pixels: channel counts below, at and above
// one item's, planes of several runs (the streamed long runs: below).
TEST_F(CpuLineTranspose, NhwcToNchwPixelRunsEveryType) {
  const std::vector<cudnnDataType_t> types = {CUDNN_DATA_FLOAT, CUDNN_DATA_HALF, CUDNN_DATA_DOUBLE, CUDNN_DATA_INT8,
                                              CUDNN_DATA_BFLOAT16};
  const std::vector<int64_t> channels = {3, 17, 24, 33, 40, 48, 64, 100};
  for (int it = 0; it < 15; ++it) {
    const cudnnDataType_t t = types[static_cast<size_t>(it) % types.size()];
    const std::vector<int64_t> dims = {rng.integer(1, 2), rng.pick(channels), rng.integer(20, 40), rng.integer(30, 50)};
    HostTensor x = tensor(t, dims, padded_strides(dims, true, 0));
    HostTensor y = tensor(t, dims, padded_strides(dims, false, 0));
    transform(x, y, 1, 0);
  }
}

// Large copies compared byte for byte: a copy must reproduce every bit, so
// these compare bytes (random bit patterns in x, NaN-poisoned y) instead of
// going through the slower float64 reference. y is placed `offset` bytes into
// its buffer; the bytes around it must stay untouched.
class CpuLineTransposeLarge : public CpuLineTranspose {
 protected:
  void copy_bytes(cudnnDataType_t t, const std::vector<int64_t> &dims, const std::vector<int64_t> &x_strides,
                  const std::vector<int64_t> &y_strides, size_t offset) {
    HostTensor x = make_tensor(t, dims, x_strides);
    HostTensor y = make_tensor(t, dims, y_strides);
    for (size_t i = 0; i < x.bytes.size(); ++i) x.bytes[i] = static_cast<uint8_t>(rng.integer(0, 255));
    if (lane_bytes(t) > 1)
      for (size_t i = 1; i < x.bytes.size(); i += 2) x.bytes[i] &= 0x3f;  // no NaN or infinity in any lane
    poison(y);
    std::vector<uint8_t> image(offset, 0x5a);
    image.insert(image.end(), y.bytes.begin(), y.bytes.end());
    image.resize(image.size() + 64, 0x5a);
    Buffer yb(image);
    TensorDesc xd(x), yd(y);
    Buffer xb = upload(x);
    const float one = 1, zero = 0;
    const double one_d = 1, zero_d = 0;  // double data takes double scaling factors
    const bool dbl = t == CUDNN_DATA_DOUBLE;
    const void *alpha = dbl ? static_cast<const void *>(&one_d) : &one;
    const void *beta = dbl ? static_cast<const void *>(&zero_d) : &zero;
    const std::string what = "x " + describe(x) + " y " + describe(y) + " offset " + std::to_string(offset);
    ASSERT_EQ(cudnnTransformTensor(h, alpha, xd, xb.get(), beta, yd, static_cast<char *>(yb.get()) + offset),
              CUDNN_STATUS_SUCCESS)
        << what;
    const std::vector<uint8_t> got = yb.download();
    const size_t es = lane_bytes(t);
    int64_t wrong = 0;
    for_each_index(dims, [&](const std::vector<int64_t> &i) {
      const uint8_t *want = x.bytes.data() + static_cast<size_t>(x.lane_offset(i)) * es;
      const uint8_t *have = got.data() + offset + static_cast<size_t>(y.lane_offset(i)) * es;
      if (std::memcmp(want, have, es) != 0) ++wrong;
    });
    EXPECT_EQ(wrong, 0) << what;
    // Padding between y's elements keeps its poison.
    const HostTensor poisoned = y;
    std::memcpy(y.bytes.data(), got.data() + offset, y.bytes.size());
    EXPECT_TRUE(gaps_untouched(y, poisoned)) << what;
    for (size_t i = 0; i < offset; ++i) ASSERT_EQ(got[i], 0x5a) << what << ": byte " << i << " before y";
    for (size_t i = offset + y.bytes.size(); i < got.size(); ++i) ASSERT_EQ(got[i], 0x5a) << what << ": after y";
  }
};

// Outputs of 16 MiB and more get streaming stores when every row starts at
// the same offset within a cache line; rows then start and end with partial
// lines (y placed a few elements into its buffer).
TEST_F(CpuLineTransposeLarge, LargeOutputsStreamedFromAnyLineOffset) {
  struct Case {
    cudnnDataType_t t;
    std::vector<int64_t> dims;
    bool to_nhwc;
    size_t offset;
  };
  const std::vector<Case> cases = {
      {CUDNN_DATA_FLOAT, {2, 80, 163, 163}, true, 4 * 5},   // C = 5 blocks, HW odd; y 5 floats into a line
      {CUDNN_DATA_HALF, {1, 144, 240, 248}, false, 2 * 7},  // rows of 59520 halves; y 7 halves into a line
      // NHWC -> NCHW: items of two blocks of channels by long pixel runs, two
      // lines per y row back to back: 22 runs per plane, 32 + 16 channels, an odd last band.
      {CUDNN_DATA_FLOAT, {2, 48, 210, 210}, false, 4 * 3},
      {CUDNN_DATA_DOUBLE, {1, 40, 230, 230}, false, 8 * 5},  // 16 + 16 + 8 channels
  };
  for (const Case &c : cases)
    copy_bytes(c.t, c.dims, padded_strides(c.dims, !c.to_nhwc, 0), padded_strides(c.dims, c.to_nhwc, 0), c.offset);
}

// Streamed NHWC -> NCHW (y of 16 MiB and more) in every element size: channel
// counts that are not multiples of a block (columns past the last block go
// element by element; fewer channels than a block take the tiled path), an
// odd number of blocks of pixels per plane (an odd last band), y starting
// inside a cache line (the first and last pixels of every plane go through
// the tile code), padded rows of x (pixels further apart than C), and planes
// that are not a whole number of lines (odd pixel counts, padded y rows: the
// streaming tiles instead).
TEST_F(CpuLineTransposeLarge, NhwcToNchwStreamedEveryType) {
  struct Case {
    cudnnDataType_t t;
    int64_t n, c;
    size_t offset_elems;  // y this many elements into a line
    int64_t x_pad, y_pad;
    bool odd_pixels;      // W = 7 and H odd instead of W = one block and H odd
  };
  const std::vector<Case> cases = {
      {CUDNN_DATA_FLOAT, 1, 17, 0, 0, 0, false},    {CUDNN_DATA_FLOAT, 2, 40, 3, 0, 0, false},
      {CUDNN_DATA_FLOAT, 1, 100, 5, 3, 0, false},   {CUDNN_DATA_FLOAT, 1, 3, 0, 0, 0, false},
      {CUDNN_DATA_FLOAT, 1, 33, 0, 0, 2, false},    {CUDNN_DATA_FLOAT, 1, 48, 0, 0, 0, true},
      {CUDNN_DATA_HALF, 1, 40, 7, 0, 0, false},     {CUDNN_DATA_HALF, 2, 100, 0, 1, 0, false},
      {CUDNN_DATA_HALF, 1, 64, 0, 0, 0, true},      {CUDNN_DATA_BFLOAT16, 1, 17, 0, 0, 0, false},
      {CUDNN_DATA_BFLOAT16, 1, 64, 31, 0, 0, false}, {CUDNN_DATA_DOUBLE, 1, 17, 1, 0, 0, false},
      {CUDNN_DATA_DOUBLE, 1, 40, 0, 2, 0, false},   {CUDNN_DATA_INT8, 1, 100, 9, 0, 0, false},
  };
  for (const Case &k : cases) {
    const int64_t es = static_cast<int64_t>(lane_bytes(k.t));
    const int64_t pixels = (16 << 20) / (es * k.n * k.c) + 1;  // y of at least 16 MiB
    const int64_t w = k.odd_pixels ? 7 : 64 / es;
    const int64_t h = (pixels + w - 1) / w | 1;
    const std::vector<int64_t> dims = {k.n, k.c, h, w};
    copy_bytes(k.t, dims, padded_strides(dims, true, k.x_pad), padded_strides(dims, false, k.y_pad),
               static_cast<size_t>(es) * k.offset_elems);
  }
}

}  // namespace
