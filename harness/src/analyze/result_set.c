/* Loading result files for comparison and matching their cases by key. */
#include "analyze/result_set.h"

#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "results/io.h"
#include "core/util.h"

static int cmp_names(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static int is_result_name(const char *name) {
  size_t len = strlen(name);
  return name[0] != '.' && len > 5 && strcmp(name + len - 5, ".json") == 0;
}

static int plugin_selected(const struct rs_select *sel, const char *plugin) {
  if (!sel || !sel->nplugins) return 1;
  if (!plugin) return 0;
  for (size_t i = 0; i < sel->nplugins; i++) {
    char *list = xstrdup(sel->plugins[i]), *save = NULL;
    int hit = 0;
    for (char *p = strtok_r(list, ",", &save); p && !hit; p = strtok_r(NULL, ",", &save))
      hit = fnmatch(trim(p), plugin, 0) == 0;
    free(list);
    if (hit) return 1;
  }
  return 0;
}

/* The index of the first of sel's labels that label matches, or
 * sel->nlabels when none does (a run without a label matches none). */
static size_t label_rank(const struct rs_select *sel, const char *label) {
  if (!sel || !sel->nlabels) return 0;
  for (size_t i = 0; label && i < sel->nlabels; i++)
    if (strcmp(sel->labels[i], label) == 0 || fnmatch(sel->labels[i], label, 0) == 0) return i;
  return sel->nlabels;
}

static int run_selected(const struct rs_select *sel, const struct run_file *f) {
  if (!sel) return 1;
  if (sel->nlabels && label_rank(sel, f->env.label) == sel->nlabels) return 0;
  if (sel->date && (!f->env.date || strncmp(f->env.date, sel->date, strlen(sel->date)) != 0)) return 0;
  if (sel->tag && (!f->env.tag || strcmp(f->env.tag, sel->tag) != 0)) return 0;
  return 1;
}

/* Read and parse one file the way the rollup does (a regular file, loaded
 * whole under the load limit and streamed above it, its journal merged in,
 * timings checked, contradictions refused); 0, or -1 with the reason in err. */
static int read_run(const char *path, struct run_file *f, char *err, size_t errlen) {
  return results_read_file(path, f, err, errlen);
}

static void add_file(struct result_set *s, struct run_file *f, const char *path) {
  s->files = xrealloc(s->files, (s->nfiles + 1) * sizeof *s->files);
  s->paths = xrealloc(s->paths, (s->nfiles + 1) * sizeof *s->paths);
  s->files[s->nfiles] = *f;
  s->paths[s->nfiles] = xstrdup(path);
  s->nfiles++;
}

/* Runs by date, then start time (a second run of a day is saved as
 * NAME.2.json, which sorts before NAME.json), then file name. */
struct file_order {
  const struct run_file *f;
  const char *path;
  size_t i;
};
static int cmp_file_order(const void *pa, const void *pb) {
  const struct file_order *a = pa, *b = pb;
  int c = strcmp(a->f->env.date ? a->f->env.date : "", b->f->env.date ? b->f->env.date : "");
  if (c) return c;
  c = strcmp(a->f->env.started ? a->f->env.started : "", b->f->env.started ? b->f->env.started : "");
  if (c) return c;
  c = strcmp(a->path, b->path);
  return c ? c : (a->i > b->i) - (a->i < b->i);
}

static int cmp_case_index(const void *pa, const void *pb) {
  const struct rs_entry *a = pa, *b = pb;
  return (a->r->index > b->r->index) - (a->r->index < b->r->index);
}

static char *params_of(const struct case_result *r) {
  struct strbuf sb = STRBUF_INIT;
  for (size_t i = 0; i < r->nparams; i++)
    strbuf_addf(&sb, "%s%s=%s", i ? " " : "", r->params[i].key, r->params[i].value);
  return strbuf_detach(&sb);
}

static void build_entries(struct result_set *s, const struct rs_select *sel) {
  struct file_order *order = xcalloc(s->nfiles ? s->nfiles : 1, sizeof *order);
  for (size_t i = 0; i < s->nfiles; i++) order[i] = (struct file_order){&s->files[i], s->paths[i], i};
  qsort(order, s->nfiles, sizeof *order, cmp_file_order);
  for (size_t k = 0; k < s->nfiles; k++) {
    const struct run_file *f = order[k].f;
    size_t first = s->n;
    for (size_t c = 0; c < f->ncases; c++) {
      const struct case_result *r = &f->cases[c];
      const char *plugin = r->plugin ? r->plugin : f->plugin;
      if (!plugin_selected(sel, plugin)) continue;
      s->entries = xrealloc(s->entries, (s->n + 1) * sizeof *s->entries);
      s->entries[s->n++] = (struct rs_entry){
          .file = f, .r = r, .path = order[k].path, .plugin = plugin ? plugin : "",
          .tag = f->env.tag ? f->env.tag : "", .date = f->env.date ? f->env.date : "",
          .label = f->env.label ? f->env.label : "",
          .run = f->env.run_id ? f->env.run_id : f->env.date ? f->env.date : "",
          .label_rank = label_rank(sel, f->env.label), .params = params_of(r)};
    }
    if (s->n > first) qsort(s->entries + first, s->n - first, sizeof *s->entries, cmp_case_index);
  }
  free(order);
}

int result_set_load(const char *path, const struct rs_select *sel, struct result_set *out) {
  memset(out, 0, sizeof *out);
  struct stat st;
  if (stat(path, &st) != 0) return error("cannot read '%s': %s", path, strerror(errno));
  char err[512];
  if (!S_ISDIR(st.st_mode)) {
    struct run_file f;
    if (read_run(path, &f, err, sizeof err) != 0) return error("cannot read results from %s: %s", path, err);
    if (run_selected(sel, &f)) add_file(out, &f, path);
    else run_file_release(&f);
  } else {
    DIR *d = opendir(path);
    if (!d) return error("cannot read results folder %s: %s", path, strerror(errno));
    char **names = NULL;
    size_t n = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
      if (!is_result_name(de->d_name)) continue;
      names = xrealloc(names, (n + 1) * sizeof *names);
      names[n++] = xstrdup(de->d_name);
    }
    closedir(d);
    if (n) qsort(names, n, sizeof *names, cmp_names);
    for (size_t i = 0; i < n; i++) {
      char *file = xasprintf("%s/%s", path, names[i]);
      struct run_file f;
      if (read_run(file, &f, err, sizeof err) != 0) warning("skipping %s: %s", file, err);
      else if (run_selected(sel, &f)) add_file(out, &f, file);
      else run_file_release(&f);
      free(file);
      free(names[i]);
    }
    free(names);
  }
  build_entries(out, sel);
  return 0;
}

