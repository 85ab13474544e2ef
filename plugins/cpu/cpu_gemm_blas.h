/* The BLAS anchors of cpu_gemm (cpu_gemm_blas.c): cblas_sgemm from
 * OpenBLAS or BLIS, loaded with dlopen when a case starts, so bench builds
 * and runs without either. */
#ifndef BENCH_CPU_GEMM_BLAS_H
#define BENCH_CPU_GEMM_BLAS_H

#include "bench/plugin.h"

/* cblas_sgemm(order, transA, transB, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc) */
typedef void (*gemm_sgemm_fn)(int, int, int, int, int, int, float, const float *, int,
                              const float *, int, float, float *, int);
enum { GEMM_CBLAS_ROW_MAJOR = 101, GEMM_CBLAS_NO_TRANS = 111 };

enum gemm_blas { GEMM_OPENBLAS, GEMM_BLIS };

/* Loads `which`, sets its threads to `threads` and records the kernel set
 * it runs as the case's info (openblas_core, or blis_arch); *sgemm is its
 * cblas_sgemm. BENCH_SKIP with the reason when the library is absent or
 * disabled (BENCH_CPU_NO_OPENBLAS=1, BENCH_CPU_NO_BLIS=1), or when it does
 * not run the kernel set asked for:
 *   OpenBLAS: OPENBLAS_CORETYPE=SkylakeX (its own variable, read when it loads)
 *   BLIS:     BENCH_CPU_BLIS_ARCH=skx (a configuration name; this turns it
 *             into BLIS_ARCH_TYPE, which BLIS 0.9 takes as a number). */
int gemm_blas_load(const struct bench_host *host, enum gemm_blas which, int threads,
                   gemm_sgemm_fn *sgemm);

#endif
