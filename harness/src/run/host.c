/* Implementation of struct bench_host for the measuring child. */
#include "run/host.h"

#include <dlfcn.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/own_reference.h"
#include "check/dtype.h"
#include "core/hash.h"
#include "plugin/abi.h"

static struct host_state *state_of(const struct bench_host *api) {
  return (struct host_state *)api->host_data;
}

static const struct case_value *find_value(struct host_state *h, const char *name,
                                           enum bench_param_type type) {
  if (!h->cdef) {
    snprintf(h->message, sizeof h->message, "plugin bug: parameter '%s' read outside a case",
             name ? name : "(null)");
    h->bug = 1;
    return NULL;
  }
  for (size_t i = 0; name && i < h->cdef->nvalues; i++) {
    const struct case_value *v = &h->cdef->values[i];
    if (strcmp(v->param->name, name) != 0) continue;
    if (v->param->type != type) {
      snprintf(h->message, sizeof h->message,
               "plugin bug: parameter '%s' read with the wrong type", name);
      h->bug = 1;
      return NULL;
    }
    return v;
  }
  snprintf(h->message, sizeof h->message, "plugin bug: unknown parameter '%s'",
           name ? name : "(null)");
  h->bug = 1;
  return NULL;
}

static int64_t host_param_int(const struct bench_host *api, const char *name) {
  const struct case_value *v = find_value(state_of(api), name, BENCH_PARAM_INT);
  return v ? v->i : 0;
}

static double host_param_float(const struct bench_host *api, const char *name) {
  const struct case_value *v = find_value(state_of(api), name, BENCH_PARAM_FLOAT);
  return v ? v->f : 0.0;
}

static const char *host_param_str(const struct bench_host *api, const char *name) {
  const struct case_value *v = find_value(state_of(api), name, BENCH_PARAM_STRING);
  return v ? v->text : "";
}

static int host_skip(const struct bench_host *api, const char *fmt, ...) {
  struct host_state *h = state_of(api);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(h->message, sizeof h->message, fmt, ap);
  va_end(ap);
  return BENCH_SKIP;
}

static int host_fail(const struct bench_host *api, const char *fmt, ...) {
  struct host_state *h = state_of(api);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(h->message, sizeof h->message, fmt, ap);
  va_end(ap);
  return BENCH_ERROR;
}

/* The child's stderr goes to the parent, which keeps its tail for the
 * result of a failed case. */
static void host_log(const struct bench_host *api, const char *fmt, ...) {
  (void)api;
  va_list ap;
  va_start(ap, fmt);
  char buf[1024];
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  fprintf(stderr, "%s\n", buf);
}

/* Info "primary" names the case's primary figure (results/result.h
 * case_primary): one of the four words, and for a plugin of an operation
 * of the table the table's own (the table decides it). Else a plugin bug:
 * 0, and the first bug's message kept. */
static int primary_ok(struct host_state *h, const char *value) {
  enum op_primary p;
  const struct operation *op = operation_find(h->cdef ? h->cdef->plugin->operation : NULL);
  const int known = primary_parse(value, &p) == 0;
  if (known && (!op || op->primary == p)) return 1;
  if (!h->bug && !known)
    snprintf(h->message, sizeof h->message,
             "plugin bug: set_info(\"primary\", \"%.40s\"): must be flops, bytes, items or latency", value);
  else if (!h->bug)
    snprintf(h->message, sizeof h->message,
             "plugin bug: set_info(\"primary\", \"%s\"): operation %s's primary figure is %s (the operation "
             "table's)", value, op->name, primary_name(op->primary));
  h->bug = 1;
  return 0;
}

static void host_set_info(const struct bench_host *api, const char *key, const char *value) {
  struct host_state *h = state_of(api);
  if (!key || !value || !h->result) return;
  if (strcmp(key, "primary") == 0 && !primary_ok(h, value)) return;
  for (size_t i = 0; i < h->result->ninfo; i++) {
    if (strcmp(h->result->info[i].key, key) == 0) {
      free(h->result->info[i].value);
      h->result->info[i].value = xstrdup(value);
      return;
    }
  }
  kv_list_add(&h->result->ninfo, &h->result->info, key, value);
}

