/* The roofs file of one device: read, merge under its lock, replace
 * atomically; and the record of a measured case (see roofs_file.h). */
#include "results/roofs_file.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "core/dirs.h"
#include "core/lockfile.h"
#include "core/term.h"
#include "core/util.h"

#define ROOFS_FILE_MAX (16u << 20) /* larger is not a file bench wrote */
#define ROOFS_LOCK_WAIT_S 30.0
#define M_FIELDS 17

char *roofs_file_path(const char *results_dir, const char *device) {
  char *slug = xstrdup(device && *device ? device : "unknown");
  for (char *p = slug; *p; p++)
    if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '.' ||
          *p == '-' || *p == '_'))
      *p = '_';
  if (slug[0] == '.') slug[0] = '_'; /* never a hidden or a ".." name */
  char *path = xasprintf("%s/roofs/%s.tsv", results_dir, slug);
  free(slug);
  return path;
}

/* A field as it may stand in the file: no tab, no line break. */
static char *field(const char *s) {
  char *t = xstrdup(s ? s : "");
  for (char *p = t; *p; p++)
    if (*p == '\t' || *p == '\n' || *p == '\r') *p = ' ';
  return t;
}

void roof_rec_release(struct roof_rec *r) {
  free(r->plugin);
  free(r->sha256);
  free(r->params);
  free(r->status);
  free(r->roof);
  free(r->kind);
  free(r->unit);
  free(r->method);
  free(r->datasheet_how);
  free(r->date);
  free(r->reason);
  memset(r, 0, sizeof *r);
}

static void rec_copy(struct roof_rec *d, const struct roof_rec *s) {
  *d = (struct roof_rec){field(s->plugin), field(s->sha256), field(s->params), field(s->status),
                         field(s->roof), field(s->kind), field(s->unit), s->value, s->low, s->high,
                         field(s->method), s->capacity_bytes, s->datasheet, field(s->datasheet_how),
                         field(s->date), field(s->reason)};
}

void roofs_file_release(struct roofs_file *f) {
  for (size_t i = 0; i < f->n; i++) roof_rec_release(&f->recs[i]);
  free(f->recs);
  free(f->key);
  free(f->device);
  memset(f, 0, sizeof *f);
}


static int num(const char *s, double *out, int nonneg) {
  return parse_double(s, out) == 0 && isfinite(*out) && (!nonneg || *out >= 0) ? 0 : -1;
}

static int kind_ok(const char *k) {
  return strcmp(k, "compute") == 0 || strcmp(k, "bandwidth") == 0 || strcmp(k, "latency") == 0;
}

static int parse_line(struct roofs_file *f, char *line, size_t lineno, const char *path, char *why,
                      size_t len) {
  if (lineno == 1) {
    if (strcmp(line, ROOFS_HEADER) == 0) return 0;
    snprintf(why, len, "'%s' is not a bench roofs file (its first line is not '%s')", path, ROOFS_HEADER);
    return -1;
  }
  char *x[M_FIELDS + 1];
  size_t n = split_tabs(line, x, M_FIELDS + 1);
  if (n == 3 && strcmp(x[0], "K") == 0 && !f->key && strncmp(x[1], "device=", 7) == 0) {
    f->key = xstrdup(x[1]);
    f->device = xstrdup(x[2]);
    return 0;
  }
  struct roof_rec r = {0};
  if (n == M_FIELDS && strcmp(x[0], "M") == 0 && f->key && *x[1] && *x[4] && *x[5] && kind_ok(x[6]) &&
      num(x[8], &r.value, 1) == 0 && num(x[9], &r.low, 1) == 0 && num(x[10], &r.high, 1) == 0 &&
      num(x[12], &r.capacity_bytes, 1) == 0 && num(x[13], &r.datasheet, 1) == 0) {
    r = (struct roof_rec){xstrdup(x[1]), xstrdup(x[2]), xstrdup(x[3]), xstrdup(x[4]), xstrdup(x[5]),
                          xstrdup(x[6]), xstrdup(x[7]), r.value, r.low, r.high, xstrdup(x[11]),
                          r.capacity_bytes, r.datasheet, xstrdup(x[14]), xstrdup(x[15]), xstrdup(x[16])};
    f->recs = grow_for_one(f->recs, f->n, sizeof *f->recs);
    f->recs[f->n++] = r;
    return 0;
  }
  snprintf(why, len, "'%s' line %zu: not a roofs record (corrupt file)", path, lineno);
  return -1;
}

