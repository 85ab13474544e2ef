/* Timestamp arithmetic: two raw query values to nanoseconds, by the queue
 * family's timestampValidBits and the device's timestampPeriod. Pure, so
 * that it is tested alone (tests/vulkan/test_timestamp.c). */
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
