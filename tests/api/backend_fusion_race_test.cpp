// Regression test (issue 5): cpu.fusion.runtime running a matmul (A's batch
// of 1 broadcast against B's, or not) then ADD of a tensor (and TANH) must
// give the right result every time. The engine runs the matmul's tiles in
// parallel, each through one shared cpu.matmul.onednn plan; that plan's
// oneDNN primitive used to keep one scratchpad (its copy of B) for all
// callers, so tiles running at once overwrote each other's B: a whole batch
// (or its last columns) wrong in some runs. The graph is built through the
// backend API, the cpu.fusion.runtime config is picked by name from
// heuristics mode A, and the plan runs many times on a NaN-poisoned output,
// each result compared with a float64 computation done here. Before the fix
// the k = 512 cases failed in about half of their runs on 2 threads. CPU
// only: skipped on a GPU handle (no such engine there).
#include <cudnn.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "common/backend_graph.hpp"

namespace fdnn_test {
namespace {

constexpr const char *kEngine = "cpu.fusion.runtime";

class BackendFusionRace : public BackendGraphTest {
 public:
  // C = A[a_batch, m, k] x B[batch, k, n]; Y = C + D (D of C's dims); then
  // TANH when asked. Runs the plan `runs` times; returns the failed runs.
  int check(int64_t a_batch, int64_t batch, int64_t m, int64_t k, int64_t n, bool tanh, int runs, uint64_t seed) {
    SCOPED_TRACE(testing::Message() << "a[" << a_batch << "," << m << "," << k << "] b[" << batch << "," << k << ","
                                    << n << "]" << (tanh ? " tanh" : ""));
    if (gpu_mode()) return 0;  // the callers skip
    Rng rng(seed);
    const std::vector<int64_t> ad{a_batch, m, k}, bd{batch, k, n}, cd{batch, m, n};
    const std::vector<float> a = random_floats(rng, element_count(ad)), b = random_floats(rng, element_count(bd)),
                             d = random_floats(rng, element_count(cd));
    std::vector<std::unique_ptr<Desc>> keep;
    keep.push_back(tensor(1, ad));
    keep.push_back(tensor(2, bd));
    keep.push_back(tensor(3, cd, true));
    keep.push_back(tensor(4, cd));
    keep.push_back(tensor(5, cd, tanh));
    if (tanh) keep.push_back(tensor(6, cd));
    std::vector<Desc *> ops;
    keep.push_back(matmul_op(*keep[0], *keep[1], *keep[2]));
    ops.push_back(keep.back().get());
    keep.push_back(pointwise_op(CUDNN_POINTWISE_ADD, *keep[2], keep[3].get(), *keep[4]));
    ops.push_back(keep.back().get());
    if (tanh) {
      keep.push_back(pointwise_op(CUDNN_POINTWISE_TANH_FWD, *keep[4], nullptr, *keep[5]));
      ops.push_back(keep.back().get());
    }
    const int64_t out_uid = tanh ? 6 : 5;

    // The float64 expectation, and a bound on the float error (a k-term
    // dot product in any order, plus the ADD and TANH roundings).
    std::vector<double> want(element_count(cd)), tol(element_count(cd));
    for (int64_t bi = 0; bi < batch; ++bi)
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
          const int64_t abi = a_batch == 1 ? 0 : bi;
          double s = 0, mag = 0;
          for (int64_t p = 0; p < k; ++p) {
            const double prod = double(a[(abi * m + i) * k + p]) * double(b[(bi * k + p) * n + j]);
            s += prod;
            mag += std::fabs(prod);
          }
          const int64_t o = (bi * m + i) * n + j;
          s += d[o];
          mag += std::fabs(d[o]);
          want[o] = tanh ? std::tanh(s) : s;
          tol[o] = double(k + 4) * std::ldexp(1.0, -23) * mag + 1e-6;
        }

    auto cfgs = engine_configs(handle, ops, CUDNN_HEUR_MODE_A);
    std::unique_ptr<Desc> plan;
    for (auto &cfg : cfgs) {
      std::unique_ptr<Desc> p = finalized_plan(handle, cfg->d);
      if (p && plan_engine_name(*p) == kEngine) {
        plan = std::move(p);
        break;
      }
    }
    if (!plan) {
      ADD_FAILURE() << kEngine << " is not offered: " << last_error();
      return 1;
    }
    Buffer ba = upload(a), bb = upload(b), bdd = upload(d);
    const std::vector<float> nan(element_count(cd), std::numeric_limits<float>::quiet_NaN());
    Buffer out = upload(nan);
    int failed = 0;
    for (int r = 0; r < runs; ++r) {
      out.upload(nan.data(), nan.size() * sizeof(float));
      const cudnnStatus_t st = execute(*plan, {1, 2, 4, out_uid}, {ba.get(), bb.get(), bdd.get(), out.get()});
      if (st != CUDNN_STATUS_SUCCESS) {
        ADD_FAILURE() << "execute: " << st << " " << last_error();
        return failed + 1;
      }
      const std::vector<float> got = download(out, nan.size());
      int64_t bad = 0, first = -1;
      for (size_t i = 0; i < got.size(); ++i) {
        if (!(std::fabs(got[i] - want[i]) <= tol[i])) {
          if (first < 0) first = static_cast<int64_t>(i);
          ++bad;
        }
      }
      if (bad > 0) {
        ++failed;
        if (failed <= 3)
          ADD_FAILURE() << "run " << r << ": " << bad << " wrong values, first at " << first << " (batch "
                        << first / (m * n) << "): got " << got[first] << ", want " << want[first];
      }
    }
    EXPECT_EQ(failed, 0) << failed << " of " << runs << " runs wrong";
    return failed;
  }
};

// Larger k first (each tile's matmul then runs long enough for tiles to
// overlap on 2 threads: before the fix nearly every process failed here),
// then the reported graph (A [1,10,32], B [3,32,17]).
TEST_F(BackendFusionRace, BroadcastABatch) {
  if (gpu_mode()) GTEST_SKIP() << kEngine << " is a CPU engine";
  check(1, 8, 64, 512, 40, false, 100, 501);
  check(1, 8, 16, 512, 17, true, 100, 502);
  check(1, 3, 10, 32, 17, false, 200, 503);
  check(1, 3, 10, 32, 17, true, 200, 504);
}

// The same without broadcast (the race did not depend on it), and with a
// column count that needs no tail block.
TEST_F(BackendFusionRace, NoBroadcast) {
  if (gpu_mode()) GTEST_SKIP() << kEngine << " is a CPU engine";
  check(8, 8, 64, 512, 40, true, 50, 505);
  check(1, 8, 16, 512, 16, false, 50, 506);
}

}  // namespace
}  // namespace fdnn_test
