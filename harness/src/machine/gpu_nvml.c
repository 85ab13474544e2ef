/* NVML (libnvidia-ml.so.1) for the GPU telemetry reader, with our own
 * declarations of nvml.h's types (the layouts nvtop uses too); every call is
 * looked up on its own and one that is missing or fails leaves its values
 * absent (gpu_vendor.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpu_vendor.h"

typedef int nv_ret;
typedef struct nv_device *nv_dev;
enum { NV_CLOCK_SM = 1, NV_CLOCK_MEM = 2, NV_TEMP_GPU = 0 };
enum { NV_FI_POWER = 74, NV_FI_THERMAL = 75, NV_FI_SYNC_BOOST = 76, NV_FI_MEMORY_TEMP = 82 };
enum { NV_VT_DOUBLE, NV_VT_UINT, NV_VT_ULONG, NV_VT_ULLONG, NV_VT_SLLONG, NV_VT_SINT, NV_VT_USHORT };
typedef struct {
  char bus_id_legacy[16];
  unsigned domain, bus, device, pci_device_id, pci_subsystem_id;
  char bus_id[32];
} nv_pci_info;
typedef struct {
  unsigned field_id, scope_id;
  long long timestamp, latency_usec;
  int value_type;
  nv_ret ret;
  union {
    double d;
    unsigned ui;
    unsigned long ul;
    unsigned long long ull;
    long long sll;
    int si;
    unsigned short us;
  } value;
} nv_field_value;
typedef struct {
  unsigned pid;
  unsigned long long used_memory;
  unsigned gpu_instance_id, compute_instance_id;
} nv_process_v2;
typedef struct {
  unsigned pid;
  unsigned long long used_memory;
} nv_process_v1;

struct gpu_nvml {
  nv_ret (*init)(void);
  nv_ret (*shutdown)(void);
  const char *(*error_string)(nv_ret);
  nv_ret (*count)(unsigned *);
  nv_ret (*handle)(unsigned, nv_dev *);
  nv_ret (*pci_info)(nv_dev, nv_pci_info *);
  nv_ret (*name)(nv_dev, char *, unsigned);
  nv_ret (*driver)(char *, unsigned);
  nv_ret (*clock)(nv_dev, int, unsigned *);
  nv_ret (*max_clock)(nv_dev, int, unsigned *);
  nv_ret (*default_app_clock)(nv_dev, int, unsigned *);
  nv_ret (*app_clock)(nv_dev, int, unsigned *);
  nv_ret (*power)(nv_dev, unsigned *);
  nv_ret (*power_limit)(nv_dev, unsigned *);
  nv_ret (*temperature)(nv_dev, int, unsigned *);
  nv_ret (*persistence)(nv_dev, int *);
  nv_ret (*compute_mode)(nv_dev, int *);
  nv_ret (*throttle)(nv_dev, unsigned long long *);
  nv_ret (*fields)(nv_dev, int, nv_field_value *);
  nv_ret (*procs_v2)(nv_dev, unsigned *, nv_process_v2 *);
  nv_ret (*procs_v1)(nv_dev, unsigned *, nv_process_v1 *);
  nv_dev dev[GPU_MAX_DEVICES];
};

static void nvml_load(struct gpu_nvml *n, void *l, char *gaps, size_t gaps_len) {
  GPU_LOAD(l, n->init, "nvmlInit_v2", "nvmlInit");
  GPU_LOAD(l, n->shutdown, "nvmlShutdown");
  GPU_LOAD(l, n->error_string, "nvmlErrorString");
  GPU_LOAD(l, n->count, "nvmlDeviceGetCount_v2", "nvmlDeviceGetCount");
  GPU_LOAD(l, n->handle, "nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex");
  GPU_LOAD(l, n->pci_info, "nvmlDeviceGetPciInfo_v3", "nvmlDeviceGetPciInfo_v2", "nvmlDeviceGetPciInfo");
  GPU_LOAD(l, n->name, "nvmlDeviceGetName");
  GPU_LOAD(l, n->driver, "nvmlSystemGetDriverVersion");
  GPU_LOAD(l, n->clock, "nvmlDeviceGetClockInfo");
  GPU_LOAD(l, n->max_clock, "nvmlDeviceGetMaxClockInfo");
  GPU_LOAD(l, n->default_app_clock, "nvmlDeviceGetDefaultApplicationsClock");
  GPU_LOAD(l, n->app_clock, "nvmlDeviceGetApplicationsClock");
  GPU_LOAD(l, n->power, "nvmlDeviceGetPowerUsage");
  GPU_LOAD(l, n->power_limit, "nvmlDeviceGetEnforcedPowerLimit");
  GPU_LOAD(l, n->temperature, "nvmlDeviceGetTemperature");
  GPU_LOAD(l, n->persistence, "nvmlDeviceGetPersistenceMode");
  GPU_LOAD(l, n->compute_mode, "nvmlDeviceGetComputeMode");
  GPU_LOAD(l, n->throttle, "nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons");
  GPU_LOAD(l, n->fields, "nvmlDeviceGetFieldValues");
  GPU_LOAD(l, n->procs_v2, "nvmlDeviceGetComputeRunningProcesses_v3", "nvmlDeviceGetComputeRunningProcesses_v2");
  GPU_LOAD(l, n->procs_v1, "nvmlDeviceGetComputeRunningProcesses");
  if (!n->throttle) gpu_gap_add(gaps, gaps_len, "nvml: no throttle reasons");
  if (!n->fields) gpu_gap_add(gaps, gaps_len, "nvml: no field values (throttle time, memory temperature)");
  if (!n->procs_v2 && !n->procs_v1) gpu_gap_add(gaps, gaps_len, "nvml: no process list");
}

struct gpu_nvml *gpu_nvml_open(void *lib, int *count, char *gaps, size_t gaps_len, char *note, size_t note_len) {
  struct gpu_nvml *n = calloc(1, sizeof *n);
  if (!n) {
    snprintf(note, note_len, "libnvidia-ml.so.1: out of memory");
    return NULL;
  }
  nvml_load(n, lib, gaps, gaps_len);
  if (!n->init || !n->count || !n->handle) {
    snprintf(note, note_len, "libnvidia-ml.so.1: no nvmlInit, nvmlDeviceGetCount or nvmlDeviceGetHandleByIndex");
    free(n);
    return NULL;
  }
  nv_ret rc = n->init();
  if (rc != 0) {
    const char *why = n->error_string ? n->error_string(rc) : NULL;
    snprintf(note, note_len, "libnvidia-ml.so.1: nvmlInit failed: %s (%d)", why ? why : "error", rc);
    free(n);
    return NULL;
  }
  unsigned all = 0;
  if (n->count(&all) != 0) all = 0;
  if (all > GPU_MAX_DEVICES) all = GPU_MAX_DEVICES;
  *count = 0;
  for (unsigned i = 0; i < all; i++) {
    if (n->handle(i, &n->dev[*count]) == 0) (*count)++;
  }
  return n;
}

void gpu_nvml_close(struct gpu_nvml *n) {
  if (n && n->shutdown) n->shutdown();
  free(n);
}

/* An NVML field value as a double; NAN when it did not come back. */
static double nv_field(const nv_field_value *f) {
  if (f->ret != 0) return NAN;
  switch (f->value_type) {
    case NV_VT_DOUBLE: return f->value.d;
    case NV_VT_UINT: return f->value.ui;
    case NV_VT_ULONG: return (double)f->value.ul;
    case NV_VT_ULLONG: return (double)f->value.ull;
    case NV_VT_SLLONG: return (double)f->value.sll;
    case NV_VT_SINT: return f->value.si;
    case NV_VT_USHORT: return f->value.us;
    default: return NAN;
  }
}

