#include "common/tensor_data.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <sstream>

namespace fdnn_test {

namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

// ---- Small float formats: decode by formula, encode by searching all codes.

struct Format {
  int exp_bits, man_bits;
  bool has_inf;   // all-ones exponent is inf/NaN (IEEE style); else only S.1111.111 is NaN (E4M3 FN)
  bool saturate;  // overflow and inf go to the largest finite value
};

const Format kHalf{5, 10, true, false};
const Format kBf16{8, 7, true, false};
const Format kE4m3{4, 3, false, true};
const Format kE5m2{5, 2, true, true};

double decode_format(const Format &f, uint32_t code) {
  const uint32_t sign_bit = 1u << (f.exp_bits + f.man_bits);
  const bool negative = (code & sign_bit) != 0;
  const uint32_t mag = code & (sign_bit - 1);
  const uint32_t e = mag >> f.man_bits, m = mag & ((1u << f.man_bits) - 1);
  const int bias = (1 << (f.exp_bits - 1)) - 1;
  const uint32_t e_max = (1u << f.exp_bits) - 1;
  double v;
  if (f.has_inf && e == e_max) v = m ? kNaN : kInf;
  else if (!f.has_inf && mag == sign_bit - 1) v = kNaN;
  else if (e == 0) v = std::ldexp(static_cast<double>(m), 1 - bias - f.man_bits);
  else v = std::ldexp(static_cast<double>(m + (1u << f.man_bits)), static_cast<int>(e) - bias - f.man_bits);
  return negative ? -v : v;
}

// Finite non-negative values of a format with their codes, ascending.
struct CodeTable {
  std::vector<double> value;
  std::vector<uint32_t> code;
  uint32_t nan_code = 0, inf_code = 0, sign_bit = 0;
  double max_finite = 0;
};

CodeTable build_table(const Format &f) {
  CodeTable t;
  t.sign_bit = 1u << (f.exp_bits + f.man_bits);
  for (uint32_t c = 0; c < t.sign_bit; ++c) {
    double v = decode_format(f, c);
    if (std::isnan(v)) {
      if (t.nan_code == 0) t.nan_code = c;
      continue;
    }
    if (std::isinf(v)) {
      t.inf_code = c;
      continue;
    }
    t.value.push_back(v);
    t.code.push_back(c);
  }
  t.max_finite = t.value.back();
  return t;
}

const CodeTable &table_of(const Format &f) {
  static const CodeTable half = build_table(kHalf), bf16 = build_table(kBf16), e4m3 = build_table(kE4m3),
                         e5m2 = build_table(kE5m2);
  if (&f == &kHalf) return half;
  if (&f == &kBf16) return bf16;
  if (&f == &kE4m3) return e4m3;
  return e5m2;
}

uint32_t encode_format(const Format &f, double x) {
  const CodeTable &t = table_of(f);
  if (std::isnan(x)) return t.nan_code;
  const uint32_t sign = std::signbit(x) ? t.sign_bit : 0;
  const double a = std::fabs(x);
  if (f.saturate && a >= t.max_finite) return sign | t.code.back();
  // For formats that overflow to inf, infinity sits one ulp above the
  // largest finite value as far as rounding is concerned.
  const size_t n = t.value.size();
  const double ulp_top = t.value[n - 1] - t.value[n - 2];
  if (!f.saturate && a >= t.max_finite + ulp_top) return sign | t.inf_code;
  if (!f.saturate && a > t.max_finite) {
    const double mid = t.max_finite + ulp_top / 2;
    if (a > mid) return sign | t.inf_code;
    if (a < mid) return sign | t.code.back();
    return sign | ((t.code.back() & 1u) == 0 ? t.code.back() : t.inf_code);  // tie: even code
  }
  size_t hi = static_cast<size_t>(std::lower_bound(t.value.begin(), t.value.end(), a) - t.value.begin());
  if (t.value[hi] == a) return sign | t.code[hi];
  const size_t lo = hi - 1;
  const double dlo = a - t.value[lo], dhi = t.value[hi] - a;
  if (dlo < dhi) return sign | t.code[lo];
  if (dhi < dlo) return sign | t.code[hi];
  return sign | ((t.code[lo] & 1u) == 0 ? t.code[lo] : t.code[hi]);
}

template <class I>
I to_integer(double v) {
  if (std::isnan(v)) return 0;
  const double lo = static_cast<double>(std::numeric_limits<I>::lowest());
  const double hi = static_cast<double>(std::numeric_limits<I>::max());
  if (v <= lo) return std::numeric_limits<I>::lowest();
  if (v >= hi) return std::numeric_limits<I>::max();
  return static_cast<I>(std::nearbyint(v));
}

template <class T>
T load(const void *p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
template <class T>
void store(void *p, T v) {
  std::memcpy(p, &v, sizeof v);
}

}  // namespace

// ---- Data type facts ----------------------------------------------------------

int vector_lanes(cudnnDataType_t t) {
  switch (t) {
    case CUDNN_DATA_INT8x4:
    case CUDNN_DATA_UINT8x4: return 4;
    case CUDNN_DATA_INT8x32: return 32;
    default: return 1;
  }
}

cudnnDataType_t lane_type(cudnnDataType_t t) {
  switch (t) {
    case CUDNN_DATA_INT8x4:
    case CUDNN_DATA_INT8x32: return CUDNN_DATA_INT8;
    case CUDNN_DATA_UINT8x4: return CUDNN_DATA_UINT8;
    default: return t;
  }
}

size_t lane_bytes(cudnnDataType_t t) {
  switch (lane_type(t)) {
    case CUDNN_DATA_DOUBLE:
    case CUDNN_DATA_INT64: return 8;
    case CUDNN_DATA_FLOAT:
    case CUDNN_DATA_INT32:
    case CUDNN_DATA_UINT32: return 4;
    case CUDNN_DATA_HALF:
    case CUDNN_DATA_BFLOAT16: return 2;
    default: return 1;
  }
}

bool is_integer_type(cudnnDataType_t t) {
  switch (lane_type(t)) {
    case CUDNN_DATA_INT8:
    case CUDNN_DATA_UINT8:
    case CUDNN_DATA_INT32:
    case CUDNN_DATA_UINT32:
    case CUDNN_DATA_INT64: return true;
    default: return false;
  }
}

const char *type_name(cudnnDataType_t t) {
  switch (t) {
    case CUDNN_DATA_FLOAT: return "f32";
    case CUDNN_DATA_DOUBLE: return "f64";
    case CUDNN_DATA_HALF: return "f16";
    case CUDNN_DATA_BFLOAT16: return "bf16";
    case CUDNN_DATA_INT8: return "s8";
    case CUDNN_DATA_UINT8: return "u8";
    case CUDNN_DATA_INT32: return "s32";
    case CUDNN_DATA_UINT32: return "u32";
    case CUDNN_DATA_INT64: return "s64";
    case CUDNN_DATA_INT8x4: return "s8x4";
    case CUDNN_DATA_UINT8x4: return "u8x4";
    case CUDNN_DATA_INT8x32: return "s8x32";
    case CUDNN_DATA_FP8_E4M3: return "e4m3";
    case CUDNN_DATA_FP8_E5M2: return "e5m2";
    default: return "?";
  }
}

double unit_roundoff(cudnnDataType_t t) {
  switch (lane_type(t)) {
    case CUDNN_DATA_DOUBLE: return std::ldexp(1.0, -53);
    case CUDNN_DATA_FLOAT: return std::ldexp(1.0, -24);
    case CUDNN_DATA_HALF: return std::ldexp(1.0, -11);
    case CUDNN_DATA_BFLOAT16: return std::ldexp(1.0, -8);
    case CUDNN_DATA_FP8_E4M3: return std::ldexp(1.0, -4);
    case CUDNN_DATA_FP8_E5M2: return std::ldexp(1.0, -3);
    default: return 0.5;
  }
}

// ---- Encodings -------------------------------------------------------------------

double decode_lane(cudnnDataType_t t, const void *p) {
  switch (lane_type(t)) {
    case CUDNN_DATA_FLOAT: return load<float>(p);
    case CUDNN_DATA_DOUBLE: return load<double>(p);
    case CUDNN_DATA_HALF: return decode_format(kHalf, load<uint16_t>(p));
    case CUDNN_DATA_BFLOAT16: return decode_format(kBf16, load<uint16_t>(p));
    case CUDNN_DATA_FP8_E4M3: return decode_format(kE4m3, load<uint8_t>(p));
    case CUDNN_DATA_FP8_E5M2: return decode_format(kE5m2, load<uint8_t>(p));
    case CUDNN_DATA_INT8: return load<int8_t>(p);
    case CUDNN_DATA_UINT8: return load<uint8_t>(p);
    case CUDNN_DATA_INT32: return load<int32_t>(p);
    case CUDNN_DATA_UINT32: return load<uint32_t>(p);
    case CUDNN_DATA_INT64: return static_cast<double>(load<int64_t>(p));
    default: ADD_FAILURE() << "decode_lane: unsupported type " << static_cast<int>(t); return kNaN;
  }
}

void encode_lane(cudnnDataType_t t, double v, void *p) {
  switch (lane_type(t)) {
    case CUDNN_DATA_FLOAT: store<float>(p, static_cast<float>(v)); return;  // the C++ conversion rounds to nearest
    case CUDNN_DATA_DOUBLE: store<double>(p, v); return;
    case CUDNN_DATA_HALF: store<uint16_t>(p, static_cast<uint16_t>(encode_format(kHalf, v))); return;
    case CUDNN_DATA_BFLOAT16: store<uint16_t>(p, static_cast<uint16_t>(encode_format(kBf16, v))); return;
    case CUDNN_DATA_FP8_E4M3: store<uint8_t>(p, static_cast<uint8_t>(encode_format(kE4m3, v))); return;
    case CUDNN_DATA_FP8_E5M2: store<uint8_t>(p, static_cast<uint8_t>(encode_format(kE5m2, v))); return;
    case CUDNN_DATA_INT8: store<int8_t>(p, to_integer<int8_t>(v)); return;
    case CUDNN_DATA_UINT8: store<uint8_t>(p, to_integer<uint8_t>(v)); return;
    case CUDNN_DATA_INT32: store<int32_t>(p, to_integer<int32_t>(v)); return;
    case CUDNN_DATA_UINT32: store<uint32_t>(p, to_integer<uint32_t>(v)); return;
    case CUDNN_DATA_INT64: store<int64_t>(p, to_integer<int64_t>(v)); return;
    default: ADD_FAILURE() << "encode_lane: unsupported type " << static_cast<int>(t);
  }
}

double round_to_type(cudnnDataType_t t, double v) {
  unsigned char buf[8] = {};
  encode_lane(t, v, buf);
  return decode_lane(t, buf);
}

// ---- Host tensors ------------------------------------------------------------------

int64_t HostTensor::elements() const {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

int64_t HostTensor::lane_offset(const std::vector<int64_t> &index) const {
  const int64_t v = vector_lanes(dtype);
  int64_t off = 0;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i == 1 && v > 1) off += index[i] / v * strides[i] * v + index[i] % v;
    else off += index[i] * strides[i] * v;
  }
  return off;
}

