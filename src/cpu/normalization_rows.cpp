// cpu.normalization.rows: the fast CPU engine for layer norm and RMS norm
// (one graph::NormalizationOp whose statistics sets are "rows": the reduced
// dims form one contiguous block of x's memory, and scale / bias vary along
// that block only). cpu.normalization's per-set coefficients (a = scale *
// inv_std per set) cannot express a scale that changes inside a set, so
// these graphs get their own engine instead of the reference one.
//
//   forward:  y = blend(scale[p] * (x - mean) * inv_std + bias[p])
//             (RMS: mean = 0, var = mean of x^2, bias optional)
//   backward: h = scale[p] * dy, dx = blend(inv_std * (h - sum(h)/D - xhat * sum(h xhat)/D))
//             (RMS: no sum(h)/D term); dscale[p] = sum over rows of dy * xhat,
//             dbias[p] = sum over rows of dy.
//
// p is the position inside the row in x's memory order; scale and bias are
// gathered into that order once per execution, so the inner loops are
// contiguous and vectorise. FLOAT rows are read in place; a FLOAT y with
// beta == 0 is written straight from the apply loop, with streaming stores
// on large tensors, and a FLOAT dx likewise. 16-bit rows of a forward with
// beta == 0 are read in place too, converting in registers (statistics in
// one sweep from a shift near the mean, then the apply sweep); other 16-bit
// rows are converted into a per-thread buffer. Row statistics: the mean, then the squared deviations
// from it with the rounding correction (corrected two-pass, one sweep each,
// the row in L1), in float lanes folded in double. Backward reads each row
// of x and dy once for the sums and once (from L1) for dx.
// Rows are cut into fixed tiles of kTileRows (not a function of the thread
// count); the parameter gradients are summed per tile in the compute type,
// kept per tile in double and the tiles combined in order, so results do not
// depend on the thread count.
#include <algorithm>
#include <array>
#include <cmath>
#include <memory>
#include <numeric>
#include <type_traits>
#include <variant>
#include <vector>

#include "core/dtype.hpp"
#include "core/engine.hpp"
#include "core/env_words.hpp"
#include "core/error.hpp"
#include "core/normalization_operands.hpp"
#include "core/normalization_support.hpp"
#include "core/thread_pool.hpp"
#include "cpu/dtype_io.hpp"
#include "cpu/normalization_kernels.hpp"
#include "cpu/normalization_row_io.hpp"
#include "cpu/cpu_features.hpp"

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#endif

