/* Plugin discovery and validation. Each candidate is first loaded in a
 * throw-away child process, so that a .so whose constructors crash or hang
 * is refused with a message instead of taking the harness down. */
#include "plan/plugin_loader.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
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

#include "plan/abi.h"
#include "plan/cases.h"
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

#define LOADED_OK "bench: loaded"

static void load_child(void *arg, int fd) {
  const char *path = arg;
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  const char *e = h ? NULL : dlerror();
  char *line = xasprintf("%s%s", h ? LOADED_OK : "dlerror: ", e ? e : "");
  for (char *p = line; *p; p++)
    if (*p == '\n' || *p == '\r') *p = ' ';
  child_send_line(fd, line);
  free(line);
}

/* Load the file in a child (child.c: its own group, killed with all it
 * started, output kept off the user's terminal); returns 0 only when the
 * child said it loaded, else -1 with why in msg. A constructor that ends
 * the process, even with status 0, is refused. */
static int load_in_child(const char *path, char *msg, size_t msglen) {
  struct child_opts o = {LOAD_PROBE_TIMEOUT_S, 0, NULL, NULL, 0, NULL, NULL};
  struct child_outcome out;
  if (child_run(load_child, (void *)path, &o, &out) != 0) {
    snprintf(msg, msglen, "cannot start a process to load it");
    return -1;
  }
  int rc = -1;
  if (out.line && strcmp(out.line, LOADED_OK) == 0 && out.exit_code == 0)
    rc = 0;
  else if (out.line && strncmp(out.line, "dlerror: ", 9) == 0)
    snprintf(msg, msglen, "%s", out.line[9] ? out.line + 9 : "cannot load it"); /* not an ELF file, a missing library, ... */
  else if (out.timed_out)
    snprintf(msg, msglen, "loading it hung for %d s", LOAD_PROBE_TIMEOUT_S);
  else if (out.signal)
    snprintf(msg, msglen, "loading it crashed (%s)", strsignal(out.signal));
  else if (out.interrupted)
    snprintf(msg, msglen, "interrupted while loading it");
  else if (out.exit_code != 0) /* a sanitizer's report of a crash ends so */
    snprintf(msg, msglen, "loading it crashed (exit status %d)", out.exit_code);
  else
    snprintf(msg, msglen, "loading it ended the process (exit status 0) before it could answer");
  child_outcome_release(&out);
  return rc;
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

static int load_one(const char *path, struct plugin *out, char *msg, size_t msglen) {
  if (load_in_child(path, msg, msglen) != 0) return -1;
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char *e = dlerror();
    snprintf(msg, msglen, "%s", e ? e : "cannot load it");
    return -1;
  }
  dlerror();
  const struct bench_plugin *raw = dlsym(h, BENCH_PLUGIN_SYMBOL);
  if (!raw) {
    snprintf(msg, msglen, "missing entry symbol '%s' (not a bench plugin?)", BENCH_PLUGIN_SYMBOL);
    dlclose(h);
    return -1;
  }
  /* From here on only our copy, in our layout, is read (plan/abi.c). */
  const struct bench_plugin *p = NULL;
  if (abi_accept(raw, msg, msglen) != 0 || !(p = abi_plugin_import(raw, msg, msglen)) ||
      validate_entry(p, msg, msglen) != 0) {
    abi_plugin_free(p);
    dlclose(h);
    return -1;
  }
  out->path = xstrdup(path);
  out->dl = h;
  out->desc = p;
  if (sha256_file(path, out->sha256) != 0) out->sha256[0] = '\0';
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
  for (size_t d = 0; d < ndirs; d++) {
    size_t nfiles;
    char **files = list_so(dirs[d], &nfiles);
    for (size_t i = 0; i < nfiles; i++) {
      struct plugin p = {0};
      char msg[512];
      if (load_one(files[i], &p, msg, sizeof msg) != 0) {
        warning("plugin %s: %s; skipped", files[i], msg);
        out->nbroken++;
        free(files[i]);
        continue;
      }
      const struct plugin *prev = plugin_set_find(out, p.desc->name);
      if (prev) {
        if (strcmp(prev->sha256, p.sha256) != 0 || !p.sha256[0])
          warning("plugin %s: duplicate name '%s' (already loaded from %s); skipped", files[i],
                  p.desc->name, prev->path);
        free(p.path);
        abi_plugin_free(p.desc);
        dlclose(p.dl);
        out->nbroken += (strcmp(prev->sha256, p.sha256) != 0 || !p.sha256[0]);
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
  return 0;
}

void plugin_set_release(struct plugin_set *s) {
  for (size_t i = 0; i < s->n; i++) {
    free(s->items[i].path);
    abi_plugin_free(s->items[i].desc);
  }
  /* The handles stay open: a plugin's strings and functions may still be
   * referenced, and the process is about to end. */
  free(s->items);
  memset(s, 0, sizeof *s);
}

const struct plugin *plugin_set_find(const struct plugin_set *s, const char *name) {
  for (size_t i = 0; i < s->n; i++)
    if (strcmp(s->items[i].desc->name, name) == 0) return &s->items[i];
  return NULL;
}
