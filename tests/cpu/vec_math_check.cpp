// src/cpu/vec_math.hpp against long double libm: a sweep over the float bit
// patterns (every 9973rd one, both signs: normal, subnormal, huge, +-0,
// +-inf and NaN are all in it), through the AVX2 and the AVX-512 loops (the
// vectorised code the engines run) and the scalar functions, with odd lengths so the
// vector body and the scalar tail both run. Errors are counted in ulps of
// the correctly rounded float result (subnormal results in units of the
// smallest subnormal).
//
// This is an internal header, so the test is its own executable (like
// freednn_thread_pool_test), compiled with the library's flags.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "cpu/vec_math.hpp"

namespace vm = fdnn::cpu::vm;

namespace {

float from_bits(uint32_t b) {
  float f;
  std::memcpy(&f, &b, sizeof f);
  return f;
}

// Every 9973rd bit pattern, and the special values.
std::vector<float> sweep() {
  std::vector<float> v;
  for (uint64_t b = 0; b <= 0xffffffffu; b += 9973) v.push_back(from_bits(static_cast<uint32_t>(b)));
  const float inf = std::numeric_limits<float>::infinity();
  for (float s : {0.0f, -0.0f, inf, -inf, std::numeric_limits<float>::quiet_NaN(),
                  std::numeric_limits<float>::denorm_min(), -std::numeric_limits<float>::denorm_min(),
                  std::numeric_limits<float>::min(), std::numeric_limits<float>::max(), 88.72f, 88.73f, -87.33f,
                  -103.9f, -104.0f, -200.0f, 0.5f, -0.5f, 0.625f, -0.625f, 1e-30f, -1e-30f})
    v.push_back(s);
  return v;
}

// Distance in ulps of the float nearest to want.
double ulps(float got, long double want) {
  const float w = static_cast<float>(want);
  if (std::isnan(w)) return std::isnan(got) ? 0 : 1e9;
  if (std::isinf(w) || std::isinf(got)) return got == w ? 0 : 1e9;
  const long double aw = std::fabs(want);
  long double ulp;
  if (aw < std::numeric_limits<float>::min()) ulp = std::numeric_limits<float>::denorm_min();
  else ulp = std::ldexp(1.0L, std::ilogb(w) - 23);
  return static_cast<double>(std::fabs(static_cast<long double>(got) - want) / ulp);
}

// Runs f over x with the AVX2 loop, the AVX-512 loop (where the CPU has
// it) and the plain scalar call, each compared with ref.
template <class Scalar, class Ref>
void check(const char *name, Scalar f, Ref ref, double max_ulps) {
  const std::vector<float> x = sweep();
  const int64_t n = static_cast<int64_t>(x.size()) - 3;  // odd length: a scalar tail too
  for (int path = 0; path < 3; ++path) {
    if (path == 1 && !vm::has_avx512()) continue;
    std::vector<float> y(x.size(), -1.0f);
    auto body = [&](int64_t i) { y[i] = f(x[i]); };
    if (path == 0) vm::for_each_avx2(n, body);
    if (path == 1) vm::for_each_avx512(n, body);
    if (path == 2)
      for (int64_t i = 0; i < n; ++i) y[i] = f(x[i]);
    double worst = 0;
    float worst_x = 0;
    for (int64_t i = 0; i < static_cast<int64_t>(x.size()); ++i) {
      const long double want = ref(static_cast<long double>(x[i]));
      const float got = i < n ? y[i] : f(x[i]);
      const double e = ulps(got, want);
      if (e > worst) {
        worst = e;
        worst_x = x[i];
      }
    }
    static const char *paths[] = {"avx2", "avx512", "scalar"};
    EXPECT_LE(worst, max_ulps) << name << " (" << paths[path] << "): worst at x = " << worst_x;
    std::printf("%-8s %-6s worst %.2f ulp at x = %.9g\n", name, paths[path], worst, static_cast<double>(worst_x));
  }
}

TEST(CpuVecMath, Exp) {
  check("exp", [](float x) { return vm::exp(x); }, [](long double x) { return std::exp(x); }, 2.0);
}

TEST(CpuVecMath, Expm1) {
  check("expm1", [](float x) { return vm::expm1(x); }, [](long double x) { return std::expm1(x); }, 3.0);
}

TEST(CpuVecMath, Log) {
  check("log", [](float x) { return vm::log(x); }, [](long double x) { return std::log(x); }, 2.0);
}

TEST(CpuVecMath, Tanh) {
  check("tanh", [](float x) { return vm::tanh(x); }, [](long double x) { return std::tanh(x); }, 4.0);
}

TEST(CpuVecMath, Sigmoid) {
  check("sigmoid", [](float x) { return vm::sigmoid(x); }, [](long double x) { return 1.0L / (1.0L + std::exp(-x)); },
        3.0);
}

// GELU's gate. Not a libm function: the bound is the fit's (relative error
// 1.2e-7 for erfc) plus the float rounding of exp's argument -z^2 + P(t),
// which grows with z^2 in the far negative tail.
TEST(CpuVecMath, NormCdf) {
  check("normcdf", [](float x) { return vm::norm_cdf(x); },
        [](long double x) { return 0.5L * std::erfc(-x / std::sqrt(2.0L)); }, 256.0);  // 200 at x = -12.5 (Phi ~ 1e-36), 26 at -3.85, 8.5 on [-2, 4]
}

// The array forms the engines call.
TEST(CpuVecMath, ArrayForms) {
  const std::vector<float> x = sweep();
  std::vector<float> y(x.size());
  auto same = [&](const char *name, auto f) {
    for (size_t i = 0; i < x.size(); ++i) {
      const float want = f(x[i]);
      if (!(y[i] == want || (std::isnan(y[i]) && std::isnan(want)))) {
        ADD_FAILURE() << name << " at x = " << x[i] << ": " << y[i] << " vs " << want;
        return;
      }
    }
  };
  const int64_t n = static_cast<int64_t>(x.size());
  vm::exp_n(x.data(), y.data(), n);
  same("exp_n", [](float v) { return vm::exp(v); });
  vm::expm1_n(x.data(), y.data(), n);
  same("expm1_n", [](float v) { return vm::expm1(v); });
  vm::log_n(x.data(), y.data(), n);
  same("log_n", [](float v) { return vm::log(v); });
  vm::tanh_n(x.data(), y.data(), n);
  same("tanh_n", [](float v) { return vm::tanh(v); });
  vm::sigmoid_n(x.data(), y.data(), n);
  same("sigmoid_n", [](float v) { return vm::sigmoid(v); });
}

TEST(CpuVecMath, SpecialValues) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(vm::exp(-inf), 0.0f);
  EXPECT_EQ(vm::exp(inf), inf);
  EXPECT_EQ(vm::exp(100.0f), inf);
  EXPECT_EQ(vm::exp(-110.0f), 0.0f);
  EXPECT_EQ(vm::exp(0.0f), 1.0f);
  EXPECT_TRUE(std::isnan(vm::exp(nan)));
  EXPECT_EQ(vm::log(0.0f), -inf);
  EXPECT_EQ(vm::log(-0.0f), -inf);
  EXPECT_EQ(vm::log(inf), inf);
  EXPECT_EQ(vm::log(1.0f), 0.0f);
  EXPECT_TRUE(std::isnan(vm::log(-1.0f)));
  EXPECT_TRUE(std::isnan(vm::log(nan)));
  EXPECT_EQ(vm::tanh(inf), 1.0f);
  EXPECT_EQ(vm::tanh(-inf), -1.0f);
  EXPECT_TRUE(std::isnan(vm::tanh(nan)));
  EXPECT_EQ(vm::sigmoid(inf), 1.0f);
  EXPECT_EQ(vm::sigmoid(-inf), 0.0f);
  EXPECT_TRUE(std::isnan(vm::sigmoid(nan)));
  EXPECT_EQ(vm::expm1(-inf), -1.0f);
  EXPECT_EQ(vm::expm1(inf), inf);
  EXPECT_TRUE(std::isnan(vm::expm1(nan)));
  // Signed zeros keep their sign where libm does.
  EXPECT_TRUE(std::signbit(vm::tanh(-0.0f)));
  EXPECT_TRUE(std::signbit(vm::expm1(-0.0f)));
}

}  // namespace
