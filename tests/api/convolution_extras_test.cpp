// cudnnIm2Col, cudnnGetFoldedConvBackwardDataDescriptors and
// cudnnReorderFilterAndBias through the public API.
//
// Im2Col runs random 2-d and 3-d problems (padding, stride, dilation, both
// modes, NCHW / NHWC / strided inputs, float / double / half) against an
// independent gather written here from the seed's layout (rows: batch x
// output pixel, columns: channel x filter tap), with a NaN-poisoned output.
// The same cases run on a GPU handle. The folded
// descriptors are compared with NVIDIA's in tests/oracle/folded_conv_descriptors.c;
// here one problem is checked for consistency with the forward shape rule.
#include <cudnn.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "common/buffer.hpp"
#include "common/expect_status.hpp"

using namespace fdnn_test;

namespace {

struct Handle {
  cudnnHandle_t h = nullptr;
  Handle() { EXPECT_EQ(cudnnCreate(&h), CUDNN_STATUS_SUCCESS); }
  ~Handle() { cudnnDestroy(h); }
};

struct Descs {
  cudnnTensorDescriptor_t x = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t c = nullptr;
  Descs() {
    cudnnCreateTensorDescriptor(&x);
    cudnnCreateFilterDescriptor(&w);
    cudnnCreateConvolutionDescriptor(&c);
  }
  ~Descs() {
    cudnnDestroyTensorDescriptor(x);
    cudnnDestroyFilterDescriptor(w);
    cudnnDestroyConvolutionDescriptor(c);
  }
};

enum class Layout { nchw, nhwc, strided };

// Element strides of dims (N, C, spatial...) in the layout; returns the span.
int64_t make_strides(const std::vector<int> &dims, Layout l, std::vector<int> &strides) {
  const int nb = static_cast<int>(dims.size());
  strides.assign(nb, 0);
  std::vector<int> order;  // innermost first
  if (l == Layout::nhwc) {
    order.push_back(1);
    for (int i = nb - 1; i >= 2; --i) order.push_back(i);
    order.push_back(0);
  } else {
    for (int i = nb - 1; i >= 0; --i) order.push_back(i);
  }
  int64_t s = 1;
  for (int d : order) {
    strides[d] = static_cast<int>(s);
    s *= dims[d] + (l == Layout::strided ? 1 : 0);
  }
  return s;
}

// The matrix of the seed (N * P rows, C * taps columns) stored column-major,
// as NVIDIA's cuDNN 9 writes it (GPU oracle): col[(c * taps + t) * N * P +
// n * P + p], taps row-major over the filter; CONVOLUTION mode takes the taps
// flipped.
template <class T>
std::vector<T> reference_im2col(const std::vector<T> &x, const std::vector<int> &xd, const std::vector<int> &xs,
                                const std::vector<int> &fd, const std::vector<int> &pad, const std::vector<int> &str,
                                const std::vector<int> &dil, bool flip, std::vector<int> &yd) {
  const int ns = static_cast<int>(xd.size()) - 2;
  yd.assign(ns, 0);
  int64_t P = 1, taps = 1;
  for (int i = 0; i < ns; ++i) {
    yd[i] = (xd[2 + i] + 2 * pad[i] - ((fd[i] - 1) * dil[i] + 1)) / str[i] + 1;
    P *= yd[i];
    taps *= fd[i];
  }
  const int N = xd[0], C = xd[1];
  std::vector<T> col(static_cast<size_t>(N * P * C * taps));
  std::vector<int> o(ns), k(ns);
  for (int n = 0; n < N; ++n)
    for (int64_t p = 0; p < P; ++p) {
      int64_t r = p;
      for (int i = ns - 1; i >= 0; --i) {
        o[i] = static_cast<int>(r % yd[i]);
        r /= yd[i];
      }
      for (int c = 0; c < C; ++c)
        for (int64_t t = 0; t < taps; ++t) {
          int64_t rt = t;
          for (int i = ns - 1; i >= 0; --i) {
            k[i] = static_cast<int>(rt % fd[i]);
            rt /= fd[i];
          }
          bool inside = true;
          int64_t off = static_cast<int64_t>(n) * xs[0] + static_cast<int64_t>(c) * xs[1];
          for (int i = 0; i < ns; ++i) {
            const int kk = flip ? fd[i] - 1 - k[i] : k[i];
            const int in = o[i] * str[i] - pad[i] + kk * dil[i];
            if (in < 0 || in >= xd[2 + i]) inside = false;
            off += static_cast<int64_t>(in) * xs[2 + i];
          }
          col[static_cast<size_t>((c * taps + t) * N * P + n * P + p)] = inside ? x[static_cast<size_t>(off)] : T(0);
        }
    }
  return col;
}

template <class T>
void run_im2col_case(std::mt19937 &rng, cudnnDataType_t dtype, int ns, Layout layout) {
  std::uniform_int_distribution<int> small(1, 3), ext(3, 7), padd(0, 2);
  std::vector<int> xd = {small(rng), small(rng) + 1}, fd, pad, str, dil;
  for (int i = 0; i < ns; ++i) {
    xd.push_back(ext(rng) + 2);
    fd.push_back(small(rng));
    pad.push_back(padd(rng));
    str.push_back(small(rng));
    dil.push_back(small(rng) <= 2 ? 1 : 2);
  }
  const bool conv_mode = rng() % 2 == 0;
  std::vector<int> xs;
  const int64_t span = make_strides(xd, layout, xs);
  std::vector<T> x(static_cast<size_t>(span));
  std::uniform_int_distribution<int> val(-1000, 1000);
  for (T &v : x) v = static_cast<T>(val(rng)) / T(8);

  Descs d;
  ASSERT_EQ(cudnnSetTensorNdDescriptor(d.x, dtype, 2 + ns, xd.data(), xs.data()), CUDNN_STATUS_SUCCESS);
  std::vector<int> wd = {5, xd[1]};
  wd.insert(wd.end(), fd.begin(), fd.end());
  ASSERT_EQ(cudnnSetFilterNdDescriptor(d.w, dtype, CUDNN_TENSOR_NCHW, 2 + ns, wd.data()), CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(cudnnSetConvolutionNdDescriptor(d.c, ns, pad.data(), str.data(), dil.data(),
                                            conv_mode ? CUDNN_CONVOLUTION : CUDNN_CROSS_CORRELATION, dtype),
            CUDNN_STATUS_SUCCESS);
  std::vector<int> yd;
  const std::vector<T> want = reference_im2col(x, xd, xs, fd, pad, str, dil, conv_mode, yd);
  Buffer xb(x.size() * sizeof(T)), cb(want.size() * sizeof(T));
  xb.upload(x.data(), x.size() * sizeof(T));
  std::vector<T> got(want.size(), std::numeric_limits<T>::quiet_NaN());
  cb.upload(got.data(), got.size() * sizeof(T));
  Handle h;
  const cudnnStatus_t st = cudnnIm2Col(h.h, d.x, xb.get(), d.w, d.c, cb.get());
  ASSERT_EQ(st, CUDNN_STATUS_SUCCESS) << last_error();
  cb.download(got.data(), got.size() * sizeof(T));
  for (size_t i = 0; i < want.size(); ++i) ASSERT_EQ(got[i], want[i]) << "element " << i;
}

}  // namespace

TEST(ConvolutionExtras, Im2ColMatchesReference) {
  std::mt19937 rng(4242);
  for (int rep = 0; rep < 6; ++rep)
    for (Layout l : {Layout::nchw, Layout::nhwc, Layout::strided}) {
      run_im2col_case<float>(rng, CUDNN_DATA_FLOAT, 2, l);
      run_im2col_case<double>(rng, CUDNN_DATA_DOUBLE, 2, l);
      run_im2col_case<float>(rng, CUDNN_DATA_FLOAT, 3, l);
      run_im2col_case<float>(rng, CUDNN_DATA_FLOAT, 1, l);
    }
}

// HALF is a gather of bit patterns: checked against a float image of it.
TEST(ConvolutionExtras, Im2ColHalfCopiesBits) {
  const std::vector<int> xd = {1, 2, 4, 5}, xs = {40, 20, 5, 1};
  std::vector<uint16_t> x(40);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<uint16_t>(0x3c00 + 17 * i);  // finite halves
  Descs d;
  ASSERT_EQ(cudnnSetTensorNdDescriptor(d.x, CUDNN_DATA_HALF, 4, xd.data(), xs.data()), CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(cudnnSetFilter4dDescriptor(d.w, CUDNN_DATA_HALF, CUDNN_TENSOR_NCHW, 3, 2, 2, 3), CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(cudnnSetConvolution2dDescriptor(d.c, 1, 0, 1, 2, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
            CUDNN_STATUS_SUCCESS);
  std::vector<double> xf(x.begin(), x.end());
  std::vector<int> yd;
  const std::vector<double> want = reference_im2col(xf, xd, xs, {2, 3}, {1, 0}, {1, 2}, {1, 1}, false, yd);
  std::vector<uint16_t> got(want.size(), 0x7e00);
  Buffer xb(x.size() * 2), cb(got.size() * 2);
  xb.upload(x.data(), x.size() * 2);
  cb.upload(got.data(), got.size() * 2);
  Handle h;
  ASSERT_EQ(cudnnIm2Col(h.h, d.x, xb.get(), d.w, d.c, cb.get()), CUDNN_STATUS_SUCCESS) << last_error();
  cb.download(got.data(), got.size() * 2);
  for (size_t i = 0; i < want.size(); ++i) ASSERT_EQ(static_cast<double>(got[i]), want[i]) << i;
}

TEST(ConvolutionExtras, Im2ColBadInput) {
  Handle h;
  Descs d;
  ASSERT_EQ(cudnnSetTensor4dDescriptor(d.x, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 4, 5, 5), CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(cudnnSetFilter4dDescriptor(d.w, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 2, 4, 3, 3), CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(cudnnSetConvolution2dDescriptor(d.c, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
            CUDNN_STATUS_SUCCESS);
  Buffer xb(100 * 4), cb(25 * 36 * 4);
  EXPECT_EQ(cudnnIm2Col(h.h, d.x, nullptr, d.w, d.c, cb.get()), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnIm2Col(h.h, d.x, xb.get(), d.w, d.c, nullptr), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnIm2Col(nullptr, d.x, xb.get(), d.w, d.c, cb.get()), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnIm2Col(h.h, nullptr, xb.get(), d.w, d.c, cb.get()), CUDNN_STATUS_BAD_PARAM);
  // Groups and int8 are NOT_SUPPORTED (seed).
  ASSERT_EQ(cudnnSetConvolutionGroupCount(d.c, 2), CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(cudnnSetFilter4dDescriptor(d.w, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 2, 2, 3, 3), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnIm2Col(h.h, d.x, xb.get(), d.w, d.c, cb.get()), CUDNN_STATUS_NOT_SUPPORTED);
  ASSERT_EQ(cudnnSetConvolutionGroupCount(d.c, 1), CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(cudnnSetTensor4dDescriptor(d.x, CUDNN_TENSOR_NCHW, CUDNN_DATA_INT8, 1, 4, 5, 5), CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(cudnnSetFilter4dDescriptor(d.w, CUDNN_DATA_INT8, CUDNN_TENSOR_NCHW, 2, 4, 3, 3), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnIm2Col(h.h, d.x, xb.get(), d.w, d.c, cb.get()), CUDNN_STATUS_NOT_SUPPORTED);
  // A filter that does not fit: the forward shape rule's BAD_PARAM.
  ASSERT_EQ(cudnnSetTensor4dDescriptor(d.x, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 4, 2, 2), CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(cudnnSetFilter4dDescriptor(d.w, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 2, 4, 5, 5), CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(cudnnSetConvolution2dDescriptor(d.c, 0, 0, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
            CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnIm2Col(h.h, d.x, xb.get(), d.w, d.c, cb.get()), CUDNN_STATUS_BAD_PARAM);
}

// Consistency of the folded problem (values measured from NVIDIA's 9.19 for
// this problem; the oracle compares many more): the folded convolution of
// the folded gradient with the folded filter has the padded diff's shape.
TEST(ConvolutionExtras, FoldedDescriptorsConsistent) {
  Descs d;
  cudnnTensorDescriptor_t dy, pdy, fdx;
  cudnnFilterDescriptor_t fw;
  cudnnConvolutionDescriptor_t fc;
  cudnnTensorTransformDescriptor_t t[4];
  cudnnCreateTensorDescriptor(&dy);
  cudnnCreateTensorDescriptor(&pdy);
  cudnnCreateTensorDescriptor(&fdx);
  cudnnCreateFilterDescriptor(&fw);
  cudnnCreateConvolutionDescriptor(&fc);
  for (auto &x : t) cudnnCreateTensorTransformDescriptor(&x);
  ASSERT_EQ(cudnnSetTensor4dDescriptor(d.x, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 2, 3, 9, 10), CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(cudnnSetFilter4dDescriptor(d.w, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 4, 3, 3, 3), CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(cudnnSetConvolution2dDescriptor(d.c, 1, 2, 2, 3, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
            CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(cudnnSetTensor4dDescriptor(dy, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 2, 4, 5, 4), CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(cudnnGetFoldedConvBackwardDataDescriptors(nullptr, d.w, dy, d.c, d.x, CUDNN_TENSOR_NCHW, fw, pdy, fc, fdx,
                                                      t[0], t[1], t[2], t[3]),
            CUDNN_STATUS_SUCCESS)
      << last_error();
  int out[4];
  ASSERT_EQ(cudnnGetConvolutionNdForwardOutputDim(fc, fdx, fw, 4, out), CUDNN_STATUS_SUCCESS);
  cudnnDataType_t dt;
  int nb, dims[4], strides[4];
  ASSERT_EQ(cudnnGetTensorNdDescriptor(pdy, 4, &dt, &nb, dims, strides), CUDNN_STATUS_SUCCESS);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(out[i], dims[i]) << i;
  EXPECT_EQ(dims[1], 8);  // K padded to a multiple of 8
  ASSERT_EQ(cudnnGetTensorNdDescriptor(fdx, 4, &dt, &nb, dims, strides), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(dims[1], 24);  // C = 3 padded to 4, times the 2 x 3 fold
  EXPECT_EQ(dims[2], 5);
  EXPECT_EQ(dims[3], 4);
  // Bad inputs: NULL inputs and outputs; a NULL unfold descriptor is allowed.
  EXPECT_EQ(cudnnGetFoldedConvBackwardDataDescriptors(nullptr, nullptr, dy, d.c, d.x, CUDNN_TENSOR_NCHW, fw, pdy, fc,
                                                      fdx, t[0], t[1], t[2], t[3]),
            CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnGetFoldedConvBackwardDataDescriptors(nullptr, d.w, dy, d.c, d.x, CUDNN_TENSOR_NCHW, fw, pdy, nullptr,
                                                      fdx, t[0], t[1], t[2], t[3]),
            CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnGetFoldedConvBackwardDataDescriptors(nullptr, d.w, dy, d.c, d.x, CUDNN_TENSOR_NCHW, fw, pdy, fc, fdx,
                                                      t[0], t[1], t[2], nullptr),
            CUDNN_STATUS_SUCCESS);
  for (auto &x : t) cudnnDestroyTensorTransformDescriptor(x);
  cudnnDestroyTensorDescriptor(dy);
  cudnnDestroyTensorDescriptor(pdy);
  cudnnDestroyTensorDescriptor(fdx);
  cudnnDestroyFilterDescriptor(fw);
  cudnnDestroyConvolutionDescriptor(fc);
}

TEST(ConvolutionExtras, ReorderFilterAndBias) {
  Handle h;
  cudnnFilterDescriptor_t w;
  cudnnCreateFilterDescriptor(&w);
  ASSERT_EQ(cudnnSetFilter4dDescriptor(w, CUDNN_DATA_INT8, CUDNN_TENSOR_NCHW, 8, 4, 3, 3), CUDNN_STATUS_SUCCESS);
  std::vector<int8_t> f(8 * 4 * 9);
  for (size_t i = 0; i < f.size(); ++i) f[i] = static_cast<int8_t>(i * 7 - 100);
  std::vector<float> bias = {1, 2, 3, 4, 5, 6, 7, 8};
  Buffer fb(f.size()), rb(f.size()), bb(bias.size() * 4), rbb(bias.size() * 4);
  fb.upload(f.data(), f.size());
  bb.upload(bias.data(), bias.size() * 4);
  const cudnnStatus_t st = cudnnReorderFilterAndBias(h.h, w, CUDNN_NO_REORDER, fb.get(), rb.get(), 1, bb.get(), rbb.get());
  ASSERT_EQ(st, CUDNN_STATUS_SUCCESS) << last_error();
  std::vector<int8_t> gf(f.size());
  std::vector<float> gb(bias.size());
  rb.download(gf.data(), gf.size());
  rbb.download(gb.data(), gb.size() * 4);
  EXPECT_EQ(gf, f);
  EXPECT_EQ(gb, bias);
  EXPECT_EQ(cudnnReorderFilterAndBias(h.h, w, static_cast<cudnnReorderType_t>(7), fb.get(), rb.get(), 0, nullptr,
                                      nullptr),
            CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnReorderFilterAndBias(h.h, w, CUDNN_NO_REORDER, nullptr, rb.get(), 0, nullptr, nullptr),
            CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnReorderFilterAndBias(h.h, w, CUDNN_NO_REORDER, fb.get(), rb.get(), 1, nullptr, rbb.get()),
            CUDNN_STATUS_BAD_PARAM);
  // The IMMA permutation itself is not implemented.
  ASSERT_EQ(cudnnSetFilter4dDescriptor(w, CUDNN_DATA_INT8x32, CUDNN_TENSOR_NCHW_VECT_C, 32, 32, 1, 1),
            CUDNN_STATUS_SUCCESS);
  Buffer big(32 * 32);
  EXPECT_EQ(cudnnReorderFilterAndBias(h.h, w, CUDNN_DEFAULT_REORDER, big.get(), big.get(), 0, nullptr, nullptr),
            CUDNN_STATUS_NOT_SUPPORTED);
  cudnnDestroyFilterDescriptor(w);
}
