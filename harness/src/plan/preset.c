/* Presets: reading an INI file with inih into a run policy and the plugin
 * sections (checked later against the plugins, in cases.c).
 *
 * inih (Debian's build) gives the handler no line number and cuts lines
 * longer than its buffer, so the file is read into memory and handed to
 * ini_parse_stream one line at a time by our own reader, which counts lines,
 * refuses over-long ones, strips leading blanks (so an indented key is a key,
 * never a continuation of the previous value) and finds the syntax errors
 * inih would only report the first of. Every problem is collected with its
 * line and printed, in line order, as "path:line: message". */
#include "plan/preset.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <float.h>
#include <ini.h>

#include "core/hash.h"
#include "core/strmap.h"
#include "core/term.h"

/* inih's own limit for a section name (MAX_SECTION - 1): it cuts longer ones. */
#define INI_SECTION_MAX 49
/* A preset is a few dozen lines; a bigger file is surely not one. */
#define PRESET_MAX_BYTES (1u << 20)
/* After this many problems the rest of the file is not read. */
#define PRESET_MAX_PROBLEMS 20

void run_policy_defaults(struct run_policy *p) {
  memset(p, 0, sizeof *p);
  p->tier = BENCH_TIER_STANDARD;
  p->warmup_iters = 2;
  p->warmup_s = 0.1;
  p->min_samples = 5;
  p->max_samples = 1000;
  p->min_time_s = 0.2;
  p->max_time_s = 5.0;
  p->target_cv = 0.02;
  p->batch_min_s = 1e-3;
  p->verify = VERIFY_FAST;
  p->determinism = 0;
  p->timeout_s = 120.0;
  p->heartbeat_s = 60.0;
}

/* ---- names ------------------------------------------------------------ */

static const char *const tier_names[BENCH_TIER_COUNT] = {"smoke", "standard", "perf", "verify"};

const char *tier_name(enum bench_tier t) {
  return (unsigned)t < BENCH_TIER_COUNT ? tier_names[t] : "unknown";
}

int tier_parse(const char *s, enum bench_tier *out) {
  for (int t = 0; t < BENCH_TIER_COUNT; t++) {
    if (strcasecmp(s, tier_names[t]) == 0) {
      *out = (enum bench_tier)t;
      return 0;
    }
  }
  return -1;
}

const char *preset_verify_name(enum verify_level v) {
  switch (v) {
  case VERIFY_NONE: return "none";
  case VERIFY_FAST: return "fast";
  case VERIFY_FULL: return "full";
  }
  return "unknown";
}

int preset_parse_verify(const char *s, enum verify_level *out) {
  if (strcasecmp(s, "full") == 0) *out = VERIFY_FULL;
  else if (strcasecmp(s, "fast") == 0) *out = VERIFY_FAST;
  else if (strcasecmp(s, "none") == 0) *out = VERIFY_NONE;
  else return -1;
  return 0;
}

int preset_parse_bool(const char *s, int *out) {
  static const char *const yes[] = {"true", "yes", "on", "1"};
  static const char *const no[] = {"false", "no", "off", "0"};
  for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++) {
    if (strcasecmp(s, yes[i]) == 0) {
      *out = 1;
      return 0;
    }
    if (strcasecmp(s, no[i]) == 0) {
      *out = 0;
      return 0;
    }
  }
  return -1;
}

/* ---- numbers with units ----------------------------------------------- */

/* A plain decimal number at the start of s: [+-]digits[.digits][e[+-]digits]
 * (no hex, inf or nan, which strtod would take). Returns its length, 0 if
 * there is none. */
static size_t scan_number(const char *s) {
  size_t i = 0, digits = 0;
  if (s[i] == '+' || s[i] == '-') i++;
  while (isdigit((unsigned char)s[i])) i++, digits++;
  if (s[i] == '.') {
    i++;
    while (isdigit((unsigned char)s[i])) i++, digits++;
  }
  if (!digits) return 0;
  if (s[i] == 'e' || s[i] == 'E') {
    size_t j = i + 1;
    if (s[j] == '+' || s[j] == '-') j++;
    if (isdigit((unsigned char)s[j])) {
      while (isdigit((unsigned char)s[j])) j++;
      i = j;
    }
  }
  return i;
}

