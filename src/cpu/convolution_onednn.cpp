// cpu.conv.onednn: convolutions on oneDNN's convolution primitives (JIT
// brgemm kernels: 0.8-0.9 of the machine's FMA peak), where their semantics
// are exactly cuDNN's: cross-correlation (CONVOLUTION mode through a flipped
// copy of the filter), groups, dilation (oneDNN counts it from 0), pre/post
// padding, 1-3 spatial dimensions, FLOAT and BFLOAT16 data with FLOAT compute.
//
// Which algorithm enums it serves, and why: oneDNN's kernels are implicit
// GEMMs over blocked operands with their tap offsets worked out ahead, so the
// engine is IMPLICIT_PRECOMP_GEMM forward, ALGO_1 for backward data and
// backward filter (cuDNN's GEMM-style, non-atomic variants), and "any
// algorithm". It sits before cpu.conv.gemm (priority 10 < 20), which keeps
// those enums for what oneDNN refuses (DOUBLE, HALF, 4-d spatial, problems
// oneDNN would only run on its reference kernel), and every other enum keeps
// its own implementation. The fused WINOGRAD enums of forward and backward
// data run oneDNN's Winograd (F(4x4,3x3), AVX-512, FLOAT) before
// cpu.conv.winograd (30) where the filter, which oneDNN transforms into 6x6
// tiles on every call, is at most a quarter of the activations
// (winograd_pays; FREEDNN_ONEDNN_WINOGRAD=0 / 1: never / always). Xeon, 2
// threads, ms a call, ours F(2x2,3x3) -> oneDNN's: 64x56x56 3x3 batch 8
// forward 19.9 -> 4.2, batch 1 3.5 -> 0.72; 128x28x28 batch 8 backward data
// 10.8 -> 2.8; where the filter outweighs x and y it loses (512x7x7 batch
// 1: 14.3 against 23.6; 256x14x14 batch 8: 9.8 against 12.6). The filter
// reaches oneDNN's Winograd reorder as packed KCRS, the only source it
// takes (KRSC filters through a packed copy, as the flipped filter goes).
//
// Layouts: the primitive is first asked for the caller's activation layouts
// (NHWC runs in place on the brgemm kernels); when oneDNN would then fall
// back to its im2col GEMM or reference code (NCHW 3x3, odd strides), the
// activations are reordered into the layout oneDNN prefers and back.
// Filters are always given to oneDNN as format_tag::any (cuDNN's KRSC filters
// with NHWC activations would otherwise hit a reference kernel).
//
// Filters are reordered on every call, never cached: cuDNN callers update the
// filter in place every training step, so a cache keyed on the pointer would
// return stale results, and a content check reads the whole filter, which
// costs about as much as the reorder itself (measured on 2 cores: 512x512x3x3
// f32, 9.4 MB, reorder 0.4-0.7 ms; a compare of the same bytes against a copy
// reads twice as much). The reorder is 1-2% of a convolution at batch 8 and
// up to ~35% for 7x7x512 at batch 1.
//
// Forward and backward-data problems whose filter is far larger than their
// activations (batch 1 of ResNet's last layers: 512x512x3x3 is 9.4 MB
// against 100 KB of activations) run as several convolutions over slices of
// the output's channels (K forward, C for dx; the "split"): each slice's
// filter is reordered into a buffer that stays in the core's L2 and is read
// from there by the convolution right after, instead of one reorder of the
// whole filter through L3/DRAM before a convolution that reads it back from
// there. The reorder itself already runs near memcpy speed on oneDNN's
// jit:uni kernel (9.4 MB on one core: 0.74 ms, memcpy 0.67 ms; our AVX-512
// 16x16 transposes took 1.08 ms), and a bitwise comparison with a cached copy
// costs as much as the copy (memcmp 0.63 ms), so neither a faster copy nor a
// safe "unchanged filter" check pays; keeping the copy in L2 does (2 threads,
// 512x7x7 mb1, best of 300 calls against oneDNN with pre-reordered weights:
// forward 0.57-0.59 -> 0.79-0.81; backward data 0.50-0.56 -> 0.57-0.59,
// too little: it splits only when forced). Each slice is three oneDNN calls
// (reorder, convolution, blend), so the split has more OpenMP barriers: on a
// machine whose cores are taken by other processes it can lose more than one
// convolution does (backward data's median did, by 2-6x; forward's did not).
// FREEDNN_ONEDNN_CONV_SPLIT=0 turns it off, =1 forces it wherever it applies
// (forward and backward data; tests reach it with small problems that way).
// FLOAT forwards on packed NHWC activations whose filter is at least as
// large as the activations (and 1x1 ones) run before the split as
// per-thread slices (convolution_onednn_slices.cpp): each thread copies its
// own channel slices of the filter into its L2 and runs one-thread
// convolutions on them, one OpenMP region per call; the split remains for
// what the slices do not take (and when forced).
// FLOAT forwards on NHWC activations with KRSC filters of C >= 512 whose
// filter dwarfs the activations go to cpu.conv.nhwc_dot first (priority 5):
// it reads the KRSC filter in place, without a reorder (512x7x7 batch 1, one
// thread: 0.90-0.94 of oneDNN with pre-reordered weights, this engine 0.72-0.78).
//
// Memory: every staged operand (reordered activations and filters, the
// flipped filter, the output before blending, oneDNN's scratchpad) lives in
// the handle's scratch, never in the caller's workspace: cuDNN's workspace
// queries for these algorithms must not depend on which CPU library runs them.
//
// Threads: oneDNN runs on the calling thread with OpenMP; the engine sets the
// calling thread's OpenMP team size to the size of the library's pool
// (FREEDNN_NUM_THREADS) for the call and restores it afterwards. The pool's
// own threads sleep meanwhile (they wait on a condition variable), so the
// machine is never oversubscribed.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <variant>
#include <vector>

