#include "common/rng_reference.hpp"

#include <cmath>

namespace fdnn_test {

uint32_t philox_word(uint64_t seed, uint64_t offset, uint64_t i) {
  const uint64_t block = i / 4;
  uint32_t ctr[4] = {static_cast<uint32_t>(block), static_cast<uint32_t>(block >> 32), static_cast<uint32_t>(offset),
                     static_cast<uint32_t>(offset >> 32)};
  uint32_t key[2] = {static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32)};
  for (int r = 0; r < 10; ++r) {
    const uint64_t p0 = 0xD2511F53ull * ctr[0], p1 = 0xCD9E8D57ull * ctr[2];
    const uint32_t out[4] = {static_cast<uint32_t>(p1 >> 32) ^ ctr[1] ^ key[0], static_cast<uint32_t>(p1),
                             static_cast<uint32_t>(p0 >> 32) ^ ctr[3] ^ key[1], static_cast<uint32_t>(p0)};
    for (int k = 0; k < 4; ++k) ctr[k] = out[k];
    key[0] += 0x9E3779B9u;
    key[1] += 0xBB67AE85u;
  }
  return ctr[i % 4];
}

int bernoulli_draw(uint64_t seed, uint64_t offset, uint64_t i, double p) {
  const double threshold = p <= 0 ? 0.0 : p >= 1 ? 4294967296.0 : std::floor(p * 4294967296.0 + 0.5);
  return static_cast<double>(philox_word(seed, offset, i)) < threshold ? 1 : 0;
}

namespace {

double unit(uint32_t w) { return (w + 0.5) / 4294967296.0; }

}  // namespace

double uniform_draw(uint64_t seed, uint64_t offset, uint64_t i, double lo, double hi) {
  return lo + (hi - lo) * unit(philox_word(seed, offset, i));
}

double normal_draw(uint64_t seed, uint64_t offset, uint64_t i, double mean, double sd) {
  const uint64_t first = i - i % 2;  // the pair's first element (same block)
  const double a = unit(philox_word(seed, offset, first)), b = unit(philox_word(seed, offset, first + 1));
  const double r = std::sqrt(-2 * std::log(a)), t = 2 * M_PI * b;
  return mean + sd * r * (i % 2 ? std::sin(t) : std::cos(t));
}

}  // namespace fdnn_test
