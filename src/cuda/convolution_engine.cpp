// The CUDA convolution engines. Each runs the three directions of a single
// ConvolutionOp (1-3 spatial dims, groups, padding, stride, dilation, both
// modes, any non-negative strides, FLOAT / DOUBLE / HALF / BFLOAT16 with the
// float intermediate of cudnnConvolutionBiasActivationForward) and answers
// for the legacy algorithms it implements:
//   cuda.conv.implicit_gemm  FWD IMPLICIT_GEMM, IMPLICIT_PRECOMP_GEMM,
//                            BWD_DATA ALGO_1, BWD_FILTER ALGO_1: the tiled
//                            implicit GEMM, tensor cores for HALF /
//                            BFLOAT16 with channels-innermost operands
//                            (mma.sync, convolution_mma.cu, for 16-bit
//                            outputs; WMMA for float outputs), FMA
//                            otherwise (IMPLICIT_PRECOMP_GEMM and ALGO_1 with
//                            a precomputed reduction table, IMPLICIT_GEMM
//                            without); no workspace (the table and a split
//                            reduction's partials live in the handle's
//                            scratch).
//                            Few channels per group: the data gradient
//                            with Cg <= 4 runs a per-input-pixel kernel,
//                            and HALF / BFLOAT16 forward and filter
//                            gradient with G == 1, Cg < 8 run the tensor
//                            cores on copies of x and w padded to 8
//                            channels (convolution_narrow.cu); before
//                            those, the HALF / BFLOAT16 forward with
//                            Cg <= 4, Kg 32 / 64, packed NHWC x and y
//                            (the ResNet-50 stem) runs its own kernel,
//                            depth R*S*C rounded to 16 instead of
//                            R*S*8 (convolution_stem.cu;
//                            FREEDNN_CONV_STEM=0 keeps the 8-channel path),
//                            and so does the filter gradient of the same
//                            problems (partials per block in the scratch;
//                            FREEDNN_CONV_STEM_WGRAD=0 keeps the 8-channel
//                            path). The HALF / BFLOAT16 data gradient with
//                            Cg <= 4 and Kg 16-128 (dy channels-innermost)
//                            runs before the per-pixel kernel on the tensor
//                            cores, per stride class
//                            (convolution_stem_dgrad.cu;
//                            FREEDNN_CONV_STEM_DGRAD=0 keeps the per-pixel
//                            kernel).
//                            The mma data gradient with unit strides runs
//                            as the mma forward of dy with a transformed
//                            filter (convolution_dgrad_as_fwd.hpp; the
//                            filter in the scratch, so the workspace
//                            queries still answer 0).
//                            The HALF / BFLOAT16 3x3 unit-stride filter
//                            gradient with C and K % 64 == 0 (packed NHWC
//                            / KRSC) runs on wgmma on an H100
//                            (convolution_wgrad_wgmma.hpp;
//                            FREEDNN_CONV_WGRAD_WGMMA=0 keeps the mma
//                            kernel); elsewhere, small images with a large
//                            output run as im2col chunks + cuBLASLt GEMMs
//                            in the scratch (convolution_wgrad_gemm.hpp;
//                            FREEDNN_CONV_WGRAD_GEMM=0 keeps the mma kernel,
//                            =1 takes it wherever its layout allows).
//                            The forward and the data gradient as a
//                            forward with C % 64 == 0, K % 64 == 0, one
//                            group, 2-D, packed NHWC / KRSC run on wgmma
//                            on an H100 (convolution_fwd_wgmma.hpp;
//                            FREEDNN_CONV_FWD_WGMMA=0 keeps the mma
//                            kernel).
//   cuda.conv.gemm           FWD GEMM: explicit im2col into the workspace,
//                            then the tiled GEMM on the lowered matrix.
//   cuda.conv.direct         FWD DIRECT, BWD_DATA ALGO_0, BWD_FILTER ALGO_0:
//                            one thread per output element.
// All are deterministic (no atomics: split reductions are summed in order).
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <variant>

#include "core/convolution_support.hpp"
#include "core/dtype.hpp"
#include "core/engine.hpp"
#include "core/env_words.hpp"
#include "core/error.hpp"
#include "cuda/convolution_args.hpp"
#include "cuda/convolution_dgrad_as_fwd.hpp"
#include "cuda/convolution_dgrad_gemm.hpp"
#include "cuda/convolution_fwd_wgmma.hpp"
#include "cuda/convolution_mma.hpp"
#include "cuda/convolution_narrow.hpp"
#include "cuda/convolution_narrow_wgrad.hpp"
#include "cuda/convolution_stem.hpp"
#include "cuda/convolution_stem_dgrad.hpp"
#include "cuda/convolution_wgrad_gemm.hpp"
#include "cuda/convolution_wgrad_wgmma.hpp"
#include "cuda/cuda_util.hpp"

