// cuda.conv.gemm_1x1: pointwise convolutions (every filter extent 1, stride
// 1, no padding, one group) as the vendor's matrix product: the forward GEMM
// algorithm (CUDNN_CONVOLUTION_FWD_ALGO_GEMM) and the data gradient's
// CUDNN_CONVOLUTION_BWD_DATA_ALGO_0 (a sum of matrix products: here one).
// Per image, with P the pixel count, the forward is y (K x P) = w (K x C)
// x (C x P) and the data gradient dx (C x P) = w^T (C x K) dy (K x P): the
// same product with the filter transposed, the input activation (x, dy)
// and the output (y, dx) in each other's places.
//
// - FLOAT or DOUBLE data whose images are planes of packed pixels
//   (NCHW-like): one cuBLAS strided batched SGEMM / DGEMM over the images
//   (the filter's batch stride 0), with cuBLAS's alpha / beta as the blend.
//   cuBLAS keeps its default math: FMA arithmetic, no TF32. No workspace.
// - HALF or BFLOAT16 data (FLOAT compute, a math type that allows tensor
//   cores) whose pixels are rows of packed channels (NHWC-like): out (pixels
//   x out channels) = in (pixels x in channels) times w^T (forward) or w
//   (data gradient), one cuBLASLt matmul (lt_matmul.hpp) over all images
//   when they are packed, else batched per image. Such a layer (64x56 1x1
//   64 -> 256, batch 256) moves 5x more bytes than it has products per byte
//   to spare: it is bandwidth-bound, where cuBLASLt's epilogue stores beat
//   the implicit GEMM kernels'. Workspace: cuBLASLt's choice, at most 32 MiB
//   (a smaller one runs its no-workspace algorithm).
//
// Why the data gradient: FLOAT NCHW 64x56 1x1 64 -> 256 at batch 256 ran
// at 0.71 of cuDNN on the FMA implicit GEMM (21.4 against 30.0 TFLOP/s),
// where cuBLAS takes the forward of the same shape to 32.7.
//
// beta = 0 never reads the output (neither library reads C then). The
// engine ranks before cuda.conv.gemm (whose im2col copy a 1x1 filter does
// not need) and cuda.conv.direct (the other ALGO_0); Find times it against
// the implicit GEMM.
#include <algorithm>
#include <cstdlib>
#include <memory>
#include <variant>

#include "core/convolution_support.hpp"
#include "core/dtype.hpp"
#include "core/engine.hpp"
#include "core/error.hpp"
#include "cuda/convolution_winograd_cublas.hpp"
#include "cuda/lt_matmul.hpp"

