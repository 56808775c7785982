// The kernels of the filter gradient's GEMM form (convolution_wgrad_gemm.hpp):
// the im2col gather of x and the map of the float GEMM result into dw.
#include <cuda_runtime.h>

#include <cstdint>

#include "cuda/convolution_index.cuh"
#include "cuda/convolution_wgrad_gemm.hpp"
#include "cuda/cuda_util.hpp"
#include "cuda/storage_types.cuh"

namespace fdnn::cuda {
namespace {

constexpr int kRowsPerBlock = 8;

// Block (32, kRowsPerBlock): threadIdx.y picks the im2col row (a pixel),
// blockIdx.y the tap, the 32 lanes step over the pixel's channels in
// 16-byte vectors (8 elements), so a warp moves 512 contiguous bytes.
__global__ void wgrad_im2col_kernel(const ConvArgs a, int p0, int rows, int t0, int taps, uint4 *cols) {
  const int i = blockIdx.x * kRowsPerBlock + threadIdx.y;
  if (i >= rows) return;
  const int tl = blockIdx.y;
  const int vecs = a.Cg / 8;
  uint4 *dst = cols + (static_cast<int64_t>(i) * taps + tl) * vecs;
  uint32_t pix;
  const int n = static_cast<int>(a.d_P.divmod(static_cast<uint32_t>(p0 + i), pix));
  int od, oh, ow, td, th, tw;
  split_dhw(pix, a.d_ow, a.d_oh, od, oh, ow);
  split_dhw(static_cast<uint32_t>(t0 + tl), a.d_fw, a.d_fh, td, th, tw);
  const int id = od * a.str[0] - a.pad[0] + td * a.dil[0];
  const int ih = oh * a.str[1] - a.pad[1] + th * a.dil[1];
  const int iw = ow * a.str[2] - a.pad[2] + tw * a.dil[2];
  if (!inside(a, id, ih, iw)) {
    const uint4 zero = make_uint4(0, 0, 0, 0);
    for (int v = threadIdx.x; v < vecs; v += 32) dst[v] = zero;
    return;
  }
  const uint4 *src = reinterpret_cast<const uint4 *>(static_cast<const uint16_t *>(a.B) + n * a.xs[0] +
                                                     id * a.xs[2] + ih * a.xs[3] + iw * a.xs[4]);
  for (int v = threadIdx.x; v < vecs; v += 32) dst[v] = __ldg(src + v);
}

template <class TO>
__global__ void wgrad_map_kernel(const ConvArgs a, const float *__restrict__ acc, float alpha, float beta) {
  TO *out = static_cast<TO *>(a.dst);
  const int cols = a.T * a.Cg;
  const int64_t total = static_cast<int64_t>(a.Kg) * cols;
  for (int64_t e = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; e < total; e += int64_t{gridDim.x} * blockDim.x) {
    const int k = static_cast<int>(e / cols), col = static_cast<int>(e - int64_t{k} * cols);
    uint32_t c;
    const uint32_t t = a.d_cg.divmod(static_cast<uint32_t>(col), c);
    int td, th, tw;
    split_dhw(t, a.d_fw, a.d_fh, td, th, tw);
    const int off = k * a.ws[0] + static_cast<int>(c) * a.ws[1] + filter_tap_offset(a, a.ws, td, th, tw);
    blend_store<TO, float>(out, off, acc[e], alpha, beta);
  }
}

}  // namespace

void launch_wgrad_im2col(const ConvArgs &a, int p0, int rows, int t0, int taps, void *cols, void *stream) {
  if (rows <= 0 || taps <= 0) return;
  const dim3 block(32, kRowsPerBlock);
  const dim3 grid(static_cast<unsigned>((rows + kRowsPerBlock - 1) / kRowsPerBlock), static_cast<unsigned>(taps));
  wgrad_im2col_kernel<<<grid, block, 0, as_stream(stream)>>>(a, p0, rows, t0, taps, static_cast<uint4 *>(cols));
  check_launch("wgrad_im2col_kernel");
}

void launch_wgrad_map(const ConvArgs &a, ConvTypes t, const float *acc, void *stream) {
  const int64_t total = static_cast<int64_t>(a.Kg) * a.T * a.Cg;
  const int64_t want = (total + 255) / 256, cap = int64_t{sm_count()} * 16;
  const int grid = static_cast<int>(want < 1 ? 1 : want > cap ? cap : want);
  const float alpha = static_cast<float>(a.alpha), beta = static_cast<float>(a.beta);
  const cudaStream_t s = as_stream(stream);
  if (t == ConvTypes::bf16) wgrad_map_kernel<bf16_bits><<<grid, 256, 0, s>>>(a, acc, alpha, beta);
  else wgrad_map_kernel<half_bits><<<grid, 256, 0, s>>>(a, acc, alpha, beta);
  check_launch("wgrad_map_kernel");
}

}  // namespace fdnn::cuda
