// The element-wise concatenation copy: each thread converts elements of one
// input (any strides) through double into its place in y. Sub-byte outputs
// (BOOLEAN, INT4, UINT4, FP4) are written with 32-bit atomics
// (cuda/element_access.cuh), so neighbours in the same byte that belong to
// another input, or to another thread, survive: slices of packed sub-byte
// tensors need not start on a byte boundary.
#include <cuda_runtime.h>

#include <algorithm>

#include "cuda/concat_elements_args.hpp"
#include "cuda/cuda_util.hpp"
#include "cuda/element_access.cuh"

namespace fdnn::cuda {
namespace {

constexpr int kThreads = 256;

__global__ void __launch_bounds__(kThreads) concat_copy_kernel(ConcatCopyArgs a) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * kThreads;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; i < a.count; i += step) {
    int64_t rest = i, xo = 0, yo = a.y_offset;
    for (int d = a.rank - 1; d >= 0; --d) {
      const int64_t idx = rest % a.dims[d];
      rest /= a.dims[d];
      xo += idx * a.x_strides[d];
      yo += idx * a.y_strides[d];
    }
    store_element<double>(a.y, a.y_type, yo, load_element<double>(a.x, a.x_type, xo));
  }
}

}  // namespace

void launch_concat_copy(const ConcatCopyArgs &a, void *stream) {
  if (a.count == 0) return;
  const int64_t blocks = std::min<int64_t>((a.count + kThreads - 1) / kThreads, int64_t{sm_count()} * 16);
  concat_copy_kernel<<<static_cast<unsigned>(blocks), kThreads, 0, as_stream(stream)>>>(a);
  check_launch("concat_copy_kernel");
}

}  // namespace fdnn::cuda