namespace fdnn::cuda {
namespace {

using graph::ConvDirection;

enum class Family { implicit_gemm, gemm, direct };

bool implements(Family f, ConvDirection dir, int algo) {
  if (algo == -1) return true;
  switch (f) {
    case Family::implicit_gemm:
      switch (dir) {
        case ConvDirection::forward:
          return algo == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM ||
                 algo == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM;
        case ConvDirection::backward_data: return algo == CUDNN_CONVOLUTION_BWD_DATA_ALGO_1;
        case ConvDirection::backward_filter: return algo == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1;
      }
      return false;
    case Family::gemm: return dir == ConvDirection::forward && algo == CUDNN_CONVOLUTION_FWD_ALGO_GEMM;
    case Family::direct:
      switch (dir) {
        case ConvDirection::forward: return algo == CUDNN_CONVOLUTION_FWD_ALGO_DIRECT;
        case ConvDirection::backward_data: return algo == CUDNN_CONVOLUTION_BWD_DATA_ALGO_0;
        case ConvDirection::backward_filter: return algo == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_0;
      }
      return false;
  }
  return false;
}

// The kernels' element types for x/w/y of the geometry, or false.
bool conv_types(const ConvGeometry &geo, ConvTypes *t) {
  const cudnnDataType_t x = geo.x.dtype, w = geo.w.dtype, y = geo.y.dtype;
  // The two inputs HALF or BFLOAT16, the output FLOAT (float accumulation):
  // forward (the bias-activation call's intermediate, x / w -> y), the data
  // gradient (dy / w -> dx) and the filter gradient (x / dy -> dw), the
  // frontends' mixed graphs (the FMA kernel; WMMA forward and filter gradient).
  if (geo.direction == ConvDirection::backward_data && w == y && x == CUDNN_DATA_FLOAT && x != w) {
    if (w == CUDNN_DATA_HALF) *t = ConvTypes::f16_to_f32;
    else if (w == CUDNN_DATA_BFLOAT16) *t = ConvTypes::bf16_to_f32;
    else return false;
    return true;
  }
  if (geo.direction == ConvDirection::backward_filter && x == y && w == CUDNN_DATA_FLOAT && x != w) {
    if (x == CUDNN_DATA_HALF) *t = ConvTypes::f16_to_f32;
    else if (x == CUDNN_DATA_BFLOAT16) *t = ConvTypes::bf16_to_f32;
    else return false;
    return true;
  }
  if (x != w) return false;
  if (x == y) {
    switch (x) {
      case CUDNN_DATA_FLOAT: *t = ConvTypes::f32; return true;
      case CUDNN_DATA_DOUBLE: *t = ConvTypes::f64; return true;
      case CUDNN_DATA_HALF: *t = ConvTypes::f16; return true;
      case CUDNN_DATA_BFLOAT16: *t = ConvTypes::bf16; return true;
      default: return false;
    }
  }
  // The float intermediate of the bias-activation call (forward only).
  if (geo.direction != ConvDirection::forward || y != CUDNN_DATA_FLOAT) return false;
  if (x == CUDNN_DATA_HALF) *t = ConvTypes::f16_to_f32;
  else if (x == CUDNN_DATA_BFLOAT16) *t = ConvTypes::bf16_to_f32;
  else return false;
  return true;
}

bool fits_int32(const graph::Tensor &t) {
  const int64_t big = int64_t{1} << 31;
  int64_t reach = 0;
  for (int d = 0; d < t.rank(); ++d) reach += (t.dims[d] - 1) * std::abs(t.strides[d]);
  return t.element_count() < big && reach < big;
}

size_t elem_bytes(ConvTypes t) {
  switch (t) {
    case ConvTypes::f32: return 4;
    case ConvTypes::f64: return 8;
    default: return 2;
  }
}
size_t acc_bytes(ConvTypes t) { return t == ConvTypes::f64 ? 8 : 4; }

// Everything about a problem that does not change between executions.
struct Setup {
  ConvArgs args;  // pointers, alpha, beta filled at execution
  ConvTypes types = ConvTypes::f32;
  bool wmma = false;            // tensor-core kernel (when the pointers are aligned)
  bool mma = false;             // ... its large-tile mma.sync form (convolution_mma.cu)
  int mma_bm = 0, mma_bn = 0;   // ... and that kernel's block tile
  size_t scratch = 0;           // reduction table, then split partials
  size_t table = 0;             // bytes of the reduction table (at the scratch's start)
  size_t workspace = 0;         // im2col matrix (cuda.conv.gemm)
  size_t counts_at = 0, counts = 0;  // the fused split's arrival counts (offset, bytes in the scratch)
  bool narrow = false;          // the few-channel data-gradient kernel
  // FLOAT few-channel data gradients with large filters as cuBLASLt GEMMs
  // + col2im (convolution_dgrad_gemm.hpp), before the narrow kernel when
  // dy and w are 16-byte aligned; its cols from the scratch's offset 0.
  std::shared_ptr<const ConvDgradGemm> dgrad_gemm;
  // FLOAT few-channel filter gradients with large filters on the
  // register-tiled FMA kernel (convolution_narrow_wgrad.hpp): its blocks
  // per 64 k (0: not this path), partials from the scratch's offset 0.
  int narrow_wgrad_blocks = 0;
  // The few-channel data gradient on the tensor cores
  // (convolution_stem_dgrad.cu), tried first when dy is 16-byte aligned
  // (FREEDNN_CONV_STEM_DGRAD=0: off).
  bool stem_dgrad = false;
  // Tensor cores on 8-channel copies (Cg < 8): args8 describes the padded
  // problem; its partials, x8 and w8 (forward) or dw8 (filter gradient)
  // follow the table in the scratch.
  bool pad8 = false;
  ConvArgs args8;
  size_t pad_partials = 0, pad_x8 = 0, pad_w8 = 0;
  // The few-channel forward kernel (convolution_stem.cu), tried before the
  // 8-channel copies when y is 16-byte aligned (FREEDNN_CONV_STEM=0: off).
  bool stem = false;
  // The few-channel filter-gradient kernel (convolution_stem.cu), tried
  // before the 8-channel copies when dy is 16-byte aligned
  // (FREEDNN_CONV_STEM_WGRAD=0: off): its partials at stem_at in the
  // scratch.
  bool stem_wgrad = false;
  // The stem kernel's persistent blocks (forward, filter or data gradient;
  // counted when the plan is made).
  int stem_blocks = 0;
  size_t stem_at = 0;
  // The mma data gradient (unit strides) as the mma forward of dy with the
  // transformed filter w' (setup_dgrad_as_fwd): fwd describes that forward
  // problem (its split partials at the scratch's `table` offset, as the
  // data gradient's would be), w' lies at wt_at in the scratch.
  bool as_fwd = false;
  ConvArgs fwd;
  int fwd_bm = 0, fwd_bn = 0;
  size_t wt_at = 0;
  // That forward on wgmma (convolution_fwd_wgmma.hpp) rather than mma.sync,
  // reading w in place rather than w' where it can (launch_conv_dgrad_wgmma).
  bool as_fwd_wgmma = false, as_fwd_in_place = false;
  // The HALF / BFLOAT16 filter gradient as im2col + cuBLASLt GEMMs
  // (convolution_wgrad_gemm.hpp) where conv_wgrad_gemm_wanted says it wins;
  // its scratch from offset 0 (the paths are exclusive).
  std::shared_ptr<const ConvWgradGemm> wgrad_gemm;
  // The 3x3 filter gradient on wgmma (convolution_wgrad_wgmma.hpp), where
  // wgrad_gemm was not taken, when dy and x are 16-byte aligned: its split
  // parts or kWgradStreamK, float partials from the scratch's offset 0.
  bool wgrad_wgmma = false;
  int wgmma_splits = 0;
  // The forward on wgmma (convolution_fwd_wgmma.hpp), tried before the mma
  // kernel when x and w are 16-byte aligned and y 4-byte aligned.
  bool fwd_wgmma = false;
  // That kernel's split of its last wave (the forward's, or the data
  // gradient's as a forward): its parts (1: none) and the flags and sums
  // at wgmma_split_at in the scratch (wgmma_split bytes; 0: none).
  int wgmma_split_parts = 1;
  size_t wgmma_split_at = 0, wgmma_split = 0;
};

ConvArgs base_args(const ConvGeometry &geo) {
  ConvArgs a;
  const int nsp = geo.nsp;
  a.N = static_cast<int>(geo.N);
  a.G = static_cast<int>(geo.G);
  a.Cg = static_cast<int>(geo.Cg);
  a.Kg = static_cast<int>(geo.Kg);
  a.flip = geo.flip ? 1 : 0;
  a.mma_pipe = conv_mma_pipelined() ? 1 : 0;
  for (int i = 0; i < 2; ++i) {
    a.xs[i] = static_cast<int>(geo.x.strides[i]);
    a.ws[i] = static_cast<int>(geo.w.strides[i]);
    a.ys[i] = static_cast<int>(geo.y.strides[i]);
  }
  for (int d = 0; d < nsp; ++d) {
    const int k = 3 - nsp + d;
    a.in[k] = static_cast<int>(geo.in[d]);
    a.filt[k] = static_cast<int>(geo.filt[d]);
    a.out[k] = static_cast<int>(geo.out[d]);
    a.pad[k] = static_cast<int>(geo.pad[d]);
    a.str[k] = static_cast<int>(geo.stride[d]);
    a.dil[k] = static_cast<int>(geo.dil[d]);
    a.xs[2 + k] = static_cast<int>(geo.x.strides[2 + d]);
    a.ws[2 + k] = static_cast<int>(geo.w.strides[2 + d]);
    a.ys[2 + k] = static_cast<int>(geo.y.strides[2 + d]);
  }
  a.T = a.filt[0] * a.filt[1] * a.filt[2];
  a.P = a.out[0] * a.out[1] * a.out[2];
  a.I = a.in[0] * a.in[1] * a.in[2];
  a.d_cg = FastDivmod(a.Cg);
  a.d_fw = FastDivmod(a.filt[2]);
  a.d_fh = FastDivmod(a.filt[1]);
  a.d_ow = FastDivmod(a.out[2]);
  a.d_oh = FastDivmod(a.out[1]);
  a.d_P = FastDivmod(a.P);
  a.d_iw = FastDivmod(a.in[2]);
  a.d_ih = FastDivmod(a.in[1]);
  a.d_I = FastDivmod(a.I);
  for (int k = 0; k < 3; ++k) a.d_s[k] = FastDivmod(a.str[k]);
  switch (geo.direction) {
    case ConvDirection::forward:
      a.dir = kConvFwd;
      a.M = a.N * a.P;
      a.Ncol = a.Kg;
      a.R = a.T * a.Cg;
      a.d_rc = FastDivmod(a.Cg);
      a.a_mfast = a.xs[1] != 1;
      a.b_cfast = a.ws[1] != 1;
      break;
    case ConvDirection::backward_data:
      a.dir = kConvBwdData;
      a.M = a.N * a.I;
      a.Ncol = a.Cg;
      a.R = a.T * a.Kg;
      a.d_rc = FastDivmod(a.Kg);
      a.a_mfast = a.ys[1] != 1;
      a.b_cfast = a.ws[1] == 1;
      break;
    case ConvDirection::backward_filter:
      a.dir = kConvBwdFilter;
      a.M = a.Kg;
      a.Ncol = a.T * a.Cg;
      a.R = a.N * a.P;
      a.d_rc = FastDivmod(a.Cg);
      a.a_mfast = a.ys[1] == 1;
      a.b_cfast = a.xs[1] == 1;
      break;
  }
  return a;
}

bool rest_multiple_of_8(const int *s) { return s[0] % 8 == 0 && s[2] % 8 == 0 && s[3] % 8 == 0 && s[4] % 8 == 0; }

// Whether the tensor-core kernel can gather both operands as runs of 8.
bool wmma_layout(const ConvArgs &a) {
  switch (a.dir) {
    case kConvFwd:
      return a.xs[1] == 1 && a.Cg % 8 == 0 && rest_multiple_of_8(a.xs) && a.ws[1] == 1 && rest_multiple_of_8(a.ws);
    case kConvBwdData:
      return a.ys[1] == 1 && a.Kg % 8 == 0 && rest_multiple_of_8(a.ys) && a.ws[1] == 1 && a.Cg % 8 == 0 &&
             rest_multiple_of_8(a.ws);
    case kConvBwdFilter:
      return a.ys[1] == 1 && a.Kg % 8 == 0 && rest_multiple_of_8(a.ys) && a.xs[1] == 1 && a.Cg % 8 == 0 &&
             rest_multiple_of_8(a.xs);
    default: return false;
  }
}

// Whether 8 consecutive output columns of the tensor-core kernel are 8
// contiguous elements at a multiple of 8 (16-bit outputs; the pointer's
// alignment is checked at execution).
bool wmma_vec_out(const ConvArgs &a, ConvTypes t) {
  if (t != ConvTypes::f16 && t != ConvTypes::bf16) return false;
  switch (a.dir) {
    case kConvFwd: return a.ys[1] == 1 && a.Kg % 8 == 0 && rest_multiple_of_8(a.ys);
    case kConvBwdData: return a.xs[1] == 1 && a.Cg % 8 == 0 && rest_multiple_of_8(a.xs);
    case kConvBwdFilter: return a.ws[1] == 1 && a.Cg % 8 == 0 && rest_multiple_of_8(a.ws);
    default: return false;
  }
}

// Splits the reduction when the tiles alone leave the GPU idle.
void choose_split(ConvArgs &a, int bm, int bn, int bk, size_t acc) {
  const int64_t tiles = int64_t{(a.M + bm - 1) / bm} * ((a.Ncol + bn - 1) / bn) * a.G;
  const int64_t target = 2 * int64_t{sm_count()};
  const int64_t nk = (a.R + bk - 1) / bk;
  int64_t split = 1;
  // Up to 512 parts: a small output (a 1x1 filter gradient is one 64 x 64
  // tile) over a long reduction would otherwise leave most of the GPU idle.
  if (tiles < target && nk >= 8) split = std::min<int64_t>({(target + tiles - 1) / tiles, nk / 4, 512});
  // Chunks are whole multiples of 32 and of the kernel's depth.
  const int64_t unit = std::max(32, bk);
  int64_t chunk = (a.R + split - 1) / split;
  chunk = (chunk + unit - 1) / unit * unit;
  split = (a.R + chunk - 1) / chunk;
  // Bound the partials' memory (the handle keeps its scratch).
  while (split > 1 && static_cast<size_t>(split) * a.G * a.M * a.Ncol * acc > (size_t{256} << 20)) {
    split = (split + 1) / 2;
    chunk = (a.R + split - 1) / split;
    chunk = (chunk + unit - 1) / unit * unit;
    split = (a.R + chunk - 1) / chunk;
  }
  a.split = static_cast<int>(std::max<int64_t>(split, 1));
  a.chunk = a.split > 1 ? static_cast<int>(chunk) : a.R;
}

// The filter gradient on the mma kernel (convolution_mma.cu): the split of
// the reduction (N x output pixels, long next to the K x taps*C output) that
// minimises an estimate of the time: whole waves of blocks over the
// multiprocessors x the 64-deep steps of one block (plus two for its
// prologue and epilogue), plus the partials' traffic (written once, read
// once, plus the finalize launch) or, with the parts summed in the kernel
// (`fused`, allowed when may_fuse), the tail of the last block of a tile
// reading its tile's parts through one multiprocessor (the partials' writes
// overlap other blocks' mma's). A split of ceil(2 SMs / tiles)
// (choose_split's) often launched a few blocks more than two waves: 128x28
// 3x3 at batch 256, 5 tiles x 53 parts = 265 blocks on 132 one-block
// multiprocessors, a third wave of one block. Rates: ~3 TFLOP/s of
// mma.sync per multiprocessor, partials written and read at ~10 TB/s (they
// stay in L2: H100, 512x7 3x3 at batch 256, each part cost ~1.6 us of 9.4
// MB), ~150 GB/s of L2 reads per multiprocessor. H100, HALF, batch 256
// (TFLOP/s; splits swept with FREEDNN_CONV_MMA_SPLITS): 64x56 3x3 228 at
// the model's 44 parts (11: 60, 22: 117, 33: 175, 66: 171), 128x28 267 at
// its 22 (11: 143, 33: 198, 44: 255, 66: 247), 256x14 261 at its 7 (5:
// 193, 9: 175, 12: 222), 512x7 (128 x 256 tiles) 209-224 at 3-9 parts.
// FREEDNN_CONV_MMA_SPLIT=old keeps choose_split (for comparisons).
void choose_split_mma_wgrad(ConvArgs &a, int bm, int bn, bool may_fuse, bool *fused) {
  const int64_t tiles = int64_t{(a.M + bm - 1) / bm} * ((a.Ncol + bn - 1) / bn) * a.G;
  const int per_sm = conv_mma_blocks_per_sm(bm, bn);
  const int64_t slots = int64_t{sm_count()} * per_sm;
  const int64_t nk = (a.R + kConvMmaDepth - 1) / kConvMmaDepth;
  const double step_us = double(bm) * bn * kConvMmaDepth * 2 / (3.0e6 / per_sm);
  const double out_bytes = double(a.G) * a.M * a.Ncol * 4;
  double best_t = -1;
  int64_t best_split = 1, best_steps = nk;
  *fused = false;
  for (int64_t s = 1; s <= std::min<int64_t>(nk, 512); ++s) {
    const int64_t steps = (nk + s - 1) / s, parts = (nk + steps - 1) / steps;
    if (parts != s) continue;  // the same chunks as a smaller split
    if (parts > 1 && parts * out_bytes > double(size_t{256} << 20)) break;
    const int64_t waves = (tiles * parts + slots - 1) / slots;
    double t = double(waves) * (steps + 2) * step_us;
    bool f = false;
    if (parts > 1) {
      const double separate = 2 * parts * out_bytes / 1.0e7 + 2.0;
      const double tail = double(parts) * bm * bn * 4 / 1.5e5;
      f = may_fuse && tail < separate;
      t += f ? tail : separate;
    }
    if (best_t < 0 || t < best_t) best_t = t, best_split = parts, best_steps = steps, *fused = f;
  }
  // FREEDNN_CONV_MMA_SPLITS=<n> forces the number of parts (for measurements).
  if (const char *v = std::getenv("FREEDNN_CONV_MMA_SPLITS"); v != nullptr && std::atoi(v) > 0) {
    best_steps = (nk + std::atoi(v) - 1) / std::atoi(v);
    best_split = (nk + best_steps - 1) / best_steps;
    *fused = *fused && best_split > 1;
  }
  a.split = static_cast<int>(best_split);
  a.chunk = a.split > 1 ? static_cast<int>(best_steps * kConvMmaDepth) : a.R;
}

bool mma_split_model() {
  const char *v = std::getenv("FREEDNN_CONV_MMA_SPLIT");
  return v == nullptr || std::strcmp(v, "old") != 0;
}

bool mma_enabled() {
  return env_on("FREEDNN_CONV_MMA");
}

// Packed channels-innermost strides of dims [N, C, spatial...].
void pack_channels_last(graph::Tensor &t) {
  const int rank = t.rank();
  int64_t s = t.dims[1];
  t.strides[1] = 1;
  for (int d = rank - 1; d >= 2; --d) {
    t.strides[d] = s;
    s *= t.dims[d];
  }
  t.strides[0] = s;
}

// Forward or filter gradient, HALF / BFLOAT16, one group of fewer than 8
// channels: the tensor-core kernel on x and w padded to 8 channels. Fills
// s.args8 and the scratch layout; false when the padded problem does not fit
// the kernel's layout (the filter gradient's dy must be channels-innermost).
bool setup_pad8(const ConvGeometry &geo, Setup &s) {
  if (geo.G != 1 || geo.Cg >= 8 || geo.direction == ConvDirection::backward_data) return false;
  ConvGeometry g8 = geo;
  g8.C = g8.Cg = 8;
  g8.x.dims[1] = 8;
  g8.w.dims[1] = 8;
  pack_channels_last(g8.x);
  pack_channels_last(g8.w);
  ConvArgs a = base_args(g8);
  if (!wmma_layout(a)) return false;
  int bm, bn, bk;
  conv_wmma_tile(a.M, a.Ncol, a.R, &bm, &bn, &bk);
  choose_split(a, bm, bn, bk, 4);
  // The filter gradient goes to a float dw8 (one rounding, in the blend).
  const bool fwd = geo.direction == ConvDirection::forward;
  a.vec_out = fwd && wmma_vec_out(a, s.types) ? 1 : 0;
  s.args8 = a;
  s.pad_partials = a.split > 1 ? round256(static_cast<size_t>(a.split) * a.M * a.Ncol * 4) : 0;
  s.pad_x8 = round256(static_cast<size_t>(a.N) * a.I * 8 * 2);
  s.pad_w8 = round256(static_cast<size_t>(a.Kg) * a.T * 8 * (fwd ? 2 : 4));
  return true;
}

// FREEDNN_CONV_DGRAD_AS_FWD=0 keeps the data gradient's own GEMM view on
// the mma kernel (for comparisons); read when a plan is made.
bool dgrad_as_fwd_enabled() {
  return env_on("FREEDNN_CONV_DGRAD_AS_FWD");
}

// The data gradient of s (on the mma kernel) as a forward convolution:
// dx = forward(dy, w') with stride 1, the same dilation, pre-padding
// dil*(f-1) - pad, dx's extents as its output's (the forward output rule
// gives them back: in + pad + post - dil*(f-1) with post = dil*(f-1) - pad
// reaching past dy by the same amount), CROSS_CORRELATION (w' holds the
// taps in the order the forward applies them). False (the data gradient's
// own GEMM view stays) for strides other than 1, padding past dil*(f-1),
// and one-tap filters. The forward picks its own tile and split, as a
// forward of that size would. H100, batch 256, HALF NHWC, ResNet-50 layers,
// one device run (TFLOP/s, own view -> as forward): 3x3 64x56 153 -> 186,
// 128x28 228 -> 261, 256x14 239 -> 281, 512x7 227 -> 264 (BFLOAT16 the
// same within 2 %); 1x1 64 -> 64 55 -> 52 (the transform's launch is
// not paid back on a 64-deep reduction), 1x1 64 -> 256 120 -> 123.
bool setup_dgrad_as_fwd(const ConvGeometry &geo, Setup &s) {
  if (geo.filter_taps() == 1) return false;
  ConvGeometry f = geo;
  f.direction = ConvDirection::forward;
  for (int d = 0; d < geo.nsp; ++d) {
    if (geo.stride[d] != 1) return false;
    f.pad[d] = geo.dil[d] * (geo.filt[d] - 1) - geo.pad[d];
    if (f.pad[d] < 0) return false;
  }
  f.in = geo.out;
  f.out = geo.in;
  f.flip = false;
  f.C = geo.K, f.K = geo.C, f.Cg = geo.Kg, f.Kg = geo.Cg;
  f.x = geo.y;  // dy
  f.y = geo.x;  // dx
  f.w.dims[0] = geo.C;
  f.w.dims[1] = geo.Kg;
  pack_channels_last(f.w);  // w': [G*Cg][taps][Kg]
  ConvArgs a = base_args(f);
  int bm = 0, bn = 0;
  if (!wmma_layout(a) || !conv_mma_tile(a, &bm, &bn)) return false;
  a.vec_out = wmma_vec_out(a, s.types) ? 1 : 0;
  choose_split(a, bm, bn, kConvMmaDepth, acc_bytes(s.types));
  s.as_fwd = true;
  s.fwd = a;
  s.fwd_bm = bm, s.fwd_bn = bn;
  s.as_fwd_wgmma = conv_fwd_wgmma_applies(a, s.types);
  // FREEDNN_CONV_DGRAD_WGMMA_IN_PLACE=0: the wgmma kernel too gets the
  // transformed filter (measurements, tests). The scratch keeps room for
  // w' either way: the in-place form declines at launch for unaligned w.
  s.as_fwd_in_place = env_on("FREEDNN_CONV_DGRAD_WGMMA_IN_PLACE");
  if (a.split > 1) s.scratch = std::max(s.scratch, s.table + static_cast<size_t>(a.split) * a.G * a.M * a.Ncol * 4);
  s.wt_at = round256(s.scratch);
  s.scratch = s.wt_at + round256(static_cast<size_t>(a.G) * a.Kg * a.Cg * a.T * 2);
  // The wgmma forward's split after w' (the transformed form runs that
  // kernel on w' in the scratch).
  if (s.as_fwd_wgmma) {
    s.wgmma_split = conv_fwd_wgmma_scratch(a, &s.wgmma_split_parts);
    s.wgmma_split_at = s.scratch;
    s.scratch += s.wgmma_split;
  }
  return true;
}

Setup make_setup(Family f, const graph::Graph &g) {
  const ConvGeometry geo = convolution_geometry(g);
  const auto &op = std::get<graph::ConvolutionOp>(g.ops().front());
  Setup s;
  conv_types(geo, &s.types);
  s.args = base_args(geo);
  ConvArgs &a = s.args;
  a.chunk = a.R;
  if (f == Family::gemm) {
    s.workspace = static_cast<size_t>(a.G) * a.M * a.R * elem_bytes(s.types);
    a.dir = kConvFwdLowered;
    a.a_mfast = 0;
  }
  if (f == Family::direct) return s;
  // Mixed types backward (16-bit inputs, FLOAT dx / dw): the FMA kernel, or
  // WMMA for the filter gradient; not the narrow and 8-channel paths.
  const bool mixed_bwd = (s.types == ConvTypes::f16_to_f32 || s.types == ConvTypes::bf16_to_f32) &&
                         geo.direction != ConvDirection::forward;
  s.stem_dgrad = f == Family::implicit_gemm && !mixed_bwd && op.math_type != CUDNN_FMA_MATH &&
                 conv_stem_dgrad_applies(a, s.types);
  if (s.stem_dgrad) s.stem_blocks = conv_stem_dgrad_blocks(a, s.types);
  if (f == Family::implicit_gemm && !mixed_bwd && conv_bwd_data_narrow_applies(a, s.types)) {
    s.narrow = true;
    if (conv_dgrad_gemm_applies(a, s.types)) s.dgrad_gemm = ConvDgradGemm::make(a);
    if (s.dgrad_gemm) s.scratch = s.dgrad_gemm->scratch_bytes();
    return s;
  }
  if (f == Family::implicit_gemm && conv_narrow_wgrad_applies(a, s.types)) {
    s.scratch = conv_narrow_wgrad_scratch(a, &s.narrow_wgrad_blocks);
    return s;
  }
  const bool half_like = s.types != ConvTypes::f32 && s.types != ConvTypes::f64 &&
                         !(mixed_bwd && geo.direction == ConvDirection::backward_data);
  s.wmma = f == Family::implicit_gemm && half_like && op.math_type != CUDNN_FMA_MATH && wmma_layout(a);
  int bm, bn, bk;
  if (s.wmma) a.vec_out = wmma_vec_out(a, s.types) ? 1 : 0;
  // 16-bit outputs take the large-tile mma.sync kernel where the device
  // runs it and its gather applies (the data gradient: unit strides);
  // FREEDNN_CONV_MMA=0 keeps the WMMA kernel, for comparisons.
  s.mma = s.wmma && (s.types == ConvTypes::f16 || s.types == ConvTypes::bf16) && mma_enabled() &&
          (a.dir == kConvBwdFilter || conv_table_applies(a)) && conv_mma_tile(a, &s.mma_bm, &s.mma_bn);
  if (s.mma) {
    bm = s.mma_bm, bn = s.mma_bn, bk = kConvMmaDepth;
  } else if (s.wmma) conv_wmma_tile(a.M, a.Ncol, a.R, &bm, &bn, &bk);
  else conv_fma_tile(s.types, a.M, a.Ncol, &bm, &bn, &bk);
  // The mma filter gradient may sum its parts in the kernel (the last block
  // of each tile, counting arrivals after the partials).
  const bool may_fuse = s.mma && a.dir == kConvBwdFilter && a.Ncol % 4 == 0 && conv_mma_fused_split();
  bool fuse = may_fuse;
  if (s.mma && a.dir == kConvBwdFilter && mma_split_model()) choose_split_mma_wgrad(a, bm, bn, may_fuse, &fuse);
  else choose_split(a, bm, bn, bk, acc_bytes(s.types));
  // The FMA kernel of the implicit GEMM gathers through a reduction table,
  // except for FWD IMPLICIT_GEMM, which keeps the on-the-fly index math
  // (what distinguishes it from IMPLICIT_PRECOMP_GEMM).
  const bool plain_implicit =
      geo.direction == ConvDirection::forward && op.algo == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
  if (f == Family::implicit_gemm && !plain_implicit && conv_table_applies(a))
    s.table = (static_cast<size_t>(a.R) * 16 + 255) / 256 * 256;
  s.scratch = s.table;
  if (a.split > 1) s.scratch += static_cast<size_t>(a.split) * a.G * a.M * a.Ncol * acc_bytes(s.types);
  if (fuse && a.split > 1) {
    a.fused_split = 1;
    s.counts_at = round256(s.scratch);
    s.counts = round256(static_cast<size_t>((a.M + s.mma_bm - 1) / s.mma_bm) * ((a.Ncol + s.mma_bn - 1) / s.mma_bn) *
                        a.G * sizeof(unsigned));
    s.scratch = s.counts_at + s.counts;
  }
  if (s.mma && geo.direction == ConvDirection::backward_data && dgrad_as_fwd_enabled()) setup_dgrad_as_fwd(geo, s);
  if (f == Family::implicit_gemm && half_like && !mixed_bwd && op.math_type != CUDNN_FMA_MATH && !s.wmma &&
      setup_pad8(geo, s)) {
    s.pad8 = true;
    s.table = round256(s.table);
    s.scratch = std::max(s.scratch, s.table + s.pad_partials + s.pad_x8 + s.pad_w8);
  }
  s.stem = f == Family::implicit_gemm && op.math_type != CUDNN_FMA_MATH && !s.wmma && conv_stem_applies(a, s.types);
  if (s.stem) s.stem_blocks = conv_stem_fwd_blocks(a, s.types);
  s.stem_wgrad = f == Family::implicit_gemm && op.math_type != CUDNN_FMA_MATH && !s.wmma &&
                 conv_stem_wgrad_applies(a, s.types);
  if (s.stem_wgrad) {
    s.stem_at = round256(s.table);
    s.scratch = std::max(s.scratch, s.stem_at + conv_stem_wgrad_scratch(a, s.types, &s.stem_blocks));
  }
  const bool wgrad_wgmma = s.mma && a.dir == kConvBwdFilter && conv_wgrad_wgmma_applies(a, s.types);
  if (f == Family::implicit_gemm && op.math_type != CUDNN_FMA_MATH &&
      conv_wgrad_gemm_wanted(a, s.types, wgrad_wgmma))
    s.wgrad_gemm = ConvWgradGemm::make(a, s.types);
  if (wgrad_wgmma && !s.wgrad_gemm) {
    s.wgrad_wgmma = true;
    s.wgmma_splits = conv_wgrad_wgmma_splits(a);
    s.scratch = std::max(s.scratch, conv_wgrad_wgmma_scratch(a, s.wgmma_splits));
  }
  if (s.wgrad_gemm) s.scratch = std::max(s.scratch, s.wgrad_gemm->scratch_bytes());
  s.fwd_wgmma = s.mma && a.dir == kConvFwd && conv_fwd_wgmma_applies(a, s.types);
  // Its split's flags and sums from the scratch's start: execute runs no
  // other kernel on it then.
  if (s.fwd_wgmma) {
    s.wgmma_split = conv_fwd_wgmma_scratch(a, &s.wgmma_split_parts);
    s.scratch = std::max(s.scratch, s.wgmma_split);
  }
  return s;
}

class Plan final : public ExecutionPlan {
 public:
  Plan(const Engine &e, Family f, const graph::Graph &g) : ExecutionPlan(e), family_(f), s_(make_setup(f, g)) {}
  size_t workspace_size() const override { return s_.workspace; }
  size_t scratch_size() const override { return s_.scratch; }
  // The kernel the plan runs, in execute's order, when the pointers are
  // aligned as that kernel wants (execute falls back otherwise): for
  // FREEDNN_VERBOSE and the bench's engine column.
  std::string detail() const override {
    if (s_.wgrad_gemm) return s_.wgrad_gemm->detail();
    if (s_.wgrad_wgmma)
      return s_.wgmma_splits == kWgradStreamK ? std::string("wgmma filter gradient, stream-K")
                                              : cat("wgmma filter gradient, ", s_.wgmma_splits, " split parts");
    if (s_.fwd_wgmma) return cat("wgmma forward", split_detail());
    if (s_.stem_dgrad) return "few-channel data gradient (stem kernel)";
    if (s_.dgrad_gemm) return s_.dgrad_gemm->detail();
    if (s_.narrow_wgrad_blocks > 0) return "few-channel filter gradient (FMA register tiles)";
    if (s_.narrow) return "few-channel data gradient";
    if (s_.stem) return "few-channel forward (stem kernel)";
    if (s_.stem_wgrad) return "few-channel filter gradient (stem kernel)";
    if (s_.pad8) return "tensor cores on 8-channel copies";
    if (s_.as_fwd && s_.as_fwd_wgmma)
      return cat(s_.as_fwd_in_place ? "data gradient as a wgmma forward, filter in place"
                                    : "data gradient as a wgmma forward, transformed filter",
                 split_detail());
    if (s_.as_fwd) return "data gradient as an mma.sync forward";
    if (family_ == Family::direct) return "direct kernel";
    if (family_ == Family::gemm) return "im2col + FMA GEMM";
    return s_.mma ? "mma.sync implicit GEMM" : s_.wmma ? "WMMA implicit GEMM" : "FMA implicit GEMM";
  }

