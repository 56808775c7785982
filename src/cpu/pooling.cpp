// cpu.pooling: the fast CPU engine for pooling-style ResampleOps (2 or 3
// spatial dimensions, any strides). 2-d problems run as 3-d ones with a
// depth of 1.
//  - Forward works on output rows (n, channel block, od, oh). When channels
//    are innermost in x and y (NHWC, NDHWC) each output position folds its
//    window as vectors over a block of channels (float: accumulators in
//    registers, AVX-512 pooling_nhwc_forward.hpp or AVX2
//    forward_vector_lanes; a large y written with beta = 0 takes
//    non-temporal stores). When columns are contiguous in x
//    (NCHW) the window's rows are folded into one padded line, then the
//    line's window columns (stride 2: split into even and odd positions), so
//    that every loop is contiguous (forward_line; float max 2x2/2 and 3x3/2
//    in AVX-512 registers instead, pooling_max_rows.hpp). Other strides: each
//    channel's row of outputs is folded one window column at a time.
//  - Backward scatters dy of a (n, channel block) into a float (double)
//    gradient plane through the same windows (max: to the first maximum of
//    x, found again), then blends it into dx. Average backward with columns
//    contiguous in dx gathers instead, one dx row at a time
//    (backward_line_avg); so does float max backward of 2-d NHWC data
//    with channels in 16s on AVX-512 (pooling_max_backward_rows.hpp: each
//    window's first maximum as a cell number, dx written once).
// Work is spread over the thread pool; types are template parameters, so no
// hot loop switches on a type.
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/engine.hpp"
#include "core/env_words.hpp"
#include "core/error.hpp"
#include "core/resample_support.hpp"
#include "core/thread_pool.hpp"
#include "cpu/aligned_vector.hpp"
#include "cpu/cpu_features.hpp"
#include "cpu/dtype_io.hpp"
#include "cpu/pooling_avg_backward_rows.hpp"
#include "cpu/pooling_max_backward_rows.hpp"
#include "cpu/pooling_max_rows.hpp"
#include "cpu/pooling_nhwc_forward.hpp"
#include "cpu/resample_geometry.hpp"

namespace fdnn::cpu {
namespace {

constexpr int kMaxBlock = 64;  // channels per block when channels are innermost

// The problem normalised to N, C, D, H, W.
struct Geometry : ResampleGeometry, PoolWindow {
  int64_t xs[5] = {};  // strides of x (backward max)
  bool channels_inner = false;
};

Geometry make_geometry(const ResampleOperands &r) {
  Geometry G;
  static_cast<ResampleGeometry &>(G) = resample_geometry(r, 1);
  static_cast<PoolWindow &>(G) = pool_window(*r.op);
  if (r.x) padded_strides(*r.x, r.op->spatial_dims(), G.xs);
  G.channels_inner = G.c > 1 && G.is[1] == 1 && G.os[1] == 1 && (!r.x || G.xs[1] == 1);
  return G;
}

// The window of output position o along dimension k: valid range [lo, hi).
inline void window_range(const Geometry &G, int k, int64_t o, int64_t &start, int64_t &lo, int64_t &hi) {
  start = o * G.str[k] - G.pad[k];
  lo = std::max<int64_t>(start, 0);
  hi = std::min<int64_t>(start + G.win[k], G.in[k]);
}

template <class C>
struct Divisors {
  // Per dimension and output position: 1 / count (average modes).
  std::vector<C> inv[3];
  Divisors(const graph::ResampleOp &op, const Geometry &G) {
    const int s = op.spatial_dims();
    for (int k = 0; k < 3; ++k) {
      inv[k].resize(static_cast<size_t>(G.out[k]));
      for (int64_t o = 0; o < G.out[k]; ++o) {
        int64_t count = 1;
        if (k >= 3 - s) {
          const int d = k - (3 - s);
          count = average_count(op, d, window_start(op, d, o), G.in[k]);
        }
        // A count of 0: 0/0 (NaN) when excluding padding, 0 otherwise; a
        // negative one (a window past the end) makes the empty sum -0 (cuDNN).
        const C empty = op.mode == CUDNN_RESAMPLE_AVGPOOL_EXCLUDE_PADDING ? std::numeric_limits<C>::quiet_NaN() : C(0);
        inv[k][static_cast<size_t>(o)] = count != 0 ? C(1) / static_cast<C>(count) : empty;
      }
    }
  }
  C at(int64_t od, int64_t oh, int64_t ow) const {
    return inv[0][static_cast<size_t>(od)] * inv[1][static_cast<size_t>(oh)] * inv[2][static_cast<size_t>(ow)];
  }
};

template <class S, class C>
struct Kernels : ComputeIo<S, C> {
  using T = typename S::type;
  using ComputeIo<S, C>::load;
  static T store(C v) { return ComputeIo<S, C>::from(v); }

  const graph::ResampleOp &op;
  const Geometry &G;
  bool is_max, prop;
  C alpha, beta;
  Divisors<C> div;

  Kernels(const graph::ResampleOp &o, const Geometry &g)
      : op(o), G(g), is_max(o.is_max()), prop(o.nan_propagation == CUDNN_PROPAGATE_NAN),
        alpha(static_cast<C>(o.blend.alpha)), beta(static_cast<C>(o.blend.beta)), div(o, g) {}

  // The start of a forward max window: the compute type's lowest finite
  // value, or for HALF data half's, -65504 (NVIDIA cuDNN 9.19's HALF result
  // for a window without input positions, where -FLT_MAX would round to
  // -inf). Backward argmax searches keep the compute type's lowest.
  static C max_start() {
    if constexpr (std::is_same_v<S, Storage<CUDNN_DATA_HALF>>) return C(-65504);
    else return std::numeric_limits<C>::lowest();
  }

  static C fold_max(C acc, C v, bool prop) {
    if (prop) return (v > acc || v != v) && acc == acc ? v : acc;
    return v > acc ? v : acc;
  }

  C finish(C acc, int64_t od, int64_t oh, int64_t ow) const { return is_max ? acc : acc * div.at(od, oh, ow); }

  void put(T *p, C v) const {
    C r = alpha * v;
    if (beta != C(0)) r += beta * load(p);
    *p = store(r);
  }

  // Float vectors of 8 lanes (one AVX2 register) for the float paths below;
  // 16 channels take two (plain loops of 16 get unrolled into scalar code).
  static constexpr int kLanes = 16;
  typedef float V8 __attribute__((vector_size(32)));
  static V8 load8(const float *p) {
    V8 v;
    std::memcpy(&v, p, sizeof v);
    return v;
  }
  static void store8(float *p, V8 v) { std::memcpy(p, &v, sizeof v); }

