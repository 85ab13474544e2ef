/* Errors, allocation, strings, clocks and number parsing. */
#include "core/util.h"

#include "core/term.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Messages quote plugin names, preset values and file names: escaped, so
 * that none of them can drive the terminal. */
static void vreport(const char *prefix, const char *fmt, va_list ap) {
  char buf[4096];
  vsnprintf(buf, sizeof buf, fmt, ap);
  char *safe = term_escape(buf);
  fprintf(stderr, "bench: %s%s\n", prefix, safe);
  free(safe);
}

int error(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vreport("error: ", fmt, ap);
  va_end(ap);
  return -1;
}

void warning(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vreport("warning: ", fmt, ap);
  va_end(ap);
}

static void *check_alloc(void *p, size_t n) {
  if (!p && n) {
    fprintf(stderr, "bench: fatal: out of memory allocating %zu bytes\n", n);
    abort();
  }
  return p;
}

void *xmalloc(size_t n) { return check_alloc(malloc(n ? n : 1), n ? n : 1); }

void *xcalloc(size_t n, size_t size) {
  if (size && n > SIZE_MAX / size) return check_alloc(NULL, SIZE_MAX);
  size_t total = n * size;
  return check_alloc(calloc(n ? n : 1, size ? size : 1), total > 0 ? total : 1);
}

void *xrealloc(void *p, size_t n) { return check_alloc(realloc(p, n ? n : 1), n ? n : 1); }

char *xstrdup(const char *s) { return xstrndup(s, strlen(s)); }

char *xstrndup(const char *s, size_t n) {
  size_t len = strnlen(s, n);
  char *d = xmalloc(len + 1);
  memcpy(d, s, len);
  d[len] = '\0';
  return d;
}

char *xvasprintf(const char *fmt, va_list ap) {
  va_list ap2;
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap2);
  va_end(ap2);
  if (n < 0) n = 0;
  char *s = xmalloc((size_t)n + 1);
  vsnprintf(s, (size_t)n + 1, fmt, ap);
  return s;
}

void *grow_for_one(void *v, size_t n, size_t size) {
  if (n && (n & (n - 1))) return v;
  return xrealloc(v, (n ? 2 * n : 1) * size);
}

char *xasprintf(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *s = xvasprintf(fmt, ap);
  va_end(ap);
  return s;
}

static void strbuf_grow(struct strbuf *sb, size_t extra) {
  if (sb->len + extra + 1 <= sb->alloc) return;
  size_t want = sb->alloc ? sb->alloc : 64;
  while (want < sb->len + extra + 1) want *= 2;
  sb->buf = xrealloc(sb->buf, want);
  sb->alloc = want;
}

void strbuf_add(struct strbuf *sb, const char *s, size_t n) {
  strbuf_grow(sb, n);
  memcpy(sb->buf + sb->len, s, n);
  sb->len += n;
  sb->buf[sb->len] = '\0';
}

void strbuf_adds(struct strbuf *sb, const char *s) { strbuf_add(sb, s, strlen(s)); }

void strbuf_addf(struct strbuf *sb, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *s = xvasprintf(fmt, ap);
  va_end(ap);
  strbuf_adds(sb, s);
  free(s);
}

void strbuf_reset(struct strbuf *sb) {
  sb->len = 0;
  if (sb->buf) sb->buf[0] = '\0';
}

char *strbuf_detach(struct strbuf *sb) {
  char *s = sb->buf ? sb->buf : xstrdup("");
  sb->buf = NULL;
  sb->len = sb->alloc = 0;
  return s;
}

void strbuf_release(struct strbuf *sb) {
  free(sb->buf);
  sb->buf = NULL;
  sb->len = sb->alloc = 0;
}

int read_file(const char *path, struct strbuf *sb) {
  FILE *f = fopen(path, "rb");
  if (!f) return -1;
  char buf[65536];
  size_t n;
  errno = 0;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) strbuf_add(sb, buf, n);
  int e = ferror(f) ? (errno ? errno : EIO) : 0;
  fclose(f);
  if (e) {
    errno = e;
    return -1;
  }
  if (!sb->buf) strbuf_add(sb, "", 0);
  return 0;
}

