/* param_names DIR...: the plugins of each operation agree on the names of
 * the parameters that state the problem (shape and dtype), so that bench
 * compare --by operation can line them up across plugins and backends.
 * Parameters that choose how it is computed (variant, isa, tile, threads, stores,
 * flush_l2) are left out; a plugin without dtype computes in f32; peak
 * plugins each measure their own ceiling and are left out too. Prints
 * each operation's names; exit 1 naming the plugins that disagree. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/compare_by_op.h"
#include "plugin/plugin_loader.h"
#include "core/util.h"

static char *problem_names(const struct bench_plugin *d) {
  const char *names[64];
  size_t n = 0;
  int dtype = 0;
  for (const struct bench_param *p = d->params; p && p->name && n < 63; p++) {
    if (is_implementation_param(p->name) || p->tunable) continue;
    dtype |= strcmp(p->name, "dtype") == 0;
    names[n++] = p->name;
  }
  if (!dtype) names[n++] = "dtype";
  for (size_t i = 1; i < n; i++) /* sort */
    for (size_t j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
      const char *t = names[j];
      names[j] = names[j - 1];
      names[j - 1] = t;
    }
  struct strbuf sb = STRBUF_INIT;
  for (size_t i = 0; i < n; i++) strbuf_addf(&sb, "%s%s", i ? "," : "", names[i]);
  return strbuf_detach(&sb);
}

int main(int argc, char **argv) {
  struct plugin_set set = {0};
  plugins_discover(argv + 1, (size_t)(argc - 1), &set);
  int bad = 0, shown = 0;
  for (size_t i = 0; i < set.n; i++) {
    const struct bench_plugin *a = set.items[i].desc;
    if (!a->operation || strcmp(a->operation, "none") == 0 || strcmp(a->operation, "peak") == 0) continue;
    char *na = problem_names(a);
    int first = 1;
    for (size_t j = 0; j < i && first; j++)
      first = !(set.items[j].desc->operation && strcmp(set.items[j].desc->operation, a->operation) == 0);
    for (size_t j = 0; first && j < set.n; j++) {
      const struct bench_plugin *b = set.items[j].desc;
      if (j == i || !b->operation || strcmp(b->operation, a->operation) != 0) continue;
      char *nb = problem_names(b);
      if (strcmp(na, nb) != 0) {
        printf("operation %s: %s has %s but %s has %s\n", a->operation, a->name, na, b->name, nb);
        bad = 1;
      }
      free(nb);
    }
    if (first) {
      printf("%-18s %s:", a->operation, na);
      for (size_t j = 0; j < set.n; j++)
        if (set.items[j].desc->operation && strcmp(set.items[j].desc->operation, a->operation) == 0)
          printf(" %s", set.items[j].desc->name);
      printf("\n");
      shown++;
    }
    free(na);
  }
  plugin_set_release(&set);
  if (!shown) {
    printf("no plugins with an operation found\n");
    return 1;
  }
  return bad;
}