namespace fdnn::cpu {
namespace {

#define FDNN_ROWS_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq")))
#define FDNN_ROWS_AVX512_BF16 __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx512bf16")))

using normop::kInv;
using normop::kMean;
using normop::kRmIn;
using normop::kRmOut;
using normop::kRvIn;
using normop::kRvOut;
using normop::kVar;

using normrow::lane_sum;
using normrow::load_row;
using normrow::row_view;
using normrow::store_row;

constexpr int64_t kTileRows = 32;
constexpr int64_t kStreamBytes = 8 << 20;  // outputs at least this large bypass the caches

// Where the rows are: per set its offset in x (and every data tensor, which
// share x's strides); per set its offset in each statistics tensor; per
// position in a row its offset in each parameter tensor.
struct RowGeometry {
  int64_t rows = 0, width = 0;
  std::vector<int64_t> kept_dims;     // logical order
  std::vector<int64_t> kept_x;        // x strides of the kept dims
  std::vector<int64_t> reduced_dims;  // sorted by x stride, outermost first
  std::vector<int> reduced_axes;
};

Support check_rows(const graph::Graph &g, RowGeometry *out) {
  if (Support s = check_single_normalization(g, true); !s) return s;
  const auto &op = std::get<graph::NormalizationOp>(g.ops().front());
  if (op.mode != CUDNN_LAYER_NORM && op.mode != CUDNN_RMS_NORM) return Support::no("not layer or RMS norm");
  if (op.has_activation || op.z != graph::kNoTensor || op.dz != graph::kNoTensor || op.mask != graph::kNoTensor)
    return Support::no("fused residual / activation are not implemented here");
  const graph::Tensor &x = g.tensor(op.x);
  if (Support s = normop::check_data_operands(g, op); !s) return s;
  const bool dbl = x.dtype == CUDNN_DATA_DOUBLE;
  const NormShape shape = normalization_shape(g, op);
  for (graph::Uid u : {op.scale, op.bias, op.dscale, op.dbias, op.mean, op.inv_variance, op.variance,
                       op.running_mean_in, op.running_var_in, op.running_mean_out, op.running_var_out}) {
    if (u == graph::kNoTensor) continue;
    const graph::Tensor &t = g.tensor(u);
    if (Support s = normop::check_side_operand(t, dbl); !s) return s;
    const bool param = u == op.scale || u == op.bias || u == op.dscale || u == op.dbias;
    for (int d = 0; d < x.rank(); ++d) {
      if (param && !shape.reduced[d] && t.dims[d] != 1)
        return Support::no("scale / bias vary along a normalised-set dimension");
      // Each position of a row owns one gradient element (no summing inside rows).
      if ((u == op.dscale || u == op.dbias) && shape.reduced[d] && t.dims[d] != x.dims[d])
        return Support::no("dscale / dbias broadcast inside the normalised set");
    }
  }
  RowGeometry G;
  std::vector<int> red;
  for (int d = 0; d < x.rank(); ++d) {
    if (x.dims[d] == 1) continue;
    if (shape.reduced[d])
      red.push_back(d);
    else {
      G.kept_dims.push_back(x.dims[d]);
      G.kept_x.push_back(x.strides[d]);
    }
  }
  std::stable_sort(red.begin(), red.end(), [&](int a, int b) { return x.strides[a] > x.strides[b]; });
  int64_t step = 1;
  for (size_t i = red.size(); i-- > 0;) {
    if (x.strides[red[i]] != step) return Support::no("a normalised set is not one contiguous block of x");
    step *= x.dims[red[i]];
  }
  for (int d : red) G.reduced_dims.push_back(x.dims[d]);
  G.reduced_axes = red;
  G.rows = shape.groups;
  G.width = shape.count;
  if (G.width < 1 || G.rows < 1) return Support::no("empty tensor");
  if (out) *out = std::move(G);
  return Support::yes();
}

// Offsets of a tensor over row positions (p in x's memory order).
std::vector<int64_t> position_offsets(const RowGeometry &G, const graph::Tensor &t) {
  std::vector<int64_t> off(static_cast<size_t>(G.width));
  std::vector<int64_t> idx(G.reduced_dims.size(), 0);
  for (int64_t p = 0; p < G.width; ++p) {
    int64_t o = 0;
    for (size_t i = 0; i < idx.size(); ++i)
      o += idx[i] * (t.dims[G.reduced_axes[i]] == 1 ? 0 : t.strides[G.reduced_axes[i]]);
    off[p] = o;
    for (size_t i = idx.size(); i-- > 0;) {
      if (++idx[i] < G.reduced_dims[i]) break;
      idx[i] = 0;
    }
  }
  return off;
}

// Offset of set k (row-major over the kept dims in logical order) in a
// tensor whose kept-dim strides are `strides`.
int64_t set_offset(const RowGeometry &G, const std::vector<int64_t> &strides, int64_t k) {
  int64_t o = 0;
  for (size_t i = G.kept_dims.size(); i-- > 0;) {
    o += (k % G.kept_dims[i]) * strides[i];
    k /= G.kept_dims[i];
  }
  return o;
}

// A statistics tensor's strides over the kept dims (those of extent > 1).
std::vector<int64_t> kept_strides(const graph::Graph &g, graph::Uid u) {
  const auto &op = std::get<graph::NormalizationOp>(g.ops().front());
  const graph::Tensor &t = g.tensor(u), &x = g.tensor(op.x);
  const NormShape shape = normalization_shape(g, op);
  std::vector<int64_t> s;
  for (int d = 0; d < x.rank(); ++d)
    if (x.dims[d] != 1 && !shape.reduced[d]) s.push_back(t.dims[d] == 1 ? 0 : t.strides[d]);
  return s;
}

// f32 rows, beta == 0: y = (x - m) * is * s[i] + b[i] straight into y
// (alpha folded into s and b), streamed past the caches when `stream` (no
// read for ownership of y: a third less memory traffic on large tensors).
void apply_row_f32(const float *x, float *y, int64_t n, float m, float is, const float *s, const float *b,
                   bool stream) {
  int64_t i = 0;
#if defined(__AVX2__) && defined(__FMA__)
  if (stream && reinterpret_cast<uintptr_t>(y) % sizeof(float) == 0) {
    const int64_t head = std::min<int64_t>(n, ((32 - (reinterpret_cast<uintptr_t>(y) & 31)) & 31) / sizeof(float));
    for (; i < head; ++i) y[i] = (x[i] - m) * is * s[i] + b[i];
    const __m256 vm = _mm256_set1_ps(m), vi = _mm256_set1_ps(is);
    for (; i + 16 <= n; i += 16) {
      const __m256 t0 = _mm256_mul_ps(_mm256_sub_ps(_mm256_loadu_ps(x + i), vm), vi);
      const __m256 t1 = _mm256_mul_ps(_mm256_sub_ps(_mm256_loadu_ps(x + i + 8), vm), vi);
      _mm256_stream_ps(y + i, _mm256_fmadd_ps(t0, _mm256_loadu_ps(s + i), _mm256_loadu_ps(b + i)));
      _mm256_stream_ps(y + i + 8, _mm256_fmadd_ps(t1, _mm256_loadu_ps(s + i + 8), _mm256_loadu_ps(b + i + 8)));
    }
  }
#else
  (void)stream;
#endif
  for (; i < n; ++i) y[i] = (x[i] - m) * is * s[i] + b[i];
}

// f32 dx row, beta == 0: dx = ia (s g) + c0 + (x - m) c1 (alpha folded into
// ia, c0, c1), streamed past the caches when `stream` (dx is not read: no
// read for ownership; 8192 x 1024 backward, 2 threads, alternating processes:
// 4.2-4.5 -> 3.0-3.6 ms; FREEDNN_CPU_NORM_ROWS_TUNE=nostreamdx = before).
void dx_row_f32(const float *x, const float *g, const float *s, float *dx, int64_t n, float m, float ia, float c0,
                float c1, bool stream) {
  int64_t i = 0;
#if defined(__AVX2__) && defined(__FMA__)
  if (stream && reinterpret_cast<uintptr_t>(dx) % sizeof(float) == 0) {
    const int64_t head = std::min<int64_t>(n, ((32 - (reinterpret_cast<uintptr_t>(dx) & 31)) & 31) / sizeof(float));
    for (; i < head; ++i) dx[i] = ia * (s[i] * g[i]) + c0 + (x[i] - m) * c1;
    const __m256 vm = _mm256_set1_ps(m), va = _mm256_set1_ps(ia), v0 = _mm256_set1_ps(c0), v1 = _mm256_set1_ps(c1);
    for (; i + 8 <= n; i += 8) {
      const __m256 h = _mm256_mul_ps(_mm256_loadu_ps(s + i), _mm256_loadu_ps(g + i));
      const __m256 t = _mm256_fmadd_ps(_mm256_sub_ps(_mm256_loadu_ps(x + i), vm), v1, v0);
      _mm256_stream_ps(dx + i, _mm256_fmadd_ps(va, h, t));
    }
  }
#else
  (void)stream;
#endif
  for (; i < n; ++i) dx[i] = ia * (s[i] * g[i]) + c0 + (x[i] - m) * c1;
}

// 16-bit rows (HALF, BFLOAT16) with beta == 0 (cpu.normalization.rows'
// forward): the row is read twice from its own storage, converting in
// registers, once for its statistics (normrow::row_deviations_16bit, from a
// shift near the mean: head_mean) and once here; no float copy of the row
// and no separate conversion pass for y (FREEDNN_CPU_NORM_ROWS_TUNE=old16:
// the float copy, row_sum, row_deviations, the apply loop and store_row's
// conversion, five sweeps; 8192 x 1024 bfloat16 training, one thread:
// 3.6-4.0 -> 2.4 ms).

// The mean of a row's first (up to) 32 elements: the shift of the one-sweep
// statistics. Any shift gives the exact formula; one near the mean keeps the
// float sums' cancellation small (its error grows with (shift - mean)^2 /
// variance, which a sample of the row keeps small).
template <cudnnDataType_t DT>
float head_mean(const uint16_t *x, int64_t n) {
  using S = Storage<DT>;
  const int64_t h = std::min<int64_t>(n, 32);
  float s = 0;
  for (int64_t i = 0; i < h; ++i) s += S::to_float(x[i]);
  return s / static_cast<float>(h);
}

// GCC 12's AVX-512 intrinsics start from an undefined register, which
// -Wmaybe-uninitialized reports (as in normalization_kernels.hpp).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
template <cudnnDataType_t DT>
FDNN_ROWS_AVX512 int64_t apply_row_16bit_avx512(const uint16_t *x, uint16_t *y, int64_t n, float m, float is,
                                                const float *s, const float *b) {
  constexpr normk::Io T = DT == CUDNN_DATA_HALF ? normk::Io::f16 : normk::Io::bf16;
  const __m512 vm = _mm512_set1_ps(m), vi = _mm512_set1_ps(is);
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m512 t = _mm512_mul_ps(_mm512_sub_ps(normk::load16<T>(x + i), vm), vi);
    normk::store16<T>(y + i, _mm512_fmadd_ps(t, _mm512_loadu_ps(s + i), _mm512_loadu_ps(b + i)));
  }
  return i;
}

// The same for bfloat16 with AVX512_BF16's conversion (normk::
// to_bf16x16_native): 8192 x 1024 training, one thread, 2.40 -> 2.04 ms
// (FREEDNN_CPU_NORM_ROWS_TUNE=nobf16 = without).
FDNN_ROWS_AVX512_BF16 int64_t apply_row_bf16_native(const uint16_t *x, uint16_t *y, int64_t n, float m, float is,
                                                   const float *s, const float *b) {
  const __m512 vm = _mm512_set1_ps(m), vi = _mm512_set1_ps(is);
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m512 t = _mm512_mul_ps(_mm512_sub_ps(normk::load16<normk::Io::bf16>(x + i), vm), vi);
    const __m512 v = _mm512_fmadd_ps(t, _mm512_loadu_ps(s + i), _mm512_loadu_ps(b + i));
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(y + i), normk::to_bf16x16_native(v));
  }
  return i;
}
#pragma GCC diagnostic pop

