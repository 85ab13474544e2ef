/* The packed, register-blocked GEMM of cpu_gemm (cpu_gemm_packed.c):
 * C[m,n] = A[m,k] B[k,n], row-major, A and B in f32, f16 or bf16 (converted
 * while packing), C in f32 with fp32 accumulation. */
#ifndef BENCH_CPU_GEMM_PACKED_H
#define BENCH_CPU_GEMM_PACKED_H

#include <stddef.h>
#include <stdint.h>

#include "bench/plugin.h"
#include "cpu_common.h"

/* A micro-kernel: C[mr,nr] (+)= Ap[kc][mr] * Bp[kc][nr] from packed panels;
 * rows: C[mr,nr] = A[mr][kc] * B[kc][nr] with A's rows read in place, lda
 * apart (for A in L1/L2 that is not worth packing: cpu_attention), and B's
 * rows of nr floats ldb apart (nr: a packed micro-panel; or B in place). */
struct gemm_kernel {
  const char *name; /* "avx512 12x32", "avx2 6x16", "generic 6x16" */
  int mr, nr;      /* register tile */
  int mc, kc, nc;  /* cache blocks: A block mc x kc in L2, B panel kc x nc in L3 */
  void (*fn)(int64_t kc, const float *ap, const float *bp, float *c, int64_t ldc, int accumulate);
  void (*rows)(int64_t kc, const float *a, int64_t lda, const float *b, int64_t ldb, float *c,
               int64_t ldc);
  int kc_most;     /* the longest kc worth it (size_blocks) */
};

/* *out = the kernel for isa "auto" (the widest this CPU runs), "avx512",
 * "avx2" or "generic", with cache blocks sized for this machine's caches;
 * -1 when this CPU lacks that instruction set. */
int gemm_kernel_pick(const char *isa, struct gemm_kernel *out);

struct gemm_problem {
  int64_t m, n, k;
  const void *a, *b; /* row-major, element type dtype */
  enum bench_dtype dtype;
  float *c;
};

/* An A micro-panel from f32 rows: panel[p * rows + i] = a[i * lda + p]
 * for i < rows (the kernel's mr), p < cols. */
void gemm_pack_rows_f32(const float *a, int64_t lda, int rows, int64_t cols, float *panel);

/* Floats of packing buffer one thread needs for kernel kr. */
size_t gemm_packed_buffer_floats(const struct gemm_kernel *kr);

/* Rows [i0, i1) and columns [j0, j1) of C, packing into buf (one thread's). */
void gemm_packed_block(const struct gemm_kernel *kr, const struct gemm_problem *g, int64_t i0,
                       int64_t i1, int64_t j0, int64_t j1, float *buf);

/* The shared state of the threads that compute one GEMM together
 * (gemm_packed_team): two B panels (one packed while the other is still
 * read) and the counters that hand out the work and count what is done. */
struct gemm_row_counter {
  _Alignas(64) _Atomic int64_t next; /* one cache line each */
};
struct gemm_team_counters {
  _Alignas(64) _Atomic int64_t next;      /* B's pieces to pack, claimed */
  _Alignas(64) _Atomic int64_t packed;    /* B's pieces packed */
  _Alignas(64) _Atomic int64_t rows_done; /* micro-panel rows multiplied */
};
struct gemm_team {
  float *b[2];
  int nthreads;
  struct gemm_team_counters *count; /* 64-byte aligned */
  struct gemm_row_counter *own;     /* per thread: its share of C's rows */
};
/* 0, or -1 when out of memory (then gemm_team_free is still safe). */
int gemm_team_init(struct gemm_team *t, const struct gemm_kernel *kr, int nthreads);
/* Before each task: the counters back to zero. */
void gemm_team_reset(struct gemm_team *t);
void gemm_team_free(struct gemm_team *t);

/* All of C on the slots of one cpu_pool_run task (call from each, with its
 * slot as tid and its own packing buffer buf; gemm_team_reset before the
 * task). For each B panel, the threads first pack its micro-panels, taken
 * a piece at a time from a counter, then multiply C's rows into it: each
 * slot its own share of the rows (the same in every panel, so its C rows
 * stay in one thread's caches), block by block, then what is left of the
 * others' shares. No barrier: before multiplying a panel a thread waits
 * until its pieces are packed and the previous panel's rows are done,
 * that is only for pieces that threads have claimed and are working on.
 * A slot that starts late (its thread descheduled, or the caller running
 * it after its own) finds the work taken and returns, and a worker returns
 * between pieces when cpu_pool_yield_point says so (the caller takes the
 * rest); a thread that is descheduled holding a block holds the others up
 * for that block only.
 * Which thread computes a block does not change its bits. */
void gemm_packed_team(const struct gemm_kernel *kr, const struct gemm_problem *g, float *buf,
                      struct gemm_team *team, int tid);

#endif