/* A note of the harness's on the case (kept with the plugin's "note"). */
static void add_note(struct host_state *h, const char *text) {
  if (!h->result) return;
  const char *had = kv_list_get(h->result->ninfo, h->result->info, "note");
  if (had && strstr(had, text)) return;
  char buf[512];
  snprintf(buf, sizeof buf, "%s%s%s", had ? had : "", had ? "; " : "", text);
  host_set_info(&h->api, "note", buf);
}

/* A figure a plugin reported that cannot be true: a plugin bug (the first
 * one is kept). */
static void bad_figure(struct host_state *h, const char *call, double v, const char *rule) {
  if (h->bug) return;
  snprintf(h->message, sizeof h->message, "plugin bug: %s(%g): %s", call, v, rule);
  h->bug = 1;
}

static void host_set_work(const struct bench_host *api, double flops, double bytes) {
  struct host_state *h = state_of(api);
  if (!(flops >= 0) || !isfinite(flops))
    return bad_figure(h, "set_work", flops, "flops must be finite and >= 0");
  if (!(bytes >= 0) || !isfinite(bytes))
    return bad_figure(h, "set_work", bytes, "bytes must be finite and >= 0");
  h->plugin_work = 1;
  if (!h->result) return;
  h->result->flops = flops;
  h->result->bytes = bytes;
  h->result->work_source = WORK_PLUGIN;
}

static void host_set_device_time(const struct bench_host *api, double ns) {
  struct host_state *h = state_of(api);
  if (!(ns >= 0) || !(ns <= HOST_MAX_DEVICE_NS))
    return bad_figure(h, "set_device_time", ns,
                      "a device time must be finite, >= 0 and at most 1e13 ns");
  h->device_ns += ns;
  h->device_calls++;
}

static void host_fill_random(const struct bench_host *api, void *dst, size_t count,
                             enum bench_dtype dtype, uint64_t seed) {
  (void)api;
  fill_random(dst, count, dtype, seed);
}

/* Fold one comparison into the case's check: the worst of each figure,
 * the first failure's message. */
static void accumulate(struct host_state *h, const struct check_result *r) {
  struct check_result *acc = &h->result->check;
  if (!acc->checked && h->checks == 1) {
    *acc = *r;
  } else if (r->checked) {
    if (r->max_abs_err > acc->max_abs_err) acc->max_abs_err = r->max_abs_err;
    if (r->max_rel_err > acc->max_rel_err) acc->max_rel_err = r->max_rel_err;
    acc->compared += r->compared;
    acc->mismatches += r->mismatches;
    if (acc->pass && !r->pass) {
      acc->first_bad = r->first_bad;
      acc->bad_out = r->bad_out;
      acc->bad_ref = r->bad_ref;
      memcpy(acc->message, r->message, sizeof acc->message);
    }
    if (!acc->checked) memcpy(acc->method, r->method, sizeof acc->method);
    acc->pass = acc->pass && r->pass;
    acc->checked = 1;
  }
}

/* A case's work when its plugin names an operation of the table and did
 * not state its own with set_work: the table's figure for each check of
 * that operation in one verify() (two outputs of the operation are two
 * calls of it), from the same dims the check uses. verify() runs after
 * the timing with the full problem, so every case that got a time gets
 * its work; the determinism rerun computes the same figure again. */
static void record_operation_work(struct host_state *h, const struct check_problem *p) {
  if (h->plugin_work || !h->result || !h->cdef || !h->cdef->plugin->operation ||
      strcmp(h->cdef->plugin->operation, p->op->name) != 0)
    return;
  const struct op_work w = check_problem_work(p);
  struct case_result *r = h->result;
  if (h->op_checks++ == 0) r->flops = r->bytes = 0;
  r->flops += w.flops;
  r->bytes += w.bytes;
  r->work_source = WORK_OPERATION;
}

