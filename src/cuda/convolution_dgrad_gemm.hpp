// The FLOAT data gradient of few-channel problems with large filters (the
// ResNet-50 stem in float32: C = 3, 7x7, stride 2, K = 64) as cuBLASLt GEMMs
// and a col2im kernel (cuda.conv.implicit_gemm, BWD_DATA ALGO_1):
//
//   cols_n[j][p] = sum over k of w[k][j] * dy_n[k][p]    (one strided batch
//   of images per GEMM, FP32 FMA: no TF32), then
//   dx_n[c][h][w] = alpha * (sum of cols_n[(c, tap)][p] over the taps and
//   output pixels p that reach (h, w)) + beta * dx.
//
// The per-input-pixel kernel (convolution_narrow.cu) that runs these
// otherwise does 3 FMAs per dy element it loads (C = 3) and reached 0.53-0.63
// of NVIDIA cuDNN's best FMA algorithm on an H100; the GEMM has K = 64
// products per loaded pair. j follows the filter's memory order (KCRS,
// KRSC, ...), so w is the GEMM's operand as it lies; cols live in the
// handle's scratch, a chunk of images at a time.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "cuda/convolution_args.hpp"

namespace fdnn::cuda {

// Whether the GEMM form takes the problem: FLOAT, the data gradient, one
// group, 1-2 spatial dims, Cg <= 4, Cg * R * S > 64, dy with its pixels
// packed along W (ys[4] == 1, ys[3] == the output width: NCHW-like), w with
// its C x R x S block packed in some order. FREEDNN_CONV_DGRAD_GEMM=0 turns
// it off (read when the plan is made).
bool conv_dgrad_gemm_applies(const ConvArgs &a, ConvTypes t);

class ConvDgradGemm {
 public:
  // The plan's GEMMs for problem a, or nullptr when cuBLASLt cannot be
  // loaded or has no algorithm (the per-pixel kernel then runs).
  static std::shared_ptr<const ConvDgradGemm> make(const ConvArgs &a);
  virtual ~ConvDgradGemm() = default;
  // Bytes of scratch run() needs (256-aligned base).
  virtual size_t scratch_bytes() const = 0;
  // Whether run() takes these pointers: dy and w 16-byte aligned, and so
  // every chunk's first image (cuBLASLt's fast algorithms need it).
  virtual bool takes(const ConvArgs &a) const = 0;
  // a.A = dy, a.B = w, a.dst = dx, alpha, beta as the call's.
  virtual void run(const ConvArgs &a, void *scratch, void *stream) const = 0;
  virtual std::string detail() const = 0;
};

// The kernel (convolution_dgrad_gemm.cu): dx (a.dst) for images [n0, n0 +
// images) from cols ([images][J][ldc] floats, j in w's memory order).
void launch_dgrad_col2im(const ConvArgs &a, int n0, int images, const float *cols, int64_t ldc, void *stream);

}  // namespace fdnn::cuda
