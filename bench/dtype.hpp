// Bench data-type names (benchdnn's: f32, f16, bf16, f64, s8, u8, s32, s64)
// and their cuDNN enumerators.
#pragma once

#include <cudnn.h>

#include <cstddef>
#include <string>

namespace bench {

// Throws std::invalid_argument for an unknown name.
cudnnDataType_t to_cudnn_dtype(const std::string &name);
bool is_known_dtype(const std::string &name);
size_t dtype_size(const std::string &name);
// The list accepted, for --help.
const char *dtype_names();

}  // namespace bench
