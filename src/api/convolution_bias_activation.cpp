// cudnnConvolutionBiasActivationForward: y = act(alpha1 * conv(x, w) +
// alpha2 * z + bias). No engine fuses the chain yet, so it runs op by op
// through the internal model: the convolution into a packed intermediate of
// the compute precision (z may alias y), then pointwise ops for z, the bias
// and the activation.
#include <cstdlib>
#include <vector>

#include "api/convolution_common.hpp"
#include "api/guard.hpp"
#include "core/activation_descriptors.hpp"
#include "core/descriptor_lifetime.hpp"
#include "core/dtype.hpp"
#include "core/error.hpp"
#include "core/gpu.hpp"
#include "core/handle.hpp"

using namespace fdnn;
using namespace fdnn::api;

namespace {

// Device memory of the handle's kind for the intermediate.
class Scratch {
 public:
  Scratch(cudnnContext &h, size_t bytes) : cuda_(h.device.kind == DeviceKind::cuda) {
    if (cuda_) p_ = gpu::device_alloc(bytes);
    else if ((p_ = std::malloc(bytes)) == nullptr) fail(CUDNN_STATUS_ALLOC_FAILED, "could not allocate ", bytes, " bytes");
  }
  ~Scratch() {
    if (cuda_) gpu::device_free(p_);
    else std::free(p_);
  }
  Scratch(const Scratch &) = delete;
  Scratch &operator=(const Scratch &) = delete;
  void *get() const { return p_; }

 private:
  bool cuda_;
  void *p_ = nullptr;
};

graph::Tensor packed(cudnnDataType_t t, const std::vector<int64_t> &dims) {
  graph::Tensor r;
  r.dtype = t;
  r.dims = dims;
  r.strides.assign(dims.size(), 1);
  for (int d = static_cast<int>(dims.size()) - 2; d >= 0; --d) r.strides[d] = r.strides[d + 1] * dims[d + 1];
  return r;
}

void run_pointwise(cudnnContext &h, const char *fn, graph::PointwiseOp op, const graph::Tensor &x, const void *xp,
                   const graph::Tensor *b, const void *bp, const graph::Tensor &y, void *yp) {
  graph::Graph g;
  op.x = g.add_tensor_auto(x);
  if (b != nullptr) op.b = g.add_tensor_auto(*b);
  op.y = g.add_tensor_auto(y);
  g.add_op(op);
  VariantPack pack;
  pack.set(op.x, xp);
  if (b != nullptr) pack.set(op.b, bp);
  pack.set(op.y, yp);
  run_graph(h, fn, g, pack);
}

}  // namespace

