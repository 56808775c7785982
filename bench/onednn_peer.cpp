#include "onednn_peer.hpp"

#ifdef FREEDNN_BENCH_ONEDNN
#include <omp.h>

#include "onednn_primitive.hpp"

#include <cstring>
#include <unordered_map>
#include <vector>

namespace bench {
namespace {

dnnl::engine &cpu_engine() { return onednn_cpu_engine(); }

bool to_dnnl_dt(const std::string &dt, dnnl::memory::data_type *out) {
  using d = dnnl::memory::data_type;
  if (dt == "f32") *out = d::f32;
  else if (dt == "f16") *out = d::f16;
  else if (dt == "bf16") *out = d::bf16;
  else if (dt == "s8") *out = d::s8;
  else if (dt == "u8") *out = d::u8;
  else if (dt == "s32") *out = d::s32;
  else return false;
  return true;
}

bool to_desc(const PeerTensor &t, dnnl::memory::desc *out) {
  dnnl::memory::data_type dt;
  if (!to_dnnl_dt(t.dt, &dt)) return false;
  *out = dnnl::memory::desc(dnnl::memory::dims(t.dims.begin(), t.dims.end()), dt,
                            dnnl::memory::dims(t.strides.begin(), t.strides.end()));
  return true;
}

}  // namespace

bool onednn_available() { return true; }

std::string onednn_version() {
  const dnnl_version_t *v = dnnl_version();
  return "oneDNN " + std::to_string(v->major) + "." + std::to_string(v->minor) + "." + std::to_string(v->patch) +
         " (" + (v->cpu_runtime == DNNL_RUNTIME_OMP ? "OpenMP" : "other") + " runtime)";
}

void onednn_set_threads(int threads) {
  if (threads > 0) omp_set_num_threads(threads);
}

std::unique_ptr<PeerRun> onednn_reorder(const PeerTensor &src, const PeerTensor &dst) {
  dnnl::memory::desc s, d;
  if (!to_desc(src, &s) || !to_desc(dst, &d)) return nullptr;
  try {
    dnnl::memory sm = onednn_filled(s), dm = onednn_filled(d);
    dnnl::reorder::primitive_desc pd(cpu_engine(), s, cpu_engine(), d);
    return onednn_primitive_peer(dnnl::reorder(pd), std::unordered_map<int, dnnl::memory>{{DNNL_ARG_FROM, sm}, {DNNL_ARG_TO, dm}},
                                           std::string("oneDNN reorder:") + pd.impl_info_str());
  } catch (const dnnl::error &) {
    return nullptr;
  }
}

std::unique_ptr<PeerRun> onednn_binary(const std::string &alg, const PeerTensor &src0, const PeerTensor &src1,
                                       const PeerTensor &dst, bool in_place) {
  dnnl::algorithm a;
  if (alg == "add") a = dnnl::algorithm::binary_add;
  else if (alg == "mul") a = dnnl::algorithm::binary_mul;
  else if (alg == "min") a = dnnl::algorithm::binary_min;
  else if (alg == "max") a = dnnl::algorithm::binary_max;
  else return nullptr;
  dnnl::memory::desc s0, s1, d;
  if (!to_desc(src0, &s0) || !to_desc(src1, &s1) || !to_desc(dst, &d)) return nullptr;
  try {
    dnnl::binary::primitive_desc pd(dnnl::binary::desc(a, s0, s1, d), cpu_engine());
    dnnl::memory m0 = onednn_filled(s0), m1 = onednn_filled(s1);
    dnnl::memory md = in_place ? m0 : onednn_filled(d);
    return onednn_primitive_peer(
        dnnl::binary(pd), std::unordered_map<int, dnnl::memory>{{DNNL_ARG_SRC_0, m0}, {DNNL_ARG_SRC_1, m1}, {DNNL_ARG_DST, md}},
        std::string("oneDNN binary:") + pd.impl_info_str());
  } catch (const dnnl::error &) {
    return nullptr;
  }
}

std::unique_ptr<PeerRun> onednn_reduction(const std::string &alg, const PeerTensor &src, const PeerTensor &dst) {
  dnnl::algorithm a;
  float p = 0;
  if (alg == "sum") a = dnnl::algorithm::reduction_sum;
  else if (alg == "mul") a = dnnl::algorithm::reduction_mul;
  else if (alg == "min") a = dnnl::algorithm::reduction_min;
  else if (alg == "max") a = dnnl::algorithm::reduction_max;
  else if (alg == "mean") a = dnnl::algorithm::reduction_mean;
  else if (alg == "norm1") a = dnnl::algorithm::reduction_norm_lp_sum, p = 1;
  else if (alg == "norm2") a = dnnl::algorithm::reduction_norm_lp_sum, p = 2;
  else return nullptr;
  dnnl::memory::desc s, d;
  if (!to_desc(src, &s) || !to_desc(dst, &d)) return nullptr;
  try {
    dnnl::reduction::primitive_desc pd(dnnl::reduction::desc(a, s, d, p, 0.f), cpu_engine());
    dnnl::memory sm = onednn_filled(s), dm = onednn_filled(d);
    return onednn_primitive_peer(dnnl::reduction(pd), std::unordered_map<int, dnnl::memory>{{DNNL_ARG_SRC, sm}, {DNNL_ARG_DST, dm}},
                                           std::string("oneDNN reduction:") + pd.impl_info_str());
  } catch (const dnnl::error &) {
    return nullptr;
  }
}

std::unique_ptr<PeerRun> onednn_scale(const PeerTensor &t, float alpha) {
  dnnl::memory::desc md;
  if (!to_desc(t, &md)) return nullptr;
  try {
    dnnl::eltwise_forward::primitive_desc pd(
        dnnl::eltwise_forward::desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::eltwise_linear, md, alpha, 0.f),
        cpu_engine());
    dnnl::memory m = onednn_filled(md);
    return onednn_primitive_peer(dnnl::eltwise_forward(pd),
                                           std::unordered_map<int, dnnl::memory>{{DNNL_ARG_SRC, m}, {DNNL_ARG_DST, m}},
                                           std::string("oneDNN eltwise_linear:") + pd.impl_info_str());
  } catch (const dnnl::error &) {
    return nullptr;
  }
}

}  // namespace bench

#else  // no oneDNN in this build

namespace bench {
bool onednn_available() { return false; }
std::string onednn_version() { return "oneDNN not built in (libdnnl not found)"; }
void onednn_set_threads(int) {}
std::unique_ptr<PeerRun> onednn_reorder(const PeerTensor &, const PeerTensor &) { return nullptr; }
std::unique_ptr<PeerRun> onednn_binary(const std::string &, const PeerTensor &, const PeerTensor &, const PeerTensor &, bool) {
  return nullptr;
}
std::unique_ptr<PeerRun> onednn_reduction(const std::string &, const PeerTensor &, const PeerTensor &) { return nullptr; }
std::unique_ptr<PeerRun> onednn_scale(const PeerTensor &, float) { return nullptr; }
}  // namespace bench

#endif
