/* The growth rule of the plugin ABI (see bench/plugin.h): a plugin of our
 * major is accepted when the minor it needs is one we have; fields added
 * after 1.0 are read only when the plugin's abi_version says they exist,
 * and every struct a plugin hands over is copied here, reading only the
 * bytes its minor has, into a zero-filled struct of our layout. */
#include "plugin/abi.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

#define MAJOR(v) ((unsigned)((v) >> 16))
#define MINOR(v) ((unsigned)((v)&0xffffu))

/* The sizes of each minor this harness knows. When a later minor appends a
 * field to one of these structs, the rows of the older minors change from
 * sizeof(...) to offsetof(..., first new field), and a row is added.
 * struct bench_compare came with the extension "bench.compare/1" (1.1); a
 * plugin that found the extension has at least that struct whatever minor
 * it states, so 1.0's row holds 1.1's size. 1.3 appended scale and
 * scale_fn to struct bench_compare (BENCH_TOL_SCALED). */
#define COMPARE_1_1 offsetof(struct bench_compare, scale)
/* 1.4 appended tunable, candidates and step to struct bench_param. */
#define PARAM_1_3 offsetof(struct bench_param, tunable)
static const struct known {
  size_t entry, param, check, compare;
} known[] = {
    /* 1.0 */ {offsetof(struct bench_plugin, abi_needed), PARAM_1_3,
               sizeof(struct bench_check), COMPARE_1_1},
    /* 1.1 */ {offsetof(struct bench_plugin, param_size), PARAM_1_3,
               sizeof(struct bench_check), COMPARE_1_1},
    /* 1.2 */ {sizeof(struct bench_plugin), PARAM_1_3, sizeof(struct bench_check),
               COMPARE_1_1},
    /* 1.3 */ {sizeof(struct bench_plugin), PARAM_1_3, sizeof(struct bench_check),
               sizeof(struct bench_compare)},
    /* 1.4 */ {sizeof(struct bench_plugin), sizeof(struct bench_param), sizeof(struct bench_check),
               sizeof(struct bench_compare)},
};
_Static_assert(sizeof known / sizeof known[0] == BENCH_ABI_MINOR + 1,
               "one row of known[] per minor up to BENCH_ABI_MINOR");
/* The loader finds the end of a params array of any stride by its name. */
_Static_assert(offsetof(struct bench_param, name) == 0, "bench_param.name must stay first");

static int built_with(const struct bench_plugin *p, uint32_t version) {
  return MAJOR(p->abi_version) == MAJOR(version) && p->abi_version >= version;
}

uint32_t abi_needed(const struct bench_plugin *p) {
  if (built_with(p, BENCH_ABI_1_1) && p->abi_needed) return p->abi_needed;
  return BENCH_ABI(MAJOR(p->abi_version), 0);
}

int abi_accept(const struct bench_plugin *p, char *msg, size_t len) {
  const uint32_t v = p->abi_version, need = abi_needed(p);
  if (MAJOR(v) != BENCH_ABI_MAJOR) {
    snprintf(msg, len, "built for plugin ABI %u.%u, this bench speaks %d.%d (rebuild it against "
             "this bench's plugin.h)", MAJOR(v), MINOR(v), BENCH_ABI_MAJOR, BENCH_ABI_MINOR);
    return -1;
  }
  if (MAJOR(need) != MAJOR(v) || need > v) {
    snprintf(msg, len, "abi_needed %u.%u does not fit its abi_version %u.%u (a plugin needs at "
             "most the version it was built with)", MAJOR(need), MINOR(need), MAJOR(v), MINOR(v));
    return -1;
  }
  if (MINOR(need) > BENCH_ABI_MINOR) {
    snprintf(msg, len, "needs plugin ABI %u.%u, this bench speaks %d.%d (use a newer bench)",
             MAJOR(need), MINOR(need), BENCH_ABI_MAJOR, BENCH_ABI_MINOR);
    return -1;
  }
  return 0;
}

abi_run_batch_fn abi_run_batch(const struct bench_plugin *p) {
  return built_with(p, BENCH_ABI_1_1) ? p->run_batch : NULL;
}

static void layout_set(struct abi_layout *l, const struct known *k) {
  l->entry = k->entry;
  l->param = k->param;
  l->check = k->check;
  l->compare = k->compare;
}

int abi_layout_of(const struct bench_plugin *p, struct abi_layout *l, char *msg, size_t len) {
  memset(l, 0, sizeof *l);
  if (!p) {
    l->plugin = "?";
    l->version = BENCH_ABI_1_0;
    layout_set(l, &known[0]);
    return 0;
  }
  l->plugin = p->name ? p->name : "?";
  l->version = p->abi_version;
  const unsigned minor = MINOR(p->abi_version);
  if (MAJOR(p->abi_version) != BENCH_ABI_MAJOR) {
    snprintf(msg, len, "plugin '%s': built for plugin ABI %u.%u, this bench speaks %d.%d",
             l->plugin, MAJOR(p->abi_version), minor, BENCH_ABI_MAJOR, BENCH_ABI_MINOR);
    return -1;
  }
  /* A newer minor's structs are supersets: we read the prefix we know. */
  layout_set(l, &known[minor <= BENCH_ABI_MINOR ? minor : BENCH_ABI_MINOR]);
  if (minor < 2) return 0; /* param_size is new in 1.2 */
  const size_t stated = p->param_size;
  if (minor <= BENCH_ABI_MINOR) {
    if (stated && stated != l->param) {
      snprintf(msg, len, "plugin '%s': param_size %zu, but struct bench_param of ABI %d.%u has "
               "%zu bytes (set it with BENCH_PLUGIN_SIZES)", l->plugin, stated,
               BENCH_ABI_MAJOR, minor, l->param);
      return -1;
    }
    return 0;
  }
  if (stated) {
    if (stated < l->param) {
      snprintf(msg, len, "plugin '%s': param_size %zu is smaller than this bench's struct "
               "bench_param (%zu bytes), which ABI %d.%u only extends", l->plugin, stated, l->param,
               BENCH_ABI_MAJOR, minor);
      return -1;
    }
    l->param = stated; /* checked further by abi_copy_param */
    return 0;
  }
  if (p->params && p->params[0].name) { /* the first entry's name is where it is in any minor */
    snprintf(msg, len, "plugin '%s': built for plugin ABI %d.%u, newer than this bench's %d.%d, "
             "without stating sizeof(struct bench_param) (end its entry with "
             "BENCH_PLUGIN_SIZES, or use a newer bench)", l->plugin, BENCH_ABI_MAJOR, minor,
             BENCH_ABI_MAJOR, BENCH_ABI_MINOR);
    return -1;
  }
  return 0;
}