  void execute(const ExecContext &ctx, const graph::Graph &g, const VariantPack &pack) const override {
    const auto &op = std::get<graph::ConvolutionOp>(g.ops().front());
    ConvArgs a = s_.args;
    const void *x = pack.get(op.x), *w = pack.get(op.w), *y = pack.get(op.y);
    if (x == nullptr || w == nullptr || y == nullptr) fail(CUDNN_STATUS_BAD_PARAM, "missing data pointer");
    switch (op.direction) {
      case ConvDirection::forward: a.A = x, a.B = w, a.dst = const_cast<void *>(y); break;
      case ConvDirection::backward_data: a.A = y, a.B = w, a.dst = const_cast<void *>(x); break;
      case ConvDirection::backward_filter: a.A = y, a.B = x, a.dst = const_cast<void *>(w); break;
    }
    a.alpha = op.blend.alpha;
    a.beta = op.blend.beta;
    if (s_.scratch > 0 && (pack.scratch == nullptr || pack.scratch_size < s_.scratch))
      fail(CUDNN_STATUS_INTERNAL_ERROR, "the plan's scratch memory is missing");
    if (a.split > 1) a.partial = static_cast<char *>(pack.scratch) + s_.table;
    if (s_.wgrad_gemm && s_.wgrad_gemm->takes(a)) {
      s_.wgrad_gemm->run(a, pack.scratch, ctx.stream);
      return;
    }
    if (s_.wgrad_wgmma && aligned_to(a.A, 16) && aligned_to(a.B, 16)) {
      launch_conv_wgrad_wgmma(a, s_.types, s_.wgmma_splits, pack.scratch, ctx.stream);
      return;
    }
    if (s_.fwd_wgmma && aligned_to(a.A, 16) && aligned_to(a.B, 16) && aligned_to(a.dst, 4)) {
      launch_conv_fwd_wgmma(a, s_.types, wgmma_split_scratch(pack), s_.wgmma_split, ctx.stream);
      return;
    }
    if (s_.stem_dgrad && aligned_to(a.A, 16) && aligned_to(a.B, 2) && aligned_to(a.dst, 2)) {
      launch_conv_stem_dgrad(a, s_.types, s_.stem_blocks, ctx.stream);
      return;
    }
    if (s_.dgrad_gemm && s_.dgrad_gemm->takes(a)) {
      s_.dgrad_gemm->run(a, pack.scratch, ctx.stream);
      return;
    }
    if (s_.narrow_wgrad_blocks > 0) {
      launch_conv_narrow_wgrad(a, s_.narrow_wgrad_blocks, pack.scratch, ctx.stream);
      return;
    }
    if (s_.narrow) {
      launch_conv_bwd_data_narrow(a, s_.types, ctx.stream);
      return;
    }
    if (s_.stem && aligned_to(a.dst, 16) && aligned_to(a.A, 2) && aligned_to(a.B, 2)) {
      launch_conv_stem_fwd(a, s_.types, s_.stem_blocks, ctx.stream);
      return;
    }
    if (s_.stem_wgrad && aligned_to(a.A, 16) && aligned_to(a.B, 2) && aligned_to(a.dst, 2)) {
      launch_conv_stem_wgrad(a, s_.types, s_.stem_blocks, static_cast<char *>(pack.scratch) + s_.stem_at,
                             ctx.stream);
      return;
    }
    if (s_.pad8 && aligned_to(a.A, 16)) {
      run_pad8(a, pack, ctx.stream);
      return;
    }
    if (s_.as_fwd && aligned_to(a.A, 16)) {
      run_dgrad_as_fwd(a, pack, ctx.stream);
      return;
    }
    switch (family_) {
      case Family::direct: launch_conv_direct(a, s_.types, ctx.stream); return;
      case Family::gemm: {
        if (pack.workspace == nullptr || pack.workspace_size < s_.workspace)
          fail(CUDNN_STATUS_BAD_PARAM, "the GEMM algorithm needs ", s_.workspace, " bytes of workspace");
        ConvArgs fwd = a;
        fwd.dir = kConvFwd;
        launch_conv_im2col(fwd, s_.types, pack.workspace, ctx.stream);
        a.A = pack.workspace;
        launch_conv_fma(a, s_.types, ctx.stream);
        break;
      }
      case Family::implicit_gemm:
        if (s_.wmma && aligned_to(a.A, 16) && aligned_to(a.B, 16)) {
          if (!aligned_to(a.dst, 16)) a.vec_out = 0;
          if (s_.mma) {
            if (a.fused_split) {
              a.split_counts = reinterpret_cast<unsigned *>(static_cast<char *>(pack.scratch) + s_.counts_at);
              conv_mma_clear_counts(a.split_counts, s_.counts, ctx.stream);
            }
            launch_conv_mma(a, s_.types, s_.mma_bm, s_.mma_bn, ctx.stream);
            if (a.fused_split) return;
          } else {
            launch_conv_wmma(a, s_.types, ctx.stream);
          }
        } else {
          if (s_.table > 0) a.table = pack.scratch;
          launch_conv_fma(a, s_.types, ctx.stream);
        }
        break;
    }
    if (a.split > 1) launch_conv_finalize(a, s_.types, ctx.stream);
  }

