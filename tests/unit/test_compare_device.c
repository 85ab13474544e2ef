/* bench compare and the GPU's telemetry (analyze/compare_case.h): a
 * device-timed case is classed device-steady or device-busy from its
 * telemetry, a steady GPU takes its backend's GPU figure (backends.c), a
 * throttled side is never FASTER, SLOWER or SAME. The sides are built here
 * as case_result structs with deterministic samples: a standard run's 50
 * device samples spread 0.3% (lognormal), timed for 0.2 s. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/compare_case.h"
#include "analyze/compare_stats.h"
#include "core/util.h"
#include "test.h"

#define NS 50          /* samples a side: a standard run's 40-60 */
#define LEVEL 100000.0 /* 100 us per iteration */
#define BATCH 40       /* 50 x 40 x 100 us: 0.2 s timed */

/* A standard normal deviate, deterministic (an LCG, Box-Muller). */
static double normal(uint64_t *s) {
  *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
  double u = ((double)(*s >> 11) + 0.5) / 9007199254740992.0;
  *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
  double v = ((double)(*s >> 11) + 0.5) / 9007199254740992.0;
  return sqrt(-2.0 * log(u)) * cos(6.283185307179586 * v);
}

/* The telemetry of a GPU steady at clock_mhz over the case: NVML's
 * readings and the in-band clock, no throttle reason but idle, no
 * throttle time, no other process, nothing discarded. */
static struct case_telemetry *steady_gpu(double clock_mhz) {
  struct case_telemetry *t = xcalloc(1, sizeof *t);
  snprintf(t->library, sizeof t->library, "nvml");
  t->interval_ms = 50;
  t->readings = 6;
  t->sm_clock_mean = (struct gpu_value){1, clock_mhz};
  t->sm_clock_min = (struct gpu_value){1, clock_mhz - 15};
  t->sm_clock_max = (struct gpu_value){1, clock_mhz + 15};
  t->power_mean = (struct gpu_value){1, 450};
  t->power_limit = (struct gpu_value){1, 700};
  t->have_throttle = 1;
  t->throttle = GPU_THR_GPU_IDLE; /* between samples */
  for (int i = 0; i < GPU_THR_TIMES; i++) t->throttle_ns[i] = (struct gpu_value){1, 0};
  t->other_procs_max = (struct gpu_value){1, 0};
  t->default_clock_mhz = 1980;
  t->clock_samples = NS;
  t->clock_mean = clock_mhz, t->clock_min = clock_mhz - 10, t->clock_max = clock_mhz + 10;
  t->threshold = 0.75, t->reference_mhz = 1980;
  return t;
}

/* One run of a case: NS device samples around level, 0.3% lognormal
 * spread (host times 2% above), of backend, with telemetry t (owned). */
static void make_case(struct case_result *r, const char *backend, double level, uint64_t seed,
                      struct case_telemetry *t) {
  case_result_init(r);
  r->plugin = xstrdup("px");
  r->backend = xstrdup(backend);
  r->operation = xstrdup("none");
  r->status = CASE_OK;
  r->nsamples = NS;
  r->batch = BATCH;
  r->settled = 1;
  r->device_ns = xcalloc(NS, sizeof *r->device_ns);
  r->host_clock_ns = xcalloc(NS, sizeof *r->host_clock_ns);
  uint64_t s = seed * 7919 + 1;
  for (size_t i = 0; i < NS; i++) {
    r->device_ns[i] = level * exp(0.003 * normal(&s));
    r->host_clock_ns[i] = 1.02 * r->device_ns[i];
  }
  r->telemetry = t;
}

/* The verdict of one run a side (no history), each side's header steady
 * (the CPU's loop; steady_hdr NULL: not recorded). */
