// --op=add: cudnnAddTensor, C = alpha * A + beta * C (A broadcasts into C).
// --op=optensor: cudnnOpTensor, C = op(alpha * A, alpha2 * B) + beta * C
// (B broadcasts; sqrt and not use A only).
#include "dtype.hpp"
#include "host_data.hpp"
#include "layout.hpp"
#include "onednn_peer.hpp"
#include "op.hpp"
#include "scaling.hpp"
#include "tensor.hpp"

namespace bench {
namespace {

// True when every size of `small` is 1 or equal to the one in `full`.
bool broadcasts_into(const Dims &small, const Dims &full) {
  if (small.size() != full.size()) return false;
  for (size_t i = 0; i < full.size(); ++i)
    if (small[i] != 1 && small[i] != full[i]) return false;
  return true;
}

std::string common_knobs(const Problem &p) {
  std::string t = "--dt=" + p.knobs.dt + " --stag=" + p.knobs.stag + " --dtag=" + p.knobs.dtag;
  return t;
}

void validate_tags(const Problem &p) {
  for (const Dims &d : p.shapes) letter_tag(p.knobs.stag, d.size());
  letter_tag(p.knobs.dtag, p.shapes[0].size());
  if (!p.knobs.sdt.empty() || !p.knobs.ddt.empty())
    throw std::invalid_argument("tensors of add/optensor share one type: use --dt");
}

// ---------------------------------------------------------------- add

class AddRun : public OpRun {
 public:
  AddRun(cudnnHandle_t handle, const Problem &p)
      : handle_(handle),
        c_(p.shapes[0], p.knobs.dtag, p.knobs.dt),
        a_(p.shapes.size() > 1 ? p.shapes[1] : p.shapes[0], p.knobs.stag, p.knobs.dt),
        alpha_(p.knobs.dt, p.knobs.alpha),
        beta_(p.knobs.dt, p.beta_or(1)) {}

  void fill(uint64_t seed) override {
    ha_ = fill_random(a_, seed, -2, 2);
    fill_output(seed + 1);
  }
  void execute() override {
    check_status(cudnnAddTensor(handle_, alpha_.ptr(), a_.desc(), a_.data(), beta_.ptr(), c_.desc(), c_.data()),
                 "cudnnAddTensor");
  }
  CheckResult check() override {
    return compare(download(c_), fdnn_test::reference_scale_add(alpha_.value(), &ha_, 0, beta_.value(), hc0_,
                                                                default_compute_type(c_.dt())));
  }
  double bytes_moved() const override {
    return static_cast<double>(a_.bytes()) + static_cast<double>(c_.bytes()) * (beta_.value() != 0 ? 2 : 1);
  }
  std::unique_ptr<PeerRun> onednn_peer() const override {
    // C += A is oneDNN's in-place binary add with a broadcast second source.
    if (alpha_.value() != 1 || beta_.value() != 1) return nullptr;
    return onednn_binary("add", c_.peer(), a_.peer(), c_.peer(), true);
  }

 private:
  void fill_output(uint64_t seed) {
    if (beta_.value() != 0) {
      hc0_ = fill_random(c_, seed, -2, 2);
    } else {
      hc0_ = host_like(c_);  // not read when beta == 0
      poison(c_);
    }
  }

