// Float64 reference of dropout, written independently of the library: its
// own Philox4x32-10 (checked against the Random123 known-answer vectors in
// the tests) and the element -> counter mapping FreeDNN documents
// (src/core/philox.hpp), so that masks can be predicted bit for bit on every
// backend.
#pragma once

#include <cstdint>
#include <vector>

#include "common/tensor_data.hpp"

namespace fdnn_test {

// Philox4x32-10 of a 128-bit counter under a 64-bit key.
void philox4x32_10_ref(const uint32_t counter[4], const uint32_t key[2], uint32_t out[4]);

// Keep decisions of n elements for a forward call with this seed and
// offset (the number of forward calls made on the states before).
std::vector<bool> dropout_keep_mask(uint64_t seed, uint64_t offset, int64_t n, double p);

// The reserve-space image of a mask: bit i % 32 of 32-bit word i / 32.
std::vector<bool> unpack_mask_bits(const std::vector<uint8_t> &reserve, int64_t n);

// y for input x (logical order) and a mask: x / (1 - p) where kept, else 0;
// tolerance of a float (double for DOUBLE) product rounded to y's type.
std::vector<Expect> dropout_expect(const HostTensor &x, const std::vector<bool> &keep, double p,
                                   cudnnDataType_t y_type);

}  // namespace fdnn_test
