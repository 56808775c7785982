// cpu.normalization: the fast CPU engine for a single graph::NormalizationOp
// whose scale and bias have the statistics' shape (batch norm, spatial and
// per-activation): forward inference, forward training, backward, with the
// fused add / activation of the legacy Ex calls. Layer, RMS and instance
// norm, whose scale broadcasts further than the statistics, are declined
// (cpu.normalization.rows and cpu.normalization.instance run them); instance
// norm with N = 1 has the statistics' shape and runs here.
//
// Geometry. x's dims (extent > 1) are sorted by x's strides, largest
// outermost, and merged where every data tensor (x, y, z, dy, dx, dz, mask)
// allows. The innermost merged dim is the vector dim:
//  - rows mode (it is reduced: NCHW batch norm): a set's elements are rows
//    of `inner` elements; each row belongs to one set and is vectorised
//    along its length;
//  - cols mode (it is kept: NHWC batch norm, per-activation): a row holds
//    `inner` neighbouring sets, vectorised across them. When the sets are
//    few (small C) and consecutive rows are adjacent in memory, `fold` rows
//    are read as one wider row and the columns folded back onto their sets.
// Statistics set k is the row-major index over the kept dims in that order.
//
// Cols mode with float compute (FLOAT, HALF, BFLOAT16 data contiguous along
// the row: NHWC batch norm) reads and writes rows through the row kernels of
// normalization_kernels.hpp, which convert in registers: the statistics in
// one sweep (Welford's update), and the plain forward (no fused op, beta 0)
// as y = a' x + b' with alpha folded into a', b'. FLOAT data with 16-128
// sets a row (C a multiple of 16) takes the statistics and the backward's
// gradient sums from register-resident per-channel kernels instead
// (chan_stats_tile, chan_grad_tile), and the plain backward writes dx along
// the row without a staging buffer (bwd_row). Float rows of 512 or more
// sets run the same kernels per 128-column block (chan_stats_tile; the
// gradient sums from 1024 sets, chan_grad_tile) on tiles of 64+ rows, and
// unfolded rows finish their sets in blocks (finish_stats_block).
//
// In cols mode the pass that follows the statistics (or the gradient sums)
// over the same tiles starts each thread on the tiles it read last, still in
// its L2 (TileLog).
//
// Rows mode with sets small enough for a core's L2 runs set-major: one
// thread takes a set from its statistics (or gradient sums) to its output,
// so the second read of x comes from cache.
//
// Work is cut into tiles (a block of rows times a range of columns /
// elements) that do not depend on the thread count. Each tile leaves a
// partial result in scratch (mean and squared deviations of its elements by
// the corrected two-pass algorithm in rows mode, by Welford's update in one
// sweep in cols mode, or the backward sums), and each set combines its
// tiles' partials in a fixed order (in double):
// the results are the same for any thread count and on every run. FLOAT, HALF and BFLOAT16 compute in
// float, DOUBLE in double; operands whose layout or type is not the compute
// type's contiguous one are staged through per-thread buffers, so any strides
// are accepted.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <type_traits>
#include <variant>
#include <vector>

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#endif

#include "core/dtype.hpp"
#include "core/engine.hpp"
#include "core/env_words.hpp"
#include "core/error.hpp"
#include "core/normalization_support.hpp"
#include "core/thread_pool.hpp"
#include "cpu/aligned_vector.hpp"
#include "cpu/cpu_features.hpp"
#include "cpu/dtype_io.hpp"
#include "cpu/normalization_kernels.hpp"
#include "cpu/pointwise_kernels.hpp"

