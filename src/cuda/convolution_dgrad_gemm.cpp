// The data gradient's GEMM form on cuBLASLt (see convolution_dgrad_gemm.hpp):
// the applicability rule, the chunking of images and the planned GEMMs.
#include "cuda/convolution_dgrad_gemm.hpp"

#include <algorithm>
#include <cstdint>

#include "core/env_words.hpp"
#include "core/error.hpp"
#include "cuda/cuda_util.hpp"
#include "cuda/lt_matmul.hpp"

namespace fdnn::cuda {
namespace {

// Scratch budget for one chunk's cols (FREEDNN_CONV_DGRAD_GEMM_MB, MiB).
// H100, f32 NCHW stem at batch 256, one probe run
// (tests/oracle_gpu/stem_f32_probe.cu; cuDNN's best 4.09 ms in it): chunks
// of 1 / 2 / 4 / 8 / 16 / 32 images (7.4 MB each) 5.73 / 4.53 / 4.01 /
// 3.97 / 3.71 / 3.55 ms. 64 MiB takes 8.
int64_t budget_bytes() {
  const long mb = env_long("FREEDNN_CONV_DGRAD_GEMM_MB", 64);
  return int64_t{mb > 0 ? mb : 64} << 20;
}

// Whether w's C x R x S block (strides ws[1], ws[3], ws[4]) is packed in
// some order: j = c ws[1] + r ws[3] + s ws[4] then runs over [0, C R S).
bool filter_block_packed(const ConvArgs &a) {
  struct Dim {
    int extent, stride;
  } d[3] = {{a.Cg, a.ws[1]}, {a.filt[1], a.ws[3]}, {a.filt[2], a.ws[4]}};
  std::sort(std::begin(d), std::end(d), [](const Dim &x, const Dim &y) { return x.stride < y.stride; });
  int64_t span = 1;
  for (const Dim &e : d) {
    if (e.extent == 1) continue;
    if (e.stride != span) return false;
    span *= e.extent;
  }
  return a.ws[0] >= span;
}

class LtDgradGemm final : public ConvDgradGemm {
 public:
  explicit LtDgradGemm(const ConvArgs &a) {
    J_ = a.Cg * a.T;
    ldc_ = (int64_t{a.P} + 3) / 4 * 4;  // 16-byte columns
    const int64_t per_image = int64_t{J_} * ldc_ * 4;
    chunk_ = static_cast<int>(std::clamp<int64_t>(budget_bytes() / per_image, 1, a.N));
    full_ = std::make_unique<LtMatmul>(setup(a, chunk_), 0);
    if (a.N % chunk_ != 0) tail_ = std::make_unique<LtMatmul>(setup(a, a.N % chunk_), 0);
    scratch_ = round256(static_cast<size_t>(chunk_) * per_image);
  }

  size_t scratch_bytes() const override { return scratch_; }

  bool takes(const ConvArgs &a) const override {
    return aligned_to(a.A, 16) && aligned_to(a.B, 16) && (a.N == 1 || a.ys[0] % 4 == 0);
  }

  void run(const ConvArgs &a, void *scratch, void *stream) const override {
    const float *dy = static_cast<const float *>(a.A);
    float *cols = static_cast<float *>(scratch);
    for (int n0 = 0; n0 < a.N; n0 += chunk_) {
      const int images = std::min(chunk_, a.N - n0);
      const LtMatmul &g = images == chunk_ ? *full_ : *tail_;
      // cols^T (pixels x J) = dy_n^T (pixels x K) w (K x J), per image.
      g.run(stream, dy + int64_t{n0} * a.ys[0], a.B, cols, 1.0, 0.0, nullptr, 0);
      launch_dgrad_col2im(a, n0, images, cols, ldc_, stream);
    }
  }

  std::string detail() const override {
    return cat("cuBLASLt GEMMs of ", chunk_, " images (", full_->detail(), ") + col2im");
  }

 private:
  // Column-major operands: x = dy_n as pixels x K (ld: dy's k stride), y =
  // w stored J x K (ld: its k stride), transposed; d = cols_n, pixels x J.
  LtMatmulSetup setup(const ConvArgs &a, int images) const {
    LtMatmulSetup s;
    const int64_t ld = a.Kg > 1 ? a.ys[1] : a.P;
    s.x = LtOperand{static_cast<uint64_t>(a.P), static_cast<uint64_t>(a.Kg), ld, false, a.ys[0]};
    s.y = LtOperand{static_cast<uint64_t>(J_), static_cast<uint64_t>(a.Kg), a.ws[0], true, 0};
    s.d = LtOperand{static_cast<uint64_t>(a.P), static_cast<uint64_t>(J_), ldc_, false, int64_t{J_} * ldc_};
    s.batches = images;
    return s;
  }

  int J_ = 0, chunk_ = 1;
  int64_t ldc_ = 0;
  size_t scratch_ = 0;
  std::unique_ptr<LtMatmul> full_, tail_;
};

}  // namespace

bool conv_dgrad_gemm_applies(const ConvArgs &a, ConvTypes t) {
  if (!env_on("FREEDNN_CONV_DGRAD_GEMM") || t != ConvTypes::f32 || a.dir != kConvBwdData) return false;
  if (a.G != 1 || a.Cg > 4 || a.in[0] != 1 || a.filt[0] != 1 || a.out[0] != 1 || a.Cg * a.T <= 64) return false;
  // dy_n as a pixels x K matrix: pixels at unit stride, rows packed, k
  // rows not overlapping.
  if (a.ys[4] != 1 || (a.out[1] > 1 && a.ys[3] != a.out[2]) || (a.Kg > 1 && a.ys[1] < a.P)) return false;
  if (a.N > 1 && a.ys[0] <= 0) return false;
  return filter_block_packed(a);
}

std::shared_ptr<const ConvDgradGemm> ConvDgradGemm::make(const ConvArgs &a) {
  try {
    return std::make_shared<LtDgradGemm>(a);
  } catch (const Error &) {
    return nullptr;  // no cuBLASLt, or no algorithm: the per-pixel kernel runs
  }
}

}  // namespace fdnn::cuda