 private:
  // The wgmma forward's split of its last wave, for detail().
  std::string split_detail() const {
    return s_.wgmma_split_parts > 1 ? cat(", last wave split in ", s_.wgmma_split_parts, " parts") : std::string();
  }
  // Where the wgmma forward's split keeps its flags and sums (none planned: null).
  void *wgmma_split_scratch(const VariantPack &pack) const {
    return s_.wgmma_split > 0 ? static_cast<char *>(pack.scratch) + s_.wgmma_split_at : nullptr;
  }

  // The padded tensor-core path: x (and w) to 8 channels, the kernel, then
  // (filter gradient) the padded dw blended into dw.
  void run_pad8(const ConvArgs &a, const VariantPack &pack, void *stream) const {
    char *base = static_cast<char *>(pack.scratch) + s_.table;
    void *x8 = base + s_.pad_partials, *w8 = base + s_.pad_partials + s_.pad_x8;
    const bool fwd = a.dir == kConvFwd;
    launch_conv_pad_channels(a, true, x8, fwd ? w8 : nullptr, stream);
    ConvArgs p = s_.args8;
    p.partial = p.split > 1 ? base : nullptr;
    if (fwd) {
      p.A = x8, p.B = w8, p.dst = a.dst, p.alpha = a.alpha, p.beta = a.beta;
      if (!aligned_to(p.dst, 16)) p.vec_out = 0;
    } else {
      p.A = a.A, p.B = x8, p.dst = w8, p.alpha = 1, p.beta = 0;
    }
    if (fwd) {
      launch_conv_wmma(p, s_.types, stream);
      if (p.split > 1) launch_conv_finalize(p, s_.types, stream);
      return;
    }
    const bool f16 = s_.types == ConvTypes::f16;
    launch_conv_wmma(p, f16 ? ConvTypes::f16_to_f32 : ConvTypes::bf16_to_f32, stream);
    if (p.split > 1) launch_conv_finalize(p, ConvTypes::f32, stream);  // float partials -> float dw8
    launch_conv_unpad_dw(a, s_.types, w8, stream);
  }

