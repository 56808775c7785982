// The fused-ops API's three opaque objects (cudnnFusedOpsConstParamPack_t,
// cudnnFusedOpsVariantParamPack_t, cudnnFusedOpsPlan_t) and the label rules
// of their Set/Get calls.
//
// The const pack keeps COPIES of the descriptors it is given (the seed:
// "the values pointed to by this pointer ... will be copied into the
// constPack"; its getter copies them back into the caller's descriptor), so
// that later changes to the caller's descriptors do not change a pack or a
// plan made from it. Placeholders and the batch-norm mode are stored as
// given, as cuDNN 9.19 stores them (FreeDNN checks them when the plan is made). The
// variant pack keeps device pointers and copies of the host scalars.
#pragma once

#include <cudnn_cnn.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "core/activation_descriptors.hpp"
#include "core/convolution_descriptor.hpp"
#include "core/engine.hpp"
#include "core/tensor_desc.hpp"
#include "graph/graph.hpp"

namespace fdnn::fused {

constexpr int kConstLabelCount = CUDNN_PARAM_BN_DBIAS_PLACEHOLDER + 1;  // 39
constexpr int kPointerLabelCount = CUDNN_PTR_BN_DBIAS + 1;              // 24
constexpr int kScalarLabelCount = 4;                                     // 100 .. 103

// What a const-pack label holds.
enum class ConstKind { tensor, filter, convolution, activation, placeholder, bn_mode };
ConstKind const_label_kind(cudnnFusedOpsConstParamLabel_t label);

// Whether the label belongs to the fused-op kind (the sets cuDNN 9.19 accepts,
// probed locally with its Set calls).
bool const_label_allowed(cudnnFusedOps_t ops, int label);
bool variant_label_allowed(cudnnFusedOps_t ops, int label);
bool valid_fused_ops(int ops);
const char *fused_ops_name(cudnnFusedOps_t ops);
const char *const_label_name(int label);
const char *variant_label_name(int label);

}  // namespace fdnn::fused

struct cudnnFusedOpsConstParamStruct {
  static constexpr uint32_t kAlive = 0x46434f4e;  // "FCON"
  uint32_t magic = kAlive;
  cudnnFusedOps_t ops = CUDNN_FUSED_SCALE_BIAS_ACTIVATION_CONV_BNSTATS;
  // One slot per label; only the member of the label's kind is used.
  std::array<std::optional<cudnnTensorStruct>, fdnn::fused::kConstLabelCount> tensors{};
  std::optional<cudnnFilterStruct> w, dw;
  std::optional<cudnnConvolutionStruct> conv;
  std::optional<cudnnActivationStruct> activation;
  // Placeholders (cudnnFusedOpsPointerPlaceHolder_t values, any int kept)
  // and the batch-norm mode, by label; 0 (CUDNN_PTR_NULL / PER_ACTIVATION)
  // after creation and after a Set with NULL.
  std::array<int, fdnn::fused::kConstLabelCount> values{};

  int placeholder(cudnnFusedOpsConstParamLabel_t l) const { return values[l]; }
  const cudnnTensorStruct *tensor(cudnnFusedOpsConstParamLabel_t l) const {
    return tensors[l] ? &*tensors[l] : nullptr;
  }
};

struct cudnnFusedOpsVariantParamStruct {
  static constexpr uint32_t kAlive = 0x46564152;  // "FVAR"
  uint32_t magic = kAlive;
  cudnnFusedOps_t ops = CUDNN_FUSED_SCALE_BIAS_ACTIVATION_CONV_BNSTATS;
  std::array<void *, fdnn::fused::kPointerLabelCount> pointers{};
  size_t workspace_bytes = 0;
  int64_t accumulation_count = 0;
  double exp_avg_factor = 0.0;
  double epsilon = 0.0;
};

namespace fdnn::fused {

// A plan's graph: every variant-pack pointer label that takes part maps to
// the graph tensors bound to it (a label may feed several views); host
// scalars become by-value tensors whose values are set at each execution.
struct FusedGraph {
  graph::Graph g;
  std::vector<std::pair<int, graph::Uid>> bindings;  // (CUDNN_PTR_* label, uid)
  graph::Uid inv_count = graph::kNoTensor;           // 1 / accumulation count
  graph::Uid count = graph::kNoTensor;               // accumulation count
  graph::Uid epsilon = graph::kNoTensor;
  graph::Uid exp_avg_factor = graph::kNoTensor;
  // The placeholder of each pointer label that the plan uses (its alignment
  // promise is checked at execution).
  std::vector<std::pair<int, int>> placeholders;  // (CUDNN_PTR_* label, placeholder)
  // Element sizes for the ELEM_ALIGNED check.
  std::vector<std::pair<int, int>> element_bytes;  // (CUDNN_PTR_* label, bytes)
  // Which epsilon rule applies at execution (BN finalize / backward).
  bool needs_epsilon = false;
  bool needs_count = false;
};

}  // namespace fdnn::fused

struct cudnnFusedOpsPlanStruct {
  static constexpr uint32_t kAlive = 0x46504c4e;  // "FPLN"
  uint32_t magic = kAlive;
  cudnnFusedOps_t ops = CUDNN_FUSED_SCALE_BIAS_ACTIVATION_CONV_BNSTATS;
  bool made = false;
  fdnn::DeviceKind device = fdnn::DeviceKind::cpu;
  const void *handle = nullptr;  // the cudnnContext it was made on
  fdnn::fused::FusedGraph graph;
  std::shared_ptr<const fdnn::ExecutionPlan> plan;
  size_t workspace_bytes = 0;
};

namespace fdnn::fused {

void set_const(cudnnFusedOpsConstParamStruct &p, int label, const void *param);
// Returns isNULL.
int get_const(const cudnnFusedOpsConstParamStruct &p, int label, void *param);
void set_variant(cudnnFusedOpsVariantParamStruct &p, int label, void *ptr);
void get_variant(const cudnnFusedOpsVariantParamStruct &p, int label, void *ptr);

}  // namespace fdnn::fused
