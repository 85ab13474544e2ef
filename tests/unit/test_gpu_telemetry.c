/* The GPU telemetry reader (harness/src/machine/gpu_telemetry.c) against the
 * stand-in libraries of tests/fixtures/gpu and against sysfs trees it
 * writes: each scenario runs in a fresh copy of this program (re-executed
 * with LD_LIBRARY_PATH at the stand-ins' folders, FAKE_GPU_SCRIPT at its
 * script and BENCH_SYSFS_ROOT at an empty folder), since the dynamic loader
 * reads LD_LIBRARY_PATH only when a process starts. Bus ids, throttle names
 * and AMD's throttle bits need no library and run here. */
#include <dlfcn.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gpu_telemetry.h"
#include "gpu_vendor.h"
#include "test.h"

#define NVML FAKE_GPU_DIR "/fake_nvml"
#define NVML_NOTHROTTLE FAKE_GPU_DIR "/fake_nvml_nothrottle"
/* NVML first (its init failing), so that a real NVML cannot answer; AMD SMI
 * likewise before ROCm SMI. */
#define AMDSMI FAKE_GPU_DIR "/fake_nvml:" FAKE_GPU_DIR "/fake_amdsmi"
#define AMDSMI_NOMETRICS FAKE_GPU_DIR "/fake_nvml:" FAKE_GPU_DIR "/fake_amdsmi_nometrics"
#define RSMI FAKE_GPU_DIR "/fake_nvml:" FAKE_GPU_DIR "/fake_amdsmi:" FAKE_GPU_DIR "/fake_rsmi"
#define NONE FAKE_GPU_DIR "/fake_gpu_none"
/* Every library there fails (init=fail): sysfs answers. */
#define ALL RSMI

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

/* Every source fails; the libraries' own complaints on stderr (the stand-in
 * ROCm SMI and AMD SMI print one, as the real ones do) are silenced. */
