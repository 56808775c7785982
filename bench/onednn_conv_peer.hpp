// oneDNN's convolution as the peer of --op=conv: the same problem through
// convolution_forward / _backward_data / _backward_weights with
// format_tag::any for every operand (oneDNN's fastest layouts: its NHWC
// kernels with KRSC filters are reference code in 2.6), the operands made and
// reordered once, outside the timing. Null when oneDNN is not linked or has no
// implementation for the type.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "op.hpp"

namespace bench {

struct PeerConv {
  std::string dir;  // FWD_D, BWD_D, BWD_W
  std::string dt;   // f32, bf16
  int64_t groups = 1;
  std::vector<int64_t> x, w, y;  // logical dims; w without the group split (K, C/G, spatial)
  std::vector<int64_t> stride, pad_l, pad_r, dilation;  // dilation in cuDNN's terms (1 = none)
};

std::unique_ptr<PeerRun> onednn_convolution(const PeerConv &c);

}  // namespace bench