  cudnnHandle_t handle_;
  BenchTensor c_, a_;
  Scaling alpha_, beta_;
  HostTensor ha_, hc0_;
};

class AddFamily : public OpFamily {
 public:
  const char *name() const override { return "add"; }
  const char *help() const override {
    return "  add        cudnnAddTensor: C = alpha*A + beta*C [beta 1]. SHAPES: C[:A], A's\n"
           "             sizes 1 or C's (broadcast), A defaults to C's shape; --stag is A's\n"
           "             layout, --dtag C's.\n";
  }
  void validate(const Problem &p) const override {
    if (p.shapes.empty() || p.shapes.size() > 2) throw std::invalid_argument("add takes C or C:A");
    if (p.shapes.size() == 2 && !broadcasts_into(p.shapes[1], p.shapes[0]))
      throw std::invalid_argument("A (second shape) must have C's rank and sizes 1 or C's");
    if (!p.knobs.alg.empty()) throw std::invalid_argument("add has no --alg");
    validate_tags(p);
  }
  std::string knobs_text(const Problem &p) const override {
    std::string t = common_knobs(p);
    if (p.knobs.alpha != 1) t += " --alpha=" + number_text(p.knobs.alpha);
    t += " --beta=" + number_text(p.beta_or(1));
    return t;
  }
  std::unique_ptr<OpRun> prepare(cudnnHandle_t handle, const Problem &p) const override {
    return std::make_unique<AddRun>(handle, p);
  }
};

BENCH_REGISTER_OP(AddFamily)

// ---------------------------------------------------------------- optensor

struct OpTensorAlg {
  const char *name;
  cudnnOpTensorOp_t op;
  bool unary;
  const char *onednn;  // binary algorithm of the same meaning, or nullptr
};

const OpTensorAlg kOpTensorAlgs[] = {
    {"add", CUDNN_OP_TENSOR_ADD, false, "add"}, {"mul", CUDNN_OP_TENSOR_MUL, false, "mul"},
    {"min", CUDNN_OP_TENSOR_MIN, false, "min"}, {"max", CUDNN_OP_TENSOR_MAX, false, "max"},
    {"sqrt", CUDNN_OP_TENSOR_SQRT, true, nullptr}, {"not", CUDNN_OP_TENSOR_NOT, true, nullptr},
};

const OpTensorAlg &optensor_alg(const std::string &name) {
  for (const OpTensorAlg &a : kOpTensorAlgs)
    if (name == a.name) return a;
  throw std::invalid_argument("unknown optensor --alg '" + name + "' (add, mul, min, max, sqrt, not)");
}

std::string optensor_cdt(const Problem &p) {
  if (!p.knobs.cdt.empty()) return p.knobs.cdt;
  return p.knobs.dt == "f64" ? "f64" : "f32";
}

class OpTensorRun : public OpRun {
 public:
  OpTensorRun(cudnnHandle_t handle, const Problem &p)
      : handle_(handle),
        alg_(optensor_alg(p.knobs.alg.empty() ? "add" : p.knobs.alg)),
        a_(p.shapes[0], p.knobs.stag, p.knobs.dt),
        b_(p.shapes.size() > 1 ? p.shapes[1] : p.shapes[0], p.knobs.stag, p.knobs.dt),
        c_(p.shapes[0], p.knobs.dtag, p.knobs.dt),
        alpha1_(p.knobs.dt, p.knobs.alpha),
        alpha2_(p.knobs.dt, p.knobs.alpha2),
        beta_(p.knobs.dt, p.beta_or(0)),
        propagate_nan_(p.knobs.nan == "prop"),
        compute_type_(to_cudnn_dtype(optensor_cdt(p))) {
    check_status(cudnnCreateOpTensorDescriptor(&op_), "cudnnCreateOpTensorDescriptor");
    cudnnStatus_t s = cudnnSetOpTensorDescriptor(op_, alg_.op, compute_type_,
                                                 propagate_nan_ ? CUDNN_PROPAGATE_NAN : CUDNN_NOT_PROPAGATE_NAN);
    if (s != CUDNN_STATUS_SUCCESS) {
      cudnnDestroyOpTensorDescriptor(op_);  // the destructor does not run for a throwing constructor
      check_status(s, "cudnnSetOpTensorDescriptor");
    }
  }
  ~OpTensorRun() override { cudnnDestroyOpTensorDescriptor(op_); }

