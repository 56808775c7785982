// cudnnSetTensor, cudnnScaleTensor, cudnnAddTensor, cudnnOpTensor,
// cudnnTransformTensor(Ex), cudnnTransformFilter, cudnnInitTransformDest,
// cudnnReduceTensor and its size queries, through the public API only.
//
// Random problems (shapes, strides, layouts, types, alpha/beta) are checked
// against the float64 references of tests/common. On a CPU handle every
// problem also runs on a second handle pinned to the reference engines
// (FREEDNN_ENGINE=cpu.reference), so the fast and the reference engines are
// both held to the same independent reference.
#include <cudnn.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <memory>
#include <vector>

#include "common/buffer.hpp"
#include "common/engine_handles.hpp"
#include "common/random.hpp"
#include "common/random_layout.hpp"
#include "common/reference.hpp"
#include "common/tensor_data.hpp"

using namespace fdnn_test;

namespace {

const double kNaN = std::nan("");

double value_lo(cudnnDataType_t t) { return t == CUDNN_DATA_UINT8 || t == CUDNN_DATA_UINT8x4 ? 0 : (is_integer_type(t) ? -20 : -4); }
double value_hi(cudnnDataType_t t) { return t == CUDNN_DATA_UINT8 || t == CUDNN_DATA_UINT8x4 ? 40 : (is_integer_type(t) ? 20 : 4); }

// A tensor of random layout: packed NCHW, packed NHWC, or random strides
// (permuted, padded); vector types are packed NCHW_VECT_C.
HostTensor random_tensor(Rng &rng, cudnnDataType_t t, const std::vector<int64_t> &dims) {
  std::vector<int64_t> s;
  const int lanes = vector_lanes(t);
  if (lanes > 1) s = packed_strides(dims, Layout::vect_c, lanes);
  else {
    switch (rng.integer(0, 3)) {
      case 0: s = packed_strides(dims, Layout::nchw); break;
      case 1: s = packed_strides(dims, dims.size() >= 3 ? Layout::nhwc : Layout::nchw); break;
      default: s = random_strides(rng, dims); break;
    }
  }
  HostTensor h = make_tensor(t, dims, s);
  fill_random(h, rng, value_lo(t), value_hi(t));
  return h;
}

// Random dims of a rank; C (dims[1]) a multiple of `c_multiple`.
std::vector<int64_t> random_shape(Rng &rng, int rank, int64_t max_elements, int c_multiple = 1) {
  std::vector<int64_t> d = random_dims(rng, rank, 9, max_elements / c_multiple);
  d[1] *= c_multiple;
  return d;
}

// dims with each extent replaced by 1 with probability p.
std::vector<int64_t> broadcast_of(Rng &rng, const std::vector<int64_t> &dims, double p) {
  std::vector<int64_t> b = dims;
  for (auto &e : b)
    if (rng.coin(p)) e = 1;
  return b;
}

struct AlphaBeta {
  double alpha, beta;
};

// The types of cudnnSetTensor, cudnnScaleTensor, cudnnAddTensor and the
// transforms (cuDNN 9 answers NOT_SUPPORTED for UINT8, INT32 and, except
// INT8x4 in transforms, the vector types).
const std::vector<cudnnDataType_t> kElementwiseTypes = {CUDNN_DATA_FLOAT, CUDNN_DATA_DOUBLE, CUDNN_DATA_HALF,
                                                        CUDNN_DATA_BFLOAT16, CUDNN_DATA_INT8};
const std::vector<AlphaBeta> kAlphaBeta = {{1, 0}, {1, 1}, {-0.5, 2}, {2, 0}, {0.25, -1}, {0, 1}};

// Runs `call` on every handle with fresh device copies of the inputs and of
// y (poisoned when beta == 0), downloads y and checks it.
template <class Call>
void run_and_check(const EngineHandles &hs, const HostTensor &y_prior, bool poison_y, const std::vector<Expect> &want,
                   Call call, const std::string &what) {
  for (size_t k = 0; k < hs.all.size(); ++k) {
    HostTensor y = y_prior;
    if (poison_y) poison(y);
    const HostTensor before = y;
    Buffer yb = upload(y);
    ASSERT_EQ(call(hs.all[k], yb.get()), CUDNN_STATUS_SUCCESS) << what << " on " << engine_name(k);
    download(yb, y);
    EXPECT_TRUE(matches(y, want)) << what << " on " << engine_name(k);
    EXPECT_TRUE(gaps_untouched(y, before)) << what << " on " << engine_name(k);
  }
}

}  // namespace

// ---- cudnnSetTensor -----------------------------------------------------------

TEST(TensorOpsSetTensor, RandomShapesLayoutsAndTypes) {
  EngineHandles hs;
  Rng rng(test_seed(101));
  for (int it = 0; it < 40; ++it) {
    const cudnnDataType_t t = rng.pick(kElementwiseTypes);
    HostTensor y = random_tensor(rng, t, random_shape(rng, static_cast<int>(rng.integer(4, 5)), 2000));
    // The value is a double for DOUBLE tensors and a float for all others
    // (like alpha/beta), rounded to y's type on the way in. Values outside an
    // integer range saturate.
    const Scaling value(rng.uniform(1.5 * value_lo(t) - 1, 1.5 * value_hi(t) + 1));
    std::vector<Expect> want(static_cast<size_t>(y.elements()), Expect{value.value(t), 0});
    TensorDesc yd(y);
    run_and_check(hs, y, true, want,
                  [&](cudnnHandle_t h, void *p) { return cudnnSetTensor(h, yd, p, value.for_type(t)); },
                  "cudnnSetTensor " + std::to_string(value.d) + " " + describe(y));
  }
}

// ---- cudnnScaleTensor -----------------------------------------------------------

TEST(TensorOpsScaleTensor, RandomShapesLayoutsAndTypes) {
  EngineHandles hs;
  Rng rng(test_seed(102));
  const std::vector<double> alphas = {0, 1, -1.5, 0.25, 3, 0.1, 9};  // 9: INT8 saturates
  for (int it = 0; it < 40; ++it) {
    const cudnnDataType_t t = rng.pick(kElementwiseTypes);
    HostTensor y = random_tensor(rng, t, random_shape(rng, static_cast<int>(rng.integer(4, 5)), 2000));
    const Scaling alpha(rng.pick(alphas));
    const cudnnDataType_t ct = t == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
    auto want = reference_scale_add(alpha.value(t), &y, 0, 0, y, ct);
    TensorDesc yd(y);
    run_and_check(hs, y, false, want,
                  [&](cudnnHandle_t h, void *p) { return cudnnScaleTensor(h, yd, p, alpha.for_type(t)); },
                  "cudnnScaleTensor alpha " + std::to_string(alpha.d) + " " + describe(y));
  }
}

// ---- cudnnAddTensor -----------------------------------------------------------------

TEST(TensorOpsAddTensor, RandomBroadcastLayoutsAlphaBeta) {
  EngineHandles hs;
  Rng rng(test_seed(103));
  for (int it = 0; it < 60; ++it) {
    const cudnnDataType_t t = rng.pick(kElementwiseTypes);
    HostTensor c = random_tensor(rng, t, random_shape(rng, static_cast<int>(rng.integer(4, 5)), 2500));
    std::vector<int64_t> adims = broadcast_of(rng, c.dims, 0.5);
    HostTensor a = random_tensor(rng, t, adims);
    const AlphaBeta ab = rng.pick(kAlphaBeta);
    const Scaling alpha(ab.alpha), beta(ab.beta);
    const cudnnDataType_t ct = t == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
    auto want = reference_scale_add(alpha.value(t), &a, 0, beta.value(t), c, ct);
    TensorDesc ad(a), cd(c);
    Buffer abuf = upload(a);
    run_and_check(hs, c, ab.beta == 0, want,
                  [&](cudnnHandle_t h, void *p) {
                    return cudnnAddTensor(h, alpha.for_type(t), ad, abuf.get(), beta.for_type(t), cd, p);
                  },
                  "cudnnAddTensor A " + describe(a) + " C " + describe(c) + " alpha " + std::to_string(ab.alpha) +
                      " beta " + std::to_string(ab.beta));
  }
}

// ---- cudnnOpTensor ------------------------------------------------------------------------

namespace {
struct OpTypes {
  cudnnDataType_t compute, a, c;  // B has A's type
};
const std::vector<OpTypes> kOpTensorTable = {
    {CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT},       {CUDNN_DATA_FLOAT, CUDNN_DATA_INT8, CUDNN_DATA_FLOAT},
    {CUDNN_DATA_FLOAT, CUDNN_DATA_HALF, CUDNN_DATA_FLOAT},        {CUDNN_DATA_FLOAT, CUDNN_DATA_BFLOAT16, CUDNN_DATA_FLOAT},
    {CUDNN_DATA_DOUBLE, CUDNN_DATA_DOUBLE, CUDNN_DATA_DOUBLE},    {CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, CUDNN_DATA_HALF},
    {CUDNN_DATA_FLOAT, CUDNN_DATA_HALF, CUDNN_DATA_HALF},         {CUDNN_DATA_FLOAT, CUDNN_DATA_INT8, CUDNN_DATA_INT8},
    {CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, CUDNN_DATA_INT8},        {CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, CUDNN_DATA_BFLOAT16},
    {CUDNN_DATA_FLOAT, CUDNN_DATA_BFLOAT16, CUDNN_DATA_BFLOAT16},
};

struct OpTensorDesc {
  cudnnOpTensorDescriptor_t d = nullptr;
  OpTensorDesc(cudnnOpTensorOp_t op, cudnnDataType_t ct, cudnnNanPropagation_t nan) {
    cudnnCreateOpTensorDescriptor(&d);
    EXPECT_EQ(cudnnSetOpTensorDescriptor(d, op, ct, nan), CUDNN_STATUS_SUCCESS);
  }
  ~OpTensorDesc() { cudnnDestroyOpTensorDescriptor(d); }
};
}  // namespace

