#include "backend/execution_plan.hpp"

#include <algorithm>
#include <string>

#include "backend/engine_descriptors.hpp"
#include "backend/plan_json.hpp"
#include "core/dtype.hpp"
#include "core/error.hpp"
#include "core/handle.hpp"
#include "core/numeric.hpp"

namespace fdnn::backend {

namespace {

class ExecutionPlanDescriptor : public Descriptor {
 public:
  ExecutionPlanDescriptor()
      : Descriptor(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR,
                   {
                       {CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE},
                       {CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, CUDNN_TYPE_BACKEND_DESCRIPTOR},
                       {CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, CUDNN_TYPE_INT64, 1, 1, false},
                       {CUDNN_ATTR_EXECUTION_PLAN_RUN_ONLY_INTERMEDIATE_UIDS, CUDNN_TYPE_INT64, 0, 1 << 16},
                       {CUDNN_ATTR_EXECUTION_PLAN_COMPUTED_INTERMEDIATE_UIDS, CUDNN_TYPE_INT64, 0, 1 << 16, false},
                       // Accepted and ignored: FreeDNN compiles no kernels at plan time.
                       {CUDNN_ATTR_EXECUTION_PLAN_KERNEL_CACHE, CUDNN_TYPE_BACKEND_DESCRIPTOR},
                       {CUDNN_ATTR_EXECUTION_PLAN_DEVICEPROP, CUDNN_TYPE_BACKEND_DESCRIPTOR},
                       // Set instead of the engine config to load a saved plan.
                       {CUDNN_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION, CUDNN_TYPE_CHAR, 0, int64_t{1} << 30},
                   }) {}
  std::shared_ptr<const EngineConfigState> config;
  std::shared_ptr<const ExecutionPlan> plan;
  cudnnContext *handle = nullptr;

 protected:
  void do_finalize() override {
    require(CUDNN_ATTR_EXECUTION_PLAN_HANDLE, "the handle");
    handle = &checked_handle(scalar<cudnnHandle_t>(CUDNN_ATTR_EXECUTION_PLAN_HANDLE, nullptr));
    if (!has(CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG) && has(CUDNN_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION)) {
      const std::vector<char> text = array<char>(CUDNN_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION);
      // Callers may count a terminating NUL.
      config = config_from_json(std::string(text.begin(), std::find(text.begin(), text.end(), '\0')), *handle);
    } else {
      require(CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, "the engine config (or a JSON representation)");
      const auto c = finalized_descriptors(CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG,
                                           CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, "the engine config");
      config = static_cast<const EngineConfigDescriptor *>(c.front())->state();
    }
    check_supported(array<int64_t>(CUDNN_ATTR_EXECUTION_PLAN_RUN_ONLY_INTERMEDIATE_UIDS).empty(),
                    "plans that compute only some intermediates are not supported");
    if (handle->device.kind != config->engine->graph->device.kind)
      fail(CUDNN_STATUS_BAD_PARAM, "the plan's handle is on another device than the operation graph's handle");
    plan = config->engine->engine->make_plan(*config->engine->graph->graph, config->knobs);
    put(CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE,
        AttrValue::of(CUDNN_TYPE_INT64, std::vector<int64_t>{static_cast<int64_t>(plan->workspace_size())}));
    // No NUL counted, as cuDNN: the count is the text's length.
    const std::string json = plan_to_json(*config);
    put(CUDNN_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION,
        AttrValue::of(CUDNN_TYPE_CHAR, std::vector<char>(json.begin(), json.end())));
  }
  void copy_state_from(const Descriptor &other) override {
    const auto &o = static_cast<const ExecutionPlanDescriptor &>(other);
    config = o.config;
    plan = o.plan;
    handle = o.handle;
  }
};

class VariantPackDescriptor : public Descriptor {
 public:
  VariantPackDescriptor()
      : Descriptor(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR,
                   {
                       {CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, 0, 1 << 20},
                       {CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, 0, 1 << 20},
                       {CUDNN_ATTR_VARIANT_PACK_INTERMEDIATES, CUDNN_TYPE_VOID_PTR, 0, 1 << 20},
                       {CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR},
                   }) {}
  std::vector<int64_t> uids;
  std::vector<void *> pointers;
  void *workspace = nullptr;

