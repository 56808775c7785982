// --op=pool: cudnnPoolingForward (y = alpha*pool(x) + beta*y) and, with an
// alg prefixed "bwd_", cudnnPoolingBackward (dx from dy, x, y). Shapes:
// X:WINDOW:STRIDE:PADDING (2 or 3 spatial dimensions), e.g.
// 32x64x112x112:3x3:2x2:1x1. y has the advised extents.
// oneDNN peer (alpha 1, beta 0, no NaN propagation, advised output
// extents, where oneDNN's pooling means exactly ours): pooling_forward, and
// pooling_backward; oneDNN's max-pool backward reads the argmax workspace of
// a training forward (made once, outside the timing) instead of x.
#include <cmath>
#include <string>
#include <unordered_map>

#ifdef FREEDNN_BENCH_ONEDNN
#include <oneapi/dnnl/dnnl.hpp>
#endif

#include "common/pooling_reference.hpp"
#include "dtype.hpp"
#include "host_data.hpp"
#include "default_set.hpp"
#include "layout.hpp"
#include "op.hpp"
#include "scaling.hpp"
#include "tensor.hpp"

namespace bench {
namespace {

struct PoolAlg {
  const char *name;
  cudnnPoolingMode_t mode;
};
const PoolAlg kPoolAlgs[] = {{"max", CUDNN_POOLING_MAX},
                             {"maxdet", CUDNN_POOLING_MAX_DETERMINISTIC},
                             {"avg_inc", CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING},
                             {"avg_exc", CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING}};

struct Parsed {
  cudnnPoolingMode_t mode = CUDNN_POOLING_MAX;
  bool backward = false;
};

Parsed parse_alg(const std::string &alg_in) {
  Parsed r;
  std::string alg = alg_in.empty() ? "max" : alg_in;
  if (alg.rfind("bwd_", 0) == 0) {
    r.backward = true;
    alg = alg.substr(4);
  }
  for (const PoolAlg &a : kPoolAlgs)
    if (alg == a.name) {
      r.mode = a.mode;
      return r;
    }
  throw std::invalid_argument("unknown pool --alg '" + alg_in + "' ([bwd_]max, maxdet, avg_inc, avg_exc)");
}

fdnn_test::PoolingParams params_of(const Problem &p, cudnnPoolingMode_t mode) {
  fdnn_test::PoolingParams q;
  q.mode = mode;
  q.propagate_nan = p.knobs.nan == "prop";
  for (size_t d = 0; d < p.shapes[1].size(); ++d) {
    q.window.push_back(static_cast<int>(p.shapes[1][d]));
    q.stride.push_back(static_cast<int>(p.shapes[2][d]));
    q.padding.push_back(static_cast<int>(p.shapes[3][d]));
  }
  return q;
}

#ifdef FREEDNN_BENCH_ONEDNN
class OnednnPoolPeer : public PeerRun {
 public:
  OnednnPoolPeer(const fdnn_test::PoolingParams &q, bool backward, const PeerTensor &x, const PeerTensor &y)
      : engine_(dnnl::engine::kind::cpu, 0), stream_(engine_) {
    using namespace dnnl;
    const memory::desc xmd = md(x), ymd = md(y);
    memory::dims strides, kernel, pad;
    for (size_t d = 0; d < q.window.size(); ++d) {
      strides.push_back(q.stride[d]);
      kernel.push_back(q.window[d]);
      pad.push_back(q.padding[d]);
    }
    algorithm alg = algorithm::pooling_max;
    if (q.mode == CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING) alg = algorithm::pooling_avg_include_padding;
    if (q.mode == CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING) alg = algorithm::pooling_avg_exclude_padding;
    const prop_kind pk = backward ? prop_kind::forward_training : prop_kind::forward_inference;
    pooling_forward::primitive_desc fpd(pooling_forward::desc(pk, alg, xmd, ymd, strides, kernel, pad, pad), engine_);
    memory src = filled(xmd), dst(ymd, engine_);
    std::unordered_map<int, memory> fargs{{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}};
    if (backward && alg == algorithm::pooling_max) fargs[DNNL_ARG_WORKSPACE] = memory(fpd.workspace_desc(), engine_);
    if (!backward) {
      prim_ = pooling_forward(fpd);
      args_ = fargs;
      name_ = std::string("oneDNN pooling_forward (") + fpd.impl_info_str() + ")";
      return;
    }
    pooling_forward(fpd).execute(stream_, fargs);  // the workspace of max pooling
    stream_.wait();
    pooling_backward::primitive_desc bpd(pooling_backward::desc(alg, xmd, ymd, strides, kernel, pad, pad), engine_,
                                         fpd);
    args_ = {{DNNL_ARG_DIFF_DST, filled(ymd)}, {DNNL_ARG_DIFF_SRC, memory(xmd, engine_)}};
    if (fargs.count(DNNL_ARG_WORKSPACE)) args_[DNNL_ARG_WORKSPACE] = fargs[DNNL_ARG_WORKSPACE];
    prim_ = pooling_backward(bpd);
    name_ = std::string("oneDNN pooling_backward (") + bpd.impl_info_str() + ")";
  }
  void execute() override {
    prim_.execute(stream_, args_);
    stream_.wait();
  }
  std::string name() const override { return name_; }

