#include "core/fusion_pattern.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "core/error.hpp"
#include "core/matmul_support.hpp"
#include "core/pointwise_math.hpp"
#include "graph/op_io.hpp"

namespace fdnn {

bool broadcasts_to(const graph::Tensor &t, const std::vector<int64_t> &space) {
  if (t.by_value) return true;
  if (t.dims.size() != space.size()) return false;
  for (size_t d = 0; d < space.size(); ++d)
    if (t.dims[d] != space[d] && t.dims[d] != 1) return false;
  return true;
}

namespace {

bool is_anchor(const graph::Op &op) {
  return std::holds_alternative<graph::ConvolutionOp>(op) || std::holds_alternative<graph::MatmulOp>(op);
}

// The graph's dataflow: who produces and who consumes each uid, and an
// execution order (operations given in any order; cycles refused).
struct Dataflow {
  std::vector<graph::OpIo> io;
  std::map<graph::Uid, int> producer;
  std::map<graph::Uid, std::vector<int>> consumers;
  std::vector<int> order;

  explicit Dataflow(const graph::Graph &g) {
    for (size_t i = 0; i < g.ops().size(); ++i) {
      io.push_back(graph::op_io(g.ops()[i]));
      for (graph::Uid u : io.back().outputs) producer[u] = static_cast<int>(i);
      for (graph::Uid u : io.back().inputs) consumers[u].push_back(static_cast<int>(i));
    }
    std::vector<bool> done(io.size(), false);
    std::set<graph::Uid> ready;
    for (const graph::Tensor &t : g.tensors())
      if (!producer.count(t.uid)) ready.insert(t.uid);
    for (bool progress = true; progress;) {
      progress = false;
      for (size_t i = 0; i < io.size(); ++i) {
        if (done[i]) continue;
        if (std::all_of(io[i].inputs.begin(), io[i].inputs.end(), [&](graph::Uid u) { return ready.count(u) > 0; })) {
          done[i] = progress = true;
          order.push_back(static_cast<int>(i));
          for (graph::Uid u : io[i].outputs) ready.insert(u);
        }
      }
    }
    if (order.size() != io.size()) fail(CUDNN_STATUS_BAD_PARAM, "the graph has a cycle");
  }

  // Ops whose outputs reach `uid` (transitively), uid's producer included.
  std::set<int> upstream_of(graph::Uid uid) const {
    std::set<int> seen;
    std::vector<graph::Uid> todo{uid};
    while (!todo.empty()) {
      const graph::Uid u = todo.back();
      todo.pop_back();
      auto p = producer.find(u);
      if (p == producer.end() || !seen.insert(p->second).second) continue;
      for (graph::Uid in : io[p->second].inputs) todo.push_back(in);
    }
    return seen;
  }

  // Ops that read `uid` (transitively).
  std::set<int> downstream_of(graph::Uid uid) const {
    std::set<int> seen;
    std::vector<graph::Uid> todo{uid};
    while (!todo.empty()) {
      const graph::Uid u = todo.back();
      todo.pop_back();
      auto c = consumers.find(u);
      if (c == consumers.end()) continue;
      for (int op : c->second)
        if (seen.insert(op).second)
          for (graph::Uid out : io[op].outputs) todo.push_back(out);
    }
    return seen;
  }