TEST(TensorOpsOpTensor, EveryTypeRowAndOpWithBroadcastAndBlend) {
  EngineHandles hs;
  Rng rng(test_seed(104));
  const std::vector<cudnnOpTensorOp_t> ops = {CUDNN_OP_TENSOR_ADD, CUDNN_OP_TENSOR_MUL, CUDNN_OP_TENSOR_MIN,
                                              CUDNN_OP_TENSOR_MAX, CUDNN_OP_TENSOR_SQRT, CUDNN_OP_TENSOR_NOT};
  for (const OpTypes &row : kOpTensorTable) {
    for (cudnnOpTensorOp_t op : ops) {
      const int rank = static_cast<int>(rng.integer(4, 5));  // cudnnOpTensor takes 4-d and 5-d tensors
      HostTensor c = random_tensor(rng, row.c, random_shape(rng, rank, 1500));
      HostTensor a = random_tensor(rng, row.a, c.dims);
      HostTensor b = random_tensor(rng, row.a, broadcast_of(rng, c.dims, 0.4));
      // Some NaNs for the NaN options of MIN/MAX (float inputs only).
      if (!is_integer_type(row.a) && rng.coin(0.5)) {
        a.set(std::vector<int64_t>(static_cast<size_t>(rank), 0), kNaN);
        b.set(std::vector<int64_t>(static_cast<size_t>(rank), 0), kNaN);
      }
      const bool propagate = rng.coin();
      const AlphaBeta ab = rng.pick(kAlphaBeta);
      const Scaling alpha1(rng.pick(std::vector<double>{1, -1, 0.5, 2})), alpha2(rng.pick(std::vector<double>{1, 0.5, -2})),
          beta(ab.beta);
      const cudnnDataType_t ct = row.compute;
      const bool unary = op == CUDNN_OP_TENSOR_SQRT || op == CUDNN_OP_TENSOR_NOT;
      auto want = reference_op_tensor(op, propagate, alpha1.value(row.c), a, alpha2.value(row.c), unary ? nullptr : &b,
                                      beta.value(row.c), c, ct);
      OpTensorDesc od(op, ct, propagate ? CUDNN_PROPAGATE_NAN : CUDNN_NOT_PROPAGATE_NAN);
      TensorDesc adesc(a), bdesc(b), cdesc(c);
      Buffer abuf = upload(a), bbuf = upload(b);
      run_and_check(hs, c, ab.beta == 0, want,
                    [&](cudnnHandle_t h, void *p) {
                      return cudnnOpTensor(h, od.d, alpha1.for_type(row.c), adesc, abuf.get(), alpha2.for_type(row.c),
                                           bdesc, bbuf.get(), beta.for_type(row.c), cdesc, p);
                    },
                    "cudnnOpTensor op " + std::to_string(op) + " A " + describe(a) + " B " + describe(b) + " C " +
                        describe(c) + " beta " + std::to_string(ab.beta));
    }
  }
}

TEST(TensorOpsOpTensor, NotIsOneMinusAlpha1TimesA) {
  EngineHandles hs;
  HostTensor a = make_tensor(CUDNN_DATA_FLOAT, {1, 4, 1, 1}, packed_strides({1, 4, 1, 1}, Layout::nchw));
  a.set_values({0, 1, 2, -3});
  HostTensor c = a;
  OpTensorDesc od(CUDNN_OP_TENSOR_NOT, CUDNN_DATA_FLOAT, CUDNN_NOT_PROPAGATE_NAN);
  TensorDesc desc(a);
  Buffer abuf = upload(a);
  const float alpha1 = 2, alpha2 = 1, beta = 0;
  std::vector<Expect> want = {{1, 0}, {-1, 0}, {-3, 0}, {7, 0}};
  run_and_check(hs, c, true, want,
                [&](cudnnHandle_t h, void *p) {
                  return cudnnOpTensor(h, od.d, &alpha1, desc, abuf.get(), &alpha2, desc, abuf.get(), &beta, desc, p);
                },
                "cudnnOpTensor NOT");
}

TEST(TensorOpsOpTensor, MinMaxNanOptions) {
  EngineHandles hs;
  HostTensor a = make_tensor(CUDNN_DATA_FLOAT, {1, 4, 1, 1}, packed_strides({1, 4, 1, 1}, Layout::nchw));
  HostTensor b = a;
  a.set_values({kNaN, 1, kNaN, 5});
  b.set_values({2, kNaN, kNaN, 3});
  TensorDesc desc(a);
  Buffer abuf = upload(a), bbuf = upload(b);
  const float one = 1, zero = 0;
  for (auto op : {CUDNN_OP_TENSOR_MIN, CUDNN_OP_TENSOR_MAX}) {
    for (auto nan : {CUDNN_PROPAGATE_NAN, CUDNN_NOT_PROPAGATE_NAN}) {
      OpTensorDesc od(op, CUDNN_DATA_FLOAT, nan);
      std::vector<Expect> want;
      if (nan == CUDNN_PROPAGATE_NAN) want = {{kNaN, 0}, {kNaN, 0}, {kNaN, 0}, {op == CUDNN_OP_TENSOR_MIN ? 3. : 5., 0}};
      else want = {{2, 0}, {1, 0}, {kNaN, 0}, {op == CUDNN_OP_TENSOR_MIN ? 3. : 5., 0}};
      run_and_check(hs, a, true, want,
                    [&](cudnnHandle_t h, void *p) {
                      return cudnnOpTensor(h, od.d, &one, desc, abuf.get(), &one, desc, bbuf.get(), &zero, desc, p);
                    },
                    "MIN/MAX NaN option");
    }
  }
}

// Conversions on the way out: float results stored as HALF, BFLOAT16 and
// INT8 round to nearest even and saturate (INT8) or overflow to inf.
TEST(TensorOpsOpTensor, OutputConversionsRoundAndSaturate) {
  EngineHandles hs;
  const std::vector<double> inputs = {2.5,   3.5,      -2.5,     -0.5,   126.5, 127.5,    200,      -300, kNaN,
                                      65504, 65520,    65519.99, 1e-8,   6e-8,  1.0009765625 + 0x1p-11, 3.0e38,
                                      -1e39, 0.333333, 1.00390625, 1.01171875};
  const std::vector<int64_t> dims = {1, static_cast<int64_t>(inputs.size()), 1, 1};
  HostTensor a = make_tensor(CUDNN_DATA_FLOAT, dims, packed_strides(dims, Layout::nchw));
  a.set_values(inputs);
  HostTensor zero_b = make_tensor(CUDNN_DATA_FLOAT, dims, packed_strides(dims, Layout::nchw));
  OpTensorDesc od(CUDNN_OP_TENSOR_ADD, CUDNN_DATA_FLOAT, CUDNN_NOT_PROPAGATE_NAN);
  TensorDesc adesc(a);
  Buffer abuf = upload(a), bbuf = upload(zero_b);
  const float one = 1, zero = 0;
  for (auto out : {CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16, CUDNN_DATA_INT8}) {
    HostTensor c = make_tensor(out, dims, packed_strides(dims, Layout::nchw));
    TensorDesc cdesc(c);
    std::vector<Expect> want;
    for (double v : inputs) want.push_back({static_cast<double>(static_cast<float>(v)), 0});
    run_and_check(hs, c, true, want,
                  [&](cudnnHandle_t h, void *p) {
                    return cudnnOpTensor(h, od.d, &one, adesc, abuf.get(), &one, adesc, bbuf.get(), &zero, cdesc, p);
                  },
                  std::string("float -> ") + type_name(out));
  }
}

// ---- cudnnTransformTensor ---------------------------------------------------------------------

TEST(TensorOpsTransformTensor, RandomLayoutsTypesAlphaBeta) {
  EngineHandles hs;
  Rng rng(test_seed(105));
  for (int it = 0; it < 50; ++it) {
    const cudnnDataType_t t = rng.pick(kElementwiseTypes);
    const int rank = static_cast<int>(rng.integer(2, 5));
    const auto dims = random_shape(rng, rank, 3000);
    HostTensor x = random_tensor(rng, t, dims), y = random_tensor(rng, t, dims);
    const AlphaBeta ab = rng.pick(kAlphaBeta);
    const Scaling alpha(ab.alpha), beta(ab.beta);
    const cudnnDataType_t ct = t == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
    auto want = reference_scale_add(alpha.value(t), &x, 0, beta.value(t), y, ct);
    TensorDesc xd(x), yd(y);
    Buffer xb = upload(x);
    run_and_check(hs, y, ab.beta == 0, want,
                  [&](cudnnHandle_t h, void *p) {
                    return cudnnTransformTensor(h, alpha.for_type(t), xd, xb.get(), beta.for_type(t), yd, p);
                  },
                  "cudnnTransformTensor x " + describe(x) + " y " + describe(y));
  }
}

// Transforms convert between data types (scaling factors follow x's type;
// results round to nearest even and saturate in integer outputs).
TEST(TensorOpsTransformTensor, ConvertsBetweenTypes) {
  EngineHandles hs;
  Rng rng(test_seed(111));
  const auto is_16bit = [](cudnnDataType_t t) { return t == CUDNN_DATA_HALF || t == CUDNN_DATA_BFLOAT16; };
  for (int it = 0; it < 50; ++it) {
    const cudnnDataType_t xt = rng.pick(kElementwiseTypes);
    cudnnDataType_t yt = rng.pick(kElementwiseTypes);
    while (yt == xt || (is_16bit(xt) && is_16bit(yt))) yt = rng.pick(kElementwiseTypes);  // no HALF <-> BFLOAT16
    const int rank = static_cast<int>(rng.integer(2, 5));
    const auto dims = random_shape(rng, rank, 3000);
    HostTensor x = random_tensor(rng, xt, dims), y = random_tensor(rng, yt, dims);
    // Scale float inputs up now and then, so that integer outputs saturate.
    const AlphaBeta ab = rng.coin(0.2) ? AlphaBeta{100, 0} : rng.pick(kAlphaBeta);
    const Scaling alpha(ab.alpha), beta(ab.beta);
    const cudnnDataType_t ct = yt == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
    auto want = reference_scale_add(alpha.value(xt), &x, 0, beta.value(xt), y, ct);
    TensorDesc xd(x), yd(y);
    Buffer xb = upload(x);
    run_and_check(hs, y, ab.beta == 0, want,
                  [&](cudnnHandle_t h, void *p) {
                    return cudnnTransformTensor(h, alpha.for_type(xt), xd, xb.get(), beta.for_type(xt), yd, p);
                  },
                  "cudnnTransformTensor x " + describe(x) + " y " + describe(y) + " alpha " +
                      std::to_string(ab.alpha) + " beta " + std::to_string(ab.beta));
  }
}

