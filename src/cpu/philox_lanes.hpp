// Pieces the CPU's counter-based random engines (dropout, RNG) share: 32
// Bernoulli bits from 8 Philox4x32-10 blocks computed in lockstep (so the
// compiler vectorises the rounds; the same bits as one block at a time), and
// a walker over a tensor's elements in logical row-major order.
#pragma once

#include <cstdint>
#include <vector>

#include "graph/tensor.hpp"

namespace fdnn::cpu {

// Bits of elements 32*word .. 32*word+31 (element j in bit j): Philox blocks
// (counter = 8*word + l, offset; key = seed) for l = 0..7, each block's four
// 32-bit outputs giving four consecutive elements; keep(u) decides one bit.
template <class Keep>
inline uint32_t philox_bits32(uint64_t seed, uint64_t offset, uint64_t word, Keep keep) {
  constexpr int kLanes = 8;
  uint32_t c0[kLanes], c1[kLanes], c2[kLanes], c3[kLanes];
  for (int l = 0; l < kLanes; ++l) {
    const uint64_t group = word * kLanes + static_cast<uint64_t>(l);
    c0[l] = static_cast<uint32_t>(group);
    c1[l] = static_cast<uint32_t>(group >> 32);
    c2[l] = static_cast<uint32_t>(offset);
    c3[l] = static_cast<uint32_t>(offset >> 32);
  }
  uint32_t k0 = static_cast<uint32_t>(seed), k1 = static_cast<uint32_t>(seed >> 32);
  for (int round = 0; round < 10; ++round) {
    for (int l = 0; l < kLanes; ++l) {
      const uint64_t p0 = static_cast<uint64_t>(0xD2511F53u) * c0[l];
      const uint64_t p1 = static_cast<uint64_t>(0xCD9E8D57u) * c2[l];
      const uint32_t n0 = static_cast<uint32_t>(p1 >> 32) ^ c1[l] ^ k0;
      const uint32_t n2 = static_cast<uint32_t>(p0 >> 32) ^ c3[l] ^ k1;
      c1[l] = static_cast<uint32_t>(p1);
      c3[l] = static_cast<uint32_t>(p0);
      c0[l] = n0;
      c2[l] = n2;
    }
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  uint32_t bits = 0;
  for (int l = 0; l < kLanes; ++l) {
    const uint32_t nibble = (keep(c0[l]) ? 1u : 0u) | (keep(c1[l]) ? 2u : 0u) | (keep(c2[l]) ? 4u : 0u) |
                            (keep(c3[l]) ? 8u : 0u);
    bits |= nibble << (4 * l);
  }
  return bits;
}

// Element offsets of a tensor in logical row-major order from a start index.
class RowMajorWalker {
 public:
  RowMajorWalker(const graph::Tensor &t, int64_t linear) : t_(t), index_(t.dims.size(), 0) {
    for (int d = t.rank() - 1; d >= 0; --d) {
      index_[d] = linear % t.dims[d];
      linear /= t.dims[d];
      offset_ += index_[d] * t.strides[d];
    }
  }
  int64_t offset() const { return offset_; }
  void next() {
    for (int d = t_.rank() - 1; d >= 0; --d) {
      offset_ += t_.strides[d];
      if (++index_[d] < t_.dims[d]) return;
      offset_ -= index_[d] * t_.strides[d];
      index_[d] = 0;
    }
  }

 private:
  const graph::Tensor &t_;
  std::vector<int64_t> index_;
  int64_t offset_ = 0;
};

}  // namespace fdnn::cpu
