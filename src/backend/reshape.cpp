// CUDNN_BACKEND_OPERATION_RESHAPE_DESCRIPTOR: y shows x's elements in y's
// dims. cuDNN 9 (through 9.21, and cudnn-frontend's default VIEW_ONLY mode)
// treats a reshape as a view of x's memory; FreeDNN follows that where the
// two readings can differ in practice and keeps the logical (row-major)
// reading where they agree:
// - y's (extent, stride) pairs are x's pairs in another order (the
//   frontend's transposes: K -> K^T, P -> P^T, square ones included): y
//   reads x's memory with y's strides, a transpose;
// - otherwise y's i-th element in row-major order is x's i-th (a merge or
//   split of dims, or a layout change when the dims are equal: a reading
//   cuDNN's view would not give, kept for its use as a transform); x is read
//   through the strides that address those elements (numpy's copy-free
//   reshape rule), and a reshape that has none is NOT_SUPPORTED.
// Either way x is read through a view tensor (Tensor::view_of) with y's dims,
// so x keeps its own description for the graph's other operations, and the
// op is the pointwise IDENTITY (a strided copy, with a cast when the types
// differ) from that view to y.
// Rules as cuDNN 9 (probed on the host): both descriptors required
// (BAD_PARAM), the element counts must agree (BAD_PARAM).
#include <algorithm>
#include <atomic>
#include <limits>

#include "backend/operation.hpp"
#include "core/error.hpp"

namespace fdnn::backend {

namespace {

// Strides that address x's elements as a tensor of `dims` (row-major logical
// order), or false when no strides do.
bool view_strides(const graph::Tensor &x, const std::vector<int64_t> &dims, std::vector<int64_t> &out) {
  out.assign(dims.size(), 1);
  if (x.element_count() == 0) return true;
  std::vector<int64_t> od, os;  // x without its extent-1 dims
  for (int i = 0; i < x.rank(); ++i)
    if (x.dims[i] != 1) od.push_back(x.dims[i]), os.push_back(x.strides[i]);
  const size_t on = od.size(), nn = dims.size();
  size_t oi = 0, oj = 1, ni = 0, nj = 1;
  while (ni < nn && oi < on) {
    int64_t np = dims[ni], op = od[oi];
    while (np != op) {
      if (np < op) {
        if (nj >= nn) return false;
        np *= dims[nj++];
      } else {
        if (oj >= on) return false;
        op *= od[oj++];
      }
    }
    // The merged x dims oi..oj-1 must be contiguous among themselves.
    for (size_t k = oi; k + 1 < oj; ++k)
      if (os[k] != od[k + 1] * os[k + 1]) return false;
    out[nj - 1] = os[oj - 1];
    for (size_t k = nj - 1; k > ni; --k) out[k - 1] = out[k] * dims[k];
    ni = nj++;
    oi = oj++;
  }
  // Trailing extent-1 dims: any stride works; keep the last one.
  const int64_t last = ni >= 1 ? out[ni - 1] : 1;
  for (size_t k = ni; k < nn; ++k) out[k] = last;
  return true;
}

// True when y addresses exactly x's memory: the same (extent, stride) pairs
// in another order, extent-1 dims aside, and not simply x again.
bool permutes_x(const graph::Tensor &x, const graph::Tensor &y) {
  auto pairs = [](const graph::Tensor &t) {
    std::vector<std::pair<int64_t, int64_t>> p;
    for (int i = 0; i < t.rank(); ++i)
      if (t.dims[i] != 1) p.emplace_back(t.dims[i], t.strides[i]);
    std::sort(p.begin(), p.end());
    return p;
  };
  return (x.dims != y.dims || x.strides != y.strides) && pairs(x) == pairs(y);
}

// Uids of view tensors come from a range no caller is expected to use, one
// per finalized reshape (a view is private to its reshape).
graph::Uid next_view_uid() {
  static std::atomic<int64_t> next{0};
  return std::numeric_limits<int64_t>::min() / 2 + next.fetch_add(1);
}

class ReshapeOperation : public OperationDescriptor {
 public:
  ReshapeOperation()
      : OperationDescriptor(CUDNN_BACKEND_OPERATION_RESHAPE_DESCRIPTOR,
                            {
                                {CUDNN_ATTR_OPERATION_RESHAPE_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR},
                                {CUDNN_ATTR_OPERATION_RESHAPE_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR},
                            }) {}

 protected:
  void do_finalize() override {
    tensors_.clear();
    const graph::Uid x = use_tensor(CUDNN_ATTR_OPERATION_RESHAPE_XDESC, "XDESC", true);
    const graph::Uid y = use_tensor(CUDNN_ATTR_OPERATION_RESHAPE_YDESC, "YDESC", true);
    const graph::Tensor xt = tensors_[0];
    const graph::Tensor yt = tensors_[1];
    check_arg(x != y, "XDESC and YDESC have the same uid ", x);
    check_arg(xt.element_count() == yt.element_count(), "x has ", xt.element_count(), " elements but y has ",
              yt.element_count(), ": a reshape keeps the element count");
    check_arg(!xt.by_value && !yt.by_value, "x and y must not be by-value tensors");
    graph::Uid source = x;
    const bool transpose = permutes_x(xt, yt);
    if (transpose || xt.dims != yt.dims) {
      graph::Tensor view = xt;
      view.uid = next_view_uid();
      view.view_of = x;
      view.dims = yt.dims;
      if (transpose) {
        view.strides = yt.strides;
      } else {
        check_supported(view_strides(xt, yt.dims, view.strides), "x ", xt.to_string(),
                        " cannot be read with y's dims ", yt.to_string(),
                        " without a copy: FreeDNN's reshape needs x to be viewable in that shape");
      }
      source = view.uid;
      tensors_.push_back(view);
    }
    graph::PointwiseOp copy;
    copy.mode = CUDNN_POINTWISE_IDENTITY;
    copy.compute_type = (xt.dtype == CUDNN_DATA_DOUBLE || yt.dtype == CUDNN_DATA_DOUBLE) ? CUDNN_DATA_DOUBLE
                                                                                        : CUDNN_DATA_FLOAT;
    copy.x = source;
    copy.y = y;
    op_ = copy;
  }
};

}  // namespace

FDNN_BACKEND_DESCRIPTOR(CUDNN_BACKEND_OPERATION_RESHAPE_DESCRIPTOR, ReshapeOperation)

}  // namespace fdnn::backend
