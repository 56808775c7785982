#include "core/bn_pattern.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "core/error.hpp"
#include "graph/op_io.hpp"

namespace fdnn {
namespace {

struct Flow {
  std::vector<graph::OpIo> io;
  std::map<graph::Uid, int> producer;
  std::map<graph::Uid, std::vector<int>> consumers;
  explicit Flow(const graph::Graph &g) {
    for (size_t i = 0; i < g.ops().size(); ++i) {
      io.push_back(graph::op_io(g.ops()[i]));
      for (graph::Uid u : io.back().outputs) producer[u] = static_cast<int>(i);
      for (graph::Uid u : io.back().inputs) consumers[u].push_back(static_cast<int>(i));
    }
  }
  const std::vector<int> &readers(graph::Uid u) const {
    static const std::vector<int> none;
    auto it = consumers.find(u);
    return it == consumers.end() ? none : it->second;
  }
  int writer(graph::Uid u) const {
    auto it = producer.find(u);
    return it == producer.end() ? -1 : it->second;
  }
};

const graph::PointwiseOp *pointwise(const graph::Graph &g, int i) {
  return i < 0 ? nullptr : std::get_if<graph::PointwiseOp>(&g.ops()[i]);
}

bool is_per_channel(const graph::Tensor &t, const graph::Tensor &x) {
  if (t.rank() != x.rank() || t.rank() < 3) return false;
  for (int d = 0; d < t.rank(); ++d)
    if (t.dims[d] != (d == 1 ? x.dims[1] : 1)) return false;
  return true;
}

// The operand of a binary pointwise op that is not `from`.
graph::Uid other(const graph::PointwiseOp &p, graph::Uid from) { return p.x == from ? p.b : p.x; }

Support match_bn_add_relu(const graph::Graph &g, const Flow &f, int norm, BnPatternMatch &m) {
  const auto &n = std::get<graph::NormalizationOp>(g.ops()[norm]);
  if (n.backward || n.phase != CUDNN_NORM_FWD_TRAINING)
    return Support::no("BnAddRelu: the norm is not forward training");
  if (n.z != graph::kNoTensor || n.mask != graph::kNoTensor || n.has_activation)
    return Support::no("BnAddRelu: the norm op has its own residual / activation");
  const graph::Tensor &x = g.tensor(n.x);
  size_t used = 1;
  graph::Uid cur = n.y;
  bool added = false;
  while (g.tensor(cur).is_virtual) {
    const auto &r = f.readers(cur);
    if (r.size() != 1) return Support::no("BnAddRelu: a virtual value has other than one reader");
    const graph::PointwiseOp *p = pointwise(g, r[0]);
    if (p == nullptr) return Support::no("BnAddRelu: a virtual value feeds a non-pointwise op");
    if (p->mode == CUDNN_POINTWISE_ADD && !added && !m.relu) {
      const graph::Uid z = other(*p, cur);
      if (p->x == p->b || z == graph::kNoTensor || g.tensor(z).is_virtual || g.tensor(z).dims != x.dims)
        return Support::no("BnAddRelu: the ADD's other operand is not a real tensor of x's dims");
      m.z = z;
      added = true;
    } else if (p->mode == CUDNN_POINTWISE_RELU_FWD && !m.relu && p->x == cur) {
      m.relu = true;
    } else {
      return Support::no("BnAddRelu: expected ADD then RELU_FWD after the norm");
    }
    cur = p->y;
    ++used;
  }
  if (g.tensor(cur).dims != x.dims) return Support::no("BnAddRelu: y does not have x's dims");
  m.y = cur;
  const auto &r = f.readers(cur);
  if (r.size() > 1) return Support::no("BnAddRelu: y is read by more than one op");
  if (r.size() == 1) {
    const graph::PointwiseOp *p = pointwise(g, r[0]);
    if (p == nullptr || p->mode != CUDNN_POINTWISE_CMP_GT || p->x != cur || p->b == graph::kNoTensor ||
        !g.tensor(p->b).by_value)
      return Support::no("BnAddRelu: y is read by something other than CMP_GT(y, by-value scalar)");
    if (g.tensor(p->y).is_virtual || g.tensor(p->y).dims != x.dims)
      return Support::no("BnAddRelu: the mask is not a real tensor of x's dims");
    m.mask = p->y;
    ++used;
  }
  if (used != g.ops().size()) return Support::no("BnAddRelu: the graph has other operations");
  if (used < 2) return Support::no("a single operation runs on its own engines");
  m.kind = BnPatternKind::bn_add_relu;
  m.name = "BnAddRelu";
  return Support::yes();
}

Support match_drelu_fork_dbn(const graph::Graph &g, const Flow &f, int norm, BnPatternMatch &m) {
  const auto &n = std::get<graph::NormalizationOp>(g.ops()[norm]);
  if (g.ops().size() != 2) return Support::no("DReluForkDBn: expected RELU_BWD and NORM_BACKWARD only");
  if (n.mean == graph::kNoTensor || n.inv_variance == graph::kNoTensor)
    return Support::no("DReluForkDBn: the norm backward has no saved statistics");
  if (n.has_activation || n.mask != graph::kNoTensor || n.dz != graph::kNoTensor || n.z != graph::kNoTensor)
    return Support::no("DReluForkDBn: the norm op has its own activation");
  const graph::PointwiseOp *p = pointwise(g, f.writer(n.dy));
  if (p == nullptr || p->mode != CUDNN_POINTWISE_RELU_BWD)
    return Support::no("DReluForkDBn: dy is not a RELU_BWD output");
  const graph::Tensor &x = g.tensor(n.x);
  if (g.tensor(p->x).dims != x.dims || g.tensor(p->b).dims != x.dims)
    return Support::no("DReluForkDBn: the dReLU's operands are not of x's dims");
  if (g.tensor(p->x).is_virtual || g.tensor(p->b).is_virtual) return Support::no("DReluForkDBn: virtual dReLU inputs");
  m.relu_input = p->x;
  m.dy = p->b;
  m.dz = g.tensor(n.dy).is_virtual ? graph::kNoTensor : n.dy;
  m.kind = BnPatternKind::drelu_fork_dbn;
  m.name = "DReluForkDBn";
  return Support::yes();
}

Support match_dbn_apply(const graph::Graph &g, const Flow &f, BnPatternMatch &m) {
  if (g.ops().size() != 4) return Support::no("dBNApply: expected four pointwise ops");
  int last = -1;
  for (size_t i = 0; i < g.ops().size(); ++i) {
    const graph::PointwiseOp *p = pointwise(g, static_cast<int>(i));
    if (p == nullptr) return Support::no("dBNApply: not all ops are pointwise");
    if (!g.tensor(p->y).is_virtual) {
      if (last >= 0) return Support::no("dBNApply: more than one real output");
      last = static_cast<int>(i);
    }
  }
  if (last < 0) return Support::no("dBNApply: no real output");
  const graph::PointwiseOp &add2 = *pointwise(g, last);
  if (add2.mode != CUDNN_POINTWISE_ADD) return Support::no("dBNApply: the output is not an ADD");
  const graph::Tensor &out = g.tensor(add2.y);
  // One operand of the last ADD is the sum of the two products, the other C.
  const graph::PointwiseOp *add1 = pointwise(g, f.writer(add2.x));
  graph::Uid c = add2.b;
  if (add1 == nullptr) {
    add1 = pointwise(g, f.writer(add2.b));
    c = add2.x;
  }
  if (add1 == nullptr || add1->mode != CUDNN_POINTWISE_ADD) return Support::no("dBNApply: no ADD of the products");
  if (c == graph::kNoTensor || g.tensor(c).is_virtual || !is_per_channel(g.tensor(c), out))
    return Support::no("dBNApply: C is not a per-channel tensor");
  const graph::PointwiseOp *mul[2] = {pointwise(g, f.writer(add1->x)), pointwise(g, f.writer(add1->b))};
  graph::Uid full[2], coef[2];
  for (int k = 0; k < 2; ++k) {
    if (mul[k] == nullptr || mul[k]->mode != CUDNN_POINTWISE_MUL || mul[k]->b == graph::kNoTensor)
      return Support::no("dBNApply: the ADD does not sum two MULs");
    const graph::Tensor &a = g.tensor(mul[k]->x), &b = g.tensor(mul[k]->b);
    if (a.is_virtual || b.is_virtual) return Support::no("dBNApply: a MUL reads a virtual tensor");
    if (a.dims == out.dims && is_per_channel(b, out))
      full[k] = a.uid, coef[k] = b.uid;
    else if (b.dims == out.dims && is_per_channel(a, out))
      full[k] = b.uid, coef[k] = a.uid;
    else
      return Support::no("dBNApply: a MUL is not a full-size tensor times a per-channel one");
  }
  if (mul[0] == mul[1]) return Support::no("dBNApply: the same product twice");
  m.dy = full[0], m.a = coef[0], m.x = full[1], m.b = coef[1], m.c = c, m.dx = add2.y;
  m.kind = BnPatternKind::dbn_apply;
  m.name = "dBNApply";
  return Support::yes();
}

// DgradDreluBNBwdWeight: see the header. `tail` gets the per-channel ops.
Support match_dgrad_drelu_bn(const graph::Graph &g, const Flow &f, int conv, BnPatternMatch &m) {
  const auto &cv = std::get<graph::ConvolutionOp>(g.ops()[conv]);
  const graph::Tensor &dg = g.tensor(cv.x);
  if (!dg.is_virtual) return Support::no("Dgrad pattern: the convolution's output is not virtual");
  const auto &r = f.readers(cv.x);
  if (r.size() != 1) return Support::no("Dgrad pattern: the dgrad output has other than one reader");
  const graph::PointwiseOp *drelu = pointwise(g, r[0]);
  if (drelu == nullptr || drelu->mode != CUDNN_POINTWISE_RELU_BWD || drelu->b != cv.x)
    return Support::no("Dgrad pattern: the dgrad output does not feed a RELU_BWD as its gradient");
  // y_bn = ((x_bn +/- mean) * inv_std) * scale + bias, each step virtual.
  const cudnnPointwiseMode_t chain[] = {CUDNN_POINTWISE_ADD, CUDNN_POINTWISE_MUL, CUDNN_POINTWISE_MUL,
                                        CUDNN_POINTWISE_ADD};
  graph::Uid cur = drelu->x;
  graph::Uid side[4];
  for (int k = 3; k >= 0; --k) {
    const graph::PointwiseOp *p = pointwise(g, f.writer(cur));
    if (p == nullptr || !g.tensor(cur).is_virtual)
      return Support::no("Dgrad pattern: y_bn is not recomputed by pointwise ops");
    const bool ok_mode = p->mode == chain[k] || (k == 0 && p->mode == CUDNN_POINTWISE_SUB);
    if (!ok_mode || p->b == graph::kNoTensor)
      return Support::no("Dgrad pattern: y_bn's recomputation has another form");
    const bool x_first = k == 0 || g.tensor(p->x).is_virtual;
    side[k] = x_first ? p->b : p->x;
    cur = x_first ? p->x : p->b;
    if (!is_per_channel(g.tensor(side[k]), dg) || g.tensor(side[k]).is_virtual)
      return Support::no("Dgrad pattern: mean, inv_std, scale and bias must be real per-channel tensors");
  }
  if (g.tensor(cur).is_virtual || g.tensor(cur).dims != dg.dims) return Support::no("Dgrad pattern: x_bn");
  m.x_bn = cur, m.mean = side[0], m.inv_std = side[1], m.scale = side[2], m.bias = side[3];
  m.dy = drelu->y;
  // The rest: two ADD reductions to real per-channel outputs, full-size
  // pointwise ops, and per-channel ops (the tail) that read only per-channel tensors.
  int reductions = 0;
  for (size_t i = 0; i < g.ops().size(); ++i) {
    const graph::Op &op = g.ops()[i];
    if (const auto *rd = std::get_if<graph::ReductionOp>(&op)) {
      if (rd->mode != CUDNN_REDUCE_TENSOR_ADD || g.tensor(rd->y).is_virtual || !is_per_channel(g.tensor(rd->y), dg) ||
          g.tensor(rd->x).dims != dg.dims)
        return Support::no("Dgrad pattern: a reduction other than a per-channel ADD of a full-size value");
      (reductions == 0 ? m.dbias : m.dscale) = rd->y;
      ++reductions;
    } else if (const auto *p = std::get_if<graph::PointwiseOp>(&op)) {
      const graph::Tensor &y = g.tensor(p->y);
      if (y.dims == dg.dims) continue;
      if (!is_per_channel(y, dg))
        return Support::no("Dgrad pattern: a pointwise output is neither full-size nor per-channel");
      for (graph::Uid in : {p->x, p->b, p->t})
        if (in != graph::kNoTensor && !g.tensor(in).by_value && !is_per_channel(g.tensor(in), dg))
          return Support::no("Dgrad pattern: a per-channel op reads a full-size tensor");
      m.tail.push_back(static_cast<int>(i));
    }
  }
  if (reductions != 2) return Support::no("Dgrad pattern: expected two reductions (dscale, dbias)");
  m.conv = conv;
  m.dgrad = cv.x;
  m.kind = BnPatternKind::dgrad_drelu_bn_bwd_weight;
  m.name = "DgradDreluBNBwdWeight";
  return Support::yes();
}

}  // namespace

Support match_bn_pattern(const graph::Graph &g, BnPatternMatch *out) {
  if (g.ops().size() < 2) return Support::no("a single operation runs on its own engines");
  std::unique_ptr<Flow> f;
  try {
    f = std::make_unique<Flow>(g);
  } catch (const Error &e) {
    return Support::no(e.what());
  }
  int norm = -1, conv = -1;
  bool other = false;
  for (size_t i = 0; i < g.ops().size(); ++i) {
    const graph::Op &op = g.ops()[i];
    if (const auto *n = std::get_if<graph::NormalizationOp>(&op)) {
      if (norm >= 0) return Support::no("more than one normalization");
      if (n->mode != CUDNN_BATCH_NORM) return Support::no("the normalization is not batch norm");
      norm = static_cast<int>(i);
    } else if (const auto *c = std::get_if<graph::ConvolutionOp>(&op)) {
      if (conv >= 0 || c->direction != graph::ConvDirection::backward_data)
        return Support::no("a convolution other than one backward-data");
      conv = static_cast<int>(i);
    } else if (!std::holds_alternative<graph::PointwiseOp>(op) && !std::holds_alternative<graph::ReductionOp>(op)) {
      other = true;
    }
  }
  if (other) return Support::no("an operation that is not normalization, convolution, pointwise or reduction");
  BnPatternMatch m;
  Support s = Support::no("no batch-norm pattern");
  if (norm >= 0 && conv < 0) {
    m.norm = norm;
    s = std::get<graph::NormalizationOp>(g.ops()[norm]).backward ? match_drelu_fork_dbn(g, *f, norm, m)
                                                                 : match_bn_add_relu(g, *f, norm, m);
  } else if (norm < 0 && conv < 0) {
    s = match_dbn_apply(g, *f, m);
  } else if (conv >= 0) {
    if (norm >= 0) return Support::no("a convolution and a normalization");
    s = match_dgrad_drelu_bn(g, *f, conv, m);
  }
  if (s && out) *out = std::move(m);
  return s;
}

}  // namespace fdnn
