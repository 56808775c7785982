// --op=bnorm: batch normalization. --alg=train (cudnnBatchNormalization
// ForwardTraining: batch statistics, running mean / variance update with
// factor 0.1, saved mean and inverse std), infer (ForwardInference from given
// mean / variance), bwd (Backward from saved statistics: dx, dscale, dbias);
// a "_peract" suffix selects PER_ACTIVATION instead of SPATIAL. epsilon 1e-5.
// Shape: X (4 or 5 dims); --stag is the layout of x, y, dy and dx.
// oneDNN peer (SPATIAL, alpha 1, beta 0, f32/bf16/f16 where it takes them):
// batch_normalization with use_scale | use_shift, forward_training /
// forward_inference with use_global_stats / backward. Its training pass
// writes mean and variance but no running statistics or inverse std: C
// values against the N*C*H*W of the data.
#include <cmath>
#include <string>

#include "common/normalization_reference.hpp"
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

constexpr double kEpsilon = 1e-5;
constexpr double kFactor = 0.1;

struct BnAlg {
  std::string phase = "train";  // train, infer, bwd
  bool per_activation = false;
};

BnAlg parse_alg(const std::string &alg_in) {
  BnAlg a;
  std::string s = alg_in.empty() ? "train" : alg_in;
  const std::string suffix = "_peract";
  if (s.size() > suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0) {
    a.per_activation = true;
    s = s.substr(0, s.size() - suffix.size());
  }
  if (s != "train" && s != "infer" && s != "bwd")
    throw std::invalid_argument("unknown bnorm --alg '" + alg_in + "' (train, infer, bwd, each with optional _peract)");
  a.phase = s;
  return a;
}

Dims param_dims(const Dims &x, bool per_activation) {
  Dims d(x.size(), 1);
  d[1] = x[1];
  if (per_activation)
    for (size_t i = 2; i < x.size(); ++i) d[i] = x[i];
  return d;
}

std::string param_dt(const std::string &dt) { return dt == "f64" ? "f64" : "f32"; }

class BnRun : public OpRun {
 public:
  BnRun(cudnnHandle_t handle, const Problem &p)
      : handle_(handle),
        alg_(parse_alg(p.knobs.alg)),
        mode_(alg_.per_activation ? CUDNN_BATCHNORM_PER_ACTIVATION : CUDNN_BATCHNORM_SPATIAL),
        x_(p.shapes[0], p.knobs.stag, p.knobs.dt),
        y_(p.shapes[0], p.knobs.stag, p.knobs.dt),
        dy_(p.shapes[0], p.knobs.stag, p.knobs.dt),
        pd_(param_dims(x_.dims(), alg_.per_activation)),
        scale_(pd_, "abx", param_dt(p.knobs.dt)),
        bias_(pd_, "abx", param_dt(p.knobs.dt)),
        mean_(pd_, "abx", param_dt(p.knobs.dt)),
        var_(pd_, "abx", param_dt(p.knobs.dt)),
        dscale_(pd_, "abx", param_dt(p.knobs.dt)),
        dbias_(pd_, "abx", param_dt(p.knobs.dt)),
        alpha_(p.knobs.dt, p.knobs.alpha),
        beta_(p.knobs.dt, p.beta_or(0)) {
    check_status(cudnnCreateTensorDescriptor(&bnd_), "cudnnCreateTensorDescriptor");
    check_status(cudnnDeriveBNTensorDescriptor(bnd_, x_.desc(), mode_), "cudnnDeriveBNTensorDescriptor");
  }
  ~BnRun() override { cudnnDestroyTensorDescriptor(bnd_); }