  // ---- forward -----------------------------------------------------------
  // Channels innermost: one output position, a block of cb channels.
  void forward_vector(const T *x, T *y, int64_t n, int64_t c0, int64_t cb, int64_t od, int64_t oh) const {
    const C init = is_max ? max_start() : C(0);
    alignas(64) C acc[kMaxBlock];
    int64_t sd, d0, d1, sh, h0, h1;
    window_range(G, 0, od, sd, d0, d1);
    window_range(G, 1, oh, sh, h0, h1);
    for (int64_t ow = 0; ow < G.out[2]; ++ow) {
      int64_t sw, w0, w1;
      window_range(G, 2, ow, sw, w0, w1);
      for (int64_t c = 0; c < cb; ++c) acc[c] = init;
      for (int64_t id = d0; id < d1; ++id)
        for (int64_t ih = h0; ih < h1; ++ih)
          for (int64_t iw = w0; iw < w1; ++iw) {
            const T *p = x + n * G.is[0] + c0 + id * G.is[2] + ih * G.is[3] + iw * G.is[4];
            if (is_max) {
              if (prop)
                for (int64_t c = 0; c < cb; ++c) acc[c] = fold_max(acc[c], load(p + c), true);
              else
                for (int64_t c = 0; c < cb; ++c) {
                  const C v = load(p + c);
                  acc[c] = v > acc[c] ? v : acc[c];
                }
            } else {
              for (int64_t c = 0; c < cb; ++c) acc[c] += load(p + c);
            }
          }
      T *q = y + n * G.os[0] + c0 + od * G.os[2] + oh * G.os[3] + ow * G.os[4];
      const C scale = is_max ? C(1) : div.at(od, oh, ow);
      for (int64_t c = 0; c < cb; ++c) put(q + c, acc[c] * scale);
    }
  }

  // Columns contiguous in x (NCHW and the like): a row of outputs of one
  // channel in two steps, each over contiguous elements. First the window's
  // input rows are folded into one line of the padded input width
  // (`line[pad + iw]`, the padding holding the fold's initial value). Then
  // each output folds its window columns of the line: with stride 1 at
  // line[ow + kw]; with stride 2 the line is split into its even and odd
  // positions first, so that column kw of output ow, line[2 ow + kw], is
  // (kw even ? even : odd)[ow + kw / 2] and every fold is again a
  // contiguous vector loop (other strides: a strided loop). Fold is a
  // functor (max, max propagating NaN, sum), so no loop tests the mode.
  struct FoldMax {
    C operator()(C acc, C v) const { return v > acc ? v : acc; }
  };
  struct FoldMaxNan {
    C operator()(C acc, C v) const { return (v > acc || v != v) && acc == acc ? v : acc; }
  };
  struct FoldSum {
    C operator()(C acc, C v) const { return acc + v; }
  };

  // Scratch elements forward_line needs.
  int64_t line_length() const {
    const int64_t lp = std::max((G.out[2] - 1) * G.str[2] + G.win[2], G.pad[2] + G.in[2]);
    return lp + (lp & 1);  // even: the stride-2 split reads pairs
  }
  int64_t line_scratch() const { return 2 * line_length() + G.out[2] + 2; }

  template <class F>
  void forward_line(const T *x, T *y, int64_t n, int64_t c, int64_t od, int64_t oh, C *scratch, F fold) const {
    const C init = is_max ? max_start() : C(0);
    const int64_t W = G.in[2], OW = G.out[2], pad = G.pad[2], win = G.win[2], strw = G.str[2];
    const int64_t lp = line_length();
    C *line = scratch, *even = scratch + lp, *odd = even + lp / 2, *acc = odd + lp / 2;
    for (int64_t j = 0; j < pad; ++j) line[j] = init;
    for (int64_t j = pad + W; j < lp; ++j) line[j] = init;
    C *mid = line + pad;
    int64_t sd, d0, d1, sh, h0, h1;
    window_range(G, 0, od, sd, d0, d1);
    window_range(G, 1, oh, sh, h0, h1);
    bool first = true;
    for (int64_t id = d0; id < d1; ++id)
      for (int64_t ih = h0; ih < h1; ++ih) {
        const T *row = x + n * G.is[0] + c * G.is[1] + id * G.is[2] + ih * G.is[3];
        if (first)  // folded into init, not copied: a NaN that max skips must not become the start
          for (int64_t iw = 0; iw < W; ++iw) mid[iw] = fold(init, load(row + iw));
        else
          for (int64_t iw = 0; iw < W; ++iw) mid[iw] = fold(mid[iw], load(row + iw));
        first = false;
      }
    if (first)
      for (int64_t iw = 0; iw < W; ++iw) mid[iw] = init;
    prefetch_rows_ahead(x, n, c, d0, d1, oh);
    if (strw == 2) {
      for (int64_t k = 0; k < lp / 2; ++k) {
        even[k] = line[2 * k];
        odd[k] = line[2 * k + 1];
      }
      for (int64_t ow = 0; ow < OW; ++ow) acc[ow] = fold(init, even[ow]);
      for (int64_t kw = 1; kw < win; ++kw) {
        const C *src = (kw & 1 ? odd : even) + kw / 2;
        for (int64_t ow = 0; ow < OW; ++ow) acc[ow] = fold(acc[ow], src[ow]);
      }
    } else {
      for (int64_t ow = 0; ow < OW; ++ow) acc[ow] = fold(init, line[ow * strw]);
      for (int64_t kw = 1; kw < win; ++kw) {
        const C *src = line + kw;
        if (strw == 1)
          for (int64_t ow = 0; ow < OW; ++ow) acc[ow] = fold(acc[ow], src[ow]);
        else
          for (int64_t ow = 0; ow < OW; ++ow) acc[ow] = fold(acc[ow], src[ow * strw]);
      }
    }
    if (!is_max) {
      const C inv_dh = div.inv[0][static_cast<size_t>(od)] * div.inv[1][static_cast<size_t>(oh)];
      const C *inv_w = div.inv[2].data();
      for (int64_t ow = 0; ow < OW; ++ow) acc[ow] *= inv_dh * inv_w[ow];
    }
    T *q = y + n * G.os[0] + c * G.os[1] + od * G.os[2] + oh * G.os[3];
    const int64_t sq = G.os[4];
    const C a = alpha, b = beta;
    if (b == C(0)) {
      if (sq == 1)
        for (int64_t ow = 0; ow < OW; ++ow) q[ow] = store(a * acc[ow]);
      else
        for (int64_t ow = 0; ow < OW; ++ow) q[ow * sq] = store(a * acc[ow]);
    } else {
      for (int64_t ow = 0; ow < OW; ++ow) q[ow * sq] = store(a * acc[ow] + b * load(q + ow * sq));
    }
  }

  // The input rows that the output row `ahead` rows after oh brings
  // into its window for the first time (the next channel's plane after the
  // last row of a 2-d plane): each output row reads only a few short rows,
  // which the hardware prefetchers follow too late at this stride.
  void prefetch_rows_ahead(const T *x, int64_t n, int64_t c, int64_t d0, int64_t d1, int64_t oh) const {
    const int64_t row_bytes = G.in[2] * static_cast<int64_t>(sizeof(T)), step = std::max<int64_t>(G.str[1], 1);
    const int64_t ahead = std::clamp<int64_t>(4096 / std::max<int64_t>(row_bytes * step, 1), 1, 16);
    int64_t oh2 = oh + ahead, c2 = c;
    if (oh2 >= G.out[1]) {
      if (G.out[0] != 1 || c + 1 >= G.c) return;
      oh2 -= G.out[1];
      c2 = c + 1;
      if (oh2 >= G.out[1]) return;
    }
    const int64_t end = std::min(oh2 * G.str[1] - G.pad[1] + G.win[1], G.in[1]);
    const int64_t begin = std::max<int64_t>(end - step, 0);
    for (int64_t id = d0; id < d1; ++id)
      for (int64_t ih = begin; ih < end; ++ih) {
        const char *row = reinterpret_cast<const char *>(x + n * G.is[0] + c2 * G.is[1] + id * G.is[2] + ih * G.is[3]);
        for (int64_t b = 0; b < row_bytes; b += 64) _mm_prefetch(row + b, _MM_HINT_T0);
      }
  }

