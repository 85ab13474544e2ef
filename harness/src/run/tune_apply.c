/* Substituting tuned values for tunables at auto before the cases run. */
#include "run/tune_apply.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/term.h"
#include "core/util.h"
#include "cases/param_values.h"
#include "plugin/tuning_cache.h"
#include "run/tune_device.h"

static int has_auto(const struct case_def *c) {
  for (size_t j = 0; j < c->nvalues; j++)
    if (c->values[j].is_auto) return 1;
  return 0;
}

/* Set c's auto tunables from "mc=64 kc=256". 0, or -1 (c unchanged) with
 * why saying what of the entry was refused. */
static int take_winner(struct case_def *c, const char *label, char *why, size_t whylen) {
  char *copy = xstrdup(label), *save = NULL;
  struct case_value *next = xcalloc(c->nvalues ? c->nvalues : 1, sizeof *next);
  int rc = 0, any = 0;
  for (char *tok = strtok_r(copy, " ", &save); tok && rc == 0; tok = strtok_r(NULL, " ", &save)) {
    char *eq = strchr(tok, '=');
    any = 1;
    if (!eq) {
      snprintf(why, whylen, "'%s' is not NAME=VALUE", tok);
      rc = -1;
      break;
    }
    *eq = '\0';
    size_t j = 0;
    while (j < c->nvalues && strcmp(c->values[j].param->name, tok) != 0) j++;
    struct param_values pv;
    char err[200];
    if (j == c->nvalues) {
      snprintf(why, whylen, "the plugin has no parameter '%s'", tok);
      rc = -1;
      break;
    }
    if (!c->values[j].param->tunable) {
      snprintf(why, whylen, "'%s' is not a tunable parameter", tok);
      rc = -1;
      break;
    }
    if (parse_values(c->values[j].param, eq + 1, &pv, err, sizeof err) != 0) {
      snprintf(why, whylen, "%s=%s: %s", tok, eq + 1, err);
      rc = -1;
      break;
    }
    if (pv.n == 1 && !pv.v[0].is_auto) {
      free(next[j].text);
      next[j] = pv.v[0];
      next[j].text = xstrdup(pv.v[0].text);
    } else {
      snprintf(why, whylen, "%s=%s is not one value", tok, eq + 1);
      rc = -1;
    }
    param_values_release(&pv);
  }
  if (rc == 0 && !any) {
    snprintf(why, whylen, "no value");
    rc = -1;
  }
  for (size_t j = 0; j < c->nvalues; j++) {
    if (rc == 0 && next[j].text && c->values[j].is_auto) {
      free(c->values[j].text);
      c->values[j] = next[j];
      c->values[j].is_auto = 1;
    } else {
      free(next[j].text);
    }
  }
  free(next);
  free(copy);
  return rc;
}

/* why for a case note: one line, no parentheses (the note's own close it) */
static void note_safe(char *why) {
  for (char *p = why; *p; p++) {
    if (*p == '(') *p = '[';
    else if (*p == ')') *p = ']';
    else if ((unsigned char)*p < 0x20 || *p == 0x7f) *p = '?';
  }
}

void tune_apply(struct case_list *cases, const struct plugin *const *plugins, size_t nplugins,
                const char *tuning_file, double timeout_s, int debug) {
  for (size_t p = 0; p < nplugins; p++) {
    int any = 0;
    for (size_t k = 0; k < cases->n && !any; k++)
      any = cases->cases[k].plugin_index == p && has_auto(&cases->cases[k]);
    if (!any) continue;
    struct tune_device dev = {0};
    char reason[300];
    char *path = NULL;
    struct tuning_cache cache = {0};
    /* No tuning folder (nothing was ever tuned here): no device to ask. */
    char *dir = tuning_file ? NULL : tuning_cache_default_path("-");
    char *slash = dir ? strrchr(dir, '/') : NULL;
    if (slash) *slash = '\0';
    const int none = !tuning_file && (!dir || access(dir, F_OK) != 0);
    free(dir);
    if (!none && tune_device_probe(plugins[p], timeout_s, debug, &dev, reason, sizeof reason) == BENCH_OK) {
      path = tuning_file ? xstrdup(tuning_file) : tuning_cache_default_path(dev.name);
      char why[600];
      if (path && tuning_cache_load_winners(path, plugins[p]->desc->name, plugins[p]->sha256, &cache, why,
                                            sizeof why) != 0)
        warning("%s; tunables of %s at their defaults", why, plugins[p]->desc->name);
    }
    const struct tuning_rec **warned = NULL; /* each rejected entry is said once */
    size_t nwarned = 0;
    for (size_t k = 0; k < cases->n; k++) {
      struct case_def *c = &cases->cases[k];
      if (c->plugin_index != p || !has_auto(c)) continue;
      const struct tuning_rec *w = NULL;
      if (dev.key && path) {
        char *key = tuning_key(dev.key, plugins[p]->desc->name, plugins[p]->sha256, c);
        w = tuning_cache_find(&cache, 'W', key, NULL);
        free(key);
      }
      free(c->note);
      char why[300] = "";
      if (w && take_winner(c, w->cand, why, sizeof why) == 0) {
        c->note = xasprintf("tuned (cache %s)", path);
      } else if (w) {
        note_safe(why);
        int said = 0;
        for (size_t i = 0; i < nwarned; i++) said |= warned[i] == w;
        if (!said) {
          warned = grow_for_one(warned, nwarned, sizeof *warned);
          warned[nwarned++] = w;
          const char *problem = strrchr(w->key, '|');
          warning("tuning cache %s: entry '%s' for %s %s rejected: %s; its tunables at their defaults",
                  term_str(path), term_str(w->cand), term_str(plugins[p]->desc->name),
                  term_str(problem ? problem + 1 : w->key), term_str(why));
        }
        c->note = xasprintf("default (tuning entry rejected: %s)", why);
      } else {
        c->note = xstrdup("default (no tuning entry)");
      }
    }
    free(warned);
    tuning_cache_release(&cache);
    free(path);
    tune_device_release(&dev);
  }
}
