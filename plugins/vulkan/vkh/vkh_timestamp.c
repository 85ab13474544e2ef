/* Timestamp arithmetic: two raw query values to nanoseconds, by the queue
 * family's timestampValidBits and the device's timestampPeriod, and the
 * in-band clock's MHz from them. Pure, so that it is tested alone
 * (tests/vulkan/test_timestamp.c). */
#include <math.h>

#include "vkh.h"

uint64_t vkh_timestamp_mask(uint32_t valid_bits) {
  if (valid_bits == 0) return 0;
  return valid_bits >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << valid_bits) - 1;
}

/* The bits above timestampValidBits are undefined: both values are masked,
 * and an end below the start is one wrap of the counter (the difference
 * modulo 2^bits). An interval that wrapped more than once cannot be told
 * from a short one; at 1 ns ticks even 36 valid bits wrap after 68 s, far
 * beyond one submit. */
double vkh_timestamp_ns(uint64_t start, uint64_t end, uint32_t valid_bits, double period_ns) {
  const uint64_t mask = vkh_timestamp_mask(valid_bits);
  if (mask == 0 || !(period_ns > 0)) return 0;
  const uint64_t ticks = ((end & mask) - (start & mask)) & mask;
  return (double)ticks * period_ns;
}

/* The in-band clock's arithmetic (vkh_clock.c): cycles between a spin's
 * first and last reading, 0 when the counter went back. */
static uint64_t cycles_of(const uint32_t r[4]) {
  const uint64_t a = (uint64_t)r[1] << 32 | r[0], b = (uint64_t)r[3] << 32 | r[2];
  return b >= a ? b - a : 0;
}

double vkh_clock_mhz(const uint32_t cycles[2][4], const uint64_t ts[4], uint32_t valid_bits,
                     double period_ns) {
  const uint64_t c0 = cycles_of(cycles[0]), c1 = cycles_of(cycles[1]);
  const double ns0 = vkh_timestamp_ns(ts[0], ts[1], valid_bits, period_ns);
  const double ns1 = vkh_timestamp_ns(ts[2], ts[3], valid_bits, period_ns);
  if (c0 == 0 || c1 <= c0 || !(ns1 > ns0) || !(ns0 > 0)) return 0;
  const double mhz = (double)(c1 - c0) / (ns1 - ns0) * 1e3;
  return isfinite(mhz) && mhz > 0 ? mhz : 0;
}