  // Float max without NaN propagation, window width 2 or 3 at column
  // stride 2, y columns contiguous, an AVX-512 CPU: pool_rows::max_row_stride2.
  bool max_rows_fit() const {
    if constexpr (std::is_same_v<T, float> && std::is_same_v<C, float>) {
      return is_max && !prop && G.str[2] == 2 && (G.win[2] == 2 || G.win[2] == 3) && G.os[4] == 1 &&
             G.win[0] * G.win[1] <= kMaxRows && avx512_usable();
    }
    return false;
  }
  static constexpr int64_t kMaxRows = 64;

  void forward_max_rows(const T *x, T *y, int64_t n, int64_t c, int64_t od, int64_t oh) const {
    if constexpr (std::is_same_v<T, float> && std::is_same_v<C, float>) {
      const float *rows[kMaxRows];
      int nrows = 0;
      int64_t sd, d0, d1, sh, h0, h1;
      window_range(G, 0, od, sd, d0, d1);
      window_range(G, 1, oh, sh, h0, h1);
      for (int64_t id = d0; id < d1; ++id)
        for (int64_t ih = h0; ih < h1; ++ih) rows[nrows++] = x + n * G.is[0] + c * G.is[1] + id * G.is[2] + ih * G.is[3];
      prefetch_rows_ahead(x, n, c, d0, d1, oh);
      float *q = y + n * G.os[0] + c * G.os[1] + od * G.os[2] + oh * G.os[3];
      pool_rows::max_row_stride2(rows, nrows, G.in[2], G.pad[2], static_cast<int>(G.win[2]), q, G.out[2], alpha, beta);
    }
  }

  void forward_line_any(const T *x, T *y, int64_t n, int64_t c, int64_t od, int64_t oh, C *scratch) const {
    if (!is_max) forward_line(x, y, n, c, od, oh, scratch, FoldSum{});
    else if (prop) forward_line(x, y, n, c, od, oh, scratch, FoldMaxNan{});
    else forward_line(x, y, n, c, od, oh, scratch, FoldMax{});
  }

  // Float data, channels innermost in x and y, a block of a multiple of 16
  // channels: forward_vector with each 16 channels' accumulators in two
  // AVX2 registers for the whole window (V8 below), instead of an array in
  // memory that every window position loads and stores again.
  template <class F>
  void forward_vector_lanes(const float *x, float *y, int64_t n, int64_t c0, int64_t cb, int64_t od, int64_t oh,
                            F fold) const {
    const V8 zero = {}, init = zero + (is_max ? std::numeric_limits<float>::lowest() : 0.0f);
    const V8 b = zero + beta;
    const bool blend = beta != C(0);
    int64_t sd, d0, d1, sh, h0, h1;
    window_range(G, 0, od, sd, d0, d1);
    window_range(G, 1, oh, sh, h0, h1);
    const float inv_dh = is_max ? 1.0f : div.inv[0][static_cast<size_t>(od)] * div.inv[1][static_cast<size_t>(oh)];
    const float *xb = x + n * G.is[0] + c0;
    for (int64_t ow = 0; ow < G.out[2]; ++ow) {
      int64_t sw, w0, w1;
      window_range(G, 2, ow, sw, w0, w1);
      const V8 scale = zero + (is_max ? 1.0f : inv_dh * div.inv[2][static_cast<size_t>(ow)]) * alpha;
      float *q = y + n * G.os[0] + c0 + od * G.os[2] + oh * G.os[3] + ow * G.os[4];
      for (int64_t s16 = 0; s16 < cb; s16 += kLanes) {
        V8 acc0 = init, acc1 = init;
        for (int64_t id = d0; id < d1; ++id)
          for (int64_t ih = h0; ih < h1; ++ih) {
            const float *p = xb + s16 + id * G.is[2] + ih * G.is[3] + w0 * G.is[4];
            for (int64_t iw = w0; iw < w1; ++iw, p += G.is[4]) {
              acc0 = fold(acc0, load8(p));
              acc1 = fold(acc1, load8(p + 8));
            }
          }
        V8 r0 = acc0 * scale, r1 = acc1 * scale;
        if (blend) {
          r0 += b * load8(q + s16);
          r1 += b * load8(q + s16 + 8);
        } else if (stream_y && (reinterpret_cast<uintptr_t>(q + s16) & 31) == 0) {
          _mm256_stream_ps(q + s16, (__m256)r0);
          _mm256_stream_ps(q + s16 + 8, (__m256)r1);
          continue;
        }
        store8(q + s16, r0);
        store8(q + s16 + 8, r1);
      }
    }
  }
  struct FoldMax8 {
    V8 operator()(V8 acc, V8 v) const { return v > acc ? v : acc; }
  };
  struct FoldMaxNan8 {
    V8 operator()(V8 acc, V8 v) const { return ((v > acc) | (v != v)) & (acc == acc) ? v : acc; }
  };
  struct FoldSum8 {
    V8 operator()(V8 acc, V8 v) const { return acc + v; }
  };
  // Float, channels innermost, an AVX-512 CPU: pool_rows::nhwc_forward_row
  // (the input columns of each output made once, columns_for_rows).
  std::vector<int64_t> col_lo, col_hi;
  bool nhwc_rows = false;
  void columns_for_rows() {
    if constexpr (std::is_same_v<T, float> && std::is_same_v<C, float>) {
      nhwc_rows = G.channels_inner && avx512_usable();
      if (!nhwc_rows) return;
      col_lo.resize(static_cast<size_t>(G.out[2]));
      col_hi.resize(static_cast<size_t>(G.out[2]));
      for (int64_t ow = 0; ow < G.out[2]; ++ow) {
        int64_t sw;
        window_range(G, 2, ow, sw, col_lo[static_cast<size_t>(ow)], col_hi[static_cast<size_t>(ow)]);
      }
    }
  }
  template <pool_rows::FwdFold F>
  void forward_nhwc_rows(const float *x, float *y, int64_t n, int64_t c0, int64_t cb, int64_t od, int64_t oh) const {
    int64_t sd, d0, d1, sh, h0, h1;
    window_range(G, 0, od, sd, d0, d1);
    window_range(G, 1, oh, sh, h0, h1);
    const float sdh = is_max ? 1.0f : div.inv[0][static_cast<size_t>(od)] * div.inv[1][static_cast<size_t>(oh)];
    const float *inv_w = is_max ? nullptr : div.inv[2].data();
    const float *xb = x + n * G.is[0] + c0;
    float *q = y + n * G.os[0] + c0 + od * G.os[2] + oh * G.os[3];
    const float a = alpha, b = beta;
    if (b != 0.0f)
      pool_rows::nhwc_forward_row<F, pool_rows::FwdOut::blend>(xb, G.is[2], G.is[3], G.is[4], d0, d1, h0, h1,
                                                               col_lo.data(), col_hi.data(), sdh, inv_w, a, q,
                                                               G.os[4], G.out[2], cb, b);
    else if (stream_y)
      pool_rows::nhwc_forward_row<F, pool_rows::FwdOut::stream>(xb, G.is[2], G.is[3], G.is[4], d0, d1, h0, h1,
                                                                col_lo.data(), col_hi.data(), sdh, inv_w, a, q,
                                                                G.os[4], G.out[2], cb, b);
    else
      pool_rows::nhwc_forward_row<F, pool_rows::FwdOut::store>(xb, G.is[2], G.is[3], G.is[4], d0, d1, h0, h1,
                                                               col_lo.data(), col_hi.data(), sdh, inv_w, a, q,
                                                               G.os[4], G.out[2], cb, b);
  }

