/* The GPU telemetry reader (harness/src/machine/gpu_telemetry.c) against the
 * stand-in libraries of tests/fixtures/gpu: each scenario runs in a fresh
 * copy of this program (re-executed with LD_LIBRARY_PATH at the stand-in's
 * folder and FAKE_GPU_SCRIPT at its script), since the dynamic loader reads
 * LD_LIBRARY_PATH only when a process starts. Bus ids and throttle names
 * need no library and run here. */
#include <dlfcn.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gpu_telemetry.h"
#include "test.h"

#define NVML FAKE_GPU_DIR "/fake_nvml"
#define NVML_NOTHROTTLE FAKE_GPU_DIR "/fake_nvml_nothrottle"
/* NVML first (its init failing), so that a real NVML cannot answer. */
#define RSMI FAKE_GPU_DIR "/fake_nvml:" FAKE_GPU_DIR "/fake_rsmi"
#define NONE FAKE_GPU_DIR "/fake_gpu_none"

static struct gpu_telemetry *open_or_fail(void) {
  char note[512] = "";
  struct gpu_telemetry *t = gpu_telemetry_open(note, sizeof note);
  if (!t) fprintf(stderr, "open: %s\n", note);
  return t;
}

/* n readings of device i folded into a. */
static void read_n(struct gpu_telemetry *t, int i, int n, struct gpu_accum *a, struct gpu_reading *all) {
  gpu_accum_init(a);
  for (int k = 0; k < n; k++) {
    CHECK(gpu_telemetry_read(t, i, &all[k]) == 0);
    gpu_accum_add(a, &all[k]);
  }
}

static const char *names(unsigned bits) {
  static char buf[128];
  gpu_throttle_names(bits, buf, sizeof buf);
  return buf;
}

/* ---- scenarios (each in its own process) ---- */

static const char steady_script[] =
    "name=Fake_H100 driver=580.65 devices=2 bus0=00000000:3B:00.0 bus1=00000000:86:00.0\n"
    "max_sm=1980 base_sm=1755 max_mem=2619 limit=700 persistence=1 compute_mode=3\n"
    "sm_clock=1980 mem_clock=2619 power=350 temp=60 mem_temp=70 throttle=none power_ns=1000 others=0\n";

