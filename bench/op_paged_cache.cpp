// --op=paged: the backend API's OPERATION_PAGED_CACHE_LOAD alone (a paged
// K/V cache gathered into one tensor per sequence), built once (graph ->
// heuristics -> plan) and timed as cudnnBackendExecute.
//   SHAPES: BxHxSxD (y's logical dims). --value: the block size (a power of
//   two; below 1: 16). --alg=v: y [B,H,S,D] dense; --alg=kt: y in the
//   transposed K^T form [B,H,D,S] with stride 1 on dim 2. The container has
//   B * ceil(S / block) pages, dense, handed out to the sequences in a
//   random order; every sequence is S long. No oneDNN peer (oneDNN has no
//   paged gather).
#include <algorithm>
#include <numeric>
#include <random>
#include <stdexcept>

#include "backend_plan.hpp"
#include "default_set.hpp"
#include "dtype.hpp"
#include "host_data.hpp"
#include "layout.hpp"
#include "op.hpp"
#include "tensor.hpp"

namespace bench {
namespace {

std::string alg_name(const Problem &p) { return p.knobs.alg.empty() ? "v" : p.knobs.alg; }
int64_t block_size(const Problem &p) { return p.knobs.value < 1 ? 16 : static_cast<int64_t>(p.knobs.value); }



Dims y_dims(const Problem &p) {
  const Dims &s = p.shapes[0];
  return alg_name(p) == "kt" ? Dims{s[0], s[1], s[3], s[2]} : s;
}

class PagedRun : public OpRun {
 public:
  PagedRun(cudnnHandle_t handle, const Problem &p)
      : handle_(handle), kt_(alg_name(p) == "kt"), b_(p.shapes[0][0]), h_(p.shapes[0][1]), s_(p.shapes[0][2]),
        d_(p.shapes[0][3]), block_(block_size(p)), pages_((s_ + block_ - 1) / block_),
        container_({b_ * pages_, h_, block_, d_}, "abcd", p.knobs.dt), y_(y_dims(p), kt_ ? "abdc" : "abcd", p.knobs.dt),
        table_(static_cast<size_t>(b_ * pages_) * sizeof(int32_t)), seq_(static_cast<size_t>(b_) * sizeof(int32_t)) {
    perm_.resize(static_cast<size_t>(b_ * pages_));
    std::iota(perm_.begin(), perm_.end(), 0);
    std::shuffle(perm_.begin(), perm_.end(), std::mt19937(7));
    table_.upload(perm_.data(), perm_.size() * sizeof(int32_t));
    const std::vector<int32_t> lens(static_cast<size_t>(b_), static_cast<int32_t>(s_));
    seq_.upload(lens.data(), lens.size() * sizeof(int32_t));
    auto cd = backend_tensor(1, container_.cudnn_dt(), container_.dims(), container_.strides());
    auto td = backend_tensor(2, CUDNN_DATA_INT32, {b_, 1, pages_, 1}, {pages_, pages_, 1, 1});
    auto sd = backend_tensor(3, CUDNN_DATA_INT32, {b_, 1, 1, 1}, {1, 1, 1, 1});
    auto yd = backend_tensor(4, y_.cudnn_dt(), y_.dims(), y_.strides());
    BDesc op(CUDNN_BACKEND_OPERATION_PAGED_CACHE_LOAD_DESCRIPTOR);
    op.set1(CUDNN_ATTR_OPERATION_PAGED_CACHE_LOAD_CONTAINER_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, cd->d);
    op.set1(CUDNN_ATTR_OPERATION_PAGED_CACHE_LOAD_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, yd->d);
    op.set1(CUDNN_ATTR_OPERATION_PAGED_CACHE_LOAD_SEQUENCE_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, sd->d);
    op.set1(CUDNN_ATTR_OPERATION_PAGED_CACHE_LOAD_PAGE_TABLE_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, td->d);
    op.finalize();
    uids_ = {1, 2, 3, 4};
    ptrs_ = {container_.data(), table_.get(), seq_.get(), y_.data()};
    plan_ = std::make_unique<BackendPlan>(handle_, op, uids_, ptrs_);
  }

  void fill(uint64_t seed) override {
    hc_ = fill_random(container_, seed, -2, 2);
    poison(y_);
  }
  void execute() override { plan_->execute(); }
  CheckResult check() override {
    std::vector<Expect> want;
    const Dims &yd = y_.dims();
    for (int64_t b = 0; b < yd[0]; ++b)
      for (int64_t h = 0; h < yd[1]; ++h)
        for (int64_t i = 0; i < yd[2]; ++i)
          for (int64_t j = 0; j < yd[3]; ++j) {
            const int64_t s = kt_ ? j : i, d = kt_ ? i : j;
            const int64_t page = perm_[static_cast<size_t>(b * pages_ + s / block_)];
            want.push_back({hc_.get({page, h, s % block_, d}), 0});
          }
    return compare(download(y_), want);
  }
  double bytes_moved() const override {
    const double eb = static_cast<double>(y_.bytes()) / static_cast<double>(y_.elements());
    return 2.0 * static_cast<double>(y_.elements()) * eb + static_cast<double>(b_ * (pages_ + 1)) * 4.0;
  }

 private:
  cudnnHandle_t handle_;
  bool kt_;
  int64_t b_, h_, s_, d_, block_, pages_;
  BenchTensor container_, y_;
  fdnn_test::Buffer table_, seq_;
  std::vector<int32_t> perm_;
  std::vector<int64_t> uids_;
  std::vector<void *> ptrs_;
  std::unique_ptr<BackendPlan> plan_;
  HostTensor hc_;
};

class PagedFamily : public OpFamily {
 public:
  const char *name() const override { return "paged"; }
  const char *help() const override {
    return "  paged      backend OPERATION_PAGED_CACHE_LOAD (cudnnBackendExecute): --alg=v|kt [v].\n"
           "             SHAPES: BxHxSxD. --value: block size (power of two; < 1: 16). v: y [B,H,S,D];\n"
           "             kt: y as K^T [B,H,D,S] with stride 1 on dim 2. --dt.\n";
  }
  void validate(const Problem &p) const override {
    const std::string a = alg_name(p);
    if (a != "v" && a != "kt") throw std::invalid_argument("paged --alg must be v or kt");
    if (p.shapes.size() != 1 || p.shapes[0].size() != 4) throw std::invalid_argument("paged takes one shape BxHxSxD");
    const int64_t bs = block_size(p);
    if ((bs & (bs - 1)) != 0) throw std::invalid_argument("paged --value (the block size) must be a power of two");
  }
  std::string knobs_text(const Problem &p) const override {
    return "--alg=" + alg_name(p) + " --dt=" + p.knobs.dt + " --value=" + number_text(static_cast<double>(block_size(p)));
  }
  std::unique_ptr<OpRun> prepare(cudnnHandle_t handle, const Problem &p) const override {
    return std::make_unique<PagedRun>(handle, p);
  }
};

BENCH_REGISTER_OP(PagedFamily)

}  // namespace

BENCH_DEFAULT_PROBLEMS(paged_cache, 91, {
    "--reset --name=paged.v.f16 --op=paged --alg=v --dt=f16 --value=16 4x8x2048x128",
    "--reset --name=paged.kt.f16 --op=paged --alg=kt --dt=f16 --value=64 4x8x2048x128",
    "--reset --name=paged.v.f32.block1 --op=paged --alg=v --dt=f32 --value=1 2x8x1024x64",
});

}  // namespace bench
