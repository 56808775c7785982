// --op=transform: cudnnTransformTensor, y = alpha * x + beta * y, between
// layouts (--stag/--dtag) and data types (--sdt/--ddt).
#include <cmath>

#include "host_data.hpp"
#include "layout.hpp"
#include "onednn_peer.hpp"
#include "op.hpp"
#include "scaling.hpp"
#include "tensor.hpp"

namespace bench {
namespace {

class TransformRun : public OpRun {
 public:
  TransformRun(cudnnHandle_t handle, const Problem &p)
      : handle_(handle),
        x_(p.shapes[0], p.knobs.stag, p.knobs.src_dt()),
        y_(p.shapes[0], p.knobs.dtag, p.knobs.dst_dt()),
        alpha_(p.knobs.dst_dt(), p.knobs.alpha),
        beta_(p.knobs.dst_dt(), p.beta_or(0)) {}

  void fill(uint64_t seed) override {
    hx_ = fill_random(x_, seed, -2, 2);
    if (beta_.value() != 0) {
      hy0_ = fill_random(y_, seed + 1, -2, 2);
    } else {
      hy0_ = host_like(y_);  // not read by the reference when beta == 0
      poison(y_);
    }
  }

  void execute() override {
    check_status(cudnnTransformTensor(handle_, alpha_.ptr(), x_.desc(), x_.data(), beta_.ptr(), y_.desc(), y_.data()),
                 "cudnnTransformTensor");
  }

  CheckResult check() override {
    return compare(download(y_), fdnn_test::reference_scale_add(alpha_.value(), &hx_, 0, beta_.value(), hy0_,
                                                                default_compute_type(y_.dt())));
  }

  double bytes_moved() const override {
    return static_cast<double>(x_.bytes()) + static_cast<double>(y_.bytes()) * (beta_.value() != 0 ? 2 : 1);
  }

  std::unique_ptr<PeerRun> onednn_peer() const override {
    if (alpha_.value() != 1 || beta_.value() != 0) return nullptr;  // a plain reorder has no scales
    return onednn_reorder(x_.peer(), y_.peer());
  }

 private:
  cudnnHandle_t handle_;
  BenchTensor x_, y_;
  Scaling alpha_, beta_;
  HostTensor hx_, hy0_;
};

class TransformFamily : public OpFamily {
 public:
  const char *name() const override { return "transform"; }
  const char *help() const override {
    return "  transform  cudnnTransformTensor: y = alpha*x + beta*y [beta 0]. SHAPES: one\n"
           "             shape, x and y; layouts --stag (x) / --dtag (y); --sdt / --ddt exist\n"
           "             but cuDNN requires equal types (BAD_PARAM otherwise).\n";
  }
  void validate(const Problem &p) const override {
    if (p.shapes.size() != 1) throw std::invalid_argument("transform takes one shape");
    letter_tag(p.knobs.stag, p.shapes[0].size());
    letter_tag(p.knobs.dtag, p.shapes[0].size());
    if (!p.knobs.alg.empty()) throw std::invalid_argument("transform has no --alg");
  }
  std::string knobs_text(const Problem &p) const override {
    std::string t = p.knobs.sdt.empty() && p.knobs.ddt.empty() ? "--dt=" + p.knobs.dt
                                                               : "--sdt=" + p.knobs.src_dt() + " --ddt=" + p.knobs.dst_dt();
    t += " --stag=" + p.knobs.stag + " --dtag=" + p.knobs.dtag;
    return t + blend_text(p);
  }
  std::unique_ptr<OpRun> prepare(cudnnHandle_t handle, const Problem &p) const override {
    return std::make_unique<TransformRun>(handle, p);
  }
};

}  // namespace

BENCH_REGISTER_OP(TransformFamily)

}  // namespace bench