  // Channels innermost: forward_nhwc_rows or forward_vector_lanes where
  // they apply.
  void forward_channels(const T *x, T *y, int64_t n, int64_t c0, int64_t cb, int64_t od, int64_t oh) const {
    if constexpr (std::is_same_v<T, float> && std::is_same_v<C, float>) {
      if (nhwc_rows && cb % kLanes == 0) {
        if (!is_max) forward_nhwc_rows<pool_rows::FwdFold::sum>(x, y, n, c0, cb, od, oh);
        else if (prop) forward_nhwc_rows<pool_rows::FwdFold::max_nan>(x, y, n, c0, cb, od, oh);
        else forward_nhwc_rows<pool_rows::FwdFold::max>(x, y, n, c0, cb, od, oh);
        return;
      }
      if (cb % kLanes == 0) {
        if (!is_max) forward_vector_lanes(x, y, n, c0, cb, od, oh, FoldSum8{});
        else if (prop) forward_vector_lanes(x, y, n, c0, cb, od, oh, FoldMaxNan8{});
        else forward_vector_lanes(x, y, n, c0, cb, od, oh, FoldMax8{});
        return;
      }
    }
    forward_vector(x, y, n, c0, cb, od, oh);
  }

  // Any strides: a row of outputs of one channel, folded per window column.
  void forward_row(const T *x, T *y, int64_t n, int64_t c, int64_t od, int64_t oh, C *acc) const {
    const C init = is_max ? max_start() : C(0);
    const int64_t OW = G.out[2];
    for (int64_t ow = 0; ow < OW; ++ow) acc[ow] = init;
    int64_t sd, d0, d1, sh, h0, h1;
    window_range(G, 0, od, sd, d0, d1);
    window_range(G, 1, oh, sh, h0, h1);
    const int64_t sxw = G.is[4], strw = G.str[2];
    for (int64_t id = d0; id < d1; ++id)
      for (int64_t ih = h0; ih < h1; ++ih) {
        const T *row = x + n * G.is[0] + c * G.is[1] + id * G.is[2] + ih * G.is[3];
        for (int64_t kw = 0; kw < G.win[2]; ++kw) {
          // Outputs whose column kw is inside the input: 0 <= ow*str - pad + kw < W.
          const int64_t off = kw - G.pad[2];
          int64_t lo = off >= 0 ? 0 : (-off + strw - 1) / strw;
          int64_t hi = G.in[2] - 1 - off < 0 ? 0 : (G.in[2] - 1 - off) / strw + 1;
          hi = std::min(hi, OW);
          if (is_max) {
            if (prop)
              for (int64_t ow = lo; ow < hi; ++ow) acc[ow] = fold_max(acc[ow], load(row + (ow * strw + off) * sxw), true);
            else
              for (int64_t ow = lo; ow < hi; ++ow) {
                const C v = load(row + (ow * strw + off) * sxw);
                acc[ow] = v > acc[ow] ? v : acc[ow];
              }
          } else {
            for (int64_t ow = lo; ow < hi; ++ow) acc[ow] += load(row + (ow * strw + off) * sxw);
          }
        }
      }
    T *q = y + n * G.os[0] + c * G.os[1] + od * G.os[2] + oh * G.os[3];
    for (int64_t ow = 0; ow < OW; ++ow) put(q + ow * G.os[4], finish(acc[ow], od, oh, ow));
  }

  // ---- backward ----------------------------------------------------------
  // One channel of one image when channels are not innermost: each output
  // row is handled a window column at a time, vectorised over the output
  // width (max: the running maximum and its position per output), then the
  // row's dy is scattered into the gradient plane.
  void backward_plane(const T *x, const T *dy, T *dx, int64_t n, int64_t c, std::vector<C> &grad,
                      std::vector<C> &best, std::vector<int64_t> &at, std::vector<C> &gs) const {
    const int64_t D = G.in[0], H = G.in[1], W = G.in[2], OW = G.out[2], strw = G.str[2];
    grad.assign(static_cast<size_t>(D * H * W), C(0));
    best.resize(static_cast<size_t>(OW));
    at.resize(static_cast<size_t>(OW));
    gs.resize(static_cast<size_t>(OW));
    for (int64_t od = 0; od < G.out[0]; ++od) {
      int64_t sd, d0, d1;
      window_range(G, 0, od, sd, d0, d1);
      for (int64_t oh = 0; oh < G.out[1]; ++oh) {
        int64_t sh, h0, h1;
        window_range(G, 1, oh, sh, h0, h1);
        if (d0 >= d1 || h0 >= h1) continue;
        const T *g = dy + n * G.os[0] + c * G.os[1] + od * G.os[2] + oh * G.os[3];
        for (int64_t ow = 0; ow < OW; ++ow) gs[ow] = load(g + ow * G.os[4]);
        if (is_max) {
          for (int64_t ow = 0; ow < OW; ++ow) {
            best[ow] = std::numeric_limits<C>::lowest();
            at[ow] = -1;
          }
        } else {
          for (int64_t ow = 0; ow < OW; ++ow) gs[ow] *= div.at(od, oh, ow);
        }
        for (int64_t id = d0; id < d1; ++id)
          for (int64_t ih = h0; ih < h1; ++ih) {
            const T *row = x ? x + n * G.xs[0] + c * G.xs[1] + id * G.xs[2] + ih * G.xs[3] : nullptr;
            C *grow = grad.data() + (id * H + ih) * W;
            const int64_t base = (id * H + ih) * W;
            for (int64_t kw = 0; kw < G.win[2]; ++kw) {
              const int64_t off = kw - G.pad[2];
              const int64_t lo = off >= 0 ? 0 : (-off + strw - 1) / strw;
              const int64_t hi = std::min(OW, W - 1 - off < 0 ? int64_t{0} : (W - 1 - off) / strw + 1);
              if (is_max) {
                const int64_t sx = G.xs[4];
                for (int64_t ow = lo; ow < hi; ++ow) {
                  const C v = load(row + (ow * strw + off) * sx);
                  const bool take = prop ? (best[ow] == best[ow] && (v != v || v > best[ow])) : v > best[ow];
                  best[ow] = take ? v : best[ow];
                  at[ow] = take ? base + ow * strw + off : at[ow];
                }
              } else {
                for (int64_t ow = lo; ow < hi; ++ow) grow[ow * strw + off] += gs[ow];
              }
            }
          }
        if (is_max)
          for (int64_t ow = 0; ow < OW; ++ow)
            if (at[ow] >= 0) grad[static_cast<size_t>(at[ow])] += gs[ow];
      }
    }
    for (int64_t id = 0; id < D; ++id)
      for (int64_t ih = 0; ih < H; ++ih) {
        T *p = dx + n * G.is[0] + c * G.is[1] + id * G.is[2] + ih * G.is[3];
        const C *q = grad.data() + (id * H + ih) * W;
        for (int64_t iw = 0; iw < W; ++iw) put(p + iw * G.is[4], q[iw]);
      }
  }

