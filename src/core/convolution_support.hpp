// Checks of a convolution graph shared by every device's engines, the data
// type configurations of cuDNN's legacy convolution tables, and the legacy
// algorithm enums (which values exist, which this library implements on the
// CPU). What a well-formed ConvolutionOp is gets decided here once.
#pragma once

#include <cudnn_cnn.h>

#include <cstdint>
#include <vector>

#include "core/engine.hpp"
#include "graph/graph.hpp"

namespace fdnn {

// The shape of one convolution problem, read off a ConvolutionOp and its
// tensors. Spatial vectors have spatial_dims() entries.
struct ConvGeometry {
  graph::ConvDirection direction = graph::ConvDirection::forward;
  int nsp = 0;                    // spatial dimensions
  int64_t N = 0, C = 0, K = 0;    // batch, input channels, output channels
  int64_t G = 1;                  // groups = C / w.C
  int64_t Cg = 0, Kg = 0;         // per group
  std::vector<int64_t> in, filt, out, pad, stride, dil;  // pad = pre-padding
  bool flip = false;              // CONVOLUTION mode: the filter is applied flipped
  graph::Tensor x, w, y;          // copies of the op's tensors
  cudnnDataType_t compute = CUDNN_DATA_FLOAT;

  int64_t in_pixels() const;
  int64_t out_pixels() const;
  int64_t filter_taps() const;  // product of filt
  // Multiply-adds of the whole convolution (any direction): N K Cg out taps.
  double macs() const;
};

// Support::yes() when g is one ConvolutionOp whose x, w, y exist with rank
// spatial_dims()+2 (1..6 spatial dims), or in the backend API's grouped form
// of rank spatial_dims()+3 that merges into it (ConvGeometry then holds the
// merged tensors), whose padding/stride/dilation vectors
// have that length, C a multiple of w's C, K a multiple of the group count,
// and y's spatial extents the forward output rule's.
Support check_single_convolution(const graph::Graph &g);
// Requires check_single_convolution(g).
ConvGeometry convolution_geometry(const graph::Graph &g);

// The data-type configurations of cuDNN's tables (TRUE_HALF, PSEUDO_HALF,
// PSEUDO_BFLOAT16, FLOAT, DOUBLE; INT8 / INT8_EXT / UINT8 / UINT8_EXT forward
// only). `x`, `w`, `y` are the descriptor types (dy in y, dx in x, dw in w).
// Throws BAD_PARAM when x, w and y disagree outside an INT8 configuration,
// NOT_SUPPORTED for a compute type the configuration does not list.
void check_convolution_types(graph::ConvDirection dir, cudnnDataType_t x, cudnnDataType_t w, cudnnDataType_t y,
                             cudnnDataType_t compute);
// True for the floating configurations (FLOAT/DOUBLE/HALF/BFLOAT16): the fast
// CPU engines' domain. INT8 configurations run on the reference engine.
bool convolution_is_floating(const ConvGeometry &geo);

// Number of values of the direction's algorithm enum (8, 6, 7).
int convolution_algo_count(graph::ConvDirection dir);
const char *convolution_algo_name(graph::ConvDirection dir, int algo);
// Whether the algorithm computes deterministically in this library (all of
// ours do: no atomics; kept per algorithm for the perf structs).
bool convolution_algo_deterministic(graph::ConvDirection dir, int algo);
// The algorithms the CPU backend implements for some problem; FFT variants
// and BWD_FILTER WINOGRAD are not among them.
bool cpu_implements_convolution_algo(graph::ConvDirection dir, int algo);
// Whether the CPU backend runs `algo` (-1: any) on this problem: the
// algorithm's own limits (Winograd: 2-d, 3x3, stride 1, dilation 1; the GEMM
// family, direct: 1-3 spatial dims, floating types). The fast engine that
// implements the algorithm and the reference engine both answer by this, so
// pinning the reference engine never widens what an algorithm accepts.
Support cpu_convolution_algo_applies(const ConvGeometry &geo, int algo);

}  // namespace fdnn
