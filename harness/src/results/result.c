/* Case results: status and determinism names, the primary timer and
 * throughput, and the life cycle of results, key/value lists and run files. */
#include "results/result.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/units.h"
#include "core/util.h"

static const char *const status_names[CASE_STATUS_COUNT] = {
    [CASE_OK] = "OK",
    [CASE_SKIPPED] = "SKIPPED",
    [CASE_WRONG_ANSWER] = "WRONG_ANSWER",
    [CASE_CRASH] = "CRASH",
    [CASE_TIMEOUT] = "TIMEOUT",
    [CASE_ERROR] = "ERROR",
    [CASE_INTERRUPTED] = "INTERRUPTED",
};

const char *case_status_name(enum case_status s) {
  if ((unsigned)s >= CASE_STATUS_COUNT) return "UNKNOWN";
  return status_names[s];
}

int case_status_parse(const char *s, enum case_status *out) {
  if (!s) return -1;
  for (int i = 0; i < CASE_STATUS_COUNT; i++) {
    if (strcmp(s, status_names[i]) == 0) {
      *out = (enum case_status)i;
      return 0;
    }
  }
  return -1;
}

int case_status_failed(enum case_status s) { return s != CASE_OK && s != CASE_SKIPPED; }

static const char *const determinism_names[] = {
    [DET_NOT_CHECKED] = "not_checked",
    [DET_BITWISE_EQUAL] = "bitwise_equal",
    [DET_DIFFERS] = "differs",
};
#define NDETERMINISM (sizeof determinism_names / sizeof determinism_names[0])

const char *determinism_name(enum determinism d) {
  if ((unsigned)d >= NDETERMINISM) return "unknown";
  return determinism_names[d];
}

int determinism_parse(const char *s, enum determinism *out) {
  if (!s) return -1;
  for (size_t i = 0; i < NDETERMINISM; i++) {
    if (strcmp(s, determinism_names[i]) == 0) {
      *out = (enum determinism)i;
      return 0;
    }
  }
  return -1;
}

static const char *const work_source_names[] = {"none", "operation", "plugin"};
#define NWORK_SOURCES (sizeof work_source_names / sizeof work_source_names[0])

const char *work_source_name(enum work_source w) {
  if ((unsigned)w >= NWORK_SOURCES) return "unknown";
  return work_source_names[w];
}

int work_source_parse(const char *s, enum work_source *out) {
  for (size_t i = 0; s && i < NWORK_SOURCES; i++) {
    if (strcmp(s, work_source_names[i]) == 0) {
      *out = (enum work_source)i;
      return 0;
    }
  }
  return -1;
}

const struct stats *case_time(const struct case_result *r) {
  return r->device.n > 0 ? &r->device : &r->host_clock;
}

const char *case_timer_name(const struct case_result *r) {
  return r->device.n > 0 ? "device" : "host";
}

/* work per iteration / median ns = Gunits per second. */
static double throughput(const struct case_result *r, double work) {
  if (r->status != CASE_OK || !(work > 0.0)) return 0.0;
  double ns = case_time(r)->median;
  if (!(ns > 0.0)) return 0.0;
  return work / ns;
}

int case_unchecked(const struct case_result *r) {
  return r->status == CASE_OK && !r->check.checked;
}

double case_gflops(const struct case_result *r) { return throughput(r, r->flops); }
double case_gbps(const struct case_result *r) { return throughput(r, r->bytes); }
double case_items_per_s(const struct case_result *r) { return 1e9 * throughput(r, r->items); }
double case_ns_per_item(const struct case_result *r) {
  double per_ns = throughput(r, r->items);
  return per_ns > 0 ? 1.0 / per_ns : 0.0;
}

enum op_primary case_primary_kind(const struct case_result *r) {
  const struct operation *op = operation_find(r->operation);
  if (op) return op->primary;
  enum op_primary p;
  if (primary_parse(kv_list_get(r->ninfo, r->info, "primary"), &p) == 0) return p;
  if (r->items > 0) return PRIMARY_ITEMS;
  if (r->flops > 0 && r->bytes > 0 && r->flops / r->bytes < PRIMARY_BYTES_BELOW) return PRIMARY_BYTES;
  if (r->flops > 0) return PRIMARY_FLOPS;
  return r->bytes > 0 ? PRIMARY_BYTES : PRIMARY_NONE;
}

