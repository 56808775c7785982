// cuda.conv.winograd: the WINOGRAD_NONFUSED algorithms of the three
// directions on the GPU for 2-d 3x3 filters, stride 1, dilation 1, one group,
// FLOAT (and DOUBLE) data, any padding and layout. Winograd's F(4x4, 3x3)
// turns a convolution into 36 independent GEMMs over transformed data:
//   forward        U = G g G^T (filter), V = B^T d B (6x6 windows of x),
//                  M[e] = U[e] V[e] (K x C times C x tiles), y = A^T M A.
//   backward data  the forward form on dy with the filter transposed (K <-> C)
//                  and flipped, padding 2 - pad (stride 1 makes dx a plain
//                  convolution of dy).
//   backward filter  V = B^T d B (x windows), Z = A dy A^T (dy tiles),
//                  S[e] = Z[e] V[e]^T summed over tiles, dw = G^T S G.
// The transforms are this library's kernels (convolution_winograd.cu); the
// GEMMs are cuBLAS's strided batched SGEMM / DGEMM with FMA arithmetic
// (TF32 off). Everything lives in the caller's workspace, which the
// workspace query reports: the transformed filter and the two transformed
// data planes of one pass; large batches run in several passes of whole
// images so that the workspace stays under kPassBudget.
#include <algorithm>
#include <cstdlib>
#include <memory>
#include <variant>

#include "core/convolution_support.hpp"
#include "core/engine.hpp"
#include "core/error.hpp"
#include "cuda/convolution_winograd.hpp"
#include "cuda/convolution_winograd_cublas.hpp"
#include "cuda/convolution_winograd_transforms.hpp"
#include "cuda/cuda_util.hpp"

