// CUDNN_BACKEND_OPERATION_PAGED_CACHE_LOAD_DESCRIPTOR: a
// graph::PagedCacheLoadOp (graph/op_paged_cache_load.hpp: the semantics, the
// transposed K^T form of y and why positions past a sequence's end are
// zeros). Rules probed against cuDNN 9.19 on the host, all BAD_PARAM: each
// of the four tensor descriptors is required (one element, a finalized
// TENSOR descriptor) and finalize checks the types and dims
// (core/paged_cache_support.cpp, validate_paged_cache_load).
#include "backend/operation.hpp"
#include "core/error.hpp"
#include "core/paged_cache_support.hpp"

namespace fdnn::backend {

namespace {

// One tensor descriptor; another attribute type on set is BAD_PARAM in
// cuDNN 9 (not BAD_PARAM_ATTRIBUTE_TYPE).
AttrSpec tensor_attr(cudnnBackendAttributeName_t name) {
  AttrSpec s{name, CUDNN_TYPE_BACKEND_DESCRIPTOR};
  s.wrong_type_is_bad_param = true;
  return s;
}

class PagedCacheLoadOperation : public OperationDescriptor {
 public:
  PagedCacheLoadOperation()
      : OperationDescriptor(CUDNN_BACKEND_OPERATION_PAGED_CACHE_LOAD_DESCRIPTOR,
                            {
                                tensor_attr(CUDNN_ATTR_OPERATION_PAGED_CACHE_LOAD_CONTAINER_DESC),
                                tensor_attr(CUDNN_ATTR_OPERATION_PAGED_CACHE_LOAD_YDESC),
                                tensor_attr(CUDNN_ATTR_OPERATION_PAGED_CACHE_LOAD_SEQUENCE_DESC),
                                tensor_attr(CUDNN_ATTR_OPERATION_PAGED_CACHE_LOAD_PAGE_TABLE_DESC),
                            }) {}

 protected:
  void do_finalize() override {
    tensors_.clear();
    graph::PagedCacheLoadOp op;
    op.container = use_tensor(CUDNN_ATTR_OPERATION_PAGED_CACHE_LOAD_CONTAINER_DESC, "CONTAINER_DESC", true);
    op.y = use_tensor(CUDNN_ATTR_OPERATION_PAGED_CACHE_LOAD_YDESC, "YDESC", true);
    op.seq_len = use_tensor(CUDNN_ATTR_OPERATION_PAGED_CACHE_LOAD_SEQUENCE_DESC, "SEQUENCE_DESC", true);
    op.page_table = use_tensor(CUDNN_ATTR_OPERATION_PAGED_CACHE_LOAD_PAGE_TABLE_DESC, "PAGE_TABLE_DESC", true);
    const graph::Tensor &c = tensors_[0], &y = tensors_[1], &seq = tensors_[2], &table = tensors_[3];
    validate_paged_cache_load(c, y, seq, table);
    check_supported(!c.by_value && !y.by_value && !seq.by_value && !table.by_value,
                    "by-value tensors are not supported by FreeDNN's paged cache load");
    op_ = op;
  }
};

}  // namespace

FDNN_BACKEND_DESCRIPTOR(CUDNN_BACKEND_OPERATION_PAGED_CACHE_LOAD_DESCRIPTOR, PagedCacheLoadOperation)

}  // namespace fdnn::backend