namespace fdnn::cuda {
namespace {

using graph::ConvDirection;

// True when t's spatial dims (2 ..) are packed row-major inside each channel
// plane and its channel stride is one plane (NCHW-like images); the image
// stride may leave gaps.
bool planes_of_packed_pixels(const graph::Tensor &t, int64_t pixels) {
  int64_t expect = 1;
  for (int d = t.rank() - 1; d >= 2; --d) {
    if (t.dims[d] != 1 && t.strides[d] != expect) return false;
    expect *= t.dims[d];
  }
  return (t.dims[1] == 1 || t.strides[1] == pixels) && (t.dims[0] == 1 || t.strides[0] >= t.dims[1] * pixels);
}

// HALF / BFLOAT16: the cuBLASLt form below; FLOAT / DOUBLE: cuBLAS.
bool sixteen_bit(cudnnDataType_t t) { return t == CUDNN_DATA_HALF || t == CUDNN_DATA_BFLOAT16; }

// True when t's pixels are rows of `row` packed channels (channel stride 1)
// and its spatial dims (2 ..) are packed row-major over those rows
// (NHWC-like images); the image stride may leave gaps.
bool rows_of_packed_channels(const graph::Tensor &t, int64_t row) {
  if (t.dims[1] != 1 && t.strides[1] != 1) return false;
  int64_t expect = row;
  for (int d = t.rank() - 1; d >= 2; --d) {
    if (t.dims[d] != 1 && t.strides[d] != expect) return false;
    expect *= t.dims[d];
  }
  return t.dims[0] == 1 || t.strides[0] >= expect;
}

// The product's operands: the input activation `in` (x forward, dy for the
// data gradient: ConvGeometry keeps dy in y and dx in x) with `in_ch`
// channels, the output `out` with `out_ch`, and whether the filter enters
// transposed (the data gradient).
struct Sides {
  const graph::Tensor *in, *out;
  int64_t in_ch, out_ch;
  bool trans_w;
};

Sides sides(const ConvGeometry &geo) {
  if (geo.direction == ConvDirection::backward_data) return {&geo.y, &geo.x, geo.K, geo.C, true};
  return {&geo.x, &geo.y, geo.C, geo.K, false};
}

// Element stride between the filter's output channels (cuBLAS wants a
// leading dim >= C even for one row).
int64_t filter_row(const ConvGeometry &geo) { return geo.K > 1 ? geo.w.strides[0] : geo.C; }

// The HALF / BFLOAT16 NHWC form as the matrix product c = a b of
// lt_matmul.hpp: a = in (pixels x in_ch), b = w^T (C x K) forward or w
// (K x C) for the data gradient, c = out (pixels x out_ch); one matrix
// over all images when they are packed, else a batch of them.
struct RowsProduct {
  graph::Tensor a, b, c;
};

RowsProduct rows_product(const ConvGeometry &geo) {
  const Sides sd = sides(geo);
  const int64_t P = geo.out_pixels(), C = geo.C, K = geo.K, w_row = filter_row(geo);
  RowsProduct r;
  r.a.dtype = sd.in->dtype, r.b.dtype = geo.w.dtype, r.c.dtype = sd.out->dtype;
  const std::vector<int64_t> wdims = sd.trans_w ? std::vector<int64_t>{K, C} : std::vector<int64_t>{C, K};
  const std::vector<int64_t> wstrides = sd.trans_w ? std::vector<int64_t>{w_row, 1} : std::vector<int64_t>{1, w_row};
  const bool packed = geo.N == 1 || (sd.in->strides[0] == P * sd.in_ch && sd.out->strides[0] == P * sd.out_ch);
  if (packed) {
    r.a.dims = {geo.N * P, sd.in_ch}, r.a.strides = {sd.in_ch, 1};
    r.b.dims = wdims, r.b.strides = wstrides;
    r.c.dims = {geo.N * P, sd.out_ch}, r.c.strides = {sd.out_ch, 1};
  } else {
    r.a.dims = {geo.N, P, sd.in_ch}, r.a.strides = {sd.in->strides[0], sd.in_ch, 1};
    r.b.dims = {1, wdims[0], wdims[1]}, r.b.strides = {0, wstrides[0], wstrides[1]};
    r.c.dims = {geo.N, P, sd.out_ch}, r.c.strides = {sd.out->strides[0], sd.out_ch, 1};
  }
  return r;
}

// Why the HALF / BFLOAT16 NHWC form cannot take the problem, or its setup.
std::variant<LtMatmulSetup, std::string> rows_setup(const graph::ConvolutionOp &op, const ConvGeometry &geo) {
  const cudnnDataType_t t = geo.x.dtype;
  if (op.math_type == CUDNN_FMA_MATH) return std::string("HALF / BFLOAT16 runs on tensor cores: not under FMA math");
  if (geo.compute != CUDNN_DATA_FLOAT) return std::string("HALF / BFLOAT16 with FLOAT compute only");
  if (!rows_of_packed_channels(geo.x, geo.C) || !rows_of_packed_channels(geo.y, geo.K))
    return cat("x and y must be NHWC-like for ", type_info(t).name, " (pixels as rows of packed channels)");
  const RowsProduct r = rows_product(geo);
  return lt_matmul_setup(r.a, r.b, r.c, CUDNN_DATA_FLOAT);
}

// The FLOAT / DOUBLE NCHW form: per image, column-major, out^T (P x out_ch,
// ld P) = in^T (P x in_ch, ld P) op(W) with W the filter stored
// column-major C x K (ld w_row): op(W) = W forward, W^T for the data
// gradient.
struct Setup {
  bool f64 = false;
  bool trans_w = false;
  int pixels = 0, in_ch = 0, out_ch = 0, N = 0;
  int64_t in_image = 0, out_image = 0;  // element strides between images
  int w_row = 0;
};

Setup make_setup(const ConvGeometry &geo) {
  const Sides sd = sides(geo);
  Setup s;
  s.f64 = geo.x.dtype == CUDNN_DATA_DOUBLE;
  s.trans_w = sd.trans_w;
  s.pixels = static_cast<int>(geo.out_pixels());
  s.in_ch = static_cast<int>(sd.in_ch);
  s.out_ch = static_cast<int>(sd.out_ch);
  s.N = static_cast<int>(geo.N);
  s.in_image = sd.in->strides[0];
  s.out_image = sd.out->strides[0];
  s.w_row = static_cast<int>(filter_row(geo));
  return s;
}

class Plan final : public ExecutionPlan {
 public:
  Plan(const Engine &e, const graph::Graph &g) : Plan(e, g, convolution_geometry(g)) {}
  Plan(const Engine &e, const graph::Graph &g, const ConvGeometry &geo) : ExecutionPlan(e), s_(make_setup(geo)) {
    if (!sixteen_bit(geo.x.dtype)) return;
    const auto &op = std::get<graph::ConvolutionOp>(g.ops().front());
    auto setup = rows_setup(op, geo);
    if (auto *reason = std::get_if<std::string>(&setup)) fail(CUDNN_STATUS_NOT_SUPPORTED, *reason);
    rows_ = std::make_unique<LtMatmul>(std::get<LtMatmulSetup>(setup));
  }

