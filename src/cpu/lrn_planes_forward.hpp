// The AVX-512 path of cpu.lrn for cross-channel LRN forward of FLOAT data
// in planes (NCHW-like: each channel's positions contiguous), beta 0.75 or 1.
//
// The generic planes path of lrn_cross_fast.hpp runs each channel of a tile
// through four array passes (window sum, power, product, store). Here a
// tile of T positions walks the channels once, 16 positions a vector, with
// every intermediate in registers:
//  - a ring of N rows of T floats holds the squares of the channels in the
//    window: at channel c the slot (c + ahead) % N receives x[c + ahead]^2
//    (zeros past the last channel, and all slots start at zero for the
//    channels before the first), so the window sum is always the sum of
//    the N slots, one pairwise tree of N loads (the ring stays in L1);
//  - S = k + a sum; beta 0.75: S^-3/4 from rows_pow075 (lrn_rows_avx512.hpp);
//    beta 1: one division; y = alpha x S^-beta (+ beta y);
//  - x of channel c + ahead + 1 is prefetched while channel c runs (the
//    rows of one tile are short streams a plane apart), and float outputs
//    of 8 MiB and more written with beta = 0 take non-temporal stores.
// Exact in-place calls (y == x) are safe (x[c] and x[c + ahead] are read
// before y[c] is written, and no later channel reads y[c]); any other
// overlap of x and y stays on the generic path. The window width N (1..16)
// is a template parameter.
#pragma once

#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "cpu/aligned_vector.hpp"
#include "cpu/lrn_cross_fast.hpp"
#include "cpu/lrn_rows_avx512.hpp"

namespace fdnn::cpu::lrn_fast {

#define FDNN_LRN_PF_AVX512 __attribute__((target("avx512f,avx512vl,avx512dq,avx512bw")))

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

// Sum of ring rows [0, N) at element i: a pairwise tree.
template <int Lo, int Hi>
FDNN_LRN_PF_AVX512 __attribute__((always_inline)) inline __m512 planes_ring_sum(const float *ring, int64_t T, int64_t i) {
  if constexpr (Lo + 1 == Hi) {
    return _mm512_loadu_ps(ring + Lo * T + i);
  } else {
    constexpr int Mid = Lo + (Hi - Lo) / 2;
    return _mm512_add_ps(planes_ring_sum<Lo, Mid>(ring, T, i), planes_ring_sum<Mid, Hi>(ring, T, i));
  }
}

struct PlanesForward {
  const Shape &s;
  const graph::Tensor &xt;
  const Math &m;
  Arg x, out;
  float alpha, beta;
  bool stream;
  int64_t tile;

  int64_t tiles_per_plane() const { return (s.plane + tile - 1) / tile; }
  int64_t items() const { return s.outer * tiles_per_plane(); }

  template <int N, RowsOut M, bool kBetaOne>
  FDNN_LRN_PF_AVX512 void tile_run(const float *xp, float *yp, int64_t len, float *ring) const {
    const int64_t C = s.channels, T = tile, xs1 = x.stride(1), ys1 = out.stride(1);
    const int64_t A = m.ahead;
    const __m512 kv = _mm512_set1_ps(m.k), av = _mm512_set1_ps(m.a), al = _mm512_set1_ps(alpha),
                 be = _mm512_set1_ps(beta), one = _mm512_set1_ps(1.0f);
    std::fill(ring, ring + N * T, 0.0f);
    // Squares of channels 0 .. A - 1 into their slots.
    for (int64_t j = 0; j < std::min<int64_t>(A, C); ++j) {
      const float *xr = xp + j * xs1;
      float *sl = ring + (j % N) * T;
      for (int64_t i = 0; i < len; i += 16) {
        const __mmask16 mk = rows_lane_mask(len - i);
        const __m512 v = _mm512_maskz_loadu_ps(mk, xr + i);
        _mm512_storeu_ps(sl + i, _mm512_mul_ps(v, v));
      }
    }
    for (int64_t c = 0; c < C; ++c) {
      const int64_t cin = c + A;  // the channel entering the window
      float *sl = ring + (cin % N) * T;
      const float *xin = cin < C ? xp + cin * xs1 : nullptr;
      const char *pre = cin + 1 < C ? reinterpret_cast<const char *>(xp + (cin + 1) * xs1) : nullptr;
      const float *xc = xp + c * xs1;
      float *yc = yp + c * ys1;
      if (xin == nullptr) std::fill(sl, sl + T, 0.0f);
      for (int64_t i = 0; i < len; i += 16) {
        const __mmask16 mk = rows_lane_mask(len - i);
        if (xin != nullptr) {
          if (pre != nullptr) _mm_prefetch(pre + i * 4, _MM_HINT_T0);
          const __m512 v = _mm512_maskz_loadu_ps(mk, xin + i);
          _mm512_storeu_ps(sl + i, _mm512_mul_ps(v, v));
        }
        const __m512 v = _mm512_fmadd_ps(av, planes_ring_sum<0, N>(ring, T, i), kv);
        __m512 p;
        if constexpr (kBetaOne) p = _mm512_div_ps(one, v);
        else p = rows_pow075(v, mk).p;
        const __m512 r = _mm512_mul_ps(al, _mm512_mul_ps(_mm512_maskz_loadu_ps(mk, xc + i), p));
        if constexpr (M == RowsOut::stream) {
          if (mk == 0xFFFF && (reinterpret_cast<uintptr_t>(yc + i) & 63) == 0) _mm512_stream_ps(yc + i, r);
          else _mm512_mask_storeu_ps(yc + i, mk, r);
        } else {
          rows_put<M>(yc + i, mk, r, be);
        }
      }
    }
  }

