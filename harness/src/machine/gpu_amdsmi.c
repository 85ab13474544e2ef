/* AMD SMI (libamd_smi.so) for the GPU telemetry reader, with our own
 * declarations of amdsmi.h's types; every call is looked up on its own and
 * one that is missing or fails leaves its values absent (gpu_vendor.h).
 *
 * Its structs changed between releases, so this file reads only what it
 * has checked against the headers of AMD SMI 23.2 (ROCm 5.7), 23.4 (6.0),
 * 24.5 (6.1), 24.6 (6.2), 24.7 and 26.5 (ROCm/amdsmi, ROCm/rocm-systems):
 *   the same in all:  amdsmi_init(AMDSMI_INIT_AMD_GPUS = 2), socket and
 *     processor handles, amdsmi_bdf_t (function:3, device:5, bus:8,
 *     domain:48 in one uint64_t), amdsmi_clk_info_t's first three uint32_t
 *     (current, min, max MHz; AMDSMI_CLK_TYPE_GFX 0, _MEM 4),
 *     amdsmi_get_temp_metric (EDGE 0, HOTSPOT 1, VRAM 2; CURRENT 0; C),
 *     amdsmi_power_cap_info_t.power_cap (first uint64_t, uW), the first
 *     63 characters of amdsmi_asic_info_t.market_name (64 or 256 bytes),
 *     and amdsmi_gpu_metrics_t up to throttle_status;
 *   from 23.4 on: amdsmi_gpu_metrics_t on to current_gfxclks[8] (the library
 *     sets what the device lacks to the type's maximum);
 *   from 24.5 on: amdsmi_driver_info_t.driver_version first (23.4 had the
 *     driver's name there);
 *   23.4 to 24.x: amdsmi_power_info_t {current, average socket power (W),
 *     ...} (26.5 starts with a uint64_t socket_power; a fallback only, since
 *     the library fills it from gpu_metrics anyway);
 *   the process list: up to 24.5 uint32_t pids; 24.6 and 24.7 224-byte
 *     amdsmi_proc_info_t with the pid at 32; 26.x 704 bytes, pid at 256;
 *     25.x not checked: no process list there.
 * The version comes from amdsmi_get_lib_version: up to 24.x {year, major,
 * ...}, from 25 on {major, minor, ...} (a major of 25 or more). Buffers the
 * library writes into are larger than any of its structs. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpu_vendor.h"

typedef uint32_t am_ret;
typedef void *am_handle;
enum { AM_INIT_AMD_GPUS = 1u << 1, AM_CLK_GFX = 0, AM_CLK_MEM = 4 };
enum { AM_TEMP_EDGE = 0, AM_TEMP_HOTSPOT = 1, AM_TEMP_VRAM = 2, AM_TEMP_CURRENT = 0 };
enum { AM_SCRATCH = 8192, AM_METRICS_BUF = 65536, AM_MAX_PROCS = 256 };

/* amdsmi_gpu_metrics_t as far as it is read (see above). */
struct am_metrics {
  uint16_t structure_size;
  uint8_t format_revision, content_revision;
  uint16_t temperature_edge, temperature_hotspot, temperature_mem, temperature_vrgfx, temperature_vrsoc,
      temperature_vrmem;
  uint16_t average_gfx_activity, average_umc_activity, average_mm_activity;
  uint16_t average_socket_power; /* W */
  uint64_t energy_accumulator, system_clock_counter;
  uint16_t average_clocks[7];
  uint16_t current_gfxclk, current_socclk, current_uclk, current_vclk0, current_dclk0, current_vclk1, current_dclk1;
  uint32_t throttle_status; /* ASIC dependent: not read */
  uint16_t current_fan_speed, pcie_link_width, pcie_link_speed;
  uint32_t gfx_activity_acc, mem_activity_acc;
  uint16_t temperature_hbm[4];
  uint64_t firmware_timestamp;
  uint16_t voltage_soc, voltage_gfx, voltage_mem;
  uint64_t indep_throttle_status;
  uint16_t current_socket_power; /* W */
  uint16_t vcn_activity[4];
  uint32_t gfxclk_lock_status;
  uint16_t xgmi_link_width, xgmi_link_speed;
  uint64_t pcie_counters[5];
  uint64_t xgmi_read_data_acc[8], xgmi_write_data_acc[8];
  uint16_t current_gfxclks[8]; /* MHz, per XCD */
};
_Static_assert(offsetof(struct am_metrics, current_gfxclk) == 54, "amdsmi_gpu_metrics_t.current_gfxclk");
_Static_assert(offsetof(struct am_metrics, throttle_status) == 68, "amdsmi_gpu_metrics_t.throttle_status");
_Static_assert(offsetof(struct am_metrics, indep_throttle_status) == 112, "amdsmi_gpu_metrics_t.indep_throttle_status");
_Static_assert(offsetof(struct am_metrics, current_socket_power) == 120, "amdsmi_gpu_metrics_t.current_socket_power");
_Static_assert(offsetof(struct am_metrics, current_gfxclks) == 312, "amdsmi_gpu_metrics_t.current_gfxclks");

