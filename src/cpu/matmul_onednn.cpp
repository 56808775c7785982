// cpu.matmul.onednn: float and bfloat16 matmuls through oneDNN's matmul
// primitive, which reads the operands where they lie (any positive strides,
// batch dims of extent 1 broadcast) and runs its JIT kernels: about 2.5x
// OpenBLAS's sgemm on this project's Zen 5 machines (1x1024x1024x4096 on 2
// threads: 270 against 110 GFLOP/s). The backend API's matmul has no
// alpha / beta, so the engine takes {1, 0} only.
//
// Threads: oneDNN's OpenMP team is sized to the caller's pool for each call
// (one thread when the fusion engine runs tiles in parallel). Each call uses
// its own stream and its own scratchpad, so one plan serves concurrent
// callers (cpu.fusion.runtime runs one plan on several tiles at once). The
// scratchpad cannot be oneDNN's own: libdnnl 2.x built without
// DNNL_ENABLE_CONCURRENT_EXEC gives the brgemm matmul one scratchpad per
// primitive, made with it, where each call packs its B; calls running at
// once overwrote each other's copy (issue 5: some tiles wrong). The plan
// asks for a user scratchpad instead and passes a buffer of the calling
// thread's.
#ifdef FREEDNN_WITH_ONEDNN
#include <cstdlib>
#include <memory>
#include <unordered_map>

#include "core/engine.hpp"
#include "core/error.hpp"
#include "core/matmul_support.hpp"
#include "core/thread_pool.hpp"
#include "cpu/onednn_support.hpp"

namespace fdnn::cpu {
namespace {

using dnnl::memory;

memory::desc user_desc(const graph::Tensor &t) {
  memory::data_type dt{};
  dnnl_type(t.dtype, &dt);
  memory::dims strides(t.strides.begin(), t.strides.end());
  // Broadcast (extent-1) dims may carry any stride; oneDNN wants it positive.
  for (size_t d = 0; d < strides.size(); ++d)
    if (t.dims[d] == 1 && strides[d] <= 0) strides[d] = 1;
  return memory::desc(memory::dims(t.dims.begin(), t.dims.end()), dt, strides);
}

class Plan final : public ExecutionPlan {
 public:
  Plan(const Engine &e, const graph::Graph &g) : ExecutionPlan(e) {
    const auto &op = std::get<graph::MatmulOp>(g.ops().front());
    a_ = user_desc(g.tensor(op.a));
    b_ = user_desc(g.tensor(op.b));
    c_ = user_desc(g.tensor(op.c));
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a_, b_, c_), attr, dnnl_cpu());
    scratchpad_ = pd.scratchpad_desc();
    prim_ = dnnl::matmul(pd);
  }

  void execute(const ExecContext &ctx, const graph::Graph &g, const VariantPack &pack) const override {
    const auto &op = std::get<graph::MatmulOp>(g.ops().front());
    check_supported(op.blend.alpha == 1.0 && op.blend.beta == 0.0, engine().name(),
                    " runs matmuls without output blending (alpha 1, beta 0) only");
    void *a = pack.get(op.a), *b = pack.get(op.b), *c = pack.get(op.c);
    if (a == nullptr || b == nullptr || c == nullptr) fail(CUDNN_STATUS_BAD_PARAM, "no data pointer for a matmul operand");
    try {
      OmpThreads threads(ctx.pool != nullptr ? ctx.pool->size() : 1);
      dnnl::stream strm(dnnl_cpu());
      std::unordered_map<int, memory> args{{DNNL_ARG_SRC, memory(a_, dnnl_cpu(), a)},
                                           {DNNL_ARG_WEIGHTS, memory(b_, dnnl_cpu(), b)},
                                           {DNNL_ARG_DST, memory(c_, dnnl_cpu(), c)}};
      if (const size_t bytes = scratchpad_.get_size(); bytes > 0)
        args.emplace(DNNL_ARG_SCRATCHPAD, memory(scratchpad_, dnnl_cpu(), thread_scratchpad(bytes)));
      prim_.execute(strm, args);
      strm.wait();
    } catch (const dnnl::error &e) {
      fail(CUDNN_STATUS_EXECUTION_FAILED, engine().name(), ": oneDNN: ", e.what());
    }
  }