 protected:
  void do_finalize() override {
    uids = array<int64_t>(CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS);
    pointers = array<void *>(CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS);
    check_arg(uids.size() == pointers.size(), "the variant pack has ", uids.size(), " uids but ", pointers.size(),
              " data pointers");
    workspace = scalar<void *>(CUDNN_ATTR_VARIANT_PACK_WORKSPACE, nullptr);
  }
  void copy_state_from(const Descriptor &other) override {
    const auto &o = static_cast<const VariantPackDescriptor &>(other);
    uids = o.uids;
    pointers = o.pointers;
    workspace = o.workspace;
  }
};

// The value a by-value tensor's host pointer holds, as double.
double read_host_scalar(const void *p, cudnnDataType_t t) {
  switch (t) {
    case CUDNN_DATA_DOUBLE: return *static_cast<const double *>(p);
    case CUDNN_DATA_HALF: return static_cast<double>(num::half_to_float(*static_cast<const uint16_t *>(p)));
    case CUDNN_DATA_BFLOAT16: return static_cast<double>(num::bf16_to_float(*static_cast<const uint16_t *>(p)));
    case CUDNN_DATA_INT32: return *static_cast<const int32_t *>(p);
    case CUDNN_DATA_INT64: return static_cast<double>(*static_cast<const int64_t *>(p));
    case CUDNN_DATA_INT8: return *static_cast<const int8_t *>(p);
    case CUDNN_DATA_UINT8: return *static_cast<const uint8_t *>(p);
    case CUDNN_DATA_BOOLEAN: return (*static_cast<const uint8_t *>(p) & 1) ? 1.0 : 0.0;
    default: return *static_cast<const float *>(p);
  }
}

}  // namespace

void execute(cudnnContext &handle, const Descriptor &plan_desc, const Descriptor &pack_desc) {
  check_arg(plan_desc.type() == CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, "executionPlan is a descriptor of type ",
            static_cast<int>(plan_desc.type()), ", not an execution plan");
  check_arg(pack_desc.type() == CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, "variantPack is a descriptor of type ",
            static_cast<int>(pack_desc.type()), ", not a variant pack");
  if (!plan_desc.finalized()) fail(CUDNN_STATUS_BAD_PARAM_NOT_FINALIZED, "executionPlan is not finalized");
  if (!pack_desc.finalized()) fail(CUDNN_STATUS_BAD_PARAM_NOT_FINALIZED, "variantPack is not finalized");
  const auto &plan = static_cast<const ExecutionPlanDescriptor &>(plan_desc);
  const auto &pack = static_cast<const VariantPackDescriptor &>(pack_desc);
  if (handle.device.kind != plan.handle->device.kind)
    fail(CUDNN_STATUS_BAD_PARAM, "the handle is on another device than the plan's");

  graph::Graph g = *plan.config->engine->graph->graph;  // by-value tensors get their values here
  VariantPack vp;
  for (size_t i = 0; i < pack.uids.size(); ++i) vp.set(pack.uids[i], pack.pointers[i]);
  // A view of a caller's tensor reads the caller's pointer.
  for (const graph::Tensor &t : g.tensors())
    if (t.is_view() && !t.is_virtual) vp.set(t.uid, vp.get(t.view_of));
  for (const graph::Tensor &t : g.tensors()) {
    if (t.is_virtual || t.is_view()) continue;
    void *p = vp.get(t.uid);
    if (p == nullptr)
      fail(CUDNN_STATUS_BAD_PARAM, "the variant pack has no data pointer for tensor uid ", t.uid);
  }
  for (graph::Tensor &t : g.tensors())
    if (t.by_value) t.value = read_host_scalar(vp.get(t.uid), t.dtype);
  for (const GraphBinding &b : plan.config->engine->graph->bindings)
    b.apply(g.ops()[b.op_index], g.tensor(b.uid).value);
  const size_t ws = plan.plan->workspace_size();
  if (ws > 0 && pack.workspace == nullptr)
    fail(CUDNN_STATUS_BAD_PARAM, "the plan needs ", ws, " bytes of workspace but the variant pack has none");
  vp.workspace = pack.workspace;
  vp.workspace_size = ws;
  execute_plan(handle, "cudnnBackendExecute", *plan.plan, g, vp);
}

FDNN_BACKEND_DESCRIPTOR(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, ExecutionPlanDescriptor)
FDNN_BACKEND_DESCRIPTOR(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, VariantPackDescriptor)

}  // namespace fdnn::backend