int roofs_file_load(const char *path, struct roofs_file *f, char *why, size_t whylen) {
  memset(f, 0, sizeof *f);
  struct strbuf sb = STRBUF_INIT;
  char err[128];
  if (read_regular_file(path, ROOFS_FILE_MAX, &sb, err, sizeof err) != 0) {
    strbuf_release(&sb);
    if (errno == ENOENT) return 0;
    snprintf(why, whylen, "cannot read roofs file '%s': %s", path, err);
    return -1;
  }
  int rc = 0;
  if (strlen(sb.buf) != sb.len) {
    snprintf(why, whylen, "'%s' holds NUL bytes: not a bench roofs file", path);
    rc = -1;
  }
  size_t lineno = 0;
  for (char *line = sb.buf, *next; rc == 0 && line && *line; line = next) {
    next = strchr(line, '\n');
    if (next) *next++ = '\0';
    if (!*line) continue;
    rc = parse_line(f, line, ++lineno, path, why, whylen);
  }
  if (rc == 0 && lineno == 0) {
    snprintf(why, whylen, "'%s' is empty, not a bench roofs file", path);
    rc = -1;
  }
  if (rc == 0 && !f->key) {
    snprintf(why, whylen, "'%s' names no device (no K line): not a bench roofs file", path);
    rc = -1;
  }
  strbuf_release(&sb);
  if (rc != 0) roofs_file_release(f);
  return rc;
}

const struct roof_rec *roofs_file_find(const struct roofs_file *f, const char *plugin, const char *params) {
  for (size_t i = 0; i < f->n; i++)
    if (strcmp(f->recs[i].plugin, plugin) == 0 && strcmp(f->recs[i].params, params ? params : "") == 0)
      return &f->recs[i];
  return NULL;
}

const struct roof_rec *roofs_file_best(const struct roofs_file *f, const char *id) {
  const struct roof_rec *best = NULL;
  for (size_t i = 0; i < f->n; i++) {
    const struct roof_rec *r = &f->recs[i];
    if (strcmp(r->status, "OK") != 0 || strcmp(r->roof, id) != 0 || !(r->value > 0)) continue;
    int lower = strcmp(r->kind, "latency") == 0;
    if (!best || (lower ? r->value < best->value : r->value > best->value)) best = r;
  }
  return best;
}

const char **roofs_file_ids(const struct roofs_file *f, size_t *n) {
  const char **ids = xcalloc(f->n + 1, sizeof *ids);
  *n = 0;
  for (size_t i = 0; i < f->n; i++) {
    if (strcmp(f->recs[i].status, "OK") != 0) continue;
    size_t j = 0;
    while (j < *n && strcmp(ids[j], f->recs[i].roof) != 0) j++;
    if (j == *n) ids[(*n)++] = f->recs[i].roof;
  }
  return ids;
}

static void put_rec(struct roofs_file *f, const struct roof_rec *r) {
  for (size_t i = 0; i < f->n; i++)
    if (strcmp(f->recs[i].plugin, r->plugin) == 0 && strcmp(f->recs[i].params, r->params) == 0) {
      roof_rec_release(&f->recs[i]);
      rec_copy(&f->recs[i], r);
      return;
    }
  f->recs = grow_for_one(f->recs, f->n, sizeof *f->recs);
  rec_copy(&f->recs[f->n++], r);
}

static void add_num(struct strbuf *sb, double v) { strbuf_addf(sb, "\t%.9g", v); }

