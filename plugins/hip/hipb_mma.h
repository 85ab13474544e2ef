/* hipb_mma.h: the warp-level steps of the tensor-core kernels of the
 * cuda_* build (NVIDIA sm_80 and later), in one place: cp.async (16 bytes
 * global -> shared) with its commit and wait, ldmatrix .x4 [.trans],
 * mma.sync m16n8k16 (f16/bf16 in, fp32 accumulate), a warp shuffle and the
 * f16/bf16 conversions of operands; and, on them, mm_fetch_tile (a tile of
 * a matrix into shared memory, edges zero). Kernels (hip_gemm_mma.h,
 * hip_attention_mma.h) use only these for what is not plain C++, so that
 * tests/cuda/mma_emu.h, which defines HIPB_MMA_EMU and its own mm_*
 * doing what the PTX ISA says of each on the CPU, runs and checks the
 * kernels' indexing, pipelines and masks without a GPU. */
#ifndef HIPB_MMA_H
#define HIPB_MMA_H

#if !defined(HIPB_MMA_EMU)
#define MM_SHARED(name) extern __shared__ __align__(16) uint16_t name[]

/* A shared-memory address as the PTX takes it (32-bit, in the shared
 * window). */
__device__ inline uint32_t mm_smem(const void *p) {
  return (uint32_t)__cvta_generic_to_shared(p);
}

/* 16 bytes global -> shared, bypassing L1; `bytes` of them read, the rest
 * zero (0: nothing read, 16 zeros written). */
__device__ inline void mm_cp16(uint32_t dst, const void *src, int bytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(dst), "l"(src), "r"(bytes)
               : "memory");
#else
  (void)dst, (void)src, (void)bytes;
#endif
}
__device__ inline void mm_commit() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;" ::: "memory");
#endif
}
/* Wait until at most n of this thread's groups are in flight (n < stages). */
__device__ inline void mm_wait(int n) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  if (n <= 0)
    asm volatile("cp.async.wait_group 0;" ::: "memory");
  else if (n == 1)
    asm volatile("cp.async.wait_group 1;" ::: "memory");
  else
    asm volatile("cp.async.wait_group 2;" ::: "memory");
#else
  (void)n;
#endif
}

/* Four 8x8 matrices of 16-bit values from shared memory: lane l names row
 * l%8 of matrix l/8, and gets in r[q] row l/4, columns 2(l%4), 2(l%4)+1 of
 * matrix q (.trans: column l/4, rows 2(l%4), 2(l%4)+1). */
template <bool TRANS> __device__ inline void mm_ldsm4(uint32_t (&r)[4], uint32_t addr) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  if constexpr (TRANS)
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr));
  else
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr));
#else
  (void)addr;
  r[0] = r[1] = r[2] = r[3] = 0;
#endif
}

/* d (16x8 fp32) += a (16x16, row) * b (16x8, col). Lane l, g = l/4,
 * t = l%4: a[0] = A[g][2t..2t+1], a[1] = A[g+8][2t..], a[2] = A[g][2t+8..],
 * a[3] = A[g+8][2t+8..]; b[0] = B[2t..2t+1][g], b[1] = B[2t+8..][g];
 * d[0..1] = D[g][2t..2t+1], d[2..3] = D[g+8][2t..2t+1]. */
template <bool BF16>
__device__ inline void mm_mma(float (&d)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  if constexpr (BF16)
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, "
                 "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  else
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, "
                 "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
#else
  (void)d, (void)a, (void)b0, (void)b1;
#endif
}

/* v from lane (this lane ^ mask) of the warp. */
__device__ inline float mm_shfl_xor(float v, int mask) {
  return __shfl_xor_sync(0xffffffffu, v, mask);
}

/* Two fp32 values rounded (to nearest even) to f16 or bf16 and packed as
 * an mma operand register: lo in the low half. */
template <bool BF16> __device__ inline uint32_t mm_pack2(float lo, float hi) {
  uint32_t r = 0;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  if constexpr (BF16)
    asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
  else
    asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
#else
  (void)lo, (void)hi;
#endif
  return r;
}

/* One f16 or bf16 value (its bits) as fp32. */
template <bool BF16> __device__ inline float mm_to_f32(uint16_t bits) {
  if constexpr (BF16) {
    return __uint_as_float((uint32_t)bits << 16);
  } else {
    float f = 0.0f;
#if defined(__CUDA_ARCH__)
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(bits));
#else
    (void)bits;
#endif
    return f;
  }
}

/* ---- wgmma (sm_90a code alone: elsewhere these are empty, and a kernel
 * built on them must not be launched; see the plugin's probe) ---------- */

/* Generic-proxy writes to shared memory (cp.async's, the threads' own)
 * made visible to the async proxy wgmma reads through. */
__device__ inline void wg_fence_proxy() {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
#endif
}
/* Before the first wgmma that uses accumulators written by the threads. */
__device__ inline void wg_fence() {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#endif
}
__device__ inline void wg_commit() {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
#endif
}
/* Wait for every committed wgmma of the warpgroup; d (their accumulator)
 * is not read or written before (the empty asm pins each register). */
template <int N> __device__ inline void wg_wait0(float (&d)[N]) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
#pragma unroll
  for (int i = 0; i < N; i++) asm volatile("" : "+f"(d[i])::"memory");
#else
  (void)d;
#endif
}

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define WG_REGS32 \
  "{" \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31" \
  "}"

