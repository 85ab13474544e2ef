#include "core/progress.h"

#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/term.h"
#include "core/util.h"

#define BAR_WIDTH 20
#define PIPE_INTERVAL_S 10.0

void progress_init(struct progress *p, int colour) {
  memset(p, 0, sizeof *p);
  p->tty = isatty(2);
  p->colour = colour;
}

/* Beyond this many hours (about 11 years) an ETA says only that it is long. */
#define ETA_MAX_H 99999

void format_eta(double s, char *out, unsigned len) {
  if (!(s >= 0)) { /* negative or NaN: unknown */
    snprintf(out, len, "-");
  } else if (s < 59.5) {
    snprintf(out, len, "%.0fs", s);
  } else if (s < 3570) {
    snprintf(out, len, "%.0fm", s / 60);
  } else if (s < (ETA_MAX_H + 1) * 3600.0) {
    long long m = llround(s / 60); /* whole minutes, then hours and minutes */
    snprintf(out, len, "%lldh%02lldm", m / 60, m % 60);
  } else {
    snprintf(out, len, ">%dh", ETA_MAX_H);
  }
}

int progress_show(struct progress *p, double percent, int done, int total, const char *what, double eta_s,
                  int force) {
  return progress_show_case(p, percent, done, total, what, eta_s, -1, -1, force);
}

int progress_show_case(struct progress *p, double percent, int done, int total, const char *what, double eta_s,
                       double case_elapsed_s, double case_eta_s, int force) {
  double now = now_s();
  /* Not a terminal (a log): a whole line at most every second at a case's
   * start, every PIPE_INTERVAL_S otherwise, a correction at once. */
  if (!p->tty && force < 2 && now - p->last_print < (force ? 1.0 : PIPE_INTERVAL_S)) return 0;
  if (percent < 0) percent = 0;
  if (percent > 100) percent = 100;
  char bar[BAR_WIDTH + 1];
  int filled = (int)(percent / 100 * BAR_WIDTH + 0.5);
  for (int i = 0; i < BAR_WIDTH; i++) bar[i] = i < filled ? '#' : '.';
  bar[BAR_WIDTH] = '\0';
  char eta[32];
  format_eta(eta_s, eta, sizeof eta);
  char in_case[96] = "";
  if (case_elapsed_s >= 0) {
    char el[32], ce[32];
    format_eta(case_elapsed_s, el, sizeof el);
    format_eta(case_eta_s, ce, sizeof ce);
    snprintf(in_case, sizeof in_case, " [%s, case ETA %s]", el, ce);
  }
  /* the counter and the ETA first: a cut line keeps them */
  char *line = xasprintf("PROGRESS: (%d/%d) ETA %s [%s] %3.0f%% %s%s", done, total, eta, bar, percent,
                         term_str(what ? what : ""), in_case);
  if (p->tty) {
    /* Fit the terminal line: never wrap, or \r cannot redraw it. */
    size_t room = (size_t)term_columns(2) - 1;
    if (term_width(line) > room) {
      size_t cut = 0, cols = 0;
      while (line[cut] && cols < room - 3) {
        cut++;
        while ((line[cut] & 0xC0) == 0x80) cut++;
        cols++;
      }
      strcpy(line + cut, "...");
    }
    fprintf(stderr, "\r\033[K%s", line);
    p->shown = 1;
  } else {
    fprintf(stderr, "%s\n", line);
    p->last_print = now;
  }
  free(line);
  fflush(stderr);
  return 1;
}

void progress_clear(struct progress *p) {
  if (p->tty && p->shown) {
    fprintf(stderr, "\r\033[K");
    fflush(stderr);
    p->shown = 0;
  }
}
