#include "onednn_graph_peer.hpp"

#ifdef FREEDNN_BENCH_ONEDNN
#include "onednn_primitive.hpp"

#include <unordered_map>

namespace bench {
namespace {

dnnl::engine &engine() { return onednn_cpu_engine(); }
dnnl::memory filled(const dnnl::memory::desc &d) { return onednn_filled(d); }

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
    return onednn_primitive_peer(convolution_forward(pd), args,
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
    return onednn_primitive_peer(matmul(pd), args, std::string("oneDNN matmul+bias+gelu_erf:") + pd.impl_info_str());
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
    return onednn_primitive_peer(layer_normalization_forward(pd), args,
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
