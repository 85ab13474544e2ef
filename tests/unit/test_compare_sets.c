/* bench compare's analysis (analyze/compare_sets.h): two planted result
 * folders matched case by case, the verdict counts, the geometric means per
 * plugin and overall, --fail-on's exit status and the notes' tallies; and
 * its table (analyze/compare_table.h) in each format. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/compare_sets.h"
#include "analyze/compare_table.h"
#include "core/stats.h"
#include "core/util.h"
#include "results/io.h"
#include "test.h"

/* A case of plugin at median ns (40 samples within +-1%), batch samples. */
static void add_case(struct run_file *f, const char *param, double median, int batch) {
  f->cases = xrealloc(f->cases, (f->ncases + 1) * sizeof *f->cases);
  struct case_result *r = &f->cases[f->ncases];
  case_result_init(r);
  r->plugin = xstrdup(f->plugin);
  r->backend = xstrdup("cpu");
  r->operation = xstrdup("none");
  r->index = (int)f->ncases++;
  kv_list_add(&r->nparams, &r->params, "c", param);
  r->status = CASE_OK;
  r->nsamples = 40;
  r->batch = batch;
  r->settled = 1;
  r->target_noise = 0.02;
  r->wall_s = 0.1;
  r->host_clock_ns = xcalloc(40, sizeof *r->host_clock_ns);
  for (size_t i = 0; i < 40; i++) r->host_clock_ns[i] = median * (1.0 + 0.005 * (double)((int)(i % 5) - 2));
  stats_compute(r->host_clock_ns, 40, &r->host_clock);
}

static void start_run(struct run_file *f, const char *date, const char *plugin) {
  memset(f, 0, sizeof *f);
  f->env.date = xstrdup(date);
  f->env.started = xasprintf("%sT00:00:00.000Z", date);
  f->env.hostname = xstrdup("planted");
  f->env.cpu = xstrdup("planted cpu");
  f->env.cpus = 2;
  f->env.preset = xstrdup("smoke");
  f->env.mode = xstrdup("perf");
  f->plugin = xstrdup(plugin);
  f->plugin_path = xasprintf("/planted/%s.so", plugin);
}

static int save(const char *dir, struct run_file *f) {
  char *base = NULL;
  int rc = results_save(dir, f, &base);
  free(base);
  run_file_release(f);
  return rc;
}

/* old: pa c=same, c=slower, c=gone; pb c=faster.
 * new: pa c=same, c=slower (2x), c=added; pb c=faster (0.5x, another batch). */
static int plant(const char *old_dir, const char *new_dir) {
  struct run_file f;
  int rc = 0;
  start_run(&f, "2026-11-20", "pa");
  add_case(&f, "same", 1000, 1);
  add_case(&f, "slower", 1000, 1);
  add_case(&f, "gone", 1000, 1);
  rc |= save(old_dir, &f);
  start_run(&f, "2026-11-20", "pb");
  add_case(&f, "faster", 500, 1);
  rc |= save(old_dir, &f);
  start_run(&f, "2026-11-21", "pa");
  add_case(&f, "same", 1000, 1);
  add_case(&f, "slower", 2000, 1);
  add_case(&f, "added", 1000, 1);
  rc |= save(new_dir, &f);
  start_run(&f, "2026-11-21", "pb");
  add_case(&f, "faster", 250, 4);
  rc |= save(new_dir, &f);
  return rc;
}

static const struct compare_row *find(const struct compare_row *rows, size_t n, const char *params) {
  for (size_t i = 0; i < n; i++)
    if (strcmp(compare_row_entry(&rows[i])->params, params) == 0) return &rows[i];
  return NULL;
}

static char tmp_old[64], tmp_new[64];

static void test_match_and_summary(void) {
  struct result_set old, new_;
  REQUIRE(result_set_load(tmp_old, NULL, &old) == 0);
  REQUIRE(result_set_load(tmp_new, NULL, &new_) == 0);
  size_t n;
  struct compare_row *rows = compare_sets_match(&old, &new_, 0, 0.05, &n);
  CHECK(n == 5);
  const struct compare_row *same = find(rows, n, "c=same"), *slower = find(rows, n, "c=slower"),
                           *gone = find(rows, n, "c=gone"), *added = find(rows, n, "c=added"),
                           *faster = find(rows, n, "c=faster");
  REQUIRE(same && slower && gone && added && faster);
  /* one run a side: the default between-run term is too wide for SAME at 5% */
  CHECK(same->cc.verdict == V_NOISY);
  CHECK(slower->cc.verdict == V_SLOWER);
  CHECK(faster->cc.verdict == V_FASTER);
  CHECK(gone->cc.verdict == V_MISSING && gone->old && !gone->new_);
  CHECK(added->cc.verdict == V_NEW && added->new_ && !added->old);
  CHECK_NEAR(compare_row_median(slower, 0), 2000, 1e-6);
  CHECK(isnan(compare_row_median(gone, 0)));
  CHECK(compare_row_batch_differs(faster) && !compare_row_batch_differs(same));
  CHECK(!compare_rows_any_tag(rows, n));
  CHECK_STR(compare_row_entry(&rows[0])->plugin, "pa"); /* rows by plugin */
  CHECK_STR(compare_row_entry(&rows[n - 1])->plugin, "pb");

  struct compare_summary s;
  compare_sets_summarise(rows, n, FAIL_SLOWER | FAIL_WRONG, &s);
  CHECK(s.counts[V_NOISY] == 1 && s.counts[V_SLOWER] == 1 && s.counts[V_FASTER] == 1);
  CHECK(s.counts[V_MISSING] == 1 && s.counts[V_NEW] == 1);
  REQUIRE(s.nplugins == 2);
  CHECK_STR(s.plugins[0], "pa");
  CHECK(s.ntimed[0] == 2 && s.ntimed[1] == 1 && s.ntimed_all == 3);
  CHECK_NEAR(s.geomean[0], sqrt(2.0), 0.01);
  CHECK_NEAR(s.geomean[1], 0.5, 0.01);
  CHECK_NEAR(s.overall, 1.0, 0.01);
  CHECK(s.exit_status == 1);
  compare_summary_release(&s);
  compare_sets_summarise(rows, n, FAIL_WRONG, &s);
  CHECK(s.exit_status == 0);
  compare_summary_release(&s);
  compare_sets_summarise(rows, n, FAIL_MISSING, &s);
  CHECK(s.exit_status == 1);
  compare_summary_release(&s);

  struct compare_terms ct;
  compare_sets_terms(rows, n, &ct);
  CHECK(ct.timed == 3 && ct.batch_differs == 1);
  CHECK(ct.term[0][CS_TERM_DEFAULT] == 3 && ct.term[1][CS_TERM_DEFAULT] == 3);
  CHECK(ct.dm[0][CMP_DM_UNKNOWN] == 3 && ct.few == 0);

  free(rows);
  result_set_release(&new_);
  result_set_release(&old);
}

