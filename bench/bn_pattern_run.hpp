// The run of one graph of tests/common/backend_bn_patterns.hpp through the
// backend API, which --op=bn-pattern and --op=norm share: the graph is
// planned once (descriptors only), fill() rebuilds it with the seed's data
// and float64 expectations (same uids and shapes), check() compares every
// output with them, and each real tensor counts once in bytes_moved().
#pragma once

#include <cudnn.h>

#include <cstdint>
#include <map>

#include "backend_plan.hpp"
#include "common/backend_bn_patterns.hpp"
#include "op.hpp"

namespace bench {

class BnPatternGraphRun : public OpRun {
 public:
  // Plans the graph of `cfg` through the first engine config of heuristics `mode`.
  BnPatternGraphRun(cudnnHandle_t handle, const fdnn_test::BnPatternConfig &cfg, cudnnBackendHeurMode_t mode);

  void fill(uint64_t seed) override;
  void execute() override;
  CheckResult check() override;
  double bytes_moved() const override;

 protected:
  const fdnn_test::BnPatternConfig &config() const { return cfg_; }

 private:
  fdnn_test::BnPatternConfig cfg_;
  fdnn_test::PatternGraph graph_, data_;
  GraphPlan plan_;
  std::map<int64_t, fdnn_test::Buffer> buffers_;
};

}  // namespace bench
