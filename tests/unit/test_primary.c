/* The case's primary figure (results/result.h case_primary, issue 39): the
 * operation table's column, the plugin's info "primary", the fallback rule,
 * and how each kind is spelt (core/units.h fmt_figure). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check/operation.h"
#include "core/units.h"
#include "results/result.h"
#include "test.h"

#define CHECK_FMT(expr, want) \
  do {                        \
    char *got_ = (expr);      \
    CHECK_STR(got_, want);    \
    free(got_);               \
  } while (0)

/* An OK case of `op` timed at 1000 ns per iteration. */
static void make(struct case_result *r, const char *op, double flops, double bytes) {
  case_result_init(r);
  r->plugin = strdup("p");
  r->operation = strdup(op);
  r->status = CASE_OK;
  r->nsamples = 3;
  r->host_clock.n = 3;
  r->host_clock.median = 1000;
  r->flops = flops;
  r->bytes = bytes;
}

static void test_table(void) {
  static const struct {
    const char *op;
    enum op_primary p;
  } want[] = {{"gemm", PRIMARY_FLOPS},   {"attention", PRIMARY_FLOPS}, {"copy", PRIMARY_BYTES},
              {"fill", PRIMARY_BYTES},   {"add", PRIMARY_BYTES},       {"rmsnorm", PRIMARY_BYTES},
              {"layernorm", PRIMARY_BYTES}, {"softmax", PRIMARY_BYTES}, {"rope", PRIMARY_BYTES}};
  size_t n = 0;
  for (size_t i = 0; operation_at(i); i++) {
    CHECK(operation_at(i)->primary != PRIMARY_NONE); /* every entry says */
    n++;
  }
  CHECK(n == sizeof want / sizeof *want);
  for (size_t i = 0; i < sizeof want / sizeof *want; i++) CHECK(operation_find(want[i].op)->primary == want[i].p);
}

static void test_kinds(void) {
  struct case_result r;
  /* softmax states FLOPs too: the table says bytes */
  make(&r, "softmax", 5e3, 8e3);
  CHECK(case_primary_kind(&r) == PRIMARY_BYTES);
  CHECK_FMT(case_primary_text(&r), "8.000 GB/s");
  /* the table wins over the plugin's info */
  kv_list_add(&r.ninfo, &r.info, "primary", "flops");
  CHECK(case_primary_kind(&r) == PRIMARY_BYTES);
  case_result_release(&r);

  /* operation none, saxpy-like (1/6 FLOP/byte): the fallback says bytes */
  make(&r, "none", 2e3, 12e3);
  CHECK(case_primary_kind(&r) == PRIMARY_BYTES);
  CHECK_FMT(case_primary_text(&r), "12.00 GB/s");
  kv_list_add(&r.ninfo, &r.info, "primary", "flops");
  CHECK_FMT(case_primary_text(&r), "2.000 GFLOP/s");
  kv_list_add(&r.ninfo, &r.info, "primary", "latency"); /* no items: no figure */
  CHECK(case_primary_kind(&r) == PRIMARY_LATENCY);
  CHECK_FMT(case_primary_text(&r), "");
  r.items = 1e3;
  snprintf(r.item_unit, sizeof r.item_unit, "loads");
  CHECK_FMT(case_primary_text(&r), "1.000 ns/load");
  struct case_figure f;
  CHECK(case_primary(&r, &f) == 1 && f.kind == PRIMARY_LATENCY && f.value == 1.0);
  CHECK_STR(f.unit, "ns/load");
  kv_list_add(&r.ninfo, &r.info, "primary", "items");
  CHECK_FMT(case_primary_text(&r), "1.000 G loads/s");
  kv_list_add(&r.ninfo, &r.info, "primary", "bogus"); /* never written by a run: the fallback */
  CHECK(case_primary_kind(&r) == PRIMARY_ITEMS);
  case_result_release(&r);

  /* fallback: intense enough, flops; nothing stated, none */
  make(&r, "none", 8e3, 1e3);
  CHECK(case_primary_kind(&r) == PRIMARY_FLOPS);
  case_result_release(&r);
  make(&r, "none", 0, 0);
  CHECK(case_primary_kind(&r) == PRIMARY_NONE);
  CHECK_FMT(case_primary_text(&r), "");
  case_result_release(&r);

  /* a case that did not run OK has a kind and no value */
  make(&r, "gemm", 2e3, 1e3);
  r.status = CASE_WRONG_ANSWER;
  CHECK(case_primary(&r, &f) == 0 && f.kind == PRIMARY_FLOPS && f.value == 0 && !f.unit[0]);
  case_result_release(&r);
}

static void test_names(void) {
  enum op_primary p;
  CHECK(primary_parse("latency", &p) == 0 && p == PRIMARY_LATENCY);
  CHECK(primary_parse("none", &p) == -1);
  CHECK(primary_parse("GFLOPS", &p) == -1);
  CHECK(primary_parse(NULL, &p) == -1);
  CHECK_STR(primary_name(PRIMARY_BYTES), "bytes");
  CHECK_STR(primary_name(PRIMARY_NONE), "none");
}

static void test_spelling(void) {
  CHECK_FMT(fmt_count_rate(850, "loads"), "850.0 loads/s");
  CHECK_FMT(fmt_count_rate(12.345e6, "loads"), "12.35 M loads/s");
  CHECK_FMT(fmt_count_rate(1.234e9, "elements"), "1.234 G elements/s");
  CHECK_FMT(fmt_figure(85.2, "ns/load"), "85.20 ns/load");
  CHECK_FMT(fmt_figure(12345, "ns/launch"), "12.35 us/launch");
  CHECK_FMT(fmt_figure(47.66, "GFLOP/s"), "47.66 GFLOP/s");
  CHECK_FMT(fmt_figure(2e6, "launches/s"), "2.000 M launches/s");
  CHECK_FMT(unit_singular("loads"), "load");
  CHECK_FMT(unit_singular("launches"), "launch");
  CHECK_FMT(unit_singular("dispatches"), "dispatch");
  CHECK_FMT(unit_singular("accesses"), "access");
  CHECK_FMT(unit_singular("items"), "item");
}

TEST_MAIN(TEST_ENTRY(test_table), TEST_ENTRY(test_kinds), TEST_ENTRY(test_names), TEST_ENTRY(test_spelling))
