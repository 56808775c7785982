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
// its own implementation.
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

#include "cpu/convolution_common.hpp"

namespace fdnn::cpu {
namespace {

using Dir = graph::ConvDirection;
using dnnl::memory;

// The legacy algorithms this engine implements (see the top of the file).
bool onednn_convolution_algo(Dir dir, int algo) {
  switch (dir) {
    case Dir::forward: return algo == -1 || algo == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM;
    case Dir::backward_data: return algo == -1 || algo == CUDNN_CONVOLUTION_BWD_DATA_ALGO_1;
    case Dir::backward_filter: return algo == -1 || algo == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1;
  }
  return false;
}

dnnl::engine &dnnl_cpu() {
  static dnnl::engine e(dnnl::engine::kind::cpu, 0);
  return e;
}

bool dnnl_type(cudnnDataType_t t, memory::data_type *out) {
  switch (t) {
    case CUDNN_DATA_FLOAT: *out = memory::data_type::f32; return true;
    case CUDNN_DATA_BFLOAT16: *out = memory::data_type::bf16; return true;
    default: return false;
  }
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

// Packed row-major strides of a desc's dims (the plain KCRS filter).
memory::desc packed_like(const memory::desc &d, memory::data_type dt) {
  const memory::dims dims = d.dims();
  memory::dims strides(dims.size(), 1);
  for (int i = static_cast<int>(dims.size()) - 2; i >= 0; --i) strides[i] = strides[i + 1] * dims[i + 1];
  return memory::desc(dims, dt, strides);
}

// The calling thread's OpenMP team size for one call.
class OmpThreads {
 public:
  explicit OmpThreads(int n) : prev_(omp_get_max_threads()) { omp_set_num_threads(n); }
  ~OmpThreads() { omp_set_num_threads(prev_); }
  OmpThreads(const OmpThreads &) = delete;
  OmpThreads &operator=(const OmpThreads &) = delete;

 private:
  int prev_;
};

// The primitive chosen for a problem, and the layouts it reads and writes.
struct Choice {
  dnnl::primitive prim;
  memory::desc px, pw, py;  // x, w, y (or their gradients) in the primitive's layouts
  memory::desc scratchpad;
  std::string impl;
};

struct ConvShape {
  memory::dims strides, dilates, pad_l, pad_r;
};

ConvShape shape_of(const graph::ConvolutionOp &op) {
  ConvShape s;
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
  const algorithm alg = algorithm::convolution_direct;
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

bool is_reference_impl(const std::string &impl) { return impl.rfind("ref", 0) == 0; }

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
  if (!d.ok || d.choice.pw.data_type() != memory::data_type::bf16) return d;
  const auto &op = std::get<graph::ConvolutionOp>(g.ops().front());
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
    const memory::desc *user[3] = {&ux_, &uw_, &uy_};
    const memory::desc *prim[3] = {&c_.px, &c_.pw, &c_.py};
    for (int i = 0; i < 3; ++i) {
      const bool flipped = i == 1 && geo_.flip;
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
        flip_offset_ = scratch_.reserve(packed_.get_size());
        if (!(packed_ == *prim[i])) {
          stage_offset_[i] = scratch_.reserve(prim[i]->get_size());
          staged_[i] = true;
          in_reorder_[i] = make_reorder(packed_, *prim[i]);
        }
        continue;
      }
      if (!(*prim[i] == *user[i])) {
        stage_offset_[i] = scratch_.reserve(prim[i]->get_size());
        staged_[i] = true;
        in_reorder_[i] = make_reorder(*user[i], *prim[i]);
      }
    }
    pad_offset_ = scratch_.reserve(std::max(c_.scratchpad.get_size(), has_t_ ? t_.scratchpad.get_size() : 0));
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
        if (i == 1 && geo_.flip) {
          const void *plain = user[1];
          if (to_packed_) {
            memory src(uw_, dnnl_cpu(), user[1]), dst(packed_, dnnl_cpu(), scratch + plain_offset_);
            to_packed_.execute(strm, src, dst);
            strm.wait();
            plain = scratch + plain_offset_;
          }
          reverse_taps(plain, scratch + flip_offset_, rows_, taps_, memory::data_type_size(packed_.data_type()));
          memory flipped(packed_, dnnl_cpu(), scratch + flip_offset_);
          if (staged_[1]) {
            prim_mem[1] = memory(*pdesc[1], dnnl_cpu(), scratch + stage_offset_[1]);
            in_reorder_[1].execute(strm, flipped, prim_mem[1]);
          } else {
            prim_mem[1] = flipped;
          }
          continue;
        }
        memory um(*udesc[i], dnnl_cpu(), user[i]);
        if (staged_[i]) {
          prim_mem[i] = memory(*pdesc[i], dnnl_cpu(), scratch + stage_offset_[i]);
          in_reorder_[i].execute(strm, um, prim_mem[i]);
        } else {
          prim_mem[i] = um;
        }
      }
      const bool direct = out_direct_ok_ && alpha == 1.0f && beta == 0.0f;
      // BFLOAT16 outputs that are not written in place go through the
      // FLOAT-output primitive: one rounding, after the blend.
      const Choice &run = has_t_ && !direct ? t_ : c_;
      prim_mem[out_] = direct ? memory(*pdesc[out_], dnnl_cpu(), user[out_])
                              : memory(tdesc_, dnnl_cpu(), scratch + temp_offset_);
      memory pad(run.scratchpad, dnnl_cpu(), scratch + pad_offset_);
      std::unordered_map<int, memory> args{{DNNL_ARG_SCRATCHPAD, pad}};
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
        blend_reorder(*from, alpha, beta).execute(strm, result, dst);
      }
      strm.wait();
    } catch (const dnnl::error &e) {
      fail(CUDNN_STATUS_EXECUTION_FAILED, engine().name(), ": oneDNN failed: ", e.what());
    }
  }

  const std::string &impl() const { return c_.impl; }

 private:
  static dnnl::reorder make_reorder(const memory::desc &from, const memory::desc &to,
                                    const dnnl::primitive_attr &attr = dnnl::primitive_attr()) {
    return dnnl::reorder(dnnl::reorder::primitive_desc(dnnl_cpu(), from, dnnl_cpu(), to, attr));
  }

  // out = alpha * result + beta * out, cached per (alpha, beta): oneDNN 2.6
  // takes the sum post-op's scale only at creation.
  dnnl::reorder blend_reorder(const memory::desc &from, float alpha, float beta) const {
    std::lock_guard<std::mutex> lock(blend_mutex_);
    for (const auto &b : blends_)
      if (b.alpha == alpha && b.beta == beta) return b.prim;
    dnnl::primitive_attr attr;
    if (alpha != 1.0f) attr.set_output_scales(0, {alpha});
    if (beta != 0.0f) {
      dnnl::post_ops po;
      po.append_sum(beta);
      attr.set_post_ops(po);
    }
    const memory::desc &to = out_ == 0 ? ux_ : out_ == 1 ? uw_ : uy_;
    dnnl::reorder r = make_reorder(from, to, attr);
    if (blends_.size() < 8) blends_.push_back({alpha, beta, r});
    return r;
  }

  struct Blend {
    float alpha, beta;
    dnnl::reorder prim;
  };
  static constexpr size_t kBaseAlign = 4096;

  // One in-order CPU stream per plan; executions of one plan are serialised
  // (a backend plan may be run through several handles).
  mutable std::mutex exec_mutex_;
  mutable dnnl::stream stream_{dnnl_cpu()};

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
  WorkspaceLayout scratch_;
  mutable std::mutex blend_mutex_;
  mutable std::vector<Blend> blends_;
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