  // The data gradient as a forward convolution: the wgmma kernel reading w
  // in place where it can, else w' into the scratch, then the forward of
  // dy (a.A) and w' into dx (a.dst), blended as asked.
  void run_dgrad_as_fwd(const ConvArgs &a, const VariantPack &pack, void *stream) const {
    ConvArgs f = s_.fwd;
    f.A = a.A, f.dst = a.dst, f.alpha = a.alpha, f.beta = a.beta;
    // dy: 16-byte aligned (execute); w' below: the scratch's.
    const bool wgmma = s_.as_fwd_wgmma && aligned_to(f.dst, 4);
    void *split = wgmma_split_scratch(pack);
    if (wgmma && s_.as_fwd_in_place && launch_conv_dgrad_wgmma(f, a, s_.types, split, s_.wgmma_split, stream))
      return;
    void *wt = static_cast<char *>(pack.scratch) + s_.wt_at;
    launch_conv_dgrad_filter_transform(a, wt, stream);
    f.B = wt;
    if (!aligned_to(f.dst, 16)) f.vec_out = 0;
    if (wgmma) {
      launch_conv_fwd_wgmma(f, s_.types, split, s_.wgmma_split, stream);
      return;
    }
    if (f.split > 1) f.partial = static_cast<char *>(pack.scratch) + s_.table;
    launch_conv_mma(f, s_.types, s_.fwd_bm, s_.fwd_bn, stream);
    if (f.split > 1) launch_conv_finalize(f, s_.types, stream);
  }

