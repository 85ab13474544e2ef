/* The tuning table of bench report (report_tuning.h). */
#include "analyze/report_tuning.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze/roofs.h"
#include "core/util.h"
#include "plugin/tuning_cache.h"

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

size_t report_tuning_files(const char *const *files, size_t nfiles, char ***out) {
  *out = NULL;
  size_t n = 0;
  if (nfiles) {
    *out = xcalloc(nfiles, sizeof **out);
    for (size_t i = 0; i < nfiles; i++) (*out)[n++] = xstrdup(files[i]);
    return n;
  }
  char *dir = tuning_cache_default_path("-");
  char *slash = dir ? strrchr(dir, '/') : NULL;
  if (!slash) {
    free(dir);
    return 0;
  }
  *slash = '\0';
  DIR *d = opendir(dir);
  for (struct dirent *de; d && (de = readdir(d));) {
    size_t len = strlen(de->d_name);
    if (de->d_name[0] == '.' || len < 5 || strcmp(de->d_name + len - 4, ".tsv") != 0) continue;
    *out = grow_for_one(*out, n, sizeof **out);
    (*out)[n++] = xasprintf("%s/%s", dir, de->d_name);
  }
  if (d) closedir(d);
  free(dir);
  if (n) qsort(*out, n, sizeof **out, cmp_str);
  return n;
}

/* The text of key's field "NAME=" up to the next ';' or '|' (malloc'd), or "". */
static char *key_field(const char *key, const char *name) {
  size_t len = strlen(name);
  for (const char *p = key; (p = strstr(p, name)); p++)
    if (p == key || p[-1] == ';' || p[-1] == '|')
      return xstrndup(p + len, strcspn(p + len, ";|"));
  return xstrdup("");
}

/* Does every "name=value" token of problem occur among params' tokens? */
static int has_tokens(const char *params, const char *problem) {
  char *copy = xstrdup(problem), *save = NULL;
  int all = 1;
  for (char *tok = strtok_r(copy, " ", &save); tok && all; tok = strtok_r(NULL, " ", &save)) {
    size_t tl = strlen(tok);
    int found = 0;
    for (const char *p = params; !found && (p = strstr(p, tok)); p++)
      found = (p == params || p[-1] == ' ') && (p[tl] == ' ' || p[tl] == '\0');
    all = found;
  }
  free(copy);
  return all;
}

static json_t *num(double v) { return isfinite(v) ? json_real(v) : json_null(); }

