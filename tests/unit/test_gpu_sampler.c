/* The per-case GPU sampler (harness/src/machine/gpu_sampler.c) against the
 * stand-in NVML of tests/fixtures/gpu: the program re-executes itself with
 * LD_LIBRARY_PATH at the stand-in's folder (the dynamic loader reads it
 * only when a process starts) and FAKE_GPU_SCRIPT at a script whose values
 * change per reading, so every check counts readings, not time. */
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gpu_sampler.h"
#include "test.h"

static const char script[] =
    "bus0=0000:3b:00.0 sm_clock=1980 power=300 throttle=none\n"
    "from=1 sm_clock=1080 power=700 throttle=sw_power_cap\n"
    "from=3 sm_clock=1500 power=500 throttle=none\n";

static struct gpu_telemetry *lib;

static void bad_device(void) {
  char err[128] = "";
  CHECK(gpu_sampler_start(lib, 5, 50, err, sizeof err) == NULL);
  CHECK_STR(err, "gpu sampler: no device 5");
  CHECK(gpu_sampler_start(lib, -1, 50, err, sizeof err) == NULL);
  gpu_sampler_stop(NULL, NULL); /* nothing */
}

/* With a period of a second, the readings of a short test are the start's,
 * read_now's and the stop's: 0, 1, 2 of the script. */
static void start_read_now_stop(void) {
  char err[128] = "";
  struct gpu_sampler *s = gpu_sampler_start(lib, 0, GPU_SAMPLER_MAX_MS, err, sizeof err);
  REQUIRE(s != NULL);
  struct gpu_reading r;
  CHECK(gpu_sampler_latest(s, &r) == 1); /* the start's reading, there at once */
  CHECK(r.sm_clock_mhz.have && r.sm_clock_mhz.v == 1980);
  gpu_sampler_read_now(s, &r);
  CHECK(r.sm_clock_mhz.v == 1080 && r.throttle.have && r.throttle.v == GPU_THR_SW_POWER_CAP);
  struct gpu_reading l;
  CHECK(gpu_sampler_latest(s, &l) == 2);
  CHECK(l.sm_clock_mhz.v == 1080 && l.power_w.v == 700);
  struct gpu_accum a;
  gpu_sampler_stop(s, &a);
  CHECK(a.samples == 3); /* start, read_now, stop */
  CHECK(a.sm_clock_mhz.n == 3 && a.sm_clock_mhz.min == 1080 && a.sm_clock_mhz.max == 1980);
  CHECK(a.power_w.max == 700);
  CHECK(a.have_throttle && a.throttle == GPU_THR_SW_POWER_CAP);
}

/* The thread reads on its own: wait (bounded) until it has, then stop. */
static void thread_reads(void) {
  char err[128] = "";
  struct gpu_sampler *s = gpu_sampler_start(lib, 0, 1 /* below the minimum: 10 ms */, err, sizeof err);
  REQUIRE(s != NULL);
  struct gpu_reading r;
  uint64_t seq = gpu_sampler_latest(s, &r);
  CHECK(seq == 1);
  struct timespec t0, now, nap = {0, 1000000};
  clock_gettime(CLOCK_MONOTONIC, &t0);
  do {
    nanosleep(&nap, NULL);
    seq = gpu_sampler_latest(s, &r);
    clock_gettime(CLOCK_MONOTONIC, &now);
  } while (seq < 4 && now.tv_sec - t0.tv_sec < 60);
  CHECK(seq >= 4); /* three readings the thread took */
  struct gpu_accum a;
  gpu_sampler_stop(s, &a);
  CHECK(a.samples >= seq + 1); /* and the stop's */
  CHECK(a.sm_clock_mhz.n == a.samples);
}

int main(int argc, char **argv) {
  if (argc == 2 && strcmp(argv[1], "run") == 0) {
    char note[512] = "";
    lib = gpu_telemetry_open(note, sizeof note);
    if (!lib) {
      fprintf(stderr, "open: %s\n", note);
      return 1;
    }
    static const struct test_entry tests[] = {TEST_ENTRY(bad_device), TEST_ENTRY(start_read_now_stop),
                                              TEST_ENTRY(thread_reads)};
    int rc = test_run_all(tests, sizeof tests / sizeof *tests);
    gpu_telemetry_close(lib);
    return rc;
  }
  /* Each run of the tests gets the script from its start (a fresh process:
   * the stand-in counts readings per process). */
  char path[256];
  snprintf(path, sizeof path, "%s/bench-sampler-script.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
  int fd = mkstemp(path);
  if (fd < 0 || write(fd, script, strlen(script)) != (ssize_t)strlen(script)) return 1;
  close(fd);
  char self[4096];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) return 1;
  self[n] = 0;
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  if (pid == 0) {
    setenv("LD_LIBRARY_PATH", FAKE_GPU_DIR "/fake_nvml", 1);
    setenv("FAKE_GPU_SCRIPT", path, 1);
    execl(self, self, "run", (char *)NULL);
    _exit(127);
  }
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) != pid) status = -1;
  unlink(path);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