static enum verdict compare1(const struct case_result *o, const struct case_result *n, double threshold,
                             const struct run_steady *steady_hdr, struct case_compare *cc) {
  const struct case_result *ro = o, *rn = n;
  struct case_side so = {&ro, 1, NULL, 0, steady_hdr, NULL}, sn = {&rn, 1, NULL, 0, steady_hdr, NULL};
  compare_case_sides(&so, &sn, 0, threshold, cc);
  return cc->verdict;
}

static const struct run_steady quiet_cpu = {1, 10.0, 0.05, 0.1, 0.0, 0.0, 0.01, 0.004, 0.0};
static const struct run_steady busy_cpu = {1, 10.0, 0.05, 0.1, 0.0, 0.0, 0.01, 0.45, 0.0}; /* drift 45% */

/* Each reason the telemetry gives makes the device busy; benign ones do not. */
static void test_classify(void) {
  struct case_result r;
  make_case(&r, "cuda", LEVEL, 1, steady_gpu(1980));
  double timed = NS * BATCH * LEVEL;
  unsigned why = 99;
  CHECK(compare_device_of(&r, timed, &why) == CS_MACHINE_DEVICE_STEADY && why == 0);
  struct case_telemetry keep = *r.telemetry, *t = r.telemetry;
  t->throttle |= GPU_THR_APP_CLOCKS | GPU_THR_DISPLAY_CLOCKS | GPU_THR_SYNC_BOOST;
  CHECK(compare_device_of(&r, timed, &why) == CS_MACHINE_DEVICE_STEADY);
  static const unsigned slowing[] = {GPU_THR_SW_POWER_CAP, GPU_THR_HW_SLOWDOWN, GPU_THR_SW_THERMAL,
                                     GPU_THR_HW_THERMAL, GPU_THR_HW_POWER_BRAKE, GPU_THR_OTHER};
  for (size_t i = 0; i < sizeof slowing / sizeof slowing[0]; i++) {
    *t = keep, t->throttle |= slowing[i];
    CHECK(compare_device_of(&r, timed, &why) == CS_MACHINE_DEVICE_BUSY && why == CMP_DEV_REASONS);
  }
  *t = keep, t->have_throttle = 0, t->throttle = GPU_THR_SW_POWER_CAP; /* not reported: not judged */
  CHECK(compare_device_of(&r, timed, &why) == CS_MACHINE_DEVICE_STEADY);
  /* throttle time: 1% of the 0.2 s timed is the bound */
  *t = keep, t->throttle_ns[GPU_THR_TIME_POWER].v = 0.005 * timed;
  CHECK(compare_device_of(&r, timed, &why) == CS_MACHINE_DEVICE_STEADY);
  *t = keep, t->throttle_ns[GPU_THR_TIME_THERMAL].v = 0.02 * timed;
  CHECK(compare_device_of(&r, timed, &why) == CS_MACHINE_DEVICE_BUSY && why == CMP_DEV_THROTTLE_TIME);
  *t = keep, t->throttle_ns[GPU_THR_TIME_SYNC_BOOST].v = 0.5 * timed; /* sync boost does not slow */
  CHECK(compare_device_of(&r, timed, &why) == CS_MACHINE_DEVICE_STEADY);
  *t = keep, t->other_procs_max.v = 1;
  CHECK(compare_device_of(&r, timed, &why) == CS_MACHINE_DEVICE_BUSY && why == CMP_DEV_OTHER_PROCS);
  /* the library's clock: minimum at least 97% of the mean */
  *t = keep, t->sm_clock_min.v = 0.975 * 1980;
  CHECK(compare_device_of(&r, timed, &why) == CS_MACHINE_DEVICE_STEADY);
  *t = keep, t->sm_clock_min.v = 0.96 * 1980;
  CHECK(compare_device_of(&r, timed, &why) == CS_MACHINE_DEVICE_BUSY && why == CMP_DEV_CLOCK);
  /* the in-band clock alone (no library): the same rule */
  *t = keep, t->readings = 0, t->sm_clock_min.v = 0; /* the library's values unread */
  CHECK(compare_device_of(&r, timed, &why) == CS_MACHINE_DEVICE_STEADY);
  t->clock_min = 0.95 * t->clock_mean;
  CHECK(compare_device_of(&r, timed, &why) == CS_MACHINE_DEVICE_BUSY && why == CMP_DEV_CLOCK);
  *t = keep, t->discarded = 2;
  CHECK(compare_device_of(&r, timed, &why) == CS_MACHINE_DEVICE_BUSY && why == CMP_DEV_THROTTLED);
  *t = keep, t->throttled = 1, t->throttle |= GPU_THR_SW_POWER_CAP;
  CHECK(compare_device_of(&r, timed, &why) == CS_MACHINE_DEVICE_BUSY &&
        why == (CMP_DEV_THROTTLED | CMP_DEV_REASONS));
  /* nothing to class by: unknown (the run header decides) */
  *t = keep, t->readings = 0, t->clock_samples = 0;
  CHECK(!compare_device_known(&r));
  CHECK(compare_device_of(&r, timed, &why) == CS_MACHINE_UNKNOWN);
  free(r.telemetry), r.telemetry = NULL;
  CHECK(compare_device_of(&r, timed, &why) == CS_MACHINE_UNKNOWN);
  case_result_release(&r);
  CHECK_STR(cs_machine_name(CS_MACHINE_DEVICE_STEADY), "device-steady");
  CHECK_STR(cs_machine_name(CS_MACHINE_DEVICE_BUSY), "device-busy");
  CHECK_STR(compare_device_why_name(CMP_DEV_CLOCKS_MOVED), "clocks_moved");
}