 private:
  static dnnl::memory::desc md(const PeerTensor &t) {
    using dt = dnnl::memory::data_type;
    dt type = dt::f32;
    if (t.dt == "f16") type = dt::f16;
    else if (t.dt == "bf16") type = dt::bf16;
    else if (t.dt == "s8") type = dt::s8;
    else if (t.dt != "f32") throw std::invalid_argument("no oneDNN type");
    return dnnl::memory::desc(dnnl::memory::dims(t.dims.begin(), t.dims.end()), type,
                              dnnl::memory::dims(t.strides.begin(), t.strides.end()));
  }
  // Small normal values (0x3c00 pairs: 1.0 in f16, a normal f32/bf16).
  dnnl::memory filled(const dnnl::memory::desc &d) {
    dnnl::memory m(d, engine_);
    auto *p = static_cast<unsigned char *>(m.get_data_handle());
    const unsigned char pattern[4] = {0x00, 0x3c, 0x00, 0x3c};
    for (size_t i = 0; i < d.get_size(); ++i) p[i] = pattern[i % 4];
    return m;
  }
  dnnl::engine engine_;
  dnnl::stream stream_;
  dnnl::primitive prim_;
  std::unordered_map<int, dnnl::memory> args_;
  std::string name_;
};
#endif

class PoolRun : public OpRun {
 public:
  PoolRun(cudnnHandle_t handle, const Problem &p)
      : handle_(handle),
        alg_(parse_alg(p.knobs.alg)),
        params_(params_of(p, alg_.mode)),
        x_(p.shapes[0], p.knobs.stag, p.knobs.dt),
        y_(fdnn_test::pooling_output_dims(params_, p.shapes[0]), p.knobs.dtag, p.knobs.dt),
        dy_(y_.dims(), p.knobs.dtag, p.knobs.dt),
        dx_(p.shapes[0], p.knobs.stag, p.knobs.dt),
        alpha_(p.knobs.dt, p.knobs.alpha),
        beta_(p.knobs.dt, p.beta_or(0)) {
    check_status(cudnnCreatePoolingDescriptor(&desc_), "cudnnCreatePoolingDescriptor");
    const cudnnStatus_t s = cudnnSetPoolingNdDescriptor(
        desc_, params_.mode, params_.propagate_nan ? CUDNN_PROPAGATE_NAN : CUDNN_NOT_PROPAGATE_NAN,
        static_cast<int>(params_.window.size()), params_.window.data(), params_.padding.data(), params_.stride.data());
    if (s != CUDNN_STATUS_SUCCESS) cudnnDestroyPoolingDescriptor(desc_);
    check_status(s, "cudnnSetPoolingNdDescriptor");
  }
  ~PoolRun() override { cudnnDestroyPoolingDescriptor(desc_); }

  void fill(uint64_t seed) override {
    hx_ = fill_random(x_, seed, -2, 2);
    if (!alg_.backward) {
      hy0_ = beta_.value() != 0 ? fill_random(y_, seed + 1, -2, 2) : host_like(y_);
      if (beta_.value() == 0) poison(y_);
      return;
    }
    hdy_ = fill_random(dy_, seed + 2, -2, 2);
    hy0_ = fill_random(y_, seed + 1, -2, 2);  // y: cuDNN may read it; we do not
    hdx0_ = beta_.value() != 0 ? fill_random(dx_, seed + 3, -2, 2) : host_like(dx_);
    if (beta_.value() == 0) poison(dx_);
  }

  void execute() override {
    if (alg_.backward)
      check_status(cudnnPoolingBackward(handle_, desc_, alpha_.ptr(), y_.desc(), y_.data(), dy_.desc(), dy_.data(),
                                        x_.desc(), x_.data(), beta_.ptr(), dx_.desc(), dx_.data()),
                   "cudnnPoolingBackward");
    else
      check_status(cudnnPoolingForward(handle_, desc_, alpha_.ptr(), x_.desc(), x_.data(), beta_.ptr(), y_.desc(),
                                       y_.data()),
                   "cudnnPoolingForward");
  }

  CheckResult check() override {
    const cudnnDataType_t ct = default_compute_type(x_.dt());
    if (alg_.backward)
      return compare(download(dx_), fdnn_test::reference_pooling_backward(params_, hx_, hdy_, alpha_.value(),
                                                                          beta_.value(), hdx0_, ct));
    return compare(download(y_),
                   fdnn_test::reference_pooling_forward(params_, hx_, alpha_.value(), beta_.value(), hy0_, ct));
  }