namespace fdnn::cpu {
namespace {

enum Data { kX = 0, kY, kZ, kDY, kDX, kDZ, kMask, kNData };
enum Stat { kScale = 0, kBias, kMean, kInv, kVar, kRmIn, kRvIn, kRmOut, kRvOut, kDscale, kDbias, kNStat };

constexpr int64_t kRowsTile = 8192;    // rows mode: elements per tile (L1 / L2 resident for the two passes)
constexpr int64_t kColsTile = 32768;   // cols mode: elements per tile
constexpr int64_t kColsChunk = 2048;   // cols mode: columns per tile at most
// Cols mode, float, at least kWideMin sets a row (no folding): the
// statistics and gradient sums per block of 128 columns (chan_stats_tile),
// at least kWideRows rows a tile. Not for C = 256: 32x256x28x28 backward
// (x and dy, 51 MB, from memory) took 4.2-7.7 ms against 2.9-3.8 with the
// generic loops (the blocks read each row in two strided halves); training
// within noise.
constexpr int64_t kWideMin = 512;
// The backward's gradient sums by blocks from 1024 sets a row: 32x512x14x14
// backward 1.49-2.54 ms against 1.27-1.69 with the generic loops.
constexpr int64_t kWideGradMin = 1024;
constexpr int64_t kWideRows = 64;
constexpr int64_t kFoldWidth = 512;    // cols mode: folded row width at most
constexpr int64_t kParallelElements = 16384;
constexpr int kMaxDims = 12;  // a tensor's dims at most (the backend's limit): walk_tile's odometer
constexpr int64_t kSetCacheBytes = 1 << 20;  // set-major schedule: a set's inputs fit in L2
constexpr int64_t kStreamBytes = 16 << 20;    // outputs at least this large bypass the caches

struct Uids {
  graph::Uid data[kNData];
  graph::Uid stat[kNStat];
};

Uids uids_of(const graph::NormalizationOp &op) {
  return {{op.x, op.y, op.z, op.dy, op.dx, op.dz, op.mask},
          {op.scale, op.bias, op.mean, op.inv_variance, op.variance, op.running_mean_in, op.running_var_in,
           op.running_mean_out, op.running_var_out, op.dscale, op.dbias}};
}

Support check_graph(const graph::Graph &g) {
  if (Support s = check_single_normalization(g); !s) return s;
  const auto &op = std::get<graph::NormalizationOp>(g.ops().front());
  const graph::Tensor &x = g.tensor(op.x);
  const Uids u = uids_of(op);
  for (int j = 0; j < kNData; ++j)
    if (u.data[j] != graph::kNoTensor && j != kMask && g.tensor(u.data[j]).dtype != x.dtype)
      return Support::no("data tensors differ in type");
  const bool dbl = x.dtype == CUDNN_DATA_DOUBLE;
  if (normalization_computes_in_double(op) != dbl) return Support::no("compute type does not fit x's type");
  const cudnnDataType_t ct = dbl ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
  const std::vector<int64_t> st_dims = normalization_stats_dims(g, op);
  for (int j = 0; j < kNStat; ++j) {
    if (u.stat[j] == graph::kNoTensor) continue;
    const graph::Tensor &t = g.tensor(u.stat[j]);
    if (t.dtype != ct) return Support::no(cat("statistics and parameters must be ", type_info(ct).enum_name));
    if (t.dims != st_dims) return Support::no("scale / bias broadcast differently from the statistics");
    if (t.by_value) return Support::no("a statistics tensor is a by-value scalar");
  }
  if (x.rank() > kMaxDims) return Support::no("more than 12 dims");
  const NormShape s = normalization_shape(g, op);
  if (s.count >= (int64_t{1} << 40) || s.groups >= (int64_t{1} << 40)) return Support::no("problem too large");
  return Support::yes();
}

// ---- Geometry ---------------------------------------------------------------

struct Geometry {
  bool cols = false;
  int64_t inner = 1;  // elements of a row (cols mode: after folding)
  int64_t width = 1;  // cols mode: sets per row before folding (W)
  int64_t fold = 1;   // cols mode: rows read as one
  std::vector<int64_t> kdims, rdims;                   // outer kept dims, reduced row dims
  std::vector<int64_t> kstr[kNData], rstr[kNData];     // their strides per data tensor
  int64_t istr[kNData] = {};                           // the vector dim's stride per data tensor
  int64_t kcount = 1, rcount = 1;                      // products of kdims / rdims
  std::vector<int64_t> sdims;                          // every kept dim (unmerged, sorted)
  std::vector<int64_t> sstr[kNStat];                   // their strides per statistics tensor
  int64_t groups = 1, count = 1;
  // Tiles: kcount x nrb x nch, each rows [rb*B, +B) and elements / columns [ch*chunk, +chunk).
  int64_t B = 1, nrb = 1, chunk = 1, nch = 1, tiles = 1;
  int64_t elements = 0;
  size_t partial_doubles = 0;
};

Geometry make_geometry(const graph::Graph &g) {
  const auto &op = std::get<graph::NormalizationOp>(g.ops().front());
  const graph::Tensor &x = g.tensor(op.x);
  const NormShape shape = normalization_shape(g, op);
  const Uids u = uids_of(op);
  struct Dim {
    int64_t extent;
    bool reduced;
    int64_t data[kNData];
    int64_t stat[kNStat];
  };
  std::vector<Dim> dims;
  for (int d = 0; d < x.rank(); ++d) {
    if (x.dims[d] == 1) continue;
    Dim m{x.dims[d], shape.reduced[d], {}, {}};
    for (int j = 0; j < kNData; ++j)
      if (u.data[j] != graph::kNoTensor) m.data[j] = g.tensor(u.data[j]).strides[d];
    for (int j = 0; j < kNStat; ++j)
      if (u.stat[j] != graph::kNoTensor && !m.reduced) m.stat[j] = g.tensor(u.stat[j]).strides[d];
    dims.push_back(m);
  }
  std::stable_sort(dims.begin(), dims.end(),
                   [](const Dim &a, const Dim &b) { return std::llabs(a.data[kX]) > std::llabs(b.data[kX]); });
  Geometry G;
  for (const Dim &d : dims)
    if (!d.reduced) {
      G.sdims.push_back(d.extent);
      for (int j = 0; j < kNStat; ++j) G.sstr[j].push_back(d.stat[j]);
    }
  std::vector<Dim> merged;
  for (const Dim &d : dims) {
    if (!merged.empty()) {
      Dim &o = merged.back();
      bool ok = o.reduced == d.reduced;
      for (int j = 0; ok && j < kNData; ++j) ok = o.data[j] == d.data[j] * d.extent;
      if (ok) {
        o.extent *= d.extent;
        for (int j = 0; j < kNData; ++j) o.data[j] = d.data[j];
        continue;
      }
    }
    merged.push_back(d);
  }
  if (merged.empty()) merged.push_back(Dim{1, false, {}, {}});
  const Dim last = merged.back();
  merged.pop_back();
  G.cols = !last.reduced;
  G.inner = G.width = last.extent;
  for (int j = 0; j < kNData; ++j) G.istr[j] = last.data[j];
  for (const Dim &d : merged) {
    auto &list = d.reduced ? G.rdims : G.kdims;
    list.push_back(d.extent);
    for (int j = 0; j < kNData; ++j) (d.reduced ? G.rstr : G.kstr)[j].push_back(d.data[j]);
  }
  for (int64_t e : G.kdims) G.kcount *= e;
  for (int64_t e : G.rdims) G.rcount *= e;
  G.groups = shape.groups;
  G.count = shape.count;
  G.elements = x.element_count();

  // Folding (cols mode, few sets per row): rows r and r+1 of the innermost
  // reduced dim must continue one another in every data tensor.
  if (G.cols && G.width < kFoldWidth / 2 && !G.rdims.empty()) {
    bool adjacent = true;
    for (int j = 0; j < kNData; ++j)
      if (u.data[j] != graph::kNoTensor && G.rstr[j].back() != G.width * G.istr[j]) adjacent = false;
    if (adjacent) {
      const int64_t e = G.rdims.back();
      int64_t m = 1;
      for (int64_t f = kFoldWidth / G.width; f >= 2; --f)
        if (e % f == 0) {
          m = f;
          break;
        }
      if (m > 1) {
        G.fold = m;
        G.inner = G.width * m;
        G.rdims.back() /= m;
        G.rcount /= m;
        for (int j = 0; j < kNData; ++j) G.rstr[j].back() *= m;
      }
    }
  }

  if (!G.cols) {
    if (G.inner >= kRowsTile) {
      G.nch = (G.inner + kRowsTile - 1) / kRowsTile;
      G.chunk = (G.inner + G.nch - 1) / G.nch;
      G.B = 1;
    } else {
      G.nch = 1;
      G.chunk = G.inner;
      G.B = std::clamp<int64_t>(kRowsTile / G.inner, 1, G.rcount);
    }
  } else {
    G.nch = (G.inner + kColsChunk - 1) / kColsChunk;
    G.chunk = (G.inner + G.nch - 1) / G.nch;
    G.B = std::clamp<int64_t>(kColsTile / G.chunk, 1, G.rcount);
    // Float rows of more than 128 sets (the per-128-column kernels, see
    // chan_stats_tile): at least 64 rows a tile (a 128-column block's rows,
    // 32 KB, stay in L1 / L2 for the second pass), fewer partials for the
    // finish (32x2048x7x7: 98 tiles of 16 rows, 3.2 MB of partials, -> 25).
    static const bool no_wide = env_has_word("FREEDNN_CPU_NORM_TUNE", "nowide");
    if (!no_wide && x.dtype == CUDNN_DATA_FLOAT && G.fold == 1 && G.width >= kWideMin)
      G.B = std::clamp<int64_t>(std::max<int64_t>(G.B, kWideRows), 1, G.rcount);
  }
  G.nch = (G.inner + G.chunk - 1) / G.chunk;
  G.nrb = (G.rcount + G.B - 1) / G.B;
  G.tiles = G.kcount * G.nrb * G.nch;
  G.partial_doubles = static_cast<size_t>(2 * G.tiles * (G.cols ? G.chunk : 1));
  return G;
}

// Offset (elements) of index i over dims with strides.
inline int64_t offset_of(int64_t i, const std::vector<int64_t> &dims, const std::vector<int64_t> &strides) {
  int64_t off = 0;
  for (size_t d = dims.size(); d-- > 0;) {
    off += (i % dims[d]) * strides[d];
    i /= dims[d];
  }
  return off;
}

// ---- Vector kernels ------------------------------------------------------------

template <class A>
constexpr int kLanes = std::is_same_v<A, float> ? 16 : 8;

template <class A>
inline A sum_of(const A *p, int64_t n) {
  constexpr int L = kLanes<A>;
  A acc[L] = {};
  int64_t i = 0;
  for (; i + L <= n; i += L)
    for (int j = 0; j < L; ++j) acc[j] += p[i + j];
  A s = 0;
  for (int j = 0; j < L; ++j) s += acc[j];
  for (; i < n; ++i) s += p[i];
  return s;
}

// Sum of (p - shift)^2 and of (p - shift): the second pass of the corrected
// two-pass algorithm (the first sum is corrected by the square of the second).
template <class A>
inline void dev_sums(const A *p, int64_t n, A shift, A &sq, A &lin) {
  constexpr int L = kLanes<A>;
  A acc[L] = {}, acl[L] = {};
  int64_t i = 0;
  for (; i + L <= n; i += L)
    for (int j = 0; j < L; ++j) {
      const A d = p[i + j] - shift;
      acc[j] += d * d;
      acl[j] += d;
    }
  A s = 0, l = 0;
  for (int j = 0; j < L; ++j) {
    s += acc[j];
    l += acl[j];
  }
  for (; i < n; ++i) {
    const A d = p[i] - shift;
    s += d * d;
    l += d;
  }
  sq += s;
  lin += l;
}

// sg += sum g, sgx += sum g * (x - mean).
template <class A>
inline void grad_sums(const A *gp, const A *xp, int64_t n, A mean, A &sg, A &sgx) {
  constexpr int L = kLanes<A>;
  A a1[L] = {}, a2[L] = {};
  int64_t i = 0;
  for (; i + L <= n; i += L)
    for (int j = 0; j < L; ++j) {
      a1[j] += gp[i + j];
      a2[j] += gp[i + j] * (xp[i + j] - mean);
    }
  A s1 = 0, s2 = 0;
  for (int j = 0; j < L; ++j) {
    s1 += a1[j];
    s2 += a2[j];
  }
  for (; i < n; ++i) {
    s1 += gp[i];
    s2 += gp[i] * (xp[i] - mean);
  }
  sg += s1;
  sgx += s2;
}

#if defined(__AVX2__) && defined(__FMA__)
// Float versions with explicit AVX2 / FMA: four accumulators of 8 lanes
// (the generic loops above compile to lane shuffles for the paired sums).
inline float hsum(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}

template <>
inline float sum_of<float>(const float *p, int64_t n) {
  __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    a0 = _mm256_add_ps(a0, _mm256_loadu_ps(p + i));
    a1 = _mm256_add_ps(a1, _mm256_loadu_ps(p + i + 8));
    a2 = _mm256_add_ps(a2, _mm256_loadu_ps(p + i + 16));
    a3 = _mm256_add_ps(a3, _mm256_loadu_ps(p + i + 24));
  }
  for (; i + 8 <= n; i += 8) a0 = _mm256_add_ps(a0, _mm256_loadu_ps(p + i));
  float s = hsum(_mm256_add_ps(_mm256_add_ps(a0, a1), _mm256_add_ps(a2, a3)));
  for (; i < n; ++i) s += p[i];
  return s;
}

template <>
inline void dev_sums<float>(const float *p, int64_t n, float shift, float &sq, float &lin) {
  const __m256 sh = _mm256_set1_ps(shift);
  __m256 q0 = _mm256_setzero_ps(), q1 = q0, l0 = q0, l1 = q0;
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m256 d0 = _mm256_sub_ps(_mm256_loadu_ps(p + i), sh);
    const __m256 d1 = _mm256_sub_ps(_mm256_loadu_ps(p + i + 8), sh);
    q0 = _mm256_fmadd_ps(d0, d0, q0);
    q1 = _mm256_fmadd_ps(d1, d1, q1);
    l0 = _mm256_add_ps(l0, d0);
    l1 = _mm256_add_ps(l1, d1);
  }
  float s = hsum(_mm256_add_ps(q0, q1)), l = hsum(_mm256_add_ps(l0, l1));
  for (; i < n; ++i) {
    const float d = p[i] - shift;
    s += d * d;
    l += d;
  }
  sq += s;
  lin += l;
}

