// Device helpers for Hopper's warpgroup matrix instructions (wgmma, sm_90a
// only): shared-memory matrix descriptors, the fences and waits around
// asynchronous wgmma groups, and m64n192k16 products with float
// accumulators whose 16-bit A and B operands both lie "MN-major" in shared
// memory (rows along the reduction, each row 64 contiguous M or N values of
// 128 bytes, 128-byte swizzle; convolution_wgrad_wgmma.cu), m64nNk16
// products whose operands both lie K-major (convolution_fwd_wgmma.cu), the
// mbarrier operations of producer / consumer rings, and 2-D tensor-map copies.
//
// Compile the callers for sm_90a (-gencode=arch=compute_90a,code=sm_90a);
// on other targets the instructions are absent and callers must not run
// (see FREEDNN_WGMMA_COMPILED).
#pragma once

#include <cstdint>

// Whether this device pass has the sm_90a instructions.
#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define FREEDNN_WGMMA_COMPILED 1
#else
#define FREEDNN_WGMMA_COMPILED 0
#endif

namespace fdnn::cuda::wgmma {

#if FREEDNN_WGMMA_COMPILED

__device__ __forceinline__ uint32_t smem_addr(const void *p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

// The descriptor of a shared-memory operand with the 128-byte swizzle.
// For MN-major operands: lbo = bytes between successive 64-value (128-byte)
// blocks along M / N, sbo = bytes between successive groups of 8 rows along
// the reduction. The hardware swizzles by address bits (bits 4-6 ^= bits
// 7-9), so a start that is not 1024-byte aligned (a row offset inside the
// swizzle atom) reads the rows written there with the same address-based
// swizzle; base offset 0 (measured: setting it to the row offset is wrong).
__device__ __forceinline__ uint64_t sw128_desc(uint32_t addr, uint32_t lbo, uint32_t sbo) {
  uint64_t d = static_cast<uint64_t>((addr & 0x3FFFF) >> 4);
  d |= static_cast<uint64_t>((lbo & 0x3FFFF) >> 4) << 16;
  d |= static_cast<uint64_t>((sbo & 0x3FFFF) >> 4) << 32;
  d |= 1ull << 62;  // layout: 128-byte swizzle
  return d;
}

// Byte offset of 16-byte chunk `chunk` (0..7) of row `row` in a region of
// 128-byte rows that starts 1024-byte aligned, swizzled as wgmma reads it.
__device__ __forceinline__ uint32_t sw128_offset(int row, int chunk) {
  return static_cast<uint32_t>(row * 128 + ((chunk ^ (row & 7)) << 4));
}

// Ordinary or cp.async shared-memory writes become visible to wgmma's
// (async proxy) reads: each writing thread, before the barrier.
__device__ __forceinline__ void fence_proxy_async() { asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory"); }
__device__ __forceinline__ void fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void commit_group() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
template <int Pending>
__device__ __forceinline__ void wait_group() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(Pending) : "memory");
}

// Keeps the compiler from moving accumulator definitions into a wgmma
// pipeline stage (ptxas would serialize the wgmmas, warning C7515).
template <int N>
__device__ __forceinline__ void pin_registers(float (&d)[N]) {
#pragma unroll
  for (int i = 0; i < N; ++i) asm volatile("" : "+f"(d[i])::"memory");
}

// The accumulator operands of the wgmma instructions below, in blocks of
// 32 registers: the "%i" list of the instruction text and the "+f" outputs.
#define FREEDNN_WGMMA_REGS_0 \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "  \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
#define FREEDNN_WGMMA_OUTS_0(d) \
  "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
      "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
      "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
      "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
#define FREEDNN_WGMMA_REGS_32 \
  "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "  \
  "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
#define FREEDNN_WGMMA_OUTS_32(d) \
  "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), \
      "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), \
      "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), \
      "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
#define FREEDNN_WGMMA_REGS_64 \
  "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "  \
  "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95"
#define FREEDNN_WGMMA_OUTS_64(d) \
  "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), \
      "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), \
      "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), \
      "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95])
#define FREEDNN_WGMMA_REGS_96 \
  "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, "  \
  "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127"
#define FREEDNN_WGMMA_OUTS_96(d) \
  "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), \
      "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), \
      "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), \
      "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
#define FREEDNN_WGMMA_REGS_64ACC FREEDNN_WGMMA_REGS_0 ", " FREEDNN_WGMMA_REGS_32
#define FREEDNN_WGMMA_OUTS_64ACC(d) FREEDNN_WGMMA_OUTS_0(d), FREEDNN_WGMMA_OUTS_32(d)
#define FREEDNN_WGMMA_REGS_96ACC FREEDNN_WGMMA_REGS_64ACC ", " FREEDNN_WGMMA_REGS_64
#define FREEDNN_WGMMA_OUTS_96ACC(d) FREEDNN_WGMMA_OUTS_64ACC(d), FREEDNN_WGMMA_OUTS_64(d)
#define FREEDNN_WGMMA_REGS_128ACC FREEDNN_WGMMA_REGS_96ACC ", " FREEDNN_WGMMA_REGS_96
#define FREEDNN_WGMMA_OUTS_128ACC(d) FREEDNN_WGMMA_OUTS_96ACC(d), FREEDNN_WGMMA_OUTS_96(d)

