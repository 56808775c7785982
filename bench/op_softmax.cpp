// --op=softmax: cudnnSoftmaxForward (y = alpha * softmax(x) + beta * y) and,
// with an alg prefixed "bwd_", cudnnSoftmaxBackward (dx from y and dy).
// --alg=[bwd_]accurate|fast|log [accurate], a suffix "_instance" selects
// CUDNN_SOFTMAX_MODE_INSTANCE (else CHANNEL). Shape: X; 2-d shapes NxC get
// trailing 1s, so CHANNEL and INSTANCE both run over C.
// oneDNN peer (alpha 1, beta 0, CHANNEL mode or INSTANCE on NxCx1x1):
// softmax_v2 along axis 1, softmax_accurate for ACCURATE and softmax_log for
// LOG (FAST, without the max subtraction, has no oneDNN equal).
#include <string>

#include "common/softmax_reference.hpp"
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

struct SoftmaxAlg {
  cudnnSoftmaxAlgorithm_t algo = CUDNN_SOFTMAX_ACCURATE;
  cudnnSoftmaxMode_t mode = CUDNN_SOFTMAX_MODE_CHANNEL;
  bool backward = false;
};

SoftmaxAlg parse_alg(const std::string &alg_in) {
  SoftmaxAlg a;
  std::string s = alg_in.empty() ? "accurate" : alg_in;
  if (s.rfind("bwd_", 0) == 0) {
    a.backward = true;
    s = s.substr(4);
  }
  const std::string suffix = "_instance";
  if (s.size() > suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0) {
    a.mode = CUDNN_SOFTMAX_MODE_INSTANCE;
    s = s.substr(0, s.size() - suffix.size());
  }
  if (s == "accurate") a.algo = CUDNN_SOFTMAX_ACCURATE;
  else if (s == "fast") a.algo = CUDNN_SOFTMAX_FAST;
  else if (s == "log") a.algo = CUDNN_SOFTMAX_LOG;
  else
    throw std::invalid_argument("unknown softmax --alg '" + alg_in + "' ([bwd_]accurate|fast|log[_instance])");
  return a;
}

class SoftmaxRun : public OpRun {
 public:
  SoftmaxRun(cudnnHandle_t handle, const Problem &p)
      : handle_(handle),
        alg_(parse_alg(p.knobs.alg)),
        x_(p.shapes[0], p.knobs.stag, p.knobs.dt),
        y_(p.shapes[0], p.knobs.stag, p.knobs.dt),
        dy_(p.shapes[0], p.knobs.stag, p.knobs.dt),
        alpha_(p.knobs.dt, p.knobs.alpha),
        beta_(p.knobs.dt, p.beta_or(0)) {}

  void fill(uint64_t seed) override {
    if (!alg_.backward) {
      hx_ = fill_random(x_, seed, -4, 4);
    } else {
      // y: a softmax output (positive, rows summing to about 1) or log-softmax (negative).
      hx_ = alg_.algo == CUDNN_SOFTMAX_LOG ? fill_random(x_, seed, -8, -0.01) : fill_random(x_, seed, 0, 0.01);
      hdy_ = fill_random(dy_, seed + 1, -2, 2);
    }
    hy0_ = beta_.value() != 0 ? fill_random(y_, seed + 2, -2, 2) : host_like(y_);
    if (beta_.value() == 0) poison(y_);
  }

  void execute() override {
    if (alg_.backward)
      check_status(cudnnSoftmaxBackward(handle_, alg_.algo, alg_.mode, alpha_.ptr(), x_.desc(), x_.data(), dy_.desc(),
                                        dy_.data(), beta_.ptr(), y_.desc(), y_.data()),
                   "cudnnSoftmaxBackward");
    else
      check_status(cudnnSoftmaxForward(handle_, alg_.algo, alg_.mode, alpha_.ptr(), x_.desc(), x_.data(), beta_.ptr(),
                                       y_.desc(), y_.data()),
                   "cudnnSoftmaxForward");
  }

