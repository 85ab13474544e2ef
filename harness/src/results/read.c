/* Reading a result file back as the rollup (and any tool) should: a regular
 * file, loaded whole when it is small and streamed case by case when it is
 * not, the cases a run appended to <base>.journal after the .json was last
 * rewritten merged in, timings checked, and the facts every file bench
 * writes holds checked. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/strmap.h"
#include "results/io.h"

size_t results_load_cap(void) {
  const char *s = getenv("BENCH_RESULT_LOAD_CAP");
  int64_t v;
  if (s && *s && parse_int64(s, &v) == 0 && v > 0) return (size_t)v;
  return RESULT_FILE_CAP;
}

/* ---- timings checked on read ------------------------------------------- */

enum bad_class { BAD_NEGATIVE, BAD_ZERO, BAD_NONFINITE, BAD_ABSURD, BAD_CLASSES };
static const char *const bad_names[BAD_CLASSES] = {
    "negative", "zero", "not finite", "above " "1e15" " ns"};

struct timing_report {
  size_t cases;               /* cases whose timings were dropped */
  int first_index;            /* the first such case's index */
  size_t count[BAD_CLASSES];  /* values of each class */
};

/* The class of a time that must be in (0, RESULT_SAMPLE_MAX_NS], or -1. */
static int bad_time(double v) {
  if (!isfinite(v)) return BAD_NONFINITE;
  if (v < 0) return BAD_NEGATIVE;
  if (v == 0) return BAD_ZERO;
  if (v > RESULT_SAMPLE_MAX_NS) return BAD_ABSURD;
  return -1;
}

/* The class of a spread (stddev, cv, drift, a CI bound) that must be finite
 * and not negative, or -1. */
static int bad_spread(double v) {
  if (!isfinite(v)) return BAD_NONFINITE;
  if (v < 0) return BAD_NEGATIVE;
  if (v > RESULT_SAMPLE_MAX_NS) return BAD_ABSURD;
  return -1;
}

static int note(size_t count[BAD_CLASSES], int cls) {
  if (cls < 0) return 0;
  count[cls]++;
  return 1;
}

static int bad_samples(const double *x, size_t n, size_t count[BAD_CLASSES]) {
  int bad = 0;
  for (size_t i = 0; x && i < n; i++) bad |= note(count, bad_time(x[i]));
  return bad;
}

static int bad_stats(const struct stats *s, size_t count[BAD_CLASSES]) {
  if (s->n == 0) return 0; /* an empty timer (all zero) */
  int bad = 0;
  const double times[] = {s->min, s->q1, s->median, s->q3, s->max, s->mean};
  const double spreads[] = {s->stddev, s->cv, s->drift, s->ci_lo, s->ci_hi};
  for (size_t i = 0; i < sizeof times / sizeof times[0]; i++) bad |= note(count, bad_time(times[i]));
  for (size_t i = 0; i < sizeof spreads / sizeof spreads[0]; i++)
    bad |= note(count, bad_spread(spreads[i]));
  return bad;
}

/* Drop the timings of r when any of them is invalid (counted in rep). */
static void check_timings(struct case_result *r, struct timing_report *rep) {
  size_t count[BAD_CLASSES] = {0};
  int bad = bad_samples(r->host_clock_ns, r->nsamples, count) |
            bad_samples(r->device_ns, r->nsamples, count) | bad_stats(&r->host_clock, count) |
            bad_stats(&r->device, count);
  if (!bad) return;
  if (!rep->cases) rep->first_index = r->index;
  rep->cases++;
  for (int k = 0; k < BAD_CLASSES; k++) rep->count[k] += count[k];
  free(r->host_clock_ns);
  free(r->device_ns);
  free(r->clock_mhz);
  r->host_clock_ns = r->device_ns = r->clock_mhz = NULL;
  r->nsamples = 0;
  memset(&r->host_clock, 0, sizeof r->host_clock);
  memset(&r->device, 0, sizeof r->device);
}