#include "core/convolution_support.hpp"
#include "core/engine.hpp"
#include "core/error.hpp"
#include "core/thread_pool.hpp"

#ifdef FREEDNN_WITH_ONEDNN
#include <omp.h>

#include <oneapi/dnnl/dnnl.hpp>

#include "cpu/onednn_support.hpp"

#include "cpu/convolution_common.hpp"
#include "cpu/convolution_onednn_slices.hpp"

namespace fdnn::cpu {
namespace {

using Dir = graph::ConvDirection;
using dnnl::memory;

// Whether `algo` is the fused WINOGRAD enum of its direction: oneDNN's
// Winograd kernels serve it (see the top of the file).
bool winograd_algo(Dir dir, int algo) {
  return (dir == Dir::forward && algo == CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD) ||
         (dir == Dir::backward_data && algo == CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD);
}

// Whether oneDNN's Winograd (F(4x4, 3x3), avx512_core) should take a
// WINOGRAD call: its filter, transformed on every call into 6x6 tiles (4x
// the bytes), must not outweigh the activations x + y.
// FREEDNN_ONEDNN_WINOGRAD=0: never, =1: wherever oneDNN runs it.
bool winograd_pays(const ConvGeometry &geo) {
  const char *env = std::getenv("FREEDNN_ONEDNN_WINOGRAD");
  if (env != nullptr && env[0] == '0') return false;
  if (env != nullptr && env[0] == '1') return true;
  const int64_t filter = geo.K * geo.Cg * geo.filter_taps();
  const int64_t activations = geo.N * (geo.C * geo.in_pixels() + geo.K * geo.out_pixels());
  return 4 * filter <= activations;
}

// The legacy algorithms this engine implements (see the top of the file).
bool onednn_convolution_algo(Dir dir, int algo) {
  if (winograd_algo(dir, algo)) return true;
  switch (dir) {
    case Dir::forward: return algo == -1 || algo == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM;
    case Dir::backward_data: return algo == -1 || algo == CUDNN_CONVOLUTION_BWD_DATA_ALGO_1;
    case Dir::backward_filter: return algo == -1 || algo == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1;
  }
  return false;
}

memory::dims to_dims(const std::vector<int64_t> &v) { return memory::dims(v.begin(), v.end()); }

// A tensor as it lies in the caller's memory (any strides).
memory::desc user_desc(const graph::Tensor &t) {
  memory::data_type dt{};
  dnnl_type(t.dtype, &dt);
  return memory::desc(to_dims(t.dims), dt, to_dims(t.strides));
}

// The filter in oneDNN's grouped form {G, K/G, C/G, spatial...} when G > 1.
memory::desc user_weights_desc(const graph::Tensor &w, int64_t G) {
  if (G == 1) return user_desc(w);
  memory::data_type dt{};
  dnnl_type(w.dtype, &dt);
  memory::dims dims{G, w.dims[0] / G}, strides{w.dims[0] / G * w.strides[0], w.strides[0]};
  for (int d = 1; d < w.rank(); ++d) {
    dims.push_back(w.dims[d]);
    strides.push_back(w.strides[d]);
  }
  return memory::desc(dims, dt, strides);
}

memory::desc any_like(const memory::desc &d) {
  return memory::desc(d.dims(), d.data_type(), memory::format_tag::any);
}

// A dense desc of `dims` whose dimensions lie in memory in the same order as
// in `like` (a plain layout), else format_tag::any: the output slices of a
// split keep the whole output's layout, which oneDNN's backward-data kernels
// need to match dy's.
memory::desc dense_like(const memory::desc &like, const memory::dims &dims) {
  const auto &blk = like.data.format_desc.blocking;
  if (like.data.format_kind != dnnl_blocked || blk.inner_nblks != 0)
    return memory::desc(dims, like.data_type(), memory::format_tag::any);
  std::vector<int> order(dims.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return blk.strides[a] > blk.strides[b]; });
  memory::dims strides(dims.size());
  memory::dim step = 1;
  for (size_t i = order.size(); i-- > 0;) {
    strides[order[i]] = step;
    step *= dims[order[i]];
  }
  return memory::desc(dims, like.data_type(), strides);
}

// Packed row-major strides of a desc's dims (the plain KCRS filter).
memory::desc packed_like(const memory::desc &d, memory::data_type dt) {
  const memory::dims dims = d.dims();
  memory::dims strides(dims.size(), 1);
  for (int i = static_cast<int>(dims.size()) - 2; i >= 0; --i) strides[i] = strides[i + 1] * dims[i + 1];
  return memory::desc(dims, dt, strides);
}

// The primitive chosen for a problem, and the layouts it reads and writes.
struct Choice {
  dnnl::primitive prim;
  memory::desc px, pw, py;  // x, w, y (or their gradients) in the primitive's layouts
  memory::desc scratchpad;
  std::string impl;
};

struct ConvShape {
  memory::dims strides, dilates, pad_l, pad_r;
  dnnl::algorithm alg = dnnl::algorithm::convolution_direct;  // winograd for the WINOGRAD enums
};

ConvShape shape_of(const graph::ConvolutionOp &op) {
  ConvShape s;
  if (winograd_algo(op.direction, op.algo)) s.alg = dnnl::algorithm::convolution_winograd;
  for (int i = 0; i < op.spatial_dims(); ++i) {
    s.strides.push_back(op.stride[i]);
    s.dilates.push_back(op.dilation[i] - 1);
    s.pad_l.push_back(op.pre_padding[i]);
    s.pad_r.push_back(op.post_padding[i]);
  }
  return s;
}

// Builds the primitive for the given operand descs (any of them may be
// format_tag::any). Throws dnnl::error when oneDNN has no implementation.
Choice build(Dir dir, const ConvShape &s, const memory::desc &x, const memory::desc &w, const memory::desc &y) {
  using namespace dnnl;
  primitive_attr attr;
  attr.set_scratchpad_mode(scratchpad_mode::user);
  Choice c;
  const algorithm alg = s.alg;
  switch (dir) {
    case Dir::forward: {
      convolution_forward::primitive_desc pd(
          convolution_forward::desc(prop_kind::forward_inference, alg, x, w, y, s.strides, s.dilates, s.pad_l, s.pad_r),
          attr, dnnl_cpu());
      c = {convolution_forward(pd), pd.src_desc(), pd.weights_desc(), pd.dst_desc(), pd.scratchpad_desc(),
           pd.impl_info_str()};
      break;
    }
    case Dir::backward_data: {
      convolution_forward::primitive_desc hint(
          convolution_forward::desc(prop_kind::forward_training, alg, x, w, y, s.strides, s.dilates, s.pad_l, s.pad_r),
          dnnl_cpu());
      convolution_backward_data::primitive_desc pd(
          convolution_backward_data::desc(alg, x, w, y, s.strides, s.dilates, s.pad_l, s.pad_r), attr, dnnl_cpu(), hint);
      c = {convolution_backward_data(pd), pd.diff_src_desc(), pd.weights_desc(), pd.diff_dst_desc(),
           pd.scratchpad_desc(), pd.impl_info_str()};
      break;
    }
    case Dir::backward_filter: {
      convolution_forward::primitive_desc hint(
          convolution_forward::desc(prop_kind::forward_training, alg, x, w, y, s.strides, s.dilates, s.pad_l, s.pad_r),
          dnnl_cpu());
      convolution_backward_weights::primitive_desc pd(
          convolution_backward_weights::desc(alg, x, w, y, s.strides, s.dilates, s.pad_l, s.pad_r), attr, dnnl_cpu(),
          hint);
      c = {convolution_backward_weights(pd), pd.src_desc(), pd.diff_weights_desc(), pd.diff_dst_desc(),
           pd.scratchpad_desc(), pd.impl_info_str()};
      break;
    }
  }
  return c;
}

// Split threshold: filter bytes over activation bytes (x + y). 512x7x7 at
// batch 1 has 47 (split: 0.63 -> 0.9 of oneDNN on one thread); at batch 8
// and 256x14x14 batch 1 (6: the reorder is a smaller share) the gain was
// within this machine's noise, so they keep one convolution.
constexpr size_t kSplitFilterToActivations = 16;

// oneDNN's im2col GEMM is as fast as its brgemm kernels only for 1x1, stride
// 1, unpadded problems (no im2col copy); elsewhere reordering the activations
// costs less than it loses.
bool acceptable_in_place(const std::string &impl, const ConvGeometry &geo) {
  if (is_reference_impl(impl)) return false;
  if (impl.find("gemm") == std::string::npos || impl.find("brg") != std::string::npos) return true;
  if (geo.filter_taps() != 1) return false;
  for (int i = 0; i < geo.nsp; ++i)
    if (geo.stride[i] != 1 || geo.pad[i] != 0) return false;
  return true;
}

// The primitive for a problem, or a reason why oneDNN does not take it.
// BFLOAT16 outputs have a second primitive that writes FLOAT (same input
// layouts), used when alpha/beta blend: cuDNN rounds once, after blending.
struct Decision {
  bool ok = false;
  std::string why;
  Choice choice;
  bool has_float_out = false;
  Choice float_out;
};

// The primitive `c` again, with the output operand in FLOAT.
Choice float_output_variant(Dir dir, const ConvShape &s, const Choice &c) {
  const auto f32 = [](const memory::desc &d) {
    return memory::desc(d.dims(), memory::data_type::f32, memory::format_tag::any);
  };
  switch (dir) {
    case Dir::forward: return build(dir, s, c.px, c.pw, f32(c.py));
    case Dir::backward_data: return build(dir, s, f32(c.px), c.pw, c.py);
    case Dir::backward_filter: return build(dir, s, c.px, f32(c.pw), c.py);
  }
  return c;
}

Decision decide_layouts(const graph::Graph &g);

Decision decide(const graph::Graph &g) {
  Decision d = decide_layouts(g);
  const auto &op = std::get<graph::ConvolutionOp>(g.ops().front());
  if (d.ok && shape_of(op).alg == dnnl::algorithm::convolution_winograd) {
    // The plan reorders the filter from packed KCRS into the primitive's
    // Winograd layout (see OnednnConvPlan): that reorder must exist.
    const ConvGeometry geo = convolution_geometry(g);
    const memory::desc uw = user_weights_desc(geo.w, geo.G);
    try {
      dnnl::reorder::primitive_desc(dnnl_cpu(), packed_like(uw, uw.data_type()), dnnl_cpu(), d.choice.pw);
    } catch (const dnnl::error &e) {
      d.ok = false;
      d.why = std::string("oneDNN cannot reorder the filter into its Winograd layout: ") + e.what();
      return d;
    }
  }
  if (!d.ok || d.choice.pw.data_type() != memory::data_type::bf16) return d;
  try {
    d.float_out = float_output_variant(op.direction, shape_of(op), d.choice);
    d.has_float_out = true;
  } catch (const dnnl::error &e) {
    d.ok = false;
    d.why = std::string("oneDNN has no FLOAT-output variant for blending BFLOAT16: ") + e.what();
  }
  return d;
}

Decision decide_layouts(const graph::Graph &g) {
  Decision d;
  const auto &op = std::get<graph::ConvolutionOp>(g.ops().front());
  const ConvGeometry geo = convolution_geometry(g);
  const ConvShape s = shape_of(op);
  const memory::desc ux = user_desc(geo.x), uy = user_desc(geo.y), uw = user_weights_desc(geo.w, geo.G);
  try {
    Choice c = build(geo.direction, s, ux, any_like(uw), uy);
    if (acceptable_in_place(c.impl, geo)) {
      d.ok = true;
      d.choice = std::move(c);
      return d;
    }
  } catch (const dnnl::error &) {
    // The caller's layouts are not among the primitive's: try oneDNN's own.
  }
  try {
    Choice c = build(geo.direction, s, any_like(ux), any_like(uw), any_like(uy));
    if (is_reference_impl(c.impl)) {
      d.why = "oneDNN has only its reference kernel for this problem (" + c.impl + ")";
      return d;
    }
    d.ok = true;
    d.choice = std::move(c);
  } catch (const dnnl::error &e) {
    d.why = std::string("oneDNN has no convolution for this problem: ") + e.what();
  }
  return d;
}

// The filter dimension that a split slices: output channels (0) forward,
// input channels (1) for backward data (each slice of dx needs only its
// input channels of the filter), -1 where the engine does not split.
int split_filter_dim(const ConvGeometry &geo) {
  if (geo.G != 1) return -1;
  return geo.direction == Dir::forward ? 0 : geo.direction == Dir::backward_data ? 1 : -1;
}

// The channels of one oneDNN convolution in a split (see the top of the
// file), or 0 for no split. `pw` is the whole problem's filter layout: its
// block along the sliced dimension sets the slice, one block per thread, so
// that every thread gets whole blocks of each slice.
int64_t split_channels(const ConvGeometry &geo, const memory::desc &pw, int threads) {
  const int dim = split_filter_dim(geo);
  if (dim < 0) return 0;
  const int64_t total = dim == 0 ? geo.K : geo.C;
  const char *env = std::getenv("FREEDNN_ONEDNN_CONV_SPLIT");
  const std::string mode = env != nullptr ? env : "";
  if (mode == "0") return 0;
  if (mode == "1") {
    // Forced: the smallest slices (at most 16 channels) that divide the dimension.
    for (int64_t kc = std::min<int64_t>(16, total / 2); kc >= 1; --kc)
      if (total % kc == 0) return kc;
    return 0;
  }
  // Backward data splits only when forced: its best case gained little
  // (0.50-0.56 -> 0.57-0.59 of oneDNN) and its median under other load lost
  // 2-6x (see the top of the file).
  if (dim == 1) return 0;
  int64_t ob = 1;
  const auto &blk = pw.data.format_desc.blocking;
  if (pw.data.format_kind == dnnl_blocked)
    for (int i = 0; i < blk.inner_nblks; ++i)
      if (blk.inner_idxs[i] == dim) ob *= blk.inner_blks[i];
  if (ob == 1) return 0;
  // One block per thread (32 of 4608 floats at 512x3x3: 590 KB per thread;
  // measured on one thread, 512x7x7 mb1: 0.92 / 0.88 / 0.78 of oneDNN with
  // 1, 2, 4 blocks).
  int64_t kc = ob * std::max(threads, 1);
  while (kc > ob && (total % kc != 0 || total / kc < 2)) kc /= 2;
  if (total % kc != 0 || total / kc < 2) return 0;
  // Worth it when the filter does not stay in L2 and dwarfs the activations
  // (each slice reads all of its input again and copies its part of the output).
  const size_t w_bytes = pw.get_size();
  const size_t act_bytes = user_desc(geo.x).get_size() + user_desc(geo.y).get_size();
  if (w_bytes < (size_t{1} << 21) || w_bytes < kSplitFilterToActivations * act_bytes) return 0;
  return kc;
}

// Reverses the taps of every (k, c) row of a packed KCRS filter: flipping all
// spatial dimensions reverses the row-major tap index.
void reverse_taps(const void *src, void *dst, int64_t rows, int64_t taps, size_t elem) {
  const char *s = static_cast<const char *>(src);
  char *d = static_cast<char *>(dst);
  const size_t row_bytes = static_cast<size_t>(taps) * elem;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t t = 0; t < taps; ++t)
      std::memcpy(d + r * row_bytes + t * elem, s + r * row_bytes + (taps - 1 - t) * elem, elem);
}

