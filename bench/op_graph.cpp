// --op=graph: small fused graphs through the backend API (the builders of
// tests/common/backend_fusion.hpp), timed with the engine heuristics mode A
// offers first (on the CPU the runtime fusion engine once it takes the
// graph) or, with an -opbyop suffix, the first engine of mode FALLBACK (the
// op-by-op engine, intermediates materialised in the workspace):
//   --alg=conv-bias-relu[-opbyop]    conv fwd -> ADD bias[1,K,1,1] -> RELU,
//                                    a benchdnn conv descriptor such as
//                                    mb8ic64ih56oc64oh56kh3ph1 (2-d; --tag=nhwc
//                                    or nchw for x, w and y)
//   --alg=matmul-bias-gelu[-opbyop]  A[B,M,K] x B[B,K,N] -> ADD bias[1,1,N] ->
//                                    GELU, shape BxMxKxN
//   --alg=layernorm[-opbyop]         NORM_FORWARD layer norm (training phase,
//                                    mean and inverse variance [N,1,1,1] out:
//                                    their shape tells the library which dims
//                                    to normalise) of x[N,D,1,1] with scale and
//                                    bias [1,D,1,1], shape NxD
// --dt=f32|f16|bf16 for the data tensors (float compute; the conv and
// matmul bias as the data, the layer-norm scale and bias float). FLOPs: 2 N K C P Q R S (conv), 2 B M N K (matmul), none for
// layer norm (memory-bound). The check samples outputs (every 97th conv
// output element, every 128th matmul row, every 64th layer-norm row)
// against float64 loops here. oneDNN peer: the same computation as one
// primitive with fused post-ops (onednn_graph_peer.hpp).
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <sstream>

#include "common/backend_fusion.hpp"
#include "backend_plan.hpp"
#include "default_set.hpp"
#include "dtype.hpp"
#include "layout.hpp"
#include "onednn_graph_peer.hpp"
#include "op.hpp"

