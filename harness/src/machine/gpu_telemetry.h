/* The GPU's state as its vendor's management library reports it: NVML
 * (libnvidia-ml.so.1) on NVIDIA, else AMD SMI (libamd_smi.so), else ROCm
 * SMI (librocm_smi64.so) on AMD, opened at run time with our own
 * declarations; every symbol is optional (a missing one leaves its readings
 * absent). No build-time dependency. Without any, the amdgpu driver's own
 * sysfs files (hwmon, gpu_metrics; under BENCH_SYSFS_ROOT, default /sys).
 * A value the library returns that cannot be true (negative, NaN, a clock
 * above 10,000 MHz, power above 10 kW, a temperature outside -50..200 C)
 * is dropped: its `have` is 0, never a number. */
#ifndef BENCH_GPU_TELEMETRY_H
#define BENCH_GPU_TELEMETRY_H

#include <stddef.h>

#define GPU_BUS_ID_LEN 20
#define GPU_MAX_DEVICES 64
/* Clock domains a device reports its SM/GFX clock for separately (an
 * MI300X has 8 XCDs, each with its own GFX clock). */
#define GPU_MAX_XCD 8

/* Throttle reasons: bench's own bits (each vendor's are mapped onto them). */
enum {
  GPU_THR_GPU_IDLE = 1u << 0,
  GPU_THR_APP_CLOCKS = 1u << 1,
  GPU_THR_SW_POWER_CAP = 1u << 2,
  GPU_THR_HW_SLOWDOWN = 1u << 3,
  GPU_THR_SYNC_BOOST = 1u << 4,
  GPU_THR_SW_THERMAL = 1u << 5,
  GPU_THR_HW_THERMAL = 1u << 6,
  GPU_THR_HW_POWER_BRAKE = 1u << 7,
  GPU_THR_DISPLAY_CLOCKS = 1u << 8,
  GPU_THR_OTHER = 1u << 9, /* a bit the library sets that we do not know */
};

/* Accumulated throttle time counters (NVML field values 74, 75, 76). */
enum { GPU_THR_TIME_POWER, GPU_THR_TIME_THERMAL, GPU_THR_TIME_SYNC_BOOST, GPU_THR_TIMES };

struct gpu_value {
  int have;
  double v;
};

/* What a device is, read once per run. */
struct gpu_facts {
  char name[96];       /* "" when the library does not say */
  char driver[80];     /* "" when the library does not say */
  char bus_id[GPU_BUS_ID_LEN]; /* "0000:3b:00.0", "" when unknown */
  struct gpu_value base_sm_clock_mhz;   /* default application clock (NVML) */
  struct gpu_value max_sm_clock_mhz;
  struct gpu_value max_mem_clock_mhz;
  struct gpu_value power_limit_w;       /* enforced limit / power cap */
  struct gpu_value persistence;         /* 1 on, 0 off */
  struct gpu_value compute_mode;        /* NVML's: 0 default, 1 exclusive thread, 2 prohibited, 3 exclusive process */
  struct gpu_value app_clocks_set;      /* 1 when the SM application clock differs from its default */
};

/* One reading of a device. */
struct gpu_reading {
  struct gpu_value sm_clock_mhz;  /* SM (NVIDIA) / GFX (AMD) clock */
  struct gpu_value mem_clock_mhz;
  struct gpu_value power_w;
  struct gpu_value temp_c;        /* the GPU (NVIDIA) / edge (AMD; hotspot where there is no edge sensor, MI300) */
  struct gpu_value mem_temp_c;    /* memory, where given */
  struct gpu_value throttle;      /* GPU_THR_* bits, as a number (AMD's: gpu_vendor.h, gpu_amd_throttle_bits) */
  struct gpu_value throttle_ns[GPU_THR_TIMES]; /* accumulated, since boot */
  struct gpu_value other_procs;   /* compute processes on it that are not this one */
  int nxcd;                       /* XCDs with a clock of their own (0: one clock only); one below nxcd may be absent */
  struct gpu_value xcd_clock_mhz[GPU_MAX_XCD]; /* each XCD's GFX clock (AMD) */
};

struct gpu_telemetry;

/* Opens NVML, else AMD SMI (libamd_smi.so), else ROCm SMI, else the amdgpu
 * driver's sysfs sensors (hwmon, gpu_metrics). NULL when none opens or
 * initialises (or, for AMD SMI and sysfs, finds no AMD GPU), with one line in
 * note naming each one's reason in that order ("no NVIDIA or AMD management
 * library: libnvidia-ml.so.1: ...; libamd_smi.so: ...; librocm_smi64.so:
 * ...; sysfs: ..."). A library's own complaints on stderr during its init
 * are silenced. */
struct gpu_telemetry *gpu_telemetry_open(char *note, size_t note_len);
void gpu_telemetry_close(struct gpu_telemetry *t);

/* "nvml", "amd_smi", "rocm_smi" or "sysfs". */
const char *gpu_telemetry_library(const struct gpu_telemetry *t);
/* What the library cannot tell on this system ("" when nothing), e.g.
 * "rocm_smi: no throttle reasons or throttle time", comma-separated. */
const char *gpu_telemetry_gaps(const struct gpu_telemetry *t);
int gpu_telemetry_count(const struct gpu_telemetry *t);

/* Normalises "0000:3b:00.0", "00000000:3B:00.0" or "3b:00.0" to
 * "0000:3b:00.0". 0 on success, -1 when it is no bus id. */
int gpu_bus_id_normalise(const char *bus_id, char out[GPU_BUS_ID_LEN]);
/* The index of the device with this PCI bus id (any form above) or this
 * decimal index ("1"), -1 when none has it. */
int gpu_telemetry_find(const struct gpu_telemetry *t, const char *bus_id);

/* 0, or -1 when index is out of range. Fields the library lacks are absent. */
int gpu_telemetry_facts(const struct gpu_telemetry *t, int index, struct gpu_facts *f);
int gpu_telemetry_read(const struct gpu_telemetry *t, int index, struct gpu_reading *r);

/* "sw_power_cap,hw_thermal" (the bits in GPU_THR_* order); "" for none.
 * Returns what snprintf would (the length it needs). */
int gpu_throttle_names(unsigned bits, char *buf, size_t len);

/* Readings over a case, folded. */
struct gpu_stat {
  size_t n;
  double sum, min, max;
};
struct gpu_accum {
  size_t samples;
  struct gpu_stat sm_clock_mhz, mem_clock_mhz, power_w, temp_c, mem_temp_c, other_procs;
  int nxcd; /* the most XCD clocks a reading had */
  struct gpu_stat xcd_clock_mhz[GPU_MAX_XCD];
  int have_throttle;
  unsigned throttle; /* the union of the reasons seen */
  struct gpu_value throttle_ns_first[GPU_THR_TIMES], throttle_ns_last[GPU_THR_TIMES];
};
void gpu_accum_init(struct gpu_accum *a);
void gpu_accum_add(struct gpu_accum *a, const struct gpu_reading *r);
/* Mean of what was seen; have = 0 when nothing was. */
struct gpu_value gpu_stat_mean(const struct gpu_stat *s);
struct gpu_value gpu_stat_min(const struct gpu_stat *s);
struct gpu_value gpu_stat_max(const struct gpu_stat *s);
/* The throttle time over the readings (last - first, ns); absent when not
 * read at both ends or when the counter ran backwards. */
struct gpu_value gpu_accum_throttle_ns(const struct gpu_accum *a, int which);

#endif
