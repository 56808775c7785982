// Opening a CUDA toolkit library (cuBLAS, cuBLASLt) at run time, so that
// libcudnn.so.9 itself links none of them and loads on machines without a
// GPU or toolkit.
#pragma once

#include <string>

namespace fdnn::cuda {

// dlopen of `stem` ("libcublas", "libcublasLt"): the loader's path first
// (.so.13, .so.12, .so), then $CUDA_HOME/lib64 and the toolkit's usual
// homes under /usr/local/cuda. nullptr when none opens, with `why` naming
// `what` and every name tried.
void *open_toolkit_library(const std::string &stem, const char *what, std::string *why);

}  // namespace fdnn::cuda
