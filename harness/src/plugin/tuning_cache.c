/* The tuning cache file: reading, merging under a lock, atomic replace. */
#include "plugin/tuning_cache.h"

#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/cache_trust.h"
#include "core/dirs.h"
#include "core/lockfile.h"
#include "core/term.h"
#include "core/util.h"
#include "cases/cases.h"
#include "plugin/scan_cache.h"

/* A tuning file larger than this is not one bench wrote. */
#define TUNING_FILE_MAX (256u << 20)
/* The longest wait for the file's lock (BENCH_LOCK_WAIT_S sets another). */
#define TUNING_LOCK_WAIT_S 30.0

char *tuning_field(const char *s) {
  char *t = xstrdup(s ? s : "");
  for (char *p = t; *p; p++)
    if (*p == '\t' || *p == '\n' || *p == '\r') *p = ' ';
  return t;
}

static void rec_release(struct tuning_rec *r) {
  free(r->key);
  free(r->cand);
  free(r->status);
  free(r->data);
  memset(r, 0, sizeof *r);
}

void tuning_cache_release(struct tuning_cache *c) {
  for (size_t i = 0; i < c->n; i++) rec_release(&c->recs[i]);
  free(c->recs);
  memset(c, 0, sizeof *c);
}


/* What a load keeps: every record, or only those of one kind whose key
 * holds a string (a run needs only its plugins' winners: a file of a
 * million records then costs a read, not its size in memory). */
struct load_filter {
  char kind;          /* 0: any */
  const char *key_has; /* NULL: any */
};

/* One line (lineno from 1, no newline) into c when the filter keeps it.
 * 0, or -1 with why. */
static int parse_line(const char *path, size_t lineno, char *line, const struct load_filter *lf,
                      struct tuning_cache *c, char *why, size_t whylen) {
  if (lineno == 1) {
    if (strcmp(line, TUNING_HEADER) == 0) return 0;
    snprintf(why, whylen, "'%s' is not a bench tuning cache (its first line is not '%s')", path,
             TUNING_HEADER);
    return -1;
  }
  char *f[6];
  size_t n = split_tabs(line, f, 6);
  char kind = n == 5 && strcmp(f[0], "M") == 0 ? 'M' : n == 4 && strcmp(f[0], "W") == 0 ? 'W' : 0;
  if (!kind) {
    snprintf(why, whylen, "'%s' line %zu: not a tuning record (corrupt file)", path, lineno);
    return -1;
  }
  if (lf && ((lf->kind && kind != lf->kind) || (lf->key_has && !strstr(f[1], lf->key_has))))
    return 0;
  struct tuning_rec r = {0};
  if (kind == 'M')
    r = (struct tuning_rec){'M', xstrdup(f[1]), xstrdup(f[2]), xstrdup(f[3]), xstrdup(f[4])};
  else
    r = (struct tuning_rec){'W', xstrdup(f[1]), xstrdup(f[2]), NULL, xstrdup(f[3])};
  c->recs = grow_for_one(c->recs, c->n, sizeof *c->recs);
  c->recs[c->n++] = r;
  return 0;
}

/* Read the open file line by line (empty lines skipped, as ever). */
static int parse_stream(const char *path, int fd, const struct load_filter *lf,
                        struct tuning_cache *c, char *why, size_t whylen) {
  struct stat st;
  if (fstat(fd, &st) != 0 || (unsigned long long)st.st_size > TUNING_FILE_MAX) {
    snprintf(why, whylen, "cannot read tuning cache '%s': larger than %u bytes", path,
             TUNING_FILE_MAX);
    close(fd);
    return -1;
  }
  FILE *f = fdopen(fd, "r");
  if (!f) {
    snprintf(why, whylen, "cannot read tuning cache '%s': %s", path, strerror(errno));
    close(fd);
    return -1;
  }
  char *line = NULL;
  size_t cap = 0, lineno = 0, total = 0;
  ssize_t len;
  int rc = 0;
  while (rc == 0 && (len = getline(&line, &cap, f)) >= 0) {
    total += (size_t)len;
    if (total > TUNING_FILE_MAX) { /* grew while read */
      snprintf(why, whylen, "cannot read tuning cache '%s': larger than %u bytes", path,
               TUNING_FILE_MAX);
      rc = -1;
      break;
    }
    if (strlen(line) != (size_t)len) {
      snprintf(why, whylen, "'%s' holds NUL bytes: not a bench tuning cache", path);
      rc = -1;
      break;
    }
    if (len && line[len - 1] == '\n') line[--len] = '\0';
    if (!len) continue;
    rc = parse_line(path, ++lineno, line, lf, c, why, whylen);
  }
  if (rc == 0 && ferror(f)) {
    snprintf(why, whylen, "cannot read tuning cache '%s': %s", path, strerror(errno));
    rc = -1;
  }
  free(line);
  fclose(f);
  if (rc == 0 && lineno == 0) {
    snprintf(why, whylen, "'%s' is empty, not a bench tuning cache", path);
    rc = -1;
  }
  return rc;
}