double HostTensor::get(const std::vector<int64_t> &index) const {
  return decode_lane(dtype, bytes.data() + lane_offset(index) * static_cast<int64_t>(lane_bytes(dtype)));
}

void HostTensor::set(const std::vector<int64_t> &index, double v) {
  encode_lane(dtype, v, bytes.data() + lane_offset(index) * static_cast<int64_t>(lane_bytes(dtype)));
}

std::vector<double> HostTensor::values() const {
  std::vector<double> out;
  out.reserve(static_cast<size_t>(elements()));
  for_each_index(dims, [&](const std::vector<int64_t> &i) { out.push_back(get(i)); });
  return out;
}

void HostTensor::set_values(const std::vector<double> &v) {
  size_t k = 0;
  for_each_index(dims, [&](const std::vector<int64_t> &i) { set(i, v[k++]); });
}

void for_each_index(const std::vector<int64_t> &dims, const std::function<void(const std::vector<int64_t> &)> &f) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  std::vector<int64_t> idx(dims.size(), 0);
  for (int64_t k = 0; k < n; ++k) {
    f(idx);
    for (size_t i = dims.size(); i-- > 0;) {
      if (++idx[i] < dims[i]) break;
      idx[i] = 0;
    }
  }
}

HostTensor make_tensor(cudnnDataType_t t, const std::vector<int64_t> &dims, const std::vector<int64_t> &strides) {
  HostTensor h;
  h.dtype = t;
  h.dims = dims;
  h.strides = strides;
  std::vector<int64_t> last(dims.size());
  for (size_t i = 0; i < dims.size(); ++i) last[i] = dims[i] - 1;
  const int64_t lanes = h.lane_offset(last) + 1;
  h.bytes.assign(static_cast<size_t>(lanes) * lane_bytes(t), 0);
  return h;
}

