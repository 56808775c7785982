// --op=sdpa: scaled dot-product attention forward through the backend API, as
// the composite graph cudnn-frontend builds (tests/common/backend_sdpa.hpp):
// O = softmax(scale Q K^T [+ causal mask]) V for Q, K, V, O of dims
// BxHxSxD (BHSD memory order). --alg picks the mask and the engine:
//   plain, causal               the first engine heuristics mode A offers
//                               (on the CPU: the fused flash-attention engine)
//   plain-opbyop, causal-opbyop the first engine of mode FALLBACK (the
//                               op-by-op engine, scores materialised)
// FLOPs: 4 b h s^2 d (the two matmuls), halved for the causal mask.
//
// --op=sdpa-bwd: the backward graph (tests/common/backend_sdpa_bwd.hpp) after
// a forward run of the library for O and the stats; --alg as above, or
// frontend / frontend-gqa (causal, cudnn-frontend's own form of the graph:
// P^T, dS^T as RESHAPE views of virtual tensors; gqa: H / 4 K/V heads summed
// by a grouped REDUCTION) with their -opbyop forms. FLOPs:
// 10 b h s^2 d (five matmuls), halved for the causal mask. Its check only
// asks for finite gradients: the float64 backward at this size is too slow
// here (tests/api/backend_sdpa_bwd_test.cpp compares against it).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <sstream>

#include "common/backend_sdpa.hpp"
#include "common/backend_sdpa_bwd.hpp"
#include "backend_plan.hpp"
#include "default_set.hpp"
#include "dtype.hpp"
#include "op.hpp"

namespace bench {
namespace {

struct SdpaAlg {
  bool causal = false;
  bool opbyop = false;
  // sdpa-bwd only: cudnn-frontend's own graph (P^T and dS^T RESHAPE views of
  // the virtual P and dS, K / V^T reshapes of the caller's tensors), and with
  // gqa 4 query heads per K/V head in rank 4 (a grouped REDUCTION sums dK, dV).
  bool frontend = false, gqa = false;
};

SdpaAlg sdpa_alg(const std::string &name) {
  if (name.empty() || name == "plain") return {false, false};
  if (name == "causal") return {true, false};
  if (name == "plain-opbyop") return {false, true};
  if (name == "causal-opbyop") return {true, true};
  if (name == "frontend") return {true, false, true, false};
  if (name == "frontend-opbyop") return {true, true, true, false};
  if (name == "frontend-gqa") return {true, false, true, true};
  if (name == "frontend-gqa-opbyop") return {true, true, true, true};
  throw std::invalid_argument("unknown sdpa --alg '" + name +
                              "' (plain, causal, plain-opbyop, causal-opbyop; sdpa-bwd also frontend, frontend-gqa "
                              "and their -opbyop forms, all causal)");
}

class SdpaRun : public OpRun {
 public:
  SdpaRun(cudnnHandle_t handle, const Problem &p) : handle_(handle), alg_(sdpa_alg(p.knobs.alg)) {
    const Dims &s = p.shapes[0];
    c_.b = s[0], c_.h = s[1], c_.h_kv = s[1], c_.s_q = s[2], c_.s_kv = s[2], c_.d = s[3], c_.d_v = s[3];
    c_.io_type = to_cudnn_dtype(p.knobs.dt);
    c_.scale = 1.0 / std::sqrt(static_cast<double>(c_.d));
    c_.causal = alg_.causal;
    graph_ = fdnn_test::build_sdpa_graph(c_);

    plan_ = plan_graph(handle_, graph_.ops, alg_.opbyop ? CUDNN_HEUR_MODE_FALLBACK : CUDNN_HEUR_MODE_A);
  }

  void fill(uint64_t seed) override {
    fdnn_test::Rng rng(seed);
    data_ = fdnn_test::make_sdpa_data(c_, rng);
    q_ = fdnn_test::upload(data_.q), k_ = fdnn_test::upload(data_.k), v_ = fdnn_test::upload(data_.v);
    o_ = fdnn_test::upload(data_.o);
    std::vector<int64_t> uids = {fdnn_test::kSdpaQ, fdnn_test::kSdpaK, fdnn_test::kSdpaV, fdnn_test::kSdpaO};
    std::vector<void *> ptrs = {q_.get(), k_.get(), v_.get(), o_.get()};
    for (auto &val : graph_.values) {
      uids.push_back(val.uid);
      ptrs.push_back(val.bytes);
    }
    plan_.bind(uids, ptrs);
  }

