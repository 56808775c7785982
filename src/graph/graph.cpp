#include "graph/graph.hpp"

#include <sstream>

#include "core/error.hpp"

namespace fdnn::graph {

const char *op_kind_name(const Op &op) {
  return std::visit([](const auto &o) { return std::decay_t<decltype(o)>::kKind; }, op);
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

}  // namespace

std::string Graph::structural_key() const {
  std::ostringstream os;
  for (const Tensor &t : tensors_) describe_tensor(os, t, false);
  for (const Op &op : ops_) std::visit([&](const auto &o) { describe(os, o, false); }, op);
  return os.str();
}

std::string Graph::to_string() const {
  std::ostringstream os;
  for (const Tensor &t : tensors_) {
    describe_tensor(os, t, true);
    os << ' ';
  }
  for (const Op &op : ops_) std::visit([&](const auto &o) { describe(os, o, true); }, op);
  return os.str();
}

}  // namespace fdnn::graph