std::vector<int64_t> packed_strides(const std::vector<int64_t> &dims, Layout layout, int lanes) {
  const size_t nb = dims.size();
  std::vector<int64_t> s(nb, 1);
  std::vector<int64_t> d = dims;
  if (layout == Layout::vect_c) d[1] = (d[1] + lanes - 1) / lanes;
  if (layout == Layout::nhwc && nb >= 3) {
    int64_t acc = d[1];
    s[1] = 1;
    for (size_t i = nb - 1; i >= 2; --i) {
      s[i] = acc;
      acc *= d[i];
    }
    s[0] = acc;
    return s;
  }
  for (size_t i = nb - 1; i-- > 0;) s[i] = s[i + 1] * d[i + 1];
  return s;
}

std::vector<int64_t> random_strides(Rng &rng, const std::vector<int64_t> &dims, double gap_probability) {
  std::vector<int> order;
  for (int i = 0; i < static_cast<int>(dims.size()); ++i) order.push_back(i);
  rng.shuffle(order);  // order[0] is innermost
  std::vector<int64_t> s(dims.size(), 1);
  int64_t next = 1;
  for (int i : order) {
    s[static_cast<size_t>(i)] = next;
    next *= dims[static_cast<size_t>(i)];
    if (rng.coin(gap_probability)) next += rng.integer(1, 3);
  }
  return s;
}

