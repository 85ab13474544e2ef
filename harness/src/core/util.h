/* Small helpers every harness file uses: errors that print once and return,
 * allocation that cannot fail silently, a growable string buffer. */
#ifndef BENCH_UTIL_H
#define BENCH_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__)
#define UTIL_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define UTIL_PRINTF(f, a)
#endif

/* Print "bench: error: <msg>" to stderr and return -1 (git's error()). */
int error(const char *fmt, ...) UTIL_PRINTF(1, 2);
/* Print "bench: warning: <msg>" to stderr. */
void warning(const char *fmt, ...) UTIL_PRINTF(1, 2);

/* Allocation: abort with a message on out-of-memory (the only exit below
 * the top level: there is nothing sensible left to do). */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) UTIL_PRINTF(1, 2);
char *xvasprintf(const char *fmt, va_list ap);
/* Room for one more item in an array of n items that grows by doubling:
 * the capacity is the next power of two, so none is stored. Every append
 * to such an array must go through it. Returns the (moved) array. */
void *grow_for_one(void *v, size_t n, size_t size);

/* Growable NUL-terminated string. */
struct strbuf {
  char *buf;
  size_t len, alloc;
};
#define STRBUF_INIT {NULL, 0, 0}
void strbuf_add(struct strbuf *sb, const char *s, size_t n);
void strbuf_adds(struct strbuf *sb, const char *s);
void strbuf_addf(struct strbuf *sb, const char *fmt, ...) UTIL_PRINTF(2, 3);
void strbuf_reset(struct strbuf *sb);
/* Hand over the buffer (never NULL); sb is empty afterwards. */
char *strbuf_detach(struct strbuf *sb);
void strbuf_release(struct strbuf *sb);

/* Monotonic clock in nanoseconds / seconds. */
uint64_t now_ns(void);
/* n random bytes from getrandom (never blocking); before the kernel has
 * entropy (early boot), a clock-and-pid mix that differs from call to call.
 * For nonces, temporary names and layout draws, not for secrets. */
void random_bytes(void *buf, size_t n);
double now_s(void);
/* Local date "YYYY-MM-DD" (result file names) and UTC ISO 8601
 * "YYYY-MM-DDTHH:MM:SS.mmmZ" (timestamps in files and events). */
void today_local(char out[11]);
void iso_time_utc(char out[32]);

/* Read a whole file into sb (NUL-terminated; may hold NULs). 0, or -1 with
 * errno set; prints nothing, so the caller words the message. */
int read_file(const char *path, struct strbuf *sb);

/* Read a whole regular file of at most cap bytes into sb (NUL-terminated;
 * may hold NULs). Anything else is refused without blocking and without
 * reading it: a FIFO, a device such as /dev/zero (also through a symlink),
 * a folder, a socket; so is a file larger than cap (also one that grows
 * past cap while it is read). Returns 0, or -1 with a short lower-case
 * reason in why ("not a regular file", "larger than 1048576 bytes", or
 * strerror's text); prints nothing, so the caller names the file. */
int read_regular_file(const char *path, size_t cap, struct strbuf *sb, char *why, size_t whylen);

/* Temporary files, atomic writes and locks: core/lockfile.h. */

/* Split line into at most max (>= 1) tab-separated fields in place: f[0..n). */
size_t split_tabs(char *line, char **f, size_t max);
/* Trim ASCII whitespace in place; returns s. */
char *trim(char *s);
/* Parse a whole string as an integer / double; 0 on success, -1 if not. */
int parse_int64(const char *s, int64_t *out);
int parse_double(const char *s, double *out);

#endif