class OnednnConvPlan final : public ExecutionPlan {
 public:
  OnednnConvPlan(const Engine &e, const graph::Graph &g, Decision d)
      : ExecutionPlan(e), geo_(convolution_geometry(g)), c_(std::move(d.choice)) {
    if (d.has_float_out) {
      t_ = std::move(d.float_out);
      has_t_ = true;
    }
    const Choice &blend = has_t_ ? t_ : c_;
    const memory::desc tprim[3] = {blend.px, blend.pw, blend.py};
    ux_ = user_desc(geo_.x);
    uy_ = user_desc(geo_.y);
    uw_ = user_weights_desc(geo_.w, geo_.G);
    out_ = convolution_output_operand(geo_.direction);
    taps_ = geo_.filter_taps();
    rows_ = geo_.K * geo_.Cg;
    // (Winograd runs as one convolution: the slices and the split build
    // direct ones.)
    const auto &cop = std::get<graph::ConvolutionOp>(g.ops().front());
    const bool wino = shape_of(cop).alg == dnnl::algorithm::convolution_winograd;
    if (!has_t_ && !wino) plan_slices(cop);
    if (!has_t_ && !wino && !slices_.active()) plan_split(cop);
    // The split and the per-thread slices stage their filter slices and
    // output slices themselves; the slices read x in place.
    const bool split = split_kc_ > 0 || slices_.active();
    const memory::desc *user[3] = {&ux_, &uw_, &uy_};
    const memory::desc *prim[3] = {&c_.px, &c_.pw, &c_.py};
    // oneDNN reorders into its Winograd filter layout only from packed KCRS
    // (its own strides: a KRSC filter of C = 1 compares equal to packed KCRS
    // and still fails), so a Winograd filter goes through the flip path's
    // packed copy too, its taps left in order (no copy where the layouts
    // compare equal: the caller's filter is then read as packed KCRS).
    wino_packed_ = wino && !geo_.flip && geo_.direction != Dir::backward_filter;
    for (int i = 0; i < 3; ++i) {
      const bool flipped = i == 1 && (geo_.flip || wino_packed_);
      if (i == out_ && split) continue;  // the split stages its output slices itself
      if (i == 0 && slices_.active()) continue;
      if (i == out_) {
        // The primitive's output before blending: used unless the call is
        // alpha 1, beta 0 into the caller's layout.
        out_direct_ok_ = !flipped && *prim[i] == *user[i];
        tdesc_ = tprim[i];
        temp_offset_ = scratch_.reserve(tdesc_.get_size());
        if (flipped) {
          // Output filter of CONVOLUTION mode: primitive layout -> packed
          // KCRS -> reversed taps -> caller's memory with alpha/beta.
          packed_ = packed_like(uw_, tdesc_.data_type());
          plain_offset_ = scratch_.reserve(packed_.get_size());
          flip_offset_ = scratch_.reserve(packed_.get_size());
          to_packed_ = make_reorder(tdesc_, packed_);
        }
        continue;
      }
      if (flipped) {
        // Input filter of CONVOLUTION mode: caller's memory -> packed KCRS
        // -> reversed taps -> the primitive's layout.
        packed_ = packed_like(uw_, uw_.data_type());
        if (!(uw_ == packed_)) {
          plain_offset_ = scratch_.reserve(packed_.get_size());
          to_packed_ = make_reorder(uw_, packed_);
        }
        if (geo_.flip) flip_offset_ = scratch_.reserve(packed_.get_size());
        if (split) {
          if (split_kc_ > 0) prepare_split_filter(packed_);
          continue;
        }
        if (!(packed_ == *prim[i])) {
          stage_offset_[i] = scratch_.reserve(prim[i]->get_size());
          staged_[i] = true;
          in_reorder_[i] = make_reorder(packed_, *prim[i]);
        }
        continue;
      }
      if (i == 1 && split) {
        if (split_kc_ > 0) prepare_split_filter(uw_);
        continue;
      }
      if (!(*prim[i] == *user[i])) {
        stage_offset_[i] = scratch_.reserve(prim[i]->get_size());
        staged_[i] = true;
        in_reorder_[i] = make_reorder(*user[i], *prim[i]);
      }
    }
    pad_offset_ = scratch_.reserve(std::max({c_.scratchpad.get_size(), has_t_ ? t_.scratchpad.get_size() : 0,
                                             split ? sc_.scratchpad.get_size() : 0}));
  }

