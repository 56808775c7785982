// The legacy convolution descriptor behind cudnnConvolutionDescriptor_t, its
// cuDNN-exact setters and the forward output-shape rule.
#pragma once

#include <cudnn_cnn.h>

#include <array>
#include <cstdint>
#include <vector>

#include "core/tensor_desc.hpp"

struct cudnnConvolutionStruct {
  static constexpr uint32_t kAlive = 0x434f4e56;  // "CONV"
  uint32_t magic = kAlive;
  // Spatial dimensions (the Nd call's arrayLength; 2 after the 2d call).
  int nb_spatial = 0;
  // First nb_spatial entries meaningful; later ones keep older values, which
  // cudnnGetConvolution2dDescriptor reports for a 1-d descriptor as cuDNN does.
  std::array<int, CUDNN_DIM_MAX> pad{};
  std::array<int, CUDNN_DIM_MAX> stride{};
  std::array<int, CUDNN_DIM_MAX> dilation{};
  cudnnConvolutionMode_t mode = CUDNN_CONVOLUTION;
  cudnnDataType_t compute_type = CUDNN_DATA_FLOAT;
  int group_count = 1;
  cudnnMathType_t math_type = CUDNN_DEFAULT_MATH;
  cudnnReorderType_t reorder_type = CUDNN_DEFAULT_REORDER;
};

namespace fdnn {

// Throws BAD_PARAM unless d is a live convolution descriptor.
cudnnConvolutionStruct &live_convolution(cudnnConvolutionStruct *d, const char *name);

// Validates and stores like cuDNN 9, which leaves part of the new values
// behind when a spatial dimension is rejected.
void set_convolution_nd(cudnnConvolutionStruct &d, int nb_spatial, const int pad[], const int stride[],
                        const int dilation[], cudnnConvolutionMode_t mode, cudnnDataType_t compute_type);

// Output extent of one spatial dimension: 1 + (in + 2 pad - ((f - 1) dil + 1)) / stride;
// may be <= 0 when the filter does not fit.
int64_t convolution_output_extent(int64_t in, int64_t filter, int pad, int stride, int dilation);

// The forward output dims (N, K, spatial...) of x convolved with w under d.
// Throws BAD_PARAM, naming the rule, when the ranks disagree with the
// descriptor, the channels disagree with the group count, or an output
// extent is not positive. `partial` receives what cuDNN writes before it
// fails: N, K and the spatial extents before the one that failed.
std::vector<int64_t> convolution_forward_output_dims(const cudnnConvolutionStruct &d, const cudnnTensorStruct &x,
                                                     const cudnnFilterStruct &w,
                                                     std::vector<int64_t> *partial = nullptr);

}  // namespace fdnn
