// Forward convolutions of cpu.conv.onednn as per-thread slices: each thread
// takes a fixed share of (output-channel slice, unit group) items and, for
// each, copies its slice of the caller's filter into oneDNN's blocked layout
// in a buffer of its own that stays in its L2, runs a one-thread oneDNN
// convolution of that slice (x read in place), and copies (or blends) the
// slice's output into the caller's y. One OpenMP region per call: the
// threads never wait for each other until its end.
//
// Why: the whole-problem path (a multi-threaded reorder of the whole filter,
// then a multi-threaded convolution) writes the reordered filter out and
// reads it back, and pays a fork/join per oneDNN call. Measured on 2 threads
// (ours / oneDNN with pre-reordered weights, whole path -> slices):
// 512x7x7 3x3 batch 8 0.82-0.91 -> 1.04-1.14, 1x1 64->64 at 56x56 batch 1
// 0.92-0.93 -> 0.95-0.98, 256x14x14 3x3 batch 1 0.86-0.87 -> 0.88-0.91.
// What remains at batch 1 is the copy itself: it reads the filter from L3
// at about 23 GB/s per core and cannot overlap the arithmetic, where
// oneDNN's kernels stream their pre-reordered filter while they compute.
// The copy is ours where it can be (cuDNN's KRSC filter into oneDNN's
// [kc/B][taps][C][B]: whole-cache-line transposes, transpose_lines.hpp,
// one core 9.4 MB in 590 KB slices: oneDNN's jit:uni reorder 0.62 ms,
// memcpy 0.41 ms; 256x14x14 batch 1 0.88 -> 0.91), oneDNN's reorder
// elsewhere (the flipped copy of CONVOLUTION mode, KCRS filters).
//
// Items: output-channel slices of kc channels (a multiple of 16 dividing K,
// the largest whose reordered filter fits kSliceBytes), times groups of
// units, where a unit is an image, or one pixel for a 1x1 stride-1 unpadded
// convolution (whose pixels are independent, so that small batches still
// give every thread work without splitting the channels). A group's output
// slice (kOutBytes at most) is what the copy into y reads back from L2; a
// slice of all K channels is written into y in place. Items are numbered
// slice-major and every thread takes a contiguous run, so it copies each of
// its slices once.
//
// Where: FLOAT data, forward, no groups, x and y packed channels-innermost
// (NHWC, NDHWC), the filter at least as large as the activations (or a 1x1
// convolution, see plan()), oneDNN having a JIT (not reference, not im2col
// GEMM outside 1x1) one-thread kernel for the slice problem with x in place,
// and at least one item per thread. FREEDNN_ONEDNN_CONV_SLICES=0 turns it
// off, =1 takes the smallest slices and groups whatever the sizes (tests
// reach several slices and groups with small problems that way);
// FREEDNN_ONEDNN_CONV_SLICE_KB sets the slice budget and
// FREEDNN_ONEDNN_CONV_SLICE_REORDER=onednn copies with oneDNN's reorder
// (measurements).
#ifdef FREEDNN_WITH_ONEDNN
#include "cpu/convolution_onednn_slices.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>

#include "cpu/convolution_lowering.hpp"
#include "cpu/onednn_support.hpp"
#include "cpu/transpose_lines.hpp"

