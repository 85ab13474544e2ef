/* Plugin discovery and validation. A candidate is loaded only in a
 * throw-away child process (so that a .so whose constructors crash or hang
 * is refused with a message instead of taking the harness down), and only
 * when the scan cache has no record for the file as it is now; the parent
 * never loads a plugin. */
#include "plugin/plugin_loader.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "plugin/abi.h"
#include "cases/cases.h"
#include "core/child.h"
#include "core/hash.h"
#include "core/util.h"

#ifndef BENCH_REL_PLUGIN_DIR
#define BENCH_REL_PLUGIN_DIR "lib/bench/plugins"
#endif

#define LOAD_PROBE_TIMEOUT_S 20

/* Where this binary is without /proc (a sandbox that mounts none): the
 * path it was executed by (AT_EXECFN), resolved against the working folder
 * or, for a bare name, PATH. 0 on success. */
static int exe_path_from_auxv(char *out) {
  const char *fn = (const char *)getauxval(AT_EXECFN);
  if (!fn || !*fn) return -1;
  if (strchr(fn, '/')) return realpath(fn, out) ? 0 : -1;
  const char *path = getenv("PATH");
  char *copy = xstrdup(path ? path : "/usr/bin:/bin"), *save = NULL;
  int rc = -1;
  for (char *d = strtok_r(copy, ":", &save); d && rc; d = strtok_r(NULL, ":", &save)) {
    char *cand = xasprintf("%s/%s", *d ? d : ".", fn);
    if (access(cand, X_OK) == 0 && realpath(cand, out)) rc = 0;
    free(cand);
  }
  free(copy);
  return rc;
}

char *exe_dir(void) {
  char buf[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n > 0) buf[n] = '\0';
  else if (exe_path_from_auxv(buf) != 0) return xstrdup(".");
  char *slash = strrchr(buf, '/');
  if (slash) *slash = '\0';
  return xstrdup(buf);
}

