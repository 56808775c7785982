// The filter gradient's GEMM form on cuBLASLt (see convolution_wgrad_gemm.hpp):
// the chunking of the im2col matrix, the cuBLASLt descriptors and
// algorithms (made once per plan) and the sequence of launches.
#include "cuda/convolution_wgrad_gemm.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "core/env_words.hpp"
#include "core/error.hpp"
#include "cuda/cublaslt_loader.hpp"
#include "cuda/cuda_util.hpp"

namespace fdnn::cuda {
namespace {

// The pixel stride of a tensor whose pixels (n, d, h, w), element
// n*s[0] + d*s[2] + h*s[3] + w*s[4], follow each other at one stride with
// `channels` unit-stride channels each and no overlap: the [pixels x
// channels] matrix cuBLASLt reads with that leading dimension. -1 when
// the pixels are not uniformly strided, or the stride is not a multiple
// of 8 (16-byte rows).
int64_t pixel_stride(const int *s, const int *ext, int N, int channels) {
  if (s[1] != 1) return -1;
  const int dims[4][2] = {{ext[2], s[4]}, {ext[1], s[3]}, {ext[0], s[2]}, {N, s[0]}};
  int64_t ps = -1, span = 1;
  for (const auto &d : dims) {
    if (d[0] == 1) continue;
    if (ps < 0) ps = d[1];
    else if (d[1] != ps * span) return -1;
    span *= d[0];
  }
  if (ps < 0) ps = (channels + 7) / 8 * 8;  // one pixel: any leading dimension
  return ps >= channels && ps % 8 == 0 ? ps : -1;
}

// How the im2col matrix is cut: groups of `taps` taps (a divisor of T),
// chunks of `rows` pixels.
struct Chunking {
  int taps = 1;
  int rows = 1;
};

// All taps at once, the pixels in equal chunks (multiples of 64) whose
// im2col matrix fits the budget (FREEDNN_CONV_WGRAD_GEMM_MB, default 32
// MiB). H100, 512x7 3x3 layer at batch 256 (12544 pixels), TFLOP/s, two
// device runs (cuDNN's best 412 / 422 f16, 467 / 343 bf16 in them):
// groups of 1 tap over all pixels (9 GEMMs 512 x 512 x 12544) 218 f16,
// groups of 3 taps 284-289; all taps in pixel chunks of 3136 (the
// default: 28.9 MB of im2col, 9.4 MB of float result, the heuristic took
// no workspace) 322-324 f16, 310-325 bf16; chunks of 4224 (budget 40) 332,
// 6272 (budget 64, 57.8 MB) 353 f16 / 359 bf16, all pixels at once (115
// MB) 365-370. Larger chunks win (fewer passes of beta = 1 over the float
// result, deeper GEMMs); the default keeps the scratch under 40 MB. With
// the next chunk's gather overlapped on a second stream (two buffers) each
// form measured both ways lost 2-7 %, so it is not done.
// FREEDNN_CONV_WGRAD_GEMM_TAPS and FREEDNN_CONV_WGRAD_GEMM_CHUNK (pixels)
// override the choice (tests, measurements).
Chunking choose_chunking(const ConvArgs &a) {
  const int64_t pixels = int64_t{a.N} * a.P;
  const int64_t budget = env_long("FREEDNN_CONV_WGRAD_GEMM_MB", 32) << 20;
  Chunking c;
  c.taps = a.T;
  const long taps = env_long("FREEDNN_CONV_WGRAD_GEMM_TAPS", 0);
  if (taps > 0 && taps <= a.T && a.T % taps == 0) c.taps = static_cast<int>(taps);
  const int64_t row_bytes = int64_t{c.taps} * a.Cg * 2;
  const int64_t most = std::max<int64_t>(64, budget / row_bytes);
  const int64_t chunks = (pixels + most - 1) / most;
  int64_t rows = (pixels + chunks - 1) / chunks;
  rows = std::min(pixels, (rows + 63) / 64 * 64);
  const long forced = env_long("FREEDNN_CONV_WGRAD_GEMM_CHUNK", 0);
  if (forced > 0) rows = std::min<int64_t>(pixels, forced);
  c.rows = static_cast<int>(rows);
  return c;
}

cudaDataType_t lt_type(ConvTypes t) { return t == ConvTypes::bf16 ? CUDA_R_16BF : CUDA_R_16F; }

class LtGemm final : public ConvWgradGemm {
 public:
  LtGemm(const ConvArgs &a, ConvTypes t) : lt_(require_lt()), types_(t) {
    handle_ = cublaslt_handle();
    pixels_ = int64_t{a.N} * a.P;
    ldy_ = pixel_stride(a.ys, a.out, a.N, a.Kg);
    // One tap, no padding, unit strides: x's pixels are the im2col rows.
    direct_x_ = a.T == 1 && a.pad[0] == 0 && a.pad[1] == 0 && a.pad[2] == 0 && a.str[0] == 1 && a.str[1] == 1 &&
                a.str[2] == 1 && a.in[0] == a.out[0] && a.in[1] == a.out[1] && a.in[2] == a.out[2] &&
                pixel_stride(a.xs, a.in, a.N, a.Cg) > 0;
    ldx_ = pixel_stride(a.xs, a.in, a.N, a.Cg);
    chunking_ = choose_chunking(a);
    if (direct_x_) {
      // No gather to bound: all pixels at once unless told otherwise.
      const long rows = env_long("FREEDNN_CONV_WGRAD_GEMM_CHUNK", 0);
      chunking_ = Chunking{1, static_cast<int>(rows > 0 ? std::min<int64_t>(rows, pixels_) : pixels_)};
    }
    groups_ = a.T / chunking_.taps;
    chunks_ = static_cast<int>((pixels_ + chunking_.rows - 1) / chunking_.rows);
    tail_ = static_cast<int>(pixels_ - int64_t{chunks_ - 1} * chunking_.rows);
    m_ = chunking_.taps * a.Cg;
    acc_bytes_ = round256(static_cast<size_t>(a.Kg) * a.T * a.Cg * 4);
    cols_at_ = acc_bytes_;
    cols_bytes_ = direct_x_ ? 0 : round256(static_cast<size_t>(chunking_.rows) * m_ * 2);
    ws_at_ = cols_at_ + cols_bytes_;

    check_cublaslt(lt_.desc_create(&o_.desc, CUBLAS_COMPUTE_32F, CUDA_R_32F), "cublasLtMatmulDescCreate");
    const int32_t ta = CUBLAS_OP_N, tb = CUBLAS_OP_T;
    check_cublaslt(lt_.desc_set(o_.desc, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta),
                   "cublasLtMatmulDescSetAttribute(TRANSA)");
    check_cublaslt(lt_.desc_set(o_.desc, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb),
                   "cublasLtMatmulDescSetAttribute(TRANSB)");
    // Column-major views: D = C^T [taps*C x K] (ld T*C), A = im2col^T
    // [taps*C x rows] (ld taps*C, or x's pixel stride), op(B) = dy
    // [rows x K] from dy^T [K x rows] (ld dy's pixel stride).
    const int64_t lda = direct_x_ ? ldx_ : m_;
    const int max_ws_mb = static_cast<int>(env_long("FREEDNN_CONV_WGRAD_GEMM_WS_MB", 8));
    const uint64_t max_ws = uint64_t(max_ws_mb) << 20;
    check_cublaslt(lt_.layout_create(&o_.d, CUDA_R_32F, m_, a.Kg, int64_t{a.T} * a.Cg), "cublasLtMatrixLayoutCreate");
    for (int v = 0; v < 2; ++v) {
      const int rows = v == 0 ? chunking_.rows : tail_;
      if (v == 1 && tail_ == chunking_.rows) {
        o_.a[1] = nullptr, o_.b[1] = nullptr;
        algo_[1] = algo_[0], ws_[1] = ws_[0];
        break;
      }
      check_cublaslt(lt_.layout_create(&o_.a[v], lt_type(t), m_, rows, lda), "cublasLtMatrixLayoutCreate");
      check_cublaslt(lt_.layout_create(&o_.b[v], lt_type(t), a.Kg, rows, ldy_), "cublasLtMatrixLayoutCreate");
      if (!algorithm(o_.a[v], o_.b[v], max_ws, algo_[v], ws_[v]))
        fail(CUDNN_STATUS_NOT_SUPPORTED, "cublasLtMatmulAlgoGetHeuristic found no algorithm for the filter gradient's "
                                         "GEMM ", m_, " x ", a.Kg, " x ", rows);
    }
    ws_bytes_ = std::max(ws_[0], ws_[1]);
    scratch_ = ws_at_ + round256(ws_bytes_);
  }