namespace fdnn::cpu {
namespace {

using dnnl::memory;

// The reordered filter of one slice: half of a core's 2 MB L2, so that x's
// rows and the output slice stay beside it.
constexpr int64_t kSliceBytes = int64_t{1} << 20;
// The output of one item, copied into y right after the convolution wrote it.
constexpr int64_t kOutBytes = int64_t{256} << 10;

std::string env_of(const char *name) {
  const char *e = std::getenv(name);
  return e != nullptr ? e : "";
}

// Packed, channels-innermost strides of dims {N, C, spatial...}.
memory::desc channels_last(const memory::dims &dims, memory::data_type dt) {
  memory::dims strides(dims.size());
  memory::dim step = dims[1];
  strides[1] = 1;
  for (size_t d = dims.size(); d-- > 2;) {
    strides[d] = step;
    step *= dims[d];
  }
  strides[0] = step;
  return memory::desc(dims, dt, strides);
}

bool packed_channels_last(const graph::Tensor &t) {
  int64_t step = t.dims[1];
  if (t.strides[1] != 1) return false;
  for (int d = t.rank() - 1; d >= 2; --d) {
    if (t.strides[d] != step) return false;
    step *= t.dims[d];
  }
  return t.strides[0] == step;
}

bool pointwise(const ConvGeometry &geo) {
  for (int i = 0; i < geo.nsp; ++i)
    if (geo.filt[i] != 1 || geo.stride[i] != 1 || geo.pad[i] != 0 || geo.out[i] != geo.in[i]) return false;
  return true;
}

// The output-channel block B when `d` (dims {kc, C, spatial...}) is
// [kc / B][spatial...][C][B] without padding (oneDNN's Acdb32a and its
// kin), else 0.
int64_t kblocked(const memory::desc &d) {
  const auto &md = d.data;
  const auto &blk = md.format_desc.blocking;
  if (md.format_kind != dnnl_blocked || blk.inner_nblks != 1 || blk.inner_idxs[0] != 0 || md.offset0 != 0) return 0;
  const int64_t B = blk.inner_blks[0];
  if (B % 16 != 0 || md.dims[0] % B != 0) return 0;
  for (int i = 0; i < md.ndims; ++i)
    if (md.padded_dims[i] != md.dims[i]) return 0;
  int64_t step = B;
  if (blk.strides[1] != step) return 0;
  step *= md.dims[1];
  for (int i = md.ndims - 1; i >= 2; --i) {
    if (blk.strides[i] != step) return 0;
    step *= md.dims[i];
  }
  return blk.strides[0] == step ? B : 0;
}

// Whether `d` (dims {kc, C, spatial...}) is packed with C innermost, then
// the spatial dimensions, then K (cuDNN's KRSC filter): each output
// channel's taps x C floats in the order of kblocked's rows.
bool krsc(const memory::desc &d) {
  const auto &md = d.data;
  const auto &blk = md.format_desc.blocking;
  if (md.format_kind != dnnl_blocked || blk.inner_nblks != 0 || blk.strides[1] != 1) return false;
  int64_t step = md.dims[1];
  for (int i = md.ndims - 1; i >= 2; --i) {
    if (blk.strides[i] != step) return false;
    step *= md.dims[i];
  }
  return blk.strides[0] == step;
}

// The largest divisor of n that is at most cap (1 at least).
int64_t divisor_at_most(int64_t n, int64_t cap) {
  for (int64_t d = std::min(n, std::max<int64_t>(cap, 1)); d > 1; --d)
    if (n % d == 0) return d;
  return 1;
}

// dst[p][0..kc) = alpha * o[p][0..kc) + beta * dst[p][0..kc) for `pixels`
// pixels of dst (K floats apart); beta 0 never reads dst.
void write_slice(const float *o, float *dst, int64_t pixels, int64_t kc, int64_t K, float alpha, float beta) {
  if (alpha == 1.0f && beta == 0.0f) {
    for (int64_t p = 0; p < pixels; ++p) std::memcpy(dst + p * K, o + p * kc, static_cast<size_t>(kc) * 4);
  } else if (beta == 0.0f) {
    for (int64_t p = 0; p < pixels; ++p)
      for (int64_t k = 0; k < kc; ++k) dst[p * K + k] = alpha * o[p * kc + k];
  } else {
    for (int64_t p = 0; p < pixels; ++p)
      for (int64_t k = 0; k < kc; ++k) dst[p * K + k] = alpha * o[p * kc + k] + beta * dst[p * K + k];
  }
}

}  // namespace

bool OnednnForwardSlices::plan(const ConvGeometry &geo, const OnednnConvParams &prm, const memory::desc &wsource,
                               int threads, WorkspaceLayout &scratch) {
  const std::string mode = env_of("FREEDNN_ONEDNN_CONV_SLICES");
  if (mode == "0") return false;
  // A forced split (tests of it) keeps the plan's older form.
  if (mode != "1" && env_of("FREEDNN_ONEDNN_CONV_SPLIT") == "1") return false;
  if (geo.direction != graph::ConvDirection::forward || geo.G != 1 || geo.x.dtype != CUDNN_DATA_FLOAT ||
      geo.w.dtype != CUDNN_DATA_FLOAT || geo.y.dtype != CUDNN_DATA_FLOAT || geo.compute != CUDNN_DATA_FLOAT)
    return false;
  if (!packed_channels_last(geo.x) || !packed_channels_last(geo.y)) return false;
  if (wsource.data.format_kind != dnnl_blocked || wsource.data.format_desc.blocking.inner_nblks != 0) return false;
  threads = std::max(threads, 1);
  const bool forced = mode == "1";
  const bool pw = pointwise(geo);
  const int64_t taps = geo.filter_taps(), out_pixels = geo.out_pixels();
  // Slices of channels make every thread read all of its units' x: worth it
  // where the filter is at least as large as the activations (2 threads,
  // ours / oneDNN, whole-problem path / slices: 512x7x7 3x3 batch 8 0.82-0.91
  // / 1.04-1.14, 256x14x14 batch 1 0.86 / 0.88-0.91), not below (batch 1:
  // 64x56x56 3x3 0.99 / 0.92, 128x28x28 0.94 / 0.85, the 7x7 stride-2 stem
  // 0.99 / 0.68). 1x1 convolutions split their pixels instead (64->64 at
  // 56x56 batch 1: 0.92-0.93 / 0.92-0.98).
  const int64_t w_bytes = geo.K * geo.C * taps * 4;
  const int64_t act_bytes = (geo.N * geo.in_pixels() * geo.C + geo.N * out_pixels * geo.K) * 4;
  if (!forced && !pw && w_bytes < act_bytes) return false;
  const int64_t units = pw ? geo.N * out_pixels : geo.N;
  const int64_t unit_pixels = pw ? 1 : out_pixels;
  const int64_t chan_bytes = geo.C * taps * 4;  // one output channel's filter
  int64_t budget = kSliceBytes;
  if (const std::string kb = env_of("FREEDNN_ONEDNN_CONV_SLICE_KB"); !kb.empty())
    budget = std::max<int64_t>(1, std::atoll(kb.c_str())) << 10;

  // The slice and group sizes (see the top of the file).
  int64_t kc = 0, ug = 0;
  for (int64_t c = geo.K; c >= 16; --c) {
    if (geo.K % c != 0 || c % 16 != 0) continue;
    const int64_t chunks = geo.K / c;
    if (forced) {
      if (chunks < 2 && geo.K >= 32) continue;
      kc = c, ug = 1;  // keep the smallest slice that divides K: the loop goes on
      continue;
    }
    if (c * chan_bytes > budget) continue;
    // Groups of units: as large as the output budget allows, but enough of
    // them that every thread gets items, in whole multiples of the threads
    // (or many items per thread).
    const int64_t need_groups = (threads + chunks - 1) / chunks;
    // (A slice of all K channels is written into y in place: no output
    // budget, the fewest items.)
    const int64_t out_cap = c == geo.K ? units : kOutBytes / std::max<int64_t>(1, unit_pixels * c * 4);
    int64_t g = divisor_at_most(units, std::min(out_cap, units / need_groups));
    const int64_t items = chunks * (units / g);
    if (items < threads || (items % threads != 0 && items < 4 * threads)) continue;
    kc = c, ug = g;
    break;
  }
  if (kc == 0) return false;

  // The one-thread convolution of one item, x in place.
  const memory::data_type f32 = memory::data_type::f32;
  memory::dims xd{pw ? 1 : ug, geo.C}, yd{pw ? 1 : ug, kc}, wd{kc, geo.C};
  for (int i = 0; i < geo.nsp; ++i) {
    const bool last = i == geo.nsp - 1;
    xd.push_back(pw ? (last ? ug : 1) : geo.in[i]);
    yd.push_back(pw ? (last ? ug : 1) : geo.out[i]);
    wd.push_back(geo.filt[i]);
  }
  try {
    OmpThreads one(1);  // oneDNN sizes its kernels' threading at creation
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    x_ = channels_last(xd, f32);
    obuf_ = channels_last(yd, f32);
    dnnl::convolution_forward::primitive_desc pd(
        dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, x_,
                                        memory::desc(wd, f32, memory::format_tag::any), obuf_, prm.strides,
                                        prm.dilates, prm.pad_l, prm.pad_r),
        attr, dnnl_cpu());
    impl_ = pd.impl_info_str();
    if (is_reference_impl(impl_) || (!pw && impl_.find("gemm") != std::string::npos &&
                                      impl_.find("brg") == std::string::npos))
      return false;
    if (!(pd.src_desc() == x_) || !(pd.dst_desc() == obuf_)) return false;
    wbuf_ = pd.weights_desc();
    pad_ = pd.scratchpad_desc();
    conv_ = dnnl::convolution_forward(pd);
    const auto &blk = wsource.data.format_desc.blocking;
    wsrc_ = memory::desc(wd, f32, memory::dims(blk.strides, blk.strides + wsource.data.ndims));
    dnnl::reorder::primitive_desc rpd(dnnl_cpu(), wsrc_, dnnl_cpu(), wbuf_, attr);
    if (is_reference_impl(rpd.impl_info_str()) && !forced) return false;
    rpad_ = rpd.scratchpad_desc();
    reorder_ = dnnl::reorder(rpd);
    w_chunk_bytes_ = kc * blk.strides[0] * 4;
    // KRSC into oneDNN's [kc / B][taps][C][B]: B x (taps C) transposes of
    // whole cache lines, 1.5x faster than oneDNN's jit:uni reorder from L3
    // (one core: 9.4 MB in slices of 590 KB 0.62 ms, memcpy 0.41 ms), staged
    // through L1 a group of 16 columns at a time (line_transpose_staged: on
    // the Xeon guest 1.4x faster from L2, 1.8x from L3 than storing each
    // block's lines straight to their rows; 256x14x14 batch 1 ours / oneDNN
    // in paired rounds 0.88-0.89 -> 0.90).
    const int64_t kb = kblocked(wbuf_);
    if (env_of("FREEDNN_ONEDNN_CONV_SLICE_REORDER") != "onednn" && krsc(wsrc_) && kb > 0 &&
        line_transpose_staged_available(kb)) {
      kblock_ = kb;
      row_floats_ = blk.strides[0];
    }
  } catch (const dnnl::error &) {
    return false;
  }
  kc_ = kc;
  chunks_ = geo.K / kc;
  unit_group_ = ug;
  groups_ = units / ug;
  unit_pixels_ = unit_pixels;
  pixel_units_ = pw;
  K_ = geo.K;
  x_unit_bytes_ = (pw ? 1 : geo.in_pixels()) * geo.C * 4;
  y_unit_bytes_ = unit_pixels * geo.K * 4;
  threads_ = threads;
  // One block of buffers per thread, each starting on its own page.
  WorkspaceLayout task;
  wbuf_off_ = task.reserve(wbuf_.get_size());
  obuf_off_ = task.reserve(obuf_.get_size());
  pad_off_ = task.reserve(pad_.get_size());
  rpad_off_ = task.reserve(rpad_.get_size());
  task_bytes_ = (task.total() + 4095) / 4096 * 4096;
  base_off_ = scratch.reserve(task_bytes_ * static_cast<size_t>(threads) + 4096);
  tasks_.resize(static_cast<size_t>(threads));
  return true;
}