static int is_dir(const char *p) {
  struct stat st;
  return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static void add_dir(char ***dirs, size_t *n, const char *d) {
  char real[PATH_MAX];
  const char *key = realpath(d, real) ? real : d;
  for (size_t i = 0; i < *n; i++)
    if (strcmp((*dirs)[i], key) == 0) return;
  *dirs = xrealloc(*dirs, (*n + 1) * sizeof **dirs);
  (*dirs)[(*n)++] = xstrdup(key);
}

int plugin_dirs(const char *const *cli_dirs, size_t ncli, char ***dirs, size_t *ndirs) {
  *dirs = NULL;
  *ndirs = 0;
  for (size_t i = 0; i < ncli; i++) {
    if (!is_dir(cli_dirs[i])) {
      plugin_dirs_free(*dirs, *ndirs);
      *dirs = NULL;
      *ndirs = 0;
      return error("plugin folder '%s' does not exist", cli_dirs[i]);
    }
    add_dir(dirs, ndirs, cli_dirs[i]);
  }
  const char *env = getenv("BENCH_PLUGIN_PATH");
  if (env && *env) {
    char *copy = xstrdup(env), *save = NULL;
    for (char *tok = strtok_r(copy, ":", &save); tok; tok = strtok_r(NULL, ":", &save)) {
      if (is_dir(tok))
        add_dir(dirs, ndirs, tok);
      else
        warning("BENCH_PLUGIN_PATH: folder '%s' does not exist", tok);
    }
    free(copy);
  }
  char *ed = exe_dir();
  char *def = xasprintf("%s/../%s", ed, BENCH_REL_PLUGIN_DIR);
  if (is_dir(def)) add_dir(dirs, ndirs, def);
  free(def);
  free(ed);
  return 0;
}

void plugin_dirs_free(char **dirs, size_t ndirs) {
  for (size_t i = 0; i < ndirs; i++) free(dirs[i]);
  free(dirs);
}

static int ends_with(const char *s, const char *suffix) {
  size_t a = strlen(s), b = strlen(suffix);
  return a >= b && strcmp(s + a - b, suffix) == 0;
}

static int is_identifier(const char *s) {
  if (!s || !*s) return 0;
  for (const char *p = s; *p; p++)
    if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_')) return 0;
  return 1;
}

/* The scan child: load the file, take its entry, check it, and answer
 * with its record (scan_cache.h): everything the parent needs to know of
 * it, or why it is refused. */
static int open_entry(const char *path, void **handle, const struct bench_plugin **desc,
                      char *msg, size_t msglen);

static void scan_child(void *arg, int fd) {
  const char *path = arg;
  void *h;
  const struct bench_plugin *p;
  char msg[512];
  char *rec;
  if (open_entry(path, &h, &p, msg, sizeof msg) != 0) {
    rec = scan_record_broken(msg);
  } else {
    char sha[65];
    if (sha256_file(path, sha) != 0) memset(sha, '0', 64), sha[64] = '\0';
    rec = scan_record_plugin(p, sha);
  }
  child_send_line(fd, rec);
  free(rec);
}

/* Scan the file in a child (child.c: its own group, killed with all it
 * started, output kept off the user's terminal); returns the record the
 * child sent, or a broken record saying what became of the child. A
 * constructor that ends the process, even with status 0, is refused.
 * *transient: the answer says nothing of the file (interrupted, no process). */
static char *scan_in_child(const char *path, int *transient) {
  struct child_opts o = {LOAD_PROBE_TIMEOUT_S, 0, NULL, NULL, 0, NULL, NULL, NULL, NULL};
  struct child_outcome out;
  *transient = 0;
  if (child_run(scan_child, (void *)path, &o, &out) != 0) {
    *transient = 1;
    return scan_record_broken("cannot start a process to load it");
  }
  char msg[512];
  char *rec = NULL;
  if (out.line && out.exit_code == 0 && !out.signal) {
    struct bench_plugin *d;
    char sha[65];
    char *problem;
    if (scan_record_parse(out.line, &d, sha, &problem) == 0) {
      rec = xstrdup(out.line);
      scan_desc_free(d);
      free(problem);
    } else {
      snprintf(msg, sizeof msg, "unreadable answer from the process that loaded it");
    }
  } else if (out.interrupted || child_interrupted()) {
    snprintf(msg, sizeof msg, "interrupted while loading it");
    *transient = 1;
  } else if (out.timed_out)
    snprintf(msg, sizeof msg, "loading it hung for %d s", LOAD_PROBE_TIMEOUT_S);
  else if (out.signal)
    snprintf(msg, sizeof msg, "loading it crashed (%s)", strsignal(out.signal));
  else if (out.exit_code != 0) /* a sanitizer's report of a crash ends so */
    snprintf(msg, sizeof msg, "loading it crashed (exit status %d)", out.exit_code);
  else
    snprintf(msg, sizeof msg, "loading it ended the process (exit status 0) before it could answer");
  child_outcome_release(&out);
  return rec ? rec : scan_record_broken(msg);
}

/* Check an entry's fields (our copy of it); msg gets the first problem. */
static int validate_entry(const struct bench_plugin *p, char *msg, size_t msglen) {
  const char *missing = NULL;
  if (!p->name) missing = "name";
  else if (!p->backend) missing = "backend";
  else if (!p->operation) missing = "operation";
  else if (!p->description) missing = "description";
  else if (!p->params) missing = "params";
  else if (!p->setup) missing = "setup";
  else if (!p->run) missing = "run";
  else if (!p->verify && strcmp(p->operation, "none") != 0) missing = "verify";
  if (missing) {
    snprintf(msg, msglen, "required field '%s' is missing", missing);
    return -1;
  }
  if (!is_identifier(p->name)) {
    snprintf(msg, msglen, "name '%s' is not a lower-case identifier", p->name);
    return -1;
  }
  if (!is_identifier(p->backend)) {
    snprintf(msg, msglen, "backend '%s' is not a lower-case identifier", p->backend);
    return -1;
  }
  char err[256] = "";
  if (params_validate(p, err, sizeof err) != 0) {
    snprintf(msg, msglen, "%s", err);
    return -1;
  }
  return 0;
}

/* dlopen the file here, find its entry, accept its ABI, copy and check the
 * entry. 0 with the handle and our copy (abi_plugin_free), or -1 with msg. */
static int open_entry(const char *path, void **handle, const struct bench_plugin **desc,
                      char *msg, size_t msglen) {
  *handle = NULL;
  *desc = NULL;
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char *e = dlerror();
    snprintf(msg, msglen, "%s", e ? e : "cannot load it"); /* not an ELF file, a missing library, ... */
    for (char *c = msg; *c; c++)
      if (*c == '\n' || *c == '\r') *c = ' ';
    return -1;
  }
  dlerror();
  const struct bench_plugin *raw = dlsym(h, BENCH_PLUGIN_SYMBOL);
  if (!raw) {
    snprintf(msg, msglen, "missing entry symbol '%s' (not a bench plugin?)", BENCH_PLUGIN_SYMBOL);
    dlclose(h);
    return -1;
  }
  /* From here on only our copy, in our layout, is read (plugin/abi.c). */
  const struct bench_plugin *p = NULL;
  if (abi_accept(raw, msg, msglen) != 0 || !(p = abi_plugin_import(raw, msg, msglen)) ||
      validate_entry(p, msg, msglen) != 0) {
    abi_plugin_free(p);
    dlclose(h);
    return -1;
  }
  *handle = h;
  *desc = p;
  return 0;
}

