/* ROCm SMI (librocm_smi64.so) for the GPU telemetry reader, with our own
 * declarations of rocm_smi.h 5.2's types (Debian 12's librocm-smi-dev). Its
 * 5.2 API has no throttle reasons or throttle time: those readings stay
 * absent (gpu_vendor.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpu_vendor.h"

typedef int rs_ret;
enum { RS_CLK_SYS = 0, RS_CLK_MEM = 4, RS_TEMP_EDGE = 0, RS_TEMP_MEMORY = 2, RS_TEMP_CURRENT = 0 };
enum { RS_MAX_FREQS = 32 };
typedef struct {
  uint32_t num_supported;
  uint32_t current;
  uint64_t frequency[RS_MAX_FREQS];
} rs_freqs;
typedef struct {
  uint32_t process_id, pasid;
  uint64_t vram_usage, sdma_usage;
  uint32_t cu_occupancy;
} rs_process;

struct gpu_rsmi {
  rs_ret (*init)(uint64_t);
  rs_ret (*shutdown)(void);
  rs_ret (*count)(uint32_t *);
  rs_ret (*pci_id)(uint32_t, uint64_t *);
  rs_ret (*name)(uint32_t, char *, size_t);
  rs_ret (*version)(int, char *, uint32_t);
  rs_ret (*clock)(uint32_t, int, rs_freqs *);
  rs_ret (*power)(uint32_t, uint32_t, uint64_t *);
  rs_ret (*power_cap)(uint32_t, uint32_t, uint64_t *);
  rs_ret (*temperature)(uint32_t, uint32_t, int, int64_t *);
  rs_ret (*procs)(rs_process *, uint32_t *);
  rs_ret (*proc_gpus)(uint32_t, uint32_t *, uint32_t *);
};

static void rsmi_load(struct gpu_rsmi *s, void *l, char *gaps, size_t gaps_len) {
  GPU_LOAD(l, s->init, "rsmi_init");
  GPU_LOAD(l, s->shutdown, "rsmi_shut_down");
  GPU_LOAD(l, s->count, "rsmi_num_monitor_devices");
  GPU_LOAD(l, s->pci_id, "rsmi_dev_pci_id_get");
  GPU_LOAD(l, s->name, "rsmi_dev_name_get");
  GPU_LOAD(l, s->version, "rsmi_version_str_get");
  GPU_LOAD(l, s->clock, "rsmi_dev_gpu_clk_freq_get");
  GPU_LOAD(l, s->power, "rsmi_dev_power_ave_get");
  GPU_LOAD(l, s->power_cap, "rsmi_dev_power_cap_get");
  GPU_LOAD(l, s->temperature, "rsmi_dev_temp_metric_get");
  GPU_LOAD(l, s->procs, "rsmi_compute_process_info_get");
  GPU_LOAD(l, s->proc_gpus, "rsmi_compute_process_gpus_get");
  gpu_gap_add(gaps, gaps_len, "rocm_smi: no throttle reasons or throttle time");
  if (!s->procs || !s->proc_gpus) gpu_gap_add(gaps, gaps_len, "rocm_smi: no process list");
}

struct gpu_rsmi *gpu_rsmi_open(void *lib, const char *file, int *count, char *gaps, size_t gaps_len, char *note,
                               size_t note_len) {
  struct gpu_rsmi *s = calloc(1, sizeof *s);
  if (!s) {
    snprintf(note, note_len, "%s: out of memory", file);
    return NULL;
  }
  rsmi_load(s, lib, gaps, gaps_len);
  if (!s->init || !s->count) {
    snprintf(note, note_len, "%s: no rsmi_init or rsmi_num_monitor_devices", file);
    free(s);
    return NULL;
  }
  /* ROCm SMI prints its own reasons for failing to stderr (5.2: several
   * lines); the note below says it once. */
  int quiet = gpu_stderr_quiet();
  rs_ret rc = s->init(0);
  gpu_stderr_restore(quiet);
  if (rc != 0) {
    snprintf(note, note_len, "%s: rsmi_init failed (%d)", file, rc);
    free(s);
    return NULL;
  }
  uint32_t all = 0;
  if (s->count(&all) != 0) all = 0;
  *count = all > GPU_MAX_DEVICES ? GPU_MAX_DEVICES : (int)all;
  return s;
}

