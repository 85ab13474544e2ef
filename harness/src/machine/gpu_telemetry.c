/* Device telemetry through NVML or ROCm SMI, opened with dlopen and our own
 * declarations (gpu_telemetry.h). Each symbol is looked up on its own; a
 * call that is missing or fails leaves its value absent. */
#define _GNU_SOURCE
#include "gpu_telemetry.h"

#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- NVML's declarations (nvml.h, as nvtop declares them) ---- */
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

struct nvml {
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

/* ---- ROCm SMI's declarations (rocm_smi.h 5.2) ---- */
typedef int rs_ret;
enum { RS_CLK_SYS = 0, RS_CLK_MEM = 4, RS_TEMP_EDGE = 0, RS_TEMP_MEMORY = 2, RS_TEMP_CURRENT = 0 };
enum { RS_MAX_FREQS = 32 };
typedef struct {
  uint32_t num_supported;
  uint32_t current;
  uint64_t frequency[RS_MAX_FREQS];
} rs_freqs;

struct rsmi {
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
};

enum lib_kind { LIB_NVML, LIB_RSMI };

struct gpu_telemetry {
  void *lib;
  enum lib_kind kind;
  int count;
  char gaps[160];
  struct nvml nv;
  struct rsmi rs;
};

/* ---- values that can be true ---- */
static struct gpu_value value_in(double v, double lo, double hi) {
  struct gpu_value g = {0, 0};
  if (isfinite(v) && v >= lo && v <= hi) {
    g.have = 1;
    g.v = v;
  }
  return g;
}
static struct gpu_value clock_mhz(double v) { return value_in(v, 0, 10000); }
static struct gpu_value power_w(double v) { return value_in(v, 0, 10000); }
static struct gpu_value temp_c(double v) { return value_in(v, -50, 200); }
static struct gpu_value count_of(double v) { return value_in(v, 0, 1e9); }

/* dlsym of the first name the library has (names: NULL-terminated). */
static void load(void *lib, void *fn_ptr, const char *const *names) {
  void *p = NULL;
  for (; *names && !p; names++) p = dlsym(lib, *names);
  memcpy(fn_ptr, &p, sizeof p);
}
#define LOAD(lib, fn, ...) load((lib), &(fn), (const char *const[]){__VA_ARGS__, NULL})

static void add_gap(struct gpu_telemetry *t, const char *what) {
  size_t n = strlen(t->gaps);
  snprintf(t->gaps + n, sizeof t->gaps - n, "%s%s", n ? ", " : "", what);
}

/* ---- NVML ---- */
static void nvml_load(struct gpu_telemetry *t) {
  struct nvml *n = &t->nv;
  void *l = t->lib;
  LOAD(l, n->init, "nvmlInit_v2", "nvmlInit");
  LOAD(l, n->shutdown, "nvmlShutdown");
  LOAD(l, n->error_string, "nvmlErrorString");
  LOAD(l, n->count, "nvmlDeviceGetCount_v2", "nvmlDeviceGetCount");
  LOAD(l, n->handle, "nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex");
  LOAD(l, n->pci_info, "nvmlDeviceGetPciInfo_v3", "nvmlDeviceGetPciInfo_v2", "nvmlDeviceGetPciInfo");
  LOAD(l, n->name, "nvmlDeviceGetName");
  LOAD(l, n->driver, "nvmlSystemGetDriverVersion");
  LOAD(l, n->clock, "nvmlDeviceGetClockInfo");
  LOAD(l, n->max_clock, "nvmlDeviceGetMaxClockInfo");
  LOAD(l, n->default_app_clock, "nvmlDeviceGetDefaultApplicationsClock");
  LOAD(l, n->app_clock, "nvmlDeviceGetApplicationsClock");
  LOAD(l, n->power, "nvmlDeviceGetPowerUsage");
  LOAD(l, n->power_limit, "nvmlDeviceGetEnforcedPowerLimit");
  LOAD(l, n->temperature, "nvmlDeviceGetTemperature");
  LOAD(l, n->persistence, "nvmlDeviceGetPersistenceMode");
  LOAD(l, n->compute_mode, "nvmlDeviceGetComputeMode");
  LOAD(l, n->throttle, "nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons");
  LOAD(l, n->fields, "nvmlDeviceGetFieldValues");
  LOAD(l, n->procs_v2, "nvmlDeviceGetComputeRunningProcesses_v3", "nvmlDeviceGetComputeRunningProcesses_v2");
  LOAD(l, n->procs_v1, "nvmlDeviceGetComputeRunningProcesses");
  if (!n->throttle) add_gap(t, "nvml: no throttle reasons");
  if (!n->fields) add_gap(t, "nvml: no field values (throttle time, memory temperature)");
  if (!n->procs_v2 && !n->procs_v1) add_gap(t, "nvml: no process list");
}

/* 0, or -1 with the reason in note. */
static int nvml_start(struct gpu_telemetry *t, char *note, size_t len) {
  struct nvml *n = &t->nv;
  nvml_load(t);
  if (!n->init || !n->count || !n->handle) {
    snprintf(note, len, "libnvidia-ml.so.1: no nvmlInit, nvmlDeviceGetCount or nvmlDeviceGetHandleByIndex");
    return -1;
  }
  nv_ret rc = n->init();
  if (rc != 0) {
    const char *why = n->error_string ? n->error_string(rc) : NULL;
    snprintf(note, len, "libnvidia-ml.so.1: nvmlInit failed: %s (%d)", why ? why : "error", rc);
    return -1;
  }
  unsigned count = 0;
  if (n->count(&count) != 0) count = 0;
  if (count > GPU_MAX_DEVICES) count = GPU_MAX_DEVICES;
  for (unsigned i = 0; i < count; i++) {
    if (n->handle(i, &n->dev[t->count]) == 0) t->count++;
  }
  return 0;
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

static struct gpu_value nv_other_procs(const struct nvml *n, nv_dev d) {
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
  return count_of(others);
}

static void nvml_read(const struct nvml *n, nv_dev d, struct gpu_reading *r) {
  unsigned u;
  if (n->clock && n->clock(d, NV_CLOCK_SM, &u) == 0) r->sm_clock_mhz = clock_mhz(u);
  if (n->clock && n->clock(d, NV_CLOCK_MEM, &u) == 0) r->mem_clock_mhz = clock_mhz(u);
  if (n->power && n->power(d, &u) == 0) r->power_w = power_w(u / 1000.0);
  if (n->temperature && n->temperature(d, NV_TEMP_GPU, &u) == 0) r->temp_c = temp_c(u);
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
      for (int i = 0; i < GPU_THR_TIMES; i++) r->throttle_ns[i] = value_in(nv_field(&f[i]), 0, 1e30);
      r->mem_temp_c = temp_c(nv_field(&f[3]));
    }
  }
  r->other_procs = nv_other_procs(n, d);
}