/* The one entry of a plugin's bench_check: validated once here, then
 * hashed, counted as work and compared. */
static int host_check(const struct bench_host *api, const struct bench_check *c) {
  struct host_state *h = state_of(api);
  h->checks++;
  struct check_problem p;
  char why[256];
  struct bench_check in; /* c as our layout, read as far as the plugin's ABI has it */
  if (abi_check_in(h->cdef ? h->cdef->plugin : NULL, &c, &in, why, sizeof why) != 0) {
    snprintf(h->message, sizeof h->message, "plugin bug: malformed check: %s", why);
    h->bug = 1;
    return BENCH_ERROR;
  }
  if (check_prepare(c, &p, why, sizeof why) != 0) {
    snprintf(h->message, sizeof h->message, "plugin bug: malformed check: %s", why);
    h->bug = 1;
    return BENCH_ERROR;
  }
  h->hash = fnv1a64(h->hash, c->out, check_problem_output_bytes(&p));
  record_operation_work(h, &p);
  if (h->hash_only) return BENCH_OK;
  struct check_result r;
  if (check_problem_output(&p, h->verify, h->seed, &r) != 0) {
    snprintf(h->message, sizeof h->message, "plugin bug: %s", r.message);
    h->bug = 1;
    return BENCH_ERROR;
  }
  accumulate(h, &r);
  if (r.note[0]) add_note(h, r.note); /* an integral result under a tolerance (check.h) */
  /* The check's own time (info check_s), to set against the case's wall. */
  h->check_s += r.seconds;
  char secs[32];
  snprintf(secs, sizeof secs, "%.4f", h->check_s);
  host_set_info(api, "check_s", secs);
  return BENCH_OK;
}

/* ---- ABI 1.1 extensions ---------------------------------------------- */

static void host_set_items(const struct bench_host *api, double items, const char *unit) {
  struct host_state *h = state_of(api);
  if (!(items > 0) || !isfinite(items))
    return bad_figure(h, "set_items", items, "items must be finite and > 0");
  if (!unit || !unit[0]) unit = "items";
  size_t len = strlen(unit);
  int ok = len < sizeof h->result->item_unit;
  for (size_t i = 0; ok && i < len; i++)
    ok = (unit[i] >= 'a' && unit[i] <= 'z') || unit[i] == '_';
  if (!ok) {
    if (!h->bug)
      snprintf(h->message, sizeof h->message,
               "plugin bug: set_items: unit \"%.40s\" must be a lower-case word of at most %zu "
               "letters", unit, sizeof h->result->item_unit - 1);
    h->bug = 1;
    return;
  }
  if (!h->result) return;
  h->result->items = items;
  memcpy(h->result->item_unit, unit, len + 1);
}

static int host_compare(const struct bench_host *api, const struct bench_compare *c) {
  struct host_state *h = state_of(api);
  h->checks++;
  char why[256];
  struct bench_compare in; /* c as our layout, read as far as the plugin's ABI has it */
  if (abi_compare_in(h->cdef ? h->cdef->plugin : NULL, &c, &in, why, sizeof why) != 0) {
    snprintf(h->message, sizeof h->message, "plugin bug: malformed compare: %s", why);
    h->bug = 1;
    return BENCH_ERROR;
  }
  if (compare_validate(c, why, sizeof why) != 0) {
    snprintf(h->message, sizeof h->message, "plugin bug: malformed compare: %s", why);
    h->bug = 1;
    return BENCH_ERROR;
  }
  h->hash = fnv1a64(h->hash, c->out, compare_output_bytes(c));
  if (h->hash_only) return BENCH_OK;
  struct check_result r;
  int rc = compare_output(c, api, h->verify, &r);
  if (rc == -2) { /* ref_fn failed: its host->fail() reason stands */
    h->ref_failed = 1;
    if (!h->message[0]) snprintf(h->message, sizeof h->message, "ref_fn failed without a reason");
    return BENCH_ERROR;
  }
  if (rc != 0) {
    snprintf(h->message, sizeof h->message, "plugin bug: %s", r.message);
    h->bug = 1;
    return BENCH_ERROR;
  }
  accumulate(h, &r);
  if (compare_note(c, why, sizeof why)) add_note(h, why);
  return BENCH_OK;
}

