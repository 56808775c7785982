#include "onednn_nn_peer.hpp"

#ifdef FREEDNN_BENCH_ONEDNN
#include "onednn_primitive.hpp"

#include <cstdint>
#include <unordered_map>

namespace bench {
namespace {

dnnl::engine &engine() { return onednn_cpu_engine(); }

dnnl::memory::desc md(const PeerTensor &t) {
  using dt = dnnl::memory::data_type;
  dt type;
  if (t.dt == "f32") type = dt::f32;
  else if (t.dt == "f16") type = dt::f16;
  else if (t.dt == "bf16") type = dt::bf16;
  else throw std::invalid_argument("no oneDNN type for " + t.dt);
  return dnnl::memory::desc(dnnl::memory::dims(t.dims.begin(), t.dims.end()), type,
                            dnnl::memory::dims(t.strides.begin(), t.strides.end()));
}

// Per-channel f32 vector (scale, shift, mean, variance): positive values.
dnnl::memory channel_vector(int64_t c) {
  dnnl::memory::desc d({c}, dnnl::memory::data_type::f32, dnnl::memory::format_tag::a);
  dnnl::memory m(d, engine());
  auto *p = static_cast<float *>(m.get_data_handle());
  for (int64_t i = 0; i < c; ++i) p[i] = 0.5f + 0.01f * static_cast<float>(i % 97);
  return m;
}

}  // namespace

std::unique_ptr<PeerRun> onednn_batch_norm(const std::string &phase, const PeerTensor &x, double epsilon) {
  using namespace dnnl;
  try {
    const memory::desc xmd = md(x);
    const int64_t c = x.dims.size() > 1 ? x.dims[1] : 1;
    normalization_flags flags = normalization_flags::use_scale | normalization_flags::use_shift;
    const float eps = static_cast<float>(epsilon);
    if (phase == "infer") {
      flags = flags | normalization_flags::use_global_stats;
      batch_normalization_forward::primitive_desc pd(
          batch_normalization_forward::desc(prop_kind::forward_inference, xmd, eps, flags), engine());
      std::unordered_map<int, memory> args{{DNNL_ARG_SRC, onednn_filled(xmd)},      {DNNL_ARG_DST, memory(xmd, engine())},
                                           {DNNL_ARG_SCALE, channel_vector(c)}, {DNNL_ARG_SHIFT, channel_vector(c)},
                                           {DNNL_ARG_MEAN, channel_vector(c)},  {DNNL_ARG_VARIANCE, channel_vector(c)}};
      return onednn_primitive_peer(batch_normalization_forward(pd), args,
                                    std::string("oneDNN batch_normalization inference:") + pd.impl_info_str());
    }
    batch_normalization_forward::primitive_desc fpd(
        batch_normalization_forward::desc(prop_kind::forward_training, xmd, eps, flags), engine());
    memory src = onednn_filled(xmd), mean = channel_vector(c), var = channel_vector(c), scale = channel_vector(c);
    std::unordered_map<int, memory> fargs{{DNNL_ARG_SRC, src},   {DNNL_ARG_DST, memory(xmd, engine())},
                                          {DNNL_ARG_SCALE, scale}, {DNNL_ARG_SHIFT, channel_vector(c)},
                                          {DNNL_ARG_MEAN, mean}, {DNNL_ARG_VARIANCE, var}};
    if (phase == "train")
      return onednn_primitive_peer(batch_normalization_forward(fpd), fargs,
                                    std::string("oneDNN batch_normalization training:") + fpd.impl_info_str());
    dnnl::stream s(engine());
    batch_normalization_forward(fpd).execute(s, fargs);  // real statistics for backward
    s.wait();
    batch_normalization_backward::primitive_desc bpd(
        batch_normalization_backward::desc(prop_kind::backward, xmd, xmd, eps, flags), engine(), fpd);
    std::unordered_map<int, memory> args{{DNNL_ARG_SRC, src},
                                         {DNNL_ARG_MEAN, mean},
                                         {DNNL_ARG_VARIANCE, var},
                                         {DNNL_ARG_DIFF_DST, onednn_filled(xmd)},
                                         {DNNL_ARG_SCALE, scale},
                                         {DNNL_ARG_SHIFT, fargs[DNNL_ARG_SHIFT]},
                                         {DNNL_ARG_DIFF_SRC, memory(xmd, engine())},
                                         {DNNL_ARG_DIFF_SCALE, channel_vector(c)},
                                         {DNNL_ARG_DIFF_SHIFT, channel_vector(c)}};
    return onednn_primitive_peer(batch_normalization_backward(bpd), args,
                                  std::string("oneDNN batch_normalization backward:") + bpd.impl_info_str());
  } catch (const std::exception &) {
    return nullptr;
  }
}

std::unique_ptr<PeerRun> onednn_softmax(bool log, bool backward, const PeerTensor &x, int axis) {
  using namespace dnnl;
  try {
    const memory::desc xmd = md(x);
    const algorithm alg = log ? algorithm::softmax_log : algorithm::softmax_accurate;
    softmax_v2_forward::primitive_desc fpd(
        softmax_v2_forward::desc(backward ? prop_kind::forward_training : prop_kind::forward_inference, alg, xmd, xmd,
                                 axis),
        engine());
    if (!backward)
      return onednn_primitive_peer(softmax_v2_forward(fpd),
                                    std::unordered_map<int, memory>{{DNNL_ARG_SRC, onednn_filled(xmd)},
                                                                    {DNNL_ARG_DST, memory(xmd, engine())}},
                                    std::string("oneDNN softmax_v2 forward:") + fpd.impl_info_str());
    softmax_v2_backward::primitive_desc bpd(softmax_v2_backward::desc(alg, xmd, xmd, xmd, axis), engine(), fpd);
    return onednn_primitive_peer(softmax_v2_backward(bpd),
                                  std::unordered_map<int, memory>{{DNNL_ARG_DST, onednn_filled(xmd)},
                                                                  {DNNL_ARG_DIFF_DST, onednn_filled(xmd)},
                                                                  {DNNL_ARG_DIFF_SRC, memory(xmd, engine())}},
                                  std::string("oneDNN softmax_v2 backward:") + bpd.impl_info_str());
  } catch (const std::exception &) {
    return nullptr;
  }
}

std::unique_ptr<PeerRun> onednn_lrn(bool backward, const PeerTensor &x, int n, double alpha, double beta, double k) {
  using namespace dnnl;
  try {
    const memory::desc xmd = md(x);
    const float a = static_cast<float>(alpha), b = static_cast<float>(beta), kk = static_cast<float>(k);
    lrn_forward::primitive_desc fpd(
        lrn_forward::desc(backward ? prop_kind::forward_training : prop_kind::forward_inference,
                          algorithm::lrn_across_channels, xmd, n, a, b, kk),
        engine());
    memory src = onednn_filled(xmd);
    std::unordered_map<int, memory> fargs{{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, memory(xmd, engine())}};
    if (!backward)
      return onednn_primitive_peer(lrn_forward(fpd), fargs,
                                    std::string("oneDNN lrn forward:") + fpd.impl_info_str());
    // Backward may read the forward's workspace (made once, outside the timing).
    if (fpd.workspace_desc().get_size() > 0) fargs[DNNL_ARG_WORKSPACE] = memory(fpd.workspace_desc(), engine());
    dnnl::stream s(engine());
    lrn_forward(fpd).execute(s, fargs);
    s.wait();
    lrn_backward::primitive_desc bpd(lrn_backward::desc(algorithm::lrn_across_channels, xmd, xmd, n, a, b, kk),
                                     engine(), fpd);
    std::unordered_map<int, memory> args{
        {DNNL_ARG_SRC, src}, {DNNL_ARG_DIFF_DST, onednn_filled(xmd)}, {DNNL_ARG_DIFF_SRC, memory(xmd, engine())}};
    if (fargs.count(DNNL_ARG_WORKSPACE)) args[DNNL_ARG_WORKSPACE] = fargs[DNNL_ARG_WORKSPACE];
    return onednn_primitive_peer(lrn_backward(bpd), args,
                                  std::string("oneDNN lrn backward:") + bpd.impl_info_str());
  } catch (const std::exception &) {
    return nullptr;
  }
}

std::unique_ptr<PeerRun> onednn_eltwise(const std::string &alg_name, bool use_dst, bool backward, const PeerTensor &x,
                                        double alpha, double beta) {
  using namespace dnnl;
  try {
    algorithm alg;
    if (alg_name == "relu") alg = use_dst ? algorithm::eltwise_relu_use_dst_for_bwd : algorithm::eltwise_relu;
    else if (alg_name == "tanh") alg = use_dst ? algorithm::eltwise_tanh_use_dst_for_bwd : algorithm::eltwise_tanh;
    else if (alg_name == "logistic")
      alg = use_dst ? algorithm::eltwise_logistic_use_dst_for_bwd : algorithm::eltwise_logistic;
    else if (alg_name == "elu") alg = use_dst ? algorithm::eltwise_elu_use_dst_for_bwd : algorithm::eltwise_elu;
    else if (alg_name == "clip") alg = use_dst ? algorithm::eltwise_clip_v2_use_dst_for_bwd : algorithm::eltwise_clip_v2;
    else return nullptr;
    const memory::desc xmd = md(x);
    const float a = static_cast<float>(alpha), b = static_cast<float>(beta);
    eltwise_forward::primitive_desc fpd(
        eltwise_forward::desc(backward ? prop_kind::forward_training : prop_kind::forward_inference, alg, xmd, a, b),
        engine());
    if (!backward)
      return onednn_primitive_peer(eltwise_forward(fpd),
                                    std::unordered_map<int, memory>{{DNNL_ARG_SRC, onednn_filled(xmd)},
                                                                    {DNNL_ARG_DST, memory(xmd, engine())}},
                                    std::string("oneDNN eltwise forward:") + fpd.impl_info_str());
    eltwise_backward::primitive_desc bpd(eltwise_backward::desc(alg, xmd, xmd, a, b), engine(), fpd);
    return onednn_primitive_peer(eltwise_backward(bpd),
                                  std::unordered_map<int, memory>{{use_dst ? DNNL_ARG_DST : DNNL_ARG_SRC, onednn_filled(xmd)},
                                                                  {DNNL_ARG_DIFF_DST, onednn_filled(xmd)},
                                                                  {DNNL_ARG_DIFF_SRC, memory(xmd, engine())}},
                                  std::string("oneDNN eltwise backward:") + bpd.impl_info_str());
  } catch (const std::exception &) {
    return nullptr;
  }
}

}  // namespace bench

#else  // no oneDNN in this build

namespace bench {
std::unique_ptr<PeerRun> onednn_batch_norm(const std::string &, const PeerTensor &, double) { return nullptr; }
std::unique_ptr<PeerRun> onednn_softmax(bool, bool, const PeerTensor &, int) { return nullptr; }
std::unique_ptr<PeerRun> onednn_lrn(bool, const PeerTensor &, int, double, double, double) { return nullptr; }
std::unique_ptr<PeerRun> onednn_eltwise(const std::string &, bool, bool, const PeerTensor &, double, double) {
  return nullptr;
}
}  // namespace bench

#endif
