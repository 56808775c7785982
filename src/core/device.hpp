// Where work runs. A handle binds to one device for its whole life.
#pragma once

#include <string>

namespace fdnn {

enum class DeviceKind { cpu, cuda };

struct Device {
  DeviceKind kind = DeviceKind::cpu;
  int ordinal = 0;  // CUDA device number; 0 for the CPU
  bool operator==(const Device &o) const { return kind == o.kind && ordinal == o.ordinal; }
};

inline const char *device_kind_name(DeviceKind k) { return k == DeviceKind::cpu ? "cpu" : "cuda"; }
std::string to_string(const Device &d);

// The device a new handle binds to: the current CUDA device when this build
// has the CUDA backend and a usable GPU is present, else the CPU.
// FREEDNN_DEVICE=cpu forces the CPU.
Device default_device();

}  // namespace fdnn
