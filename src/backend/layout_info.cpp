// CUDNN_BACKEND_LAYOUT_INFO_DESCRIPTOR: the layouts an engine prefers for one
// tensor (seed 000, 9.2.9). Both attributes are read-only. FreeDNN's engines
// take every layout the tensor descriptors can express, so a layout info
// never lists a preference. Behaviour as cuDNN 9 (probed on the host): the
// descriptor can be created and finalized with nothing set; setting either
// attribute is NOT_SUPPORTED before finalize and BAD_PARAM after; a get
// before finalize is NOT_INITIALIZED; afterwards TENSOR_UID reads 0 and
// TYPES no element.
#include "backend/descriptor.hpp"

namespace fdnn::backend {

namespace {

class LayoutInfoDescriptor : public Descriptor {
 public:
  LayoutInfoDescriptor()
      : Descriptor(CUDNN_BACKEND_LAYOUT_INFO_DESCRIPTOR,
                   {
                       {CUDNN_ATTR_LAYOUT_INFO_TENSOR_UID, CUDNN_TYPE_INT64, 1, 1, false},
                       {CUDNN_ATTR_LAYOUT_INFO_TYPES, CUDNN_TYPE_LAYOUT_TYPE, 0, CUDNN_LAYOUT_TYPE_COUNT, false},
                   }) {}

 protected:
  void do_finalize() override {
    put(CUDNN_ATTR_LAYOUT_INFO_TENSOR_UID, AttrValue::of(CUDNN_TYPE_INT64, std::vector<int64_t>{0}));
    put(CUDNN_ATTR_LAYOUT_INFO_TYPES, AttrValue::of(CUDNN_TYPE_LAYOUT_TYPE, std::vector<cudnnBackendLayoutType_t>{}));
  }
  void copy_state_from(const Descriptor &) override {}
};

}  // namespace

FDNN_BACKEND_DESCRIPTOR(CUDNN_BACKEND_LAYOUT_INFO_DESCRIPTOR, LayoutInfoDescriptor)

}  // namespace fdnn::backend