static void nvml_bus_id(const struct nvml *n, nv_dev d, char out[GPU_BUS_ID_LEN]) {
  nv_pci_info p;
  memset(&p, 0, sizeof p);
  out[0] = 0;
  if (!n->pci_info || n->pci_info(d, &p) != 0) return;
  p.bus_id[sizeof p.bus_id - 1] = 0;
  if (gpu_bus_id_normalise(p.bus_id, out) != 0) out[0] = 0;
}

static void nvml_facts(const struct nvml *n, nv_dev d, struct gpu_facts *f) {
  unsigned u, base = 0, app = 0;
  int mode;
  if (n->name && n->name(d, f->name, sizeof f->name) == 0) f->name[sizeof f->name - 1] = 0;
  else f->name[0] = 0;
  if (n->driver && n->driver(f->driver, sizeof f->driver) == 0) f->driver[sizeof f->driver - 1] = 0;
  else f->driver[0] = 0;
  nvml_bus_id(n, d, f->bus_id);
  if (n->default_app_clock && n->default_app_clock(d, NV_CLOCK_SM, &base) == 0)
    f->base_sm_clock_mhz = clock_mhz(base);
  if (n->max_clock && n->max_clock(d, NV_CLOCK_SM, &u) == 0) f->max_sm_clock_mhz = clock_mhz(u);
  if (n->max_clock && n->max_clock(d, NV_CLOCK_MEM, &u) == 0) f->max_mem_clock_mhz = clock_mhz(u);
  if (n->power_limit && n->power_limit(d, &u) == 0) f->power_limit_w = power_w(u / 1000.0);
  if (n->persistence && n->persistence(d, &mode) == 0) f->persistence = value_in(mode, 0, 1);
  if (n->compute_mode && n->compute_mode(d, &mode) == 0) f->compute_mode = value_in(mode, 0, 3);
  if (f->base_sm_clock_mhz.have && n->app_clock && n->app_clock(d, NV_CLOCK_SM, &app) == 0 && clock_mhz(app).have) {
    f->app_clocks_set.have = 1;
    f->app_clocks_set.v = app != base;
  }
}

