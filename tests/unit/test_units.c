/* The one formatter for durations and rates (core/units.c), and the
 * terminal's case line that uses it (results/case_line.c), the run's lines
 * (run/run_lines.c: a telemetry note once a run) and its summary
 * (results/run_summary.c: throttled cases listed, never compared). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/suggest.h"
#include "core/units.h"
#include "results/case_line.h"
#include "results/run_summary.h"
#include "run/run_lines.h"
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
  r.host_clock.min = 10900; /* the range: min..max in the median's unit */
  r.host_clock.max = 11204;
  r.settled = 0;
  r.settle_note = strdup("did not settle: noise \x1b[31m");
  kv_list_add(&r.ninfo, &r.info, "note", "from the plugin");
  kv_list_add(&r.nparams, &r.params, "m", "64");
  kv_list_add(&r.nparams, &r.params, "n", "64");
  struct case_line_style st = {.settle_notes = 1, .range = 1};
  char *line = case_line(&r, 12, &st);
  CHECK_STR(line, "[ 3/12] cpu_gemm m=n=64  OK       11.00 us +-0.45% 10.90..11.20   47.66 GFLOP/s  unchecked\n"
                  "      did not settle: noise \\x1b[31m\n      note: from the plugin\n");
  free(line);
  /* No settle note unless the style asks; colour around the status only. */
  st.settle_notes = 0;
  st.colour = 1;
  line = case_line(&r, 12, &st);
  CHECK_STR(line, "[ 3/12] cpu_gemm m=n=64  \033[32mOK\033[0m       11.00 us +-0.45% 10.90..11.20   47.66 GFLOP/s  unchecked\n"
                  "      note: from the plugin\n");
  free(line);
  st.colour = 0;
  /* Without room for the range (a plugin with long labels): the line as before it. */
  st.range = 0;
  line = case_line(&r, 12, &st);
  CHECK_STR(line, "[ 3/12] cpu_gemm m=n=64  OK       11.00 us +-0.45%  47.66 GFLOP/s  unchecked\n"
                  "      note: from the plugin\n");
  free(line);
  st.range = 1;

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
  /* A label wider than the column takes a line of its own, whole; the
   * status keeps its column on the next; the reason is whole, wrapped at
   * its words within 120 columns (issue 39). */
  r.status = CASE_SKIPPED;
  r.message = strdup("a very long reason why this case cannot run here, repeated: a very long reason why "
                     "this case cannot run here, and more");
  struct case_line_style st = {.label_width = 20};
  char *line = case_line(&r, 12, &st);
  CHECK_STR(line, "[ 1/12] cpu_gemm variant=packed m=n=k=512 f32 threads=2 isa=avx512\n"
                  "                              SKIPPED  a very long reason why this case cannot run here, "
                  "repeated: a very long reason\n"
                  "                              why this case cannot run here, and more\n");
  free(line);
  case_result_release(&r);
}

/* A GPU case: OK, timed; throttled when asked; with a telemetry note. */
static void gpu_case(struct case_result *r, int index, const char *variant, double median, int throttled,
                     const char *note) {
  case_result_init(r);
  r->plugin = strdup("cuda_gemm");
  r->index = index;
  r->nsamples = 5;
  r->batch = 1;
  r->device.n = 5;
  r->device.median = median;
  r->settled = 1;
  kv_list_add(&r->nparams, &r->params, "variant", variant);
  r->telemetry = calloc(1, sizeof *r->telemetry);
  snprintf(r->telemetry->bus_id, sizeof r->telemetry->bus_id, "0000:3b:00.0");
  snprintf(r->telemetry->note, sizeof r->telemetry->note, "%s", note);
  r->telemetry->throttled = throttled;
  if (throttled)
    snprintf(r->telemetry->throttled_by, sizeof r->telemetry->throttled_by,
             "clock 1080 MHz < 75%% of 1980 MHz (sw_power_cap)");
}

static void test_case_line_throttled(void) {
  struct case_result r;
  gpu_case(&r, 0, "a", 11000, 1, "");
  struct case_line_style st = {.colour = 0};
  char *line = case_line(&r, 12, &st);
  CHECK_STR(line, "[ 1/12] cuda_gemm variant=a  OK       11.00 us +-0.00%                 unchecked\n"
                  "          THROTTLED: clock 1080 MHz < 75% of 1980 MHz (sw_power_cap)\n"); /* within 120 */
  free(line);
  r.telemetry->throttled = 0;
  line = case_line(&r, 12, &st);
  CHECK(strstr(line, "THROTTLED") == NULL);
  free(line);
  case_result_release(&r);
}

/* Read all of a tmpfile. */
static char *slurp(FILE *fp) {
  fflush(fp);
  long len = ftell(fp);
  char *buf = calloc(1, (size_t)(len > 0 ? len : 0) + 1);
  rewind(fp);
  if (len > 0 && fread(buf, 1, (size_t)len, fp) != (size_t)len) buf[0] = 0;
  return buf;
}

static size_t count_of(const char *hay, const char *needle) {
  size_t n = 0;
  for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle)) n++;
  return n;
}

/* The telemetry note (no management library) once a run, whatever the
 * number of cases that carry it; the throttled case marked on its line. */
