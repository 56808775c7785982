// Kernels shared by the fused attention engines (cpu/fusion_sdpa.cpp,
// cpu/fusion_sdpa_bwd.cpp): a small register-tiled float GEMM for attention
// blocks, a vectorisable exp, and strided matrix views of the graph's
// tensors per score batch.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <type_traits>
#include <vector>

#include "core/error.hpp"
#include "core/numeric.hpp"
#include "core/paged_cache_support.hpp"
#include "core/rng_math.hpp"
#include "core/rng_support.hpp"
#include "core/sdpa_pattern.hpp"
#include "cpu/dtype_io.hpp"
#include "graph/graph.hpp"

namespace fdnn::cpu::sdpa_kernels {

// exp for float, branch-free so that row loops vectorise: 2^n times a
// degree-7 polynomial on |r| <= ln2/2 (about 2 ulp). Below -87 the result
// (under 1.7e-38) is flushed to 0, so exp(-inf) = 0 as the graph's EXP gives;
// NaN stays NaN.
inline float exp_flush(float x) {
  const bool tiny = x < -87.0f;
  float c = x < -87.0f ? -87.0f : x;
  c = c > 88.7f ? 88.7f : c;
  const float n = (c * 1.44269504088896341f + 12582912.0f) - 12582912.0f;
  const float r = (c - n * 0.693145751953125f) - n * 1.428606765330187e-6f;
  float p = 1.0f / 5040;
  p = p * r + 1.0f / 720;
  p = p * r + 1.0f / 120;
  p = p * r + 1.0f / 24;
  p = p * r + 1.0f / 6;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  const int32_t bits = (static_cast<int32_t>(n) + 127) << 23;
  float scale;
  std::memcpy(&scale, &bits, sizeof scale);
  const float out = p * scale;
  return tiny ? 0.0f : out;
}

// C[M x N] = A[M x K] B[K x N] (+ C when accumulate), row-major float with B's
// rows contiguous. Register tiles of R rows x W columns in GCC vector types
// (6 x 16: twelve AVX2 accumulators, two B vectors and a broadcast); the
// attention blocks are small (64 x 128 x 64), where this beats a BLAS call's
// packing and dispatch.
typedef float Vec8 __attribute__((vector_size(32)));

inline Vec8 load8(const float *p) {
  Vec8 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
inline void store8(float *p, Vec8 v) { std::memcpy(p, &v, sizeof v); }

template <int R, int V>
inline void gemm_tile(int64_t K, const float *A, int64_t lda, const float *B, int64_t ldb, float *C, int64_t ldc,
                      bool accumulate) {
  Vec8 c[R][V];
  for (int r = 0; r < R; ++r)
    for (int v = 0; v < V; ++v) c[r][v] = accumulate ? load8(C + r * ldc + 8 * v) : Vec8{};
  for (int64_t k = 0; k < K; ++k) {
    Vec8 b[V];
    for (int v = 0; v < V; ++v) b[v] = load8(B + k * ldb + 8 * v);
    for (int r = 0; r < R; ++r) {
      const float a = A[r * lda + k];
      for (int v = 0; v < V; ++v) c[r][v] += a * b[v];
    }
  }
  for (int r = 0; r < R; ++r)
    for (int v = 0; v < V; ++v) store8(C + r * ldc + 8 * v, c[r][v]);
}

// Columns beyond the last multiple of 8: plain loops.
template <int R>
inline void gemm_cols(int64_t N, int64_t K, const float *A, int64_t lda, const float *B, int64_t ldb, float *C,
                      int64_t ldc, bool accumulate) {
  for (int r = 0; r < R; ++r)
    for (int64_t j = 0; j < N; ++j) {
      float s = accumulate ? C[r * ldc + j] : 0.0f;
      for (int64_t k = 0; k < K; ++k) s += A[r * lda + k] * B[k * ldb + j];
      C[r * ldc + j] = s;
    }
}

template <int R>
inline void gemm_rows(int64_t N, int64_t K, const float *A, int64_t lda, const float *B, int64_t ldb, float *C, int64_t ldc,
               bool accumulate) {
  int64_t j = 0;
  for (; j + 16 <= N; j += 16) gemm_tile<R, 2>(K, A, lda, B + j, ldb, C + j, ldc, accumulate);
  for (; j + 8 <= N; j += 8) gemm_tile<R, 1>(K, A, lda, B + j, ldb, C + j, ldc, accumulate);
  if (j < N) gemm_cols<R>(N - j, K, A, lda, B + j, ldb, C + j, ldc, accumulate);
}

inline void block_gemm(int64_t M, int64_t N, int64_t K, const float *A, int64_t lda, const float *B, int64_t ldb, float *C,
                int64_t ldc, bool accumulate) {
  int64_t i = 0;
  for (; i + 6 <= M; i += 6) gemm_rows<6>(N, K, A + i * lda, lda, B, ldb, C + i * ldc, ldc, accumulate);
  const float *a = A + i * lda;
  float *c = C + i * ldc;
  switch (M - i) {
    case 5: gemm_rows<5>(N, K, a, lda, B, ldb, c, ldc, accumulate); break;
    case 4: gemm_rows<4>(N, K, a, lda, B, ldb, c, ldc, accumulate); break;
    case 3: gemm_rows<3>(N, K, a, lda, B, ldb, c, ldc, accumulate); break;
    case 2: gemm_rows<2>(N, K, a, lda, B, ldb, c, ldc, accumulate); break;
    case 1: gemm_rows<1>(N, K, a, lda, B, ldb, c, ldc, accumulate); break;
    default: break;
  }
}

// Largest element of a[0..n) ignoring NaN (-inf when empty), in eight lanes
// so that the loop vectorises.
inline float row_max(const float *a, int64_t n) {
  constexpr float kNegInf = -std::numeric_limits<float>::infinity();
  float lane[8] = {kNegInf, kNegInf, kNegInf, kNegInf, kNegInf, kNegInf, kNegInf, kNegInf};
  int64_t t = 0;
  for (; t + 8 <= n; t += 8)
    for (int k = 0; k < 8; ++k) lane[k] = a[t + k] > lane[k] ? a[t + k] : lane[k];
  float m = kNegInf;
  for (; t < n; ++t) m = a[t] > m ? a[t] : m;
  for (float v : lane) m = v > m ? v : m;
  return m;
}

// Element offsets of a tensor for each batch index of the scores (row-major
// over the score's leading dims), with extent-1 dims broadcasting and extents
// that divide the score's grouping consecutive score indices (K/V heads of
// grouped-query attention).
inline std::vector<int64_t> batch_offsets(const graph::Tensor &t, const std::vector<int64_t> &batch_dims) {
  int64_t count = 1;
  for (int64_t d : batch_dims) count *= d;
  std::vector<int64_t> out(static_cast<size_t>(count));
  const int nb = static_cast<int>(batch_dims.size());
  for (int64_t bi = 0; bi < count; ++bi) {
    int64_t rest = bi, off = 0;
    for (int i = nb - 1; i >= 0; --i) {
      const int64_t idx = rest % batch_dims[i];
      rest /= batch_dims[i];
      if (!t.by_value && t.dims[i] != 1) off += idx / (batch_dims[i] / t.dims[i]) * t.strides[i];
    }
    out[static_cast<size_t>(bi)] = off;
  }
  return out;
}

// FP8 codes decoded through a table (num's decoders go through ldexp, too
// slow for the attention engines, which read Q, K, V, dO blocks repeatedly).
inline const float *fp8_decode_table(cudnnDataType_t t) {
  static const std::array<float, 256> e4m3 = [] {
    std::array<float, 256> a{};
    for (unsigned i = 0; i < 256; ++i) a[i] = num::e4m3_to_float(static_cast<uint8_t>(i));
    return a;
  }();
  static const std::array<float, 256> e5m2 = [] {
    std::array<float, 256> a{};
    for (unsigned i = 0; i < 256; ++i) a[i] = num::e5m2_to_float(static_cast<uint8_t>(i));
    return a;
  }();
  return t == CUDNN_DATA_FP8_E4M3 ? e4m3.data() : e5m2.data();
}

// S::to_float, FP8 through the table.
template <class S>
inline float to_float_fast(typename S::type v) {
  if constexpr (std::is_same_v<S, Storage<CUDNN_DATA_FP8_E4M3>>) return fp8_decode_table(CUDNN_DATA_FP8_E4M3)[v];
  else if constexpr (std::is_same_v<S, Storage<CUDNN_DATA_FP8_E5M2>>) return fp8_decode_table(CUDNN_DATA_FP8_E5M2)[v];
  else return S::to_float(v);
}

// A matrix of a tensor: per-batch offsets, row and column strides.
struct MatrixView {
  cudnnDataType_t dtype = CUDNN_DATA_FLOAT;
  std::vector<int64_t> offsets;
  int64_t rs = 0, cs = 0;
};

inline MatrixView view(const graph::Tensor &t, const std::vector<int64_t> &batch_dims, bool transposed) {
  const int r = t.rank();
  MatrixView v;
  v.dtype = t.dtype;
  v.offsets = batch_offsets(t, batch_dims);
  v.rs = t.dims[r - 2] == 1 ? 0 : t.strides[r - 2];
  v.cs = t.dims[r - 1] == 1 ? 0 : t.strides[r - 1];
  if (transposed) std::swap(v.rs, v.cs);
  return v;
}

// Copies rows [r0, r0 + rows) x cols [0, cols) of a matrix into packed float.
inline void load_rows(const MatrixView &m, const void *base, int64_t bi, int64_t r0, int64_t rows, int64_t cols, float *out) {
  const bool ok = visit_fast_type(m.dtype, [&](auto s) {
    using S = decltype(s);
    using Elem = typename S::type;
    const Elem *p = static_cast<const Elem *>(base) + m.offsets[static_cast<size_t>(bi)];
    for (int64_t r = 0; r < rows; ++r) {
      const Elem *row = p + (r0 + r) * m.rs;
      float *o = out + r * cols;
      if (m.cs == 1)
        for (int64_t c = 0; c < cols; ++c) o[c] = to_float_fast<S>(row[c]);
      else
        for (int64_t c = 0; c < cols; ++c) o[c] = to_float_fast<S>(row[c * m.cs]);
    }
  });
  if (!ok) fail(CUDNN_STATUS_INTERNAL_ERROR, "cpu.fusion.sdpa: unexpected data type");
}

// x rounded to an FP8 format (M mantissa bits, smallest normal exponent
// EMIN, largest finite value max_finite) and read back as float: round to
// nearest even, saturating to +-max_finite (infinities too), NaN kept, as
// num::float_to_e4m3 / float_to_e5m2 store it. Branch-free so that row
// loops vectorise: the normal range rounds the float's bits, the subnormal
// range to multiples of 2^(EMIN - M).
template <int M, int EMIN>
inline float round_to_fp8(float x, float max_finite) {
  const float a = std::fabs(x);
  uint32_t b;
  std::memcpy(&b, &a, sizeof b);
  constexpr uint32_t shift = 23 - M;
  b += ((1u << (shift - 1)) - 1u) + ((b >> shift) & 1u);
  b &= ~((1u << shift) - 1u);
  float normal;
  std::memcpy(&normal, &b, sizeof normal);
  const float sub_step = std::ldexp(1.0f, EMIN - M), sub_inv = std::ldexp(1.0f, M - EMIN);
  const float subnormal = std::nearbyint(a * sub_inv) * sub_step;
  float r = a < std::ldexp(1.0f, EMIN) ? subnormal : normal;
  r = a >= max_finite || r > max_finite ? max_finite : r;
  r = a != a ? a : r;
  return std::copysign(r, x);
}
inline float round_to_e4m3(float x) { return round_to_fp8<3, -6>(x, 448.0f); }
inline float round_to_e5m2(float x) { return round_to_fp8<2, -14>(x, 57344.0f); }

// A K or V operand gathered from a paged cache (SdpaPattern::k_paged /
// v_paged, semantics in graph/op_paged_cache_load.hpp) straight into the
// engine's float staging: no K / V tensor of the graph's type is formed.
struct PagedOperand {
  PagedGeometry geo;
  cudnnDataType_t dtype = CUDNN_DATA_FLOAT;
  graph::Uid container = graph::kNoTensor, table = graph::kNoTensor, seq = graph::kNoTensor;
  bool seq64 = false;
  int64_t score_heads = 1;  // the scores' head extent (dim 1): query head h reads cache head h / (H / heads)
  int64_t score_batch = 1;  // the scores' batch extent (dim 0)

  PagedOperand() = default;
  PagedOperand(const graph::Graph &g, size_t op_index, const std::vector<int64_t> &batch_dims) {
    const auto &op = std::get<graph::PagedCacheLoadOp>(g.ops()[op_index]);
    const graph::Tensor &c = g.tensor(op.container), &y = g.tensor(op.y), &sq = g.tensor(op.seq_len),
                        &t = g.tensor(op.page_table);
    geo = paged_geometry(c, y, sq, t);
    dtype = c.dtype;
    container = op.container, table = op.page_table, seq = op.seq_len;
    seq64 = sq.dtype == CUDNN_DATA_INT64;
    score_batch = batch_dims[0], score_heads = batch_dims[1];
  }

  // The cache matrix (sequence, head) that score batch bi reads.
  int64_t matrix_of(int64_t bi) const {
    const int64_t b = (bi / score_heads) / (score_batch / geo.batch);
    const int64_t h = (bi % score_heads) / (score_heads / geo.heads);
    return b * geo.heads + h;
  }

  // Rows (sequence positions) [0, geo.seq) of the K or V matrix of score
  // batch bi as float: element (j, e) at out[j * rs + e * cs] (K^T staging:
  // rs = 1, cs = s_kv; V: rs = d_v, cs = 1). Positions past the sequence's
  // end or with a page index outside the container are zeros.
  void gather(const VariantPack &pack, int64_t bi, float *out, int64_t rs, int64_t cs) const {
    const int64_t m = matrix_of(bi), b = m / geo.heads, h = m % geo.heads;
    const auto *sd = pack.get(seq);
    const int64_t valid = seq64 ? static_cast<const int64_t *>(sd)[b * geo.seq_stride]
                                : static_cast<const int32_t *>(sd)[b * geo.seq_stride];
    const auto *td = static_cast<const int32_t *>(pack.get(table));
    const bool ok = visit_fast_type(dtype, [&](auto st) {
      using S = decltype(st);
      const auto *cd = static_cast<const typename S::type *>(pack.get(container));
      for (int64_t j = 0; j < geo.seq; ++j) {
        float *o = out + j * rs;
        const int64_t page = j < valid ? td[b * geo.table_batch_stride + (j / geo.block_size) * geo.table_page_stride]
                                       : -1;
        if (page < 0 || page >= geo.num_blocks) {
          for (int64_t e = 0; e < geo.head_dim; ++e) o[e * cs] = 0.0f;
          continue;
        }
        const auto *row =
            cd + page * geo.c_strides[0] + h * geo.c_strides[1] + (j % geo.block_size) * geo.c_strides[2];
        for (int64_t e = 0; e < geo.head_dim; ++e) o[e * cs] = to_float_fast<S>(row[e * geo.c_strides[3]]);
      }
    });
    if (!ok) fail(CUDNN_STATUS_INTERNAL_ERROR, "cpu.fusion.sdpa: unexpected paged cache data type");
  }
};

// The by-value and tensor inputs of side expressions at execution time.
struct SideInputs {
  std::vector<float> constant;              // per node (constant kind)
  std::vector<const void *> data;           // per node (tensor kind)
  std::vector<MatrixView> views;            // per node (tensor kind)
  // Per node: a tensor of one element (an FP8 descale, a scale tensor),
  // read once into `constant` and filled like a constant.
  std::vector<char> scalar;
};

inline float round_to_node(const SdpaSideNode &n, float v) {
  switch (n.dtype) {
    case CUDNN_DATA_INT32: return static_cast<float>(num::saturate_round<int32_t>(v));
    case CUDNN_DATA_BOOLEAN: return v != 0.0f ? 1.0f : 0.0f;
    default: return v;
  }
}

// A float buffer that is not zero-filled: the per-task buffers are large
// (side nodes of a whole block) and every use writes before it reads.
struct UninitFloats {
  std::unique_ptr<float[]> p;
  void resize(size_t n) { p.reset(new float[n]); }
  float *data() { return p.get(); }
  const float *data() const { return p.get(); }
};

// Dropout of attention weights as the graph's RNG op draws it (element
// `index` reads word index % 4 of philox::stream_block(seed, offset,
// index / 4), keeps when it is below the Bernoulli threshold).
struct DropoutDraw {
  bool on = false;
  uint64_t seed = 0, offset = 0, threshold = 0;
  float scale = 1;  // applied to kept weights

  // The mask (0 / 1) of elements first .. first + n - 1.
  void mask(uint64_t first, int64_t n, float *out) const {
    int64_t t = 0;
    uint64_t idx = first;
    while (t < n) {
      const philox::Word4 w = philox::stream_block(seed, offset, idx / 4);
      for (unsigned k = static_cast<unsigned>(idx % 4); k < 4 && t < n; ++k, ++t, ++idx)
        out[t] = rng::bernoulli_one(w.v[k], threshold) ? 1.0f : 0.0f;
    }
  }
};

// The draw of the graph's dropout (SdpaPattern::rng_op), scale from its
// side node value.
inline DropoutDraw dropout_draw(const graph::Graph &g, const SdpaPattern &p, const VariantPack &pack, float scale) {
  DropoutDraw d;
  if (p.rng_op == SdpaPattern::kNoRng) return d;
  const auto &op = std::get<graph::RngOp>(g.ops()[p.rng_op]);
  d.on = true;
  d.seed = rng_host_seed(g, op, pack);
  d.offset = rng_host_offset(g, op, pack);
  d.threshold = rng::bernoulli_threshold(op.probability);
  d.scale = scale;
  return d;
}

}  // namespace fdnn::cpu::sdpa_kernels
