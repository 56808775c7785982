// The AVX-512 float -> bfloat16 conversions of src/cpu/normalization_kernels.hpp
// (the integer rounding to_bf16x16 and, where the CPU has AVX512_BF16, the
// one-instruction to_bf16x16_native with its denormal fix-up) against the
// scalar num::float_to_bf16, bit for bit: a sweep over the float bit patterns
// (every 9973rd, so normal, subnormal, huge, infinite and NaN values all
// occur), every pattern around the subnormal / normal border, ties, and the
// special values. Internal header: part of freednn_vec_math_test.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "core/numeric.hpp"
#include "cpu/normalization_kernels.hpp"

namespace normk = fdnn::cpu::normk;

namespace {

std::vector<uint32_t> patterns() {
  std::vector<uint32_t> v;
  for (uint64_t b = 0; b <= 0xffffffffu; b += 9973) v.push_back(static_cast<uint32_t>(b));
  for (uint32_t b = 0x007ff000u; b <= 0x00801000u; ++b) v.push_back(b), v.push_back(b | 0x80000000u);
  for (uint32_t hi : {0x3f80u, 0x3f81u, 0x7f7fu, 0x0001u, 0x0080u})  // exact ties, below / above them
    for (uint32_t lo : {0x7fffu, 0x8000u, 0x8001u}) v.push_back(hi << 16 | lo), v.push_back((hi << 16 | lo) | 0x80000000u);
  for (uint32_t b : {0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00000u, 0x7f800001u, 0xffbfffffu,
                     0x00000001u, 0x7f7fffffu})
    v.push_back(b);
  while (v.size() % 16 != 0) v.push_back(0x3f800000u);
  return v;
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq"))) void integer_rounding(const float *in, uint16_t *out) {
  _mm256_storeu_si256(reinterpret_cast<__m256i *>(out), normk::to_bf16x16(_mm512_loadu_ps(in)));
}
__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx512bf16"))) void native_rounding(const float *in,
                                                                                             uint16_t *out) {
  _mm256_storeu_si256(reinterpret_cast<__m256i *>(out), normk::to_bf16x16_native(_mm512_loadu_ps(in)));
}
#pragma GCC diagnostic pop

void check(void (*convert)(const float *, uint16_t *)) {
  const std::vector<uint32_t> bits = patterns();
  std::vector<float> in(bits.size());
  std::memcpy(in.data(), bits.data(), bits.size() * sizeof(float));
  std::vector<uint16_t> out(bits.size());
  for (size_t i = 0; i < in.size(); i += 16) convert(in.data() + i, out.data() + i);
  int bad = 0;
  for (size_t i = 0; i < in.size() && bad < 10; ++i) {
    const uint16_t want = fdnn::num::float_to_bf16(in[i]);
    if (out[i] != want) {
      ++bad;
      ADD_FAILURE() << std::hex << "float bits 0x" << bits[i] << ": 0x" << out[i] << ", want 0x" << want;
    }
  }
}

TEST(Bf16Conversion, IntegerRoundingMatchesScalar) {
  if (!fdnn::cpu::avx512_usable()) GTEST_SKIP() << "no AVX-512";
  check(&integer_rounding);
}

TEST(Bf16Conversion, NativeRoundingMatchesScalar) {
  if (!normk::avx512_bf16_usable()) GTEST_SKIP() << "no AVX512_BF16";
  check(&native_rounding);
}

}  // namespace