// One m64nNk16 wgmma with float accumulators: TY the operand type ("f16" or
// "bf16"), ACC the number of accumulators (N / 2), TRANS the operands'
// major-ness flags. The scale-d predicate is always 1 (accumulate).
#define FREEDNN_WGMMA_ASM(N, TY, ACC, IA, IB, IP, TRANS)                                             \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %" #IP ", 0;\n"                                  \
               "wgmma.mma_async.sync.aligned.m64n" #N "k16.f32." TY "." TY " {" FREEDNN_WGMMA_REGS_##ACC \
               "}, %" #IA ", %" #IB ", p, 1, 1" TRANS ";\n}\n"                                     \
               : FREEDNN_WGMMA_OUTS_##ACC(d)                                                         \
               : "l"(desc_a), "l"(desc_b), "r"(1))

// d (64 x 192 float, the m64nNk16 fragment layout) += A (64 x 16) * B (16 x 192),
// both operands MN-major (transposed) in shared memory.
template <bool Bf16>
__device__ __forceinline__ void mma_m64n192k16_tt(float (&d)[96], uint64_t desc_a, uint64_t desc_b) {
  if constexpr (Bf16)
    FREEDNN_WGMMA_ASM(192, "bf16", 96ACC, 96, 97, 98, ", 1, 1");
  else
    FREEDNN_WGMMA_ASM(192, "f16", 96ACC, 96, 97, 98, ", 1, 1");
}

// d (64 x N float, the m64nNk16 fragment layout) += A (64 x 16) * B (16 x N),
// A K-major in shared memory: rows along M, each row 64 contiguous
// reduction values (128 bytes) with the 128-byte swizzle; its descriptor:
// sbo = 1024 (the stride of 8-row groups), lbo unused; the k16 steps inside
// a row start 32 bytes apart. B the same (TransB false, rows along N) or
// MN-major (TransB true: rows along the reduction, each 64 N-values with
// the 128-byte swizzle, 64-value blocks along N lbo bytes apart, sbo =
// 1024, the k16 steps 16 rows = 2048 bytes apart). N = 64, 128 or 256.
template <bool Bf16, int N, bool TransB = false>
__device__ __forceinline__ void mma_m64k16(float (&d)[N / 2], uint64_t desc_a, uint64_t desc_b) {
  static_assert(N == 64 || N == 128 || N == 256, "m64n64 / n128 / n256 only");
#define FREEDNN_WGMMA_BOTH_TYPES(N_, ACC, IA, IB, IP, TRANS) \
  if constexpr (Bf16) FREEDNN_WGMMA_ASM(N_, "bf16", ACC, IA, IB, IP, TRANS); \
  else FREEDNN_WGMMA_ASM(N_, "f16", ACC, IA, IB, IP, TRANS);
  if constexpr (N == 64) {
    if constexpr (TransB) { FREEDNN_WGMMA_BOTH_TYPES(64, 0, 32, 33, 34, ", 0, 1") }
    else { FREEDNN_WGMMA_BOTH_TYPES(64, 0, 32, 33, 34, ", 0, 0") }
  } else if constexpr (N == 128) {
    if constexpr (TransB) { FREEDNN_WGMMA_BOTH_TYPES(128, 64ACC, 64, 65, 66, ", 0, 1") }
    else { FREEDNN_WGMMA_BOTH_TYPES(128, 64ACC, 64, 65, 66, ", 0, 0") }
  } else {
    if constexpr (TransB) { FREEDNN_WGMMA_BOTH_TYPES(256, 128ACC, 128, 129, 130, ", 0, 1") }
    else { FREEDNN_WGMMA_BOTH_TYPES(256, 128ACC, 128, 129, 130, ", 0, 0") }
  }
#undef FREEDNN_WGMMA_BOTH_TYPES
}

#undef FREEDNN_WGMMA_ASM
#undef FREEDNN_WGMMA_REGS_0
#undef FREEDNN_WGMMA_REGS_32
#undef FREEDNN_WGMMA_REGS_64
#undef FREEDNN_WGMMA_REGS_96
#undef FREEDNN_WGMMA_OUTS_0
#undef FREEDNN_WGMMA_OUTS_32
#undef FREEDNN_WGMMA_OUTS_64
#undef FREEDNN_WGMMA_OUTS_96
#undef FREEDNN_WGMMA_REGS_64ACC
#undef FREEDNN_WGMMA_OUTS_64ACC
#undef FREEDNN_WGMMA_REGS_96ACC
#undef FREEDNN_WGMMA_OUTS_96ACC
#undef FREEDNN_WGMMA_REGS_128ACC
#undef FREEDNN_WGMMA_OUTS_128ACC