  Family family_;
  Setup s_;
};

template <Family F>
class CudaConvolutionEngine final : public Engine {
 public:
  const char *name() const override {
    switch (F) {
      case Family::implicit_gemm: return "cuda.conv.implicit_gemm";
      case Family::gemm: return "cuda.conv.gemm";
      case Family::direct: return "cuda.conv.direct";
    }
    return "cuda.conv";
  }
  DeviceKind device() const override { return DeviceKind::cuda; }
  int priority() const override { return F == Family::implicit_gemm ? 10 : F == Family::gemm ? 30 : 50; }
  Support supports(const graph::Graph &g) const override {
    if (Support s = check_single_convolution(g); !s) return s;
    const auto &op = std::get<graph::ConvolutionOp>(g.ops().front());
    const ConvGeometry geo = convolution_geometry(g);
    if (!implements(F, geo.direction, op.algo))
      return Support::no(cat(name(), " does not implement algorithm ", convolution_algo_name(geo.direction, op.algo)));
    if (geo.nsp > 3) return Support::no(cat(geo.nsp, " spatial dimensions: the CUDA kernels take 1 to 3"));
    // The backend's graphs name no algorithm (-1): the im2col lowering is
    // forward only (make_setup runs it as kConvFwdLowered).
    if (F == Family::gemm && geo.direction != ConvDirection::forward)
      return Support::no(cat(name(), " lowers the forward convolution only"));
    ConvTypes t;
    if (!conv_types(geo, &t))
      return Support::no(cat("no CUDA convolution kernel for ", type_info(geo.x.dtype).enum_name, " x / ",
                             type_info(geo.w.dtype).enum_name, " w / ", type_info(geo.y.dtype).enum_name, " y"));
    for (const graph::Tensor *tt : {&geo.x, &geo.w, &geo.y}) {
      if (!fits_int32(*tt)) return Support::no("tensors of 2^31 elements or more");
      for (int64_t s : tt->strides)
        if (s < 0) return Support::no("negative strides");
    }
    if (F == Family::gemm && static_cast<double>(geo.G) * geo.N * geo.out_pixels() * geo.filter_taps() * geo.Cg >=
                                 2147483648.0)
      return Support::no("the im2col matrix would reach 2^31 elements");
    return Support::yes();
  }
  std::unique_ptr<ExecutionPlan> make_plan(const graph::Graph &g, const std::vector<KnobChoice> &) const override {
    return std::make_unique<Plan>(*this, F, g);
  }
};

using CudaConvImplicitGemmEngine = CudaConvolutionEngine<Family::implicit_gemm>;
using CudaConvGemmEngine = CudaConvolutionEngine<Family::gemm>;
using CudaConvDirectEngine = CudaConvolutionEngine<Family::direct>;

}  // namespace
}  // namespace fdnn::cuda

using fdnn::cuda::CudaConvDirectEngine;
using fdnn::cuda::CudaConvGemmEngine;
using fdnn::cuda::CudaConvImplicitGemmEngine;
FDNN_REGISTER_ENGINE(CudaConvImplicitGemmEngine)
FDNN_REGISTER_ENGINE(CudaConvGemmEngine)
FDNN_REGISTER_ENGINE(CudaConvDirectEngine)
