#include "graph/graph.hpp"

#include <sstream>

#include "core/error.hpp"

namespace fdnn::graph {

const char *op_kind_name(const Op &op) {
  struct Name {
    const char *operator()(const PointwiseOp &) const { return "pointwise"; }
    const char *operator()(const ReductionOp &) const { return "reduction"; }
  };
  return std::visit(Name{}, op);
}

Uid Graph::add_tensor(Tensor t) {
  if (find_tensor(t.uid) != nullptr) fail(CUDNN_STATUS_BAD_PARAM, "tensor uid ", t.uid, " used twice in one graph");
  if (t.uid >= next_uid_) next_uid_ = t.uid + 1;
  tensors_.push_back(std::move(t));
  return tensors_.back().uid;
}

Uid Graph::add_tensor_auto(Tensor t) {
  t.uid = next_uid_;
  return add_tensor(std::move(t));
}

const Tensor *Graph::find_tensor(Uid uid) const {
  for (const Tensor &t : tensors_)
    if (t.uid == uid) return &t;
  return nullptr;
}

const Tensor &Graph::tensor(Uid uid) const {
  const Tensor *t = find_tensor(uid);
  if (t == nullptr) fail(CUDNN_STATUS_INTERNAL_ERROR, "graph has no tensor with uid ", uid);
  return *t;
}

namespace {

void describe_tensor(std::ostream &os, const Tensor &t, bool with_values) {
  os << 'T' << t.uid << (t.is_virtual ? "v" : "") << '[' << t.to_string() << ']';
  if (t.by_value && !with_values) os << "byval";
}

struct Describe {
  std::ostream &os;
  bool with_values;
  void blend(const Blend &b) const {
    // Whether beta is zero changes what is read, so it is structural.
    if (with_values) os << ",alpha=" << b.alpha << ",beta=" << b.beta;
    else os << ",beta0=" << (b.beta == 0.0);
  }
  void operator()(const PointwiseOp &p) const {
    os << "pw(mode=" << p.mode << ",ct=" << p.compute_type << ",nan=" << p.nan_propagation << ",x=" << p.x
       << ",b=" << p.b << ",t=" << p.t << ",y=" << p.y << ",axis=" << p.axis;
    if (with_values)
      os << ",a1=" << p.alpha1 << ",a2=" << p.alpha2 << ",clip=" << p.relu_lower_clip << '/' << p.relu_upper_clip
         << '/' << p.relu_lower_clip_slope << ",elu=" << p.elu_alpha << ",sp=" << p.softplus_beta
         << ",sw=" << p.swish_beta;
    blend(p.blend);
    os << ')';
  }
  void operator()(const ReductionOp &r) const {
    os << "red(mode=" << r.mode << ",ct=" << r.compute_type << ",nan=" << r.nan_propagation << ",x=" << r.x
       << ",y=" << r.y << ",idx=" << r.indices;
    blend(r.blend);
    os << ')';
  }
};

}  // namespace

std::string Graph::structural_key() const {
  std::ostringstream os;
  for (const Tensor &t : tensors_) describe_tensor(os, t, false);
  for (const Op &op : ops_) std::visit(Describe{os, false}, op);
  return os.str();
}

std::string Graph::to_string() const {
  std::ostringstream os;
  for (const Tensor &t : tensors_) {
    describe_tensor(os, t, true);
    os << ' ';
  }
  for (const Op &op : ops_) std::visit(Describe{os, true}, op);
  return os.str();
}

}  // namespace fdnn::graph
