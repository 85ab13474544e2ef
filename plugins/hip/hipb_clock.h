/* hipb_clock.h: the in-band clock's kernel (nvbench's method: a block on
 * every SM reads a constant-rate timer and its SM's cycle counter; the
 * same SM's two readings, before and after a sample, give cycles per ns).
 * One block per SM, not one block: the cycle counter is the SM's own
 * (%clock64), and a single block lands on an arbitrary SM each launch, so
 * its two readings would often come from two counters; with a block on
 * every SM, hipb.hip pairs the readings by SM id.
 * Included by hipb.hip alone, which launches it around each timed sample
 * and hands the clock to the harness (bench.device/1).
 *
 *   timer   %globaltimer on NVIDIA (ns); wall_clock64() on AMD, at
 *           hipDeviceAttributeWallClockRate kHz (25 MHz on MI200, 100 MHz
 *           on MI300)
 *   cycles  clock64(): %clock64 on NVIDIA (per SM), s_memtime on AMD
 *   sm      %smid on NVIDIA; on CDNA the SE, SH and CU (HW_ID), with the
 *           XCD (XCC_ID) on gfx940/941/942, whose XCDs each have a clock;
 *           SE, SA and WGP (HW_ID1) on RDNA */
#ifndef HIPB_CLOCK_H
#define HIPB_CLOCK_H

#include "hipb.h"

/* One block's reading. */
struct hipb_clock_rec {
  unsigned long long timer, cycles;
  unsigned sm, pad;
};

/* The stop reading's wait for its minimum span reads the timer at most
 * this often: a timer that does not move never hangs the kernel. */
#define HIPB_CLOCK_MAX_SPIN (1u << 22)

#if !defined(__HIP_CPU_RT__)
__device__ inline unsigned long long hipb_clock_timer(void) {
#if defined(HIPB_CUDA)
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
#elif defined(__HIP_DEVICE_COMPILE__)
  return (unsigned long long)wall_clock64();
#else
  return 0; /* the host pass (ROCm 5.2 declares wall_clock64 for the device passes only) */
#endif
}

__device__ inline unsigned hipb_clock_sm(void) {
#if defined(HIPB_CUDA)
  unsigned id;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
  return id;
#elif defined(__GFX10__) || defined(__GFX11__) || defined(__GFX12__)
  /* HW_ID1 (hwreg 23), bits 20:10: WGP, SA and SE (HW_ID, which __smid()
   * of ROCm 5.2 reads, is gone on RDNA) */
  return __builtin_amdgcn_s_getreg((10 << 11) | (10 << 6) | 23);
#else
  /* HW_ID (hwreg 4), bits 14:8: CU, SH and SE (__smid() leaves out SH) */
  const unsigned cu = __builtin_amdgcn_s_getreg((6 << 11) | (8 << 6) | 4);
#if defined(__gfx940__) || defined(__gfx941__) || defined(__gfx942__)
  /* and XCC_ID (hwreg 20), bits 3:0: the XCD */
  return cu | (__builtin_amdgcn_s_getreg((3 << 11) | (0 << 6) | 20) & 0xfu) << 16;
#else
  return cu;
#endif
#endif
}

/* <<<SMs, 1>>>: block b stores its reading in out[b]. A stop reading
 * (start != NULL) first waits until min_ticks of the timer have passed
 * since start[b], so that the interval is long against the timer's
 * granularity (NVIDIA's %globaltimer moves in steps of up to 1 us). */
__global__ void hipb_clock_kernel(struct hipb_clock_rec *out, const struct hipb_clock_rec *start,
                                  unsigned long long min_ticks) {
  if (start) {
    const unsigned long long t0 = start[blockIdx.x].timer;
    for (unsigned i = 0; i < HIPB_CLOCK_MAX_SPIN && hipb_clock_timer() - t0 < min_ticks; i++) {
    }
  }
  struct hipb_clock_rec r;
  r.timer = hipb_clock_timer();
  r.cycles = (unsigned long long)clock64();
  r.sm = hipb_clock_sm();
  r.pad = 0;
  out[blockIdx.x] = r;
}
#endif

#endif
