#include "onednn_conv_peer.hpp"

#ifdef FREEDNN_BENCH_ONEDNN
#include <oneapi/dnnl/dnnl.hpp>

#include <cstring>
#include <unordered_map>

namespace bench {
namespace {

dnnl::engine &engine() {
  static dnnl::engine e(dnnl::engine::kind::cpu, 0);
  return e;
}

// Small varied values (xorshift in [-1, 1)), converted by a reorder for bf16.
dnnl::memory filled(const dnnl::memory::desc &d) {
  using namespace dnnl;
  memory m(d, engine());
  // A plain row-major f32 copy, then one reorder into d's layout and type.
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

class ConvPeer : public PeerRun {
 public:
  ConvPeer(dnnl::primitive prim, std::unordered_map<int, dnnl::memory> args, std::string name)
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
      return std::make_unique<ConvPeer>(convolution_forward(pd), args,
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
      return std::make_unique<ConvPeer>(convolution_backward_data(pd), args,
                                        std::string("oneDNN convolution_backward_data:") + pd.impl_info_str());
    }
    convolution_backward_weights::primitive_desc pd(
        convolution_backward_weights::desc(alg, x, w, y, strides, dil, pl, pr), engine(), hint);
    std::unordered_map<int, memory> args{{DNNL_ARG_SRC, filled(pd.src_desc())},
                                         {DNNL_ARG_DIFF_DST, filled(pd.diff_dst_desc())},
                                         {DNNL_ARG_DIFF_WEIGHTS, memory(pd.diff_weights_desc(), engine())}};
    return std::make_unique<ConvPeer>(convolution_backward_weights(pd), args,
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