extern "C" {

// backends: cpu cuda
cudnnStatus_t CUDNNWINAPI cudnnConvolutionBiasActivationForward(
    cudnnHandle_t handle, const void *alpha1, const cudnnTensorDescriptor_t xDesc, const void *x,
    const cudnnFilterDescriptor_t wDesc, const void *w, const cudnnConvolutionDescriptor_t convDesc,
    cudnnConvolutionFwdAlgo_t algo, void *workSpace, size_t workSpaceSizeInBytes, const void *alpha2,
    const cudnnTensorDescriptor_t zDesc, const void *z, const cudnnTensorDescriptor_t biasDesc, const void *bias,
    const cudnnActivationDescriptor_t activationDesc, const cudnnTensorDescriptor_t yDesc, void *y) {
  const char *fn = __func__;
  return FDNN_GUARDED([&] {
    cudnnContext &h = checked_handle(handle);
    ConvProblem p = convolution_problem(graph::ConvDirection::forward, xDesc, wDesc, convDesc, yDesc,
                                        static_cast<int>(algo));
    const cudnnTensorStruct &zd = checked_tensor(zDesc, "zDesc");
    const cudnnTensorStruct &bd = checked_tensor(biasDesc, "biasDesc");
    const cudnnActivationStruct &act = live_descriptor(activationDesc, "activationDesc", "activation");
    for (const void *ptr : {x, w, z, bias, alpha1, alpha2}) check_not_null(ptr, "x, w, z, bias, alpha1 and alpha2");
    check_not_null(y, "y");
    const cudnnTensorStruct &yd = *yDesc;
    check_arg(zd.nb_dims == yd.nb_dims, "zDesc has ", zd.nb_dims, " dimensions but yDesc has ", yd.nb_dims);
    check_supported(act.mode == CUDNN_ACTIVATION_RELU || act.mode == CUDNN_ACTIVATION_IDENTITY,
                    "activationDesc mode ", static_cast<int>(act.mode),
                    ": this function applies CUDNN_ACTIVATION_RELU or CUDNN_ACTIVATION_IDENTITY");
    check_supported(act.nan_propagation == CUDNN_NOT_PROPAGATE_NAN,
                    "activationDesc propagates NaN; this function needs CUDNN_NOT_PROPAGATE_NAN");
    check_supported(act.mode != CUDNN_ACTIVATION_IDENTITY || algo == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM,
                    "activationDesc is IDENTITY: only CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM is enabled "
                    "with it");
    for (int i = 0; i < zd.nb_dims; ++i)
      check_supported(zd.dims[i] == yd.dims[i], "zDesc dimension ", i, " is ", zd.dims[i], " but yDesc's is ",
                      yd.dims[i]);
    check_supported(zd.dtype == yd.dtype, "zDesc and yDesc have different data types");
    check_supported(bd.nb_dims == yd.nb_dims && bd.dims[0] == 1, "biasDesc must be 1 x K x 1 ... x 1");
    check_supported(bd.dims[1] == yd.dims[1], "biasDesc has ", bd.dims[1], " channels; the filter has ",
                    yd.dims[1], " output channels");
    for (int i = 2; i < bd.nb_dims; ++i) check_supported(bd.dims[i] == 1, "biasDesc must be 1 x K x 1 ... x 1");
    check_supported(bd.strides[1] == 1 || bd.dims[1] == 1, "biasDesc's second stride must be 1");
    // Bias types by the table: DOUBLE with DOUBLE data, HALF / BFLOAT16 with
    // such data, FLOAT otherwise (the INT8 configurations included).
    const cudnnDataType_t xt = xDesc->dtype;
    const cudnnDataType_t want_bias =
        (xt == CUDNN_DATA_DOUBLE || xt == CUDNN_DATA_HALF || xt == CUDNN_DATA_BFLOAT16) ? xt : CUDNN_DATA_FLOAT;
    check_supported(bd.dtype == want_bias, "biasDesc is ", type_info(bd.dtype).enum_name, "; with ",
                    type_info(xt).enum_name, " data the bias is ", type_info(want_bias).enum_name);

    const cudnnDataType_t mid_t = yd.dtype == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
    const double a1 = read_scaling(alpha1, yd.dtype), a2 = read_scaling(alpha2, yd.dtype);
    const graph::Tensor yt = p.g.tensor(p.y);
    const graph::Tensor mid = packed(mid_t, yt.dims);
    Scratch buf(h, lanes_to_bytes(mid_t, mid.element_count()));

    // 1. mid = alpha1 * conv(x, w), through the convolution with y replaced.
    {
      graph::Graph g;
      graph::ConvolutionOp op = p.op();
      op.x = g.add_tensor_auto(p.g.tensor(p.x));
      op.w = g.add_tensor_auto(p.g.tensor(p.w));
      op.y = g.add_tensor_auto(mid);
      ConvProblem q;
      q.dir = p.dir;
      q.x = op.x;
      q.w = op.w;
      q.y = op.y;
      q.g = std::move(g);
      q.g.add_op(op);
      run_convolution(h, fn, q, x, w, buf.get(), a1, 0.0, workSpace, workSpaceSizeInBytes);
    }
    const cudnnDataType_t ct = mid_t;
    // 2. mid += alpha2 * z (skipped for alpha2 == 0: z is then not read).
    if (a2 != 0.0) {
      graph::PointwiseOp add;
      add.mode = CUDNN_POINTWISE_ADD;
      add.compute_type = ct;
      add.alpha2 = a2;
      const graph::Tensor zt = to_graph_tensor(zd);
      run_pointwise(h, fn, add, mid, buf.get(), &zt, z, mid, buf.get());
    }
    // 3. mid += bias (broadcast over N and space).
    {
      graph::PointwiseOp add;
      add.mode = CUDNN_POINTWISE_ADD;
      add.compute_type = ct;
      const graph::Tensor bt = to_graph_tensor(bd);
      run_pointwise(h, fn, add, mid, buf.get(), &bt, bias, mid, buf.get());
    }
    // 4. y = act(mid).
    graph::PointwiseOp a;
    a.compute_type = ct;
    if (act.mode == CUDNN_ACTIVATION_RELU) {
      a.mode = CUDNN_POINTWISE_RELU_FWD;
      a.nan_propagation = CUDNN_NOT_PROPAGATE_NAN;
    } else {
      a.mode = CUDNN_POINTWISE_IDENTITY;
    }
    run_pointwise(h, fn, a, mid, buf.get(), nullptr, nullptr, yt, y);
  });
}

}  // extern "C"