void fill_random(HostTensor &t, Rng &rng, double lo, double hi) {
  const bool integer = is_integer_type(t.dtype);
  for_each_index(t.dims, [&](const std::vector<int64_t> &i) {
    double v = integer ? static_cast<double>(rng.integer(static_cast<int64_t>(std::ceil(lo)),
                                                          static_cast<int64_t>(std::floor(hi))))
                       : rng.uniform(lo, hi);
    t.set(i, v);
  });
}

void poison(HostTensor &t, uint8_t byte) { std::fill(t.bytes.begin(), t.bytes.end(), byte); }

// ---- Comparison ------------------------------------------------------------------

::testing::AssertionResult matches(const HostTensor &got, const std::vector<Expect> &want) {
  if (static_cast<int64_t>(want.size()) != got.elements())
    return ::testing::AssertionFailure() << "expected " << want.size() << " values, tensor has " << got.elements();
  std::ostringstream bad;
  int failures = 0;
  size_t k = 0;
  const bool integer = is_integer_type(got.dtype);
  for_each_index(got.dims, [&](const std::vector<int64_t> &idx) {
    const Expect &e = want[k++];
    const double g = got.get(idx);
    bool ok;
    double lo = e.value, hi = e.value;
    if (std::isnan(e.value)) {
      ok = integer ? g == 0 : std::isnan(g);
    } else {
      lo = round_to_type(got.dtype, e.value - e.tolerance);
      hi = round_to_type(got.dtype, e.value + e.tolerance);
      ok = g >= lo && g <= hi;
    }
    if (!ok && failures++ < 10) {
      bad << "\n  [";
      for (size_t i = 0; i < idx.size(); ++i) bad << (i ? "," : "") << idx[i];
      bad << "] got " << g << ", want " << e.value << " (accepting [" << lo << ", " << hi << "])";
    }
  });
  if (failures == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << failures << " of " << want.size() << " " << type_name(got.dtype)
                                       << " elements differ" << bad.str();
}

::testing::AssertionResult gaps_untouched(const HostTensor &got, const HostTensor &before) {
  std::vector<bool> used(got.bytes.size(), false);
  const int64_t lb = static_cast<int64_t>(lane_bytes(got.dtype));
  for_each_index(got.dims, [&](const std::vector<int64_t> &idx) {
    const int64_t off = got.lane_offset(idx) * lb;
    for (int64_t b = 0; b < lb; ++b) used[static_cast<size_t>(off + b)] = true;
  });
  for (size_t i = 0; i < used.size(); ++i)
    if (!used[i] && got.bytes[i] != before.bytes[i])
      return ::testing::AssertionFailure() << "byte " << i << " (a gap between elements) changed from "
                                           << int(before.bytes[i]) << " to " << int(got.bytes[i]);
  return ::testing::AssertionSuccess();
}

// ---- Public API glue ------------------------------------------------------------------

TensorDesc::TensorDesc(const HostTensor &t) : TensorDesc(t.dtype, t.dims, t.strides) {}

TensorDesc::TensorDesc(cudnnDataType_t dtype, const std::vector<int64_t> &dims, const std::vector<int64_t> &strides) {
  cudnnCreateTensorDescriptor(&d_);
  std::vector<int> di(dims.begin(), dims.end()), si(strides.begin(), strides.end());
  if (vector_lanes(dtype) > 1) {
    if (strides != packed_strides(dims, Layout::vect_c, vector_lanes(dtype)))
      ADD_FAILURE() << "vector-type test tensors must be packed NCHW_VECT_C";
    status_ = cudnnSetTensorNdDescriptorEx(d_, CUDNN_TENSOR_NCHW_VECT_C, dtype, static_cast<int>(di.size()), di.data());
  } else {
    status_ = cudnnSetTensorNdDescriptor(d_, dtype, static_cast<int>(di.size()), di.data(), si.data());
  }
}

TensorDesc::~TensorDesc() { cudnnDestroyTensorDescriptor(d_); }

Buffer upload(const HostTensor &t) { return Buffer(t.bytes); }

void download(const Buffer &b, HostTensor &t) { b.download(t.bytes.data(), t.bytes.size()); }

ScopedEnv::ScopedEnv(const char *name, const char *value) : name_(name) {
  if (const char *old = std::getenv(name)) {
    had_ = true;
    old_ = old;
  }
  if (value) setenv(name, value, 1);
  else unsetenv(name);
}

ScopedEnv::~ScopedEnv() {
  if (had_) setenv(name_.c_str(), old_.c_str(), 1);
  else unsetenv(name_.c_str());
}

}  // namespace fdnn_test
