// --op=sdpa-fp8-bwd: the FP8 attention backward graph of cudnn-frontend's
// sdpa_fp8_backward (tests/common/backend_sdpa_fp8_bwd.hpp) through the
// backend API. Shape BxHxKxSxD: batch, query heads, K/V heads (dividing H;
// 1 < K < H uses the grouped rank-5 form), sequence (s_q = s_kv), head dim
// (d = d_v); BHSD. --alg: e4m3 | e5m2 (the FP8 type) | causal-e4m3 |
// causal-e5m2, optionally prefixed by frontend- (cudnn-frontend's P8^T and
// dS8^T RESHAPE views) and / or dropout- (the frontend's FP8 dropout, p =
// 0.1), in that order, each with the suffix -opbyop for the first engine of
// heuristics mode FALLBACK (the op-by-op engine) instead of mode A's (on the
// CPU the fused cpu.fusion.sdpa_bwd). FLOPs: 8 b h s^2 d (the four
// products of the backward, the recomputed Q K^T not counted). The check
// asks for finite outputs (the tests compare against the float64 reference).
#include <cmath>
#include <memory>
#include <stdexcept>

#include "backend_plan.hpp"
#include "common/backend_sdpa_fp8_bwd.hpp"
#include "default_set.hpp"
#include "op.hpp"

namespace bench {
namespace {

struct Fp8BwdAlg {
  cudnnDataType_t type = CUDNN_DATA_FP8_E4M3;
  bool causal = false, opbyop = false;
  bool frontend = false;  // frontend-: P8^T / dS8^T as RESHAPE views of the virtual FP8 scores
  bool dropout = false;   // dropout-: the frontend's FP8 dropout (p = 0.1)
};

Fp8BwdAlg parse_alg(std::string alg) {
  Fp8BwdAlg a;
  const std::string suffix = "-opbyop";
  if (alg.size() > suffix.size() && alg.compare(alg.size() - suffix.size(), suffix.size(), suffix) == 0) {
    a.opbyop = true;
    alg.resize(alg.size() - suffix.size());
  }
  if (alg.rfind("frontend-", 0) == 0) a.frontend = true, alg = alg.substr(9);
  if (alg.rfind("dropout-", 0) == 0) a.dropout = true, alg = alg.substr(8);
  if (alg.rfind("causal-", 0) == 0) a.causal = true, alg = alg.substr(7);
  if (alg.empty() || alg == "e4m3") a.type = CUDNN_DATA_FP8_E4M3;
  else if (alg == "e5m2") a.type = CUDNN_DATA_FP8_E5M2;
  else throw std::invalid_argument("unknown sdpa-fp8-bwd --alg '" + alg + "' ([frontend-][dropout-][causal-]e4m3|e5m2[-opbyop])");
  return a;
}

class SdpaFp8BwdRun : public OpRun {
 public:
  SdpaFp8BwdRun(cudnnHandle_t handle, const Problem &p) : handle_(handle) {
    const Dims &s = p.shapes[0];
    const Fp8BwdAlg a = parse_alg(p.knobs.alg);
    c_.b = s[0], c_.h = s[1], c_.h_kv = s[2], c_.s_q = s[3], c_.s_kv = s[3], c_.d = s[4], c_.d_v = s[4];
    c_.io_type = a.type, c_.causal = a.causal, c_.frontend = a.frontend, c_.dropout = a.dropout ? 0.1 : 0.0;
    c_.scale = 1.0 / std::sqrt(static_cast<double>(c_.d));
    graph_ = fdnn_test::build_sdpa_fp8_bwd_graph(c_);
    plan_ = plan_graph(handle_, graph_.ops, a.opbyop ? CUDNN_HEUR_MODE_FALLBACK : CUDNN_HEUR_MODE_A);
  }

  void fill(uint64_t seed) override {
    fdnn_test::Rng rng(seed);
    data_ = fdnn_test::make_sdpa_fp8_bwd_data(c_, rng);
    fdnn_test::sdpa_fp8_bwd_tensors(c_, data_, tensors_);
    std::vector<int64_t> uids;
    std::vector<void *> ptrs;
    dq_index_ = upload_tensors(tensors_.list, fdnn_test::kF8DQ, bufs_, uids, ptrs);
    for (auto &val : graph_.values) uids.push_back(val.uid), ptrs.push_back(val.bytes);
    plan_.bind(uids, ptrs);
  }

  void execute() override { plan_.execute(); }

  CheckResult check() override {
    fdnn_test::download(bufs_[dq_index_], data_.dq);
    return all_finite(data_.dq.values(), "dQ");
  }

  double bytes_moved() const override {
    return static_cast<double>(data_.q.bytes.size() + data_.k.bytes.size() + data_.v.bytes.size() +
                               data_.o.bytes.size() + data_.d_o.bytes.size() + data_.dq.bytes.size() +
                               data_.dk.bytes.size() + data_.dv.bytes.size());
  }
  double flops() const override { return 8.0 * c_.b * c_.h * static_cast<double>(c_.s_q) * c_.s_kv * c_.d; }

 private:
  cudnnHandle_t handle_;
  fdnn_test::SdpaFp8BwdConfig c_;
  fdnn_test::SdpaGraph graph_;
  GraphPlan plan_;
  std::vector<fdnn_test::Buffer> bufs_;
  size_t dq_index_ = 0;
  fdnn_test::SdpaFp8BwdData data_;
  fdnn_test::SdpaFp8BwdTensors tensors_;
};

class SdpaFp8BwdFamily : public OpFamily {
 public:
  const char *name() const override { return "sdpa-fp8-bwd"; }
  const char *help() const override {
    return "  sdpa-fp8-bwd  FP8 attention backward (backend API): shape BxHxKxSxD (K = K/V heads dividing H);\n"
           "             --alg=[causal-]e4m3|e5m2[-opbyop]\n";
  }
  void validate(const Problem &p) const override {
    parse_alg(p.knobs.alg);
    if (p.shapes.size() != 1 || p.shapes[0].size() != 5)
      throw std::invalid_argument("sdpa-fp8-bwd takes one shape BxHxKxSxD");
    for (int64_t d : p.shapes[0])
      if (d < 1) throw std::invalid_argument("sdpa-fp8-bwd extents must be positive");
    if (p.shapes[0][1] % p.shapes[0][2] != 0) throw std::invalid_argument("sdpa-fp8-bwd: K must divide H");
  }
  std::string knobs_text(const Problem &p) const override {
    return "--alg=" + (p.knobs.alg.empty() ? std::string("e4m3") : p.knobs.alg);
  }
  std::unique_ptr<OpRun> prepare(cudnnHandle_t handle, const Problem &p) const override {
    return std::make_unique<SdpaFp8BwdRun>(handle, p);
  }
};

BENCH_REGISTER_OP(SdpaFp8BwdFamily)

BENCH_DEFAULT_PROBLEMS(sdpa_fp8_bwd, 97, {
    "--reset --name=sdpa-fp8-bwd.fused.e4m3 --op=sdpa-fp8-bwd --alg=e4m3 1x8x8x256x64",
    "--reset --name=sdpa-fp8-bwd.opbyop.e4m3 --op=sdpa-fp8-bwd --alg=e4m3-opbyop 1x8x8x256x64",
})

}  // namespace
}  // namespace bench