  std::vector<int> in_order(const std::set<int> &ops) const {
    std::vector<int> r;
    for (int i : order)
      if (ops.count(i)) r.push_back(i);
    return r;
  }
};

std::vector<graph::Uid> anchor_inputs(const graph::Op &op) {
  if (const auto *m = std::get_if<graph::MatmulOp>(&op)) return {m->a, m->b};
  const auto &c = std::get<graph::ConvolutionOp>(op);
  switch (c.direction) {
    case graph::ConvDirection::forward: return {c.x, c.w};
    case graph::ConvDirection::backward_data: return {c.y, c.w};
    case graph::ConvDirection::backward_filter: return {c.x, c.y};
  }
  return {};
}

graph::Uid anchor_output(const graph::Op &op) {
  if (const auto *m = std::get_if<graph::MatmulOp>(&op)) return m->c;
  const auto &c = std::get<graph::ConvolutionOp>(op);
  switch (c.direction) {
    case graph::ConvDirection::forward: return c.y;
    case graph::ConvDirection::backward_data: return c.x;
    case graph::ConvDirection::backward_filter: return c.w;
  }
  return graph::kNoTensor;
}

bool is_activation(cudnnPointwiseMode_t m) {
  switch (m) {
    case CUDNN_POINTWISE_RELU_FWD:
    case CUDNN_POINTWISE_TANH_FWD:
    case CUDNN_POINTWISE_SIGMOID_FWD:
    case CUDNN_POINTWISE_ELU_FWD:
    case CUDNN_POINTWISE_GELU_FWD:
    case CUDNN_POINTWISE_GELU_APPROX_TANH_FWD:
    case CUDNN_POINTWISE_SOFTPLUS_FWD:
    case CUDNN_POINTWISE_SWISH_FWD: return true;
    default: return false;
  }
}

std::vector<cudnnPointwiseMode_t> modes_of(const graph::Graph &g, const std::vector<int> &ops) {
  std::vector<cudnnPointwiseMode_t> r;
  for (int i : ops) r.push_back(std::get<graph::PointwiseOp>(g.ops()[i]).mode);
  return r;
}

// The guide's name for the pattern, or a description of the generic form.
std::string pattern_name(const graph::Graph &g, const FusionPattern &p) {
  const auto epi = modes_of(g, p.epilogue);
  const bool act_last = !epi.empty() && is_activation(epi.back());
  const bool stats = p.reductions.size() == 2;
  if (p.anchor < 0) return p.reductions.empty() ? "pointwise DAG" : "pointwise DAG with reductions";
  if (std::holds_alternative<graph::MatmulOp>(g.ops()[p.anchor]))
    return epi.empty() && p.prologues.empty() ? "matmul with reductions" : "matmul fusion";
  const auto &conv = std::get<graph::ConvolutionOp>(g.ops()[p.anchor]);
  if (conv.direction == graph::ConvDirection::backward_filter)
    return p.prologues.empty() ? "wgrad fusion" : "ConvBNwgrad";
  if (conv.direction == graph::ConvDirection::backward_data) {
    const bool drelu = !epi.empty() && epi.back() == CUDNN_POINTWISE_RELU_BWD;
    return drelu ? "dgrad + dReLU" : "dgrad fusion";
  }
  if (!p.prologues.empty()) {
    size_t prologue_ops = 0;
    bool adds_two_inputs = false;
    for (const FusionPrologue &pr : p.prologues) {
      prologue_ops += pr.ops.size();
      for (cudnnPointwiseMode_t m : modes_of(g, pr.ops)) adds_two_inputs |= m == CUDNN_POINTWISE_ADD;
    }
    if (stats && adds_two_inputs && prologue_ops >= 4) return "DBARCS";
    if (stats) return "ConvBNfprop";
    return "conv fprop fusion";
  }
  if (p.reductions.empty() && act_last && epi.size() == 2 && epi[0] == CUDNN_POINTWISE_ADD) return "ConvBiasAct";
  if (p.reductions.empty() && act_last && epi.size() == 3 && epi[0] == CUDNN_POINTWISE_MUL &&
      epi[1] == CUDNN_POINTWISE_ADD)
    return "ConvScaleBiasAct";
  return "conv fprop fusion";
}

// Checks shared by every pointwise op the pattern evaluates over `space`.
Support check_pointwise_over(const graph::Graph &g, const Dataflow &df, int i, const std::vector<int64_t> &space,
                             const char *part) {
  const auto &op = std::get<graph::PointwiseOp>(g.ops()[i]);
  for (graph::Uid in : df.io[i].inputs)
    if (!broadcasts_to(g.tensor(in), space))
      return Support::no(cat(part, " op ", i, ": input ", in, " does not broadcast to ", g.tensor(in).to_string()));
  const graph::Tensor &y = g.tensor(op.y);
  if (y.is_virtual ? !broadcasts_to(y, space) : y.dims != space)
    return Support::no(cat(part, " op ", i, ": output ", y.to_string(), " is not of the iteration space's dims"));
  return Support::yes();
}

}  // namespace

Support match_fusion(const graph::Graph &g, FusionPattern *out) {
  FusionPattern p;
  if (g.ops().size() < 2) return Support::no("a single operation runs on its own engines");
  std::vector<int> anchors;
  for (size_t i = 0; i < g.ops().size(); ++i) {
    const graph::Op &op = g.ops()[i];
    if (is_anchor(op)) {
      anchors.push_back(static_cast<int>(i));
    } else if (const auto *pw = std::get_if<graph::PointwiseOp>(&op)) {
      if (pw::arity(pw->mode) <= 0) return Support::no(cat("op ", i, ": GEN_INDEX depends on the element's position"));
    } else if (const auto *r = std::get_if<graph::ReductionOp>(&op)) {
      if (r->indices != graph::kNoTensor) return Support::no(cat("op ", i, ": reductions with indices are not fused"));
    } else {
      return Support::no(cat("op ", i, " (", graph::op_kind_name(op), ") is neither an anchor, pointwise nor a reduction"));
    }
  }
  if (anchors.size() > 1) return Support::no("more than one convolution / matmul");

  std::unique_ptr<Dataflow> dfp;
  try {
    dfp = std::make_unique<Dataflow>(g);
  } catch (const Error &e) {
    return Support::no(e.what());
  }
  const Dataflow &df = *dfp;

  // Reductions are final: their outputs are real and nothing reads them.
  for (size_t i = 0; i < g.ops().size(); ++i) {
    const auto *r = std::get_if<graph::ReductionOp>(&g.ops()[i]);
    if (r == nullptr) continue;
    if (g.tensor(r->y).is_virtual || df.consumers.count(r->y))
      return Support::no(cat("op ", i, ": a reduction must be a final output of the graph"));
    p.reductions.push_back(static_cast<int>(i));
  }

  std::set<int> epilogue_set;
  if (!anchors.empty()) {
    p.anchor = anchors.front();
    const graph::Op &anchor = g.ops()[p.anchor];
    // Slices cut a and b along c's batch dims: divisor broadcast (GQA) runs op by op.
    if (const auto *m = std::get_if<graph::MatmulOp>(&anchor); m && !matmul_batches_plain(g, *m))
      return Support::no("the matmul broadcasts a batch extent that divides c's (not 1): not fused");
    p.anchor_output = anchor_output(anchor);
    p.space = g.tensor(p.anchor_output).dims;
    std::set<int> claimed{p.anchor};
    for (graph::Uid in : anchor_inputs(anchor)) {
      std::set<int> cone = df.upstream_of(in);
      if (cone.empty()) continue;
      const std::vector<int64_t> &in_dims = g.tensor(in).dims;
      for (int i : cone) {
        if (!std::holds_alternative<graph::PointwiseOp>(g.ops()[i]))
          return Support::no(cat("op ", i, " computes an input of the anchor but is not pointwise"));
        if (claimed.count(i)) return Support::no(cat("op ", i, " feeds two anchor inputs"));
        for (graph::Uid o : df.io[i].outputs)
          for (int c : df.consumers.count(o) ? df.consumers.at(o) : std::vector<int>{})
            if (c != p.anchor && !cone.count(c))
              return Support::no(cat("op ", i, "'s output is read outside the prologue of input ", in));
        Support s = check_pointwise_over(g, df, i, in_dims, "prologue");
        if (!s) return s;
      }
      claimed.insert(cone.begin(), cone.end());
      p.prologues.push_back({in, df.in_order(cone)});
    }
    for (int i : df.order)
      if (!claimed.count(i) && std::holds_alternative<graph::PointwiseOp>(g.ops()[i])) epilogue_set.insert(i);
    const std::set<int> down = df.downstream_of(p.anchor_output);
    if (down.empty() && g.tensor(p.anchor_output).is_virtual)
      return Support::no("the anchor's virtual output is not read");
    // Every pointwise op not upstream of the anchor is evaluated over its
    // output's space: those downstream of it and side computations (say
    // a scale from two [1,K,1,1] tensors) that only feed the epilogue.
    for (int i : epilogue_set) {
      if (down.count(i)) continue;
      for (graph::Uid o : df.io[i].outputs) {
        if (!g.tensor(o).is_virtual) return Support::no(cat("op ", i, " is not connected to the anchor's output"));
        for (int c : df.consumers.count(o) ? df.consumers.at(o) : std::vector<int>{})
          if (c == p.anchor) return Support::no(cat("op ", i, " feeds the anchor"));
      }
    }
  } else {
    // No anchor: the space is the largest of the pointwise outputs.
    for (size_t i = 0; i < g.ops().size(); ++i)
      if (const auto *pw = std::get_if<graph::PointwiseOp>(&g.ops()[i])) {
        epilogue_set.insert(static_cast<int>(i));
        const graph::Tensor &y = g.tensor(pw->y);
        if (p.space.empty()) p.space = y.dims;
        if (y.dims.size() != p.space.size()) return Support::no("pointwise outputs differ in rank");
        for (size_t d = 0; d < y.dims.size(); ++d) p.space[d] = std::max(p.space[d], y.dims[d]);
      }
    if (epilogue_set.empty()) return Support::no("no pointwise operation");
  }
  p.epilogue = df.in_order(epilogue_set);
  for (int i : p.epilogue) {
    Support s = check_pointwise_over(g, df, i, p.space, "epilogue");
    if (!s) return s;
  }
  for (int i : p.reductions) {
    const auto &r = std::get<graph::ReductionOp>(g.ops()[i]);
    const graph::Tensor &x = g.tensor(r.x);
    if (x.dims != p.space) return Support::no(cat("op ", i, ": the reduction's input is not of the space's dims"));
    if (!broadcasts_to(g.tensor(r.y), p.space)) return Support::no(cat("op ", i, ": reduction output dims"));
    auto prod = df.producer.find(r.x);
    const bool from_epilogue = prod != df.producer.end() && epilogue_set.count(prod->second);
    if (!from_epilogue && r.x != p.anchor_output)
      return Support::no(cat("op ", i, ": the reduction does not read an epilogue value"));
  }
  p.name = pattern_name(g, p);
  *out = std::move(p);
  return Support::yes();
}

}  // namespace fdnn