/* One row per W record of c (read from path). */
static void rows_of(const char *path, const struct tuning_cache *c, const struct result_set *s,
                    const size_t *idx, size_t n, json_t *rows) {
  char *tuned_note = xasprintf("tuned (cache %s)", path);
  for (size_t i = 0; i < c->n; i++) {
    const struct tuning_rec *w = &c->recs[i];
    if (w->kind != 'W') continue;
    const char *bar = strrchr(w->key, '|');
    const char *problem = bar ? bar + 1 : "";
    char *device = key_field(w->key, "device="), *plugin = key_field(w->key, "plugin="),
         *sha = key_field(w->key, "sha256=");
    size_t measured = 0, disq = 0, skipped = 0, failed = 0;
    for (size_t j = 0; j < c->n; j++) {
      const struct tuning_rec *m = &c->recs[j];
      if (m->kind != 'M' || strcmp(m->key, w->key) != 0) continue;
      if (strcmp(m->status, "OK") == 0) measured++;
      else if (strcmp(m->status, "WRONG_ANSWER") == 0) disq++;
      else if (strcmp(m->status, "SKIPPED") == 0) skipped++;
      else failed++;
    }
    /* median lo hi default_ns tried disq skipped strategy [speedup lo hi verdict rounds pairs] */
    double med = NAN, lo = NAN, hi = NAN, def = NAN, sp = NAN, splo = NAN, sphi = NAN;
    size_t tried = 0, wd = 0, ws = 0, rounds = 0, pairs = 0;
    char strategy[32] = "", verdict[32] = "";
    int got = sscanf(w->data, "%lf %lf %lf %lf %zu %zu %zu %31s %lf %lf %lf %31s %zu %zu", &med, &lo,
                     &hi, &def, &tried, &wd, &ws, strategy, &sp, &splo, &sphi, verdict, &rounds,
                     &pairs);
    if (got < 14) { /* written before the final comparisons went through bench ab's driver */
      sp = splo = sphi = NAN;
      verdict[0] = '\0';
      rounds = pairs = 0;
      if (got >= 4 && def > 0 && med > 0) sp = def / med;
    }
    size_t tuned = 0, dflt = 0;
    for (size_t k = 0; k < n; k++) {
      const struct rs_entry *e = &s->entries[idx[k]];
      if (strcmp(e->plugin, plugin) != 0 || !has_tokens(e->params, problem)) continue;
      const char *dev = case_device(e);
      if (dev && *dev && *device && strcmp(dev, device) != 0) continue;
      const char *note = kv_list_get(e->r->ninfo, e->r->info, "note");
      if (note && strstr(note, tuned_note)) tuned++;
      else if (note && (strstr(note, "default (no tuning entry)") ||
                        strstr(note, "default (tuning entry rejected: ")))
        dflt++;
    }
    json_t *o = json_object();
    json_object_set_new(o, "file", json_string(path));
    json_object_set_new(o, "device", json_string(device));
    json_object_set_new(o, "plugin", json_string(plugin));
    json_object_set_new(o, "sha256", json_string(sha));
    json_object_set_new(o, "problem", json_string(problem));
    json_object_set_new(o, "winner", json_string(w->cand));
    json_object_set_new(o, "median_ns", num(med));
    json_object_set_new(o, "default_ns", def > 0 ? num(def) : json_null());
    json_object_set_new(o, "speedup", num(sp));
    json_object_set_new(o, "speedup_lo", num(splo));
    json_object_set_new(o, "speedup_hi", num(sphi));
    json_object_set_new(o, "verdict", verdict[0] ? json_string(verdict) : json_null());
    json_object_set_new(o, "rounds", json_integer((json_int_t)rounds));
    json_object_set_new(o, "pairs", json_integer((json_int_t)pairs));
    json_object_set_new(o, "strategy", json_string(strategy));
    json_object_set_new(o, "measured", json_integer((json_int_t)measured));
    json_object_set_new(o, "disqualified", json_integer((json_int_t)disq));
    json_object_set_new(o, "skipped", json_integer((json_int_t)skipped));
    json_object_set_new(o, "failed", json_integer((json_int_t)failed));
    json_object_set_new(o, "runs_tuned", json_integer((json_int_t)tuned));
    json_object_set_new(o, "runs_default", json_integer((json_int_t)dflt));
    json_array_append_new(rows, o);
    free(device);
    free(plugin);
    free(sha);
  }
  free(tuned_note);
}

json_t *report_tuning_json(char *const *paths, size_t npaths, const struct result_set *s,
                           const size_t *idx, size_t n) {
  json_t *root = json_object(), *files = json_array(), *bad = json_array(), *rows = json_array();
  for (size_t i = 0; i < npaths; i++) {
    struct tuning_cache c;
    char why[600];
    if (access(paths[i], R_OK) != 0) {
      snprintf(why, sizeof why, "cannot read tuning file '%s'", paths[i]);
      warning("%s; left out of the tuning table", why);
      json_array_append_new(bad, json_string(why));
      continue;
    }
    if (tuning_cache_load(paths[i], &c, why, sizeof why) != 0) {
      warning("%s; left out of the tuning table", why);
      json_array_append_new(bad, json_string(why));
      continue;
    }
    json_array_append_new(files, json_string(paths[i]));
    rows_of(paths[i], &c, s, idx, n, rows);
    tuning_cache_release(&c);
  }
  json_object_set_new(root, "files", files);
  json_object_set_new(root, "skipped_files", bad);
  json_object_set_new(root, "rows", rows);
  return root;
}