static void steady(void) {
  struct gpu_telemetry *t = open_or_fail();
  REQUIRE(t != NULL);
  CHECK_STR(gpu_telemetry_library(t), "nvml");
  CHECK_STR(gpu_telemetry_gaps(t), "");
  CHECK(gpu_telemetry_count(t) == 2);
  CHECK(gpu_telemetry_find(t, "0000:86:00.0") == 1);
  CHECK(gpu_telemetry_find(t, "00000000:3B:00.0") == 0);
  CHECK(gpu_telemetry_find(t, "3b:00.0") == 0);
  CHECK(gpu_telemetry_find(t, "0000:87:00.0") == -1);
  CHECK(gpu_telemetry_find(t, "1") == 1);
  CHECK(gpu_telemetry_find(t, "2") == -1);
  struct gpu_facts f;
  CHECK(gpu_telemetry_facts(t, 2, &f) == -1);
  REQUIRE(gpu_telemetry_facts(t, 0, &f) == 0);
  CHECK_STR(f.name, "Fake_H100");
  CHECK_STR(f.driver, "580.65");
  CHECK_STR(f.bus_id, "0000:3b:00.0");
  CHECK(f.base_sm_clock_mhz.have && f.base_sm_clock_mhz.v == 1755);
  CHECK(f.max_sm_clock_mhz.have && f.max_sm_clock_mhz.v == 1980);
  CHECK(f.max_mem_clock_mhz.have && f.max_mem_clock_mhz.v == 2619);
  CHECK(f.power_limit_w.have && f.power_limit_w.v == 700);
  CHECK(f.persistence.have && f.persistence.v == 1);
  CHECK(f.compute_mode.have && f.compute_mode.v == 3);
  CHECK(f.app_clocks_set.have && f.app_clocks_set.v == 0);

  struct gpu_reading r[5];
  struct gpu_accum a;
  read_n(t, 0, 5, &a, r);
  CHECK(r[4].sm_clock_mhz.have && r[4].sm_clock_mhz.v == 1980);
  CHECK(r[4].mem_clock_mhz.have && r[4].mem_clock_mhz.v == 2619);
  CHECK(r[4].power_w.have && r[4].power_w.v == 350);
  CHECK(r[4].temp_c.have && r[4].temp_c.v == 60);
  CHECK(r[4].mem_temp_c.have && r[4].mem_temp_c.v == 70);
  CHECK(r[4].throttle.have && r[4].throttle.v == 0);
  CHECK(r[4].throttle_ns[GPU_THR_TIME_POWER].have && r[4].throttle_ns[GPU_THR_TIME_POWER].v == 1000);
  CHECK(r[4].other_procs.have && r[4].other_procs.v == 0);
  CHECK(a.samples == 5);
  CHECK(gpu_stat_mean(&a.sm_clock_mhz).v == 1980 && gpu_stat_min(&a.sm_clock_mhz).v == 1980);
  CHECK(gpu_stat_max(&a.sm_clock_mhz).v == 1980 && a.sm_clock_mhz.n == 5);
  CHECK(gpu_stat_mean(&a.power_w).have && gpu_stat_mean(&a.power_w).v == 350);
  CHECK(gpu_stat_max(&a.temp_c).v == 60 && gpu_stat_max(&a.mem_temp_c).v == 70);
  CHECK(a.have_throttle && a.throttle == 0);
  struct gpu_value d = gpu_accum_throttle_ns(&a, GPU_THR_TIME_POWER);
  CHECK(d.have && d.v == 0);
  CHECK(gpu_stat_max(&a.other_procs).have && gpu_stat_max(&a.other_procs).v == 0);
  REQUIRE(gpu_telemetry_facts(t, 1, &f) == 0);
  CHECK_STR(f.bus_id, "0000:86:00.0");
  gpu_telemetry_close(t);
}

static const char power_cap_script[] =
    "sm_clock=1980 power=400 throttle=none power_ns=5000\n"
    "from=3 sm_clock=1410 power=700 throttle=sw_power_cap others=1\n"
    "from=4 power_ns=25000\n"
    "from=5 power_ns=65000\n";

static void power_cap(void) {
  struct gpu_telemetry *t = open_or_fail();
  REQUIRE(t != NULL);
  struct gpu_reading r[6];
  struct gpu_accum a;
  read_n(t, 0, 6, &a, r);
  CHECK(r[2].throttle.have && r[2].throttle.v == 0 && r[2].sm_clock_mhz.v == 1980);
  CHECK(r[3].throttle.have && (unsigned)r[3].throttle.v == GPU_THR_SW_POWER_CAP);
  CHECK(r[3].sm_clock_mhz.v == 1410 && r[3].power_w.v == 700);
  CHECK(r[2].other_procs.v == 0 && r[3].other_procs.v == 1);
  CHECK_STR(names(a.throttle), "sw_power_cap");
  CHECK_NEAR(gpu_stat_mean(&a.sm_clock_mhz).v, 1695, 1e-9);
  CHECK(gpu_stat_min(&a.sm_clock_mhz).v == 1410 && gpu_stat_max(&a.sm_clock_mhz).v == 1980);
  CHECK_NEAR(gpu_stat_mean(&a.power_w).v, 550, 1e-9);
  CHECK(gpu_stat_max(&a.power_w).v == 700);
  struct gpu_value d = gpu_accum_throttle_ns(&a, GPU_THR_TIME_POWER);
  CHECK(d.have && d.v == 60000);
  d = gpu_accum_throttle_ns(&a, GPU_THR_TIME_THERMAL);
  CHECK(d.have && d.v == 0);
  CHECK(gpu_stat_max(&a.other_procs).v == 1);
  gpu_telemetry_close(t);
}

