#include "onednn_primitive.hpp"

#ifdef FREEDNN_BENCH_ONEDNN

namespace bench {

dnnl::engine &onednn_cpu_engine() {
  static dnnl::engine e(dnnl::engine::kind::cpu, 0);
  return e;
}

dnnl::memory onednn_filled(const dnnl::memory::desc &d) {
  using namespace dnnl;
  memory m(d, onednn_cpu_engine());
  memory::dims strides(d.dims().size(), 1);
  for (int i = static_cast<int>(strides.size()) - 2; i >= 0; --i) strides[i] = strides[i + 1] * d.dims()[i + 1];
  memory::desc src_md(d.dims(), memory::data_type::f32, strides);
  memory src(src_md, onednn_cpu_engine());
  auto *p = static_cast<float *>(src.get_data_handle());
  const size_t n = src_md.get_size() / sizeof(float);
  uint32_t s = 2463534242u;
  for (size_t i = 0; i < n; ++i) {
    s ^= s << 13;
    s ^= s >> 17;
    s ^= s << 5;
    p[i] = static_cast<float>(s >> 8) * (2.0f / 16777216.0f) - 1.0f;
  }
  stream st(onednn_cpu_engine());
  reorder(src, m).execute(st, src, m);
  st.wait();
  return m;
}

namespace {

class PrimitivePeer : public PeerRun {
 public:
  PrimitivePeer(dnnl::primitive prim, std::unordered_map<int, dnnl::memory> args, std::string name)
      : prim_(std::move(prim)), args_(std::move(args)), stream_(onednn_cpu_engine()), name_(std::move(name)) {}
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

std::unique_ptr<PeerRun> onednn_primitive_peer(dnnl::primitive prim, std::unordered_map<int, dnnl::memory> args,
                                               std::string name) {
  return std::make_unique<PrimitivePeer>(std::move(prim), std::move(args), std::move(name));
}

}  // namespace bench

#endif  // FREEDNN_BENCH_ONEDNN