  // The handle's scratch is malloc'ed (16-byte aligned); the offsets are laid
  // out from a base rounded up to a page, so every staged operand starts on
  // a cache line (split vector loads cost the kernels up to 1.7x).
  size_t scratch_size() const override { return scratch_.total() + kBaseAlign; }

  void execute(const ExecContext &ctx, const graph::Graph &g, const VariantPack &pack) const override {
    const auto &op = std::get<graph::ConvolutionOp>(g.ops().front());
    const graph::Uid uid[3] = {op.x, op.w, op.y};
    void *user[3];
    for (int i = 0; i < 3; ++i) {
      user[i] = pack.get(uid[i]);
      if (user[i] == nullptr) fail(CUDNN_STATUS_BAD_PARAM, "no data pointer for convolution operand uid ", uid[i]);
    }
    if (scratch_size() > 0 && (pack.scratch == nullptr || pack.scratch_size < scratch_size()))
      fail(CUDNN_STATUS_INTERNAL_ERROR, engine().name(), " was given no scratch memory for its staged operands");
    char *scratch = reinterpret_cast<char *>((reinterpret_cast<uintptr_t>(pack.scratch) + kBaseAlign - 1) /
                                             kBaseAlign * kBaseAlign);
    const float alpha = static_cast<float>(op.blend.alpha), beta = static_cast<float>(op.blend.beta);
    try {
      OmpThreads threads(ctx.pool != nullptr ? ctx.pool->size() : ThreadPool::global().size());
      std::lock_guard<std::mutex> exec_lock(exec_mutex_);
      dnnl::stream &strm = stream_;
      const memory::desc *udesc[3] = {&ux_, &uw_, &uy_};
      const memory::desc *pdesc[3] = {&c_.px, &c_.pw, &c_.py};
      memory prim_mem[3];
      for (int i = 0; i < 3; ++i) {
        if (i == out_) continue;
        if (i == 1 && (geo_.flip || wino_packed_)) {
          const void *plain = user[1];
          if (to_packed_) {
            memory src(uw_, dnnl_cpu(), user[1]), dst(packed_, dnnl_cpu(), scratch + plain_offset_);
            to_packed_.execute(strm, src, dst);
            strm.wait();
            plain = scratch + plain_offset_;
          }
          void *source = const_cast<void *>(plain);  // wino_packed_: the packed copy as it is
          if (geo_.flip) {
            reverse_taps(plain, scratch + flip_offset_, rows_, taps_, memory::data_type_size(packed_.data_type()));
            source = scratch + flip_offset_;
          }
          if (split_kc_ > 0 || slices_.active()) continue;  // the slices reorder their parts of the flipped copy
          memory flipped(packed_, dnnl_cpu(), source);
          if (staged_[1]) {
            prim_mem[1] = memory(*pdesc[1], dnnl_cpu(), scratch + stage_offset_[1]);
            in_reorder_[1].execute(strm, flipped, prim_mem[1]);
          } else {
            prim_mem[1] = flipped;
          }
          continue;
        }
        if ((i == 1 && split_kc_ > 0) || slices_.active()) continue;
        memory &um = rebind(user_mem_[i], *udesc[i], user[i]);
        if (staged_[i]) {
          prim_mem[i] = rebind(stage_mem_[i], *pdesc[i], scratch + stage_offset_[i]);
          in_reorder_[i].execute(strm, um, prim_mem[i]);
        } else {
          prim_mem[i] = um;
        }
      }
      if (slices_.active()) {
        slices_.run(ctx.pool, scratch, user[0], geo_.flip ? scratch + flip_offset_ : user[1], user[2], alpha, beta);
        return;
      }
      if (split_kc_ > 0) {
        run_split(strm, scratch, prim_mem[out_ == 2 ? 0 : 2], geo_.flip ? scratch + flip_offset_ : user[1], user[out_],
                  alpha, beta);
        strm.wait();
        return;
      }
      const bool direct = out_direct_ok_ && alpha == 1.0f && beta == 0.0f;
      // BFLOAT16 outputs that are not written in place go through the
      // FLOAT-output primitive: one rounding, after the blend.
      const Choice &run = has_t_ && !direct ? t_ : c_;
      prim_mem[out_] = direct ? rebind(out_direct_mem_, *pdesc[out_], user[out_])
                              : rebind(out_temp_mem_, tdesc_, scratch + temp_offset_);
      memory &pad = rebind(&run == &t_ ? pad_mem_[1] : pad_mem_[0], run.scratchpad, scratch + pad_offset_);
      std::unordered_map<int, memory> &args = args_;
      args[DNNL_ARG_SCRATCHPAD] = pad;
      switch (geo_.direction) {
        case Dir::forward:
          args[DNNL_ARG_SRC] = prim_mem[0];
          args[DNNL_ARG_WEIGHTS] = prim_mem[1];
          args[DNNL_ARG_DST] = prim_mem[2];
          break;
        case Dir::backward_data:
          args[DNNL_ARG_DIFF_SRC] = prim_mem[0];
          args[DNNL_ARG_WEIGHTS] = prim_mem[1];
          args[DNNL_ARG_DIFF_DST] = prim_mem[2];
          break;
        case Dir::backward_filter:
          args[DNNL_ARG_SRC] = prim_mem[0];
          args[DNNL_ARG_DIFF_WEIGHTS] = prim_mem[1];
          args[DNNL_ARG_DIFF_DST] = prim_mem[2];
          break;
      }
      run.prim.execute(strm, args);
      if (!direct) {
        // The output lands in the caller's memory through a reorder that
        // applies alpha and beta (beta == 0 never reads it).
        memory result = prim_mem[out_];
        const memory::desc *from = &tdesc_;
        if (out_ == 1 && geo_.flip) {
          memory plain(packed_, dnnl_cpu(), scratch + plain_offset_);
          to_packed_.execute(strm, result, plain);
          strm.wait();
          reverse_taps(scratch + plain_offset_, scratch + flip_offset_, rows_, taps_,
                       memory::data_type_size(packed_.data_type()));
          result = memory(packed_, dnnl_cpu(), scratch + flip_offset_);
          from = &packed_;
        }
        memory dst(*udesc[out_], dnnl_cpu(), user[out_]);
        blend_reorder(*from, *udesc[out_], alpha, beta, 0).execute(strm, result, dst);
      }
      strm.wait();
    } catch (const dnnl::error &e) {
      fail(CUDNN_STATUS_EXECUTION_FAILED, engine().name(), ": oneDNN failed: ", e.what());
    }
  }

