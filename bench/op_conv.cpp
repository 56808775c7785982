// --op=conv: cudnnConvolutionForward (--dir=FWD_D), cudnnConvolutionBackwardData
// (BWD_D) and cudnnConvolutionBackwardFilter (BWD_W), with problems written as
// benchdnn's convolution descriptors:
//   [g#]mb#ic#[id#]ih#iw#oc#[od#]oh#ow#[kd#]kh#kw#[sd#]sh#sw#[pd#]ph#pw#[dd#]dh#dw#
// e.g. mb8ic64ih56oc64oh56kh3ph1. As in benchdnn: mb 2, g 1, strides 1,
// padding 0, dilation 0 (oneDNN counts dilation from 0: cuDNN's dilation is
// d + 1) unless given; a missing width (depth) takes the height's value; a
// missing output extent is computed; any d-prefixed entry makes it 3-d.
// --alg names the legacy algorithm (IMPLICIT_PRECOMP_GEMM, ALGO_1, ...; the
// enum's name without its prefix) or `auto`: the first answer of
// cudnnGetConvolution*Algorithm_v7. The workspace is what
// cudnnGetConvolution*WorkspaceSize asks for. --tag: nchw (filters KCRS) or
// nhwc (filters KRSC); --dt: f32, f16, bf16, f64.
// GFLOP/s count a multiply-add as 2 (2 N K C/G out-pixels taps, every
// direction). oneDNN peer (alpha 1, beta 0, f32/bf16): the same convolution
// with format_tag::any operands, see onednn_conv_peer.hpp.
#include <algorithm>
#include <cctype>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "common/convolution_reference.hpp"
#include "common/buffer.hpp"
#include "default_set.hpp"
#include "dtype.hpp"
#include "host_data.hpp"
#include "layout.hpp"
#include "onednn_conv_peer.hpp"
#include "op.hpp"
#include "scaling.hpp"
#include "tensor.hpp"

namespace bench {
namespace {

// One benchdnn descriptor; spatial arrays are (d, h, w).
struct ConvDesc {
  int64_t g = 1, mb = 2, ic = 0, oc = 0;
  int nsp = 2;
  int64_t in[3] = {0, 0, 0}, out[3] = {0, 0, 0}, k[3] = {0, 0, 0}, s[3] = {0, 0, 0}, p[3] = {0, 0, 0},
          d[3] = {0, 0, 0};
  bool has_out[3] = {false, false, false};

