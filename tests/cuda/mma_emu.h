/* mma_emu.h: an NVIDIA block on the CPU, for the tensor-core kernels of
 * the cuda_* build (hipb_mma.h's primitives), so that tests run them here.
 *
 * A kernel header is compiled as host C++ after this one (which defines
 * HIPB_MMA_EMU): its threads are fibers (ucontext) of one OS thread, run
 * in turn; __syncthreads is a barrier of the block's fibers, and the
 * warp-level primitives are barriers of the warp's 32 that do what the PTX
 * ISA says of each:
 *   ldmatrix .x4 [.trans]  lane l names row l%8 of 8x8 matrix l/8 and gets
 *                          row l/4, columns 2(l%4)..+1 (.trans: column l/4,
 *                          rows 2(l%4)..+1) of each, the lower index in the
 *                          low half;
 *   mma.sync m16n8k16      the A (row), B (col) and C/D fragments of the
 *                          ISA's figures for .f16/.bf16 with .f32 C/D;
 *   cp.async               queued and done only at the cp.async.wait_group
 *                          that must see it (the latest the ISA allows), so
 *                          a read of a stage before its wait, or before the
 *                          barrier after it, reads stale data and the check
 *                          fails;
 *   shfl.sync.bfly         the value of lane ^ mask;
 *   cvt.rn.{f16,bf16}x2    round to nearest even (bench/dtype.h's);
 *   wgmma.mma_async        queued until wgmma.wait_group, then done reading
 *                          shared memory through its descriptors (the
 *                          128-byte-swizzle canonical layouts, below).
 * Shared memory is fresh per block and filled with a poison pattern (NaN
 * in f16 and bf16), so a fragment read from a stage never written shows.
 * emu_launch(body, grid, threads, shared bytes) runs a kernel. */
#ifndef MMA_EMU_H
#define MMA_EMU_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>

#include <math.h>

#include <cmath>
#include <functional>
#include <vector>

#include <bench/dtype.h>

/* ---- the CUDA device-side names the kernel uses ----------------------- */

#define __global__
#define __device__
#define __launch_bounds__(n)
#define __align__(n) alignas(n)

struct emu_dim3 {
  unsigned x, y, z;
};
struct float2 {
  float x, y;
};
static inline float2 make_float2(float x, float y) { return float2{x, y}; }

/* ---- fibers: the block's threads ------------------------------------- */

enum { EMU_STACK = 64 * 1024, EMU_MAX_THREADS = 512 };

struct emu_barrier {
  int n, count;
  unsigned gen;
};

struct emu_fiber {
  ucontext_t ctx;
  std::vector<char> stack;
  int done;
  /* cp.async: committed groups (oldest first) and the open one */
  struct copy {
    uint32_t dst;
    const void *src;
    int bytes;
  };
  std::vector<std::vector<copy>> groups;
  std::vector<copy> open;
  /* wgmma: committed groups and the open one */
  struct wgop {
    float *d;
    int bn, bf16;
    uint64_t da, db;
  };
  std::vector<std::vector<wgop>> wg_groups;
  std::vector<wgop> wg_open;
};

static struct {
  ucontext_t sched;
  emu_fiber *fibers;
  int nthreads, cur;
  char *shared;
  size_t shared_bytes;
  emu_barrier block;
  emu_barrier warp[EMU_MAX_THREADS / 32];
  /* a warp's exchange: each lane's operands of the primitive */
  struct {
    uint32_t addr[32];
    uint32_t a[32][4], b[32][2];
    float d[32][4];
    float f[32];
  } ex[EMU_MAX_THREADS / 32];
} emu;

static emu_dim3 threadIdx, blockIdx; /* the current fiber's (set on switch) */

static void emu_yield() {
  swapcontext(&emu.fibers[emu.cur].ctx, &emu.sched);
  threadIdx = emu_dim3{(unsigned)emu.cur, 0, 0};
}