  // Average backward with columns contiguous in dx (NCHW and the like), one
  // row of dx at a time, as a gather (no plane of partial sums): the dy rows
  // of the output rows whose windows hold this input row are summed, each
  // times its depth and height divisors, into a row t[ow] (times the width
  // divisor); then t is spread over the window columns of a padded line,
  // line[ow * stride + kw] += t[ow], split into even and odd positions for
  // stride 2 as in forward_line so that every loop is contiguous.
  // dx rows go out with ordinary stores: streaming them (rows of 448 bytes
  // between the gathers of dy) made two threads no faster than one on a
  // 2-vCPU Zen 5 (32x64x112x112 3x3/2: 20 ms against 10 ms with ordinary
  // stores, oneDNN 8-11 ms).
  int64_t grad_line_scratch() const { return 2 * line_length() + G.out[2] + 2; }
  // A float y far larger than the caches written with beta = 0: the
  // channels-innermost forward stores bypass the caches (the caller fences).
  bool stream_y = false;

  // Output positions [lo, hi) along dimension k whose windows hold input
  // position i.
  void outputs_over(int k, int64_t i, int64_t &lo, int64_t &hi) const {
    pool_rows::covering_outputs(i, G.win[k], G.str[k], G.pad[k], G.out[k], lo, hi);
  }

  // Float average backward with columns contiguous in dy and dx and a
  // column stride of 1 or 2, on an AVX-512 CPU: one dx row at a time by
  // pool_rows::avg_backward_row (see pooling_avg_backward_rows.hpp).
  // FREEDNN_CPU_POOL_AVG_ROWS=0 keeps backward_line_avg, =nostream keeps
  // ordinary stores for a large dx.
  static constexpr int64_t kAvgRowsMax = 64;  // dy rows over one dx row (depth x height windows)
  bool avg_backward_rows_fit() const {
    if constexpr (std::is_same_v<T, float> && std::is_same_v<C, float>) {
      const int64_t rows = (G.win[0] + G.str[0] - 1) / G.str[0] * ((G.win[1] + G.str[1] - 1) / G.str[1]);
      return !is_max && !G.channels_inner && G.is[4] == 1 && G.os[4] == 1 && (G.str[2] == 1 || G.str[2] == 2) &&
             rows <= kAvgRowsMax && avx512_usable() && !env_has_word("FREEDNN_CPU_POOL_AVG_ROWS", "0");
    }
    return false;
  }

  template <class Par>
  void avg_backward_rows(const Par &par, const T *dy, T *dx) const {
    if constexpr (std::is_same_v<T, float> && std::is_same_v<C, float>) {
      pool_rows::AvgBwdColumns cols;
      cols.W = G.in[2], cols.OW = G.out[2], cols.win = G.win[2], cols.stride = G.str[2], cols.pad = G.pad[2];
      // A dx far larger than the caches, written with beta = 0, bypasses
      // them (no read for ownership of lines that are written whole).
      constexpr int64_t kStreamBytes = int64_t{8} << 20;
      const bool stream = beta == 0.0f && streaming_stores_allowed() &&
                          !env_has_word("FREEDNN_CPU_POOL_AVG_ROWS", "nostream") &&
                          G.n * G.c * G.in[0] * G.in[1] * G.in[2] * static_cast<int64_t>(sizeof(float)) >= kStreamBytes;
      const auto row = beta != 0.0f ? &pool_rows::avg_backward_row<pool_rows::AvgOut::blend>
                       : stream     ? &pool_rows::avg_backward_row<pool_rows::AvgOut::stream>
                                    : &pool_rows::avg_backward_row<pool_rows::AvgOut::store>;
      // The dy rows over each input row and depth, worked out once: per row
      // the loop below then costs a few vector instructions besides its
      // data (decoding a flat row index took more time than the row).
      const auto ranges = [&](int k) {  // [lo, hi) of input position i at 2i, 2i + 1
        std::vector<int64_t> v(static_cast<size_t>(2 * G.in[k]));
        for (size_t i = 0; i < v.size() / 2; ++i)
          outputs_over(k, static_cast<int64_t>(i), v[2 * i], v[2 * i + 1]);
        return v;
      };
      const std::vector<int64_t> dr = ranges(0), hr = ranges(1);
      // Items: whole (image, channel, depth) planes of rows, or runs of a
      // plane's rows when there are few planes.
      const int64_t planes = G.n * G.c * G.in[0], H = G.in[1];
      const int64_t runs = std::min(H, std::max<int64_t>(1, (64 + planes - 1) / planes)), run = (H + runs - 1) / runs;
      par(planes * runs, [&](int64_t b, int64_t e) {
        LineVector<float> buf(static_cast<size_t>(pool_rows::avg_row_buffer(cols)), 0.0f);
        const float *g[kAvgRowsMax];
        float f[kAvgRowsMax];
        for (int64_t item = b; item < e; ++item) {
          const int64_t plane = item / runs, h0 = item % runs * run, h1 = std::min(H, h0 + run);
          const int64_t id = plane % G.in[0], nc = plane / G.in[0], n = nc / G.c, c = nc % G.c;
          const int64_t od0 = dr[static_cast<size_t>(2 * id)], od1 = dr[static_cast<size_t>(2 * id + 1)];
          const T *dyp = dy + n * G.os[0] + c * G.os[1];
          T *dxp = dx + n * G.is[0] + c * G.is[1] + id * G.is[2];
          for (int64_t ih = h0; ih < h1; ++ih) {
            const int64_t oh0 = hr[static_cast<size_t>(2 * ih)], oh1 = hr[static_cast<size_t>(2 * ih + 1)];
            int rows = 0;
            for (int64_t od = od0; od < od1; ++od)
              for (int64_t oh = oh0; oh < oh1; ++oh, ++rows) {
                g[rows] = dyp + od * G.os[2] + oh * G.os[3];
                f[rows] = div.inv[0][static_cast<size_t>(od)] * div.inv[1][static_cast<size_t>(oh)];
              }
            row(cols, g, f, rows, div.inv[2].data(), buf.data(), dxp + ih * G.is[3], alpha, beta);
          }
        }
        if (stream) _mm_sfence();  // the streaming stores are visible before the call returns
      });
    }
  }