  void execute() override { plan_.execute(); }

  // Every 128th query row (and row 0) of every head against the float64
  // attention: the full reference would take minutes at s = 1024.
  CheckResult check() override {
    constexpr int64_t kRowStep = 128;
    fdnn_test::download(o_, data_.o);
    const fdnn_test::SdpaExpect want = fdnn_test::sdpa_reference(c_, data_, kRowStep);
    const std::vector<double> got = data_.o.values();
    CheckResult r;
    r.passed = true;
    int64_t bad = 0;
    for (int64_t row = 0; row < c_.b * c_.h * c_.s_q; ++row) {
      const int64_t i = row % c_.s_q;
      if (i != 0 && i % kRowStep != kRowStep - 1) continue;
      for (int64_t e = 0; e < c_.d_v; ++e) {
        const size_t k = static_cast<size_t>(row * c_.d_v + e);
        const fdnn_test::Expect &w = want.o[k];
        const double tol = w.tolerance + std::fabs(w.value) * fdnn_test::unit_roundoff(c_.io_type);
        const double err = std::fabs(got[k] - w.value);
        r.max_error = std::max(r.max_error, tol > 0 ? err / tol : err);
        if (!(err <= tol)) {
          if (bad++ < 3) {
            std::ostringstream os;
            os << (r.detail.empty() ? "" : "; ") << "O[row " << row << ", " << e << "] = " << got[k] << ", want "
               << w.value << " +- " << tol;
            r.detail += os.str();
          }
          r.passed = false;
        }
      }
    }
    return r;
  }

  double bytes_moved() const override {
    return static_cast<double>(data_.q.bytes.size() + data_.k.bytes.size() + data_.v.bytes.size() +
                               data_.o.bytes.size());
  }
  double flops() const override {
    const double f = 4.0 * c_.b * c_.h * static_cast<double>(c_.s_q) * c_.s_kv * c_.d;
    return alg_.causal ? f / 2 : f;
  }

