/* Events back into suites and cases (see events_read.h). */
#include "results/events_read.h"

#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ev_log_release(struct ev_log *l) {
  for (size_t i = 0; i < l->n; i++) {
    struct ev_suite *s = &l->suites[i];
    for (size_t c = 0; c < s->ncases; c++) {
      free(s->cases[c].plugin);
      free(s->cases[c].label);
      free(s->cases[c].status);
    }
    free(s->cases);
    strmap_release(&s->by_index);
    free(s->preset);
    free(s->tag);
  }
  free(l->suites);
  strbuf_release(&l->partial);
  memset(l, 0, sizeof *l);
}

static struct ev_suite *suite_new(struct ev_log *l) {
  l->suites = grow_for_one(l->suites, l->n, sizeof *l->suites);
  struct ev_suite *s = &l->suites[l->n++];
  memset(s, 0, sizeof *s);
  return s;
}

/* The suite events belong to: the last one, or a new one for a file that
 * starts in the middle. */
static struct ev_suite *suite_cur(struct ev_log *l) { return l->n ? &l->suites[l->n - 1] : suite_new(l); }

static struct ev_case *case_get(struct ev_suite *s, int index) {
  char key[16];
  size_t pos;
  snprintf(key, sizeof key, "%d", index);
  if (strmap_get(&s->by_index, key, &pos)) return &s->cases[pos];
  s->cases = grow_for_one(s->cases, s->ncases, sizeof *s->cases);
  strmap_put(&s->by_index, key, s->ncases);
  struct ev_case *c = &s->cases[s->ncases++];
  memset(c, 0, sizeof *c);
  c->index = index;
  c->status = xstrdup("RUNNING");
  return c;
}

static int cmp_index(const void *a, const void *b) {
  const struct ev_case *x = a, *y = b;
  return (x->index > y->index) - (x->index < y->index);
}

void ev_suite_sort(struct ev_suite *s) {
  size_t i = 1;
  while (i < s->ncases && s->cases[i - 1].index < s->cases[i].index) i++;
  if (i >= s->ncases) return; /* already in order: the usual case */
  qsort(s->cases, s->ncases, sizeof *s->cases, cmp_index);
  for (i = 0; i < s->ncases; i++) {
    char key[16];
    snprintf(key, sizeof key, "%d", s->cases[i].index);
    strmap_put(&s->by_index, key, i);
  }
}

/* A string member, or NULL. */
static const char *jstring(json_t *o, const char *key) { return json_string_value(json_object_get(o, key)); }

static int jnumber(json_t *o, const char *key, double *out) {
  json_t *v = json_object_get(o, key);
  if (!json_is_number(v)) return 0;
  double d = json_number_value(v);
  if (!isfinite(d)) return 0;
  *out = d;
  return 1;
}

/* A whole number from lo to INT_MAX - 1 (so that index + 1 and the
 * like still fit an int), or 0 when the member is anything else. */
static int jcount(json_t *o, const char *key, int lo, int *out) {
  double d;
  if (!jnumber(o, key, &d) || d != floor(d) || d < lo || d > INT_MAX - 1) return 0;
  *out = (int)d;
  return 1;
}

static void set_str(char **dst, const char *v) {
  if (!v) return;
  free(*dst);
  *dst = xstrdup(v);
}