  void backward_line_avg(const T *dy, T *dx, int64_t n, int64_t c, int64_t id, int64_t ih, C *scratch) const {
    const int64_t W = G.in[2], OW = G.out[2], pad = G.pad[2], win = G.win[2], strw = G.str[2];
    const int64_t lp = line_length();
    C *line = scratch, *even = scratch + lp, *odd = even + lp / 2, *t = odd + lp / 2;
    int64_t od0, od1, oh0, oh1;
    outputs_over(0, id, od0, od1);
    outputs_over(1, ih, oh0, oh1);
    for (int64_t ow = 0; ow < OW; ++ow) t[ow] = C(0);
    const int64_t sg = G.os[4];
    for (int64_t od = od0; od < od1; ++od)
      for (int64_t oh = oh0; oh < oh1; ++oh) {
        const T *g = dy + n * G.os[0] + c * G.os[1] + od * G.os[2] + oh * G.os[3];
        const C f = div.inv[0][static_cast<size_t>(od)] * div.inv[1][static_cast<size_t>(oh)];
        if (sg == 1)
          for (int64_t ow = 0; ow < OW; ++ow) t[ow] += load(g + ow) * f;
        else
          for (int64_t ow = 0; ow < OW; ++ow) t[ow] += load(g + ow * sg) * f;
      }
    const C *inv_w = div.inv[2].data();
    for (int64_t ow = 0; ow < OW; ++ow) t[ow] *= inv_w[ow];
    if (strw == 2) {
      for (int64_t k = 0; k < lp / 2; ++k) even[k] = odd[k] = C(0);
      for (int64_t kw = 0; kw < win; ++kw) {
        C *dst = (kw & 1 ? odd : even) + kw / 2;
        for (int64_t ow = 0; ow < OW; ++ow) dst[ow] += t[ow];
      }
      for (int64_t k = 0; k < lp / 2; ++k) {
        line[2 * k] = even[k];
        line[2 * k + 1] = odd[k];
      }
    } else {
      for (int64_t j = 0; j < lp; ++j) line[j] = C(0);
      for (int64_t kw = 0; kw < win; ++kw) {
        C *dst = line + kw;
        if (strw == 1)
          for (int64_t ow = 0; ow < OW; ++ow) dst[ow] += t[ow];
        else
          for (int64_t ow = 0; ow < OW; ++ow) dst[ow * strw] += t[ow];
      }
    }
    const C *src = line + pad;
    T *q = dx + n * G.is[0] + c * G.is[1] + id * G.is[2] + ih * G.is[3];
    const C a = alpha, b = beta;
    if (b == C(0))
      for (int64_t iw = 0; iw < W; ++iw) q[iw] = store(a * src[iw]);
    else
      for (int64_t iw = 0; iw < W; ++iw) q[iw] = store(a * src[iw] + b * load(q + iw));
  }

  // Max backward of float data over a block of a multiple of kLanes channels
  // (channels innermost, so every channel stride is 1), in GCC vector
  // types (two AVX2 registers per 16 channels; plain loops of 16 get
  // unrolled into scalar code): per output position the window's first
  // maximum is found as a vector of cell numbers (exact in float below 2^24
  // cells), then dy is added to the window's cells under the mask cell ==
  // argmax, one vector add per cell instead of a scalar scatter per channel.
  void backward_max_lanes(const float *x, const float *dy, float *dx, int64_t n, int64_t c0, int64_t cb,
                          std::vector<C> &grad) const {
    const int64_t D = G.in[0], H = G.in[1], W = G.in[2];
    grad.assign(static_cast<size_t>(D * H * W * cb), C(0));
    const bool pr = prop;
    const V8 zero = {}, lowest = zero + std::numeric_limits<float>::lowest(), minus1 = zero - 1.0f;
    for (int64_t od = 0; od < G.out[0]; ++od) {
      int64_t sd, d0, d1;
      window_range(G, 0, od, sd, d0, d1);
      for (int64_t oh = 0; oh < G.out[1]; ++oh) {
        int64_t sh, h0, h1;
        window_range(G, 1, oh, sh, h0, h1);
        for (int64_t ow = 0; ow < G.out[2]; ++ow) {
          int64_t sw, w0, w1;
          window_range(G, 2, ow, sw, w0, w1);
          if (d0 >= d1 || h0 >= h1 || w0 >= w1) continue;
          for (int64_t s16 = 0; s16 < cb; s16 += kLanes) {  // the block's sub-blocks share the x lines
            V8 best0 = lowest, best1 = lowest, at0 = minus1, at1 = minus1;
            for (int64_t id = d0; id < d1; ++id)
              for (int64_t ih = h0; ih < h1; ++ih)
                for (int64_t iw = w0; iw < w1; ++iw) {
                  const float *p = x + n * G.xs[0] + c0 + s16 + id * G.xs[2] + ih * G.xs[3] + iw * G.xs[4];
                  const V8 cell = zero + static_cast<float>((id * H + ih) * W + iw);
                  const V8 v0 = load8(p), v1 = load8(p + 8);
                  // First maximum; with propagation the first NaN, kept.
                  auto take = [pr](V8 v, V8 b) {
                    return pr ? ((b == b) & ((v != v) | (v > b))) : (v > b);
                  };
                  const auto t0 = take(v0, best0), t1 = take(v1, best1);
                  best0 = t0 ? v0 : best0;
                  best1 = t1 ? v1 : best1;
                  at0 = t0 ? cell : at0;
                  at1 = t1 ? cell : at1;
                }
            const float *g = dy + n * G.os[0] + c0 + s16 + od * G.os[2] + oh * G.os[3] + ow * G.os[4];
            const V8 g0 = load8(g), g1 = load8(g + 8);
            for (int64_t id = d0; id < d1; ++id)
              for (int64_t ih = h0; ih < h1; ++ih)
                for (int64_t iw = w0; iw < w1; ++iw) {
                  const int64_t c = (id * H + ih) * W + iw;
                  const V8 cf = zero + static_cast<float>(c);
                  float *q = grad.data() + c * cb + s16;
                  store8(q, load8(q) + (at0 == cf ? g0 : zero));
                  store8(q + 8, load8(q + 8) + (at1 == cf ? g1 : zero));
                }
          }
        }
      }
    }
    const V8 a = zero + alpha, b = zero + beta;
    const bool blend = beta != C(0);
    for (int64_t id = 0; id < D; ++id)
      for (int64_t ih = 0; ih < H; ++ih)
        for (int64_t iw = 0; iw < W; ++iw) {
          float *p = dx + n * G.is[0] + c0 + id * G.is[2] + ih * G.is[3] + iw * G.is[4];
          const float *q = grad.data() + ((id * H + ih) * W + iw) * cb;
          for (int64_t h = 0; h < cb; h += 8) {
            V8 r = a * load8(q + h);
            if (blend) r += b * load8(p + h);
            store8(p + h, r);
          }
        }
  }

  // Float max backward with channels innermost in x, dy and dx, in 16s, a
  // 2-d problem (depth 1), an AVX-512 CPU: pool_rows::max_backward_rows.
  bool max_backward_rows_fit() const {
    if constexpr (std::is_same_v<T, float> && std::is_same_v<C, float>) {
      return is_max && G.channels_inner && G.c % kLanes == 0 && G.in[0] == 1 && G.out[0] == 1 &&
             G.pad[0] < G.win[0] && G.in[1] * G.in[2] < (int64_t{1} << 31) && G.os[1] == 1 && avx512_usable();
    }
    return false;
  }

