// Proves that this test binary runs FreeDNN's libcudnn from the build tree
// and not NVIDIA's library installed on the machine (same soname, same
// symbols: a wrong library path would make every other test meaningless).
#include <cudnn.h>
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <link.h>
#include <limits.h>
#include <stdlib.h>

#include <cstring>
#include <string>
#include <vector>

namespace {

std::string real_path(const char *p) {
  char buf[PATH_MAX];
  return realpath(p, buf) ? std::string(buf) : std::string(p);
}

std::string library_of(const void *symbol) {
  Dl_info info{};
  if (dladdr(symbol, &info) == 0 || info.dli_fname == nullptr) return {};
  return real_path(info.dli_fname);
}

std::vector<std::string> loaded_objects() {
  std::vector<std::string> out;
  dl_iterate_phdr(
      [](dl_phdr_info *info, size_t, void *data) {
        if (info->dlpi_name && info->dlpi_name[0])
          static_cast<std::vector<std::string> *>(data)->push_back(real_path(info->dlpi_name));
        return 0;
      },
      &out);
  return out;
}

TEST(LibraryIdentity, EntryPointsComeFromTheBuildTree) {
  std::string lib = library_of(reinterpret_cast<const void *>(&cudnnGetVersion));
  ASSERT_FALSE(lib.empty()) << "dladdr found no object for cudnnGetVersion";
  EXPECT_NE(lib.find("libcudnn.so"), std::string::npos) << lib;
  EXPECT_EQ(lib.find("/usr/local/cuda"), std::string::npos) << lib;
  EXPECT_EQ(lib.rfind("/usr/", 0), std::string::npos) << "a system library: " << lib;
#ifdef FREEDNN_TEST_LIBRARY_FILE
  EXPECT_EQ(lib, real_path(FREEDNN_TEST_LIBRARY_FILE));
#endif
  // Every entry point resolves to the same object.
  EXPECT_EQ(library_of(reinterpret_cast<const void *>(&cudnnCreate)), lib);
  EXPECT_EQ(library_of(reinterpret_cast<const void *>(&cudnnGetErrorString)), lib);
  EXPECT_EQ(library_of(reinterpret_cast<const void *>(&cudnnBackendCreateDescriptor)), lib);
}

TEST(LibraryIdentity, NoNvidiaCudnnIsLoaded) {
  std::string ours = library_of(reinterpret_cast<const void *>(&cudnnGetVersion));
  for (const std::string &obj : loaded_objects()) {
    bool is_cudnn = obj.find("libcudnn") != std::string::npos;
    if (is_cudnn) EXPECT_EQ(obj, ours) << "a second cuDNN is mapped";
  }
}

TEST(LibraryIdentity, BehavesAsFreeDNN) {
  // NVIDIA's 9.x library reports 9xxyy with xx > 0 (e.g. 91900); FreeDNN's
  // headers and library say 9.0.0.
  EXPECT_EQ(cudnnGetVersion(), 90000u);
  EXPECT_EQ(cudnnGetVersion(), static_cast<size_t>(CUDNN_VERSION));
  // NVIDIA's message for this call is the failed C assertion
  // ("value == __null"); FreeDNN's names the function and the argument.
  ASSERT_EQ(cudnnGetProperty(MAJOR_VERSION, nullptr), CUDNN_STATUS_BAD_PARAM);
  char msg[256];
  cudnnGetLastErrorString(msg, sizeof msg);
  EXPECT_STREQ(msg, "cudnnGetProperty: value is NULL");
  // Where there is no GPU, NVIDIA's cudnnCreate fails (NOT_INITIALIZED);
  // FreeDNN binds the handle to the CPU.
  cudnnHandle_t h = nullptr;
  ASSERT_EQ(cudnnCreate(&h), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnDestroy(h), CUDNN_STATUS_SUCCESS);
}

}  // namespace
