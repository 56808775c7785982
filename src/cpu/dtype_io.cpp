#include "cpu/dtype_io.hpp"

#include "core/dtype.hpp"
#include "core/error.hpp"

namespace fdnn::cpu {

namespace {

template <class S>
S read_raw(const void *base, int64_t index) {
  S v;
  std::memcpy(&v, static_cast<const char *>(base) + index * static_cast<int64_t>(sizeof(S)), sizeof(S));
  return v;
}
template <class S>
void write_raw(void *base, int64_t index, S v) {
  std::memcpy(static_cast<char *>(base) + index * static_cast<int64_t>(sizeof(S)), &v, sizeof(S));
}

// Sub-byte lanes are packed from the least significant bits of each byte up.
uint8_t read_bits(const void *base, int64_t index, int bits) {
  const int64_t bit = index * bits;
  const uint8_t byte = static_cast<const uint8_t *>(base)[bit / 8];
  return static_cast<uint8_t>((byte >> (bit % 8)) & ((1u << bits) - 1u));
}
void write_bits(void *base, int64_t index, int bits, uint8_t value) {
  const int64_t bit = index * bits;
  uint8_t &byte = static_cast<uint8_t *>(base)[bit / 8];
  const uint8_t mask = static_cast<uint8_t>(((1u << bits) - 1u) << (bit % 8));
  byte = static_cast<uint8_t>((byte & ~mask) | ((value << (bit % 8)) & mask));
}

[[noreturn]] void unsupported(cudnnDataType_t t) {
  fail(CUDNN_STATUS_NOT_SUPPORTED, "data type ", type_info(t).enum_name, " (", static_cast<int>(t),
       ") cannot be read or written element-wise on the CPU");
}

}  // namespace

double load_lane(cudnnDataType_t t, const void *base, int64_t index) {
  switch (t) {
    case CUDNN_DATA_FLOAT:
    case CUDNN_DATA_FAST_FLOAT_FOR_FP8: return read_raw<float>(base, index);
    case CUDNN_DATA_DOUBLE: return read_raw<double>(base, index);
    case CUDNN_DATA_HALF: return num::half_to_float(read_raw<uint16_t>(base, index));
    case CUDNN_DATA_BFLOAT16: return num::bf16_to_float(read_raw<uint16_t>(base, index));
    case CUDNN_DATA_FP8_E4M3: return num::e4m3_to_double(read_raw<uint8_t>(base, index));
    case CUDNN_DATA_FP8_E5M2: return num::e5m2_to_double(read_raw<uint8_t>(base, index));
    case CUDNN_DATA_FP8_E8M0: return num::e8m0_to_double(read_raw<uint8_t>(base, index));
    case CUDNN_DATA_INT8:
    case CUDNN_DATA_INT8x4:
    case CUDNN_DATA_INT8x32: return read_raw<int8_t>(base, index);
    case CUDNN_DATA_UINT8:
    case CUDNN_DATA_UINT8x4: return read_raw<uint8_t>(base, index);
    case CUDNN_DATA_INT32: return read_raw<int32_t>(base, index);
    case CUDNN_DATA_UINT32: return read_raw<uint32_t>(base, index);
    case CUDNN_DATA_INT64: return static_cast<double>(read_raw<int64_t>(base, index));
    case CUDNN_DATA_BOOLEAN: return read_bits(base, index, 1);
    case CUDNN_DATA_INT4: {
      uint8_t v = read_bits(base, index, 4);
      return (v & 0x8u) ? static_cast<int>(v) - 16 : static_cast<int>(v);
    }
    case CUDNN_DATA_UINT4: return read_bits(base, index, 4);
    case CUDNN_DATA_FP4_E2M1: return num::e2m1_to_double(read_bits(base, index, 4));
    default: unsupported(t);
  }
}

void store_lane(cudnnDataType_t t, void *base, int64_t index, double v) {
  switch (t) {
    case CUDNN_DATA_FLOAT:
    case CUDNN_DATA_FAST_FLOAT_FOR_FP8: write_raw<float>(base, index, static_cast<float>(v)); return;
    case CUDNN_DATA_DOUBLE: write_raw<double>(base, index, v); return;
    case CUDNN_DATA_HALF: write_raw<uint16_t>(base, index, num::double_to_half(v)); return;
    case CUDNN_DATA_BFLOAT16: write_raw<uint16_t>(base, index, num::double_to_bf16(v)); return;
    case CUDNN_DATA_FP8_E4M3: write_raw<uint8_t>(base, index, num::double_to_e4m3(v)); return;
    case CUDNN_DATA_FP8_E5M2: write_raw<uint8_t>(base, index, num::double_to_e5m2(v)); return;
    case CUDNN_DATA_FP8_E8M0: write_raw<uint8_t>(base, index, num::double_to_e8m0(v)); return;
    case CUDNN_DATA_INT8:
    case CUDNN_DATA_INT8x4:
    case CUDNN_DATA_INT8x32: write_raw<int8_t>(base, index, num::saturate_round<int8_t>(v)); return;
    case CUDNN_DATA_UINT8:
    case CUDNN_DATA_UINT8x4: write_raw<uint8_t>(base, index, num::saturate_round<uint8_t>(v)); return;
    case CUDNN_DATA_INT32: write_raw<int32_t>(base, index, num::saturate_round<int32_t>(v)); return;
    case CUDNN_DATA_UINT32: write_raw<uint32_t>(base, index, num::saturate_round<uint32_t>(v)); return;
    case CUDNN_DATA_INT64: write_raw<int64_t>(base, index, num::saturate_round<int64_t>(v)); return;
    case CUDNN_DATA_BOOLEAN: write_bits(base, index, 1, v != 0.0 ? 1 : 0); return;
    case CUDNN_DATA_INT4: {
      int r = v != v ? 0 : (v <= -8.0 ? -8 : (v >= 7.0 ? 7 : static_cast<int>(std::rint(v))));
      write_bits(base, index, 4, static_cast<uint8_t>(r & 0xf));
      return;
    }
    case CUDNN_DATA_UINT4: {
      int r = v != v ? 0 : (v <= 0.0 ? 0 : (v >= 15.0 ? 15 : static_cast<int>(std::rint(v))));
      write_bits(base, index, 4, static_cast<uint8_t>(r));
      return;
    }
    case CUDNN_DATA_FP4_E2M1: write_bits(base, index, 4, num::double_to_e2m1(v)); return;
    default: unsupported(t);
  }
}

double round_to_type(cudnnDataType_t t, double value) {
  unsigned char buf[8] = {};
  store_lane(t, buf, 0, value);
  return load_lane(t, buf, 0);
}

}  // namespace fdnn::cpu