TEST(TensorOpsTransformTensor, VectorFormatsToAndFromScalarLayouts) {
  EngineHandles hs;
  Rng rng(test_seed(106));
  struct Pair {
    cudnnDataType_t from, to;
  };
  // INT8x4 only: cuDNN 9 refuses INT8x32 and UINT8x4 in transforms.
  const std::vector<Pair> pairs = {{CUDNN_DATA_INT8, CUDNN_DATA_INT8x4},  {CUDNN_DATA_INT8x4, CUDNN_DATA_INT8},
                                   {CUDNN_DATA_FLOAT, CUDNN_DATA_INT8x4}, {CUDNN_DATA_INT8x4, CUDNN_DATA_FLOAT},
                                   {CUDNN_DATA_HALF, CUDNN_DATA_INT8x4},  {CUDNN_DATA_INT8x4, CUDNN_DATA_BFLOAT16},
                                   {CUDNN_DATA_INT8x4, CUDNN_DATA_INT8x4}};
  for (int it = 0; it < 24; ++it) {
    const Pair p = pairs[static_cast<size_t>(it) % pairs.size()];
    const int c_mult = std::max(vector_lanes(p.from), vector_lanes(p.to));
    const auto dims = random_shape(rng, 4, 4000, c_mult);
    HostTensor x = random_tensor(rng, p.from, dims), y = random_tensor(rng, p.to, dims);
    const AlphaBeta ab = rng.pick(kAlphaBeta);
    const Scaling alpha(ab.alpha), beta(ab.beta);
    auto want = reference_scale_add(alpha.f, &x, 0, beta.f, y, CUDNN_DATA_FLOAT);
    TensorDesc xd(x), yd(y);
    Buffer xb = upload(x);
    run_and_check(hs, y, ab.beta == 0, want,
                  [&](cudnnHandle_t h, void *q) { return cudnnTransformTensor(h, &alpha.f, xd, xb.get(), &beta.f, yd, q); },
                  "vector transform x " + describe(x) + " y " + describe(y));
  }
}

// ---- cudnnTransformTensorEx / cudnnTransformFilter / cudnnInitTransformDest -----------------

namespace {
struct TransformDesc {
  cudnnTensorTransformDescriptor_t d = nullptr;
  TransformDesc(int nb, cudnnTensorFormat_t format, const std::vector<int> &before, const std::vector<int> &after,
                const std::vector<unsigned> &fold, cudnnFoldingDirection_t dir = CUDNN_TRANSFORM_FOLD) {
    cudnnCreateTensorTransformDescriptor(&d);
    std::vector<int32_t> b(before.begin(), before.end()), a(after.begin(), after.end());
    std::vector<uint32_t> f(fold.begin(), fold.end());
    EXPECT_EQ(cudnnSetTensorTransformDescriptor(d, static_cast<uint32_t>(nb), format, b.data(), a.data(), f.data(), dir),
              CUDNN_STATUS_SUCCESS);
  }
  ~TransformDesc() { cudnnDestroyTensorTransformDescriptor(d); }
};

struct NdDesc {
  int nb;
  std::vector<int> dims, strides;
};
NdDesc read_nd(cudnnTensorDescriptor_t d) {
  NdDesc r;
  cudnnDataType_t t;
  r.dims.resize(8);
  r.strides.resize(8);
  EXPECT_EQ(cudnnGetTensorNdDescriptor(d, 8, &t, &r.nb, r.dims.data(), r.strides.data()), CUDNN_STATUS_SUCCESS);
  r.dims.resize(static_cast<size_t>(r.nb));
  r.strides.resize(static_cast<size_t>(r.nb));
  return r;
}

// dest = alpha * src zero-padded: element d of dest is alpha * src[d - before] or 0.
std::vector<Expect> padded_reference(const HostTensor &src, const HostTensor &dst, const std::vector<int> &before,
                                     double alpha = 1) {
  std::vector<Expect> want;
  for_each_index(dst.dims, [&](const std::vector<int64_t> &d) {
    std::vector<int64_t> s(d.size());
    bool inside = true;
    for (size_t i = 0; i < d.size(); ++i) {
      s[i] = d[i] - before[i];
      inside = inside && s[i] >= 0 && s[i] < src.dims[i];
    }
    const double v = inside ? alpha * src.get(s) : 0.0;
    want.push_back({v, 1e-6 * std::abs(v)});
  });
  return want;
}

// A folding transform, element by element (spatial padding only). FOLD pads
// the source and moves each block of fold[0] x fold[1] (x fold[2]) spatial
// positions into the channels: dest(n, f * C + c, q...) = padded(n, c,
// q * F + o...), f the row-major number of the block offsets o; UNFOLD is the
// inverse, padded after. Positions that no source element reaches are 0.
std::vector<Expect> folded_reference(const HostTensor &src, const HostTensor &dst, const std::vector<int> &before,
                                     const std::vector<unsigned> &fold, bool unfold, double alpha, double beta) {
  const size_t nb = dst.dims.size();
  std::vector<Expect> want;
  for_each_index(dst.dims, [&](const std::vector<int64_t> &d) {
    std::vector<int64_t> s(nb);
    bool inside = true;
    s[0] = d[0];
    if (!unfold) {
      const int64_t c = src.dims[1];
      int64_t f = d[1] / c;
      s[1] = d[1] % c;
      for (size_t i = nb - 1; i >= 2; --i) {  // offsets of block f, last spatial dim fastest
        const int64_t o = f % fold[i - 2];
        f /= fold[i - 2];
        s[i] = d[i] * fold[i - 2] + o - before[i];
        inside = inside && s[i] >= 0 && s[i] < src.dims[i];
      }
    } else {
      int64_t f = 0;
      for (size_t i = 2; i < nb; ++i) {
        const int64_t u = d[i] - before[i];  // position in the unfolded source
        inside = inside && u >= 0 && u < src.dims[i] * fold[i - 2];
        if (!inside) break;
        s[i] = u / fold[i - 2];
        f = f * fold[i - 2] + u % fold[i - 2];
      }
      s[1] = f * dst.dims[1] + d[1];
      inside = inside && s[1] < src.dims[1];
    }
    const double v = (inside ? alpha * src.get(s) : 0.0) + (beta != 0 ? beta * dst.get(d) : 0.0);
    want.push_back({v, 1e-6 * (std::abs(v) + std::abs(beta * dst.get(d)))});
  });
  return want;
}
}  // namespace

TEST(TensorOpsTransformTensorEx, PaddingIntoRandomLayouts) {
  EngineHandles hs;
  Rng rng(test_seed(107));
  for (int it = 0; it < 30; ++it) {
    const cudnnDataType_t t = rng.pick(std::vector<cudnnDataType_t>{CUDNN_DATA_FLOAT, CUDNN_DATA_HALF, CUDNN_DATA_INT8,
                                                                    CUDNN_DATA_DOUBLE});
    const int rank = static_cast<int>(rng.integer(3, 5));
    const auto sdims = random_shape(rng, rank, 1500);
    std::vector<int> before(static_cast<size_t>(rank)), after(static_cast<size_t>(rank));
    std::vector<int64_t> ddims(sdims);
    for (int i = 0; i < rank; ++i) {
      before[static_cast<size_t>(i)] = static_cast<int>(rng.integer(sdims[static_cast<size_t>(i)] > 1 ? -1 : 0, 2));
      after[static_cast<size_t>(i)] = static_cast<int>(rng.integer(0, 2));
      ddims[static_cast<size_t>(i)] += before[static_cast<size_t>(i)] + after[static_cast<size_t>(i)];
    }
    HostTensor x = random_tensor(rng, t, sdims), y = random_tensor(rng, t, ddims);
    TransformDesc tr(rank, CUDNN_TENSOR_NCHW, before, after, std::vector<unsigned>(static_cast<size_t>(rank), 1));
    TensorDesc xd(x), yd(y);
    Buffer xb = upload(x);
    const Scaling alpha(rng.pick(std::vector<double>{1, 2, -0.5})), zero(0);  // padding needs beta = 0
    run_and_check(hs, y, true, padded_reference(x, y, before, alpha.value(t)),
                  [&](cudnnHandle_t h, void *p) {
                    return cudnnTransformTensorEx(h, tr.d, alpha.for_type(t), xd, xb.get(), zero.for_type(t), yd, p);
                  },
                  "cudnnTransformTensorEx padded x " + describe(x) + " y " + describe(y));
  }
}

TEST(TensorOpsTransformTensorEx, NoPaddingBlendsLikeTransformTensor) {
  EngineHandles hs;
  Rng rng(test_seed(108));
  for (int it = 0; it < 10; ++it) {
    const auto dims = random_shape(rng, 4, 2000);
    HostTensor x = random_tensor(rng, CUDNN_DATA_FLOAT, dims), y = random_tensor(rng, CUDNN_DATA_FLOAT, dims);
    TransformDesc tr(4, CUDNN_TENSOR_NHWC, {0, 0, 0, 0}, {0, 0, 0, 0}, {1, 1, 1, 1});
    const AlphaBeta ab = rng.pick(kAlphaBeta);
    const Scaling alpha(ab.alpha), beta(ab.beta);
    auto want = reference_scale_add(alpha.f, &x, 0, beta.f, y, CUDNN_DATA_FLOAT);
    TensorDesc xd(x), yd(y);
    Buffer xb = upload(x);
    run_and_check(hs, y, ab.beta == 0, want,
                  [&](cudnnHandle_t h, void *p) { return cudnnTransformTensorEx(h, tr.d, &alpha.f, xd, xb.get(), &beta.f, yd, p); },
                  "cudnnTransformTensorEx " + describe(y));
  }
}