#define WG_REGS64 \
  "{" \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, " \
  "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, " \
  "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63" \
  "}"

#define WG_REGS128 \
  "{" \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, " \
  "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, " \
  "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, " \
  "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, " \
  "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, " \
  "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, " \
  "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127" \
  "}"

#define WG_D8(i) "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), "+f"(d[i + 4]), \
                 "+f"(d[i + 5]), "+f"(d[i + 6]), "+f"(d[i + 7])
#define WG_D32 WG_D8(0), WG_D8(8), WG_D8(16), WG_D8(24)
#define WG_D64 WG_D32, WG_D8(32), WG_D8(40), WG_D8(48), WG_D8(56)
#define WG_D128 WG_D64, WG_D8(64), WG_D8(72), WG_D8(80), WG_D8(88), WG_D8(96), WG_D8(104), \
                WG_D8(112), WG_D8(120)
/* d += A (descriptor da, K-major) x B (db, MN-major: imm-trans-b 1) */
#define WG_MMA_ASM(SHAPE, TYPE, REGS, IA, IB, IP, OUTS)                                     \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %" IP ", 0;\n"                              \
               "wgmma.mma_async.sync.aligned." SHAPE ".f32." TYPE "." TYPE " " REGS ", %" IA \
               ", %" IB ", p, 1, 1, 0, 1;\n}\n"                                              \
               : OUTS                                                                        \
               : "l"(da), "l"(db), "r"(1))
#endif

/* d (64 x BN fp32 of the warpgroup: d[4j + v] is row 16 warp + lane/4 (+8
 * for v >= 2), column 8j + 2(lane%4) + v%2) += A (64 x 16, descriptor da,
 * K-major) x B (16 x BN, db, MN-major). */
template <bool BF16, int BN>
__device__ inline void wg_mma(float (&d)[BN / 2], uint64_t da, uint64_t db) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  if constexpr (BN == 64) {
    if constexpr (BF16)
      WG_MMA_ASM("m64n64k16", "bf16", WG_REGS32, "32", "33", "34", WG_D32);
    else
      WG_MMA_ASM("m64n64k16", "f16", WG_REGS32, "32", "33", "34", WG_D32);
  } else if constexpr (BN == 128) {
    if constexpr (BF16)
      WG_MMA_ASM("m64n128k16", "bf16", WG_REGS64, "64", "65", "66", WG_D64);
    else
      WG_MMA_ASM("m64n128k16", "f16", WG_REGS64, "64", "65", "66", WG_D64);
  } else {
    if constexpr (BF16)
      WG_MMA_ASM("m64n256k16", "bf16", WG_REGS128, "128", "129", "130", WG_D128);
    else
      WG_MMA_ASM("m64n256k16", "f16", WG_REGS128, "128", "129", "130", WG_D128);
  }
#else
  (void)d, (void)da, (void)db;
#endif
}

#endif /* !HIPB_MMA_EMU */

/* A shared-memory matrix descriptor, 128-byte swizzle: the start address,
 * leading and stride byte offsets (each >> 4), mode 1 in bits 62-63. */
__device__ inline uint64_t wg_desc(uint32_t addr, uint32_t lbo, uint32_t sbo) {
  return (uint64_t)((addr & 0x3ffff) >> 4) | (uint64_t)((lbo & 0x3ffff) >> 4) << 16 |
         (uint64_t)((sbo & 0x3ffff) >> 4) << 32 | (uint64_t)1 << 62;
}


/* The R x C tile at (r0, c0) of a rows x cols row-major matrix into shared
 * memory, in 16-byte chunks (8 elements): chunk q is tile row q/(C/8),
 * columns 8(q%(C/8)), stored at base[at(r, c)] (at: the chunk's element
 * index, for any layout: padded rows, a swizzle). Past the edges, zeros.
 * With cols a multiple of 8 every chunk is whole or wholly out and goes by
 * cp.async (zero-filled when out); else by 16-bit loads and stores
 * (visible after the next barrier, as the copies are after their wait). */
template <int R, int C, int NT, typename At>
__device__ inline void mm_fetch_chunks(uint16_t *base, At at, const uint16_t *src, int rows,
                                       int cols, int r0, int c0) {
  constexpr int n = R * C / 8;
  const int tid = threadIdx.x;
#pragma unroll
  for (int g = 0; g < (n + NT - 1) / NT; g++) {
    const int q = tid + NT * g;
    if (n % NT != 0 && q >= n) break;
    const int r = q / (C / 8), c = 8 * (q % (C / 8));
    const int row = r0 + r, col = c0 + c;
    uint16_t *d = base + at(r, c);
    if (cols % 8 == 0) {
      const bool in = row < rows && col < cols;
      mm_cp16(mm_smem(d), in ? src + (size_t)row * cols + col : src, in ? 16 : 0);
    } else {
#pragma unroll
      for (int e = 0; e < 8; e++)
        d[e] = row < rows && col + e < cols ? src[(size_t)row * cols + col + e] : (uint16_t)0;
    }
  }
}

/* The same into dst with rows ld elements apart. */
template <int R, int C, int NT>
__device__ inline void mm_fetch_tile(uint16_t *dst, int ld, const uint16_t *src, int rows,
                                     int cols, int r0, int c0) {
  mm_fetch_chunks<R, C, NT>(dst, [ld](int r, int c) { return r * ld + c; }, src, rows, cols, r0, c0);
}

#endif