int plugin_open(const struct plugin *pl, struct plugin *out, char *msg, size_t len) {
  *out = *pl;
  out->dl = NULL;
  out->desc = NULL;
  struct scan_key now;
  const char *changed = "plugin %s changed since it was scanned (replaced while bench ran?); "
                        "run bench again";
  if (scan_key_of(pl->path, &now) != 0) {
    snprintf(msg, len, "plugin %s: %s", pl->path, strerror(errno));
    return -1;
  }
  if (!scan_key_eq(&now, &pl->key)) {
    snprintf(msg, len, changed, pl->path);
    return -1;
  }
  void *h;
  const struct bench_plugin *p;
  char why[512];
  if (open_entry(pl->path, &h, &p, why, sizeof why) != 0) {
    snprintf(msg, len, "plugin %s: %s", pl->path, why);
    return -1;
  }
  /* the file could have been swapped between the stat and the load */
  if (scan_key_of(pl->path, &now) != 0 || !scan_key_eq(&now, &pl->key) ||
      strcmp(p->name, pl->desc->name) != 0) {
    snprintf(msg, len, changed, pl->path);
    abi_plugin_free(p);
    return -1; /* the handle stays: its constructors ran, its code may be in use */
  }
  out->dl = h;
  out->desc = p;
  return 0;
}

void plugin_close(struct plugin *p) {
  abi_plugin_free(p->desc); /* the handle stays open, as in plugin_set_release */
  p->desc = NULL;
}

static int scan_rescan = 0, scan_verbose = 0, scan_noted = 0;

/* Under --verbose, at most one line about a cache that cannot be used. */
static void scan_note(const char *what, const char *why) {
  if (!scan_verbose || scan_noted) return;
  scan_noted = 1;
  fprintf(stderr, "note: scan cache %s: %s\n", what, why);
}

void plugin_scan_configure(int rescan, int verbose) {
  scan_rescan = rescan;
  scan_verbose = verbose;
}

static int no_cache_env(void) {
  const char *e = getenv("BENCH_NO_SCAN_CACHE");
  return e && *e && strcmp(e, "0") != 0;
}

int plugin_scan_cache_on(void) { return !scan_rescan && !no_cache_env(); }
int plugin_scan_rescan(void) { return scan_rescan; }

#define SCAN_CACHE_FILE "scan-v1.cache"

/* One cached file: "F", path, dev, ino, size, mtime_ns, ctime_ns, then its record. */
struct scan_line {
  char *path;
  struct scan_key key;
  char *rec;  /* the record (owned) */
  int used;   /* seen by this discovery */
};

struct scan_table {
  size_t n;
  struct scan_line *v;
  int dirty;
};

static int parse_scan_line(const char *line, struct scan_line *out) {
  if (strncmp(line, "F\t", 2) != 0) return -1;
  char *copy = xstrdup(line);
  char *f[8];
  int rc = -1;
  size_t n = 0;
  /* the first seven fields; the record is the rest */
  char *p = copy;
  for (; n < 7; n++) {
    char *tab = strchr(p, '\t');
    if (!tab) break;
    *tab = '\0';
    f[n] = p;
    p = tab + 1;
  }
  f[n] = p;
  uint64_t mt, ct;
  char *path = NULL;
  if (n == 7 && scan_field_get(f[1], &path) == 0 && path && path[0] == '/' &&
      scan_field_u64(f[2], &out->key.dev) == 0 && scan_field_u64(f[3], &out->key.ino) == 0 &&
      scan_field_u64(f[4], &out->key.size) == 0 && scan_field_u64(f[5], &mt) == 0 &&
      mt <= INT64_MAX && scan_field_u64(f[6], &ct) == 0 && ct <= INT64_MAX) {
    out->key.mtime_ns = (int64_t)mt;
    out->key.ctime_ns = (int64_t)ct;
    out->path = path;
    path = NULL;
    out->rec = xstrdup(f[7]);
    out->used = 0;
    rc = 0;
  }
  free(path);
  free(copy);
  return rc;
}