  size_t scratch_bytes() const override { return scratch_; }

  bool takes(const ConvArgs &a) const override {
    return aligned_to(a.A, 16) && aligned_to(a.B, 16);
  }

  void run(const ConvArgs &a, void *scratch, void *stream) const override {
    char *base = static_cast<char *>(scratch);
    float *acc = reinterpret_cast<float *>(base);
    void *ws = base + ws_at_;
    const float one = 1, zero = 0;
    const uint16_t *dy = static_cast<const uint16_t *>(a.A), *x = static_cast<const uint16_t *>(a.B);
    for (int g = 0; g < groups_; ++g) {
      const int t0 = g * chunking_.taps;
      float *d = acc + static_cast<int64_t>(t0) * a.Cg;
      for (int j = 0; j < chunks_; ++j) {
        const int64_t p0 = int64_t{j} * chunking_.rows;
        const bool last = j == chunks_ - 1;
        const int rows = last ? tail_ : chunking_.rows;
        const int v = last && o_.a[1] != nullptr ? 1 : 0;
        void *cols = base + cols_at_;
        const void *A = cols;
        if (direct_x_) A = x + p0 * ldx_;
        else launch_wgrad_im2col(a, static_cast<int>(p0), rows, t0, chunking_.taps, cols, stream);
        const void *B = dy + p0 * ldy_;
        check_cublaslt(lt_.matmul(handle_, o_.desc, &one, A, o_.a[v], B, o_.b[v], j == 0 ? &zero : &one, d, o_.d, d,
                                  o_.d, &algo_[v], ws_[v] == 0 ? nullptr : ws, ws_[v],
                                  static_cast<cudaStream_t>(stream)),
                       "cublasLtMatmul (filter gradient)");
      }
    }
    launch_wgrad_map(a, types_, acc, stream);
  }

