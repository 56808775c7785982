#include "bn_pattern_run.hpp"

#include <vector>

#include "common/backend_graph.hpp"

namespace bench {

BnPatternGraphRun::BnPatternGraphRun(cudnnHandle_t handle, const fdnn_test::BnPatternConfig &cfg,
                                     cudnnBackendHeurMode_t mode)
    : cfg_(cfg) {
  cfg_.reference = false;
  fdnn_test::Rng rng(1);
  graph_ = fdnn_test::build_bn_pattern(cfg_, rng);  // descriptors; fill() makes the data
  plan_ = plan_graph(handle, graph_.ops, mode);
}

void BnPatternGraphRun::fill(uint64_t seed) {
  fdnn_test::Rng rng(seed);
  fdnn_test::BnPatternConfig c = cfg_;
  c.reference = true;
  data_ = fdnn_test::build_bn_pattern(c, rng);  // same uids and shapes, fresh data and expectations
  buffers_.clear();
  std::vector<int64_t> uids;
  std::vector<void *> ptrs;
  for (fdnn_test::PatternTensor &t : data_.tensors) {
    uids.push_back(t.uid);
    if (t.by_value) {
      ptrs.push_back(&t.value);
      continue;
    }
    buffers_[t.uid] = fdnn_test::upload(t.data);
    ptrs.push_back(buffers_[t.uid].get());
  }
  plan_.bind(uids, ptrs);
}

void BnPatternGraphRun::execute() { plan_.execute(); }

CheckResult BnPatternGraphRun::check() {
  CheckResult r;
  r.passed = true;
  for (fdnn_test::PatternTensor &t : data_.tensors) {
    if (!t.output) continue;
    fdnn_test::download(buffers_[t.uid], t.data);
    const ::testing::AssertionResult m = fdnn_test::matches(t.data, t.want);
    if (!m) {
      r.passed = false;
      r.detail += t.name + ": " + m.message() + "\n";
    }
  }
  return r;
}

// Each real tensor once (outputs are written without being read).
double BnPatternGraphRun::bytes_moved() const {
  double b = 0;
  for (const fdnn_test::PatternTensor &t : data_.tensors)
    if (!t.by_value) b += static_cast<double>(t.data.bytes.size());
  return b;
}

}  // namespace bench
