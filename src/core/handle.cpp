#include "core/handle.hpp"

#include <chrono>
#include <sstream>

#include "core/error.hpp"
#include "core/gpu.hpp"
#include "core/log.hpp"
#include "core/thread_pool.hpp"

namespace fdnn {

std::shared_ptr<const ExecutionPlan> PlanCache::find(const std::string &key) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = plans_.find(key);
  if (it == plans_.end()) return nullptr;
  ++hits_;
  return it->second;
}

void PlanCache::insert(const std::string &key, std::shared_ptr<const ExecutionPlan> plan) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (plans_.size() >= kCapacity) plans_.clear();  // simple bound; plans are cheap to remake
  plans_.emplace(key, std::move(plan));
}

size_t PlanCache::size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return plans_.size();
}

cudnnContext &checked_handle(cudnnHandle_t h) {
  if (h == nullptr) fail(CUDNN_STATUS_BAD_PARAM, "handle is NULL");
  if (h->magic != cudnnContext::kAlive)
    fail(CUDNN_STATUS_BAD_PARAM, "handle is not a live cudnnHandle_t (destroyed or never created)");
  return *h;
}

std::shared_ptr<const ExecutionPlan> plan_for(cudnnContext &h, const graph::Graph &g) {
  std::string key = g.structural_key();
  if (auto plan = h.plans.find(key)) return plan;

  std::ostringstream why;
  for (const Engine *e : EngineRegistry::instance().engines(h.device.kind)) {
    if (!h.engine_filter.empty() && std::string(e->name()).rfind(h.engine_filter, 0) != 0) continue;
    Support s = e->supports(g);
    if (!s) {
      why << "\n  " << e->name() << ": " << s.reason;
      continue;
    }
    std::shared_ptr<const ExecutionPlan> plan = e->make_plan(g, {});
    h.plans.insert(key, plan);
    return plan;
  }
  fail(CUDNN_STATUS_NOT_SUPPORTED, "no ", device_kind_name(h.device.kind), " engine supports ", g.to_string(),
       why.str().empty() ? std::string("\n  (no engines registered for this device)") : why.str());
}

void release_scratch(cudnnContext &h) {
  if (h.device.kind == DeviceKind::cuda) gpu::device_free(h.scratch);  // waits for kernels still using it
  else std::free(h.scratch);
  h.scratch = nullptr;
  h.scratch_size = 0;
}

namespace {

void *handle_scratch(cudnnContext &h, size_t bytes) {
  if (bytes <= h.scratch_size) return h.scratch;
  release_scratch(h);
  if (h.device.kind == DeviceKind::cuda) {
    h.scratch = gpu::device_alloc(bytes);  // throws ALLOC_FAILED
  } else {
    h.scratch = std::malloc(bytes);
    if (h.scratch == nullptr) fail(CUDNN_STATUS_ALLOC_FAILED, "could not allocate ", bytes, " bytes of scratch memory");
  }
  h.scratch_size = bytes;
  return h.scratch;
}

}  // namespace

void run_graph(cudnnContext &h, const char *api_function, const graph::Graph &g, VariantPack pack) {
  std::shared_ptr<const ExecutionPlan> plan = plan_for(h, g);
  execute_plan(h, api_function, *plan, g, std::move(pack));
}

void execute_plan(cudnnContext &h, const char *api_function, const ExecutionPlan &plan, const graph::Graph &g,
                  VariantPack pack) {
  ExecContext ctx{h.device, h.stream, h.device.kind == DeviceKind::cpu ? &ThreadPool::global() : nullptr};

  // The handle's scratch serves both the plan's scratch and, for legacy calls
  // that take no workspace argument, its workspace.
  std::unique_lock<std::mutex> scratch_lock(h.scratch_mutex, std::defer_lock);
  const size_t ws_from_scratch =
      plan.workspace_size() > 0 && pack.workspace == nullptr ? (plan.workspace_size() + 255) / 256 * 256 : 0;
  if (ws_from_scratch + plan.scratch_size() > 0) {
    scratch_lock.lock();
    char *base = static_cast<char *>(handle_scratch(h, ws_from_scratch + plan.scratch_size()));
    if (ws_from_scratch > 0) {
      pack.workspace = base;
      pack.workspace_size = plan.workspace_size();
    }
    if (plan.scratch_size() > 0) {
      pack.scratch = base + ws_from_scratch;
      pack.scratch_size = plan.scratch_size();
    }
  }

  if (!log::verbose()) {
    plan.execute(ctx, g, pack);
    return;
  }
  // Verbose timing waits for the device so that the time is the operation's.
  if (h.device.kind == DeviceKind::cuda) gpu::synchronize(h.stream);
  auto t0 = std::chrono::steady_clock::now();
  plan.execute(ctx, g, pack);
  if (h.device.kind == DeviceKind::cuda) gpu::synchronize(h.stream);
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  std::ostringstream line;
  const std::string detail = plan.detail();
  line << "exec," << to_string(h.device) << ',' << api_function << ",engine=" << plan.engine().name()
       << (detail.empty() ? "" : "[" + detail + "]") << ',' << g.to_string() << ',' << ms << "ms";
  log::verbose_line(line.str());
}

}  // namespace fdnn