namespace fdnn::cuda {
namespace {

using graph::ConvDirection;

constexpr size_t kPassBudget = size_t{512} << 20;  // transformed data planes of one pass

// FREEDNN_WINOGRAD_PASS_BYTES overrides the budget (tests use a small one to
// reach the several-pass path with small problems).
size_t pass_budget() {
  if (const char *v = std::getenv("FREEDNN_WINOGRAD_PASS_BYTES")) {
    const long long b = std::atoll(v);
    if (b > 0) return static_cast<size_t>(b);
  }
  return kPassBudget;
}
constexpr size_t kAlign = 256;

size_t align_up(size_t v) { return (v + kAlign - 1) / kAlign * kAlign; }

bool implements(ConvDirection dir, int algo) {
  switch (dir) {
    case ConvDirection::forward: return algo == CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED;
    case ConvDirection::backward_data: return algo == CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD_NONFUSED;
    case ConvDirection::backward_filter: return algo == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD_NONFUSED;
  }
  return false;
}

bool fits_int32(const graph::Tensor &t) {
  const int64_t big = int64_t{1} << 31;
  int64_t reach = 0;
  for (int d = 0; d < t.rank(); ++d) reach += (t.dims[d] - 1) * std::abs(t.strides[d]);
  return t.element_count() < big && reach < big;
}

WinoTensor view(const graph::Tensor &t) {
  WinoTensor v;
  for (int d = 0; d < 4; ++d) {
    v.dims[d] = static_cast<int>(t.dims[d]);
    v.strides[d] = static_cast<int>(t.strides[d]);
  }
  return v;
}

// Everything about a problem that does not change between executions.
struct Setup {
  ConvDirection dir = ConvDirection::forward;
  bool f64 = false;
  WinoTiling tiling;       // images = a full pass; T for that pass
  WinoFilterMap filter;    // forward / data gradient: how U is read; filter gradient: how dw is written
  int N = 0, pass_images = 0;
  int parts = 1;           // filter gradient: reduction parts (batches of their own)
  int Cin = 0, Cout = 0;   // GEMM: M[e] (Cout x T) = U[e] (Cout x Cin) V[e] (Cin x T); filter grad: S is Cout x Cin
  size_t u_off = 0, v_off = 0, m_off = 0, workspace = 0;
  int64_t src_image = 0, dst_image = 0;  // element strides of one image in src / dst
};

Setup make_setup(const graph::Graph &g) {
  const ConvGeometry geo = convolution_geometry(g);
  Setup s;
  s.dir = geo.direction;
  s.f64 = geo.x.dtype == CUDNN_DATA_DOUBLE;
  const size_t es = s.f64 ? 8 : 4;
  const graph::Tensor &x = geo.x, &w = geo.w, &y = geo.y;
  WinoTiling &t = s.tiling;
  WinoFilterMap &f = s.filter;
  f.sr = static_cast<int>(w.strides[2]);
  f.ss = static_cast<int>(w.strides[3]);
  s.N = static_cast<int>(geo.N);
  switch (geo.direction) {
    case ConvDirection::forward:
      t.src = view(x), t.dst = view(y);
      t.pad_h = static_cast<int>(geo.pad[0]), t.pad_w = static_cast<int>(geo.pad[1]);
      s.Cin = static_cast<int>(geo.C), s.Cout = static_cast<int>(geo.K);
      f.so = static_cast<int>(w.strides[0]), f.si = static_cast<int>(w.strides[1]);
      f.flip = geo.flip;
      break;
    case ConvDirection::backward_data:
      // dx = dy convolved with w transposed and flipped, padding 2 - pad.
      t.src = view(y), t.dst = view(x);
      t.pad_h = 2 - static_cast<int>(geo.pad[0]), t.pad_w = 2 - static_cast<int>(geo.pad[1]);
      s.Cin = static_cast<int>(geo.K), s.Cout = static_cast<int>(geo.C);
      f.so = static_cast<int>(w.strides[1]), f.si = static_cast<int>(w.strides[0]);
      f.flip = !geo.flip;
      break;
    case ConvDirection::backward_filter:
      // src = x (windows), dst = dy (tiles); S and dw are K x C.
      t.src = view(x), t.dst = view(y);
      t.pad_h = static_cast<int>(geo.pad[0]), t.pad_w = static_cast<int>(geo.pad[1]);
      s.Cin = static_cast<int>(geo.C), s.Cout = static_cast<int>(geo.K);
      f.so = static_cast<int>(w.strides[0]), f.si = static_cast<int>(w.strides[1]);
      f.flip = geo.flip;
      break;
  }
  f.outer = s.Cout, f.inner = s.Cin;
  t.tiles_h = (t.dst.dims[2] + wino::kOut - 1) / wino::kOut;
  t.tiles_w = (t.dst.dims[3] + wino::kOut - 1) / wino::kOut;
  s.src_image = t.src.strides[0];
  s.dst_image = t.dst.strides[0];
  // Whole images per pass, as many as the budget allows, passes balanced.
  const size_t per_image = size_t{wino::kTaps} * t.tiles_h * t.tiles_w * (s.Cin + s.Cout) * es;
  const int most = static_cast<int>(std::clamp<size_t>(pass_budget() / std::max<size_t>(per_image, 1), 1, s.N));
  const int passes = (s.N + most - 1) / most;
  s.pass_images = (s.N + passes - 1) / passes;
  t.images = s.pass_images;
  t.T = s.pass_images * t.tiles_h * t.tiles_w;
  if (s.dir == ConvDirection::backward_filter) {
    // 36 GEMMs of a Cin x Cout result are few blocks for a long reduction:
    // split it so that about two blocks (of ~128 x 128) per multiprocessor
    // run, each part at least 128 tiles deep.
    const int64_t blocks = int64_t{wino::kTaps} * ((s.Cin + 127) / 128) * ((s.Cout + 127) / 128);
    const int64_t want = (2 * int64_t{sm_count()} + blocks - 1) / blocks;
    s.parts = static_cast<int>(std::clamp<int64_t>(std::min<int64_t>(want, t.T / 128), 1, 64));
  }
  t.parts = s.parts;
  t.part_tiles = (t.T + s.parts - 1) / s.parts;
  // Workspace: U (or the parts of S), then V, then M (or Z).
  const size_t taps = wino::kTaps, padded = size_t{1} * t.parts * t.part_tiles;
  s.u_off = 0;
  s.v_off = align_up(taps * s.parts * s.Cout * s.Cin * es);
  s.m_off = s.v_off + align_up(taps * s.Cin * padded * es);
  s.workspace = s.m_off + align_up(taps * s.Cout * padded * es);
  return s;
}

class Plan final : public ExecutionPlan {
 public:
  Plan(const Engine &e, const graph::Graph &g) : ExecutionPlan(e), s_(make_setup(g)) {}
  size_t workspace_size() const override { return s_.workspace; }

  void execute(const ExecContext &ctx, const graph::Graph &g, const VariantPack &pack) const override {
    const auto &op = std::get<graph::ConvolutionOp>(g.ops().front());
    const void *x = pack.get(op.x), *w = pack.get(op.w), *y = pack.get(op.y);
    if (x == nullptr || w == nullptr || y == nullptr) fail(CUDNN_STATUS_BAD_PARAM, "missing data pointer");
    if (pack.workspace == nullptr || pack.workspace_size < s_.workspace)
      fail(CUDNN_STATUS_BAD_PARAM, "the WINOGRAD_NONFUSED algorithm needs ", s_.workspace, " bytes of workspace");
    if (s_.f64) run<double>(ctx, op, x, w, y, pack.workspace);
    else run<float>(ctx, op, x, w, y, pack.workspace);
  }

