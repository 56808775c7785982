// Algorithm selection for the legacy convolutions: workspace sizes, the
// algorithm counts, the _v7 heuristics and the Find calls, for the three
// directions. Whether an algorithm supports a problem is decided in one
// place: whether an engine of the handle's device makes a plan for the
// problem's graph with that algorithm (the same question the execute call
// asks), and its workspace is that plan's.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <initializer_list>
#include <utility>
#include <vector>

#include "api/convolution_common.hpp"
#include "api/guard.hpp"
#include "core/error.hpp"
#include "core/gpu.hpp"
#include "core/handle.hpp"

using namespace fdnn;
using namespace fdnn::api;
using graph::ConvDirection;

namespace {

// What one algorithm gives for a problem: its plan, or the status of trying.
struct AlgoTrial {
  int algo;
  cudnnStatus_t status = CUDNN_STATUS_SUCCESS;
  size_t memory = 0;
  float time_ms = -1.0f;
};

cudnnStatus_t try_plan(cudnnContext &h, ConvProblem &p, int algo, size_t *memory) {
  p.op().algo = algo;
  try {
    *memory = convolution_plan(h, p)->workspace_size();
    return CUDNN_STATUS_SUCCESS;
  } catch (const Error &e) {
    *memory = 0;
    return e.status();
  }
}

// Whether the engine named `name` takes the problem under algorithm `algo`.
bool engine_takes(const char *name, const ConvProblem &p, int algo) {
  const Engine *e = EngineRegistry::instance().by_name(name);
  if (e == nullptr) return false;
  ConvProblem q = p;
  q.op().algo = algo;
  return static_cast<bool>(e->supports(q.g));
}

// Whether cpu.conv.onednn (oneDNN's kernels, serving IMPLICIT_PRECOMP_GEMM
// forward and ALGO_1 backward; see src/cpu/convolution_onednn.cpp) takes the
// problem on this handle: it then beats every other CPU algorithm.
bool onednn_takes(const cudnnContext &h, const ConvProblem &p) {
  if (h.device.kind != DeviceKind::cpu) return false;
  return engine_takes("cpu.conv.onednn", p,
                      p.dir == ConvDirection::forward         ? int{CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM}
                      : p.dir == ConvDirection::backward_data ? int{CUDNN_CONVOLUTION_BWD_DATA_ALGO_1}
                                                              : int{CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1});
}

// Whether cuda.conv.gemm_1x1 takes the problem's forward GEMM algorithm as
// one cuBLASLt product (HALF / BFLOAT16 NHWC pointwise convolutions): on an
// H100 it beat the implicit GEMM kernels by 1.5-1.6x there (batch 256
// 64x56 1x1, 64 -> 64 and 64 -> 256, docs/perf.md), so it leads.
bool gemm_1x1_leads(const cudnnContext &h, const ConvProblem &p) {
  if (h.device.kind != DeviceKind::cuda || p.dir != ConvDirection::forward) return false;
  const cudnnDataType_t t = convolution_geometry(p.g).x.dtype;
  if (t != CUDNN_DATA_HALF && t != CUDNN_DATA_BFLOAT16) return false;
  return engine_takes("cuda.conv.gemm_1x1", p, CUDNN_CONVOLUTION_FWD_ALGO_GEMM);
}

// Whether oneDNN's Winograd (cpu.conv.onednn on the fused WINOGRAD enums,
// taken where the filter is at most a quarter of x + y) beats oneDNN's
// direct convolution on this CPU handle. Xeon guest, 2 threads, ms a call,
// WINOGRAD against the direct path: forward 64x56x56 3x3 batch 8 NHWC 4.2 /
// 4.75, NCHW 3.75 / 5.7, batch 32 NCHW 15.3 / 26.5, but batch 1 0.72 /
// 0.62 and 128x28x28 batch 8 4.9 / 5.0 (filter 1/27 and 1/11 of x + y): it
// leads forward from a filter of 1/16 of x + y; backward data 64x56 batch
// 8 NHWC 3.1 / 5.5, 128x28 batch 8 NCHW 2.5 / 5.8: wherever it is taken.
bool onednn_winograd_leads(const cudnnContext &h, const ConvProblem &p, const ConvGeometry &geo) {
  if (h.device.kind != DeviceKind::cpu || p.dir == ConvDirection::backward_filter) return false;
  if (p.dir == ConvDirection::forward) {
    const int64_t filter = geo.K * geo.Cg * geo.filter_taps();
    const int64_t activations = geo.N * (geo.C * geo.in_pixels() + geo.K * geo.out_pixels());
    if (16 * filter > activations) return false;
  }
  return engine_takes("cpu.conv.onednn", p,
                      p.dir == ConvDirection::forward ? int{CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD}
                                                      : int{CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD});
}

// The heuristic order: expected speed on this backend, best first. Winograd
// pays off with enough channels to amortise its transforms, unless oneDNN
// runs the GEMM-style algorithms; on the CPU the fused WINOGRAD leads where
// oneDNN's Winograd does (onednn_winograd_leads).
std::vector<int> heuristic_order(const cudnnContext &h, const ConvProblem &p) {
  const ConvGeometry geo = convolution_geometry(p.g);
  const bool winograd_shape = geo.nsp == 2 && geo.filt[0] == 3 && geo.filt[1] == 3 && geo.stride[0] == 1 &&
                              geo.stride[1] == 1 && geo.dil[0] == 1 && geo.dil[1] == 1 && geo.Cg >= 16 &&
                              geo.Kg >= 16;
  const bool fused_first = winograd_shape && onednn_winograd_leads(h, p, geo);
  const bool winograd_first = winograd_shape && !fused_first && !onednn_takes(h, p);
  switch (p.dir) {
    case ConvDirection::forward: {
      std::vector<int> gemms = {CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM, CUDNN_CONVOLUTION_FWD_ALGO_GEMM,
                                CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM};
      if (gemm_1x1_leads(h, p)) std::swap(gemms[0], gemms[1]);
      std::vector<int> wino = {CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED, CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD};
      if (fused_first) {
        std::vector<int> order = {CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD};
        for (int a : gemms) order.push_back(a);
        order.push_back(CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED);
        for (int a : {CUDNN_CONVOLUTION_FWD_ALGO_DIRECT, CUDNN_CONVOLUTION_FWD_ALGO_FFT,
                      CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING})
          order.push_back(a);
        return order;
      }
      std::vector<int> order = winograd_first ? wino : gemms;
      for (int a : winograd_first ? gemms : wino) order.push_back(a);
      for (int a : {CUDNN_CONVOLUTION_FWD_ALGO_DIRECT, CUDNN_CONVOLUTION_FWD_ALGO_FFT,
                    CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING})
        order.push_back(a);
      return order;
    }
    case ConvDirection::backward_data: {
      std::vector<int> order = {CUDNN_CONVOLUTION_BWD_DATA_ALGO_1};
      std::vector<int> wino = {CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD_NONFUSED,
                               CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD};
      if (fused_first) {
        order.insert(order.begin(), CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD);
        order.push_back(CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD_NONFUSED);
        wino.clear();
      }
      order.insert(winograd_first ? order.begin() : order.end(), wino.begin(), wino.end());
      for (int a : {CUDNN_CONVOLUTION_BWD_DATA_ALGO_0, CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT,
                    CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT_TILING})
        order.push_back(a);
      return order;
    }
    case ConvDirection::backward_filter: {
      std::vector<int> order = {CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_3,
                                CUDNN_CONVOLUTION_BWD_FILTER_ALGO_0, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_FFT,
                                CUDNN_CONVOLUTION_BWD_FILTER_ALGO_FFT_TILING, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD};
      // WINOGRAD_NONFUSED (the GPU's; the CPU has none) leads where Winograd pays.
      order.insert(winograd_first ? order.begin() : order.end(), CUDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD_NONFUSED);
      return order;
    }
  }
  return {};
}

// The heuristic answer: supported algorithms in heuristic order, then the
// others with their status.
std::vector<AlgoTrial> heuristic_trials(cudnnContext &h, ConvProblem &p) {
  std::vector<AlgoTrial> ok, not_ok;
  for (int algo : heuristic_order(h, p)) {
    AlgoTrial t{algo};
    t.status = try_plan(h, p, algo, &t.memory);
    (t.status == CUDNN_STATUS_SUCCESS ? ok : not_ok).push_back(t);
  }
  ok.insert(ok.end(), not_ok.begin(), not_ok.end());
  return ok;
}

double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Device memory of the handle's kind, freed on scope exit.
class DeviceBytes {
 public:
  DeviceBytes(cudnnContext &h, size_t bytes) : cuda_(h.device.kind == DeviceKind::cuda) {
    if (bytes == 0) return;
    if (cuda_) {
      p_ = gpu::device_alloc(bytes);
    } else {
      p_ = std::calloc(bytes, 1);
      if (p_ == nullptr) fail(CUDNN_STATUS_ALLOC_FAILED, "could not allocate ", bytes, " bytes for Find");
    }
  }
  ~DeviceBytes() {
    if (cuda_) gpu::device_free(p_);
    else std::free(p_);
  }
  DeviceBytes(const DeviceBytes &) = delete;
  DeviceBytes &operator=(const DeviceBytes &) = delete;
  void *get() const { return p_; }