static void scan_table_load(struct scan_table *t) {
  memset(t, 0, sizeof *t);
  char *header = scan_cache_header("scan");
  char **lines;
  size_t n;
  char why[512];
  if (cache_file_read(SCAN_CACHE_FILE, header, &lines, &n, why, sizeof why) != 0) {
    if (errno != ENOENT) scan_note("not used", why);
    free(header);
    return;
  }
  free(header);
  t->v = xcalloc(n ? n : 1, sizeof *t->v);
  for (size_t i = 0; i < n; i++) {
    if (parse_scan_line(lines[i], &t->v[t->n]) != 0) {
      /* any doubt: the whole file goes */
      for (size_t j = 0; j < t->n; j++) {
        free(t->v[j].path);
        free(t->v[j].rec);
      }
      t->n = 0;
      t->dirty = 1;
      scan_note("rebuilt", "a record does not read back");
      break;
    }
    t->n++;
  }
  cache_lines_free(lines, n);
}

static struct scan_line *scan_table_find(struct scan_table *t, const char *path) {
  for (size_t i = 0; i < t->n; i++)
    if (strcmp(t->v[i].path, path) == 0) return &t->v[i];
  return NULL;
}

static void scan_table_put(struct scan_table *t, const char *path, const struct scan_key *k,
                           char *rec) {
  struct scan_line *l = scan_table_find(t, path);
  if (!l) {
    t->v = xrealloc(t->v, (t->n + 1) * sizeof *t->v);
    l = &t->v[t->n++];
    l->path = xstrdup(path);
  } else {
    free(l->rec);
  }
  l->key = *k;
  l->rec = rec;
  l->used = 1;
  t->dirty = 1;
}

/* Entries of this discovery, and those of other folders whose file is
 * still there unchanged (another --plugin-dir keeps its entries). */
static void scan_table_save(struct scan_table *t) {
  char **lines = xcalloc(t->n ? t->n : 1, sizeof *lines);
  size_t n = 0;
  for (size_t i = 0; i < t->n; i++) {
    struct scan_line *l = &t->v[i];
    struct scan_key k;
    if (!l->used && (scan_key_of(l->path, &k) != 0 || !scan_key_eq(&k, &l->key))) continue;
    struct strbuf sb = STRBUF_INIT;
    strbuf_adds(&sb, "F\t");
    scan_field_put(&sb, l->path);
    strbuf_addf(&sb, "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRId64 "\t%" PRId64 "\t%s",
                l->key.dev, l->key.ino, l->key.size, l->key.mtime_ns, l->key.ctime_ns, l->rec);
    lines[n++] = strbuf_detach(&sb);
  }
  char *header = scan_cache_header("scan");
  char why[512];
  if (cache_file_write(SCAN_CACHE_FILE, header, lines, n, why, sizeof why) != 0)
    scan_note("not written", why);
  free(header);
  cache_lines_free(lines, n);
}

static void scan_table_release(struct scan_table *t) {
  for (size_t i = 0; i < t->n; i++) {
    free(t->v[i].path);
    free(t->v[i].rec);
  }
  free(t->v);
  memset(t, 0, sizeof *t);
}

/* What discovery knows of path: from the cache when its key matches and
 * its record reads back, else from a scan. 0 with *out filled, or -1 with
 * the problem in msg (a broken file). */
