/* bench events FILE [--follow | --summary]: a compact table of a run's events file (one
 * row per case: plugin, case, status, wall seconds, median, its one
 * throughput) with the suite's progress and ETA at the bottom.
 *
 * Lines that are not JSON objects are skipped, so a log that interleaves the
 * events with the per-case lines, PROGRESS lines or build output reads as
 * well as a pure events file; so is a last line the run has not finished
 * writing. A file holding several suites shows one table per suite.
 * --follow rereads the file as it grows and redraws the table (in place on a
 * terminal; otherwise again each time a case finishes) until the last suite
 * ends or Ctrl-C. --summary prints, for scripts, key=value lines instead of
 * the tables (print_summary). FILE "-" reads standard input. Reading the events is
 * events_read.c's, a suite's table and counts events_table.c's; text from the
 * file is printed escaped (term.h). */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/commands.h"
#include "core/parse_options.h"
#include "core/progress.h"
#include "core/term.h"
#include "core/text_table.h"
#include "core/units.h"
#include "core/util.h"
#include "results/events_read.h"
#include "results/events_table.h"

#define POLL_NS 250000000L /* --follow: look for new lines 4 times a second */

/* One suite's table; max_rows > 0 shows only the last max_rows cases. */
static void print_suite(FILE *f, struct ev_suite *s, int max_rows) {
  ev_suite_sort(s);
  fprintf(f, "preset %s", s->preset ? term_str(s->preset) : "?");
  if (s->tag) fprintf(f, ", tag %s", term_str(s->tag));
  fprintf(f, "\n");

  struct ev_tally t;
  ev_suite_count(s, &t);
  int done = t.done, failed = t.failed, skipped = t.skipped, total = t.total;

  size_t first = 0;
  if (max_rows > 0 && s->ncases > (size_t)max_rows) first = s->ncases - (size_t)max_rows;
  if (s->ncases) ev_print_cases(f, s, first);

  if (s->ended) {
    char *wall = fmt_fixed(s->wall_s, 1);
    fprintf(f, "done: %d of %d cases in %s s: %d ok, %d skipped, %d failed%s\n", done, total, wall,
            done - failed - skipped, skipped, failed, s->interrupted ? " (interrupted)" : "");
    free(wall);
    return;
  }
  double percent = t.percent, eta = t.eta;
  char bar[21], etas[32];
  int filled = (int)(percent / 5 + 0.5);
  for (int i = 0; i < 20; i++) bar[i] = i < filled ? '#' : '.';
  bar[20] = '\0';
  format_eta(eta, etas, sizeof etas);
  double elapsed = s->start_ts > 0 && s->last_ts > s->start_ts ? s->last_ts - s->start_ts : 0;
  char *els = fmt_fixed(elapsed, 0);
  fprintf(f, "progress: [%s] %3.0f%% (%d/%d)  %d failed  elapsed %ss  ETA %s\n", bar, percent, done,
          total, failed, els, etas);
  free(els);
}

void ev_log_print(FILE *f, struct ev_log *l, int max_rows) {
  if (!l->n) {
    fprintf(f, "no events yet\n");
    return;
  }
  for (size_t i = 0; i < l->n; i++) {
    if (i) fprintf(f, "\n");
    print_suite(f, &l->suites[i], i + 1 == l->n ? max_rows : 0);
  }
}

/* --summary: key=value lines over every suite of the log, for scripts:
 * suites, cases (planned), done, ok, skipped, failed, ended (yes when every
 * suite ended), interrupted (yes when one was), eta (the last suite's, as
 * the PROGRESS line writes it; "-" when ended or unknown). */