/* The folder of path when it is in bench's cache folder (the default
 * files): *top that folder, the result path's folder; else NULL. */
static char *cache_folder_of(const char *path, char **top) {
  *top = scan_cache_dir();
  size_t n = *top ? strlen(*top) : 0;
  const char *slash = strrchr(path, '/');
  if (!*top || strncmp(path, *top, n) != 0 || path[n] != '/' || !slash) {
    free(*top);
    *top = NULL;
    return NULL;
  }
  return xstrndup(path, (size_t)(slash - path));
}

/* tuning_cache_load, and LOAD_UNTRUSTED (after the warning) when the file
 * or its cache folder is not only the user's. */
#define LOAD_UNTRUSTED -2
static int load(const char *path, const struct load_filter *lf, struct tuning_cache *c, char *why,
                size_t whylen) {
  memset(c, 0, sizeof *c);
  char *top, *dir = cache_folder_of(path, &top);
  int trust = dir ? cache_dir_ready(top, dir, 0, why, whylen) : CACHE_OK;
  free(top);
  free(dir);
  if (trust == CACHE_MISSING) return 0; /* no folder: nothing tuned yet */
  char rwhy[400];
  int fd = -1;
  if (trust == CACHE_OK) fd = cache_file_open(path, &trust, rwhy, sizeof rwhy);
  else snprintf(rwhy, sizeof rwhy, "%s", why);
  if (fd < 0) {
    int e = errno;
    if (trust == CACHE_UNTRUSTED) {
      cache_untrusted_warn(rwhy);
      return LOAD_UNTRUSTED;
    }
    if (e == ENOENT) return 0;
    snprintf(why, whylen, "cannot read tuning cache '%s': %s", path,
             e == EINVAL ? "not a regular file" : rwhy);
    return -1;
  }
  int rc = parse_stream(path, fd, lf, c, why, whylen);
  if (rc != 0) tuning_cache_release(c);
  return rc;
}

int tuning_cache_load(const char *path, struct tuning_cache *c, char *why, size_t whylen) {
  int rc = load(path, NULL, c, why, whylen);
  return rc == LOAD_UNTRUSTED ? 0 : rc;
}

int tuning_cache_load_winners(const char *path, const char *plugin, const char *sha256,
                              struct tuning_cache *c, char *why, size_t whylen) {
  char *has = xasprintf("|plugin=%s|sha256=%s|", plugin, sha256);
  char *field = tuning_field(has); /* as tuning_key writes it */
  free(has);
  struct load_filter lf = {'W', field};
  int rc = load(path, &lf, c, why, whylen);
  free(field);
  return rc == LOAD_UNTRUSTED ? 0 : rc;
}

const struct tuning_rec *tuning_cache_find(const struct tuning_cache *c, char kind,
                                           const char *key, const char *cand) {
  for (size_t i = 0; i < c->n; i++) {
    const struct tuning_rec *r = &c->recs[i];
    if (r->kind == kind && strcmp(r->key, key) == 0 && (!cand || strcmp(r->cand, cand) == 0))
      return r;
  }
  return NULL;
}

static void merge(struct tuning_cache *c, const struct tuning_rec *r) {
  struct tuning_rec *d = NULL;
  for (size_t i = 0; i < c->n && !d; i++) {
    struct tuning_rec *o = &c->recs[i];
    if (o->kind == r->kind && strcmp(o->key, r->key) == 0 && strcmp(o->cand, r->cand) == 0) {
      rec_release(o);
      d = o;
    }
  }
  if (!d) {
    c->recs = grow_for_one(c->recs, c->n, sizeof *c->recs);
    d = &c->recs[c->n++];
  }
  d->kind = r->kind;
  d->key = tuning_field(r->key);
  d->cand = tuning_field(r->cand);
  d->status = r->status ? tuning_field(r->status) : NULL;
  d->data = tuning_field(r->data);
}

/* Make the folder of path: in bench's cache folder under its rule
 * (cache_trust.h), elsewhere (--tuning-file) as asked. 0, or -1 after one
 * line. */
static int folder_of(const char *path) {
  char *top, *dir = cache_folder_of(path, &top);
  if (dir) {
    char why[600];
    int trust = cache_dir_ready(top, dir, 1, why, sizeof why);
    free(top);
    free(dir);
    if (trust == CACHE_UNTRUSTED) {
      cache_untrusted_warn(why);
      return -1;
    }
    return trust == CACHE_OK ? 0 : error("%s", why);
  }
  const char *slash = strrchr(path, '/');
  if (!slash || slash == path) return 0;
  dir = xstrndup(path, (size_t)(slash - path));
  int rc = make_dirs(dir, "the tuning cache");
  free(dir);
  return rc;
}