void OnednnForwardSlices::run(ThreadPool *pool, char *scratch, const void *x, const void *wsource, void *y,
                              float alpha, float beta) const {
  const int64_t items = chunks_ * groups_;
  const auto task = [&](int64_t t, int64_t lo, int64_t hi) {
    run_task(t, lo, hi, scratch, static_cast<const char *>(x), static_cast<const char *>(wsource),
             static_cast<char *>(y), alpha, beta);
  };
#ifdef _OPENMP
  // OpenMP's team rather than the pool: its threads spin for a while after
  // each region, so back-to-back calls start at once (the pool's sleeping
  // workers took up to half of a 0.08 ms convolution to wake). The pool's
  // own threads sleep meanwhile, as for every oneDNN call.
  (void)pool;
  std::exception_ptr error;
#pragma omp parallel num_threads(threads_)
  {
    const int64_t n = omp_get_num_threads(), t = omp_get_thread_num();
    const int64_t per = (items + n - 1) / n, lo = t * per, hi = std::min(items, lo + per);
    try {
      if (lo < hi) task(t, lo, hi);
    } catch (...) {
#pragma omp critical(fdnn_conv_slices_error)
      if (!error) error = std::current_exception();
    }
  }
  if (error) std::rethrow_exception(error);
#else
  for_chunks(pool, items, threads_, task);
#endif
}