void result_set_release(struct result_set *s) {
  for (size_t i = 0; i < s->n; i++) free(s->entries[i].params);
  free(s->entries);
  for (size_t i = 0; i < s->nfiles; i++) {
    run_file_release(&s->files[i]);
    free(s->paths[i]);
  }
  free(s->files);
  free(s->paths);
  memset(s, 0, sizeof *s);
}

char *rs_key(const struct rs_entry *e, int with_tag) {
  /* \x1f (unit separator) cannot occur in names or parameters typed in a preset */
  return with_tag ? xasprintf("%s\x1f%s\x1f%s", e->plugin, e->params, e->tag)
                  : xasprintf("%s\x1f%s", e->plugin, e->params);
}

int rs_entry_order(const struct rs_entry *a, const struct rs_entry *b) {
  int c = strcmp(a->plugin, b->plugin);
  if (c) return c;
  c = strcmp(a->tag, b->tag);
  if (c) return c;
  if (a->r->index != b->r->index) return a->r->index < b->r->index ? -1 : 1;
  return strcmp(a->params, b->params);
}

static int cmp_keyed(const void *pa, const void *pb) {
  const struct rs_keyed *a = pa, *b = pb;
  int c = strcmp(a->key, b->key);
  return c ? c : (a->idx > b->idx) - (a->idx < b->idx);
}