 private:
  cudnnHandle_t handle_;
  SdpaAlg alg_;
  fdnn_test::SdpaConfig c_;
  fdnn_test::SdpaGraph graph_;
  GraphPlan plan_;
  fdnn_test::Buffer q_, k_, v_, o_;
  fdnn_test::SdpaData data_;
};

class SdpaFamily : public OpFamily {
 public:
  const char *name() const override { return "sdpa"; }
  const char *help() const override {
    return "  sdpa       attention forward graph (backend API): shape BxHxSxD (Q, K, V, O; BHSD);\n"
           "             --alg=plain|causal (fused engine) or plain-opbyop|causal-opbyop (op by op);\n"
           "             --dt=f32|f16|bf16 for Q, K, V, O (float compute)\n";
  }
  void validate(const Problem &p) const override {
    sdpa_alg(p.knobs.alg);
    if (p.shapes.size() != 1 || p.shapes[0].size() != 4) throw std::invalid_argument("sdpa takes one shape BxHxSxD");
    for (int64_t d : p.shapes[0])
      if (d < 1) throw std::invalid_argument("sdpa extents must be positive");
    const std::string &dt = p.knobs.dt;
    if (dt != "f32" && dt != "f16" && dt != "bf16") throw std::invalid_argument("sdpa --dt is f32, f16 or bf16");
  }
  std::string knobs_text(const Problem &p) const override {
    return "--alg=" + (p.knobs.alg.empty() ? std::string("plain") : p.knobs.alg) + " --dt=" + p.knobs.dt;
  }
  std::unique_ptr<OpRun> prepare(cudnnHandle_t handle, const Problem &p) const override {
    return std::make_unique<SdpaRun>(handle, p);
  }
};

BENCH_REGISTER_OP(SdpaFamily)

BENCH_DEFAULT_PROBLEMS(sdpa, 95, {
    "--reset --name=sdpa.fused.f32 --op=sdpa --alg=plain --dt=f32 1x8x1024x64",
    "--reset --name=sdpa.opbyop.f32 --op=sdpa --alg=plain-opbyop --dt=f32 1x8x1024x64",
    "--reset --name=sdpa.causal.fused.f32 --op=sdpa --alg=causal --dt=f32 1x8x1024x64",
    "--reset --name=sdpa.causal.opbyop.f32 --op=sdpa --alg=causal-opbyop --dt=f32 1x8x1024x64",
})

class SdpaBwdRun : public OpRun {
 public:
  SdpaBwdRun(cudnnHandle_t handle, const Problem &p) : handle_(handle), alg_(sdpa_alg(p.knobs.alg)) {
    const Dims &s = p.shapes[0];
    fdnn_test::SdpaConfig &f = c_.f;
    f.b = s[0], f.h = s[1], f.h_kv = s[1], f.s_q = s[2], f.s_kv = s[2], f.d = s[3], f.d_v = s[3];
    f.io_type = to_cudnn_dtype(p.knobs.dt);
    f.scale = 1.0 / std::sqrt(static_cast<double>(f.d));
    f.causal = alg_.causal;
    c_.frontend = c_.reshapes = alg_.frontend;
    if (alg_.gqa) f.h_kv = std::max<int64_t>(1, f.h / 4), f.rank4_groups = true;
    fwd_config_ = f;
    fwd_config_.stats = true;
    fwd_graph_ = fdnn_test::build_sdpa_graph(fwd_config_);
    graph_ = fdnn_test::build_sdpa_bwd_graph(c_);
    fwd_plan_ = plan_graph(handle_, fwd_graph_.ops, CUDNN_HEUR_MODE_A);
    plan_ = plan_graph(handle_, graph_.ops, alg_.opbyop ? CUDNN_HEUR_MODE_FALLBACK : CUDNN_HEUR_MODE_A);
  }

  void fill(uint64_t seed) override {
    fdnn_test::Rng rng(seed);
    data_ = fdnn_test::make_sdpa_data(fwd_config_, rng);
    const fdnn_test::SdpaShapes sh = fdnn_test::sdpa_shapes(fwd_config_);
    q_ = fdnn_test::upload(data_.q), k_ = fdnn_test::upload(data_.k), v_ = fdnn_test::upload(data_.v);
    o_ = fdnn_test::upload(data_.o), stats_ = fdnn_test::upload(data_.stats);
    // O and the stats from the library's forward.
    std::vector<int64_t> uids = {fdnn_test::kSdpaQ, fdnn_test::kSdpaK, fdnn_test::kSdpaV, fdnn_test::kSdpaO,
                                 fdnn_test::kSdpaStats};
    std::vector<void *> ptrs = {q_.get(), k_.get(), v_.get(), o_.get(), stats_.get()};
    for (auto &val : fwd_graph_.values) uids.push_back(val.uid), ptrs.push_back(val.bytes);
    fwd_plan_.bind(uids, ptrs);
    fwd_plan_.execute();
    fdnn_test::HostTensor d_o = fdnn_test::make_tensor(c_.f.io_type, sh.o_dims, sh.o_strides);
    fdnn_test::fill_random(d_o, rng, -1, 1);
    dq_host_ = fdnn_test::make_tensor(c_.f.io_type, sh.q_dims, sh.q_strides);
    do_ = fdnn_test::upload(d_o), dq_ = fdnn_test::upload(dq_host_);
    dk_ = fdnn_test::upload(fdnn_test::make_tensor(c_.f.io_type, sh.k_dims, sh.k_strides));
    dv_ = fdnn_test::upload(fdnn_test::make_tensor(c_.f.io_type, sh.v_dims, sh.v_strides));
    sum_ = fdnn_test::upload(fdnn_test::make_tensor(CUDNN_DATA_FLOAT, sh.row_dims, fdnn_test::packed(sh.row_dims)));
    acc_ = fdnn_test::upload(fdnn_test::make_tensor(CUDNN_DATA_FLOAT, sh.q_dims, fdnn_test::packed(sh.q_dims)));
    bytes_ = static_cast<double>(data_.q.bytes.size() + data_.k.bytes.size() + data_.v.bytes.size()) * 2 +
             static_cast<double>(data_.o.bytes.size() + d_o.bytes.size());
    uids = {fdnn_test::kSdpaQ, fdnn_test::kSdpaK, fdnn_test::kSdpaV, fdnn_test::kSdpaO, fdnn_test::kSdpaStats,
            fdnn_test::kBwdDO, fdnn_test::kBwdQT, fdnn_test::kBwdKn, fdnn_test::kBwdDOT, fdnn_test::kBwdDQ,
            fdnn_test::kBwdDK, fdnn_test::kBwdDV, fdnn_test::kBwdSoftmaxSum, fdnn_test::kBwdDqAccum};
    ptrs = {q_.get(), k_.get(), v_.get(), o_.get(), stats_.get(), do_.get(), q_.get(), k_.get(), do_.get(),
            dq_.get(), dk_.get(), dv_.get(), sum_.get(), acc_.get()};
    for (auto &val : graph_.values) uids.push_back(val.uid), ptrs.push_back(val.bytes);
    plan_.bind(uids, ptrs);
  }

