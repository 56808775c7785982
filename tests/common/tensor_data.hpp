// Host-side tensors for tests and the bench: a memory image described the
// way cuDNN descriptors describe it (data type, logical dims, strides), with
// element access as double, random fills, poisoning, and the encodings of
// every data type written independently of the library (the conversion
// oracles are table searches over all codes of a type, not bit tricks).
#pragma once

#include <cudnn.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "common/buffer.hpp"
#include "common/random.hpp"

namespace fdnn_test {

// ---- Data type facts --------------------------------------------------------

int vector_lanes(cudnnDataType_t t);            // 4 for INT8x4 / UINT8x4, 32 for INT8x32, else 1
cudnnDataType_t lane_type(cudnnDataType_t t);  // INT8x4 -> INT8, UINT8x4 -> UINT8, else t
size_t lane_bytes(cudnnDataType_t t);           // bytes of one scalar lane
bool is_integer_type(cudnnDataType_t t);
const char *type_name(cudnnDataType_t t);       // "f32", "s8x4", ...
// Relative rounding error of one rounding to the type (2^-24 for FLOAT);
// 0.5 for integer types (absolute).
double unit_roundoff(cudnnDataType_t t);

// ---- Encodings (round to nearest even, saturation as cuDNN does) -----------

// The value of one lane at p.
double decode_lane(cudnnDataType_t t, const void *p);
// Stores v into one lane at p: floats round to nearest even (half and
// bfloat16 overflow to inf, FP8 saturates to its largest finite value, NaN
// stays NaN); integers round to nearest even and saturate, NaN becomes 0.
void encode_lane(cudnnDataType_t t, double v, void *p);
// What v becomes when stored in type t and read back.
double round_to_type(cudnnDataType_t t, double v);

// ---- Host tensors -----------------------------------------------------------

enum class Layout { nchw, nhwc, vect_c };

struct HostTensor {
  cudnnDataType_t dtype = CUDNN_DATA_FLOAT;  // may be a vector type
  std::vector<int64_t> dims;                 // logical; C counts channels even for vector types
  // As cuDNN reports them: in elements of dtype; for vector types the C
  // stride steps over a whole vector of vector_lanes(dtype) channels.
  std::vector<int64_t> strides;
  std::vector<uint8_t> bytes;                // the memory image (span of the strides)

  int rank() const { return static_cast<int>(dims.size()); }
  int64_t elements() const;                  // logical lanes
  // Position of a logical element in the image, in lanes.
  int64_t lane_offset(const std::vector<int64_t> &index) const;
  double get(const std::vector<int64_t> &index) const;
  void set(const std::vector<int64_t> &index, double v);
  // All elements in logical row-major order.
  std::vector<double> values() const;
  void set_values(const std::vector<double> &v);
};

// Allocates a zeroed image large enough for dims and strides.
HostTensor make_tensor(cudnnDataType_t t, const std::vector<int64_t> &dims, const std::vector<int64_t> &strides);
// Packed strides of a layout, cuDNN style. For vect_c, dims[1] counts
// channels and the strides count vectors of `lanes` channels.
std::vector<int64_t> packed_strides(const std::vector<int64_t> &dims, Layout layout, int lanes = 1);
// Strides of a random dimension order with random gaps between dimensions
// (padding), so no operation can assume packed NCHW.
std::vector<int64_t> random_strides(Rng &rng, const std::vector<int64_t> &dims, double gap_probability = 0.4);

// Random values in [lo, hi) that the type represents exactly (integers for
// integer types). Gaps of the image are left as they are.
void fill_random(HostTensor &t, Rng &rng, double lo, double hi);
// Sets every byte of the image (gaps included) to `byte`: 0xff is NaN in
// every floating type, so any element an operation fails to write is caught.
void poison(HostTensor &t, uint8_t byte = 0xff);

// Calls f(index) for every multi-index of dims in row-major order.
void for_each_index(const std::vector<int64_t> &dims, const std::function<void(const std::vector<int64_t> &)> &f);

// ---- Expected results and comparison ---------------------------------------

// An expected output element: the exact (float64) value before rounding to
// the output type, and the error the computation may make on the way
// (absolute), e.g. a few float roundings of the magnitudes involved.
struct Expect {
  double value = 0;
  double tolerance = 0;
};

// Every element of got must lie in [round(value - tol), round(value + tol)]
// (rounding to got's type; monotone, so this covers saturation, overflow to
// inf and integer rounding). NaN expects NaN (0 for integer types).
::testing::AssertionResult matches(const HostTensor &got, const std::vector<Expect> &want);
// Bytes of `got` that no element addresses (padding between dimensions)
// must equal those of `before`.
::testing::AssertionResult gaps_untouched(const HostTensor &got, const HostTensor &before);

// ---- Public API glue ---------------------------------------------------------

// RAII cudnnTensorDescriptor_t for a host tensor: Nd with its strides, or
// NCHW_VECT_C (packed) for vector types.
class TensorDesc {
 public:
  explicit TensorDesc(const HostTensor &t);
  TensorDesc(cudnnDataType_t dtype, const std::vector<int64_t> &dims, const std::vector<int64_t> &strides);
  ~TensorDesc();
  TensorDesc(const TensorDesc &) = delete;
  TensorDesc &operator=(const TensorDesc &) = delete;
  cudnnTensorDescriptor_t get() const { return d_; }
  operator cudnnTensorDescriptor_t() const { return d_; }
  cudnnStatus_t status() const { return status_; }  // of the Set call

 private:
  cudnnTensorDescriptor_t d_ = nullptr;
  cudnnStatus_t status_ = CUDNN_STATUS_SUCCESS;
};

Buffer upload(const HostTensor &t);
void download(const Buffer &b, HostTensor &t);

// Alpha/beta as the API takes them: double for DOUBLE tensors, else float.
struct Scaling {
  explicit Scaling(double v = 0) : d(v), f(static_cast<float>(v)) {}
  double d;
  float f;
  const void *for_type(cudnnDataType_t t) const { return t == CUDNN_DATA_DOUBLE ? static_cast<const void *>(&d) : &f; }
  double value(cudnnDataType_t t) const { return t == CUDNN_DATA_DOUBLE ? d : static_cast<double>(f); }
};

// Sets an environment variable for the lifetime of the object.
class ScopedEnv {
 public:
  ScopedEnv(const char *name, const char *value);
  ~ScopedEnv();

 private:
  std::string name_;
  bool had_ = false;
  std::string old_;
};

}  // namespace fdnn_test
