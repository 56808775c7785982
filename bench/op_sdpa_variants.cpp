// --op=sdpa-variant: the variants of the attention forward graph
// (tests/common/backend_sdpa_variants.hpp) through the backend API, on the
// first engine heuristics mode A offers. Shape BxHxKxSxD: batch, query heads,
// K/V heads (dividing H), sequence (s_q = s_kv), head dim (d = d_v); BHSD.
// --alg picks the variant:
//   gqa       rank-4 grouped-query heads (on the CPU: the fused engine)
//   dropout   dropout from an RNG op (p = 0.1), op by op
//   paged     K/V from paged caches (block size 64); on the CPU the fused
//             engine gathers the pages itself
//   paged-decode   the same with one query row (s_q = 1, s_kv = S): decoding
//   fp8-e4m3, fp8-e5m2   the FP8 graph (scales, amax); on the CPU the fused
//             engine (two passes); --dt ignored
// Each with the suffix -opbyop (paged-opbyop, ...): the first engine of
// heuristics mode FALLBACK, the op-by-op engine, for fused vs unfused.
// FLOPs: 4 b h s^2 d (the two matmuls). The check asks for finite outputs:
// the float64 reference at these sizes is too slow here (the tests in
// tests/api/backend_sdpa_variants_test.cpp compare against it).
#include <cmath>
#include <memory>
#include <stdexcept>

#include "backend_plan.hpp"
#include "common/backend_sdpa_variants.hpp"
#include "default_set.hpp"
#include "dtype.hpp"
#include "op.hpp"

namespace bench {
namespace {

const char *const kVariantAlgs = "gqa, dropout, paged, paged-decode, fp8-e4m3, fp8-e5m2, fp8-e4m3-dropout";

// The alg without its -opbyop suffix; *opbyop: whether it had one.
std::string strip_opbyop(const std::string &alg, bool *opbyop) {
  const std::string suffix = "-opbyop";
  *opbyop = alg.size() > suffix.size() && alg.compare(alg.size() - suffix.size(), suffix.size(), suffix) == 0;
  return *opbyop ? alg.substr(0, alg.size() - suffix.size()) : alg;
}

void apply_alg(const std::string &alg_knob, fdnn_test::SdpaVariantConfig *c) {
  bool opbyop = false;
  const std::string alg = strip_opbyop(alg_knob, &opbyop);
  if (alg.empty() || alg == "gqa") return;
  if (alg == "dropout") {
    c->dropout = fdnn_test::SdpaDropout::rng, c->dropout_p = 0.1;
  } else if (alg == "paged") {
    c->paged = true, c->block_size = 64;
  } else if (alg == "paged-decode") {
    c->paged = true, c->block_size = 64, c->s_q = 1;
  } else if (alg == "fp8-e4m3") {
    c->io_type = CUDNN_DATA_FP8_E4M3;
  } else if (alg == "fp8-e5m2") {
    c->io_type = CUDNN_DATA_FP8_E5M2;
  } else if (alg == "fp8-e4m3-dropout") {  // FP8 with dropout from an RNG op (p = 0.1)
    c->io_type = CUDNN_DATA_FP8_E4M3;
    c->dropout = fdnn_test::SdpaDropout::rng, c->dropout_p = 0.1;
  } else {
    throw std::invalid_argument("unknown sdpa-variant --alg '" + alg + "' (" + kVariantAlgs + ")");
  }
}

class SdpaVariantRun : public OpRun {
 public:
  SdpaVariantRun(cudnnHandle_t handle, const Problem &p) : handle_(handle) {
    const Dims &s = p.shapes[0];
    c_.b = s[0], c_.h = s[1], c_.h_kv = s[2], c_.s_q = s[3], c_.s_kv = s[3], c_.d = s[4], c_.d_v = s[4];
    c_.io_type = to_cudnn_dtype(p.knobs.dt);
    // (apply_alg may shorten s_q: paged-decode.)
    c_.scale = 1.0 / std::sqrt(static_cast<double>(c_.d));
    apply_alg(p.knobs.alg, &c_);
    graph_ = fdnn_test::build_sdpa_variant_graph(c_);
    bool opbyop = false;
    strip_opbyop(p.knobs.alg, &opbyop);
    plan_ = plan_graph(handle_, graph_.ops, opbyop ? CUDNN_HEUR_MODE_FALLBACK : CUDNN_HEUR_MODE_A);
  }