 private:
  bool cuda_;
  void *p_ = nullptr;
};

// Times every supported algorithm on the given buffers: one untimed run (it
// makes the plan), then the best of up to 3 runs (1 when a run takes more
// than 100 ms). Algorithms whose workspace exceeds `ws_bytes` get
// ALLOC_FAILED. Sorted: fastest first, failures last.
std::vector<AlgoTrial> timed_trials(cudnnContext &h, ConvProblem &p, const char *fn, const void *x, const void *w,
                                    const void *y, void *ws, size_t ws_bytes) {
  std::vector<AlgoTrial> trials;
  for (int algo = 0; algo < convolution_algo_count(p.dir); ++algo) {
    AlgoTrial t{algo};
    t.status = try_plan(h, p, algo, &t.memory);
    if (t.status == CUDNN_STATUS_SUCCESS && t.memory > ws_bytes) t.status = CUDNN_STATUS_ALLOC_FAILED;
    if (t.status == CUDNN_STATUS_SUCCESS) {
      try {
        const auto once = [&] {
          p.op().algo = algo;
          run_convolution(h, fn, p, x, w, y, 1.0, 0.0, ws, ws_bytes);
          if (h.device.kind == DeviceKind::cuda) gpu::synchronize(h.stream);
        };
        once();
        double best = 1e300;
        for (int rep = 0; rep < 3; ++rep) {
          const double t0 = now_ms();
          once();
          best = std::min(best, now_ms() - t0);
          if (best > 100) break;
        }
        t.time_ms = static_cast<float>(best);
      } catch (const Error &e) {
        t.status = e.status();
      }
    }
    trials.push_back(t);
  }
  std::stable_sort(trials.begin(), trials.end(), [](const AlgoTrial &a, const AlgoTrial &b) {
    const bool ga = a.status == CUDNN_STATUS_SUCCESS, gb = b.status == CUDNN_STATUS_SUCCESS;
    if (ga != gb) return ga;
    return ga && a.time_ms < b.time_ms;
  });
  return trials;
}

template <class Perf, class Algo>
void write_results(const std::vector<AlgoTrial> &trials, const ConvProblem &p, int requested, int *returned,
                   Perf *out) {
  const int n = std::min<int>(requested, static_cast<int>(trials.size()));
  const cudnnMathType_t math = std::get<graph::ConvolutionOp>(p.g.ops().front()).math_type;
  for (int i = 0; i < n; ++i) {
    Perf r;
    std::memset(&r, 0, sizeof r);
    r.algo = static_cast<Algo>(trials[i].algo);
    r.status = trials[i].status;
    r.time = trials[i].time_ms;
    r.memory = trials[i].memory;
    r.determinism = convolution_algo_deterministic(p.dir, trials[i].algo) ? CUDNN_DETERMINISTIC : CUDNN_NON_DETERMINISTIC;
    r.mathType = math;
    out[i] = r;
  }
  *returned = n;
}

void check_request(int requested, const void *returned, const void *perf, const char *requested_name) {
  check_not_null(returned, "returnedAlgoCount");
  check_not_null(perf, "perfResults");
  // 0 asks for nothing and gets nothing (cuDNN 9.19 returns SUCCESS there).
  check_arg(requested >= 0, requested_name, " = ", requested, ": must not be negative");
}

size_t workspace_of(cudnnContext &h, ConvProblem &p, int algo) {
  check_algo_value(p.dir, algo);
  p.op().algo = algo;
  return convolution_plan(h, p)->workspace_size();
}

// Sizes of the operands a Find call allocates itself.
size_t tensor_bytes(const cudnnTensorStruct *d) { return tensor_size_bytes(*d); }
size_t filter_bytes(const cudnnFilterStruct *d) { return filter_size_bytes(*d); }

size_t max_workspace(const std::vector<AlgoTrial> &trials) {
  size_t m = 0;
  for (const AlgoTrial &t : trials)
    if (t.status == CUDNN_STATUS_SUCCESS) m = std::max(m, t.memory);
  return m;
}

}  // namespace

