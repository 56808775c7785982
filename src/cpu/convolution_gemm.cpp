// cpu.conv.gemm: convolutions as matrix products (BLAS sgemm/dgemm, split
// over the thread pool). Each legacy algorithm is its own lowering:
//   FWD GEMM                   whole im2col matrix of an image in the workspace, one GEMM
//   FWD IMPLICIT_PRECOMP_GEMM  tiles of output pixels, packed through a precomputed
//                              input-offset table, one small GEMM per tile
//   FWD IMPLICIT_GEMM          the same tiles, coordinates computed while packing
//   BWD_DATA ALGO_1            W^T times dy into a column matrix, then col2im
//   BWD_FILTER ALGO_1          dy times im2col(x)^T, image after image
//   BWD_FILTER ALGO_3          tiles of pixels with per-chunk partial gradients,
//                              summed in a fixed order (deterministic)
// 1x1 stride-1 unpadded problems skip the im2col copy in GEMM and ALGO_1.
#include <cstring>
#include <memory>
#include <variant>
#include <vector>

#include "core/convolution_support.hpp"
#include "core/engine.hpp"
#include "core/thread_pool.hpp"
#include "cpu/blas.hpp"
#include "cpu/convolution_common.hpp"
#include "cpu/convolution_lowering.hpp"

namespace fdnn::cpu {
namespace {

using Dir = graph::ConvDirection;

// Output pixels per tile: the packed tile (Cg*taps rows) stays near 256 KiB.
int64_t tile_pixels(const Conv3 &p, size_t elem) {
  const int64_t rows = p.Cg * p.taps();
  int64_t t = static_cast<int64_t>((256 * 1024) / (rows * elem));
  t = std::max<int64_t>(64, std::min<int64_t>(t, 1024)) / 16 * 16;
  return std::min(t, p.out_pixels());
}

template <class T>
class GemmPlan final : public ConvPlanBase<T> {
  using Base = ConvPlanBase<T>;
  using Base::geo_;
  using Base::p_;

 public:
  GemmPlan(const Engine &e, const graph::Graph &g, int algo) : Base(e, g), algo_(algo) {
    const Conv3 &p = p_;
    const int64_t rows = p.Cg * p.taps(), P = p.out_pixels();
    chunks_ = ThreadPool::global().size();
    tile_ = tile_pixels(p, sizeof(T));
    size_t bytes = 0;
    switch (kind()) {
      case Kind::fwd_gemm:
      case Kind::bwd_filter_gemm:
        if (!is_pointwise_conv(p)) bytes = static_cast<size_t>(rows * P) * sizeof(T);
        break;
      case Kind::bwd_data_gemm: bytes = static_cast<size_t>(rows * P) * sizeof(T); break;
      case Kind::fwd_precomp:
        table_bytes_ = (static_cast<size_t>(p.taps() * P) * sizeof(int32_t) + 63) / 64 * 64;
        bytes = table_bytes_ + static_cast<size_t>(chunks_ * rows * tile_) * sizeof(T);
        break;
      case Kind::fwd_implicit: bytes = static_cast<size_t>(chunks_ * rows * tile_) * sizeof(T); break;
      case Kind::bwd_filter_tiled:
        bytes = static_cast<size_t>(chunks_) * (static_cast<size_t>(p.K * rows) + rows * tile_) * sizeof(T);
        break;
    }
    this->set_algo_workspace(bytes);
  }

 private:
  enum class Kind { fwd_gemm, fwd_precomp, fwd_implicit, bwd_data_gemm, bwd_filter_gemm, bwd_filter_tiled };
  Kind kind() const {
    switch (geo_.direction) {
      case Dir::forward:
        return algo_ == CUDNN_CONVOLUTION_FWD_ALGO_GEMM                    ? Kind::fwd_gemm
               : algo_ == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM ? Kind::fwd_precomp
                                                                            : Kind::fwd_implicit;
      case Dir::backward_data: return Kind::bwd_data_gemm;
      case Dir::backward_filter:
        return algo_ == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_3 ? Kind::bwd_filter_tiled : Kind::bwd_filter_gemm;
    }
    return Kind::fwd_gemm;
  }

