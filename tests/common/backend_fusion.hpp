// Builders for the fusion graphs of the graph guide through the public
// backend API: an anchor operation (convolution forward / backward data /
// backward filter, or matmul) with pointwise prologue and epilogue ops and
// final reductions, the specialised patterns ConvBiasAct, ConvScaleBiasAct,
// ConvBNfprop, DBARCS, ConvBNwgrad, Dgrad + dReLU, dBNApply, matmul + bias +
// GELU, a pure pointwise + reduction graph, and graphs no fusing engine
// should take (two convolutions in a row, a reduction feeding a pointwise
// op). Each builder returns the operation descriptors, the real tensors with
// their host data (inputs random, outputs NaN-poisoned) and the float64
// expectation of every real output.
//
// The expectation follows the graph: every value (real or virtual) carries
// its float64 value and a bound of the error a float computation may make on
// the way (propagated through each op: sums add the operands' bounds plus a
// rounding, products |a| eb + |b| ea, activations their Lipschitz constant;
// convolutions and matmuls their accumulation bound plus sum |w| e_x). A
// value stored in a tensor of a narrower type (a real half output read again,
// a half virtual tensor) adds that type's rounding, so an engine that keeps
// the value in float and one that stores it both lie within the bound.
// Convolutions use tests/common/convolution_reference.hpp; the rest are
// plain loops here.
#pragma once

#include <cudnn.h>

#include <memory>
#include <string>
#include <vector>

#include "common/backend_ops.hpp"
#include "common/tensor_data.hpp"

namespace fdnn_test {

enum class FusionPattern {
  conv_bias_act,        // a: conv -> ADD bias[1,K,1,1] -> act -> y
  conv_scale_bias_act,  // b: conv -> MUL scale -> ADD bias -> act -> y
  conv_bn_fprop,        // c: x*s+b -> RELU -> conv -> y (real) -> GEN_STATS
  dbarcs,               // d: (x*s+b) + (dx*ds+db) -> RELU -> relu_y (real) -> 1x1 conv -> y (real) -> GEN_STATS
  conv_bn_wgrad,        // e: x*s+b -> RELU -> conv backward filter with dy -> dw
  dgrad_drelu,          // f: conv backward data -> RELU_BWD(x_fwd) -> dx
  matmul_bias_gelu,     // g: [A*scale] x B -> ADD bias[1,1,N] -> [pre real] -> GELU -> out [-> ADD over N]
  dbn_apply,            // h: dx = A*dy + B*x + C
  pointwise_reduction,  // i: e = EXP(x - m) (real), l = REDUCTION ADD(e) over the last dim
  two_convs,            // j: conv -> conv (not fusable)
  reduction_then_pointwise,  // j: REDUCTION MAX -> SUB (not fusable)
};

const char *pattern_name(FusionPattern p);

struct FusionConfig {
  FusionPattern pattern = FusionPattern::conv_bias_act;
  cudnnDataType_t io_type = CUDNN_DATA_FLOAT;  // x, w, y (conv); A, B, out (matmul)
  // Storage type of the virtual tensors between ops (FLOAT: no intermediate rounding).
  cudnnDataType_t virtual_type = CUDNN_DATA_FLOAT;
  bool nhwc = true;  // conv tensors NHWC (filters KRSC) or NCHW (KCRS)
  // Convolutions: x [n, c, h, w], w [k, c, r, s].
  int64_t n = 2, c = 4, h = 6, w = 5, k = 3, r = 3, s = 3;
  int64_t pad_h = 1, pad_w = 1, stride_h = 1, stride_w = 1, dil_h = 1, dil_w = 1;
  cudnnPointwiseMode_t act = CUDNN_POINTWISE_RELU_FWD;  // a, b
  // Matmul: A [batch, m, kk], B [batch or 1, kk, nn].
  int64_t batch = 2, m = 5, kk = 7, nn = 6;
  bool broadcast_b = false;   // B is [1, kk, nn]
  bool pre_output = false;    // the pre-activation (after the bias) is a real output too
  bool a_prologue = false;    // A is multiplied by a [1,1,1] scalar tensor first
  bool row_sum = false;       // a final REDUCTION ADD of the output over N -> [batch, m, 1]
  // false: only the graph and the data, no expectation (FusionTensor::want
  // stays empty); the bench checks samples of large problems itself.
  bool reference = true;
  std::string name() const;
  std::vector<int64_t> conv_out_dims() const;  // [n, k, p, q]
};

// Random small shapes (a few hundred to a few thousand elements per tensor)
// for the pattern, conv layouts and paddings/strides/dilations included.
FusionConfig random_fusion_config(FusionPattern p, Rng &rng);

// One real tensor of the graph: an input with its data, or an output
// (poisoned) with its expectation in logical row-major order of its dims.
struct FusionTensor {
  int64_t uid = 0;
  std::string name;
  bool output = false;
  HostTensor data;
  std::vector<Expect> want;
};

struct FusionGraph {
  std::vector<std::unique_ptr<Desc>> keep;  // every descriptor (they reference each other)
  std::vector<Desc *> ops;                  // the operations to put in the graph
  std::vector<FusionTensor> tensors;        // every real tensor
  bool fusable = true;                      // a-i: a runtime fusion engine should take it
};

FusionGraph build_fusion_graph(const FusionConfig &c, Rng &rng);

}  // namespace fdnn_test