struct gpu_amdsmi {
  am_ret (*init)(uint64_t);
  am_ret (*shutdown)(void);
  am_ret (*status_string)(am_ret, const char **);
  am_ret (*lib_version)(void *);
  am_ret (*sockets)(uint32_t *, am_handle *);
  am_ret (*processors)(am_handle, uint32_t *, am_handle *);
  am_ret (*bdf)(am_handle, uint64_t *);
  am_ret (*asic)(am_handle, void *);
  am_ret (*driver)(am_handle, void *);
  am_ret (*clock)(am_handle, uint32_t, void *);
  am_ret (*power)(am_handle, void *);
  am_ret (*power_cap)(am_handle, uint32_t, void *);
  am_ret (*temperature)(am_handle, uint32_t, uint32_t, int64_t *);
  am_ret (*metrics)(am_handle, void *);
  am_ret (*procs)(am_handle, uint32_t *, void *);
  /* What the version allows (see above). */
  int metrics_ext, driver_first, power_info_v24;
  size_t proc_stride, proc_pid_at; /* 0: no process list */
  am_handle dev[GPU_MAX_DEVICES];
};

static void amdsmi_load(struct gpu_amdsmi *a, void *l) {
  GPU_LOAD(l, a->init, "amdsmi_init");
  GPU_LOAD(l, a->shutdown, "amdsmi_shut_down");
  GPU_LOAD(l, a->status_string, "amdsmi_status_code_to_string");
  GPU_LOAD(l, a->lib_version, "amdsmi_get_lib_version");
  GPU_LOAD(l, a->sockets, "amdsmi_get_socket_handles");
  GPU_LOAD(l, a->processors, "amdsmi_get_processor_handles");
  GPU_LOAD(l, a->bdf, "amdsmi_get_gpu_device_bdf");
  GPU_LOAD(l, a->asic, "amdsmi_get_gpu_asic_info");
  GPU_LOAD(l, a->driver, "amdsmi_get_gpu_driver_info");
  GPU_LOAD(l, a->clock, "amdsmi_get_clock_info");
  GPU_LOAD(l, a->power, "amdsmi_get_power_info");
  GPU_LOAD(l, a->power_cap, "amdsmi_get_power_cap_info");
  GPU_LOAD(l, a->temperature, "amdsmi_get_temp_metric");
  GPU_LOAD(l, a->metrics, "amdsmi_get_gpu_metrics_info");
  GPU_LOAD(l, a->procs, "amdsmi_get_gpu_process_list");
}

/* The library's version decides which layouts are read; gaps says what
 * that leaves out. */
static void amdsmi_version(struct gpu_amdsmi *a, char *gaps, size_t gaps_len) {
  uint32_t v[16];
  memset(v, 0, sizeof v);
  if (!a->lib_version || a->lib_version(v) != 0 || v[0] == 0) {
    gpu_gap_add(gaps, gaps_len, "amd_smi: no library version (per-XCD clocks, throttle, driver, processes not read)");
    return;
  }
  unsigned first = v[0], second = v[1]; /* {year, major} up to 24, {major, minor} from 25 */
  a->metrics_ext = first > 23 || (first == 23 && second >= 4);
  a->driver_first = first >= 25 || (first == 24 && second >= 5);
  a->power_info_v24 = first == 24 || (first == 23 && second >= 4);
  if (first == 23 || (first == 24 && second <= 5)) {
    a->proc_stride = sizeof(uint32_t);
    a->proc_pid_at = 0;
  } else if (first == 24) {
    a->proc_stride = 224;
    a->proc_pid_at = 32;
  } else if (first == 26) {
    a->proc_stride = 704;
    a->proc_pid_at = 256;
  }
  char what[128];
  if (!a->metrics_ext) {
    snprintf(what, sizeof what, "amd_smi: library %u.%u: no per-XCD clocks or throttle reasons", first, second);
    gpu_gap_add(gaps, gaps_len, what);
  }
  if (a->proc_stride == 0) {
    snprintf(what, sizeof what, "amd_smi: library %u.%u: no process list", first, second);
    gpu_gap_add(gaps, gaps_len, what);
  }
}

/* gpu_metrics of h into m; -1 when the library has none for it. */
static int am_read_metrics(const struct gpu_amdsmi *a, am_handle h, struct am_metrics *m) {
  if (!a->metrics) return -1;
  unsigned char *buf = calloc(1, AM_METRICS_BUF);
  if (!buf) return -1;
  int rc = a->metrics(h, buf) == 0 ? 0 : -1;
  memcpy(m, buf, sizeof *m);
  free(buf);
  return rc;
}