/* The same comparison in each format: CSV's raw columns, the text table's
 * notes, markdown, and JSON that parses back with the summary. */
static void test_table(void) {
  struct result_set old, new_;
  REQUIRE(result_set_load(tmp_old, NULL, &old) == 0);
  REQUIRE(result_set_load(tmp_new, NULL, &new_) == 0);
  size_t n;
  struct compare_row *rows = compare_sets_match(&old, &new_, 0, 0.05, &n);
  struct compare_summary s;
  compare_sets_summarise(rows, n, FAIL_SLOWER, &s);
  struct compare_view v = {tmp_old, tmp_new, 0.05};
  struct text_table t;
  compare_table_build(rows, n, &s, &v, &t);
  char *csv = table_render(&t, TABLE_CSV, 0);
  const char *header = "plugin,params,tag,old_status,new_status,old_median_ns,new_median_ns,ratio,ci_lo,ci_hi,p,"
                       "verdict,old_runs,old_term,old_between,new_runs,new_term,new_between,old_machine,new_machine,"
                       "old_throttled,new_throttled\n";
  CHECK(strncmp(csv, header, strlen(header)) == 0);
  CHECK(strstr(csv, "\npa,c=gone,,OK,,") != NULL);
  free(csv);
  char *text = table_render(&t, TABLE_TEXT, 0);
  CHECK(strncmp(text, "plugin  params  ", 16) == 0);
  CHECK(strstr(text, "\n2 unmatched: 1 only in old (MISSING), 1 only in new (NEW)\n") != NULL);
  CHECK(strstr(text, "\n  pa 1.41") != NULL);
  CHECK(strstr(text, ": pb c=faster (1 -> 4)\n") != NULL);
  free(text);
  char *md = table_render(&t, TABLE_MD, 0);
  CHECK(strstr(md, "| plugin | params | old | new | ratio | 95% CI | p | verdict |\n") != NULL);
  CHECK(strstr(md, "\n**5 cases: 1 FASTER, 1 SLOWER, 1 NOISY, 1 MISSING, 1 NEW** (threshold 5%, 95% intervals)\n") !=
        NULL);
  free(md);
  char *js = table_render(&t, TABLE_JSON, 0);
  json_error_t err;
  json_t *doc = json_loads(js, 0, &err);
  REQUIRE(doc != NULL);
  CHECK_STR(json_string_value(json_object_get(doc, "schema")), "bench-compare/1");
  json_t *cases = json_object_get(doc, "cases");
  CHECK(json_array_size(cases) == 5);
  json_t *c0 = json_array_get(cases, 0);
  CHECK(json_is_object(json_object_get(c0, "params")) && json_object_get(c0, "95% CI") == NULL);
  json_t *sum = json_object_get(doc, "summary");
  CHECK(json_integer_value(json_object_get(sum, "exit_status")) == 1);
  CHECK(json_integer_value(json_object_get(json_object_get(sum, "counts"), "MISSING")) == 1);
  json_decref(doc);
  free(js);
  table_release(&t);
  compare_summary_release(&s);
  free(rows);
  result_set_release(&new_);
  result_set_release(&old);
}

int main(void) {
  snprintf(tmp_old, sizeof tmp_old, "/tmp/test_compare_sets.XXXXXX");
  snprintf(tmp_new, sizeof tmp_new, "/tmp/test_compare_sets.XXXXXX");
  if (!mkdtemp(tmp_old) || !mkdtemp(tmp_new) || plant(tmp_old, tmp_new) != 0) {
    fprintf(stderr, "cannot plant results\n");
    return 1;
  }
  static const struct test_entry tests[] = {TEST_ENTRY(test_match_and_summary), TEST_ENTRY(test_table)};
  int rc = test_run_all(tests, sizeof tests / sizeof tests[0]);
  char *cmd = xasprintf("rm -rf '%s' '%s'", tmp_old, tmp_new);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s, %s\n", tmp_old, tmp_new);
  free(cmd);
  return rc;
}
