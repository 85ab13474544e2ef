/* bench events FILE [--follow]: a compact table of a run's events file (one
 * row per case: plugin, case, status, wall seconds, median, GFLOP/s or
 * GB/s) with the suite's progress and ETA at the bottom.
 *
 * Lines that are not JSON objects are skipped, so a log that interleaves the
 * events with the per-case lines, PROGRESS lines or build output reads as
 * well as a pure events file; so is a last line the run has not finished
 * writing. A file holding several suites shows one table per suite.
 * --follow rereads the file as it grows and redraws the table (in place on a
 * terminal; otherwise again each time a case finishes) until the last suite
 * ends or Ctrl-C. FILE "-" reads standard input. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "commands.h"
#include "progress.h"
#include "util.h"

#define USAGE "usage: bench events FILE [--follow]"
#define LABEL_MAX 60       /* case labels are cut to this many bytes */
#define POLL_NS 250000000L /* --follow: look for new lines 4 times a second */

enum { HAVE_WALL = 1, HAVE_MEDIAN = 2, HAVE_GFLOPS = 4, HAVE_GBPS = 8 };

struct ev_case {
  int index;
  char *plugin, *label, *status; /* status "RUNNING" until TEST_END */
  double wall_s, median_ms, gflops, gbps;
  unsigned have; /* HAVE_* */
};

struct ev_suite {
  char *preset, *tag;
  int total; /* SUITE_START's total_cases, 0 when unknown */
  struct ev_case *cases;
  size_t ncases;
  double start_ts, last_ts;
  int started, ended, interrupted;
  double wall_s;
  /* the latest HEARTBEAT, unless a case ended after it */
  int have_hb;
  double hb_percent, hb_eta;
};

struct ev_log {
  struct ev_suite *suites;
  size_t n;
  struct strbuf partial; /* bytes after the last newline */
  int changed;           /* a case started or ended, or a suite ended */
};

static void ev_log_release(struct ev_log *l) {
  for (size_t i = 0; i < l->n; i++) {
    struct ev_suite *s = &l->suites[i];
    for (size_t c = 0; c < s->ncases; c++) {
      free(s->cases[c].plugin);
      free(s->cases[c].label);
      free(s->cases[c].status);
    }
    free(s->cases);
    free(s->preset);
    free(s->tag);
  }
  free(l->suites);
  strbuf_release(&l->partial);
  memset(l, 0, sizeof *l);
}

static struct ev_suite *suite_new(struct ev_log *l) {
  l->suites = xrealloc(l->suites, (l->n + 1) * sizeof *l->suites);
  struct ev_suite *s = &l->suites[l->n++];
  memset(s, 0, sizeof *s);
  return s;
}

/* The suite events belong to: the last one, or a new one for a file that
 * starts in the middle. */
static struct ev_suite *suite_cur(struct ev_log *l) { return l->n ? &l->suites[l->n - 1] : suite_new(l); }

static struct ev_case *case_get(struct ev_suite *s, int index) {
  for (size_t i = 0; i < s->ncases; i++)
    if (s->cases[i].index == index) return &s->cases[i];
  s->cases = xrealloc(s->cases, (s->ncases + 1) * sizeof *s->cases);
  struct ev_case *c = &s->cases[s->ncases++];
  memset(c, 0, sizeof *c);
  c->index = index;
  c->status = xstrdup("RUNNING");
  return c;
}

/* A string member, or NULL. */
static const char *jstring(json_t *o, const char *key) { return json_string_value(json_object_get(o, key)); }

static int jnumber(json_t *o, const char *key, double *out) {
  json_t *v = json_object_get(o, key);
  if (!json_is_number(v)) return 0;
  *out = json_number_value(v);
  return 1;
}

static void set_str(char **dst, const char *v) {
  if (!v) return;
  free(*dst);
  *dst = xstrdup(v);
}