static const char thermal_script[] =
    "sm_clock=1980 temp=70 throttle=none thermal_ns=0\n"
    "from=2 sm_clock=1600 temp=92 throttle=sw_thermal thermal_ns=1000000\n"
    "from=4 sm_clock=1200 temp=97 throttle=sw_thermal,hw_thermal thermal_ns=3000000\n";

static void thermal(void) {
  struct gpu_telemetry *t = open_or_fail();
  REQUIRE(t != NULL);
  struct gpu_reading r[5];
  struct gpu_accum a;
  read_n(t, 0, 5, &a, r);
  CHECK((unsigned)r[2].throttle.v == GPU_THR_SW_THERMAL);
  CHECK_STR(names(a.throttle), "sw_thermal,hw_thermal");
  CHECK(gpu_stat_max(&a.temp_c).v == 97 && gpu_stat_min(&a.temp_c).v == 70);
  CHECK(gpu_stat_min(&a.sm_clock_mhz).v == 1200);
  CHECK_NEAR(gpu_stat_mean(&a.sm_clock_mhz).v, (2 * 1980 + 2 * 1600 + 1200) / 5.0, 1e-9);
  struct gpu_value d = gpu_accum_throttle_ns(&a, GPU_THR_TIME_THERMAL);
  CHECK(d.have && d.v == 3000000);
  gpu_telemetry_close(t);
}

/* The NVML without the throttle-reason and field-value calls. */
static void missing_symbol(void) {
  struct gpu_telemetry *t = open_or_fail();
  REQUIRE(t != NULL);
  CHECK(strstr(gpu_telemetry_gaps(t), "nvml: no throttle reasons") != NULL);
  struct gpu_reading r[2];
  struct gpu_accum a;
  read_n(t, 0, 2, &a, r);
  CHECK(r[1].sm_clock_mhz.have && r[1].sm_clock_mhz.v == 1980);
  CHECK(r[1].power_w.have && r[1].temp_c.have && r[1].other_procs.have);
  CHECK(!r[1].throttle.have && !r[1].mem_temp_c.have);
  for (int i = 0; i < GPU_THR_TIMES; i++) CHECK(!r[1].throttle_ns[i].have);
  CHECK(!a.have_throttle && a.mem_temp_c.n == 0 && !gpu_stat_max(&a.mem_temp_c).have);
  CHECK(!gpu_accum_throttle_ns(&a, GPU_THR_TIME_POWER).have);
  gpu_telemetry_close(t);
}

static void init_failure(void) {
  char note[512] = "";
  struct gpu_telemetry *t = gpu_telemetry_open(note, sizeof note);
  CHECK(t == NULL);
  gpu_telemetry_close(t);
  CHECK_STR(note, "no NVIDIA or AMD management library: libnvidia-ml.so.1: nvmlInit failed: Unknown Error (999); "
                  "librocm_smi64.so: rsmi_init failed (8)");
}

static const char absurd_script[] =
    "sm_clock=1000000000 mem_clock=20000 power=20000 temp=250 mem_temp=nan throttle=0x10000\n"
    "from=1 sm_clock=1500 mem_clock=2000 power=300 temp=50 mem_temp=60 throttle=none\n";

static void absurd(void) {
  struct gpu_telemetry *t = open_or_fail();
  REQUIRE(t != NULL);
  struct gpu_reading r[2];
  struct gpu_accum a;
  read_n(t, 0, 2, &a, r);
  CHECK(!r[0].sm_clock_mhz.have && !r[0].mem_clock_mhz.have && !r[0].power_w.have);
  CHECK(!r[0].temp_c.have && !r[0].mem_temp_c.have);
  CHECK(r[0].throttle.have && (unsigned)r[0].throttle.v == GPU_THR_OTHER);
  CHECK(r[1].sm_clock_mhz.have && r[1].sm_clock_mhz.v == 1500 && r[1].mem_temp_c.v == 60);
  CHECK(a.samples == 2 && a.sm_clock_mhz.n == 1 && a.mem_temp_c.n == 1);
  CHECK(gpu_stat_max(&a.sm_clock_mhz).v == 1500 && gpu_stat_max(&a.power_w).v == 300);
  CHECK(gpu_stat_max(&a.temp_c).v == 50 && gpu_stat_mean(&a.mem_clock_mhz).v == 2000);
  CHECK_STR(names(a.throttle), "other");
  gpu_telemetry_close(t);
}