void OnednnForwardSlices::run_task(int64_t task, int64_t lo, int64_t hi, char *scratch, const char *x,
                                   const char *w, char *y, float alpha, float beta) const {
  OmpThreads one(1);  // oneDNN's reorder takes the calling thread's team size
  Task &t = tasks_[static_cast<size_t>(task)];
  char *base = reinterpret_cast<char *>((reinterpret_cast<uintptr_t>(scratch + base_off_) + 4095) / 4096 * 4096) +
               static_cast<size_t>(task) * task_bytes_;
  const auto bind = [](memory &m, const memory::desc &d, const void *p) {
    if (!m) m = memory(d, dnnl_cpu(), const_cast<void *>(p));
    else m.set_data_handle(const_cast<void *>(p));
  };
  bind(t.wbuf, wbuf_, base + wbuf_off_);
  bind(t.obuf, obuf_, base + obuf_off_);
  bind(t.pad, pad_, base + pad_off_);
  bind(t.rpad, rpad_, base + rpad_off_);
  bind(t.wsrc, wsrc_, w);
  bind(t.x, x_, x);
  if (!t.strm) {
    t.strm = dnnl::stream(dnnl_cpu());
    t.conv_args = {{DNNL_ARG_SRC, t.x}, {DNNL_ARG_WEIGHTS, t.wbuf}, {DNNL_ARG_DST, t.obuf}, {DNNL_ARG_SCRATCHPAD, t.pad}};
    t.reorder_args = {{DNNL_ARG_FROM, t.wsrc}, {DNNL_ARG_TO, t.wbuf}};
    if (rpad_.get_size() > 0) t.reorder_args[DNNL_ARG_SCRATCHPAD] = t.rpad;
  }
  // A slice of all K channels is a contiguous part of y: written in place
  // when nothing is blended.
  const bool in_place = alpha == 1.0f && beta == 0.0f && kc_ == K_;
  int64_t loaded = -1;
  for (int64_t item = lo; item < hi; ++item) {
    const int64_t chunk = item / groups_, group = item % groups_;
    if (chunk != loaded) {
      const char *src = w + chunk * w_chunk_bytes_;
      if (kblock_ > 0) {
        char *dst = base + wbuf_off_;
        const size_t block_bytes = static_cast<size_t>(kblock_ * row_floats_) * 4;
        for (int64_t b = 0; b < kc_ / kblock_; ++b)
          line_transpose_staged(reinterpret_cast<const float *>(src + b * block_bytes), row_floats_, kblock_, row_floats_,
                                reinterpret_cast<float *>(dst + b * block_bytes));
      } else {
        t.wsrc.set_data_handle(const_cast<char *>(src));
        reorder_.execute(t.strm, t.reorder_args);
      }
      loaded = chunk;
    }
    t.x.set_data_handle(const_cast<char *>(x + group * unit_group_ * x_unit_bytes_));
    float *dst = reinterpret_cast<float *>(y + group * unit_group_ * y_unit_bytes_) + chunk * kc_;
    t.obuf.set_data_handle(in_place ? static_cast<void *>(dst) : base + obuf_off_);
    conv_.execute(t.strm, t.conv_args);
    if (!in_place)
      write_slice(reinterpret_cast<const float *>(base + obuf_off_), dst, unit_group_ * unit_pixels_, kc_, K_, alpha,
                  beta);
  }
  t.strm.wait();
}

}  // namespace fdnn::cpu

#endif  // FREEDNN_WITH_ONEDNN
