// Index arithmetic of the CUDA convolution kernels: for each GEMM view of
// ConvArgs (see convolution_args.hpp), where A[m][r], B[r][col] and
// out[m][col] live. Per-row and per-column parts are computed once per
// thread (Line), the per-r part on each load; an offset of -1 is a zero
// (padding, a stride gap of the data gradient, or past the reduction).
#pragma once

#include <cuda_runtime.h>

#include "cuda/convolution_args.hpp"
#include "cuda/storage_types.cuh"

namespace fdnn::cuda {

// What a row of A or a column of B contributes: a base offset and the
// starting coordinates of its window in D, H, W.
struct Line {
  int base;
  int d, h, w;
};

__device__ inline void split_dhw(uint32_t p, const FastDivmod &dw, const FastDivmod &dh, int &d, int &h, int &w) {
  uint32_t r;
  p = dw.divmod(p, r);
  w = static_cast<int>(r);
  d = static_cast<int>(dh.divmod(p, r));
  h = static_cast<int>(r);
}

// The filter tap the filter array holds for input-side tap (td, th, tw).
__device__ inline int filter_tap_offset(const ConvArgs &a, const int *ws, int td, int th, int tw) {
  if (a.flip) {
    td = a.filt[0] - 1 - td;
    th = a.filt[1] - 1 - th;
    tw = a.filt[2] - 1 - tw;
  }
  return td * ws[2] + th * ws[3] + tw * ws[4];
}

__device__ inline bool inside(const ConvArgs &a, int d, int h, int w) {
  return static_cast<unsigned>(d) < static_cast<unsigned>(a.in[0]) &&
         static_cast<unsigned>(h) < static_cast<unsigned>(a.in[1]) &&
         static_cast<unsigned>(w) < static_cast<unsigned>(a.in[2]);
}

template <int DIR>
struct ConvIndex;

template <>
struct ConvIndex<kConvFwd> {
  __device__ static Line a_row(const ConvArgs &a, int g, int m) {
    uint32_t p;
    const int n = static_cast<int>(a.d_P.divmod(m, p));
    int od, oh, ow;
    split_dhw(p, a.d_ow, a.d_oh, od, oh, ow);
    return {n * a.xs[0] + g * a.Cg * a.xs[1], od * a.str[0] - a.pad[0], oh * a.str[1] - a.pad[1],
            ow * a.str[2] - a.pad[2]};
  }
  __device__ static int a_off(const ConvArgs &a, const Line &row, int r) {
    uint32_t c;
    const uint32_t t = a.d_rc.divmod(r, c);
    int td, th, tw;
    split_dhw(t, a.d_fw, a.d_fh, td, th, tw);
    const int id = row.d + td * a.dil[0], ih = row.h + th * a.dil[1], iw = row.w + tw * a.dil[2];
    if (!inside(a, id, ih, iw)) return -1;
    return row.base + static_cast<int>(c) * a.xs[1] + id * a.xs[2] + ih * a.xs[3] + iw * a.xs[4];
  }
  __device__ static Line b_col(const ConvArgs &a, int g, int col) { return {(g * a.Kg + col) * a.ws[0], 0, 0, 0}; }
  __device__ static int b_off(const ConvArgs &a, const Line &col, int r) {
    uint32_t c;
    const uint32_t t = a.d_rc.divmod(r, c);
    int td, th, tw;
    split_dhw(t, a.d_fw, a.d_fh, td, th, tw);
    return col.base + static_cast<int>(c) * a.ws[1] + filter_tap_offset(a, a.ws, td, th, tw);
  }
  __device__ static int out_row(const ConvArgs &a, int, int m) {
    uint32_t p;
    const int n = static_cast<int>(a.d_P.divmod(m, p));
    int od, oh, ow;
    split_dhw(p, a.d_ow, a.d_oh, od, oh, ow);
    return n * a.ys[0] + od * a.ys[2] + oh * a.ys[3] + ow * a.ys[4];
  }
  __device__ static int out_col(const ConvArgs &a, int g, int col) { return (g * a.Kg + col) * a.ys[1]; }
};

// A from the im2col matrix (G x M x R, row-major), the rest as forward.
template <>
struct ConvIndex<kConvFwdLowered> {
  __device__ static Line a_row(const ConvArgs &a, int g, int m) { return {(g * a.M + m) * a.R, 0, 0, 0}; }
  __device__ static int a_off(const ConvArgs &, const Line &row, int r) { return row.base + r; }
  __device__ static Line b_col(const ConvArgs &a, int g, int col) { return ConvIndex<kConvFwd>::b_col(a, g, col); }
  __device__ static int b_off(const ConvArgs &a, const Line &col, int r) {
    return ConvIndex<kConvFwd>::b_off(a, col, r);
  }
  __device__ static int out_row(const ConvArgs &a, int g, int m) { return ConvIndex<kConvFwd>::out_row(a, g, m); }
  __device__ static int out_col(const ConvArgs &a, int g, int col) { return ConvIndex<kConvFwd>::out_col(a, g, col); }
};

template <>
struct ConvIndex<kConvBwdData> {
  // Rows: input pixels; the window of an input position is the outputs
  // o with o * s = i + pad - t * dil.
  __device__ static Line a_row(const ConvArgs &a, int g, int m) {
    uint32_t p;
    const int n = static_cast<int>(a.d_I.divmod(m, p));
    int id, ih, iw;
    split_dhw(p, a.d_iw, a.d_ih, id, ih, iw);
    return {n * a.ys[0] + g * a.Kg * a.ys[1], id + a.pad[0], ih + a.pad[1], iw + a.pad[2]};
  }
  __device__ static int a_off(const ConvArgs &a, const Line &row, int r) {
    uint32_t k;
    const uint32_t t = a.d_rc.divmod(r, k);
    int td, th, tw;
    split_dhw(t, a.d_fw, a.d_fh, td, th, tw);
    const int qd = row.d - td * a.dil[0], qh = row.h - th * a.dil[1], qw = row.w - tw * a.dil[2];
    if (qd < 0 || qh < 0 || qw < 0) return -1;
    uint32_t rd, rh, rw;
    const int od = static_cast<int>(a.d_s[0].divmod(qd, rd));
    const int oh = static_cast<int>(a.d_s[1].divmod(qh, rh));
    const int ow = static_cast<int>(a.d_s[2].divmod(qw, rw));
    if ((rd | rh | rw) != 0 || od >= a.out[0] || oh >= a.out[1] || ow >= a.out[2]) return -1;
    return row.base + static_cast<int>(k) * a.ys[1] + od * a.ys[2] + oh * a.ys[3] + ow * a.ys[4];
  }
  __device__ static Line b_col(const ConvArgs &a, int g, int col) {
    return {g * a.Kg * a.ws[0] + col * a.ws[1], 0, 0, 0};
  }
  __device__ static int b_off(const ConvArgs &a, const Line &col, int r) {
    uint32_t k;
    const uint32_t t = a.d_rc.divmod(r, k);
    int td, th, tw;
    split_dhw(t, a.d_fw, a.d_fh, td, th, tw);
    return col.base + static_cast<int>(k) * a.ws[0] + filter_tap_offset(a, a.ws, td, th, tw);
  }
  __device__ static int out_row(const ConvArgs &a, int, int m) {
    uint32_t p;
    const int n = static_cast<int>(a.d_I.divmod(m, p));
    int id, ih, iw;
    split_dhw(p, a.d_iw, a.d_ih, id, ih, iw);
    return n * a.xs[0] + id * a.xs[2] + ih * a.xs[3] + iw * a.xs[4];
  }
  __device__ static int out_col(const ConvArgs &a, int g, int col) { return (g * a.Cg + col) * a.xs[1]; }
};

template <>
struct ConvIndex<kConvBwdFilter> {
  // Rows: output channels k (A = dy); columns: (tap, c) (B = x); r runs
  // over (n, output pixel).
  __device__ static Line a_row(const ConvArgs &a, int g, int m) { return {(g * a.Kg + m) * a.ys[1], 0, 0, 0}; }
  __device__ static int a_off(const ConvArgs &a, const Line &row, int r) {
    uint32_t p;
    const int n = static_cast<int>(a.d_P.divmod(r, p));
    int od, oh, ow;
    split_dhw(p, a.d_ow, a.d_oh, od, oh, ow);
    return row.base + n * a.ys[0] + od * a.ys[2] + oh * a.ys[3] + ow * a.ys[4];
  }
  __device__ static Line b_col(const ConvArgs &a, int g, int col) {
    uint32_t c;
    const uint32_t t = a.d_cg.divmod(col, c);
    int td, th, tw;
    split_dhw(t, a.d_fw, a.d_fh, td, th, tw);
    return {(g * a.Cg + static_cast<int>(c)) * a.xs[1], td * a.dil[0] - a.pad[0], th * a.dil[1] - a.pad[1],
            tw * a.dil[2] - a.pad[2]};
  }
  __device__ static int b_off(const ConvArgs &a, const Line &col, int r) {
    uint32_t p;
    const int n = static_cast<int>(a.d_P.divmod(r, p));
    int od, oh, ow;
    split_dhw(p, a.d_ow, a.d_oh, od, oh, ow);
    const int id = od * a.str[0] + col.d, ih = oh * a.str[1] + col.h, iw = ow * a.str[2] + col.w;
    if (!inside(a, id, ih, iw)) return -1;
    return col.base + n * a.xs[0] + id * a.xs[2] + ih * a.xs[3] + iw * a.xs[4];
  }
  __device__ static int out_row(const ConvArgs &a, int g, int m) { return (g * a.Kg + m) * a.ws[0]; }
  __device__ static int out_col(const ConvArgs &a, int, int col) {
    uint32_t c;
    const uint32_t t = a.d_cg.divmod(col, c);
    int td, th, tw;
    split_dhw(t, a.d_fw, a.d_fh, td, th, tw);
    return static_cast<int>(c) * a.ws[1] + filter_tap_offset(a, a.ws, td, th, tw);
  }
};

// The reduction table of the precomputed path (forward, and the data
// gradient with unit strides): per r, what its (tap, channel) adds to A's
// and B's offsets and the window displacement it applies, so that a load
// costs a table read (L1) instead of three divisions:
//   x: A's offset delta, y: B's offset delta, z: displacement in D,
//   w: displacement in H (high 16 bits) and W (low 16 bits).
// Rows then carry their window origin folded into the base offset.
struct ConvTable {
  __device__ static int4 entry(const ConvArgs &a, int r) {
    uint32_t c;
    const uint32_t t = a.d_rc.divmod(r, c);
    int td, th, tw;
    split_dhw(t, a.d_fw, a.d_fh, td, th, tw);
    const int wd = td * a.dil[0], wh = th * a.dil[1], ww = tw * a.dil[2];
    const int ci = static_cast<int>(c);
    if (a.dir == kConvBwdData)  // r = (tap, k): dy moves against the tap
      return make_int4(ci * a.ys[1] - (wd * a.ys[2] + wh * a.ys[3] + ww * a.ys[4]),
                       ci * a.ws[0] + filter_tap_offset(a, a.ws, td, th, tw), wd, (wh << 16) | ww);
    return make_int4(ci * a.xs[1] + wd * a.xs[2] + wh * a.xs[3] + ww * a.xs[4],
                     ci * a.ws[1] + filter_tap_offset(a, a.ws, td, th, tw), wd, (wh << 16) | ww);
  }
};

template <int DIR>
struct ConvTableIndex;

template <>
struct ConvTableIndex<kConvFwd> {
  __device__ static Line a_row(const ConvArgs &a, int g, int m) {
    Line l = ConvIndex<kConvFwd>::a_row(a, g, m);
    l.base += l.d * a.xs[2] + l.h * a.xs[3] + l.w * a.xs[4];
    return l;
  }
  __device__ static int a_off(const ConvArgs &a, const Line &row, const int4 &e) {
    if (!inside(a, row.d + e.z, row.h + (e.w >> 16), row.w + (e.w & 0xffff))) return -1;
    return row.base + e.x;
  }
};

template <>
struct ConvTableIndex<kConvBwdData> {
  // Unit strides: the output position is (i + pad) - displacement.
  __device__ static Line a_row(const ConvArgs &a, int g, int m) {
    Line l = ConvIndex<kConvBwdData>::a_row(a, g, m);
    l.base += l.d * a.ys[2] + l.h * a.ys[3] + l.w * a.ys[4];
    return l;
  }
  __device__ static int a_off(const ConvArgs &a, const Line &row, const int4 &e) {
    const int od = row.d - e.z, oh = row.h - (e.w >> 16), ow = row.w - (e.w & 0xffff);
    if (static_cast<unsigned>(od) >= static_cast<unsigned>(a.out[0]) ||
        static_cast<unsigned>(oh) >= static_cast<unsigned>(a.out[1]) ||
        static_cast<unsigned>(ow) >= static_cast<unsigned>(a.out[2]))
      return -1;
    return row.base + e.x;
  }
};

// Storage types of a ConvTypes value.
template <ConvTypes T>
struct ConvTypeMap;
template <>
struct ConvTypeMap<ConvTypes::f32> {
  using In = float;
  using Out = float;
  using Acc = float;
};
template <>
struct ConvTypeMap<ConvTypes::f64> {
  using In = double;
  using Out = double;
  using Acc = double;
};
template <>
struct ConvTypeMap<ConvTypes::f16> {
  using In = half_bits;
  using Out = half_bits;
  using Acc = float;
};
template <>
struct ConvTypeMap<ConvTypes::bf16> {
  using In = bf16_bits;
  using Out = bf16_bits;
  using Acc = float;
};
template <>
struct ConvTypeMap<ConvTypes::f16_to_f32> {
  using In = half_bits;
  using Out = float;
  using Acc = float;
};
template <>
struct ConvTypeMap<ConvTypes::bf16_to_f32> {
  using In = bf16_bits;
  using Out = float;
  using Acc = float;
};

// out = alpha * v + beta * out; beta == 0 never reads out.
template <class TO, class Acc>
__device__ inline void blend_store(TO *out, int off, Acc v, Acc alpha, Acc beta) {
  Acc r = alpha * v;
  if (beta != Acc(0)) r += beta * Storage<TO>::template load<Acc>(out[off]);
  out[off] = Storage<TO>::store(r);
}

}  // namespace fdnn::cuda
