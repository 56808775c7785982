// What the oneDNN-backed CPU engines (convolution, matmul) share: the one
// CPU engine object, FreeDNN's types as oneDNN's, and the OpenMP team size
// for one call. Only included where FREEDNN_WITH_ONEDNN is defined.
#pragma once

#include <omp.h>

#include <oneapi/dnnl/dnnl.hpp>
#include <string>

#include <cudnn_graph.h>

namespace fdnn::cpu {

inline dnnl::engine &dnnl_cpu() {
  static dnnl::engine e(dnnl::engine::kind::cpu, 0);
  return e;
}

// FLOAT and BFLOAT16: the types both engines run.
inline bool dnnl_type(cudnnDataType_t t, dnnl::memory::data_type *out) {
  switch (t) {
    case CUDNN_DATA_FLOAT: *out = dnnl::memory::data_type::f32; return true;
    case CUDNN_DATA_BFLOAT16: *out = dnnl::memory::data_type::bf16; return true;
    default: return false;
  }
}

// FLOAT, BFLOAT16 and HALF: the float types an engine may offer oneDNN and
// then let primitive creation say whether this CPU runs them.
inline bool dnnl_float_type(cudnnDataType_t t, dnnl::memory::data_type *out) {
  if (t == CUDNN_DATA_HALF) {
    *out = dnnl::memory::data_type::f16;
    return true;
  }
  return dnnl_type(t, out);
}

// The calling thread's OpenMP team size for one call (oneDNN's CPU runtime
// is OpenMP; our pool decides how many threads a call may use).
class OmpThreads {
 public:
  explicit OmpThreads(int n) : prev_(omp_get_max_threads()) { omp_set_num_threads(n); }
  ~OmpThreads() { omp_set_num_threads(prev_); }
  OmpThreads(const OmpThreads &) = delete;
  OmpThreads &operator=(const OmpThreads &) = delete;

 private:
  int prev_;
};

// oneDNN's own reference kernels ("ref:any", ...) are correct but far slower
// than our other engines: the oneDNN engines decline problems that would
// land on them.
inline bool is_reference_impl(const std::string &impl) { return impl.rfind("ref", 0) == 0; }

}  // namespace fdnn::cpu