  void execute() override { plan_.execute(); }

  CheckResult check() override {
    fdnn_test::download(dq_, dq_host_);
    return all_finite(dq_host_.values(), "dQ");
  }

  double bytes_moved() const override { return bytes_; }
  double flops() const override {
    const fdnn_test::SdpaConfig &f = c_.f;
    const double fl = 10.0 * f.b * f.h * static_cast<double>(f.s_q) * f.s_kv * f.d;
    return alg_.causal ? fl / 2 : fl;
  }

 private:
  cudnnHandle_t handle_;
  SdpaAlg alg_;
  fdnn_test::SdpaBwdConfig c_;
  fdnn_test::SdpaConfig fwd_config_;
  fdnn_test::SdpaGraph fwd_graph_, graph_;
  GraphPlan fwd_plan_, plan_;
  fdnn_test::Buffer q_, k_, v_, o_, stats_, do_, dq_, dk_, dv_, sum_, acc_;
  fdnn_test::SdpaData data_;
  fdnn_test::HostTensor dq_host_;
  double bytes_ = 0;
};

class SdpaBwdFamily : public SdpaFamily {
 public:
  const char *name() const override { return "sdpa-bwd"; }
  const char *help() const override {
    return "  sdpa-bwd   attention backward graph (backend API): shape BxHxSxD, BHSD; --alg and --dt as sdpa\n";
  }
  std::unique_ptr<OpRun> prepare(cudnnHandle_t handle, const Problem &p) const override {
    return std::make_unique<SdpaBwdRun>(handle, p);
  }
};

BENCH_REGISTER_OP(SdpaBwdFamily)

BENCH_DEFAULT_PROBLEMS(sdpa_bwd, 95, {
    "--reset --name=sdpa-bwd.fused.f32 --op=sdpa-bwd --alg=plain --dt=f32 1x8x1024x64",
    "--reset --name=sdpa-bwd.opbyop.f32 --op=sdpa-bwd --alg=plain-opbyop --dt=f32 1x8x1024x64",
    "--reset --name=sdpa-bwd.causal.fused.f32 --op=sdpa-bwd --alg=causal --dt=f32 1x8x1024x64",
    "--reset --name=sdpa-bwd.causal.opbyop.f32 --op=sdpa-bwd --alg=causal-opbyop --dt=f32 1x8x1024x64",
    "--reset --name=sdpa-bwd.frontend.fused.f32 --op=sdpa-bwd --alg=frontend --dt=f32 1x8x1024x64",
    "--reset --name=sdpa-bwd.frontend-gqa.fused.bf16 --op=sdpa-bwd --alg=frontend-gqa --dt=bf16 1x8x1024x64",
})

}  // namespace
}  // namespace bench
