/* The run's ETA: how long the cases not yet finished will take, from the
 * wall time of the finished cases of the same plugin (a vk_gemm case that
 * took 9 s says more about the next vk_gemm case than the run's mean),
 * else of the run, else the preset's guess; and smoothed so that a steady
 * run's ETA does not jump between two redraws. */
#ifndef BENCH_ETA_H
#define BENCH_ETA_H

#include <stddef.h>

/* Never more than this factor up or down between two ETAs shown. */
#define ETA_MAX_STEP 1.5

struct eta {
  size_t ncases, nplugins;
  size_t *plugin_of;  /* per case, its plugin's index */
  double guess;       /* a case's length before any has finished */
  double *wall;       /* per plugin: wall time of its finished cases */
  int *done;          /* per plugin: how many finished */
  double done_wall;   /* all finished cases */
  int ndone;
  size_t cur;         /* the case running now */
  int running;
  double last;        /* the last ETA given, < 0: none yet */
};

/* plugin_of (copied): the plugin of each of the ncases cases, in run order. */
void eta_init(struct eta *e, const size_t *plugin_of, size_t ncases, size_t nplugins, double guess_s);
void eta_release(struct eta *e);

void eta_begin(struct eta *e, size_t case_index);
void eta_end(struct eta *e, size_t case_index, double wall_s);

/* What a case of plugin pi is expected to last. */
double eta_case_expected(const struct eta *e, size_t pi);

/* The seconds left in the run, elapsed_s into the case running now,
 * smoothed (ETA_MAX_STEP from the last value given). */
double eta_suite(struct eta *e, double elapsed_s);

#endif
