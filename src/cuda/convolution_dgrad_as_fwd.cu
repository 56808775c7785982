// The filter transform of the data gradient run as a forward convolution
// (see convolution_dgrad_as_fwd.hpp): a 32 x 32 shared-memory transpose of
// (k, c) per group and tap, so that both the reads of w (runs along c in
// the channels-innermost filter layouts) and the writes of w' (runs along
// k) are coalesced. K*C*taps 16-bit elements: 4.7 MB at 512 x 512 x 3 x 3,
// a few microseconds next to the convolution's hundreds.
#include "cuda/convolution_dgrad_as_fwd.hpp"

#include <cuda_runtime.h>

#include <cstdint>

#include "cuda/cuda_util.hpp"

namespace fdnn::cuda {
namespace {

constexpr int kTile = 32, kRows = 8;

// Block (32, 8); grid (Cg tiles, Kg tiles, min(G * taps, 65535)), z strides
// over (g, tap). `flip_src`: w' tap t reads w tap T-1-t.
__global__ void dgrad_filter_transform_kernel(const ConvArgs a, const uint16_t *__restrict__ w,
                                              uint16_t *__restrict__ wt, int flip_src) {
  __shared__ uint16_t tile[kTile][kTile + 1];
  const int c0 = blockIdx.x * kTile, k0 = blockIdx.y * kTile;
  const int tx = threadIdx.x, ty = threadIdx.y;
  for (int z = blockIdx.z; z < a.G * a.T; z += gridDim.z) {
    const int g = z / a.T, t = z % a.T;
    // Tap t of w' (d, h, w) and the tap of w it reads.
    const int tw = t % a.filt[2], th = (t / a.filt[2]) % a.filt[1], td = t / (a.filt[2] * a.filt[1]);
    const int sd = flip_src ? a.filt[0] - 1 - td : td, sh = flip_src ? a.filt[1] - 1 - th : th,
              sw = flip_src ? a.filt[2] - 1 - tw : tw;
    const int tap_off = sd * a.ws[2] + sh * a.ws[3] + sw * a.ws[4];
#pragma unroll
    for (int i = 0; i < kTile / kRows; ++i) {
      const int k = k0 + ty + i * kRows, c = c0 + tx;
      if (k < a.Kg && c < a.Cg) tile[ty + i * kRows][tx] = w[(g * a.Kg + k) * a.ws[0] + c * a.ws[1] + tap_off];
    }
    __syncthreads();
#pragma unroll
    for (int i = 0; i < kTile / kRows; ++i) {
      const int c = c0 + ty + i * kRows, k = k0 + tx;
      if (k < a.Kg && c < a.Cg) wt[(static_cast<int64_t>(g * a.Cg + c) * a.T + t) * a.Kg + k] = tile[tx][ty + i * kRows];
    }
    __syncthreads();
  }
}

}  // namespace

void launch_conv_dgrad_filter_transform(const ConvArgs &a, void *wt, void *stream) {
  const dim3 block(kTile, kRows);
  const int gz = a.G * a.T < 65535 ? a.G * a.T : 65535;
  const dim3 grid((a.Cg + kTile - 1) / kTile, (a.Kg + kTile - 1) / kTile, gz);
  // ConvArgs::flip is CONVOLUTION mode: its data gradient as a forward
  // cross-correlation reads w's taps in order; CROSS_CORRELATION's reversed.
  dgrad_filter_transform_kernel<<<grid, block, 0, as_stream(stream)>>>(
      a, static_cast<const uint16_t *>(a.B), static_cast<uint16_t *>(wt), a.flip ? 0 : 1);
  check_launch("dgrad_filter_transform_kernel");
}

}  // namespace fdnn::cuda