namespace bench {
namespace {

enum class GraphKind { conv_bias_relu, matmul_bias_gelu, layernorm };

struct GraphAlg {
  GraphKind kind = GraphKind::conv_bias_relu;
  bool opbyop = false;
};

GraphAlg graph_alg(const std::string &name) {
  std::string n = name.empty() ? "conv-bias-relu" : name;
  GraphAlg a;
  a.opbyop = strip_suffix(n, "-opbyop");
  if (n == "conv-bias-relu") a.kind = GraphKind::conv_bias_relu;
  else if (n == "matmul-bias-gelu") a.kind = GraphKind::matmul_bias_gelu;
  else if (n == "layernorm") a.kind = GraphKind::layernorm;
  else
    throw std::invalid_argument("unknown graph --alg '" + name +
                                "' (conv-bias-relu, matmul-bias-gelu, layernorm, each with an optional -opbyop)");
  return a;
}

// The 2-d subset of benchdnn's conv descriptor: mb ic ih iw oc oh ow kh kw
// sh sw ph pw dh dw (dilation counted from 0 as in benchdnn).
struct ConvShape {
  int64_t mb = 2, ic = 0, ih = 0, iw = 0, oc = 0, kh = 0, kw = 0, sh = 1, sw = 1, ph = 0, pw = 0, dh = 0, dw = 0;
  int64_t oh = 0, ow = 0;
};

ConvShape parse_conv(const std::string &text) {
  std::map<std::string, int64_t> v;
  size_t i = 0;
  while (i < text.size()) {
    size_t j = i;
    while (j < text.size() && std::isalpha(static_cast<unsigned char>(text[j]))) ++j;
    size_t k = j;
    while (k < text.size() && std::isdigit(static_cast<unsigned char>(text[k]))) ++k;
    const std::string key = text.substr(i, j - i);
    static const char *const known[] = {"mb", "ic", "ih", "iw", "oc", "oh", "ow", "kh", "kw",
                                        "sh", "sw", "ph", "pw", "dh", "dw"};
    if (key.empty() || k == j || std::none_of(std::begin(known), std::end(known), [&](const char *n) { return key == n; }))
      throw std::invalid_argument("bad graph conv descriptor near '" + text.substr(i) +
                                  "' (2-d benchdnn entries: mb ic ih iw oc oh ow kh kw sh sw ph pw dh dw)");
    v[key] = std::stoll(text.substr(j, k - j));
    i = k;
  }
  if (!v.count("ic") || !v.count("oc") || !v.count("ih") || !v.count("kh"))
    throw std::invalid_argument("a conv descriptor needs at least ic, oc, ih and kh");
  auto get = [&](const char *key, int64_t def) { return v.count(key) ? v[key] : def; };
  ConvShape c;
  c.mb = get("mb", 2), c.ic = v["ic"], c.oc = v["oc"], c.ih = v["ih"], c.iw = get("iw", c.ih);
  c.kh = v["kh"], c.kw = get("kw", c.kh), c.sh = get("sh", 1), c.sw = get("sw", c.sh);
  c.ph = get("ph", 0), c.pw = get("pw", c.ph), c.dh = get("dh", 0), c.dw = get("dw", c.dh);
  if (c.mb < 1 || c.ic < 1 || c.oc < 1 || c.ih < 1 || c.iw < 1 || c.kh < 1 || c.kw < 1 || c.sh < 1 || c.sw < 1 ||
      c.ph < 0 || c.pw < 0 || c.dh < 0 || c.dw < 0)
    throw std::invalid_argument("conv: sizes and strides >= 1, padding and dilation >= 0");
  const int64_t rh = c.ih + 2 * c.ph - ((c.kh - 1) * (c.dh + 1) + 1), rw = c.iw + 2 * c.pw - ((c.kw - 1) * (c.dw + 1) + 1);
  if (rh < 0 || rw < 0) throw std::invalid_argument("conv: the filter is larger than the padded input");
  c.oh = rh / c.sh + 1, c.ow = rw / c.sw + 1;
  if ((v.count("oh") && v["oh"] != c.oh) || (v.count("ow") && v["ow"] != c.ow))
    throw std::invalid_argument("conv: oh/ow do not match the padding and stride");
  return c;
}

// The layer-norm graph: one NORM_FORWARD op, epsilon by value.
struct LayerNormGraph {
  std::vector<std::unique_ptr<fdnn_test::Desc>> keep;
  std::vector<fdnn_test::Desc *> ops;
};

constexpr int64_t kLnX = 1, kLnScale = 2, kLnBias = 3, kLnY = 4, kLnEps = 5, kLnMean = 6, kLnInv = 7;
constexpr float kLnEpsilon = 1e-5f;

LayerNormGraph build_layernorm(int64_t n, int64_t d, cudnnDataType_t dt) {
  LayerNormGraph g;
  auto keep = [&](std::unique_ptr<fdnn_test::Desc> p) {
    g.keep.push_back(std::move(p));
    return g.keep.back().get();
  };
  const std::vector<int64_t> xd{n, d, 1, 1}, sd{1, d, 1, 1}, one{1, 1, 1, 1}, md{n, 1, 1, 1};
  fdnn_test::Desc *x = keep(fdnn_test::tensor_desc(kLnX, dt, xd, fdnn_test::packed(xd)));
  fdnn_test::Desc *y = keep(fdnn_test::tensor_desc(kLnY, dt, xd, fdnn_test::packed(xd)));
  fdnn_test::Desc *s = keep(fdnn_test::tensor_desc(kLnScale, CUDNN_DATA_FLOAT, sd, fdnn_test::packed(sd)));
  fdnn_test::Desc *b = keep(fdnn_test::tensor_desc(kLnBias, CUDNN_DATA_FLOAT, sd, fdnn_test::packed(sd)));
  fdnn_test::Desc *mean = keep(fdnn_test::tensor_desc(kLnMean, CUDNN_DATA_FLOAT, md, fdnn_test::packed(md)));
  fdnn_test::Desc *inv = keep(fdnn_test::tensor_desc(kLnInv, CUDNN_DATA_FLOAT, md, fdnn_test::packed(md)));
  fdnn_test::Desc *eps = keep(fdnn_test::tensor_desc(kLnEps, CUDNN_DATA_FLOAT, one, one, false, true));
  fdnn_test::Desc *op = keep(std::make_unique<fdnn_test::Desc>(CUDNN_BACKEND_OPERATION_NORM_FORWARD_DESCRIPTOR));
  check_status(op->set1(CUDNN_ATTR_OPERATION_NORM_FWD_MODE, CUDNN_TYPE_NORM_MODE, CUDNN_LAYER_NORM), "set norm mode");
  check_status(op->set1(CUDNN_ATTR_OPERATION_NORM_FWD_PHASE, CUDNN_TYPE_NORM_FWD_PHASE, CUDNN_NORM_FWD_TRAINING),
               "set norm phase");
  const std::pair<cudnnBackendAttributeName_t, fdnn_test::Desc *> tensors[] = {
      {CUDNN_ATTR_OPERATION_NORM_FWD_XDESC, x},          {CUDNN_ATTR_OPERATION_NORM_FWD_YDESC, y},
      {CUDNN_ATTR_OPERATION_NORM_FWD_SCALE_DESC, s},     {CUDNN_ATTR_OPERATION_NORM_FWD_BIAS_DESC, b},
      {CUDNN_ATTR_OPERATION_NORM_FWD_EPSILON_DESC, eps}, {CUDNN_ATTR_OPERATION_NORM_FWD_MEAN_DESC, mean},
      {CUDNN_ATTR_OPERATION_NORM_FWD_INV_VARIANCE_DESC, inv},
  };
  for (const auto &t : tensors) check_status(op->set1(t.first, CUDNN_TYPE_BACKEND_DESCRIPTOR, t.second->d), "set norm tensor");
  check_status(op->finalize(), "finalize layer norm");
  g.ops.push_back(op);
  return g;
}

class GraphRun : public OpRun {
 public:
  GraphRun(cudnnHandle_t handle, const Problem &p)
      : alg_(graph_alg(p.knobs.alg)), dt_name_(p.knobs.dt) {
    io_ = to_cudnn_dtype(p.knobs.dt);
    fdnn_test::Rng rng(1);
    std::vector<fdnn_test::Desc *> ops;
    if (alg_.kind == GraphKind::layernorm) {
      ln_n_ = p.shapes[0][0], ln_d_ = p.shapes[0][1];
      ln_ = build_layernorm(ln_n_, ln_d_, io_);
      ops = ln_.ops;
    } else {
      fdnn_test::FusionConfig c;
      c.io_type = io_;
      c.reference = false;
      if (alg_.kind == GraphKind::conv_bias_relu) {
        const ConvShape s = parse_conv(p.descriptor);
        c.pattern = fdnn_test::FusionPattern::conv_bias_act;
        c.act = CUDNN_POINTWISE_RELU_FWD;
        c.nhwc = letter_tag(p.knobs.stag, 4) == "acdb";
        c.n = s.mb, c.c = s.ic, c.h = s.ih, c.w = s.iw, c.k = s.oc, c.r = s.kh, c.s = s.kw;
        c.pad_h = s.ph, c.pad_w = s.pw, c.stride_h = s.sh, c.stride_w = s.sw, c.dil_h = s.dh + 1, c.dil_w = s.dw + 1;
      } else {
        const Dims &s = p.shapes[0];
        c.pattern = fdnn_test::FusionPattern::matmul_bias_gelu;
        c.batch = s[0], c.m = s[1], c.kk = s[2], c.nn = s[3];
      }
      cfg_ = c;
      // Placeholder data; fill() makes the real inputs.
      fg_ = fdnn_test::build_fusion_graph(c, rng);
      ops = fg_.ops;
    }
    plan_ = plan_graph(handle, ops, alg_.opbyop ? CUDNN_HEUR_MODE_FALLBACK : CUDNN_HEUR_MODE_A);
  }