int case_primary(const struct case_result *r, struct case_figure *out) {
  memset(out, 0, sizeof *out);
  out->kind = case_primary_kind(r);
  const char *items = r->item_unit[0] ? r->item_unit : "items";
  switch (out->kind) {
  case PRIMARY_FLOPS: out->value = case_gflops(r); snprintf(out->unit, sizeof out->unit, "GFLOP/s"); break;
  case PRIMARY_BYTES: out->value = case_gbps(r); snprintf(out->unit, sizeof out->unit, "GB/s"); break;
  case PRIMARY_ITEMS: out->value = case_items_per_s(r); snprintf(out->unit, sizeof out->unit, "%s/s", items); break;
  case PRIMARY_LATENCY: {
    out->value = case_ns_per_item(r);
    char *one = unit_singular(items);
    snprintf(out->unit, sizeof out->unit, "ns/%s", one);
    free(one);
    break;
  }
  case PRIMARY_NONE: break;
  }
  if (!(out->value > 0) || !isfinite(out->value)) {
    out->value = 0;
    out->unit[0] = '\0';
    return 0;
  }
  return 1;
}

char *case_primary_text(const struct case_result *r) {
  struct case_figure f;
  return case_primary(r, &f) ? fmt_figure(f.value, f.unit) : xstrdup("");
}

void case_result_init(struct case_result *r) {
  memset(r, 0, sizeof *r);
  r->exit_code = -1;
  r->status = CASE_OK;
  r->determinism = DET_NOT_CHECKED;
  r->check.first_bad = -1;
}

void case_result_release(struct case_result *r) {
  free(r->plugin);
  free(r->backend);
  free(r->operation);
  kv_list_release(&r->nparams, &r->params);
  free(r->message);
  free(r->stderr_tail);
  free(r->host_clock_ns);
  free(r->device_ns);
  free(r->settle_note);
  kv_list_release(&r->ninfo, &r->info);
  free(r->telemetry);
  free(r->clock_mhz);
  case_roof_release(r->roof);
  case_result_init(r);
}

void case_roof_release(struct case_roof *r) {
  if (!r) return;
  free(r->id);
  free(r->unit);
  free(r->source);
  free(r->note);
  free(r);
}

void kv_list_add(size_t *n, struct kv **list, const char *key, const char *value) {
  for (size_t i = 0; i < *n; i++) {
    if (strcmp((*list)[i].key, key) == 0) {
      free((*list)[i].value);
      (*list)[i].value = xstrdup(value);
      return;
    }
  }
  *list = xrealloc(*list, (*n + 1) * sizeof **list);
  (*list)[*n].key = xstrdup(key);
  (*list)[*n].value = xstrdup(value);
  (*n)++;
}

const char *kv_list_get(size_t n, const struct kv *list, const char *key) {
  for (size_t i = 0; i < n; i++)
    if (strcmp(list[i].key, key) == 0) return list[i].value;
  return NULL;
}

void kv_list_release(size_t *n, struct kv **list) {
  for (size_t i = 0; i < *n; i++) {
    free((*list)[i].key);
    free((*list)[i].value);
  }
  free(*list);
  *list = NULL;
  *n = 0;
}

void run_env_release(struct run_env *e) {
  free(e->date);
  free(e->started);
  free(e->hostname);
  free(e->cpu);
  free(e->os);
  free(e->bench_version);
  free(e->git_revision);
  free(e->command);
  free(e->preset);
  free(e->preset_sha256);
  free(e->tag);
  free(e->label);
  free(e->run_id);
  free(e->mode);
  free(e->devices);
  memset(e, 0, sizeof *e);
}

void run_file_release(struct run_file *f) {
  run_env_release(&f->env);
  free(f->plugin);
  free(f->plugin_path);
  free(f->plugin_sha256);
  free(f->plugin_commit);
  free(f->plugin_describe);
  for (size_t i = 0; i < f->ncases; i++) case_result_release(&f->cases[i]);
  free(f->cases);
  memset(f, 0, sizeof *f);
}