static void emu_wait(emu_barrier &b) {
  const unsigned gen = b.gen;
  if (++b.count == b.n) {
    b.count = 0;
    b.gen++;
    return;
  }
  while (b.gen == gen) emu_yield();
}

static inline void __syncthreads() { emu_wait(emu.block); }

/* ---- the primitives, as the PTX ISA describes them --------------------- */

#define HIPB_MMA_EMU 1
#define MM_SHARED(name) uint16_t *name = (uint16_t *)emu.shared

static inline uint32_t mm_smem(const void *p) { return (uint32_t)((const char *)p - emu.shared); }

static inline void mm_cp16(uint32_t dst, const void *src, int bytes) {
  emu.fibers[emu.cur].open.push_back({dst, src, bytes});
}
static inline void mm_commit() {
  emu_fiber &f = emu.fibers[emu.cur];
  f.groups.push_back(f.open);
  f.open.clear();
}
static inline void mm_wait(int n) {
  emu_fiber &f = emu.fibers[emu.cur];
  while ((int)f.groups.size() > n) {
    for (const emu_fiber::copy &c : f.groups.front()) {
      if (c.dst % 16 != 0) {
        fprintf(stderr, "mma_emu: cp.async to shared offset %u, not 16-byte aligned\n", c.dst);
        exit(1);
      }
      memset(emu.shared + c.dst, 0, 16);
      memcpy(emu.shared + c.dst, c.src, (size_t)c.bytes);
    }
    f.groups.erase(f.groups.begin());
  }
}

static inline uint16_t emu_half(uint32_t addr, int e) {
  uint16_t v;
  memcpy(&v, emu.shared + addr + 2 * e, 2);
  return v;
}

template <bool TRANS> static inline void mm_ldsm4(uint32_t (&r)[4], uint32_t addr) {
  const int lane = emu.cur % 32, w = emu.cur / 32;
  if (addr % 16 != 0) {
    fprintf(stderr, "mma_emu: ldmatrix row at shared offset %u, not 16-byte aligned\n", addr);
    exit(1);
  }
  emu.ex[w].addr[lane] = addr;
  emu_wait(emu.warp[w]);
  const int g = lane / 4, t = lane % 4;
  for (int q = 0; q < 4; q++) {
    uint16_t lo, hi;
    if (TRANS) {
      lo = emu_half(emu.ex[w].addr[q * 8 + 2 * t], g);
      hi = emu_half(emu.ex[w].addr[q * 8 + 2 * t + 1], g);
    } else {
      lo = emu_half(emu.ex[w].addr[q * 8 + g], 2 * t);
      hi = emu_half(emu.ex[w].addr[q * 8 + g], 2 * t + 1);
    }
    r[q] = (uint32_t)lo | (uint32_t)hi << 16;
  }
  emu_wait(emu.warp[w]); /* every lane has read the addresses */
}

static inline float emu_val(bool bf16, uint32_t word, int half) {
  const uint16_t bits = (uint16_t)(word >> (16 * half));
  return bf16 ? bench_bf16_to_f32(bits) : bench_f16_to_f32(bits);
}

template <bool BF16>
static inline void mm_mma(float (&d)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
  const int lane = emu.cur % 32, w = emu.cur / 32;
  for (int i = 0; i < 4; i++) emu.ex[w].a[lane][i] = a[i], emu.ex[w].d[lane][i] = d[i];
  emu.ex[w].b[lane][0] = b0, emu.ex[w].b[lane][1] = b1;
  emu_wait(emu.warp[w]);
  /* A[r][k]: lane (r%8)*4 + (k%8)/2, register r/8 + 2(k/8), half k%2;
   * B[k][n]: lane n*4 + (k%8)/2, register k/8, half k%2;
   * D[r][n]: lane (r%8)*4 + n/2, value 2(r/8) + n%2 */
  const int g = lane / 4, t = lane % 4;
  float out[4];
  for (int v = 0; v < 4; v++) {
    const int row = g + 8 * (v / 2), col = 2 * t + v % 2;
    double s = emu.ex[w].d[lane][v];
    for (int k = 0; k < 16; k++) {
      const float av = emu_val(BF16, emu.ex[w].a[(row % 8) * 4 + (k % 8) / 2][row / 8 + 2 * (k / 8)], k % 2);
      const float bv = emu_val(BF16, emu.ex[w].b[col * 4 + (k % 8) / 2][k / 8], k % 2);
      s += (double)av * bv;
    }
    out[v] = (float)s;
  }
  emu_wait(emu.warp[w]); /* every lane has read the operands */
  for (int v = 0; v < 4; v++) d[v] = out[v];
}

