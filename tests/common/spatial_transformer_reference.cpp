#include "common/spatial_transformer_reference.hpp"

#include <cmath>

namespace fdnn_test {
namespace {

double coord(int64_t i, int64_t n) { return n == 1 ? -1.0 : -1.0 + 2.0 * static_cast<double>(i) / static_cast<double>(n - 1); }

// Value of input pixel (p, q) of image b, channel ch, or 0 outside.
double pixel(const StShape &s, const std::vector<double> &x, int64_t b, int64_t ch, int64_t p, int64_t q) {
  if (p < 0 || p >= s.hi || q < 0 || q >= s.wi) return 0.0;
  return x[static_cast<size_t>(((b * s.c + ch) * s.hi + p) * s.wi + q)];
}

}  // namespace

std::vector<double> st_grid_forward(const StShape &s, const std::vector<double> &theta) {
  std::vector<double> grid(static_cast<size_t>(s.n * s.h * s.w * 2));
  for (int64_t b = 0; b < s.n; ++b)
    for (int64_t i = 0; i < s.h; ++i)
      for (int64_t j = 0; j < s.w; ++j) {
        const double src[3] = {coord(j, s.w), coord(i, s.h), 1.0};
        for (int r = 0; r < 2; ++r) {
          double v = 0;
          for (int k = 0; k < 3; ++k) v += theta[static_cast<size_t>(b * 6 + r * 3 + k)] * src[k];
          grid[static_cast<size_t>(((b * s.h + i) * s.w + j) * 2 + r)] = v;
        }
      }
  return grid;
}

std::vector<double> st_grid_backward(const StShape &s, const std::vector<double> &dgrid) {
  std::vector<double> dtheta(static_cast<size_t>(s.n * 6), 0.0);
  for (int64_t b = 0; b < s.n; ++b)
    for (int64_t i = 0; i < s.h; ++i)
      for (int64_t j = 0; j < s.w; ++j) {
        const double src[3] = {coord(j, s.w), coord(i, s.h), 1.0};
        for (int r = 0; r < 2; ++r)
          for (int k = 0; k < 3; ++k)
            dtheta[static_cast<size_t>(b * 6 + r * 3 + k)] +=
                dgrid[static_cast<size_t>(((b * s.h + i) * s.w + j) * 2 + r)] * src[k];
      }
  return dtheta;
}

std::vector<double> st_sample(const StShape &s, const std::vector<double> &x, const std::vector<double> &grid) {
  std::vector<double> y(static_cast<size_t>(s.n * s.c * s.h * s.w));
  for (int64_t b = 0; b < s.n; ++b)
    for (int64_t i = 0; i < s.h; ++i)
      for (int64_t j = 0; j < s.w; ++j) {
        const size_t g = static_cast<size_t>(((b * s.h + i) * s.w + j) * 2);
        const double px = (grid[g] + 1.0) * 0.5 * static_cast<double>(s.wi - 1);
        const double py = (grid[g + 1] + 1.0) * 0.5 * static_cast<double>(s.hi - 1);
        const double qx = std::floor(px), qy = std::floor(py);
        const double ax = px - qx, ay = py - qy;
        const int64_t q0 = static_cast<int64_t>(qx), p0 = static_cast<int64_t>(qy);
        for (int64_t ch = 0; ch < s.c; ++ch) {
          const double v = (1 - ay) * ((1 - ax) * pixel(s, x, b, ch, p0, q0) + ax * pixel(s, x, b, ch, p0, q0 + 1)) +
                           ay * ((1 - ax) * pixel(s, x, b, ch, p0 + 1, q0) + ax * pixel(s, x, b, ch, p0 + 1, q0 + 1));
          y[static_cast<size_t>(((b * s.c + ch) * s.h + i) * s.w + j)] = v;
        }
      }
  return y;
}

void st_sample_backward(const StShape &s, const std::vector<double> &x, const std::vector<double> &grid,
                        const std::vector<double> &dy, std::vector<double> &dx, std::vector<double> &dgrid) {
  dx.assign(static_cast<size_t>(s.n * s.c * s.hi * s.wi), 0.0);
  dgrid.assign(static_cast<size_t>(s.n * s.h * s.w * 2), 0.0);
  for (int64_t b = 0; b < s.n; ++b)
    for (int64_t i = 0; i < s.h; ++i)
      for (int64_t j = 0; j < s.w; ++j) {
        const size_t g = static_cast<size_t>(((b * s.h + i) * s.w + j) * 2);
        const double px = (grid[g] + 1.0) * 0.5 * static_cast<double>(s.wi - 1);
        const double py = (grid[g + 1] + 1.0) * 0.5 * static_cast<double>(s.hi - 1);
        const double qx = std::floor(px), qy = std::floor(py);
        const double ax = px - qx, ay = py - qy;
        const int64_t q0 = static_cast<int64_t>(qx), p0 = static_cast<int64_t>(qy);
        double d_ax = 0, d_ay = 0;
        for (int64_t ch = 0; ch < s.c; ++ch) {
          const double d = dy[static_cast<size_t>(((b * s.c + ch) * s.h + i) * s.w + j)];
          const double v00 = pixel(s, x, b, ch, p0, q0), v01 = pixel(s, x, b, ch, p0, q0 + 1);
          const double v10 = pixel(s, x, b, ch, p0 + 1, q0), v11 = pixel(s, x, b, ch, p0 + 1, q0 + 1);
          d_ax += d * ((1 - ay) * (v01 - v00) + ay * (v11 - v10));
          d_ay += d * ((1 - ax) * (v10 - v00) + ax * (v11 - v01));
          const int64_t ps[4] = {p0, p0, p0 + 1, p0 + 1}, qs[4] = {q0, q0 + 1, q0, q0 + 1};
          const double ws[4] = {(1 - ay) * (1 - ax), (1 - ay) * ax, ay * (1 - ax), ay * ax};
          for (int k = 0; k < 4; ++k)
            if (ps[k] >= 0 && ps[k] < s.hi && qs[k] >= 0 && qs[k] < s.wi)
              dx[static_cast<size_t>(((b * s.c + ch) * s.hi + ps[k]) * s.wi + qs[k])] += ws[k] * d;
        }
        dgrid[g] = d_ax * 0.5 * static_cast<double>(s.wi - 1);
        dgrid[g + 1] = d_ay * 0.5 * static_cast<double>(s.hi - 1);
      }
}

}  // namespace fdnn_test
