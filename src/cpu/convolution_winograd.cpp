// cpu.conv.winograd: Winograd F(2x2, 3x3) for 2-d 3x3 stride-1 dilation-1
// convolutions: FWD WINOGRAD and WINOGRAD_NONFUSED, BWD_DATA WINOGRAD and
// WINOGRAD_NONFUSED (the data gradient is the forward transform of dy with
// the filter rotated by 180 degrees and its channel roles swapped, padding
// 2 - pad).
//   Y = A^T [ (G g G^T) .* (B^T d B) ] A  on 4x4 input tiles, 2x2 output tiles;
// the element-wise products summed over input channels are 16 matrix
// products per group (U [Kg x Cg] times V [Cg x tiles]).
//   NONFUSED: every tile of the batch is transformed into the workspace, then
//             16 large GEMMs, then the inverse transform.
//   WINOGRAD: blocks of tiles of one image go through all three stages while
//             they are in cache, blocks split over the threads. FLOAT
//             problems whose filter is small against the activations run
//             on oneDNN's Winograd first (cpu.conv.onednn, priority 10).
#include <algorithm>
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

// A stride-1 3x3 forward problem in Winograd's terms.
struct Wino {
  int64_t N, G, cin, cout;  // channels per group
  int64_t H, W, OH, OW, ph, pw;
  int64_t th() const { return (OH + 1) / 2; }
  int64_t tw() const { return (OW + 1) / 2; }
  int64_t tiles() const { return th() * tw(); }  // per image
};

constexpr int64_t kBlock = 64;  // tiles per block of the fused variant

// U[g][xi][o][i] = (G f G^T)[xi] for the 3x3 filter f of (output o, input i).
template <class T, class F>
void transform_filters(ThreadPool *pool, const Wino &q, F &&filter, T *U) {
  for_chunks(pool, q.G * q.cout, pool ? pool->size() : 1, [&](int64_t, int64_t b, int64_t e) {
    for (int64_t go = b; go < e; ++go) {
      const int64_t g = go / q.cout, o = go % q.cout;
      for (int64_t i = 0; i < q.cin; ++i) {
        T f[3][3], t[4][3], u[4][4];
        for (int r = 0; r < 3; ++r)
          for (int s = 0; s < 3; ++s) f[r][s] = filter(g, o, i, r, s);
        for (int s = 0; s < 3; ++s) {
          t[0][s] = f[0][s];
          t[1][s] = T(0.5) * (f[0][s] + f[1][s] + f[2][s]);
          t[2][s] = T(0.5) * (f[0][s] - f[1][s] + f[2][s]);
          t[3][s] = f[2][s];
        }
        for (int r = 0; r < 4; ++r) {
          u[r][0] = t[r][0];
          u[r][1] = T(0.5) * (t[r][0] + t[r][1] + t[r][2]);
          u[r][2] = T(0.5) * (t[r][0] - t[r][1] + t[r][2]);
          u[r][3] = t[r][2];
        }
        for (int xi = 0; xi < 16; ++xi) U[((g * 16 + xi) * q.cout + o) * q.cin + i] = u[xi / 4][xi % 4];
      }
    }
  });
}

// V[xi * ldv + c * ld_c + j] = (B^T d B)[xi] for tiles [t0, t0+len) of image
// n, group g (input planes `in`, zero outside).
template <class T>
void transform_inputs(const Wino &q, const T *in, int64_t n, int64_t g, int64_t t0, int64_t len, T *V, int64_t ldv,
                      int64_t ld_c) {
  for (int64_t c = 0; c < q.cin; ++c) {
    const T *plane = in + ((n * q.G + g) * q.cin + c) * q.H * q.W;
    for (int64_t j = 0; j < len; ++j) {
      const int64_t t = t0 + j, ty = t / q.tw(), tx = t % q.tw();
      const int64_t y0 = 2 * ty - q.ph, x0 = 2 * tx - q.pw;
      T d[4][4];
      for (int r = 0; r < 4; ++r)
        for (int s = 0; s < 4; ++s) {
          const int64_t yy = y0 + r, xx = x0 + s;
          d[r][s] = (yy >= 0 && yy < q.H && xx >= 0 && xx < q.W) ? plane[yy * q.W + xx] : T(0);
        }
      T t1[4][4];
      for (int s = 0; s < 4; ++s) {
        t1[0][s] = d[0][s] - d[2][s];
        t1[1][s] = d[1][s] + d[2][s];
        t1[2][s] = d[2][s] - d[1][s];
        t1[3][s] = d[1][s] - d[3][s];
      }
      for (int r = 0; r < 4; ++r) {
        const T v0 = t1[r][0] - t1[r][2], v1 = t1[r][1] + t1[r][2], v2 = t1[r][2] - t1[r][1], v3 = t1[r][1] - t1[r][3];
        T *base = V + c * ld_c + j;
        base[(r * 4 + 0) * ldv] = v0;
        base[(r * 4 + 1) * ldv] = v1;
        base[(r * 4 + 2) * ldv] = v2;
        base[(r * 4 + 3) * ldv] = v3;
      }
    }
  }
}