static void warn_timings(const char *path, const struct timing_report *rep) {
  if (!rep->cases) return;
  struct strbuf what = STRBUF_INIT;
  for (int k = 0; k < BAD_CLASSES; k++)
    if (rep->count[k])
      strbuf_addf(&what, "%s%zu %s", what.len ? ", " : "", rep->count[k], bad_names[k]);
  warning("%s: ignoring the timings of %zu case%s (first: index %d): invalid sample values (%s)",
          path, rep->cases, rep->cases == 1 ? "" : "s", rep->first_index, what.buf);
  strbuf_release(&what);
}

/* Every case read passes here: timings checked, samples dropped on request. */
static void took_case(struct case_result *r, unsigned flags, struct timing_report *rep) {
  check_timings(r, rep);
  if (flags & RESULTS_READ_NO_SAMPLES) {
    free(r->host_clock_ns);
    free(r->device_ns);
    free(r->clock_mhz);
    r->host_clock_ns = r->device_ns = r->clock_mhz = NULL;
  }
}

static void push_case(struct run_file *f, size_t *cap, struct case_result *r) {
  if (f->ncases == *cap) {
    *cap = *cap ? 2 * *cap : 64;
    f->cases = xrealloc(f->cases, *cap * sizeof *f->cases);
  }
  f->cases[f->ncases++] = *r;
}

/* ---- opening ------------------------------------------------------------ */

/* Open path for reading if it is a regular file: the fd, or -1 with why.
 * O_NONBLOCK: opening a FIFO with no writer must not wait for one. */
static int open_regular(const char *path, off_t *size, char *why, size_t whylen) {
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    snprintf(why, whylen, "%s", strerror(errno));
    return -1;
  }
  struct stat st;
  if (fstat(fd, &st) != 0) {
    snprintf(why, whylen, "%s", strerror(errno));
  } else if (!S_ISREG(st.st_mode)) {
    snprintf(why, whylen, S_ISDIR(st.st_mode) ? "is a folder" : "not a regular file");
  } else {
    *size = st.st_size;
    return fd;
  }
  close(fd);
  return -1;
}

/* ---- streaming a large file --------------------------------------------- */

/* The scanner copies everything but the elements of the top-level "cases"
 * array to a header (so "cases": [] there: the header is parsed as a run
 * file of no cases), and hands each element to the JSON library on its
 * own. It follows strings (escapes included) and nesting only as far as
 * needed to find where elements end; the JSON library checks the rest. */
enum phase { BEFORE, AFTER_KEY, AFTER_COLON, IN_CASES, AFTER };

struct scan {
  size_t cap;               /* the largest header or element held */
  unsigned flags;
  struct strbuf header, elem;
  enum phase phase;
  size_t depth;
  int in_str, esc;
  int expect_key, in_key;   /* depth 1: a key comes next / is being read */
  char key[8];
  size_t keylen;
  int seen_cases;
  int after_comma;          /* in the array: an element must follow */
  size_t nelems;
  size_t case_cap;
  struct run_file cases;    /* the cases read (only ncases/cases used) */
  struct timing_report rep;
  int case_failed;          /* the first bad element: its reason in case_err */
  char case_err[512];
};

