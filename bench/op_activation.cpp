// --op=act: cudnnActivationForward (y = alpha * act(x) + beta * y) and, with
// an alg prefixed "bwd_", cudnnActivationBackward (dx from dy and x or y).
// --alg=[bwd_]relu|tanh|sigmoid|elu|clipped|swish|identity [relu]; clipped
// relu's ceiling is 6, ELU's alpha 1, swish's beta 1. Shape: X; --stag is the
// layout of every tensor.
// oneDNN peer (alpha 1, beta 0; relu, tanh, sigmoid, elu): eltwise relu
// (negative slope 0), tanh, logistic, elu (alpha 1); backward as cuDNN
// computes it: relu from src, tanh / logistic / elu from dst (the
// *_use_dst_for_bwd algorithms).
#include <string>

#include "common/activation_reference.hpp"
#include "default_set.hpp"
#include "dtype.hpp"
#include "host_data.hpp"
#include "layout.hpp"
#include "onednn_nn_peer.hpp"
#include "op.hpp"
#include "scaling.hpp"
#include "tensor.hpp"

namespace bench {
namespace {

struct ActAlg {
  const char *name;
  cudnnActivationMode_t mode;
  double coef;
  const char *onednn;  // eltwise algorithm of the same meaning, or nullptr
  bool bwd_from_y;     // cuDNN's backward reads y (else x)
};
const ActAlg kActAlgs[] = {
    {"relu", CUDNN_ACTIVATION_RELU, 0.0, "relu", false},
    {"tanh", CUDNN_ACTIVATION_TANH, 0.0, "tanh", true},
    {"sigmoid", CUDNN_ACTIVATION_SIGMOID, 0.0, "logistic", true},
    {"elu", CUDNN_ACTIVATION_ELU, 1.0, "elu", true},
    {"clipped", CUDNN_ACTIVATION_CLIPPED_RELU, 6.0, nullptr, false},
    {"swish", CUDNN_ACTIVATION_SWISH, 0.0, nullptr, false},
    {"identity", CUDNN_ACTIVATION_IDENTITY, 0.0, nullptr, false},
};

struct Parsed {
  const ActAlg *alg = &kActAlgs[0];
  bool backward = false;
};

Parsed parse_alg(const std::string &alg_in) {
  Parsed r;
  std::string s = alg_in.empty() ? "relu" : alg_in;
  if (s.rfind("bwd_", 0) == 0) {
    r.backward = true;
    s = s.substr(4);
  }
  for (const ActAlg &a : kActAlgs)
    if (s == a.name) {
      r.alg = &a;
      return r;
    }
  throw std::invalid_argument("unknown act --alg '" + alg_in +
                              "' ([bwd_]relu, tanh, sigmoid, elu, clipped, swish, identity)");
}

class ActRun : public OpRun {
 public:
  ActRun(cudnnHandle_t handle, const Problem &p)
      : handle_(handle),
        parsed_(parse_alg(p.knobs.alg)),
        x_(p.shapes[0], p.knobs.stag, p.knobs.dt),
        y_(p.shapes[0], p.knobs.stag, p.knobs.dt),
        dy_(p.shapes[0], p.knobs.stag, p.knobs.dt),
        dx_(p.shapes[0], p.knobs.stag, p.knobs.dt),
        alpha_(p.knobs.dt, p.knobs.alpha),
        beta_(p.knobs.dt, p.beta_or(0)) {
    spec_.mode = parsed_.alg->mode;
    spec_.coef = parsed_.alg->coef;
    spec_.swish_beta = 1.0;
    check_status(cudnnCreateActivationDescriptor(&desc_), "cudnnCreateActivationDescriptor");
    cudnnStatus_t s = cudnnSetActivationDescriptor(desc_, spec_.mode, CUDNN_NOT_PROPAGATE_NAN, spec_.coef);
    if (s == CUDNN_STATUS_SUCCESS && spec_.mode == CUDNN_ACTIVATION_SWISH)
      s = cudnnSetActivationDescriptorSwishBeta(desc_, spec_.swish_beta);
    if (s != CUDNN_STATUS_SUCCESS) cudnnDestroyActivationDescriptor(desc_);
    check_status(s, "cudnnSetActivationDescriptor");
  }
  ~ActRun() override { cudnnDestroyActivationDescriptor(desc_); }

  void fill(uint64_t seed) override {
    hx_ = fill_random(x_, seed, -4, 4);
    if (!parsed_.backward) {
      hy0_ = beta_.value() != 0 ? fill_random(y_, seed + 1, -2, 2) : host_like(y_);
      if (beta_.value() == 0) poison(y_);
      return;
    }
    // y as the forward makes it (backward reads it for tanh, sigmoid, elu).
    const fdnn_test::Scaling one(1), zero(0);
    const cudnnDataType_t t = x_.cudnn_dt();
    check_status(cudnnActivationForward(handle_, desc_, one.for_type(t), x_.desc(), x_.data(), zero.for_type(t),
                                        y_.desc(), y_.data()),
                 "cudnnActivationForward");
    hy_ = download(y_);
    hdy_ = fill_random(dy_, seed + 2, -2, 2);
    hy0_ = beta_.value() != 0 ? fill_random(dx_, seed + 3, -2, 2) : host_like(dx_);
    if (beta_.value() == 0) poison(dx_);
  }

