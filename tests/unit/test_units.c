/* The one formatter for durations and rates (core/units.c), and the
 * terminal's case line that uses it (results/case_line.c). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/units.h"
#include "results/case_line.h"
#include "test.h"

#define CHECK_FMT(expr, want) \
  do {                        \
    char *got_ = (expr);      \
    CHECK_STR(got_, want);    \
    free(got_);               \
  } while (0)

static void test_times(void) {
  CHECK_FMT(fmt_time_ns(850), "850.0 ns");
  CHECK_FMT(fmt_time_ns(12345), "12.35 us"); /* one spelling: ASCII "us", as presets write it */
  CHECK_FMT(fmt_time_ns(1.234e6), "1.234 ms");
  CHECK_FMT(fmt_time_ns(2.5e9), "2.500 s");
  CHECK_FMT(fmt_time_ns(999.96), "1.000 us"); /* rounds up into the next unit */
  CHECK_FMT(fmt_time_ns(3.6e12), "3600 s");
  CHECK_FMT(fmt_time_ns(0), "0.000 ns");
  CHECK_FMT(fmt_time_ns(NAN), "-");
  CHECK_FMT(fmt_time_ns(INFINITY), "-");
}

static void test_numbers(void) {
  CHECK_FMT(fmt_sig4(1234.4), "1234");
  CHECK_FMT(fmt_sig4(47.66), "47.66");
  CHECK_FMT(fmt_sig4(4.4681), "4.468");
  CHECK_FMT(fmt_sig4(0.000123), "0.000123");
  CHECK_FMT(fmt_sig4(-2.5), "-2.500");
  CHECK_FMT(fmt_sig4(NAN), "-");
  /* absurd values (from a hostile file) take an exponent, never 300 digits */
  CHECK_FMT(fmt_sig4(1e308), "1.000e+308");
  CHECK_FMT(fmt_sig4(-1.5e15), "-1.500e+15");
  CHECK_FMT(fmt_sig4(999999999999.0), "999999999999");
  CHECK_FMT(fmt_time_ns(1e308), "1.000e+299 s");
  CHECK_FMT(fmt_fixed(12.5, 2), "12.50");
  CHECK_FMT(fmt_fixed(1e308, 1), "1.000e+308");
  CHECK_FMT(fmt_fixed(-1e300, 0), "-1.000e+300");
  CHECK_FMT(fmt_fixed(NAN, 1), "?");
  CHECK_FMT(fmt_fixed(-INFINITY, 1), "?");
  CHECK_FMT(fmt_rate(47.66, "GFLOP/s"), "47.66 GFLOP/s");
  CHECK_FMT(fmt_rate(0.0393, "GB/s"), "0.0393 GB/s");
}

static void test_case_line(void) {
  struct case_result r;
  case_result_init(&r);
  r.plugin = strdup("cpu_gemm");
  r.index = 2;
  r.status = CASE_OK;
  r.nsamples = 6;
  r.batch = 1;
  r.flops = 524288;
  r.host_clock.n = 6;
  r.host_clock.median = 11000;
  r.host_clock.ci_lo = 10950;
  r.host_clock.ci_hi = 11050;
  r.host_clock.cv = 0.0064;
  r.settled = 0;
  r.settle_note = strdup("did not settle: noise \x1b[31m");
  kv_list_add(&r.ninfo, &r.info, "note", "from the plugin");
  char *line = case_line(&r, "m=64 n=64", 12);
  CHECK_STR(line, "[ 3/12] cpu_gemm m=64 n=64: OK  median 11.00 us +-0.45% (host)  cv 0.64%  n=6"
                  "  47.66 GFLOP/s  unchecked\n      did not settle: noise \\x1b[31m\n      note: from the plugin\n");
  free(line);

  r.status = CASE_CRASH;
  r.message = strdup("killed by signal 11");
  r.stderr_tail = strdup("a\nb");
  line = case_line(&r, "", 120);
  CHECK_STR(line, "[  3/120] cpu_gemm: CRASH  killed by signal 11\n      note: from the plugin\n"
                  "      | a\n      | b\n");
  free(line);
  case_result_release(&r);
}

TEST_MAIN(TEST_ENTRY(test_times), TEST_ENTRY(test_numbers), TEST_ENTRY(test_case_line))