int read_regular_file(const char *path, size_t cap, struct strbuf *sb, char *why, size_t whylen) {
  /* O_NONBLOCK: opening a FIFO with no writer must not wait for one. */
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    snprintf(why, whylen, "%s", strerror(errno));
    return -1;
  }
  struct stat st;
  int rc = 0;
  if (fstat(fd, &st) != 0) {
    snprintf(why, whylen, "%s", strerror(errno));
    rc = -1;
  } else if (!S_ISREG(st.st_mode)) {
    snprintf(why, whylen, S_ISDIR(st.st_mode) ? "is a folder" : "not a regular file");
    rc = -1;
  } else if ((uintmax_t)st.st_size > cap) {
    snprintf(why, whylen, "larger than %zu bytes", cap);
    rc = -1;
  }
  size_t start = sb->len;
  char buf[65536];
  while (rc == 0) {
    ssize_t got = read(fd, buf, sizeof buf);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      snprintf(why, whylen, "%s", strerror(errno));
      rc = -1;
    } else if (got == 0) {
      break;
    } else if ((size_t)got > cap - (sb->len - start)) {
      snprintf(why, whylen, "larger than %zu bytes", cap);
      rc = -1;
    } else {
      strbuf_add(sb, buf, (size_t)got);
    }
  }
  close(fd);
  if (rc != 0) {
    sb->len = start;
    if (sb->buf) sb->buf[start] = '\0';
    return -1;
  }
  if (!sb->buf) strbuf_add(sb, "", 0);
  return 0;
}

uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

double now_s(void) { return (double)now_ns() * 1e-9; }

void today_local(char out[11]) {
  time_t t = time(NULL);
  struct tm tm;
  localtime_r(&t, &tm);
  strftime(out, 11, "%Y-%m-%d", &tm);
}

void iso_time_utc(char out[32]) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  struct tm tm;
  gmtime_r(&ts.tv_sec, &tm);
  char base[24];
  strftime(base, sizeof base, "%Y-%m-%dT%H:%M:%S", &tm);
  snprintf(out, 32, "%.19s.%03dZ", base, (int)(ts.tv_nsec / 1000000L) % 1000);
}

size_t split_tabs(char *line, char **f, size_t max) {
  size_t n = 0;
  f[n++] = line;
  for (char *p = line; *p && n < max; p++)
    if (*p == '\t') {
      *p = '\0';
      f[n++] = p + 1;
    }
  return n;
}

char *trim(char *s) {
  char *start = s;
  while (*start && isspace((unsigned char)*start)) start++;
  size_t len = strlen(start);
  while (len && isspace((unsigned char)start[len - 1])) len--;
  memmove(s, start, len);
  s[len] = '\0';
  return s;
}

int parse_int64(const char *s, int64_t *out) {
  if (!s || !*s) return -1;
  char *end;
  errno = 0;
  long long v = strtoll(s, &end, 10);
  if (errno || end == s || *end) return -1;
  *out = (int64_t)v;
  return 0;
}

int parse_double(const char *s, double *out) {
  if (!s || !*s) return -1;
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (errno || end == s || *end || !isfinite(v)) return -1;
  *out = v;
  return 0;
}

/* ---- randomness ------------------------------------------------------------ */

void random_bytes(void *buf, size_t n) {
  unsigned char *b = buf;
  size_t got = 0;
  while (got < n) {
    ssize_t r = getrandom(b + got, n - got, GRND_NONBLOCK);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    got += (size_t)r;
  }
  if (got == n) return;
  static uint64_t mix; /* no entropy yet */
  mix += now_ns() ^ ((uint64_t)getpid() << 32) ^ 0x9e3779b97f4a7c15ull;
  uint64_t x = mix;
  for (size_t i = got; i < n; i++) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 29;
    b[i] = (unsigned char)x;
  }
}
