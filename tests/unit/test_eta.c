/* The run's ETA (run/eta.c) replayed on a recorded events stream (a
 * standard run of cpu_softmax, memlat_cpu, vk_gemm and cpu_rmsnorm, whose
 * cases last from milliseconds to seconds): redrawn every second within
 * each case as on a terminal, it never moves by 4x between two redraws,
 * and once a plugin has finished cases its next case is expected to last
 * like them, not like the run's mean. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/eta.h"
#include "test.h"

#define MAX_CASES 512

struct recorded {
  size_t n, nplugins;
  char plugins[16][32];
  size_t plugin_of[MAX_CASES];
  double wall[MAX_CASES];
};

/* The text of "key":"value" or "key":number in a JSON line (no nesting
 * needed: the events' top-level keys). */
static int field(const char *line, const char *key, char *out, size_t len) {
  char pat[64];
  snprintf(pat, sizeof pat, "\"%s\":", key);
  const char *p = strstr(line, pat);
  if (!p) return -1;
  p += strlen(pat);
  if (*p == '"') p++;
  size_t n = strcspn(p, "\",}");
  if (n >= len) n = len - 1;
  memcpy(out, p, n);
  out[n] = '\0';
  return 0;
}

static size_t plugin_index(struct recorded *r, const char *name) {
  for (size_t i = 0; i < r->nplugins; i++)
    if (strcmp(r->plugins[i], name) == 0) return i;
  snprintf(r->plugins[r->nplugins], sizeof r->plugins[0], "%s", name);
  return r->nplugins++;
}

static int load(struct recorded *r, const char *path) {
  memset(r, 0, sizeof *r);
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  char line[8192], ev[32], plugin[32], num[64];
  while (fgets(line, sizeof line, f)) {
    if (field(line, "event", ev, sizeof ev) != 0 || strcmp(ev, "TEST_END") != 0) continue;
    if (field(line, "plugin", plugin, sizeof plugin) != 0 || field(line, "index", num, sizeof num) != 0) continue;
    size_t k = (size_t)atol(num);
    if (k >= MAX_CASES || field(line, "wall_s", num, sizeof num) != 0) continue;
    r->plugin_of[k] = plugin_index(r, plugin);
    r->wall[k] = atof(num);
    if (k + 1 > r->n) r->n = k + 1;
  }
  fclose(f);
  return 0;
}

static void test_replay(void) {
  struct recorded r;
  CHECK(load(&r, TEST_DATA_DIR "/events/standard_run.jsonl") == 0);
  CHECK(r.n >= 10 && r.nplugins >= 3);
  struct eta e;
  eta_init(&e, r.plugin_of, r.n, r.nplugins, 5.5); /* standard: warm-up + max_time + 0.5 s */
  double prev = -1, worst = 1;
  size_t redraws = 0, near = 0, judged = 0;
  for (size_t k = 0; k < r.n; k++) {
    size_t pi = r.plugin_of[k];
    /* Once the plugin has two finished cases, the next is expected within
     * 3x of its real length (the run's mean would be off by 100x here). */
    if (e.done[pi] >= 2 && r.wall[k] > 0.05) {
      double x = eta_case_expected(&e, pi) / r.wall[k];
      judged++;
      near += x > 1.0 / 3 && x < 3;
    }
    eta_begin(&e, k);
    for (double t = 0; t <= r.wall[k]; t += 1.0) {
      double v = eta_suite(&e, t);
      redraws++;
      if (prev > 0 && v > 0) {
        double jump = v > prev ? v / prev : prev / v;
        if (jump > worst) worst = jump;
      }
      prev = v;
    }
    eta_end(&e, k, r.wall[k]);
  }
  printf("replay: %zu cases, %zu redraws, largest step %.2fx, %zu of %zu case lengths within 3x\n", r.n,
         redraws, worst, near, judged);
  CHECK(redraws > r.n);
  CHECK(worst < 4.0);
  CHECK(worst <= ETA_MAX_STEP + 1e-9);
  CHECK(judged > 0 && near * 10 >= judged * 8);
  /* The end: nothing left. */
  CHECK(eta_suite(&e, 0) == 0);
  eta_release(&e);
}

TEST_MAIN(TEST_ENTRY(test_replay))
