// Recognises the graphs of the graph guide's generic runtime fusion: one
// "anchor" operation (a convolution in any direction, or a matmul) with
//   - prologues: pointwise DAGs that compute the anchor's inputs (the
//     mainloop fusions, e.g. scale, bias and ReLU of a convolution's input),
//   - an epilogue: a pointwise DAG over the anchor's output, whose other
//     inputs broadcast to that output (bias, scale, residual, activation),
//   - final reductions of epilogue values (GEN_STATS expands to these),
// or, with no anchor, a graph of pointwise operations and final reductions.
// The split is device independent; engines decide what they can execute.
// The specialised patterns of the guide (ConvBiasAct, ConvScaleBiasAct,
// ConvBNfprop, DBARCS, ConvBNwgrad, dgrad + dReLU, dBNApply, matmul + bias +
// activation) are instances and get their names here for logs and notes.
#pragma once

#include <string>
#include <vector>

#include "core/engine.hpp"
#include "graph/graph.hpp"

namespace fdnn {

struct FusionPrologue {
  graph::Uid input = graph::kNoTensor;  // the anchor input the DAG computes
  std::vector<int> ops;                 // pointwise op indices, in execution order
};

struct FusionPattern {
  int anchor = -1;                      // index of the conv / matmul op; -1 = none
  graph::Uid anchor_output = graph::kNoTensor;
  std::vector<FusionPrologue> prologues;
  std::vector<int> epilogue;            // pointwise op indices over `space`, in execution order
  std::vector<int> reductions;          // final reduction op indices
  std::vector<int64_t> space;           // dims every epilogue tensor broadcasts to
  std::string name;                     // "ConvBiasAct", ..., or a generic description
};

// Matches g; on success fills *out. The reason says what did not fit.
Support match_fusion(const graph::Graph &g, FusionPattern *out);

// True when t's dims equal `space` or are 1 where they differ (same rank).
bool broadcasts_to(const graph::Tensor &t, const std::vector<int64_t> &space);

}  // namespace fdnn
