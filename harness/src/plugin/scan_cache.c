/* The scan cache's records and files (scan_cache.h). Records are parsed
 * strictly: a field that is not exactly what this build writes makes the
 * record unreadable, and the caller scans the file again. */
#include "plugin/scan_cache.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/cache_trust.h"
#include "core/hash.h"
#include "core/lockfile.h"
#include "core/version.h"

#define CACHE_FORMAT 2 /* 2: the key has the ctime (issue 40) */
#define CACHE_CAP (64u << 20)
#define MAX_PARAMS 4096
#define PARAM_FIELDS 14 /* ... defaults[4], then 1.4's tunable, candidates, step */
#define HEAD_FIELDS 10 /* "ok", sha256, abi_version, abi_needed, param_size, fns, name,
                          backend, operation, description; then nparams */

int scan_key_of(const char *path, struct scan_key *k) {
  struct stat st;
  if (stat(path, &st) != 0) return -1;
  k->dev = (uint64_t)st.st_dev;
  k->ino = (uint64_t)st.st_ino;
  k->size = (uint64_t)st.st_size;
  k->mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
  k->ctime_ns = (int64_t)st.st_ctim.tv_sec * 1000000000 + st.st_ctim.tv_nsec;
  return 0;
}

int scan_key_eq(const struct scan_key *a, const struct scan_key *b) {
  return a->dev == b->dev && a->ino == b->ino && a->size == b->size && a->mtime_ns == b->mtime_ns &&
         a->ctime_ns == b->ctime_ns;
}

/* ---- fields ---- */

void scan_field_put(struct strbuf *sb, const char *s) {
  if (!s) {
    strbuf_adds(sb, "\\N");
    return;
  }
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    if (*p < 0x20 || *p == 0x7f || *p == '\\')
      strbuf_addf(sb, "\\x%02x", *p);
    else
      strbuf_add(sb, (const char *)p, 1);
  }
}

size_t scan_fields_split(char *line, char **f, size_t max) {
  size_t n = 0;
  for (char *p = line;; ) {
    if (n == max) return max + 1; /* more than asked for */
    f[n++] = p;
    char *tab = strchr(p, '\t');
    if (!tab) break;
    *tab = '\0';
    p = tab + 1;
  }
  return n;
}

