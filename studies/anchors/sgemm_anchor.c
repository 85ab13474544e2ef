/* Direct cblas_sgemm timing for studies/anchors.sh, outside bench: inputs
 * uniform in [-1, 1) like bench's, warm-up for WARM seconds (clocks and
 * OpenBLAS's threads settle, as bench's perf warm-up), then at least REPS
 * runs and one second; prints the median and best GFLOP/s and the core
 * OpenBLAS runs (OPENBLAS_CORETYPE in the environment forces one).
 * Usage: sgemm_anchor N THREADS REPS WARM */
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

void openblas_set_num_threads(int);
char *openblas_get_corename(void);

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  if (argc != 5) return 2;
  const int n = atoi(argv[1]), threads = atoi(argv[2]), min_reps = atoi(argv[3]);
  const double warm = atof(argv[4]);
  if (n < 1 || threads < 1 || min_reps < 1) return 2;
  int cap = 100000, reps = 0;
  openblas_set_num_threads(threads);
  float *a = malloc(sizeof(float) * (size_t)n * (size_t)n);
  float *b = malloc(sizeof(float) * (size_t)n * (size_t)n);
  float *c = malloc(sizeof(float) * (size_t)n * (size_t)n);
  double *t = malloc(sizeof(double) * (size_t)cap);
  if (!a || !b || !c || !t) return 1;
  unsigned s = 1;
  for (size_t i = 0; i < (size_t)n * (size_t)n; i++) {
    s = s * 1103515245u + 12345u;
    a[i] = (float)(s >> 8) / 8388608.0f - 1.0f;
    s = s * 1103515245u + 12345u;
    b[i] = (float)(s >> 8) / 8388608.0f - 1.0f;
  }
  const double start = now();
  do
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a, n, b, n, 0.0f, c, n);
  while (now() - start < warm);
  const double begin = now();
  while (reps < cap && (reps < min_reps || now() - begin < 1.0)) {
    double t0 = now();
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a, n, b, n, 0.0f, c, n);
    t[reps++] = now() - t0;
  }
  qsort(t, (size_t)reps, sizeof *t, cmp);
  const double flop = 2.0 * n * (double)n * n;
  printf("median_gflops %.3f best_gflops %.3f core %s\n", flop / t[reps / 2] * 1e-9,
         flop / t[0] * 1e-9, openblas_get_corename());
  free(a);
  free(b);
  free(c);
  free(t);
  return 0;
}