  void fill(uint64_t seed) override {
    // sqrt of negatives is NaN and not() is defined on 0/1 data: keep inputs in range.
    bool non_negative = alg_.op == CUDNN_OP_TENSOR_SQRT;
    ha_ = fill_random(a_, seed, non_negative ? 0 : -2, 2);
    hb_ = fill_random(b_, seed + 1, -2, 2);
    if (beta_.value() != 0) {
      hc0_ = fill_random(c_, seed + 2, -2, 2);
    } else {
      hc0_ = host_like(c_);  // not read when beta == 0
      poison(c_);
    }
  }
  void execute() override {
    check_status(cudnnOpTensor(handle_, op_, alpha1_.ptr(), a_.desc(), a_.data(), alpha2_.ptr(), b_.desc(), b_.data(),
                               beta_.ptr(), c_.desc(), c_.data()),
                 "cudnnOpTensor");
  }
  CheckResult check() override {
    return compare(download(c_), fdnn_test::reference_op_tensor(alg_.op, propagate_nan_, alpha1_.value(), ha_,
                                                                alpha2_.value(), alg_.unary ? nullptr : &hb_,
                                                                beta_.value(), hc0_, compute_type_));
  }
  double bytes_moved() const override {
    double bytes = static_cast<double>(a_.bytes()) + static_cast<double>(c_.bytes()) * (beta_.value() != 0 ? 2 : 1);
    if (!alg_.unary) bytes += static_cast<double>(b_.bytes());
    return bytes;
  }
  std::unique_ptr<PeerRun> onednn_peer() const override {
    if (!alg_.onednn || alpha1_.value() != 1 || alpha2_.value() != 1 || beta_.value() != 0) return nullptr;
    return onednn_binary(alg_.onednn, a_.peer(), b_.peer(), c_.peer(), false);
  }

 private:
  cudnnHandle_t handle_;
  const OpTensorAlg &alg_;
  BenchTensor a_, b_, c_;
  Scaling alpha1_, alpha2_, beta_;
  cudnnOpTensorDescriptor_t op_ = nullptr;
  bool propagate_nan_;
  cudnnDataType_t compute_type_;
  HostTensor ha_, hb_, hc0_;
};

class OpTensorFamily : public OpFamily {
 public:
  const char *name() const override { return "optensor"; }
  const char *help() const override {
    return "  optensor   cudnnOpTensor: C = op(alpha*A, alpha2*B) + beta*C [beta 0].\n"
           "             --alg=add|mul|min|max|sqrt|not [add] (sqrt, not: A only).\n"
           "             SHAPES: A[:B], B's sizes 1 or A's (broadcast), C has A's shape;\n"
           "             --stag is A's and B's layout, --dtag C's; --cdt, --nan.\n";
  }
  void validate(const Problem &p) const override {
    optensor_alg(p.knobs.alg.empty() ? "add" : p.knobs.alg);
    if (p.shapes.empty() || p.shapes.size() > 2) throw std::invalid_argument("optensor takes A or A:B");
    if (p.shapes.size() == 2 && !broadcasts_into(p.shapes[1], p.shapes[0]))
      throw std::invalid_argument("B (second shape) must have A's rank and sizes 1 or A's");
    validate_tags(p);
  }
  std::string knobs_text(const Problem &p) const override {
    std::string t = "--alg=" + (p.knobs.alg.empty() ? std::string("add") : p.knobs.alg) + " " + common_knobs(p);
    if (!p.knobs.cdt.empty()) t += " --cdt=" + p.knobs.cdt;
    if (p.knobs.alpha != 1) t += " --alpha=" + number_text(p.knobs.alpha);
    if (p.knobs.alpha2 != 1) t += " --alpha2=" + number_text(p.knobs.alpha2);
    t += " --beta=" + number_text(p.beta_or(0));
    if (p.knobs.nan != "noprop") t += " --nan=" + p.knobs.nan;
    return t;
  }
  std::unique_ptr<OpRun> prepare(cudnnHandle_t handle, const Problem &p) const override {
    return std::make_unique<OpTensorRun>(handle, p);
  }
};

BENCH_REGISTER_OP(OpTensorFamily)

}  // namespace
}  // namespace bench
