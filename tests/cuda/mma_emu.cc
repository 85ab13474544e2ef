/* mma_emu: runs cuda_gemm's variant=mma kernel (plugins/hip/hip_gemm_mma.h)
 * on the CPU and checks C against a GEMM of the same inputs in double.
 *
 * The kernel is compiled as host C++ with HIPB_MMA_EMU: its threads are
 * fibers (ucontext) of one OS thread, run in turn; __syncthreads is a
 * barrier of the block's fibers, and the warp-level primitives are
 * barriers of the warp's 32 that do what the PTX ISA says of each:
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
 *                          fails.
 * Shared memory is fresh per block and filled with a poison pattern (NaN
 * in f16 and bf16), so a fragment read from a stage never written shows.
 *
 * Every tile and warp layout the plugin builds runs, f16 and bf16, stages
 * 2, 3 and 4, on shapes with every edge (m, n, k not multiples of the
 * tiles; k and n not multiples of 8, which takes the 16-bit fill). Prints
 * one line per configuration and "mma_emu: N configurations, all OK", or
 * the first wrong element and exits 1. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>

#include <cmath>
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

enum { EMU_STACK = 64 * 1024, EMU_MAX_THREADS = 256 };

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
};

static struct {
  ucontext_t sched;
  emu_fiber *fibers;
  int nthreads, cur;
  char *shared;
  emu_barrier block;
  emu_barrier warp[EMU_MAX_THREADS / 32];
  /* a warp's exchange: each lane's operands of the primitive */
  struct {
    uint32_t addr[32];
    uint32_t a[32][4], b[32][2];
    float d[32][4];
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

static void __syncthreads() { emu_wait(emu.block); }

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

#include "hip_gemm_mma.h"

/* ---- a launch: the grid's blocks in turn, each block's threads as fibers */

typedef void (*emu_kernel)(const uint16_t *, const uint16_t *, float *, int, int, int, int);

static struct {
  emu_kernel k;
  const uint16_t *a, *b;
  float *c;
  int m, n, k_, stages;
} emu_args;

static void emu_entry() {
  emu_args.k(emu_args.a, emu_args.b, emu_args.c, emu_args.m, emu_args.n, emu_args.k_,
             emu_args.stages);
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
  getcontext(&f.ctx);
  f.ctx.uc_stack.ss_sp = f.stack.data();
  f.ctx.uc_stack.ss_size = f.stack.size();
  f.ctx.uc_link = &emu.sched;
  makecontext(&f.ctx, emu_entry, 0);
}

static void emu_launch(emu_kernel k, unsigned gx, unsigned gy, int nthreads, size_t shared_bytes) {
  std::vector<char> shared(shared_bytes + 16);
  std::vector<emu_fiber> fibers((size_t)nthreads);
  for (unsigned by = 0; by < gy; by++)
    for (unsigned bx = 0; bx < gx; bx++) {
      for (size_t i = 0; i < shared_bytes; i += 2) { /* 0x7fff: NaN in f16 and bf16 */
        shared[i] = (char)0xff;
        shared[i + 1] = 0x7f;
      }
      emu.shared = shared.data();
      emu.fibers = fibers.data();
      emu.nthreads = nthreads;
      emu.block = emu_barrier{nthreads, 0, 0};
      for (int w = 0; w < nthreads / 32; w++) emu.warp[w] = emu_barrier{32, 0, 0};
      blockIdx = emu_dim3{bx, by, 0};
      for (int t = 0; t < nthreads; t++) emu_fiber_start(fibers[(size_t)t]);
      (void)k;
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

/* ---- the configurations ---------------------------------------------- */

template <bool BF16, int BM, int BN, int WM, int WN>
static int run_one(int m, int n, int k, int stages) {
  std::vector<uint16_t> a((size_t)m * k), b((size_t)k * n);
  std::vector<float> af(a.size()), bf(b.size()), c((size_t)m * n, -12345.0f);
  uint32_t x = 12345u + (uint32_t)(m * 31 + n * 7 + k);
  auto rnd = [&x]() {
    x = x * 1664525u + 1013904223u;
    return (float)((x >> 9) % 17) / 8.0f - 1.0f; /* -1 .. 1 in eighths: exact in both */
  };
  for (size_t i = 0; i < a.size(); i++) {
    const float v = rnd();
    a[i] = BF16 ? bench_f32_to_bf16(v) : bench_f32_to_f16(v);
    af[i] = BF16 ? bench_bf16_to_f32(a[i]) : bench_f16_to_f32(a[i]);
  }
  for (size_t i = 0; i < b.size(); i++) {
    const float v = rnd();
    b[i] = BF16 ? bench_f32_to_bf16(v) : bench_f32_to_f16(v);
    bf[i] = BF16 ? bench_bf16_to_f32(b[i]) : bench_f16_to_f32(b[i]);
  }
  emu_args = {gemm_mma<BF16, BM, BN, WM, WN>, a.data(), b.data(), c.data(), m, n, k, stages};
  emu_launch(emu_args.k, (unsigned)((n + BN - 1) / BN), (unsigned)((m + BM - 1) / BM),
             WM * WN * 32, (size_t)mm_smem_bytes(BM, BN, stages));
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++) {
      double s = 0;
      for (int q = 0; q < k; q++) s += (double)af[(size_t)i * k + q] * bf[(size_t)q * n + j];
      const float got = c[(size_t)i * n + j];
      /* products of eighths, sums of at most a few hundred: exact in fp32 */
      if (!(std::fabs(got - s) <= 1e-3 * (1 + std::fabs(s)))) {
        printf("mma_emu: %s %dx%d warps %dx%d stages %d, m=%d n=%d k=%d: C[%d][%d] = %g, want "
               "%g\n", BF16 ? "bf16" : "f16", BM, BN, WM, WN, stages, m, n, k, i, j, got, s);
        return 1;
      }
    }
  return 0;
}

static int configs;

template <int BM, int BN, int WM, int WN> static int run_tile() {
  /* shapes: whole tiles and many slices; every edge; k and n not multiples
   * of 8 (the 16-bit fill); fewer slices than stages; one row */
  const int shapes[][3] = {{BM, BN, 96},          {BM + 17, BN + 8, 72}, {BM - 3, 2 * BN - 5, 37},
                           {7, 13, 5},            {1, BN, 8},            {2 * BM, 24, 160}};
  for (const auto &sh : shapes)
    for (int stages = 2; stages <= MM_MAX_STAGES; stages++) {
      if (run_one<false, BM, BN, WM, WN>(sh[0], sh[1], sh[2], stages)) return 1;
      if (run_one<true, BM, BN, WM, WN>(sh[0], sh[1], sh[2], stages)) return 1;
      configs += 2;
    }
  printf("mma_emu: tile %dx%d warps %dx%d: f16 and bf16, stages 2-%d, %zu shapes OK\n", BM, BN,
         WM, WN, MM_MAX_STAGES, sizeof shapes / sizeof shapes[0]);
  return 0;
}

int main(int argc, char **argv) {
  /* "quick": the default tile's two layouts and the smallest; else every
   * tile and layout hip_gemm.hip builds (GEMM_MMA's list) */
  const bool quick = argc > 1 && strcmp(argv[1], "quick") == 0;
  int bad = run_tile<128, 128, 2, 2>() || run_tile<128, 128, 2, 4>() || run_tile<32, 32, 2, 2>();
  if (!bad && !quick)
    bad = run_tile<64, 64, 2, 2>() || run_tile<64, 64, 2, 4>() || run_tile<128, 64, 2, 2>() ||
          run_tile<128, 64, 2, 4>() || run_tile<64, 128, 2, 2>() || run_tile<64, 128, 2, 4>() ||
          run_tile<256, 128, 2, 4>() || run_tile<128, 256, 2, 4>();
  if (bad) return 1;
  if (configs == 0) {
    printf("mma_emu: no configuration ran\n");
    return 1;
  }
  printf("mma_emu: %d configurations, all OK\n", configs);
  return 0;
}