TEST(TensorOpsTransformTensorEx, FoldAndUnfoldWithPadding) {
  EngineHandles hs;
  Rng rng(test_seed(112));
  for (int it = 0; it < 30; ++it) {
    const cudnnDataType_t t = rng.pick(std::vector<cudnnDataType_t>{CUDNN_DATA_FLOAT, CUDNN_DATA_HALF, CUDNN_DATA_INT8,
                                                                    CUDNN_DATA_DOUBLE});
    const int rank = static_cast<int>(rng.integer(4, 5));
    const bool unfold = rng.coin();
    std::vector<unsigned> fold(static_cast<size_t>(rank - 2));
    for (auto &f : fold) f = static_cast<unsigned>(rng.integer(1, 3));
    fold[static_cast<size_t>(rng.integer(0, rank - 3))] = 2;  // at least one real fold
    unsigned blocks = 1;
    for (unsigned f : fold) blocks *= f;
    // Spatial padding only; sometimes none.
    const bool pad = rng.coin();
    std::vector<int> before(static_cast<size_t>(rank), 0), after(static_cast<size_t>(rank), 0);
    for (int i = 2; i < rank && pad; ++i) {
      before[static_cast<size_t>(i)] = static_cast<int>(rng.integer(0, 2));
      after[static_cast<size_t>(i)] = static_cast<int>(rng.integer(0, 1));
    }
    std::vector<int64_t> sdims = random_shape(rng, rank, 600);
    if (unfold && rng.coin(0.7)) sdims[1] = blocks * rng.integer(1, 3);  // mostly whole channel groups
    HostTensor x = random_tensor(rng, t, sdims);
    const cudnnTensorFormat_t format = rng.coin() ? CUDNN_TENSOR_NCHW : CUDNN_TENSOR_NHWC;
    TransformDesc tr(rank, format, before, after, fold, unfold ? CUDNN_TRANSFORM_UNFOLD : CUDNN_TRANSFORM_FOLD);
    TensorDesc xd(x);
    cudnnTensorDescriptor_t dd;
    cudnnCreateTensorDescriptor(&dd);
    size_t bytes = 0;
    ASSERT_EQ(cudnnInitTransformDest(tr.d, xd, dd, &bytes), CUDNN_STATUS_SUCCESS);
    const NdDesc nd = read_nd(dd);
    HostTensor y = make_tensor(t, std::vector<int64_t>(nd.dims.begin(), nd.dims.end()),
                               std::vector<int64_t>(nd.strides.begin(), nd.strides.end()));
    fill_random(y, rng, value_lo(t), value_hi(t));
    // Blends only where every destination element has a source element.
    bool whole = !pad;
    for (int i = 2; i < rank && !unfold; ++i) whole = whole && x.dims[static_cast<size_t>(i)] % fold[static_cast<size_t>(i - 2)] == 0;
    if (unfold) whole = whole && x.dims[1] % blocks == 0;
    const AlphaBeta ab = whole ? rng.pick(kAlphaBeta) : AlphaBeta{rng.pick(std::vector<double>{1, 2, -0.5}), 0};
    const Scaling alpha(ab.alpha), beta(ab.beta);
    Buffer xb = upload(x);
    run_and_check(hs, y, ab.beta == 0,
                  folded_reference(x, y, before, fold, unfold, alpha.value(t), beta.value(t)),
                  [&](cudnnHandle_t h, void *p) {
                    return cudnnTransformTensorEx(h, tr.d, alpha.for_type(t), xd, xb.get(), beta.for_type(t), dd, p);
                  },
                  std::string(unfold ? "unfold " : "fold ") + describe(x) + " -> " + describe(y));
    cudnnDestroyTensorDescriptor(dd);
  }
}

TEST(TensorOpsTransformTensorEx, UnsupportedConfigurations) {
  cudnnHandle_t h;
  ASSERT_EQ(cudnnCreate(&h), CUDNN_STATUS_SUCCESS);
  HostTensor x = make_tensor(CUDNN_DATA_FLOAT, {1, 2, 4, 4}, packed_strides({1, 2, 4, 4}, Layout::nchw));
  HostTensor y = make_tensor(CUDNN_DATA_FLOAT, {1, 2, 6, 6}, packed_strides({1, 2, 6, 6}, Layout::nchw));
  TensorDesc xd(x), yd(y);
  Buffer xb = upload(x), yb = upload(y);
  TransformDesc pad(4, CUDNN_TENSOR_NCHW, {0, 0, 1, 1}, {0, 0, 1, 1}, {1, 1});
  const float one = 1, zero = 0, two = 2;
  EXPECT_EQ(cudnnTransformTensorEx(h, pad.d, &one, xd, xb.get(), &zero, yd, yb.get()), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnTransformTensorEx(h, pad.d, &two, xd, xb.get(), &zero, yd, yb.get()), CUDNN_STATUS_SUCCESS);
  // Padding needs beta = 0.
  EXPECT_EQ(cudnnTransformTensorEx(h, pad.d, &one, xd, xb.get(), &one, yd, yb.get()), CUDNN_STATUS_NOT_SUPPORTED);
  // Destination dims that do not match source + padding.
  TransformDesc nopad(4, CUDNN_TENSOR_NCHW, {0, 0, 0, 0}, {0, 0, 0, 0}, {1, 1});
  EXPECT_EQ(cudnnTransformTensorEx(h, nopad.d, &one, xd, xb.get(), &zero, yd, yb.get()), CUDNN_STATUS_BAD_PARAM);
  // Folding: the destination must have the folded dims (1 x 8 x 2 x 2 here).
  TransformDesc fold(4, CUDNN_TENSOR_NCHW, {0, 0, 0, 0}, {0, 0, 0, 0}, {2, 2});
  EXPECT_EQ(cudnnTransformTensorEx(h, fold.d, &one, xd, xb.get(), &zero, yd, yb.get()), CUDNN_STATUS_BAD_PARAM);
  HostTensor f = make_tensor(CUDNN_DATA_FLOAT, {1, 8, 2, 2}, packed_strides({1, 8, 2, 2}, Layout::nchw));
  TensorDesc fd(f);
  EXPECT_EQ(cudnnTransformTensorEx(h, fold.d, &two, xd, xb.get(), &one, fd, yb.get()), CUDNN_STATUS_SUCCESS);
  // A fold that pads (3 x 3 in blocks of 2 x 2) writes zeros: beta must be 0.
  HostTensor odd = make_tensor(CUDNN_DATA_FLOAT, {1, 2, 3, 3}, packed_strides({1, 2, 3, 3}, Layout::nchw));
  TensorDesc oddd(odd);
  EXPECT_EQ(cudnnTransformTensorEx(h, fold.d, &one, oddd, xb.get(), &zero, fd, yb.get()), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnTransformTensorEx(h, fold.d, &one, oddd, xb.get(), &one, fd, yb.get()), CUDNN_STATUS_NOT_SUPPORTED);
  EXPECT_EQ(cudnnTransformTensorEx(h, nullptr, &one, xd, xb.get(), &zero, yd, yb.get()), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnTransformTensorEx(nullptr, pad.d, &one, xd, xb.get(), &zero, yd, yb.get()), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnTransformTensorEx(h, pad.d, &one, xd, nullptr, &zero, yd, yb.get()), CUDNN_STATUS_BAD_PARAM);
  cudnnDestroy(h);
}

TEST(TensorOpsTransformFilter, KcrsToKrscWithPadding) {
  EngineHandles hs;
  Rng rng(test_seed(109));
  for (int it = 0; it < 12; ++it) {
    const cudnnDataType_t t = rng.pick(std::vector<cudnnDataType_t>{CUDNN_DATA_FLOAT, CUDNN_DATA_HALF, CUDNN_DATA_INT8});
    const int k = static_cast<int>(rng.integer(1, 6)), c = static_cast<int>(rng.integer(1, 5)),
              r = static_cast<int>(rng.integer(1, 4)), s = static_cast<int>(rng.integer(1, 4));
    const bool pad = rng.coin();
    const std::vector<int> before = {0, 0, pad ? 1 : 0, pad ? 1 : 0}, after = {pad ? 1 : 0, 0, pad ? 1 : 0, 0};
    const cudnnTensorFormat_t from = rng.coin() ? CUDNN_TENSOR_NCHW : CUDNN_TENSOR_NHWC;
    const cudnnTensorFormat_t to = from == CUDNN_TENSOR_NCHW ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW;
    const std::vector<int64_t> sd = {k, c, r, s};
    std::vector<int64_t> dd = sd;
    for (int i = 0; i < 4; ++i) dd[static_cast<size_t>(i)] += before[static_cast<size_t>(i)] + after[static_cast<size_t>(i)];
    auto layout = [](cudnnTensorFormat_t f) { return f == CUDNN_TENSOR_NHWC ? Layout::nhwc : Layout::nchw; };
    HostTensor x = make_tensor(t, sd, packed_strides(sd, layout(from)));
    fill_random(x, rng, value_lo(t), value_hi(t));
    HostTensor y = make_tensor(t, dd, packed_strides(dd, layout(to)));
    cudnnFilterDescriptor_t xf, yf;
    cudnnCreateFilterDescriptor(&xf);
    cudnnCreateFilterDescriptor(&yf);
    ASSERT_EQ(cudnnSetFilter4dDescriptor(xf, t, from, k, c, r, s), CUDNN_STATUS_SUCCESS);
    ASSERT_EQ(cudnnSetFilter4dDescriptor(yf, t, to, static_cast<int>(dd[0]), static_cast<int>(dd[1]),
                                         static_cast<int>(dd[2]), static_cast<int>(dd[3])),
              CUDNN_STATUS_SUCCESS);
    TransformDesc tr(4, to, before, after, {1, 1});
    Buffer xb = upload(x);
    const float one = 1, zero = 0;
    run_and_check(hs, y, true, padded_reference(x, y, before),
                  [&](cudnnHandle_t h, void *p) { return cudnnTransformFilter(h, tr.d, &one, xf, xb.get(), &zero, yf, p); },
                  "cudnnTransformFilter " + describe(x) + " -> " + describe(y));
    cudnnDestroyFilterDescriptor(xf);
    cudnnDestroyFilterDescriptor(yf);
  }
}