/* ---- devices ------------------------------------------------------------ */

static int same_value(struct gpu_value a, struct gpu_value b) {
  return a.have == b.have && (!a.have || a.v == b.v || (isnan(a.v) && isnan(b.v)));
}

/* The facts' values, in one list (for loops over them). */
#define FACT_VALUES(f) \
  { &(f)->base_sm_clock_mhz, &(f)->max_sm_clock_mhz, &(f)->max_mem_clock_mhz, &(f)->power_limit_w, \
    &(f)->persistence, &(f)->compute_mode, &(f)->app_clocks_set }
enum { NFACT_VALUES = 7 };

int gpu_facts_empty(const struct gpu_facts *f) {
  const struct gpu_value *v[NFACT_VALUES] = FACT_VALUES(f);
  if (f->name[0] || f->driver[0] || f->bus_id[0]) return 0;
  for (int i = 0; i < NFACT_VALUES; i++)
    if (v[i]->have) return 0;
  return 1;
}

int gpu_facts_same(const struct gpu_facts *a, const struct gpu_facts *b) {
  const struct gpu_value *x[NFACT_VALUES] = FACT_VALUES(a), *y[NFACT_VALUES] = FACT_VALUES(b);
  if (strcmp(a->name, b->name) || strcmp(a->driver, b->driver) || strcmp(a->bus_id, b->bus_id)) return 0;
  for (int i = 0; i < NFACT_VALUES; i++)
    if (!same_value(*x[i], *y[i])) return 0;
  return 1;
}

const char *gpu_compute_mode_name(double mode) {
  static const char *const names[] = {"default", "exclusive_thread", "prohibited", "exclusive_process"};
  for (int i = 0; i < 4; i++)
    if (mode == i) return names[i];
  return NULL;
}

void gpu_throttle_joined(unsigned bits, char sep, char *buf, size_t len) {
  gpu_throttle_names(bits, buf, len);
  for (char *p = buf; len && *p; p++)
    if (*p == ',') *p = sep;
}

/* "%.0f" of a reading (MHz, W, C: whole units are what a reader needs). */
static void add_num(struct strbuf *sb, const char *fmt, struct gpu_value v) {
  if (v.have) strbuf_addf(sb, fmt, v.v);
}

static void sep(struct strbuf *sb, size_t start, const char *s) {
  if (sb->len > start) strbuf_adds(sb, s);
}

