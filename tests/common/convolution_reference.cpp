#include "common/convolution_reference.hpp"

#include <cmath>

namespace fdnn_test {

namespace {

enum class Dir { fwd, bwd_data, bwd_filter };

// All three directions share one walk over (n, k, output position, c, tap);
// each adds x * w into its own result (y, dx or dw) with its magnitude.
std::vector<Expect> walk(Dir dir, const ConvParams &p, const HostTensor &x, const HostTensor &w, const HostTensor &y,
                         double alpha, double beta, const HostTensor &prior, cudnnDataType_t compute, double slack) {
  const int nsp = x.rank() - 2;
  const int64_t N = x.dims[0], C = x.dims[1], K = w.dims[0], Cg = w.dims[1], G = p.groups, Kg = K / G;
  const HostTensor &out = dir == Dir::fwd ? y : dir == Dir::bwd_data ? x : w;
  const std::vector<int64_t> &odims = out.dims;
  int64_t count = 1;
  for (int64_t d : odims) count *= d;
  std::vector<double> sum(count, 0.0), mag(count, 0.0);
  std::vector<int64_t> ostride(odims.size(), 1);
  for (int d = static_cast<int>(odims.size()) - 2; d >= 0; --d) ostride[d] = ostride[d + 1] * odims[d + 1];
  const auto flat = [&](const std::vector<int64_t> &idx) {
    int64_t f = 0;
    for (size_t d = 0; d < idx.size(); ++d) f += idx[d] * ostride[d];
    return f;
  };
  std::vector<int64_t> yspatial(y.dims.begin() + 2, y.dims.end()), wspatial(w.dims.begin() + 2, w.dims.end());
  std::vector<int64_t> xi(nsp + 2), wi(nsp + 2), yi(nsp + 2);
  for (int64_t n = 0; n < N; ++n)
    for (int64_t k = 0; k < K; ++k) {
      const int64_t g = k / Kg;
      for_each_index(yspatial, [&](const std::vector<int64_t> &o) {
        for (int64_t cg = 0; cg < Cg; ++cg)
          for_each_index(wspatial, [&](const std::vector<int64_t> &f) {
            xi[0] = n;
            xi[1] = g * Cg + cg;
            for (int d = 0; d < nsp; ++d) {
              const int64_t i = o[d] * p.stride[d] - p.pad[d] + f[d] * p.dilation[d];
              if (i < 0 || i >= x.dims[d + 2]) return;
              xi[d + 2] = i;
            }
            wi[0] = k;
            wi[1] = cg;
            for (int d = 0; d < nsp; ++d) wi[d + 2] = p.mode == CUDNN_CONVOLUTION ? w.dims[d + 2] - 1 - f[d] : f[d];
            yi[0] = n;
            yi[1] = k;
            for (int d = 0; d < nsp; ++d) yi[d + 2] = o[d];
            double a, b;
            int64_t at;
            switch (dir) {
              case Dir::fwd: a = x.get(xi), b = w.get(wi), at = flat(yi); break;
              case Dir::bwd_data: a = y.get(yi), b = w.get(wi), at = flat(xi); break;
              default: a = x.get(xi), b = y.get(yi), at = flat(wi); break;
            }
            sum[at] += a * b;
            mag[at] += std::fabs(a * b);
          });
      });
    }
  std::vector<Expect> want(count);
  const double u = compute == CUDNN_DATA_DOUBLE ? std::ldexp(1.0, -53) : std::ldexp(1.0, -24);
  int64_t i = 0;
  for_each_index(odims, [&](const std::vector<int64_t> &idx) {
    double v = alpha * sum[i], m = std::fabs(alpha) * mag[i];
    if (beta != 0) {
      const double prev = prior.get(idx);
      v += beta * prev;
      m += std::fabs(beta * prev);
    }
    want[i] = {v, slack * u * (m + 1e-30) + 4 * u * std::fabs(v)};
    ++i;
  });
  return want;
}

}  // namespace

std::vector<int64_t> conv_output_dims(const ConvParams &p, const std::vector<int64_t> &x_dims,
                                      const std::vector<int64_t> &w_dims) {
  std::vector<int64_t> out{x_dims[0], w_dims[0]};
  for (size_t d = 2; d < x_dims.size(); ++d) {
    const int64_t span = (w_dims[d] - 1) * p.dilation[d - 2] + 1;
    out.push_back(1 + (x_dims[d] + 2 * p.pad[d - 2] - span) / p.stride[d - 2]);
  }
  return out;
}

std::vector<Expect> reference_conv_forward(const ConvParams &p, const HostTensor &x, const HostTensor &w, double alpha,
                                           double beta, const HostTensor &y_prior, cudnnDataType_t compute,
                                           double slack) {
  return walk(Dir::fwd, p, x, w, y_prior, alpha, beta, y_prior, compute, slack);
}

std::vector<Expect> reference_conv_backward_data(const ConvParams &p, const HostTensor &w, const HostTensor &dy,
                                                 double alpha, double beta, const HostTensor &dx_prior,
                                                 cudnnDataType_t compute, double slack) {
  return walk(Dir::bwd_data, p, dx_prior, w, dy, alpha, beta, dx_prior, compute, slack);
}

std::vector<Expect> reference_conv_backward_filter(const ConvParams &p, const HostTensor &x, const HostTensor &dy,
                                                   double alpha, double beta, const HostTensor &dw_prior,
                                                   cudnnDataType_t compute, double slack) {
  return walk(Dir::bwd_filter, p, x, dw_prior, dy, alpha, beta, dw_prior, compute, slack);
}

}  // namespace fdnn_test