/* The number at the start of s and what follows it (blanks skipped). A
 * number too small for a double ("1e-310", "1e-400") reads as the smallest
 * one of its sign, never as 0, so that range checks refuse it like any
 * other value that is too small; one too large is no number. */
static int number_and_suffix(const char *s, double *v, const char **suffix) {
  size_t n = scan_number(s);
  if (!n || n > 63) return -1;
  char buf[64], *end;
  memcpy(buf, s, n);
  buf[n] = '\0';
  errno = 0;
  *v = strtod(buf, &end);
  if (*end || !isfinite(*v)) return -1;
  if (errno == ERANGE) {
    if (fabs(*v) >= DBL_MIN) return -1; /* overflow */
    *v = buf[0] == '-' ? -DBL_TRUE_MIN : DBL_TRUE_MIN;
  }
  s += n;
  while (isspace((unsigned char)*s)) s++;
  *suffix = s;
  return 0;
}

int preset_parse_duration(const char *s, double *seconds) {
  static const struct {
    const char *unit;
    double scale;
  } units[] = {{"", 1.0}, {"s", 1.0}, {"ms", 1e-3}, {"us", 1e-6}, {"ns", 1e-9}, {"min", 60.0}};
  double v;
  const char *suffix;
  if (!s || number_and_suffix(s, &v, &suffix) != 0) return -1;
  for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
    if (strcmp(suffix, units[i].unit) == 0) {
      *seconds = v * units[i].scale;
      return isfinite(*seconds) ? 0 : -1;
    }
  }
  return -1;
}

int preset_parse_fraction(const char *s, double *out) {
  double v;
  const char *suffix;
  if (!s || number_and_suffix(s, &v, &suffix) != 0) return -1;
  if (strcmp(suffix, "%") == 0) v /= 100.0;
  else if (*suffix) return -1;
  *out = v;
  return 0;
}

/* ---- located problems ------------------------------------------------- */

void preset_diag(const char *path, int line, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *msg = xvasprintf(fmt, ap);
  va_end(ap);
  /* Values quoted from the file are escaped: they never reach the terminal raw. */
  fprintf(stderr, "%s:%d: %s\n", term_str(path), line, term_str(msg));
  free(msg);
}

struct diag {
  int line;
  size_t seq;
  char *msg;
};

