/* Saving run files: a unique dated name claimed atomically (a second run the
 * same day, or a concurrent bench, never replaces a file), and every file
 * written whole through a temporary name and rename(). */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "results/io.h"

#include "core/dirs.h"

#define MAX_CLAIM 10000 /* .2 ... .9999 before giving up */

static void add_safe(struct strbuf *sb, const char *part) {
  for (const char *p = part; *p; p++) {
    char c = *p;
    int ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
             c == '.' || c == '_' || c == '+' || c == '-';
    strbuf_add(sb, ok ? &c : "-", 1);
  }
}

char *results_basename(const char *date, const char *plugin, const char *preset, const char *tag) {
  struct strbuf sb = STRBUF_INIT;
  add_safe(&sb, date && *date ? date : "unknown");
  strbuf_adds(&sb, "_");
  add_safe(&sb, plugin && *plugin ? plugin : "unknown");
  strbuf_adds(&sb, "_");
  add_safe(&sb, preset && *preset ? preset : "unknown");
  if (tag && *tag) {
    strbuf_adds(&sb, "_");
    add_safe(&sb, tag);
  }
  if (sb.buf[0] == '.') sb.buf[0] = '-'; /* never a hidden file */
  return strbuf_detach(&sb);
}

/* Write data to a new temporary file beside path (core/lockfile.h: a
 * name nobody can plant beforehand), synced and closed; its name in *tmp.
 * On error the temporary file is removed: -1 with the errno in *err. */
static int write_temp_quiet(const char *path, const char *data, size_t len, char **tmp, int *err) {
  struct tempfile t = TEMPFILE_INIT;
  *tmp = NULL;
  if (tempfile_open_with(&t, path, data, len) != 0 || tempfile_close(&t) != 0) {
    *err = errno;
    return -1;
  }
  *tmp = t.tmp; /* published by claim() */
  free(t.path);
  return 0;
}

static int write_temp(const char *path, const char *data, size_t len, char **tmp) {
  int e;
  if (write_temp_quiet(path, data, len, tmp, &e)) return error("cannot write %s: %s", path, strerror(e));
  return 0;
}

static int exists(const char *path) {
  struct stat st;
  return lstat(path, &st) == 0 || errno != ENOENT;
}

/* The preset part of a name: a path's file name without ".ini". */
static char *preset_part(const char *preset) {
  if (!preset) return NULL;
  const char *slash = strrchr(preset, '/');
  const char *name = slash ? slash + 1 : preset;
  size_t len = strlen(name);
  if (len > 4 && strcmp(name + len - 4, ".ini") == 0) len -= 4;
  return xstrndup(name, len);
}

char *results_run_name(const char *date, const char *plugin, const char *preset, const char *tag) {
  char *pre = preset_part(preset);
  char *name = results_basename(date, plugin, pre, tag);
  free(pre);
  return name;
}

/* Publish the written temporary file tmp under the first free
 * <dir>/<name>[.N].json; the chosen base path in *base. A name is taken
 * when its .json, .txt or .journal exists (a journal a killed run left
 * must never collect another run's cases). link() fails when the name exists,
 * so two processes never get the same one and the file appears whole; where
 * the file system has no hard links, the name is claimed with O_EXCL and
 * the data renamed over it. */
