// The fused-ops API (cudnn*FusedOps*): param packs, plans and execution.
// A plan is one internal graph of existing ops (api/fused_ops_graph.cpp),
// planned once at cudnnMakeFusedOpsPlan; execution binds the variant pack's
// pointers to the graph's tensors and gives the host scalars (epsilon, the
// accumulation count, the average factor) to its by-value tensors.
#include <cudnn_cnn.h>

#include <cstdint>

#include "api/fused_ops_graph.hpp"
#include "api/guard.hpp"
#include "core/descriptor_lifetime.hpp"
#include "core/error.hpp"
#include "core/fused_ops_params.hpp"
#include "core/handle.hpp"

using namespace fdnn;

namespace {

void check_ops(int ops) {
  check_arg(fused::valid_fused_ops(ops), "ops = ", ops, ": not a cudnnFusedOps_t value (0 .. 6)");
}

// Binds the variant pack to the plan's graph and checks the pointers against
// the placeholders' promises.
void bind_pack(const fused::FusedGraph &fg, const cudnnFusedOpsVariantParamStruct &vp, VariantPack &pack) {
  for (size_t i = 0; i < fg.bindings.size(); ++i) {
    const auto [label, uid] = fg.bindings[i];
    const int ph = fg.placeholders[i].second;
    const int elem = fg.element_bytes[i].second;
    void *p = vp.pointers[label];
    const char *name = fused::variant_label_name(label);
    check_arg(p != nullptr, name, " is NULL but its placeholder promises a pointer");
    const auto addr = reinterpret_cast<uintptr_t>(p);
    if (ph == CUDNN_PTR_16B_ALIGNED)
      check_arg(addr % 16 == 0, name, " = ", p, " is not 16-byte aligned as CUDNN_PTR_16B_ALIGNED promises");
    else
      check_arg(elem <= 1 || addr % elem == 0, name, " = ", p, " is not aligned to its ", elem, "-byte elements");
    pack.set(uid, p);
  }
}

}  // namespace