static void test_run_lines_telemetry_note(void) {
  static const struct bench_param params[] = {{.name = "variant", .type = BENCH_PARAM_STRING, .choices = "a,b"},
                                              {.name = NULL}};
  struct bench_plugin desc = {.name = "cuda_gemm", .backend = "cuda", .operation = "gemm", .params = params};
  struct plugin pl = {.desc = &desc};
  const struct plugin *pls[] = {&pl};
  struct case_def defs[3];
  memset(defs, 0, sizeof defs);
  for (int i = 0; i < 3; i++) defs[i].plugin = &desc;
  struct plan p;
  memset(&p, 0, sizeof p);
  p.plugins = pls;
  p.nplugins = 1;
  p.cases.n = 3;
  p.cases.cases = defs;
  FILE *out = tmpfile();
  REQUIRE(out);
  struct run_lines l;
  run_lines_init(&l, &p, out, 0, 0);
  const char *note = "no NVIDIA or AMD management library: libnvidia-ml.so.1: cannot open shared object file";
  struct run_summary sum = {0};
  for (int i = 0; i < 3; i++) {
    struct case_result r;
    gpu_case(&r, i, i == 1 ? "b" : "a", i == 1 ? 9000 : 11000, i == 1, note);
    run_lines_case(&l, &r);
    run_summary_add(&sum, &desc, &r);
    case_result_release(&r);
  }
  run_lines_flush(&l);
  run_lines_release(&l);
  char *text = slurp(out);
  fclose(out);
  CHECK(count_of(text, "gpu telemetry: ") == 1);
  CHECK(strncmp(text, "gpu telemetry: no NVIDIA or AMD management library: libnvidia-ml.so.1: cannot open shared "
                      "object file\n[ 1/3] cuda_gemm",
                strlen("gpu telemetry: no NVIDIA or AMD management library: libnvidia-ml.so.1: cannot open shared "
                       "object file\n[ 1/3] cuda_gemm")) == 0);
  CHECK(count_of(text, "THROTTLED: clock 1080 MHz") == 1);
  CHECK(strstr(text, "[ 2/3] cuda_gemm") < strstr(text, "THROTTLED: clock 1080 MHz"));
  CHECK(strstr(text, "[ 3/3] cuda_gemm") > strstr(text, "THROTTLED: clock 1080 MHz"));
  free(text);

  /* The summary lists the throttled case and compares no variant with it:
   * b (9 us, throttled) is not "faster" than a. */
  out = tmpfile();
  REQUIRE(out);
  run_summary_print(&sum, out, 3, &(struct case_line_style){.settle_notes = 1});
  text = slurp(out);
  fclose(out);
  CHECK(strstr(text, "1 case measured on a throttled GPU") != NULL);
  CHECK(strstr(text, "  THROTTLED    [2/3] cuda_gemm variant=b (clock 1080 MHz < 75% of 1980 MHz (sw_power_cap))\n") != NULL);
  CHECK(strstr(text, "variant=b is") == NULL && strstr(text, "than b") == NULL);
  free(text);
  run_summary_release(&sum);

  /* the same cases, none throttled: the variants are compared */
  out = tmpfile();
  REQUIRE(out);
  for (int i = 0; i < 2; i++) {
    struct case_result r;
    gpu_case(&r, i, i == 1 ? "b" : "a", i == 1 ? 9000 : 11000, 0, "");
    run_summary_add(&sum, &desc, &r);
    case_result_release(&r);
  }
  run_summary_print(&sum, out, 2, &(struct case_line_style){.settle_notes = 1});
  text = slurp(out);
  fclose(out);
  CHECK(strstr(text, "cuda_gemm: variant=b is 1.22x faster than a") != NULL);
  CHECK(strstr(text, "THROTTLED") == NULL);
  free(text);
  run_summary_release(&sum);
}

/* Sizes in binary units (peak RSS). */
static void test_bytes(void) {
  CHECK_FMT(fmt_bytes(0), "0 B");
  CHECK_FMT(fmt_bytes(812), "812 B");
  CHECK_FMT(fmt_bytes(4096), "4.000 KiB");
  CHECK_FMT(fmt_bytes(47.4 * 1048576), "47.40 MiB");
  CHECK_FMT(fmt_bytes(1.25 * 1073741824.0), "1.250 GiB");
  CHECK_FMT(fmt_bytes(NAN), "-");
}

/* "Did you mean": the distance (swaps are one edit) and the closest names. */
static void test_suggest(void) {
  CHECK(suggest_distance("min-samples", "min-samples") == 0);
  CHECK(suggest_distance("min-smaples", "min-samples") == 1); /* a swap */
  CHECK(suggest_distance("minsamples", "min-samples") == 1);
  CHECK(suggest_distance("", "abc") == 3);
  CHECK(suggest_distance("kitten", "sitting") == 3);
  static const char *const names[] = {"min-samples", "max-samples", "min-time", "max-time", "warmup", NULL};
  size_t idx[4];
  CHECK(suggest_closest("max-tme", names, 5, idx, 4) == 1 && idx[0] == 3);
  CHECK(suggest_closest("mix-time", names, 5, idx, 4) == 2 && idx[0] == 2 && idx[1] == 3); /* a tie: both */
  CHECK(suggest_closest("warmup-iters", names, 5, idx, 4) == 1 && idx[0] == 4);        /* a longer form */
  CHECK(suggest_closest("zzzzzz", names, 5, idx, 4) == 0);
  CHECK(suggest_closest("min-samples", names, 5, idx, 4) == 1 && idx[0] == 1); /* never itself */
  struct strbuf sb = STRBUF_INIT;
  CHECK(suggest_add(&sb, "mix-time", names, 5, "--") == 2);
  CHECK_STR(sb.buf, "; did you mean '--min-time' or '--max-time'?");
  strbuf_release(&sb);
}

TEST_MAIN(TEST_ENTRY(test_times), TEST_ENTRY(test_times_fixed), TEST_ENTRY(test_numbers), TEST_ENTRY(test_bytes),
          TEST_ENTRY(test_suggest), TEST_ENTRY(test_case_line),
          TEST_ENTRY(test_case_label), TEST_ENTRY(test_case_line_throttled), TEST_ENTRY(test_run_lines_telemetry_note))
