/* The dependent chain of cpu_spin (see cpu_spin_chain.h). */
#include "cpu_spin_chain.h"

__attribute__((noinline)) uint64_t cpu_spin_chain(uint64_t iters, uint64_t x) {
  for (uint64_t i = 0; i < iters; i++) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    /* x is opaque to the compiler here: no folding, no vectorising, no
     * closed form; every step waits for the one before. */
    __asm__ volatile("" : "+r"(x));
  }
  return x;
}
