/* The PROGRESS line on stderr: redrawn in place on a terminal, printed
 * whole (never with carriage returns) otherwise. */
#ifndef BENCH_PROGRESS_H
#define BENCH_PROGRESS_H

struct progress {
  int tty;          /* stderr is a terminal */
  int shown;        /* a line is on screen (tty) */
  double last_print; /* when a whole line was last printed (not a tty) */
  int colour;       /* unused for now: the line stays plain */
};

void progress_init(struct progress *p, int colour);
/* Draw "PROGRESS: (8/15) ETA 2m [########............]  53% cpu_gemm
 * m=1024": the counter and the run's ETA first, then the bar and the case
 * as its line names it (what: run/run_lines.h run_lines_label). On a
 * terminal the line is cut to its width (term_columns; never wrapped, so
 * that it can be redrawn). When not a terminal, a whole line is printed
 * every 10 s; force 1 (a case starts): if none was printed in the last
 * second; force 2 (a correction of the line just printed: the case's
 * resolved values): at once. Returns 1 when a line was drawn or printed. */
int progress_show(struct progress *p, double percent, int done, int total, const char *what, double eta_s,
                  int force);
/* The same, with the running case's elapsed time and its own ETA:
 * "... cpu_gemm m=1024 [3s, case ETA 6s]". On a terminal the run calls it
 * every second. */
int progress_show_case(struct progress *p, double percent, int done, int total, const char *what, double eta_s,
                       double case_elapsed_s, double case_eta_s, int force);
/* Clear the line (tty) so that other output can be printed. */
void progress_clear(struct progress *p);

/* "12s", "2m", "1h05m", "-" for unknown (negative or NaN), ">99999h" for
 * anything longer (infinity included). */
void format_eta(double s, char *out, unsigned len);

#endif
