#include "api/convolution_common.hpp"

#include "core/dtype.hpp"
#include "core/error.hpp"

#include <utility>

namespace fdnn::api {

using graph::ConvDirection;

ConvNames convolution_names(ConvDirection dir) {
  switch (dir) {
    case ConvDirection::forward: return {"xDesc", "wDesc", "yDesc"};
    case ConvDirection::backward_data: return {"dxDesc", "wDesc", "dyDesc"};
    case ConvDirection::backward_filter: return {"xDesc", "dwDesc", "dyDesc"};
  }
  return {"xDesc", "wDesc", "yDesc"};
}

void check_algo_value(ConvDirection dir, int algo) {
  const int count = convolution_algo_count(dir);
  // cuDNN 9.19 answers NOT_SUPPORTED (not BAD_PARAM) to a value outside the
  // enum, in the execute calls and the workspace queries alike (H100 oracle).
  check_supported(algo >= 0 && algo < count, "algo = ", algo, ": expected a value of ",
            dir == ConvDirection::forward         ? "cudnnConvolutionFwdAlgo_t"
            : dir == ConvDirection::backward_data ? "cudnnConvolutionBwdDataAlgo_t"
                                                  : "cudnnConvolutionBwdFilterAlgo_t",
            " (0 .. ", count - 1, ")");
}

ConvProblem convolution_problem(ConvDirection dir, const cudnnTensorStruct *xp, const cudnnFilterStruct *wp,
                                const cudnnConvolutionStruct *cp, const cudnnTensorStruct *yp, int algo) {
  const ConvNames nm = convolution_names(dir);
  const cudnnTensorStruct &x = checked_tensor(xp, nm.x);
  const cudnnFilterStruct &w = checked_filter(wp, nm.w);
  const cudnnConvolutionStruct &c = live_convolution(const_cast<cudnnConvolutionStruct *>(cp), "convDesc");
  const cudnnTensorStruct &y = checked_tensor(yp, nm.y);
  check_arg(c.nb_spatial > 0, "convDesc was never set (cudnnSetConvolution2dDescriptor / NdDescriptor)");
  // Ranks (BAD_PARAM), then the 4-d / 5-d restriction (NOT_SUPPORTED).
  check_arg(x.nb_dims >= 3, nm.x, " has ", x.nb_dims, " dimensions; a convolution needs at least 3");
  check_arg(y.nb_dims == x.nb_dims, nm.x, " has ", x.nb_dims, " dimensions but ", nm.y, " has ", y.nb_dims);
  check_arg(w.nb_dims == x.nb_dims, nm.x, " has ", x.nb_dims, " dimensions but ", nm.w, " has ", w.nb_dims);
  check_arg(x.nb_dims == c.nb_spatial + 2, nm.x, " has ", x.nb_dims, " dimensions but convDesc has ", c.nb_spatial,
            " spatial dimensions (expected ", c.nb_spatial + 2, ")");
  check_convolution_types(dir, x.dtype, w.dtype, y.dtype, c.compute_type);
  const int64_t C = x.dims[1], filter_c = w.dims[1], K = w.dims[0];
  check_arg(C == filter_c * c.group_count, nm.x, " has ", C, " channels but ", nm.w, " has ", filter_c,
            " per group with ", c.group_count, " group(s) (expected ", filter_c * c.group_count, ")");
  if (K % c.group_count != 0) {
    const std::string msg = cat(nm.w, " has ", K, " output channels, not a multiple of the group count ",
                                c.group_count);
    if (dir == ConvDirection::backward_data) fail(CUDNN_STATUS_NOT_SUPPORTED, msg);
    fail(CUDNN_STATUS_BAD_PARAM, msg);
  }
  check_supported(x.nb_dims == 4 || x.nb_dims == 5, nm.x, " has ", x.nb_dims,
                  " dimensions; the legacy convolutions take 4-d and 5-d tensors");
  for (int i = 0; i < x.nb_dims; ++i) {
    check_supported(x.strides[i] >= 0, nm.x, " stride ", i, " = ", x.strides[i], ": negative strides are not supported");
    check_supported(y.strides[i] >= 0, nm.y, " stride ", i, " = ", y.strides[i], ": negative strides are not supported");
  }
  for (int i = 0; i < c.nb_spatial; ++i) {
    const int64_t e = convolution_output_extent(x.dims[i + 2], w.dims[i + 2], c.pad[i], c.stride[i], c.dilation[i]);
    check_arg(e > 0, "spatial dimension ", i, ": the filter of ", nm.w, " (", w.dims[i + 2], " taps, dilation ",
              c.dilation[i], ") is larger than the padded input of ", nm.x, " (", x.dims[i + 2], " + 2 x ", c.pad[i],
              ")");
  }
  check_arg(y.dims[0] == x.dims[0], nm.y, " has batch size ", y.dims[0], " but ", nm.x, " has ", x.dims[0]);
  check_arg(y.dims[1] == K, nm.y, " has ", y.dims[1], " channels but ", nm.w, " has ", K, " output channels");
  for (int i = 0; i < c.nb_spatial; ++i) {
    const int64_t e = convolution_output_extent(x.dims[i + 2], w.dims[i + 2], c.pad[i], c.stride[i], c.dilation[i]);
    if (y.dims[i + 2] == e) continue;
    fail(CUDNN_STATUS_BAD_PARAM, nm.y, " spatial dimension ", i, " is ", y.dims[i + 2],
         "; cudnnGetConvolutionNdForwardOutputDim gives ", e);
  }
  if (algo != -1) check_algo_value(dir, algo);

  ConvProblem p;
  p.dir = dir;
  graph::ConvolutionOp op;
  op.direction = dir;
  op.mode = c.mode;
  op.compute_type = c.compute_type;
  op.math_type = c.math_type;
  for (int i = 0; i < c.nb_spatial; ++i) {
    op.pre_padding.push_back(c.pad[i]);
    op.post_padding.push_back(c.pad[i]);
    op.stride.push_back(c.stride[i]);
    op.dilation.push_back(c.dilation[i]);
  }
  op.algo = algo;
  op.x = p.x = p.g.add_tensor_auto(to_graph_tensor(x));
  op.w = p.w = p.g.add_tensor_auto(to_graph_tensor(w));
  op.y = p.y = p.g.add_tensor_auto(to_graph_tensor(y));
  p.g.add_op(op);
  return p;
}

std::shared_ptr<const ExecutionPlan> convolution_plan(cudnnContext &h, const ConvProblem &p) {
  try {
    return plan_for(h, p.g);
  } catch (const Error &e) {
    const auto &op = std::get<graph::ConvolutionOp>(p.g.ops().front());
    if (e.status() != CUDNN_STATUS_NOT_SUPPORTED || op.algo < 0) throw;
    fail(CUDNN_STATUS_NOT_SUPPORTED, "algorithm ", convolution_algo_name(p.dir, op.algo), " (", op.algo,
         ") does not support this problem on this device: ", e.what());
  }
}

void run_convolution(cudnnContext &h, const char *fn, ConvProblem &p, const void *x, const void *w, const void *y,
                     double alpha, double beta, void *workspace, size_t workspace_bytes) {
  std::shared_ptr<const ExecutionPlan> plan = convolution_plan(h, p);
  const size_t need = plan->workspace_size();
  if (need > 0) {
    check_arg(workspace != nullptr, "workSpace is NULL but the algorithm needs ", need, " bytes");
    check_arg(workspace_bytes >= need, "workSpaceSizeInBytes = ", workspace_bytes, " but the algorithm needs ", need,
              " bytes (see the workspace size query)");
  }
  graph::ConvolutionOp &op = p.op();
  op.blend.alpha = alpha;
  op.blend.beta = beta;
  VariantPack pack;
  pack.set(p.x, x);
  pack.set(p.w, w);
  pack.set(p.y, y);
  if (need > 0) {
    pack.workspace = workspace;
    pack.workspace_size = workspace_bytes;
  }
  execute_plan(h, fn, *plan, p.g, std::move(pack));  // the plan found above: one cache lookup per call
}

}  // namespace fdnn::api