// Expected values observed with NVIDIA's cuDNN 9 (cudnnInitTransformDest
// runs without a GPU).
TEST(TensorOpsInitTransformDest, MatchesCudnn) {
  cudnnTensorDescriptor_t s, d;
  cudnnCreateTensorDescriptor(&s);
  cudnnCreateTensorDescriptor(&d);
  size_t size = 0;
  ASSERT_EQ(cudnnSetTensor4dDescriptor(s, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 2, 3, 4, 5), CUDNN_STATUS_SUCCESS);
  {
    TransformDesc t(4, CUDNN_TENSOR_NHWC, {0, 0, 0, 0}, {0, 0, 0, 0}, {1, 1});
    ASSERT_EQ(cudnnInitTransformDest(t.d, s, d, &size), CUDNN_STATUS_SUCCESS);
    NdDesc r = read_nd(d);
    EXPECT_EQ(r.dims, (std::vector<int>{2, 3, 4, 5}));
    EXPECT_EQ(r.strides, (std::vector<int>{60, 1, 15, 3}));
    EXPECT_EQ(size, 480u);
  }
  {
    TransformDesc t(4, CUDNN_TENSOR_NCHW, {0, 1, 2, 3}, {1, 0, 1, 0}, {1, 1});
    ASSERT_EQ(cudnnInitTransformDest(t.d, s, d, &size), CUDNN_STATUS_SUCCESS);
    NdDesc r = read_nd(d);
    EXPECT_EQ(r.dims, (std::vector<int>{3, 4, 7, 8}));
    EXPECT_EQ(r.strides, (std::vector<int>{224, 56, 8, 1}));
    EXPECT_EQ(size, 2688u);
  }
  {
    TransformDesc t(4, CUDNN_TENSOR_NCHW, {-1, 0, 0, 0}, {1, 0, 1, 0}, {2, 2});
    ASSERT_EQ(cudnnInitTransformDest(t.d, s, d, &size), CUDNN_STATUS_SUCCESS);
    NdDesc r = read_nd(d);
    EXPECT_EQ(r.dims, (std::vector<int>{2, 12, 3, 3}));
    EXPECT_EQ(r.strides, (std::vector<int>{108, 9, 3, 1}));
    EXPECT_EQ(size, 864u);
  }
  {
    TransformDesc t(4, CUDNN_TENSOR_NCHW, {-1, 0, 0, 0}, {1, 0, 1, 0}, {2, 2}, CUDNN_TRANSFORM_UNFOLD);
    ASSERT_EQ(cudnnInitTransformDest(t.d, s, d, &size), CUDNN_STATUS_SUCCESS);
    NdDesc r = read_nd(d);
    EXPECT_EQ(r.dims, (std::vector<int>{2, 1, 9, 10}));
    EXPECT_EQ(r.strides, (std::vector<int>{90, 90, 10, 1}));
    EXPECT_EQ(size, 720u);
  }
  {
    // A scalar type cannot become NCHW_VECT_C.
    ASSERT_EQ(cudnnSetTensor4dDescriptor(s, CUDNN_TENSOR_NCHW, CUDNN_DATA_INT8, 2, 8, 4, 5), CUDNN_STATUS_SUCCESS);
    TransformDesc t(4, CUDNN_TENSOR_NCHW_VECT_C, {0, 0, 0, 0}, {0, 0, 0, 0}, {1, 1});
    EXPECT_EQ(cudnnInitTransformDest(t.d, s, d, &size), CUDNN_STATUS_NOT_SUPPORTED);
  }
  {
    // Vector types keep their vectors of C.
    ASSERT_EQ(cudnnSetTensor4dDescriptor(s, CUDNN_TENSOR_NCHW_VECT_C, CUDNN_DATA_INT8x4, 2, 8, 4, 5),
              CUDNN_STATUS_SUCCESS);
    TransformDesc t(4, CUDNN_TENSOR_NCHW, {-1, 0, 0, 0}, {1, 0, 1, 0}, {2, 2});
    ASSERT_EQ(cudnnInitTransformDest(t.d, s, d, &size), CUDNN_STATUS_SUCCESS);
    NdDesc r = read_nd(d);
    EXPECT_EQ(r.dims, (std::vector<int>{2, 32, 3, 3}));
    EXPECT_EQ(r.strides, (std::vector<int>{72, 9, 3, 1}));
    EXPECT_EQ(size, 576u);
  }
  TransformDesc t(4, CUDNN_TENSOR_NCHW, {0, 0, 0, 0}, {0, 0, 0, 0}, {1, 1});
  EXPECT_EQ(cudnnInitTransformDest(nullptr, s, d, &size), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnInitTransformDest(t.d, nullptr, d, &size), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnInitTransformDest(t.d, s, nullptr, &size), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnInitTransformDest(t.d, s, d, nullptr), CUDNN_STATUS_BAD_PARAM);
  cudnnDestroyTensorDescriptor(s);
  cudnnDestroyTensorDescriptor(d);
}

// ---- cudnnReduceTensor ----------------------------------------------------------------------------

namespace {
struct ReduceDesc {
  cudnnReduceTensorDescriptor_t d = nullptr;
  ReduceDesc(cudnnReduceTensorOp_t op, cudnnDataType_t ct, cudnnNanPropagation_t nan, cudnnReduceTensorIndices_t idx,
             cudnnIndicesType_t it = CUDNN_32BIT_INDICES) {
    cudnnCreateReduceTensorDescriptor(&d);
    EXPECT_EQ(cudnnSetReduceTensorDescriptor(d, op, ct, nan, idx, it), CUDNN_STATUS_SUCCESS);
  }
  ~ReduceDesc() { cudnnDestroyReduceTensorDescriptor(d); }
};

bool is_index_op(cudnnReduceTensorOp_t op) {
  return op == CUDNN_REDUCE_TENSOR_MIN || op == CUDNN_REDUCE_TENSOR_MAX || op == CUDNN_REDUCE_TENSOR_AMAX;
}

// Runs one reduction on every handle and checks C (and the indices).
void check_reduction(const EngineHandles &hs, const ReduceDesc &rd, bool want_indices, const Scaling &alpha,
                     const Scaling &beta, const HostTensor &a, const HostTensor &c_prior, const ReduceExpect &want,
                     const std::string &what) {
  TensorDesc adesc(a), cdesc(c_prior);
  Buffer abuf = upload(a);
  for (size_t k = 0; k < hs.all.size(); ++k) {
    cudnnHandle_t h = hs.all[k];
    size_t ws = 0, is = 0;
    ASSERT_EQ(cudnnGetReductionWorkspaceSize(h, rd.d, adesc, cdesc, &ws), CUDNN_STATUS_SUCCESS) << what;
    ASSERT_EQ(cudnnGetReductionIndicesSize(h, rd.d, adesc, cdesc, &is), CUDNN_STATUS_SUCCESS) << what;
    if (want_indices) EXPECT_EQ(is, static_cast<size_t>(c_prior.elements()) * 4) << what;
    Buffer wsb(ws), ib(is);
    if (is) {
      std::vector<uint8_t> sentinel(is, 0xee);
      ib.upload(sentinel.data(), is);
    }
    HostTensor c = c_prior;
    if (beta.f == 0) poison(c);
    Buffer cbuf = upload(c);
    ASSERT_EQ(cudnnReduceTensor(h, rd.d, is ? ib.get() : nullptr, is, ws ? wsb.get() : nullptr, ws,
                                alpha.for_type(c.dtype), adesc, abuf.get(), beta.for_type(c.dtype), cdesc, cbuf.get()),
              CUDNN_STATUS_SUCCESS)
        << what << " on " << engine_name(k);
    download(cbuf, c);
    EXPECT_TRUE(matches(c, want.values)) << what << " on " << engine_name(k);
    if (want_indices) {
      std::vector<uint32_t> got(static_cast<size_t>(c.elements()));
      ib.download(got.data(), got.size() * 4);
      // Indices are packed over C's dims in logical order.
      for (size_t i = 0; i < got.size(); ++i)
        if (static_cast<int64_t>(got[i]) != want.indices[i]) {
          ADD_FAILURE() << what << " on " << engine_name(k) << ": index " << i << " is " << got[i] << ", want "
                        << want.indices[i];
          break;
        }
    }
  }
}
}  // namespace

TEST(TensorOpsReduceTensor, RandomOpsTypesAndReducedDims) {
  EngineHandles hs;
  Rng rng(test_seed(110));
  struct Types {
    cudnnDataType_t compute, a, c;
  };
  const std::vector<Types> types = {{CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT},
                                    {CUDNN_DATA_FLOAT, CUDNN_DATA_HALF, CUDNN_DATA_HALF},
                                    {CUDNN_DATA_FLOAT, CUDNN_DATA_HALF, CUDNN_DATA_FLOAT},
                                    {CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, CUDNN_DATA_HALF},
                                    {CUDNN_DATA_FLOAT, CUDNN_DATA_INT8, CUDNN_DATA_FLOAT},
                                    {CUDNN_DATA_FLOAT, CUDNN_DATA_INT8, CUDNN_DATA_INT8},
                                    {CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, CUDNN_DATA_INT8},
                                    {CUDNN_DATA_DOUBLE, CUDNN_DATA_DOUBLE, CUDNN_DATA_DOUBLE}};
  const std::vector<cudnnReduceTensorOp_t> ops = {
      CUDNN_REDUCE_TENSOR_ADD,  CUDNN_REDUCE_TENSOR_MUL,   CUDNN_REDUCE_TENSOR_MIN,   CUDNN_REDUCE_TENSOR_MAX,
      CUDNN_REDUCE_TENSOR_AMAX, CUDNN_REDUCE_TENSOR_AVG,   CUDNN_REDUCE_TENSOR_NORM1, CUDNN_REDUCE_TENSOR_NORM2,
      CUDNN_REDUCE_TENSOR_MUL_NO_ZEROS};
  for (int it = 0; it < 70; ++it) {
    const Types ty = rng.pick(types);
    const cudnnReduceTensorOp_t op = ops[static_cast<size_t>(it) % ops.size()];
    const int rank = static_cast<int>(rng.integer(3, 6));  // cudnnReduceTensor takes 3 to 8 dimensions
    const auto adims = random_shape(rng, rank, 3000);
    std::vector<int64_t> cdims;
    do cdims = broadcast_of(rng, adims, 0.5);
    while (cdims == adims && [&] {
      for (int64_t d : adims)
        if (d > 1) return true;
      return false;
    }());
    if (cdims == adims) continue;  // all extents 1: nothing to reduce
    HostTensor a = random_tensor(rng, ty.a, adims), c = random_tensor(rng, ty.c, cdims);
    if (op == CUDNN_REDUCE_TENSOR_MUL || op == CUDNN_REDUCE_TENSOR_MUL_NO_ZEROS) {
      // Products of values near 1 stay in range; some zeros for NO_ZEROS.
      for_each_index(a.dims, [&](const std::vector<int64_t> &i) {
        double v = is_integer_type(a.dtype) ? rng.integer(-1, 1) : rng.uniform(0.8, 1.25) * (rng.coin() ? 1 : -1);
        if (op == CUDNN_REDUCE_TENSOR_MUL_NO_ZEROS && rng.coin(0.1)) v = 0;
        a.set(i, v);
      });
    }
    const bool propagate = rng.coin();
    if (!is_integer_type(a.dtype) && is_index_op(op) && rng.coin(0.3))
      a.set(std::vector<int64_t>(static_cast<size_t>(rank), 0), kNaN);
    const bool indices = is_index_op(op) && rng.coin(0.7);
    const AlphaBeta ab = rng.pick(kAlphaBeta);
    const Scaling alpha(ab.alpha), beta(ab.beta);
    ReduceDesc rd(op, ty.compute, propagate ? CUDNN_PROPAGATE_NAN : CUDNN_NOT_PROPAGATE_NAN,
                  indices ? CUDNN_REDUCE_TENSOR_FLATTENED_INDICES : CUDNN_REDUCE_TENSOR_NO_INDICES);
    ReduceExpect want = reference_reduce(op, propagate, alpha.value(ty.c), a, beta.value(ty.c), c, ty.compute);
    check_reduction(hs, rd, indices, alpha, beta, a, c, want,
                    "cudnnReduceTensor op " + std::to_string(op) + " A " + describe(a) + " C " + describe(c) +
                        (propagate ? " propagate" : " no-propagate") + " alpha " + std::to_string(ab.alpha) + " beta " +
                        std::to_string(ab.beta));
  }
}