  const std::string &impl() const { return c_.impl; }

  // Verbose lines name the sliced forms of the run.
  std::string detail() const override {
    if (slices_.active())
      return "per-thread slices: " + std::to_string(slices_.channels_per_slice()) + " channels x " +
             std::to_string(slices_.units_per_item()) + (slices_.pixel_units() ? " pixels" : " images") +
             (slices_.own_transpose() ? ", filter by line transposes" : ", filter by oneDNN reorder");
    if (split_kc_ > 0) return "split of " + std::to_string(split_kc_) + " channels";
    return {};
  }

 private:
  static const memory::dims &plain_strides(const memory::desc &d, memory::dims *out) {
    const auto &blk = d.data.format_desc.blocking;
    out->assign(blk.strides, blk.strides + d.data.ndims);
    return *out;
  }

  // Plans the per-thread slices (convolution_onednn_slices.cpp) where they apply.
  void plan_slices(const graph::ConvolutionOp &op) {
    const ConvShape s = shape_of(op);
    const memory::desc source = geo_.flip ? packed_like(uw_, uw_.data_type()) : uw_;
    slices_.plan(geo_, OnednnConvParams{s.strides, s.dilates, s.pad_l, s.pad_r}, source,
                 static_cast<int>(ThreadPool::global().size()), scratch_);
  }