  void run(const ExecContext &ctx, const ConvArrays<T> &a, T alpha, T beta, void *ws) const override {
    switch (kind()) {
      case Kind::fwd_gemm: return forward_gemm(ctx, a, alpha, beta, static_cast<T *>(ws));
      case Kind::fwd_precomp:
      case Kind::fwd_implicit: return forward_tiled(ctx, a, alpha, beta, ws);
      case Kind::bwd_data_gemm: return backward_data_gemm(ctx, a, alpha, beta, static_cast<T *>(ws));
      case Kind::bwd_filter_gemm: return backward_filter_gemm(ctx, a, alpha, beta, static_cast<T *>(ws));
      case Kind::bwd_filter_tiled: return backward_filter_tiled(ctx, a, alpha, beta, static_cast<T *>(ws));
    }
  }

  // Strides of the packed arrays.
  int64_t I() const { return p_.in_pixels(); }
  int64_t P() const { return p_.out_pixels(); }
  int64_t R() const { return p_.Cg * p_.taps(); }  // rows of the im2col matrix
  const T *x_of(const ConvArrays<T> &a, int64_t n, int64_t g) const { return a.x + (n * p_.C + g * p_.Cg) * I(); }
  T *dx_of(const ConvArrays<T> &a, int64_t n, int64_t g) const { return a.x + (n * p_.C + g * p_.Cg) * I(); }
  T *y_of(const ConvArrays<T> &a, int64_t n, int64_t g) const { return a.y + (n * p_.K + g * p_.Kg) * P(); }
  T *w_of(const ConvArrays<T> &a, int64_t g) const { return a.w + g * p_.Kg * R(); }

  void forward_gemm(const ExecContext &ctx, const ConvArrays<T> &a, T alpha, T beta, T *col) const {
    const bool direct = is_pointwise_conv(p_);
    for (int64_t n = 0; n < p_.N; ++n)
      for (int64_t g = 0; g < p_.G; ++g) {
        const T *B = x_of(a, n, g);
        if (!direct) {
          im2col_full(ctx.pool, p_, B, col);
          B = col;
        }
        parallel_gemm(ctx.pool, false, false, p_.Kg, P(), R(), alpha, w_of(a, g), R(), B, P(), beta, y_of(a, n, g), P());
      }
  }