static int is_space(int c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

/* One element of the array ended. 0, or -1 with the reason in err. */
static int end_elem(struct scan *s, char *err, size_t errlen) {
  const char *p = s->elem.buf ? s->elem.buf : "";
  size_t len = s->elem.len;
  while (len && is_space((unsigned char)*p)) p++, len--;
  while (len && is_space((unsigned char)p[len - 1])) len--;
  if (!len) {
    snprintf(err, errlen, "invalid json: an empty element in the cases array (element %zu)", s->nelems);
    return -1;
  }
  if (!s->case_failed) {
    struct case_result r;
    if (case_result_from_json_buf(p, len, s->nelems, &r, s->case_err, sizeof s->case_err) != 0) {
      s->case_failed = 1; /* reported after the header, which may say more */
    } else {
      took_case(&r, s->flags, &s->rep);
      push_case(&s->cases, &s->case_cap, &r);
    }
  }
  s->nelems++;
  s->elem.len = 0;
  return 0;
}

/* One byte inside the cases array (depth >= 2 there): 1 when it is a
 * separator of the array (',' or ']' outside strings and elements), else 0
 * (a byte of the current element; the caller copies runs of them). */
static int in_cases_step(struct scan *s, char c) {
  if (s->in_str) {
    if (s->esc) s->esc = 0;
    else if (c == '\\') s->esc = 1;
    else if (c == '"') s->in_str = 0;
    return 0;
  }
  if (s->depth == 2 && (c == ',' || c == ']')) return 1;
  if (c == '"') s->in_str = 1;
  else if (c == '{' || c == '[') s->depth++;
  else if ((c == '}' || c == ']') && s->depth > 2) s->depth--;
  return 0;
}

/* A separator of the cases array: the element before it ends. */
static int at_separator(struct scan *s, char c, char *err, size_t errlen) {
  int empty = 1;
  for (size_t i = 0; i < s->elem.len && empty; i++) empty = is_space((unsigned char)s->elem.buf[i]);
  if (c == ']' && empty && !s->after_comma) { /* "[]" or the end after an element */
    s->elem.len = 0;
  } else if (end_elem(s, err, errlen) != 0) {
    return -1;
  }
  s->after_comma = c == ',';
  if (c == ']') {
    s->depth--;
    s->phase = AFTER;
    strbuf_add(&s->header, "]", 1);
  }
  return 0;
}

/* Bytes buf[*i ..) inside the cases array, up to and including the next
 * separator: the element's bytes copied in one run. */
static int scan_in_cases(struct scan *s, const char *buf, size_t len, size_t *i, char *err,
                         size_t errlen) {
  size_t start = *i;
  int sep = 0;
  while (*i < len && !sep) sep = in_cases_step(s, buf[(*i)++]);
  strbuf_add(&s->elem, buf + start, *i - start - (size_t)sep);
  if (s->elem.len > s->cap) {
    snprintf(err, errlen, "cases[%zu]: larger than %zu bytes", s->nelems, s->cap);
    return -1;
  }
  return sep ? at_separator(s, buf[*i - 1], err, errlen) : 0;
}

/* One byte outside the cases array: into the header. */
static int scan_header(struct scan *s, char c, char *err, size_t errlen) {
  strbuf_add(&s->header, &c, 1);
  if (s->header.len > s->cap) {
    snprintf(err, errlen, "larger than %zu bytes outside its cases array", s->cap);
    return -1;
  }
  if (s->in_str) {
    if (s->esc) {
      s->esc = 0;
      s->in_key = 0; /* an escaped key is not read as "cases" */
    } else if (c == '\\') {
      s->esc = 1;
    } else if (c == '"') {
      s->in_str = 0;
      if (s->in_key && s->keylen == 5 && memcmp(s->key, "cases", 5) == 0 && !s->seen_cases &&
          s->phase == BEFORE) {
        s->seen_cases = 1;
        s->phase = AFTER_KEY;
      }
      s->in_key = 0;
    } else if (s->in_key) {
      if (s->keylen < sizeof s->key) s->key[s->keylen] = c;
      s->keylen++;
    }
    return 0;
  }
  if (is_space((unsigned char)c)) return 0;
  if (s->phase == AFTER_KEY) {
    s->phase = c == ':' ? AFTER_COLON : BEFORE;
    if (c == ':') return 0;
  } else if (s->phase == AFTER_COLON) {
    s->phase = BEFORE;
    if (c == '[' && s->depth == 1) {
      s->depth = 2;
      s->phase = IN_CASES;
      s->after_comma = 0;
      return 0;
    }
  }
  switch (c) {
  case '"':
    s->in_str = 1;
    s->in_key = s->depth == 1 && s->expect_key;
    s->keylen = 0;
    s->expect_key = 0;
    break;
  case '{':
  case '[':
    s->depth++;
    s->expect_key = s->depth == 1 && c == '{';
    break;
  case '}':
  case ']':
    if (s->depth) s->depth--;
    break;
  case ',':
    s->expect_key = s->depth == 1;
    break;
  default:
    break;
  }
  return 0;
}

static int stream_file(int fd, size_t cap, unsigned flags, struct run_file *f,
                       struct timing_report *rep, char *err, size_t errlen) {
  struct scan s = {.cap = cap, .flags = flags, .header = STRBUF_INIT, .elem = STRBUF_INIT};
  enum { BUF = 1 << 16 };
  char *buf = xmalloc(BUF);
  uint64_t offset = 0;
  int rc = 0;
  while (!rc) {
    ssize_t got = read(fd, buf, BUF);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      snprintf(err, errlen, "%s", strerror(errno));
      rc = -1;
      break;
    }
    if (got == 0) break;
    const char *nul = memchr(buf, '\0', (size_t)got);
    if (nul) {
      snprintf(err, errlen, "holds a nul byte at offset %" PRIu64 " (not a text file)",
               offset + (uint64_t)(nul - buf));
      rc = -1;
      break;
    }
    for (size_t i = 0; i < (size_t)got && !rc;) {
      if (s.phase == IN_CASES) rc = scan_in_cases(&s, buf, (size_t)got, &i, err, errlen);
      else rc = scan_header(&s, buf[i++], err, errlen);
    }
    offset += (uint64_t)got;
  }
  if (!rc && s.phase == IN_CASES) {
    snprintf(err, errlen, "invalid json: the file ends inside its cases array");
    rc = -1;
  }
  if (!rc) {
    char herr[512];
    /* The header is the file without its cases: it says whether this is a
     * bench result file at all, so its errors come first. */
    if (run_file_from_json_buf(s.header.buf ? s.header.buf : "", s.header.len, f, herr,
                               sizeof herr) != 0) {
      snprintf(err, errlen, "%s", herr);
      rc = -1;
    } else if (s.case_failed) {
      snprintf(err, errlen, "%s", s.case_err);
      run_file_release(f);
      rc = -1;
    } else if (!s.seen_cases) {
      /* no "cases" key the scanner knows (an escaped one, or none): the
       * header, parsed whole, holds whatever cases there are */
      for (size_t i = 0; i < f->ncases; i++) took_case(&f->cases[i], flags, rep);
    } else {
      free(f->cases);
      f->cases = s.cases.cases;
      f->ncases = s.cases.ncases;
      s.cases.cases = NULL;
      s.cases.ncases = 0;
      *rep = s.rep;
      /* the cases were read before the header: their devices now */
      if (run_file_resolve_devices(f, err, errlen) != 0) {
        run_file_release(f);
        rc = -1;
      }
    }
  }
  for (size_t i = 0; i < s.cases.ncases; i++) case_result_release(&s.cases.cases[i]);
  free(s.cases.cases);
  strbuf_release(&s.header);
  strbuf_release(&s.elem);
  free(buf);
  return rc;
}