  // Builds the convolution of one slice of split_kc_ channels, or leaves
  // split_kc_ at 0 when oneDNN has no fast kernel for it.
  void plan_split(const graph::ConvolutionOp &op) {
    const int64_t kc = split_channels(geo_, c_.pw, static_cast<int>(ThreadPool::global().size()));
    if (kc == 0) return;
    const bool fwd = geo_.direction == Dir::forward;
    const memory::desc &uout = fwd ? uy_ : ux_;
    memory::dims wd = uw_.dims(), od = uout.dims();
    wd[fwd ? 0 : 1] = kc;
    od[1] = kc;
    const auto any = memory::format_tag::any;
    try {
      sc_ = fwd ? build(Dir::forward, shape_of(op), c_.px, memory::desc(wd, uw_.data_type(), any), dense_like(c_.py, od))
                : build(Dir::backward_data, shape_of(op), dense_like(c_.px, od), memory::desc(wd, uw_.data_type(), any),
                        c_.py);
    } catch (const dnnl::error &) {
      return;
    }
    if (is_reference_impl(sc_.impl) || !(fwd ? sc_.px == c_.px : sc_.py == c_.py)) return;
    split_kc_ = kc;
    memory::dims os;
    plain_strides(uout, &os);
    split_out_ = memory::desc(od, uout.data_type(), os);
    split_out_step_ = kc * os[1] * static_cast<int64_t>(memory::data_type_size(uout.data_type()));
    split_w_offset_ = scratch_.reserve(sc_.pw.get_size());
    split_out_offset_ = scratch_.reserve((fwd ? sc_.py : sc_.px).get_size());
  }