// y = (x - m) * is * s[i] + b[i] (alpha folded into s and b).
template <cudnnDataType_t DT>
void apply_row_16bit(const uint16_t *x, uint16_t *y, int64_t n, float m, float is, const float *s, const float *b) {
  using S = Storage<DT>;
  int64_t i = 0;
#if defined(__AVX2__) && defined(__FMA__)
  static const bool native_bf16 = normk::avx512_bf16_usable() && !env_has_word("FREEDNN_CPU_NORM_ROWS_TUNE", "nobf16");
  if constexpr (DT == CUDNN_DATA_BFLOAT16) {
    if (native_bf16) i = apply_row_bf16_native(x, y, n, m, is, s, b);
  }
  if (i == 0 && avx512_usable()) i = apply_row_16bit_avx512<DT>(x, y, n, m, is, s, b);
  const __m256 vm = _mm256_set1_ps(m), vi = _mm256_set1_ps(is);
  for (; i + 8 <= n; i += 8) {
    const __m256 xv = DT == CUDNN_DATA_HALF ? simd::load_half8(x + i) : simd::load_bf16x8(x + i);
    const __m256 t = _mm256_mul_ps(_mm256_sub_ps(xv, vm), vi);
    const __m256 v = _mm256_fmadd_ps(t, _mm256_loadu_ps(s + i), _mm256_loadu_ps(b + i));
    if constexpr (DT == CUDNN_DATA_HALF) simd::store_half8(y + i, v);
    else simd::store_bf16x8(y + i, v);
  }
#endif
  for (; i < n; ++i) y[i] = S::from_float((S::to_float(x[i]) - m) * is * s[i] + b[i]);
}

