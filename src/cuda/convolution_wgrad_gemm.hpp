// The HALF / BFLOAT16 filter gradient as explicit GEMMs on cuBLASLt
// (cuda.conv.implicit_gemm, BWD_FILTER ALGO_1), for problems whose
// reduction (N x output pixels) is long next to a small output (K x taps x
// C): the ResNet-50 512x7 3x3 layer, where the mma.sync kernel needs a split
// over pixels and reaches about a third of the tensor cores.
//
//   dw[k][(t, c)] = sum over pixels p of dy[p][k] * im2col[p][(t, c)]
//
// dy (packed NHWC, pixels uniformly strided) is a [pixels x K] row-major
// matrix as it lies. The im2col matrix is built in chunks (a group of taps
// x a range of pixels, zero-padded taps, 16-byte vectors along c) in the
// handle's scratch; cuBLASLt (16-bit inputs, CUBLAS_COMPUTE_32F) writes or
// accumulates (beta = 1 after a group's first pixel chunk) a float
// C[k][(t, c)] there too; one small kernel then maps C into dw's layout
// (KRSC or KCRS, any strides; CONVOLUTION mode's taps reversed) as
// alpha * C + beta * dw, rounded to dw's type (beta = 0 never reads dw).
// One-tap filters with no padding and unit strides use x itself as the
// im2col matrix.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "cuda/convolution_args.hpp"

namespace fdnn::cuda {

// Whether the layouts and types allow the GEMM form (kConvBwdFilter args,
// ConvTypes f16 / bf16, G = 1, C and K multiples of 8, dy with channels
// innermost and pixels uniformly strided, x with channels innermost and
// strides multiples of 8). Says nothing about speed.
bool conv_wgrad_gemm_layout(const ConvArgs &a, ConvTypes t);

// Whether the engine should take the GEMM form for this problem: the layout
// above, FREEDNN_CONV_WGRAD_GEMM (0: never, 1: wherever the layout allows,
// unset: where it wins on an H100, see the rule in the .cpp, and the wgmma
// kernel does not apply: `wgmma_applies`), read when the plan is made.
bool conv_wgrad_gemm_wanted(const ConvArgs &a, ConvTypes t, bool wgmma_applies);

class ConvWgradGemm {
 public:
  // The plan's GEMM state (cuBLASLt descriptors and algorithms) for
  // problem a, or nullptr when cuBLASLt cannot be loaded or has no
  // algorithm (the mma kernel then runs).
  static std::shared_ptr<const ConvWgradGemm> make(const ConvArgs &a, ConvTypes t);
  virtual ~ConvWgradGemm() = default;
  // Bytes of scratch run() needs (256-aligned base).
  virtual size_t scratch_bytes() const = 0;
  // Whether run() takes these pointers (16-byte aligned dy and x).
  virtual bool takes(const ConvArgs &a) const = 0;
  // a.A = dy, a.B = x, a.dst = dw, alpha, beta as the call's.
  virtual void run(const ConvArgs &a, void *scratch, void *stream) const = 0;
  virtual std::string detail() const = 0;
};

// The kernels (convolution_wgrad_gemm.cu).
// Rows [p0, p0 + rows) of the im2col matrix of x (a.B), taps [t0, t0 + taps)
// (input-side taps: CONVOLUTION mode's reversal is the map's), into cols
// ([rows][taps * Cg], row-major, 16-byte aligned).
void launch_wgrad_im2col(const ConvArgs &a, int p0, int rows, int t0, int taps, void *cols, void *stream);
// dw (a.dst) = alpha * acc + beta * dw, acc [Kg][T * Cg] float row-major.
void launch_wgrad_map(const ConvArgs &a, ConvTypes t, const float *acc, void *stream);

}  // namespace fdnn::cuda
