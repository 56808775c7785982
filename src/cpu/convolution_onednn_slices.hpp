// Forward convolutions of cpu.conv.onednn as per-thread slices (see the top
// of convolution_onednn_slices.cpp). Only included where FREEDNN_WITH_ONEDNN
// is defined.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include <oneapi/dnnl/dnnl.hpp>

#include "core/convolution_support.hpp"
#include "core/thread_pool.hpp"
#include "cpu/convolution_common.hpp"

namespace fdnn::cpu {

// The convolution's own parameters in oneDNN's terms.
struct OnednnConvParams {
  dnnl::memory::dims strides, dilates, pad_l, pad_r;
};

class OnednnForwardSlices {
 public:
  // Plans the slices for a FLOAT forward convolution without groups whose x
  // and y are packed channels-innermost (NHWC) and whose filter is at least
  // as large as the activations (or 1x1), reading the filter from
  // `wsource` (the caller's filter, or its flipped packed copy), or returns
  // false when they do not apply (see the rule in the .cpp). Reserves its
  // per-thread buffers in `scratch`.
  bool plan(const ConvGeometry &geo, const OnednnConvParams &prm, const dnnl::memory::desc &wsource, int threads,
            WorkspaceLayout &scratch);
  bool active() const { return kc_ > 0; }
  int64_t channels_per_slice() const { return kc_; }
  int64_t units_per_item() const { return unit_group_; }
  bool pixel_units() const { return pixel_units_; }
  // Whether the filter slices are copied by our line transposes (else by
  // oneDNN's reorder primitive).
  bool own_transpose() const { return kblock_ > 0; }
  const char *impl() const { return impl_.c_str(); }

  // y = alpha * conv(x, w) + beta * y (beta 0 never reads y). `scratch` is
  // the plan's aligned scratch base. Serialised by the caller (one call at a
  // time per plan).
  void run(ThreadPool *pool, char *scratch, const void *x, const void *wsource, void *y, float alpha,
           float beta) const;

 private:
  struct Task {  // one thread's oneDNN objects, made on its first call
    dnnl::stream strm;
    dnnl::memory wsrc, wbuf, x, obuf, pad, rpad;
    std::unordered_map<int, dnnl::memory> conv_args, reorder_args;
  };
  void run_task(int64_t task, int64_t lo, int64_t hi, char *scratch, const char *x, const char *w, char *y,
                float alpha, float beta) const;

  int64_t kc_ = 0;            // output channels of one slice (0: not planned)
  int64_t chunks_ = 0;        // K / kc_
  int64_t unit_group_ = 0;    // units (images, or pixels of a 1x1 convolution) of one item
  int64_t groups_ = 0;        // units / unit_group_
  int64_t unit_pixels_ = 1;   // output pixels of one unit
  bool pixel_units_ = false;  // units are pixels (1x1 convolutions), not images
  int64_t K_ = 0;
  int64_t kblock_ = 0;      // >0: wbuf_ is [kc / kblock_][taps][C][kblock_], filled by line_transpose
  int64_t row_floats_ = 0;  // taps * C: one output channel's filter
  int64_t x_unit_bytes_ = 0, y_unit_bytes_ = 0, w_chunk_bytes_ = 0;
  int threads_ = 1;
  dnnl::primitive conv_;
  dnnl::reorder reorder_;
  dnnl::memory::desc wsrc_, wbuf_, x_, obuf_, pad_, rpad_;
  size_t task_bytes_ = 0, wbuf_off_ = 0, obuf_off_ = 0, pad_off_ = 0, rpad_off_ = 0, base_off_ = 0;
  std::string impl_;
  mutable std::vector<Task> tasks_;
};

}  // namespace fdnn::cpu
