// The legacy convolution calls' shared validation and graph building: every
// entry point (execute, workspace size, _v7, Find) checks its descriptors by
// the same rules and runs the same ConvolutionOp.
#pragma once

#include <cudnn_cnn.h>

#include "core/convolution_descriptor.hpp"
#include "core/convolution_support.hpp"
#include "core/handle.hpp"
#include "core/tensor_desc.hpp"
#include "graph/graph.hpp"

namespace fdnn::api {

// One convolution problem as a graph: uids of x, w, y (dx, dw, dy by
// direction) and the op's index 0.
struct ConvProblem {
  graph::Graph g;
  graph::Uid x = graph::kNoTensor, w = graph::kNoTensor, y = graph::kNoTensor;
  graph::ConvDirection dir = graph::ConvDirection::forward;
  graph::ConvolutionOp &op() { return std::get<graph::ConvolutionOp>(g.ops().front()); }
};

// Argument names of the direction's descriptors, for messages.
struct ConvNames {
  const char *x, *w, *y;
};
ConvNames convolution_names(graph::ConvDirection dir);

// Validates the descriptors like cuDNN (statuses of the execute calls) and
// builds the problem with algorithm `algo` (-1: any). Descriptor pointers
// may be NULL (BAD_PARAM).
ConvProblem convolution_problem(graph::ConvDirection dir, const cudnnTensorStruct *x, const cudnnFilterStruct *w,
                                const cudnnConvolutionStruct *conv, const cudnnTensorStruct *y, int algo);

// BAD_PARAM for a value outside the direction's algorithm enum.
void check_algo_value(graph::ConvDirection dir, int algo);

// The plan for the problem, or NOT_SUPPORTED naming the algorithm.
std::shared_ptr<const ExecutionPlan> convolution_plan(cudnnContext &h, const ConvProblem &p);

// Runs the problem with the caller's workspace (BAD_PARAM when it is smaller
// than the plan needs).
void run_convolution(cudnnContext &h, const char *fn, ConvProblem &p, const void *x, const void *w, const void *y,
                     double alpha, double beta, void *workspace, size_t workspace_bytes);

}  // namespace fdnn::api