  // The split's slices of the filter source: the caller's filter, or its
  // flipped packed copy (CONVOLUTION mode).
  void prepare_split_filter(const memory::desc &source) {
    const int dim = split_filter_dim(geo_);
    memory::dims wd = source.dims(), ws;
    plain_strides(source, &ws);
    wd[dim] = split_kc_;
    split_wsrc_ = memory::desc(wd, source.data_type(), ws);
    split_w_step_ = split_kc_ * ws[dim] * static_cast<int64_t>(memory::data_type_size(source.data_type()));
    split_w_reorder_ = make_reorder(split_wsrc_, sc_.pw);
  }

  // The convolution in slices of channels: reorder the slice's filter into a
  // buffer that stays in L2, convolve, blend the slice into the caller's
  // output. `in` is the primitive's input activation (x forward, dy backward).
  void run_split(dnnl::stream &strm, char *scratch, const memory &in, const void *w_source, void *out, float alpha,
                 float beta) const {
    const bool fwd = geo_.direction == Dir::forward;
    const memory::desc &pout = fwd ? sc_.py : sc_.px;
    memory wslice(sc_.pw, dnnl_cpu(), scratch + split_w_offset_);
    memory oslice(pout, dnnl_cpu(), scratch + split_out_offset_);
    memory pad(sc_.scratchpad, dnnl_cpu(), scratch + pad_offset_);
    memory wsrc(split_wsrc_, dnnl_cpu(), const_cast<void *>(w_source));
    memory odst(split_out_, dnnl_cpu(), out);
    const dnnl::reorder blend = blend_reorder(pout, split_out_, alpha, beta, 1);
    const std::unordered_map<int, memory> args =
        fwd ? std::unordered_map<int, memory>{{DNNL_ARG_SRC, in},
                                              {DNNL_ARG_WEIGHTS, wslice},
                                              {DNNL_ARG_DST, oslice},
                                              {DNNL_ARG_SCRATCHPAD, pad}}
            : std::unordered_map<int, memory>{{DNNL_ARG_DIFF_DST, in},
                                              {DNNL_ARG_WEIGHTS, wslice},
                                              {DNNL_ARG_DIFF_SRC, oslice},
                                              {DNNL_ARG_SCRATCHPAD, pad}};
    const char *wbase = static_cast<const char *>(w_source);
    char *obase = static_cast<char *>(out);
    const int64_t slices = (fwd ? geo_.K : geo_.C) / split_kc_;
    for (int64_t j = 0; j < slices; ++j) {
      wsrc.set_data_handle(const_cast<char *>(wbase + j * split_w_step_));
      odst.set_data_handle(obase + j * split_out_step_);
      split_w_reorder_.execute(strm, wsrc, wslice);
      sc_.prim.execute(strm, args);
      blend.execute(strm, oslice, odst);
    }
  }

  static dnnl::reorder make_reorder(const memory::desc &from, const memory::desc &to,
                                    const dnnl::primitive_attr &attr = dnnl::primitive_attr()) {
    return dnnl::reorder(dnnl::reorder::primitive_desc(dnnl_cpu(), from, dnnl_cpu(), to, attr));
  }

  // out = alpha * result + beta * out, cached per (alpha, beta): oneDNN 2.6
  // takes the sum post-op's scale only at creation.
  // `slot` tells the (from, to) pairs apart: 0 the whole output, 1 one slice
  // of the split.
  dnnl::reorder blend_reorder(const memory::desc &from, const memory::desc &to, float alpha, float beta,
                              int slot) const {
    std::lock_guard<std::mutex> lock(blend_mutex_);
    for (const auto &b : blends_)
      if (b.alpha == alpha && b.beta == beta && b.slot == slot) return b.prim;
    dnnl::primitive_attr attr;
    if (alpha != 1.0f) attr.set_output_scales(0, {alpha});
    if (beta != 0.0f) {
      dnnl::post_ops po;
      po.append_sum(beta);
      attr.set_post_ops(po);
    }
    dnnl::reorder r = make_reorder(from, to, attr);
    if (blends_.size() < 8) blends_.push_back({alpha, beta, slot, r});
    return r;
  }

