// oneDNN peers of --op=graph (op_graph.cpp): one primitive doing what the
// graph does, with oneDNN's fused post-ops where the graph fuses:
//   conv-bias-relu    convolution_forward with a bias and an eltwise_relu
//                     post-op (format_tag::any operands, as the conv peer)
//   matmul-bias-gelu  matmul with a [1,1,N] bias and an eltwise_gelu_erf
//                     post-op, row-major operands as ours
//   layernorm         layer_normalization_forward (training: mean and
//                     variance out) with use_scale | use_shift
// Null when oneDNN is not linked or has no implementation for the type.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "onednn_conv_peer.hpp"
#include "op.hpp"

namespace bench {

std::unique_ptr<PeerRun> onednn_conv_bias_relu(const PeerConv &c);
std::unique_ptr<PeerRun> onednn_matmul_bias_gelu(const std::string &dt, int64_t b, int64_t m, int64_t k, int64_t n);
std::unique_ptr<PeerRun> onednn_layernorm(const std::string &dt, int64_t n, int64_t d, float epsilon);

}  // namespace bench