static void apply_event(struct ev_log *l, json_t *o) {
  const char *ev = jstring(o, "event");
  if (!ev) return;
  double ts = 0, v = 0;
  int have_ts = jnumber(o, "ts", &ts);
  struct ev_suite *s;
  if (strcmp(ev, "SUITE_START") == 0) {
    s = suite_cur(l);
    if (s->started || s->ncases || s->ended) s = suite_new(l);
    s->started = 1;
    set_str(&s->preset, jstring(o, "preset"));
    set_str(&s->tag, jstring(o, "tag"));
    if (jnumber(o, "total_cases", &v)) s->total = (int)v;
    if (have_ts) s->start_ts = ts;
    l->changed = 1;
  } else if (strcmp(ev, "TEST_START") == 0 || strcmp(ev, "TEST_END") == 0) {
    s = suite_cur(l);
    if (!jnumber(o, "index", &v)) return;
    struct ev_case *c = case_get(s, (int)v);
    set_str(&c->plugin, jstring(o, "plugin"));
    set_str(&c->label, jstring(o, "case"));
    if (!s->total && jnumber(o, "total", &v)) s->total = (int)v;
    if (strcmp(ev, "TEST_END") == 0) {
      set_str(&c->status, jstring(o, "status") ? jstring(o, "status") : "UNKNOWN");
      c->have = 0;
      if (jnumber(o, "wall_s", &c->wall_s)) c->have |= HAVE_WALL;
      if (jnumber(o, "median_ms", &c->median_ms)) c->have |= HAVE_MEDIAN;
      if (jnumber(o, "gflops", &c->gflops)) c->have |= HAVE_GFLOPS;
      if (jnumber(o, "gbps", &c->gbps)) c->have |= HAVE_GBPS;
      s->have_hb = 0;
    }
    l->changed = 1;
  } else if (strcmp(ev, "HEARTBEAT") == 0) {
    s = suite_cur(l);
    if (jnumber(o, "suite_percent", &s->hb_percent) && jnumber(o, "suite_eta_s", &s->hb_eta))
      s->have_hb = 1;
  } else if (strcmp(ev, "SUITE_END") == 0) {
    s = suite_cur(l);
    s->ended = 1;
    s->interrupted = json_is_true(json_object_get(o, "interrupted"));
    if (jnumber(o, "wall_s", &v)) s->wall_s = v;
    if (!s->total && jnumber(o, "total", &v)) s->total = (int)v;
    l->changed = 1;
  } else {
    return;
  }
  if (have_ts) s->last_ts = ts;
}

/* One line: a JSON object is an event; anything else is skipped. */
static void feed_line(struct ev_log *l, const char *line, size_t len) {
  while (len && (*line == ' ' || *line == '\t')) line++, len--;
  if (!len || *line != '{') return;
  json_error_t err;
  json_t *o = json_loadb(line, len, 0, &err);
  if (!o) return;
  if (json_is_object(o)) apply_event(l, o);
  json_decref(o);
}

/* Add bytes read from the file; complete lines are applied, the rest waits. */
static void feed(struct ev_log *l, const char *data, size_t n) {
  strbuf_add(&l->partial, data, n);
  char *start = l->partial.buf;
  char *nl;
  while ((nl = memchr(start, '\n', l->partial.len - (size_t)(start - l->partial.buf)))) {
    feed_line(l, start, (size_t)(nl - start));
    start = nl + 1;
  }
  size_t rest = l->partial.len - (size_t)(start - l->partial.buf);
  memmove(l->partial.buf, start, rest);
  l->partial.len = rest;
  l->partial.buf[rest] = '\0';
}

/* At the end of the input: a last line without its newline counts when it
 * is a whole event, and is dropped when the writer stopped mid-line. */
static void feed_end(struct ev_log *l) {
  if (l->partial.len) feed_line(l, l->partial.buf, l->partial.len);
  strbuf_reset(&l->partial);
}

static int is_failed(const char *status) {
  return strcmp(status, "OK") != 0 && strcmp(status, "SKIPPED") != 0 && strcmp(status, "RUNNING") != 0;
}

static void format_ms(double ms, char *out, size_t len) {
  double ns = ms * 1e6;
  if (ns < 1e3) snprintf(out, len, "%.1f ns", ns);
  else if (ns < 1e6) snprintf(out, len, "%.2f us", ns / 1e3);
  else if (ns < 1e9) snprintf(out, len, "%.3f ms", ns / 1e6);
  else snprintf(out, len, "%.3f s", ns / 1e9);
}

static int cmp_index(const void *a, const void *b) {
  const struct ev_case *x = a, *y = b;
  return (x->index > y->index) - (x->index < y->index);
}

/* The cells of one row. */
struct row {
  char num[16], wall[32], median[32], thr[48];
  char label[LABEL_MAX + 4];
};