extern "C" {

// ---- Counts ------------------------------------------------------------------

cudnnStatus_t CUDNNWINAPI cudnnGetConvolutionForwardAlgorithmMaxCount(cudnnHandle_t handle, int *count) {
  return FDNN_GUARDED([&] {
    checked_handle(handle);
    check_not_null(count, "count");
    *count = CUDNN_CONVOLUTION_FWD_ALGO_COUNT;
  });
}

cudnnStatus_t CUDNNWINAPI cudnnGetConvolutionBackwardDataAlgorithmMaxCount(cudnnHandle_t handle, int *count) {
  return FDNN_GUARDED([&] {
    checked_handle(handle);
    check_not_null(count, "count");
    *count = CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT;
  });
}

cudnnStatus_t CUDNNWINAPI cudnnGetConvolutionBackwardFilterAlgorithmMaxCount(cudnnHandle_t handle, int *count) {
  return FDNN_GUARDED([&] {
    checked_handle(handle);
    check_not_null(count, "count");
    *count = CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT;
  });
}

// ---- Workspace sizes -----------------------------------------------------------

cudnnStatus_t CUDNNWINAPI cudnnGetConvolutionForwardWorkspaceSize(cudnnHandle_t handle,
                                                                  const cudnnTensorDescriptor_t xDesc,
                                                                  const cudnnFilterDescriptor_t wDesc,
                                                                  const cudnnConvolutionDescriptor_t convDesc,
                                                                  const cudnnTensorDescriptor_t yDesc,
                                                                  cudnnConvolutionFwdAlgo_t algo, size_t *sizeInBytes) {
  return FDNN_GUARDED([&] {
    cudnnContext &h = checked_handle(handle);
    check_not_null(sizeInBytes, "sizeInBytes");
    ConvProblem p = convolution_problem(ConvDirection::forward, xDesc, wDesc, convDesc, yDesc, -1);
    *sizeInBytes = workspace_of(h, p, static_cast<int>(algo));
  });
}

cudnnStatus_t CUDNNWINAPI cudnnGetConvolutionBackwardDataWorkspaceSize(
    cudnnHandle_t handle, const cudnnFilterDescriptor_t wDesc, const cudnnTensorDescriptor_t dyDesc,
    const cudnnConvolutionDescriptor_t convDesc, const cudnnTensorDescriptor_t dxDesc,
    cudnnConvolutionBwdDataAlgo_t algo, size_t *sizeInBytes) {
  return FDNN_GUARDED([&] {
    cudnnContext &h = checked_handle(handle);
    check_not_null(sizeInBytes, "sizeInBytes");
    ConvProblem p = convolution_problem(ConvDirection::backward_data, dxDesc, wDesc, convDesc, dyDesc, -1);
    *sizeInBytes = workspace_of(h, p, static_cast<int>(algo));
  });
}

cudnnStatus_t CUDNNWINAPI cudnnGetConvolutionBackwardFilterWorkspaceSize(
    cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc, const cudnnTensorDescriptor_t dyDesc,
    const cudnnConvolutionDescriptor_t convDesc, const cudnnFilterDescriptor_t gradDesc,
    cudnnConvolutionBwdFilterAlgo_t algo, size_t *sizeInBytes) {
  return FDNN_GUARDED([&] {
    cudnnContext &h = checked_handle(handle);
    check_not_null(sizeInBytes, "sizeInBytes");
    ConvProblem p = convolution_problem(ConvDirection::backward_filter, xDesc, gradDesc, convDesc, dyDesc, -1);
    *sizeInBytes = workspace_of(h, p, static_cast<int>(algo));
  });
}

}  // extern "C"

