/* The dependent chain cpu_spin times, in its own file so that the
 * anchors script (studies/anchors.sh) times the very same function with
 * Google Benchmark. */
#ifndef BENCH_CPU_SPIN_CHAIN_H
#define BENCH_CPU_SPIN_CHAIN_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* `iters` steps of x = x * A + C (64-bit LCG), each depending on the one
 * before: about iters * (multiply + add latency) = 4 cycles per step on
 * current x86 cores. Returns the final x. */
uint64_t cpu_spin_chain(uint64_t iters, uint64_t x);

#ifdef __cplusplus
}
#endif

#endif
