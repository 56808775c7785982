// What the fast CPU convolution engines share: every algorithm works on
// packed NCHW-ordered arrays of its compute type T (float, or double for
// DOUBLE data), with the filter as stored for cross-correlation. Operands
// that are already so are used in place; others (NHWC, strided, HALF,
// BFLOAT16, a CONVOLUTION-mode filter, which is read flipped) are staged
// through the handle's scratch memory (not the caller's workspace: cuDNN's
// kernels read those layouts in place, so its workspace queries do not count
// them), and a staged output is blended back with alpha/beta.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/convolution_support.hpp"
#include "core/engine.hpp"

namespace fdnn::cpu {

// Spatial extents padded to 3 dimensions (1-d and 2-d problems get leading
// extents of 1, zero padding, stride 1), so that the kernels are written once.
struct Conv3 {
  int64_t N, C, K, G, Cg, Kg;
  int64_t id, ih, iw, fd, fh, fw, od, oh, ow;
  int64_t pd, ph, pw, sd, sh, sw, dd, dh, dw;
  int64_t in_pixels() const { return id * ih * iw; }
  int64_t out_pixels() const { return od * oh * ow; }
  int64_t taps() const { return fd * fh * fw; }
};
Conv3 to_conv3(const ConvGeometry &geo);

// Aligned sub-allocations of one workspace.
class WorkspaceLayout {
 public:
  // Reserves `bytes` and returns its offset.
  size_t reserve(size_t bytes);
  size_t total() const { return total_; }

 private:
  size_t total_ = 0;
};

// Packed NCHW-ordered pointers of one execution, in T.
template <class T>
struct ConvArrays {
  T *x = nullptr;  // [N][C][in pixels]
  T *w = nullptr;  // [K][Cg][taps], cross-correlation order
  T *y = nullptr;  // [N][K][out pixels]
};

// The base of the fast engines' plans: stages operands, calls run(), blends
// a staged output back.
template <class T>
class ConvPlanBase : public ExecutionPlan {
 public:
  ConvPlanBase(const Engine &engine, const graph::Graph &g);
  size_t workspace_size() const override { return layout_.total(); }
  size_t scratch_size() const override { return staging_.total(); }
  void execute(const ExecContext &ctx, const graph::Graph &g, const VariantPack &pack) const override;

 protected:
  // The algorithm: the direction's output = alpha * result + beta * output
  // (beta == 0: the output is not read). `ws` is the algorithm's share of the
  // workspace (algo_workspace() bytes, 64-byte aligned).
  virtual void run(const ExecContext &ctx, const ConvArrays<T> &a, T alpha, T beta, void *ws) const = 0;
  // Call from the derived constructor.
  void set_algo_workspace(size_t bytes) { algo_offset_ = layout_.reserve(bytes); }

  ConvGeometry geo_;
  Conv3 p_;

 private:
  WorkspaceLayout layout_;   // the algorithm's workspace
  WorkspaceLayout staging_;  // staged operands, in the scratch
  // Per operand (x, w, y): staged (offset into the scratch) or used in place.
  bool staged_[3] = {false, false, false};
  size_t stage_offset_[3] = {0, 0, 0};
  size_t algo_offset_ = 0;
};

// Which operand a direction writes: 0 = x, 1 = w, 2 = y.
int convolution_output_operand(graph::ConvDirection dir);

}  // namespace fdnn::cpu