  void forward_tiled(const ExecContext &ctx, const ConvArrays<T> &a, T alpha, T beta, void *ws) const {
    const bool precomp = kind() == Kind::fwd_precomp;
    const int64_t taps = p_.taps(), Pn = P(), rows = R();
    int32_t *table = precomp ? static_cast<int32_t *>(ws) : nullptr;
    T *tiles = reinterpret_cast<T *>(static_cast<char *>(ws) + (precomp ? table_bytes_ : 0));
    if (precomp) {
      // Offset of the input pixel under (tap, output pixel) within a channel
      // plane, or -1 in the padding.
      for_chunks(ctx.pool, taps, pool_threads(ctx), [&](int64_t, int64_t b, int64_t e) {
        for (int64_t t = b; t < e; ++t) {
          const int64_t kw = t % p_.fw, kh = (t / p_.fw) % p_.fh, kd = t / (p_.fw * p_.fh);
          for (int64_t pix = 0; pix < Pn; ++pix) {
            const int64_t ow = pix % p_.ow, oh = (pix / p_.ow) % p_.oh, od = pix / (p_.ow * p_.oh);
            const int64_t id = in_coord(od, kd, p_.sd, p_.pd, p_.dd), ih = in_coord(oh, kh, p_.sh, p_.ph, p_.dh),
                          iw = in_coord(ow, kw, p_.sw, p_.pw, p_.dw);
            const bool in = id >= 0 && id < p_.id && ih >= 0 && ih < p_.ih && iw >= 0 && iw < p_.iw;
            table[t * Pn + pix] = in ? static_cast<int32_t>((id * p_.ih + ih) * p_.iw + iw) : -1;
          }
        }
      });
    }
    const int64_t tiles_per_image = (Pn + tile_ - 1) / tile_;
    const int64_t items = p_.N * p_.G * tiles_per_image;
    const auto do_item = [&](int64_t item, T *buf, ThreadPool *gemm_pool) {
      const int64_t tile = item % tiles_per_image, ng = item / tiles_per_image;
      const int64_t g = ng % p_.G, n = ng / p_.G;
      const int64_t p0 = tile * tile_, len = std::min(tile_, Pn - p0);
      const T *x = x_of(a, n, g);
      if (precomp) {
        for (int64_t c = 0; c < p_.Cg; ++c) {
          const T *xc = x + c * I();
          for (int64_t t = 0; t < taps; ++t) {
            const int32_t *idx = table + t * Pn + p0;
            T *row = buf + (c * taps + t) * len;
            for (int64_t j = 0; j < len; ++j) row[j] = idx[j] >= 0 ? xc[idx[j]] : T(0);
          }
        }
      } else {
        im2col_tile(p_, x, p0, len, buf, len);
      }
      T *y = y_of(a, n, g) + p0;
      if (gemm_pool != nullptr) parallel_gemm(gemm_pool, false, false, p_.Kg, len, rows, alpha, w_of(a, g), rows, buf, len, beta, y, Pn);
      else gemm(false, false, p_.Kg, len, rows, alpha, w_of(a, g), rows, buf, len, beta, y, Pn);
    };
    if (items < pool_threads(ctx)) {
      for (int64_t i = 0; i < items; ++i) do_item(i, tiles, ctx.pool);
      return;
    }
    for_chunks(ctx.pool, items, chunks_, [&](int64_t ch, int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) do_item(i, tiles + ch * rows * tile_, nullptr);
    });
  }

  void backward_data_gemm(const ExecContext &ctx, const ConvArrays<T> &a, T alpha, T beta, T *col) const {
    const bool direct = is_pointwise_conv(p_);
    for (int64_t n = 0; n < p_.N; ++n)
      for (int64_t g = 0; g < p_.G; ++g) {
        if (direct) {
          parallel_gemm(ctx.pool, true, false, R(), P(), p_.Kg, alpha, w_of(a, g), R(), y_of(a, n, g), P(), beta,
                        dx_of(a, n, g), P());
          continue;
        }
        parallel_gemm(ctx.pool, true, false, R(), P(), p_.Kg, T(1), w_of(a, g), R(), y_of(a, n, g), P(), T(0), col, P());
        col2im_full(ctx.pool, p_, col, dx_of(a, n, g), alpha, beta);
      }
  }

  void backward_filter_gemm(const ExecContext &ctx, const ConvArrays<T> &a, T alpha, T beta, T *col) const {
    const bool direct = is_pointwise_conv(p_);
    for (int64_t n = 0; n < p_.N; ++n)
      for (int64_t g = 0; g < p_.G; ++g) {
        const T *B = x_of(a, n, g);
        if (!direct) {
          im2col_full(ctx.pool, p_, B, col);
          B = col;
        }
        parallel_gemm(ctx.pool, false, true, p_.Kg, R(), P(), alpha, y_of(a, n, g), P(), B, P(), n == 0 ? beta : T(1),
                      w_of(a, g), R());
      }
  }