  struct Blend {
    float alpha, beta;
    int slot;
    dnnl::reorder prim;
  };
  static constexpr size_t kBaseAlign = 4096;

  // One in-order CPU stream per plan; executions of one plan are serialised
  // (a backend plan may be run through several handles).
  mutable std::mutex exec_mutex_;
  mutable dnnl::stream stream_{dnnl_cpu()};
  // Memory objects of the common path, made on the first call and given new
  // data handles after (exec_mutex_ held): creating them on every call cost
  // about a third of a small convolution's time in the API layer.
  mutable memory user_mem_[3], stage_mem_[3], out_direct_mem_, out_temp_mem_, pad_mem_[2];
  mutable std::unordered_map<int, memory> args_;
  static memory &rebind(memory &m, const memory::desc &d, void *p) {
    if (!m) m = memory(d, dnnl_cpu(), p);
    else m.set_data_handle(p);
    return m;
  }

  ConvGeometry geo_;
  Choice c_;
  Choice t_;           // BFLOAT16: the FLOAT-output primitive for blending
  bool has_t_ = false;
  memory::desc tdesc_;  // the output before blending, in t_'s (else c_'s) layout
  memory::desc ux_, uw_, uy_, packed_;
  int out_ = 2;
  int64_t taps_ = 1, rows_ = 1;
  bool out_direct_ok_ = false;
  bool staged_[3] = {false, false, false};
  size_t stage_offset_[3] = {0, 0, 0};
  dnnl::reorder in_reorder_[3];
  dnnl::reorder to_packed_;
  size_t temp_offset_ = 0, plain_offset_ = 0, flip_offset_ = 0, pad_offset_ = 0;
  bool wino_packed_ = false;  // a Winograd filter staged through packed KCRS (see the constructor)
  WorkspaceLayout scratch_;
  mutable std::mutex blend_mutex_;
  mutable std::vector<Blend> blends_;
  // Split (see the top of the file): slices of split_kc_ channels, 0 for none.
  int64_t split_kc_ = 0;
  Choice sc_;                            // the convolution of one slice
  memory::desc split_wsrc_, split_out_;  // one slice of the filter source and of the caller's output
  int64_t split_w_step_ = 0, split_out_step_ = 0;  // bytes from one slice to the next
  dnnl::reorder split_w_reorder_;
  size_t split_w_offset_ = 0, split_out_offset_ = 0;
  OnednnForwardSlices slices_;  // per-thread slices of a forward convolution, when planned
};

class OnednnConvolutionEngine final : public Engine {
 public:
  const char *name() const override { return "cpu.conv.onednn"; }
  DeviceKind device() const override { return DeviceKind::cpu; }
  int priority() const override { return 10; }
  Support supports(const graph::Graph &g) const override {
    if (Support s = precheck(g); !s) return s;
    const Decision d = decide(g);
    return d.ok ? Support::yes() : Support::no(d.why);
  }
  std::unique_ptr<ExecutionPlan> make_plan(const graph::Graph &g, const std::vector<KnobChoice> &) const override {
    if (Support s = precheck(g); !s) fail(CUDNN_STATUS_NOT_SUPPORTED, name(), ": ", s.reason);
    Decision d = decide(g);
    if (!d.ok) fail(CUDNN_STATUS_NOT_SUPPORTED, name(), ": ", d.why);
    return std::make_unique<OnednnConvPlan>(*this, g, std::move(d));
  }

 private:
  static Support precheck(const graph::Graph &g) {
    if (Support s = check_single_convolution(g); !s) return s;
    const auto &op = std::get<graph::ConvolutionOp>(g.ops().front());
    const ConvGeometry geo = convolution_geometry(g);
    if (!onednn_convolution_algo(geo.direction, op.algo))
      return Support::no("algorithm not implemented by this engine");
    if (winograd_algo(geo.direction, op.algo) && !winograd_pays(geo))
      return Support::no("oneDNN's Winograd transforms the filter on every call, 4x its size: "
                         "not where the filter outweighs the activations (cpu.conv.winograd runs it)");
    if (geo.nsp > 3) return Support::no("oneDNN convolutions have 1 to 3 spatial dimensions");
    memory::data_type dt{};
    if (!dnnl_type(geo.x.dtype, &dt) || geo.w.dtype != geo.x.dtype || geo.y.dtype != geo.x.dtype)
      return Support::no("oneDNN path: FLOAT or BFLOAT16 data, all three tensors of one type");
    if (geo.compute != CUDNN_DATA_FLOAT) return Support::no("oneDNN path: FLOAT compute only");
    for (const graph::Tensor *t : {&geo.x, &geo.w, &geo.y})
      for (int64_t s : t->strides)
        if (s <= 0) return Support::no("oneDNN memory descriptors take positive strides only");
    return cpu_convolution_algo_applies(geo, op.algo);
  }
};

}  // namespace
}  // namespace fdnn::cpu

using fdnn::cpu::OnednnConvolutionEngine;
FDNN_REGISTER_ENGINE(OnednnConvolutionEngine)

#endif  // FREEDNN_WITH_ONEDNN