static int discover_one(struct scan_table *t, int use_cache, int keep, const char *path, struct plugin *out,
                        char *msg, size_t msglen) {
  struct scan_key key;
  if (scan_key_of(path, &key) != 0) {
    snprintf(msg, msglen, "%s", strerror(errno));
    return -1;
  }
  struct bench_plugin *d = NULL;
  char sha[65], *problem = NULL;
  struct scan_line *l = use_cache ? scan_table_find(t, path) : NULL;
  int have = 0;
  if (l && scan_key_eq(&l->key, &key) && scan_record_parse(l->rec, &d, sha, &problem) == 0) {
    /* a record that parses but fails the checks was edited: scan again */
    if (!d || (abi_accept(d, msg, msglen) == 0 && validate_entry(d, msg, msglen) == 0)) have = 1;
    else {
      scan_desc_free(d);
      d = NULL;
    }
    l->used = 1;
  }
  if (!have) {
    free(problem);
    problem = NULL;
    int transient;
    char *rec = scan_in_child(path, &transient);
    if (scan_record_parse(rec, &d, sha, &problem) != 0) { /* cannot happen: our own record */
      free(rec);
      snprintf(msg, msglen, "unreadable scan record");
      return -1;
    }
    if (keep && !transient) scan_table_put(t, path, &key, rec); /* a hang is remembered too */
    else free(rec);
  }
  if (!d) {
    snprintf(msg, msglen, "%s", problem);
    free(problem);
    return -1;
  }
  out->path = xstrdup(path);
  out->dl = NULL;
  out->desc = d;
  out->key = key;
  memcpy(out->sha256, sha, sizeof sha);
  return 0;
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static int cmp_plugin(const void *a, const void *b) {
  return strcmp(((const struct plugin *)a)->desc->name, ((const struct plugin *)b)->desc->name);
}

/* Sorted list of *.so files in dir. */
static char **list_so(const char *dir, size_t *n) {
  *n = 0;
  struct stat st;
  if (stat(dir, &st) == 0 && S_ISREG(st.st_mode)) { /* one .so named itself (bench ab) */
    char **one = xcalloc(1, sizeof *one);
    one[0] = xstrdup(dir);
    *n = 1;
    return one;
  }
  DIR *d = opendir(dir);
  if (!d) return NULL;
  char **names = NULL;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.' || !ends_with(e->d_name, ".so")) continue;
    names = xrealloc(names, (*n + 1) * sizeof *names);
    names[(*n)++] = xasprintf("%s/%s", dir, e->d_name);
  }
  closedir(d);
  if (*n) qsort(names, *n, sizeof *names, cmp_str);
  return names;
}

int plugins_discover(char *const *dirs, size_t ndirs, struct plugin_set *out) {
  memset(out, 0, sizeof *out);
  const int use_cache = plugin_scan_cache_on();
  const int keep = use_cache || (scan_rescan && !no_cache_env()); /* rewrite the cache */
  struct scan_table t = {0};
  if (keep) scan_table_load(&t); /* --rescan: its records of other folders stay */
  for (size_t d = 0; d < ndirs; d++) {
    size_t nfiles;
    char **files = list_so(dirs[d], &nfiles);
    for (size_t i = 0; i < nfiles; i++) {
      struct plugin p = {0};
      char msg[512];
      if (child_interrupted()) { /* a signal: no more scans; the command says it stopped */
        free(files[i]);
        continue;
      }
      if (discover_one(&t, use_cache, keep, files[i], &p, msg, sizeof msg) != 0) {
        if (!child_interrupted()) warning("plugin %s: %s; skipped", files[i], msg);
        out->nbroken++;
        free(files[i]);
        continue;
      }
      const struct plugin *prev = plugin_set_find(out, p.desc->name);
      if (prev) {
        if (strcmp(prev->sha256, p.sha256) != 0 || !p.sha256[0])
          warning("plugin %s: duplicate name '%s' (already loaded from %s); skipped", files[i],
                  p.desc->name, prev->path);
        out->nbroken += (strcmp(prev->sha256, p.sha256) != 0 || !p.sha256[0]);
        free(p.path);
        scan_desc_free((struct bench_plugin *)p.desc);
        free(files[i]);
        continue;
      }
      out->items = xrealloc(out->items, (out->n + 1) * sizeof *out->items);
      out->items[out->n++] = p;
      free(files[i]);
    }
    free(files);
  }
  if (out->n) qsort(out->items, out->n, sizeof *out->items, cmp_plugin);
  /* --rescan rewrites the cache; BENCH_NO_SCAN_CACHE leaves it alone */
  if (keep && t.dirty) scan_table_save(&t);
  scan_table_release(&t);
  return 0;
}

void plugin_set_release(struct plugin_set *s) {
  for (size_t i = 0; i < s->n; i++) {
    free(s->items[i].path);
    scan_desc_free((struct bench_plugin *)s->items[i].desc);
  }
  free(s->items);
  memset(s, 0, sizeof *s);
}

const struct plugin *plugin_set_find(const struct plugin_set *s, const char *name) {
  for (size_t i = 0; i < s->n; i++)
    if (strcmp(s->items[i].desc->name, name) == 0) return &s->items[i];
  return NULL;
}