  CheckResult check() override {
    if (alg_.backward)
      return compare(download(y_), fdnn_test::reference_softmax_backward(alg_.algo, alg_.mode, alpha_.value(), hx_,
                                                                         hdy_, beta_.value(), hy0_));
    return compare(download(y_), fdnn_test::reference_softmax_forward(alg_.algo, alg_.mode, alpha_.value(), hx_,
                                                                      beta_.value(), hy0_));
  }

  std::unique_ptr<PeerRun> onednn_peer() const override {
    if (alg_.algo == CUDNN_SOFTMAX_FAST || alpha_.value() != 1 || beta_.value() != 0) return nullptr;
    if (alg_.mode == CUDNN_SOFTMAX_MODE_INSTANCE) {
      const Dims &d = x_.dims();
      for (size_t i = 2; i < d.size(); ++i)
        if (d[i] != 1) return nullptr;  // INSTANCE over C*H*W: no single oneDNN axis
    }
    return onednn_softmax(alg_.algo == CUDNN_SOFTMAX_LOG, alg_.backward, x_.peer(), 1);
  }

  double bytes_moved() const override {
    const double x = static_cast<double>(x_.bytes());
    const double out = x * (beta_.value() != 0 ? 2 : 1);
    return alg_.backward ? 2 * x + out : x + out;
  }

 private:
  cudnnHandle_t handle_;
  SoftmaxAlg alg_;
  BenchTensor x_, y_, dy_;  // backward: x_ holds y, y_ is dx
  Scaling alpha_, beta_;
  HostTensor hx_, hy0_, hdy_;
};

class SoftmaxFamily : public OpFamily {
 public:
  const char *name() const override { return "softmax"; }
  const char *help() const override {
    return "  softmax    cudnnSoftmaxForward / cudnnSoftmaxBackward. --alg=[bwd_]accurate|fast|log\n"
           "             [accurate], suffix _instance for INSTANCE mode (else CHANNEL). SHAPES: X,\n"
           "             e.g. 4096x1000 (NxC) or 32x19x64x64; --stag is the layout of every\n"
           "             tensor; --dt.\n";
  }
  void validate(const Problem &p) const override {
    parse_alg(p.knobs.alg);
    if (p.shapes.size() != 1 || p.shapes[0].size() < 2 || p.shapes[0].size() > 5)
      throw std::invalid_argument("softmax takes one shape of 2 to 5 dims");
    letter_tag(p.knobs.stag, p.shapes[0].size());
  }
  std::string knobs_text(const Problem &p) const override {
    std::string t = "--alg=" + (p.knobs.alg.empty() ? std::string("accurate") : p.knobs.alg) + " --dt=" + p.knobs.dt +
                    " --stag=" + p.knobs.stag;
    return t + blend_text(p);
  }
  std::unique_ptr<OpRun> prepare(cudnnHandle_t handle, const Problem &p) const override {
    return std::make_unique<SoftmaxRun>(handle, p);
  }
};

BENCH_REGISTER_OP(SoftmaxFamily)

}  // namespace

BENCH_DEFAULT_PROBLEMS(softmax, 41, {
    "--reset --name=softmax.accurate.f32 --op=softmax --alg=accurate --dt=f32 4096x1000",
    "--reset --name=softmax.log.f32 --op=softmax --alg=log --dt=f32 4096x1000",
    "--reset --name=softmax.bwd.accurate.f32 --op=softmax --alg=bwd_accurate --dt=f32 4096x1000",
    "--reset --name=softmax.bwd.log.f32 --op=softmax --alg=bwd_log --dt=f32 4096x1000",
    "--reset --name=softmax.channel.nchw.f32 --op=softmax --alg=accurate --dt=f32 --stag=nchw 32x19x64x64",
})

}  // namespace bench