 private:
  template <class T>
  void run(const ExecContext &ctx, const graph::ConvolutionOp &op, const void *xp, const void *wp, const void *yp,
           void *workspace) const {
    char *ws = static_cast<char *>(workspace);
    T *U = reinterpret_cast<T *>(ws + s_.u_off);
    T *V = reinterpret_cast<T *>(ws + s_.v_off);
    T *M = reinterpret_cast<T *>(ws + s_.m_off);
    const T alpha = static_cast<T>(op.blend.alpha), beta = static_cast<T>(op.blend.beta);
    void *stream = ctx.stream;
    const int per_image = s_.tiling.tiles_h * s_.tiling.tiles_w;
    const int64_t taps = wino::kTaps;
    if (s_.dir == ConvDirection::backward_filter) {
      const T *x = static_cast<const T *>(xp), *dy = static_cast<const T *>(yp);
      T *dw = static_cast<T *>(const_cast<void *>(wp));
      for (int n0 = 0; n0 < s_.N; n0 += s_.pass_images) {
        WinoTiling t = s_.tiling;
        t.images = std::min(s_.pass_images, s_.N - n0);
        t.T = t.images * per_image;
        t.part_tiles = (t.T + t.parts - 1) / t.parts;
        launch_wino_input<T>(x + n0 * s_.src_image, t, V, stream);
        launch_wino_grad<T>(dy + n0 * s_.dst_image, t, M, stream);
        // Column-major, one batch per (tap, part) b: S[b] (Cin x Cout, ld
        // Cin) += V[b]^T Z[b], V[b] and Z[b] being part_tiles x Cin and
        // part_tiles x Cout with leading dimension part_tiles.
        const int Tp = t.part_tiles;
        gemm_.gemm_strided_batched<T>(stream, true, false, s_.Cin, s_.Cout, Tp, T(1), V, Tp, int64_t{s_.Cin} * Tp, M,
                                      Tp, int64_t{s_.Cout} * Tp, n0 == 0 ? T(0) : T(1), U, s_.Cin,
                                      int64_t{s_.Cin} * s_.Cout, static_cast<int>(taps * t.parts));
      }
      launch_wino_filter_grad<T>(U, s_.parts, s_.filter, dw, alpha, beta, stream);
      return;
    }
    const T *src = static_cast<const T *>(s_.dir == ConvDirection::forward ? xp : yp);
    T *dst = static_cast<T *>(const_cast<void *>(s_.dir == ConvDirection::forward ? yp : xp));
    launch_wino_filter<T>(static_cast<const T *>(wp), s_.filter, U, stream);
    for (int n0 = 0; n0 < s_.N; n0 += s_.pass_images) {
      WinoTiling t = s_.tiling;
      t.images = std::min(s_.pass_images, s_.N - n0);
      t.T = t.images * per_image;
      t.part_tiles = t.T;
      launch_wino_input<T>(src + n0 * s_.src_image, t, V, stream);
      // Column-major: M[e] (T x Cout, ld T) = V[e] (T x Cin, ld T) U[e] (Cin x Cout, ld Cin).
      gemm_.gemm_strided_batched<T>(stream, false, false, t.T, s_.Cout, s_.Cin, T(1), V, t.T, int64_t{s_.Cin} * t.T,
                                    U, s_.Cin, int64_t{s_.Cout} * s_.Cin, T(0), M, t.T, int64_t{s_.Cout} * t.T,
                                    static_cast<int>(taps));
      launch_wino_output<T>(M, t, dst + n0 * s_.dst_image, alpha, beta, stream);
    }
  }

  Setup s_;
  mutable CublasHandle gemm_;
};

class CudaConvWinogradEngine final : public Engine {
 public:
  const char *name() const override { return "cuda.conv.winograd"; }
  DeviceKind device() const override { return DeviceKind::cuda; }
  int priority() const override { return 20; }
  Support supports(const graph::Graph &g) const override {
    if (Support s = check_single_convolution(g); !s) return s;
    const auto &op = std::get<graph::ConvolutionOp>(g.ops().front());
    const ConvGeometry geo = convolution_geometry(g);
    // Only on request: its workspace is large, so "any algorithm" (-1) goes
    // to the implicit GEMM, which needs none.
    if (!implements(geo.direction, op.algo))
      return Support::no(cat(name(), " does not implement algorithm ", convolution_algo_name(geo.direction, op.algo)));
    if (geo.nsp != 2) return Support::no("Winograd needs 2 spatial dimensions");
    if (geo.filt[0] != 3 || geo.filt[1] != 3) return Support::no("Winograd F(4x4,3x3) needs a 3x3 filter");
    if (geo.stride[0] != 1 || geo.stride[1] != 1) return Support::no("Winograd needs stride 1");
    if (geo.dil[0] != 1 || geo.dil[1] != 1) return Support::no("Winograd needs dilation 1");
    if (geo.G != 1) return Support::no("the GPU Winograd path takes one group");
    const cudnnDataType_t t = geo.x.dtype;
    if (geo.w.dtype != t || geo.y.dtype != t || (t != CUDNN_DATA_FLOAT && t != CUDNN_DATA_DOUBLE))
      return Support::no("the GPU Winograd path takes FLOAT or DOUBLE x, w and y");
    for (const graph::Tensor *tt : {&geo.x, &geo.w, &geo.y}) {
      if (tt->rank() != 4) return Support::no("Winograd takes 4-d tensors");
      if (!fits_int32(*tt)) return Support::no("tensors of 2^31 elements or more");
      for (int64_t s : tt->strides)
        if (s < 0) return Support::no("negative strides");
    }
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

using fdnn::cuda::CudaConvWinogradEngine;
FDNN_REGISTER_ENGINE(CudaConvWinogradEngine)