  void backward_filter_tiled(const ExecContext &ctx, const ConvArrays<T> &a, T alpha, T beta, T *ws) const {
    const int64_t Pn = P(), rows = R(), wsize = p_.K * rows;
    const int64_t tiles_per_image = (Pn + tile_ - 1) / tile_;
    const int64_t items = p_.N * tiles_per_image;
    const int64_t chunks = std::min<int64_t>(chunks_, items);
    T *partials = ws;
    T *tiles = ws + chunks_ * wsize;
    for_chunks(ctx.pool, items, chunks, [&](int64_t ch, int64_t b, int64_t e) {
      T *part = partials + ch * wsize;
      T *buf = tiles + ch * rows * tile_;
      std::fill(part, part + wsize, T(0));
      for (int64_t item = b; item < e; ++item) {
        const int64_t tile = item % tiles_per_image, n = item / tiles_per_image;
        const int64_t p0 = tile * tile_, len = std::min(tile_, Pn - p0);
        for (int64_t g = 0; g < p_.G; ++g) {
          im2col_tile(p_, x_of(a, n, g), p0, len, buf, len);
          gemm(false, true, p_.Kg, rows, len, T(1), y_of(a, n, g) + p0, Pn, buf, len, T(1), part + g * p_.Kg * rows, rows);
        }
      }
    });
    // dw = alpha * (sum of the partials, in chunk order) + beta * dw.
    const int64_t used = (items + ((items + chunks - 1) / chunks) - 1) / ((items + chunks - 1) / chunks);
    for_chunks(ctx.pool, wsize, pool_threads(ctx), [&](int64_t, int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        T s = 0;
        for (int64_t ch = 0; ch < used; ++ch) s += partials[ch * wsize + i];
        a.w[i] = beta == T(0) ? alpha * s : alpha * s + beta * a.w[i];
      }
    });
  }

  int algo_;
  int64_t chunks_ = 1, tile_ = 1;
  size_t table_bytes_ = 0;
};

class GemmConvolutionEngine final : public Engine {
 public:
  const char *name() const override { return "cpu.conv.gemm"; }
  DeviceKind device() const override { return DeviceKind::cpu; }
  int priority() const override { return 20; }
  Support supports(const graph::Graph &g) const override {
    if (Support s = check_single_convolution(g); !s) return s;
    const ConvGeometry geo = convolution_geometry(g);
    if (!convolution_is_floating(geo)) return Support::no("integer data: reference engine only");
    const int algo = effective_algo(g);
    if (!claims(geo.direction, algo)) return Support::no("algorithm not implemented by this engine");
    if (geo.out_pixels() * geo.filter_taps() > (int64_t{1} << 31)) return Support::no("too large for 32-bit offsets");
    return cpu_convolution_algo_applies(geo, algo);
  }
  std::unique_ptr<ExecutionPlan> make_plan(const graph::Graph &g, const std::vector<KnobChoice> &) const override {
    const int algo = effective_algo(g);
    const ConvGeometry geo = convolution_geometry(g);
    if (geo.x.dtype == CUDNN_DATA_DOUBLE) return std::make_unique<GemmPlan<double>>(*this, g, algo);
    return std::make_unique<GemmPlan<float>>(*this, g, algo);
  }

 private:
  // "Any algorithm" runs as the tiled precomputed GEMM (forward), ALGO_1.
  static int effective_algo(const graph::Graph &g) {
    const auto &op = std::get<graph::ConvolutionOp>(g.ops().front());
    if (op.algo != -1) return op.algo;
    switch (op.direction) {
      case Dir::forward: return CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM;
      case Dir::backward_data: return CUDNN_CONVOLUTION_BWD_DATA_ALGO_1;
      case Dir::backward_filter: return CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1;
    }
    return -1;
  }
  static bool claims(Dir d, int algo) {
    switch (d) {
      case Dir::forward:
        return algo == CUDNN_CONVOLUTION_FWD_ALGO_GEMM || algo == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM ||
               algo == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
      case Dir::backward_data: return algo == CUDNN_CONVOLUTION_BWD_DATA_ALGO_1;
      case Dir::backward_filter:
        return algo == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1 || algo == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_3;
    }
    return false;
  }
};

}  // namespace
}  // namespace fdnn::cpu

using fdnn::cpu::GemmConvolutionEngine;
FDNN_REGISTER_ENGINE(GemmConvolutionEngine)
