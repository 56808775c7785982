// The legacy dropout descriptor and the layout of the user's states buffer.
#pragma once

#include <cudnn_graph.h>
#include <cudnn_ops.h>

#include <cstddef>
#include <cstdint>

namespace fdnn {

// The states buffer (cudnnDropoutGetStatesSize bytes, on the handle's
// device) holds the generator's whole state: the seed and a running offset
// that each cudnnDropoutForward reads and advances by one. Masks are a pure
// function of (seed, offset, element index) (core/philox.hpp), so re-binding
// a buffer with cudnnRestoreDropoutDescriptor resumes its stream of masks.
struct DropoutStatesLayout {
  static constexpr uint64_t kMagic = 0x504f52444e444646ull;  // "FFDNDROP" little-endian
  static constexpr size_t kMagicWord = 0, kSeedWord = 1, kOffsetWord = 2;
  static constexpr size_t kWords = 8;  // the rest is reserved (zero)
  static constexpr size_t kBytes = kWords * sizeof(uint64_t);
};

// Reserve space: one keep bit per element, in 32-bit words (cuDNN 9 asks for
// the same amount: ceil(n / 8) bytes rounded up to 4).
inline size_t dropout_reserve_bytes(int64_t elements) { return static_cast<size_t>((elements + 31) / 32) * 4; }

}  // namespace fdnn

struct cudnnDropoutStruct {
  static constexpr uint32_t kAlive = 0x44524f50;  // "DROP"
  uint32_t magic = kAlive;
  bool is_set = false;
  float dropout = 0.0f;
  void *states = nullptr;  // on the device of the handle given to Set / Restore
  size_t states_bytes = 0;
  unsigned long long seed = 0;
};
