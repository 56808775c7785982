#include "onednn_graph_peer.hpp"

#ifdef FREEDNN_BENCH_ONEDNN
#include <oneapi/dnnl/dnnl.hpp>

#include <unordered_map>

namespace bench {
namespace {

dnnl::engine &engine() {
  static dnnl::engine e(dnnl::engine::kind::cpu, 0);
  return e;
}

// Small varied values (xorshift in [-1, 1)) through one reorder into d.
dnnl::memory filled(const dnnl::memory::desc &d) {
  using namespace dnnl;
  memory m(d, engine());
  memory::dims strides(d.dims().size(), 1);
  for (int i = static_cast<int>(strides.size()) - 2; i >= 0; --i) strides[i] = strides[i + 1] * d.dims()[i + 1];
  memory::desc src_md(d.dims(), memory::data_type::f32, strides);
  memory src(src_md, engine());
  auto *p = static_cast<float *>(src.get_data_handle());
  const size_t n = src_md.get_size() / sizeof(float);
  uint32_t s = 2463534242u;
  for (size_t i = 0; i < n; ++i) {
    s ^= s << 13;
    s ^= s >> 17;
    s ^= s << 5;
    p[i] = static_cast<float>(s >> 8) * (2.0f / 16777216.0f) - 1.0f;
  }
  stream st(engine());
  reorder(src, m).execute(st, src, m);
  st.wait();
  return m;
}

class Peer : public PeerRun {
 public:
  Peer(dnnl::primitive prim, std::unordered_map<int, dnnl::memory> args, std::string name)
      : prim_(std::move(prim)), args_(std::move(args)), stream_(engine()), name_(std::move(name)) {}
  void execute() override {
    prim_.execute(stream_, args_);
    stream_.wait();
  }
  std::string name() const override { return name_; }

 private:
  dnnl::primitive prim_;
  std::unordered_map<int, dnnl::memory> args_;
  dnnl::stream stream_;
  std::string name_;
};

bool data_type(const std::string &dt, dnnl::memory::data_type *out) {
  if (dt == "f32") *out = dnnl::memory::data_type::f32;
  else if (dt == "bf16") *out = dnnl::memory::data_type::bf16;
  else if (dt == "f16") *out = dnnl::memory::data_type::f16;
  else return false;
  return true;
}

}  // namespace

std::unique_ptr<PeerRun> onednn_conv_bias_relu(const PeerConv &c) {
  using namespace dnnl;
  memory::data_type dt;
  if (c.groups != 1 || !data_type(c.dt, &dt)) return nullptr;
  try {
    const auto any = memory::format_tag::any;
    const memory::desc x(memory::dims(c.x.begin(), c.x.end()), dt, any),
        w(memory::dims(c.w.begin(), c.w.end()), dt, any), y(memory::dims(c.y.begin(), c.y.end()), dt, any),
        bias({c.y[1]}, dt, memory::format_tag::a);
    memory::dims strides(c.stride.begin(), c.stride.end()), pl(c.pad_l.begin(), c.pad_l.end()),
        pr(c.pad_r.begin(), c.pad_r.end()), dil;
    for (int64_t d : c.dilation) dil.push_back(d - 1);
    post_ops ops;
    ops.append_eltwise(1.0f, algorithm::eltwise_relu, 0.0f, 0.0f);
    primitive_attr attr;
    attr.set_post_ops(ops);
    convolution_forward::primitive_desc pd(
        convolution_forward::desc(prop_kind::forward_inference, algorithm::convolution_direct, x, w, bias, y, strides,
                                  dil, pl, pr),
        attr, engine());
    std::unordered_map<int, memory> args{{DNNL_ARG_SRC, filled(pd.src_desc())},
                                         {DNNL_ARG_WEIGHTS, filled(pd.weights_desc())},
                                         {DNNL_ARG_BIAS, filled(pd.bias_desc())},
                                         {DNNL_ARG_DST, memory(pd.dst_desc(), engine())}};
    return std::make_unique<Peer>(convolution_forward(pd), args,
                                  std::string("oneDNN convolution_forward+bias+relu:") + pd.impl_info_str());
  } catch (const dnnl::error &) {
    return nullptr;
  }
}

std::unique_ptr<PeerRun> onednn_matmul_bias_gelu(const std::string &dts, int64_t b, int64_t m, int64_t k, int64_t n) {
  using namespace dnnl;
  memory::data_type dt;
  if (!data_type(dts, &dt)) return nullptr;
  try {
    const auto abc = memory::format_tag::abc;
    const memory::desc a({b, m, k}, dt, abc), w({b, k, n}, dt, abc), bias({1, 1, n}, dt, abc), c({b, m, n}, dt, abc);
    post_ops ops;
    ops.append_eltwise(1.0f, algorithm::eltwise_gelu_erf, 0.0f, 0.0f);
    primitive_attr attr;
    attr.set_post_ops(ops);
    matmul::primitive_desc pd(matmul::desc(a, w, bias, c), attr, engine());
    std::unordered_map<int, memory> args{{DNNL_ARG_SRC, filled(pd.src_desc())},
                                         {DNNL_ARG_WEIGHTS, filled(pd.weights_desc())},
                                         {DNNL_ARG_BIAS, filled(pd.bias_desc())},
                                         {DNNL_ARG_DST, memory(pd.dst_desc(), engine())}};
    return std::make_unique<Peer>(matmul(pd), args, std::string("oneDNN matmul+bias+gelu_erf:") + pd.impl_info_str());
  } catch (const dnnl::error &) {
    return nullptr;
  }
}

std::unique_ptr<PeerRun> onednn_layernorm(const std::string &dts, int64_t n, int64_t d, float epsilon) {
  using namespace dnnl;
  memory::data_type dt;
  if (!data_type(dts, &dt)) return nullptr;
  try {
    const memory::desc x({n, d}, dt, memory::format_tag::ab);
    layer_normalization_forward::primitive_desc pd(
        layer_normalization_forward::desc(prop_kind::forward_training, x, epsilon,
                                          normalization_flags::use_scale | normalization_flags::use_shift),
        engine());
    std::unordered_map<int, memory> args{{DNNL_ARG_SRC, filled(pd.src_desc())},
                                         {DNNL_ARG_SCALE, filled(pd.weights_desc())},
                                         {DNNL_ARG_SHIFT, filled(pd.weights_desc())},
                                         {DNNL_ARG_MEAN, memory(pd.mean_desc(), engine())},
                                         {DNNL_ARG_VARIANCE, memory(pd.variance_desc(), engine())},
                                         {DNNL_ARG_DST, memory(pd.dst_desc(), engine())}};
    return std::make_unique<Peer>(layer_normalization_forward(pd), args,
                                  std::string("oneDNN layer_normalization_forward:") + pd.impl_info_str());
  } catch (const dnnl::error &) {
    return nullptr;
  }
}

}  // namespace bench

#else

namespace bench {
std::unique_ptr<PeerRun> onednn_conv_bias_relu(const PeerConv &) { return nullptr; }
std::unique_ptr<PeerRun> onednn_matmul_bias_gelu(const std::string &, int64_t, int64_t, int64_t, int64_t) {
  return nullptr;
}
std::unique_ptr<PeerRun> onednn_layernorm(const std::string &, int64_t, int64_t, float) { return nullptr; }
}  // namespace bench

#endif
