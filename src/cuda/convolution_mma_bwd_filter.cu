// The large-tile tensor-core implicit GEMM's bwd filter instantiations (see
// convolution_mma.cu).
#include "cuda/convolution_mma_kernel.cuh"

namespace fdnn::cuda {

void launch_conv_mma_bwd_filter(const ConvArgs &a, ConvTypes t, int bm, int bn, void *stream) {
  mma_detail::launch_types<kConvBwdFilter, false, false>(a, t, bm, bn, stream);
}

}  // namespace fdnn::cuda
