/* Helpers shared by the unit tests: capturing stderr around a call, and
 * throw-away folders. Header-only (static inline) so every test_*.c stays
 * one self-contained executable. */
#ifndef BENCH_TEST_SUPPORT_H
#define BENCH_TEST_SUPPORT_H

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/util.h"

struct capture {
  int saved;
  FILE *tmp;
};

/* Send stderr to a temporary file until capture_end. */
static inline void capture_begin(struct capture *c) {
  fflush(stderr);
  c->tmp = tmpfile();
  c->saved = dup(2);
  if (c->tmp) dup2(fileno(c->tmp), 2);
}

/* Restore stderr; returns what was written (malloc'd). */
static inline char *capture_end(struct capture *c) {
  fflush(stderr);
  dup2(c->saved, 2);
  close(c->saved);
  if (!c->tmp) return xstrdup("");
  struct strbuf sb = STRBUF_INIT;
  char buf[4096];
  size_t n;
  rewind(c->tmp);
  while ((n = fread(buf, 1, sizeof buf, c->tmp)) > 0) strbuf_add(&sb, buf, n);
  fclose(c->tmp);
  return strbuf_detach(&sb);
}

/* A new empty folder under $TMPDIR (or /tmp); NULL after perror. */
static inline char *make_tmpdir(const char *what) {
  const char *base = getenv("TMPDIR");
  char *templ = xasprintf("%s/bench-test-%s.XXXXXX", base && *base ? base : "/tmp", what);
  if (!mkdtemp(templ)) {
    perror(templ);
    free(templ);
    return NULL;
  }
  return templ;
}

static inline int rm_entry_(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st, (void)flag, (void)ftw;
  return remove(path);
}

/* Remove dir and everything below it, then free the string. */
static inline void rm_tree(char *dir) {
  if (!dir) return;
  nftw(dir, rm_entry_, 16, FTW_DEPTH | FTW_PHYS);
  free(dir);
}

#endif
