#include "common/pooling_reference.hpp"

#include <cmath>
#include <limits>

namespace fdnn_test {

namespace {

bool is_max(cudnnPoolingMode_t m) { return m == CUDNN_POOLING_MAX || m == CUDNN_POOLING_MAX_DETERMINISTIC; }

double eps(cudnnDataType_t compute) { return compute == CUDNN_DATA_DOUBLE ? std::ldexp(1.0, -52) : std::ldexp(1.0, -23); }

// One window: the input indices it covers (in bounds) and its divisor.
struct Window {
  std::vector<std::vector<int64_t>> cells;
  double divisor = 1;
};

Window window_of(const PoolingParams &p, const std::vector<int64_t> &x_dims, const std::vector<int64_t> &o) {
  const size_t s = p.window.size();
  Window w;
  std::vector<int64_t> lo(s), in_lo(s), in_hi(s);
  for (size_t d = 0; d < s; ++d) {
    lo[d] = o[2 + d] * p.stride[d] - p.padding[d];
    const int64_t n = x_dims[2 + d];
    in_lo[d] = std::max<int64_t>(lo[d], 0);
    in_hi[d] = std::min<int64_t>(lo[d] + p.window[d], n);
    int64_t count;
    // Not clamped at 0: NVIDIA cuDNN counts a window that starts past the
    // end negative there, so its (empty) average is -0 (seen on the H100
    // with y larger than the advised output; a count of 0 gives NaN).
    if (p.mode == CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING) {
      count = in_hi[d] - in_lo[d];
    } else {
      // Padded positions count, but only inside [-pad, n + pad).
      const int64_t a = std::max<int64_t>(lo[d], -p.padding[d]);
      const int64_t b = std::min<int64_t>(lo[d] + p.window[d], n + p.padding[d]);
      count = b - a;
    }
    w.divisor *= static_cast<double>(count);
  }
  std::vector<int64_t> pos(in_lo);
  for (size_t d = 0; d < s; ++d)
    if (in_lo[d] >= in_hi[d]) return w;  // nothing in bounds
  for (;;) {
    std::vector<int64_t> idx = o;
    for (size_t d = 0; d < s; ++d) idx[2 + d] = pos[d];
    w.cells.push_back(idx);
    int d = static_cast<int>(s) - 1;
    for (; d >= 0; --d) {
      if (++pos[d] < in_hi[d]) break;
      pos[d] = in_lo[d];
    }
    if (d < 0) break;
  }
  return w;
}

// Index of the cell holding the maximum (first on ties), or -1 when none;
// with NaN propagation the first NaN wins.
int64_t max_cell(const Window &w, const HostTensor &x, bool propagate_nan, cudnnDataType_t compute, double &value) {
  // cuDNN starts from the lowest finite value of the compute type: a window
  // without input positions gives -FLT_MAX.
  value = compute == CUDNN_DATA_DOUBLE ? -std::numeric_limits<double>::max()
                                       : -static_cast<double>(std::numeric_limits<float>::max());
  int64_t at = -1;
  for (size_t c = 0; c < w.cells.size(); ++c) {
    const double v = x.get(w.cells[c]);
    if (std::isnan(v)) {
      if (propagate_nan) {
        value = v;
        return static_cast<int64_t>(c);
      }
      continue;
    }
    if (v > value) {
      value = v;
      at = static_cast<int64_t>(c);
    }
  }
  return at;
}

int64_t linear_index(const std::vector<int64_t> &dims, const std::vector<int64_t> &idx) {
  int64_t l = 0;
  for (size_t d = 0; d < dims.size(); ++d) l = l * dims[d] + idx[d];
  return l;
}

}  // namespace

std::vector<int64_t> pooling_output_dims(const PoolingParams &p, const std::vector<int64_t> &x_dims) {
  std::vector<int64_t> y = x_dims;
  for (size_t d = 0; d < p.window.size(); ++d)
    y[2 + d] = 1 + (x_dims[2 + d] + 2 * p.padding[d] - p.window[d]) / p.stride[d];
  return y;
}

std::vector<Expect> reference_pooling_forward(const PoolingParams &p, const HostTensor &x, double alpha, double beta,
                                              const HostTensor &y_prior, cudnnDataType_t compute) {
  std::vector<Expect> out;
  const double e = eps(compute);
  for_each_index(y_prior.dims, [&](const std::vector<int64_t> &o) {
    const Window w = window_of(p, x.dims, o);
    double v, mag;
    if (is_max(p.mode)) {
      max_cell(w, x, p.propagate_nan, compute, v);
      // HALF data: a window without input positions (or of -inf only)
      // gives half's lowest finite value, as cuDNN 9.19 does.
      if (x.dtype == CUDNN_DATA_HALF && v < -65504.0) v = -65504.0;
      mag = std::isfinite(v) ? std::fabs(v) : 0;
    } else {
      double sum = 0, abs_sum = 0;
      for (const auto &c : w.cells) {
        sum += x.get(c);
        abs_sum += std::fabs(x.get(c));
      }
      // A divisor of 0 averages to 0/0 = NaN when padding is excluded (0
      // when it is included); a negative one (a window past the end) to -0.
      v = w.divisor != 0 ? sum / w.divisor
                         : (p.mode == CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING ? std::nan("") : 0.0);
      mag = w.divisor > 0 ? abs_sum / w.divisor * static_cast<double>(w.cells.size() + 2) : 0.0;
    }
    Expect ex;
    ex.value = alpha * v;
    double tol = std::fabs(alpha) * mag * 2 * e;
    if (beta != 0) {
      const double prior = y_prior.get(o);
      ex.value += beta * prior;
      tol += std::fabs(beta * prior) * 2 * e + std::fabs(alpha * v) * e;
    }
    ex.tolerance = std::isfinite(ex.value) ? tol : 0.0;
    if (std::isnan(v)) ex.value = v;  // NaN stays NaN whatever the blend
    out.push_back(ex);
  });
  return out;
}

std::vector<Expect> reference_pooling_backward(const PoolingParams &p, const HostTensor &x, const HostTensor &dy,
                                               double alpha, double beta, const HostTensor &dx_prior,
                                               cudnnDataType_t compute) {
  const int64_t count = x.elements();
  std::vector<double> grad(static_cast<size_t>(count), 0.0), mag(static_cast<size_t>(count), 0.0);
  std::vector<int> terms(static_cast<size_t>(count), 0);
  for_each_index(dy.dims, [&](const std::vector<int64_t> &o) {
    const Window w = window_of(p, x.dims, o);
    const double g = dy.get(o);
    if (is_max(p.mode)) {
      double v;
      const int64_t at = max_cell(w, x, p.propagate_nan, compute, v);
      if (at < 0) return;
      const size_t l = static_cast<size_t>(linear_index(x.dims, w.cells[static_cast<size_t>(at)]));
      grad[l] += g;
      mag[l] += std::fabs(g);
      ++terms[l];
    } else if (w.divisor > 0) {
      for (const auto &c : w.cells) {
        const size_t l = static_cast<size_t>(linear_index(x.dims, c));
        grad[l] += g / w.divisor;
        mag[l] += std::fabs(g / w.divisor);
        ++terms[l];
      }
    }
  });
  std::vector<Expect> out;
  const double e = eps(compute);
  for_each_index(x.dims, [&](const std::vector<int64_t> &i) {
    const size_t l = static_cast<size_t>(linear_index(x.dims, i));
    Expect ex;
    ex.value = alpha * grad[l];
    double tol = std::fabs(alpha) * mag[l] * (terms[l] + 3) * e;
    if (beta != 0) {
      const double prior = dx_prior.get(i);
      ex.value += beta * prior;
      tol += std::fabs(beta * prior) * 2 * e + std::fabs(ex.value) * e;
    }
    ex.tolerance = tol;
    out.push_back(ex);
  });
  return out;
}

}  // namespace fdnn_test