char *case_telemetry_text(const struct case_telemetry *t) {
  struct strbuf sb = STRBUF_INIT;
  if (t->sm_clock_mean.have) {
    strbuf_addf(&sb, "sm %.0f MHz", t->sm_clock_mean.v);
    if (t->sm_clock_min.have && t->sm_clock_min.v < t->sm_clock_mean.v) add_num(&sb, " (min %.0f)", t->sm_clock_min);
  } else if (t->sm_clock_min.have) {
    add_num(&sb, "sm min %.0f MHz", t->sm_clock_min);
  }
  if (t->nxcd > 0) {
    sep(&sb, 0, ", ");
    strbuf_adds(&sb, "xcd");
    for (int i = 0; i < t->nxcd && i < GPU_MAX_XCD; i++) {
      strbuf_adds(&sb, i ? "/" : " ");
      if (t->xcd_clock_mean[i].have) strbuf_addf(&sb, "%.0f", t->xcd_clock_mean[i].v);
      else strbuf_adds(&sb, "-");
    }
    strbuf_adds(&sb, " MHz");
  }
  if (t->mem_clock_mean.have) {
    sep(&sb, 0, ", ");
    add_num(&sb, "mem %.0f MHz", t->mem_clock_mean);
  }
  if (t->power_mean.have) {
    sep(&sb, 0, ", ");
    strbuf_addf(&sb, "%.0f", t->power_mean.v);
    add_num(&sb, "/%.0f", t->power_limit);
    strbuf_adds(&sb, " W");
    add_num(&sb, " (max %.0f)", t->power_max);
  } else if (t->power_max.have || t->power_limit.have) {
    sep(&sb, 0, ", ");
    if (t->power_max.have) strbuf_addf(&sb, "power max %.0f W", t->power_max.v);
    if (t->power_limit.have) strbuf_addf(&sb, t->power_max.have ? " (limit %.0f)" : "power limit %.0f W", t->power_limit.v);
  }
  if (t->temp_max.have || t->mem_temp_max.have) {
    sep(&sb, 0, ", ");
    add_num(&sb, "%.0f C", t->temp_max);
    if (t->mem_temp_max.have) strbuf_addf(&sb, "%smem %.0f C", t->temp_max.have ? " (" : "", t->mem_temp_max.v);
    if (t->mem_temp_max.have && t->temp_max.have) strbuf_adds(&sb, ")");
  }
  if (t->other_procs_max.have && t->other_procs_max.v > 0) {
    sep(&sb, 0, ", ");
    strbuf_addf(&sb, "%.0f other process%s", t->other_procs_max.v, t->other_procs_max.v == 1 ? "" : "es");
  }
  if (t->have_throttle) {
    char names[256];
    gpu_throttle_joined(t->throttle, '+', names, sizeof names);
    sep(&sb, 0, ", ");
    strbuf_addf(&sb, "throttle: %s", names[0] ? names : "none");
    static const char *const what[GPU_THR_TIMES] = {"power", "thermal", "sync_boost"};
    size_t open = sb.len;
    for (int i = 0; i < GPU_THR_TIMES; i++) {
      if (!t->throttle_ns[i].have || !(t->throttle_ns[i].v > 0)) continue;
      strbuf_adds(&sb, sb.len > open ? ", " : " (");
      strbuf_addf(&sb, "%s %.3g ms", what[i], t->throttle_ns[i].v / 1e6);
    }
    if (sb.len > open) strbuf_adds(&sb, ")");
  }
  if (!sb.len) strbuf_adds(&sb, t->readings ? "no values read" : "no readings");
  if (t->clock_samples) {
    strbuf_addf(&sb, "; in-band %.0f MHz", t->clock_mean);
    if (t->clock_min < t->clock_mean) strbuf_addf(&sb, " (min %.0f, %zu samples)", t->clock_min, t->clock_samples);
    else strbuf_addf(&sb, " (%zu samples)", t->clock_samples);
  }
  if (t->discarded) {
    strbuf_addf(&sb, "; %zu throttled sample%s discarded", t->discarded, t->discarded == 1 ? "" : "s");
    if (t->recovery_s > 0) strbuf_addf(&sb, " (%.3g s recovery)", t->recovery_s);
  }
  return strbuf_detach(&sb);
}

size_t run_file_devices(const struct run_file *f, struct gpu_facts **out) {
  size_t n = 0;
  *out = NULL;
  for (size_t i = 0; i < f->ncases; i++) {
    const struct case_telemetry *t = f->cases[i].telemetry;
    if (!t || !t->facts.bus_id[0] || gpu_facts_empty(&t->facts)) continue;
    size_t k = 0;
    while (k < n && strcmp((*out)[k].bus_id, t->facts.bus_id) != 0) k++;
    if (k < n) continue;
    *out = xrealloc(*out, (n + 1) * sizeof **out);
    (*out)[n++] = t->facts;
  }
  return n;
}

/* ---- validation: what no run file bench wrote can hold ---------------- */

static int bad_index(const struct case_result *r) { return r->index < 0; }
static int bad_wall(const struct case_result *r) { return !(r->wall_s >= 0) || isinf(r->wall_s); }
static int bad_flops(const struct case_result *r) { return !(r->flops >= 0) || isinf(r->flops); }
static int bad_bytes(const struct case_result *r) { return !(r->bytes >= 0) || isinf(r->bytes); }
static int bad_exit(const struct case_result *r) { return r->exit_code < -1 || r->exit_code > 255; }
static int bad_signal(const struct case_result *r) { return r->signal < 0; }
static int bad_batch(const struct case_result *r) { return r->batch < 0 || r->warmup_iters < 0; }
static int ok_failed_check(const struct case_result *r) {
  return r->status == CASE_OK && r->check.checked && !r->check.pass;
}
static int ok_signalled(const struct case_result *r) {
  return r->status == CASE_OK && r->signal != 0;
}

