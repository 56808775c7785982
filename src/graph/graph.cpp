#include "graph/graph.hpp"

#include <cstring>
#include <sstream>
#include <type_traits>

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

Uid Graph::storage_uid(Uid uid) const {
  const Tensor *t = find_tensor(uid);
  return t != nullptr && t->is_view() ? t->view_of : uid;
}

bool Graph::has_virtual_views() const {
  for (const Tensor &t : tensors_)
    if (t.is_view() && t.is_virtual) return true;
  return false;
}

namespace {

void describe_tensor(std::ostream &os, const Tensor &t, bool with_values) {
  os << 'T' << t.uid << (t.is_virtual ? "v" : "") << '[' << t.to_string() << ']';
  if (t.is_view()) os << "@T" << t.view_of;
  if (t.by_value && !with_values) os << "byval";
}

}  // namespace

// The plan cache looks this key up on every legacy call, so it is built
// cheaply: tensors appended as raw bytes (no number formatting), and one
// stream per thread reused for the ops' describe() (constructing a stream
// costs more than a small call's whole computation).
std::string Graph::structural_key() const {
  size_t bytes = 0;
  for (const Tensor &t : tensors_) bytes += 32 + 8 * (t.dims.size() + t.strides.size()) + (t.by_value ? 8 : 0);
  // Room for the ops' raw-byte keys too (about 200 bytes each), so that
  // appending them does not reallocate.
  std::string key;
  key.reserve(bytes + 256 * ops_.size());
  key.resize(bytes);
  char *p = key.data();
  auto put = [&p](auto v) {
    std::memcpy(p, &v, sizeof v);
    p += sizeof v;
  };
  for (const Tensor &t : tensors_) {
    put(static_cast<int64_t>(t.uid));
    put(static_cast<int32_t>(t.dtype));
    put(static_cast<uint16_t>((t.is_virtual ? 1 : 0) | (t.by_value ? 2 : 0)));
    put(static_cast<uint16_t>(t.dims.size()));
    put(static_cast<int64_t>(t.strides.size()));
    put(static_cast<int64_t>(t.view_of));
    for (int64_t d : t.dims) put(d);
    for (int64_t st : t.strides) put(st);
    // As in the text key this replaced, a by-value tensor's value is part of
    // the key (a plan may bake it in).
    if (t.by_value) put(t.value);
  }
  thread_local std::ostringstream os;
  os.str(std::string());
  os.clear();
  for (const Op &op : ops_) {
    std::visit(
        [&](const auto &o) {
          using T = std::decay_t<decltype(o)>;
          if constexpr (std::is_same_v<T, ConvolutionOp> || std::is_same_v<T, NormalizationOp> ||
                        std::is_same_v<T, PointwiseOp>) {
            key += os.str();
            os.str(std::string());
            append_structural_key(key, o);
          } else {
            describe(os, o, false);
          }
        },
        op);
  }
  key += os.str();
  return key;
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