TEST(TensorOpsReduceTensor, NanRulesAndFirstOccurrence) {
  EngineHandles hs;
  const std::vector<int64_t> dims = {2, 1, 6};
  HostTensor a = make_tensor(CUDNN_DATA_FLOAT, dims, packed_strides(dims, Layout::nchw));
  a.set_values({3, kNaN, -7, 7, kNaN, -7,  // row 0
                kNaN, kNaN, kNaN, kNaN, kNaN, kNaN});
  HostTensor c = make_tensor(CUDNN_DATA_FLOAT, {2, 1, 1}, packed_strides({2, 1, 1}, Layout::nchw));
  const Scaling one(1), zero(0);
  for (auto op : {CUDNN_REDUCE_TENSOR_MIN, CUDNN_REDUCE_TENSOR_MAX, CUDNN_REDUCE_TENSOR_AMAX}) {
    for (bool propagate : {true, false}) {
      ReduceDesc rd(op, CUDNN_DATA_FLOAT, propagate ? CUDNN_PROPAGATE_NAN : CUDNN_NOT_PROPAGATE_NAN,
                    CUDNN_REDUCE_TENSOR_FLATTENED_INDICES);
      ReduceExpect want;
      if (propagate) {
        want.values = {{kNaN, 0}, {kNaN, 0}};
        want.indices = {1, 0};
      } else {
        // MIN: -7 first at 2; MAX: 7 at 3; AMAX: |7| first at 2 (|-7|).
        const double v = op == CUDNN_REDUCE_TENSOR_MIN ? -7 : 7;
        want.values = {{v, 0}, {kNaN, 0}};
        want.indices = {op == CUDNN_REDUCE_TENSOR_MAX ? 3 : 2, 0};
      }
      check_reduction(hs, rd, true, one, zero, a, c, want, "NaN rules op " + std::to_string(op));
    }
  }
}

// ---- Bad inputs ---------------------------------------------------------------------------------------

class TensorOpsBadInput : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(cudnnCreate(&h), CUDNN_STATUS_SUCCESS);
    buf = Buffer(4096);
  }
  void TearDown() override { cudnnDestroy(h); }
  cudnnHandle_t h = nullptr;
  Buffer buf;
  const float one = 1, zero = 0;
};

TEST_F(TensorOpsBadInput, SetAndScaleTensor) {
  TensorDesc y(CUDNN_DATA_FLOAT, {2, 3, 4, 5}, packed_strides({2, 3, 4, 5}, Layout::nchw));
  cudnnTensorDescriptor_t unset;
  cudnnCreateTensorDescriptor(&unset);
  EXPECT_EQ(cudnnSetTensor(nullptr, y, buf.get(), &one), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnSetTensor(h, nullptr, buf.get(), &one), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnSetTensor(h, unset, buf.get(), &one), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnSetTensor(h, y, nullptr, &one), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnSetTensor(h, y, buf.get(), nullptr), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnScaleTensor(nullptr, y, buf.get(), &one), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnScaleTensor(h, nullptr, buf.get(), &one), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnScaleTensor(h, y, nullptr, &one), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnScaleTensor(h, y, buf.get(), nullptr), CUDNN_STATUS_BAD_PARAM);
  // Types: FLOAT, DOUBLE, HALF, BFLOAT16, INT8 only.
  for (cudnnDataType_t t : {CUDNN_DATA_UINT8, CUDNN_DATA_INT32}) {
    TensorDesc yt(t, {2, 3, 4, 5}, packed_strides({2, 3, 4, 5}, Layout::nchw));
    EXPECT_EQ(cudnnSetTensor(h, yt, buf.get(), &one), CUDNN_STATUS_NOT_SUPPORTED) << t;
    EXPECT_EQ(cudnnScaleTensor(h, yt, buf.get(), &one), CUDNN_STATUS_NOT_SUPPORTED) << t;
  }
  cudnnTensorDescriptor_t v4;
  cudnnCreateTensorDescriptor(&v4);
  ASSERT_EQ(cudnnSetTensor4dDescriptor(v4, CUDNN_TENSOR_NCHW_VECT_C, CUDNN_DATA_INT8x4, 1, 8, 2, 2), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnSetTensor(h, v4, buf.get(), &one), CUDNN_STATUS_NOT_SUPPORTED);
  EXPECT_EQ(cudnnScaleTensor(h, v4, buf.get(), &one), CUDNN_STATUS_NOT_SUPPORTED);
  cudnnDestroyTensorDescriptor(v4);
  // Ranks 4 and 5 only (cuDNN 9's statuses for the others).
  TensorDesc y2(CUDNN_DATA_FLOAT, {6, 20}, packed_strides({6, 20}, Layout::nchw));
  TensorDesc y3(CUDNN_DATA_FLOAT, {2, 3, 20}, packed_strides({2, 3, 20}, Layout::nchw));
  TensorDesc y6(CUDNN_DATA_FLOAT, {1, 2, 1, 2, 1, 2}, packed_strides({1, 2, 1, 2, 1, 2}, Layout::nchw));
  TensorDesc y5(CUDNN_DATA_FLOAT, {1, 2, 1, 2, 2}, packed_strides({1, 2, 1, 2, 2}, Layout::nchw));
  const float two = 2;
  EXPECT_EQ(cudnnSetTensor(h, y2, buf.get(), &one), CUDNN_STATUS_NOT_SUPPORTED);
  EXPECT_EQ(cudnnSetTensor(h, y3, buf.get(), &one), CUDNN_STATUS_NOT_SUPPORTED);
  EXPECT_EQ(cudnnSetTensor(h, y6, buf.get(), &one), CUDNN_STATUS_NOT_SUPPORTED);
  EXPECT_EQ(cudnnSetTensor(h, y5, buf.get(), &one), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnScaleTensor(h, y2, buf.get(), &two), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnScaleTensor(h, y3, buf.get(), &two), CUDNN_STATUS_NOT_SUPPORTED);
  EXPECT_EQ(cudnnScaleTensor(h, y6, buf.get(), &two), CUDNN_STATUS_NOT_SUPPORTED);
  EXPECT_EQ(cudnnScaleTensor(h, y5, buf.get(), &two), CUDNN_STATUS_SUCCESS);
  cudnnDestroyTensorDescriptor(unset);
}

TEST_F(TensorOpsBadInput, AddTensor) {
  const std::vector<int64_t> cd = {2, 3, 4, 5};
  TensorDesc c(CUDNN_DATA_FLOAT, cd, packed_strides(cd, Layout::nchw));
  TensorDesc a_ok(CUDNN_DATA_FLOAT, {1, 3, 1, 1}, packed_strides({1, 3, 1, 1}, Layout::nchw));
  TensorDesc a_bad(CUDNN_DATA_FLOAT, {1, 2, 1, 1}, packed_strides({1, 2, 1, 1}, Layout::nchw));
  TensorDesc a_half(CUDNN_DATA_HALF, {1, 3, 1, 1}, packed_strides({1, 3, 1, 1}, Layout::nchw));
  TensorDesc a_rank(CUDNN_DATA_FLOAT, {3, 1, 1}, packed_strides({3, 1, 1}, Layout::nchw));
  const std::vector<int64_t> d6 = {1, 2, 1, 2, 1, 2};
  TensorDesc c6(CUDNN_DATA_FLOAT, d6, packed_strides(d6, Layout::nchw));
  void *p = buf.get();
  EXPECT_EQ(cudnnAddTensor(h, &one, a_ok, p, &one, c, p), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnAddTensor(nullptr, &one, a_ok, p, &one, c, p), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnAddTensor(h, nullptr, a_ok, p, &one, c, p), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnAddTensor(h, &one, a_ok, p, nullptr, c, p), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnAddTensor(h, &one, nullptr, p, &one, c, p), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnAddTensor(h, &one, a_ok, nullptr, &one, c, p), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnAddTensor(h, &one, a_ok, p, &one, nullptr, p), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnAddTensor(h, &one, a_ok, p, &one, c, nullptr), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnAddTensor(h, &one, a_bad, p, &one, c, p), CUDNN_STATUS_BAD_PARAM);   // 2 vs 3, not 1
  EXPECT_EQ(cudnnAddTensor(h, &one, a_half, p, &one, c, p), CUDNN_STATUS_BAD_PARAM);  // types differ
  EXPECT_EQ(cudnnAddTensor(h, &one, a_rank, p, &one, c, p), CUDNN_STATUS_BAD_PARAM);  // ranks differ
  EXPECT_EQ(cudnnAddTensor(h, &one, c6, p, &one, c6, p), CUDNN_STATUS_NOT_SUPPORTED);  // beyond 5 dims
  TensorDesc c3(CUDNN_DATA_FLOAT, {2, 3, 20}, packed_strides({2, 3, 20}, Layout::nchw));
  EXPECT_EQ(cudnnAddTensor(h, &one, c3, p, &one, c3, p), CUDNN_STATUS_BAD_PARAM);  // fewer than 4 dims
  TensorDesc u8(CUDNN_DATA_UINT8, cd, packed_strides(cd, Layout::nchw));
  EXPECT_EQ(cudnnAddTensor(h, &one, u8, p, &one, u8, p), CUDNN_STATUS_NOT_SUPPORTED);
}