  std::string detail() const override {
    return cat("filter gradient as GEMMs (cuBLASLt): ", groups_, " tap group(s) of ", chunking_.taps, " x ", chunks_,
               " pixel chunk(s) of ", chunking_.rows, direct_x_ ? " (x as the im2col matrix)" : "",
               ", cuBLASLt workspace ", ws_bytes_);
  }

 private:
  static const CublasLt &require_lt() {
    const char *why = nullptr;
    const CublasLt *lt = cublaslt(&why);
    if (lt == nullptr) fail(CUDNN_STATUS_NOT_SUPPORTED, why);
    return *lt;
  }

  bool algorithm(cublasLtMatrixLayout_t la, cublasLtMatrixLayout_t lb, uint64_t max_ws, cublasLtMatmulAlgo_t &algo,
                 size_t &workspace) {
    cublasLtMatmulPreference_t pref = nullptr;
    check_cublaslt(lt_.pref_create(&pref), "cublasLtMatmulPreferenceCreate");
    const uint32_t align = 16;
    cublasStatus_t st = lt_.pref_set(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &max_ws, sizeof max_ws);
    for (auto attr : {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
                      CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES})
      if (st == CUBLAS_STATUS_SUCCESS) st = lt_.pref_set(pref, attr, &align, sizeof align);
    return first_heuristic_algo(lt_, handle_, o_.desc, la, lb, o_.d, o_.d, pref, st, algo, workspace);
  }

  // The descriptors, destroyed by a member so that they are also when the
  // constructor throws.
  struct Owned {
    const CublasLt &lt;
    cublasLtMatmulDesc_t desc = nullptr;
    cublasLtMatrixLayout_t a[2] = {nullptr, nullptr}, b[2] = {nullptr, nullptr}, d = nullptr;
    explicit Owned(const CublasLt &l) : lt(l) {}
    Owned(const Owned &) = delete;
    Owned &operator=(const Owned &) = delete;
    ~Owned() {
      for (cublasLtMatrixLayout_t l : {a[0], a[1], b[0], b[1], d})
        if (l != nullptr) lt.layout_destroy(l);
      if (desc != nullptr) lt.desc_destroy(desc);
    }
  };