static inline float mm_shfl_xor(float v, int mask) {
  const int lane = emu.cur % 32, w = emu.cur / 32;
  emu.ex[w].f[lane] = v;
  emu_wait(emu.warp[w]);
  const float r = emu.ex[w].f[lane ^ mask];
  emu_wait(emu.warp[w]); /* every lane has read */
  return r;
}

template <bool BF16> static inline uint32_t mm_pack2(float lo, float hi) {
  const uint16_t l = BF16 ? bench_f32_to_bf16(lo) : bench_f32_to_f16(lo);
  const uint16_t h = BF16 ? bench_f32_to_bf16(hi) : bench_f32_to_f16(hi);
  return (uint32_t)l | (uint32_t)h << 16;
}

template <bool BF16> static inline float mm_to_f32(uint16_t bits) {
  return BF16 ? bench_bf16_to_f32(bits) : bench_f16_to_f32(bits);
}

/* wgmma: the products are done at the wait (the latest the ISA allows),
 * reading shared memory then, so a stage refilled before its wait, or
 * accumulators read before it, show in the result. The descriptors are
 * read as the ISA's 128-byte-swizzle canonical layouts: A K-major (row m
 * at (m/8) SBO + (m%8) 128 bytes, k contiguous), B MN-major (n at
 * (n/64) LBO + 2 (n%64) bytes, k row at (k/8) SBO + (k%8) 128); each
 * address then swizzled, 16-byte chunk bits 4-6 ^= bits 7-9. */
static inline void wg_fence_proxy() {}
static inline void wg_fence() {}
static inline void wg_commit() {
  emu_fiber &f = emu.fibers[emu.cur];
  f.wg_groups.push_back(f.wg_open);
  f.wg_open.clear();
}
template <bool BF16, int BN>
static inline void wg_mma(float (&d)[BN / 2], uint64_t da, uint64_t db) {
  emu.fibers[emu.cur].wg_open.push_back({d, BN, BF16, da, db});
}

static inline float emu_wg_val(bool bf16, uint64_t desc, uint32_t rel) {
  if (desc >> 62 != 1) {
    fprintf(stderr, "mma_emu: wgmma descriptor %#llx: not the 128-byte swizzle\n",
            (unsigned long long)desc);
    exit(1);
  }
  const uint32_t addr = ((uint32_t)desc & 0x3fff) * 16 + rel;
  const uint32_t phys = addr ^ (((addr >> 7) & 7) << 4);
  if (phys + 2 > emu.shared_bytes) {
    fprintf(stderr, "mma_emu: wgmma reads shared byte %u of %zu\n", phys, emu.shared_bytes);
    exit(1);
  }
  uint16_t v;
  memcpy(&v, emu.shared + phys, 2);
  return bf16 ? bench_bf16_to_f32(v) : bench_f16_to_f32(v);
}

