#include "host_data.hpp"

#include <cmath>
#include <sstream>

#include "common/random.hpp"

namespace bench {

HostTensor host_like(const BenchTensor &t) { return fdnn_test::make_tensor(t.cudnn_dt(), t.dims(), t.strides()); }

HostTensor fill_random(BenchTensor &t, uint64_t seed, double lo, double hi) {
  HostTensor h = host_like(t);
  fdnn_test::Rng rng(seed);
  fdnn_test::fill_random(h, rng, lo, hi);
  t.buffer().upload(h.bytes.data(), h.bytes.size());
  return h;
}

void poison(BenchTensor &t) {
  HostTensor h = host_like(t);
  fdnn_test::poison(h);
  t.buffer().upload(h.bytes.data(), h.bytes.size());
}

HostTensor download(const BenchTensor &t) {
  HostTensor h = host_like(t);
  const_cast<BenchTensor &>(t).buffer().download(h.bytes.data(), h.bytes.size());
  return h;
}

CheckResult compare(const HostTensor &got, const std::vector<Expect> &want) {
  CheckResult r;
  ::testing::AssertionResult m = fdnn_test::matches(got, want);
  r.passed = static_cast<bool>(m);
  if (!r.passed) {
    r.detail = m.message();
    if (r.detail.size() > 600) r.detail = r.detail.substr(0, 600) + " ...";
    return r;
  }
  // How close to the edge of its accepted window the worst element came (0:
  // all exact, 1: on the edge). The window is the one fdnn_test::matches
  // accepts, [round(value - tolerance), round(value + tolerance)] in the
  // output's type, so a 16-bit output one rounding step from a value with a
  // tolerance below half a step reads 1, not err / tolerance.
  std::vector<double> g = got.values();
  double worst = 0;
  size_t exact = 0;
  for (size_t i = 0; i < g.size(); ++i) {
    const Expect &e = want[i];
    if (std::isnan(e.value)) continue;
    const double err = g[i] - e.value;
    if (g[i] == fdnn_test::round_to_type(got.dtype, e.value)) {
      ++exact;
      continue;
    }
    const double edge = err > 0 ? fdnn_test::round_to_type(got.dtype, e.value + e.tolerance) - e.value
                                : e.value - fdnn_test::round_to_type(got.dtype, e.value - e.tolerance);
    if (edge > 0) worst = std::fmax(worst, std::fabs(err) / edge);
  }
  std::ostringstream d;
  d << g.size() << " elements match";
  if (exact == g.size()) d << " exactly";
  else d << " (" << g.size() - exact << " not bit-exact; worst " << worst << " of its tolerance)";
  r.detail = d.str();
  r.max_error = worst;
  return r;
}

cudnnDataType_t default_compute_type(const std::string &dt) {
  return dt == "f64" ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
}

}  // namespace bench