  std::unique_ptr<PeerRun> onednn_peer() const override {
#ifdef FREEDNN_BENCH_ONEDNN
    if (alpha_.value() != 1 || beta_.value() != 0 || params_.propagate_nan) return nullptr;
    try {
      return std::make_unique<OnednnPoolPeer>(params_, alg_.backward, x_.peer(), y_.peer());
    } catch (const std::exception &) {
      return nullptr;  // a type or layout oneDNN does not take
    }
#else
    return nullptr;
#endif
  }

  double bytes_moved() const override {
    const double x = static_cast<double>(x_.bytes()), y = static_cast<double>(y_.bytes());
    const bool max = alg_.mode == CUDNN_POOLING_MAX || alg_.mode == CUDNN_POOLING_MAX_DETERMINISTIC;
    if (!alg_.backward) return x + y * (beta_.value() != 0 ? 2 : 1);
    return y + (max ? x : 0) + x * (beta_.value() != 0 ? 2 : 1);
  }

 private:
  cudnnHandle_t handle_;
  Parsed alg_;
  fdnn_test::PoolingParams params_;
  BenchTensor x_, y_, dy_, dx_;
  Scaling alpha_, beta_;
  cudnnPoolingDescriptor_t desc_ = nullptr;
  HostTensor hx_, hy0_, hdy_, hdx0_;
};

class PoolFamily : public OpFamily {
 public:
  const char *name() const override { return "pool"; }
  const char *help() const override {
    return "  pool       cudnnPoolingForward / cudnnPoolingBackward. --alg=[bwd_]max|maxdet|\n"
           "             avg_inc|avg_exc [max]; --nan. SHAPES: X:WINDOW:STRIDE:PADDING with 2 or 3\n"
           "             spatial dims (e.g. 32x64x112x112:3x3:2x2:1x1); y has the advised\n"
           "             extents. --stag is x's (and dx's) layout, --dtag y's; --dt.\n";
  }
  void validate(const Problem &p) const override {
    parse_alg(p.knobs.alg);
    if (p.shapes.size() != 4) throw std::invalid_argument("pool takes X:WINDOW:STRIDE:PADDING");
    const size_t s = p.shapes[1].size();
    if ((s != 2 && s != 3) || p.shapes[0].size() != s + 2 || p.shapes[2].size() != s || p.shapes[3].size() != s)
      throw std::invalid_argument("pool needs 2 or 3 spatial dims and one window/stride/padding entry each");
    for (size_t d = 0; d < s; ++d)
      if (p.shapes[0][2 + d] + 2 * p.shapes[3][d] < p.shapes[1][d])
        throw std::invalid_argument("a window is larger than the padded input");
    letter_tag(p.knobs.stag, p.shapes[0].size());
    letter_tag(p.knobs.dtag, p.shapes[0].size());
  }
  std::string knobs_text(const Problem &p) const override {
    std::string t = "--alg=" + (p.knobs.alg.empty() ? std::string("max") : p.knobs.alg) + " --dt=" + p.knobs.dt +
                    " --stag=" + p.knobs.stag + " --dtag=" + p.knobs.dtag;
    t += blend_text(p);
    if (p.knobs.nan != "noprop") t += " --nan=" + p.knobs.nan;
    return t;
  }
  std::unique_ptr<OpRun> prepare(cudnnHandle_t handle, const Problem &p) const override {
    return std::make_unique<PoolRun>(handle, p);
  }
};

BENCH_REGISTER_OP(PoolFamily)

}  // namespace

BENCH_DEFAULT_PROBLEMS(pooling, 30, {
    "--reset --name=pool.max3s2.nhwc.f32 --op=pool --alg=max --dt=f32 --stag=acdb --dtag=acdb 32x64x112x112:3x3:2x2:1x1",
    "--reset --name=pool.max3s2.nchw.f32 --op=pool --alg=max --dt=f32 32x64x112x112:3x3:2x2:1x1",
    "--reset --name=pool.avg3s2.nhwc.f32 --op=pool --alg=avg_inc --dt=f32 --stag=acdb --dtag=acdb 32x64x112x112:3x3:2x2:1x1",
    "--reset --name=pool.bwd.max3s2.nhwc.f32 --op=pool --alg=bwd_max --dt=f32 --stag=acdb --dtag=acdb 32x64x112x112:3x3:2x2:1x1",
    "--reset --name=pool.bwd.avg3s2.nchw.f32 --op=pool --alg=bwd_avg_exc --dt=f32 32x64x112x112:3x3:2x2:1x1",
})

}  // namespace bench