// ---- One implementation per query; the entry points below name the direction
// and map their descriptors onto (x, w, y) ----------------------------------------

namespace {

template <class Perf, class Algo>
void heuristics_query(cudnnHandle_t handle, ConvDirection dir, const cudnnTensorStruct *x, const cudnnFilterStruct *w,
                      const cudnnConvolutionStruct *c, const cudnnTensorStruct *y, int requested, int *returned,
                      Perf *perf) {
  cudnnContext &h = checked_handle(handle);
  check_request(requested, returned, perf, "requestedAlgoCount");
  ConvProblem p = convolution_problem(dir, x, w, c, y, -1);
  write_results<Perf, Algo>(heuristic_trials(h, p), p, requested, returned, perf);
}

// Find: operands and workspace allocated here, sized for every algorithm.
template <class Perf, class Algo>
void find_query(cudnnHandle_t handle, const char *fn, ConvDirection dir, const cudnnTensorStruct *x,
                const cudnnFilterStruct *w, const cudnnConvolutionStruct *c, const cudnnTensorStruct *y,
                int requested, int *returned, Perf *perf) {
  cudnnContext &h = checked_handle(handle);
  check_request(requested, returned, perf, "requestedAlgoCount");
  ConvProblem p = convolution_problem(dir, x, w, c, y, -1);
  const size_t ws_bytes = max_workspace(heuristic_trials(h, p));
  DeviceBytes xb(h, tensor_bytes(x)), wb(h, filter_bytes(w)), yb(h, tensor_bytes(y)), ws(h, ws_bytes);
  write_results<Perf, Algo>(timed_trials(h, p, fn, xb.get(), wb.get(), yb.get(), ws.get(), ws_bytes), p, requested,
                            returned, perf);
}

struct NamedPointer {
  const void *ptr;
  const char *name;
};

// FindEx: the caller's operands and workspace. `checked` lists the data
// pointers in the order the call checks them (its inputs, then its output).
template <class Perf, class Algo>
void find_ex_query(cudnnHandle_t handle, const char *fn, ConvDirection dir, const cudnnTensorStruct *x, const void *xp,
                   const cudnnFilterStruct *w, const void *wp, const cudnnConvolutionStruct *c,
                   const cudnnTensorStruct *y, const void *yp, std::initializer_list<NamedPointer> checked,
                   int requested, int *returned, Perf *perf, void *workspace, size_t workspace_bytes) {
  cudnnContext &h = checked_handle(handle);
  check_request(requested, returned, perf, "requestedAlgoCount");
  ConvProblem p = convolution_problem(dir, x, w, c, y, -1);
  for (const NamedPointer &np : checked) check_not_null(np.ptr, np.name);
  const size_t ws_bytes = workspace != nullptr ? workspace_bytes : 0;
  write_results<Perf, Algo>(timed_trials(h, p, fn, xp, wp, yp, workspace, ws_bytes), p, requested, returned, perf);
}

}  // namespace

