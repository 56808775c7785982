#include "dtype.hpp"

#include <stdexcept>

namespace bench {
namespace {

struct Entry {
  const char *name;
  cudnnDataType_t type;
  size_t size;
};

const Entry kTypes[] = {
    {"f32", CUDNN_DATA_FLOAT, 4}, {"f16", CUDNN_DATA_HALF, 2},  {"bf16", CUDNN_DATA_BFLOAT16, 2},
    {"f64", CUDNN_DATA_DOUBLE, 8}, {"s8", CUDNN_DATA_INT8, 1},  {"u8", CUDNN_DATA_UINT8, 1},
    {"s32", CUDNN_DATA_INT32, 4}, {"s64", CUDNN_DATA_INT64, 8},
};

const Entry &find(const std::string &name) {
  for (const Entry &e : kTypes)
    if (name == e.name) return e;
  throw std::invalid_argument("unknown data type '" + name + "' (expected one of " + dtype_names() + ")");
}

}  // namespace

cudnnDataType_t to_cudnn_dtype(const std::string &name) { return find(name).type; }
size_t dtype_size(const std::string &name) { return find(name).size; }

bool is_known_dtype(const std::string &name) {
  for (const Entry &e : kTypes)
    if (name == e.name) return true;
  return false;
}

const char *dtype_names() { return "f32, f16, bf16, f64, s8, u8, s32, s64"; }

}  // namespace bench