  size_t workspace_size() const override { return rows_ ? rows_->workspace_size() : 0; }
  std::string detail() const override {
    return rows_ ? cat("cuBLASLt: ", rows_->detail()) : std::string("cuBLAS strided batched GEMM over the images");
  }

  void execute(const ExecContext &ctx, const graph::Graph &g, const VariantPack &pack) const override {
    const auto &op = std::get<graph::ConvolutionOp>(g.ops().front());
    // Forward x -> y; data gradient dy (in op.y) -> dx (in op.x).
    const void *in = pack.get(s_.trans_w ? op.y : op.x), *w = pack.get(op.w);
    void *out = pack.get(s_.trans_w ? op.x : op.y);
    if (in == nullptr || w == nullptr || out == nullptr) fail(CUDNN_STATUS_BAD_PARAM, "missing data pointer");
    if (rows_) rows_->run(ctx.stream, in, w, out, op.blend.alpha, op.blend.beta, pack.workspace, pack.workspace_size);
    else if (s_.f64) run<double>(ctx, op, in, w, out);
    else run<float>(ctx, op, in, w, out);
  }

 private:
  template <class T>
  void run(const ExecContext &ctx, const graph::ConvolutionOp &op, const void *in, const void *w, void *out) const {
    gemm_.gemm_strided_batched<T>(ctx.stream, false, s_.trans_w, s_.pixels, s_.out_ch, s_.in_ch,
                                  static_cast<T>(op.blend.alpha), static_cast<const T *>(in), s_.pixels, s_.in_image,
                                  static_cast<const T *>(w), s_.w_row, 0, static_cast<T>(op.blend.beta),
                                  static_cast<T *>(out), s_.pixels, s_.out_image, s_.N);
  }

  Setup s_;
  mutable CublasHandle gemm_;
  std::unique_ptr<LtMatmul> rows_;  // the HALF / BFLOAT16 NHWC form
};

class CudaConvGemm1x1Engine final : public Engine {
 public:
  const char *name() const override { return "cuda.conv.gemm_1x1"; }
  DeviceKind device() const override { return DeviceKind::cuda; }
  int priority() const override { return 25; }  // before cuda.conv.gemm (30)
  Support supports(const graph::Graph &g) const override {
    if (Support s = check_single_convolution(g); !s) return s;
    const auto &op = std::get<graph::ConvolutionOp>(g.ops().front());
    const ConvGeometry geo = convolution_geometry(g);
    const bool fwd_gemm = geo.direction == ConvDirection::forward && op.algo == CUDNN_CONVOLUTION_FWD_ALGO_GEMM;
    const bool dgrad_0 =
        geo.direction == ConvDirection::backward_data && op.algo == CUDNN_CONVOLUTION_BWD_DATA_ALGO_0;
    if (!fwd_gemm && !dgrad_0)
      return Support::no(cat(name(), " implements the forward GEMM algorithm and the data gradient's ALGO_0 only"));
    for (int d = 0; d < geo.nsp; ++d)
      if (geo.filt[d] != 1 || geo.stride[d] != 1 || geo.pad[d] != 0)
        return Support::no("not a pointwise convolution (1x1 filter, stride 1, no padding)");
    if (geo.G != 1) return Support::no("one group only");
    const cudnnDataType_t t = geo.x.dtype;
    if (geo.w.dtype != t || geo.y.dtype != t) return Support::no("x, w and y of one data type");
    const int64_t pixels = geo.out_pixels(), big = int64_t{1} << 31;
    if (pixels >= big || geo.C >= big || geo.K >= big || geo.N >= big) return Support::no("extents of 2^31 or more");
    if ((geo.K > 1 && geo.w.strides[0] < geo.C) || (geo.C > 1 && geo.w.strides[1] != 1) || geo.w.strides[0] >= big)
      return Support::no("the filter must be K rows of C contiguous weights");
    if (sixteen_bit(t)) {
      const std::string why = lt_matmul_refusal(rows_setup(op, geo));
      return why.empty() ? Support::yes() : Support::no(why);
    }
    if ((t != CUDNN_DATA_FLOAT && t != CUDNN_DATA_DOUBLE) || geo.compute != t)
      return Support::no("FLOAT or DOUBLE x, w, y and compute type (or HALF / BFLOAT16 NHWC with FLOAT compute)");
    if (!planes_of_packed_pixels(geo.x, pixels) || !planes_of_packed_pixels(geo.y, pixels))
      return Support::no("FLOAT / DOUBLE x and y must be planes of packed pixels (NCHW-like)");
    const char *why = nullptr;
    if (!cublas_available(&why)) return Support::no(why);
    return Support::yes();
  }
  std::unique_ptr<ExecutionPlan> make_plan(const graph::Graph &g, const std::vector<KnobChoice> &) const override {
    return std::make_unique<Plan>(*this, g);
  }
};

}  // namespace
}  // namespace fdnn::cuda

using fdnn::cuda::CudaConvGemm1x1Engine;
FDNN_REGISTER_ENGINE(CudaConvGemm1x1Engine)