static int host_mismatch(const struct bench_host *api, const char *fmt, ...) {
  struct host_state *h = state_of(api);
  h->checks++;
  if (h->hash_only) return BENCH_OK;
  struct check_result r;
  memset(&r, 0, sizeof r);
  r.checked = 1;
  r.pass = 0;
  r.first_bad = -1;
  r.mismatches = 1;
  snprintf(r.method, sizeof r.method, "plugin-self");
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(r.message, sizeof r.message, fmt ? fmt : "(no reason)", ap);
  va_end(ap);
  if (!r.message[0]) snprintf(r.message, sizeof r.message, "the plugin's own check failed");
  accumulate(h, &r);
  return BENCH_OK;
}

static const struct bench_ext_items ext_items = {host_set_items};
static int host_matched(const struct bench_host *api, const char *what) {
  struct host_state *h = state_of(api);
  h->checks++;
  if (h->hash_only) return BENCH_OK;
  struct check_result r;
  memset(&r, 0, sizeof r);
  r.checked = 1;
  r.pass = 1;
  r.first_bad = -1;
  snprintf(r.method, sizeof r.method, "plugin-self");
  (void)what; /* a pass carries no message */
  accumulate(h, &r);
  return BENCH_OK;
}

static const struct bench_ext_compare ext_compare = {host_compare, host_mismatch, host_matched};

/* ---- extension "bench.process/1": slots kept for the whole process ---- */

#define PROCESS_SLOTS 64

struct process_slot {
  char key[BENCH_PROCESS_KEY_MAX + 1];
  void *ptr;
  void (*release)(void *ptr);
};

/* This process's slots, in the order they were put (released in reverse). */
static struct process_slot process_slots[PROCESS_SLOTS];
static size_t process_nslots;

static int key_ok(const char *key) {
  return key && key[0] && strlen(key) <= BENCH_PROCESS_KEY_MAX;
}

static void *host_process_get(const struct bench_host *api, const char *key) {
  (void)api;
  if (!key_ok(key)) return NULL;
  for (size_t i = 0; i < process_nslots; i++)
    if (strcmp(process_slots[i].key, key) == 0) return process_slots[i].ptr;
  return NULL;
}

static int host_process_put(const struct bench_host *api, const char *key, void *ptr,
                            void (*release)(void *ptr)) {
  if (!key_ok(key))
    return api->fail(api, "plugin bug: bench.process put: the key must be 1 to %d characters",
                     BENCH_PROCESS_KEY_MAX);
  size_t i = 0;
  while (i < process_nslots && strcmp(process_slots[i].key, key) != 0) i++;
  if (i < process_nslots) { /* replaced or removed: the old value is released now */
    struct process_slot old = process_slots[i];
    memmove(&process_slots[i], &process_slots[i + 1], (process_nslots - i - 1) * sizeof old);
    process_nslots--;
    if (old.release) old.release(old.ptr);
  }
  if (!ptr) return BENCH_OK;
  if (process_nslots == PROCESS_SLOTS)
    return api->fail(api, "bench.process put(%s): all %d slots of this process are taken", key,
                     PROCESS_SLOTS);
  struct process_slot *s = &process_slots[process_nslots++];
  snprintf(s->key, sizeof s->key, "%s", key);
  s->ptr = ptr;
  s->release = release;
  return BENCH_OK;
}

/* The GPU management library, opened once per process (host_gpu_library). */
static struct {
  int tried;
  struct gpu_telemetry *t;
  char note[256];
} gpu_lib;

