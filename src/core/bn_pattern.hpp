// Recognises the graph guide's batch-norm fusion patterns in an internal
// graph and describes them for fused engines:
//
//  - BnAddRelu: batch-norm NORM_FORWARD (training) -> [ADD z] -> [RELU_FWD]
//    -> y, [CMP_GT(y, 0) -> mask]; everything between the norm and y virtual.
//  - DReluForkDBn: RELU_BWD(mask, dy) -> dz (virtual, or real: the fork) ->
//    batch-norm NORM_BACKWARD with saved mean / inv_variance.
//  - DgradDreluBNBwdWeight: CONVOLUTION_BACKWARD_DATA -> RELU_BWD whose
//    forward input is y_bn = ((x_bn + (-1) mean) * inv_std) * scale + bias,
//    recomputed by pointwise ops -> BN_BWD_WEIGHTS (as its expansion: the
//    full-size centring, normalising and product, two ADD reductions giving
//    dbias and dscale, and per-channel ops for A, B, C).
//  - dBNApply: dx = A * dy + B * x + C (MUL, MUL, ADD, ADD).
//
// The per-element part of each is the matcher's; per-channel ops that only
// read per-channel tensors (the coefficients of BN_BWD_WEIGHTS) are listed
// so that an engine can run them after the reductions. Layout and type
// restrictions are the engines' (see cpu/fusion_bn.cpp).
#pragma once

#include <string>
#include <vector>

#include "core/engine.hpp"
#include "graph/graph.hpp"

namespace fdnn {

enum class BnPatternKind { bn_add_relu, drelu_fork_dbn, dgrad_drelu_bn_bwd_weight, dbn_apply };

struct BnPatternMatch {
  BnPatternKind kind = BnPatternKind::bn_add_relu;
  std::string name;  // the guide's name
  int norm = -1;     // the NormalizationOp (BnAddRelu, DReluForkDBn)
  // BnAddRelu: the residual (or kNoTensor), whether ReLU applies, the real
  // output y and the optional mask (CMP_GT(y, 0)).
  graph::Uid z = graph::kNoTensor, y = graph::kNoTensor, mask = graph::kNoTensor;
  bool relu = false;
  // DReluForkDBn: relu_input is RELU_BWD's x (the mask or forward input), dy
  // its gradient, dz the fork (kNoTensor when virtual).
  graph::Uid relu_input = graph::kNoTensor, dy = graph::kNoTensor, dz = graph::kNoTensor;
  // DgradDreluBNBwdWeight.
  int conv = -1;
  graph::Uid dgrad = graph::kNoTensor;  // the convolution's (virtual) output
  graph::Uid x_bn = graph::kNoTensor, mean = graph::kNoTensor, inv_std = graph::kNoTensor, scale = graph::kNoTensor,
             bias = graph::kNoTensor;
  graph::Uid dscale = graph::kNoTensor, dbias = graph::kNoTensor;
  std::vector<int> tail;  // per-channel ops run after the reductions, in order
  // dBNApply: dx = a * dy + b * x + c.
  graph::Uid a = graph::kNoTensor, b = graph::kNoTensor, c = graph::kNoTensor, x = graph::kNoTensor,
             dx = graph::kNoTensor;
};

// Matches g; on success fills *out. The reason says what did not fit.
Support match_bn_pattern(const graph::Graph &g, BnPatternMatch *out);

}  // namespace fdnn