template <>
inline void grad_sums<float>(const float *gp, const float *xp, int64_t n, float mean, float &sg, float &sgx) {
  const __m256 m = _mm256_set1_ps(mean);
  __m256 g0 = _mm256_setzero_ps(), g1 = g0, x0 = g0, x1 = g0;
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m256 a = _mm256_loadu_ps(gp + i), b = _mm256_loadu_ps(gp + i + 8);
    g0 = _mm256_add_ps(g0, a);
    g1 = _mm256_add_ps(g1, b);
    x0 = _mm256_fmadd_ps(a, _mm256_sub_ps(_mm256_loadu_ps(xp + i), m), x0);
    x1 = _mm256_fmadd_ps(b, _mm256_sub_ps(_mm256_loadu_ps(xp + i + 8), m), x1);
  }
  float s1 = hsum(_mm256_add_ps(g0, g1)), s2 = hsum(_mm256_add_ps(x0, x1));
  for (; i < n; ++i) {
    s1 += gp[i];
    s2 += gp[i] * (xp[i] - mean);
  }
  sg += s1;
  sgx += s2;
}
#endif

// ---- Tile order between passes --------------------------------------------------

// A small number naming the calling thread (pool workers and callers alike).
inline int thread_slot() {
  static std::atomic<int> next{0};
  thread_local const int slot = next.fetch_add(1, std::memory_order_relaxed);
  return slot;
}

// Which thread ran which tiles of a pass over x, and in what order (by the
// pool's chunks of consecutive tiles: one shared counter update a chunk, not
// a tile). The next pass over the same tiles (forward training's y after
// the statistics, the backward's dx after the gradient sums) starts each
// thread on its own tiles, newest first, whose x (and dy) are still in its
// L2, then on the others' tiles, oldest first (those their caches have
// dropped by now). Handed out by the pool instead, the tiles a core's L2
// still holds (2 MiB on the Xeon guest this was measured on: the last 3-4
// of 32x2048x7x7's 25) mostly went to the other core, or were evicted
// before their turn came.
class TileLog {
 public:
  explicit TileLog(int64_t n) : n_(n), chunks_(static_cast<size_t>(n)) {}

  // Records that the calling thread has finished tiles [lo, hi).
  void done(int64_t lo, int64_t hi) {
    chunks_[next_.fetch_add(1, std::memory_order_relaxed)] = {lo, hi, thread_slot()};
  }

  // Prepares replay(): after the logged pass has joined, before the next.
  void rewind() {
    order_.clear();
    slot_.assign(static_cast<size_t>(n_), -1);
    for (int64_t c = 0; c < next_.load(std::memory_order_relaxed); ++c)
      for (int64_t t = chunks_[c].lo; t < chunks_[c].hi; ++t) {
        order_.push_back(t);
        slot_[t] = chunks_[c].slot;
      }
    claimed_.reset(new std::atomic<bool>[static_cast<size_t>(n_)]);
    for (int64_t t = 0; t < n_; ++t) claimed_[t].store(false, std::memory_order_relaxed);
  }

  // Runs f(t) for the tiles not yet claimed, the calling thread's own first
  // (newest first), then the rest (oldest first). Every thread of the next
  // pass calls it; each tile runs once.
  template <class F>
  void replay(F &&f) {
    const int me = thread_slot();
    for (size_t i = order_.size(); i-- > 0;)
      if (slot_[order_[i]] == me) claim(order_[i], f);
    for (int64_t t : order_) claim(t, f);
  }

 private:
  template <class F>
  void claim(int64_t t, F &&f) {
    if (!claimed_[t].load(std::memory_order_relaxed) && !claimed_[t].exchange(true, std::memory_order_relaxed)) f(t);
  }

  struct Chunk {
    int64_t lo = 0, hi = 0;
    int slot = -1;
  };
  int64_t n_;
  std::vector<Chunk> chunks_;  // in the order they finished
  std::atomic<int64_t> next_{0};
  std::vector<int64_t> order_;  // the tiles in the order they finished
  std::vector<int> slot_;       // per tile: the thread that ran it
  std::unique_ptr<std::atomic<bool>[]> claimed_;
};

// ---- Plan ---------------------------------------------------------------------

class Plan final : public ExecutionPlan {
 public:
  Plan(const Engine &e, const graph::Graph &g) : ExecutionPlan(e), G_(make_geometry(g)) {
    // Statistics offsets per set, shared by the statistics tensors with the
    // first one's strides (usually all: one descriptor for them all).
    const Uids u = uids_of(std::get<graph::NormalizationOp>(g.ops().front()));
    for (int j = 0; j < kNStat; ++j) {
      if (u.stat[j] == graph::kNoTensor) continue;
      if (table_of_ < 0) {
        table_of_ = j;
        set_offset_.resize(static_cast<size_t>(G_.groups));
        for (int64_t k = 0; k < G_.groups; ++k) set_offset_[k] = offset_of(k, G_.sdims, G_.sstr[j]);
      }
      uses_table_[j] = G_.sstr[j] == G_.sstr[table_of_];
    }
  }

  size_t scratch_size() const override { return G_.partial_doubles * sizeof(double); }

  void execute(const ExecContext &ctx, const graph::Graph &g, const VariantPack &pack) const override {
    const auto &op = std::get<graph::NormalizationOp>(g.ops().front());
    if (g.tensor(op.x).dtype == CUDNN_DATA_DOUBLE) run<double>(ctx, g, pack);
    else run<float>(ctx, g, pack);
  }

 private:
  // One execution's pointers, per-set values and scratch.
  template <class A>
  struct Exec {
    const graph::NormalizationOp *op = nullptr;
    char *base[kNData] = {};
    int64_t es[kNData] = {};
    LoadFn<A> load = nullptr;
    StoreFn<A> store = nullptr, store_plain = nullptr;
    bool direct = false;  // data type is A
    void *stat[kNStat] = {};
    double *part = nullptr;
    bool stats_given = false, training = false, relu = false;
    bool stream = false;  // the output is large: non-temporal stores where it is plain
    A clip = 0, alpha = 1, beta = 0;
    // Per set (k); in cols mode the hot-loop arrays are expanded to
    // kb * inner + column (see expand()).
    // 64-byte aligned (LineVector): the row kernels read them a register at
    // a time alongside x.
    LineVector<A> mu, istd, c1, c2, c3;  // forward: c1 = a, c2 = b
    LineVector<A> mu_x;                  // backward, cols mode: mu expanded
    // Float compute, cols mode: row kernels of x's storage type
    // (normalization_kernels.hpp). welford: x contiguous along the row;
    // affine: the forward is y = c1 * x + c2 with alpha folded in (no z,
    // activation, mask or beta), x and y contiguous along the row.
    normk::WelfordFn welford = nullptr;
    normk::AffineFn affine = nullptr;
    // Float data, cols mode, 16-128 sets a row (see chan_stats_tile).
    normk::ChanStatsFn chan_stats = nullptr;
    // Backward, float, cols mode, no activation: the gradient sums for
    // 16-128 sets a row (chan_grad_tile), dx along the row (bwd_row, no dz,
    // beta 0).
    normk::ChanGradFn chan_grad = nullptr;
    normk::BwdRowFn bwd_row = nullptr;
    // Float data, cols mode, more than 128 sets a row (no folding), chunks
    // of whole 16-float vectors: chan_stats / chan_grad per block of 128
    // columns over the tile (chan_stats_tile, chan_grad_tile).
    bool wide = false;
  };

  // Runs f(i) for i in [0, n), on the pool when the problem is large; logs
  // the chunks in `log` where given.
  template <class F>
  void parallel(const ExecContext &ctx, int64_t n, int64_t work, F &&f, TileLog *log = nullptr) const {
    auto body = [&](int64_t lo, int64_t hi) {
      for (int64_t t = lo; t < hi; ++t) f(t);
      if (log != nullptr) log->done(lo, hi);
    };
    if (ctx.pool == nullptr || ctx.pool->size() <= 1 || n < 2 || work < kParallelElements) {
      body(0, n);
      return;
    }
    ctx.pool->parallel_for(n, body, std::min<int64_t>(n, ctx.pool->size() * 4));
  }

  // The second pass over the tiles of a pass logged in `log`: f(t) for
  // every tile, each pool thread taking its own tiles first (TileLog); in
  // the pool's order where log is null (nothing logged).
  template <class F>
  void parallel_replay(const ExecContext &ctx, TileLog *log, F &&f) const {
    if (log == nullptr) {
      parallel(ctx, G_.tiles, G_.elements, f);
      return;
    }
    log->rewind();
    const int threads = ctx.pool != nullptr ? ctx.pool->size() : 1;
    if (threads <= 1 || G_.tiles < 2 || G_.elements < kParallelElements) {
      log->replay(f);
      return;
    }
    ctx.pool->parallel_for(threads, [&](int64_t, int64_t) { log->replay(f); }, threads);
  }