// out (2x2 per tile, cropped) = alpha * A^T m A + beta * out for tiles
// [t0, t0+len) of image n, group g; M[xi * ldm + o * ld_o + j].
template <class T>
void inverse_outputs(const Wino &q, const T *M, int64_t ldm, int64_t ld_o, int64_t n, int64_t g, int64_t t0,
                     int64_t len, T *out, T alpha, T beta) {
  for (int64_t o = 0; o < q.cout; ++o) {
    T *plane = out + ((n * q.G + g) * q.cout + o) * q.OH * q.OW;
    for (int64_t j = 0; j < len; ++j) {
      T m[4][4];
      for (int xi = 0; xi < 16; ++xi) m[xi / 4][xi % 4] = M[xi * ldm + o * ld_o + j];
      T t1[2][4];
      for (int s = 0; s < 4; ++s) {
        t1[0][s] = m[0][s] + m[1][s] + m[2][s];
        t1[1][s] = m[1][s] - m[2][s] - m[3][s];
      }
      T r[2][2];
      for (int a = 0; a < 2; ++a) {
        r[a][0] = t1[a][0] + t1[a][1] + t1[a][2];
        r[a][1] = t1[a][1] - t1[a][2] - t1[a][3];
      }
      const int64_t t = t0 + j, oy = 2 * (t / q.tw()), ox = 2 * (t % q.tw());
      for (int a = 0; a < 2; ++a)
        for (int b = 0; b < 2; ++b) {
          if (oy + a >= q.OH || ox + b >= q.OW) continue;
          T &dst = plane[(oy + a) * q.OW + ox + b];
          dst = beta == T(0) ? alpha * r[a][b] : alpha * r[a][b] + beta * dst;
        }
    }
  }
}

template <class T>
class WinogradPlan final : public ConvPlanBase<T> {
  using Base = ConvPlanBase<T>;
  using Base::geo_;
  using Base::p_;

 public:
  WinogradPlan(const Engine &e, const graph::Graph &g, bool fused) : Base(e, g), fused_(fused) {
    const Conv3 &p = p_;
    if (geo_.direction == Dir::forward)
      q_ = {p.N, p.G, p.Cg, p.Kg, p.ih, p.iw, p.oh, p.ow, p.ph, p.pw};
    else
      q_ = {p.N, p.G, p.Kg, p.Cg, p.oh, p.ow, p.ih, p.iw, 2 - p.ph, 2 - p.pw};
    chunks_ = ThreadPool::global().size();
    const size_t u = static_cast<size_t>(q_.G * 16 * q_.cout * q_.cin);
    size_t rest;
    if (fused_) rest = static_cast<size_t>(chunks_ * 16 * (q_.cin + q_.cout) * kBlock);
    else rest = static_cast<size_t>(q_.G * 16 * (q_.cin + q_.cout) * q_.N * q_.tiles());
    this->set_algo_workspace((u + rest) * sizeof(T));
  }

 private:
  void run(const ExecContext &ctx, const ConvArrays<T> &a, T alpha, T beta, void *ws) const override {
    const Wino &q = q_;
    T *U = static_cast<T *>(ws);
    T *rest = U + q.G * 16 * q.cout * q.cin;
    const int64_t Cg = p_.Cg, Kg = p_.Kg;
    const T *in;
    T *out;
    if (geo_.direction == Dir::forward) {
      transform_filters<T>(ctx.pool, q, [&](int64_t g, int64_t o, int64_t i, int r, int s) {
        return a.w[(((g * Kg + o) * Cg + i) * 3 + r) * 3 + s];
      }, U);
      in = a.x;
      out = a.y;
    } else {
      // Output channel o = input channel cc of w, input channel i = output channel kk.
      transform_filters<T>(ctx.pool, q, [&](int64_t g, int64_t o, int64_t i, int r, int s) {
        return a.w[(((g * Kg + i) * Cg + o) * 3 + 2 - r) * 3 + 2 - s];
      }, U);
      in = a.y;
      out = a.x;
    }
    if (fused_) run_fused(ctx, in, out, U, rest, alpha, beta);
    else run_nonfused(ctx, in, out, U, rest, alpha, beta);
  }