static void print_summary(FILE *f, const struct ev_log *l) {
  struct ev_tally sum = {0}, t = {0};
  int ended = l->n > 0, interrupted = 0;
  for (size_t i = 0; i < l->n; i++) {
    ev_suite_count(&l->suites[i], &t);
    sum.total += t.total;
    sum.done += t.done;
    sum.ok += t.ok;
    sum.skipped += t.skipped;
    sum.failed += t.failed;
    if (!l->suites[i].ended) ended = 0;
    if (l->suites[i].interrupted) interrupted = 1;
  }
  char eta[32] = "-";
  if (l->n && !l->suites[l->n - 1].ended) format_eta(t.eta, eta, sizeof eta);
  /* one record of the key=value renderer (core/render_kv.c) */
  static const char *const titles[] = {"suites", "cases", "done", "ok", "skipped",
                                       "failed", "ended", "interrupted", "eta"};
  struct text_table tb;
  table_init(&tb, sizeof titles / sizeof *titles, titles, NULL);
  char *cells[] = {xasprintf("%zu", l->n), xasprintf("%d", sum.total), xasprintf("%d", sum.done),
                   xasprintf("%d", sum.ok), xasprintf("%d", sum.skipped), xasprintf("%d", sum.failed),
                   xstrdup(ended ? "yes" : "no"), xstrdup(interrupted ? "yes" : "no"), xstrdup(eta)};
  table_add_row(&tb, cells);
  char *text = table_render(&tb, TABLE_KV, 0);
  fputs(text, f);
  free(text);
  table_release(&tb);
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
    ev_log_feed(l, buf, (size_t)got);
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
    if (end) ev_log_feed_end(l);
    if (tty) {
      struct winsize ws;
      int rows = ioctl(1, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 8 ? ws.ws_row - 6 : 0;
      printf("\033[H\033[J");
      ev_log_print(stdout, l, end ? 0 : rows);
      fflush(stdout);
    } else if (l->changed || !drawn) {
      /* Not a terminal: the table again each time a case starts or ends. */
      if (drawn) printf("\n");
      ev_log_print(stdout, l, 0);
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

struct events_opts {
  int follow, summary;
};

static const struct opt events_options[] = {
    OPT_FLAG("follow", 'f', struct events_opts, follow,
             "reread the file as it grows and redraw the table until the last suite ends or Ctrl-C"),
    OPT_FLAG("summary", 0, struct events_opts, summary, "key=value lines for scripts instead of the tables"),
    OPT_END(),
};

static const char *const events_usage[] = {"bench events FILE [--follow | --summary]", NULL};

const struct cmd_spec spec_events = {
    "events", "a compact table of a run's events file, live with --follow", events_usage, NULL,
    "A compact table of a run's events file (--events FILE): one row per case (plugin,\n"
    "case, status, wall seconds, median, its one throughput) with the suite's progress and\n"
    "ETA at the bottom. Lines that are not JSON objects are skipped, so a log that\n"
    "interleaves the events with other output reads as well. FILE - reads standard input.",
    "Exit status: 0 shown; 2 usage error or a file that cannot be read.\n",
    events_options, PARSE_PERMUTE,
};

int cmd_events(int argc, char **argv) {
  struct events_opts o = {0};
  int nargs, prc = parse_options(&spec_events, argc, argv, &o, &nargs);
  if (prc != 0) return prc > 0 ? EXIT_OK : EXIT_USAGE;
  int follow_mode = o.follow, summary = o.summary;
  if (follow_mode && summary) {
    usage_error(&spec_events, "--follow and --summary do not go together");
    return EXIT_USAGE;
  }
  if (nargs != 1) {
    usage_error(&spec_events, nargs ? "expected one events file" : "missing the events file");
    return EXIT_USAGE;
  }
  const char *path = argv[0];
  int from_stdin = strcmp(path, "-") == 0;
  int fd = from_stdin ? 0 : open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    error("cannot open events file '%s': %s", path, strerror(errno));
    return EXIT_USAGE;
  }
  struct stat st;
  /* A file, a pipe or a FIFO (a run still writing), a terminal; never a
   * folder or a device such as /dev/zero, which would be read forever. */
  if (fstat(fd, &st) != 0 || S_ISDIR(st.st_mode) ||
      ((S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)) && !isatty(fd))) {
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
    ev_log_feed_end(&l);
    if (summary) print_summary(stdout, &l);
    else ev_log_print(stdout, &l, 0);
  }
  if (!from_stdin) close(fd);
  ev_log_release(&l);
  return rc ? EXIT_USAGE : EXIT_OK;
}