static int hexval(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

int scan_field_get(const char *f, char **out) {
  *out = NULL;
  if (strcmp(f, "\\N") == 0) return 0;
  struct strbuf sb = STRBUF_INIT;
  strbuf_adds(&sb, "");
  for (const char *p = f; *p; p++) {
    unsigned char c = (unsigned char)*p;
    if (c < 0x20 || c == 0x7f) goto bad;
    if (c == '\\') {
      int hi, lo;
      if (p[1] != 'x' || (hi = hexval(p[2])) < 0 || (lo = hexval(p[3])) < 0) goto bad;
      c = (unsigned char)(hi * 16 + lo);
      /* only what scan_field_put escapes comes escaped */
      if (!(c < 0x20 || c == 0x7f || c == '\\') || c == 0) goto bad;
      p += 3;
    }
    strbuf_add(&sb, (const char *)&c, 1);
  }
  *out = strbuf_detach(&sb);
  return 0;
bad:
  strbuf_release(&sb);
  return -1;
}

int scan_field_u64(const char *f, uint64_t *out) {
  if (!*f || strlen(f) > 20 || (f[0] == '0' && f[1])) return -1;
  uint64_t v = 0;
  for (const char *p = f; *p; p++) {
    if (*p < '0' || *p > '9') return -1;
    uint64_t d = (uint64_t)(*p - '0');
    if (v > (UINT64_MAX - d) / 10) return -1;
    v = v * 10 + d;
  }
  *out = v;
  return 0;
}

static int field_u32(const char *f, uint32_t *out) {
  uint64_t v;
  if (scan_field_u64(f, &v) != 0 || v > UINT32_MAX) return -1;
  *out = (uint32_t)v;
  return 0;
}

/* A double as written by "%a" and nothing else. */
static int field_double(const char *f, double *out) {
  char *end;
  if (!*f || f[0] == ' ') return -1;
  errno = 0;
  double v = strtod(f, &end);
  if (errno || *end) return -1;
  char back[64];
  snprintf(back, sizeof back, "%a", v);
  if (strcmp(back, f) != 0) return -1;
  *out = v;
  return 0;
}

/* ---- records ---- */

enum { FN_INIT = 1, FN_DEINIT = 2, FN_SETUP = 4, FN_RUN = 8, FN_VERIFY = 16, FN_TEARDOWN = 32,
       FN_RUN_BATCH = 64, FN_ALL = 127 };

char *scan_record_plugin(const struct bench_plugin *p, const char *sha256) {
  struct strbuf sb = STRBUF_INIT;
  unsigned fns = (p->init ? FN_INIT : 0) | (p->deinit ? FN_DEINIT : 0) | (p->setup ? FN_SETUP : 0) |
                 (p->run ? FN_RUN : 0) | (p->verify ? FN_VERIFY : 0) |
                 (p->teardown ? FN_TEARDOWN : 0) | (p->run_batch ? FN_RUN_BATCH : 0);
  strbuf_addf(&sb, "ok\t%s\t%" PRIu32 "\t%" PRIu32 "\t%" PRIu32 "\t%u\t", sha256, p->abi_version,
              p->abi_needed, p->param_size, fns);
  const char *strs[4] = {p->name, p->backend, p->operation, p->description};
  for (int i = 0; i < 4; i++) {
    scan_field_put(&sb, strs[i]);
    strbuf_adds(&sb, "\t");
  }
  size_t n = 0;
  while (p->params && p->params[n].name) n++;
  strbuf_addf(&sb, "%zu", n);
  for (size_t i = 0; i < n; i++) {
    const struct bench_param *q = &p->params[i];
    strbuf_adds(&sb, "\t");
    scan_field_put(&sb, q->name);
    strbuf_addf(&sb, "\t%d\t", (int)q->type);
    scan_field_put(&sb, q->description);
    strbuf_adds(&sb, "\t");
    scan_field_put(&sb, q->choices);
    strbuf_addf(&sb, "\t%a\t%a\t%d", q->min, q->max, q->zip);
    for (int t = 0; t < BENCH_TIER_COUNT; t++) {
      strbuf_adds(&sb, "\t");
      scan_field_put(&sb, q->defaults[t]);
    }
    strbuf_addf(&sb, "\t%d\t", q->tunable ? 1 : 0);
    scan_field_put(&sb, q->candidates);
    strbuf_addf(&sb, "\t%a", q->step);
  }
  return strbuf_detach(&sb);
}

char *scan_record_broken(const char *problem) {
  struct strbuf sb = STRBUF_INIT;
  strbuf_adds(&sb, "broken\t");
  scan_field_put(&sb, problem ? problem : "");
  return strbuf_detach(&sb);
}

/* Stand-ins for the callbacks in the parent's copy: never called there (a
 * plugin runs only in a child that opened it); if they were, the case
 * fails with this line instead of jumping into an unloaded library. */
#define NOT_OPENED "plugin not opened in this process (a bench bug)"
static int stub_init(const struct bench_host *h, void **ctx) {
  (void)ctx;
  return h->fail(h, NOT_OPENED);
}
static void stub_deinit(const struct bench_host *h, void *ctx) {
  (void)h;
  (void)ctx;
}
static int stub_setup(const struct bench_host *h, void *ctx, void **state) {
  (void)ctx;
  (void)state;
  return h->fail(h, NOT_OPENED);
}
static int stub_state(const struct bench_host *h, void *state) {
  (void)state;
  return h->fail(h, NOT_OPENED);
}
static void stub_teardown(const struct bench_host *h, void *state) {
  (void)h;
  (void)state;
}
static int stub_batch(const struct bench_host *h, void *state, int64_t n) {
  (void)state;
  (void)n;
  return h->fail(h, NOT_OPENED);
}

void scan_desc_free(struct bench_plugin *p) {
  if (!p) return;
  free((char *)p->name);
  free((char *)p->backend);
  free((char *)p->operation);
  free((char *)p->description);
  for (struct bench_param *q = (struct bench_param *)p->params; q && q->name; q++) {
    free((char *)q->name);
    free((char *)q->description);
    free((char *)q->choices);
    for (int t = 0; t < BENCH_TIER_COUNT; t++) free((char *)q->defaults[t]);
    free((char *)q->candidates);
  }
  free((void *)p->params);
  free(p);
}

static int is_sha256(const char *s) {
  if (strlen(s) != 64) return 0;
  for (const char *c = s; *c; c++)
    if (hexval(*c) < 0) return 0;
  return 1;
}

static int parse_params(char **f, size_t n, struct bench_param *params) {
  for (size_t i = 0; i < n; i++, f += PARAM_FIELDS) {
    struct bench_param *q = &params[i];
    char *name;
    uint64_t type, zip;
    if (scan_field_get(f[0], &name) != 0) return -1;
    q->name = name;
    if (!name || scan_field_u64(f[1], &type) != 0 || type > BENCH_PARAM_STRING) return -1;
    q->type = (enum bench_param_type)type;
    char *s;
    if (scan_field_get(f[2], &s) != 0) return -1;
    q->description = s;
    if (scan_field_get(f[3], &s) != 0) return -1;
    q->choices = s;
    if (field_double(f[4], &q->min) != 0 || field_double(f[5], &q->max) != 0) return -1;
    /* zip is an int: written with %d, so a negative one has a sign */
    if (f[6][0] == '-') {
      if (scan_field_u64(f[6] + 1, &zip) != 0 || zip == 0 || zip > (uint64_t)INT32_MAX + 1) return -1;
      q->zip = (int)-(int64_t)zip;
    } else {
      if (scan_field_u64(f[6], &zip) != 0 || zip > INT32_MAX) return -1;
      q->zip = (int)zip;
    }
    for (int t = 0; t < BENCH_TIER_COUNT; t++) {
      if (scan_field_get(f[7 + t], &s) != 0) return -1;
      q->defaults[t] = s;
    }
    uint64_t tunable;
    if (scan_field_u64(f[11], &tunable) != 0 || tunable > 1) return -1;
    q->tunable = (int)tunable;
    if (scan_field_get(f[12], &s) != 0) return -1;
    q->candidates = s;
    if (field_double(f[13], &q->step) != 0) return -1;
  }
  return 0;
}

int scan_record_parse(const char *rec, struct bench_plugin **desc, char sha256[65],
                      char **problem) {
  *desc = NULL;
  *problem = NULL;
  sha256[0] = '\0';
  char *copy = xstrdup(rec);
  size_t max = HEAD_FIELDS + 1 + (size_t)MAX_PARAMS * PARAM_FIELDS;
  char **f = xcalloc(max + 1, sizeof *f);
  size_t n = scan_fields_split(copy, f, max);
  int rc = -1;
  struct bench_plugin *p = NULL;
  if (n == 2 && strcmp(f[0], "broken") == 0) {
    if (scan_field_get(f[1], problem) == 0 && *problem) rc = 0;
    goto out;
  }
  if (n < HEAD_FIELDS + 1 || n > max || strcmp(f[0], "ok") != 0 || !is_sha256(f[1])) goto out;
  p = xcalloc(1, sizeof *p);
  uint32_t fns = 0;
  uint64_t np = 0;
  char *s[4] = {NULL, NULL, NULL, NULL};
  int bad = field_u32(f[2], &p->abi_version) || field_u32(f[3], &p->abi_needed) ||
            field_u32(f[4], &p->param_size) || field_u32(f[5], &fns) || fns > FN_ALL;
  for (int i = 0; i < 4; i++) bad |= scan_field_get(f[6 + i], &s[i]) != 0;
  p->name = s[0];
  p->backend = s[1];
  p->operation = s[2];
  p->description = s[3];
  if (bad || scan_field_u64(f[HEAD_FIELDS], &np) != 0 || np > MAX_PARAMS ||
      n != HEAD_FIELDS + 1 + np * PARAM_FIELDS)
    goto out;
  struct bench_param *params = xcalloc(np + 1, sizeof *params);
  p->params = params;
  if (parse_params(f + HEAD_FIELDS + 1, np, params) != 0) goto out;
  if (fns & FN_INIT) p->init = stub_init;
  if (fns & FN_DEINIT) p->deinit = stub_deinit;
  if (fns & FN_SETUP) p->setup = stub_setup;
  if (fns & FN_RUN) p->run = stub_state;
  if (fns & FN_VERIFY) p->verify = stub_state;
  if (fns & FN_TEARDOWN) p->teardown = stub_teardown;
  if (fns & FN_RUN_BATCH) p->run_batch = stub_batch;
  memcpy(sha256, f[1], 65);
  *desc = p;
  p = NULL;
  rc = 0;
out:
  if (p) {
    /* a half-parsed params array ends at its first unset name */
    scan_desc_free(p);
  }
  if (rc != 0) {
    free(*problem);
    *problem = NULL;
  }
  free(f);
  free(copy);
  return rc;
}

/* ---- files ---- */

char *scan_cache_dir(void) {
  const char *x = getenv("XDG_CACHE_HOME");
  if (x && x[0] == '/') return xasprintf("%s/bench", x); /* the spec: relative ones are ignored */
  const char *home = getenv("HOME");
  if (home && *home) return xasprintf("%s/.cache/bench", home);
  return NULL;
}

char *scan_cache_header(const char *kind) {
  return xasprintf("bench-%s-cache\t%d\t%s\t%s\t%d.%d\t%zu\t%zu", kind, CACHE_FORMAT,
                   bench_version(), bench_git_revision(), BENCH_ABI_MAJOR, BENCH_ABI_MINOR,
                   sizeof(struct bench_plugin), sizeof(struct bench_param));
}

static uint64_t lines_sum(const char *header, char *const *lines, size_t n) {
  uint64_t h = fnv1a64(FNV1A64_INIT, header, strlen(header));
  for (size_t i = 0; i < n; i++) {
    h = fnv1a64(h, "\n", 1);
    h = fnv1a64(h, lines[i], strlen(lines[i]));
  }
  return h;
}

void cache_lines_free(char **lines, size_t n) {
  for (size_t i = 0; i < n; i++) free(lines[i]);
  free(lines);
}

int cache_file_read(const char *name, const char *header, char ***lines, size_t *n, char *why,
                    size_t whylen) {
  *lines = NULL;
  *n = 0;
  char *dir = scan_cache_dir();
  if (!dir) {
    snprintf(why, whylen, "neither XDG_CACHE_HOME nor HOME is set");
    return -1;
  }
  char *path = xasprintf("%s/%s", dir, name);
  struct strbuf sb = STRBUF_INIT;
  int rc = -1;
  int trust = cache_dir_ready(dir, dir, 0, why, whylen);
  free(dir);
  if (trust == CACHE_OK) trust = cache_file_load(path, CACHE_CAP, &sb, why, whylen);
  if (trust != CACHE_OK) {
    int e = errno;
    if (trust == CACHE_UNTRUSTED) {
      cache_untrusted_warn(why);
      e = EPERM;
    }
    errno = e;
    goto out;
  }
  if (strlen(sb.buf) != sb.len || sb.len == 0 || sb.buf[sb.len - 1] != '\n') {
    snprintf(why, whylen, "%s: truncated or not text", path);
    goto out;
  }
  size_t cap = 0;
  for (size_t i = 0; i < sb.len; i++) cap += sb.buf[i] == '\n';
  char **v = xcalloc(cap + 1, sizeof *v);
  size_t nv = 0;
  for (char *p = sb.buf, *nl; (nl = strchr(p, '\n')); p = nl + 1) {
    *nl = '\0';
    v[nv++] = p;
  }
  /* header, records, "end\tCOUNT\tSUM" */
  char endline[96];
  if (nv < 2 || strcmp(v[0], header) != 0) {
    snprintf(why, whylen, "%s: written by another bench or not a cache", path);
    free(v);
    goto out;
  }
  snprintf(endline, sizeof endline, "end\t%zu\t%016" PRIx64, nv - 2, lines_sum(header, v + 1, nv - 2));
  if (strcmp(v[nv - 1], endline) != 0) {
    snprintf(why, whylen, "%s: truncated or edited (checksum)", path);
    free(v);
    goto out;
  }
  *lines = xcalloc(nv - 1, sizeof **lines);
  for (size_t i = 1; i + 1 < nv; i++) (*lines)[(*n)++] = xstrdup(v[i]);
  free(v);
  rc = 0;
out:
  strbuf_release(&sb);
  free(path);
  return rc;
}

int cache_file_write(const char *name, const char *header, char *const *lines, size_t n,
                     char *why, size_t whylen) {
  char *dir = scan_cache_dir();
  if (!dir) {
    snprintf(why, whylen, "neither XDG_CACHE_HOME nor HOME is set");
    return -1;
  }
  int rc = -1;
  char *path = xasprintf("%s/%s", dir, name);
  struct tempfile t = TEMPFILE_INIT;
  int trust = cache_dir_ready(dir, dir, 1, why, whylen);
  if (trust != CACHE_OK) {
    if (trust == CACHE_UNTRUSTED) cache_untrusted_warn(why);
    goto out;
  }
  if (cache_tempfile_open(&t, path) != 0) {
    snprintf(why, whylen, "cannot write in '%s': %s", dir, strerror(errno));
    goto out;
  }
  struct strbuf sb = STRBUF_INIT;
  strbuf_addf(&sb, "%s\n", header);
  for (size_t i = 0; i < n; i++) strbuf_addf(&sb, "%s\n", lines[i]);
  strbuf_addf(&sb, "end\t%zu\t%016" PRIx64 "\n", n, lines_sum(header, lines, n));
  int bad = tempfile_write(&t, sb.buf, sb.len) != 0;
  strbuf_release(&sb);
  if (bad) {
    int e = errno;
    tempfile_rollback(&t);
    errno = e;
  }
  if (bad || tempfile_commit(&t) != 0) {
    snprintf(why, whylen, "cannot write '%s': %s", path, strerror(errno));
    goto out;
  }
  rc = 0;
out:
  free(path);
  free(dir);
  return rc;
}