/* The bounded wait for the lock (lockfile_take_bounded). 0 when held, or
 * -1 after one line. */
static int take_lock(struct lockfile *lk, const char *path) {
  struct stat st;
  if (fstat(lk->fd, &st) == 0 && st.st_uid == geteuid())
    (void)fchmod(lk->fd, 0600); /* nobody else may even open it (flock -s needs only read) */
  return lockfile_take_update(lk, path, "tuning cache", "what was measured is reported, not saved in the cache",
                              TUNING_LOCK_WAIT_S);
}

int tuning_cache_put(const char *path, const struct tuning_rec *recs, size_t n) {
  if (folder_of(path) != 0) return -1;
  char *lockpath = xasprintf("%s.lock", path);
  struct lockfile lk = LOCKFILE_INIT;
  if (lockfile_open(&lk, lockpath, 0) != 0) {
    int rc = error("cannot open the lock '%s' of the tuning cache: %s", lockpath, strerror(errno));
    free(lockpath);
    return rc;
  }
  free(lockpath);
  if (take_lock(&lk, path) != 0) {
    lockfile_release(&lk);
    return -1;
  }
  struct tuning_cache c;
  char why[600];
  int rc = 0;
  int lr = load(path, NULL, &c, why, sizeof why);
  if (lr == LOAD_UNTRUSTED) { /* said once already */
    rc = -1;
    goto out;
  }
  if (lr != 0) {
    rc = error("%s; not overwritten (remove it or use another --tuning-file)", why);
    goto out;
  }
  for (size_t i = 0; i < n; i++) merge(&c, &recs[i]);
  struct strbuf sb = STRBUF_INIT;
  strbuf_addf(&sb, "%s\n", TUNING_HEADER);
  for (size_t i = 0; i < c.n; i++) {
    const struct tuning_rec *r = &c.recs[i];
    if (r->kind == 'M')
      strbuf_addf(&sb, "M\t%s\t%s\t%s\t%s\n", r->key, r->cand, r->status ? r->status : "", r->data);
    else
      strbuf_addf(&sb, "W\t%s\t%s\t%s\n", r->key, r->cand, r->data);
  }
  struct tempfile t = TEMPFILE_INIT;
  if (cache_tempfile_open(&t, path) != 0 || tempfile_write(&t, sb.buf, sb.len) != 0) {
    rc = error("cannot write the tuning cache '%s': %s", path, strerror(errno));
    tempfile_rollback(&t);
  } else if (tempfile_commit(&t) != 0) {
    rc = error("cannot replace the tuning cache '%s': %s", path, strerror(errno));
  }
  strbuf_release(&sb);
  tuning_cache_release(&c);
out:
  lockfile_release(&lk);
  return rc;
}

char *tuning_cache_default_path(const char *device_name) {
  char *dir = scan_cache_dir();
  if (!dir) return NULL;
  char *slug = xstrdup(device_name && *device_name ? device_name : "unknown");
  for (char *p = slug; *p; p++)
    if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
          *p == '.' || *p == '-' || *p == '_'))
      *p = '_';
  char *path = xasprintf("%s/tuning/%s.tsv", dir, slug);
  free(dir);
  free(slug);
  return path;
}

int tuning_pinned_axis(const struct case_value *v) {
  return v->param->tunable && v->param->zip && !v->is_auto;
}

char *tuning_key(const char *device_key, const char *plugin, const char *sha256,
                 const struct case_def *c) {
  struct strbuf sb = STRBUF_INIT;
  strbuf_addf(&sb, "%s|plugin=%s|sha256=%s|abi=%d.%d|", device_key, plugin, sha256,
              BENCH_ABI_MAJOR, BENCH_ABI_MINOR);
  int first = 1;
  for (size_t j = 0; j < c->nvalues; j++) {
    if (c->values[j].param->tunable && !tuning_pinned_axis(&c->values[j])) continue;
    strbuf_addf(&sb, "%s%s=%s", first ? "" : " ", c->values[j].param->name, c->values[j].text);
    first = 0;
  }
  char *k = strbuf_detach(&sb);
  char *f = tuning_field(k);
  free(k);
  return f;
}

char *tuning_cand_label(const struct case_def *c) {
  struct strbuf sb = STRBUF_INIT;
  for (size_t j = 0; j < c->nvalues; j++)
    if (c->values[j].param->tunable)
      strbuf_addf(&sb, "%s%s=%s", sb.len ? " " : "", c->values[j].param->name, c->values[j].text);
  if (!sb.len) strbuf_adds(&sb, "-");
  return strbuf_detach(&sb);
}