static int diag_cmp(const void *a, const void *b) {
  const struct diag *x = a, *y = b;
  if (x->line != y->line) return x->line < y->line ? -1 : 1;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* ---- the [run] keys --------------------------------------------------- */

enum run_kind { RK_TIER, RK_COUNT, RK_DURATION, RK_FRACTION, RK_VERIFY, RK_BOOL, RK_BATCH, RK_CHOICE };

enum run_key_id {
  RUN_TIER, RUN_WARMUP_ITERS, RUN_WARMUP_TIME, RUN_MIN_SAMPLES, RUN_MAX_SAMPLES,
  RUN_MIN_TIME, RUN_MAX_TIME, RUN_TARGET_NOISE, RUN_BATCH_MIN_TIME, RUN_VERIFY,
  RUN_DETERMINISM, RUN_TIMEOUT, RUN_HEARTBEAT, RUN_BATCH, RUN_STOP, RUN_ISOLATION, RUN_NKEYS
};

/* One [run] key. A new key is one enum id above, one line here, and its
 * storing in set_run_value (a new kind also its parsing there). */
struct run_key {
  const char *name;
  enum run_kind kind;
  double min, max; /* RK_COUNT, RK_DURATION, RK_FRACTION: allowed range */
  int zero_ok;     /* RK_DURATION: 0 (off) is allowed below min */
};

#define HOUR 3600.0
#define WEEK (7 * 24 * HOUR)
#define MAX_COUNT 1000000

/* The ranges (documented in the README's preset section): a nonzero time
 * is at least 1 ns (what our clocks resolve); nothing lasts longer than a
 * week per case, so suite ETAs stay meaningful. */
static const struct run_key run_keys[RUN_NKEYS] = {
  [RUN_TIER] = {"tier", RK_TIER, 0, 0, 0},
  [RUN_WARMUP_ITERS] = {"warmup_iters", RK_COUNT, 0, MAX_COUNT, 0},
  [RUN_WARMUP_TIME] = {"warmup_time", RK_DURATION, 1e-9, HOUR, 1},
  [RUN_MIN_SAMPLES] = {"min_samples", RK_COUNT, 1, MAX_COUNT, 0},
  [RUN_MAX_SAMPLES] = {"max_samples", RK_COUNT, 1, MAX_COUNT, 0},
  [RUN_MIN_TIME] = {"min_time", RK_DURATION, 1e-9, HOUR, 1},
  [RUN_MAX_TIME] = {"max_time", RK_DURATION, 1e-9, HOUR, 1},
  [RUN_TARGET_NOISE] = {"target_noise", RK_FRACTION, 1e-5, 1, 0},
  [RUN_BATCH_MIN_TIME] = {"batch_min_time", RK_DURATION, 1e-9, 10, 1},
  [RUN_VERIFY] = {"verify", RK_VERIFY, 0, 0, 0},
  [RUN_DETERMINISM] = {"determinism", RK_BOOL, 0, 0, 0},
  [RUN_TIMEOUT] = {"timeout", RK_DURATION, 0.1, WEEK, 0},
  [RUN_HEARTBEAT] = {"heartbeat", RK_DURATION, 0.1, HOUR, 0},
  [RUN_BATCH] = {"batch", RK_BATCH, 0, 0, 0},
  [RUN_STOP] = {"stop", RK_CHOICE, 0, 0, 0},
  [RUN_ISOLATION] = {"isolation", RK_CHOICE, 0, 0, 0},
};

/* "1ns", "100ms", "3600s": a duration as a preset may write it. */
static void fmt_duration(double s, char *out, size_t len) {
  if (s == 0) snprintf(out, len, "0");
  else if (s < 1e-6) snprintf(out, len, "%gns", s * 1e9);
  else if (s < 1e-3) snprintf(out, len, "%gus", s * 1e6);
  else if (s < 1) snprintf(out, len, "%gms", s * 1e3);
  else snprintf(out, len, "%gs", s);
}

/* ---- the loader ------------------------------------------------------- */

/* Room for one more item in an array of n that grows by doubling: the
 * capacity is the next power of two, so none is stored. */
static void *grow_for_one(void *v, size_t n, size_t size) {
  if (n && (n & (n - 1))) return v;
  return xrealloc(v, (n ? 2 * n : 1) * size);
}


enum section_kind { SEC_NONE, SEC_RUN, SEC_PLUGIN, SEC_SKIP };

struct loader {
  const char *path;
  const char *data;
  size_t len, pos;
  int lineno;           /* lines handed to inih so far = the current line */
  int last_num;         /* buffer size of inih's last read */
  int unterminated;     /* the last line filled inih's buffer without '\n' */

  enum section_kind sec;
  size_t cur;           /* SEC_PLUGIN: index in out->sections */
  int run_line;         /* line of the first [run] header, 0 if none */
  int run_set[RUN_NKEYS]; /* line where each [run] key was set, 0 if not */
  int run_ok[RUN_NKEYS];  /* ... and its value was good */

  struct diag *diags;
  size_t ndiags, adiags;
  int last_diag_line;
  int stopped;          /* too many problems: the rest is not read */

  struct strmap sections; /* plugin section name -> index in out->sections */
  struct strmap keys;     /* "<section index> <key>" -> index in its entries */

  struct preset *out;
};

static void add_diag(struct loader *ld, int line, const char *fmt, ...) UTIL_PRINTF(3, 4);
static void add_diag(struct loader *ld, int line, const char *fmt, ...) {
  if (ld->ndiags == ld->adiags) {
    ld->adiags = ld->adiags ? 2 * ld->adiags : 8;
    ld->diags = xrealloc(ld->diags, ld->adiags * sizeof *ld->diags);
  }
  va_list ap;
  va_start(ap, fmt);
  ld->diags[ld->ndiags].msg = xvasprintf(fmt, ap);
  va_end(ap);
  ld->diags[ld->ndiags].line = line;
  ld->diags[ld->ndiags].seq = ld->ndiags;
  ld->ndiags++;
  ld->last_diag_line = line;
  if (ld->ndiags >= PRESET_MAX_PROBLEMS) ld->stopped = 1;
}

static int has_diag_on(const struct loader *ld, int line) {
  for (size_t i = 0; i < ld->ndiags; i++)
    if (ld->diags[i].line == line) return 1;
  return 0;
}

/* As inih: the first of `chars` or an inline comment (';' after a blank). */
static const char *find_chars_or_comment(const char *s, const char *chars) {
  int was_space = 0;
  while (*s && (!chars || !strchr(chars, *s)) && !(was_space && *s == ';')) {
    was_space = isspace((unsigned char)*s);
    s++;
  }
  return s;
}

static int section_name_ok(const char *s) {
  if (!*s) return 0;
  for (; *s; s++)
    if (!isalnum((unsigned char)*s) && *s != '_' && *s != '-' && *s != '.') return 0;
  return 1;
}

/* A [section] line (s trimmed, starting with '['). Returns 1 when the line
 * may go to inih, 0 when it was refused (inih gets a blank line instead). */
static int section_line(struct loader *ld, char *s) {
  int line = ld->lineno;
  const char *end = find_chars_or_comment(s + 1, "]");
  if (*end != ']') {
    add_diag(ld, line, "syntax error: section header '%s' has no closing ']'", s);
    ld->sec = SEC_SKIP;
    return 0;
  }
  char *name = xstrndup(s + 1, (size_t)(end - (s + 1)));
  const char *rest = end + 1;
  while (isspace((unsigned char)*rest)) rest++;
  int ok = 1;
  if (!*name) {
    add_diag(ld, line, "empty section name '[]' (use [run] or [plugin_name])");
    ok = 0;
  } else if (!section_name_ok(name)) {
    add_diag(ld, line, "bad section name '[%s]' (letters, digits, '_', '-' and '.' only)", name);
    ok = 0;
  } else if (strlen(name) > INI_SECTION_MAX) {
    add_diag(ld, line, "section name '%.20s...' is longer than %d characters", name,
             INI_SECTION_MAX);
    ok = 0;
  }
  if (ok && *rest && *rest != ';')
    add_diag(ld, line, "unexpected text '%s' after section header [%s]", rest, name);
  if (!ok) {
    ld->sec = SEC_SKIP;
    free(name);
    return 0;
  }

  if (strcmp(name, "run") == 0) {
    if (ld->run_line)
      add_diag(ld, line, "section [run] appears twice (first on line %d)", ld->run_line);
    else
      ld->run_line = line;
    ld->sec = SEC_RUN;
    free(name);
    return 1;
  }
  struct preset *p = ld->out;
  size_t i;
  if (strmap_get(&ld->sections, name, &i)) {
    add_diag(ld, line, "section [%s] appears twice (first on line %d)", name, p->sections[i].line);
    ld->sec = SEC_PLUGIN;
    ld->cur = i;
    free(name);
    return 1;
  }
  strmap_put(&ld->sections, name, p->nsections);
  p->sections = grow_for_one(p->sections, p->nsections, sizeof *p->sections);
  struct preset_section *sec = &p->sections[p->nsections];
  memset(sec, 0, sizeof *sec);
  sec->name = name;
  sec->line = line;
  ld->cur = p->nsections++;
  ld->sec = SEC_PLUGIN;
  return 1;
}

/* Classify one trimmed line before inih sees it. 1: hand it to inih. */
static int check_line(struct loader *ld, char *s) {
  if (!*s || *s == ';' || *s == '#') return 1;
  if (*s == '[') return section_line(ld, s);
  const char *sep = find_chars_or_comment(s, "=:");
  if (*sep != '=' && *sep != ':') {
    add_diag(ld, ld->lineno,
             "syntax error: expected 'key = value', '[section]' or a comment, got '%s'", s);
    return 0;
  }
  return 1;
}

/* The ini_reader: the next line of the buffer, trimmed, one per call. */
static char *read_line(char *str, int num, void *stream) {
  struct loader *ld = stream;
  /* Newer inih reads the rest of a line that filled its buffer with a
   * smaller buffer; ours was whole, so there is nothing more to give. */
  if (ld->unterminated && num != ld->last_num) {
    ld->unterminated = 0;
    return NULL;
  }
  ld->unterminated = 0;
  if (ld->pos >= ld->len || num < 3 || ld->stopped) return NULL;
  ld->last_num = num;

  const char *start = ld->data + ld->pos;
  size_t left = ld->len - ld->pos;
  const char *nl = memchr(start, '\n', left);
  size_t rawlen = nl ? (size_t)(nl - start) : left;
  ld->pos += rawlen + (nl ? 1 : 0);
  ld->lineno++;
  if (rawlen && start[rawlen - 1] == '\r') rawlen--;
  if (ld->lineno == 1 && rawlen >= 3 && memcmp(start, "\xEF\xBB\xBF", 3) == 0) {
    start += 3;
    rawlen -= 3;
  }

  int give = 1;
  char *s = NULL;
  if ((size_t)num - 1 < rawlen) {
    add_diag(ld, ld->lineno, "line longer than %d characters (%zu); inih would cut it",
             num - 1, rawlen);
    /* Keys after an unreadable section header must not land in the previous one. */
    const char *q = start;
    while (q < start + rawlen && isspace((unsigned char)*q)) q++;
    if (q < start + rawlen && *q == '[') ld->sec = SEC_SKIP;
    give = 0;
  } else if (memchr(start, '\0', rawlen)) {
    add_diag(ld, ld->lineno, "line contains a NUL byte");
    give = 0;
  } else {
    s = xstrndup(start, rawlen);
    trim(s);
    give = check_line(ld, s);
  }

  size_t n = give ? strlen(s) : 0;
  if (n) memcpy(str, s, n);
  if (n + 1 < (size_t)num) {
    str[n++] = '\n';
  } else {
    ld->unterminated = 1;
  }
  str[n] = '\0';
  free(s);
  return str;
}

/* A good value of a [run] key: store it. Returns 0, or -1 after a diag. */
static int set_run_value(struct loader *ld, enum run_key_id id, const char *value, int line) {
  const struct run_key *k = &run_keys[id];
  struct run_policy *pol = &ld->out->policy;
  const char *name = k->name;
  if (!*value) {
    add_diag(ld, line, "missing value for '%s'", name);
    return -1;
  }
  switch (k->kind) {
  case RK_CHOICE: {
    /* stop = ci | cv; isolation = plugin | case */
    const char *a = id == RUN_STOP ? "ci" : "plugin", *b = id == RUN_STOP ? "cv" : "case";
    int v = strcmp(value, a) == 0 ? 0 : strcmp(value, b) == 0 ? 1 : -1;
    if (v < 0) {
      add_diag(ld, line, "bad value '%s' for %s: expected %s or %s", value, name, a, b);
      return -1;
    }
    if (id == RUN_STOP) pol->stop_cv = v;
    else pol->isolation_case = v;
    return 0;
  }
  case RK_TIER: {
    enum bench_tier t;
    if (tier_parse(value, &t) != 0) {
      add_diag(ld, line, "bad value '%s' for tier: expected smoke, standard, perf or verify", value);
      return -1;
    }
    pol->tier = t;
    return 0;
  }
  case RK_VERIFY: {
    enum verify_level v;
    if (preset_parse_verify(value, &v) != 0) {
      add_diag(ld, line, "bad value '%s' for verify: expected full, fast or none", value);
      return -1;
    }
    pol->verify = v;
    return 0;
  }
  case RK_BATCH: /* warm: batched samples (run_batch when the plugin has it); cold: one run() each */
    if (strcmp(value, "warm") != 0 && strcmp(value, "cold") != 0) {
      add_diag(ld, line, "bad value '%s' for batch: expected warm or cold", value);
      return -1;
    }
    pol->batch_cold = strcmp(value, "cold") == 0;
    return 0;
  case RK_BOOL: {
    int b;
    if (preset_parse_bool(value, &b) != 0) {
      add_diag(ld, line,
               "bad value '%s' for %s: expected true or false (also yes/no, on/off, 1/0)",
               value, name);
      return -1;
    }
    pol->determinism = b;
    return 0;
  }
  case RK_COUNT: {
    int64_t v;
    if (parse_int64(value, &v) != 0 || v < (int64_t)k->min || v > (int64_t)k->max) {
      add_diag(ld, line, "bad value '%s' for %s: expected an integer from %d to %d", value, name,
               (int)k->min, (int)k->max);
      return -1;
    }
    if (id == RUN_WARMUP_ITERS) pol->warmup_iters = (int)v;
    else if (id == RUN_MIN_SAMPLES) pol->min_samples = (int)v;
    else pol->max_samples = (int)v;
    return 0;
  }
  case RK_DURATION: {
    double v;
    if (preset_parse_duration(value, &v) != 0) {
      add_diag(ld, line,
               "bad value '%s' for %s: expected a duration (a number with an optional unit "
               "s, ms, us, ns or min, e.g. 15s, 500ms, 0.5)", value, name);
      return -1;
    }
    if (!(v >= k->min && v <= k->max) && !(k->zero_ok && v == 0)) {
      char lo[32], hi[32];
      fmt_duration(k->min, lo, sizeof lo);
      fmt_duration(k->max, hi, sizeof hi);
      add_diag(ld, line, "bad value '%s' for %s: must be %sfrom %s to %s", value, name,
               k->zero_ok ? "0 or " : "", lo, hi);
      return -1;
    }
    if (id == RUN_WARMUP_TIME) pol->warmup_s = v;
    else if (id == RUN_MIN_TIME) pol->min_time_s = v;
    else if (id == RUN_MAX_TIME) pol->max_time_s = v;
    else if (id == RUN_BATCH_MIN_TIME) pol->batch_min_s = v;
    else if (id == RUN_TIMEOUT) pol->timeout_s = v;
    else pol->heartbeat_s = v;
    return 0;
  }
  case RK_FRACTION: {
    double v;
    if (preset_parse_fraction(value, &v) != 0) {
      add_diag(ld, line,
               "bad value '%s' for %s: expected a percentage or a fraction (e.g. 2%% or 0.02)",
               value, name);
      return -1;
    }
    if (!(v >= k->min && v <= k->max)) {
      char hint[64] = "";
      if (v > 1 && v <= 100 && !strchr(value, '%'))
        snprintf(hint, sizeof hint, "; for %g percent write %g%%", v, v);
      add_diag(ld, line, "bad value '%s' for %s: must be from %g%% to %g%% "
               "(e.g. 2%% or 0.02)%s", value, name, k->min * 100, k->max * 100, hint);
      return -1;
    }
    pol->target_cv = v;
    return 0;
  }
  }
  return -1;
}

/* "timeout = 60s # note": '#' is no inline comment for inih. 1 if so. */
static int hash_comment(struct loader *ld, const char *name, const char *value, int line) {
  if (value[0] != '#' && !strstr(value, " #") && !strstr(value, "\t#")) return 0;
  add_diag(ld, line, "bad value '%s' for %s: '#' starts a comment only at the start of a "
           "line; after a value use ' ; comment'", value, name);
  return 1;
}

static void run_key(struct loader *ld, const char *name, const char *value, int line) {
  int id = -1;
  for (int i = 0; i < RUN_NKEYS; i++)
    if (strcmp(name, run_keys[i].name) == 0) id = i;
  if (id < 0) {
    struct strbuf sb = STRBUF_INIT;
    for (int i = 0; i < RUN_NKEYS; i++) strbuf_addf(&sb, "%s%s", i ? ", " : "", run_keys[i].name);
    add_diag(ld, line, "unknown key '%s' in [run] (known: %s)", name, sb.buf);
    strbuf_release(&sb);
    return;
  }
  if (ld->run_set[id]) {
    add_diag(ld, line, "duplicate key '%s' in [run] (first set on line %d)", name,
             ld->run_set[id]);
    return;
  }
  ld->run_set[id] = line;
  if (hash_comment(ld, name, value, line)) return;
  if (set_run_value(ld, (enum run_key_id)id, value, line) == 0) ld->run_ok[id] = line;
}

static void plugin_key(struct loader *ld, const char *name, const char *value, int line) {
  struct preset_section *sec = &ld->out->sections[ld->cur];
  char *id = xasprintf("%zu %s", ld->cur, name);
  size_t first;
  int dup = strmap_get(&ld->keys, id, &first);
  if (!dup) strmap_put(&ld->keys, id, sec->nentries);
  free(id);
  if (dup) {
    add_diag(ld, line, "duplicate key '%s' in [%s] (first set on line %d)", name, sec->name,
             sec->entries[first].line);
    return;
  }
  /* The list's form is checked here; its items against the plugin later. */
  if (hash_comment(ld, name, value, line)) {
    /* reported */
  } else if (!*value) {
    add_diag(ld, line, "missing value for '%s' in [%s]", name, sec->name);
  } else {
    const char *item = value;
    for (;;) {
      const char *comma = strchr(item, ',');
      size_t n = comma ? (size_t)(comma - item) : strlen(item);
      size_t i = 0;
      while (i < n && isspace((unsigned char)item[i])) i++;
      if (i == n) {
        add_diag(ld, line, "empty item in list '%s' for '%s' in [%s]", value, name, sec->name);
        break;
      }
      if (!comma) break;
      item = comma + 1;
    }
  }
  sec->entries = grow_for_one(sec->entries, sec->nentries, sizeof *sec->entries);
  sec->entries[sec->nentries].key = xstrdup(name);
  sec->entries[sec->nentries].value = xstrdup(value);
  sec->entries[sec->nentries].line = line;
  sec->nentries++;
}

static int on_key(void *user, const char *section, const char *name, const char *value) {
  struct loader *ld = user;
  int line = ld->lineno;
  (void)section; /* the reader tracks sections itself, refused headers included */
  if (!*name) {
    add_diag(ld, line, "missing key name before '='");
    return 1;
  }
  switch (ld->sec) {
  case SEC_NONE:
    add_diag(ld, line, "key '%s' outside any section (put it under [run] or a [plugin] section)",
             name);
    break;
  case SEC_SKIP:
    break;
  case SEC_RUN:
    run_key(ld, name, value, line);
    break;
  case SEC_PLUGIN:
    plugin_key(ld, name, value, line);
    break;
  }
  return 1; /* problems are ours to report; inih's return is for syntax only */
}

static char *fmt_seconds(double s) { return xasprintf("%gs", s); }

/* min <= max for the sample counts and times, once each value is good. */
static void check_ranges(struct loader *ld) {
  const struct run_policy *pol = &ld->out->policy;
  struct {
    enum run_key_id lo, hi;
    int bad;
    char *lov, *hiv;
  } pairs[2] = {
    {RUN_MIN_SAMPLES, RUN_MAX_SAMPLES, pol->max_samples < pol->min_samples,
     xasprintf("%d", pol->min_samples), xasprintf("%d", pol->max_samples)},
    {RUN_MIN_TIME, RUN_MAX_TIME, pol->max_time_s < pol->min_time_s,
     fmt_seconds(pol->min_time_s), fmt_seconds(pol->max_time_s)},
  };
  for (int i = 0; i < 2; i++) {
    int lo = pairs[i].lo, hi = pairs[i].hi;
    int bad_value = (ld->run_set[lo] && !ld->run_ok[lo]) || (ld->run_set[hi] && !ld->run_ok[hi]);
    if (pairs[i].bad && !bad_value) {
      const char *lon = run_keys[lo].name, *hin = run_keys[hi].name;
      if (ld->run_ok[hi] && ld->run_ok[hi] >= ld->run_ok[lo])
        add_diag(ld, ld->run_ok[hi], "%s (%s) is less than %s (%s%s)", hin, pairs[i].hiv, lon,
                 pairs[i].lov, ld->run_ok[lo] ? "" : ", the default");
      else
        add_diag(ld, ld->run_ok[lo], "%s (%s) is greater than %s (%s%s)", lon, pairs[i].lov, hin,
                 pairs[i].hiv, ld->run_ok[hi] ? "" : ", the default");
    }
    free(pairs[i].lov);
    free(pairs[i].hiv);
  }
}

static char *base_name_of(const char *path) {
  const char *b = strrchr(path, '/');
  b = b ? b + 1 : path;
  size_t n = strlen(b);
  if (n > 4 && strcmp(b + n - 4, ".ini") == 0) n -= 4;
  return xstrndup(b, n);
}

int preset_parse(const char *path, const char *data, size_t len, struct preset *out) {
  memset(out, 0, sizeof *out);
  out->path = xstrdup(path);
  out->name = base_name_of(path);
  sha256_hex(data, len, out->sha256);
  run_policy_defaults(&out->policy);

  struct loader ld;
  memset(&ld, 0, sizeof ld);
  ld.path = path;
  ld.data = data;
  ld.len = len;
  ld.sec = SEC_NONE;
  ld.out = out;

  int rc = ini_parse_stream(read_line, &ld, on_key, &ld);
  if (rc == -2) {
    add_diag(&ld, ld.lineno, "out of memory while parsing");
  } else if (rc > 0 && !has_diag_on(&ld, rc)) {
    add_diag(&ld, rc, "syntax error");
  }
  if (!ld.stopped) check_ranges(&ld);

  if (ld.ndiags) qsort(ld.diags, ld.ndiags, sizeof *ld.diags, diag_cmp);
  for (size_t i = 0; i < ld.ndiags; i++) {
    preset_diag(path, ld.diags[i].line, "%s", ld.diags[i].msg);
    free(ld.diags[i].msg);
  }
  if (ld.stopped && ld.pos < ld.len)
    preset_diag(path, ld.lineno, "too many problems (%d); the rest of the file was not read",
                PRESET_MAX_PROBLEMS);
  free(ld.diags);
  strmap_release(&ld.sections);
  strmap_release(&ld.keys);
  if (ld.ndiags) {
    preset_release(out);
    return -1;
  }
  return 0;
}

int preset_load(const char *path, struct preset *out) {
  struct strbuf sb = STRBUF_INIT;
  char why[128];
  memset(out, 0, sizeof *out);
  if (read_regular_file(path, PRESET_MAX_BYTES, &sb, why, sizeof why) != 0)
    return error("cannot read preset '%s': %s", path, why);
  int rc = preset_parse(path, sb.buf, sb.len, out);
  strbuf_release(&sb);
  return rc;
}

void preset_release(struct preset *p) {
  if (!p) return;
  for (size_t i = 0; i < p->nsections; i++) {
    struct preset_section *s = &p->sections[i];
    for (size_t j = 0; j < s->nentries; j++) {
      free(s->entries[j].key);
      free(s->entries[j].value);
    }
    free(s->entries);
    free(s->name);
  }
  free(p->sections);
  free(p->path);
  free(p->name);
  memset(p, 0, sizeof *p);
}

const struct preset_section *preset_find_section(const struct preset *p, const char *name) {
  if (!p) return NULL;
  for (size_t i = 0; i < p->nsections; i++)
    if (strcmp(p->sections[i].name, name) == 0) return &p->sections[i];
  return NULL;
}

/* ---- finding a preset ------------------------------------------------- */

static int is_readable_file(const char *path) {
  struct stat st;
  if (stat(path, &st) != 0) return 0;
  if (S_ISDIR(st.st_mode)) {
    errno = EISDIR;
    return 0;
  }
  return access(path, R_OK) == 0;
}

static int str_cmp(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* "perf, smoke, standard, verify": the *.ini names in dirs, sorted, once each. */
static char *available_names(const char *const *dirs, size_t ndirs) {
  char **names = NULL;
  size_t n = 0;
  for (size_t d = 0; d < ndirs; d++) {
    DIR *dir = opendir(dirs[d]);
    if (!dir) continue;
    struct dirent *e;
    while ((e = readdir(dir)) != NULL) {
      size_t len = strlen(e->d_name);
      if (len <= 4 || strcmp(e->d_name + len - 4, ".ini") != 0 || e->d_name[0] == '.') continue;
      names = xrealloc(names, (n + 1) * sizeof *names);
      names[n++] = xstrndup(e->d_name, len - 4);
    }
    closedir(dir);
  }
  if (n) qsort(names, n, sizeof *names, str_cmp);
  struct strbuf sb = STRBUF_INIT;
  for (size_t i = 0; i < n; i++) {
    if (!i || strcmp(names[i], names[i - 1]) != 0)
      strbuf_addf(&sb, "%s%s", sb.len ? ", " : "", names[i]);
  }
  for (size_t i = 0; i < n; i++) free(names[i]);
  free(names);
  return strbuf_detach(&sb);
}

char *preset_resolve(const char *arg, const char *const *dirs, size_t ndirs) {
  size_t len = strlen(arg);
  if (strchr(arg, '/') || (len >= 4 && strcmp(arg + len - 4, ".ini") == 0)) {
    if (!is_readable_file(arg)) {
      error("cannot read preset '%s': %s", arg, strerror(errno));
      return NULL;
    }
    return xstrdup(arg);
  }
  if (!len) {
    error("empty preset name");
    return NULL;
  }
  for (size_t d = 0; d < ndirs; d++) {
    char *path = xasprintf("%s/%s.ini", dirs[d], arg);
    if (is_readable_file(path)) return path;
    free(path);
  }
  char *names = available_names(dirs, ndirs);
  if (*names) {
    error("unknown preset '%s' (available: %s; or give a path to an .ini file)", arg, names);
  } else {
    struct strbuf sb = STRBUF_INIT;
    for (size_t d = 0; d < ndirs; d++) strbuf_addf(&sb, "%s%s", d ? ", " : "", dirs[d]);
    error("unknown preset '%s' (no presets found in %s)", arg, ndirs ? sb.buf : "any folder");
    strbuf_release(&sb);
  }
  free(names);
  return NULL;
}
