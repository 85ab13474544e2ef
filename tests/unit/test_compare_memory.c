/* bench compare and a case's memory (analyze/compare_case.h
 * COMPARE_LARGE_OF_LLC): on a steady machine, a case whose resident set
 * grew past the last-level cache while it ran takes the busy between-run
 * figure, not the steady one, and says so (its side "large"); a case that
 * stayed inside the cache, one measured only process-wide, one whose run
 * recorded no caches, and one on a busy machine are not marked. The sides
 * are CPU cases built here with deterministic samples: a standard run's
 * 200 host samples spread 0.5% (lognormal). */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "analyze/compare_case.h"
#include "analyze/compare_sets.h"
#include "analyze/compare_stats.h"
#include "core/util.h"
#include "test.h"

#define NS 200
#define LEVEL 8e6 /* 8 ms an iteration: 1.6 s timed */
#define LLC (32 << 20)

static double normal(uint64_t *s) {
  double u = 0.0;
  for (int i = 0; i < 12; i++) {
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    u += (double)(*s >> 11) / 9007199254740992.0;
  }
  return u - 6.0;
}

/* One CPU run at level, its memory grown by `grew` bytes (method "case" or
 * "process"; grew 0 and method NULL: not measured). */
static void make_case(struct case_result *r, double level, uint64_t seed, uint64_t grew, const char *method) {
  case_result_init(r);
  r->plugin = xstrdup("stream");
  r->backend = xstrdup("cpu");
  r->operation = xstrdup("none");
  r->status = CASE_OK;
  r->nsamples = NS;
  r->batch = 1;
  r->settled = 1;
  r->host_clock_ns = xcalloc(NS, sizeof *r->host_clock_ns);
  uint64_t s = seed * 7919 + 1;
  for (size_t i = 0; i < NS; i++) r->host_clock_ns[i] = level * exp(0.005 * normal(&s));
  if (method) {
    r->memory.known = 1;
    r->memory.start_rss_bytes = 3 << 20;
    r->memory.peak_rss_bytes = r->memory.start_rss_bytes + grew;
    snprintf(r->memory.method, sizeof r->memory.method, "%s", method);
  }
}

static const struct run_steady quiet = {1, 10.0, 0.05, 0.1, 0.0, 0.0, 0.01, 0.004, 0.0};
static const struct run_steady busy = {1, 10.0, 0.05, 0.1, 0.0, 0.0, 0.01, 0.45, 0.0}; /* drift 45% */

static struct cpu_caches caches_of(int64_t llc) {
  struct cpu_caches c;
  memset(&c, 0, sizeof c);
  c.level[1].bytes = 32 << 10, c.level[2].bytes = 1 << 20, c.level[3].bytes = llc;
  c.llc = 3;
  return c;
}

static enum verdict compare1(const struct case_result *o, const struct case_result *n, const struct run_steady *st,
                             const struct cpu_caches *c, struct case_compare *cc) {
  const struct case_result *ro = o, *rn = n;
  struct case_side so = {&ro, 1, NULL, 0, st, c}, sn = {&rn, 1, NULL, 0, st, c};
  compare_case_sides(&so, &sn, 0, 0.005, cc);
  return cc->verdict;
}

