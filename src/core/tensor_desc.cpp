#include "core/tensor_desc.hpp"

#include <climits>

#include "core/descriptor_lifetime.hpp"
#include "core/dtype.hpp"
#include "core/error.hpp"

// The setters below reproduce cuDNN 9's observable behaviour, found by probing
// NVIDIA's library (tests/oracle/descriptors.c compares the two): the order of
// the checks, the status of each failure, and which fields a failing call has
// already written. cuDNN checks some arguments before touching the descriptor
// and others while it copies the dimensions, so a late failure leaves the
// earlier dimensions updated; Get calls show that state, and so do ours.

namespace fdnn {
namespace {

// cuDNN computes packed strides with 32-bit int arithmetic; keep its wrap
// around (defined here through unsigned arithmetic) so that the overflow
// checks that follow see the same values.
int mul_wrap(int a, int b) {
  return static_cast<int>(static_cast<uint32_t>(a) * static_cast<uint32_t>(b));
}

// |s| as a 32-bit int, where |INT_MIN| stays INT_MIN as in cuDNN.
int abs_wrap(int s) { return s < 0 ? static_cast<int>(0u - static_cast<uint32_t>(s)) : s; }

bool is_vector_dtype(cudnnDataType_t t) {
  return t == CUDNN_DATA_INT8x4 || t == CUDNN_DATA_UINT8x4 || t == CUDNN_DATA_INT8x32;
}

// Lanes cuDNN packs into one C vector of an NCHW_VECT_C layout.
int vect_c_lanes(cudnnDataType_t t) { return t == CUDNN_DATA_INT8x32 ? 32 : 4; }

bool is_known_format(cudnnTensorFormat_t f) {
  return f == CUDNN_TENSOR_NCHW || f == CUDNN_TENSOR_NHWC || f == CUDNN_TENSOR_NCHW_VECT_C;
}

std::string dtype_text(cudnnDataType_t t) {
  const auto &ti = type_info(t);
  if (!ti.known) return cat(static_cast<int>(t), " (not a cudnnDataType_t value)");
  return cat(ti.enum_name, " (", static_cast<int>(t), ")");
}

// Recomputes what Get reports (dims, vect_count, vect_dim) from cuDNN's
// internal representation. Runs after every setter, also when it fails, since
// a failing setter may have changed part of the descriptor.
void refresh_views(cudnnTensorStruct &d) {
  const bool vect_c = d.format == CUDNN_TENSOR_NCHW_VECT_C;
  const int lanes = vect_c ? vect_c_lanes(d.dtype) : (is_vector_dtype(d.dtype) ? type_info(d.dtype).vector_count : 1);
  d.vect_count = lanes;
  d.vect_dim = vect_c ? 1 : -1;
  d.dims = d.stored_dims;
  if (vect_c) d.dims[1] = mul_wrap(d.stored_dims[1], lanes);
}

void refresh_views(cudnnFilterStruct &d) {
  const bool vect_c = d.format == CUDNN_TENSOR_NCHW_VECT_C;
  const int lanes = vect_c ? vect_c_lanes(d.dtype) : (is_vector_dtype(d.dtype) ? type_info(d.dtype).vector_count : 1);
  d.vect_count = lanes;
  d.vect_dim = vect_c ? 1 : -1;
  d.dims = d.stored_dims;
  if (vect_c) d.dims[1] = mul_wrap(d.stored_dims[1], lanes);
  // Packed element strides over the stored dims (for NCHW_VECT_C the C stride
  // counts vectors, as for tensors). NHWC filters are KRSC.
  const int nb = d.nb_dims;
  d.strides.fill(0);
  if (nb <= 0) return;
  if (d.format == CUDNN_TENSOR_NHWC && nb >= 3) {
    int64_t s = 1;
    d.strides[1] = 1;
    s = d.stored_dims[1];
    for (int i = nb - 1; i >= 2; --i) {
      d.strides[i] = s;
      s *= d.stored_dims[i];
    }
    d.strides[0] = s;
  } else {
    int64_t s = 1;
    for (int i = nb - 1; i >= 0; --i) {
      d.strides[i] = s;
      s *= d.stored_dims[i];
    }
  }
}

// Refreshes the reported view when a setter leaves, by return or by throw.
template <class Desc>
struct RefreshOnExit {
  Desc &d;
  ~RefreshOnExit() { refresh_views(d); }
};

// Names of the arguments a message mentions: dimA[i] / strideA[i] for the Nd
// calls, n, c, ... for the 4d ones.
struct ArgNames {
  const char *dims_array;             // "dimA"
  const char *strides_array;          // "strideA"
  const char *const *dim_names;       // per-dimension names, or nullptr
  const char *const *stride_names;    // per-dimension names, or nullptr
  std::string dim(int i) const { return dim_names ? std::string(dim_names[i]) : cat(dims_array, "[", i, "]"); }
  std::string stride(int i) const {
    return stride_names ? std::string(stride_names[i]) : cat(strides_array, "[", i, "]");
  }
};

const ArgNames kNdNames{"dimA", "strideA", nullptr, nullptr};

// The common tail of every tensor setter (cuDNN's own Nd setter): it records
// the type, rank and format, then copies dimension after dimension, failing
// at the first bad one with the earlier ones already written.
void store_tensor(cudnnTensorStruct &d, cudnnTensorFormat_t format, cudnnDataType_t dtype, int nb, const int *dims,
                  const int *strides, const ArgNames &names) {
  RefreshOnExit<cudnnTensorStruct> refresh{d};
  d.is_set = false;
  d.dtype = dtype;
  d.nb_dims = nb;
  d.format = format;
  for (int i = 0; i < nb; ++i) {
    check_arg(dims[i] > 0, names.dim(i), " = ", dims[i], ": every dimension must be positive");
    check_arg(strides[i] != 0 || dims[i] == 1, names.stride(i), " = 0 with ", names.dim(i), " = ", dims[i],
              ": a zero stride is only allowed on a dimension of extent 1");
    d.stored_dims[i] = dims[i];
    d.strides[i] = strides[i];
  }
  int64_t span = 1;
  for (int i = 0; i < nb; ++i) span += static_cast<int64_t>(dims[i] - 1) * abs_wrap(strides[i]);
  d.span = span;
  check_supported(span >= 0 && span <= INT_MAX, "the strides reach ", span,
                  " elements; legacy tensor descriptors address at most INT_MAX (", INT_MAX, ") elements");
  d.is_set = true;
}

void check_tensor_dtype(cudnnDataType_t dtype) {
  check_arg(is_legacy_tensor_type(dtype), "dataType = ", dtype_text(dtype),
            ": legacy tensor descriptors accept FLOAT, DOUBLE, HALF, BFLOAT16, INT8, UINT8, INT32, INT8x4, UINT8x4 "
            "and INT8x32 (use the backend API for the other types)");
}

void check_filter_dtype(cudnnDataType_t dtype) {
  check_arg(is_legacy_filter_type(dtype), "dataType = ", dtype_text(dtype),
            ": legacy filter descriptors accept FLOAT, DOUBLE, HALF, BFLOAT16, INT8, UINT8, INT8x4, UINT8x4 and "
            "INT8x32");
}

// Packed strides for `format` over dims (already divided into vectors for
// NCHW_VECT_C), in cuDNN's 32-bit arithmetic.
void packed_strides(cudnnTensorFormat_t format, int nb, const int *dims, int *strides) {
  if (format == CUDNN_TENSOR_NHWC && nb >= 3) {
    // C innermost, then the spatial dimensions from last to first, then N.
    strides[1] = 1;
    strides[nb - 1] = dims[1];
    for (int i = nb - 2; i >= 2; --i) strides[i] = mul_wrap(strides[i + 1], dims[i + 1]);
    strides[0] = mul_wrap(strides[2], dims[2]);
    return;
  }
  // NCHW, NCHW_VECT_C, and NHWC of rank 2 (no spatial dimension: same thing).
  strides[nb - 1] = 1;
  for (int i = nb - 2; i >= 0; --i) strides[i] = mul_wrap(strides[i + 1], dims[i + 1]);
}

}  // namespace

// --- Argument checks ---------------------------------------------------------

const cudnnTensorStruct &checked_tensor(const cudnnTensorStruct *d, const char *name) {
  if (d == nullptr) fail(CUDNN_STATUS_BAD_PARAM, name, " is NULL");
  if (d->magic != cudnnTensorStruct::kAlive) fail(CUDNN_STATUS_BAD_PARAM, name, " is not a live tensor descriptor");
  if (!d->is_set)
    fail(CUDNN_STATUS_BAD_PARAM, name,
         " has not been set: no cudnnSetTensor*Descriptor call on it has succeeded, or the last one failed part-way");
  return *d;
}

const cudnnFilterStruct &checked_filter(const cudnnFilterStruct *d, const char *name) {
  if (d == nullptr) fail(CUDNN_STATUS_BAD_PARAM, name, " is NULL");
  if (d->magic != cudnnFilterStruct::kAlive) fail(CUDNN_STATUS_BAD_PARAM, name, " is not a live filter descriptor");
  if (!d->is_set)
    fail(CUDNN_STATUS_BAD_PARAM, name,
         " has not been set: no cudnnSetFilter*Descriptor call on it has succeeded, or the last one failed part-way");
  return *d;
}

cudnnTensorStruct &live_tensor(cudnnTensorStruct *d, const char *name) {
  return live_descriptor(d, name, "tensor");
}

cudnnFilterStruct &live_filter(cudnnFilterStruct *d, const char *name) {
  return live_descriptor(d, name, "filter");
}

// --- Legacy descriptor rules ------------------------------------------------

bool is_legacy_tensor_type(cudnnDataType_t t) {
  switch (t) {
    case CUDNN_DATA_FLOAT:
    case CUDNN_DATA_DOUBLE:
    case CUDNN_DATA_HALF:
    case CUDNN_DATA_INT8:
    case CUDNN_DATA_INT32:
    case CUDNN_DATA_INT8x4:
    case CUDNN_DATA_UINT8:
    case CUDNN_DATA_UINT8x4:
    case CUDNN_DATA_INT8x32:
    case CUDNN_DATA_BFLOAT16: return true;
    default: return false;
  }
}

bool is_legacy_filter_type(cudnnDataType_t t) { return is_legacy_tensor_type(t) && t != CUDNN_DATA_INT32; }

int legacy_element_bytes(cudnnDataType_t t) {
  const auto &ti = type_info(t);
  return ti.bits * ti.vector_count / 8;
}

void set_tensor_nd(cudnnTensorStruct &d, cudnnDataType_t dtype, int nb, const int dims[], const int strides[]) {
  check_tensor_dtype(dtype);
  check_arg(nb >= 2, "nbDims = ", nb, ": a tensor descriptor needs at least 2 dimensions");
  check_supported(nb <= CUDNN_DIM_MAX, "nbDims = ", nb, ": at most ", CUDNN_DIM_MAX, " dimensions are supported");
  check_not_null(dims, "dimA");
  check_not_null(strides, "strideA");
  store_tensor(d, CUDNN_TENSOR_NCHW, dtype, nb, dims, strides, kNdNames);
}

void set_tensor_nd_ex(cudnnTensorStruct &d, cudnnTensorFormat_t format, cudnnDataType_t dtype, int nb,
                      const int dims[]) {
  check_arg(is_known_format(format), "format = ", static_cast<int>(format),
            ": expected CUDNN_TENSOR_NCHW, CUDNN_TENSOR_NHWC or CUDNN_TENSOR_NCHW_VECT_C");
  check_tensor_dtype(dtype);
  check_arg(nb >= 2, "nbDims = ", nb, ": a tensor descriptor needs at least 2 dimensions");
  check_not_null(dims, "dimA");
  int lanes = 1;
  if (format == CUDNN_TENSOR_NCHW_VECT_C) {
    lanes = vect_c_lanes(dtype);
    check_arg(dims[1] % lanes == 0, "dimA[1] = ", dims[1], ": with CUDNN_TENSOR_NCHW_VECT_C and ", dtype_text(dtype),
              " the C dimension must be a multiple of ", lanes);
    // cuDNN records the format before it looks at nbDims (a later failure
    // keeps it).
    RefreshOnExit<cudnnTensorStruct> refresh{d};
    d.is_set = false;
    d.format = format;
  }
  check_supported(nb <= CUDNN_DIM_MAX, "nbDims = ", nb, ": at most ", CUDNN_DIM_MAX, " dimensions are supported");
  int adjusted[CUDNN_DIM_MAX];
  int strides[CUDNN_DIM_MAX];
  for (int i = 0; i < nb; ++i) adjusted[i] = dims[i];
  adjusted[1] /= lanes;
  packed_strides(format, nb, adjusted, strides);
  // A stride of 0 can only come from int overflow of the packed strides.
  store_tensor(d, format, dtype, nb, adjusted, strides,
               ArgNames{lanes > 1 ? "dimA (C in vectors)" : "dimA", "packed stride of dimA", nullptr, nullptr});
}

void set_tensor_4d(cudnnTensorStruct &d, cudnnTensorFormat_t format, cudnnDataType_t dtype, int n, int c, int h,
                   int w) {
  check_arg(is_known_format(format), "format = ", static_cast<int>(format),
            ": expected CUDNN_TENSOR_NCHW, CUDNN_TENSOR_NHWC or CUDNN_TENSOR_NCHW_VECT_C");
  check_tensor_dtype(dtype);
  check_arg(n > 0, "n = ", n, ": must be positive");
  check_arg(c > 0, "c = ", c, ": must be positive");
  check_arg(h > 0, "h = ", h, ": must be positive");
  check_arg(w > 0, "w = ", w, ": must be positive");
  check_arg(format != CUDNN_TENSOR_NCHW_VECT_C || is_vector_dtype(dtype), "dataType = ", dtype_text(dtype),
            ": CUDNN_TENSOR_NCHW_VECT_C needs a vector type (INT8x4, UINT8x4 or INT8x32)");
  if (format == CUDNN_TENSOR_NCHW_VECT_C) {
    const int lanes = vect_c_lanes(dtype);
    check_arg(c % lanes == 0, "c = ", c, ": with CUDNN_TENSOR_NCHW_VECT_C and ", dtype_text(dtype),
              " C must be a multiple of ", lanes);
  }
  const int dims[4] = {n, c, h, w};
  set_tensor_nd_ex(d, format, dtype, 4, dims);
}

void set_tensor_4d_ex(cudnnTensorStruct &d, cudnnDataType_t dtype, int n, int c, int h, int w, int ns, int cs,
                      int hs, int ws) {
  check_tensor_dtype(dtype);
  const int dims[4] = {n, c, h, w};
  const int strides[4] = {ns, cs, hs, ws};
  // Same rules as the Nd call; the messages name the 4d arguments.
  static const char *const kDimNames[4] = {"n", "c", "h", "w"};
  static const char *const kStrideNames[4] = {"nStride", "cStride", "hStride", "wStride"};
  store_tensor(d, CUDNN_TENSOR_NCHW, dtype, 4, dims, strides, ArgNames{"dimA", "strideA", kDimNames, kStrideNames});
}

size_t tensor_size_bytes(const cudnnTensorStruct &d) {
  return static_cast<size_t>(d.span * legacy_element_bytes(d.dtype));
}

void derive_bn_tensor(cudnnTensorStruct &derived, const cudnnTensorStruct &x, int mode) {
  check_arg(mode == CUDNN_BATCHNORM_PER_ACTIVATION || mode == CUDNN_BATCHNORM_SPATIAL ||
                mode == CUDNN_BATCHNORM_SPATIAL_PERSISTENT,
            "mode = ", mode, ": expected a cudnnBatchNormMode_t value (0, 1 or 2)");
  // Scale, bias, mean and variance are float for half, bfloat16 and int8 data.
  cudnnDataType_t dtype = x.dtype;
  if (dtype == CUDNN_DATA_HALF || dtype == CUDNN_DATA_BFLOAT16 || dtype == CUDNN_DATA_INT8) dtype = CUDNN_DATA_FLOAT;
  // Built from cuDNN's stored dims of x (C in vectors for NCHW_VECT_C), then
  // set as a packed NCHW tensor of x's rank; an unset x (rank 0) fails there.
  const int nb = x.nb_dims;
  int dims[CUDNN_DIM_MAX];
  for (int i = 0; i < CUDNN_DIM_MAX; ++i) {
    if (i == 0) dims[i] = 1;
    else if (i == 1) dims[i] = x.stored_dims[1];
    else dims[i] = mode == CUDNN_BATCHNORM_PER_ACTIVATION ? x.stored_dims[i] : 1;
  }
  check_arg(nb >= 2, "xDesc has ", nb, " dimensions (has it been set?); at least 2 are needed to derive from it");
  set_tensor_nd_ex(derived, CUDNN_TENSOR_NCHW, dtype, nb, dims);
}

void set_filter_nd(cudnnFilterStruct &d, cudnnDataType_t dtype, cudnnTensorFormat_t format, int nb, const int dims[]) {
  check_filter_dtype(dtype);
  check_arg(is_known_format(format), "format = ", static_cast<int>(format),
            ": expected CUDNN_TENSOR_NCHW, CUDNN_TENSOR_NHWC or CUDNN_TENSOR_NCHW_VECT_C");
  check_arg(nb >= 3, "nbDims = ", nb, ": a filter descriptor needs at least 3 dimensions (K, C and one spatial)");
  check_supported(nb <= CUDNN_DIM_MAX, "nbDims = ", nb, ": at most ", CUDNN_DIM_MAX, " dimensions are supported");
  check_arg(format != CUDNN_TENSOR_NCHW_VECT_C || is_vector_dtype(dtype), "dataType = ", dtype_text(dtype),
            ": CUDNN_TENSOR_NCHW_VECT_C filters need a vector type (INT8x4, UINT8x4 or INT8x32)");
  check_not_null(dims, "filterDimA");
  RefreshOnExit<cudnnFilterStruct> refresh{d};
  d.is_set = false;
  d.dtype = dtype;
  d.format = format;
  d.nb_dims = nb;
  const bool vect_c = format == CUDNN_TENSOR_NCHW_VECT_C;
  for (int i = 0; i < nb; ++i) {
    check_arg(dims[i] > 0, "filterDimA[", i, "] = ", dims[i], ": every dimension must be positive");
    d.stored_dims[i] = dims[i];
  }
  // Only once all dimensions are in does cuDNN turn C into whole vectors,
  // rounding down without complaint.
  if (vect_c) d.stored_dims[1] /= vect_c_lanes(dtype);
  d.is_set = true;
}

void set_filter_4d(cudnnFilterStruct &d, cudnnDataType_t dtype, cudnnTensorFormat_t format, int k, int c, int h,
                   int w) {
  check_filter_dtype(dtype);
  check_arg(is_known_format(format), "format = ", static_cast<int>(format),
            ": expected CUDNN_TENSOR_NCHW, CUDNN_TENSOR_NHWC or CUDNN_TENSOR_NCHW_VECT_C");
  check_arg(format != CUDNN_TENSOR_NCHW_VECT_C || is_vector_dtype(dtype), "dataType = ", dtype_text(dtype),
            ": CUDNN_TENSOR_NCHW_VECT_C filters need a vector type (INT8x4, UINT8x4 or INT8x32)");
  const int dims[4] = {k, c, h, w};
  static const char *const kNames[4] = {"k", "c", "h", "w"};
  RefreshOnExit<cudnnFilterStruct> refresh{d};
  d.is_set = false;
  d.dtype = dtype;
  d.format = format;
  d.nb_dims = 4;
  const bool vect_c = format == CUDNN_TENSOR_NCHW_VECT_C;
  for (int i = 0; i < 4; ++i) {
    check_arg(dims[i] > 0, kNames[i], " = ", dims[i], ": must be positive");
    d.stored_dims[i] = dims[i];
  }
  if (vect_c) d.stored_dims[1] /= vect_c_lanes(dtype);  // as in set_filter_nd
  d.is_set = true;
}

size_t filter_size_bytes(const cudnnFilterStruct &d) {
  // cuDNN multiplies the stored dims starting from the first, so a never-set
  // descriptor (rank 0, all zero) has size 0.
  int64_t count = d.stored_dims[0];
  for (int i = 1; i < d.nb_dims; ++i) count *= d.stored_dims[i];
  return static_cast<size_t>(count * legacy_element_bytes(d.dtype));
}

// --- Translation into the graph model ----------------------------------------

namespace {

template <class Strides>
graph::Tensor lanes_view(cudnnDataType_t dtype, int nb, const std::array<int, CUDNN_DIM_MAX> &stored,
                         const Strides &strides, int vect_count, int vect_dim) {
  graph::Tensor t;
  t.dtype = scalar_type(dtype);
  const int64_t v = vect_count;
  // Every legacy call converts its descriptors: one allocation each, not
  // one per push_back.
  t.dims.reserve(static_cast<size_t>(nb) + 1);
  t.strides.reserve(static_cast<size_t>(nb) + 1);
  for (int i = 0; i < nb; ++i) {
    // Stored dims already count whole vectors along the vectorised dimension,
    // and every stride steps over whole elements of v lanes.
    t.dims.push_back(stored[i]);
    t.strides.push_back(static_cast<int64_t>(strides[i]) * v);
  }
  if (v > 1) {
    t.dims.push_back(v);
    t.strides.push_back(1);
  }
  (void)vect_dim;
  return t;
}

}  // namespace

graph::Tensor to_graph_tensor(const cudnnTensorStruct &d) {
  return lanes_view(d.dtype, d.nb_dims, d.stored_dims, d.strides, d.vect_count, d.vect_dim);
}

graph::Tensor to_graph_tensor(const cudnnFilterStruct &d) {
  return lanes_view(d.dtype, d.nb_dims, d.stored_dims, d.strides, d.vect_count, d.vect_dim);
}

void split_vector_dim(graph::Tensor &t, int dim, int v) {
  if (v <= 1) return;
  if (t.dims[dim] == 1) {  // broadcast along the vectorised dimension
    t.dims.push_back(1);
    t.strides.push_back(0);
    return;
  }
  int64_t stride = t.strides[dim];
  t.dims[dim] /= v;
  t.strides[dim] = stride * v;
  t.dims.push_back(v);
  t.strides.push_back(stride);
}

}  // namespace fdnn
