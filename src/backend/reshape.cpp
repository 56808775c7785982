// CUDNN_BACKEND_OPERATION_RESHAPE_DESCRIPTOR: y holds x's elements in the
// same logical (row-major) order, with y's dims and y's strides. It maps onto
// the pointwise IDENTITY op (a strided copy, with a cast when the types
// differ), reading x as a view with y's dims: the op records x under its uid
// with those dims and the strides that address the same elements (numpy's
// copy-free reshape rule). When x's layout has no such view (a transposed x
// merged into one dimension, say) the reshape is NOT_SUPPORTED; a reshape
// whose dims are unchanged (a pure layout change, the usual transpose) always
// has one. Because the graph knows one description per uid, a reshape whose
// dims differ cannot share its input with another operation of the graph.
// Rules as cuDNN 9 (probed on the host): both descriptors required
// (BAD_PARAM), the element counts must agree (BAD_PARAM).
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
    graph::Tensor &xt = tensors_[0];
    const graph::Tensor &yt = tensors_[1];
    check_arg(x != y, "XDESC and YDESC have the same uid ", x);
    check_arg(xt.element_count() == yt.element_count(), "x has ", xt.element_count(), " elements but y has ",
              yt.element_count(), ": a reshape keeps the element count");
    check_arg(!xt.by_value && !yt.by_value, "x and y must not be by-value tensors");
    if (xt.dims != yt.dims) {
      std::vector<int64_t> strides;
      check_supported(view_strides(xt, yt.dims, strides), "x ", xt.to_string(), " cannot be read with y's dims ",
                      yt.to_string(), " without a copy: FreeDNN's reshape needs x to be viewable in that shape");
      xt.dims = yt.dims;
      xt.strides = strides;
    }
    graph::PointwiseOp copy;
    copy.mode = CUDNN_POINTWISE_IDENTITY;
    copy.compute_type = (xt.dtype == CUDNN_DATA_DOUBLE || yt.dtype == CUDNN_DATA_DOUBLE) ? CUDNN_DATA_DOUBLE
                                                                                        : CUDNN_DATA_FLOAT;
    copy.x = x;
    copy.y = y;
    op_ = copy;
  }
};

}  // namespace

FDNN_BACKEND_DESCRIPTOR(CUDNN_BACKEND_OPERATION_RESHAPE_DESCRIPTOR, ReshapeOperation)

}  // namespace fdnn::backend
