/* gemm_check_rate: how often the fast GEMM check (VERIFY_FAST) catches one
 * planted wrong element, and what it costs. Built, never run by ctest;
 * studies/gemm_check_rate.sh drives it.
 *
 *   gemm_check_rate [--trials T] [--positive] [--out-f32] [--rows M] N...
 *
 * --rows M computes and checks only the first M rows (m = M, n = k = N):
 * the check tests each row on its own with a block width and tolerances
 * that follow n and k, so 4096 and 8192 can be measured without an
 * 8192^3 CPU GEMM. Timings then cover those M rows.
 * For each size N (N x N x N) and input dtype f32, f16, bf16 (output the
 * same dtype, or f32 with --out-f32) it computes a correct GEMM in f32
 * accumulated in blocks of 64 along k (another order than the reference),
 * then plants one element off by F times its own full-check tolerance
 * (atol + rtol * sum_k |a_ik||b_kj|), F in 2, 5, 10, 20, 50, 100, at T positions of
 * each kind: corners, tile edges (rows and columns at multiples of 16, 32,
 * 64, +-1) and random positions, each trial with its own seed and one of
 * the four A/B layouts in turn. It prints the catch rate per kind, the
 * false positives of the correct output over 2T seeds, and the time of one
 * check (wall, and CPU time summed over its threads: on a busy machine
 * the wall time mostly measures waiting) as a share of the GEMM above. Inputs are uniform in
 * [-1, 1) as the harness fills them, or in [0, 1) with --positive (no
 * cancellation: the largest |C| for its scale, the hardest case for f16). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check/check.h"
#include "check/dtype.h"
#include "check/reference.h"

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* C = A B in f32, k in blocks of 64 whose partial sums are added; columns
 * in panels of 256 so that a panel of B stays in cache. */
static void gemm_blocked(const float *a, const float *b, float *c, int m, int n) {
  enum { PANEL = 256 };
  float part[PANEL];
  for (int j0 = 0; j0 < n; j0 += PANEL) {
    const int w = n - j0 < PANEL ? n - j0 : PANEL;
    for (int i = 0; i < m; i++) {
      float *cr = c + (size_t)i * n + j0;
      for (int j = 0; j < w; j++) cr[j] = 0;
      for (int k0 = 0; k0 < n; k0 += 64) {
        for (int j = 0; j < w; j++) part[j] = 0;
        for (int kk = k0; kk < k0 + 64 && kk < n; kk++) {
          const float av = a[(size_t)i * n + kk];
          const float *br = b + (size_t)kk * n + j0;
          for (int j = 0; j < w; j++) part[j] += av * br[j];
        }
        for (int j = 0; j < w; j++) cr[j] += part[j];
      }
    }
  }
}

static int64_t tile_edge(uint64_t r, int n) {
  static const int tiles[] = {16, 32, 64};
  const int t = tiles[r % 3];
  const int count = n / t;
  int64_t v = (int64_t)((r >> 8) % (uint64_t)(count > 1 ? count - 1 : 1) + 1) * t;
  v += (int64_t)((r >> 4) % 3) - 1; /* -1, 0, +1 */
  return v < 0 ? 0 : v >= n ? n - 1 : v;
}

/* Layout t % 4: bit 0 transposes A, bit 1 transposes B. */
static uint32_t layout_flags(int t) {
  return (t & 1 ? BENCH_GEMM_TRANS_A : 0u) | (t & 2 ? BENCH_GEMM_TRANS_B : 0u);
}

