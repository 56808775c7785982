// The data gradient of a stride-1 convolution as a forward convolution
// (cuda.conv.implicit_gemm, HALF / BFLOAT16 on the mma.sync kernel):
//   dx = forward(dy, w') with w'[c][t][k] = w[k][T-1-t][c]
// (per group; CROSS_CORRELATION flips the taps, CONVOLUTION does not, the
// forward then runs as a cross-correlation), pre-padding dil*(f-1) - pad
// per spatial dimension (the engine keeps the direct data gradient where
// that is negative), dx's extents as the forward's output extents. The
// forward direction of the mma kernel gathers both operands with runs
// along the reduction, which the data-gradient view cannot for w (runs
// along c): the forward ran the same GEMM sizes 1.1-1.5x faster.
#pragma once

#include "cuda/convolution_args.hpp"

namespace fdnn::cuda {

// w' of the data-gradient problem a (a.B = w, any strides with 32-bit
// offsets): 16-bit elements, packed [G*Cg][taps][Kg] (channels of dy
// innermost), into wt (device memory, G*Kg*Cg*taps elements).
void launch_conv_dgrad_filter_transform(const ConvArgs &a, void *wt, void *stream);

}  // namespace fdnn::cuda
