#include "common/dropout_reference.hpp"

#include <cmath>

namespace fdnn_test {

void philox4x32_10_ref(const uint32_t counter[4], const uint32_t key[2], uint32_t out[4]) {
  uint64_t c[4] = {counter[0], counter[1], counter[2], counter[3]};
  uint64_t k0 = key[0], k1 = key[1];
  for (int r = 0; r < 10; ++r) {
    const uint64_t p0 = 0xD2511F53ull * c[0];
    const uint64_t p1 = 0xCD9E8D57ull * c[2];
    const uint64_t next[4] = {((p1 >> 32) ^ c[1] ^ k0) & 0xffffffffull, p1 & 0xffffffffull,
                              ((p0 >> 32) ^ c[3] ^ k1) & 0xffffffffull, p0 & 0xffffffffull};
    for (int i = 0; i < 4; ++i) c[i] = next[i];
    k0 = (k0 + 0x9E3779B9ull) & 0xffffffffull;
    k1 = (k1 + 0xBB67AE85ull) & 0xffffffffull;
  }
  for (int i = 0; i < 4; ++i) out[i] = static_cast<uint32_t>(c[i]);
}

std::vector<bool> dropout_keep_mask(uint64_t seed, uint64_t offset, int64_t n, double p) {
  // An element is dropped when its 32-bit word, as a fraction of 2^32, is
  // below p (rounded to the nearest 2^-32).
  const double threshold = p <= 0 ? 0.0 : (p >= 1 ? 4294967296.0 : std::floor(p * 4294967296.0 + 0.5));
  std::vector<bool> keep(static_cast<size_t>(n));
  const uint32_t key[2] = {static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32)};
  for (int64_t g = 0; g * 4 < n; ++g) {
    const uint32_t ctr[4] = {static_cast<uint32_t>(g), static_cast<uint32_t>(static_cast<uint64_t>(g) >> 32),
                             static_cast<uint32_t>(offset), static_cast<uint32_t>(offset >> 32)};
    uint32_t r[4];
    philox4x32_10_ref(ctr, key, r);
    for (int j = 0; j < 4 && g * 4 + j < n; ++j) keep[static_cast<size_t>(g * 4 + j)] = static_cast<double>(r[j]) >= threshold;
  }
  return keep;
}

std::vector<bool> unpack_mask_bits(const std::vector<uint8_t> &reserve, int64_t n) {
  std::vector<bool> bits(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    const size_t word = static_cast<size_t>(i / 32) * 4;
    const uint32_t w = static_cast<uint32_t>(reserve[word]) | static_cast<uint32_t>(reserve[word + 1]) << 8 |
                       static_cast<uint32_t>(reserve[word + 2]) << 16 | static_cast<uint32_t>(reserve[word + 3]) << 24;
    bits[static_cast<size_t>(i)] = (w >> (i % 32)) & 1u;
  }
  return bits;
}

std::vector<Expect> dropout_expect(const HostTensor &x, const std::vector<bool> &keep, double p,
                                   cudnnDataType_t y_type) {
  const std::vector<double> xv = x.values();
  const double scale = p >= 1 ? 0.0 : 1.0 / (1.0 - p);
  // The library may scale in float: one rounding of the scale, one of the
  // product, before the rounding to y's type.
  const double u = y_type == CUDNN_DATA_DOUBLE ? 0x1p-52 : 0x1p-23;
  std::vector<Expect> want(xv.size());
  for (size_t i = 0; i < xv.size(); ++i) {
    const double v = keep[i] ? xv[i] * scale : 0.0;
    want[i] = {v, 3 * u * std::fabs(v)};
  }
  return want;
}

}  // namespace fdnn_test
