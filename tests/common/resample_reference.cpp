#include "common/resample_reference.hpp"

#include <cfloat>
#include <cmath>
#include <numeric>

namespace fdnn_test {
namespace {

// One tap of an upsampling: an input multi-index and its weight.
struct Tap {
  std::vector<int64_t> index;
  double weight;
};

// floor(s) and the fraction of s for s = o * stride - pre + window / 2 - 1/2,
// with s clamped to [0, n - 1].
void sample(const UpsampleParams &p, size_t d, int64_t o, int64_t n, int64_t &lo, double &frac) {
  // Common denominator of the four terms: stride.den * pre.den * 2 * window.den.
  const Frac &st = p.stride[d], &pr = p.pre[d], &w = p.window[d];
  const int64_t den = st.den * pr.den * 2 * w.den;
  int64_t num = o * st.num * pr.den * 2 * w.den - pr.num * st.den * 2 * w.den + w.num * st.den * pr.den -
                st.den * pr.den * w.den;
  const int64_t g = std::gcd(num < 0 ? -num : num, den);
  const int64_t rden = g ? den / g : den;
  num = g ? num / g : num;
  if (num <= 0) {
    lo = 0;
    frac = 0;
    return;
  }
  lo = num / rden;
  if (lo >= n - 1) {
    lo = n - 1;
    frac = 0;
    return;
  }
  frac = static_cast<double>(num % rden) / static_cast<double>(rden);
}

std::vector<Tap> taps(const UpsampleParams &p, const std::vector<int64_t> &o, const std::vector<int64_t> &in_dims) {
  const size_t s = p.stride.size();
  std::vector<Tap> list{{o, 1.0}};
  for (size_t d = 0; d < s; ++d) {
    int64_t lo;
    double frac;
    sample(p, d, o[2 + d], in_dims[2 + d], lo, frac);
    std::vector<Tap> next;
    for (const Tap &t : list) {
      Tap a = t;
      a.index[2 + d] = lo;
      if (!p.bilinear) {
        next.push_back(a);
        continue;
      }
      a.weight *= 1 - frac;
      next.push_back(a);
      if (frac > 0) {
        Tap b = t;
        b.index[2 + d] = lo + 1;
        b.weight *= frac;
        next.push_back(b);
      }
    }
    list = next;
  }
  return list;
}

int64_t flat(const std::vector<int64_t> &dims, const std::vector<int64_t> &i) {
  int64_t l = 0;
  for (size_t d = 0; d < dims.size(); ++d) l = l * dims[d] + i[d];
  return l;
}

// A float computation's error bound for a sum of magnitude m.
double float_error(double m) { return 4e-7 * m + 1e-30; }

}  // namespace

std::vector<Expect> reference_upsample_forward(const UpsampleParams &p, const HostTensor &x, double alpha,
                                               double beta, const HostTensor &y_prior) {
  std::vector<Expect> out;
  for_each_index(y_prior.dims, [&](const std::vector<int64_t> &o) {
    double v = 0, m = 0;
    for (const Tap &t : taps(p, o, x.dims)) {
      v += t.weight * x.get(t.index);
      m += std::fabs(t.weight * x.get(t.index));
    }
    double res = alpha * v, mag = std::fabs(alpha) * m;
    if (beta != 0) {
      res += beta * y_prior.get(o);
      mag += std::fabs(beta * y_prior.get(o));
    }
    out.push_back({res, float_error(mag)});
  });
  return out;
}

std::vector<Expect> reference_upsample_backward(const UpsampleParams &p, const HostTensor &dy, double alpha,
                                                double beta, const HostTensor &dx_prior) {
  int64_t count = 1;
  for (int64_t e : dx_prior.dims) count *= e;
  std::vector<double> grad(static_cast<size_t>(count), 0.0), mag(static_cast<size_t>(count), 0.0);
  for_each_index(dy.dims, [&](const std::vector<int64_t> &o) {
    const double g = dy.get(o);
    for (const Tap &t : taps(p, o, dx_prior.dims)) {
      grad[static_cast<size_t>(flat(dx_prior.dims, t.index))] += t.weight * g;
      mag[static_cast<size_t>(flat(dx_prior.dims, t.index))] += std::fabs(t.weight * g);
    }
  });
  std::vector<Expect> out;
  for_each_index(dx_prior.dims, [&](const std::vector<int64_t> &i) {
    const size_t l = static_cast<size_t>(flat(dx_prior.dims, i));
    double res = alpha * grad[l], m = std::fabs(alpha) * mag[l];
    if (beta != 0) {
      res += beta * dx_prior.get(i);
      m += std::fabs(beta * dx_prior.get(i));
    }
    out.push_back({res, float_error(m)});
  });
  return out;
}

MaxPoolResult reference_maxpool_with_index(const HostTensor &x, const std::vector<int64_t> &y_dims,
                                           const std::vector<int64_t> &window, const std::vector<int64_t> &stride,
                                           const std::vector<int64_t> &pre) {
  MaxPoolResult r;
  const size_t s = window.size();
  std::vector<int64_t> wdims(window);
  for_each_index(y_dims, [&](const std::vector<int64_t> &o) {
    double best = -FLT_MAX;
    int64_t at = -1, pos = 0;
    for_each_index(wdims, [&](const std::vector<int64_t> &k) {
      std::vector<int64_t> i = o;
      bool inside = true;
      for (size_t d = 0; d < s; ++d) {
        i[2 + d] = o[2 + d] * stride[d] - pre[d] + k[d];
        inside = inside && i[2 + d] >= 0 && i[2 + d] < x.dims[2 + d];
      }
      if (inside && x.get(i) > best) {
        best = x.get(i);
        at = pos;
      }
      ++pos;
    });
    r.y.push_back(best);
    r.index.push_back(at);
  });
  return r;
}

std::vector<Expect> reference_maxpool_backward_from_index(const HostTensor &dy, const std::vector<int64_t> &index,
                                                          const std::vector<int64_t> &window,
                                                          const std::vector<int64_t> &stride,
                                                          const std::vector<int64_t> &pre, double alpha, double beta,
                                                          const HostTensor &dx_prior) {
  int64_t count = 1, positions = 1;
  for (int64_t e : dx_prior.dims) count *= e;
  for (int64_t w : window) positions *= w;
  std::vector<double> grad(static_cast<size_t>(count), 0.0), mag(static_cast<size_t>(count), 0.0);
  size_t k = 0;
  const size_t s = window.size();
  for_each_index(dy.dims, [&](const std::vector<int64_t> &o) {
    int64_t p = index[k++];
    if (p < 0 || p >= positions) return;
    std::vector<int64_t> i = o;
    for (size_t d = s; d-- > 0;) {
      i[2 + d] = o[2 + d] * stride[d] - pre[d] + p % window[d];
      p /= window[d];
      if (i[2 + d] < 0 || i[2 + d] >= dx_prior.dims[2 + d]) return;
    }
    grad[static_cast<size_t>(flat(dx_prior.dims, i))] += dy.get(o);
    mag[static_cast<size_t>(flat(dx_prior.dims, i))] += std::fabs(dy.get(o));
  });
  std::vector<Expect> out;
  for_each_index(dx_prior.dims, [&](const std::vector<int64_t> &i) {
    const size_t l = static_cast<size_t>(flat(dx_prior.dims, i));
    double res = alpha * grad[l], m = std::fabs(alpha) * mag[l];
    if (beta != 0) {
      res += beta * dx_prior.get(i);
      m += std::fabs(beta * dx_prior.get(i));
    }
    out.push_back({res, float_error(m)});
  });
  return out;
}

}  // namespace fdnn_test