/* The figures: the GPU one for cuda and vulkan on a steady device, the
 * CPU's steady one for hip (no GPU measurement), the busy one otherwise. */
static void test_figures(void) {
  double root = sqrt(50.0);
  CHECK_NEAR(cs_between_default_on("cuda", 50, CS_MACHINE_DEVICE_STEADY), 0.007 + 0.01 / root, 1e-15);
  CHECK_NEAR(cs_between_default_on("vulkan", 50, CS_MACHINE_DEVICE_STEADY), 0.007 + 0.01 / root, 1e-15);
  CHECK_NEAR(cs_between_default_on("hip", 50, CS_MACHINE_DEVICE_STEADY), CS_STEADY_A + CS_STEADY_B / root, 1e-15);
  CHECK_NEAR(cs_between_default_on("cpu", 50, CS_MACHINE_DEVICE_STEADY), CS_STEADY_A + CS_STEADY_B / root, 1e-15);
  CHECK(cs_backend_has_device_figure("cuda") && cs_backend_has_device_figure("vulkan"));
  CHECK(!cs_backend_has_device_figure("hip") && !cs_backend_has_device_figure("cpu"));
  CHECK(!cs_backend_has_device_figure(NULL));
  CHECK_NEAR(cs_between_default_on("cuda", 50, CS_MACHINE_DEVICE_BUSY), 0.10 + 0.20 / root, 1e-15);
  CHECK_NEAR(cs_between_default_on("cuda", 50, CS_MACHINE_STEADY), CS_STEADY_A + CS_STEADY_B / root, 1e-15);
  CHECK_NEAR(cs_between_default_on("cuda", 50, CS_MACHINE_BUSY), 0.10 + 0.20 / root, 1e-15);
  /* above the H100's 90th percentile (0.62%) for a standard run's 40-60 samples */
  for (size_t n = 40; n <= 60; n++) CHECK(cs_between_default_on("cuda", n, CS_MACHINE_DEVICE_STEADY) > 0.0062);
}

/* From one standard run a side on a steady GPU: 5% slower is SLOWER at a
 * 2% threshold; at the default 5% the interval must lie wholly above
 * 1.05, which a 5% change cannot do: NOISY there, and about 8% is SLOWER. */