struct gpu_telemetry *host_gpu_library(char *note, size_t len) {
  if (!gpu_lib.tried) {
    gpu_lib.tried = 1;
    gpu_lib.t = gpu_telemetry_open(gpu_lib.note, sizeof gpu_lib.note);
  }
  snprintf(note, len, "%s", gpu_lib.t ? "" : gpu_lib.note);
  return gpu_lib.t;
}

void host_process_release_each(host_release_fn before, void *arg) {
  while (process_nslots > 0) {
    struct process_slot s = process_slots[--process_nslots];
    if (!s.release) continue;
    if (before) {
      /* the plugin whose code the callback is: the file it lies in */
      Dl_info di;
      void *fn;
      memcpy(&fn, &s.release, sizeof fn);
      const char *file = dladdr(fn, &di) && di.dli_fname ? di.dli_fname : NULL;
      before(arg, s.key, file);
    }
    s.release(s.ptr);
  }
  gpu_telemetry_close(gpu_lib.t);
  memset(&gpu_lib, 0, sizeof gpu_lib);
}

void host_process_release(void) { host_process_release_each(NULL, NULL); }

size_t host_process_nslots(void) { return process_nslots; }

static const struct bench_ext_process ext_process = {host_process_get, host_process_put};

/* ---- extension "bench.device/1": the GPU a case runs on, its clock ----- */

/* The highest clock a GPU can have (gpu_telemetry.h drops readings above it). */
#define HOST_MAX_CLOCK_MHZ 10000.0

static void host_set_device(const struct bench_host *api, const char *pci_bus_id,
                            double default_clock_mhz) {
  struct host_state *h = state_of(api);
  char bus[GPU_BUS_ID_LEN] = "";
  if (pci_bus_id && pci_bus_id[0] && gpu_bus_id_normalise(pci_bus_id, bus) != 0) {
    if (!h->bug)
      snprintf(h->message, sizeof h->message,
               "plugin bug: set_device(\"%.40s\"): not a PCI bus id (e.g. 0000:3b:00.0)", pci_bus_id);
    h->bug = 1;
    return;
  }
  if (default_clock_mhz != 0 && !(default_clock_mhz > 0 && default_clock_mhz <= HOST_MAX_CLOCK_MHZ))
    return bad_figure(h, "set_device", default_clock_mhz,
                      "a default clock must be 0 (unknown) or finite in (0, 10000] MHz");
  h->device.named = 1;
  memcpy(h->device.bus_id, bus, sizeof bus);
  h->device.default_clock_mhz = default_clock_mhz;
}

static void host_set_clock(const struct bench_host *api, double mhz) {
  struct host_state *h = state_of(api);
  if (!(mhz > 0 && mhz <= HOST_MAX_CLOCK_MHZ))
    return bad_figure(h, "set_clock", mhz, "a clock must be finite and in (0, 10000] MHz");
  h->clock_sum += mhz;
  h->clock_calls++;
  h->clock_seen = 1;
}

static const struct bench_ext_device ext_device = {host_set_device, host_set_clock};

/* ---- bench.roof/1 ------------------------------------------------------ */

/* A roof id: [a-z0-9_]{1,31}, optionally ".1t". */
static int roof_id_ok(const char *id) {
  if (!id) return 0;
  size_t n = strlen(id);
  if (n > 3 && strcmp(id + n - 3, ".1t") == 0) n -= 3;
  if (n < 1 || n > 31) return 0;
  for (size_t i = 0; i < n; i++)
    if (!((id[i] >= 'a' && id[i] <= 'z') || (id[i] >= '0' && id[i] <= '9') || id[i] == '_')) return 0;
  return 1;
}

static int roof_bug(struct host_state *h, const char *what) {
  if (!h->bug) snprintf(h->message, sizeof h->message, "plugin bug: set_roof: %s", what);
  h->bug = 1;
  return BENCH_ERROR;
}

/* The roof goes into the case's info (roof, roof_kind, roof_method,
 * roof_capacity_bytes, roof_datasheet, roof_datasheet_how): the result
 * files carry it, and bench peak and the report read it from there. */
