// --op=backend: single-operation graphs of the backend API, each built once
// (graph -> heuristics -> plan) and timed as cudnnBackendExecute.
//   --alg=reshape  OPERATION_RESHAPE of X into its own dims with --dtag's
//                  layout (a layout change); oneDNN peer: reorder.
//   --alg=rng      OPERATION_RNG, Bernoulli with probability --value into X
//                  (--dtag layout); checked against tests/common's
//                  independent Philox. No oneDNN peer (no such primitive).
//   --alg=concat   OPERATION_CONCAT of two X halves along dim 1 into X
//                  (--stag inputs, --dtag output). No peer wired yet.
#include <stdexcept>

#include "common/rng_reference.hpp"
#include "backend_plan.hpp"
#include "default_set.hpp"
#include "dtype.hpp"
#include "host_data.hpp"
#include "layout.hpp"
#include "op.hpp"
#include "tensor.hpp"

namespace bench {
namespace {

std::string alg_name(const Problem &p) { return p.knobs.alg.empty() ? "reshape" : p.knobs.alg; }

constexpr int64_t kSeed = 2024, kOffset = 3;



class BackendRun : public OpRun {
 public:
  BackendRun(cudnnHandle_t handle, const Problem &p)
      : handle_(handle), alg_(alg_name(p)), p_(p.knobs.value),
        x_(p.shapes[0], p.knobs.stag, p.knobs.dt), y_(p.shapes[0], p.knobs.dtag, p.knobs.dt) {
    std::vector<std::unique_ptr<BDesc>> keep;
    auto op = std::make_unique<BDesc>(alg_ == "reshape"  ? CUDNN_BACKEND_OPERATION_RESHAPE_DESCRIPTOR
                                      : alg_ == "rng"    ? CUDNN_BACKEND_OPERATION_RNG_DESCRIPTOR
                                                         : CUDNN_BACKEND_OPERATION_CONCAT_DESCRIPTOR);
    auto yd = backend_tensor(2, y_.cudnn_dt(), y_.dims(), y_.strides());
    if (alg_ == "reshape") {
      auto xd = backend_tensor(1, x_.cudnn_dt(), x_.dims(), x_.strides());
      op->set1(CUDNN_ATTR_OPERATION_RESHAPE_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, xd->d);
      op->set1(CUDNN_ATTR_OPERATION_RESHAPE_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, yd->d);
      uids_ = {1, 2};
      ptrs_ = {x_.data(), y_.data()};
      keep.push_back(std::move(xd));
    } else if (alg_ == "rng") {
      auto r = std::make_unique<BDesc>(CUDNN_BACKEND_RNG_DESCRIPTOR);
      r->set1(CUDNN_ATTR_RNG_DISTRIBUTION, CUDNN_TYPE_RNG_DISTRIBUTION, CUDNN_RNG_DISTRIBUTION_BERNOULLI);
      r->set1(CUDNN_ATTR_RNG_BERNOULLI_DIST_PROBABILITY, CUDNN_TYPE_DOUBLE, p_);
      r->finalize();
      auto od = backend_tensor(3, CUDNN_DATA_INT64, {1, 1, 1, 1}, {1, 1, 1, 1});
      offset_ = fdnn_test::Buffer(sizeof(int64_t));
      offset_.upload(&kOffset, sizeof kOffset);
      op->set1(CUDNN_ATTR_OPERATION_RNG_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, r->d);
      op->set1(CUDNN_ATTR_OPERATION_RNG_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, yd->d);
      op->set1(CUDNN_ATTR_OPERATION_RNG_SEED, CUDNN_TYPE_INT64, kSeed);
      op->set1(CUDNN_ATTR_OPERATION_RNG_OFFSET_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, od->d);
      uids_ = {2, 3};
      ptrs_ = {y_.data(), offset_.get()};
      keep.push_back(std::move(od));
      keep.push_back(std::move(r));
    } else {
      // Two halves of x along dim 1, viewed in x's memory with x's strides.
      Dims half = x_.dims();
      half[1] /= 2;
      auto a = backend_tensor(10, x_.cudnn_dt(), half, x_.strides());
      auto b = backend_tensor(11, x_.cudnn_dt(), half, x_.strides());
      const cudnnBackendDescriptor_t in[2] = {a->d, b->d};
      op->set1(CUDNN_ATTR_OPERATION_CONCAT_AXIS, CUDNN_TYPE_INT64, int64_t{1});
      op->set(CUDNN_ATTR_OPERATION_CONCAT_INPUT_DESCS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 2, in);
      op->set1(CUDNN_ATTR_OPERATION_CONCAT_OUTPUT_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, yd->d);
      const size_t esize = x_.bytes() / static_cast<size_t>(x_.elements());
      uids_ = {10, 11, 2};
      ptrs_ = {x_.data(), static_cast<char *>(x_.data()) + half[1] * x_.strides()[1] * esize, y_.data()};
      keep.push_back(std::move(a));
      keep.push_back(std::move(b));
    }
    op->finalize();
    plan_ = std::make_unique<BackendPlan>(handle_, *op, uids_, ptrs_);
  }