static void apply_event(struct ev_log *l, json_t *o) {
  const char *ev = jstring(o, "event");
  if (!ev) return;
  double ts = 0;
  int n = 0;
  int have_ts = jnumber(o, "ts", &ts);
  struct ev_suite *s;
  if (strcmp(ev, "SUITE_START") == 0) {
    s = suite_cur(l);
    if (s->started || s->ncases || s->ended) s = suite_new(l);
    s->started = 1;
    set_str(&s->preset, jstring(o, "preset"));
    set_str(&s->tag, jstring(o, "tag"));
    if (jcount(o, "total_cases", 0, &n)) s->total = n;
    if (have_ts) s->start_ts = ts;
    l->changed = 1;
  } else if (strcmp(ev, "TEST_START") == 0 || strcmp(ev, "TEST_END") == 0) {
    s = suite_cur(l);
    if (!jcount(o, "index", 0, &n)) return;
    struct ev_case *c = case_get(s, n);
    set_str(&c->plugin, jstring(o, "plugin"));
    set_str(&c->label, jstring(o, "case"));
    if (!s->total && jcount(o, "total", 0, &n)) s->total = n;
    if (strcmp(ev, "TEST_END") == 0) {
      set_str(&c->status, jstring(o, "status") ? jstring(o, "status") : "UNKNOWN");
      c->have = 0;
      if (jnumber(o, "wall_s", &c->wall_s)) c->have |= HAVE_WALL;
      if (jnumber(o, "median_ms", &c->median_ms)) c->have |= HAVE_MEDIAN;
      if (jnumber(o, "gflops", &c->gflops)) c->have |= HAVE_GFLOPS;
      if (jnumber(o, "gbps", &c->gbps)) c->have |= HAVE_GBPS;
      if (json_object_get(o, "primary")) c->have |= HAVE_PRIMARY; /* files before it have none */
      const char *unit = jstring(o, "throughput_unit");
      if (jnumber(o, "throughput", &c->throughput) && unit && *unit && strlen(unit) < sizeof c->throughput_unit) {
        memcpy(c->throughput_unit, unit, strlen(unit) + 1);
        c->have |= HAVE_THROUGHPUT;
      }
      s->have_hb = 0;
    }
    l->changed = 1;
  } else if (strcmp(ev, "HEARTBEAT") == 0) {
    s = suite_cur(l);
    double pct, eta;
    if (jnumber(o, "suite_percent", &pct) && jnumber(o, "suite_eta_s", &eta)) {
      s->hb_percent = pct;
      s->hb_eta = eta;
      s->have_hb = 1;
    }
  } else if (strcmp(ev, "SUITE_END") == 0) {
    s = suite_cur(l);
    double wall;
    s->ended = 1;
    s->interrupted = json_is_true(json_object_get(o, "interrupted"));
    if (jnumber(o, "wall_s", &wall)) s->wall_s = wall;
    if (!s->total && jcount(o, "total", 0, &n)) s->total = n;
    l->changed = 1;
  } else {
    return;
  }
  if (have_ts) s->last_ts = ts;
}

/* One line: a JSON object is an event; anything else is skipped. */
static void feed_line(struct ev_log *l, const char *line, size_t len) {
  while (len && (*line == ' ' || *line == '\t')) line++, len--;
  if (!len || *line != '{') return;
  json_error_t err;
  json_t *o = json_loadb(line, len, 0, &err);
  if (!o) return;
  if (json_is_object(o)) apply_event(l, o);
  json_decref(o);
}

void ev_log_feed(struct ev_log *l, const char *data, size_t n) {
  while (n) {
    const char *nl = memchr(data, '\n', n);
    size_t take = nl ? (size_t)(nl - data) : n;
    if (!l->skipping) {
      if (l->partial.len + take > EVENTS_LINE_MAX) {
        l->skipping = 1;
        strbuf_reset(&l->partial);
      } else if (nl && !l->partial.len) {
        feed_line(l, data, take); /* a whole line: no copy */
      } else {
        strbuf_add(&l->partial, data, take);
        if (nl) {
          feed_line(l, l->partial.buf, l->partial.len);
          strbuf_reset(&l->partial);
        }
      }
    }
    if (!nl) break;
    l->skipping = 0; /* the over-long line ends here */
    data += take + 1;
    n -= take + 1;
  }
}

void ev_log_feed_end(struct ev_log *l) {
  if (l->partial.len && !l->skipping) feed_line(l, l->partial.buf, l->partial.len);
  strbuf_reset(&l->partial);
  l->skipping = 0;
}