  void fill(uint64_t seed) override {
    fdnn_test::Rng rng(seed);
    std::vector<int64_t> uids;
    std::vector<void *> ptrs;
    buffers_.clear();
    host_.clear();
    if (alg_.kind == GraphKind::layernorm) {
      const std::vector<int64_t> xd{ln_n_, ln_d_, 1, 1}, sd{1, ln_d_, 1, 1}, md{ln_n_, 1, 1, 1};
      const std::pair<int64_t, std::vector<int64_t>> ts[] = {{kLnX, xd},   {kLnScale, sd}, {kLnBias, sd},
                                                             {kLnY, xd},   {kLnMean, md},  {kLnInv, md}};
      for (const auto &t : ts) {
        const bool stats = t.first == kLnMean || t.first == kLnInv;
        const bool f32 = stats || t.first == kLnScale || t.first == kLnBias;
        fdnn_test::HostTensor h =
            fdnn_test::make_tensor(f32 ? CUDNN_DATA_FLOAT : io_, t.second, fdnn_test::packed(t.second));
        if (t.first == kLnY || stats) fdnn_test::poison(h);
        else if (t.first == kLnScale) fdnn_test::fill_random(h, rng, 0.5, 1.5);
        else fdnn_test::fill_random(h, rng, -1, 1);
        host_[t.first] = std::move(h);
      }
      eps_ = kLnEpsilon;
      uids.push_back(kLnEps);
      ptrs.push_back(&eps_);
    } else {
      // Fresh data for this seed: rebuild the graph's tensors (the
      // descriptors of the plan stay; only data changes).
      fdnn_test::FusionGraph fresh = fdnn_test::build_fusion_graph(cfg_, rng);
      for (fdnn_test::FusionTensor &t : fresh.tensors) host_[t.uid] = std::move(t.data);
    }
    for (auto &kv : host_) {
      buffers_[kv.first] = fdnn_test::upload(kv.second);
      uids.push_back(kv.first);
      ptrs.push_back(buffers_[kv.first].get());
    }
    plan_.bind(uids, ptrs);
  }