static int claim(const char *dir, const char *name, const char *tmp, char **base) {
  for (int k = 1; k < MAX_CLAIM; k++) {
    char *b = k == 1 ? xasprintf("%s/%s", dir, name) : xasprintf("%s/%s.%d", dir, name, k);
    char *json = xasprintf("%s.json", b), *txt = xasprintf("%s.txt", b);
    char *journal = xasprintf("%s.journal", b);
    int rc = 1; /* 1: taken, try the next */
    if (!exists(txt) && !exists(journal)) {
      if (link(tmp, json) == 0) {
        unlink(tmp);
        rc = 0;
      } else if (errno != EEXIST) {
        int e = errno;
        if (e == EPERM || e == ENOTSUP || e == EOPNOTSUPP || e == ENOSYS || e == EMLINK) {
          int fd = open(json, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
          if (fd >= 0) {
            close(fd);
            if (rename(tmp, json) == 0) {
              rc = 0;
            } else {
              e = errno;
              unlink(json);
              rc = error("cannot write %s: %s", json, strerror(e));
            }
          } else if (errno != EEXIST) {
            rc = error("cannot create %s: %s", json, strerror(errno));
          }
        } else {
          rc = error("cannot create %s: %s", json, strerror(e));
        }
      }
    }
    free(json);
    free(txt);
    free(journal);
    if (rc == 0) {
      *base = b;
      return 0;
    }
    free(b);
    if (rc < 0) return -1;
  }
  return error("cannot find a free name for %s/%s.json (tried up to .%d)", dir, name,
               MAX_CLAIM - 1);
}

int results_save(const char *dir, const struct run_file *f, char **base) {
  if (!dir || !*dir) dir = ".";
  char *json = run_file_to_json(f);
  char *text = run_file_to_text(f);
  int rc = 0;

  if (*base) {
    char *jpath = xasprintf("%s.json", *base), *tpath = xasprintf("%s.txt", *base);
    rc = write_file_atomic(jpath, json, strlen(json));
    if (!rc) rc = write_file_atomic(tpath, text, strlen(text));
    free(jpath);
    free(tpath);
  } else if (make_dirs(dir, "results")) {
    rc = -1;
  } else {
    char date[11];
    const char *d = f->env.date;
    if (!d || !*d) {
      today_local(date);
      d = date;
    }
    char *name = results_run_name(d, f->plugin, f->env.preset, f->env.tag);
    char *probe = xasprintf("%s/%s.json", dir, name);
    char *tmp = NULL;
    rc = write_temp(probe, json, strlen(json), &tmp);
    if (!rc) {
      rc = claim(dir, name, tmp, base);
      if (rc) unlink(tmp);
    }
    if (!rc) {
      sync_dir_of(probe);
      char *tpath = xasprintf("%s.txt", *base);
      rc = write_file_atomic(tpath, text, strlen(text));
      free(tpath);
    }
    free(tmp);
    free(probe);
    free(name);
  }
  free(json);
  free(text);
  return rc;
}

/* ---- saving as a run goes: journal + periodic rewrite ----------------- */

void results_run_init(struct results_run *w, const char *dir) {
  memset(w, 0, sizeof *w);
  w->dir = xstrdup(dir && *dir ? dir : ".");
  w->journal_fd = -1;
  w->rewrite_min_s = RESULTS_REWRITE_MIN_S;
  w->rewrite_factor = RESULTS_REWRITE_FACTOR;
}

void results_run_release(struct results_run *w) {
  if (w->journal_fd >= 0) close(w->journal_fd);
  free(w->dir);
  free(w->base);
  memset(w, 0, sizeof *w);
  w->journal_fd = -1;
}

/* Rewrite <base>.json and .txt with every case of f. */
static int rewrite_whole(struct results_run *w, const struct run_file *f) {
  double t0 = now_s();
  if (results_save(w->dir, f, &w->base)) return -1;
  w->saved = w->in_json = f->ncases;
  w->steady_in_json = f->env.steady.known;
  w->last_rewrite_s = now_s();
  w->last_cost_s = w->last_rewrite_s - t0;
  return 0;
}

static int write_all(int fd, const char *data, size_t len) {
  while (len) {
    ssize_t n = write(fd, data, len);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return n < 0 ? errno : EIO;
    data += n;
    len -= (size_t)n;
  }
  return 0;
}

/* Append f->cases[saved ..] to the journal, one line each, in one write. */
static int journal_append(struct results_run *w, const struct run_file *f) {
  char *path = xasprintf("%s.journal", w->base);
  int e = 0;
  if (w->journal_fd == -2) { /* a journal not ours is in the way */
    free(path);
    return rewrite_whole(w, f);
  }
  if (w->journal_fd < 0) {
    /* O_EXCL: the claim saw no journal under this name, so one there now
     * is not ours (a link planted to a file elsewhere): never append to it. */
    w->journal_fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0666);
    if (w->journal_fd < 0) e = errno;
    if (e == EEXIST) {
      warning("%s exists and is not this run's: it is left alone, and the .json is rewritten after "
              "every case instead", path);
      w->journal_fd = -2;
      free(path);
      return rewrite_whole(w, f);
    }
  }
  if (!e) {
    struct strbuf sb = STRBUF_INIT;
    for (size_t i = w->saved; i < f->ncases; i++) {
      char *line = case_result_to_json_line(&f->cases[i]);
      strbuf_adds(&sb, line);
      strbuf_adds(&sb, "\n");
      free(line);
    }
    e = write_all(w->journal_fd, sb.buf, sb.len);
    if (!e && fdatasync(w->journal_fd) != 0 && errno != EINVAL) e = errno;
    strbuf_release(&sb);
  }
  int rc = e ? error("cannot write %s: %s", path, strerror(e)) : 0;
  if (!rc) w->saved = f->ncases;
  free(path);
  return rc;
}