extern "C" {

cudnnStatus_t CUDNNWINAPI cudnnCreateFusedOpsConstParamPack(cudnnFusedOpsConstParamPack_t *constPack,
                                                             cudnnFusedOps_t ops) {
  return FDNN_GUARDED([&] {
    check_not_null(constPack, "constPack");
    check_ops(ops);
    create_descriptor(constPack, "constPack");
    (*constPack)->ops = ops;
  });
}

cudnnStatus_t CUDNNWINAPI cudnnDestroyFusedOpsConstParamPack(cudnnFusedOpsConstParamPack_t constPack) {
  return FDNN_GUARDED([&] { destroy_descriptor(constPack, "constPack", "fused-ops const-pack"); });
}

cudnnStatus_t CUDNNWINAPI cudnnSetFusedOpsConstParamPackAttribute(cudnnFusedOpsConstParamPack_t constPack,
                                                                   cudnnFusedOpsConstParamLabel_t paramLabel,
                                                                   const void *param) {
  return FDNN_GUARDED([&] {
    fused::set_const(live_descriptor(constPack, "constPack", "fused-ops const-pack"), paramLabel, param);
  });
}

cudnnStatus_t CUDNNWINAPI cudnnGetFusedOpsConstParamPackAttribute(const cudnnFusedOpsConstParamPack_t constPack,
                                                                   cudnnFusedOpsConstParamLabel_t paramLabel,
                                                                   void *param, int *isNULL) {
  return FDNN_GUARDED([&] {
    const auto &p = live_descriptor(constPack, "constPack", "fused-ops const-pack");
    check_not_null(isNULL, "isNULL");
    *isNULL = 0;  // cuDNN 9.19 clears it even when the label is refused
    *isNULL = fused::get_const(p, paramLabel, param);
  });
}

cudnnStatus_t CUDNNWINAPI cudnnCreateFusedOpsVariantParamPack(cudnnFusedOpsVariantParamPack_t *varPack,
                                                               cudnnFusedOps_t ops) {
  return FDNN_GUARDED([&] {
    check_not_null(varPack, "varPack");
    check_ops(ops);
    create_descriptor(varPack, "varPack");
    (*varPack)->ops = ops;
  });
}

cudnnStatus_t CUDNNWINAPI cudnnDestroyFusedOpsVariantParamPack(cudnnFusedOpsVariantParamPack_t varPack) {
  return FDNN_GUARDED([&] { destroy_descriptor(varPack, "varPack", "fused-ops variant-pack"); });
}

cudnnStatus_t CUDNNWINAPI cudnnSetFusedOpsVariantParamPackAttribute(cudnnFusedOpsVariantParamPack_t varPack,
                                                                     cudnnFusedOpsVariantParamLabel_t paramLabel,
                                                                     void *ptr) {
  return FDNN_GUARDED([&] {
    fused::set_variant(live_descriptor(varPack, "varPack", "fused-ops variant-pack"), paramLabel, ptr);
  });
}

cudnnStatus_t CUDNNWINAPI cudnnGetFusedOpsVariantParamPackAttribute(const cudnnFusedOpsVariantParamPack_t varPack,
                                                                     cudnnFusedOpsVariantParamLabel_t paramLabel,
                                                                     void *ptr) {
  return FDNN_GUARDED([&] {
    fused::get_variant(live_descriptor(varPack, "varPack", "fused-ops variant-pack"), paramLabel, ptr);
  });
}

cudnnStatus_t CUDNNWINAPI cudnnCreateFusedOpsPlan(cudnnFusedOpsPlan_t *plan, cudnnFusedOps_t ops) {
  return FDNN_GUARDED([&] {
    check_not_null(plan, "plan");
    check_ops(ops);
    create_descriptor(plan, "plan");
    (*plan)->ops = ops;
  });
}

cudnnStatus_t CUDNNWINAPI cudnnDestroyFusedOpsPlan(cudnnFusedOpsPlan_t plan) {
  return FDNN_GUARDED([&] { destroy_descriptor(plan, "plan", "fused-ops plan"); });
}

// backends: cpu cuda
cudnnStatus_t CUDNNWINAPI cudnnMakeFusedOpsPlan(cudnnHandle_t handle, cudnnFusedOpsPlan_t plan,
                                                const cudnnFusedOpsConstParamPack_t constPack,
                                                size_t *workspaceSizeInBytes) {
  return FDNN_GUARDED([&] {
    cudnnContext &h = checked_handle(handle);
    cudnnFusedOpsPlanStruct &pl = live_descriptor(plan, "plan", "fused-ops plan");
    const auto &cp = live_descriptor(constPack, "constPack", "fused-ops const-pack");
    check_not_null(workspaceSizeInBytes, "workspaceSizeInBytes");
    check_arg(cp.ops == pl.ops, "constPack is for ", fused::fused_ops_name(cp.ops), " but plan is for ",
              fused::fused_ops_name(pl.ops));
    fused::FusedGraph fg = api::build_fused_graph(cp);
    std::shared_ptr<const ExecutionPlan> ep = plan_for(h, fg.g);
    pl.graph = std::move(fg);
    pl.plan = std::move(ep);
    pl.workspace_bytes = pl.plan->workspace_size();
    pl.device = h.device.kind;
    pl.handle = &h;
    pl.made = true;
    *workspaceSizeInBytes = pl.workspace_bytes;
  });
}

// backends: cpu cuda
cudnnStatus_t CUDNNWINAPI cudnnFusedOpsExecute(cudnnHandle_t handle, const cudnnFusedOpsPlan_t plan,
                                               cudnnFusedOpsVariantParamPack_t varPack) {
  return FDNN_GUARDED([&] {
    cudnnContext &h = checked_handle(handle);
    const cudnnFusedOpsPlanStruct &pl = live_descriptor(plan, "plan", "fused-ops plan");
    const auto &vp = live_descriptor(varPack, "varPack", "fused-ops variant-pack");
    check_arg(pl.made, "plan was not made (cudnnMakeFusedOpsPlan)");
    check_arg(vp.ops == pl.ops, "varPack is for ", fused::fused_ops_name(vp.ops), " but plan is for ",
              fused::fused_ops_name(pl.ops));
    check_arg(pl.device == h.device.kind, "plan was made on a handle of another device");
    const fused::FusedGraph &fg = pl.graph;

    graph::Graph g = fg.g;
    auto set_value = [&](graph::Uid uid, double v) {
      for (graph::Tensor &t : g.tensors())
        if (t.uid == uid) t.value = v;
    };
    if (fg.needs_epsilon)
      check_arg(vp.epsilon >= CUDNN_BN_MIN_EPSILON, "CUDNN_SCALAR_DOUBLE_BN_EPSILON = ", vp.epsilon,
                " is below CUDNN_BN_MIN_EPSILON (", CUDNN_BN_MIN_EPSILON, ")");
    if (fg.epsilon != graph::kNoTensor) set_value(fg.epsilon, vp.epsilon);
    for (graph::Op &op : g.ops())
      if (auto *n = std::get_if<graph::NormalizationOp>(&op)) n->epsilon = vp.epsilon;
    if (fg.needs_count) {
      check_arg(vp.accumulation_count > 0, "CUDNN_SCALAR_INT64_T_BN_ACCUMULATION_COUNT = ", vp.accumulation_count,
                ": expected the (positive) number of elements summed per channel");
      set_value(fg.count, static_cast<double>(vp.accumulation_count));
    }
    if (fg.exp_avg_factor != graph::kNoTensor) set_value(fg.exp_avg_factor, vp.exp_avg_factor);

    VariantPack pack;
    bind_pack(fg, vp, pack);
    if (pl.workspace_bytes > 0) {
      void *ws = vp.pointers[CUDNN_PTR_WORKSPACE];
      check_arg(ws != nullptr, "CUDNN_PTR_WORKSPACE is NULL but the plan needs ", pl.workspace_bytes, " bytes");
      check_arg(vp.workspace_bytes >= pl.workspace_bytes, "CUDNN_SCALAR_SIZE_T_WORKSPACE_SIZE_IN_BYTES = ",
                vp.workspace_bytes, " but the plan needs ", pl.workspace_bytes,
                " bytes (cudnnMakeFusedOpsPlan's workspaceSizeInBytes)");
      pack.workspace = ws;
      pack.workspace_size = pl.workspace_bytes;
    }
    execute_plan(h, "cudnnFusedOpsExecute", *pl.plan, g, pack);
  });
}

}  // extern "C"
