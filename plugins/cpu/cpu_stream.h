/* The streaming kernels of the bandwidth plugins (membw_cpu, peak_cpu_bw),
 * on arrays of doubles: STREAM's loop shape dst = x + q y with its
 * non-temporal stores, a fill, and a sum with enough accumulators that the
 * adds never limit the loads. Nothing here prints or exits. */
#ifndef BENCH_CPU_STREAM_H
#define BENCH_CPU_STREAM_H

#include <stdint.h>

/* The bytes of one non-temporal store this CPU has (64 with AVX-512, 16
 * with SSE2 on x86), or 0 for normal stores: when `nontemporal` is 0, or
 * off x86, where the kernels have no streaming path. */
int cpu_stream_store_bytes(int nontemporal);

/* dst[i] = x[i] + q y[i] over [i0, i1), as STREAM's kernels:
 *   x and y         add, triad (q = 1 for add)
 *   x, y NULL       copy (q ignored)
 *   x NULL          scale, dst = q y
 *   x and y NULL    fill, dst = q
 * With stream_bytes (cpu_stream_store_bytes) the stores are non-temporal
 * of that many bytes, which needs dst + i0, x + i0 and y + i0 aligned to
 * them (membw and peak_cpu_bw start every part on a whole cache line); an
 * sfence follows. */
void cpu_stream_kernel(double *restrict dst, const double *restrict x, const double *restrict y,
                       double q, int64_t i0, int64_t i1, int stream_bytes);

/* The sum of x[0, n), eight vector accumulators wide (AVX-512 or AVX2
 * where this CPU has them, portable loops otherwise), adding in an order
 * of its own: exact for values whose every partial sum is (integers below
 * 2^53). */
double cpu_stream_sum(const double *x, int64_t n);

#endif
