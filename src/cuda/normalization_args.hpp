// The geometry of one normalization problem for the CUDA kernels
// (cuda/normalization_kernels.cu), built by cuda/normalization_engine.cpp.
//
// x's dimensions are sorted by x's strides (largest outermost) and merged
// where every operand allows; each is either reduced (inside one statistics
// set) or kept (selects the set). Set k is the row-major index over the kept
// dims, element r of a set the row-major index over the reduced dims, both in
// that sorted order.
#pragma once

#include <cudnn_graph.h>

#include <cstddef>
#include <cstdint>

#include "cuda/fast_divmod.hpp"

namespace fdnn::cuda {

constexpr int kNormMaxDims = 8;
enum NormData { kNX = 0, kNY, kNZ, kNDY, kNDX, kNDZ, kNMask, kNormData };
enum NormFast { kFastNone = 0, kFastRows, kFastCols };
enum NormStat { kSScale = 0, kSBias, kSMean, kSInv, kSVar, kSRmIn, kSRvIn, kSRmOut, kSRvOut, kSDscale, kSDbias, kNormStats };

struct NormArgs {
  // Per merged dim, split in kept and reduced lists (sorted order kept).
  int kept_rank = 0, red_rank = 0;
  FastDivmod kept_div[kNormMaxDims], red_div[kNormMaxDims];
  int64_t kept_stride[kNormData][kNormMaxDims] = {}, red_stride[kNormData][kNormMaxDims] = {};
  int64_t stat_stride[kNormStats][kNormMaxDims] = {};  // over the kept dims
  int64_t groups = 1, count = 1;
  int splits = 1;          // parts of each set's reduced range
  int64_t chunk = 1;       // reduced elements per part
  bool cols = false;       // the innermost dim is kept: blocks take 32 neighbouring sets
  // Vectorised fast path (every present data operand has x's strides, at
  // most one kept dim, 16-byte vectors along the contiguous dim):
  //   kFastRows: the innermost dim is reduced and contiguous; a set is
  //     `outer` planes of `inner` elements (x + k*set_stride + n*outer_stride + i);
  //   kFastCols: the kept dim is contiguous (NHWC channels, per-activation);
  //     a set is `count` rows (x + r*outer_stride + k).
  // The chunk is a multiple of `vec` in the rows form. When a pointer is not
  // 16-byte aligned at launch, the generic kernels run with the same parts.
  int fast = 0;  // kFastNone, kFastRows, kFastCols
  int vec = 1;
  FastDivmod inner_vecs;  // rows: vectors per plane
  int64_t set_stride = 0, outer_stride = 0;
  int cols_bx = 32;       // cols: threads along the channel vectors (power of 2), 256 / cols_bx along rows
  // Cols: the apply passes walk each part's rows last to first (L2 reuse of
  // the rows the statistics / gradient pass read last); vectors in flight
  // per thread in the one-tensor passes (8, or 4).
  bool cols_reverse = true;
  int cols_unroll = 8;
  // Apply passes: x (dy) loads and y (dx, dz) stores evict-first in L2, so
  // the data they touch last does not evict what they re-read.
  bool stream_hints = true;
  // The backward cluster kernel prefetches its next set's x and dy into L2
  // (sm_90 bulk prefetch by the copy engine) during the current set's
  // barriers and dx stores. H100, N=256 C=256 28x28: f32 NCHW 0.64 -> 0.69 of
  // copy, f16 NCHW +5%. The same hint measured slower in the forward cluster
  // kernel (f32 NCHW 0.73 -> 0.70) and two loop steps ahead in the cols
  // passes (f16 NHWC 0.51 -> 0.48, f32 NHWC 0.60 -> 0.51), so only here.
  bool cluster_bwd_prefetch = true;
  // Rows cluster kernels (training forward / backward with x, dy kept in the
  // cluster's shared memory): largest cluster (8 portable, up to 16 on the
  // H100), shared-memory bytes per block aimed at (KiB; forward, backward),
  // and whether the grid is persistent (as many clusters as fit, looping
  // over the sets) or one cluster per set.
  int cluster_max = 8;
  int cluster_block_kb[2] = {112, 200};
  bool cluster_persistent = true;
  int cluster_threads = 512;      // forward cluster blocks: 512 or 256 threads
  int cluster_threads_bwd = 512;  // backward cluster blocks: 512 or 256 threads
  // Resident cluster form (cuda/normalization_cluster.cu; training forward
  // and backward of the rows form, tried before the cluster kernels above):
  // a cluster of res_cs blocks per set keeps the set's x (and dy) in its
  // shared memory, loaded by the copy engine (bulk copies completing on
  // mbarriers) in res_pieces pieces per block; res_bufs sets in flight per
  // block, the next sets' pieces loaded as the current set's stores free
  // them. FREEDNN_NORM_TUNE switches: res_form ("nocluster": off, the
  // cluster kernels above run), res_block_kb (KiB of shared memory per
  // block aimed at: "rkb=N"; up to 112: two blocks per multiprocessor),
  // res_bufs_max ("rnb=2": two sets per block where the cluster holds them),
  // res_pieces ("rp=N", 1..8), res_threads ("rt=256"), res_cmax (largest
  // cluster, up to 16: "rcmax=N"). res_cs == 0: not planned.
  bool res_form = true;
  bool res_forward = true;  // training forward too ("nrfwd": off, the cluster kernel above runs it)
  int res_block_kb = 100;
  int res_bufs_max = 1;
  int res_pieces = 4;
  int res_threads = 512;
  int res_cmax = 16;
  bool res_log = false;  // "rlog": each shape printed to stderr once
  // Cluster y starts (y % 4) x res_stagger_ns late; -1: chosen at launch
  // (see normalization_cluster.cu), "rstag=N" sets it.
  int res_stagger_ns = -1;
  int res_cs = 0, res_bufs = 0;
  // Programmatic dependent launch between the passes of the three-launch
  // forms (sm_90; H100: +2-3% on the NHWC training cases).
  bool pdl = true;
  // Persistent form (training forward and backward of the fast forms, large
  // tensors): a co-resident grid of pers_blocks blocks walks the channels in
  // pers_groups groups of pers_group channels; each block keeps its share of
  // a group's x (and dy) in shared memory (pers_slots groups at once) between
  // the sums and the apply pass, and the blocks meet at one split grid
  // barrier per group. pers_blocks == 0: not used.
  int pers_blocks = 0, pers_group = 0, pers_groups = 0, pers_slots = 1;
  int64_t pers_share = 0;  // rows: vectors per block per group; cols: rows per block
  // Grid form (cuda/normalization_grid.cu; training forward and backward of
  // the cols form): one co-resident block per multiprocessor owns grid_rows
  // consecutive rows and re-reads from memory only what its threads' rings
  // of shared-memory slots and registers could not keep across the two grid
  // barriers. grid_blocks == 0: not used. FREEDNN_NORM_TUNE switches:
  // grid_form ("old": off), grid_min_bytes (x's bytes from which it is used;
  // "gmin=KiB"), grid_l2_pct (the share of the L2, percent, that the rows
  // re-read first fill in pass 1 with plain loads; every other row is
  // loaded evict-first; "gl2=N"), grid_l2_last (those rows evict-last:
  // "glast"), grid_reg_rows (at most that many rows per thread kept in
  // registers: "grr=N"); grid_l2_rows: those rows per thread (planned).
  bool grid_form = true;
  int64_t grid_min_bytes = int64_t{1} << 20;
  int grid_l2_pct = 75;
  bool grid_l2_last = false;
  int grid_reg_rows = 1 << 20;
  int grid_blocks = 0, grid_l2_rows = 0;
  int64_t grid_rows = 0;
  // Inference form (cuda/normalization_infer.cu; forward with the
  // statistics given, both fast forms): one launch, coefficients computed
  // per block. FREEDNN_NORM_TUNE switches: infer_form ("noinf": off),
  // infer_unroll (vectors per thread and loop step, "iu=4", "iu=8";
  // 0: 8 in the cols form, 4 in the rows form), infer_blocks (the grid's blocks per multiprocessor, "ib=N";
  // 0: as many as are resident at once).
  bool infer_form = true;
  int infer_unroll = 0;
  int infer_blocks = 8;
  // Phase and ops.
  bool backward = false, training = true, relu = false, has_z = false, has_mask = false, has_dz = false;
  bool stats_given = false;  // inference, or backward with saved stats
  bool var_given = false;    // inference reads variance (else inv variance)
  float clip = 0;
  double epsilon = 0, factor = 1, unbias = 1;
  double alpha = 1, beta = 0, alpha_p = 1, beta_p = 0;
  // Types of x and z (data_type), dy (grad_type), y, dx and dz (out_type):
  // all one type, or mixed: each HALF (or each BFLOAT16) or FLOAT, as the
  // frontends' graphs have them (virtual FLOAT intermediates around HALF /
  // BFLOAT16 tensors). Mixed types run the generic kernels only.
  cudnnDataType_t data_type = CUDNN_DATA_FLOAT;
  cudnnDataType_t grad_type = CUDNN_DATA_FLOAT;
  cudnnDataType_t out_type = CUDNN_DATA_FLOAT;
  bool compute_double = false;
  // Any other mix (cuda/normalization_engine.cpp): each data operand's own
  // type (FLOAT, DOUBLE, HALF or BFLOAT16; the mask UINT8) in `types`, each
  // statistics tensor FLOAT or DOUBLE (bit j of stat_double set for DOUBLE),
  // computed in double when compute_double. The generic kernels only, with
  // run-time typed loads and stores.
  bool dyn = false;
  int types[kNormData] = {};
  unsigned stat_double = 0;
  void *data[kNormData] = {};
  void *stat[kNormStats] = {};
};

// Blocks of the vectorised cols kernels that fit on one multiprocessor at
// once (the least over the four kernels of data type t): the plan sizes the
// grid to whole waves.
int normalization_cols_blocks_per_sm(cudnnDataType_t t);
// Chooses the persistent form for these args (sets the pers_* fields) when
// it applies; called by the plan after the fast path is chosen.
void plan_normalization_persistent(NormArgs &a);
// Workspace bytes of the persistent form (0 when it is not planned).
size_t normalization_persistent_workspace_bytes(const NormArgs &a);
// Runs the persistent form on `stream` with its workspace area (true), or
// nothing (false: not planned, or the grid cannot be co-resident now).
bool launch_normalization_persistent(const NormArgs &a, void *pers_ws, void *stream);
// Chooses the grid form (sets grid_blocks, grid_rows, grid_l2_rows) when
// it applies; called by the plan after the fast path is chosen.
void plan_normalization_grid(NormArgs &a);
// Workspace bytes of the grid form (0 when it is not planned).
size_t normalization_grid_workspace_bytes(const NormArgs &a);
// Runs the grid form on `stream` with its workspace area (true), or nothing
// (false: not planned, or the grid cannot be co-resident now).
bool launch_normalization_grid(const NormArgs &a, void *grid_ws, void *stream);
// Runs the inference form on `stream` (true), or nothing (false: not
// inference, or a shape or type it does not take).
bool launch_normalization_inference(const NormArgs &a, void *stream);
// Chooses the resident cluster form (sets res_cs, res_bufs) when it
// applies; called by the plan after the fast path is chosen.
void plan_normalization_resident(NormArgs &a);
// Runs the resident cluster form on `stream` (true), or nothing (false: not
// planned, or no such cluster fits on the GPU now).
bool launch_normalization_resident(const NormArgs &a, void *stream);
// Clusters of `cs` blocks of `threads` threads with `smem` bytes of dynamic
// shared memory each of `kernel` that can be resident at once on the
// current device (0: none); sets the kernel's shared-memory (and, above 8
// blocks, non-portable cluster) attributes. Cached per (device, kernel,
// cs, smem).
int normalization_cluster_slots(const void *kernel, int cs, int threads, size_t smem);
// Workspace bytes the kernels need for these args.
size_t normalization_workspace_bytes(const NormArgs &a);
// Runs the whole operation on `stream` with `workspace` (at least
// normalization_workspace_bytes).
void launch_normalization(const NormArgs &a, void *workspace, void *stream);

}  // namespace fdnn::cuda
