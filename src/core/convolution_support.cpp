#include "core/convolution_support.hpp"

#include <variant>

#include "core/dtype.hpp"
#include "core/error.hpp"

namespace fdnn {

using graph::ConvDirection;

int64_t ConvGeometry::in_pixels() const {
  int64_t p = 1;
  for (int64_t v : in) p *= v;
  return p;
}
int64_t ConvGeometry::out_pixels() const {
  int64_t p = 1;
  for (int64_t v : out) p *= v;
  return p;
}
int64_t ConvGeometry::filter_taps() const {
  int64_t p = 1;
  for (int64_t v : filt) p *= v;
  return p;
}
double ConvGeometry::macs() const {
  return static_cast<double>(N) * K * Cg * out_pixels() * filter_taps();
}

namespace {

// Merges dimensions i and i+1 of t into one (extent product) when they are
// laid out as one: stride[i] == dims[i+1] * stride[i+1].
bool merge_dims(graph::Tensor &t, size_t i) {
  if (t.strides[i] != t.dims[i + 1] * t.strides[i + 1]) return false;
  t.dims[i] *= t.dims[i + 1];
  t.strides[i] = t.strides[i + 1];
  t.dims.erase(t.dims.begin() + static_cast<std::ptrdiff_t>(i) + 1);
  t.strides.erase(t.strides.begin() + static_cast<std::ptrdiff_t>(i) + 1);
  return true;
}

// The operands in the rank spatial+2 form. The backend API also takes the
// grouped form of rank spatial+3 (x [n, g, c, ...], w [g, k, c, ...],
// y [n, g, k, ...]), which is the same convolution once g is merged into the
// channel dimensions, as long as each tensor's g stride spans its c (or k).
Support flat_operands(const graph::Graph &g, const graph::ConvolutionOp &op, graph::Tensor &x, graph::Tensor &w,
                      graph::Tensor &y) {
  const graph::Tensor *px = g.find_tensor(op.x), *pw = g.find_tensor(op.w), *py = g.find_tensor(op.y);
  if (px == nullptr || pw == nullptr || py == nullptr) return Support::no("x, w or y missing");
  x = *px;
  w = *pw;
  y = *py;
  const int nsp = op.spatial_dims();
  if (x.rank() == nsp + 3 && w.rank() == nsp + 3 && y.rank() == nsp + 3) {
    if (x.dims[1] != w.dims[0] || y.dims[1] != w.dims[0] || x.dims[2] != w.dims[2] || y.dims[2] != w.dims[1])
      return Support::no("grouped form: the g, c and k extents of x [n,g,c,..], w [g,k,c,..], y [n,g,k,..] differ");
    if (!merge_dims(x, 1) || !merge_dims(w, 0) || !merge_dims(y, 1))
      return Support::no("grouped form whose group stride does not span the channels");
  }
  return Support::yes();
}

}  // namespace

Support check_single_convolution(const graph::Graph &g) {
  if (g.ops().size() != 1) return Support::no("not a single operation");
  const auto *op = std::get_if<graph::ConvolutionOp>(&g.ops().front());
  if (op == nullptr) return Support::no("not a convolution");
  const int nsp = op->spatial_dims();
  if (nsp < 1 || nsp > CUDNN_DIM_MAX - 2) return Support::no(cat(nsp, " spatial dimensions"));
  if (op->pre_padding.size() != static_cast<size_t>(nsp) || op->post_padding.size() != static_cast<size_t>(nsp) ||
      op->dilation.size() != static_cast<size_t>(nsp))
    return Support::no("padding, stride and dilation vectors of different lengths");
  graph::Tensor xt, wt, yt;
  if (Support s = flat_operands(g, *op, xt, wt, yt); !s) return s;
  const graph::Tensor *x = &xt, *w = &wt, *y = &yt;
  for (const graph::Tensor *t : {x, w, y}) {
    if (t->rank() != nsp + 2) return Support::no(cat("tensor ", t->to_string(), " is not of rank ", nsp + 2));
    if (t->by_value) return Support::no("by-value convolution operand");
    for (int64_t d : t->dims)
      if (d <= 0) return Support::no(cat("tensor ", t->to_string(), " has an empty dimension"));
  }
  if (x->dims[0] != y->dims[0]) return Support::no("x and y batch sizes differ");
  if (x->dims[1] % w->dims[1] != 0) return Support::no("x's channels are not a multiple of w's");
  const int64_t groups = x->dims[1] / w->dims[1];
  if (w->dims[0] != y->dims[1]) return Support::no("w's output channels differ from y's channels");
  if (w->dims[0] % groups != 0) return Support::no("output channels are not a multiple of the group count");
  for (int i = 0; i < nsp; ++i) {
    const int64_t s = op->stride[i], d = op->dilation[i], pre = op->pre_padding[i], post = op->post_padding[i];
    if (s <= 0 || d <= 0 || pre < 0 || post < 0) return Support::no("non-positive stride/dilation or negative padding");
    const int64_t span = (w->dims[i + 2] - 1) * d + 1;
    const int64_t room = x->dims[i + 2] + pre + post - span;
    if (room < 0) return Support::no(cat("the filter does not fit spatial dimension ", i));
    if (y->dims[i + 2] != 1 + room / s)
      return Support::no(cat("y's spatial extent ", i, " is ", y->dims[i + 2], ", the forward rule gives ", 1 + room / s));
  }
  return Support::yes();
}

ConvGeometry convolution_geometry(const graph::Graph &g) {
  const auto &op = std::get<graph::ConvolutionOp>(g.ops().front());
  ConvGeometry geo;
  geo.direction = op.direction;
  geo.nsp = op.spatial_dims();
  flat_operands(g, op, geo.x, geo.w, geo.y);
  geo.N = geo.x.dims[0];
  geo.C = geo.x.dims[1];
  geo.K = geo.w.dims[0];
  geo.Cg = geo.w.dims[1];
  geo.G = geo.C / geo.Cg;
  geo.Kg = geo.K / geo.G;
  for (int i = 0; i < geo.nsp; ++i) {
    geo.in.push_back(geo.x.dims[i + 2]);
    geo.filt.push_back(geo.w.dims[i + 2]);
    geo.out.push_back(geo.y.dims[i + 2]);
  }
  geo.pad = op.pre_padding;
  geo.stride = op.stride;
  geo.dil = op.dilation;
  geo.flip = op.mode == CUDNN_CONVOLUTION;
  geo.compute = op.compute_type;
  return geo;
}

namespace {

bool floating(cudnnDataType_t t) {
  return t == CUDNN_DATA_FLOAT || t == CUDNN_DATA_DOUBLE || t == CUDNN_DATA_HALF || t == CUDNN_DATA_BFLOAT16;
}

}  // namespace

void check_convolution_types(ConvDirection dir, cudnnDataType_t x, cudnnDataType_t w, cudnnDataType_t y,
                             cudnnDataType_t compute) {
  const char *xn = type_info(x).enum_name, *wn = type_info(w).enum_name, *yn = type_info(y).enum_name,
             *cn = type_info(compute).enum_name;
  const char *names = dir == ConvDirection::forward         ? "xDesc, wDesc and yDesc"
                      : dir == ConvDirection::backward_data ? "dxDesc, wDesc and dyDesc"
                                                            : "xDesc, dwDesc and dyDesc";
  // The INT8 configurations of cudnnConvolutionForward: x INT8 or UINT8 (or
  // their x4 vectors, or INT8x32), w the signed counterpart, y INT8-like or
  // FLOAT, INT32 compute.
  const bool int8_like_x = x == CUDNN_DATA_INT8 || x == CUDNN_DATA_UINT8 || x == CUDNN_DATA_INT8x4 ||
                           x == CUDNN_DATA_UINT8x4 || x == CUDNN_DATA_INT8x32;
  if (int8_like_x) {
    check_arg(dir == ConvDirection::forward, names, " are ", xn,
              ": integer data types exist for the forward convolution only");
    const cudnnDataType_t want_w = x == CUDNN_DATA_UINT8 ? CUDNN_DATA_INT8 : x == CUDNN_DATA_UINT8x4 ? CUDNN_DATA_INT8x4 : x;
    check_arg(w == want_w, "xDesc is ", xn, " but wDesc is ", wn, "; the INT8 configurations need wDesc ",
              type_info(want_w).enum_name);
    const cudnnDataType_t want_y = x == CUDNN_DATA_UINT8 ? CUDNN_DATA_INT8 : x == CUDNN_DATA_UINT8x4 ? CUDNN_DATA_INT8x4 : x;
    check_arg(y == want_y || (y == CUDNN_DATA_FLOAT && x != CUDNN_DATA_INT8x32), "xDesc is ", xn, " but yDesc is ",
              yn, "; the INT8 configurations write ", type_info(want_y).enum_name, " or FLOAT");
    check_supported(compute == CUDNN_DATA_INT32, "the INT8 configurations compute in CUDNN_DATA_INT32, not ", cn);
    return;
  }
  // A mix of floating types is a configuration cuDNN does not offer:
  // NOT_SUPPORTED, as cuDNN 9.19 answers (H100 oracle: x DOUBLE, w FLOAT).
  check_supported(x == w && w == y, names, " have non-matching data types (", xn, ", ", wn, ", ", yn, ")");
  check_supported(floating(x), "convolutions of ", xn, " data are not supported");
  bool ok = false;
  switch (x) {
    case CUDNN_DATA_FLOAT: ok = compute == CUDNN_DATA_FLOAT; break;       // FLOAT_CONFIG
    case CUDNN_DATA_DOUBLE: ok = compute == CUDNN_DATA_DOUBLE; break;     // DOUBLE_CONFIG
    case CUDNN_DATA_HALF:                                                 // TRUE_HALF / PSEUDO_HALF
      ok = compute == CUDNN_DATA_FLOAT || compute == CUDNN_DATA_HALF;
      break;
    case CUDNN_DATA_BFLOAT16: ok = compute == CUDNN_DATA_FLOAT; break;   // PSEUDO_BFLOAT16_CONFIG
    default: break;
  }
  check_supported(ok, "no data type configuration has ", xn, " data with a ", cn,
                  " compute type (FLOAT: FLOAT; DOUBLE: DOUBLE; HALF: HALF or FLOAT; BFLOAT16: FLOAT)");
}

bool convolution_is_floating(const ConvGeometry &geo) {
  // Mixed floating types occur inside cudnnConvolutionBiasActivationForward
  // (a float intermediate for half data); staging converts them.
  return floating(geo.x.dtype) && floating(geo.w.dtype) && floating(geo.y.dtype);
}

int convolution_algo_count(ConvDirection dir) {
  switch (dir) {
    case ConvDirection::forward: return CUDNN_CONVOLUTION_FWD_ALGO_COUNT;
    case ConvDirection::backward_data: return CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT;
    case ConvDirection::backward_filter: return CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT;
  }
  return 0;
}

const char *convolution_algo_name(ConvDirection dir, int algo) {
  static const char *const fwd[] = {"IMPLICIT_GEMM", "IMPLICIT_PRECOMP_GEMM", "GEMM", "DIRECT",
                                    "FFT", "FFT_TILING", "WINOGRAD", "WINOGRAD_NONFUSED"};
  static const char *const bwd_data[] = {"ALGO_0", "ALGO_1", "FFT", "FFT_TILING", "WINOGRAD", "WINOGRAD_NONFUSED"};
  static const char *const bwd_filter[] = {"ALGO_0", "ALGO_1", "FFT", "ALGO_3", "WINOGRAD", "WINOGRAD_NONFUSED",
                                           "FFT_TILING"};
  if (algo < 0 || algo >= convolution_algo_count(dir)) return "?";
  switch (dir) {
    case ConvDirection::forward: return fwd[algo];
    case ConvDirection::backward_data: return bwd_data[algo];
    case ConvDirection::backward_filter: return bwd_filter[algo];
  }
  return "?";
}

bool convolution_algo_deterministic(ConvDirection, int) { return true; }

bool cpu_implements_convolution_algo(ConvDirection dir, int algo) {
  if (algo == -1) return true;
  switch (dir) {
    case ConvDirection::forward:
      return algo == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM || algo == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM ||
             algo == CUDNN_CONVOLUTION_FWD_ALGO_GEMM || algo == CUDNN_CONVOLUTION_FWD_ALGO_DIRECT ||
             algo == CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD || algo == CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED;
    case ConvDirection::backward_data:
      return algo == CUDNN_CONVOLUTION_BWD_DATA_ALGO_0 || algo == CUDNN_CONVOLUTION_BWD_DATA_ALGO_1 ||
             algo == CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD || algo == CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD_NONFUSED;
    case ConvDirection::backward_filter:
      return algo == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_0 || algo == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1 ||
             algo == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_3;
  }
  return false;
}

Support cpu_convolution_algo_applies(const ConvGeometry &geo, int algo) {
  if (algo == -1) return Support::yes();
  if (!cpu_implements_convolution_algo(geo.direction, algo))
    return Support::no(cat("algorithm ", convolution_algo_name(geo.direction, algo), " is not implemented on the CPU"));
  if (!convolution_is_floating(geo)) {
    // Integer configurations: the implicit GEMMs of cuDNN's INT8 tables.
    if (geo.direction == graph::ConvDirection::forward &&
        (algo == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM || algo == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM))
      return Support::yes();
    return Support::no("integer convolutions run only as IMPLICIT_GEMM or IMPLICIT_PRECOMP_GEMM");
  }
  if (geo.nsp > 3) return Support::no(cat(geo.nsp, " spatial dimensions: the CPU algorithms take 1 to 3"));
  const bool winograd =
      (geo.direction == graph::ConvDirection::forward &&
       (algo == CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD || algo == CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED)) ||
      (geo.direction == graph::ConvDirection::backward_data &&
       (algo == CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD || algo == CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD_NONFUSED));
  if (winograd) {
    if (geo.nsp != 2) return Support::no("Winograd needs 2 spatial dimensions");
    if (geo.filt[0] != 3 || geo.filt[1] != 3) return Support::no("Winograd F(2x2,3x3) needs a 3x3 filter");
    if (geo.stride[0] != 1 || geo.stride[1] != 1) return Support::no("Winograd needs stride 1");
    if (geo.dil[0] != 1 || geo.dil[1] != 1) return Support::no("Winograd needs dilation 1");
    if (geo.direction == graph::ConvDirection::backward_data && (geo.pad[0] > 2 || geo.pad[1] > 2))
      return Support::no("the data gradient's Winograd form needs padding <= 2");
  }
  return Support::yes();
}

}  // namespace fdnn