  void fill(uint64_t seed) override {
    hx_ = fill_random(x_, seed, -3, 5);
    hscale_ = fill_random(scale_, seed + 1, -2, 2);
    hbias_ = fill_random(bias_, seed + 2, -1, 1);
    const fdnn_test::NormRefShape s = shape();
    if (alg_.phase == "bwd") {
      // Saved statistics as the forward leaves them: the batch's.
      const fdnn_test::NormRefStats st = fdnn_test::norm_batch_stats(s, hx_);
      hmean_ = host_like(mean_);
      hvar_ = host_like(var_);
      std::vector<double> inv(st.var.size());
      for (size_t k = 0; k < inv.size(); ++k) inv[k] = 1 / std::sqrt(st.var[k] + kEpsilon);
      hmean_.set_values(st.mean);
      hvar_.set_values(inv);
      upload_to(mean_, hmean_);
      upload_to(var_, hvar_);
      hdy_ = fill_random(dy_, seed + 3, -2, 2);
      hds0_ = fill_random(dscale_, seed + 4, -1, 1);
      hdb0_ = fill_random(dbias_, seed + 5, -1, 1);
      hy0_ = beta_.value() != 0 ? fill_random(y_, seed + 6, -2, 2) : host_like(y_);  // y_ is dx here
    } else {
      hmean_ = fill_random(mean_, seed + 3, -1, 1);
      hvar_ = fill_random(var_, seed + 4, 0.5, 2);
      hy0_ = beta_.value() != 0 ? fill_random(y_, seed + 6, -2, 2) : host_like(y_);
    }
    if (beta_.value() == 0) poison(y_);
  }

  void execute() override {
    if (alg_.phase == "train") {
      check_status(cudnnBatchNormalizationForwardTraining(handle_, mode_, alpha_.ptr(), beta_.ptr(), x_.desc(),
                                                          x_.data(), y_.desc(), y_.data(), bnd_, scale_.data(),
                                                          bias_.data(), kFactor, mean_.data(), var_.data(), kEpsilon,
                                                          dscale_.data(), dbias_.data()),
                   "cudnnBatchNormalizationForwardTraining");
    } else if (alg_.phase == "infer") {
      check_status(cudnnBatchNormalizationForwardInference(handle_, mode_, alpha_.ptr(), beta_.ptr(), x_.desc(),
                                                           x_.data(), y_.desc(), y_.data(), bnd_, scale_.data(),
                                                           bias_.data(), mean_.data(), var_.data(), kEpsilon),
                   "cudnnBatchNormalizationForwardInference");
    } else {
      const fdnn_test::Scaling one(1), zero(0);
      const cudnnDataType_t t = x_.cudnn_dt();
      check_status(cudnnBatchNormalizationBackward(handle_, mode_, alpha_.ptr(), beta_.ptr(), one.for_type(t),
                                                   zero.for_type(t), x_.desc(), x_.data(), dy_.desc(), dy_.data(),
                                                   y_.desc(), y_.data(), bnd_, scale_.data(), dscale_.data(),
                                                   dbias_.data(), kEpsilon, mean_.data(), var_.data()),
                   "cudnnBatchNormalizationBackward");
    }
  }

  CheckResult check() override {
    const fdnn_test::NormRefShape s = shape();
    const bool dbl = x_.dt() == "f64";
    const std::vector<double> scale = hscale_.values();
    if (alg_.phase == "bwd") {
      const fdnn_test::NormRefGrad want = fdnn_test::norm_backward_expect(
          s, hx_, hdy_, nullptr, scale, hmean_.values(), hvar_.values(), alpha_.value(), beta_.value(), hy0_, 1, 0,
          hds0_.values(), hdb0_.values(), dbl);
      const CheckResult dx = compare(download(y_), want.dx);
      const CheckResult ds = compare(download(dscale_), want.dscale);
      const CheckResult db = compare(download(dbias_), want.dbias);
      if (!ds.passed) return ds;
      if (!db.passed) return db;
      return dx;  // dx's summary (the largest tensor) when all three pass
    }
    std::vector<double> mean, inv;
    if (alg_.phase == "train") {
      const fdnn_test::NormRefStats st = fdnn_test::norm_batch_stats(s, hx_);
      mean = st.mean;
      for (double v : st.var) inv.push_back(1 / std::sqrt(v + kEpsilon));
    } else {
      mean = hmean_.values();
      for (double v : hvar_.values()) inv.push_back(1 / std::sqrt(v + kEpsilon));
    }
    return compare(download(y_), fdnn_test::norm_forward_expect(s, hx_, nullptr, scale, hbias_.values(), mean, inv,
                                                                fdnn_test::NormRefAct{}, alpha_.value(),
                                                                beta_.value(), hy0_, dbl));
  }

