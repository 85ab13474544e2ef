/* A plugin for the bench ab tests, built several times from this one
 * source: a spin kernel whose work is scaled at build time (AB_SCALE, e.g.
 * 1.30 for a planted 30% slowdown), with optional faults: AB_WRONG (its
 * self-check fails), AB_CRASH_WORKER (the N-th process to set the case up
 * crashes at its first run() call, the processes counted in the file named
 * by the environment's AB_CRASH_STATE: bench ab's first worker pair
 * measures, a later one dies mid-run), AB_EXTRA (one more case, n = 3000, in every
 * tier's default). Operation "none": verify() checks the result itself.
 * With AB_LAYOUT_LOG in the environment, each setup appends a line to that
 * file: the addresses of its code, of a stack variable and of a 1 MiB
 * buffer, so a test can see where each worker's layout put them.
 * AB_FDS: each setup writes a command of bench ab's protocol ("V", verify
 * and end) and a forged result line on every descriptor from 3 to 1023 it
 * holds: a worker that inherited the other side's channel or log would
 * end that side's worker or forge its output. */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/plugin.h"

#ifndef AB_NAME
#define AB_NAME "ab_spin"
#endif
#ifndef AB_SCALE
#define AB_SCALE 1.0
#endif

struct st {
  int64_t iters;
  uint64_t x, expect;
  long runs;
  int crash;
};

static uint64_t spin(int64_t n) {
  uint64_t x = 1;
  for (int64_t i = 0; i < n; i++) x = x * 6364136223846793005ull + 1442695040888963407ull;
  return x;
}

static int setup(const struct bench_host *host, void *ctx, void **state) {
  (void)ctx;
  struct st *s = calloc(1, sizeof *s);
  if (!s) return host->fail(host, "out of memory");
  s->iters = (int64_t)((double)host->param_int(host, "n") * AB_SCALE);
  s->expect = spin(s->iters);
  const char *layout = getenv("AB_LAYOUT_LOG");
  if (layout) {
    int here = 0;
    char line[128], *big = malloc(1 << 20); /* a buffer of its own mapping, as a kernel's would be */
    int len = snprintf(line, sizeof line, "code=%" PRIxPTR " stack=%" PRIxPTR " buffer=%" PRIxPTR "\n",
                       (uintptr_t)&spin, (uintptr_t)&here, (uintptr_t)big);
    free(big);
    int fd = open(layout, O_WRONLY | O_CREAT | O_APPEND, 0600);
    if (fd >= 0 && write(fd, line, (size_t)len) != len) here = -1;
    if (fd >= 0) close(fd);
  }
#ifdef AB_FDS
  static const char forged[] = "{\"status\":\"CRASH\",\"message\":\"forged by the other side\"}\n";
  for (int fd = 3; fd < 1024; fd++) {
    if (write(fd, "V", 1) < 0) continue;
    if (write(fd, forged, sizeof forged - 1) < 0) continue;
  }
#endif
#ifdef AB_CRASH_WORKER
  const char *path = getenv("AB_CRASH_STATE");
  int fd = path ? open(path, O_WRONLY | O_CREAT | O_APPEND, 0600) : -1;
  struct stat st;
  if (fd >= 0 && write(fd, "w", 1) == 1 && fstat(fd, &st) == 0 && st.st_size == AB_CRASH_WORKER) s->crash = 1;
  if (fd >= 0) close(fd);
#endif
  *state = s;
  return BENCH_OK;
}

static int run(const struct bench_host *host, void *state) {
  (void)host;
  struct st *s = state;
  s->runs++;
  if (s->crash) raise(SIGSEGV);
  s->x = spin(s->iters);
  return BENCH_OK;
}

static int verify(const struct bench_host *host, void *state) {
  struct st *s = state;
#ifdef AB_WRONG
  s->x ^= 1;
#endif
  if (s->x != s->expect) return host->fail(host, "spin result %llu, expected %llu",
                                           (unsigned long long)s->x, (unsigned long long)s->expect);
  return BENCH_OK;
}

static void teardown(const struct bench_host *host, void *state) {
  (void)host;
  free(state);
}

#ifdef AB_EXTRA
#define AB_DEFAULT "20000,3000"
#else
#define AB_DEFAULT "20000"
#endif

static const struct bench_param params[] = {
    {.name = "n", .type = BENCH_PARAM_INT, .description = "spin iterations", .min = 1,
     .max = 1000000000, .defaults = {AB_DEFAULT, AB_DEFAULT, AB_DEFAULT, AB_DEFAULT}},
    {.name = NULL},
};

BENCH_PLUGIN_DEFINE = {
    .abi_version = BENCH_ABI_VERSION,
    .name = AB_NAME,
    .backend = "cpu",
    .operation = "none",
    .description = "bench ab test plugin: a spin loop scaled at build time",
    .params = params,
    .setup = setup,
    .run = run,
    .verify = verify,
    .teardown = teardown,
};