 private:
  // The calling thread's scratchpad, at least `bytes`, kept for its next
  // call (as oneDNN keeps its global one per thread). One call at a time
  // per thread uses it: execute() returns only when oneDNN is done.
  static void *thread_scratchpad(size_t bytes) {
    struct Free {
      void operator()(void *p) const { std::free(p); }
    };
    thread_local std::unique_ptr<void, Free> buffer;
    thread_local size_t capacity = 0;
    if (bytes > capacity) {
      const size_t size = (bytes + 4095) / 4096 * 4096;
      buffer.reset(std::aligned_alloc(4096, size));
      if (!buffer) fail(CUDNN_STATUS_ALLOC_FAILED, "cpu.matmul.onednn: no memory for a ", size, "-byte scratchpad");
      capacity = size;
    }
    return buffer.get();
  }

  memory::desc a_, b_, c_, scratchpad_;
  dnnl::matmul prim_;
};

class OnednnMatmulEngine final : public Engine {
 public:
  const char *name() const override { return "cpu.matmul.onednn"; }
  DeviceKind device() const override { return DeviceKind::cpu; }
  int priority() const override { return 10; }
  Support supports(const graph::Graph &g) const override {
    Support s = check_single_matmul(g);
    if (!s) return s;
    const auto &op = std::get<graph::MatmulOp>(g.ops().front());
    if (op.blend.alpha != 1.0 || op.blend.beta != 0.0) return Support::no("output blending (alpha, beta)");
    if (!matmul_batches_plain(g)) return Support::no("oneDNN broadcasts batch extents of 1 only, not divisors");
    const graph::Tensor &a = g.tensor(op.a), &b = g.tensor(op.b), &c = g.tensor(op.c);
    memory::data_type dt{};
    if (!dnnl_type(c.dtype, &dt) || a.dtype != c.dtype || b.dtype != c.dtype)
      return Support::no("oneDNN path: FLOAT or BFLOAT16, a, b and c of one type");
    if (op.compute_type != CUDNN_DATA_FLOAT) return Support::no("oneDNN path: FLOAT compute only");
    if (c.rank() > DNNL_MAX_NDIMS) return Support::no("rank beyond oneDNN's limit");
    for (const graph::Tensor *t : {&a, &b, &c})
      for (int d = 0; d < t->rank(); ++d)
        if (t->dims[d] != 1 && t->strides[d] <= 0) return Support::no("oneDNN takes positive strides only");
    if (a.element_count() == 0 || b.element_count() == 0 || c.element_count() == 0)
      return Support::no("empty operands");
    try {  // oneDNN says whether it has a kernel for these layouts
      const memory::desc ad = user_desc(a), bd = user_desc(b), cd = user_desc(c);
      dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(ad, bd, cd), dnnl_cpu());
      if (is_reference_impl(pd.impl_info_str()))
        return Support::no(cat("oneDNN has only its reference kernel (", pd.impl_info_str(), ") for these layouts"));
    } catch (const dnnl::error &e) {
      return Support::no(cat("oneDNN has no matmul for these operands: ", e.what()));
    }
    return Support::yes();
  }
  std::unique_ptr<ExecutionPlan> make_plan(const graph::Graph &g, const std::vector<KnobChoice> &) const override {
    return std::make_unique<Plan>(*this, g);
  }
};

}  // namespace
}  // namespace fdnn::cpu

using fdnn::cpu::OnednnMatmulEngine;
FDNN_REGISTER_ENGINE(OnednnMatmulEngine)

#endif  // FREEDNN_WITH_ONEDNN