static unsigned nv_throttle_bits(unsigned long long nv) {
  /* NVML's bits, in GPU_THR_* order (0x1 idle ... 0x100 display clocks). */
  static const unsigned long long known = 0x1ff;
  unsigned bits = (unsigned)(nv & known);
  if (nv & ~known) bits |= GPU_THR_OTHER;
  return bits;
}

static struct gpu_value nv_other_procs(const struct gpu_nvml *n, nv_dev d) {
  struct gpu_value none = {0, 0};
  enum { MAXP = 256 };
  unsigned count = MAXP, others = 0;
  unsigned pids[MAXP];
  pid_t self = getpid();
  if (n->procs_v2) {
    nv_process_v2 p[MAXP];
    if (n->procs_v2(d, &count, p) != 0 || count > MAXP) return none;
    for (unsigned i = 0; i < count; i++) pids[i] = p[i].pid;
  } else if (n->procs_v1) {
    nv_process_v1 p[MAXP];
    if (n->procs_v1(d, &count, p) != 0 || count > MAXP) return none;
    for (unsigned i = 0; i < count; i++) pids[i] = p[i].pid;
  } else {
    return none;
  }
  for (unsigned i = 0; i < count; i++) others += pids[i] != (unsigned)self;
  return gpu_value_in(others, 0, 1e9);
}