  // Calls f(off[kNData], row index j within the tile, n, c0, kb) for every
  // row segment of tile t; off are element offsets of the segment's start.
  template <class F>
  void walk_tile(int64_t t, F &&f) const {
    const int64_t ch = t % G_.nch, rb = (t / G_.nch) % G_.nrb, kb = t / (G_.nch * G_.nrb);
    const int64_t c0 = ch * G_.chunk, n = std::min(G_.inner, c0 + G_.chunk) - c0;
    const int64_t r0 = rb * G_.B, r1 = std::min(G_.rcount, r0 + G_.B);
    int64_t off[kNData];
    for (int j = 0; j < kNData; ++j)
      off[j] = offset_of(kb, G_.kdims, G_.kstr[j]) + c0 * G_.istr[j] + offset_of(r0, G_.rdims, G_.rstr[j]);
    // The row's index over rdims, advanced like an odometer with the
    // offsets alongside: working each row's offsets out anew (a division
    // per dim and tensor) cost more than the row itself at rows of a few
    // hundred floats (NHWC batch norm's 2 KB folded rows).
    const int nd = static_cast<int>(G_.rdims.size());
    int64_t idx[kMaxDims] = {};
    for (int64_t d = nd - 1, r = r0; d >= 0; --d) idx[d] = r % G_.rdims[d], r /= G_.rdims[d];
    for (int64_t r = r0; r < r1; ++r) {
      f(off, r - r0, n, c0, kb);
      for (int d = nd - 1; d >= 0; --d) {
        for (int j = 0; j < kNData; ++j) off[j] += G_.rstr[j][d];
        if (++idx[d] < G_.rdims[d] || d == 0) break;
        for (int j = 0; j < kNData; ++j) off[j] -= G_.rdims[d] * G_.rstr[j][d];
        idx[d] = 0;
      }
    }
  }

  template <class A>
  const A *fetch(const Exec<A> &ex, int j, const int64_t *off, int64_t n, A *buf) const {
    const char *p = ex.base[j] + off[j] * ex.es[j];
    if (ex.direct && G_.istr[j] == 1) return reinterpret_cast<const A *>(p);
    ex.load(p, G_.istr[j], static_cast<int>(n), buf);
    return buf;
  }

  // The gradient reaching the normalization: dy, zero where the forward's
  // activation had a zero derivative.
  template <class A>
  const A *gradient(const Exec<A> &ex, const int64_t *off, int64_t n, A *buf) const {
    const A *d = fetch(ex, kDY, off, n, buf);
    if (!ex.op->has_activation) return d;
    const uint8_t *m = reinterpret_cast<const uint8_t *>(ex.base[kMask]) + off[kMask];
    const int64_t ms = G_.istr[kMask];
    if (ms == 1) {
      for (int64_t i = 0; i < n; ++i) buf[i] = m[i] ? d[i] : A(0);
    } else {
      for (int64_t i = 0; i < n; ++i) buf[i] = m[i * ms] ? d[i] : A(0);
    }
    return buf;
  }

  // Tile t's mean and squared deviations into part: rows mode by the
  // corrected two-pass algorithm over the (cache-resident) tile, cols mode by
  // welford_tile.
  template <class A>
  void stats_tile(const Exec<A> &ex, int64_t t) const {
    if (G_.cols) {
      welford_tile(ex, t);
      return;
    }
    thread_local std::vector<A> buf;
    thread_local std::vector<const A *> rows;
    const int64_t tile_elems = G_.B * G_.chunk;
    if (buf.size() < static_cast<size_t>(tile_elems)) buf.resize(static_cast<size_t>(tile_elems));
    if (rows.size() < static_cast<size_t>(G_.B)) rows.resize(static_cast<size_t>(G_.B));
    int64_t nrows = 0, len = 0;
    walk_tile(t, [&](const int64_t *off, int64_t j, int64_t n, int64_t, int64_t) {
      rows[j] = fetch(ex, kX, off, n, buf.data() + j * n);
      nrows = j + 1;
      len = n;
    });
    double *part = ex.part;
    A s = 0;
    for (int64_t j = 0; j < nrows; ++j) s += sum_of(rows[j], len);
    const double cnt = static_cast<double>(nrows * len);
    const A shift = static_cast<A>(s / static_cast<A>(cnt));
    A sq = 0, lin = 0;
    for (int64_t j = 0; j < nrows; ++j) dev_sums(rows[j], len, shift, sq, lin);
    part[2 * t] = static_cast<double>(shift) + static_cast<double>(lin) / cnt;
    part[2 * t + 1] = static_cast<double>(sq) - static_cast<double>(lin) * static_cast<double>(lin) / cnt;
  }

  // Welford's update of per-column (mean, m2) of x - shift by row p:
  // rn = 1 / (rows so far).
  template <class A>
  static void welford_generic(const A *__restrict p, const A *__restrict shift, int64_t n, A *__restrict mean,
                              A *__restrict m2, A rn) {
    for (int64_t c = 0; c < n; ++c) {
      const A x = p[c] - shift[c];
      const A d = x - mean[c];
      const A m = mean[c] + d * rn;
      mean[c] = m;
      m2[c] += d * (x - m);
    }
  }

  // Cols mode: tile t's per-column mean and squared deviations in one sweep
  // over its rows, into part: Welford's update (in the compute type) of x
  // minus the tile's first row (see normalization_kernels.hpp).
  template <class A>
  void welford_tile(const Exec<A> &ex, int64_t t) const {
    if constexpr (std::is_same_v<A, float>) {
      if (ex.chan_stats != nullptr) {
        chan_stats_tile(ex, t);
        return;
      }
    }
    thread_local std::vector<A> buf;
    const int64_t n_max = G_.chunk, pitch = n_max + 16;  // not 4 KiB apart (false store-to-load aliasing)
    if (buf.size() < static_cast<size_t>(4 * pitch)) buf.resize(static_cast<size_t>(4 * pitch));
    A *xb = buf.data(), *shift = buf.data() + pitch, *mean = buf.data() + 2 * pitch, *m2 = buf.data() + 3 * pitch;
    std::fill(mean, mean + n_max, A(0));
    std::fill(m2, m2 + n_max, A(0));
    int64_t len = 0, nrows = 0;
    const bool kernel = ex.welford != nullptr && G_.istr[kX] == 1;
    walk_tile(t, [&](const int64_t *off, int64_t j, int64_t n, int64_t, int64_t) {
      len = n;
      nrows = j + 1;
      if (j == 0) {  // the shift; its own deviation is 0: mean and m2 stay 0
        const A *p = fetch(ex, kX, off, n, shift);
        if (p != shift) std::copy(p, p + n, shift);
        return;
      }
      const A rn = A(1) / static_cast<A>(j + 1);
      if constexpr (std::is_same_v<A, float>) {
        if (kernel) {
          ex.welford(ex.base[kX] + off[kX] * ex.es[kX], shift, n, mean, m2, rn);
          return;
        }
      }
      welford_generic(fetch(ex, kX, off, n, xb), shift, n, mean, m2, rn);
    });
    double *out = ex.part + 2 * t * G_.chunk;
    if (G_.fold == 1) {
      for (int64_t c = 0; c < len; ++c) {
        out[2 * c] = static_cast<double>(shift[c]) + static_cast<double>(mean[c]);
        out[2 * c + 1] = static_cast<double>(m2[c]);
      }
      return;
    }
    // Folded rows (one chunk: the row is short): the fold columns of set c
    // have the same count, so they combine here, into out[2c], out[2c+1]
    // (fewer partials for finish_stats to visit; see visit_stat_partials).
    const int64_t w = G_.width;
    for (int64_t c = 0; c < w; ++c) {
      double sum = 0;
      for (int64_t f = 0; f < G_.fold; ++f) sum += static_cast<double>(shift[f * w + c]) + static_cast<double>(mean[f * w + c]);
      const double mu = sum / static_cast<double>(G_.fold);
      double q = 0, dev = 0;
      for (int64_t f = 0; f < G_.fold; ++f) {
        const double d = static_cast<double>(shift[f * w + c]) + static_cast<double>(mean[f * w + c]) - mu;
        q += static_cast<double>(m2[f * w + c]);
        dev += d * d;
      }
      out[2 * c] = mu;
      out[2 * c + 1] = q + static_cast<double>(nrows) * dev;
    }
  }

