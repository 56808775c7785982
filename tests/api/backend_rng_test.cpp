// The backend (graph) API's RNG descriptor and OPERATION_RNG (Bernoulli):
// every element equals the draw of an independent Philox4x32-10
// (tests/common/rng_reference.*) under FreeDNN's documented counter mapping,
// for random shapes, strides and output types, with the seed given as a
// value, a by-value tensor or a tensor in memory, and an offset tensor. Also
// the descriptor rules probed against cuDNN 9 on the host. Uniform and normal
// draws: the same values on every engine (cuda.rng included), and their
// moments.
#include <cudnn.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "common/backend_ops.hpp"
#include "common/expect_status.hpp"
#include "common/random.hpp"
#include "common/rng_reference.hpp"
#include "common/tensor_data.hpp"

using namespace fdnn_test;

namespace {

class BackendRng : public BackendGraphTest {};

std::unique_ptr<Desc> rng_desc(double p, cudnnRngDistribution_t dist = CUDNN_RNG_DISTRIBUTION_BERNOULLI) {
  auto r = std::make_unique<Desc>(CUDNN_BACKEND_RNG_DESCRIPTOR);
  EXPECT_EQ(r->set1(CUDNN_ATTR_RNG_DISTRIBUTION, CUDNN_TYPE_RNG_DISTRIBUTION, dist), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(r->set1(CUDNN_ATTR_RNG_BERNOULLI_DIST_PROBABILITY, CUDNN_TYPE_DOUBLE, p), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(r->finalize(), CUDNN_STATUS_SUCCESS);
  return r;
}

enum class SeedKind { value, by_value_tensor, memory_tensor };

TEST(RngReference, PhiloxKnownAnswer) {
  // Random123's known-answer vector for philox4x32-10 with zero counter and key.
  const uint32_t want[4] = {0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u};
  for (uint64_t i = 0; i < 4; ++i) EXPECT_EQ(philox_word(0, 0, i), want[i]) << i;
}

TEST_F(BackendRng, BernoulliMatchesPhilox) {
  Rng rng(test_seed(71));
  const std::vector<cudnnDataType_t> types = {CUDNN_DATA_FLOAT, CUDNN_DATA_HALF,  CUDNN_DATA_BFLOAT16,
                                              CUDNN_DATA_DOUBLE, CUDNN_DATA_INT32, CUDNN_DATA_INT8};
  for (int iter = 0; iter < 12; ++iter) {
    const auto dims = random_dims(rng, static_cast<int>(rng.integer(1, 5)), 9, 5000);
    const cudnnDataType_t type = types[static_cast<size_t>(iter) % types.size()];
    const SeedKind seed_kind = static_cast<SeedKind>(iter % 3);
    const bool with_offset = rng.coin(0.7);
    const double p = iter == 0 ? 0.0 : iter == 1 ? 1.0 : rng.uniform(0.05, 0.95);
    const int64_t seed = static_cast<int64_t>(rng.next() >> 1), offset = with_offset ? rng.integer(0, 1 << 30) : 0;
    SCOPED_TRACE(testing::Message() << "iter " << iter << " " << type_name(type) << " p " << p);

    HostTensor y = make_tensor(type, dims, random_strides(rng, dims));
    poison(y);
    const HostTensor y_before = y;
    auto yd = tensor_desc(1, type, dims, y.strides);
    auto r = rng_desc(p);
    Desc op(CUDNN_BACKEND_OPERATION_RNG_DESCRIPTOR);
    EXPECT_EQ(op.set1(CUDNN_ATTR_OPERATION_RNG_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, r->d), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(op.set1(CUDNN_ATTR_OPERATION_RNG_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, yd->d), CUDNN_STATUS_SUCCESS);
    std::unique_ptr<Desc> sd, od;
    std::vector<int64_t> uids = {1};
    Buffer yb = upload(y), seed_buf(sizeof(int64_t)), offset_buf(sizeof(int64_t));
    std::vector<void *> ptrs = {yb.get()};
    int64_t seed_host = seed;
    if (seed_kind == SeedKind::value) {
      EXPECT_EQ(op.set1(CUDNN_ATTR_OPERATION_RNG_SEED, CUDNN_TYPE_INT64, seed), CUDNN_STATUS_SUCCESS);
    } else {
      const bool by_value = seed_kind == SeedKind::by_value_tensor;
      sd = tensor_desc(2, CUDNN_DATA_INT64, {1, 1, 1, 1}, {1, 1, 1, 1}, false, by_value);
      EXPECT_EQ(op.set1(CUDNN_ATTR_OPERATION_RNG_SEED, CUDNN_TYPE_BACKEND_DESCRIPTOR, sd->d), CUDNN_STATUS_SUCCESS);
      uids.push_back(2);
      if (by_value) {
        seed_host = seed & ((int64_t{1} << 52) - 1);  // by-value scalars travel as double
        ptrs.push_back(&seed_host);
      } else {
        seed_buf.upload(&seed_host, sizeof seed_host);
        ptrs.push_back(seed_buf.get());
      }
    }
    if (with_offset) {
      od = tensor_desc(3, CUDNN_DATA_INT64, {1, 1}, {1, 1});
      EXPECT_EQ(op.set1(CUDNN_ATTR_OPERATION_RNG_OFFSET_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, od->d),
                CUDNN_STATUS_SUCCESS);
      offset_buf.upload(&offset, sizeof offset);
      uids.push_back(3);
      ptrs.push_back(offset_buf.get());
    }
    ASSERT_EQ(op.finalize(), CUDNN_STATUS_SUCCESS);
    ASSERT_EQ(run({&op}, uids, ptrs), CUDNN_STATUS_SUCCESS);
    download(yb, y);
    std::vector<Expect> want;
    int64_t ones = 0;
    const int64_t n = static_cast<int64_t>(y.elements());
    for (int64_t i = 0; i < n; ++i) {
      const int d = bernoulli_draw(static_cast<uint64_t>(seed_host), static_cast<uint64_t>(offset),
                                   static_cast<uint64_t>(i), p);
      ones += d;
      want.push_back({static_cast<double>(d), 0.0});
    }
    EXPECT_TRUE(matches(y, want));
    EXPECT_TRUE(gaps_untouched(y, y_before));
    if (n >= 1000) EXPECT_NEAR(static_cast<double>(ones) / n, p, 5 * std::sqrt(p * (1 - p) / n) + 1e-9);
  }
}

// The dropout pattern of the attention graphs: a virtual Bernoulli mask
// multiplied into x (RNG -> pointwise MUL), run op by op.
TEST_F(BackendRng, MaskTimesInput) {
  Rng rng(test_seed(72));
  const std::vector<int64_t> dims = {3, 4, 33};
  const int64_t n = 3 * 4 * 33, seed = 99;
  const double p = 0.7;
  auto mask = tensor_desc(5, CUDNN_DATA_FLOAT, dims, packed(dims), /*is_virtual=*/true);
  auto x = tensor(6, dims), y = tensor(7, dims);
  auto r = rng_desc(p);
  Desc op(CUDNN_BACKEND_OPERATION_RNG_DESCRIPTOR);
  EXPECT_EQ(op.set1(CUDNN_ATTR_OPERATION_RNG_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, r->d), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(op.set1(CUDNN_ATTR_OPERATION_RNG_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, mask->d), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(op.set1(CUDNN_ATTR_OPERATION_RNG_SEED, CUDNN_TYPE_INT64, seed), CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(op.finalize(), CUDNN_STATUS_SUCCESS);
  auto mul = pointwise_op(CUDNN_POINTWISE_MUL, *mask, x.get(), *y);
  const auto xv = random_floats(rng, static_cast<size_t>(n));
  Buffer xb = upload(xv), yb = upload(std::vector<float>(static_cast<size_t>(n), NAN));
  ASSERT_EQ(run({mul.get(), &op}, {6, 7}, {xb.get(), yb.get()}), CUDNN_STATUS_SUCCESS);
  const auto yv = download(yb, static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i)
    EXPECT_EQ(yv[i], bernoulli_draw(seed, 0, static_cast<uint64_t>(i), p) ? xv[i] : 0.0f) << i;
}

TEST_F(BackendRng, OffsetsGiveDifferentStreams) {
  const std::vector<int64_t> dims = {64, 64};
  auto yd = tensor_desc(1, CUDNN_DATA_FLOAT, dims, packed(dims));
  auto od = tensor_desc(3, CUDNN_DATA_INT64, {1, 1}, {1, 1});
  auto r = rng_desc(0.5);
  Desc op(CUDNN_BACKEND_OPERATION_RNG_DESCRIPTOR);
  EXPECT_EQ(op.set1(CUDNN_ATTR_OPERATION_RNG_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, r->d), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(op.set1(CUDNN_ATTR_OPERATION_RNG_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, yd->d), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(op.set1(CUDNN_ATTR_OPERATION_RNG_SEED, CUDNN_TYPE_INT64, int64_t{1234}), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(op.set1(CUDNN_ATTR_OPERATION_RNG_OFFSET_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, od->d), CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(op.finalize(), CUDNN_STATUS_SUCCESS);
  Buffer a(64 * 64 * 4), b(64 * 64 * 4), off(8);
  int64_t o = 0;
  off.upload(&o, 8);
  ASSERT_EQ(run({&op}, {1, 3}, {a.get(), off.get()}), CUDNN_STATUS_SUCCESS);
  o = 1;
  off.upload(&o, 8);
  ASSERT_EQ(run({&op}, {1, 3}, {b.get(), off.get()}), CUDNN_STATUS_SUCCESS);
  const auto va = download(a, 64 * 64), vb = download(b, 64 * 64);
  int differ = 0;
  for (size_t i = 0; i < va.size(); ++i) differ += va[i] != vb[i];
  EXPECT_GT(differ, 1500);  // about half of 4096
}

TEST_F(BackendRng, DescriptorRules) {
  Desc empty(CUDNN_BACKEND_RNG_DESCRIPTOR);
  EXPECT_FAILS_NAMING(empty.finalize(), CUDNN_STATUS_BAD_PARAM, "cudnnBackendFinalize", "PROBABILITY");
  Desc r(CUDNN_BACKEND_RNG_DESCRIPTOR);
  const float pf = 0.5f;
  EXPECT_EQ(cudnnBackendSetAttribute(r.d, CUDNN_ATTR_RNG_BERNOULLI_DIST_PROBABILITY, CUDNN_TYPE_FLOAT, 1, &pf),
            CUDNN_STATUS_BAD_PARAM_ATTRIBUTE_TYPE);
  EXPECT_EQ(r.set1(CUDNN_ATTR_RNG_DISTRIBUTION, CUDNN_TYPE_INT64, int64_t{0}), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(r.set1(CUDNN_ATTR_RNG_BERNOULLI_DIST_PROBABILITY, CUDNN_TYPE_DOUBLE, 1.5), CUDNN_STATUS_SUCCESS);
  EXPECT_FAILS_NAMING(r.finalize(), CUDNN_STATUS_BAD_PARAM, "cudnnBackendFinalize", "1.5");
  Desc r7(CUDNN_BACKEND_RNG_DESCRIPTOR);
  EXPECT_EQ(r7.set1(CUDNN_ATTR_RNG_DISTRIBUTION, CUDNN_TYPE_RNG_DISTRIBUTION, 7), CUDNN_STATUS_SUCCESS);
  EXPECT_FAILS_NAMING(r7.finalize(), CUDNN_STATUS_BAD_PARAM, "cudnnBackendFinalize", "distribution 7");
  // No distribution set: BERNOULLI; read back after finalize.
  Desc ok(CUDNN_BACKEND_RNG_DESCRIPTOR);
  double q = -1;
  int64_t n = 0;
  EXPECT_EQ(cudnnBackendGetAttribute(ok.d, CUDNN_ATTR_RNG_BERNOULLI_DIST_PROBABILITY, CUDNN_TYPE_DOUBLE, 1, &n, &q),
            CUDNN_STATUS_NOT_INITIALIZED);
  EXPECT_EQ(ok.set1(CUDNN_ATTR_RNG_BERNOULLI_DIST_PROBABILITY, CUDNN_TYPE_DOUBLE, 0.25), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(ok.finalize(), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnBackendGetAttribute(ok.d, CUDNN_ATTR_RNG_BERNOULLI_DIST_PROBABILITY, CUDNN_TYPE_DOUBLE, 1, &n, &q),
            CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(q, 0.25);
  int32_t dist = -1;
  EXPECT_EQ(cudnnBackendGetAttribute(ok.d, CUDNN_ATTR_RNG_DISTRIBUTION, CUDNN_TYPE_RNG_DISTRIBUTION, 1, &n, &dist),
            CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(dist, CUDNN_RNG_DISTRIBUTION_BERNOULLI);
}

TEST_F(BackendRng, OperationRules) {
  auto y = tensor_desc(1, CUDNN_DATA_FLOAT, {2, 3, 4, 5}, packed({2, 3, 4, 5}));
  auto r = rng_desc(0.5);
  Desc op(CUDNN_BACKEND_OPERATION_RNG_DESCRIPTOR);
  EXPECT_FAILS_NAMING(op.set1(CUDNN_ATTR_OPERATION_RNG_SEED, CUDNN_TYPE_DOUBLE, 1.0), CUDNN_STATUS_BAD_PARAM,
                      "cudnnBackendSetAttribute", "CUDNN_TYPE_INT64");
  // The seed tensor must be a scalar.
  EXPECT_EQ(op.set1(CUDNN_ATTR_OPERATION_RNG_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, r->d), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(op.set1(CUDNN_ATTR_OPERATION_RNG_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, y->d), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(op.set1(CUDNN_ATTR_OPERATION_RNG_SEED, CUDNN_TYPE_BACKEND_DESCRIPTOR, y->d), CUDNN_STATUS_SUCCESS);
  EXPECT_FAILS_NAMING(op.finalize(), CUDNN_STATUS_BAD_PARAM, "cudnnBackendFinalize", "seed");
  // cuDNN finalizes a node with nothing set; no engine runs it.
  Desc bare(CUDNN_BACKEND_OPERATION_RNG_DESCRIPTOR);
  EXPECT_EQ(bare.finalize(), CUDNN_STATUS_SUCCESS);
  Desc seeded(CUDNN_BACKEND_OPERATION_RNG_DESCRIPTOR);
  EXPECT_EQ(seeded.set1(CUDNN_ATTR_OPERATION_RNG_SEED, CUDNN_TYPE_INT64, int64_t{7}), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(seeded.set1(CUDNN_ATTR_OPERATION_RNG_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, y->d), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(seeded.finalize(), CUDNN_STATUS_SUCCESS);
  int64_t n = 0, s = 0;
  EXPECT_EQ(cudnnBackendGetAttribute(seeded.d, CUDNN_ATTR_OPERATION_RNG_SEED, CUDNN_TYPE_INT64, 1, &n, &s),
            CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(s, 7);
  EXPECT_EQ(engine_count(handle, {&seeded}), 0);  // no RNG descriptor: nothing runs it
  // Parameters of uniform and normal draws are checked at finalize.
  Desc uni(CUDNN_BACKEND_RNG_DESCRIPTOR);
  EXPECT_EQ(uni.set1(CUDNN_ATTR_RNG_DISTRIBUTION, CUDNN_TYPE_RNG_DISTRIBUTION, CUDNN_RNG_DISTRIBUTION_UNIFORM),
            CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(uni.set1(CUDNN_ATTR_RNG_UNIFORM_DIST_MINIMUM, CUDNN_TYPE_DOUBLE, 2.0), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(uni.set1(CUDNN_ATTR_RNG_UNIFORM_DIST_MAXIMUM, CUDNN_TYPE_DOUBLE, 1.0), CUDNN_STATUS_SUCCESS);
  EXPECT_FAILS_NAMING(uni.finalize(), CUDNN_STATUS_BAD_PARAM, "cudnnBackendFinalize", "UNIFORM_DIST_MINIMUM");
  Desc nor(CUDNN_BACKEND_RNG_DESCRIPTOR);
  EXPECT_EQ(nor.set1(CUDNN_ATTR_RNG_DISTRIBUTION, CUDNN_TYPE_RNG_DISTRIBUTION, CUDNN_RNG_DISTRIBUTION_NORMAL),
            CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(nor.set1(CUDNN_ATTR_RNG_NORMAL_DIST_STANDARD_DEVIATION, CUDNN_TYPE_DOUBLE, -1.0), CUDNN_STATUS_SUCCESS);
  EXPECT_FAILS_NAMING(nor.finalize(), CUDNN_STATUS_BAD_PARAM, "cudnnBackendFinalize", "STANDARD_DEVIATION");
}

// A finalized RNG descriptor of a uniform (min p0, max p1) or normal (mean
// p0, standard deviation p1) distribution.
std::unique_ptr<Desc> continuous_desc(bool normal, double p0, double p1) {
  auto r = std::make_unique<Desc>(CUDNN_BACKEND_RNG_DESCRIPTOR);
  EXPECT_EQ(r->set1(CUDNN_ATTR_RNG_DISTRIBUTION, CUDNN_TYPE_RNG_DISTRIBUTION,
                    normal ? CUDNN_RNG_DISTRIBUTION_NORMAL : CUDNN_RNG_DISTRIBUTION_UNIFORM),
            CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(r->set1(normal ? CUDNN_ATTR_RNG_NORMAL_DIST_MEAN : CUDNN_ATTR_RNG_UNIFORM_DIST_MINIMUM, CUDNN_TYPE_DOUBLE,
                    p0),
            CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(r->set1(normal ? CUDNN_ATTR_RNG_NORMAL_DIST_STANDARD_DEVIATION : CUDNN_ATTR_RNG_UNIFORM_DIST_MAXIMUM,
                    CUDNN_TYPE_DOUBLE, p1),
            CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(r->finalize(), CUDNN_STATUS_SUCCESS);
  return r;
}

// Uniform and normal draws (FreeDNN's definitions, graph/op_rng.hpp): every
// engine heuristics offer (cpu.rng.continuous first and the reference on a
// CPU handle, cuda.rng on a GPU one) writes exactly the independent
// reference's values, for random shapes, strides (packed ones included:
// the vector stores), output types, seeds and offsets.
TEST_F(BackendRng, UniformAndNormal) {
  Rng rng(test_seed(73));
  const std::vector<cudnnDataType_t> types = {CUDNN_DATA_FLOAT, CUDNN_DATA_DOUBLE, CUDNN_DATA_HALF,
                                              CUDNN_DATA_BFLOAT16};
  for (int iter = 0; iter < 12; ++iter) {
    const bool normal = iter % 2 == 1;
    const cudnnDataType_t type = types[static_cast<size_t>(iter / 2) % types.size()];
    const auto dims = random_dims(rng, static_cast<int>(rng.integer(1, 4)), 40, iter < 4 ? 20000 : 3000);
    const double a = rng.uniform(-3, 0), b = rng.uniform(0.5, 3);
    const int64_t seed = rng.integer(0, int64_t{1} << 40);
    const bool with_offset = iter % 3 != 0;
    const int64_t offset = with_offset ? rng.integer(0, int64_t{1} << 34) : 0;
    const bool packed_y = iter % 4 < 2;
    SCOPED_TRACE(testing::Message() << "iter " << iter << (normal ? " normal" : " uniform") << " " << type_name(type)
                                    << (packed_y ? " packed" : " strided"));
    auto r = continuous_desc(normal, a, b);
    HostTensor y = make_tensor(type, dims, packed_y ? packed(dims) : random_strides(rng, dims));
    poison(y);
    const HostTensor y0 = y;
    auto yd = tensor_desc(1, type, dims, y.strides);
    auto od = tensor_desc(3, CUDNN_DATA_INT64, {1, 1}, {1, 1});
    Desc op(CUDNN_BACKEND_OPERATION_RNG_DESCRIPTOR);
    EXPECT_EQ(op.set1(CUDNN_ATTR_OPERATION_RNG_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, r->d), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(op.set1(CUDNN_ATTR_OPERATION_RNG_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, yd->d), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(op.set1(CUDNN_ATTR_OPERATION_RNG_SEED, CUDNN_TYPE_INT64, seed), CUDNN_STATUS_SUCCESS);
    if (with_offset)
      EXPECT_EQ(op.set1(CUDNN_ATTR_OPERATION_RNG_OFFSET_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, od->d),
                CUDNN_STATUS_SUCCESS);
    ASSERT_EQ(op.finalize(), CUDNN_STATUS_SUCCESS);
    std::vector<Expect> want;
    for (int64_t i = 0; i < static_cast<int64_t>(y.elements()); ++i) {
      const uint64_t s = static_cast<uint64_t>(seed), o = static_cast<uint64_t>(offset), e = static_cast<uint64_t>(i);
      const double v = normal ? normal_draw(s, o, e, a, b) : uniform_draw(s, o, e, a, b);
      want.push_back({v, 1e-12 * (std::fabs(v) + std::fabs(a) + b)});
    }
    Buffer off(sizeof(int64_t));
    off.upload(&offset, sizeof offset);
    std::vector<std::string> names;
    for (const auto &cfg : engine_configs(handle, {&op})) {
      std::unique_ptr<Desc> plan = finalized_plan(handle, cfg->d);
      if (!plan) continue;
      names.push_back(plan_engine_name(*plan));
      SCOPED_TRACE("engine " + names.back());
      Buffer yb = upload(y0);
      std::vector<int64_t> uids = {1};
      std::vector<void *> ptrs = {yb.get()};
      if (with_offset) {
        uids.push_back(3);
        ptrs.push_back(off.get());
      }
      ASSERT_EQ(execute(*plan, uids, ptrs), CUDNN_STATUS_SUCCESS) << last_error();
      download(yb, y);
      EXPECT_TRUE(matches(y, want));
      EXPECT_TRUE(gaps_untouched(y, y0));
    }
    ASSERT_FALSE(names.empty()) << last_error();
    EXPECT_EQ(names.front(), gpu_mode() ? "cuda.rng" : "cpu.rng.continuous");
    if (!gpu_mode()) EXPECT_NE(std::find(names.begin(), names.end(), "cpu.reference.rng"), names.end());
  }
}

// The distributions themselves, on whichever engine ranks first: 2^16
// uniform draws lie in [min, max] with mean and variance of U(min, max);
// normal draws have the requested mean and variance (5-sigma bounds of the
// sample moments) and about 68.3% of them lie within one sd of the mean.
// The same seed gives the same values twice; another offset other values.
TEST_F(BackendRng, DistributionMoments) {
  const int64_t n = int64_t{1} << 16;
  const std::vector<int64_t> dims = {16, 64, 64};
  for (int normal = 0; normal < 2; ++normal) {
    SCOPED_TRACE(normal ? "normal" : "uniform");
    // Normal: mean p0, sd p1. Uniform: min p0, max p1 (width p1 - p0 = 3).
    const double p0 = normal ? 1.5 : -2.0, p1 = normal ? 0.5 : 1.0;
    auto r = continuous_desc(normal != 0, p0, p1);
    auto yd = tensor_desc(1, CUDNN_DATA_FLOAT, dims, packed(dims));
    auto od = tensor_desc(3, CUDNN_DATA_INT64, {1, 1}, {1, 1});
    Desc op(CUDNN_BACKEND_OPERATION_RNG_DESCRIPTOR);
    EXPECT_EQ(op.set1(CUDNN_ATTR_OPERATION_RNG_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, r->d), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(op.set1(CUDNN_ATTR_OPERATION_RNG_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, yd->d), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(op.set1(CUDNN_ATTR_OPERATION_RNG_SEED, CUDNN_TYPE_INT64, int64_t{20261123}), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(op.set1(CUDNN_ATTR_OPERATION_RNG_OFFSET_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, od->d),
              CUDNN_STATUS_SUCCESS);
    ASSERT_EQ(op.finalize(), CUDNN_STATUS_SUCCESS);
    Buffer off(sizeof(int64_t)), y1(static_cast<size_t>(n) * 4), y2(static_cast<size_t>(n) * 4),
        y3(static_cast<size_t>(n) * 4);
    int64_t o = 5;
    off.upload(&o, sizeof o);
    ASSERT_EQ(run({&op}, {1, 3}, {y1.get(), off.get()}), CUDNN_STATUS_SUCCESS) << last_error();
    ASSERT_EQ(run({&op}, {1, 3}, {y2.get(), off.get()}), CUDNN_STATUS_SUCCESS) << last_error();
    o = 6;
    off.upload(&o, sizeof o);
    ASSERT_EQ(run({&op}, {1, 3}, {y3.get(), off.get()}), CUDNN_STATUS_SUCCESS) << last_error();
    const auto v1 = download(y1, static_cast<size_t>(n)), v2 = download(y2, static_cast<size_t>(n)),
               v3 = download(y3, static_cast<size_t>(n));
    EXPECT_EQ(v1, v2);
    int64_t same = 0;
    for (int64_t i = 0; i < n; ++i) same += v1[static_cast<size_t>(i)] == v3[static_cast<size_t>(i)];
    EXPECT_LT(same, n / 100);
    double sum = 0, sq = 0;
    int64_t within = 0, outside = 0;
    for (float f : v1) {
      sum += f;
      sq += static_cast<double>(f) * f;
      if (normal) within += std::fabs(f - p0) <= p1;
      else outside += !(f >= p0 && f <= p1);
    }
    const double mean = sum / n, var = sq / n - mean * mean;
    const double want_mean = normal ? p0 : (p0 + p1) / 2, want_var = normal ? p1 * p1 : (p1 - p0) * (p1 - p0) / 12;
    // Standard errors: of the mean sqrt(var / n); of the variance
    // sqrt((mu4 - var^2) / n), mu4 = 3 var^2 (normal) or 1.8 var^2 (uniform).
    EXPECT_NEAR(mean, want_mean, 5 * std::sqrt(want_var / n));
    EXPECT_NEAR(var, want_var, 5 * std::sqrt((normal ? 2.0 : 0.8) * want_var * want_var / n));
    if (normal) EXPECT_NEAR(static_cast<double>(within) / n, 0.682689, 5 * std::sqrt(0.6827 * 0.3173 / n));
    else EXPECT_EQ(outside, 0);
  }
}

}  // namespace