int main(int argc, char **argv) {
  int trials = 8, positive = 0, out_f32 = 0, rows = 0;
  int first = 1;
  for (; first < argc && argv[first][0] == '-'; first++) {
    if (!strcmp(argv[first], "--trials") && first + 1 < argc) trials = atoi(argv[++first]);
    else if (!strcmp(argv[first], "--positive")) positive = 1;
    else if (!strcmp(argv[first], "--out-f32")) out_f32 = 1;
    else if (!strcmp(argv[first], "--rows") && first + 1 < argc) rows = atoi(argv[++first]);
    else {
      fprintf(stderr, "usage: gemm_check_rate [--trials T] [--positive] [--out-f32] [--rows M] N...\n");
      return 2;
    }
  }
  static const double factors[] = {2, 5, 10, 20, 50, 100};
  enum { NF = sizeof factors / sizeof factors[0] };
  static const char *kinds[] = {"corner", "tile-edge", "random"};
  const enum bench_dtype types[] = {BENCH_F32, BENCH_F16, BENCH_BF16};
  printf("%-5s %-5s %-4s %6s %9s %9s %9s\n", "n", "in", "out", "factor", kinds[0], kinds[1],
         kinds[2]);
  for (int s = first; s < argc; s++) {
    const int n = atoi(argv[s]), m = rows > 0 && rows < n ? rows : n;
    const size_t nn = (size_t)n * n, mn = (size_t)m * n;
    for (int ti = 0; ti < 3; ti++) {
      const enum bench_dtype in = types[ti], out = out_f32 ? BENCH_F32 : in;
      const size_t es = dtype_size(in), os = dtype_size(out);
      /* A, A^T, B, B^T in the input dtype, and A, B as f32 */
      char *ab[4];
      float *af = malloc(nn * sizeof *af), *bf = malloc(nn * sizeof *bf);
      for (int t = 0; t < 4; t++) ab[t] = malloc(nn * es);
      for (size_t e = 0; e < nn; e++) {
        double va = random_uniform(11, e), vb = random_uniform(12, e);
        if (positive) va = fabs(va), vb = fabs(vb);
        af[e] = (float)dtype_round(in, va);
        bf[e] = (float)dtype_round(in, vb);
      }
      for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
          if (i < m) {
            dtype_store(ab[0], (size_t)i * n + j, in, af[(size_t)i * n + j]);
            dtype_store(ab[1], (size_t)j * m + i, in, af[(size_t)i * n + j]);
          }
          dtype_store(ab[2], (size_t)i * n + j, in, bf[(size_t)i * n + j]);
          dtype_store(ab[3], (size_t)j * n + i, in, bf[(size_t)i * n + j]);
        }
      float *cf = malloc(mn * sizeof *cf);
      double t0 = now();
      gemm_blocked(af, bf, cf, m, n);
      const double gemm_s = now() - t0;
      char *c = malloc(mn * os);
      for (size_t e = 0; e < mn; e++) dtype_store(c, e, out, cf[e]);

      struct bench_check chk = {.op = "gemm", .dtype = in, .out_dtype = out, .m = m, .n = n,
                                .k = n, .out = c};
      double rtol, atol;
      check_tolerance(&chk, &rtol, &atol);
      struct check_result r;
      int fp = 0, runs = 0;
      double check_s = 0, check_cpu = 0;
      for (int t = 0; t < 2 * trials; t++) {
        chk.flags = layout_flags(t);
        chk.in[0] = ab[(t & 1) ? 1 : 0];
        chk.in[1] = ab[(t & 2) ? 3 : 2];
        t0 = now();
        const clock_t c0 = clock();
        if (check_output(&chk, VERIFY_FAST, 1000 + (uint64_t)t, &r) != 0) {
          fprintf(stderr, "check: %s\n", r.message);
          return 1;
        }
        check_s += now() - t0;
        check_cpu += (double)(clock() - c0) / CLOCKS_PER_SEC;
        runs++;
        if (!r.pass) {
          fp++;
          fprintf(stderr, "false positive: %s\n", r.message);
        }
      }
      for (int fi = 0; fi < NF; fi++) {
        int caught[3] = {0, 0, 0};
        for (int kind = 0; kind < 3; kind++)
          for (int t = 0; t < trials; t++) {
            const uint64_t rnd = random_u64(77 + (uint64_t)(fi * 3 + kind), (uint64_t)t);
            int64_t i, j;
            if (kind == 0) i = (t & 1) ? m - 1 : 0, j = (t & 2) ? n - 1 : 0;
            else if (kind == 1) i = tile_edge(rnd, m), j = tile_edge(rnd >> 20, n);
            else i = (int64_t)(rnd % (uint64_t)m), j = (int64_t)((rnd >> 32) % (uint64_t)n);
            if (kind == 1 && (rnd >> 60) & 1) j = (int64_t)((rnd >> 32) % (uint64_t)n);
            const int64_t idx = i * n + j;
            double ref, scale;
            chk.flags = layout_flags(t);
            chk.in[0] = ab[(t & 1) ? 1 : 0];
            chk.in[1] = ab[(t & 2) ? 3 : 2];
            ref_gemm_elements(&chk, &idx, 1, &ref, &scale);
            const double tol = atol + rtol * scale, sign = (rnd >> 63) ? 1.0 : -1.0;
            const double keep = dtype_load(c, (size_t)idx, out);
            dtype_store(c, (size_t)idx, out, ref + sign * factors[fi] * tol);
            if (check_output(&chk, VERIFY_FAST, 5000 + (uint64_t)(t * 32 + fi * 4 + kind), &r) != 0)
              return 1;
            caught[kind] += !r.pass;
            dtype_store(c, (size_t)idx, out, keep);
          }
        printf("%-5d %-5s %-4s %5gx %4d/%-4d %4d/%-4d %4d/%-4d\n", n, dtype_name(in),
               dtype_name(out), factors[fi], caught[0], trials, caught[1], trials, caught[2],
               trials);
      }
      printf("%-5d %-5s %-4s false positives %d/%d; check %.4f s wall, %.4f s cpu (all threads), "
             "gemm %.3f s (%d rows), share %.1f%%\n", n, dtype_name(in), dtype_name(out), fp, runs,
             check_s / runs, check_cpu / runs, gemm_s, m, 100.0 * check_s / runs / gemm_s);
      fflush(stdout);
      free(c), free(cf), free(af), free(bf);
      for (int t = 0; t < 4; t++) free(ab[t]);
    }
  }
  return 0;
}