static void test_outgrew(void) {
  struct cpu_caches c = caches_of(LLC);
  struct case_result o, n;
  struct case_compare cc;
  double busy_sigma = cs_between_default_on("cpu", NS, CS_MACHINE_BUSY);
  double steady_sigma = cs_between_default_on("cpu", NS, CS_MACHINE_STEADY);
  CHECK(busy_sigma > 2 * steady_sigma);
  /* 64 MiB over a 32 MiB cache, 12% slower: the steady figure (3.4% a
   * side, an interval of +-1.96 sqrt(2) 3.4% = 9.3%) would call it SLOWER;
   * the busy figure (11.4% a side, +-32%) keeps it NOISY */
  make_case(&o, LEVEL, 1, 2u * LLC, "case");
  make_case(&n, LEVEL * 1.12, 2, 2u * LLC, "case");
  CHECK(compare1(&o, &n, &quiet, &c, &cc) == V_NOISY);
  CHECK(cc.old_noise.large && cc.new_noise.large && cc.new_noise.machine == CS_MACHINE_STEADY);
  CHECK(cc.new_noise.term == CS_TERM_DEFAULT);
  CHECK_NEAR(cc.new_noise.sigma, busy_sigma, 1e-12);
  CHECK(compare_dm_kind(&cc.new_noise) == CMP_DM_LARGE);
  CHECK(cc.c.lo < 1.0 && cc.c.hi > 1.12);
  /* the same runs inside the cache (1 MiB): the steady figure, SLOWER */
  n.memory.peak_rss_bytes = n.memory.start_rss_bytes + (1 << 20);
  o.memory.peak_rss_bytes = o.memory.start_rss_bytes + (1 << 20);
  CHECK(compare1(&o, &n, &quiet, &c, &cc) == V_SLOWER);
  CHECK(!cc.old_noise.large && !cc.new_noise.large && compare_dm_kind(&cc.new_noise) == CMP_DM_STEADY);
  CHECK_NEAR(cc.new_noise.sigma, steady_sigma, 1e-12);
  /* one side large, the other not: each side its own figure */
  n.memory.peak_rss_bytes = n.memory.start_rss_bytes + 2u * LLC;
  compare1(&o, &n, &quiet, &c, &cc);
  CHECK(!cc.old_noise.large && cc.new_noise.large);
  CHECK_NEAR(cc.old_noise.sigma, steady_sigma, 1e-12);
  CHECK_NEAR(cc.new_noise.sigma, busy_sigma, 1e-12);
  /* just at the cache's size: not over it */
  o.memory.peak_rss_bytes = o.memory.start_rss_bytes + LLC;
  n.memory.peak_rss_bytes = n.memory.start_rss_bytes + LLC;
  compare1(&o, &n, &quiet, &c, &cc);
  CHECK(!cc.old_noise.large && !cc.new_noise.large);
  case_result_release(&o);
  case_result_release(&n);
}

static void test_not_marked(void) {
  struct cpu_caches c = caches_of(LLC), none;
  memset(&none, 0, sizeof none);
  struct case_result o, n;
  struct case_compare cc;
  /* a process-wide peak (an upper bound earlier cases may have set) */
  make_case(&o, LEVEL, 1, 2u * LLC, "process");
  make_case(&n, LEVEL * 1.12, 2, 2u * LLC, "process");
  CHECK(compare1(&o, &n, &quiet, &c, &cc) == V_SLOWER && !cc.new_noise.large);
  case_result_release(&o);
  case_result_release(&n);
  /* memory not measured */
  make_case(&o, LEVEL, 1, 0, NULL);
  make_case(&n, LEVEL * 1.12, 2, 0, NULL);
  CHECK(compare1(&o, &n, &quiet, &c, &cc) == V_SLOWER && !cc.new_noise.large);
  case_result_release(&o);
  case_result_release(&n);
  /* caches not recorded (an older file), or recorded as none */
  make_case(&o, LEVEL, 1, 2u * LLC, "case");
  make_case(&n, LEVEL * 1.12, 2, 2u * LLC, "case");
  CHECK(compare1(&o, &n, &quiet, NULL, &cc) == V_SLOWER && !cc.new_noise.large);
  CHECK(compare1(&o, &n, &quiet, &none, &cc) == V_SLOWER && !cc.new_noise.large);
  /* a busy run takes the busy figure anyway, and is not called large */
  CHECK(compare1(&o, &n, &busy, &c, &cc) == V_NOISY && !cc.new_noise.large);
  CHECK(compare_dm_kind(&cc.new_noise) == CMP_DM_BUSY);
  case_result_release(&o);
  case_result_release(&n);
}

TEST_MAIN(TEST_ENTRY(test_outgrew), TEST_ENTRY(test_not_marked))