  // Cols mode, float x contiguous along rows of W = 16..128 sets (NHWC
  // batch norm with C a multiple of 16 up to 128): tile t's per-set mean and
  // m2 by the corrected two-pass algorithm over the tile (normk chan_stats:
  // the sums, then the deviations from the tile in L2, the accumulators in
  // registers), into the folded partials' layout (one (mean, m2) per set and
  // tile, count rows * fold; for fold 1 the same as per column).
  //
  // Why: back-to-back calls find x (25.7 MB for 32x64x56x56) in L2 + L3
  // (32 MiB on this Zen 4 guest) when y is streamed past the caches, so the
  // statistics sweep is bound by its instructions, not by memory: Welford's
  // update (mean and m2 loaded and stored for every element) ran at ~60 GB/s
  // of x, a plain sum from L3 at ~120 GB/s. 2 threads, 32x64x56x56 f32
  // training: the statistics sweep 0.79-0.83 -> 0.40-0.46 ms, the call
  // 1.39-1.93 -> 1.38-1.46 ms, ours / oneDNN 0.75-0.95 -> 1.04-1.19
  // (alternating processes; see docs/perf.md). Two register passes over the
  // tile beat one: a single pass from a shift (the tile's first row) would
  // cancel where that row lies far from the mean.
  // FREEDNN_CPU_NORM_TUNE=welford: Welford's row kernel as before.
  //
  // Wide rows (ex.wide: rows of kWideMin sets or more, NHWC batch norm with
  // C = 512, 2048, no folding): chan_stats on each block of 128 columns of
  // the tile in turn (the rows strided by the row length, the block's rows,
  // 64 x 512 B, in L1 / L2 for the second pass), per-column (mean, m2) as
  // welford_tile leaves them. Welford's row kernel (mean and m2 loaded and
  // stored per element, 16 KB of them for C = 2048) was bound by its
  // instructions. 2 threads, instrumented, per call: 32x2048x7x7 training
  // statistics sweep 0.46-0.53 -> ~0.27 ms, finish 0.35-0.41 -> 0.04 ms
  // (with the block finish and 64-row tiles), the call 1.56-1.96 -> 0.80-1.14
  // ms (ours / oneDNN 0.40 -> 0.69-0.90); 32x512x14x14 statistics 0.31-0.33
  // -> 0.22-0.27 ms. FREEDNN_CPU_NORM_TUNE=nowide: Welford's kernel, the
  // generic gradient loops and 16-row tiles as before.
  void chan_stats_tile(const Exec<float> &ex, int64_t t) const {
    thread_local std::vector<const float *> rows;
    if (rows.size() < static_cast<size_t>(G_.B)) rows.resize(static_cast<size_t>(G_.B));
    int64_t nrows = 0, len = 0;
    walk_tile(t, [&](const int64_t *off, int64_t j, int64_t n, int64_t, int64_t) {
      rows[j] = reinterpret_cast<const float *>(ex.base[kX]) + off[kX];
      nrows = j + 1;
      len = n;
    });
    double *out = ex.part + 2 * t * G_.chunk;
    if (!ex.wide) {
      ex.chan_stats(rows.data(), nrows, G_.fold, out, out + 1);
      return;
    }
    // Wide rows: each block of kWideBlock columns in turn.
    for (int64_t cb = 0; cb < len; cb += kWideBlock) {
      const int64_t w = std::min(kWideBlock, len - cb);
      if (cb > 0)
        for (int64_t j = 0; j < nrows; ++j) rows[j] += kWideBlock;
      normk::chan_stats_for(w)(rows.data(), nrows, 1, out + 2 * cb, out + 2 * cb + 1);
    }
  }

  static constexpr int64_t kWideBlock = 128;

  // Backward, cols mode as chan_stats_tile: tile t's per-set sum g and
  // sum g (x - mean) with the sums in registers (normk chan_grad), in the
  // folded partials' layout. The generic loop below keeps both sums per
  // column in memory (two loads and two stores an element), and the generic
  // dx loop stages each row through a buffer (bwd_row writes dx directly).
  // 2 threads, 32x64x56x56 f32 backward, six processes each alternating:
  // 2.69-3.61 ms (median 2.87) -> 1.61-2.59 (2.06), ours / oneDNN 0.92 ->
  // 1.20 (medians); FREEDNN_CPU_NORM_TUNE=oldbwd: the generic loops.
  // Wide rows (from kWideGradMin sets a row): chan_grad per block of
  // kWideBlock columns. 32x2048x7x7 backward, 2 threads: 2.17-3.09 ->
  // 1.49-1.91 ms with the block finish and 64-row tiles (alternating).
  void chan_grad_tile(const Exec<float> &ex, int64_t t) const {
    thread_local std::vector<const float *> rows;
    if (rows.size() < static_cast<size_t>(2 * G_.B)) rows.resize(static_cast<size_t>(2 * G_.B));
    const float **gr = rows.data(), **xr = rows.data() + G_.B;
    int64_t nrows = 0, len = 0, k0 = 0;
    walk_tile(t, [&](const int64_t *off, int64_t j, int64_t n, int64_t c0, int64_t kb) {
      gr[j] = reinterpret_cast<const float *>(ex.base[kDY]) + off[kDY];
      xr[j] = reinterpret_cast<const float *>(ex.base[kX]) + off[kX];
      nrows = j + 1;
      len = n;
      k0 = kb * G_.width + c0;
    });
    double *out = ex.part + 2 * t * G_.chunk;
    if (!ex.wide) {
      ex.chan_grad(gr, xr, nrows, G_.fold, ex.mu.data() + k0, out, out + 1);
      return;
    }
    for (int64_t cb = 0; cb < len; cb += kWideBlock) {
      const int64_t w = std::min(kWideBlock, len - cb);
      if (cb > 0)
        for (int64_t j = 0; j < nrows; ++j) gr[j] += kWideBlock, xr[j] += kWideBlock;
      normk::chan_grad_for(w)(gr, xr, nrows, 1, ex.mu.data() + k0 + cb, out + 2 * cb, out + 2 * cb + 1);
    }
  }

  // Tile t's sum g and sum g * (x - mean) into part (backward).
  template <class A>
  void grad_tile(const Exec<A> &ex, int64_t t) const {
    if constexpr (std::is_same_v<A, float>) {
      if (ex.chan_grad != nullptr) {
        chan_grad_tile(ex, t);
        return;
      }
    }
    thread_local std::vector<A> buf;
    const int64_t n_max = G_.chunk;
    if (buf.size() < static_cast<size_t>(4 * n_max)) buf.resize(static_cast<size_t>(4 * n_max));
    A *gb = buf.data(), *xb = buf.data() + n_max, *sg = buf.data() + 2 * n_max, *sgx = buf.data() + 3 * n_max;
    A s1 = 0, s2 = 0;
    int64_t len = 0;
    if (G_.cols) std::fill(sg, sg + 2 * n_max, A(0));
    const A *mu = G_.cols ? ex.mu_x.data() : ex.mu.data();
    walk_tile(t, [&](const int64_t *off, int64_t, int64_t n, int64_t c0, int64_t kb) {
      const A *gp = gradient(ex, off, n, gb);
      const A *xp = fetch(ex, kX, off, n, xb);
      len = n;
      if (!G_.cols) {
        grad_sums(gp, xp, n, mu[kb], s1, s2);
      } else {
        const A *m = mu + kb * G_.inner + c0;
        for (int64_t c = 0; c < n; ++c) {
          sg[c] += gp[c];
          sgx[c] += gp[c] * (xp[c] - m[c]);
        }
      }
    });
    double *part = ex.part;
    if (!G_.cols) {
      part[2 * t] = s1;
      part[2 * t + 1] = s2;
      return;
    }
    double *out = part + 2 * t * G_.chunk;
    if (G_.fold == 1) {
      for (int64_t c = 0; c < len; ++c) {
        out[2 * c] = sg[c];
        out[2 * c + 1] = sgx[c];
      }
      return;
    }
    // Folded rows: the fold columns of set c combine here, into out[2c],
    // out[2c + 1], as welford_partials does (finish_grad then visits one
    // partial per tile instead of fold of them, each a line apart: 64 sets
    // x 196 tiles x 8 folds took 0.15 ms of a 2.5 ms backward).
    const int64_t w = G_.width;
    for (int64_t c = 0; c < w; ++c) {
      double a = 0, b = 0;
      for (int64_t f = 0; f < G_.fold; ++f) {
        a += static_cast<double>(sg[f * w + c]);
        b += static_cast<double>(sgx[f * w + c]);
      }
      out[2 * c] = a;
      out[2 * c + 1] = b;
    }
  }