  // First spatial index in use (1 for 2-d: h, w).
  int first() const { return 3 - nsp; }
};

ConvDesc parse_desc(const std::string &text) {
  if (text.empty()) throw std::invalid_argument("conv takes a descriptor such as mb8ic64ih56oc64oh56kh3ph1");
  std::map<std::string, int64_t> v;
  size_t i = 0;
  while (i < text.size()) {
    size_t j = i;
    while (j < text.size() && std::isalpha(static_cast<unsigned char>(text[j]))) ++j;
    size_t k = j;
    while (k < text.size() && std::isdigit(static_cast<unsigned char>(text[k]))) ++k;
    const std::string key = text.substr(i, j - i);
    if (key.empty() || k == j) throw std::invalid_argument("bad conv descriptor near '" + text.substr(i) + "'");
    static const char *const known[] = {"g",  "mb", "ic", "oc", "id", "ih", "iw", "od", "oh", "ow", "kd", "kh",
                                        "kw", "sd", "sh", "sw", "pd", "ph", "pw", "dd", "dh", "dw"};
    if (std::none_of(std::begin(known), std::end(known), [&](const char *n) { return key == n; }))
      throw std::invalid_argument("unknown conv descriptor entry '" + key + "'");
    if (v.count(key)) throw std::invalid_argument("conv descriptor entry '" + key + "' given twice");
    v[key] = std::stoll(text.substr(j, k - j));
    i = k;
  }
  ConvDesc c;
  auto get = [&](const char *key, int64_t def) { return v.count(key) ? v[key] : def; };
  if (!v.count("ic") || !v.count("oc") || !v.count("ih") || !v.count("kh"))
    throw std::invalid_argument("a conv descriptor needs at least ic, oc, ih and kh");
  c.g = get("g", 1);
  c.mb = get("mb", 2);
  c.ic = v["ic"];
  c.oc = v["oc"];
  const bool three = v.count("id") || v.count("od") || v.count("kd") || v.count("sd") || v.count("pd") || v.count("dd");
  c.nsp = three ? 3 : 2;
  const char *names[3] = {"d", "h", "w"};
  for (int a = 0; a < 3; ++a) {
    const std::string n = names[a];
    // Width and depth default to the height's values.
    auto dim = [&](const char *prefix, int64_t def) {
      const std::string key = prefix + n, hkey = std::string(prefix) + "h";
      return get(key.c_str(), a == 1 ? def : get(hkey.c_str(), def));
    };
    c.in[a] = dim("i", 1);
    c.k[a] = dim("k", 1);
    c.s[a] = dim("s", 1);
    c.p[a] = dim("p", 0);
    c.d[a] = dim("d", 0);
    const std::string okey = "o" + n;
    c.has_out[a] = v.count(okey) > 0;
    if (c.has_out[a]) c.out[a] = v[okey];
  }
  if (c.g < 1 || c.mb < 1 || c.ic < 1 || c.oc < 1 || c.ic % c.g != 0 || c.oc % c.g != 0)
    throw std::invalid_argument("conv: mb, ic, oc >= 1 and g dividing ic and oc");
  for (int a = c.first(); a < 3; ++a) {
    if (c.in[a] < 1 || c.k[a] < 1 || c.s[a] < 1 || c.p[a] < 0 || c.d[a] < 0)
      throw std::invalid_argument("conv: sizes and strides >= 1, padding and dilation >= 0");
    const int64_t span = (c.k[a] - 1) * (c.d[a] + 1) + 1;
    const int64_t room = c.in[a] + 2 * c.p[a] - span;
    if (room < 0) throw std::invalid_argument("conv: the filter is larger than the padded input");
    const int64_t o = room / c.s[a] + 1;
    if (c.has_out[a] && c.out[a] != o)
      throw std::invalid_argument("conv: o" + std::string(names[a]) + " is " +
                                  std::to_string(c.out[a]) + ", the padding and stride give " + std::to_string(o));
    c.out[a] = o;
  }
  return c;
}

enum class Dir { fwd, bwd_data, bwd_filter };

Dir dir_of(const Problem &p) {
  return p.knobs.dir == "BWD_D" ? Dir::bwd_data : p.knobs.dir == "BWD_W" ? Dir::bwd_filter : Dir::fwd;
}

const std::vector<const char *> &algo_names(Dir d) {
  static const std::vector<const char *> fwd = {"IMPLICIT_GEMM", "IMPLICIT_PRECOMP_GEMM", "GEMM", "DIRECT",
                                                "FFT", "FFT_TILING", "WINOGRAD", "WINOGRAD_NONFUSED"};
  static const std::vector<const char *> bwd_data = {"ALGO_0", "ALGO_1", "FFT", "FFT_TILING", "WINOGRAD",
                                                     "WINOGRAD_NONFUSED"};
  static const std::vector<const char *> bwd_filter = {"ALGO_0", "ALGO_1", "FFT", "ALGO_3", "WINOGRAD_NONFUSED",
                                                       "FFT_TILING"};
  return d == Dir::fwd ? fwd : d == Dir::bwd_data ? bwd_data : bwd_filter;
}

// The enum value of --alg, or -1 for auto.
int algo_of(const Problem &p) {
  std::string a = p.knobs.alg;
  for (char &ch : a) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  if (a.empty() || a == "AUTO") return -1;
  const Dir d = dir_of(p);
  const auto &names = algo_names(d);
  for (size_t i = 0; i < names.size(); ++i)
    if (a == names[i]) {
      // BWD_FILTER's enum has a hole: WINOGRAD (4) is followed by
      // WINOGRAD_NONFUSED (5), FFT_TILING (6); the list skips WINOGRAD.
      if (d == Dir::bwd_filter && i >= 4) return static_cast<int>(i) + 1;
      return static_cast<int>(i);
    }
  if (d == Dir::bwd_filter && a == "WINOGRAD") return CUDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD;
  std::string list;
  for (const char *n : names) list += std::string(n) + " ";
  throw std::invalid_argument("unknown conv --alg '" + p.knobs.alg + "' for " + p.knobs.dir + " (auto " + list + ")");
}

bool channels_last(const Problem &p, int rank) {
  return letter_tag(p.knobs.stag, static_cast<size_t>(rank)) == (rank == 4 ? "acdb" : "acdeb");
}

class ConvRun : public OpRun {
 public:
  ConvRun(cudnnHandle_t handle, const Problem &p)
      : handle_(handle),
        c_(parse_desc(p.descriptor)),
        dir_(dir_of(p)),
        dt_(p.knobs.dt),
        x_(dims_x(), p.knobs.stag, p.knobs.dt),
        w_(dims_w(), p.knobs.stag, p.knobs.dt),
        y_(dims_y(), p.knobs.stag, p.knobs.dt),
        alpha_(p.knobs.dt, p.knobs.alpha),
        beta_(p.knobs.dt, p.beta_or(0)) {
    const int rank = c_.nsp + 2;
    params_.groups = static_cast<int>(c_.g);
    for (int a = c_.first(); a < 3; ++a) {
      params_.pad.push_back(static_cast<int>(c_.p[a]));
      params_.stride.push_back(static_cast<int>(c_.s[a]));
      params_.dilation.push_back(static_cast<int>(c_.d[a] + 1));
    }
    compute_ = default_compute_type(dt_);
    check_status(cudnnCreateFilterDescriptor(&wdesc_), "cudnnCreateFilterDescriptor");
    check_status(cudnnCreateConvolutionDescriptor(&cdesc_), "cudnnCreateConvolutionDescriptor");
    std::vector<int> wd(w_.dims().begin(), w_.dims().begin() + rank);
    check_status(cudnnSetFilterNdDescriptor(wdesc_, to_cudnn_dtype(dt_),
                                            channels_last(p, rank) ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW, rank,
                                            wd.data()),
                 "cudnnSetFilterNdDescriptor");
    check_status(cudnnSetConvolutionNdDescriptor(cdesc_, c_.nsp, params_.pad.data(), params_.stride.data(),
                                                 params_.dilation.data(), CUDNN_CROSS_CORRELATION, compute_),
                 "cudnnSetConvolutionNdDescriptor");
    check_status(cudnnSetConvolutionGroupCount(cdesc_, static_cast<int>(c_.g)), "cudnnSetConvolutionGroupCount");
    algo_ = algo_of(p);
    if (algo_ < 0) algo_ = heuristic_algo();
    size_t ws = 0;
    switch (dir_) {
      case Dir::fwd:
        check_status(cudnnGetConvolutionForwardWorkspaceSize(handle_, x_.desc(), wdesc_, cdesc_, y_.desc(),
                                                             static_cast<cudnnConvolutionFwdAlgo_t>(algo_), &ws),
                     "cudnnGetConvolutionForwardWorkspaceSize");
        break;
      case Dir::bwd_data:
        check_status(cudnnGetConvolutionBackwardDataWorkspaceSize(
                         handle_, wdesc_, y_.desc(), cdesc_, x_.desc(),
                         static_cast<cudnnConvolutionBwdDataAlgo_t>(algo_), &ws),
                     "cudnnGetConvolutionBackwardDataWorkspaceSize");
        break;
      case Dir::bwd_filter:
        check_status(cudnnGetConvolutionBackwardFilterWorkspaceSize(
                         handle_, x_.desc(), y_.desc(), cdesc_, wdesc_,
                         static_cast<cudnnConvolutionBwdFilterAlgo_t>(algo_), &ws),
                     "cudnnGetConvolutionBackwardFilterWorkspaceSize");
        break;
    }
    ws_bytes_ = ws;
    if (ws > 0) ws_ = fdnn_test::Buffer(ws);
  }
  ~ConvRun() override {
    cudnnDestroyFilterDescriptor(wdesc_);
    cudnnDestroyConvolutionDescriptor(cdesc_);
  }