  void execute() override {
    if (parsed_.backward)
      check_status(cudnnActivationBackward(handle_, desc_, alpha_.ptr(), y_.desc(), y_.data(), dy_.desc(), dy_.data(),
                                           x_.desc(), x_.data(), beta_.ptr(), dx_.desc(), dx_.data()),
                   "cudnnActivationBackward");
    else
      check_status(cudnnActivationForward(handle_, desc_, alpha_.ptr(), x_.desc(), x_.data(), beta_.ptr(), y_.desc(),
                                          y_.data()),
                   "cudnnActivationForward");
  }

  CheckResult check() override {
    if (parsed_.backward)
      return compare(download(dx_), fdnn_test::reference_activation_backward(spec_, alpha_.value(), hy_, hdy_, hx_,
                                                                             beta_.value(), hy0_));
    return compare(download(y_),
                   fdnn_test::reference_activation_forward(spec_, alpha_.value(), hx_, beta_.value(), hy0_));
  }

  std::unique_ptr<PeerRun> onednn_peer() const override {
    if (parsed_.alg->onednn == nullptr || alpha_.value() != 1 || beta_.value() != 0) return nullptr;
    return onednn_eltwise(parsed_.alg->onednn, parsed_.backward && parsed_.alg->bwd_from_y, parsed_.backward,
                          x_.peer(), parsed_.alg->coef, 0.0);
  }

  // Forward: x, y. Backward: dy, x or y, dx.
  double bytes_moved() const override {
    const double x = static_cast<double>(x_.bytes());
    const double out = x * (beta_.value() != 0 ? 2 : 1);
    return parsed_.backward ? 2 * x + out : x + out;
  }

 private:
  cudnnHandle_t handle_;
  Parsed parsed_;
  fdnn_test::ActivationSpec spec_;
  BenchTensor x_, y_, dy_, dx_;
  Scaling alpha_, beta_;
  cudnnActivationDescriptor_t desc_ = nullptr;
  HostTensor hx_, hy_, hy0_, hdy_;
};

class ActFamily : public OpFamily {
 public:
  const char *name() const override { return "act"; }
  const char *help() const override {
    return "  act        cudnnActivationForward / cudnnActivationBackward. --alg=[bwd_]relu|tanh|\n"
           "             sigmoid|elu|clipped|swish|identity [relu] (clipped ceiling 6, ELU alpha 1,\n"
           "             swish beta 1). SHAPES: X, e.g. 32x256x56x56; --stag is the layout of\n"
           "             every tensor; --dt.\n";
  }
  void validate(const Problem &p) const override {
    parse_alg(p.knobs.alg);
    if (p.shapes.size() != 1 || p.shapes[0].empty() || p.shapes[0].size() > 8)
      throw std::invalid_argument("act takes one shape of 1 to 8 dims");
    letter_tag(p.knobs.stag, p.shapes[0].size());
  }
  std::string knobs_text(const Problem &p) const override {
    std::string t = "--alg=" + (p.knobs.alg.empty() ? std::string("relu") : p.knobs.alg) + " --dt=" + p.knobs.dt +
                    " --stag=" + p.knobs.stag;
    return t + blend_text(p);
  }
  std::unique_ptr<OpRun> prepare(cudnnHandle_t handle, const Problem &p) const override {
    return std::make_unique<ActRun>(handle, p);
  }
};

BENCH_REGISTER_OP(ActFamily)

}  // namespace

BENCH_DEFAULT_PROBLEMS(activation, 43, {
    "--reset --name=act.relu.f32 --op=act --alg=relu --dt=f32 32x256x56x56",
    "--reset --name=act.tanh.f32 --op=act --alg=tanh --dt=f32 32x256x56x56",
    "--reset --name=act.sigmoid.f32 --op=act --alg=sigmoid --dt=f32 32x256x56x56",
    "--reset --name=act.elu.f32 --op=act --alg=elu --dt=f32 32x256x56x56",
    "--reset --name=act.bwd.relu.f32 --op=act --alg=bwd_relu --dt=f32 32x256x56x56",
    "--reset --name=act.bwd.tanh.f32 --op=act --alg=bwd_tanh --dt=f32 32x256x56x56",
    "--reset --name=act.bwd.sigmoid.f32 --op=act --alg=bwd_sigmoid --dt=f32 32x256x56x56",
    "--reset --name=act.bwd.elu.f32 --op=act --alg=bwd_elu --dt=f32 32x256x56x56",
    "--reset --name=act.relu.f16 --op=act --alg=relu --dt=f16 32x256x56x56",
})

}  // namespace bench