  void execute() override { plan_.execute(); }

  CheckResult check() override {
    switch (alg_.kind) {
      case GraphKind::conv_bias_relu: return check_conv();
      case GraphKind::matmul_bias_gelu: return check_matmul();
      default: return check_layernorm();
    }
  }

  double bytes_moved() const override {
    double b = 0;
    for (const auto &kv : host_) b += static_cast<double>(kv.second.bytes.size());
    return b;
  }
  double flops() const override {
    if (alg_.kind == GraphKind::conv_bias_relu) {
      const std::vector<int64_t> y = cfg_.conv_out_dims();
      return 2.0 * y[0] * y[1] * y[2] * y[3] * static_cast<double>(cfg_.c) * cfg_.r * cfg_.s;
    }
    if (alg_.kind == GraphKind::matmul_bias_gelu)
      return 2.0 * cfg_.batch * static_cast<double>(cfg_.m) * cfg_.nn * cfg_.kk;
    return 0;
  }
  // The same computation as one oneDNN primitive with post-ops (see
  // onednn_graph_peer.hpp): the results are the same functions of the inputs.
  std::unique_ptr<PeerRun> onednn_peer() const override {
    if (alg_.kind == GraphKind::layernorm) return onednn_layernorm(dt_name_, ln_n_, ln_d_, kLnEpsilon);
    if (alg_.kind == GraphKind::matmul_bias_gelu)
      return onednn_matmul_bias_gelu(dt_name_, cfg_.batch, cfg_.m, cfg_.kk, cfg_.nn);
    PeerConv c;
    c.dir = "FWD_D";
    c.dt = dt_name_;
    c.x = {cfg_.n, cfg_.c, cfg_.h, cfg_.w};
    c.w = {cfg_.k, cfg_.c, cfg_.r, cfg_.s};
    c.y = cfg_.conv_out_dims();
    c.stride = {cfg_.stride_h, cfg_.stride_w};
    c.pad_l = {cfg_.pad_h, cfg_.pad_w};
    c.pad_r = c.pad_l;  // symmetric, as cuDNN's
    c.dilation = {cfg_.dil_h, cfg_.dil_w};
    return onednn_conv_bias_relu(c);
  }

 private:
  // Records one sampled element: |got - want| against tol.
  void compare(CheckResult &r, int64_t &bad, const char *what, int64_t at, double got, double want, double tol) {
    const double err = std::fabs(got - want);
    r.max_error = std::max(r.max_error, tol > 0 ? err / tol : err);
    if (!(err <= tol)) {
      if (bad++ < 3) {
        std::ostringstream os;
        os << (r.detail.empty() ? "" : "; ") << what << "[" << at << "] = " << got << ", want " << want << " +- "
           << tol;
        r.detail += os.str();
      }
      r.passed = false;
    }
  }

  // y = relu(conv(x, w) + bias) at every 97th output element (logical NCHW order).
  CheckResult check_conv() {
    fdnn_test::HostTensor &y = host_[5];
    fdnn_test::download(buffers_[5], y);
    const std::vector<double> x = host_[1].values(), w = host_[2].values(), bias = host_[4].values(),
                              got = y.values();
    const std::vector<int64_t> yd = cfg_.conv_out_dims();
    const int64_t C = cfg_.c, H = cfg_.h, W = cfg_.w, K = cfg_.k, R = cfg_.r, S = cfg_.s, P = yd[2], Q = yd[3];
    const double u = std::ldexp(1.0, -24), uo = fdnn_test::unit_roundoff(io_);
    CheckResult r;
    r.passed = true;
    int64_t bad = 0;
    for (int64_t i = 0; i < static_cast<int64_t>(got.size()); i += 97) {
      const int64_t q = i % Q, p = i / Q % P, k = i / (Q * P) % K, n = i / (Q * P * K);
      double s = 0, mag = 0;
      for (int64_t c = 0; c < C; ++c)
        for (int64_t fr = 0; fr < R; ++fr) {
          const int64_t hi = p * cfg_.stride_h - cfg_.pad_h + fr * cfg_.dil_h;
          if (hi < 0 || hi >= H) continue;
          for (int64_t fs = 0; fs < S; ++fs) {
            const int64_t wi = q * cfg_.stride_w - cfg_.pad_w + fs * cfg_.dil_w;
            if (wi < 0 || wi >= W) continue;
            const double t = x[static_cast<size_t>(((n * C + c) * H + hi) * W + wi)] *
                             w[static_cast<size_t>(((k * C + c) * R + fr) * S + fs)];
            s += t;
            mag += std::fabs(t);
          }
        }
      const double pre = s + bias[static_cast<size_t>(k)], want = std::max(pre, 0.0);
      const double tol = 64 * u * (mag + std::fabs(bias[static_cast<size_t>(k)])) + uo * std::fabs(want);
      compare(r, bad, "y", i, got[static_cast<size_t>(i)], want, tol);
    }
    return r;
  }

