// Memory for test data on the device the library will use: host memory when
// handles bind to the CPU, device memory when they bind to a GPU. The same
// test sources thus run on both backends.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace fdnn_test {

// True when handles created now bind to a GPU: this build has CUDA, a GPU is
// present and FREEDNN_DEVICE is not "cpu" (the library's own rule).
bool gpu_mode();

class Buffer {
 public:
  Buffer() = default;
  explicit Buffer(size_t bytes);
  // Allocates and uploads.
  explicit Buffer(const std::vector<uint8_t> &host);
  ~Buffer();
  Buffer(Buffer &&other) noexcept;
  Buffer &operator=(Buffer &&other) noexcept;
  Buffer(const Buffer &) = delete;
  Buffer &operator=(const Buffer &) = delete;

  void *get() const { return ptr_; }
  size_t size() const { return bytes_; }
  void upload(const void *host, size_t bytes);
  void download(void *host, size_t bytes) const;
  std::vector<uint8_t> download() const;

 private:
  void *ptr_ = nullptr;
  size_t bytes_ = 0;
  bool device_ = false;
};

}  // namespace fdnn_test
