// Lowering a convolution to matrix products: the im2col matrix of one image
// and group has a row per (input channel, filter tap) and a column per output
// pixel; the forward convolution is W_g [Kg x Cg*taps] times it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>

#include "core/thread_pool.hpp"
#include "cpu/convolution_common.hpp"

namespace fdnn::cpu {

// Input coordinate of output coordinate o at filter tap f in one dimension.
inline int64_t in_coord(int64_t o, int64_t f, int64_t stride, int64_t pad, int64_t dil) {
  return o * stride - pad + f * dil;
}

// One im2col row (channel plane xc, tap (kd, kh, kw)) for output pixels
// [p0, p0 + len), computing coordinates as it goes (no table).
template <class T>
void im2col_row(const Conv3 &p, const T *xc, int64_t kd, int64_t kh, int64_t kw, int64_t p0, int64_t len, T *row) {
  int64_t ow = p0 % p.ow, t = p0 / p.ow, oh = t % p.oh, od = t / p.oh;
  int64_t j = 0;
  while (j < len) {
    const int64_t run = std::min(len - j, p.ow - ow);
    const int64_t id = in_coord(od, kd, p.sd, p.pd, p.dd), ih = in_coord(oh, kh, p.sh, p.ph, p.dh);
    T *out = row + j;
    if (id < 0 || id >= p.id || ih < 0 || ih >= p.ih) {
      std::fill(out, out + run, T(0));
    } else {
      const T *in = xc + (id * p.ih + ih) * p.iw;
      // The valid ow range: 0 <= ow*sw - pw + kw*dw < iw.
      const int64_t base = kw * p.dw - p.pw;
      for (int64_t i = 0; i < run; ++i) {
        const int64_t iw = (ow + i) * p.sw + base;
        out[i] = (iw >= 0 && iw < p.iw) ? in[iw] : T(0);
      }
    }
    j += run;
    ow = 0;
    if (++oh == p.oh) {
      oh = 0;
      ++od;
    }
  }
}

// Rows (c, tap) of the im2col matrix of Cg channel planes x (each in_pixels
// long) for output pixels [p0, p0+len): col[(c*taps + t) * ldc + j].
template <class T>
void im2col_tile(const Conv3 &p, const T *x, int64_t p0, int64_t len, T *col, int64_t ldc) {
  const int64_t T_ = p.taps(), I = p.in_pixels();
  for (int64_t c = 0; c < p.Cg; ++c)
    for (int64_t t = 0; t < T_; ++t) {
      const int64_t kw = t % p.fw, kh = (t / p.fw) % p.fh, kd = t / (p.fw * p.fh);
      im2col_row(p, x + c * I, kd, kh, kw, p0, len, col + (c * T_ + t) * ldc);
    }
}

// The whole im2col matrix of one image and group, rows split over the pool.
template <class T>
void im2col_full(ThreadPool *pool, const Conv3 &p, const T *x, T *col) {
  const int64_t T_ = p.taps(), I = p.in_pixels(), P = p.out_pixels();
  const auto body = [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r) {
      const int64_t c = r / T_, t = r % T_;
      const int64_t kw = t % p.fw, kh = (t / p.fw) % p.fh, kd = t / (p.fw * p.fh);
      im2col_row(p, x + c * I, kd, kh, kw, 0, P, col + r * P);
    }
  };
  if (pool != nullptr && p.Cg * T_ * P > 8192) pool->parallel_for(p.Cg * T_, body);
  else body(0, p.Cg * T_);
}

// dx planes (Cg of them) += col2im(col): the transpose of im2col_full. Each
// channel's rows only touch its own plane, so channels split over the pool.
// dx is first set to beta * dx (zero when beta == 0, without reading it).
template <class T>
void col2im_full(ThreadPool *pool, const Conv3 &p, const T *col, T *dx, T alpha, T beta) {
  const int64_t T_ = p.taps(), I = p.in_pixels(), P = p.out_pixels();
  const auto body = [&](int64_t b, int64_t e) {
    for (int64_t c = b; c < e; ++c) {
      T *plane = dx + c * I;
      if (beta == T(0)) std::fill(plane, plane + I, T(0));
      else if (beta != T(1)) for (int64_t i = 0; i < I; ++i) plane[i] *= beta;
      for (int64_t t = 0; t < T_; ++t) {
        const int64_t kw = t % p.fw, kh = (t / p.fw) % p.fh, kd = t / (p.fw * p.fh);
        const T *row = col + (c * T_ + t) * P;
        for (int64_t od = 0; od < p.od; ++od) {
          const int64_t id = in_coord(od, kd, p.sd, p.pd, p.dd);
          if (id < 0 || id >= p.id) continue;
          for (int64_t oh = 0; oh < p.oh; ++oh) {
            const int64_t ih = in_coord(oh, kh, p.sh, p.ph, p.dh);
            if (ih < 0 || ih >= p.ih) continue;
            T *out = plane + (id * p.ih + ih) * p.iw;
            const T *in = row + (od * p.oh + oh) * p.ow;
            const int64_t base = kw * p.dw - p.pw;
            for (int64_t ow = 0; ow < p.ow; ++ow) {
              const int64_t iw = ow * p.sw + base;
              if (iw >= 0 && iw < p.iw) out[iw] += alpha * in[ow];
            }
          }
        }
      }
    }
  };
  if (pool != nullptr && p.Cg * T_ * P > 8192) pool->parallel_for(p.Cg, body);
  else body(0, p.Cg);
}

// True for 1x1 filters with stride 1 and no padding: the im2col matrix is the
// input itself.
inline bool is_pointwise_conv(const Conv3 &p) {
  return p.taps() == 1 && p.sd == 1 && p.sh == 1 && p.sw == 1 && p.pd == 0 && p.ph == 0 && p.pw == 0 &&
         p.od == p.id && p.oh == p.ih && p.ow == p.iw;
}

// Runs f(chunk, begin, end) for `chunks` fixed, contiguous ranges of
// [0, items) in parallel; the chunk index picks per-chunk scratch.
inline void for_chunks(ThreadPool *pool, int64_t items, int64_t chunks,
                       const std::function<void(int64_t, int64_t, int64_t)> &f) {
  if (items <= 0) return;
  chunks = std::max<int64_t>(1, std::min(chunks, items));
  const int64_t per = (items + chunks - 1) / chunks;
  const auto body = [&](int64_t b, int64_t e) {
    for (int64_t ch = b; ch < e; ++ch) {
      const int64_t lo = ch * per, hi = std::min(items, lo + per);
      if (lo < hi) f(ch, lo, hi);
    }
  };
  if (pool != nullptr && chunks > 1) pool->parallel_for(chunks, body, chunks);
  else body(0, chunks);
}

inline int pool_threads(const ExecContext &ctx) { return ctx.pool != nullptr ? ctx.pool->size() : 1; }

}  // namespace fdnn::cpu