int roofs_file_put(const char *path, const char *key, const char *device, const struct roof_rec *recs,
                   size_t n, size_t *dropped) {
  if (dropped) *dropped = 0;
  const char *slash = strrchr(path, '/');
  if (slash && slash != path) {
    char *dir = xstrndup(path, (size_t)(slash - path));
    int rc = make_dirs(dir, "the roofs file");
    free(dir);
    if (rc != 0) return -1;
  }
  char *lockpath = xasprintf("%s.lock", path);
  struct lockfile lk = LOCKFILE_INIT;
  if (lockfile_open(&lk, lockpath, 0) != 0) {
    int rc = error("cannot open the lock '%s' of the roofs file: %s", lockpath, strerror(errno));
    free(lockpath);
    return rc;
  }
  free(lockpath);
  if (lockfile_take_update(&lk, path, "roofs file", "the result files keep what was measured", ROOFS_LOCK_WAIT_S) !=
      0) {
    lockfile_release(&lk);
    return -1;
  }
  struct roofs_file f;
  char why[600];
  int rc = 0;
  if (roofs_file_load(path, &f, why, sizeof why) != 0) {
    rc = error("%s; not overwritten (remove it, or use another --results-dir)", why);
    goto out;
  }
  if (f.key && strcmp(f.key, key) != 0) { /* another driver, device or arch: measured anew */
    if (dropped) *dropped = f.n;
    roofs_file_release(&f);
  }
  if (!f.key) {
    f.key = field(key);
    f.device = field(device);
  }
  for (size_t i = 0; i < n; i++) put_rec(&f, &recs[i]);
  struct strbuf sb = STRBUF_INIT;
  strbuf_addf(&sb, "%s\nK\t%s\t%s\n", ROOFS_HEADER, f.key, f.device);
  for (size_t i = 0; i < f.n; i++) {
    const struct roof_rec *r = &f.recs[i];
    strbuf_addf(&sb, "M\t%s\t%s\t%s\t%s\t%s\t%s\t%s", r->plugin, r->sha256, r->params, r->status, r->roof,
                r->kind, r->unit);
    add_num(&sb, r->value);
    add_num(&sb, r->low);
    add_num(&sb, r->high);
    strbuf_addf(&sb, "\t%s", r->method);
    add_num(&sb, r->capacity_bytes);
    add_num(&sb, r->datasheet);
    strbuf_addf(&sb, "\t%s\t%s\t%s\n", r->datasheet_how, r->date, r->reason);
  }
  struct tempfile t = TEMPFILE_INIT;
  if (tempfile_open(&t, path) != 0 || tempfile_write(&t, sb.buf, sb.len) != 0) {
    rc = error("cannot write the roofs file '%s': %s", path, strerror(errno));
    tempfile_rollback(&t);
  } else if (tempfile_commit(&t) != 0) {
    rc = error("cannot replace the roofs file '%s': %s", path, strerror(errno));
  }
  strbuf_release(&sb);
  roofs_file_release(&f);
out:
  lockfile_release(&lk);
  return rc;
}

/* ---- from a measured case ---------------------------------------------- */

const char *case_roof_id(const struct case_result *r) {
  const char *id = kv_list_get(r->ninfo, r->info, "roof");
  return id && *id ? id : NULL;
}

static const char *info(const struct case_result *r, const char *key) {
  const char *v = kv_list_get(r->ninfo, r->info, key);
  return v ? v : "";
}

/* The figure of r's roof kind at a time t (ns per iteration). */
static double figure_at(const struct case_result *r, const char *kind, double t) {
  if (!(t > 0)) return 0;
  if (strcmp(kind, "compute") == 0) return r->flops / t;
  if (strcmp(kind, "bandwidth") == 0) return r->bytes / t;
  return r->items > 0 ? t / r->items : 0;
}