  void fill(uint64_t seed) override {
    const bool blend = beta_.value() != 0;
    BenchTensor *out = output();
    if (dir_ != Dir::fwd) hx_ = dir_ == Dir::bwd_filter ? fill_random(x_, seed, -1, 1) : host_like(x_);
    else hx_ = fill_random(x_, seed, -1, 1);
    if (dir_ != Dir::bwd_filter) hw_ = fill_random(w_, seed + 1, -1, 1);
    else hw_ = host_like(w_);
    if (dir_ != Dir::fwd) hy_ = fill_random(y_, seed + 2, -1, 1);
    else hy_ = host_like(y_);
    prior_ = blend ? fill_random(*out, seed + 3, -1, 1) : host_like(*out);
    if (!blend) poison(*out);
  }

  void execute() override {
    switch (dir_) {
      case Dir::fwd:
        check_status(cudnnConvolutionForward(handle_, alpha_.ptr(), x_.desc(), x_.data(), wdesc_, w_.data(), cdesc_,
                                             static_cast<cudnnConvolutionFwdAlgo_t>(algo_), ws_.get(), ws_bytes_,
                                             beta_.ptr(), y_.desc(), y_.data()),
                     "cudnnConvolutionForward");
        break;
      case Dir::bwd_data:
        check_status(cudnnConvolutionBackwardData(handle_, alpha_.ptr(), wdesc_, w_.data(), y_.desc(), y_.data(),
                                                  cdesc_, static_cast<cudnnConvolutionBwdDataAlgo_t>(algo_),
                                                  ws_.get(), ws_bytes_, beta_.ptr(), x_.desc(), x_.data()),
                     "cudnnConvolutionBackwardData");
        break;
      case Dir::bwd_filter:
        check_status(cudnnConvolutionBackwardFilter(handle_, alpha_.ptr(), x_.desc(), x_.data(), y_.desc(), y_.data(),
                                                    cdesc_, static_cast<cudnnConvolutionBwdFilterAlgo_t>(algo_),
                                                    ws_.get(), ws_bytes_, beta_.ptr(), wdesc_, w_.data()),
                     "cudnnConvolutionBackwardFilter");
        break;
    }
  }