/* ---- ROCm SMI ---- */
static void rsmi_load(struct gpu_telemetry *t) {
  struct rsmi *s = &t->rs;
  void *l = t->lib;
  LOAD(l, s->init, "rsmi_init");
  LOAD(l, s->shutdown, "rsmi_shut_down");
  LOAD(l, s->count, "rsmi_num_monitor_devices");
  LOAD(l, s->pci_id, "rsmi_dev_pci_id_get");
  LOAD(l, s->name, "rsmi_dev_name_get");
  LOAD(l, s->version, "rsmi_version_str_get");
  LOAD(l, s->clock, "rsmi_dev_gpu_clk_freq_get");
  LOAD(l, s->power, "rsmi_dev_power_ave_get");
  LOAD(l, s->power_cap, "rsmi_dev_power_cap_get");
  LOAD(l, s->temperature, "rsmi_dev_temp_metric_get");
  add_gap(t, "rocm_smi: no throttle reasons, throttle time or process list");
}

static int rsmi_start(struct gpu_telemetry *t, const char *file, char *note, size_t len) {
  struct rsmi *s = &t->rs;
  rsmi_load(t);
  if (!s->init || !s->count) {
    snprintf(note, len, "%s: no rsmi_init or rsmi_num_monitor_devices", file);
    return -1;
  }
  rs_ret rc = s->init(0);
  if (rc != 0) {
    snprintf(note, len, "%s: rsmi_init failed (%d)", file, rc);
    return -1;
  }
  uint32_t count = 0;
  if (s->count(&count) != 0) count = 0;
  t->count = count > GPU_MAX_DEVICES ? GPU_MAX_DEVICES : (int)count;
  return 0;
}

/* The current frequency (which = 0) or the highest (which = 1), MHz. */
static struct gpu_value rs_clock(const struct rsmi *s, uint32_t i, int type, int highest) {
  struct gpu_value none = {0, 0};
  rs_freqs f;
  memset(&f, 0, sizeof f);
  if (!s->clock || s->clock(i, type, &f) != 0) return none;
  if (f.num_supported == 0 || f.num_supported > RS_MAX_FREQS) return none;
  uint32_t at = highest ? f.num_supported - 1 : f.current;
  if (at >= f.num_supported) return none;
  return clock_mhz(f.frequency[at] / 1e6);
}

static struct gpu_value rs_temp(const struct rsmi *s, uint32_t i, uint32_t sensor) {
  struct gpu_value none = {0, 0};
  int64_t milli;
  if (!s->temperature || s->temperature(i, sensor, RS_TEMP_CURRENT, &milli) != 0) return none;
  return temp_c(milli / 1000.0);
}

static void rsmi_read(const struct rsmi *s, uint32_t i, struct gpu_reading *r) {
  uint64_t uw;
  r->sm_clock_mhz = rs_clock(s, i, RS_CLK_SYS, 0);
  r->mem_clock_mhz = rs_clock(s, i, RS_CLK_MEM, 0);
  if (s->power && s->power(i, 0, &uw) == 0) r->power_w = power_w(uw / 1e6);
  r->temp_c = rs_temp(s, i, RS_TEMP_EDGE);
  r->mem_temp_c = rs_temp(s, i, RS_TEMP_MEMORY);
}