  // Forward: y = blend(act(a * x + b [+ z])), mask; c1 = a, c2 = b.
  template <class A>
  void forward_tile(const Exec<A> &ex, int64_t t) const {
    thread_local std::vector<A> buf;
    const int64_t n_max = G_.chunk;
    if (buf.size() < static_cast<size_t>(3 * n_max)) buf.resize(static_cast<size_t>(3 * n_max));
    A *xb = buf.data(), *zb = buf.data() + n_max, *v = buf.data() + 2 * n_max;
    const bool has_z = ex.base[kZ] != nullptr, has_mask = ex.base[kMask] != nullptr, relu = ex.relu;
    const A clip = ex.clip;
    const A *a = ex.c1.data(), *b = ex.c2.data();
    // y of the compute type, contiguous, not read: large ones are streamed
    // past the caches (no read for ownership), the others written in place.
    const bool plain = ex.direct && G_.istr[kY] == 1 && ex.beta == A(0);
    const bool stream = plain && ex.stream;
    const bool in_place = plain && !stream && ex.alpha == A(1) && ex.base[kZ] == nullptr;  // z may alias y
    if constexpr (std::is_same_v<A, float>) {
      if (ex.affine != nullptr) {  // one pass: x's type -> y = a * x + b -> y's type
        const int64_t es = ex.es[kX];
        walk_tile(t, [&](const int64_t *off, int64_t, int64_t n, int64_t c0, int64_t kb) {
          const int64_t o = kb * G_.inner + c0;
          ex.affine(ex.base[kX] + off[kX] * es, ex.base[kY] + off[kY] * es, n, a + o, b + o, ex.stream);
        });
        if (ex.stream) stream_fence();
        return;
      }
    }
    walk_tile(t, [&](const int64_t *off, int64_t, int64_t n, int64_t c0, int64_t kb) {
      const A *xp = fetch(ex, kX, off, n, xb);
      if (in_place) v = reinterpret_cast<A *>(ex.base[kY] + off[kY] * ex.es[kY]);
      if (!G_.cols) {
        const A ak = a[kb], bk = b[kb];
        for (int64_t i = 0; i < n; ++i) v[i] = ak * xp[i] + bk;
      } else {
        const A *ap = a + kb * G_.inner + c0, *bp = b + kb * G_.inner + c0;
        for (int64_t i = 0; i < n; ++i) v[i] = ap[i] * xp[i] + bp[i];
      }
      if (has_z) {
        const A *zp = fetch(ex, kZ, off, n, zb);
        for (int64_t i = 0; i < n; ++i) v[i] += zp[i];
      }
      if (has_mask) {
        uint8_t *m = reinterpret_cast<uint8_t *>(ex.base[kMask]) + off[kMask];
        const int64_t ms = G_.istr[kMask];
        if (ms == 1) {
          for (int64_t i = 0; i < n; ++i) m[i] = (!relu || (v[i] > A(0) && v[i] < clip)) ? 1 : 0;
        } else {
          for (int64_t i = 0; i < n; ++i) m[i * ms] = norm::passes(v[i], relu, clip) ? 1 : 0;
        }
      }
      if (relu)
        for (int64_t i = 0; i < n; ++i) v[i] = v[i] <= A(0) ? A(0) : (v[i] > clip ? clip : v[i]);
      if (stream) stream_scaled(ex.base[kY] + off[kY] * ex.es[kY], v, static_cast<int>(n), ex.alpha);
      else if (!in_place)
        ex.store(ex.base[kY] + off[kY] * ex.es[kY], G_.istr[kY], static_cast<int>(n), v, ex.alpha, ex.beta);
    });
    if (stream) stream_fence();
  }

  // Backward: dx = blend(c1 * g + c2 * (x - mu) + c3), dz = g.
  template <class A>
  void backward_tile(const Exec<A> &ex, int64_t t) const {
    thread_local std::vector<A> buf;
    const int64_t n_max = G_.chunk;
    if (buf.size() < static_cast<size_t>(3 * n_max)) buf.resize(static_cast<size_t>(3 * n_max));
    A *gb = buf.data(), *xb = buf.data() + n_max, *v = buf.data() + 2 * n_max;
    const bool has_dz = ex.base[kDZ] != nullptr;
    const A *c1 = ex.c1.data(), *c2 = ex.c2.data(), *c3 = ex.c3.data();
    const A *mu = G_.cols ? ex.mu_x.data() : ex.mu.data();
    const bool stream = ex.stream && ex.direct && G_.istr[kDX] == 1 && ex.beta == A(0);
    if constexpr (std::is_same_v<A, float>) {
      if (ex.bwd_row != nullptr) {  // float x, dy, dx contiguous along the row: no staging buffer
        walk_tile(t, [&](const int64_t *off, int64_t, int64_t n, int64_t c0, int64_t kb) {
          const int64_t o = kb * G_.inner + c0;
          ex.bwd_row(reinterpret_cast<const float *>(ex.base[kDY]) + off[kDY],
                     reinterpret_cast<const float *>(ex.base[kX]) + off[kX],
                     reinterpret_cast<float *>(ex.base[kDX]) + off[kDX], n, c1 + o, c2 + o, mu + o, c3 + o, ex.alpha,
                     stream);
        });
        if (stream) stream_fence();
        return;
      }
    }
    walk_tile(t, [&](const int64_t *off, int64_t, int64_t n, int64_t c0, int64_t kb) {
      const A *gp = gradient(ex, off, n, gb);
      const A *xp = fetch(ex, kX, off, n, xb);
      if (!G_.cols) {
        const A k1 = c1[kb], k2 = c2[kb], k3 = c3[kb], m = mu[kb];
        for (int64_t i = 0; i < n; ++i) v[i] = k1 * gp[i] + k2 * (xp[i] - m) + k3;
      } else {
        const int64_t o = kb * G_.inner + c0;
        const A *p1 = c1 + o, *p2 = c2 + o, *p3 = c3 + o, *pm = mu + o;
        for (int64_t i = 0; i < n; ++i) v[i] = p1[i] * gp[i] + p2[i] * (xp[i] - pm[i]) + p3[i];
      }
      if (stream) stream_scaled(ex.base[kDX] + off[kDX] * ex.es[kDX], v, static_cast<int>(n), ex.alpha);
      else ex.store(ex.base[kDX] + off[kDX] * ex.es[kDX], G_.istr[kDX], static_cast<int>(n), v, ex.alpha, ex.beta);
      if (has_dz)
        ex.store_plain(ex.base[kDZ] + off[kDZ] * ex.es[kDZ], G_.istr[kDZ], static_cast<int>(n), gp, A(1), A(0));
    });
    if (stream) stream_fence();
  }

  // Calls cb(count, p0, p1) for set k's partials in a fixed order.
  template <class F>
  void visit_partials(const double *part, int64_t k, F &&cb) const {
    if (!G_.cols) {
      const int64_t base = k * G_.nrb * G_.nch;
      for (int64_t rb = 0; rb < G_.nrb; ++rb) {
        const int64_t rows = std::min(G_.rcount, (rb + 1) * G_.B) - rb * G_.B;
        for (int64_t ch = 0; ch < G_.nch; ++ch) {
          const int64_t len = std::min(G_.inner, (ch + 1) * G_.chunk) - ch * G_.chunk;
          const int64_t t = base + rb * G_.nch + ch;
          cb(static_cast<double>(rows * len), part[2 * t], part[2 * t + 1]);
        }
      }
      return;
    }
    const int64_t kb = k / G_.width, c = k % G_.width;
    for (int64_t rb = 0; rb < G_.nrb; ++rb) {
      const int64_t rows = std::min(G_.rcount, (rb + 1) * G_.B) - rb * G_.B;
      for (int64_t f = 0; f < G_.fold; ++f) {
        const int64_t cv = f * G_.width + c, ch = cv / G_.chunk;
        const int64_t t = (kb * G_.nrb + rb) * G_.nch + ch;
        const double *p = part + 2 * (t * G_.chunk + (cv - ch * G_.chunk));
        cb(static_cast<double>(rows), p[0], p[1]);
      }
    }
  }

  // Calls cb(count, p0, p1) for set k's partials in a fixed order, where
  // the tiles leave one per set for folded rows (welford_partials,
  // grad_tile): (count, mean, m2) or (count, sum g, sum g (x - mean)).
  template <class F>
  void visit_stat_partials(const double *part, int64_t k, F &&cb) const {
    if (!G_.cols || G_.fold == 1) {
      visit_partials(part, k, cb);
      return;
    }
    const int64_t kb = k / G_.width, c = k % G_.width;
    for (int64_t rb = 0; rb < G_.nrb; ++rb) {
      const int64_t rows = std::min(G_.rcount, (rb + 1) * G_.B) - rb * G_.B;
      const double *p = part + 2 * ((kb * G_.nrb + rb) * G_.chunk + c);
      cb(static_cast<double>(rows * G_.fold), p[0], p[1]);
    }
  }

  int64_t partials_per_set() const { return G_.nrb * (G_.cols ? G_.fold : G_.nch); }

  template <class A>
  int64_t stat_offset(int j, int64_t k) const {
    return uses_table_[j] ? set_offset_[k] : offset_of(k, G_.sdims, G_.sstr[j]);
  }
  template <class A>
  double sload(const Exec<A> &ex, int j, int64_t k) const {
    return static_cast<const A *>(ex.stat[j])[stat_offset<A>(j, k)];
  }
  template <class A>
  void sstore(const Exec<A> &ex, int j, int64_t k, double v) const {
    static_cast<A *>(ex.stat[j])[stat_offset<A>(j, k)] = static_cast<A>(v);
  }

  // Set k's batch statistics from its partials; training writes the saved
  // and running statistics.
  template <class A>
  void finish_stats(Exec<A> &ex, int64_t k) const {
    // Two passes over the partials (in double): the mean, then m2 as the
    // partials' m2 plus their means' squared deviations (no division per
    // partial, unlike Chan's pairwise update; sets can have thousands).
    double n = 0, s = 0;
    visit_stat_partials(ex.part, k, [&](double c, double mean, double) {
      n += c;
      s += c * mean;
    });
    const double mean = s / n;
    double m2 = 0;
    visit_stat_partials(ex.part, k, [&](double c, double pm, double pm2) {
      const double d = pm - mean;
      m2 += pm2 + c * d * d;
    });
    finish_stats_set(ex, k, mean, m2);
  }