TEST_F(TensorOpsBadInput, OpTensor) {
  const std::vector<int64_t> cd = {2, 3, 4, 5};
  TensorDesc f(CUDNN_DATA_FLOAT, cd, packed_strides(cd, Layout::nchw));
  TensorDesc f_b(CUDNN_DATA_FLOAT, {1, 3, 1, 5}, packed_strides({1, 3, 1, 5}, Layout::nchw));
  TensorDesc f_small(CUDNN_DATA_FLOAT, {1, 3, 4, 5}, packed_strides({1, 3, 4, 5}, Layout::nchw));
  TensorDesc hf(CUDNN_DATA_HALF, cd, packed_strides(cd, Layout::nchw));
  TensorDesc d(CUDNN_DATA_DOUBLE, cd, packed_strides(cd, Layout::nchw));
  TensorDesc i32(CUDNN_DATA_INT32, cd, packed_strides(cd, Layout::nchw));
  OpTensorDesc add(CUDNN_OP_TENSOR_ADD, CUDNN_DATA_FLOAT, CUDNN_NOT_PROPAGATE_NAN);
  OpTensorDesc add_d(CUDNN_OP_TENSOR_ADD, CUDNN_DATA_DOUBLE, CUDNN_NOT_PROPAGATE_NAN);
  OpTensorDesc sqrt_op(CUDNN_OP_TENSOR_SQRT, CUDNN_DATA_FLOAT, CUDNN_NOT_PROPAGATE_NAN);
  Buffer big(4096 * 2);
  void *p = big.get();
  const double oned = 1, zerod = 0;
  EXPECT_EQ(cudnnOpTensor(h, add.d, &one, f, p, &one, f_b, p, &zero, f, p), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnOpTensor(nullptr, add.d, &one, f, p, &one, f, p, &zero, f, p), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnOpTensor(h, nullptr, &one, f, p, &one, f, p, &zero, f, p), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnOpTensor(h, add.d, nullptr, f, p, &one, f, p, &zero, f, p), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnOpTensor(h, add.d, &one, f, p, nullptr, f, p, &zero, f, p), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnOpTensor(h, add.d, &one, f, p, &one, f, p, nullptr, f, p), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnOpTensor(h, add.d, &one, nullptr, p, &one, f, p, &zero, f, p), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnOpTensor(h, add.d, &one, f, nullptr, &one, f, p, &zero, f, p), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnOpTensor(h, add.d, &one, f, p, &one, nullptr, p, &zero, f, p), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnOpTensor(h, add.d, &one, f, p, &one, f, nullptr, &zero, f, p), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnOpTensor(h, add.d, &one, f, p, &one, f, p, &zero, f, nullptr), CUDNN_STATUS_BAD_PARAM);
  // Unary ops do not read B, but B, its descriptor and alpha2 are validated all the same.
  EXPECT_EQ(cudnnOpTensor(h, sqrt_op.d, &one, f, p, &one, f, p, &zero, f, p), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnOpTensor(h, sqrt_op.d, &one, f, p, nullptr, nullptr, nullptr, &zero, f, p), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnOpTensor(h, sqrt_op.d, &one, f, p, nullptr, f, p, &zero, f, p), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnOpTensor(h, sqrt_op.d, &one, f, p, &one, f, nullptr, &zero, f, p), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnOpTensor(h, sqrt_op.d, &one, f, p, &one, hf, p, &zero, f, p), CUDNN_STATUS_BAD_PARAM);
  // A must match C exactly; B may broadcast.
  EXPECT_EQ(cudnnOpTensor(h, add.d, &one, f_small, p, &one, f, p, &zero, f, p), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnOpTensor(h, add.d, &one, f, p, &one, f_small, p, &zero, f, p), CUDNN_STATUS_SUCCESS);
  // Type table: (HALF, HALF -> FLOAT) is listed; outside it cuDNN 9 answers
  // BAD_PARAM or NOT_SUPPORTED depending on the combination.
  TensorDesc bf(CUDNN_DATA_BFLOAT16, cd, packed_strides(cd, Layout::nchw));
  TensorDesc i8(CUDNN_DATA_INT8, cd, packed_strides(cd, Layout::nchw));
  TensorDesc u8(CUDNN_DATA_UINT8, cd, packed_strides(cd, Layout::nchw));
  EXPECT_EQ(cudnnOpTensor(h, add.d, &one, hf, p, &one, hf, p, &zero, f, p), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnOpTensor(h, add.d, &one, f, p, &one, f, p, &zero, d, p), CUDNN_STATUS_BAD_PARAM);     // DOUBLE mix
  EXPECT_EQ(cudnnOpTensor(h, add.d, &oned, d, p, &oned, d, p, &zerod, f, p), CUDNN_STATUS_BAD_PARAM);  // DOUBLE mix
  EXPECT_EQ(cudnnOpTensor(h, add.d, &one, f, p, &one, hf, p, &zero, f, p), CUDNN_STATUS_BAD_PARAM);    // A != B
  EXPECT_EQ(cudnnOpTensor(h, add.d, &one, hf, p, &one, hf, p, &zero, i8, p), CUDNN_STATUS_BAD_PARAM);  // HALF -> INT8
  EXPECT_EQ(cudnnOpTensor(h, add.d, &one, u8, p, &one, u8, p, &zero, f, p), CUDNN_STATUS_BAD_PARAM);   // UINT8 inputs
  EXPECT_EQ(cudnnOpTensor(h, add.d, &one, i32, p, &one, i32, p, &zero, i32, p), CUDNN_STATUS_NOT_SUPPORTED);
  EXPECT_EQ(cudnnOpTensor(h, add.d, &one, f, p, &one, f, p, &zero, u8, p), CUDNN_STATUS_NOT_SUPPORTED);
  EXPECT_EQ(cudnnOpTensor(h, add.d, &one, hf, p, &one, hf, p, &zero, bf, p), CUDNN_STATUS_NOT_SUPPORTED);
  EXPECT_EQ(cudnnOpTensor(h, add.d, &one, bf, p, &one, bf, p, &zero, d, p), CUDNN_STATUS_NOT_SUPPORTED);
  // 4-d and 5-d tensors only.
  TensorDesc f3(CUDNN_DATA_FLOAT, {2, 3, 20}, packed_strides({2, 3, 20}, Layout::nchw));
  TensorDesc f2(CUDNN_DATA_FLOAT, {6, 20}, packed_strides({6, 20}, Layout::nchw));
  EXPECT_EQ(cudnnOpTensor(h, add.d, &one, f3, p, &one, f3, p, &zero, f3, p), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnOpTensor(h, add.d, &one, f2, p, &one, f2, p, &zero, f2, p), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnOpTensor(h, sqrt_op.d, &one, f3, p, &one, f3, p, &zero, f3, p), CUDNN_STATUS_BAD_PARAM);
  // Listed types with the wrong compute type.
  EXPECT_EQ(cudnnOpTensor(h, add_d.d, &one, f, p, &one, f, p, &zero, f, p), CUDNN_STATUS_NOT_SUPPORTED);
  EXPECT_EQ(cudnnOpTensor(h, add_d.d, &one, i8, p, &one, i8, p, &zero, i8, p), CUDNN_STATUS_NOT_SUPPORTED);
  // (cuDNN 9.19 "succeeds" here but writes garbage.)
  EXPECT_EQ(cudnnOpTensor(h, add_d.d, &oned, i8, p, &oned, i8, p, &zerod, d, p), CUDNN_STATUS_NOT_SUPPORTED);
  EXPECT_EQ(cudnnOpTensor(h, add.d, &oned, d, p, &oned, d, p, &zerod, d, p), CUDNN_STATUS_NOT_SUPPORTED);
  EXPECT_EQ(cudnnOpTensor(h, add_d.d, &oned, d, p, &oned, d, p, &zerod, d, p), CUDNN_STATUS_SUCCESS);
}

TEST_F(TensorOpsBadInput, TransformTensor) {
  const std::vector<int64_t> dd = {2, 3, 4, 5};
  TensorDesc x(CUDNN_DATA_FLOAT, dd, packed_strides(dd, Layout::nchw));
  TensorDesc y(CUDNN_DATA_FLOAT, dd, packed_strides(dd, Layout::nhwc));
  TensorDesc y_half(CUDNN_DATA_HALF, dd, packed_strides(dd, Layout::nhwc));
  TensorDesc y_dims(CUDNN_DATA_FLOAT, {2, 3, 5, 4}, packed_strides({2, 3, 5, 4}, Layout::nchw));
  TensorDesc y_rank(CUDNN_DATA_FLOAT, {2, 3, 20}, packed_strides({2, 3, 20}, Layout::nchw));
  Buffer out(4096);
  void *p = buf.get(), *q = out.get();
  EXPECT_EQ(cudnnTransformTensor(h, &one, x, p, &zero, y, q), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnTransformTensor(nullptr, &one, x, p, &zero, y, q), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnTransformTensor(h, nullptr, x, p, &zero, y, q), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnTransformTensor(h, &one, nullptr, p, &zero, y, q), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnTransformTensor(h, &one, x, nullptr, &zero, y, q), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnTransformTensor(h, &one, x, p, nullptr, y, q), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnTransformTensor(h, &one, x, p, &zero, nullptr, q), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnTransformTensor(h, &one, x, p, &zero, y, nullptr), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnTransformTensor(h, &one, x, p, &zero, y_half, q), CUDNN_STATUS_SUCCESS);  // converts
  EXPECT_EQ(cudnnTransformTensor(h, &one, x, p, &zero, y_dims, q), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnTransformTensor(h, &one, x, p, &zero, y_rank, q), CUDNN_STATUS_BAD_PARAM);
  // Types: UINT8 and INT32 are not transformed, not even unconverted; nor HALF <-> BFLOAT16.
  TensorDesc u8(CUDNN_DATA_UINT8, dd, packed_strides(dd, Layout::nchw));
  TensorDesc i32(CUDNN_DATA_INT32, dd, packed_strides(dd, Layout::nhwc));
  TensorDesc bf(CUDNN_DATA_BFLOAT16, dd, packed_strides(dd, Layout::nchw));
  EXPECT_EQ(cudnnTransformTensor(h, &one, u8, p, &zero, u8, q), CUDNN_STATUS_NOT_SUPPORTED);
  EXPECT_EQ(cudnnTransformTensor(h, &one, i32, p, &zero, i32, q), CUDNN_STATUS_NOT_SUPPORTED);
  EXPECT_EQ(cudnnTransformTensor(h, &one, x, p, &zero, u8, q), CUDNN_STATUS_NOT_SUPPORTED);
  EXPECT_EQ(cudnnTransformTensor(h, &one, y_half, p, &zero, bf, q), CUDNN_STATUS_NOT_SUPPORTED);
  // INT8 <-> INT8x4 is a layout change of the same lanes; C must fill whole vectors.
  TensorDesc i8(CUDNN_DATA_INT8, {1, 6, 2, 2}, packed_strides({1, 6, 2, 2}, Layout::nchw));
  cudnnTensorDescriptor_t v4;
  cudnnCreateTensorDescriptor(&v4);
  ASSERT_EQ(cudnnSetTensor4dDescriptor(v4, CUDNN_TENSOR_NCHW_VECT_C, CUDNN_DATA_INT8x4, 1, 8, 2, 2), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnTransformTensor(h, &one, i8, p, &zero, v4, q), CUDNN_STATUS_BAD_PARAM);
  // INT8x32 (and UINT8x4): BAD_PARAM next to another type, NOT_SUPPORTED alone.
  TensorDesc i8_32(CUDNN_DATA_INT8, {1, 32, 2, 2}, packed_strides({1, 32, 2, 2}, Layout::nchw));
  cudnnTensorDescriptor_t v32;
  cudnnCreateTensorDescriptor(&v32);
  ASSERT_EQ(cudnnSetTensor4dDescriptor(v32, CUDNN_TENSOR_NCHW_VECT_C, CUDNN_DATA_INT8x32, 1, 32, 2, 2), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnTransformTensor(h, &one, i8_32, p, &zero, v32, q), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnTransformTensor(h, &one, v32, p, &zero, v32, q), CUDNN_STATUS_NOT_SUPPORTED);
  cudnnDestroyTensorDescriptor(v32);
  cudnnDestroyTensorDescriptor(v4);
}