static int am_indep_throttle(const struct gpu_amdsmi *a, const struct am_metrics *m) {
  return a->metrics_ext && m->indep_throttle_status != UINT64_MAX;
}

static int amdsmi_devices(struct gpu_amdsmi *a) {
  uint32_t ns = 0;
  int count = 0;
  if (a->sockets(&ns, NULL) != 0 || ns == 0) return 0;
  if (ns > GPU_MAX_DEVICES) ns = GPU_MAX_DEVICES;
  am_handle sockets[GPU_MAX_DEVICES];
  if (a->sockets(&ns, sockets) != 0) return 0;
  if (ns > GPU_MAX_DEVICES) ns = GPU_MAX_DEVICES;
  for (uint32_t s = 0; s < ns && count < GPU_MAX_DEVICES; s++) {
    uint32_t np = (uint32_t)(GPU_MAX_DEVICES - count);
    if (a->processors(sockets[s], &np, &a->dev[count]) != 0) continue;
    count += (int)(np < (uint32_t)(GPU_MAX_DEVICES - count) ? np : (uint32_t)(GPU_MAX_DEVICES - count));
  }
  return count;
}

struct gpu_amdsmi *gpu_amdsmi_open(void *lib, const char *file, int *count, char *gaps, size_t gaps_len, char *note,
                                   size_t note_len) {
  struct gpu_amdsmi *a = calloc(1, sizeof *a);
  if (!a) {
    snprintf(note, note_len, "%s: out of memory", file);
    return NULL;
  }
  amdsmi_load(a, lib);
  if (!a->init || !a->sockets || !a->processors) {
    snprintf(note, note_len, "%s: no amdsmi_init, amdsmi_get_socket_handles or amdsmi_get_processor_handles", file);
    free(a);
    return NULL;
  }
  int quiet = gpu_stderr_quiet();
  am_ret rc = a->init(AM_INIT_AMD_GPUS);
  gpu_stderr_restore(quiet);
  if (rc != 0) {
    const char *why = NULL;
    if (!a->status_string || a->status_string(rc, &why) != 0) why = NULL;
    snprintf(note, note_len, "%s: amdsmi_init failed: %s (%u)", file, why ? why : "error", rc);
    free(a);
    return NULL;
  }
  *count = amdsmi_devices(a);
  if (*count == 0) {
    snprintf(note, note_len, "%s: no AMD GPU", file);
    gpu_amdsmi_close(a);
    return NULL;
  }
  amdsmi_version(a, gaps, gaps_len);
  int throttle = 0;
  for (int i = 0; i < *count && !throttle; i++) {
    struct am_metrics m;
    throttle = am_read_metrics(a, a->dev[i], &m) == 0 && am_indep_throttle(a, &m);
  }
  if (!a->metrics) gpu_gap_add(gaps, gaps_len, "amd_smi: no gpu_metrics (throttle reasons, per-XCD clocks)");
  else if (!throttle && a->metrics_ext) gpu_gap_add(gaps, gaps_len, "amd_smi: no throttle reasons on this device");
  gpu_gap_add(gaps, gaps_len, "amd_smi: no throttle time");
  if (!a->procs) gpu_gap_add(gaps, gaps_len, "amd_smi: no process list");
  return a;
}

void gpu_amdsmi_close(struct gpu_amdsmi *a) {
  if (a && a->shutdown) a->shutdown();
  free(a);
}

/* The current (which 0) or highest (which 2) clock of a domain, MHz. */
static struct gpu_value am_clock(const struct gpu_amdsmi *a, am_handle h, uint32_t type, int which) {
  struct gpu_value none = {0, 0};
  uint32_t info[16];
  memset(info, 0, sizeof info);
  if (!a->clock || a->clock(h, type, info) != 0) return none;
  return gpu_clock_mhz(info[which]);
}

static struct gpu_value am_temp(const struct gpu_amdsmi *a, am_handle h, uint32_t sensor) {
  struct gpu_value none = {0, 0};
  int64_t c = 0;
  if (!a->temperature || a->temperature(h, sensor, AM_TEMP_CURRENT, &c) != 0) return none;
  return gpu_temp_c((double)c);
}

/* Compute processes on h other than this one. */
static struct gpu_value am_other_procs(const struct gpu_amdsmi *a, am_handle h) {
  struct gpu_value none = {0, 0};
  if (!a->procs || a->proc_stride == 0) return none;
  unsigned char *buf = calloc(AM_MAX_PROCS, a->proc_stride);
  if (!buf) return none;
  uint32_t n = AM_MAX_PROCS, others = 0;
  if (a->procs(h, &n, buf) != 0 || n > AM_MAX_PROCS) {
    free(buf);
    return none;
  }
  for (uint32_t i = 0; i < n; i++) {
    uint32_t pid;
    memcpy(&pid, buf + (size_t)i * a->proc_stride + a->proc_pid_at, sizeof pid);
    others += pid != (uint32_t)getpid();
  }
  free(buf);
  return gpu_value_in(others, 0, 1e9);
}