static void test_gpu_resolves(void) {
  struct case_result o, n;
  make_case(&o, "cuda", LEVEL, 1, steady_gpu(1980));
  make_case(&n, "cuda", 1.05 * LEVEL, 2, steady_gpu(1975));
  struct case_compare cc;
  CHECK(compare1(&o, &n, 0.02, &busy_cpu, &cc) == V_SLOWER); /* the CPU's loop drifted: not read */
  CHECK(cc.device && cc.old_noise.machine == CS_MACHINE_DEVICE_STEADY &&
        cc.new_noise.machine == CS_MACHINE_DEVICE_STEADY);
  CHECK(cc.old_noise.term == CS_TERM_DEFAULT);
  CHECK_NEAR(cc.old_noise.sigma, 0.007 + 0.01 / sqrt(NS), 1e-12);
  CHECK(cc.c.lo > 1.02 && cc.c.lo < 1.05 && cc.c.hi > 1.05);
  CHECK(compare1(&o, &n, COMPARE_DEFAULT_THRESHOLD, &busy_cpu, &cc) == V_NOISY);
  case_result_release(&n);
  make_case(&n, "cuda", 1.08 * LEVEL, 3, steady_gpu(1980));
  CHECK(compare1(&o, &n, COMPARE_DEFAULT_THRESHOLD, NULL, &cc) == V_SLOWER);
  case_result_release(&n);
  make_case(&n, "cuda", LEVEL / 1.08, 3, steady_gpu(1980));
  CHECK(compare1(&o, &n, COMPARE_DEFAULT_THRESHOLD, NULL, &cc) == V_FASTER);
  /* vulkan takes the same figure */
  free(o.backend), o.backend = xstrdup("vulkan");
  free(n.backend), n.backend = xstrdup("vulkan");
  CHECK(compare1(&o, &n, COMPARE_DEFAULT_THRESHOLD, NULL, &cc) == V_FASTER);
  case_result_release(&o);
  case_result_release(&n);
}

/* Two runs of the same build whose levels differ by up to the H100's
 * largest run-to-run shift (3.4%): never FASTER or SLOWER at the default
 * threshold, whichever way and whatever the samples. */
static void test_same_build(void) {
  static const double shift[] = {0, 0.001, 0.003, 0.0062, 0.01, 0.02, 0.03, 0.034};
  int calls = 0, bad = 0;
  for (size_t i = 0; i < sizeof shift / sizeof shift[0]; i++)
    for (int sign = -1; sign <= 1; sign += 2)
      for (uint64_t seed = 1; seed <= 5; seed++) {
        struct case_result o, n;
        make_case(&o, "cuda", LEVEL, 10 * seed, steady_gpu(1980));
        make_case(&n, "cuda", LEVEL * (1.0 + sign * shift[i]), 10 * seed + 1, steady_gpu(1980));
        struct case_compare cc;
        enum verdict v = compare1(&o, &n, COMPARE_DEFAULT_THRESHOLD, &quiet_cpu, &cc);
        calls++;
        if (v == V_FASTER || v == V_SLOWER || cc.new_noise.machine != CS_MACHINE_DEVICE_STEADY) {
          bad++;
          fprintf(stderr, "shift %+g seed %d: %s\n", sign * shift[i], (int)seed, verdict_name(v));
        }
        /* within the 90th percentile's spread they are SAME */
        if (shift[i] <= 0.0062) CHECK(v == V_SAME);
        case_result_release(&o);
        case_result_release(&n);
      }
  CHECK(calls == 80 && bad == 0);
}

/* A busy GPU, a GPU without a figure, no telemetry or a host-timed case
 * keep today's figures: the 5% change stays NOISY at 2%. */
