// col2im of the data gradient's GEMM form (convolution_dgrad_gemm.hpp):
// one thread per dx element of a chunk of images. Threads walk (image, c, h,
// rw, q) with w = q * stride + rw, q fastest, so that a warp's lanes share
// the taps that reach them and read consecutive output pixels of cols.
#include <cuda_runtime.h>

#include <cstdint>

#include "cuda/convolution_dgrad_gemm.hpp"
#include "cuda/convolution_index.cuh"
#include "cuda/cuda_util.hpp"

namespace fdnn::cuda {
namespace {

__global__ void conv_dgrad_col2im_kernel(const ConvArgs a, int n0, int images, const float *__restrict__ cols,
                                         int64_t ldc) {
  const int H = a.in[1], W = a.in[2], R = a.filt[1], S = a.filt[2];
  const int sh = a.str[1], sw = a.str[2], OH = a.out[1], OW = a.out[2];
  const int Q = (W + sw - 1) / sw;  // w positions per residue
  const int J = a.Cg * a.T;
  const int64_t total = int64_t{images} * a.Cg * H * sw * Q;
  float *dx = static_cast<float *>(a.dst);
  const float alpha = static_cast<float>(a.alpha), beta = static_cast<float>(a.beta);
  for (int64_t e = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; e < total; e += int64_t{gridDim.x} * blockDim.x) {
    int64_t rest = e / Q;
    const int q = static_cast<int>(e - rest * Q);
    const int rw = static_cast<int>(rest % sw);
    rest /= sw;
    const int h = static_cast<int>(rest % H);
    rest /= H;
    const int c = static_cast<int>(rest % a.Cg);
    const int b = static_cast<int>(rest / a.Cg);
    const int w = q * sw + rw;
    if (w >= W) continue;
    const float *cb = cols + int64_t{b} * J * ldc;
    float acc = 0.f;
    // Unit dilation: only the taps of w's residue modulo the stride reach it.
    const bool unit_h = a.dil[1] == 1, unit_w = a.dil[2] == 1;
    const int s0 = unit_w ? (w + a.pad[2]) % sw : 0, s_step = unit_w ? sw : 1;
    for (int r = unit_h ? (h + a.pad[1]) % sh : 0; r < R; r += unit_h ? sh : 1) {
      const int th = h + a.pad[1] - r * a.dil[1];
      if (th < 0) break;  // th falls as r grows
      if (!unit_h && th % sh != 0) continue;
      const int oh = th / sh;
      if (oh >= OH) continue;
      const int rf = a.flip ? R - 1 - r : r;
      const float *row = cb + oh * OW;
      for (int s = s0; s < S; s += s_step) {
        const int tw = w + a.pad[2] - s * a.dil[2];
        if (tw < 0) break;
        if (!unit_w && tw % sw != 0) continue;
        const int ow = tw / sw;
        if (ow >= OW) continue;
        const int sf = a.flip ? S - 1 - s : s;
        acc += row[int64_t{c * a.ws[1] + rf * a.ws[3] + sf * a.ws[4]} * ldc + ow];
      }
    }
    blend_store<float, float>(dx, (n0 + b) * a.xs[0] + c * a.xs[1] + h * a.xs[3] + w * a.xs[4], acc, alpha, beta);
  }
}

}  // namespace

void launch_dgrad_col2im(const ConvArgs &a, int n0, int images, const float *cols, int64_t ldc, void *stream) {
  // A grid-stride loop over the chunk's dx elements, at most 16 blocks per
  // multiprocessor.
  const int64_t total = int64_t{images} * a.Cg * a.in[1] * a.in[2];
  const int64_t want = (total + 255) / 256, cap = int64_t{sm_count()} * 16;
  const int blocks = static_cast<int>(want < cap ? want : cap);
  conv_dgrad_col2im_kernel<<<blocks, 256, 0, as_stream(stream)>>>(a, n0, images, cols, ldc);
  check_launch("conv_dgrad_col2im_kernel");
}

}  // namespace fdnn::cuda