/* Socket power from gpu_metrics (current where the device has it, as
 * MI300, else average), else from amdsmi_get_power_info (23.4 to 24.x). */
static struct gpu_value am_power(const struct gpu_amdsmi *a, am_handle h, const struct am_metrics *m, int have_m) {
  struct gpu_value p = {0, 0};
  if (have_m && a->metrics_ext) p = gpu_power_w(m->current_socket_power);
  if (!p.have && have_m) p = gpu_power_w(m->average_socket_power);
  if (!p.have && a->power && a->power_info_v24) {
    uint32_t info[64];
    memset(info, 0, sizeof info);
    if (a->power(h, info) == 0) {
      p = gpu_power_w(info[0]);
      if (!p.have) p = gpu_power_w(info[1]);
    }
  }
  return p;
}

void gpu_amdsmi_read(const struct gpu_amdsmi *a, int index, struct gpu_reading *r) {
  am_handle h = a->dev[index];
  struct am_metrics m;
  r->sm_clock_mhz = am_clock(a, h, AM_CLK_GFX, 0);
  r->mem_clock_mhz = am_clock(a, h, AM_CLK_MEM, 0);
  int have_m = am_read_metrics(a, h, &m) == 0;
  if (have_m && !r->sm_clock_mhz.have) r->sm_clock_mhz = gpu_clock_mhz(m.current_gfxclk);
  if (have_m && !r->mem_clock_mhz.have) r->mem_clock_mhz = gpu_clock_mhz(m.current_uclk);
  r->power_w = am_power(a, h, &m, have_m);
  /* An MI300 has no edge sensor: its hotspot stands in. */
  r->temp_c = am_temp(a, h, AM_TEMP_EDGE);
  if (!r->temp_c.have) r->temp_c = am_temp(a, h, AM_TEMP_HOTSPOT);
  r->mem_temp_c = am_temp(a, h, AM_TEMP_VRAM);
  if (have_m && am_indep_throttle(a, &m)) {
    r->throttle.have = 1;
    r->throttle.v = gpu_amd_throttle_bits(m.indep_throttle_status);
  }
  if (have_m && a->metrics_ext) {
    int last = -1, present = 0;
    for (int i = 0; i < GPU_MAX_XCD; i++) {
      r->xcd_clock_mhz[i] = gpu_clock_mhz(m.current_gfxclks[i]);
      if (r->xcd_clock_mhz[i].have) {
        last = i;
        present++;
      }
    }
    r->nxcd = present >= 2 ? last + 1 : 0;
    if (!r->nxcd) memset(r->xcd_clock_mhz, 0, sizeof r->xcd_clock_mhz);
  }
  r->other_procs = am_other_procs(a, h);
}

/* The first string of a struct the library fills, at most 63 characters
 * (the shortest its first field has been is 64 bytes). */
static void am_first_string(am_ret (*fn)(am_handle, void *), am_handle h, char *out, size_t len) {
  out[0] = 0;
  if (!fn) return;
  char *buf = calloc(1, AM_SCRATCH);
  if (!buf) return;
  if (fn(h, buf) == 0) snprintf(out, len, "%.*s", (int)strnlen(buf, 63), buf);
  free(buf);
}

void gpu_amdsmi_facts(const struct gpu_amdsmi *a, int index, struct gpu_facts *f) {
  am_handle h = a->dev[index];
  am_first_string(a->asic, h, f->name, sizeof f->name);
  if (a->driver_first) am_first_string(a->driver, h, f->driver, sizeof f->driver);
  else f->driver[0] = 0;
  uint64_t bdf = 0;
  f->bus_id[0] = 0;
  if (a->bdf && a->bdf(h, &bdf) == 0 && (bdf >> 16) <= 0xffffffffu)
    snprintf(f->bus_id, sizeof f->bus_id, "%04x:%02x:%02x.%x", (unsigned)(bdf >> 16), (unsigned)((bdf >> 8) & 0xff),
             (unsigned)((bdf >> 3) & 0x1f), (unsigned)(bdf & 7));
  f->max_sm_clock_mhz = am_clock(a, h, AM_CLK_GFX, 2);
  f->max_mem_clock_mhz = am_clock(a, h, AM_CLK_MEM, 2);
  uint64_t cap[16];
  memset(cap, 0, sizeof cap);
  if (a->power_cap && a->power_cap(h, 0, cap) == 0) f->power_limit_w = gpu_power_w((double)cap[0] / 1e6);
}