int case_roof_eligible(const struct case_result *r, char *why, size_t len) {
  const char *kind = info(r, "roof_kind");
  const struct stats *t = case_time(r);
  if (r->status != CASE_OK) {
    snprintf(why, len, "%s%s%s", case_status_name(r->status), r->message ? ": " : "",
             r->message ? r->message : "");
    return 0;
  }
  if (!r->check.checked) {
    snprintf(why, len, "its output was not checked (a roof needs the plugin's reference compared by the "
             "harness: bench.compare/1's compare())");
    return 0;
  }
  if (!r->check.pass) {
    snprintf(why, len, "its output is wrong: %s", r->check.message[0] ? r->check.message : "mismatch");
    return 0;
  }
  if (strcmp(r->check.method, "plugin-self") == 0) {
    snprintf(why, len, "its output was checked only by the plugin itself (matched()), never compared "
             "by the harness with a reference");
    return 0;
  }
  if (strcmp(r->check.method, "none") == 0) {
    snprintf(why, len, "its output was not checked (verify = none)");
    return 0;
  }
  if (!kind_ok(kind)) {
    snprintf(why, len, "it names no roof kind");
    return 0;
  }
  if (!(figure_at(r, kind, t->median) > 0)) {
    snprintf(why, len, "it states no %s for its %s roof", strcmp(kind, "compute") == 0 ? "FLOPs"
             : strcmp(kind, "bandwidth") == 0 ? "bytes" : "items (bench.items/1)", kind);
    return 0;
  }
  return 1;
}

static char *params_text(const struct case_result *r) {
  struct strbuf sb = STRBUF_INIT;
  for (size_t i = 0; i < r->nparams; i++)
    strbuf_addf(&sb, "%s%s=%s", i ? " " : "", r->params[i].key, r->params[i].value);
  char *s = strbuf_detach(&sb);
  char *f = field(s);
  free(s);
  return f;
}

static double info_num(const struct case_result *r, const char *key) {
  double v;
  const char *s = info(r, key);
  return *s && num(s, &v, 1) == 0 ? v : 0;
}

void roof_rec_from_case(struct roof_rec *rec, const struct case_result *r, const char *sha256,
                        const char *date) {
  memset(rec, 0, sizeof *rec);
  char why[512];
  int ok = case_roof_eligible(r, why, sizeof why);
  const char *kind = info(r, "roof_kind");
  if (!kind_ok(kind)) kind = "compute";
  const struct stats *t = case_time(r);
  rec->plugin = field(r->plugin);
  rec->sha256 = field(sha256 ? sha256 : "-");
  rec->params = params_text(r);
  rec->status = xstrdup(ok ? "OK" : r->status == CASE_OK ? "REFUSED" : case_status_name(r->status));
  rec->roof = field(info(r, "roof"));
  rec->kind = xstrdup(kind);
  int lat = strcmp(kind, "latency") == 0;
  rec->unit = xstrdup(strcmp(kind, "compute") == 0 ? "GFLOP/s" : lat ? "ns" : "GB/s");
  if (ok) {
    rec->value = figure_at(r, kind, t->median);
    double a = figure_at(r, kind, t->ci_lo), b = figure_at(r, kind, t->ci_hi);
    rec->low = a < b ? a : b;
    rec->high = a < b ? b : a;
  }
  rec->method = field(info(r, "roof_method"));
  rec->capacity_bytes = info_num(r, "roof_capacity_bytes");
  rec->datasheet = info_num(r, "roof_datasheet");
  rec->datasheet_how = field(info(r, "roof_datasheet_how"));
  rec->date = field(date);
  rec->reason = field(ok ? "" : why);
}

void case_device_key(const struct case_result *r, const char *cpu_model, char **name, char **key) {
  const char *dev = kv_list_get(r->ninfo, r->info, "device");
  const char *drv = kv_list_get(r->ninfo, r->info, "driver");
  const char *arch = kv_list_get(r->ninfo, r->info, "arch");
  struct utsname u;
  if (!dev || !*dev) dev = cpu_model && *cpu_model ? cpu_model : "unknown";
  if ((!arch || !*arch) && uname(&u) == 0) arch = u.machine;
  *name = xstrdup(dev);
  *key = xasprintf("device=%s;driver=%s;arch=%s", dev, drv && *drv ? drv : "-", arch && *arch ? arch : "-");
}