  void run_nonfused(const ExecContext &ctx, const T *in, T *out, const T *U, T *ws, T alpha, T beta) const {
    const Wino &q = q_;
    const int64_t tiles = q.tiles(), NT = q.N * tiles;
    T *V = ws;                                  // [G][16][cin][NT]
    T *M = V + q.G * 16 * q.cin * NT;           // [G][16][cout][NT]
    for_chunks(ctx.pool, q.N * q.G, pool_threads(ctx), [&](int64_t, int64_t b, int64_t e) {
      for (int64_t ng = b; ng < e; ++ng) {
        const int64_t n = ng / q.G, g = ng % q.G;
        transform_inputs(q, in, n, g, 0, tiles, V + g * 16 * q.cin * NT + n * tiles, q.cin * NT, NT);
      }
    });
    for (int64_t g = 0; g < q.G; ++g)
      for (int xi = 0; xi < 16; ++xi)
        parallel_gemm(ctx.pool, false, false, q.cout, NT, q.cin, T(1), U + (g * 16 + xi) * q.cout * q.cin, q.cin,
                      V + (g * 16 + xi) * q.cin * NT, NT, T(0), M + (g * 16 + xi) * q.cout * NT, NT);
    for_chunks(ctx.pool, q.N * q.G, pool_threads(ctx), [&](int64_t, int64_t b, int64_t e) {
      for (int64_t ng = b; ng < e; ++ng) {
        const int64_t n = ng / q.G, g = ng % q.G;
        inverse_outputs(q, M + g * 16 * q.cout * NT + n * tiles, q.cout * NT, NT, n, g, 0, tiles, out, alpha, beta);
      }
    });
  }

  void run_fused(const ExecContext &ctx, const T *in, T *out, const T *U, T *ws, T alpha, T beta) const {
    const Wino &q = q_;
    const int64_t tiles = q.tiles(), blocks = (tiles + kBlock - 1) / kBlock;
    const int64_t per_chunk = 16 * (q.cin + q.cout) * kBlock;
    for_chunks(ctx.pool, q.N * q.G * blocks, chunks_, [&](int64_t ch, int64_t b, int64_t e) {
      T *V = ws + ch * per_chunk;          // [16][cin][kBlock]
      T *M = V + 16 * q.cin * kBlock;      // [16][cout][kBlock]
      for (int64_t item = b; item < e; ++item) {
        const int64_t blk = item % blocks, ng = item / blocks, n = ng / q.G, g = ng % q.G;
        const int64_t t0 = blk * kBlock, len = std::min(kBlock, tiles - t0);
        transform_inputs(q, in, n, g, t0, len, V, q.cin * kBlock, kBlock);
        for (int xi = 0; xi < 16; ++xi)
          gemm(false, false, q.cout, len, q.cin, T(1), U + (g * 16 + xi) * q.cout * q.cin, q.cin,
               V + xi * q.cin * kBlock, kBlock, T(0), M + xi * q.cout * kBlock, kBlock);
        inverse_outputs(q, M, q.cout * kBlock, kBlock, n, g, t0, len, out, alpha, beta);
      }
    });
  }

  bool fused_;
  Wino q_{};
  int64_t chunks_ = 1;
};

class WinogradConvolutionEngine final : public Engine {
 public:
  const char *name() const override { return "cpu.conv.winograd"; }
  DeviceKind device() const override { return DeviceKind::cpu; }
  int priority() const override { return 30; }
  Support supports(const graph::Graph &g) const override {
    if (Support s = check_single_convolution(g); !s) return s;
    const ConvGeometry geo = convolution_geometry(g);
    if (!convolution_is_floating(geo)) return Support::no("integer data: reference engine only");
    const int algo = std::get<graph::ConvolutionOp>(g.ops().front()).algo;
    if (!fused(geo.direction, algo) && !nonfused(geo.direction, algo))
      return Support::no("algorithm not implemented by this engine");
    return cpu_convolution_algo_applies(geo, algo);
  }
  std::unique_ptr<ExecutionPlan> make_plan(const graph::Graph &g, const std::vector<KnobChoice> &) const override {
    const auto &op = std::get<graph::ConvolutionOp>(g.ops().front());
    const bool f = fused(op.direction, op.algo);
    if (g.tensor(op.x).dtype == CUDNN_DATA_DOUBLE) return std::make_unique<WinogradPlan<double>>(*this, g, f);
    return std::make_unique<WinogradPlan<float>>(*this, g, f);
  }

 private:
  static bool fused(Dir d, int algo) {
    return (d == Dir::forward && algo == CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD) ||
           (d == Dir::backward_data && algo == CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD);
  }
  static bool nonfused(Dir d, int algo) {
    return (d == Dir::forward && algo == CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED) ||
           (d == Dir::backward_data && algo == CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD_NONFUSED);
  }
};

}  // namespace
}  // namespace fdnn::cpu

using fdnn::cpu::WinogradConvolutionEngine;
FDNN_REGISTER_ENGINE(WinogradConvolutionEngine)
