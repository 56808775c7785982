// The three kernel families behind launch_pointwise (pointwise_launch.cpp).
// Each try_* function launches and returns true when its kernel fits the
// arguments, else returns false without doing anything.
#pragma once

#include <cuda_runtime_api.h>

#include "cuda/kernel_args.hpp"

namespace fdnn::cuda {

// Largest element (or vector) count one launch indexes with 32-bit math.
constexpr int64_t kMaxLaunchElements = (int64_t{1} << 31) - 1;

// 16-byte loads and stores along a contiguous innermost dim; same storage
// type (f32, f16, bf16, f64) for x, b and y; common modes only.
bool try_pointwise_vector(const PointwiseArgs &a, cudaStream_t stream);

// Constant fills (IDENTITY of a by-value scalar, beta 0) of a y that is
// contiguous along its innermost dim: raw 16-byte stores.
bool try_pointwise_fill(const PointwiseArgs &a, cudaStream_t stream);

// Shared-memory tiles for layout changes (IDENTITY where x's contiguous dim
// is not y's, e.g. NCHW <-> NHWC).
bool try_pointwise_transpose(const PointwiseArgs &a, cudaStream_t stream);

// Any mode, any supported types and strides; one element per thread. The
// layout must hold fewer than kMaxLaunchElements elements.
void launch_pointwise_generic(const PointwiseArgs &a, cudaStream_t stream);

}  // namespace fdnn::cuda