  template <int N>
  FDNN_LRN_PF_AVX512 void run(int64_t begin, int64_t end) const {
    LineVector<float> ring(static_cast<size_t>(N * tile));  // whole-register loads and stores
    const int64_t tpp = tiles_per_plane();
    for (int64_t item = begin; item < end; ++item) {
      const int64_t pos = item / tpp, p0 = (item % tpp) * tile;
      const int64_t len = std::min(tile, s.plane - p0);
      const float *xp = reinterpret_cast<const float *>(x.data) + outer_offset(s, xt, x, pos) + p0;
      float *yp = reinterpret_cast<float *>(out.data) + outer_offset(s, xt, out, pos) + p0;
      if (beta != 0.0f) {
        if (m.beta_one) tile_run<N, RowsOut::blend, true>(xp, yp, len, ring.data());
        else tile_run<N, RowsOut::blend, false>(xp, yp, len, ring.data());
      } else if (stream) {
        if (m.beta_one) tile_run<N, RowsOut::stream, true>(xp, yp, len, ring.data());
        else tile_run<N, RowsOut::stream, false>(xp, yp, len, ring.data());
      } else {
        if (m.beta_one) tile_run<N, RowsOut::store, true>(xp, yp, len, ring.data());
        else tile_run<N, RowsOut::store, false>(xp, yp, len, ring.data());
      }
    }
    if (stream) _mm_sfence();
  }

  void run_items(int64_t begin, int64_t end) const {
    switch (m.n) {
#define FDNN_LRN_PF(NN) \
  case NN: run<NN>(begin, end); return;
      FDNN_LRN_PF(1) FDNN_LRN_PF(2) FDNN_LRN_PF(3) FDNN_LRN_PF(4) FDNN_LRN_PF(5) FDNN_LRN_PF(6) FDNN_LRN_PF(7)
      FDNN_LRN_PF(8) FDNN_LRN_PF(9) FDNN_LRN_PF(10) FDNN_LRN_PF(11) FDNN_LRN_PF(12) FDNN_LRN_PF(13)
      FDNN_LRN_PF(14) FDNN_LRN_PF(15) FDNN_LRN_PF(16)
#undef FDNN_LRN_PF
      default: fail(CUDNN_STATUS_INTERNAL_ERROR, "cpu.lrn: window width ", m.n, " outside 1..16");
    }
  }
};

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

// Runs cross-channel LRN forward of float planes on the AVX-512 path and
// returns true, or returns false when it does not apply.
inline bool run_planes_forward(const ExecContext &ctx, const graph::Graph &g, const graph::LrnOp &op,
                               const VariantPack &pack) {
  if (op.kind != graph::LrnKind::cross_channel || op.backward || !vm::has_avx512()) return false;
  const graph::Tensor &xt = g.tensor(op.x);
  if (xt.dtype != CUDNN_DATA_FLOAT) return false;
  const Operands o = operands_of(g, op, pack, sizeof(float));
  const Shape &shape = o.shape;
  if (shape.layout != Layout::planes) return false;
  const Math m = make_math(op, xt.rank());
  if (m.n < 1 || m.n > 16 || !(m.beta_075 || m.beta_one)) return false;
  const Arg x = o.x, out = o.out;
  if (o.alias && !(x.data == out.data && *x.strides == *out.strides)) return false;
  const float alpha = o.alpha, beta = o.beta;
  const int64_t C = shape.channels;
  const bool stream =
      beta == 0.0f && streaming_stores_allowed() && shape.outer * shape.plane * C * 4 >= kRowsStreamBytes;
  // Tiles of at most 512 positions, the plane split evenly, a multiple of 16.
  const int64_t tiles = (shape.plane + 511) / 512;
  const int64_t tile = ((shape.plane + tiles - 1) / tiles + 15) / 16 * 16;
  const PlanesForward r{shape, xt, m, x, out, alpha, beta, stream, tile};
  run_items(ctx, r.items(), tile * C, [&](int64_t b, int64_t e) { r.run_items(b, e); });
  return true;
}

#undef FDNN_LRN_PF_AVX512

}  // namespace fdnn::cpu::lrn_fast