struct rs_keyed *rs_sorted_keys(const struct result_set *s, int with_tag) {
  struct rs_keyed *k = xcalloc(s->n ? s->n : 1, sizeof *k);
  for (size_t i = 0; i < s->n; i++) k[i] = (struct rs_keyed){rs_key(&s->entries[i], with_tag), i};
  qsort(k, s->n, sizeof *k, cmp_keyed);
  return k;
}

void rs_keys_release(struct rs_keyed *k, size_t n) {
  for (size_t i = 0; i < n; i++) free(k[i].key);
  free(k);
}

void rs_latest(const struct result_set *s, int with_tag, size_t **idx, size_t *n) {
  struct rs_keyed *k = rs_sorted_keys(s, with_tag);
  *idx = xcalloc(s->n ? s->n : 1, sizeof **idx);
  *n = 0;
  for (size_t i = 0; i < s->n; i++)
    if (i + 1 == s->n || strcmp(k[i].key, k[i + 1].key) != 0) (*idx)[(*n)++] = k[i].idx;
  rs_keys_release(k, s->n);
}

int rs_has_device(const struct case_result *r) {
  return r->device_ns && r->nsamples > 0;
}

const double *rs_samples(const struct case_result *r, int use_device, size_t *n) {
  *n = r->nsamples;
  if (!r->nsamples) return NULL;
  if (use_device && rs_has_device(r)) return r->device_ns;
  if (!r->host_clock_ns) *n = 0;
  return r->host_clock_ns;
}

int rs_tags_overlap(const struct result_set *a, const struct result_set *b) {
  for (size_t i = 0; i < a->nfiles; i++)
    for (size_t j = 0; j < b->nfiles; j++) {
      const char *x = a->files[i].env.tag ? a->files[i].env.tag : "";
      const char *y = b->files[j].env.tag ? b->files[j].env.tag : "";
      if (strcmp(x, y) == 0) return 1;
    }
  return 0;
}

int rs_same_plugin(const struct rs_entry *a, const struct rs_entry *b) {
  const char *x = a->file->plugin_sha256, *y = b->file->plugin_sha256;
  return (!x && !y) || (x && y && strcmp(x, y) == 0);
}

int rs_timed_ok(const struct rs_entry *e) {
  size_t n;
  return e->r->status == CASE_OK && rs_samples(e->r, 0, &n) && n > 0;
}

void rs_group_runs(const struct result_set *s, int with_tag, struct rs_group **out, size_t *n) {
  struct rs_keyed *k = rs_sorted_keys(s, with_tag);
  struct rs_group *g = xcalloc(s->n ? s->n : 1, sizeof *g);
  size_t ng = 0;
  for (size_t i = 0; i < s->n;) {
    size_t j = i;
    while (j + 1 < s->n && strcmp(k[j + 1].key, k[i].key) == 0) j++;
    /* k[i..j]: one key, chronological; the newest is k[j] */
    struct rs_group *grp = &g[ng++];
    const struct rs_entry *newest = &s->entries[k[j].idx];
    grp->newest = k[j].idx;
    grp->pool = xcalloc(j - i + 1, sizeof *grp->pool);
    grp->hist = xcalloc(j - i + 1, sizeof *grp->hist);
    if (!rs_timed_ok(newest)) {
      grp->pool[grp->npool++] = k[j].idx;
    } else {
      for (size_t m = i; m <= j; m++) {
        const struct rs_entry *e = &s->entries[k[m].idx];
        if (!rs_timed_ok(e) || !rs_same_plugin(e, newest)) continue;
        if (strcmp(e->date, newest->date) == 0) grp->pool[grp->npool++] = k[m].idx;
        else if (strcmp(e->date, newest->date) < 0) grp->hist[grp->nhist++] = k[m].idx;
      }
    }
    i = j + 1;
  }
  rs_keys_release(k, s->n);
  *out = g;
  *n = ng;
}

void rs_groups_release(struct rs_group *g, size_t n) {
  for (size_t i = 0; i < n; i++) {
    free(g[i].pool);
    free(g[i].hist);
  }
  free(g);
}
