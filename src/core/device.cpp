#include "core/device.hpp"

#include <cstdlib>
#include <cstring>

#include "core/gpu.hpp"

namespace fdnn {

std::string to_string(const Device &d) {
  return d.kind == DeviceKind::cpu ? std::string("cpu") : "cuda:" + std::to_string(d.ordinal);
}

Device default_device() {
  const char *forced = std::getenv("FREEDNN_DEVICE");
  if (forced != nullptr && std::strcmp(forced, "cpu") == 0) return {DeviceKind::cpu, 0};
  if (gpu::device_count() > 0) return {DeviceKind::cuda, gpu::current_device()};
  return {DeviceKind::cpu, 0};
}

}  // namespace fdnn