  void max_backward_rows(ThreadPool *pool, const T *x, const T *dy, T *dx, int64_t cb, int64_t blocks) const {
    if constexpr (std::is_same_v<T, float> && std::is_same_v<C, float>) {
      pool_rows::MaxBwdPlane P;
      P.H = G.in[1];
      P.W = G.in[2];
      P.OH = G.out[1];
      P.OW = G.out[2];
      P.kh = G.win[1];
      P.kw = G.win[2];
      P.sh = G.str[1];
      P.sw = G.str[2];
      P.ph = G.pad[1];
      P.pw = G.pad[2];
      P.xh = G.xs[3];
      P.xw = G.xs[4];
      P.gh = G.os[3];
      P.gw = G.os[4];
      P.dh = G.is[3];
      P.dw = G.is[4];
      // Non-temporal dx stores when beta = 0 and dx is far larger than the caches.
      constexpr int64_t kStreamBytes = int64_t{8} << 20;
      const bool stream = beta == C(0) && streaming_stores_allowed() &&
                          G.n * G.c * G.in[1] * G.in[2] * static_cast<int64_t>(sizeof(T)) >= kStreamBytes;
      const int64_t H = G.in[1], rows = G.n * blocks * H;
      auto body = [&](int64_t b, int64_t e) {
        pool_rows::MaxBwdPlane Pb = P;
        Pb.cb = std::min(cb, G.c);
        pool_rows::MaxBwdScratch scratch(Pb);
        int64_t unit = -1, made_lo = 0, made_hi = 0;
        for (int64_t i = b; i < e;) {
          const int64_t u = i / H, ih0 = i % H, ih1 = std::min(H, ih0 + (e - i));
          if (u != unit) {
            unit = u;
            made_lo = made_hi = 0;
          }
          const int64_t blk = u % blocks, n = u / blocks, c0 = blk * cb;
          Pb.cb = std::min(cb, G.c - c0);
          const float *xp = x + n * G.xs[0] + c0;
          const float *gp = dy + n * G.os[0] + c0;
          float *dp = dx + n * G.is[0] + c0;
          if (prop)
            pool_rows::max_backward_rows<true>(xp, gp, dp, Pb, ih0, ih1, scratch, made_lo, made_hi, alpha, beta, stream);
          else
            pool_rows::max_backward_rows<false>(xp, gp, dp, Pb, ih0, ih1, scratch, made_lo, made_hi, alpha, beta, stream);
          i += ih1 - ih0;
        }
        if (stream) _mm_sfence();
      };
      if (pool && pool->size() > 1 && rows > 1) pool->parallel_for(rows, body);
      else body(0, rows);
    }
  }