  // Cols mode without folding: finish_stats for kBlockSets sets at a time
  // (block b of blocks_of_sets()), the same sums in the same order per set
  // (so the same results) but along the sets, which lie next to each other
  // in the partials: finish_stats' per-set chains (a dependent double add per
  // partial, each partial a tile's worth of the buffer apart) took 0.35-0.41
  // ms of a 1.8-2 ms call for 32x2048x7x7 (2048 sets x 98 tiles, 2 threads).
  static constexpr int64_t kBlockSets = 256;
  bool block_finish() const { return G_.cols && G_.fold == 1; }
  int64_t blocks_per_chunk() const { return (G_.chunk + kBlockSets - 1) / kBlockSets; }
  int64_t blocks_of_sets() const { return G_.kcount * G_.nch * blocks_per_chunk(); }
  // Calls cb(rows, p) for rb = 0, 1, ... with p the partials of block b's
  // first set in tile (kb, rb, ch) (set c0 + i at p[2i], p[2i+1]); returns
  // the block's first set (k0) and its size through the arguments.
  template <class F>
  void visit_block_partials(const double *part, int64_t b, int64_t &k0, int64_t &m, F &&cb) const {
    const int64_t nb = blocks_per_chunk(), sub = b % nb, ch = (b / nb) % G_.nch, kb = b / (nb * G_.nch);
    const int64_t cl = sub * kBlockSets;
    const int64_t c0 = ch * G_.chunk + cl;
    m = std::max<int64_t>(0, std::min({kBlockSets, G_.chunk - cl, G_.inner - c0}));
    k0 = kb * G_.width + c0;
    if (m == 0) return;
    for (int64_t rb = 0; rb < G_.nrb; ++rb) {
      const int64_t rows = std::min(G_.rcount, (rb + 1) * G_.B) - rb * G_.B;
      const int64_t t = (kb * G_.nrb + rb) * G_.nch + ch;
      cb(static_cast<double>(rows), part + 2 * (t * G_.chunk + cl));
    }
  }

  template <class A>
  void finish_stats_block(Exec<A> &ex, int64_t b) const {
    double n[kBlockSets] = {}, s[kBlockSets] = {}, mean[kBlockSets], m2[kBlockSets] = {};
    int64_t k0 = 0, m = 0;
    visit_block_partials(ex.part, b, k0, m, [&](double c, const double *p) {
      for (int64_t i = 0; i < m; ++i) {
        n[i] += c;
        s[i] += c * p[2 * i];
      }
    });
    for (int64_t i = 0; i < m; ++i) mean[i] = s[i] / n[i];
    visit_block_partials(ex.part, b, k0, m, [&](double c, const double *p) {
      for (int64_t i = 0; i < m; ++i) {
        const double d = p[2 * i] - mean[i];
        m2[i] += p[2 * i + 1] + c * d * d;
      }
    });
    for (int64_t i = 0; i < m; ++i) finish_stats_set(ex, k0 + i, mean[i], m2[i]);
  }

  template <class A>
  void finish_grad_block(Exec<A> &ex, int64_t b) const {
    double sg[kBlockSets] = {}, sgx[kBlockSets] = {};
    int64_t k0 = 0, m = 0;
    visit_block_partials(ex.part, b, k0, m, [&](double, const double *p) {
      for (int64_t i = 0; i < m; ++i) {
        sg[i] += p[2 * i];
        sgx[i] += p[2 * i + 1];
      }
    });
    for (int64_t i = 0; i < m; ++i) finish_grad_set(ex, k0 + i, sg[i], sgx[i]);
  }

  template <class A>
  void finish_stats_set(Exec<A> &ex, int64_t k, double mean, double m2) const {
    const double var = std::max(0.0, m2 / static_cast<double>(G_.count));
    const double is = 1.0 / std::sqrt(var + ex.op->epsilon);
    ex.mu[k] = static_cast<A>(mean);
    ex.istd[k] = static_cast<A>(is);
    if (!ex.training) return;
    if (ex.stat[kMean]) sstore(ex, kMean, k, mean);
    if (ex.stat[kInv]) sstore(ex, kInv, k, is);
    const double f = ex.op->exp_avg_factor;
    if (ex.stat[kRmIn]) sstore(ex, kRmOut, k, (1.0 - f) * sload(ex, kRmIn, k) + f * mean);
    if (ex.stat[kRvIn]) sstore(ex, kRvOut, k, (1.0 - f) * sload(ex, kRvIn, k) + f * var * unbias_factor(G_.count));
  }

  template <class A>
  void given_stats(Exec<A> &ex, int64_t k) const {
    ex.mu[k] = static_cast<A>(sload(ex, kMean, k));
    ex.istd[k] = static_cast<A>(ex.stat[kVar] ? 1.0 / std::sqrt(sload(ex, kVar, k) + ex.op->epsilon)
                                              : sload(ex, kInv, k));
  }

  // Forward coefficients of set k: a = scale * istd, b = bias - mu * a.
  template <class A>
  void forward_coefficients(Exec<A> &ex, int64_t k) const {
    const double sc = sload(ex, kScale, k) * static_cast<double>(ex.istd[k]);
    ex.c1[k] = static_cast<A>(sc);
    ex.c2[k] = static_cast<A>(sload(ex, kBias, k) - static_cast<double>(ex.mu[k]) * sc);
  }

  // Backward: set k's dscale / dbias and dx coefficients from its partials.
  template <class A>
  void finish_grad(Exec<A> &ex, int64_t k) const {
    double sg = 0, sgx = 0;
    visit_stat_partials(ex.part, k, [&](double, double p0, double p1) {
      sg += p0;
      sgx += p1;
    });
    finish_grad_set(ex, k, sg, sgx);
  }

  template <class A>
  void finish_grad_set(Exec<A> &ex, int64_t k, double sg, double sgx) const {
    const double M = static_cast<double>(G_.count);
    const double ap = ex.op->param_blend.alpha, bp = ex.op->param_blend.beta;
    const double is = ex.istd[k], sc = sload(ex, kScale, k);
    if (ex.stat[kDscale]) sstore(ex, kDscale, k, ap * is * sgx + (bp != 0.0 ? bp * sload(ex, kDscale, k) : 0.0));
    if (ex.stat[kDbias]) sstore(ex, kDbias, k, ap * sg + (bp != 0.0 ? bp * sload(ex, kDbias, k) : 0.0));
    // dx = scale*is*g - scale*is^3*sgx/M * (x - mu) - scale*is*sg/M
    ex.c1[k] = static_cast<A>(sc * is);
    ex.c2[k] = static_cast<A>(-sc * is * is * is * sgx / M);
    ex.c3[k] = static_cast<A>(-sc * is * sg / M);
  }

  // Per-set arrays indexed like the cols-mode hot loops: kb * inner + column
  // (folded columns repeat their set's value).
  template <class A>
  LineVector<A> expanded(const LineVector<A> &v) const {
    if (!G_.cols || G_.fold == 1) return v;
    LineVector<A> out(static_cast<size_t>(G_.kcount * G_.inner));
    for (int64_t kb = 0; kb < G_.kcount; ++kb)
      for (int64_t c = 0; c < G_.inner; ++c) out[kb * G_.inner + c] = v[kb * G_.width + c % G_.width];
    return out;
  }

  // Rows mode with sets that fit in a core's cache: each set is finished
  // start to end by one thread (statistics or gradient sums, then the
  // elementwise pass) so that the second pass reads from cache, not memory.
  // The partials and their order are the same as in the pass-by-pass
  // schedule, so are the results.
  bool set_major(const ExecContext &ctx, int64_t bytes_per_set) const {
    const int threads = ctx.pool != nullptr ? ctx.pool->size() : 1;
    return !G_.cols && G_.groups >= 2 * threads && bytes_per_set <= kSetCacheBytes;
  }

