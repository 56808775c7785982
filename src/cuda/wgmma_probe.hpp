// Whether the current device can run this build's sm_90a kernels (the
// wgmma convolutions): compute capability 9.0 and an sm_90a image of the
// device code in the library, found by running a one-thread kernel once per
// device. A build for other targets, or a device that is not a Hopper,
// answers false and the callers keep their mma.sync paths.
#pragma once

namespace fdnn::cuda {

// Thread-safe, cached per device; false when there is no current device.
// `smem_needed`: the opt-in shared memory per block the caller's kernel
// asks for (bytes); a device with less answers false.
bool device_runs_wgmma(int smem_needed);

}  // namespace fdnn::cuda
