// CUDNN_BACKEND_KERNEL_CACHE_DESCRIPTOR and CUDNN_BACKEND_DEVICEPROP_DESCRIPTOR,
// the cuDNN 9 descriptors cudnn-frontend sets on heuristics, engines and
// plans. FreeDNN compiles no kernels at plan time and targets the handle's
// device, so both are accepted, finalized, and ignored in execution.
// Rules probed against cuDNN 9 on the host: a kernel cache finalized with
// nothing set is BAD_PARAM_NOT_FINALIZED; its OPERATION_GRAPH is one
// BACKEND_DESCRIPTOR (another type: BAD_PARAM_ATTRIBUTE_TYPE; two: NOT_SUPPORTED);
// a JSON_REPRESENTATION that is not a cache's is BAD_PARAM at finalize;
// IS_ENGINECFG_KERNEL_CACHED cannot be set (BAD_PARAM). DEVICEPROP's
// DEVICE_ID is one INT32 and HANDLE a CUDNN_TYPE_HANDLE.
#include <cstring>
#include <string>

#include "backend/descriptor.hpp"
#include "core/error.hpp"
#include "core/handle.hpp"

namespace fdnn::backend {

namespace {

constexpr const char *kCacheJson = "{\"freednn_kernel_cache\":1}";
constexpr int64_t kMaxJson = 1 << 20;

AttrValue chars(const std::string &s) {
  return AttrValue::of(CUDNN_TYPE_CHAR, std::vector<char>(s.begin(), s.end()));
}

class KernelCacheDescriptor : public Descriptor {
 public:
  KernelCacheDescriptor()
      : Descriptor(CUDNN_BACKEND_KERNEL_CACHE_DESCRIPTOR,
                   {
                       {CUDNN_ATTR_KERNEL_CACHE_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR},
                       {CUDNN_ATTR_KERNEL_CACHE_IS_ENGINECFG_KERNEL_CACHED, CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, 1, false,
                        CUDNN_TYPE_BACKEND_DESCRIPTOR, true, false, true},
                       {CUDNN_ATTR_KERNEL_CACHE_JSON_REPRESENTATION, CUDNN_TYPE_CHAR, 0, kMaxJson},
                   }) {}

 protected:
  void do_finalize() override {
    const bool graph = has(CUDNN_ATTR_KERNEL_CACHE_OPERATION_GRAPH);
    const bool json = has(CUDNN_ATTR_KERNEL_CACHE_JSON_REPRESENTATION);
    if (!graph && !json)
      fail(CUDNN_STATUS_BAD_PARAM_NOT_FINALIZED,
           "a kernel cache needs OPERATION_GRAPH or a JSON_REPRESENTATION to be finalized");
    if (json) {
      const auto v = array<char>(CUDNN_ATTR_KERNEL_CACHE_JSON_REPRESENTATION);
      const std::string text(v.begin(), v.end());
      check_arg(text.find("\"freednn_kernel_cache\"") != std::string::npos,
                "JSON_REPRESENTATION is not a kernel cache serialised by FreeDNN");
    }
    put(CUDNN_ATTR_KERNEL_CACHE_JSON_REPRESENTATION, chars(std::string(kCacheJson) + '\0'));
  }
  void copy_state_from(const Descriptor &) override {}
};

class DevicePropDescriptor : public Descriptor {
 public:
  DevicePropDescriptor()
      : Descriptor(CUDNN_BACKEND_DEVICEPROP_DESCRIPTOR,
                   {
                       {CUDNN_ATTR_DEVICEPROP_DEVICE_ID, CUDNN_TYPE_INT32},
                       {CUDNN_ATTR_DEVICEPROP_HANDLE, CUDNN_TYPE_HANDLE},
                       {CUDNN_ATTR_DEVICEPROP_JSON_REPRESENTATION, CUDNN_TYPE_CHAR, 0, kMaxJson},
                   }) {}

 protected:
  void do_finalize() override {
    int32_t id = scalar<int32_t>(CUDNN_ATTR_DEVICEPROP_DEVICE_ID, 0);
    check_arg(id >= 0, "DEVICE_ID = ", id, ": must not be negative");
    if (has(CUDNN_ATTR_DEVICEPROP_HANDLE)) {
      cudnnContext &h = checked_handle(scalar<cudnnHandle_t>(CUDNN_ATTR_DEVICEPROP_HANDLE, nullptr));
      if (!has(CUDNN_ATTR_DEVICEPROP_DEVICE_ID)) id = h.device.ordinal;
    }
    put(CUDNN_ATTR_DEVICEPROP_DEVICE_ID, AttrValue::of(CUDNN_TYPE_INT32, std::vector<int32_t>{id}));
    put(CUDNN_ATTR_DEVICEPROP_JSON_REPRESENTATION,
        chars("{\"device_id\":" + std::to_string(id) + "}" + std::string(1, '\0')));
  }
  void copy_state_from(const Descriptor &) override {}
};

}  // namespace

FDNN_BACKEND_DESCRIPTOR(CUDNN_BACKEND_KERNEL_CACHE_DESCRIPTOR, KernelCacheDescriptor)
FDNN_BACKEND_DESCRIPTOR(CUDNN_BACKEND_DEVICEPROP_DESCRIPTOR, DevicePropDescriptor)

}  // namespace fdnn::backend