  void fill(uint64_t seed) override {
    hx_ = fill_random(x_, seed, -2, 2);
    poison(y_);
  }
  void execute() override { plan_->execute(); }
  CheckResult check() override {
    std::vector<Expect> want;
    if (alg_ == "rng") {
      for (int64_t i = 0; i < y_.elements(); ++i)
        want.push_back({static_cast<double>(fdnn_test::bernoulli_draw(kSeed, kOffset, static_cast<uint64_t>(i), p_)), 0});
    } else {
      for (double v : hx_.values()) want.push_back({v, 0});
    }
    return compare(download(y_), want);
  }
  double bytes_moved() const override {
    return alg_ == "rng" ? static_cast<double>(y_.bytes()) : static_cast<double>(x_.bytes() + y_.bytes());
  }
  std::unique_ptr<PeerRun> onednn_peer() const override {
    if (alg_ != "reshape") return nullptr;
    return onednn_reorder(x_.peer(), y_.peer());
  }

 private:
  cudnnHandle_t handle_;
  std::string alg_;
  double p_;
  BenchTensor x_, y_;
  fdnn_test::Buffer offset_;
  std::vector<int64_t> uids_;
  std::vector<void *> ptrs_;
  std::unique_ptr<BackendPlan> plan_;
  HostTensor hx_;
};

class BackendFamily : public OpFamily {
 public:
  const char *name() const override { return "backend"; }
  const char *help() const override {
    return "  backend    one backend-API operation graph (cudnnBackendExecute): --alg=reshape|rng|concat\n"
           "             [reshape]. SHAPES: X. reshape: X (--stag) into X's dims with --dtag's layout;\n"
           "             rng: Bernoulli(--value) into X (--dtag); concat: X's two halves along dim 1\n"
           "             (--stag) into X (--dtag). --dt.\n";
  }
  void validate(const Problem &p) const override {
    const std::string a = alg_name(p);
    if (a != "reshape" && a != "rng" && a != "concat")
      throw std::invalid_argument("backend --alg must be reshape, rng or concat");
    if (p.shapes.size() != 1) throw std::invalid_argument("backend takes one shape");
    if (a == "rng" && (p.knobs.value < 0 || p.knobs.value > 1))
      throw std::invalid_argument("backend --alg=rng: --value (the probability) must be in [0, 1]");
    if (a == "concat" && (padded4(p.shapes[0])[1] % 2 != 0))
      throw std::invalid_argument("backend --alg=concat: dim 1 must be even");
    letter_tag(p.knobs.stag, padded4(p.shapes[0]).size());
    letter_tag(p.knobs.dtag, padded4(p.shapes[0]).size());
  }
  std::string knobs_text(const Problem &p) const override {
    return "--alg=" + alg_name(p) + " --dt=" + p.knobs.dt + " --stag=" + p.knobs.stag + " --dtag=" + p.knobs.dtag +
           " --value=" + number_text(p.knobs.value);
  }
  std::unique_ptr<OpRun> prepare(cudnnHandle_t handle, const Problem &p) const override {
    return std::make_unique<BackendRun>(handle, p);
  }
};

BENCH_REGISTER_OP(BackendFamily)

}  // namespace

BENCH_DEFAULT_PROBLEMS(backend_ops, 90, {
    "--reset --name=backend.reshape.nchw2nhwc --op=backend --alg=reshape --dt=f32 --stag=abcd --dtag=acdb 32x256x56x56",
    "--reset --name=backend.rng.bernoulli --op=backend --alg=rng --dt=f32 --value=0.9 32x256x56x56",
    "--reset --name=backend.concat.c --op=backend --alg=concat --dt=f32 32x256x56x56",
});

}  // namespace bench