  // One (n, channel block): gradient plane grad[d][h][w][cb], then dx.
  void backward_unit(const T *x, const T *dy, T *dx, int64_t n, int64_t c0, int64_t cb, std::vector<C> &grad) const {
    const int64_t D = G.in[0], H = G.in[1], W = G.in[2];
    if constexpr (std::is_same_v<T, float> && std::is_same_v<C, float>) {
      if (is_max && cb % kLanes == 0 && D * H * W < (int64_t{1} << 24)) {
        backward_max_lanes(x, dy, dx, n, c0, cb, grad);
        return;
      }
    }
    grad.assign(static_cast<size_t>(D * H * W * cb), C(0));
    C best[kMaxBlock];
    int64_t at[kMaxBlock];
    for (int64_t od = 0; od < G.out[0]; ++od) {
      int64_t sd, d0, d1;
      window_range(G, 0, od, sd, d0, d1);
      for (int64_t oh = 0; oh < G.out[1]; ++oh) {
        int64_t sh, h0, h1;
        window_range(G, 1, oh, sh, h0, h1);
        for (int64_t ow = 0; ow < G.out[2]; ++ow) {
          int64_t sw, w0, w1;
          window_range(G, 2, ow, sw, w0, w1);
          if (d0 >= d1 || h0 >= h1 || w0 >= w1) continue;
          const T *g = dy + n * G.os[0] + c0 * G.os[1] + od * G.os[2] + oh * G.os[3] + ow * G.os[4];
          if (is_max) {
            for (int64_t c = 0; c < cb; ++c) {
              best[c] = std::numeric_limits<C>::lowest();
              at[c] = -1;
            }
            for (int64_t id = d0; id < d1; ++id)
              for (int64_t ih = h0; ih < h1; ++ih)
                for (int64_t iw = w0; iw < w1; ++iw) {
                  const T *p = x + n * G.xs[0] + c0 * G.xs[1] + id * G.xs[2] + ih * G.xs[3] + iw * G.xs[4];
                  const int64_t cell = (id * H + ih) * W + iw;
                  for (int64_t c = 0; c < cb; ++c) {
                    const C v = load(p + c * G.xs[1]);
                    // First maximum; with propagation the first NaN, kept.
                    const bool take = prop ? (best[c] == best[c] && (v != v || v > best[c])) : v > best[c];
                    best[c] = take ? v : best[c];
                    at[c] = take ? cell : at[c];
                  }
                }
            for (int64_t c = 0; c < cb; ++c)
              if (at[c] >= 0) grad[static_cast<size_t>(at[c] * cb + c)] += load(g + c * G.os[1]);
          } else {
            const C inv = div.at(od, oh, ow);
            for (int64_t id = d0; id < d1; ++id)
              for (int64_t ih = h0; ih < h1; ++ih)
                for (int64_t iw = w0; iw < w1; ++iw) {
                  C *q = grad.data() + ((id * H + ih) * W + iw) * cb;
                  for (int64_t c = 0; c < cb; ++c) q[c] += load(g + c * G.os[1]) * inv;
                }
          }
        }
      }
    }
    for (int64_t id = 0; id < D; ++id)
      for (int64_t ih = 0; ih < H; ++ih)
        for (int64_t iw = 0; iw < W; ++iw) {
          T *p = dx + n * G.is[0] + c0 * G.is[1] + id * G.is[2] + ih * G.is[3] + iw * G.is[4];
          const C *q = grad.data() + ((id * H + ih) * W + iw) * cb;
          for (int64_t c = 0; c < cb; ++c) put(p + c * G.is[1], q[c]);
        }
  }
};

template <class S, class C>
void run(const ExecContext &ctx, const ResampleOperands &r, const Geometry &G, const VariantPack &pack) {
  using T = typename S::type;
  const graph::ResampleOp &op = *r.op;
  Kernels<S, C> k(op, G);
  ThreadPool *pool = ctx.pool;
  const auto par = [&](int64_t n, const std::function<void(int64_t, int64_t)> &body) {
    if (pool && pool->size() > 1 && n > 1) pool->parallel_for(n, body);
    else body(0, n);
  };
  // Backward blocks of 16 channels keep the gradient plane in L2; float max
  // backward takes up to 64 when the channels come in 16s (its vector path),
  // so that each x line is read by one block, not split between four.
  const bool lanes = std::is_same_v<T, float> && std::is_same_v<C, float> && op.is_max() && G.c % 16 == 0;
  const int64_t cb =
      G.channels_inner ? std::min<int64_t>(G.c, op.backward ? (lanes ? kMaxBlock : 16) : kMaxBlock) : 1;
  const int64_t blocks = (G.c + cb - 1) / cb;
  if (!op.backward) {
    const T *x = static_cast<const T *>(pack.get(op.x));
    T *y = static_cast<T *>(pack.get(op.y));
    const int64_t rows = G.n * blocks * G.out[0] * G.out[1];
    // Columns contiguous in x: the line kernels (see forward_line).
    const bool lines = !G.channels_inner && G.is[4] == 1;
    const bool max_rows = lines && k.max_rows_fit();
    constexpr int64_t kStreamBytes = int64_t{8} << 20;
    k.stream_y = G.channels_inner && op.blend.beta == 0.0 && streaming_stores_allowed() &&
                 G.n * G.c * G.out[0] * G.out[1] * G.out[2] * static_cast<int64_t>(sizeof(T)) >= kStreamBytes;
    k.columns_for_rows();
    par(rows, [&](int64_t b, int64_t e) {
      std::vector<C> acc(static_cast<size_t>(lines ? k.line_scratch() : G.out[2]));
      for (int64_t i = b; i < e; ++i) {
        int64_t rest = i;
        const int64_t oh = rest % G.out[1];
        rest /= G.out[1];
        const int64_t od = rest % G.out[0];
        rest /= G.out[0];
        const int64_t blk = rest % blocks, n = rest / blocks;
        if (G.channels_inner) k.forward_channels(x, y, n, blk * cb, std::min(cb, G.c - blk * cb), od, oh);
        else if (max_rows) k.forward_max_rows(x, y, n, blk, od, oh);
        else if (lines) k.forward_line_any(x, y, n, blk, od, oh, acc.data());
        else k.forward_row(x, y, n, blk, od, oh, acc.data());
      }
      if (k.stream_y) _mm_sfence();  // the streaming stores are visible before the call returns
    });
    return;
  }
  const T *x = r.x ? static_cast<const T *>(pack.get(op.x)) : nullptr;
  const T *dy = static_cast<const T *>(pack.get(op.dy));
  T *dx = static_cast<T *>(pack.get(op.dx));
  if (!op.is_max() && !G.channels_inner && G.is[4] == 1) {  // average, columns contiguous in dx
    if (k.avg_backward_rows_fit()) {
      k.avg_backward_rows(par, dy, dx);
      return;
    }
    par(G.n * G.c * G.in[0] * G.in[1], [&](int64_t b, int64_t e) {
      std::vector<C> scratch(static_cast<size_t>(k.grad_line_scratch()));
      for (int64_t i = b; i < e; ++i) {
        int64_t rest = i;
        const int64_t ih = rest % G.in[1];
        rest /= G.in[1];
        const int64_t id = rest % G.in[0];
        rest /= G.in[0];
        k.backward_line_avg(dy, dx, rest / G.c, rest % G.c, id, ih, scratch.data());
      }
    });
    return;
  }
  // Element spans of x, dy and dx: the gather writes dx rows while it still
  // reads later rows of x and dy, so an overlap keeps the plane path.
  const auto span_of = [&](const void *p, const int64_t *st, const int64_t *ext) {
    int64_t last = 0;
    for (int d = 0; d < 5; ++d) last += (ext[d] - 1) * std::abs(st[d]);
    const char *b = static_cast<const char *>(p);
    return std::pair<const char *, const char *>(b, b + (last + 1) * static_cast<int64_t>(sizeof(T)));
  };
  const int64_t in_ext[5] = {G.n, G.c, G.in[0], G.in[1], G.in[2]}, out_ext[5] = {G.n, G.c, G.out[0], G.out[1], G.out[2]};
  const auto disjoint = [](std::pair<const char *, const char *> a, std::pair<const char *, const char *> b) {
    return a.second <= b.first || b.second <= a.first;
  };
  const bool no_overlap = x && disjoint(span_of(dx, G.is, in_ext), span_of(x, G.xs, in_ext)) &&
                          disjoint(span_of(dx, G.is, in_ext), span_of(dy, G.os, out_ext));
  if (no_overlap && k.max_backward_rows_fit()) {  // float max, NHWC, 2-d: gathered per dx row (pooling_max_backward_rows.hpp)
    k.max_backward_rows(pool, x, dy, dx, cb, blocks);
    return;
  }
  par(G.n * blocks, [&](int64_t b, int64_t e) {
    std::vector<C> grad, best, gs;
    std::vector<int64_t> at;
    for (int64_t i = b; i < e; ++i) {
      const int64_t blk = i % blocks, n = i / blocks;
      if (G.channels_inner) k.backward_unit(x, dy, dx, n, blk * cb, std::min(cb, G.c - blk * cb), grad);
      else k.backward_plane(x, dy, dx, n, blk, grad, best, at, gs);
    }
  });
}

bool engine_type(cudnnDataType_t t) {
  return t == CUDNN_DATA_FLOAT || t == CUDNN_DATA_DOUBLE || t == CUDNN_DATA_HALF || t == CUDNN_DATA_BFLOAT16 ||
         t == CUDNN_DATA_INT8;
}

class Plan final : public ExecutionPlan {
 public:
  using ExecutionPlan::ExecutionPlan;
  void execute(const ExecContext &ctx, const graph::Graph &g, const VariantPack &pack) const override {
    const ResampleOperands r = resample_operands(g);
    const Geometry G = make_geometry(r);
    const bool dbl = resample_computes_in_double(g, *r.op);
    const bool ok = visit_fast_type(r.in->dtype, [&](auto s) {
      using S = decltype(s);
      if (dbl) run<S, double>(ctx, r, G, pack);
      else run<S, float>(ctx, r, G, pack);
    });
    if (!ok) fail(CUDNN_STATUS_NOT_SUPPORTED, "cpu.pooling: unsupported data type");
  }
};

class PoolingEngine final : public Engine {
 public:
  const char *name() const override { return "cpu.pooling"; }
  DeviceKind device() const override { return DeviceKind::cpu; }
  Support supports(const graph::Graph &g) const override {
    Support s = check_single_resample(g);
    if (!s) return s;
    const ResampleOperands r = resample_operands(g);
    const int sp = r.op->spatial_dims();
    if (sp < 2 || sp > 3) return Support::no("cpu.pooling runs 2 or 3 spatial dimensions");
    if (r.in->rank() != 2 + sp) return Support::no("cpu.pooling needs N, C and the spatial dimensions only");
    if (!engine_type(r.in->dtype)) return Support::no("cpu.pooling: data type not handled");
    return Support::yes();
  }
  std::unique_ptr<ExecutionPlan> make_plan(const graph::Graph &, const std::vector<KnobChoice> &) const override {
    return std::make_unique<Plan>(*this);
  }
};

}  // namespace
}  // namespace fdnn::cpu

using fdnn::cpu::PoolingEngine;
FDNN_REGISTER_ENGINE(PoolingEngine)