  // out = gelu(A B + bias) on every 128th row (and row 0) of every batch.
  CheckResult check_matmul() {
    fdnn_test::HostTensor &out = host_[6];
    fdnn_test::download(buffers_[6], out);
    const std::vector<double> a = host_[1].values(), b = host_[2].values(), bias = host_[4].values(),
                              got = out.values();
    const int64_t M = cfg_.m, K = cfg_.kk, N = cfg_.nn;
    const double u = std::ldexp(1.0, -24), uo = fdnn_test::unit_roundoff(io_);
    CheckResult r;
    r.passed = true;
    int64_t bad = 0;
    std::vector<double> s(static_cast<size_t>(N)), mag(static_cast<size_t>(N));
    for (int64_t bi = 0; bi < cfg_.batch; ++bi)
      for (int64_t i = 0; i < M; ++i) {
        if (i != 0 && i % 128 != 127) continue;
        std::fill(s.begin(), s.end(), 0.0);
        std::fill(mag.begin(), mag.end(), 0.0);
        for (int64_t t = 0; t < K; ++t) {
          const double av = a[static_cast<size_t>((bi * M + i) * K + t)];
          const double *brow = &b[static_cast<size_t>((bi * K + t) * N)];
          for (int64_t j = 0; j < N; ++j) s[static_cast<size_t>(j)] += av * brow[j], mag[static_cast<size_t>(j)] += std::fabs(av * brow[j]);
        }
        for (int64_t j = 0; j < N; ++j) {
          const double z = s[static_cast<size_t>(j)] + bias[static_cast<size_t>(j)];
          const double want = 0.5 * z * std::erfc(-z / std::sqrt(2.0));
          const double tol = 1.13 * (K + 8) * u * (mag[static_cast<size_t>(j)] + std::fabs(bias[static_cast<size_t>(j)])) +
                             8 * u * std::fabs(z) + uo * std::fabs(want);
          const int64_t at = (bi * M + i) * N + j;
          compare(r, bad, "out", at, got[static_cast<size_t>(at)], want, tol);
        }
      }
    return r;
  }

  // y = scale (x - mean) / sqrt(var + eps) + bias per row, every 64th row.
  CheckResult check_layernorm() {
    fdnn_test::HostTensor &y = host_[kLnY];
    fdnn_test::download(buffers_[kLnY], y);
    const std::vector<double> x = host_[kLnX].values(), sc = host_[kLnScale].values(), bi = host_[kLnBias].values(),
                              got = y.values();
    const int64_t D = ln_d_;
    const double u = std::ldexp(1.0, -24), uo = fdnn_test::unit_roundoff(io_);
    CheckResult r;
    r.passed = true;
    int64_t bad = 0;
    for (int64_t row = 0; row < ln_n_; row += 64) {
      const double *xr = &x[static_cast<size_t>(row * D)];
      double mean = 0, var = 0;
      for (int64_t j = 0; j < D; ++j) mean += xr[j];
      mean /= static_cast<double>(D);
      for (int64_t j = 0; j < D; ++j) var += (xr[j] - mean) * (xr[j] - mean);
      var /= static_cast<double>(D);
      const double istd = 1 / std::sqrt(var + static_cast<double>(kLnEpsilon));
      for (int64_t j = 0; j < D; ++j) {
        const double xhat = (xr[j] - mean) * istd, want = sc[static_cast<size_t>(j)] * xhat + bi[static_cast<size_t>(j)];
        const double tol = (64 + static_cast<double>(D) / 8) * u *
                               (std::fabs(sc[static_cast<size_t>(j)]) * (std::fabs(xhat) + std::fabs(xr[j]) * istd) +
                                std::fabs(bi[static_cast<size_t>(j)])) +
                           uo * std::fabs(want);
        compare(r, bad, "y", row * D + j, got[static_cast<size_t>(row * D + j)], want, tol);
      }
    }
    return r;
  }