static const char rsmi_script[] =
    "nvml_init=fail name=Fake_MI300X driver=6.8.5 devices=2 bus0=0000:03:00.0 bus1=0001:c3:1f.7\n"
    "sm_clock=2100 max_sm=2100 mem_clock=1300 max_mem=1300 power=550 limit=750 temp=55 mem_temp=65\n"
    "others=2 others_dev=1\n";

static void rsmi(void) {
  struct gpu_telemetry *t = open_or_fail();
  REQUIRE(t != NULL);
  CHECK_STR(gpu_telemetry_library(t), "rocm_smi");
  CHECK_STR(gpu_telemetry_gaps(t), "rocm_smi: no throttle reasons or throttle time");
  CHECK(gpu_telemetry_count(t) == 2);
  CHECK(gpu_telemetry_find(t, "0001:c3:1f.7") == 1);
  CHECK(gpu_telemetry_find(t, "00000001:C3:1F.7") == 1);
  CHECK(gpu_telemetry_find(t, "0000:03:00.0") == 0);
  CHECK(gpu_telemetry_find(t, "0000:c3:1f.7") == -1);
  struct gpu_facts f;
  REQUIRE(gpu_telemetry_facts(t, 1, &f) == 0);
  CHECK_STR(f.bus_id, "0001:c3:1f.7");
  CHECK_STR(f.name, "Fake_MI300X");
  CHECK_STR(f.driver, "6.8.5");
  CHECK(f.max_sm_clock_mhz.have && f.max_sm_clock_mhz.v == 2100);
  CHECK(f.max_mem_clock_mhz.have && f.max_mem_clock_mhz.v == 1300);
  CHECK(f.power_limit_w.have && f.power_limit_w.v == 750);
  CHECK(!f.base_sm_clock_mhz.have && !f.persistence.have && !f.compute_mode.have && !f.app_clocks_set.have);
  struct gpu_reading r[3];
  struct gpu_accum a;
  read_n(t, 1, 3, &a, r);
  CHECK(r[2].sm_clock_mhz.have && r[2].sm_clock_mhz.v == 2100);
  CHECK(r[2].mem_clock_mhz.have && r[2].mem_clock_mhz.v == 1300);
  CHECK(r[2].power_w.have && r[2].power_w.v == 550);
  CHECK(r[2].temp_c.have && r[2].temp_c.v == 55 && r[2].mem_temp_c.v == 65);
  CHECK(!r[2].throttle.have && !r[2].throttle_ns[0].have);
  CHECK(r[2].other_procs.have && r[2].other_procs.v == 2);
  CHECK(gpu_telemetry_read(t, 0, &r[0]) == 0 && r[0].other_procs.have && r[0].other_procs.v == 0);
  CHECK(a.samples == 3 && gpu_stat_mean(&a.power_w).v == 550 && !a.have_throttle);
  gpu_telemetry_close(t);
}

static const char rsmi_absurd_script[] = "nvml_init=fail temp=-300 mem_temp=250 sm_clock=20000\n";

static void rsmi_absurd(void) {
  struct gpu_telemetry *t = open_or_fail();
  REQUIRE(t != NULL);
  struct gpu_reading r;
  REQUIRE(gpu_telemetry_read(t, 0, &r) == 0);
  CHECK(!r.temp_c.have && !r.mem_temp_c.have && !r.sm_clock_mhz.have);
  CHECK(r.power_w.have && r.power_w.v == 550 && r.mem_clock_mhz.v == 1300);
  CHECK(r.other_procs.have && r.other_procs.v == 0);
  gpu_telemetry_close(t);
}