int results_run_add(struct results_run *w, const struct run_file *f) {
  if (f->ncases <= w->saved) return 0;
  if (!w->base) return rewrite_whole(w, f);
  double since = now_s() - w->last_rewrite_s;
  if (since >= w->rewrite_min_s && since >= w->rewrite_factor * w->last_cost_s)
    return rewrite_whole(w, f);
  return journal_append(w, f);
}

int results_run_finish(struct results_run *w, const struct run_file *f) {
  if (!w->base && !f->ncases) return 0;
  /* the header's steadiness is known only now, at the end of the run */
  if ((!w->base || w->in_json != f->ncases || (f->env.steady.known && !w->steady_in_json)) && rewrite_whole(w, f))
    return -1;
  if (w->journal_fd >= 0) {
    close(w->journal_fd);
    w->journal_fd = -1;
    char *path = xasprintf("%s.journal", w->base);
    if (unlink(path) != 0 && errno != ENOENT) warning("cannot remove %s: %s", path, strerror(errno));
    free(path);
    sync_dir_of(w->base);
  }
  return 0;
}

/* ---- stale temporary files -------------------------------------------- */

void results_clean_stale(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return;
  time_t now = time(NULL);
  struct dirent *de;
  while ((de = readdir(d))) {
    long pid = temp_file_pid(de->d_name);
    if (pid <= 0) continue;
    char *path = xasprintf("%s/%s", dir, de->d_name);
    struct stat st;
    if (lstat(path, &st) == 0 && S_ISREG(st.st_mode)) {
      double age = difftime(now, st.st_mtime);
      int dead = pid != (long)getpid() && kill((pid_t)pid, 0) != 0 && errno == ESRCH;
      if (age >= RESULTS_STALE_S || (dead && age >= RESULTS_STALE_DEAD_S)) {
        if (unlink(path) != 0 && errno != ENOENT)
          warning("cannot remove stale temporary file %s: %s", path, strerror(errno));
      }
    }
    free(path);
  }
  closedir(d);
}

/* ---- before the first case: can the folder take this run's files? ---- */

int results_check_dir(const char *dir, const char *const *plugins, size_t nplugins,
                      const char *preset, const char *tag) {
  if (make_dirs(dir, "results")) return -1;
  char date[11];
  today_local(date);
  int rc = 0;
  for (size_t i = 0; i < nplugins && !rc; i++) {
    char *name = results_run_name(date, plugins[i], preset, tag);
    /* Longer than every name a run writes: .<name>.N.json.tmp.<pid>.<random>,
     * <name>.N.txt, <name>.N.journal; and a temporary name, so a probe a
     * kill leaves is cleaned like one. */
    char *longest = xasprintf("%s/%s.%d.journal", dir, name, MAX_CLAIM - 1);
    char *probe = NULL;
    int fd = temp_file_beside(longest, &probe);
    int e = fd < 0 ? errno : 0;
    if (!probe) probe = xasprintf("%s/.%s.%d.journal.tmp.%ld.XXXXXXXX", dir, name, MAX_CLAIM - 1, (long)getpid());
    free(longest);
    if (fd >= 0) {
      if (write_all(fd, "probe\n", 6) != 0) e = errno ? errno : EIO;
      if (close(fd) != 0 && !e) e = errno;
      unlink(probe);
    }
    if (e) {
      const char *slash = strrchr(probe, '/');
      rc = error("results folder '%s' cannot take this run's files: %s (a file name of %zu "
                 "characters, for plugin %s)%s; nothing was run",
                 dir, strerror(e), strlen(slash ? slash + 1 : probe), plugins[i],
                 e == ENAMETOOLONG ? "; use a shorter --tag or preset name" : "");
    }
    free(probe);
    free(name);
  }
  return rc;
}