  const CublasLt &lt_;
  ConvTypes types_;
  cublasLtHandle_t handle_ = nullptr;
  Owned o_{lt_};
  int64_t pixels_ = 0, ldy_ = 0, ldx_ = 0;
  bool direct_x_ = false;
  Chunking chunking_;
  int groups_ = 1, chunks_ = 1, tail_ = 0, m_ = 0;
  size_t acc_bytes_ = 0, cols_at_ = 0, cols_bytes_ = 0, ws_at_ = 0, ws_bytes_ = 0, scratch_ = 0;
  cublasLtMatmulAlgo_t algo_[2] = {};
  size_t ws_[2] = {0, 0};
};

}  // namespace

bool conv_wgrad_gemm_layout(const ConvArgs &a, ConvTypes t) {
  if (a.dir != kConvBwdFilter || (t != ConvTypes::f16 && t != ConvTypes::bf16)) return false;
  if (a.G != 1 || a.Cg % 8 != 0 || a.Kg % 8 != 0) return false;
  // dy: [pixels x K] with a uniform pixel stride; x: channels innermost,
  // every stride a multiple of 8 (the gather's 16-byte vectors).
  if (pixel_stride(a.ys, a.out, a.N, a.Kg) < 0) return false;
  if (a.xs[1] != 1 || a.xs[0] % 8 != 0 || a.xs[2] % 8 != 0 || a.xs[3] % 8 != 0 || a.xs[4] % 8 != 0) return false;
  // cuBLASLt's extents and leading dimensions are 64-bit, the gather's
  // im2col offsets too; the pixel count feeds 32-bit chunk offsets.
  return int64_t{a.N} * a.P < (int64_t{1} << 31);
}

// Where the GEMM form wins: images of at most 7x7 output pixels, an output
// (K x taps x C) of 2^20 elements or more, 1024 pixels or more. H100,
// ResNet-50 3x3 layers, NHWC, f16 / bf16 TFLOP/s of the mma kernel -> the
// GEMM form: 512x7 batch 256 229 / 228 -> 324 / 310, batch 32 131 / 128
// -> 187 / 180 (one chunk); forced on elsewhere (f16, an older chunking
// that cut the taps into groups when the whole matrix passed 24 MB) it
// lost: 256x14 batch 32 148 -> 117, batch 256 270 -> 135, 128x28 batch 32
// 158 -> 80, 64x56 batch 32 144 -> 25 (the gather's traffic, small GEMMs).
bool conv_wgrad_gemm_rule(const ConvArgs &a) {
  const int64_t out_elems = int64_t{a.Kg} * a.T * a.Cg;
  // (Below 2^24 output elements: the float result lives in the scratch.)
  return a.P <= 49 && out_elems >= (int64_t{1} << 20) && out_elems <= (int64_t{1} << 24) &&
         int64_t{a.N} * a.P >= 1024;
}

bool conv_wgrad_gemm_wanted(const ConvArgs &a, ConvTypes t, bool wgmma_applies) {
  const char *v = std::getenv("FREEDNN_CONV_WGRAD_GEMM");
  if (v != nullptr && std::strcmp(v, "0") == 0) return false;
  if (!conv_wgrad_gemm_layout(a, t)) return false;
  if (v != nullptr && std::strcmp(v, "1") == 0) return true;
  // The wgmma kernel ran 512x7 batch 256 at 474 TFLOP/s against this
  // form's 329 (2026-11-23).
  return !wgmma_applies && conv_wgrad_gemm_rule(a);
}

std::shared_ptr<const ConvWgradGemm> ConvWgradGemm::make(const ConvArgs &a, ConvTypes t) {
  if (cublaslt() == nullptr) return nullptr;
  try {
    return std::make_shared<LtGemm>(a, t);
  } catch (const Error &) {
    return nullptr;
  }
}

}  // namespace fdnn::cuda