/* No library in LD_LIBRARY_PATH. Where this machine has one installed
 * (FAKE_SYSTEM_GPU_LIB=nvml or rsmi, found before the scenario started), it
 * is the one that answers: with ROCm SMI only, NVML's half of the note is
 * still checked (or ROCm SMI opened); with NVML, only that nothing crashed. */
static void no_library(void) {
  char note[512] = "";
  const char *sys = getenv("FAKE_SYSTEM_GPU_LIB");
  struct gpu_telemetry *t = gpu_telemetry_open(note, sizeof note);
  if (sys && strcmp(sys, "nvml") == 0) {
    fprintf(stderr, "this machine has NVML: %s\n", t ? gpu_telemetry_library(t) : note);
    CHECK(t != NULL || strncmp(note, "no NVIDIA or AMD management library: ", 37) == 0);
  } else if (sys) {
    fprintf(stderr, "this machine has ROCm SMI: %s\n", t ? gpu_telemetry_library(t) : note);
    CHECK(t ? strcmp(gpu_telemetry_library(t), "rocm_smi") == 0
            : strncmp(note, "no NVIDIA or AMD management library: libnvidia-ml.so.1: cannot open", 67) == 0 &&
                  strstr(note, "; librocm_smi64.so") != NULL);
  } else {
    CHECK(t == NULL);
    CHECK(strncmp(note, "no NVIDIA or AMD management library: libnvidia-ml.so.1: cannot open", 67) == 0);
    CHECK(strstr(note, "; librocm_smi64.so: cannot open") != NULL);
  }
  gpu_telemetry_close(t);
}

/* ---- no library needed ---- */

static void bus_ids(void) {
  char out[GPU_BUS_ID_LEN];
  CHECK(gpu_bus_id_normalise("00000000:3B:00.0", out) == 0);
  CHECK_STR(out, "0000:3b:00.0");
  CHECK(gpu_bus_id_normalise("0000:3b:00.0", out) == 0);
  CHECK_STR(out, "0000:3b:00.0");
  CHECK(gpu_bus_id_normalise("c3:1f.7", out) == 0);
  CHECK_STR(out, "0000:c3:1f.7");
  CHECK(gpu_bus_id_normalise("0000:3b:00", out) == -1);
  CHECK(gpu_bus_id_normalise("0000:3b:00.0x", out) == -1);
  CHECK(gpu_bus_id_normalise("0000:3b:20.0", out) == -1);
  CHECK(gpu_bus_id_normalise("gpu0", out) == -1);
}

static void throttle_names(void) {
  CHECK_STR(names(0), "");
  CHECK_STR(names(GPU_THR_SW_POWER_CAP | GPU_THR_HW_THERMAL), "sw_power_cap,hw_thermal");
  CHECK_STR(names(GPU_THR_GPU_IDLE | GPU_THR_APP_CLOCKS | GPU_THR_HW_SLOWDOWN | GPU_THR_SYNC_BOOST),
            "gpu_idle,app_clocks,hw_slowdown,sync_boost");
  CHECK_STR(names(GPU_THR_SW_THERMAL | GPU_THR_HW_POWER_BRAKE | GPU_THR_DISPLAY_CLOCKS),
            "sw_thermal,hw_power_brake,display_clocks");
  char small[8];
  int need = gpu_throttle_names(GPU_THR_SW_POWER_CAP | GPU_THR_HW_THERMAL, small, sizeof small);
  CHECK(need == 23);
  CHECK_STR(small, "sw_powe");
}

