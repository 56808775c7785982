// The transforms of Winograd's F(4x4, 3x3) (Lavin and Gray's matrices with
// interpolation points 0, +-1, +-2 and infinity), shared by the CUDA kernels
// of cuda.conv.winograd and a host-side test of the arithmetic: plain
// templates on the element type, __host__ __device__ under nvcc.
//   forward tile:  Y = A^T [ (G g G^T) .* (B^T d B) ] A      (d 6x6, g 3x3, Y 4x4)
//   filter grad:   dg = G^T [ (A dY A^T) .* (B^T d B) ] G    (summed over tiles)
// Each 2-d transform is the 1-d one on the columns, then on the rows.
#pragma once

#ifdef __CUDACC__
#define FDNN_WINO_HD __host__ __device__ __forceinline__
#define FDNN_WINO_UNROLL _Pragma("unroll")
#else
#define FDNN_WINO_HD inline
#define FDNN_WINO_UNROLL
#endif

namespace fdnn::cuda::wino {

constexpr int kTile = 6;  // transformed tile edge (alpha = m + r - 1)
constexpr int kOut = 4;   // output tile edge (m)
constexpr int kTaps = kTile * kTile;

// B^T d for one 6-vector (stride `s` apart in `in`, written `t` apart to `out`).
template <class T>
FDNN_WINO_HD void input_1d(const T *in, int s, T *out, int t) {
  const T d0 = in[0], d1 = in[s], d2 = in[2 * s], d3 = in[3 * s], d4 = in[4 * s], d5 = in[5 * s];
  out[0] = T(4) * d0 - T(5) * d2 + d4;
  out[t] = -T(4) * (d1 + d2) + d3 + d4;
  out[2 * t] = T(4) * (d1 - d2) - d3 + d4;
  out[3 * t] = T(2) * (d3 - d1) - d2 + d4;
  out[4 * t] = T(2) * (d1 - d3) - d2 + d4;
  out[5 * t] = T(4) * d1 - T(5) * d3 + d5;
}

// G g for one 3-vector.
template <class T>
FDNN_WINO_HD void filter_1d(const T *in, int s, T *out, int t) {
  const T g0 = in[0], g1 = in[s], g2 = in[2 * s];
  const T a = g0 + g2, b = T(0.25) * g0 + g2;
  out[0] = T(0.25) * g0;
  out[t] = -(a + g1) * T(1.0 / 6);
  out[2 * t] = -(a - g1) * T(1.0 / 6);
  out[3 * t] = (b + T(0.5) * g1) * T(1.0 / 6);
  out[4 * t] = (b - T(0.5) * g1) * T(1.0 / 6);
  out[5 * t] = g2;
}

// A^T m for one 6-vector.
template <class T>
FDNN_WINO_HD void output_1d(const T *in, int s, T *out, int t) {
  const T m0 = in[0], m1 = in[s], m2 = in[2 * s], m3 = in[3 * s], m4 = in[4 * s], m5 = in[5 * s];
  const T p12 = m1 + m2, d12 = m1 - m2, p34 = m3 + m4, d34 = m3 - m4;
  out[0] = m0 + p12 + p34;
  out[t] = d12 + T(2) * d34;
  out[2 * t] = p12 + T(4) * p34;
  out[3 * t] = d12 + T(8) * d34 + m5;
}

// A q for one 4-vector (the output gradient's transform).
template <class T>
FDNN_WINO_HD void grad_1d(const T *in, int s, T *out, int t) {
  const T q0 = in[0], q1 = in[s], q2 = in[2 * s], q3 = in[3 * s];
  const T e = q0 + q2, o = q1 + q3, e4 = q0 + T(4) * q2, o2 = T(2) * q1 + T(8) * q3;
  out[0] = q0;
  out[t] = e + o;
  out[2 * t] = e - o;
  out[3 * t] = e4 + o2;
  out[4 * t] = e4 - o2;
  out[5 * t] = q3;
}

// G^T s for one 6-vector (back to 3 filter taps).
template <class T>
FDNN_WINO_HD void filter_grad_1d(const T *in, int s, T *out, int t) {
  const T s0 = in[0], s1 = in[s], s2 = in[2 * s], s3 = in[3 * s], s4 = in[4 * s], s5 = in[5 * s];
  const T p12 = s1 + s2, d12 = s2 - s1, p34 = s3 + s4, d34 = s3 - s4;
  out[0] = T(0.25) * s0 + (p34 * T(0.25) - p12) * T(1.0 / 6);
  out[t] = (d12 + T(0.5) * d34) * T(1.0 / 6);
  out[2 * t] = (p34 - p12) * T(1.0 / 6) + s5;
}

// 2-d forms on row-major tiles.
template <class T>
FDNN_WINO_HD void input_tile(const T (&d)[kTile][kTile], T (&v)[kTaps]) {
  T t[kTile][kTile];
FDNN_WINO_UNROLL
  for (int j = 0; j < kTile; ++j) input_1d(&d[0][j], kTile, &t[0][j], kTile);
FDNN_WINO_UNROLL
  for (int i = 0; i < kTile; ++i) input_1d(&t[i][0], 1, &v[i * kTile], 1);
}

template <class T>
FDNN_WINO_HD void filter_tile(const T (&g)[3][3], T (&u)[kTaps]) {
  T t[kTile][3];
FDNN_WINO_UNROLL
  for (int j = 0; j < 3; ++j) filter_1d(&g[0][j], 3, &t[0][j], 3);
FDNN_WINO_UNROLL
  for (int i = 0; i < kTile; ++i) filter_1d(&t[i][0], 1, &u[i * kTile], 1);
}

template <class T>
FDNN_WINO_HD void output_tile(const T (&m)[kTaps], T (&y)[kOut][kOut]) {
  T t[kOut][kTile];
FDNN_WINO_UNROLL
  for (int j = 0; j < kTile; ++j) output_1d(&m[j], kTile, &t[0][j], kTile);
FDNN_WINO_UNROLL
  for (int i = 0; i < kOut; ++i) output_1d(&t[i][0], 1, &y[i][0], 1);
}

template <class T>
FDNN_WINO_HD void grad_tile(const T (&q)[kOut][kOut], T (&z)[kTaps]) {
  T t[kTile][kOut];
FDNN_WINO_UNROLL
  for (int j = 0; j < kOut; ++j) grad_1d(&q[0][j], kOut, &t[0][j], kOut);
FDNN_WINO_UNROLL
  for (int i = 0; i < kTile; ++i) grad_1d(&t[i][0], 1, &z[i * kTile], 1);
}

template <class T>
FDNN_WINO_HD void filter_grad_tile(const T (&s)[kTaps], T (&g)[3][3]) {
  T t[3][kTile];
FDNN_WINO_UNROLL
  for (int j = 0; j < kTile; ++j) filter_grad_1d(&s[j], kTile, &t[0][j], kTile);
FDNN_WINO_UNROLL
  for (int i = 0; i < 3; ++i) filter_grad_1d(&t[i][0], 1, &g[i][0], 1);
}

}  // namespace fdnn::cuda::wino