static void test_other_paths(void) {
  struct case_result o, n;
  struct case_compare cc;
  double root = sqrt(NS);
  /* a power cap on the new side: device-busy, the busy figure */
  make_case(&o, "cuda", LEVEL, 1, steady_gpu(1980));
  make_case(&n, "cuda", 1.05 * LEVEL, 2, steady_gpu(1980));
  n.telemetry->throttle |= GPU_THR_SW_POWER_CAP;
  CHECK(compare1(&o, &n, 0.02, &quiet_cpu, &cc) == V_NOISY);
  CHECK(cc.old_noise.machine == CS_MACHINE_DEVICE_STEADY && cc.new_noise.machine == CS_MACHINE_DEVICE_BUSY);
  CHECK(cc.new_noise.device_why == CMP_DEV_REASONS && cc.old_noise.device_why == 0);
  CHECK_NEAR(cc.new_noise.sigma, 0.10 + 0.20 / root, 1e-12);
  CHECK_NEAR(cc.old_noise.sigma, 0.007 + 0.01 / root, 1e-12);
  case_result_release(&n);
  /* both steady but 4% apart in clock: the clock moved between the runs */
  make_case(&n, "cuda", 1.05 * LEVEL, 2, steady_gpu(1900));
  CHECK(compare1(&o, &n, 0.02, &quiet_cpu, &cc) == V_NOISY);
  CHECK(cc.old_noise.machine == CS_MACHINE_DEVICE_BUSY && cc.new_noise.machine == CS_MACHINE_DEVICE_BUSY);
  CHECK(cc.old_noise.device_why == CMP_DEV_CLOCKS_MOVED && cc.new_noise.device_why == CMP_DEV_CLOCKS_MOVED);
  CHECK_NEAR(cc.old_noise.sigma, 0.10 + 0.20 / root, 1e-12);
  /* ... 1.5% apart: both still steady */
  n.telemetry->sm_clock_mean.v = 1950, n.telemetry->sm_clock_min.v = 1940;
  CHECK(compare1(&o, &n, 0.02, &quiet_cpu, &cc) == V_SLOWER);
  CHECK(cc.old_noise.machine == CS_MACHINE_DEVICE_STEADY && cc.new_noise.machine == CS_MACHINE_DEVICE_STEADY);
  /* hip: no GPU figure, a steady GPU takes the CPU's steady one */
  free(o.backend), o.backend = xstrdup("hip");
  free(n.backend), n.backend = xstrdup("hip");
  CHECK(compare1(&o, &n, 0.02, &busy_cpu, &cc) == V_NOISY);
  CHECK(cc.old_noise.machine == CS_MACHINE_DEVICE_STEADY);
  CHECK_NEAR(cc.old_noise.sigma, CS_STEADY_A + CS_STEADY_B / root, 1e-12);
  free(o.backend), o.backend = xstrdup("cuda");
  free(n.backend), n.backend = xstrdup("cuda");
  /* no telemetry: the run header's machine, as before */
  struct case_telemetry *keep_o = o.telemetry, *keep_n = n.telemetry;
  o.telemetry = n.telemetry = NULL;
  CHECK(compare1(&o, &n, 0.02, &quiet_cpu, &cc) == V_NOISY);
  CHECK(cc.old_noise.machine == CS_MACHINE_STEADY && cc.new_noise.machine == CS_MACHINE_STEADY);
  CHECK_NEAR(cc.old_noise.sigma, CS_STEADY_A + CS_STEADY_B / root, 1e-12);
  CHECK(compare1(&o, &n, 0.02, NULL, &cc) == V_NOISY);
  CHECK(cc.old_noise.machine == CS_MACHINE_UNKNOWN);
  CHECK_NEAR(cc.old_noise.sigma, 0.10 + 0.20 / root, 1e-12);
  o.telemetry = keep_o, n.telemetry = keep_n;
  /* a host-timed case (the old side has no device samples): the header's */
  free(o.device_ns), o.device_ns = NULL;
  CHECK(compare1(&o, &n, 0.02, &quiet_cpu, &cc) == V_NOISY);
  CHECK(!cc.device && cc.old_noise.machine == CS_MACHINE_STEADY && cc.new_noise.machine == CS_MACHINE_STEADY);
  case_result_release(&o);
  /* timed under 0.1 s on a steady GPU (smoke): the busy figure */
  make_case(&o, "cuda", LEVEL, 1, steady_gpu(1980));
  o.batch = 10; /* 50 ms */
  CHECK(compare1(&o, &n, 0.02, &quiet_cpu, &cc) == V_NOISY);
  CHECK(cc.old_noise.machine == CS_MACHINE_DEVICE_STEADY && cc.old_noise.brief);
  CHECK_NEAR(cc.old_noise.sigma, 0.10 + 0.20 / root, 1e-12);
  case_result_release(&o);
  case_result_release(&n);
}

