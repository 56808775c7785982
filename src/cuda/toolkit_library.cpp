#include "cuda/toolkit_library.hpp"

#include <dlfcn.h>

#include <cstdlib>

namespace fdnn::cuda {

void *open_toolkit_library(const std::string &stem, const char *what, std::string *why) {
  std::string names[] = {stem + ".so.13", stem + ".so.12", stem + ".so", "", "/usr/local/cuda/lib64/" + stem + ".so",
                         "/usr/local/cuda/targets/x86_64-linux/lib/" + stem + ".so"};
  if (const char *home = std::getenv("CUDA_HOME")) names[3] = std::string(home) + "/lib64/" + stem + ".so";
  std::string tried;
  for (const std::string &n : names) {
    if (n.empty()) continue;
    if (void *lib = dlopen(n.c_str(), RTLD_NOW | RTLD_LOCAL)) return lib;
    tried += (tried.empty() ? "" : ", ") + n;
  }
  *why = std::string(what) + " could not be opened (tried " + tried + ")";
  return nullptr;
}

}  // namespace fdnn::cuda
