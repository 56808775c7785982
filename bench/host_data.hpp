// Host-side data of bench tensors, through the tests/common helpers
// (tensor_data.hpp: HostTensor, fills, poisoning, encodings, comparison;
// reference.hpp: the float64 references), so that the bench and the tests
// judge results the same way. This file only binds them to BenchTensor.
#pragma once

#include <cstdint>
#include <vector>

#include "common/reference.hpp"
#include "common/tensor_data.hpp"
#include "op.hpp"
#include "tensor.hpp"

namespace bench {

using fdnn_test::Expect;
using fdnn_test::HostTensor;

// A zeroed host image with t's type, dims and strides.
HostTensor host_like(const BenchTensor &t);
// Random values in [lo, hi) exactly representable in t's type (integers for
// integer types), written to the device; returns the host image.
HostTensor fill_random(BenchTensor &t, uint64_t seed, double lo, double hi);
// 0xff in every byte (NaN in every float type) on the device, so an element
// the library does not write fails the check.
void poison(BenchTensor &t);
HostTensor download(const BenchTensor &t);

// fdnn_test::matches, with a summary line: the largest error relative to its
// tolerance, or the first mismatches.
CheckResult compare(const HostTensor &got, const std::vector<Expect> &want);

// The float64 compute type for f64 data, else float (cuDNN's rule).
cudnnDataType_t default_compute_type(const std::string &dt);

}  // namespace bench
