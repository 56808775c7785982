// --op=norm: layer, RMS and instance norm through the backend API (one
// NORM_FORWARD or NORM_BACKWARD operation, the builders of
// tests/common/backend_bn_patterns.hpp), on the first engine of heuristics
// mode A:
//   --alg=<mode>-<phase>[-nhwc]   mode layer | rms | instance, phase train
//                                 (forward training: mean and inv_variance
//                                 outputs) | infer (forward inference from
//                                 given mean / inv_variance) | bwd (backward
//                                 from saved statistics: dx, dscale[, dbias])
// Shapes: layer / RMS NxD (x is [N, D, 1, 1], rows of D); instance NxCxHxW
// (NCHW, or NHWC with the -nhwc suffix). --dt=f32|f16|bf16 for the data
// (statistics and parameters float). The check compares every output with
// the builder's float64 expectation.
// oneDNN peer: layer norm only (layer_normalization_forward training /
// inference with global statistics, layer_normalization_backward with
// diff_scale and diff_shift): oneDNN 2.x has no RMS flag, and no instance
// normalization primitive.
#include <memory>
#include <stdexcept>
#include <unordered_map>

#include "backend_plan.hpp"
#include "bn_pattern_run.hpp"
#include "common/backend_bn_patterns.hpp"
#include "default_set.hpp"
#include "dtype.hpp"
#include "op.hpp"
#ifdef FREEDNN_BENCH_ONEDNN
#include "onednn_primitive.hpp"
#endif

namespace bench {
namespace {

struct NormAlg {
  cudnnBackendNormMode_t mode = CUDNN_LAYER_NORM;
  enum Phase { train, infer, bwd } phase = train;
  bool nhwc = false;
};

NormAlg norm_alg(const std::string &name) {
  std::string n = name.empty() ? "layer-train" : name;
  NormAlg a;
  a.nhwc = strip_suffix(n, "-nhwc");
  const size_t dash = n.find('-');
  const std::string mode = n.substr(0, dash), phase = dash == std::string::npos ? "" : n.substr(dash + 1);
  if (mode == "layer") a.mode = CUDNN_LAYER_NORM;
  else if (mode == "rms") a.mode = CUDNN_RMS_NORM;
  else if (mode == "instance") a.mode = CUDNN_INSTANCE_NORM;
  else throw std::invalid_argument("norm --alg: mode '" + mode + "' is not layer, rms or instance");
  if (phase == "train") a.phase = NormAlg::train;
  else if (phase == "infer") a.phase = NormAlg::infer;
  else if (phase == "bwd") a.phase = NormAlg::bwd;
  else throw std::invalid_argument("norm --alg: phase '" + phase + "' is not train, infer or bwd");
  if (a.nhwc && a.mode != CUDNN_INSTANCE_NORM) throw std::invalid_argument("norm --alg: -nhwc is for instance norm");
  return a;
}

constexpr float kEpsilon = 1e-4f;  // the builder's

fdnn_test::BnPatternConfig norm_config(const NormAlg &a, const Problem &p) {
  fdnn_test::BnPatternConfig c;
  c.pattern = a.phase == NormAlg::bwd ? fdnn_test::BnPattern::norm_backward : fdnn_test::BnPattern::norm_forward;
  c.norm_mode = a.mode;
  c.training = a.phase != NormAlg::infer;
  c.running = false;
  c.nhwc = a.nhwc;
  c.io_type = to_cudnn_dtype(p.knobs.dt);
  const Dims &s = p.shapes[0];
  c.dims.assign(s.begin(), s.end());
  while (c.dims.size() < 4) c.dims.push_back(1);
  return c;
}

class NormRun : public BnPatternGraphRun {
 public:
  NormRun(cudnnHandle_t handle, const NormAlg &a, const Problem &p)
      : BnPatternGraphRun(handle, norm_config(a, p), CUDNN_HEUR_MODE_A), alg_(a), dt_(p.knobs.dt) {}