/* The one copy: refuse a size that no minor of the struct can have, then
 * read min(size, ours) bytes into a zero-filled dst. */
static int copy_in(const struct abi_layout *l, const char *what, const void *src, size_t size,
                   size_t oldest, size_t align, void *dst, size_t ours, char *msg, size_t len) {
  const char *why = NULL;
  char buf[96];
  if (size < oldest) {
    snprintf(buf, sizeof buf, "is smaller than the %zu bytes it had when it was introduced",
             oldest);
    why = buf;
  } else if (size > ABI_STRUCT_MAX) {
    snprintf(buf, sizeof buf, "is larger than any struct of the plugin ABI (%d bytes at most)",
             ABI_STRUCT_MAX);
    why = buf;
  } else if (size % align) {
    snprintf(buf, sizeof buf, "is not a multiple of its alignment (%zu)", align);
    why = buf;
  }
  if (why) {
    snprintf(msg, len, "plugin '%s' (ABI %u.%u): struct %s of %zu bytes %s", l->plugin,
             MAJOR(l->version), MINOR(l->version), what, size, why);
    return -1;
  }
  memset(dst, 0, ours);
  memcpy(dst, src, size < ours ? size : ours);
  return 0;
}

int abi_copy_plugin(const struct abi_layout *l, const void *src, struct bench_plugin *dst,
                    char *msg, size_t len) {
  return copy_in(l, "bench_plugin", src, l->entry, known[0].entry, _Alignof(struct bench_plugin),
                 dst, sizeof *dst, msg, len);
}

int abi_copy_param(const struct abi_layout *l, const void *src, struct bench_param *dst,
                   char *msg, size_t len) {
  return copy_in(l, "bench_param", src, l->param, known[0].param, _Alignof(struct bench_param),
                 dst, sizeof *dst, msg, len);
}

int abi_copy_check(const struct abi_layout *l, const void *src, struct bench_check *dst,
                   char *msg, size_t len) {
  return copy_in(l, "bench_check", src, l->check, known[0].check, _Alignof(struct bench_check),
                 dst, sizeof *dst, msg, len);
}

int abi_copy_compare(const struct abi_layout *l, const void *src, struct bench_compare *dst,
                     char *msg, size_t len) {
  return copy_in(l, "bench_compare", src, l->compare, known[0].compare,
                 _Alignof(struct bench_compare), dst, sizeof *dst, msg, len);
}

struct bench_plugin *abi_plugin_import(const struct bench_plugin *p, char *msg, size_t len) {
  struct abi_layout l;
  if (abi_layout_of(p, &l, msg, len) != 0) return NULL;
  struct bench_plugin *e = xmalloc(sizeof *e);
  if (abi_copy_plugin(&l, p, e, msg, len) != 0) {
    free(e);
    return NULL;
  }
  if (e->params) {
    const char *base = (const char *)e->params, *name;
    size_t n = 0;
    for (;; n++) {
      memcpy(&name, base + n * l.param, sizeof name);
      if (!name) break;
    }
    struct bench_param *params = xcalloc(n + 1, sizeof *params);
    for (size_t i = 0; i < n; i++)
      if (abi_copy_param(&l, base + i * l.param, &params[i], msg, len) != 0) {
        free(params);
        free(e);
        return NULL;
      }
    e->params = params;
  }
  e->param_size = (uint32_t)sizeof(struct bench_param);
  return e;
}

void abi_plugin_free(const struct bench_plugin *p) {
  if (!p) return;
  free((void *)p->params);
  free((void *)p);
}

int abi_check_in(const struct bench_plugin *plugin, const struct bench_check **c,
                 struct bench_check *buf, char *msg, size_t len) {
  struct abi_layout l;
  if (!*c) return 0;
  if (abi_layout_of(plugin, &l, msg, len) != 0 || abi_copy_check(&l, *c, buf, msg, len) != 0)
    return -1;
  *c = buf;
  return 0;
}

int abi_compare_in(const struct bench_plugin *plugin, const struct bench_compare **c,
                   struct bench_compare *buf, char *msg, size_t len) {
  struct abi_layout l;
  if (!*c) return 0;
  if (abi_layout_of(plugin, &l, msg, len) != 0 || abi_copy_compare(&l, *c, buf, msg, len) != 0)
    return -1;
  *c = buf;
  return 0;
}