static int host_set_roof(const struct bench_host *api, const struct bench_roof *roof) {
  struct host_state *h = state_of(api);
  if (!roof) return roof_bug(h, "roof is NULL");
  if (!roof_id_ok(roof->id))
    return roof_bug(h, "id must be 1 to 31 lower-case letters, digits or '_', optionally ending in \".1t\"");
  const char *kind = roof->kind == BENCH_ROOF_COMPUTE     ? "compute"
                     : roof->kind == BENCH_ROOF_BANDWIDTH ? "bandwidth"
                     : roof->kind == BENCH_ROOF_LATENCY   ? "latency"
                                                          : NULL;
  if (!kind) return roof_bug(h, "kind must be BENCH_ROOF_COMPUTE, _BANDWIDTH or _LATENCY");
  if (!(roof->capacity_bytes >= 0) || !isfinite(roof->capacity_bytes))
    return roof_bug(h, "capacity_bytes must be finite and >= 0");
  if (!(roof->datasheet >= 0) || !isfinite(roof->datasheet))
    return roof_bug(h, "datasheet must be finite and >= 0 (0: unknown)");
  if (!h->cdef) return roof_bug(h, "call it from setup()");
  char num[64];
  host_set_info(api, "roof", roof->id);
  host_set_info(api, "roof_kind", kind);
  if (roof->method && *roof->method) host_set_info(api, "roof_method", roof->method);
  if (roof->capacity_bytes > 0) {
    snprintf(num, sizeof num, "%.17g", roof->capacity_bytes);
    host_set_info(api, "roof_capacity_bytes", num);
  }
  if (roof->datasheet > 0) {
    snprintf(num, sizeof num, "%.17g", roof->datasheet);
    host_set_info(api, "roof_datasheet", num);
    if (roof->datasheet_how && *roof->datasheet_how) host_set_info(api, "roof_datasheet_how", roof->datasheet_how);
  }
  return BENCH_OK;
}

static const struct bench_ext_roof ext_roof = {host_set_roof};

static const void *host_get_extension(const struct bench_host *api, const char *id) {
  (void)api;
  if (!id) return NULL;
  if (strcmp(id, BENCH_EXT_ITEMS) == 0) return &ext_items;
  if (strcmp(id, BENCH_EXT_COMPARE) == 0) return &ext_compare;
  if (strcmp(id, BENCH_EXT_PROCESS) == 0 && !getenv("BENCH_NO_PROCESS_SLOTS")) return &ext_process;
  if (strcmp(id, BENCH_EXT_DEVICE) == 0 && !getenv("BENCH_NO_DEVICE_EXT")) return &ext_device;
  if (strcmp(id, BENCH_EXT_ROOF) == 0 && !getenv("BENCH_NO_ROOF_EXT")) return &ext_roof;
  return NULL;
}

void host_init(struct host_state *h, const struct case_def *c, struct case_result *r,
               enum verify_level verify) {
  memset(h, 0, sizeof *h);
  h->api.abi_version = BENCH_ABI_VERSION;
  h->api.host_data = h;
  h->api.param_int = host_param_int;
  h->api.param_float = host_param_float;
  h->api.param_str = host_param_str;
  h->api.skip = host_skip;
  h->api.fail = host_fail;
  h->api.log = host_log;
  h->api.set_info = host_set_info;
  h->api.set_work = host_set_work;
  h->api.set_device_time = host_set_device_time;
  h->api.fill_random = host_fill_random;
  h->api.check = host_check;
  h->api.get_extension = host_get_extension;
  h->cdef = c;
  h->result = r;
  h->verify = verify;
  h->seed = 0x62656e6368ull; /* "bench" */
  h->hash = FNV1A64_INIT;
}

void host_reset_check(struct host_state *h, int hash_only) {
  h->hash_only = hash_only;
  h->hash = FNV1A64_INIT;
  h->checks = 0;
  h->check_s = 0;
  h->op_checks = 0;
  h->ref_failed = 0;
}