/* ---- the journal ---------------------------------------------------------- */

/* The journal beside a result file: "<base>.journal" for "<base>.json". */
static char *journal_path(const char *path) {
  size_t len = strlen(path);
  if (len < 5 || strcmp(path + len - 5, ".json") != 0) return NULL;
  return xasprintf("%.*s.journal", (int)(len - 5), path);
}

/* 1 when index is in have; else 0, and it is added (as case at). */
static int seen_index(struct strmap *have, int index, size_t at) {
  char key[24];
  size_t ignored;
  snprintf(key, sizeof key, "%d", index);
  if (strmap_get(have, key, &ignored)) return 1;
  strmap_put(have, key, at);
  return 0;
}

/* Add the journal's cases that the .json lacks, line by line. A last line
 * without its newline was cut by a crash mid-write: ignored. */
static int merge_journal(const char *jpath, size_t cap, unsigned flags, struct run_file *f,
                         struct timing_report *rep, char *err, size_t errlen) {
  struct stat st;
  if (lstat(jpath, &st) != 0 && errno == ENOENT) return 0;
  char cause[256];
  off_t size;
  int fd = open_regular(jpath, &size, cause, sizeof cause);
  FILE *fp = fd < 0 ? NULL : fdopen(fd, "r");
  if (!fp) {
    if (fd >= 0) {
      snprintf(cause, sizeof cause, "%s", strerror(errno));
      close(fd);
    }
    snprintf(err, errlen, "cannot read %s: %s", jpath, cause);
    return -1;
  }
  struct strmap have = STRMAP_INIT; /* the indexes f holds */
  for (size_t i = 0; i < f->ncases; i++) seen_index(&have, f->cases[i].index, i);
  size_t ncap = f->ncases;
  char *line = NULL;
  size_t linecap = 0, line_no = 0;
  ssize_t len;
  int rc = 0;
  while (!rc && (len = getline(&line, &linecap, fp)) > 0) {
    line_no++;
    if (line[len - 1] != '\n') break; /* torn last line */
    line[--len] = '\0';
    struct case_result r;
    char why[256];
    if ((size_t)len > cap) {
      snprintf(err, errlen, "%s:%zu: longer than %zu bytes", jpath, line_no, cap);
      rc = -1;
    } else if (memchr(line, '\0', (size_t)len)) {
      snprintf(err, errlen, "%s:%zu: holds a nul byte", jpath, line_no);
      rc = -1;
    } else if (case_result_from_json_line(line, &r, why, sizeof why) != 0) {
      snprintf(err, errlen, "%s:%zu: %s", jpath, line_no, why);
      rc = -1;
    } else if (seen_index(&have, r.index, f->ncases)) {
      case_result_release(&r);
    } else {
      took_case(&r, flags, rep);
      push_case(f, &ncap, &r);
    }
  }
  if (!rc && ferror(fp)) {
    snprintf(err, errlen, "cannot read %s: %s", jpath, strerror(errno));
    rc = -1;
  }
  free(line);
  fclose(fp);
  strmap_release(&have);
  return rc;
}