/* A telemetry number: finite and not negative (temperatures: not below
 * -50 C, as gpu_telemetry.h drops); an absent value (have 0) holds none. */
static int bad_num(double v) { return !(v >= 0) || isinf(v); }
static int bad_gv(struct gpu_value g) { return g.have && bad_num(g.v); }
static int bad_temp(struct gpu_value g) { return g.have && (!(g.v >= -50) || isinf(g.v)); }

static int bad_facts(const struct gpu_facts *f) {
  const struct gpu_value *v[NFACT_VALUES] = FACT_VALUES(f);
  for (int i = 0; i < NFACT_VALUES; i++)
    if (v[i]->have != GPU_FACTS_PENDING && bad_gv(*v[i])) return 1;
  return 0;
}

static int bad_telemetry(const struct case_result *r) {
  const struct case_telemetry *t = r->telemetry;
  if (!t) return 0;
  if (t->nxcd < 0 || t->nxcd > GPU_MAX_XCD || bad_facts(&t->facts)) return 1;
  const struct gpu_value v[] = {t->sm_clock_mean, t->sm_clock_min, t->sm_clock_max, t->mem_clock_mean,
                                t->mem_clock_min, t->mem_clock_max, t->power_mean, t->power_max,
                                t->power_limit, t->other_procs_max};
  for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
    if (bad_gv(v[i])) return 1;
  for (int i = 0; i < t->nxcd; i++)
    if (bad_gv(t->xcd_clock_mean[i]) || bad_gv(t->xcd_clock_min[i])) return 1;
  for (int i = 0; i < GPU_THR_TIMES; i++)
    if (bad_gv(t->throttle_ns[i])) return 1;
  if (bad_temp(t->temp_max) || bad_temp(t->mem_temp_max)) return 1;
  const double d[] = {t->interval_ms, t->default_clock_mhz, t->clock_mean, t->clock_min,
                      t->clock_max,   t->threshold,         t->reference_mhz, t->recovery_s};
  for (size_t i = 0; i < sizeof d / sizeof d[0]; i++)
    if (bad_num(d[i])) return 1;
  return 0;
}

static int unresolved_device(const struct case_result *r) {
  return r->telemetry && r->telemetry->facts.persistence.have == GPU_FACTS_PENDING;
}

/* A sample's in-band clock: not negative, not infinite; NaN (JSON null)
 * when that sample had none. */
static int bad_clock_samples(const struct case_result *r) {
  for (size_t i = 0; r->clock_mhz && i < r->nsamples; i++)
    if (r->clock_mhz[i] < 0 || isinf(r->clock_mhz[i])) return 1;
  return 0;
}

static const struct case_rule {
  int (*broken)(const struct case_result *r);
  const char *what;
} case_rules[] = {
    {bad_index, "negative index"},
    {bad_wall, "wall_s is negative or not finite"},
    {bad_flops, "flops is negative or not finite"},
    {bad_bytes, "bytes is negative or not finite"},
    {bad_exit, "exit_code is not -1 or 0..255"},
    {bad_signal, "negative signal"},
    {bad_batch, "negative batch or warmup_iters"},
    {ok_failed_check, "status OK with a failed check"},
    {ok_signalled, "status OK but killed by a signal"},
    {unresolved_device, "telemetry.device names no device of env.devices"},
    {bad_telemetry, "telemetry holds a negative or non-finite number"},
    {bad_clock_samples, "samples.clock_mhz holds a negative or infinite value"},
};

int run_file_validate(const struct run_file *f, char *err, size_t errlen) {
  for (size_t i = 0; i < f->ncases; i++) {
    for (size_t k = 0; k < sizeof case_rules / sizeof case_rules[0]; k++) {
      if (!case_rules[k].broken(&f->cases[i])) continue;
      if (err && errlen) snprintf(err, errlen, "cases[%zu]: %s", i, case_rules[k].what);
      return -1;
    }
  }
  return 0;
}

const char *const run_sampling_keys[RS_NKEYS] = {"warmup_iters", "warmup_time", "min_samples", "max_samples",
                                                 "min_time",     "max_time",    "target_noise"};