static void init_failure(void) {
  char note[1024] = "", err_path[256], said[512] = "";
  snprintf(err_path, sizeof err_path, "%s/bench-gpu-stderr.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
  int err = mkstemp(err_path), saved = dup(2);
  REQUIRE(err >= 0 && saved >= 0);
  fflush(stderr);
  dup2(err, 2);
  struct gpu_telemetry *t = gpu_telemetry_open(note, sizeof note);
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  ssize_t n = pread(err, said, sizeof said - 1, 0);
  said[n > 0 ? n : 0] = 0;
  close(err);
  unlink(err_path);
  CHECK_STR(said, "");
  CHECK(t == NULL);
  gpu_telemetry_close(t);
  CHECK_STR(note, "no NVIDIA or AMD management library: libnvidia-ml.so.1: nvmlInit failed: Unknown Error (999); "
                  "libamd_smi.so: amdsmi_init failed: An error occurred when initializing internal data structures "
                  "(18); librocm_smi64.so: rsmi_init failed (8); sysfs: no amdgpu device in " FAKE_GPU_DIR
                  "/fake_gpu_none/class/drm");
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
    "nvml_init=fail amdsmi_init=fail name=Fake_MI300X driver=6.8.5 devices=2 bus0=0000:03:00.0 bus1=0001:c3:1f.7\n"
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

static const char rsmi_absurd_script[] = "nvml_init=fail amdsmi_init=fail temp=-300 mem_temp=250 sm_clock=20000\n";

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
 * (FAKE_SYSTEM_GPU_LIB=nvml, amdsmi or rsmi, found before the scenario
 * started), it is the one that answers: with an AMD library only, NVML's half
 * of the note is still checked (or the AMD library opened); with NVML, only
 * that nothing crashed. */
static void no_library(void) {
  char note[1024] = "";
  const char *sys = getenv("FAKE_SYSTEM_GPU_LIB");
  struct gpu_telemetry *t = gpu_telemetry_open(note, sizeof note);
  if (sys && strcmp(sys, "nvml") == 0) {
    fprintf(stderr, "this machine has NVML: %s\n", t ? gpu_telemetry_library(t) : note);
    CHECK(t != NULL || strncmp(note, "no NVIDIA or AMD management library: ", 37) == 0);
  } else if (sys) {
    fprintf(stderr, "this machine has an AMD library: %s\n", t ? gpu_telemetry_library(t) : note);
    CHECK(t ? strcmp(gpu_telemetry_library(t), "rocm_smi") == 0 || strcmp(gpu_telemetry_library(t), "amd_smi") == 0
            : strncmp(note, "no NVIDIA or AMD management library: libnvidia-ml.so.1: cannot open", 67) == 0 &&
                  strstr(note, "; libamd_smi.so") != NULL && strstr(note, "; librocm_smi64.so") != NULL &&
                  strstr(note, "; sysfs: no amdgpu device in ") != NULL);
  } else {
    CHECK(t == NULL);
    CHECK(strncmp(note, "no NVIDIA or AMD management library: libnvidia-ml.so.1: cannot open", 67) == 0);
    CHECK(strstr(note, "; libamd_smi.so: cannot open") != NULL);
    CHECK(strstr(note, "; librocm_smi64.so: cannot open") != NULL);
    CHECK(strstr(note, "; sysfs: no amdgpu device in ") != NULL);
  }
  gpu_telemetry_close(t);
}

/* ---- AMD SMI ---- */

static const char amdsmi_steady_script[] =
    "nvml_init=fail lib_version=24.7 name=AMD_Instinct_MI250X driver=6.8.5 devices=2\n"
    "bus0=0000:c1:00.0 bus1=0001:d1:1f.3 max_sm=1700 max_mem=1600 limit=560\n"
    "sm_clock=1700 mem_clock=1600 power=500 temp=45 hotspot=60 mem_temp=70 amd_throttle=0 others=2\n";

static void amdsmi_steady(void) {
  struct gpu_telemetry *t = open_or_fail();
  REQUIRE(t != NULL);
  CHECK_STR(gpu_telemetry_library(t), "amd_smi");
  CHECK_STR(gpu_telemetry_gaps(t), "amd_smi: no throttle time");
  CHECK(gpu_telemetry_count(t) == 2);
  CHECK(gpu_telemetry_find(t, "0001:d1:1f.3") == 1);
  CHECK(gpu_telemetry_find(t, "c1:00.0") == 0);
  struct gpu_facts f;
  REQUIRE(gpu_telemetry_facts(t, 1, &f) == 0);
  CHECK_STR(f.name, "AMD_Instinct_MI250X");
  CHECK_STR(f.driver, "6.8.5");
  CHECK_STR(f.bus_id, "0001:d1:1f.3");
  CHECK(f.max_sm_clock_mhz.have && f.max_sm_clock_mhz.v == 1700);
  CHECK(f.max_mem_clock_mhz.have && f.max_mem_clock_mhz.v == 1600);
  CHECK(f.power_limit_w.have && f.power_limit_w.v == 560);
  CHECK(!f.base_sm_clock_mhz.have && !f.persistence.have && !f.compute_mode.have && !f.app_clocks_set.have);
  struct gpu_reading r[4];
  struct gpu_accum a;
  read_n(t, 0, 4, &a, r);
  CHECK(r[3].sm_clock_mhz.have && r[3].sm_clock_mhz.v == 1700);
  CHECK(r[3].mem_clock_mhz.have && r[3].mem_clock_mhz.v == 1600);
  CHECK(r[3].power_w.have && r[3].power_w.v == 500);
  CHECK(r[3].temp_c.have && r[3].temp_c.v == 45 && r[3].mem_temp_c.have && r[3].mem_temp_c.v == 70);
  CHECK(r[3].throttle.have && r[3].throttle.v == 0);
  CHECK(r[3].other_procs.have && r[3].other_procs.v == 2);
  CHECK(r[3].nxcd == 0 && !r[3].xcd_clock_mhz[0].have);
  for (int i = 0; i < GPU_THR_TIMES; i++) CHECK(!r[3].throttle_ns[i].have);
  CHECK(a.samples == 4 && gpu_stat_mean(&a.sm_clock_mhz).v == 1700 && a.have_throttle && a.throttle == 0);
  CHECK(a.nxcd == 0);
  gpu_telemetry_close(t);
}

/* A power cap from sample 2, thermal from 4, then each class of AMD's bits. */
static const char amdsmi_throttle_script[] =
    "nvml_init=fail sm_clock=2100 power=600 temp=60 amd_throttle=0\n"
    "from=2 sm_clock=1800 power=750 amd_throttle=0x1\n"
    "from=4 sm_clock=1500 temp=95 amd_throttle=0x1000000000\n"
    "from=5 amd_throttle=0x100000000000\n"
    "from=6 amd_throttle=0x10000\n"
    "from=7 amd_throttle=0x100000000000000\n";

static void amdsmi_throttle(void) {
  struct gpu_telemetry *t = open_or_fail();
  REQUIRE(t != NULL);
  struct gpu_reading r[8];
  struct gpu_accum a;
  read_n(t, 0, 8, &a, r);
  CHECK(r[1].throttle.have && r[1].throttle.v == 0 && r[1].sm_clock_mhz.v == 2100);
  CHECK((unsigned)r[2].throttle.v == GPU_THR_SW_POWER_CAP && r[2].power_w.v == 750 && r[2].sm_clock_mhz.v == 1800);
  CHECK((unsigned)r[4].throttle.v == GPU_THR_SW_THERMAL && r[4].temp_c.v == 95);
  CHECK((unsigned)r[5].throttle.v == GPU_THR_HW_THERMAL);
  CHECK((unsigned)r[6].throttle.v == GPU_THR_HW_SLOWDOWN);
  CHECK((unsigned)r[7].throttle.v == GPU_THR_OTHER);
  CHECK_STR(names(a.throttle), "sw_power_cap,hw_slowdown,sw_thermal,hw_thermal,other");
  CHECK(gpu_stat_min(&a.sm_clock_mhz).v == 1500 && gpu_stat_max(&a.power_w).v == 750);
  gpu_telemetry_close(t);
}

/* An MI300X on AMD SMI 26.5: eight XCD clocks (slower, XCD i by 100 i MHz,
 * from the third reading: sample 3, since the facts' maximum clock is read
 * with the same call and counts as sample 0), no edge sensor, current
 * socket power, the 26.x process list. */
static const char amdsmi_xcd_script[] =
    "nvml_init=fail lib_version=26.5 name=AMD_Instinct_MI300X driver=6.12.12 no_edge=1 hotspot=80 mem_temp=66\n"
    "xcds=8 xcd_clock=2100 xcd_step=0 sm_clock=2100 power=700 amd_throttle=0 others=1\n"
    "from=3 xcd_clock=2100 xcd_step=100\n";

static void amdsmi_xcd(void) {
  struct gpu_telemetry *t = open_or_fail();
  REQUIRE(t != NULL);
  CHECK_STR(gpu_telemetry_library(t), "amd_smi");
  CHECK_STR(gpu_telemetry_gaps(t), "amd_smi: no throttle time");
  struct gpu_facts f;
  REQUIRE(gpu_telemetry_facts(t, 0, &f) == 0);
  CHECK_STR(f.name, "AMD_Instinct_MI300X");
  CHECK_STR(f.driver, "6.12.12");
  CHECK_STR(f.bus_id, "0000:30:00.0");
  struct gpu_reading r[4];
  struct gpu_accum a;
  read_n(t, 0, 4, &a, r);
  CHECK(r[0].nxcd == 8 && r[3].nxcd == 8);
  for (int i = 0; i < 8; i++) CHECK(r[0].xcd_clock_mhz[i].have && r[0].xcd_clock_mhz[i].v == 2100);
  CHECK(r[3].xcd_clock_mhz[7].have && r[3].xcd_clock_mhz[7].v == 1400 && r[3].xcd_clock_mhz[1].v == 2000);
  CHECK(r[3].temp_c.have && r[3].temp_c.v == 80 && r[3].mem_temp_c.v == 66);
  CHECK(r[3].power_w.have && r[3].power_w.v == 700);
  CHECK(r[3].other_procs.have && r[3].other_procs.v == 1);
  CHECK(a.nxcd == 8 && a.xcd_clock_mhz[7].n == 4);
  CHECK(gpu_stat_min(&a.xcd_clock_mhz[7]).v == 1400 && gpu_stat_max(&a.xcd_clock_mhz[7]).v == 2100);
  CHECK_NEAR(gpu_stat_mean(&a.xcd_clock_mhz[7]).v, 1750, 1e-9);
  CHECK(gpu_stat_mean(&a.xcd_clock_mhz[0]).v == 2100 && gpu_stat_min(&a.xcd_clock_mhz[0]).v == 2100);
  gpu_telemetry_close(t);
}

/* No amdsmi_get_gpu_metrics_info: power from amdsmi_get_power_info, no
 * throttle reasons or XCD clocks. */
static void amdsmi_missing_symbol(void) {
  struct gpu_telemetry *t = open_or_fail();
  REQUIRE(t != NULL);
  CHECK(strstr(gpu_telemetry_gaps(t), "amd_smi: no gpu_metrics") != NULL);
  struct gpu_reading r[2];
  struct gpu_accum a;
  read_n(t, 0, 2, &a, r);
  CHECK(r[1].sm_clock_mhz.have && r[1].sm_clock_mhz.v == 2100 && r[1].power_w.have && r[1].power_w.v == 550);
  CHECK(r[1].temp_c.have && r[1].mem_temp_c.have && r[1].other_procs.have);
  CHECK(!r[1].throttle.have && r[1].nxcd == 0 && !a.have_throttle && a.nxcd == 0);
  gpu_telemetry_close(t);
}

static const char amdsmi_absurd_script[] =
    "nvml_init=fail sm_clock=1000000000 mem_clock=20000 power=20000 temp=250 hotspot=-300 mem_temp=nan\n"
    "xcds=3 xcd_clock=70000 amd_throttle=0x1000000000000000\n"
    "from=1 sm_clock=1500 mem_clock=1200 power=300 temp=50 mem_temp=60 xcd_clock=1500 amd_throttle=0\n";

static void amdsmi_absurd(void) {
  struct gpu_telemetry *t = open_or_fail();
  REQUIRE(t != NULL);
  struct gpu_reading r[2];
  struct gpu_accum a;
  read_n(t, 0, 2, &a, r);
  CHECK(!r[0].sm_clock_mhz.have && !r[0].mem_clock_mhz.have && !r[0].power_w.have);
  CHECK(!r[0].temp_c.have && !r[0].mem_temp_c.have && r[0].nxcd == 0 && !r[0].xcd_clock_mhz[0].have);
  CHECK(r[0].throttle.have && (unsigned)r[0].throttle.v == GPU_THR_OTHER);
  CHECK(r[1].sm_clock_mhz.v == 1500 && r[1].power_w.v == 300 && r[1].temp_c.v == 50 && r[1].nxcd == 3);
  CHECK(a.sm_clock_mhz.n == 1 && a.power_w.n == 1 && a.temp_c.n == 1 && a.mem_temp_c.n == 1);
  CHECK(a.nxcd == 3 && a.xcd_clock_mhz[2].n == 1 && gpu_stat_max(&a.xcd_clock_mhz[2]).v == 1500);
  gpu_telemetry_close(t);
}

/* AMD SMI 23.2 (ROCm 5.7): gpu_metrics past throttle_status and the driver
 * info are not read there, the process list is one of pids. */
static const char amdsmi_old_script[] =
    "nvml_init=fail lib_version=23.2 driver=5.7 xcds=4 xcd_clock=2000 amd_throttle=0x1 others=3\n";

static void amdsmi_old(void) {
  struct gpu_telemetry *t = open_or_fail();
  REQUIRE(t != NULL);
  CHECK_STR(gpu_telemetry_gaps(t),
            "amd_smi: library 23.2: no per-XCD clocks or throttle reasons, amd_smi: no throttle time");
  struct gpu_facts f;
  REQUIRE(gpu_telemetry_facts(t, 0, &f) == 0);
  CHECK_STR(f.driver, "");
  CHECK_STR(f.name, "Fake Instinct");
  struct gpu_reading r;
  REQUIRE(gpu_telemetry_read(t, 0, &r) == 0);
  CHECK(!r.throttle.have && r.nxcd == 0 && r.sm_clock_mhz.have);
  CHECK(r.other_procs.have && r.other_procs.v == 3);
  gpu_telemetry_close(t);
}

/* AMD SMI 25.x: its process list's layout is not known here. */
static void amdsmi_v25(void) {
  struct gpu_telemetry *t = open_or_fail();
  REQUIRE(t != NULL);
  CHECK(strstr(gpu_telemetry_gaps(t), "amd_smi: library 25.3: no process list") != NULL);
  struct gpu_reading r;
  REQUIRE(gpu_telemetry_read(t, 0, &r) == 0);
  CHECK(!r.other_procs.have && r.sm_clock_mhz.have && r.throttle.have);
  gpu_telemetry_close(t);
}

/* ---- sysfs ---- */

static char sysfs_root[256];

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st;
  (void)flag;
  (void)ftw;
  return remove(path);
}
static void sysfs_cleanup(void) {
  if (sysfs_root[0]) nftw(sysfs_root, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* Writes text to root/path, making its folders. */
static void put_file(const char *path, const void *data, size_t len) {
  char full[512];
  snprintf(full, sizeof full, "%s/%s", sysfs_root, path);
  for (char *p = full + strlen(sysfs_root) + 1; (p = strchr(p, '/')) != NULL; p++) {
    *p = 0;
    mkdir(full, 0755);
    *p = '/';
  }
  FILE *f = fopen(full, "wb");
  REQUIRE(f != NULL);
  CHECK(fwrite(data, 1, len, f) == len);
  fclose(f);
}
static void put_text(const char *path, const char *text) { put_file(path, text, strlen(text)); }

/* A card whose device links to devices/pci0000:00/<bus>. */
static void put_card(const char *card, const char *bus) {
  char dir[256], link[512], target[256];
  snprintf(dir, sizeof dir, "devices/pci0000:00/%s/.keep", bus);
  put_text(dir, "");
  snprintf(dir, sizeof dir, "class/drm/%s/.keep", card);
  put_text(dir, "");
  snprintf(link, sizeof link, "%s/class/drm/%s/device", sysfs_root, card);
  snprintf(target, sizeof target, "../../../devices/pci0000:00/%s", bus);
  REQUIRE(symlink(target, link) == 0);
}

static void put16(unsigned char *b, size_t at, uint16_t v) { memcpy(b + at, &v, sizeof v); }
static void put64(unsigned char *b, size_t at, uint64_t v) { memcpy(b + at, &v, sizeof v); }

/* gpu_metrics v1.3 (kgd_pp_interface.h, offsets counted from its fields):
 * what the kernel leaves unset is 0xff. */
static void put_metrics_v1_3(const char *bus, uint64_t indep, uint16_t gfxclk, uint16_t power) {
  unsigned char b[120];
  char path[256];
  memset(b, 0xff, sizeof b);
  put16(b, 0, sizeof b);
  b[2] = 1;
  b[3] = 3;
  put16(b, 22, power);  /* average_socket_power */
  put16(b, 54, gfxclk); /* current_gfxclk */
  put16(b, 58, 1000);   /* current_uclk */
  put64(b, 112, indep); /* indep_throttle_status */
  snprintf(path, sizeof path, "devices/pci0000:00/%s/gpu_metrics", bus);
  put_file(path, b, sizeof b);
}

/* gpu_metrics v1.4, v1.5, v1.6 (MI300): size, current_gfxclk[8] and
 * current_uclk at, counted from kgd_pp_interface.h's fields; the hotspot
 * temperature at 4, curr_socket_power at 10 in all three. */
static const struct {
  size_t size, gfxclk, uclk;
} mi300_layout[] = {{288, 240, 280}, {360, 312, 352}, {384, 336, 376}};

static void put_metrics_mi300(const char *bus, int content, const uint16_t xcd[8], uint16_t power) {
  unsigned char b[384];
  char path[256];
  size_t size = mi300_layout[content - 4].size;
  memset(b, 0xff, sizeof b);
  put16(b, 0, (uint16_t)size);
  b[2] = 1;
  b[3] = (unsigned char)content;
  put16(b, 4, 85);
  put16(b, 10, power);
  for (int i = 0; i < 8; i++) put16(b, mi300_layout[content - 4].gfxclk + 2 * (size_t)i, xcd[i]);
  put16(b, mi300_layout[content - 4].uclk, 1300);
  snprintf(path, sizeof path, "devices/pci0000:00/%s/gpu_metrics", bus);
  put_file(path, b, size);
}
static void put_metrics_v1_5(const char *bus, const uint16_t xcd[8], uint16_t power) {
  put_metrics_mi300(bus, 5, xcd, power);
}

/* card0: a Navi-like device with hwmon and gpu_metrics v1.3; card1: an
 * MI300X (v1.5, per-XCD clocks, no freq1_input, junction temperature only);
 * card2: not AMD; card3: absurd values and a gpu_metrics v1.9; card0-DP-1:
 * a connector, not a card. */
static void make_sysfs(void) {
  snprintf(sysfs_root, sizeof sysfs_root, "%s/bench-sysfs.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
  REQUIRE(mkdtemp(sysfs_root) != NULL);
  setenv("BENCH_SYSFS_ROOT", sysfs_root, 1);
  const char *d0 = "devices/pci0000:00/0000:03:00.0/", *d1 = "devices/pci0000:00/0000:c3:00.0/";
  const char *d2 = "devices/pci0000:00/0000:41:00.0/", *d3 = "devices/pci0000:00/0001:05:00.0/";
  char p[256];
  put_card("card0", "0000:03:00.0");
  put_card("card1", "0000:c3:00.0");
  put_card("card10", "0001:05:00.0");
  put_card("card2", "0000:41:00.0");
  put_text("class/drm/card0-DP-1/status", "connected\n");
#define PUT(dir, name, text) (snprintf(p, sizeof p, "%s%s", dir, name), put_text(p, text))
  PUT(d0, "vendor", "0x1002\n");
  PUT(d0, "device", "0x73bf\n");
  PUT(d0, "product_name", "\n");
  PUT(d0, "pp_dpm_sclk", "0: 500Mhz\n1: 1800Mhz *\n2: 2500Mhz\n");
  PUT(d0, "pp_dpm_mclk", "0: 96Mhz\n1: 1000Mhz *\n");
  PUT(d0, "hwmon/hwmon3/freq1_input", "2400000000\n");
  PUT(d0, "hwmon/hwmon3/freq2_input", "1000000000\n");
  PUT(d0, "hwmon/hwmon3/power1_average", "250000000\n");
  PUT(d0, "hwmon/hwmon3/power1_cap", "300000000\n");
  PUT(d0, "hwmon/hwmon3/temp1_label", "edge\n");
  PUT(d0, "hwmon/hwmon3/temp1_input", "61000\n");
  PUT(d0, "hwmon/hwmon3/temp2_label", "junction\n");
  PUT(d0, "hwmon/hwmon3/temp2_input", "75000\n");
  PUT(d0, "hwmon/hwmon3/temp3_label", "mem\n");
  PUT(d0, "hwmon/hwmon3/temp3_input", "80000\n");
  put_metrics_v1_3("0000:03:00.0", 0x1 | (1ull << 36), 2400, 250);
  PUT(d1, "vendor", "0x1002\n");
  PUT(d1, "product_name", "AMD Instinct MI300X\n");
  PUT(d1, "pp_dpm_sclk", "S: 19Mhz\n0: 500Mhz\n1: 2100Mhz *\n");
  PUT(d1, "hwmon/hwmon5/power1_cap", "750000000\n");
  PUT(d1, "hwmon/hwmon5/temp1_label", "junction\n");
  PUT(d1, "hwmon/hwmon5/temp1_input", "85000\n");
  static const uint16_t xcd[8] = {2100, 2090, 2080, 2070, 2060, 2050, 2040, 2030};
  put_metrics_v1_5("0000:c3:00.0", xcd, 640);
  PUT(d2, "vendor", "0x10de\n");
  PUT(d3, "vendor", "0x1002\n");
  PUT(d3, "hwmon/hwmon0/freq1_input", "1000000000000000000\n");
  PUT(d3, "hwmon/hwmon0/freq2_input", "-5\n");
  PUT(d3, "hwmon/hwmon0/power1_input", "99000000000000\n");
  PUT(d3, "hwmon/hwmon0/power1_cap", "garbage\n");
  PUT(d3, "hwmon/hwmon0/temp1_label", "edge\n");
  PUT(d3, "hwmon/hwmon0/temp1_input", "-300000\n");
  PUT(d3, "hwmon/hwmon0/temp2_label", "mem\n");
  PUT(d3, "hwmon/hwmon0/temp2_input", "250000\n");
  PUT(d3, "pp_dpm_sclk", "0: 99999Mhz *\n");
  unsigned char v19[1024];
  memset(v19, 0xff, sizeof v19);
  put16(v19, 0, sizeof v19);
  v19[2] = 1;
  v19[3] = 9;
  put_file("devices/pci0000:00/0001:05:00.0/gpu_metrics", v19, sizeof v19);
#undef PUT
}

static void sysfs_devices(void) {
  make_sysfs();
  struct gpu_telemetry *t = open_or_fail();
  if (!t) sysfs_cleanup();
  REQUIRE(t != NULL);
  CHECK_STR(gpu_telemetry_library(t), "sysfs");
  CHECK_STR(gpu_telemetry_gaps(t), "sysfs: gpu_metrics v1.9 not read, sysfs: no throttle time or process list");
  CHECK(gpu_telemetry_count(t) == 3);
  CHECK(gpu_telemetry_find(t, "0000:03:00.0") == 0);
  CHECK(gpu_telemetry_find(t, "c3:00.0") == 1);
  CHECK(gpu_telemetry_find(t, "0001:05:00.0") == 2);
  CHECK(gpu_telemetry_find(t, "0000:41:00.0") == -1);
  struct gpu_facts f;
  REQUIRE(gpu_telemetry_facts(t, 0, &f) == 0);
  CHECK_STR(f.name, "AMD GPU [1002:73bf]");
  CHECK_STR(f.bus_id, "0000:03:00.0");
  CHECK(f.max_sm_clock_mhz.have && f.max_sm_clock_mhz.v == 2500);
  CHECK(f.max_mem_clock_mhz.have && f.max_mem_clock_mhz.v == 1000);
  CHECK(f.power_limit_w.have && f.power_limit_w.v == 300);
  REQUIRE(gpu_telemetry_facts(t, 1, &f) == 0);
  CHECK_STR(f.name, "AMD Instinct MI300X");
  CHECK(f.max_sm_clock_mhz.have && f.max_sm_clock_mhz.v == 2100 && !f.max_mem_clock_mhz.have);
  CHECK(f.power_limit_w.have && f.power_limit_w.v == 750);
  REQUIRE(gpu_telemetry_facts(t, 2, &f) == 0);
  CHECK(!f.max_sm_clock_mhz.have && !f.power_limit_w.have);

  struct gpu_reading r;
  REQUIRE(gpu_telemetry_read(t, 0, &r) == 0);
  CHECK(r.sm_clock_mhz.have && r.sm_clock_mhz.v == 2400 && r.mem_clock_mhz.v == 1000);
  CHECK(r.power_w.have && r.power_w.v == 250);
  CHECK(r.temp_c.have && r.temp_c.v == 61 && r.mem_temp_c.have && r.mem_temp_c.v == 80);
  CHECK(r.throttle.have && (unsigned)r.throttle.v == (GPU_THR_SW_POWER_CAP | GPU_THR_SW_THERMAL));
  CHECK(r.nxcd == 0 && !r.other_procs.have);

  /* The MI300X: per-XCD clocks folded over two readings. */
  struct gpu_accum a;
  gpu_accum_init(&a);
  REQUIRE(gpu_telemetry_read(t, 1, &r) == 0);
  gpu_accum_add(&a, &r);
  CHECK(r.nxcd == 8 && r.xcd_clock_mhz[7].have && r.xcd_clock_mhz[7].v == 2030);
  CHECK_NEAR(r.sm_clock_mhz.v, 2065, 1e-9);
  CHECK(r.mem_clock_mhz.have && r.mem_clock_mhz.v == 1300);
  CHECK(r.power_w.have && r.power_w.v == 640);
  CHECK(r.temp_c.have && r.temp_c.v == 85 && !r.mem_temp_c.have && !r.throttle.have);
  static const uint16_t slow[8] = {1500, 1490, 1480, 1470, 1460, 1450, 0xffff, 60000};
  put_metrics_v1_5("0000:c3:00.0", slow, 700);
  REQUIRE(gpu_telemetry_read(t, 1, &r) == 0);
  gpu_accum_add(&a, &r);
  CHECK(r.nxcd == 6 && !r.xcd_clock_mhz[6].have && !r.xcd_clock_mhz[7].have);
  CHECK(a.nxcd == 8 && a.xcd_clock_mhz[0].n == 2 && a.xcd_clock_mhz[7].n == 1);
  CHECK(gpu_stat_min(&a.xcd_clock_mhz[0]).v == 1500 && gpu_stat_max(&a.xcd_clock_mhz[0]).v == 2100);
  CHECK_NEAR(gpu_stat_mean(&a.xcd_clock_mhz[5]).v, (2050 + 1450) / 2.0, 1e-9);
  CHECK(gpu_stat_mean(&a.xcd_clock_mhz[7]).v == 2030);
  CHECK(gpu_stat_max(&a.power_w).v == 700);

  /* The same from v1.4 and v1.6. */
  for (int content = 4; content <= 6; content += 2) {
    static const uint16_t v[8] = {1900, 1901, 1902, 1903, 1904, 1905, 1906, 1907};
    put_metrics_mi300("0000:c3:00.0", content, v, 600 + content);
    REQUIRE(gpu_telemetry_read(t, 1, &r) == 0);
    CHECK(r.nxcd == 8 && r.xcd_clock_mhz[0].v == 1900 && r.xcd_clock_mhz[7].have && r.xcd_clock_mhz[7].v == 1907);
    CHECK(r.power_w.have && r.power_w.v == 600 + content && r.mem_clock_mhz.v == 1300);
  }

  /* A gpu_metrics shorter than its version's struct is not read. */
  unsigned char shortm[64];
  memset(shortm, 0, sizeof shortm);
  put16(shortm, 0, 120);
  shortm[2] = 1;
  shortm[3] = 3;
  put_file("devices/pci0000:00/0000:03:00.0/gpu_metrics", shortm, sizeof shortm);
  REQUIRE(gpu_telemetry_read(t, 0, &r) == 0);
  CHECK(!r.throttle.have && r.sm_clock_mhz.v == 2400);

  /* Absurd values never come back as numbers. */
  REQUIRE(gpu_telemetry_read(t, 2, &r) == 0);
  CHECK(!r.sm_clock_mhz.have && !r.mem_clock_mhz.have && !r.power_w.have);
  CHECK(!r.temp_c.have && !r.mem_temp_c.have && !r.throttle.have && r.nxcd == 0);
  gpu_telemetry_close(t);
  sysfs_cleanup();
}

/* The v1.3 throttle bits over time: a power cap appears from reading 2. */
static void sysfs_power_cap(void) {
  make_sysfs();
  struct gpu_telemetry *t = open_or_fail();
  if (!t) sysfs_cleanup();
  REQUIRE(t != NULL);
  struct gpu_accum a;
  struct gpu_reading r[4];
  gpu_accum_init(&a);
  for (int k = 0; k < 4; k++) {
    put_metrics_v1_3("0000:03:00.0", k < 2 ? 0 : 0x2, 2400, 250);
    REQUIRE(gpu_telemetry_read(t, 0, &r[k]) == 0);
    gpu_accum_add(&a, &r[k]);
  }
  CHECK(r[1].throttle.have && r[1].throttle.v == 0);
  CHECK(r[2].throttle.have && (unsigned)r[2].throttle.v == GPU_THR_SW_POWER_CAP);
  CHECK(a.have_throttle && a.throttle == GPU_THR_SW_POWER_CAP);
  gpu_telemetry_close(t);
  sysfs_cleanup();
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

/* AMD's ASIC-independent throttle bits, by class (gpu_vendor.h). */
static void amd_throttle_bits(void) {
  CHECK(gpu_amd_throttle_bits(0) == 0);
  CHECK(gpu_amd_throttle_bits(1ull << 0) == GPU_THR_SW_POWER_CAP);  /* PPT0 */
  CHECK(gpu_amd_throttle_bits(1ull << 6) == GPU_THR_SW_POWER_CAP);  /* SPPT */
  CHECK(gpu_amd_throttle_bits(1ull << 16) == GPU_THR_HW_SLOWDOWN);  /* TDC_GFX */
  CHECK(gpu_amd_throttle_bits(1ull << 23) == GPU_THR_HW_SLOWDOWN);  /* APCC */
  CHECK(gpu_amd_throttle_bits(1ull << 32) == GPU_THR_SW_THERMAL);   /* TEMP_GPU */
  CHECK(gpu_amd_throttle_bits(1ull << 43) == GPU_THR_SW_THERMAL);   /* TEMP_LIQUID1 */
  CHECK(gpu_amd_throttle_bits(1ull << 44) == GPU_THR_HW_THERMAL);   /* VRHOT0 */
  CHECK(gpu_amd_throttle_bits(1ull << 47) == GPU_THR_HW_THERMAL);   /* PROCHOT_GFX */
  CHECK(gpu_amd_throttle_bits(1ull << 56) == GPU_THR_OTHER);        /* PPM */
  CHECK(gpu_amd_throttle_bits(1ull << 57 | 1ull << 1) == (GPU_THR_OTHER | GPU_THR_SW_POWER_CAP));
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
    {"init_failure", ALL, "init=fail\n", init_failure},
    {"absurd", NVML, absurd_script, absurd},
    {"rsmi", RSMI, rsmi_script, rsmi},
    {"rsmi_absurd", RSMI, rsmi_absurd_script, rsmi_absurd},
    {"amdsmi_steady", AMDSMI, amdsmi_steady_script, amdsmi_steady},
    {"amdsmi_throttle", AMDSMI, amdsmi_throttle_script, amdsmi_throttle},
    {"amdsmi_xcd", AMDSMI, amdsmi_xcd_script, amdsmi_xcd},
    {"amdsmi_missing_symbol", AMDSMI_NOMETRICS, "nvml_init=fail\n", amdsmi_missing_symbol},
    {"amdsmi_absurd", AMDSMI, amdsmi_absurd_script, amdsmi_absurd},
    {"amdsmi_old", AMDSMI, amdsmi_old_script, amdsmi_old},
    {"amdsmi_v25", AMDSMI, "nvml_init=fail lib_version=25.3 amd_throttle=0\n", amdsmi_v25},
    {"sysfs_devices", ALL, "init=fail\n", sysfs_devices},
    {"sysfs_power_cap", ALL, "init=fail\n", sysfs_power_cap},
    {"no_library", NONE, "", no_library},
};
enum { N_SCENARIOS = sizeof scenarios / sizeof scenarios[0] };

/* "nvml", "amdsmi" or "rsmi" when this machine has that library installed,
 * else NULL. */
static const char *system_library(void) {
  static const char *const libs[] = {"libnvidia-ml.so.1", "libamd_smi.so",      "librocm_smi64.so",
                                     "librocm_smi64.so.1", "librocm_smi64.so.5"};
  for (size_t i = 0; i < sizeof libs / sizeof *libs; i++) {
    void *h = dlopen(libs[i], RTLD_LAZY | RTLD_LOCAL);
    if (h) {
      dlclose(h);
      return i == 0 ? "nvml" : i == 1 ? "amdsmi" : "rsmi";
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
    setenv("BENCH_SYSFS_ROOT", NONE, 1);
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
                                            TEST_ENTRY(amd_throttle_bits), TEST_ENTRY(empty_accumulator)};
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