  template <class A>
  void run(const ExecContext &ctx, const graph::Graph &g, const VariantPack &pack) const {
    const auto &op = std::get<graph::NormalizationOp>(g.ops().front());
    const Uids u = uids_of(op);
    Exec<A> ex;
    ex.op = &op;
    const cudnnDataType_t dt = g.tensor(op.x).dtype;
    for (int j = 0; j < kNData; ++j) {
      if (u.data[j] == graph::kNoTensor) continue;
      ex.base[j] = static_cast<char *>(pack.get(u.data[j]));
      if (ex.base[j] == nullptr) fail(CUDNN_STATUS_BAD_PARAM, "no data pointer for tensor uid ", u.data[j]);
      ex.es[j] = j == kMask ? 1 : type_info(dt).bits / 8;
    }
    for (int j = 0; j < kNStat; ++j) {
      if (u.stat[j] == graph::kNoTensor) continue;
      ex.stat[j] = pack.get(u.stat[j]);
      if (ex.stat[j] == nullptr) fail(CUDNN_STATUS_BAD_PARAM, "no data pointer for tensor uid ", u.stat[j]);
    }
    if (G_.elements == 0) return;
    ex.load = load_fn_for<A>(dt);
    ex.store = store_fn_for<A>(dt, op.blend.beta != 0.0);
    ex.store_plain = store_fn_for<A>(dt, false);
    ex.direct = (std::is_same_v<A, float> && dt == CUDNN_DATA_FLOAT) ||
                (std::is_same_v<A, double> && dt == CUDNN_DATA_DOUBLE);
    ex.alpha = static_cast<A>(op.blend.alpha);
    ex.beta = static_cast<A>(op.blend.beta);
    ex.relu = op.has_activation && op.activation == CUDNN_POINTWISE_RELU_FWD;
    ex.clip = op.relu_upper_clip >= static_cast<double>(std::numeric_limits<A>::max())
                  ? std::numeric_limits<A>::infinity()
                  : static_cast<A>(op.relu_upper_clip);
    ex.stats_given = op.backward ? ex.stat[kMean] != nullptr : op.phase == CUDNN_NORM_FWD_INFERENCE;
    ex.training = !op.backward && op.phase == CUDNN_NORM_FWD_TRAINING;
    ex.stream = G_.elements * ex.es[kX] >= kStreamBytes && streaming_stores_allowed();
    if constexpr (std::is_same_v<A, float>) {
      if (G_.cols) ex.welford = normk::welford_for(dt);
      static const bool old_welford = env_has_word("FREEDNN_CPU_NORM_TUNE", "welford");
      if (G_.cols && !old_welford && dt == CUDNN_DATA_FLOAT && G_.istr[kX] == 1 && G_.nch == 1 &&
          G_.inner == G_.width * G_.fold)
        ex.chan_stats = normk::chan_stats_for(G_.width);
      static const bool old_bwd = env_has_word("FREEDNN_CPU_NORM_TUNE", "oldbwd");
      const bool plain_bwd = G_.cols && !old_bwd && op.backward && dt == CUDNN_DATA_FLOAT && G_.istr[kX] == 1 &&
                             G_.istr[kDY] == 1 && !op.has_activation;
      if (plain_bwd && G_.nch == 1 && G_.inner == G_.width * G_.fold)
        ex.chan_grad = normk::chan_grad_for(G_.width);
      static const bool no_wide = env_has_word("FREEDNN_CPU_NORM_TUNE", "nowide");
      if (G_.cols && !no_wide && dt == CUDNN_DATA_FLOAT && G_.istr[kX] == 1 && G_.fold == 1 && G_.width >= kWideMin &&
          G_.chunk % 16 == 0 && G_.inner % 16 == 0 && normk::chan_stats_for(kWideBlock) != nullptr) {
        ex.wide = true;
        if (!old_welford) ex.chan_stats = normk::chan_stats_for(kWideBlock);
        if (plain_bwd && G_.width >= kWideGradMin) ex.chan_grad = normk::chan_grad_for(kWideBlock);
      }
      if (plain_bwd && G_.istr[kDX] == 1 && ex.base[kDZ] == nullptr && op.blend.beta == 0.0)
        ex.bwd_row = normk::bwd_row_for();
      if (G_.cols && !op.backward && G_.istr[kX] == 1 && G_.istr[kY] == 1 && ex.base[kZ] == nullptr &&
          ex.base[kMask] == nullptr && !op.has_activation && op.blend.beta == 0.0)
        ex.affine = normk::affine_for(dt);
    }

    std::vector<double> scratch_fallback;
    ex.part = static_cast<double *>(pack.scratch);
    if (ex.part == nullptr || pack.scratch_size < scratch_size()) {
      scratch_fallback.resize(G_.partial_doubles);
      ex.part = scratch_fallback.data();
    }
    const size_t G = static_cast<size_t>(G_.groups);
    ex.mu.resize(G);
    ex.istd.resize(G);
    ex.c1.resize(G);
    ex.c2.resize(G);
    if (op.backward) ex.c3.resize(G);

    const int64_t tiles_per_set = G_.nrb * G_.nch;
    const int64_t elem = ex.es[kX];
    const int64_t bytes_per_set = G_.count * elem * (op.backward ? 2 : 1);
    if (set_major(ctx, bytes_per_set) && (!ex.stats_given || op.backward)) {
      parallel(ctx, G_.groups, G_.elements, [&](int64_t k) {
        const int64_t t0 = k * tiles_per_set, t1 = t0 + tiles_per_set;
        if (!ex.stats_given) {
          for (int64_t t = t0; t < t1; ++t) stats_tile(ex, t);
          finish_stats(ex, k);
        } else {
          given_stats(ex, k);
        }
        if (!op.backward) {
          forward_coefficients(ex, k);
          for (int64_t t = t0; t < t1; ++t) forward_tile(ex, t);
          return;
        }
        for (int64_t t = t0; t < t1; ++t) grad_tile(ex, t);
        finish_grad(ex, k);
        for (int64_t t = t0; t < t1; ++t) backward_tile(ex, t);
      });
      return;
    }

    // Pass by pass: every tile, then every set.
    const int64_t set_work = G_.groups * partials_per_set() * 4;
    // FREEDNN_CPU_NORM_TUNE=setfinish: finish_stats / finish_grad per set.
    static const bool old_finish = env_has_word("FREEDNN_CPU_NORM_TUNE", "setfinish");
    const bool block_fin = block_finish() && !old_finish;
    // Cols mode: the pass after the statistics or gradient sums starts each
    // thread on the tiles it has just read (TileLog). freednn-bench, 2
    // threads, NHWC f32, 3 processes each alternating with the previous
    // library, ms a call: training 32x2048x7x7 0.79-0.80 -> 0.74,
    // 32x512x14x14 0.79-0.81 -> 0.73-0.74, 32x64x56x56 1.58-1.60 ->
    // 1.44-1.57; backward 32x2048x7x7 1.22-1.25 -> 1.16-1.19, 32x64x56x56
    // 2.32-2.39 -> 2.23-2.25 (docs/perf.md). Not rows mode: NCHW
    // 32x32x112x112 (tiles of 25 KB) took 3-7% longer with it, in either
    // order of a thread's own tiles. FREEDNN_CPU_NORM_TUNE=nolog: the pool's
    // order.
    static const bool no_log = env_has_word("FREEDNN_CPU_NORM_TUNE", "nolog");
    const bool use_log = !no_log && G_.cols;
    TileLog log(use_log ? G_.tiles : 0);
    // The pass logged: the statistics' (forward, when computed here), else
    // the gradient sums' (backward).
    TileLog *stats_log = use_log && !op.backward && !ex.stats_given ? &log : nullptr;
    TileLog *grad_log = use_log && op.backward ? &log : nullptr;
    if (!ex.stats_given) {
      parallel(ctx, G_.tiles, G_.elements, [&](int64_t t) { stats_tile(ex, t); }, stats_log);
      if (block_fin) parallel(ctx, blocks_of_sets(), set_work, [&](int64_t b) { finish_stats_block(ex, b); });
      else parallel(ctx, G_.groups, set_work, [&](int64_t k) { finish_stats(ex, k); });
    } else {
      parallel(ctx, G_.groups, G_.groups * 4, [&](int64_t k) { given_stats(ex, k); });
    }
    if (!op.backward) {
      parallel(ctx, G_.groups, G_.groups * 4, [&](int64_t k) { forward_coefficients(ex, k); });
      ex.c1 = expanded(ex.c1);
      ex.c2 = expanded(ex.c2);
      if (ex.affine != nullptr && ex.alpha != A(1)) {  // alpha * (a x + b) = (alpha a) x + alpha b
        for (A &v : ex.c1) v *= ex.alpha;
        for (A &v : ex.c2) v *= ex.alpha;
      }
      parallel_replay(ctx, stats_log, [&](int64_t t) { forward_tile(ex, t); });
      return;
    }
    if (G_.cols) ex.mu_x = expanded(ex.mu);
    parallel(ctx, G_.tiles, G_.elements, [&](int64_t t) { grad_tile(ex, t); }, grad_log);
    if (block_fin) parallel(ctx, blocks_of_sets(), set_work, [&](int64_t b) { finish_grad_block(ex, b); });
    else parallel(ctx, G_.groups, set_work, [&](int64_t k) { finish_grad(ex, k); });
    ex.c1 = expanded(ex.c1);
    ex.c2 = expanded(ex.c2);
    ex.c3 = expanded(ex.c3);
    parallel_replay(ctx, grad_log, [&](int64_t t) { backward_tile(ex, t); });
  }

  Geometry G_;
  int table_of_ = -1;
  bool uses_table_[kNStat] = {};
  std::vector<int64_t> set_offset_;
};

class CpuNormalizationEngine final : public Engine {
 public:
  const char *name() const override { return "cpu.normalization"; }
  DeviceKind device() const override { return DeviceKind::cpu; }
  int priority() const override { return 10; }
  Support supports(const graph::Graph &g) const override { return check_graph(g); }
  std::unique_ptr<ExecutionPlan> make_plan(const graph::Graph &g, const std::vector<KnobChoice> &) const override {
    return std::make_unique<Plan>(*this, g);
  }
};

}  // namespace
}  // namespace fdnn::cpu

using fdnn::cpu::CpuNormalizationEngine;
FDNN_REGISTER_ENGINE(CpuNormalizationEngine)