template <int N> static inline void wg_wait0(float (&)[N]) {
  emu_fiber &f = emu.fibers[emu.cur];
  const int lane = emu.cur % 32, w = (emu.cur % 128) / 32, g = lane / 4, t = lane % 4;
  for (const std::vector<emu_fiber::wgop> &grp : f.wg_groups)
    for (const emu_fiber::wgop &op : grp) {
      const uint32_t lbo = (uint32_t)(op.db >> 16 & 0x3fff) * 16;
      const uint32_t sbo_a = (uint32_t)(op.da >> 32 & 0x3fff) * 16;
      const uint32_t sbo_b = (uint32_t)(op.db >> 32 & 0x3fff) * 16;
      for (int i = 0; i < op.bn / 2; i++) {
        const int v = i % 4, row = 16 * w + g + 8 * (v / 2), col = 8 * (i / 4) + 2 * t + v % 2;
        double s = op.d[i];
        for (int k = 0; k < 16; k++) {
          const float a = emu_wg_val(op.bf16, op.da, (uint32_t)(row / 8) * sbo_a + (uint32_t)(row % 8) * 128 + 2 * (uint32_t)k);
          const float b = emu_wg_val(op.bf16, op.db, (uint32_t)(col / 64) * lbo + 2 * (uint32_t)(col % 64) +
                                                         (uint32_t)(k % 8) * 128 + (uint32_t)(k / 8) * sbo_b);
          s += (double)a * b;
        }
        op.d[i] = (float)s;
      }
    }
  f.wg_groups.clear();
}

/* ---- a launch: the grid's blocks in turn, each block's threads as fibers */

static std::function<void()> emu_body; /* the kernel with its arguments */

static void emu_entry() {
  emu_body();
  emu.fibers[emu.cur].done = 1;
  swapcontext(&emu.fibers[emu.cur].ctx, &emu.sched);
}

/* Out of line: getcontext returns twice, which the loops of emu_launch
 * must not see (-Wclobbered). */
__attribute__((noinline)) static void emu_fiber_start(emu_fiber &f) {
  if (f.stack.size() != EMU_STACK) f.stack.resize(EMU_STACK);
  f.done = 0;
  f.groups.clear();
  f.open.clear();
  f.wg_groups.clear();
  f.wg_open.clear();
  getcontext(&f.ctx);
  f.ctx.uc_stack.ss_sp = f.stack.data();
  f.ctx.uc_stack.ss_size = f.stack.size();
  f.ctx.uc_link = &emu.sched;
  makecontext(&f.ctx, emu_entry, 0);
}

/* body() (the kernel, its arguments bound) on a gx x gy x gz grid of
 * nthreads-thread blocks with shared_bytes of dynamic shared memory each,
 * poisoned before every block. */
static void emu_launch(std::function<void()> body, unsigned gx, unsigned gy, unsigned gz,
                       int nthreads, size_t shared_bytes) {
  if (nthreads > EMU_MAX_THREADS || nthreads % 32 != 0) {
    fprintf(stderr, "mma_emu: %d threads a block (whole warps, at most %d)\n", nthreads,
            EMU_MAX_THREADS);
    exit(1);
  }
  emu_body = std::move(body);
  std::vector<char> shared(shared_bytes + 16);
  std::vector<emu_fiber> fibers((size_t)nthreads);
  for (unsigned bz = 0; bz < gz; bz++)
    for (unsigned by = 0; by < gy; by++)
      for (unsigned bx = 0; bx < gx; bx++) {
        for (size_t i = 0; i < shared_bytes; i += 2) { /* 0x7fff: NaN in f16 and bf16 */
          shared[i] = (char)0xff;
          shared[i + 1] = 0x7f;
        }
        emu.shared = shared.data();
        emu.shared_bytes = shared_bytes;
        emu.fibers = fibers.data();
        emu.nthreads = nthreads;
        emu.block = emu_barrier{nthreads, 0, 0};
        for (int w = 0; w < nthreads / 32; w++) emu.warp[w] = emu_barrier{32, 0, 0};
        blockIdx = emu_dim3{bx, by, bz};
        for (int t = 0; t < nthreads; t++) emu_fiber_start(fibers[(size_t)t]);
        for (int live = nthreads; live > 0;) {
          live = 0;
          for (int t = 0; t < nthreads; t++) {
            if (fibers[(size_t)t].done) continue;
            emu.cur = t;
            threadIdx = emu_dim3{(unsigned)t, 0, 0};
            swapcontext(&emu.sched, &fibers[(size_t)t].ctx);
            live += !fibers[(size_t)t].done;
          }
        }
      }
}

#endif
