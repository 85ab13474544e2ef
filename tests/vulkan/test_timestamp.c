/* vkh_timestamp_ns alone: masking to timestampValidBits (garbage above the
 * valid bits ignored), one wrap of the counter, the period in double, and
 * no timestamps (0 valid bits, a period that is not positive). And the
 * in-band clock's arithmetic (vkh_clock_mhz): the difference of a short
 * and a long spin cancels the dispatch's fixed cost; readings that make no
 * sense give 0. */
#include <stdint.h>

#include "../unit/test.h"
#include "vkh.h"

static void test_mask(void) {
  CHECK(vkh_timestamp_mask(0) == 0);
  CHECK(vkh_timestamp_mask(1) == 1);
  CHECK(vkh_timestamp_mask(36) == 0xfffffffffull);
  CHECK(vkh_timestamp_mask(63) == 0x7fffffffffffffffull);
  CHECK(vkh_timestamp_mask(64) == ~(uint64_t)0);
  CHECK(vkh_timestamp_mask(200) == ~(uint64_t)0);
}

static void test_plain(void) {
  CHECK_NEAR(vkh_timestamp_ns(1000, 1250, 64, 1.0), 250.0, 0);
  CHECK_NEAR(vkh_timestamp_ns(1000, 1250, 64, 41.666666), 250 * 41.666666, 1e-6);
  CHECK_NEAR(vkh_timestamp_ns(7, 7, 36, 1.0), 0.0, 0);
  /* A large interval keeps its precision: 2^40 ticks at 0.5 ns. */
  CHECK_NEAR(vkh_timestamp_ns(0, (uint64_t)1 << 40, 64, 0.5), 549755813888.0, 0);
}

static void test_masked_bits(void) {
  /* 36 valid bits: whatever the driver left above them is ignored. */
  const uint64_t junk = 0xabcd000000000000ull;
  CHECK_NEAR(vkh_timestamp_ns(junk | 100, 0x1234000000000000ull | 600, 36, 1.0), 500.0, 0);
  CHECK_NEAR(vkh_timestamp_ns(100, junk | 600, 48, 2.0), 1000.0, 0);
}

static void test_wrap(void) {
  /* 36 bits: start 10 ticks before the wrap, end 5 ticks after it. */
  const uint64_t top = ((uint64_t)1 << 36) - 10;
  CHECK_NEAR(vkh_timestamp_ns(top, 5, 36, 1.0), 15.0, 0);
  /* The same with junk above the valid bits on both. */
  CHECK_NEAR(vkh_timestamp_ns(0xff00000000000000ull | top, 0x0100000000000000ull | 5, 36, 10.0),
             150.0, 0);
  /* 64 bits: the unsigned difference wraps by itself. */
  CHECK_NEAR(vkh_timestamp_ns(UINT64_MAX - 1, 3, 64, 1.0), 5.0, 0);
  /* 1 bit: 1 -> 0 is one tick. */
  CHECK_NEAR(vkh_timestamp_ns(1, 0, 1, 1.0), 1.0, 0);
}

static void test_none(void) {
  CHECK(vkh_timestamp_ns(100, 200, 0, 1.0) == 0);
  CHECK(vkh_timestamp_ns(100, 200, 64, 0.0) == 0);
  CHECK(vkh_timestamp_ns(100, 200, 64, -1.0) == 0);
}

/* {first lo, first hi, last lo, last hi} of a spin of n cycles from c. */
static void spin(uint32_t r[4], uint64_t c, uint64_t n) {
  r[0] = (uint32_t)c, r[1] = (uint32_t)(c >> 32);
  r[2] = (uint32_t)(c + n), r[3] = (uint32_t)((c + n) >> 32);
}

static void test_clock(void) {
  uint32_t r[2][4];
  /* 1500 MHz, 3000 ns of fixed cost in each dispatch: 4000 and 44000 cycles
   * take 2667 and 29333 ns of spin. A single pair would read 44000 / 32333
   * ns = 1361 MHz; the difference reads the clock. */
  spin(r[0], 1000, 4000);
  spin(r[1], 99000, 44000);
  uint64_t ts[4] = {5000, 5000 + 3000 + 2667, 20000, 20000 + 3000 + 29333};
  CHECK_NEAR(vkh_clock_mhz((const uint32_t(*)[4])r, ts, 64, 1.0), 40000.0 / (29333 - 2667) * 1e3, 1e-9);
  /* The same in 10 ns ticks, and the cycle counter crossing 2^32. */
  spin(r[0], 0xfffff000ull, 4000);
  spin(r[1], 0x1fffff000ull, 44000);
  const uint64_t t10[4] = {500, 500 + 567, 2000, 2000 + 3233};
  CHECK_NEAR(vkh_clock_mhz((const uint32_t(*)[4])r, t10, 64, 10.0), 40000.0 / 26660 * 1e3, 1e-9);
  /* A counter that went back, one that did not move, a long spin that took
   * no longer than the short one, no timestamps: no figure. */
  spin(r[0], 1000, 4000);
  spin(r[1], 99000, 44000);
  r[1][3] = 0, r[1][2] = 10; /* last < first */
  CHECK(vkh_clock_mhz((const uint32_t(*)[4])r, ts, 64, 1.0) == 0);
  spin(r[1], 99000, 0);
  CHECK(vkh_clock_mhz((const uint32_t(*)[4])r, ts, 64, 1.0) == 0);
  spin(r[1], 99000, 44000);
  const uint64_t flat[4] = {0, 9000, 20000, 29000};
  CHECK(vkh_clock_mhz((const uint32_t(*)[4])r, flat, 64, 1.0) == 0);
  CHECK(vkh_clock_mhz((const uint32_t(*)[4])r, ts, 0, 1.0) == 0);
  CHECK(vkh_clock_mhz((const uint32_t(*)[4])r, ts, 64, 1.0) > 0); /* the checks above can fail */
}

TEST_MAIN(TEST_ENTRY(test_mask), TEST_ENTRY(test_plain), TEST_ENTRY(test_masked_bits),
          TEST_ENTRY(test_wrap), TEST_ENTRY(test_none), TEST_ENTRY(test_clock))