static void rsmi_facts(const struct rsmi *s, uint32_t i, struct gpu_facts *f) {
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
  if (s->power_cap && s->power_cap(i, 0, &v) == 0) f->power_limit_w = power_w(v / 1e6);
}

/* ---- the public API ---- */
struct gpu_telemetry *gpu_telemetry_open(char *note, size_t note_len) {
  static const char *const rsmi_names[] = {"librocm_smi64.so", "librocm_smi64.so.1", "librocm_smi64.so.5"};
  char why_nv[256] = "", why_rs[256] = "";
  struct gpu_telemetry *t = calloc(1, sizeof *t);
  if (!t) {
    snprintf(note, note_len, "gpu telemetry: out of memory");
    return NULL;
  }
  t->kind = LIB_NVML;
  t->lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!t->lib) {
    snprintf(why_nv, sizeof why_nv, "%s", dlerror());
  } else {
    if (nvml_start(t, why_nv, sizeof why_nv) == 0) return t;
    dlclose(t->lib);
  }
  memset(t, 0, sizeof *t);
  for (size_t i = 0; i < sizeof rsmi_names / sizeof *rsmi_names; i++) {
    t->lib = dlopen(rsmi_names[i], RTLD_NOW | RTLD_LOCAL);
    if (!t->lib) {
      if (i == 0) snprintf(why_rs, sizeof why_rs, "%s", dlerror());
      continue;
    }
    t->kind = LIB_RSMI;
    if (rsmi_start(t, rsmi_names[i], why_rs, sizeof why_rs) == 0) return t;
    dlclose(t->lib);
    memset(t, 0, sizeof *t);
    break;
  }
  snprintf(note, note_len, "no NVIDIA or AMD management library: %s; %s", why_nv, why_rs);
  free(t);
  return NULL;
}

void gpu_telemetry_close(struct gpu_telemetry *t) {
  if (!t) return;
  if (t->kind == LIB_NVML && t->nv.shutdown) t->nv.shutdown();
  if (t->kind == LIB_RSMI && t->rs.shutdown) t->rs.shutdown();
  dlclose(t->lib);
  free(t);
}

const char *gpu_telemetry_library(const struct gpu_telemetry *t) { return t->kind == LIB_NVML ? "nvml" : "rocm_smi"; }
const char *gpu_telemetry_gaps(const struct gpu_telemetry *t) { return t->gaps; }
int gpu_telemetry_count(const struct gpu_telemetry *t) { return t->count; }

int gpu_bus_id_normalise(const char *in, char out[GPU_BUS_ID_LEN]) {
  unsigned dom = 0, bus, dev, fn;
  int used = -1;
  if (!in || strspn(in, "0123456789abcdefABCDEF:.") != strlen(in)) return -1;
  size_t colons = 0;
  for (const char *p = in; *p; p++) colons += *p == ':';
  if (colons == 2) sscanf(in, "%x:%x:%x.%x%n", &dom, &bus, &dev, &fn, &used);
  else if (colons == 1) sscanf(in, "%x:%x.%x%n", &bus, &dev, &fn, &used);
  if (used < 0 || in[used] != 0 || bus > 0xff || dev > 0x1f || fn > 7) return -1;
  snprintf(out, GPU_BUS_ID_LEN, "%04x:%02x:%02x.%x", dom, bus, dev, fn);
  return 0;
}

int gpu_telemetry_find(const struct gpu_telemetry *t, const char *bus_id) {
  char want[GPU_BUS_ID_LEN];
  if (!bus_id || !*bus_id) return -1;
  if (strspn(bus_id, "0123456789") == strlen(bus_id)) {
    long i = strtol(bus_id, NULL, 10);
    return i < t->count ? (int)i : -1;
  }
  if (gpu_bus_id_normalise(bus_id, want) != 0) return -1;
  for (int i = 0; i < t->count; i++) {
    struct gpu_facts f;
    if (gpu_telemetry_facts(t, i, &f) == 0 && strcmp(f.bus_id, want) == 0) return i;
  }
  return -1;
}