void stream_fence() {
#if defined(__AVX2__)
  _mm_sfence();
#endif
}

class Plan final : public ExecutionPlan {
 public:
  Plan(const Engine &e, const graph::Graph &g, RowGeometry G) : ExecutionPlan(e), G_(std::move(G)) {
    const auto &op = std::get<graph::NormalizationOp>(g.ops().front());
    for (graph::Uid u : {op.scale, op.bias, op.dscale, op.dbias})
      pos_.push_back(u == graph::kNoTensor ? std::vector<int64_t>{} : position_offsets(G_, g.tensor(u)));
    for (graph::Uid u : {op.mean, op.inv_variance, op.variance, op.running_mean_in, op.running_var_in,
                         op.running_mean_out, op.running_var_out})
      stat_strides_.push_back(u == graph::kNoTensor ? std::vector<int64_t>{} : kept_strides(g, u));
  }

  void execute(const ExecContext &ctx, const graph::Graph &g, const VariantPack &pack) const override {
    const auto &op = std::get<graph::NormalizationOp>(g.ops().front());
    const cudnnDataType_t dt = g.tensor(op.x).dtype;
    switch (dt) {
      case CUDNN_DATA_FLOAT: return run<CUDNN_DATA_FLOAT, float>(ctx, g, pack);
      case CUDNN_DATA_HALF: return run<CUDNN_DATA_HALF, float>(ctx, g, pack);
      case CUDNN_DATA_BFLOAT16: return run<CUDNN_DATA_BFLOAT16, float>(ctx, g, pack);
      case CUDNN_DATA_DOUBLE: return run<CUDNN_DATA_DOUBLE, double>(ctx, g, pack);
      default: fail(CUDNN_STATUS_INTERNAL_ERROR, "cpu.normalization.rows: unexpected type");
    }
  }