  void fill(uint64_t seed) override {
    fdnn_test::Rng rng(seed);
    data_ = fdnn_test::make_sdpa_variant_data(c_, rng);
    const auto tensors = fdnn_test::sdpa_variant_tensors(c_, data_);
    std::vector<int64_t> uids;
    std::vector<void *> ptrs;
    o_index_ = upload_tensors(tensors, fdnn_test::kVarO, bufs_, uids, ptrs);
    for (auto &val : graph_.values) uids.push_back(val.uid), ptrs.push_back(val.bytes);
    plan_.bind(uids, ptrs);
  }

  void execute() override { plan_.execute(); }

  CheckResult check() override {
    fdnn_test::download(bufs_[o_index_], data_.o);
    return all_finite(data_.o.values(), "O");
  }

  double bytes_moved() const override {
    return static_cast<double>(data_.q.bytes.size() + data_.k.bytes.size() + data_.v.bytes.size() +
                               data_.o.bytes.size());
  }
  double flops() const override { return 4.0 * c_.b * c_.h * static_cast<double>(c_.s_q) * c_.s_kv * c_.d; }

 private:
  cudnnHandle_t handle_;
  fdnn_test::SdpaVariantConfig c_;
  fdnn_test::SdpaVariantGraph graph_;
  GraphPlan plan_;
  std::vector<fdnn_test::Buffer> bufs_;
  size_t o_index_ = 0;
  fdnn_test::SdpaVariantData data_;
};

class SdpaVariantFamily : public OpFamily {
 public:
  const char *name() const override { return "sdpa-variant"; }
  const char *help() const override {
    return "  sdpa-variant  attention forward variants (backend API): shape BxHxKxSxD (K = K/V heads dividing H);\n"
           "             --alg=gqa|dropout|paged|paged-decode|fp8-e4m3|fp8-e5m2|fp8-e4m3-dropout[-opbyop]; --dt=f32|f16|bf16 (not for fp8)\n";
  }
  void validate(const Problem &p) const override {
    fdnn_test::SdpaVariantConfig c;
    apply_alg(p.knobs.alg, &c);
    if (p.shapes.size() != 1 || p.shapes[0].size() != 5)
      throw std::invalid_argument("sdpa-variant takes one shape BxHxKxSxD");
    for (int64_t d : p.shapes[0])
      if (d < 1) throw std::invalid_argument("sdpa-variant extents must be positive");
    if (p.shapes[0][1] % p.shapes[0][2] != 0) throw std::invalid_argument("sdpa-variant: K must divide H");
    const std::string &dt = p.knobs.dt;
    if (dt != "f32" && dt != "f16" && dt != "bf16") throw std::invalid_argument("sdpa-variant --dt is f32, f16 or bf16");
  }
  std::string knobs_text(const Problem &p) const override {
    return "--alg=" + (p.knobs.alg.empty() ? std::string("gqa") : p.knobs.alg) + " --dt=" + p.knobs.dt;
  }
  std::unique_ptr<OpRun> prepare(cudnnHandle_t handle, const Problem &p) const override {
    return std::make_unique<SdpaVariantRun>(handle, p);
  }
};

BENCH_REGISTER_OP(SdpaVariantFamily)

// The op-by-op variants materialise the s x s scores several times: kept at
// s = 256 so the default set stays quick on two cores (paged and FP8 in
// both forms: fused vs op by op).
BENCH_DEFAULT_PROBLEMS(sdpa_variant, 96, {
    "--reset --name=sdpa-variant.gqa.f32 --op=sdpa-variant --alg=gqa --dt=f32 1x8x2x1024x64",
    "--reset --name=sdpa-variant.dropout.f32 --op=sdpa-variant --alg=dropout --dt=f32 1x8x8x256x64",
    "--reset --name=sdpa-variant.paged.f32 --op=sdpa-variant --alg=paged --dt=f32 1x8x2x256x64",
    "--reset --name=sdpa-variant.paged.opbyop.f32 --op=sdpa-variant --alg=paged-opbyop --dt=f32 1x8x2x256x64",
    "--reset --name=sdpa-variant.paged-decode.f32 --op=sdpa-variant --alg=paged-decode --dt=f32 4x8x2x4096x64",
    "--reset --name=sdpa-variant.fp8-e4m3 --op=sdpa-variant --alg=fp8-e4m3 --dt=f32 1x8x8x256x64",
    "--reset --name=sdpa-variant.fp8-e4m3.opbyop --op=sdpa-variant --alg=fp8-e4m3-opbyop --dt=f32 1x8x8x256x64",
})

}  // namespace
}  // namespace bench
