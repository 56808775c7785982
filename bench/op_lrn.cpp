// --op=lrn: cudnnLRNCrossChannelForward (y = alpha * x / (k + a/n * sum x^2)^b
// + beta * y over n neighbouring channels) and, with --alg=bwd_cross,
// cudnnLRNCrossChannelBackward (dx from x, y, dy). n = 5, a = 1e-4, b = 0.75,
// k = 2. Shape: X (4 or 5 dims); --stag is the layout of every tensor.
// oneDNN peer (alpha 1, beta 0): lrn_across_channels with local_size n,
// alpha a, beta b, k: oneDNN divides alpha by n as cuDNN does; its backward
// reads src, diff_dst and the forward's workspace (made once, untimed).
#include <string>

#include "common/lrn_reference.hpp"
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

bool parse_backward(const std::string &alg) {
  if (alg.empty() || alg == "cross") return false;
  if (alg == "bwd_cross") return true;
  throw std::invalid_argument("unknown lrn --alg '" + alg + "' (cross, bwd_cross)");
}

class LrnRun : public OpRun {
 public:
  LrnRun(cudnnHandle_t handle, const Problem &p)
      : handle_(handle),
        backward_(parse_backward(p.knobs.alg)),
        x_(p.shapes[0], p.knobs.stag, p.knobs.dt),
        y_(p.shapes[0], p.knobs.stag, p.knobs.dt),
        dy_(p.shapes[0], p.knobs.stag, p.knobs.dt),
        dx_(p.shapes[0], p.knobs.stag, p.knobs.dt),
        alpha_(p.knobs.dt, p.knobs.alpha),
        beta_(p.knobs.dt, p.beta_or(0)) {
    check_status(cudnnCreateLRNDescriptor(&desc_), "cudnnCreateLRNDescriptor");
    const cudnnStatus_t s = cudnnSetLRNDescriptor(desc_, params_.n, params_.alpha, params_.beta, params_.k);
    if (s != CUDNN_STATUS_SUCCESS) cudnnDestroyLRNDescriptor(desc_);
    check_status(s, "cudnnSetLRNDescriptor");
  }
  ~LrnRun() override { cudnnDestroyLRNDescriptor(desc_); }

  void fill(uint64_t seed) override {
    hx_ = fill_random(x_, seed, -3, 3);
    if (!backward_) {
      hy0_ = beta_.value() != 0 ? fill_random(y_, seed + 1, -2, 2) : host_like(y_);
      if (beta_.value() == 0) poison(y_);
      return;
    }
    // y as the forward makes it (cuDNN's backward takes it).
    const fdnn_test::Scaling one(1), zero(0);
    const cudnnDataType_t t = x_.cudnn_dt();
    check_status(cudnnLRNCrossChannelForward(handle_, desc_, CUDNN_LRN_CROSS_CHANNEL_DIM1, one.for_type(t),
                                             x_.desc(), x_.data(), zero.for_type(t), y_.desc(), y_.data()),
                 "cudnnLRNCrossChannelForward");
    hdy_ = fill_random(dy_, seed + 2, -2, 2);
    hy0_ = beta_.value() != 0 ? fill_random(dx_, seed + 3, -2, 2) : host_like(dx_);
    if (beta_.value() == 0) poison(dx_);
  }

  void execute() override {
    if (backward_)
      check_status(cudnnLRNCrossChannelBackward(handle_, desc_, CUDNN_LRN_CROSS_CHANNEL_DIM1, alpha_.ptr(), y_.desc(),
                                                y_.data(), dy_.desc(), dy_.data(), x_.desc(), x_.data(), beta_.ptr(),
                                                dx_.desc(), dx_.data()),
                   "cudnnLRNCrossChannelBackward");
    else
      check_status(cudnnLRNCrossChannelForward(handle_, desc_, CUDNN_LRN_CROSS_CHANNEL_DIM1, alpha_.ptr(), x_.desc(),
                                               x_.data(), beta_.ptr(), y_.desc(), y_.data()),
                   "cudnnLRNCrossChannelForward");
  }

  CheckResult check() override {
    const cudnnDataType_t ct = default_compute_type(x_.dt());
    if (backward_)
      return compare(download(dx_), fdnn_test::reference_lrn_backward(params_, hx_, nullptr, hdy_, alpha_.value(),
                                                                      beta_.value(), hy0_, ct));
    return compare(download(y_),
                   fdnn_test::reference_lrn_forward(params_, hx_, nullptr, alpha_.value(), beta_.value(), hy0_, ct));
  }

  std::unique_ptr<PeerRun> onednn_peer() const override {
    if (alpha_.value() != 1 || beta_.value() != 0) return nullptr;
    return onednn_lrn(backward_, x_.peer(), static_cast<int>(params_.n), params_.alpha, params_.beta, params_.k);
  }

  // Forward: x, y. Backward: x, dy, dx (y is not needed: it is a function of x).
  double bytes_moved() const override {
    const double x = static_cast<double>(x_.bytes());
    const double out = x * (beta_.value() != 0 ? 2 : 1);
    return backward_ ? 2 * x + out : x + out;
  }

 private:
  cudnnHandle_t handle_;
  bool backward_;
  fdnn_test::LrnParams params_;  // n 5, alpha 1e-4, beta 0.75, k 2
  BenchTensor x_, y_, dy_, dx_;
  Scaling alpha_, beta_;
  cudnnLRNDescriptor_t desc_ = nullptr;
  HostTensor hx_, hy0_, hdy_;
};

class LrnFamily : public OpFamily {
 public:
  const char *name() const override { return "lrn"; }
  const char *help() const override {
    return "  lrn        cudnnLRNCrossChannelForward / Backward, n=5 alpha=1e-4 beta=0.75 k=2.\n"
           "             --alg=cross|bwd_cross [cross]. SHAPES: X (4 or 5 dims), e.g.\n"
           "             32x64x56x56; --stag is the layout of every tensor; --dt.\n";
  }
  void validate(const Problem &p) const override {
    parse_backward(p.knobs.alg);
    if (p.shapes.size() != 1 || (p.shapes[0].size() != 4 && p.shapes[0].size() != 5))
      throw std::invalid_argument("lrn takes one 4-d or 5-d shape");
    letter_tag(p.knobs.stag, p.shapes[0].size());
  }
  std::string knobs_text(const Problem &p) const override {
    std::string t = "--alg=" + (p.knobs.alg.empty() ? std::string("cross") : p.knobs.alg) + " --dt=" + p.knobs.dt +
                    " --stag=" + p.knobs.stag;
    return t + blend_text(p);
  }
  std::unique_ptr<OpRun> prepare(cudnnHandle_t handle, const Problem &p) const override {
    return std::make_unique<LrnRun>(handle, p);
  }
};

BENCH_REGISTER_OP(LrnFamily)

}  // namespace

BENCH_DEFAULT_PROBLEMS(lrn, 42, {
    "--reset --name=lrn.nchw.f32 --op=lrn --alg=cross --dt=f32 --stag=nchw 32x64x56x56",
    "--reset --name=lrn.nhwc.f32 --op=lrn --alg=cross --dt=f32 --stag=nhwc 32x64x56x56",
    "--reset --name=lrn.bwd.nchw.f32 --op=lrn --alg=bwd_cross --dt=f32 --stag=nchw 32x64x56x56",
    "--reset --name=lrn.bwd.nhwc.f32 --op=lrn --alg=bwd_cross --dt=f32 --stag=nhwc 32x64x56x56",
})

}  // namespace bench