static void empty_accumulator(void) {
  struct gpu_accum a;
  gpu_accum_init(&a);
  CHECK(a.samples == 0 && !gpu_stat_mean(&a.sm_clock_mhz).have && !gpu_stat_max(&a.power_w).have);
  CHECK(!gpu_accum_throttle_ns(&a, GPU_THR_TIME_POWER).have && !gpu_accum_throttle_ns(&a, GPU_THR_TIMES).have);
  /* A counter that runs backwards (a driver reset) gives no delta. */
  struct gpu_reading r;
  memset(&r, 0, sizeof r);
  r.throttle_ns[GPU_THR_TIME_POWER].have = 1;
  r.throttle_ns[GPU_THR_TIME_POWER].v = 500;
  gpu_accum_add(&a, &r);
  r.throttle_ns[GPU_THR_TIME_POWER].v = 100;
  gpu_accum_add(&a, &r);
  CHECK(a.samples == 2 && !gpu_accum_throttle_ns(&a, GPU_THR_TIME_POWER).have);
}

struct scenario {
  const char *name, *dirs, *script;
  test_fn fn;
};
static const struct scenario scenarios[] = {
    {"steady", NVML, steady_script, steady},
    {"power_cap", NVML, power_cap_script, power_cap},
    {"thermal", NVML, thermal_script, thermal},
    {"missing_symbol", NVML_NOTHROTTLE, "", missing_symbol},
    {"init_failure", RSMI, "init=fail\n", init_failure},
    {"absurd", NVML, absurd_script, absurd},
    {"rsmi", RSMI, rsmi_script, rsmi},
    {"rsmi_absurd", RSMI, rsmi_absurd_script, rsmi_absurd},
    {"no_library", NONE, "", no_library},
};
enum { N_SCENARIOS = sizeof scenarios / sizeof scenarios[0] };

/* "nvml" or "rsmi" when this machine has that library installed, else NULL. */
static const char *system_library(void) {
  static const char *const libs[] = {"libnvidia-ml.so.1", "librocm_smi64.so", "librocm_smi64.so.1",
                                     "librocm_smi64.so.5"};
  for (size_t i = 0; i < sizeof libs / sizeof *libs; i++) {
    void *h = dlopen(libs[i], RTLD_LAZY | RTLD_LOCAL);
    if (h) {
      dlclose(h);
      return i == 0 ? "nvml" : "rsmi";
    }
  }
  return NULL;
}

/* Runs scenario s in a fresh process; 0 when it passed. */
static int run_scenario(const char *self, const struct scenario *s, const char *system_lib) {
  char path[256];
  snprintf(path, sizeof path, "%s/bench-gpu-script.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
  int fd = mkstemp(path);
  if (fd < 0 || write(fd, s->script, strlen(s->script)) != (ssize_t)strlen(s->script)) return -1;
  close(fd);
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  if (pid == 0) {
    setenv("LD_LIBRARY_PATH", s->dirs, 1);
    setenv("FAKE_GPU_SCRIPT", path, 1);
    if (system_lib) setenv("FAKE_SYSTEM_GPU_LIB", system_lib, 1);
    execl(self, self, s->name, (char *)NULL);
    _exit(127);
  }
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) != pid) status = -1;
  unlink(path);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

int main(int argc, char **argv) {
  if (argc == 2) {
    for (int i = 0; i < N_SCENARIOS; i++) {
      if (strcmp(argv[1], scenarios[i].name) != 0) continue;
      struct test_entry e = {scenarios[i].name, scenarios[i].fn};
      return test_run_all(&e, 1);
    }
    fprintf(stderr, "no scenario %s\n", argv[1]);
    return 2;
  }
  static const struct test_entry local[] = {TEST_ENTRY(bus_ids), TEST_ENTRY(throttle_names),
                                            TEST_ENTRY(empty_accumulator)};
  int failed = test_run_all(local, sizeof local / sizeof *local);
  const char *system_lib = system_library();
  char self[4096];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) return 1;
  self[n] = 0;
  for (int i = 0; i < N_SCENARIOS; i++) {
    int rc = run_scenario(self, &scenarios[i], system_lib);
    printf("scenario %s: %s\n", scenarios[i].name, rc == 0 ? "passed" : "FAILED");
    failed |= rc != 0;
  }
  return failed ? 1 : 0;
}