  // Large problems are checked on their first image only (forward and
  // backward data compute each image on its own), so that the float64
  // reference stays within seconds; the filter gradient sums over all images.
  CheckResult check() override {
    const double slack = 64;
    HostTensor got = download(*output());
    const bool slice = dir_ != Dir::bwd_filter && c_.mb > 1 && flops() / 2 > 2e8;
    HostTensor x = hx_, y = hy_, prior = prior_;
    if (slice) {
      x = first_image(hx_);
      y = first_image(hy_);
      prior = first_image(prior_);
      got = first_image(got);
    }
    std::vector<Expect> want;
    switch (dir_) {
      case Dir::fwd:
        want = fdnn_test::reference_conv_forward(params_, x, hw_, alpha_.value(), beta_.value(), prior, compute_, slack);
        break;
      case Dir::bwd_data:
        want = fdnn_test::reference_conv_backward_data(params_, hw_, y, alpha_.value(), beta_.value(), prior, compute_,
                                                       slack);
        break;
      case Dir::bwd_filter:
        want = fdnn_test::reference_conv_backward_filter(params_, x, y, alpha_.value(), beta_.value(), prior, compute_,
                                                         slack);
        break;
    }
    CheckResult r = compare(got, want);
    if (slice) r.detail += " (image 0 of " + std::to_string(c_.mb) + ")";
    return r;
  }

  double bytes_moved() const override {
    const double x = static_cast<double>(x_.bytes()), w = static_cast<double>(w_.bytes()),
                 y = static_cast<double>(y_.bytes());
    const double out = dir_ == Dir::fwd ? y : dir_ == Dir::bwd_data ? x : w;
    return x + w + y + (beta_.value() != 0 ? out : 0);
  }

  double flops() const override {
    double f = 2.0 * static_cast<double>(c_.mb) * static_cast<double>(c_.oc) * static_cast<double>(c_.ic / c_.g);
    for (int a = c_.first(); a < 3; ++a) f *= static_cast<double>(c_.out[a] * c_.k[a]);
    return f;
  }