void gpu_nvml_read(const struct gpu_nvml *n, int index, struct gpu_reading *r) {
  nv_dev d = n->dev[index];
  unsigned u;
  if (n->clock && n->clock(d, NV_CLOCK_SM, &u) == 0) r->sm_clock_mhz = gpu_clock_mhz(u);
  if (n->clock && n->clock(d, NV_CLOCK_MEM, &u) == 0) r->mem_clock_mhz = gpu_clock_mhz(u);
  if (n->power && n->power(d, &u) == 0) r->power_w = gpu_power_w(u / 1000.0);
  if (n->temperature && n->temperature(d, NV_TEMP_GPU, &u) == 0) r->temp_c = gpu_temp_c(u);
  unsigned long long reasons;
  if (n->throttle && n->throttle(d, &reasons) == 0) {
    r->throttle.have = 1;
    r->throttle.v = nv_throttle_bits(reasons);
  }
  if (n->fields) {
    nv_field_value f[4];
    memset(f, 0, sizeof f);
    f[0].field_id = NV_FI_POWER;
    f[1].field_id = NV_FI_THERMAL;
    f[2].field_id = NV_FI_SYNC_BOOST;
    f[3].field_id = NV_FI_MEMORY_TEMP;
    if (n->fields(d, 4, f) == 0) {
      for (int i = 0; i < GPU_THR_TIMES; i++) r->throttle_ns[i] = gpu_value_in(nv_field(&f[i]), 0, 1e30);
      r->mem_temp_c = gpu_temp_c(nv_field(&f[3]));
    }
  }
  r->other_procs = nv_other_procs(n, d);
}

static void nvml_bus_id(const struct gpu_nvml *n, nv_dev d, char out[GPU_BUS_ID_LEN]) {
  nv_pci_info p;
  memset(&p, 0, sizeof p);
  out[0] = 0;
  if (!n->pci_info || n->pci_info(d, &p) != 0) return;
  p.bus_id[sizeof p.bus_id - 1] = 0;
  if (gpu_bus_id_normalise(p.bus_id, out) != 0) out[0] = 0;
}

void gpu_nvml_facts(const struct gpu_nvml *n, int index, struct gpu_facts *f) {
  nv_dev d = n->dev[index];
  unsigned u, base = 0, app = 0;
  int mode;
  if (n->name && n->name(d, f->name, sizeof f->name) == 0) f->name[sizeof f->name - 1] = 0;
  else f->name[0] = 0;
  if (n->driver && n->driver(f->driver, sizeof f->driver) == 0) f->driver[sizeof f->driver - 1] = 0;
  else f->driver[0] = 0;
  nvml_bus_id(n, d, f->bus_id);
  if (n->default_app_clock && n->default_app_clock(d, NV_CLOCK_SM, &base) == 0)
    f->base_sm_clock_mhz = gpu_clock_mhz(base);
  if (n->max_clock && n->max_clock(d, NV_CLOCK_SM, &u) == 0) f->max_sm_clock_mhz = gpu_clock_mhz(u);
  if (n->max_clock && n->max_clock(d, NV_CLOCK_MEM, &u) == 0) f->max_mem_clock_mhz = gpu_clock_mhz(u);
  if (n->power_limit && n->power_limit(d, &u) == 0) f->power_limit_w = gpu_power_w(u / 1000.0);
  if (n->persistence && n->persistence(d, &mode) == 0) f->persistence = gpu_value_in(mode, 0, 1);
  if (n->compute_mode && n->compute_mode(d, &mode) == 0) f->compute_mode = gpu_value_in(mode, 0, 3);
  if (f->base_sm_clock_mhz.have && n->app_clock && n->app_clock(d, NV_CLOCK_SM, &app) == 0 && gpu_clock_mhz(app).have) {
    f->app_clocks_set.have = 1;
    f->app_clocks_set.v = app != base;
  }
}