extern "C" {

// ---- Heuristics (_v7) -------------------------------------------------------------

cudnnStatus_t CUDNNWINAPI cudnnGetConvolutionForwardAlgorithm_v7(
    cudnnHandle_t handle, const cudnnTensorDescriptor_t srcDesc, const cudnnFilterDescriptor_t filterDesc,
    const cudnnConvolutionDescriptor_t convDesc, const cudnnTensorDescriptor_t destDesc, const int requestedAlgoCount,
    int *returnedAlgoCount, cudnnConvolutionFwdAlgoPerf_t *perfResults) {
  return FDNN_GUARDED([&] {
    heuristics_query<cudnnConvolutionFwdAlgoPerf_t, cudnnConvolutionFwdAlgo_t>(
        handle, ConvDirection::forward, srcDesc, filterDesc, convDesc, destDesc, requestedAlgoCount, returnedAlgoCount,
        perfResults);
  });
}

cudnnStatus_t CUDNNWINAPI cudnnGetConvolutionBackwardDataAlgorithm_v7(
    cudnnHandle_t handle, const cudnnFilterDescriptor_t filterDesc, const cudnnTensorDescriptor_t diffDesc,
    const cudnnConvolutionDescriptor_t convDesc, const cudnnTensorDescriptor_t gradDesc, const int requestedAlgoCount,
    int *returnedAlgoCount, cudnnConvolutionBwdDataAlgoPerf_t *perfResults) {
  return FDNN_GUARDED([&] {
    heuristics_query<cudnnConvolutionBwdDataAlgoPerf_t, cudnnConvolutionBwdDataAlgo_t>(
        handle, ConvDirection::backward_data, gradDesc, filterDesc, convDesc, diffDesc, requestedAlgoCount,
        returnedAlgoCount, perfResults);
  });
}

cudnnStatus_t CUDNNWINAPI cudnnGetConvolutionBackwardFilterAlgorithm_v7(
    cudnnHandle_t handle, const cudnnTensorDescriptor_t srcDesc, const cudnnTensorDescriptor_t diffDesc,
    const cudnnConvolutionDescriptor_t convDesc, const cudnnFilterDescriptor_t gradDesc, const int requestedAlgoCount,
    int *returnedAlgoCount, cudnnConvolutionBwdFilterAlgoPerf_t *perfResults) {
  return FDNN_GUARDED([&] {
    heuristics_query<cudnnConvolutionBwdFilterAlgoPerf_t, cudnnConvolutionBwdFilterAlgo_t>(
        handle, ConvDirection::backward_filter, srcDesc, gradDesc, convDesc, diffDesc, requestedAlgoCount,
        returnedAlgoCount, perfResults);
  });
}

// ---- Find (buffers allocated here) ----------------------------------------------------

// backends: cpu cuda
cudnnStatus_t CUDNNWINAPI cudnnFindConvolutionForwardAlgorithm(cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc,
                                                               const cudnnFilterDescriptor_t wDesc,
                                                               const cudnnConvolutionDescriptor_t convDesc,
                                                               const cudnnTensorDescriptor_t yDesc,
                                                               const int requestedAlgoCount, int *returnedAlgoCount,
                                                               cudnnConvolutionFwdAlgoPerf_t *perfResults) {
  const char *fn = __func__;
  return FDNN_GUARDED([&] {
    find_query<cudnnConvolutionFwdAlgoPerf_t, cudnnConvolutionFwdAlgo_t>(
        handle, fn, ConvDirection::forward, xDesc, wDesc, convDesc, yDesc, requestedAlgoCount, returnedAlgoCount,
        perfResults);
  });
}

// backends: cpu cuda
cudnnStatus_t CUDNNWINAPI cudnnFindConvolutionBackwardDataAlgorithm(
    cudnnHandle_t handle, const cudnnFilterDescriptor_t wDesc, const cudnnTensorDescriptor_t dyDesc,
    const cudnnConvolutionDescriptor_t convDesc, const cudnnTensorDescriptor_t dxDesc, const int requestedAlgoCount,
    int *returnedAlgoCount, cudnnConvolutionBwdDataAlgoPerf_t *perfResults) {
  const char *fn = __func__;
  return FDNN_GUARDED([&] {
    find_query<cudnnConvolutionBwdDataAlgoPerf_t, cudnnConvolutionBwdDataAlgo_t>(
        handle, fn, ConvDirection::backward_data, dxDesc, wDesc, convDesc, dyDesc, requestedAlgoCount,
        returnedAlgoCount, perfResults);
  });
}

// backends: cpu cuda
cudnnStatus_t CUDNNWINAPI cudnnFindConvolutionBackwardFilterAlgorithm(
    cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc, const cudnnTensorDescriptor_t dyDesc,
    const cudnnConvolutionDescriptor_t convDesc, const cudnnFilterDescriptor_t dwDesc, const int requestedAlgoCount,
    int *returnedAlgoCount, cudnnConvolutionBwdFilterAlgoPerf_t *perfResults) {
  const char *fn = __func__;
  return FDNN_GUARDED([&] {
    find_query<cudnnConvolutionBwdFilterAlgoPerf_t, cudnnConvolutionBwdFilterAlgo_t>(
        handle, fn, ConvDirection::backward_filter, xDesc, dwDesc, convDesc, dyDesc, requestedAlgoCount,
        returnedAlgoCount, perfResults);
  });
}

// ---- FindEx (the caller's buffers and workspace) ------------------------------------------

// backends: cpu cuda
cudnnStatus_t CUDNNWINAPI cudnnFindConvolutionForwardAlgorithmEx(
    cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc, const void *x, const cudnnFilterDescriptor_t wDesc,
    const void *w, const cudnnConvolutionDescriptor_t convDesc, const cudnnTensorDescriptor_t yDesc, void *y,
    const int requestedAlgoCount, int *returnedAlgoCount, cudnnConvolutionFwdAlgoPerf_t *perfResults,
    void *workSpace, size_t workSpaceSizeInBytes) {
  const char *fn = __func__;
  return FDNN_GUARDED([&] {
    find_ex_query<cudnnConvolutionFwdAlgoPerf_t, cudnnConvolutionFwdAlgo_t>(
        handle, fn, ConvDirection::forward, xDesc, x, wDesc, w, convDesc, yDesc, y, {{x, "x"}, {w, "w"}, {y, "y"}},
        requestedAlgoCount, returnedAlgoCount, perfResults, workSpace, workSpaceSizeInBytes);
  });
}

// backends: cpu cuda
cudnnStatus_t CUDNNWINAPI cudnnFindConvolutionBackwardDataAlgorithmEx(
    cudnnHandle_t handle, const cudnnFilterDescriptor_t wDesc, const void *w, const cudnnTensorDescriptor_t dyDesc,
    const void *dy, const cudnnConvolutionDescriptor_t convDesc, const cudnnTensorDescriptor_t dxDesc, void *dx,
    const int requestedAlgoCount, int *returnedAlgoCount, cudnnConvolutionBwdDataAlgoPerf_t *perfResults,
    void *workSpace, size_t workSpaceSizeInBytes) {
  const char *fn = __func__;
  return FDNN_GUARDED([&] {
    find_ex_query<cudnnConvolutionBwdDataAlgoPerf_t, cudnnConvolutionBwdDataAlgo_t>(
        handle, fn, ConvDirection::backward_data, dxDesc, dx, wDesc, w, convDesc, dyDesc, dy,
        {{w, "w"}, {dy, "dy"}, {dx, "dx"}}, requestedAlgoCount, returnedAlgoCount, perfResults, workSpace,
        workSpaceSizeInBytes);
  });
}

// backends: cpu cuda
cudnnStatus_t CUDNNWINAPI cudnnFindConvolutionBackwardFilterAlgorithmEx(
    cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc, const void *x, const cudnnTensorDescriptor_t dyDesc,
    const void *y, const cudnnConvolutionDescriptor_t convDesc, const cudnnFilterDescriptor_t dwDesc, void *dw,
    const int requestedAlgoCount, int *returnedAlgoCount, cudnnConvolutionBwdFilterAlgoPerf_t *perfResults,
    void *workSpace, size_t workSpaceSizeInBytes) {
  const char *fn = __func__;
  return FDNN_GUARDED([&] {
    find_ex_query<cudnnConvolutionBwdFilterAlgoPerf_t, cudnnConvolutionBwdFilterAlgo_t>(
        handle, fn, ConvDirection::backward_filter, xDesc, x, dwDesc, dw, convDesc, dyDesc, y,
        {{x, "x"}, {y, "y"}, {dw, "dw"}}, requestedAlgoCount, returnedAlgoCount, perfResults, workSpace,
        workSpaceSizeInBytes);
  });
}

}  // extern "C"