  std::unique_ptr<PeerRun> onednn_peer() const override {
    if (alpha_.value() != 1 || beta_.value() != 0) return nullptr;
    PeerConv pc;
    pc.dir = dir_ == Dir::fwd ? "FWD_D" : dir_ == Dir::bwd_data ? "BWD_D" : "BWD_W";
    pc.dt = dt_;
    pc.groups = c_.g;
    pc.x = dims_x();
    pc.w = dims_w();
    pc.y = dims_y();
    for (int a = c_.first(); a < 3; ++a) {
      pc.stride.push_back(c_.s[a]);
      pc.pad_l.push_back(c_.p[a]);
      pc.pad_r.push_back(c_.p[a]);
      pc.dilation.push_back(c_.d[a] + 1);
    }
    return onednn_convolution(pc);
  }

 private:
  Dims spatial(const int64_t *v) const {
    Dims d;
    for (int a = c_.first(); a < 3; ++a) d.push_back(v[a]);
    return d;
  }
  Dims dims_x() const {
    Dims d{c_.mb, c_.ic};
    for (int64_t v : spatial(c_.in)) d.push_back(v);
    return d;
  }
  Dims dims_w() const {
    Dims d{c_.oc, c_.ic / c_.g};
    for (int64_t v : spatial(c_.k)) d.push_back(v);
    return d;
  }
  Dims dims_y() const {
    Dims d{c_.mb, c_.oc};
    for (int64_t v : spatial(c_.out)) d.push_back(v);
    return d;
  }
  BenchTensor *output() { return dir_ == Dir::fwd ? &y_ : dir_ == Dir::bwd_data ? &x_ : &w_; }

  // Image 0 of a tensor whose batch stride is outermost (NCHW, NHWC).
  static HostTensor first_image(const HostTensor &t) {
    std::vector<int64_t> dims = t.dims;
    dims[0] = 1;
    HostTensor s = fdnn_test::make_tensor(t.dtype, dims, t.strides);
    std::memcpy(s.bytes.data(), t.bytes.data(), std::min(s.bytes.size(), t.bytes.size()));
    return s;
  }