// mbarriers in shared memory (the producer / consumer rings).
__device__ __forceinline__ void mbar_init(uint64_t *bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(smem_addr(bar)), "r"(count) : "memory");
}
__device__ __forceinline__ void mbar_arrive(uint64_t *bar) {
  asm volatile("{\n.reg .b64 st;\nmbarrier.arrive.shared::cta.b64 st, [%0];\n}\n" ::"r"(smem_addr(bar)) : "memory");
}
// One arrival on `bar` once every cp.async this thread issued before has
// landed (the barrier's expected count includes this thread).
__device__ __forceinline__ void mbar_arrive_on_cp_async(uint64_t *bar) {
  asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];\n" ::"r"(smem_addr(bar)) : "memory");
}
// One arrival on `bar` that also expects `bytes` more bytes of
// asynchronous copies (cp.async.bulk) to land before its phase completes.
__device__ __forceinline__ void mbar_arrive_expect_tx(uint64_t *bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(smem_addr(bar)), "r"(bytes)
               : "memory");
}
// The box of a 2-D tensor map (a CUtensorMap, passed as a __grid_constant__
// kernel parameter) at element coordinates (x inner, y) into shared memory
// at `dst`, completing on `bar` (its bytes counted by an expect_tx).
__device__ __forceinline__ void tma_load_2d(uint32_t dst, const void *tensor_map, int x, int y, uint64_t *bar) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];\n" ::
          "r"(dst),
      "l"(reinterpret_cast<uint64_t>(tensor_map)), "r"(x), "r"(y), "r"(smem_addr(bar))
      : "memory");
}
// The box of a 2-D tensor map at (x inner, y) from shared memory at `src`
// into global memory (the parts of the box inside the tensor), as a bulk
// async-group of the issuing thread (bulk_commit_group closes the group).
__device__ __forceinline__ void tma_store_2d(const void *tensor_map, uint32_t src, int x, int y) {
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];\n" ::"l"(
                   reinterpret_cast<uint64_t>(tensor_map)),
               "r"(x), "r"(y), "r"(src)
               : "memory");
}
__device__ __forceinline__ void bulk_commit_group() { asm volatile("cp.async.bulk.commit_group;\n" ::: "memory"); }
// Waits until at most N of this thread's bulk groups are pending: `_read`,
// until they have read their shared memory (it may be written again);
// otherwise until their writes are done.
template <int N>
__device__ __forceinline__ void bulk_wait_group_read() {
  asm volatile("cp.async.bulk.wait_group.read %0;\n" ::"n"(N) : "memory");
}
template <int N>
__device__ __forceinline__ void bulk_wait_group() {
  asm volatile("cp.async.bulk.wait_group %0;\n" ::"n"(N) : "memory");
}
// Named barrier `id` (1 .. 15; 0 is __syncthreads) among `threads` threads.
__device__ __forceinline__ void named_barrier(int id, int threads) {
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}
__device__ __forceinline__ void st_shared_u32(uint32_t addr, uint32_t v) {
  asm volatile("st.shared.u32 [%0], %1;\n" ::"r"(addr), "r"(v) : "memory");
}
// One im2col copy of an NHWC tensor map (tensor_map.hpp's
// encode_im2col_map_16bit): the map's pixels-per-column pixels whose window
// origins start at (w, h) of image n and follow in the map's traversal
// order (W, then H, then images), channels c .. c + the map's channels per
// pixel, each read at its origin + (dw, dh) (zeros outside the tensor).
__device__ __forceinline__ void tma_load_im2col_4d(uint32_t dst, const void *tensor_map, int c, int w, int h, int n,
                                                   uint16_t dw, uint16_t dh, uint64_t *bar) {
  asm volatile(
      "cp.async.bulk.tensor.4d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4, "
      "%5}], [%6], {%7, %8};\n" ::"r"(dst),
      "l"(reinterpret_cast<uint64_t>(tensor_map)), "r"(c), "r"(w), "r"(h), "r"(n), "r"(smem_addr(bar)), "h"(dw),
      "h"(dh)
      : "memory");
}
// The start of a producer / consumer ring in dynamic shared memory: the
// first 1024-byte boundary (the 128-byte swizzle's atom) at or after smem.
__device__ __forceinline__ uint32_t ring_start(const void *smem) { return (smem_addr(smem) + 1023) & ~1023u; }

// Thread 0 initializes the ring's `stages` pairs of barriers (full: every
// producer arrival a stage needs; empty: every consumer arrival), then the
// whole block waits for them.
__device__ __forceinline__ void init_ring_barriers(uint64_t *full, uint64_t *empty, int stages, unsigned full_arrivals,
                                                   unsigned empty_arrivals) {
  if (threadIdx.x == 0) {
    for (int i = 0; i < stages; ++i) {
      mbar_init(&full[i], full_arrivals);
      mbar_init(&empty[i], empty_arrivals);
    }
  }
  __syncthreads();
}

// Waits until the phase of `bar` with parity `parity` has completed.
__device__ __forceinline__ void mbar_wait(uint64_t *bar, unsigned parity) {
  asm volatile(
      "{\n.reg .pred done;\nwait_%=:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
      "@!done bra wait_%=;\n}\n" ::"r"(smem_addr(bar)),
      "r"(parity)
      : "memory");
}

#endif  // FREEDNN_WGMMA_COMPILED

}  // namespace fdnn::cuda::wgmma