void gpu_rsmi_close(struct gpu_rsmi *s) {
  if (s && s->shutdown) s->shutdown();
  free(s);
}

/* The current frequency (which = 0) or the highest (which = 1), MHz. */
static struct gpu_value rs_clock(const struct gpu_rsmi *s, uint32_t i, int type, int highest) {
  struct gpu_value none = {0, 0};
  rs_freqs f;
  memset(&f, 0, sizeof f);
  if (!s->clock || s->clock(i, type, &f) != 0) return none;
  if (f.num_supported == 0 || f.num_supported > RS_MAX_FREQS) return none;
  uint32_t at = highest ? f.num_supported - 1 : f.current;
  if (at >= f.num_supported) return none;
  return gpu_clock_mhz(f.frequency[at] / 1e6);
}

static struct gpu_value rs_temp(const struct gpu_rsmi *s, uint32_t i, uint32_t sensor) {
  struct gpu_value none = {0, 0};
  int64_t milli;
  if (!s->temperature || s->temperature(i, sensor, RS_TEMP_CURRENT, &milli) != 0) return none;
  return gpu_temp_c(milli / 1000.0);
}

/* Compute processes other than this one that use device dev. */
static struct gpu_value rs_other_procs(const struct gpu_rsmi *s, uint32_t dev) {
  struct gpu_value none = {0, 0};
  enum { MAXP = 256 };
  rs_process p[MAXP];
  uint32_t n = MAXP, others = 0;
  if (!s->procs || !s->proc_gpus || s->procs(p, &n) != 0 || n > MAXP) return none;
  for (uint32_t i = 0; i < n; i++) {
    uint32_t on[GPU_MAX_DEVICES], m = GPU_MAX_DEVICES;
    if (p[i].process_id == (uint32_t)getpid()) continue;
    /* A process that ended since the list was taken uses nothing. */
    if (s->proc_gpus(p[i].process_id, on, &m) != 0 || m > GPU_MAX_DEVICES) continue;
    for (uint32_t j = 0; j < m; j++) {
      if (on[j] != dev) continue;
      others++;
      break;
    }
  }
  return gpu_value_in(others, 0, 1e9);
}

void gpu_rsmi_read(const struct gpu_rsmi *s, int index, struct gpu_reading *r) {
  uint32_t i = (uint32_t)index;
  uint64_t uw;
  r->sm_clock_mhz = rs_clock(s, i, RS_CLK_SYS, 0);
  r->mem_clock_mhz = rs_clock(s, i, RS_CLK_MEM, 0);
  if (s->power && s->power(i, 0, &uw) == 0) r->power_w = gpu_power_w(uw / 1e6);
  r->temp_c = rs_temp(s, i, RS_TEMP_EDGE);
  r->mem_temp_c = rs_temp(s, i, RS_TEMP_MEMORY);
  r->other_procs = rs_other_procs(s, i);
}

void gpu_rsmi_facts(const struct gpu_rsmi *s, int index, struct gpu_facts *f) {
  uint32_t i = (uint32_t)index;
  uint64_t v;
  if (s->name && s->name(i, f->name, sizeof f->name) == 0) f->name[sizeof f->name - 1] = 0;
  else f->name[0] = 0;
  if (s->version && s->version(0, f->driver, sizeof f->driver) == 0) f->driver[sizeof f->driver - 1] = 0;
  else f->driver[0] = 0;
  f->bus_id[0] = 0;
  if (s->pci_id && s->pci_id(i, &v) == 0 && (v >> 32) <= 0xffffffffu)
    snprintf(f->bus_id, sizeof f->bus_id, "%04x:%02x:%02x.%x", (unsigned)(v >> 32), (unsigned)((v >> 8) & 0xff),
             (unsigned)((v >> 3) & 0x1f), (unsigned)(v & 0x7));
  f->max_sm_clock_mhz = rs_clock(s, i, RS_CLK_SYS, 1);
  f->max_mem_clock_mhz = rs_clock(s, i, RS_CLK_MEM, 1);
  if (s->power_cap && s->power_cap(i, 0, &v) == 0) f->power_limit_w = gpu_power_w(v / 1e6);
}

