/* vkh_timestamp_ns alone: masking to timestampValidBits (garbage above the
 * valid bits ignored), one wrap of the counter, the period in double, and
 * no timestamps (0 valid bits, a period that is not positive). */
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

TEST_MAIN(TEST_ENTRY(test_mask), TEST_ENTRY(test_plain), TEST_ENTRY(test_masked_bits),
          TEST_ENTRY(test_wrap), TEST_ENTRY(test_none))