static void make_row(const struct ev_case *c, struct row *r) {
  snprintf(r->num, sizeof r->num, "%d", c->index + 1);
  if (c->have & HAVE_WALL) snprintf(r->wall, sizeof r->wall, "%.2f", c->wall_s);
  else snprintf(r->wall, sizeof r->wall, "-");
  if (c->have & HAVE_MEDIAN) format_ms(c->median_ms, r->median, sizeof r->median);
  else snprintf(r->median, sizeof r->median, "-");
  if (c->have & HAVE_GFLOPS) snprintf(r->thr, sizeof r->thr, "%.3g GFLOP/s", c->gflops);
  else if (c->have & HAVE_GBPS) snprintf(r->thr, sizeof r->thr, "%.3g GB/s", c->gbps);
  else snprintf(r->thr, sizeof r->thr, "-");
  const char *label = c->label ? c->label : "?";
  if (strlen(label) > LABEL_MAX) snprintf(r->label, sizeof r->label, "%.*s...", LABEL_MAX - 3, label);
  else snprintf(r->label, sizeof r->label, "%s", label);
}

static int imax(int a, int b) { return a > b ? a : b; }

/* One suite's table; max_rows > 0 shows only the last max_rows cases. */
static void print_suite(FILE *f, struct ev_suite *s, int max_rows) {
  if (s->ncases) qsort(s->cases, s->ncases, sizeof *s->cases, cmp_index);
  fprintf(f, "preset %s", s->preset ? s->preset : "?");
  if (s->tag) fprintf(f, ", tag %s", s->tag);
  fprintf(f, "\n");

  int done = 0, failed = 0, skipped = 0;
  double done_wall = 0;
  for (size_t i = 0; i < s->ncases; i++) {
    const struct ev_case *c = &s->cases[i];
    if (strcmp(c->status, "RUNNING") == 0) continue;
    done++;
    if (c->have & HAVE_WALL) done_wall += c->wall_s;
    if (strcmp(c->status, "SKIPPED") == 0) skipped++;
    else if (is_failed(c->status)) failed++;
  }
  int total = s->total > (int)s->ncases ? s->total : (int)s->ncases;

  size_t first = 0;
  if (max_rows > 0 && s->ncases > (size_t)max_rows) first = s->ncases - (size_t)max_rows;
  struct row *rows = xcalloc(s->ncases ? s->ncases : 1, sizeof *rows);
  int w[7] = {1, 6, 4, 6, 6, 6, 10}; /* #, plugin, case, status, wall s, median, throughput */
  for (size_t i = first; i < s->ncases; i++) {
    const struct ev_case *c = &s->cases[i];
    make_row(c, &rows[i]);
    w[0] = imax(w[0], (int)strlen(rows[i].num));
    w[1] = imax(w[1], (int)strlen(c->plugin ? c->plugin : "?"));
    w[2] = imax(w[2], (int)strlen(rows[i].label));
    w[3] = imax(w[3], (int)strlen(c->status));
    w[4] = imax(w[4], (int)strlen(rows[i].wall));
    w[5] = imax(w[5], (int)strlen(rows[i].median));
    w[6] = imax(w[6], (int)strlen(rows[i].thr));
  }
  if (s->ncases) {
    fprintf(f, "%*s  %-*s  %-*s  %-*s  %*s  %*s  %*s\n", w[0], "#", w[1], "plugin", w[2], "case", w[3],
            "status", w[4], "wall s", w[5], "median", w[6], "throughput");
    if (first) fprintf(f, "%*s  (%zu earlier cases not shown)\n", w[0], "", first);
  }
  for (size_t i = first; i < s->ncases; i++) {
    const struct ev_case *c = &s->cases[i];
    fprintf(f, "%*s  %-*s  %-*s  %-*s  %*s  %*s  %*s\n", w[0], rows[i].num, w[1],
            c->plugin ? c->plugin : "?", w[2], rows[i].label, w[3], c->status, w[4], rows[i].wall,
            w[5], rows[i].median, w[6], rows[i].thr);
  }
  free(rows);

  if (s->ended) {
    fprintf(f, "done: %d of %d cases in %.1f s: %d ok, %d skipped, %d failed%s\n", done, total,
            s->wall_s, done - failed - skipped, skipped, failed,
            s->interrupted ? " (interrupted)" : "");
    return;
  }
  double percent = total ? 100.0 * done / total : 0, eta = -1;
  if (s->have_hb) {
    percent = s->hb_percent;
    eta = s->hb_eta;
  } else if (done > 0) {
    eta = done_wall / done * (total - done);
  }
  if (percent < 0) percent = 0;
  if (percent > 100) percent = 100;
  char bar[21], etas[32];
  int filled = (int)(percent / 5 + 0.5);
  for (int i = 0; i < 20; i++) bar[i] = i < filled ? '#' : '.';
  bar[20] = '\0';
  format_eta(eta, etas, sizeof etas);
  double elapsed = s->start_ts > 0 && s->last_ts > s->start_ts ? s->last_ts - s->start_ts : 0;
  fprintf(f, "progress: [%s] %3.0f%% (%d/%d)  %d failed  elapsed %.0fs  ETA %s\n", bar, percent, done,
          total, failed, elapsed, etas);
}