TEST_F(TensorOpsBadInput, ReduceTensor) {
  const std::vector<int64_t> ad = {2, 3, 4, 5};
  TensorDesc a(CUDNN_DATA_FLOAT, ad, packed_strides(ad, Layout::nchw));
  TensorDesc c(CUDNN_DATA_FLOAT, {1, 3, 1, 1}, packed_strides({1, 3, 1, 1}, Layout::nchw));
  TensorDesc c_bad(CUDNN_DATA_FLOAT, {1, 2, 1, 1}, packed_strides({1, 2, 1, 1}, Layout::nchw));
  TensorDesc c_double(CUDNN_DATA_DOUBLE, {1, 3, 1, 1}, packed_strides({1, 3, 1, 1}, Layout::nchw));
  TensorDesc a_double(CUDNN_DATA_DOUBLE, ad, packed_strides(ad, Layout::nchw));
  TensorDesc a_i32(CUDNN_DATA_INT32, ad, packed_strides(ad, Layout::nchw));
  ReduceDesc add(CUDNN_REDUCE_TENSOR_ADD, CUDNN_DATA_FLOAT, CUDNN_NOT_PROPAGATE_NAN, CUDNN_REDUCE_TENSOR_NO_INDICES);
  ReduceDesc add_d(CUDNN_REDUCE_TENSOR_ADD, CUDNN_DATA_DOUBLE, CUDNN_NOT_PROPAGATE_NAN, CUDNN_REDUCE_TENSOR_NO_INDICES);
  ReduceDesc add_idx(CUDNN_REDUCE_TENSOR_ADD, CUDNN_DATA_FLOAT, CUDNN_NOT_PROPAGATE_NAN,
                     CUDNN_REDUCE_TENSOR_FLATTENED_INDICES);
  ReduceDesc max_idx(CUDNN_REDUCE_TENSOR_MAX, CUDNN_DATA_FLOAT, CUDNN_NOT_PROPAGATE_NAN,
                     CUDNN_REDUCE_TENSOR_FLATTENED_INDICES);
  ReduceDesc max_idx64(CUDNN_REDUCE_TENSOR_MAX, CUDNN_DATA_FLOAT, CUDNN_NOT_PROPAGATE_NAN,
                       CUDNN_REDUCE_TENSOR_FLATTENED_INDICES, CUDNN_64BIT_INDICES);
  Buffer big(8192), idx(64);
  void *p = big.get(), *ip = idx.get();
  const double oned = 1, zerod = 0;
  size_t size = 0;
  EXPECT_EQ(cudnnReduceTensor(h, add.d, nullptr, 0, nullptr, 0, &one, a, p, &zero, c, p), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnReduceTensor(nullptr, add.d, nullptr, 0, nullptr, 0, &one, a, p, &zero, c, p), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnReduceTensor(h, nullptr, nullptr, 0, nullptr, 0, &one, a, p, &zero, c, p), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnReduceTensor(h, add.d, nullptr, 0, nullptr, 0, nullptr, a, p, &zero, c, p), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnReduceTensor(h, add.d, nullptr, 0, nullptr, 0, &one, nullptr, p, &zero, c, p), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnReduceTensor(h, add.d, nullptr, 0, nullptr, 0, &one, a, nullptr, &zero, c, p), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnReduceTensor(h, add.d, nullptr, 0, nullptr, 0, &one, a, p, &zero, c, nullptr), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnReduceTensor(h, add.d, nullptr, 0, nullptr, 0, &one, a, p, &zero, c_bad, p), CUDNN_STATUS_BAD_PARAM);
  // Nothing to reduce.
  EXPECT_EQ(cudnnReduceTensor(h, add.d, nullptr, 0, nullptr, 0, &one, a, p, &zero, a, p), CUDNN_STATUS_BAD_PARAM);
  // DOUBLE only with DOUBLE, and with a DOUBLE compute type.
  EXPECT_EQ(cudnnReduceTensor(h, add.d, nullptr, 0, nullptr, 0, &one, a, p, &zero, c_double, p), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnReduceTensor(h, add.d, nullptr, 0, nullptr, 0, &oned, a_double, p, &zerod, c_double, p),
            CUDNN_STATUS_NOT_SUPPORTED);
  EXPECT_EQ(cudnnReduceTensor(h, add_d.d, nullptr, 0, nullptr, 0, &oned, a_double, p, &zerod, c_double, p),
            CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnReduceTensor(h, add_d.d, nullptr, 0, nullptr, 0, &one, a, p, &zero, c, p), CUDNN_STATUS_NOT_SUPPORTED);
  EXPECT_EQ(cudnnReduceTensor(h, add.d, nullptr, 0, nullptr, 0, &one, a_i32, p, &zero, c, p), CUDNN_STATUS_NOT_SUPPORTED);
  // No BFLOAT16; HALF does not mix with INT8.
  TensorDesc a_bf(CUDNN_DATA_BFLOAT16, ad, packed_strides(ad, Layout::nchw));
  TensorDesc a_half(CUDNN_DATA_HALF, ad, packed_strides(ad, Layout::nchw));
  TensorDesc c_i8(CUDNN_DATA_INT8, {1, 3, 1, 1}, packed_strides({1, 3, 1, 1}, Layout::nchw));
  EXPECT_EQ(cudnnReduceTensor(h, add.d, nullptr, 0, nullptr, 0, &one, a_bf, p, &zero, c, p), CUDNN_STATUS_NOT_SUPPORTED);
  EXPECT_EQ(cudnnReduceTensor(h, add.d, nullptr, 0, nullptr, 0, &one, a_half, p, &zero, c_i8, p), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnReduceTensor(h, add.d, nullptr, 0, nullptr, 0, &one, a, p, &zero, c_i8, p), CUDNN_STATUS_SUCCESS);
  // 3 to 8 dimensions.
  TensorDesc a2(CUDNN_DATA_FLOAT, {6, 20}, packed_strides({6, 20}, Layout::nchw));
  TensorDesc c2(CUDNN_DATA_FLOAT, {6, 1}, packed_strides({6, 1}, Layout::nchw));
  EXPECT_EQ(cudnnReduceTensor(h, add.d, nullptr, 0, nullptr, 0, &one, a2, p, &zero, c2, p), CUDNN_STATUS_BAD_PARAM);
  // Indices: only MIN/MAX/AMAX make them (other ops ignore the request), always 32-bit, with enough room.
  EXPECT_EQ(cudnnReduceTensor(h, add_idx.d, ip, 64, nullptr, 0, &one, a, p, &zero, c, p), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnReduceTensor(h, add_idx.d, nullptr, 0, nullptr, 0, &one, a, p, &zero, c, p), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnReduceTensor(h, max_idx64.d, ip, 12, nullptr, 0, &one, a, p, &zero, c, p), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnGetReductionIndicesSize(h, max_idx64.d, a, c, &size), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(size, 12u);
  EXPECT_EQ(cudnnReduceTensor(h, max_idx.d, ip, 12, nullptr, 0, &one, a, p, &zero, c, p), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnReduceTensor(h, max_idx.d, ip, 11, nullptr, 0, &one, a, p, &zero, c, p), CUDNN_STATUS_BAD_PARAM);
  // Too little workspace (where the engine needs some): BAD_PARAM.
  TensorDesc c1(CUDNN_DATA_FLOAT, {1, 1, 1, 1}, packed_strides({1, 1, 1, 1}, Layout::nchw));
  size_t ws = 0;
  EXPECT_EQ(cudnnGetReductionWorkspaceSize(h, add.d, a, c1, &ws), CUDNN_STATUS_SUCCESS);
  if (ws > 0)
    EXPECT_EQ(cudnnReduceTensor(h, add.d, nullptr, 0, p, ws - 1, &one, a, p, &zero, c1, p), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnReduceTensor(h, max_idx.d, nullptr, 12, nullptr, 0, &one, a, p, &zero, c, p), CUDNN_STATUS_BAD_PARAM);
  // Size queries.
  EXPECT_EQ(cudnnGetReductionIndicesSize(h, max_idx.d, a, c, &size), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(size, 12u);
  EXPECT_EQ(cudnnGetReductionIndicesSize(h, add.d, a, c, &size), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(size, 0u);
  EXPECT_EQ(cudnnGetReductionIndicesSize(nullptr, add.d, a, c, &size), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnGetReductionIndicesSize(h, nullptr, a, c, &size), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnGetReductionIndicesSize(h, add.d, a, c, nullptr), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnGetReductionWorkspaceSize(h, add.d, a, c, &size), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnGetReductionWorkspaceSize(nullptr, add.d, a, c, &size), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnGetReductionWorkspaceSize(h, add.d, nullptr, c, &size), CUDNN_STATUS_BAD_PARAM);
  // The workspace query does not validate the problem (cudnnReduceTensor does).
  size = 123;
  EXPECT_EQ(cudnnGetReductionWorkspaceSize(h, add.d, a, c_bad, &size), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(size, 0u);
  EXPECT_EQ(cudnnGetReductionWorkspaceSize(h, add.d, a, c, nullptr), CUDNN_STATUS_BAD_PARAM);
}