  std::unique_ptr<PeerRun> onednn_peer() const override {
#ifdef FREEDNN_BENCH_ONEDNN
    if (alg_.mode != CUDNN_LAYER_NORM) return nullptr;
    using namespace dnnl;
    memory::data_type dt;
    if (dt_ == "f32") dt = memory::data_type::f32;
    else if (dt_ == "bf16") dt = memory::data_type::bf16;
    else if (dt_ == "f16") dt = memory::data_type::f16;
    else return nullptr;
    const fdnn_test::BnPatternConfig &cfg = config();
    int64_t d = 1;
    for (size_t i = 1; i < cfg.dims.size(); ++i) d *= cfg.dims[i];
    const int64_t n = cfg.dims[0];
    try {
      engine &eng = onednn_cpu_engine();
      const memory::desc x({n, d}, dt, memory::format_tag::ab);
      const auto ss = normalization_flags::use_scale | normalization_flags::use_shift;
      if (alg_.phase != NormAlg::bwd) {
        const bool train = alg_.phase == NormAlg::train;
        layer_normalization_forward::primitive_desc pd(
            layer_normalization_forward::desc(train ? prop_kind::forward_training : prop_kind::forward_inference, x,
                                              kEpsilon, train ? ss : ss | normalization_flags::use_global_stats),
            eng);
        memory mean = train ? memory(pd.mean_desc(), eng) : onednn_filled(pd.mean_desc());
        memory var = memory(pd.variance_desc(), eng);
        if (!train) {
          float *v = static_cast<float *>(var.get_data_handle());
          for (int64_t i = 0; i < n; ++i) v[i] = 1.0f;
        }
        std::unordered_map<int, memory> args{{DNNL_ARG_SRC, onednn_filled(pd.src_desc())},
                                             {DNNL_ARG_SCALE, onednn_filled(pd.weights_desc())},
                                             {DNNL_ARG_SHIFT, onednn_filled(pd.weights_desc())},
                                             {DNNL_ARG_MEAN, mean},
                                             {DNNL_ARG_VARIANCE, var},
                                             {DNNL_ARG_DST, memory(pd.dst_desc(), eng)}};
        return onednn_primitive_peer(layer_normalization_forward(pd), args,
                                     std::string("oneDNN layer_normalization_forward:") + pd.impl_info_str());
      }
      layer_normalization_forward::primitive_desc fpd(
          layer_normalization_forward::desc(prop_kind::forward_training, x, kEpsilon, ss), eng);
      layer_normalization_backward::primitive_desc pd(
          layer_normalization_backward::desc(prop_kind::backward, x, x, kEpsilon, ss), eng, fpd);
      memory var = memory(pd.variance_desc(), eng);
      float *v = static_cast<float *>(var.get_data_handle());
      for (int64_t i = 0; i < n; ++i) v[i] = 1.0f;
      std::unordered_map<int, memory> args{{DNNL_ARG_SRC, onednn_filled(pd.src_desc())},
                                           {DNNL_ARG_DIFF_DST, onednn_filled(pd.diff_dst_desc())},
                                           {DNNL_ARG_SCALE, onednn_filled(pd.weights_desc())},
                                           {DNNL_ARG_SHIFT, onednn_filled(pd.weights_desc())},  // required with use_shift
                                           {DNNL_ARG_MEAN, onednn_filled(pd.mean_desc())},
                                           {DNNL_ARG_VARIANCE, var},
                                           {DNNL_ARG_DIFF_SRC, memory(pd.diff_src_desc(), eng)},
                                           {DNNL_ARG_DIFF_SCALE, memory(pd.diff_weights_desc(), eng)},
                                           {DNNL_ARG_DIFF_SHIFT, memory(pd.diff_weights_desc(), eng)}};
      return onednn_primitive_peer(layer_normalization_backward(pd), args,
                                   std::string("oneDNN layer_normalization_backward:") + pd.impl_info_str());
    } catch (const dnnl::error &) {
      return nullptr;
    }
#else
    return nullptr;
#endif
  }

 private:
  NormAlg alg_;
  std::string dt_;
};

class NormFamily : public OpFamily {
 public:
  const char *name() const override { return "norm"; }
  const char *help() const override {
    return "  norm       layer / RMS / instance norm (backend API, first engine of heuristics mode A):\n"
           "             --alg=layer|rms|instance-train|infer|bwd[-nhwc]: shape NxD (layer, rms) or\n"
           "             NxCxHxW (instance; NCHW, NHWC with -nhwc); --dt=f32|f16|bf16 (float statistics)\n";
  }
  void validate(const Problem &p) const override {
    const NormAlg a = norm_alg(p.knobs.alg);
    const std::string &dt = p.knobs.dt;
    if (dt != "f32" && dt != "f16" && dt != "bf16") throw std::invalid_argument("norm --dt is f32, f16 or bf16");
    const size_t rank = a.mode == CUDNN_INSTANCE_NORM ? 4 : 2;
    if (!p.descriptor.empty() || p.shapes.size() != 1 || p.shapes[0].size() != rank)
      throw std::invalid_argument(rank == 4 ? "instance norm takes one shape NxCxHxW" : "layer / RMS norm takes NxD");
    for (int64_t d : p.shapes[0])
      if (d < 1) throw std::invalid_argument("norm extents must be positive");
  }
  std::string knobs_text(const Problem &p) const override {
    return "--alg=" + (p.knobs.alg.empty() ? std::string("layer-train") : p.knobs.alg) + " --dt=" + p.knobs.dt;
  }
  std::unique_ptr<OpRun> prepare(cudnnHandle_t handle, const Problem &p) const override {
    return std::make_unique<NormRun>(handle, norm_alg(p.knobs.alg), p);
  }
};

BENCH_REGISTER_OP(NormFamily)

BENCH_DEFAULT_PROBLEMS(
    norm, 98,
    {
        "--reset --name=norm.layer.train.f32 --op=norm --alg=layer-train --dt=f32 8192x1024",
        "--reset --name=norm.layer.infer.f32 --op=norm --alg=layer-infer --dt=f32 8192x1024",
        "--reset --name=norm.layer.bwd.f32 --op=norm --alg=layer-bwd --dt=f32 8192x1024",
        "--reset --name=norm.layer.train.bf16 --op=norm --alg=layer-train --dt=bf16 8192x1024",
        "--reset --name=norm.rms.train.f32 --op=norm --alg=rms-train --dt=f32 8192x1024",
        "--reset --name=norm.rms.bwd.f32 --op=norm --alg=rms-bwd --dt=f32 8192x1024",
        "--reset --name=norm.instance.train.f32 --op=norm --alg=instance-train --dt=f32 16x64x56x56",
        "--reset --name=norm.instance.train.nhwc.f16 --op=norm --alg=instance-train-nhwc --dt=f16 16x64x56x56",
        "--reset --name=norm.instance.bwd.f32 --op=norm --alg=instance-bwd --dt=f32 16x64x56x56",
        "--reset --name=norm.instance.bwd.nhwc.f32 --op=norm --alg=instance-bwd-nhwc --dt=f32 16x64x56x56",
    })

}  // namespace
}  // namespace bench