static void print_all(FILE *f, struct ev_log *l, int max_rows) {
  if (!l->n) {
    fprintf(f, "no events yet\n");
    return;
  }
  for (size_t i = 0; i < l->n; i++) {
    if (i) fprintf(f, "\n");
    print_suite(f, &l->suites[i], i + 1 == l->n ? max_rows : 0);
  }
}

static volatile sig_atomic_t stop_follow;
static void on_signal(int sig) {
  (void)sig;
  stop_follow = 1;
}

/* Read what is there now (a pipe: what the next read brings). 1 at the
 * end of a pipe, when nothing more will come; -1 on a read error. */
static int read_available(int fd, int regular, struct ev_log *l) {
  char buf[65536];
  for (;;) {
    ssize_t got = read(fd, buf, sizeof buf);
    if (got < 0 && errno == EINTR) return 0;
    if (got < 0) return -1;
    if (got == 0) return regular ? 0 : 1;
    feed(l, buf, (size_t)got);
    if (!regular) return 0;
  }
}

static int all_ended(const struct ev_log *l) { return l->n && l->suites[l->n - 1].ended; }

static int follow(int fd, const char *path, int regular, struct ev_log *l) {
  int tty = isatty(1);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal; /* no SA_RESTART: a blocked read or sleep returns */
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  int drawn = 0;
  for (;;) {
    struct stat st;
    if (regular && fstat(fd, &st) == 0 && st.st_size < lseek(fd, 0, SEEK_CUR)) {
      /* The file shrank: it was rewritten; start over. */
      ev_log_release(l);
      lseek(fd, 0, SEEK_SET);
      l->changed = 1;
    }
    int rc = read_available(fd, regular, l);
    if (rc < 0) return error("cannot read '%s': %s", path, strerror(errno));
    int end = all_ended(l) || rc == 1 || stop_follow;
    if (end) feed_end(l);
    if (tty) {
      struct winsize ws;
      int rows = ioctl(1, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 8 ? ws.ws_row - 6 : 0;
      printf("\033[H\033[J");
      print_all(stdout, l, end ? 0 : rows);
      fflush(stdout);
    } else if (l->changed || !drawn) {
      /* Not a terminal: the table again each time a case starts or ends. */
      if (drawn) printf("\n");
      print_all(stdout, l, 0);
      fflush(stdout);
    }
    drawn = 1;
    l->changed = 0;
    if (end) return 0;
    if (regular) {
      struct timespec ts = {0, POLL_NS};
      nanosleep(&ts, NULL);
    }
  }
}

int cmd_events(int argc, char **argv) {
  static const struct option longopts[] = {{"follow", no_argument, NULL, 'f'},
                                           {"help", no_argument, NULL, 'h'},
                                           {NULL, 0, NULL, 0}};
  int follow_mode = 0;
  opterr = 0;
  optind = 1;
  int c;
  while ((c = getopt_long(argc, argv, ":fh", longopts, NULL)) != -1) {
    if (c == 'f') {
      follow_mode = 1;
    } else if (c == 'h') {
      printf("%s\n", USAGE);
      return EXIT_OK;
    } else {
      error("unknown option '%s' (%s)", argv[optind - 1], USAGE);
      return EXIT_USAGE;
    }
  }
  if (argc - optind != 1) {
    error(argc - optind ? "expected one events file (%s)" : "missing the events file (%s)", USAGE);
    return EXIT_USAGE;
  }
  const char *path = argv[optind];
  int from_stdin = strcmp(path, "-") == 0;
  int fd = from_stdin ? 0 : open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    error("cannot open events file '%s': %s", path, strerror(errno));
    return EXIT_USAGE;
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || S_ISDIR(st.st_mode)) {
    if (!from_stdin) close(fd);
    error("'%s' is not an events file", path);
    return EXIT_USAGE;
  }
  int regular = S_ISREG(st.st_mode);
  struct ev_log l;
  memset(&l, 0, sizeof l);
  int rc = 0;
  if (follow_mode) {
    rc = follow(fd, path, regular, &l);
  } else {
    while ((rc = read_available(fd, 0, &l)) == 0) {
    }
    if (rc < 0) error("cannot read '%s': %s", path, strerror(errno));
    else rc = 0;
    feed_end(&l);
    print_all(stdout, &l, 0);
  }
  if (!from_stdin) close(fd);
  ev_log_release(&l);
  return rc ? EXIT_USAGE : EXIT_OK;
}