 private:
  enum { kScale, kBias, kDscale, kDbias };

  static void *ptr(const VariantPack &pack, graph::Uid u) { return normop::operand(pack, u); }

  template <cudnnDataType_t DT, class C>
  void run(const ExecContext &ctx, const graph::Graph &g, const VariantPack &pack) const {
    const auto &op = std::get<graph::NormalizationOp>(g.ops().front());
    const bool rms = op.mode == CUDNN_RMS_NORM;
    const cudnnDataType_t st = std::is_same_v<C, double> ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
    const int64_t D = G_.width, R = G_.rows;
    // Parameters in row order.
    std::vector<C> sc(static_cast<size_t>(D), C(1)), bi(static_cast<size_t>(D), C(0));
    if (void *p = ptr(pack, op.scale))
      for (int64_t i = 0; i < D; ++i) sc[i] = static_cast<C>(load_lane(st, p, pos_[kScale][i]));
    if (void *p = ptr(pack, op.bias); p && !op.backward)
      for (int64_t i = 0; i < D; ++i) bi[i] = static_cast<C>(load_lane(st, p, pos_[kBias][i]));
    void *x = ptr(pack, op.x);
    const std::array<void *, 7> stat = normop::stat_pointers(pack, op);
    const auto stat_at = [&](int j, int64_t k) { return set_offset(G_, stat_strides_[j], k); };
    const int64_t tiles = (R + kTileRows - 1) / kTileRows;
    const double eps = op.epsilon, f = op.exp_avg_factor;
    const bool training = !op.backward && op.phase == CUDNN_NORM_FWD_TRAINING;
    // Statistics of set k from its row (xr), or from the given tensors.
    // Statistics of set k from its row's deviations from m (q = sum of
    // (x - m)^2, c = sum of x - m): exact for any m, accurate for an m near
    // the mean; training writes the saved and running statistics.
    const auto finish_row = [&](int64_t k, C m, double q, double c, double &mu, double &istd) {
      if (rms) c = 0;
      // RMS: the mean square itself (no centring correction).
      const double var = (rms ? q : q - c * c / static_cast<double>(D)) / static_cast<double>(D);
      mu = rms ? 0.0 : static_cast<double>(m) + c / static_cast<double>(D);
      istd = 1.0 / std::sqrt(std::max(var, 0.0) + eps);
      if (!training) return;
      if (stat[kMean]) store_lane(st, stat[kMean], stat_at(kMean, k), mu);
      if (stat[kInv]) store_lane(st, stat[kInv], stat_at(kInv, k), istd);
      if (stat[kRmIn])
        store_lane(st, stat[kRmOut], stat_at(kRmOut, k),
                   (1 - f) * load_lane(st, stat[kRmIn], stat_at(kRmIn, k)) + f * mu);
      if (stat[kRvIn])
        store_lane(st, stat[kRvOut], stat_at(kRvOut, k),
                   (1 - f) * load_lane(st, stat[kRvIn], stat_at(kRvIn, k)) + f * var * unbias_factor(D));
    };
    // The given statistics of set k.
    const auto given_row = [&](int64_t k, double &mu, double &istd) {
      mu = rms || !stat[kMean] ? 0.0 : load_lane(st, stat[kMean], stat_at(kMean, k));
      istd = stat[kInv] ? load_lane(st, stat[kInv], stat_at(kInv, k))
                        : 1.0 / std::sqrt(load_lane(st, stat[kVar], stat_at(kVar, k)) + eps);
    };
    // Statistics of set k from its row (xr), or from the given tensors.
    const auto row_stats = [&](int64_t k, const C *xr, bool compute, double &mu, double &istd) {
      if (!compute) return given_row(k, mu, istd);
      // Corrected two-pass: squares and sum of the deviations from the
      // rounded mean (the row is in L1).
      const C m = rms ? C(0) : static_cast<C>(normrow::row_sum(xr, D) / static_cast<double>(D));
      double q, c;
      normrow::row_deviations(xr, D, m, q, c);
      finish_row(k, m, q, c, mu, istd);
    };
    // Rows: per thread a chunk of tiles; per thread three row buffers.
    const auto for_tiles = [&](auto &&body) {
      const auto work = [&](int64_t lo, int64_t hi) {
        std::vector<C> a(static_cast<size_t>(D)), b(static_cast<size_t>(D)), c(static_cast<size_t>(D));
        for (int64_t t = lo; t < hi; ++t) body(t, a.data(), b.data(), c.data());
      };
      if (ctx.pool != nullptr && R * D >= 16384)
        ctx.pool->parallel_for(tiles, work);
      else
        work(0, tiles);
    };
    const int64_t out_bytes = R * D * static_cast<int64_t>(type_info(DT).bits / 8);

    if (!op.backward) {
      void *y = ptr(pack, op.y);
      const C alpha = static_cast<C>(op.blend.alpha), beta = static_cast<C>(op.blend.beta);
      const bool compute = training;
      // FLOAT rows with beta == 0: straight into y, alpha folded into scale and bias.
      constexpr bool kF32 = DT == CUDNN_DATA_FLOAT;
      constexpr bool k16 = DT == CUDNN_DATA_HALF || DT == CUDNN_DATA_BFLOAT16;
      static const bool old16 = env_has_word("FREEDNN_CPU_NORM_ROWS_TUNE", "old16");
      const bool direct = (kF32 || (k16 && !old16)) && beta == C(0);
      if (direct)
        for (int64_t i = 0; i < D; ++i) sc[i] *= alpha, bi[i] *= alpha;
      const bool stream = kF32 && direct && out_bytes >= kStreamBytes && streaming_stores_allowed();
      for_tiles([&](int64_t t, C *xb, C *yr, C *) {
        for (int64_t k = t * kTileRows; k < std::min(R, (t + 1) * kTileRows); ++k) {
          const int64_t off = set_offset(G_, G_.kept_x, k);
          double mu, istd;
          if constexpr (k16) {
            if (direct) {  // the 16-bit row read in place, twice, converted in registers
              const uint16_t *xr16 = static_cast<const uint16_t *>(x) + off;
              if (compute) {
                const C m = rms ? C(0) : head_mean<DT>(xr16, D);
                double q, c;
                normrow::row_deviations_16bit<DT>(xr16, D, m, q, c);
                finish_row(k, m, q, c, mu, istd);
              } else {
                given_row(k, mu, istd);
              }
              apply_row_16bit<DT>(xr16, static_cast<uint16_t *>(y) + off, D, static_cast<C>(mu),
                                  static_cast<C>(istd), sc.data(), bi.data());
              continue;
            }
          }
          const C *xr = row_view<DT>(x, off, D, xb);
          row_stats(k, xr, compute, mu, istd);
          const C m = static_cast<C>(mu), is = static_cast<C>(istd);
          const C *s = sc.data(), *bb = bi.data();
          if constexpr (kF32) {
            if (direct) {
              apply_row_f32(xr, static_cast<float *>(y) + off, D, m, is, s, bb, stream);
              continue;
            }
          }
          for (int64_t i = 0; i < D; ++i) yr[i] = (xr[i] - m) * is * s[i] + bb[i];
          store_row<DT>(y, off, D, yr, alpha, beta);
        }
        if (stream) stream_fence();
      });
      return;
    }

    // Backward. Per tile, the parameter gradients' partial sums in C over
    // the tile's rows (in the thread's buffer), then kept in double.
    void *dy = ptr(pack, op.dy), *dx = ptr(pack, op.dx);
    void *dscale = ptr(pack, op.dscale), *dbias = ptr(pack, op.dbias);
    const bool params = dscale != nullptr || dbias != nullptr;
    std::vector<double> part(params ? static_cast<size_t>(tiles * 2 * D) : 0, 0.0);
    const C alpha = static_cast<C>(op.blend.alpha), beta = static_cast<C>(op.blend.beta);
    const bool compute = op.inv_variance == graph::kNoTensor;
    const C invD = static_cast<C>(1.0 / static_cast<double>(D));
    static const bool no_stream_dx = env_has_word("FREEDNN_CPU_NORM_ROWS_TUNE", "nostreamdx");
    const bool stream_dx =
        DT == CUDNN_DATA_FLOAT && beta == C(0) && out_bytes >= kStreamBytes && streaming_stores_allowed() && !no_stream_dx;
    const auto tile = [&](int64_t t, C *xb, C *gb, C *hr, C *acc, auto params_c) {
      constexpr bool kParams = decltype(params_c)::value;
      if constexpr (kParams) std::fill(acc, acc + 2 * D, C(0));
      for (int64_t k = t * kTileRows; k < std::min(R, (t + 1) * kTileRows); ++k) {
        const int64_t off = set_offset(G_, G_.kept_x, k);
        const C *xr = row_view<DT>(x, off, D, xb);
        const C *gr = row_view<DT>(dy, off, D, gb);
        double mu, istd;
        row_stats(k, xr, compute, mu, istd);
        const C m = static_cast<C>(mu), is = static_cast<C>(istd);
        const C *s = sc.data();
        // One sweep: sum(h), sum(h (x - m)) with h = s dy, and the partials
        // of dscale (dy xhat) and dbias (dy).
        C a1[normrow::kLanes] = {}, a2[normrow::kLanes] = {};
        int64_t i = 0;
        double sh = 0, shd = 0;
#if defined(__AVX2__) && defined(__FMA__)
        if constexpr (std::is_same_v<C, float>) {
          const __m256 vm = _mm256_set1_ps(m), vi = _mm256_set1_ps(is);
          __m256 v1 = _mm256_setzero_ps(), v2 = v1;
          for (; i + 8 <= D; i += 8) {
            if (i % 16 == 0) {
              _mm_prefetch(reinterpret_cast<const char *>(gr + i) + normrow::kPrefetchBytes, _MM_HINT_T0);
              if (compute == false)  // with computed statistics x is in cache already
                _mm_prefetch(reinterpret_cast<const char *>(xr + i) + normrow::kPrefetchBytes, _MM_HINT_T0);
            }
            const __m256 g = _mm256_loadu_ps(gr + i), d = _mm256_sub_ps(_mm256_loadu_ps(xr + i), vm);
            const __m256 h = _mm256_mul_ps(_mm256_loadu_ps(s + i), g);
            v1 = _mm256_add_ps(v1, h);
            v2 = _mm256_fmadd_ps(h, d, v2);
            if constexpr (kParams) {
              _mm256_storeu_ps(acc + i, _mm256_fmadd_ps(_mm256_mul_ps(g, d), vi, _mm256_loadu_ps(acc + i)));
              _mm256_storeu_ps(acc + D + i, _mm256_add_ps(g, _mm256_loadu_ps(acc + D + i)));
            }
          }
          sh = normrow::hsum_double(v1);
          shd = normrow::hsum_double(v2);
        }
#endif
        for (; i + normrow::kLanes <= D; i += normrow::kLanes)
          for (int l = 0; l < normrow::kLanes; ++l) {
            const C g = gr[i + l], d = xr[i + l] - m, h = s[i + l] * g;
            a1[l] += h;
            a2[l] += h * d;
            if constexpr (kParams) {
              acc[i + l] += g * d * is;
              acc[D + i + l] += g;
            }
          }
        for (; i < D; ++i) {
          const C g = gr[i], d = xr[i] - m, h = s[i] * g;
          sh += static_cast<double>(h);
          shd += static_cast<double>(h * d);
          if constexpr (kParams) {
            acc[i] += g * d * is;
            acc[D + i] += g;
          }
        }
        for (int l = 0; l < normrow::kLanes; ++l) sh += static_cast<double>(a1[l]), shd += static_cast<double>(a2[l]);
        // dx = is * (h - mean(h) - xhat * mean(h xhat)) = is h + c0 + (x - m) c1.
        const C mh = rms ? C(0) : static_cast<C>(sh) * invD, mhx = static_cast<C>(shd * istd) * invD;
        const C c0 = -is * mh, c1 = -is * is * mhx;
        if constexpr (DT == CUDNN_DATA_FLOAT) {
          if (beta == C(0)) {
            dx_row_f32(xr, gr, s, static_cast<float *>(dx) + off, D, m, is * alpha, c0 * alpha, c1 * alpha,
                       stream_dx);
            continue;
          }
        }
        for (int64_t j = 0; j < D; ++j) hr[j] = is * (s[j] * gr[j]) + c0 + (xr[j] - m) * c1;
        store_row<DT>(dx, off, D, hr, alpha, beta);
      }
      if (stream_dx) stream_fence();
      if constexpr (kParams) {
        double *pg = part.data() + t * 2 * D;  // sum dy*xhat, then sum dy
        for (int64_t j = 0; j < 2 * D; ++j) pg[j] = static_cast<double>(acc[j]);
      }
    };
    {
      const auto work = [&](int64_t lo, int64_t hi) {
        std::vector<C> a(static_cast<size_t>(D)), b(static_cast<size_t>(D)), c(static_cast<size_t>(D));
        std::vector<C> acc(params ? static_cast<size_t>(2 * D) : 0);
        for (int64_t t = lo; t < hi; ++t) {
          if (params)
            tile(t, a.data(), b.data(), c.data(), acc.data(), std::true_type{});
          else
            tile(t, a.data(), b.data(), c.data(), acc.data(), std::false_type{});
        }
      };
      if (ctx.pool != nullptr && R * D >= 16384)
        ctx.pool->parallel_for(tiles, work);
      else
        work(0, tiles);
    }
    if (!params) return;
    // Each column's tile partials are added in tile order (the same sums on
    // any thread count); a thread takes a range of columns and walks the
    // partials tile by tile, row by row of `part`, not column by column
    // (8 KB apart at D = 1024: one cache miss per addition).
    const double pa = op.param_blend.alpha, pb = op.param_blend.beta;
    const auto combine = [&](int64_t lo, int64_t hi) {
      std::vector<double> a(static_cast<size_t>(hi - lo), 0.0), b(static_cast<size_t>(hi - lo), 0.0);
      for (int64_t t = 0; t < tiles; ++t) {
        const double *pg = part.data() + t * 2 * D;
        for (int64_t i = lo; i < hi; ++i) {
          a[i - lo] += pg[i];
          b[i - lo] += pg[D + i];
        }
      }
      for (int64_t i = lo; i < hi; ++i) {
        if (dscale)
          store_lane(st, dscale, pos_[kDscale][i],
                     pa * a[i - lo] + (pb != 0 ? pb * load_lane(st, dscale, pos_[kDscale][i]) : 0.0));
        if (dbias)
          store_lane(st, dbias, pos_[kDbias][i],
                     pa * b[i - lo] + (pb != 0 ? pb * load_lane(st, dbias, pos_[kDbias][i]) : 0.0));
      }
    };
    if (ctx.pool != nullptr && tiles * D >= 16384)
      ctx.pool->parallel_for(D, combine);
    else
      combine(0, D);
  }

  RowGeometry G_;
  std::vector<std::vector<int64_t>> pos_;
  std::vector<std::vector<int64_t>> stat_strides_;
};

class RowsNormalizationEngine final : public Engine {
 public:
  const char *name() const override { return "cpu.normalization.rows"; }
  DeviceKind device() const override { return DeviceKind::cpu; }
  int priority() const override { return 10; }
  Support supports(const graph::Graph &g) const override { return check_rows(g, nullptr); }
  std::unique_ptr<ExecutionPlan> make_plan(const graph::Graph &g, const std::vector<KnobChoice> &) const override {
    RowGeometry G;
    Support s = check_rows(g, &G);
    if (!s) fail(CUDNN_STATUS_NOT_SUPPORTED, s.reason);
    return std::make_unique<Plan>(*this, g, std::move(G));
  }
};

}  // namespace
}  // namespace fdnn::cpu

using fdnn::cpu::RowsNormalizationEngine;
FDNN_REGISTER_ENGINE(RowsNormalizationEngine)
