#include "onednn_conv_peer.hpp"

#ifdef FREEDNN_BENCH_ONEDNN
#include "onednn_primitive.hpp"

#include <cstring>
#include <unordered_map>

namespace bench {
namespace {

dnnl::engine &engine() { return onednn_cpu_engine(); }
dnnl::memory filled(const dnnl::memory::desc &d) { return onednn_filled(d); }

}  // namespace

std::unique_ptr<PeerRun> onednn_convolution(const PeerConv &c) {
  using namespace dnnl;
  memory::data_type dt;
  if (c.dt == "f32") dt = memory::data_type::f32;
  else if (c.dt == "bf16") dt = memory::data_type::bf16;
  else return nullptr;
  try {
    memory::dims wd;
    if (c.groups > 1) {
      wd = {c.groups, c.w[0] / c.groups};
      wd.insert(wd.end(), c.w.begin() + 1, c.w.end());
    } else {
      wd.assign(c.w.begin(), c.w.end());
    }
    const auto any = memory::format_tag::any;
    const memory::desc x(memory::dims(c.x.begin(), c.x.end()), dt, any), w(wd, dt, any),
        y(memory::dims(c.y.begin(), c.y.end()), dt, any);
    memory::dims strides(c.stride.begin(), c.stride.end()), pl(c.pad_l.begin(), c.pad_l.end()),
        pr(c.pad_r.begin(), c.pad_r.end()), dil;
    for (int64_t d : c.dilation) dil.push_back(d - 1);
    const algorithm alg = algorithm::convolution_direct;
    if (c.dir == "FWD_D") {
      convolution_forward::primitive_desc pd(
          convolution_forward::desc(prop_kind::forward_inference, alg, x, w, y, strides, dil, pl, pr), engine());
      std::unordered_map<int, memory> args{{DNNL_ARG_SRC, filled(pd.src_desc())},
                                           {DNNL_ARG_WEIGHTS, filled(pd.weights_desc())},
                                           {DNNL_ARG_DST, memory(pd.dst_desc(), engine())}};
      return onednn_primitive_peer(convolution_forward(pd), args,
                                        std::string("oneDNN convolution_forward:") + pd.impl_info_str());
    }
    convolution_forward::primitive_desc hint(
        convolution_forward::desc(prop_kind::forward_training, alg, x, w, y, strides, dil, pl, pr), engine());
    if (c.dir == "BWD_D") {
      convolution_backward_data::primitive_desc pd(
          convolution_backward_data::desc(alg, x, w, y, strides, dil, pl, pr), engine(), hint);
      std::unordered_map<int, memory> args{{DNNL_ARG_DIFF_DST, filled(pd.diff_dst_desc())},
                                           {DNNL_ARG_WEIGHTS, filled(pd.weights_desc())},
                                           {DNNL_ARG_DIFF_SRC, memory(pd.diff_src_desc(), engine())}};
      return onednn_primitive_peer(convolution_backward_data(pd), args,
                                        std::string("oneDNN convolution_backward_data:") + pd.impl_info_str());
    }
    convolution_backward_weights::primitive_desc pd(
        convolution_backward_weights::desc(alg, x, w, y, strides, dil, pl, pr), engine(), hint);
    std::unordered_map<int, memory> args{{DNNL_ARG_SRC, filled(pd.src_desc())},
                                         {DNNL_ARG_DIFF_DST, filled(pd.diff_dst_desc())},
                                         {DNNL_ARG_DIFF_WEIGHTS, memory(pd.diff_weights_desc(), engine())}};
    return onednn_primitive_peer(convolution_backward_weights(pd), args,
                                      std::string("oneDNN convolution_backward_weights:") + pd.impl_info_str());
  } catch (const dnnl::error &) {
    return nullptr;
  }
}

}  // namespace bench

#else

namespace bench {
std::unique_ptr<PeerRun> onednn_convolution(const PeerConv &) { return nullptr; }
}  // namespace bench

#endif
