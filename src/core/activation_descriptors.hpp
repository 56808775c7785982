// The legacy activation descriptor (cudnnActivationDescriptor_t) and its
// translation into a PointwiseOp, shared by cudnnActivationForward/Backward
// and the calls that fuse an activation (batch norm Ex, conv-bias-activation).
#pragma once

#include <cudnn_graph.h>
#include <cudnn_ops.h>

#include <cstdint>

#include "graph/op_pointwise.hpp"

struct cudnnActivationStruct {
  static constexpr uint32_t kAlive = 0x41435456;  // "ACTV"
  uint32_t magic = kAlive;
  // A created, never-set descriptor reads back as SIGMOID / NOT_PROPAGATE_NAN
  // (zeros) in cuDNN 9, and is usable as such.
  cudnnActivationMode_t mode = CUDNN_ACTIVATION_SIGMOID;
  cudnnNanPropagation_t nan_propagation = CUDNN_NOT_PROPAGATE_NAN;
  double coef = 0.0;        // CLIPPED_RELU: the ceiling; ELU: alpha; others: ignored
  double swish_beta = 1.0;  // SWISH (cudnnSetActivationDescriptorSwishBeta); kept across Set calls
};

namespace fdnn {

// Fills op.mode and the mode parameters for the activation of d, forward
// (y = f(x)) or backward (dx = f'(.) * dy). Backward modes take their first
// operand as cuDNN's legacy formulas do: see activation_backward_reads_output.
// Throws NOT_SUPPORTED for a mode outside cudnnActivationMode_t.
void set_activation(graph::PointwiseOp &op, const cudnnActivationStruct &d, bool backward);

// True when the legacy backward of `mode` is computed from the forward output
// y (SIGMOID: y(1-y), TANH: 1-y^2, ELU: y+alpha below 0); false when it reads
// the forward input x (RELU, CLIPPED_RELU: 0 < x < ceiling; SWISH) or nothing
// (IDENTITY). Measured on cuDNN 9.19 by feeding a y unrelated to x
// (tests/oracle_gpu/activation_gpu.c, act.bwd.probe.indep_y.*).
bool activation_backward_reads_output(cudnnActivationMode_t mode);

}  // namespace fdnn