/* ---- a whole file ------------------------------------------------------- */

int results_read_file_flags(const char *path, unsigned flags, struct run_file *f, char *err,
                            size_t errlen) {
  memset(f, 0, sizeof *f);
  size_t cap = results_load_cap();
  off_t size = 0;
  int fd = open_regular(path, &size, err, errlen);
  if (fd < 0) return -1;
  struct timing_report rep = {0};
  int rc;
  if ((uintmax_t)size > cap || (flags & RESULTS_READ_STREAM)) {
    rc = stream_file(fd, cap, flags, f, &rep, err, errlen);
    close(fd);
  } else {
    close(fd);
    /* read_regular_file checks again: the file may have changed since */
    struct strbuf sb = STRBUF_INIT;
    rc = read_regular_file(path, cap, &sb, err, errlen);
    if (!rc) rc = run_file_from_json_buf(sb.buf, sb.len, f, err, errlen);
    strbuf_release(&sb);
    for (size_t i = 0; !rc && i < f->ncases; i++) took_case(&f->cases[i], flags, &rep);
  }
  if (rc) return -1;
  char *jpath = journal_path(path);
  if (jpath) rc = merge_journal(jpath, cap, flags, f, &rep, err, errlen);
  free(jpath);
  if (!rc) rc = run_file_validate(f, err, errlen);
  if (rc) run_file_release(f);
  else warn_timings(path, &rep);
  return rc;
}

int results_read_file(const char *path, struct run_file *f, char *err, size_t errlen) {
  return results_read_file_flags(path, 0, f, err, errlen);
}