int gpu_telemetry_facts(const struct gpu_telemetry *t, int index, struct gpu_facts *f) {
  memset(f, 0, sizeof *f);
  if (index < 0 || index >= t->count) return -1;
  if (t->kind == LIB_NVML) nvml_facts(&t->nv, t->nv.dev[index], f);
  else rsmi_facts(&t->rs, (uint32_t)index, f);
  return 0;
}

int gpu_telemetry_read(const struct gpu_telemetry *t, int index, struct gpu_reading *r) {
  memset(r, 0, sizeof *r);
  if (index < 0 || index >= t->count) return -1;
  if (t->kind == LIB_NVML) nvml_read(&t->nv, t->nv.dev[index], r);
  else rsmi_read(&t->rs, (uint32_t)index, r);
  return 0;
}

int gpu_throttle_names(unsigned bits, char *buf, size_t len) {
  static const char *const names[] = {"gpu_idle",   "app_clocks", "sw_power_cap",   "hw_slowdown",    "sync_boost",
                                      "sw_thermal", "hw_thermal", "hw_power_brake", "display_clocks", "other"};
  int n = 0;
  if (len) buf[0] = 0;
  for (unsigned i = 0; i < sizeof names / sizeof *names; i++) {
    if (!(bits & (1u << i))) continue;
    size_t at = (size_t)n < len ? (size_t)n : len;
    n += snprintf(buf + at, len - at, "%s%s", n ? "," : "", names[i]);
  }
  return n;
}

/* ---- the accumulator ---- */
static void stat_add(struct gpu_stat *s, struct gpu_value v) {
  if (!v.have) return;
  if (s->n == 0 || v.v < s->min) s->min = v.v;
  if (s->n == 0 || v.v > s->max) s->max = v.v;
  s->sum += v.v;
  s->n++;
}

void gpu_accum_init(struct gpu_accum *a) { memset(a, 0, sizeof *a); }

void gpu_accum_add(struct gpu_accum *a, const struct gpu_reading *r) {
  a->samples++;
  stat_add(&a->sm_clock_mhz, r->sm_clock_mhz);
  stat_add(&a->mem_clock_mhz, r->mem_clock_mhz);
  stat_add(&a->power_w, r->power_w);
  stat_add(&a->temp_c, r->temp_c);
  stat_add(&a->mem_temp_c, r->mem_temp_c);
  stat_add(&a->other_procs, r->other_procs);
  if (r->throttle.have) {
    a->have_throttle = 1;
    a->throttle |= (unsigned)r->throttle.v;
  }
  for (int i = 0; i < GPU_THR_TIMES; i++) {
    if (!r->throttle_ns[i].have) continue;
    if (!a->throttle_ns_first[i].have) a->throttle_ns_first[i] = r->throttle_ns[i];
    a->throttle_ns_last[i] = r->throttle_ns[i];
  }
}

static struct gpu_value stat_value(const struct gpu_stat *s, double v) {
  struct gpu_value g = {s->n > 0, s->n > 0 ? v : 0};
  return g;
}
struct gpu_value gpu_stat_mean(const struct gpu_stat *s) { return stat_value(s, s->n ? s->sum / (double)s->n : 0); }
struct gpu_value gpu_stat_min(const struct gpu_stat *s) { return stat_value(s, s->min); }
struct gpu_value gpu_stat_max(const struct gpu_stat *s) { return stat_value(s, s->max); }

struct gpu_value gpu_accum_throttle_ns(const struct gpu_accum *a, int which) {
  struct gpu_value none = {0, 0};
  if (which < 0 || which >= GPU_THR_TIMES) return none;
  const struct gpu_value *f = &a->throttle_ns_first[which], *l = &a->throttle_ns_last[which];
  if (!f->have || !l->have || l->v < f->v) return none;
  struct gpu_value d = {1, l->v - f->v};
  return d;
}
