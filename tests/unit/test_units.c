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

/* bench ab's spelling: decimals fixed per unit, "-" for nothing. */
static void test_times_fixed(void) {
  CHECK_FMT(fmt_time_ns_fixed(850), "850.0 ns");
  CHECK_FMT(fmt_time_ns_fixed(999.96), "1000.0 ns");
  CHECK_FMT(fmt_time_ns_fixed(123400), "123.40 us");
  CHECK_FMT(fmt_time_ns_fixed(1234567), "1.235 ms");
  CHECK_FMT(fmt_time_ns_fixed(2.5e9), "2.500 s");
  CHECK_FMT(fmt_time_ns_fixed(0), "-");
  CHECK_FMT(fmt_time_ns_fixed(-3), "-");
  CHECK_FMT(fmt_time_ns_fixed(NAN), "-");
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
  kv_list_add(&r.nparams, &r.params, "m", "64");
  kv_list_add(&r.nparams, &r.params, "n", "64");
  struct case_line_style st = {0, 0, 1, 0};
  char *line = case_line(&r, 12, &st);
  CHECK_STR(line, "[ 3/12] cpu_gemm m=n=64  OK       11.00 us +-0.45%  47.66 GFLOP/s  unchecked\n"
                  "      did not settle: noise \\x1b[31m\n      note: from the plugin\n");
  free(line);
  /* No settle note unless the style asks; colour around the status only. */
  st.settle_notes = 0;
  st.colour = 1;
  line = case_line(&r, 12, &st);
  CHECK_STR(line, "[ 3/12] cpu_gemm m=n=64  \033[32mOK\033[0m       11.00 us +-0.45%  47.66 GFLOP/s  unchecked\n"
                  "      note: from the plugin\n");
  free(line);
  st.colour = 0;

  r.status = CASE_CRASH;
  r.message = strdup("killed by signal 11");
  r.stderr_tail = strdup("a\nb");
  line = case_line(&r, 120, &st);
  CHECK_STR(line, "[  3/120] cpu_gemm m=n=64  CRASH  killed by signal 11\n      note: from the plugin\n"
                  "      | a\n      | b\n");
  free(line);
  case_result_release(&r);
}

/* The label: resolved values, shared values, dtype bare, cut to the width. */
static void test_case_label(void) {
  struct case_result r;
  case_result_init(&r);
  r.plugin = strdup("cpu_gemm");
  const char *kv[][2] = {{"variant", "packed"}, {"m", "512"}, {"n", "512"}, {"k", "512"},
                         {"dtype", "f32"}, {"threads", "0"}, {"isa", "auto"}};
  for (size_t i = 0; i < sizeof kv / sizeof kv[0]; i++) kv_list_add(&r.nparams, &r.params, kv[i][0], kv[i][1]);
  kv_list_add(&r.ninfo, &r.info, "threads", "2");
  kv_list_add(&r.ninfo, &r.info, "isa", "avx512");
  char *label = case_line_label(&r);
  CHECK_STR(label, "cpu_gemm variant=packed m=n=k=512 f32 threads=2 isa=avx512");
  free(label);
  /* A label wider than the column is cut with "..", the line keeps 120. */
  r.status = CASE_SKIPPED;
  r.message = strdup("a very long reason why this case cannot run here, repeated: a very long reason why "
                     "this case cannot run here, and more");
  struct case_line_style st = {0, 20, 0, 0};
  char *line = case_line(&r, 12, &st);
  CHECK_STR(line, "[ 1/12] cpu_gemm variant=p..  SKIPPED  a very long reason why this case cannot run here, "
                  "repeated: a very long reason ..\n");
  CHECK(strlen(line) == 121);
  free(line);
  case_result_release(&r);
}

TEST_MAIN(TEST_ENTRY(test_times), TEST_ENTRY(test_times_fixed), TEST_ENTRY(test_numbers), TEST_ENTRY(test_case_line), TEST_ENTRY(test_case_label))
