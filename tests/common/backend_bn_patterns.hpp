// Builders for the graph guide's batch-norm patterns (and layer / RMS norm
// graphs) through the public backend API, each with the float64 expectation
// of every real output, computed here independently of the library:
//
//  - BnAddRelu: NORM_FORWARD batch norm (training, running statistics) ->
//    [ADD residual z] -> [RELU_FWD] -> y, [CMP_GT(y, 0) -> mask (UINT8)].
//  - DReluForkDBn: [RELU_BWD(mask, dy) -> dz (virtual or real)] ->
//    NORM_BACKWARD batch norm (saved mean / inv_std) -> dx, dscale, dbias.
//  - DgradDreluBNBwdWeight: CONVOLUTION_BACKWARD_DATA(dy, w) -> RELU_BWD with
//    y_bn = ((x_bn + (-1) * mean) * inv_std) * scale + bias recomputed by
//    pointwise ops -> BN_BWD_WEIGHTS -> dscale, dbias, A, B, C.
//  - dBNApply: dx = A * dy + B * x + C.
//  - layer / RMS / instance norm forward (training or inference) and backward.
// Data tensors are NHWC packed (channels innermost), 4D or 5D; statistics and
// parameters float. Tolerances are a few float roundings of the magnitudes
// involved (the library computes in float); a mask bit whose pre-activation
// is within the tolerance of 0 may be either.
#pragma once

#include <cudnn.h>

#include <memory>
#include <string>
#include <vector>

#include "common/backend_ops.hpp"
#include "common/tensor_data.hpp"

namespace fdnn_test {

enum class BnPattern { bn_add_relu, drelu_fork_dbn, dgrad_drelu_bn_bwd_weight, dbn_apply, norm_forward, norm_backward };

struct BnPatternConfig {
  BnPattern pattern = BnPattern::bn_add_relu;
  cudnnDataType_t io_type = CUDNN_DATA_FLOAT;
  std::vector<int64_t> dims{2, 8, 3, 4};  // N, C, spatial... (4D or 5D)
  // BnAddRelu pieces.
  bool add_z = true, relu = true, mask = true, running = true;
  // DReluForkDBn: the dReLU (else dy goes straight to the norm), dz a real output.
  bool drelu = true, dz_real = false;
  // Dgrad: dy's channel count (the filter is k x C x 3 x 3, padding 1).
  int64_t k = 4;
  // Layer / RMS / instance norm (norm_forward / norm_backward; instance norm
  // with running statistics when `running` and training).
  cudnnBackendNormMode_t norm_mode = CUDNN_LAYER_NORM;
  bool training = true;
  bool stats_out = true;  // training: mean / inv_variance outputs
  // Layer / RMS norm forward: y = relu(norm(x) + z) as a three-node graph
  // (the norm's output a virtual FLOAT tensor).
  bool norm_epilogue = false;
  // false: the graph and its data only, no expectation (the bench's large
  // problems before their data is final).
  bool reference = true;
  bool nhwc = true;  // data layout NHWC (NCHW otherwise; not for the dgrad pattern)
  // BnAddRelu / DReluForkDBn (and layer / RMS norm): the type of the real
  // y / dx and of the real dy (kIoType: io_type), for mixed-type single
  // operations. BnAddRelu with
  // `training` false is inference (mean and inv_variance inputs, no running
  // statistics).
  static constexpr cudnnDataType_t kIoType = static_cast<cudnnDataType_t>(-1);
  cudnnDataType_t out_type = kIoType, grad_type = kIoType;
  // BnAddRelu / DReluForkDBn: the type of scale, bias and the statistics
  // (layer / RMS norm too; instance norm: DOUBLE for DOUBLE data when FLOAT).
  cudnnDataType_t stat_type = CUDNN_DATA_FLOAT;
  // Layer / RMS / instance norm: y / dx and dy with their batch stride
  // padded (rows apart from x's; the rows themselves laid out as x's).
  bool padded_out = false;
  std::string name() const;
};

struct PatternTensor {
  int64_t uid = 0;
  std::string name;
  bool output = false;
  bool by_value = false;
  double value = 0;  // by-value scalars (passed as a double)
  HostTensor data;
  std::vector<Expect> want;
};

struct PatternGraph {
  std::vector<std::unique_ptr<Desc>> keep;
  std::vector<Desc *> ops;
  std::vector<PatternTensor> tensors;
};

PatternGraph build_bn_pattern(const BnPatternConfig &c, Rng &rng);

// Runs the graph through every engine config heuristics mode A offers (best
// first): outputs poisoned, executed, every output compared with its
// expectation (gtest failures on mismatch). Returns the engines' names in
// the order offered ("?" for a config whose plan does not finalize).
std::vector<std::string> run_on_every_engine(PatternGraph &pg);

}  // namespace fdnn_test