  GraphAlg alg_;
  std::string dt_name_;
  cudnnDataType_t io_ = CUDNN_DATA_FLOAT;
  fdnn_test::FusionConfig cfg_;
  fdnn_test::FusionGraph fg_;
  LayerNormGraph ln_;
  int64_t ln_n_ = 0, ln_d_ = 0;
  float eps_ = kLnEpsilon;
  GraphPlan plan_;
  std::map<int64_t, fdnn_test::HostTensor> host_;
  std::map<int64_t, fdnn_test::Buffer> buffers_;
};

class GraphFamily : public OpFamily {
 public:
  const char *name() const override { return "graph"; }
  const char *help() const override {
    return "  graph      fused graphs (backend API), first engine of heuristics mode A, or of FALLBACK\n"
           "             (op by op) with an -opbyop suffix:\n"
           "             --alg=conv-bias-relu[-opbyop]: conv descriptor (mb8ic64ih56oc64oh56kh3ph1), --tag=nhwc|nchw;\n"
           "             --alg=matmul-bias-gelu[-opbyop]: shape BxMxKxN; --alg=layernorm[-opbyop]: shape NxD;\n"
           "             --dt=f32|f16|bf16 (float compute)\n";
  }
  void validate(const Problem &p) const override {
    const GraphAlg a = graph_alg(p.knobs.alg);
    const std::string &dt = p.knobs.dt;
    if (dt != "f32" && dt != "f16" && dt != "bf16") throw std::invalid_argument("graph --dt is f32, f16 or bf16");
    if (a.kind == GraphKind::conv_bias_relu) {
      if (p.descriptor.empty()) throw std::invalid_argument("conv-bias-relu takes a conv descriptor");
      parse_conv(p.descriptor);
      return;
    }
    const size_t rank = a.kind == GraphKind::matmul_bias_gelu ? 4 : 2;
    if (!p.descriptor.empty() || p.shapes.size() != 1 || p.shapes[0].size() != rank)
      throw std::invalid_argument(a.kind == GraphKind::matmul_bias_gelu ? "matmul-bias-gelu takes one shape BxMxKxN"
                                                                         : "layernorm takes one shape NxD");
    for (int64_t d : p.shapes[0])
      if (d < 1) throw std::invalid_argument("graph extents must be positive");
  }
  std::string knobs_text(const Problem &p) const override {
    std::string t = "--alg=" + (p.knobs.alg.empty() ? std::string("conv-bias-relu") : p.knobs.alg) + " --dt=" + p.knobs.dt;
    if (graph_alg(p.knobs.alg).kind == GraphKind::conv_bias_relu)
      t += std::string(" --tag=") + (letter_tag(p.knobs.stag, 4) == "acdb" ? "nhwc" : "nchw");
    return t;
  }
  std::unique_ptr<OpRun> prepare(cudnnHandle_t handle, const Problem &p) const override {
    return std::make_unique<GraphRun>(handle, p);
  }
};

BENCH_REGISTER_OP(GraphFamily)

BENCH_DEFAULT_PROBLEMS(graph, 96, {
    "--reset --name=graph.conv-bias-relu.f32 --op=graph --alg=conv-bias-relu --dt=f32 --tag=nhwc "
    "mb8ic64ih56oc64oh56kh3ph1",
    "--reset --name=graph.conv-bias-relu.opbyop.f32 --op=graph --alg=conv-bias-relu-opbyop --dt=f32 --tag=nhwc "
    "mb8ic64ih56oc64oh56kh3ph1",
    "--reset --name=graph.matmul-bias-gelu.f32 --op=graph --alg=matmul-bias-gelu --dt=f32 1x1024x1024x4096",
    "--reset --name=graph.matmul-bias-gelu.opbyop.f32 --op=graph --alg=matmul-bias-gelu-opbyop --dt=f32 "
    "1x1024x1024x4096",
    "--reset --name=graph.layernorm.f32 --op=graph --alg=layernorm --dt=f32 8192x1024",
})

}  // namespace
}  // namespace bench