/* A throttled side: NOISY whatever the interval (a clear 20% change, and
 * the same level), in compare_case_sides. */
static void test_throttled(void) {
  struct case_result o, n;
  struct case_compare cc;
  make_case(&o, "cuda", LEVEL, 1, steady_gpu(1980));
  make_case(&n, "cuda", 1.2 * LEVEL, 2, steady_gpu(1980));
  CHECK(compare1(&o, &n, 0.05, &quiet_cpu, &cc) == V_SLOWER && !cc.old_throttled && !cc.new_throttled);
  n.telemetry->throttled = 1;
  snprintf(n.telemetry->throttled_by, sizeof n.telemetry->throttled_by, "clock 1080 MHz < 75%% of 1980 MHz");
  CHECK(compare1(&o, &n, 0.05, &quiet_cpu, &cc) == V_NOISY && !cc.old_throttled && cc.new_throttled);
  CHECK(cc.new_noise.machine == CS_MACHINE_DEVICE_BUSY && cc.new_noise.device_why == CMP_DEV_THROTTLED);
  /* the rule alone: no readings to class the device by (the steady CPU's
   * figure), an interval wholly above 1.05, still NOISY */
  n.telemetry->readings = 0, n.telemetry->clock_samples = 0;
  CHECK(compare1(&o, &n, 0.05, &quiet_cpu, &cc) == V_NOISY && cc.new_throttled);
  CHECK(cc.timed && cc.c.lo > 1.05 && cc.new_noise.machine == CS_MACHINE_STEADY);
  /* old throttled, new faster */
  CHECK(compare1(&n, &o, 0.05, &quiet_cpu, &cc) == V_NOISY && cc.old_throttled && !cc.new_throttled);
  case_result_release(&n);
  /* the same level: not SAME either */
  make_case(&n, "cuda", LEVEL, 2, steady_gpu(1980));
  CHECK(compare1(&o, &n, 0.05, &quiet_cpu, &cc) == V_SAME);
  o.telemetry->throttled = 1;
  CHECK(compare1(&o, &n, 0.05, &quiet_cpu, &cc) == V_NOISY && cc.old_throttled);
  /* any run of a pooled side */
  struct case_result o2;
  make_case(&o2, "cuda", LEVEL, 3, steady_gpu(1980));
  const struct case_result *runs[2] = {&o, &o2}, *rn = &n;
  struct case_side so = {runs, 2, NULL, 0, &quiet_cpu, NULL}, sn = {&rn, 1, NULL, 0, &quiet_cpu, NULL};
  compare_case_sides(&so, &sn, 0, 0.05, &cc);
  CHECK(cc.old_throttled && cc.verdict == V_NOISY);
  /* a failure still wins */
  n.status = CASE_CRASH;
  compare_case_sides(&so, &sn, 0, 0.05, &cc);
  CHECK(cc.verdict == V_CRASH);
  case_result_release(&o);
  case_result_release(&o2);
  case_result_release(&n);
}

TEST_MAIN(TEST_ENTRY(test_classify), TEST_ENTRY(test_figures), TEST_ENTRY(test_gpu_resolves),
          TEST_ENTRY(test_same_build), TEST_ENTRY(test_other_paths), TEST_ENTRY(test_throttled))