  int heuristic_algo() {
    int returned = 0;
    switch (dir_) {
      case Dir::fwd: {
        cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
        check_status(cudnnGetConvolutionForwardAlgorithm_v7(handle_, x_.desc(), wdesc_, cdesc_, y_.desc(),
                                                            CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &returned, perf),
                     "cudnnGetConvolutionForwardAlgorithm_v7");
        for (int i = 0; i < returned; ++i)
          if (perf[i].status == CUDNN_STATUS_SUCCESS) return perf[i].algo;
        break;
      }
      case Dir::bwd_data: {
        cudnnConvolutionBwdDataAlgoPerf_t perf[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
        check_status(cudnnGetConvolutionBackwardDataAlgorithm_v7(handle_, wdesc_, y_.desc(), cdesc_, x_.desc(),
                                                                 CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &returned,
                                                                 perf),
                     "cudnnGetConvolutionBackwardDataAlgorithm_v7");
        for (int i = 0; i < returned; ++i)
          if (perf[i].status == CUDNN_STATUS_SUCCESS) return perf[i].algo;
        break;
      }
      case Dir::bwd_filter: {
        cudnnConvolutionBwdFilterAlgoPerf_t perf[CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT];
        check_status(cudnnGetConvolutionBackwardFilterAlgorithm_v7(handle_, x_.desc(), y_.desc(), cdesc_, wdesc_,
                                                                   CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT,
                                                                   &returned, perf),
                     "cudnnGetConvolutionBackwardFilterAlgorithm_v7");
        for (int i = 0; i < returned; ++i)
          if (perf[i].status == CUDNN_STATUS_SUCCESS) return perf[i].algo;
        break;
      }
    }
    throw ApiError(CUDNN_STATUS_NOT_SUPPORTED, "no algorithm supports this convolution");
  }

  cudnnHandle_t handle_;
  ConvDesc c_;
  Dir dir_;
  std::string dt_;
  BenchTensor x_, w_, y_;
  Scaling alpha_, beta_;
  fdnn_test::ConvParams params_;
  cudnnDataType_t compute_ = CUDNN_DATA_FLOAT;
  cudnnFilterDescriptor_t wdesc_ = nullptr;
  cudnnConvolutionDescriptor_t cdesc_ = nullptr;
  int algo_ = 0;
  size_t ws_bytes_ = 0;
  fdnn_test::Buffer ws_;
  HostTensor hx_, hw_, hy_, prior_;
};

class ConvFamily : public OpFamily {
 public:
  const char *name() const override { return "conv"; }
  const char *help() const override {
    return "  conv       cudnnConvolutionForward / BackwardData / BackwardFilter. --dir=FWD_D|\n"
           "             BWD_D|BWD_W; --alg=auto|IMPLICIT_PRECOMP_GEMM|ALGO_1|... (the enum's\n"
           "             name; auto: the _v7 heuristic's first); --tag=nchw|nhwc (filters KCRS or\n"
           "             KRSC); --dt=f32|f16|bf16|f64. The problem is benchdnn's descriptor:\n"
           "             [g#]mb#ic#ih#[iw#]oc#[oh#ow#]kh#[kw#sh#sw#ph#pw#dh#dw#] (3-d: id, od,\n"
           "             kd, sd, pd, dd), e.g. mb8ic64ih56oc64oh56kh3ph1; dh counts from 0\n"
           "             (cuDNN dilation dh+1). Prints GFLOP/s and the fraction of FMA peak.\n";
  }
  void validate(const Problem &p) const override {
    const ConvDesc c = parse_desc(p.descriptor);
    algo_of(p);
    const std::string &dt = p.knobs.dt;
    if (dt != "f32" && dt != "f16" && dt != "bf16" && dt != "f64")
      throw std::invalid_argument("conv takes --dt=f32, f16, bf16 or f64");
    letter_tag(p.knobs.stag, static_cast<size_t>(c.nsp + 2));
    if (p.knobs.stag != p.knobs.dtag) throw std::invalid_argument("conv takes one layout for all tensors (--tag)");
  }
  std::string knobs_text(const Problem &p) const override {
    std::string t = "--dir=" + p.knobs.dir + " --alg=" + (p.knobs.alg.empty() ? std::string("auto") : p.knobs.alg) +
                    " --dt=" + p.knobs.dt + " --tag=" + p.knobs.stag;
    return t + blend_text(p);
  }
  std::unique_ptr<OpRun> prepare(cudnnHandle_t handle, const Problem &p) const override {
    return std::make_unique<ConvRun>(handle, p);
  }
};

BENCH_REGISTER_OP(ConvFamily)

}  // namespace

// ResNet-50's convolution shapes (C, H, W, K, R, S, stride, pad) of issue 4
// at batch 1 and 8, forward, f32, NHWC (the layout whose activations oneDNN
// reads in place; NCHW adds two activation reorders per call).
BENCH_DEFAULT_PROBLEMS(conv, 40, {
    "--reset --name=conv.rn50.mb1 --op=conv --dir=FWD_D --dt=f32 --tag=nhwc mb1ic64ih56oc64oh56kh1 "
    "mb1ic64ih56oc64oh56kh3ph1 mb1ic64ih56oc256oh56kh1 mb1ic128ih28oc128oh28kh3ph1 mb1ic256ih14oc256oh14kh3ph1 "
    "mb1ic512ih7oc512oh7kh3ph1 mb1ic3ih224oc64oh112kh7sh2ph3",
    "--reset --name=conv.rn50.mb8 --op=conv --dir=FWD_D --dt=f32 --tag=nhwc mb8ic64ih56oc64oh56kh1 "
    "mb8ic64ih56oc64oh56kh3ph1 mb8ic64ih56oc256oh56kh1 mb8ic128ih28oc128oh28kh3ph1 mb8ic256ih14oc256oh14kh3ph1 "
    "mb8ic512ih7oc512oh7kh3ph1 mb8ic3ih224oc64oh112kh7sh2ph3",
})

}  // namespace bench
