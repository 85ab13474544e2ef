/* --list's runnability verdicts, cached (probe_cache.h). */
#include "plugin/probe_cache.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/hash.h"
#include "core/util.h"
#include "plugin/scan_cache.h"

#define PROBE_CACHE_FILE "probe-v1.cache"
#define FIELDS 10

extern char **environ;

struct probe_verdict {
  char *path;
  struct scan_key key;
  int rc;
  char *reason;
};

static int steers_runtime(const char *kv) {
  static const char *const prefixes[] = {"VK_", "HIP_", "ROCR_", "HSA_", "CUDA_", "MESA_", "LP_",
                                         "OMP_", "GPU_", "AMD_", "LD_LIBRARY_PATH=",
                                         "BENCH_", NULL};
  for (int i = 0; prefixes[i]; i++)
    if (strncmp(kv, prefixes[i], strlen(prefixes[i])) == 0) return 1;
  return 0;
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* "BOOTID-ENVHASH": this boot and the runtime-steering environment. */
static char *boot_env(void) {
  struct strbuf boot = STRBUF_INIT;
  if (read_file("/proc/sys/kernel/random/boot_id", &boot) != 0) strbuf_adds(&boot, "noboot");
  trim(boot.buf);
  size_t n = 0;
  for (char **e = environ; e && *e; e++) n += steers_runtime(*e);
  const char **v = xcalloc(n ? n : 1, sizeof *v);
  n = 0;
  for (char **e = environ; e && *e; e++)
    if (steers_runtime(*e)) v[n++] = *e;
  qsort(v, n, sizeof *v, cmp_str);
  uint64_t h = FNV1A64_INIT;
  for (size_t i = 0; i < n; i++) h = fnv1a64(h, v[i], strlen(v[i]) + 1);
  free(v);
  char *out = xasprintf("%s-%016" PRIx64, boot.buf, h);
  strbuf_release(&boot);
  return out;
}

static void verdict_free(struct probe_verdict *v) {
  free(v->path);
  free(v->reason);
}

static int parse_line(char *line, const char *be, struct probe_verdict *out) {
  char *f[FIELDS + 1];
  if (scan_fields_split(line, f, FIELDS) != FIELDS || strcmp(f[0], "P") != 0) return -1;
  uint64_t mt, ct, rc;
  memset(out, 0, sizeof *out);
  if (scan_field_get(f[1], &out->path) != 0 || !out->path ||
      scan_field_u64(f[2], &out->key.dev) != 0 || scan_field_u64(f[3], &out->key.ino) != 0 ||
      scan_field_u64(f[4], &out->key.size) != 0 || scan_field_u64(f[5], &mt) != 0 ||
      mt > INT64_MAX || scan_field_u64(f[6], &ct) != 0 || ct > INT64_MAX ||
      scan_field_u64(f[8], &rc) != 0 || rc > BENCH_ERROR ||
      scan_field_get(f[9], &out->reason) != 0 || !out->reason) {
    verdict_free(out);
    return -1;
  }
  out->key.mtime_ns = (int64_t)mt;
  out->key.ctime_ns = (int64_t)ct;
  out->rc = (int)rc;
  return strcmp(f[7], be) == 0 ? 0 : 1; /* 1: another boot or environment */
}

void probe_cache_load(struct probe_cache *c) {
  memset(c, 0, sizeof *c);
  c->boot_env = boot_env();
  if (!plugin_scan_cache_on()) return;
  char *header = scan_cache_header("probe");
  char **lines;
  size_t n;
  char why[256];
  if (cache_file_read(PROBE_CACHE_FILE, header, &lines, &n, why, sizeof why) == 0) {
    c->v = xcalloc(n ? n : 1, sizeof *c->v);
    for (size_t i = 0; i < n; i++) {
      int r = parse_line(lines[i], c->boot_env, &c->v[c->n]);
      if (r == 0) c->n++;
      else if (r < 0) { /* any doubt: all of it goes */
        for (size_t j = 0; j < c->n; j++) verdict_free(&c->v[j]);
        c->n = 0;
        c->dirty = 1;
        break;
      } else {
        verdict_free(&c->v[c->n]);
        c->dirty = 1; /* drop the other boot's */
      }
    }
    cache_lines_free(lines, n);
  }
  free(header);
}

static struct probe_verdict *find(const struct probe_cache *c, const char *path) {
  for (size_t i = 0; i < c->n; i++)
    if (strcmp(c->v[i].path, path) == 0) return &c->v[i];
  return NULL;
}

int probe_cache_get(const struct probe_cache *c, const struct plugin *pl, int *rc, char **reason) {
  const struct probe_verdict *v = find(c, pl->path);
  if (!v || !scan_key_eq(&v->key, &pl->key)) return 0;
  *rc = v->rc;
  *reason = xstrdup(v->reason);
  return 1;
}

void probe_cache_put(struct probe_cache *c, const struct plugin *pl, int rc, const char *reason) {
  struct probe_verdict *v = find(c, pl->path);
  if (!v) {
    c->v = xrealloc(c->v, (c->n + 1) * sizeof *c->v);
    v = &c->v[c->n++];
    v->path = xstrdup(pl->path);
  } else {
    free(v->reason);
  }
  v->key = pl->key;
  v->rc = rc;
  v->reason = xstrdup(reason ? reason : "");
  c->dirty = 1;
}

void probe_cache_save(struct probe_cache *c) {
  const char *e = getenv("BENCH_NO_SCAN_CACHE");
  if (!c->dirty || (e && *e && strcmp(e, "0") != 0)) return;
  char **lines = xcalloc(c->n ? c->n : 1, sizeof *lines);
  size_t n = 0;
  for (size_t i = 0; i < c->n; i++) {
    const struct probe_verdict *v = &c->v[i];
    struct scan_key now;
    if (scan_key_of(v->path, &now) != 0 || !scan_key_eq(&now, &v->key)) continue;
    struct strbuf sb = STRBUF_INIT;
    strbuf_adds(&sb, "P\t");
    scan_field_put(&sb, v->path);
    strbuf_addf(&sb, "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRId64 "\t%" PRId64 "\t%s\t%d\t",
                v->key.dev, v->key.ino, v->key.size, v->key.mtime_ns, v->key.ctime_ns, c->boot_env,
                v->rc);
    scan_field_put(&sb, v->reason);
    lines[n++] = strbuf_detach(&sb);
  }
  char *header = scan_cache_header("probe");
  char why[256];
  cache_file_write(PROBE_CACHE_FILE, header, lines, n, why, sizeof why); /* no cache: no harm */
  free(header);
  cache_lines_free(lines, n);
  c->dirty = 0;
}

void probe_cache_release(struct probe_cache *c) {
  for (size_t i = 0; i < c->n; i++) verdict_free(&c->v[i]);
  free(c->v);
  free(c->boot_env);
  memset(c, 0, sizeof *c);
}