  std::unique_ptr<PeerRun> onednn_peer() const override {
    if (alg_.per_activation || alpha_.value() != 1 || beta_.value() != 0) return nullptr;
    return onednn_batch_norm(alg_.phase, x_.peer(), kEpsilon);
  }

  double bytes_moved() const override {
    const double x = static_cast<double>(x_.bytes());
    const double out = x * (beta_.value() != 0 ? 2 : 1);
    return alg_.phase == "bwd" ? 2 * x + out : x + out;  // (x, dy,) y / dx
  }

 private:
  fdnn_test::NormRefShape shape() const { return fdnn_test::NormRefShape{x_.dims(), alg_.per_activation}; }
  static void upload_to(BenchTensor &t, const HostTensor &h) { t.buffer().upload(h.bytes.data(), h.bytes.size()); }

  cudnnHandle_t handle_;
  BnAlg alg_;
  cudnnBatchNormMode_t mode_;
  BenchTensor x_, y_, dy_;  // y_ is dx in backward
  Dims pd_;
  BenchTensor scale_, bias_, mean_, var_, dscale_, dbias_;  // forward training: dscale_/dbias_ hold the saved stats
  Scaling alpha_, beta_;
  cudnnTensorDescriptor_t bnd_ = nullptr;
  HostTensor hx_, hy0_, hdy_, hscale_, hbias_, hmean_, hvar_, hds0_, hdb0_;
};

class BnFamily : public OpFamily {
 public:
  const char *name() const override { return "bnorm"; }
  const char *help() const override {
    return "  bnorm      cudnnBatchNormalizationForwardTraining / ForwardInference / Backward.\n"
           "             --alg=train|infer|bwd[_peract] [train] (SPATIAL, or PER_ACTIVATION with\n"
           "             _peract); epsilon 1e-5, running-average factor 0.1; --dt; --stag is the\n"
           "             layout of x, y, dy, dx. SHAPES: X (4 or 5 dims), e.g. 32x64x56x56.\n";
  }
  void validate(const Problem &p) const override {
    parse_alg(p.knobs.alg);
    if (p.shapes.size() != 1 || (p.shapes[0].size() != 4 && p.shapes[0].size() != 5))
      throw std::invalid_argument("bnorm takes one 4-d or 5-d shape");
    letter_tag(p.knobs.stag, p.shapes[0].size());
  }
  std::string knobs_text(const Problem &p) const override {
    std::string t = "--alg=" + (p.knobs.alg.empty() ? std::string("train") : p.knobs.alg) + " --dt=" + p.knobs.dt +
                    " --stag=" + p.knobs.stag;
    return t + blend_text(p);
  }
  std::unique_ptr<OpRun> prepare(cudnnHandle_t handle, const Problem &p) const override {
    return std::make_unique<BnRun>(handle, p);
  }
};

BENCH_REGISTER_OP(BnFamily)

}  // namespace

BENCH_DEFAULT_PROBLEMS(batch_norm, 40, {
    "--reset --name=bnorm.train.nchw.f32 --op=bnorm --alg=train --dt=f32 --stag=nchw 32x64x56x56",
    "--reset --name=bnorm.train.nhwc.f32 --op=bnorm --alg=train --dt=f32 --stag=nhwc 32x64x56x56",
    "--reset --name=bnorm.infer.nchw.f32 --op=bnorm --alg=infer --dt=f32 --stag=nchw 32x64x56x56",
    "--reset --name=bnorm.infer.nhwc.f32 --op=bnorm --alg=infer --dt=f32 --stag=nhwc 32x64x56x56",
    "--reset --name=bnorm.bwd.nchw.f32 --op=bnorm --alg=bwd --dt=f32 --stag=nchw 32x64x56x56",
    "--reset --name=bnorm.bwd.nhwc.f32 --op=bnorm --alg=bwd --dt=f32 --stag=nhwc 32x64x56x56",
    "--reset --name=bnorm.train.nhwc.bf16 --op=bnorm --alg=train --dt=bf16 --stag=nhwc 32x64x56x56",
    "--reset --name=bnorm.train.nhwc.f16 --op=bnorm --alg=train --dt=f16 --stag=nhwc 32x64x56x56",
    "--reset --name=bnorm.train_peract.nchw.f32 --op=bnorm --alg=train_peract --dt=f32 --stag=nchw 32x64x28x28",
})

}  // namespace bench
