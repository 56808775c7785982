// Kernels of cuda.conv.winograd (WINOGRAD_NONFUSED on the GPU): the
// F(4x4, 3x3) transforms of convolution_winograd_transforms.hpp between the
// tensors and the 36 transformed planes that batched GEMMs multiply
// (convolution_winograd_engine.cpp says how the directions map onto them).
// Planes are row-major [36][rows][cols] in the workspace; T is the number of
// 4x4 output tiles of one pass (images x tiles_h x tiles_w), tile index
// t = (n * tiles_h + th) * tiles_w + tw.
#pragma once

#include <cstdint>

namespace fdnn::cuda {

// One 4-d NCHW-ordered tensor view (element strides, any layout).
struct WinoTensor {
  int dims[4] = {};     // N, C, H, W
  int strides[4] = {};  // in elements
};

// The tiling of one pass: `src` is read by the data transforms (x forward,
// dy for the data gradient, x for the filter gradient), `dst` is written by
// the output transform (y, dx) or, for the filter gradient, is dy. Tiles
// cover dst's spatial extent; the 6x6 window of tile (th, tw) starts at
// src row th * 4 - pad_h, column tw * 4 - pad_w (pads may be negative).
struct WinoTiling {
  WinoTensor src, dst;
  int images = 0;  // images of this pass
  int pad_h = 0, pad_w = 0;
  int tiles_h = 0, tiles_w = 0;
  int T = 0;       // images * tiles_h * tiles_w
  // The data planes hold the tiles in `parts` runs of part_tiles each:
  // [36][parts][channels][part_tiles], tile t at (t / part_tiles, t %
  // part_tiles), zeros past T. The filter gradient's GEMMs then reduce the
  // parts as separate batches (more blocks than 36 GEMMs of a small K x C
  // output give); parts = 1, part_tiles = T elsewhere.
  int parts = 1, part_tiles = 0;
};

// How element (o, i, r, s) of the 3x3 filter that the transformed problem
// applies maps into the filter tensor: w[o * so + i * si + r' * sr + s' * ss]
// with r' = flip ? 2 - r : r (same for s).
struct WinoFilterMap {
  int so = 0, si = 0, sr = 0, ss = 0;
  int outer = 0, inner = 0;  // extents of o and i
  bool flip = false;
};

// U[36][outer][inner] = G g G^T for every (o, i).
template <class T>
void launch_wino_filter(const T *w, const WinoFilterMap &m, T *U, void *stream);
// V[36][parts][C][part_tiles] = B^T d B of src's 6x6 windows (zero outside
// src), C = src channels.
template <class T>
void launch_wino_input(const T *src, const WinoTiling &t, T *V, void *stream);
// dst = alpha * A^T M A + beta * dst (beta 0: dst is not read), M[36][K][T],
// K = dst channels (one part: parts = 1).
template <class T>
void launch_wino_output(const T *M, const WinoTiling &t, T *dst, T alpha, T beta, void *stream);
// Z[36][parts][K][part_tiles] = A q A^T of dst's (dy's) 4x4 tiles (zero past its edge).
template <class T>
void launch_wino_grad(const T *dy, const WinoTiling &t, T *Z, void *stream);
// dw(o, i) = alpha * G^T S G + beta * dw for S = the sum over `parts` of
// S[36][parts][outer][inner] (in order: deterministic; the sum is left in
// part 0 of S), written through the filter map (its flip applied).
template <class T>
void launch_wino_filter_grad(const T *S, int parts, const WinoFilterMap &m, T *dw, T alpha, T beta, void *stream);

}  // namespace fdnn::cuda
