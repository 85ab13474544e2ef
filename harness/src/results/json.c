/* The JSON form of results (jansson): a whole run file, pretty, and one case
 * on one line (what a measuring child sends its parent); and reading both
 * back exactly. */
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results/io.h"

#define DUMP_REAL JSON_REAL_PRECISION(17) /* %.17g: every double round-trips */

/* ---- writing ---------------------------------------------------------- */

/* Length of the valid UTF-8 sequence at s, or 0 (RFC 3629: no overlongs,
 * no surrogates, nothing above U+10FFFF). */
static size_t utf8_seq_len(const unsigned char *s) {
  unsigned char c = s[0];
  if (c < 0x80) return 1;
  size_t len;
  unsigned cp;
  if (c >= 0xc2 && c <= 0xdf) {
    len = 2;
    cp = c & 0x1fu;
  } else if (c >= 0xe0 && c <= 0xef) {
    len = 3;
    cp = c & 0x0fu;
  } else if (c >= 0xf0 && c <= 0xf4) {
    len = 4;
    cp = c & 0x07u;
  } else {
    return 0;
  }
  for (size_t i = 1; i < len; i++) {
    if ((s[i] & 0xc0) != 0x80) return 0;
    cp = (cp << 6) | (s[i] & 0x3fu);
  }
  if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
      (cp >= 0xd800 && cp <= 0xdfff))
    return 0;
  return len;
}

/* s with every byte that is not part of valid UTF-8 replaced by U+FFFD. */
static char *utf8_sanitize(const char *s) {
  struct strbuf sb = STRBUF_INIT;
  const unsigned char *p = (const unsigned char *)s;
  while (*p) {
    size_t n = utf8_seq_len(p);
    if (n) {
      strbuf_add(&sb, (const char *)p, n);
      p += n;
    } else {
      strbuf_adds(&sb, "\xef\xbf\xbd");
      p++;
    }
  }
  return strbuf_detach(&sb);
}

static json_t *jstr(const char *s) {
  if (!s) return json_null();
  json_t *j = json_string(s);
  if (!j) {
    char *clean = utf8_sanitize(s);
    j = json_string(clean);
    free(clean);
  }
  return j;
}

static json_t *jnum(double v) {
  if (isnan(v)) return json_string("NaN");
  if (isinf(v)) return json_string(v > 0 ? "Infinity" : "-Infinity");
  return json_real(v);
}

static json_t *ju64(uint64_t v) {
  if (v > (uint64_t)INT64_MAX) return json_real((double)v);
  return json_integer((json_int_t)v);
}

/* Set obj[key] = val (taking val); a key that is not valid UTF-8 is cleaned. */
static void put(json_t *obj, const char *key, json_t *val) {
  if (json_object_set_new(obj, key, val) != 0) {
    char *clean = utf8_sanitize(key);
    json_object_set_new(obj, clean, val);
    free(clean);
  }
}

static json_t *kv_to_json(size_t n, const struct kv *list) {
  json_t *o = json_object();
  for (size_t i = 0; i < n; i++) put(o, list[i].key, jstr(list[i].value));
  return o;
}

static int stats_empty(const struct stats *s) {
  return s->n == 0 && s->min == 0 && s->q1 == 0 && s->median == 0 && s->q3 == 0 &&
         s->max == 0 && s->mean == 0 && s->stddev == 0 && s->cv == 0;
}

static json_t *stats_to_json(const struct stats *s) {
  if (stats_empty(s)) return json_null();
  json_t *o = json_object();
  put(o, "n", ju64(s->n));
  put(o, "min", jnum(s->min));
  put(o, "q1", jnum(s->q1));
  put(o, "median", jnum(s->median));
  put(o, "q3", jnum(s->q3));
  put(o, "max", jnum(s->max));
  put(o, "mean", jnum(s->mean));
  put(o, "stddev", jnum(s->stddev));
  put(o, "cv", jnum(s->cv));
  put(o, "ci_lo", jnum(s->ci_lo)); /* 95% CI of the median */
  put(o, "ci_hi", jnum(s->ci_hi));
  put(o, "drift", jnum(s->drift)); /* relative half-width from block medians */
  put(o, "outliers", ju64(s->outliers));
  return o;
}

static json_t *samples_to_json(const double *x, size_t n) {
  if (!x) return n ? json_null() : json_array();
  json_t *a = json_array();
  for (size_t i = 0; i < n; i++) json_array_append_new(a, jnum(x[i]));
  return a;
}

static json_t *check_to_json(const struct check_result *c) {
  json_t *o = json_object();
  put(o, "checked", json_boolean(c->checked));
  put(o, "pass", json_boolean(c->pass));
  put(o, "method", jstr(c->method));
  put(o, "max_abs_err", jnum(c->max_abs_err));
  put(o, "max_rel_err", jnum(c->max_rel_err));
  put(o, "rtol", jnum(c->rtol));
  put(o, "atol", jnum(c->atol));
  put(o, "compared", ju64(c->compared));
  put(o, "mismatches", ju64(c->mismatches));
  put(o, "first_bad", json_integer((json_int_t)c->first_bad));
  put(o, "bad_out", jnum(c->bad_out));
  put(o, "bad_ref", jnum(c->bad_ref));
  put(o, "message", jstr(c->message));
  return o;
}

/* ---- telemetry (result.h struct case_telemetry) -------------------------- */

/* A finite number, else null (telemetry never writes NaN or infinities). */
static json_t *jfinite(double v) { return isfinite(v) ? json_real(v) : json_null(); }

/* obj[key] = v.v when v was read (and is finite); nothing otherwise. */
static void put_gv(json_t *obj, const char *key, struct gpu_value v) {
  if (v.have && isfinite(v.v)) put(obj, key, json_real(v.v));
}

/* obj[key] = sub when it holds anything; else sub is dropped. */
static void put_nonempty(json_t *obj, const char *key, json_t *sub) {
  if (json_object_size(sub)) put(obj, key, sub);
  else json_decref(sub);
}

static json_t *jstr_or_null(const char *s) { return s[0] ? jstr(s) : json_null(); }

static void put_bool_gv(json_t *obj, const char *key, struct gpu_value v) {
  if (v.have && isfinite(v.v)) put(obj, key, json_boolean(v.v != 0));
}

/* {"bus_id", "name", "driver", "base_sm_clock_mhz", "max_sm_clock_mhz",
 *  "max_mem_clock_mhz", "power_limit_w", "persistence", "compute_mode",
 *  "clocks_locked"}: what the library does not say is left out. */
static json_t *facts_to_json(const struct gpu_facts *f) {
  json_t *o = json_object();
  put(o, "bus_id", jstr_or_null(f->bus_id));
  put(o, "name", jstr_or_null(f->name));
  put(o, "driver", jstr_or_null(f->driver));
  put_gv(o, "base_sm_clock_mhz", f->base_sm_clock_mhz);
  put_gv(o, "max_sm_clock_mhz", f->max_sm_clock_mhz);
  put_gv(o, "max_mem_clock_mhz", f->max_mem_clock_mhz);
  put_gv(o, "power_limit_w", f->power_limit_w);
  put_bool_gv(o, "persistence", f->persistence);
  if (f->compute_mode.have && isfinite(f->compute_mode.v)) {
    const char *mode = gpu_compute_mode_name(f->compute_mode.v);
    put(o, "compute_mode", mode ? json_string(mode) : json_real(f->compute_mode.v));
  }
  put_bool_gv(o, "clocks_locked", f->app_clocks_set);
  return o;
}

/* How a case's facts are written: not at all (none), inline ("facts": the
 * one-line form, or a device whose facts differ from the header's for its
 * bus id), or as a reference to env.devices ("device": its bus id). */
static json_t *telemetry_to_json(const struct case_telemetry *t, const struct gpu_facts *devices,
                                 size_t ndevices, int line) {
  json_t *o = json_object();
  put(o, "bus_id", jstr_or_null(t->bus_id));
  put(o, "library", jstr_or_null(t->library));
  put(o, "note", jstr_or_null(t->note));
  if (!gpu_facts_empty(&t->facts)) {
    const struct gpu_facts *dev = NULL;
    for (size_t i = 0; !line && t->facts.bus_id[0] && i < ndevices && !dev; i++)
      if (strcmp(devices[i].bus_id, t->facts.bus_id) == 0) dev = &devices[i];
    if (dev && gpu_facts_same(dev, &t->facts)) put(o, "device", jstr(t->facts.bus_id));
    else put(o, "facts", facts_to_json(&t->facts));
  }
  put(o, "interval_ms", jfinite(t->interval_ms));
  put(o, "readings", ju64(t->readings));
  json_t *c = json_object();
  put_gv(c, "mean", t->sm_clock_mean);
  put_gv(c, "min", t->sm_clock_min);
  put_gv(c, "max", t->sm_clock_max);
  put_nonempty(o, "sm_clock_mhz", c);
  c = json_object();
  put_gv(c, "mean", t->mem_clock_mean);
  put_gv(c, "min", t->mem_clock_min);
  put_gv(c, "max", t->mem_clock_max);
  put_nonempty(o, "mem_clock_mhz", c);
  if (t->nxcd > 0) {
    json_t *a = json_array();
    for (int i = 0; i < t->nxcd && i < GPU_MAX_XCD; i++) {
      json_t *x = json_object();
      put_gv(x, "mean", t->xcd_clock_mean[i]);
      put_gv(x, "min", t->xcd_clock_min[i]);
      json_array_append_new(a, x);
    }
    put(o, "xcd_clock_mhz", a);
  }
  c = json_object();
  put_gv(c, "mean", t->power_mean);
  put_gv(c, "max", t->power_max);
  put_gv(c, "limit", t->power_limit);
  put_nonempty(o, "power_w", c);
  put_gv(o, "temp_c_max", t->temp_max);
  put_gv(o, "mem_temp_c_max", t->mem_temp_max);
  if (t->have_throttle) {
    json_t *a = json_array();
    for (unsigned bit = 1; bit; bit <<= 1) {
      char name[32];
      if (!(t->throttle & bit)) continue;
      if (gpu_throttle_names(bit, name, sizeof name) > 0) json_array_append_new(a, json_string(name));
    }
    put(o, "throttle_reasons", a);
  }
  c = json_object();
  put_gv(c, "power", t->throttle_ns[GPU_THR_TIME_POWER]);
  put_gv(c, "thermal", t->throttle_ns[GPU_THR_TIME_THERMAL]);
  put_gv(c, "sync_boost", t->throttle_ns[GPU_THR_TIME_SYNC_BOOST]);
  put_nonempty(o, "throttle_ns", c);
  put_gv(o, "other_processes_max", t->other_procs_max);
  if (t->default_clock_mhz != 0 || t->clock_samples || t->clock_mean != 0 || t->clock_min != 0 ||
      t->clock_max != 0) {
    c = json_object();
    put(c, "default_clock_mhz", jfinite(t->default_clock_mhz));
    put(c, "samples", ju64(t->clock_samples));
    put(c, "mean", jfinite(t->clock_mean));
    put(c, "min", jfinite(t->clock_min));
    put(c, "max", jfinite(t->clock_max));
    put(o, "in_band", c);
  }
  if (t->threshold != 0 || t->reference_mhz != 0 || t->discarded || t->recovery_s != 0) {
    c = json_object();
    put(c, "threshold", jfinite(t->threshold));
    put(c, "reference_mhz", jfinite(t->reference_mhz));
    put(c, "discarded", ju64(t->discarded));
    put(c, "recovery_s", jfinite(t->recovery_s));
    put(o, "throttle_rule", c);
  }
  put(o, "throttled", json_boolean(t->throttled));
  put(o, "throttled_by", jstr_or_null(t->throttled_by));
  return o;
}

/* samples.clock_mhz: a sample without an in-band clock (NaN) is null. */
static json_t *clock_samples_to_json(const double *x, size_t n) {
  json_t *a = json_array();
  for (size_t i = 0; i < n; i++) json_array_append_new(a, jfinite(x[i]));
  return a;
}

/* The case's object. devices: the header's (the file form: a case refers to
 * its device there), or line (the one-line form: the facts inline). */
static json_t *case_to_json(const struct case_result *r, const struct gpu_facts *devices,
                            size_t ndevices, int line) {
  json_t *o = json_object();
  put(o, "index", json_integer(r->index));
  put(o, "plugin", jstr(r->plugin));
  put(o, "backend", jstr(r->backend));
  put(o, "operation", jstr(r->operation));
  put(o, "params", kv_to_json(r->nparams, r->params));
  put(o, "status", json_string(case_status_name(r->status)));
  put(o, "message", jstr(r->message));
  put(o, "stderr_tail", jstr(r->stderr_tail));
  put(o, "exit_code", json_integer(r->exit_code));
  put(o, "signal", json_integer(r->signal));
  put(o, "wall_s", jnum(r->wall_s));
  put(o, "flops", jnum(r->flops));
  put(o, "bytes", jnum(r->bytes));
  if (r->work_source != WORK_NONE) /* optional: files before it have none */
    put(o, "work_source", json_string(work_source_name(r->work_source)));
  put(o, "batch", json_integer(r->batch));
  put(o, "warmup_iters", json_integer(r->warmup_iters));
  put(o, "nsamples", ju64(r->nsamples));
  /* Derived, for tools; ignored when read back. */
  put(o, "timer", r->host_clock.n || r->device.n ? json_string(case_timer_name(r)) : json_null());
  double gf = case_gflops(r), gb = case_gbps(r);
  put(o, "gflops", gf > 0 ? jnum(gf) : json_null());
  put(o, "gbps", gb > 0 ? jnum(gb) : json_null());
  /* which figure is the case's throughput (result.h case_primary) */
  enum op_primary pk = case_primary_kind(r);
  put(o, "primary", pk != PRIMARY_NONE ? json_string(primary_name(pk)) : json_null());
  if (r->items > 0) { /* ABI 1.1 per-item unit: only when the plugin declared one */
    put(o, "items", jnum(r->items));
    put(o, "item_unit", jstr(r->item_unit));
    double ipers = case_items_per_s(r);
    put(o, "ns_per_item", ipers > 0 ? jnum(case_ns_per_item(r)) : json_null());
    put(o, "items_per_s", ipers > 0 ? jnum(ipers) : json_null());
  }
  put(o, "host", stats_to_json(&r->host_clock));
  put(o, "device", stats_to_json(&r->device));
  put(o, "settled", json_boolean(r->settled));
  put(o, "target_noise", jnum(r->target_noise));
  put(o, "stop_rule", r->stop_rule[0] ? jstr(r->stop_rule) : json_null());
  put(o, "settle_note", jstr(r->settle_note));
  put(o, "check", check_to_json(&r->check));
  put(o, "determinism", json_string(determinism_name(r->determinism)));
  put(o, "output_hash", r->output_hash[0] ? jstr(r->output_hash) : json_null());
  put(o, "info", kv_to_json(r->ninfo, r->info));
  if (r->roof) { /* optional: only where the results folder had measured roofs */
    const struct case_roof *f = r->roof;
    put(o, "roof", jstr(f->id ? f->id : ""));
    put(o, "roof_value", f->value > 0 && isfinite(f->value) ? json_real(f->value) : json_null());
    put(o, "roof_unit", jstr(f->unit ? f->unit : ""));
    put(o, "pct_of_roof", f->pct >= 0 && isfinite(f->pct) ? json_real(f->pct) : json_null());
    put(o, "roof_source", jstr(f->source ? f->source : ""));
    put(o, "roof_note", jstr(f->note));
  }
  json_t *s = json_object();
  put(s, "host_ns", samples_to_json(r->host_clock_ns, r->nsamples));
  put(s, "device_ns", r->device_ns ? samples_to_json(r->device_ns, r->nsamples) : json_null());
  if (r->clock_mhz) put(s, "clock_mhz", clock_samples_to_json(r->clock_mhz, r->nsamples));
  put(o, "samples", s);
  /* optional: absent when the plugin named no device and reported no clock */
  if (r->telemetry) put(o, "telemetry", telemetry_to_json(r->telemetry, devices, ndevices, line));
  if (r->memory.known) { /* optional: absent when not measured */
    json_t *m = json_object();
    put(m, "peak_rss_bytes", ju64(r->memory.peak_rss_bytes));
    put(m, "start_rss_bytes", ju64(r->memory.start_rss_bytes));
    put(m, "method", jstr(r->memory.method));
    put(o, "memory", m);
  }
  return o;
}

/* [{"level": 1, "bytes": 32768, "shared_by": null, "source": "sysfs"}, ...] */
static json_t *caches_to_json(const struct cpu_caches *c) {
  json_t *a = json_array();
  for (int lv = 1; lv <= CACHE_LEVELS; lv++) {
    const struct cache_level *l = &c->level[lv];
    if (l->bytes <= 0) continue;
    json_t *o = json_object();
    put(o, "level", json_integer(lv));
    put(o, "bytes", json_integer(l->bytes));
    put(o, "shared_by", l->shared_by > 0 ? json_integer(l->shared_by) : json_null());
    put(o, "source", json_string(cache_source_name(l->source)));
    json_array_append_new(a, o);
  }
  return a;
}

/* "steadiness": how steady the machine was over the run (result.h). */
static json_t *steady_to_json(const struct run_steady *m) {
  json_t *o = json_object();
  put(o, "wall_s", jnum(m->wall_s));
  put(o, "load_per_cpu_start", jnum(m->load_start));
  put(o, "load_per_cpu_end", jnum(m->load_end));
  put(o, "others_per_cpu_start", jnum(m->others_start));
  put(o, "others_per_cpu_end", jnum(m->others_end));
  put(o, "contention", jnum(m->contention));
  put(o, "calibration_drift", jnum(m->drift));
  put(o, "steal", isnan(m->steal) ? json_null() : jnum(m->steal));
  return o;
}

/* "sampling": the policy the cases ran under, and which keys the command
 * line set ("overridden", their preset key names). */
static json_t *sampling_to_json(const struct run_sampling *m) {
  json_t *o = json_object();
  put(o, "warmup_iters", json_integer(m->warmup_iters));
  put(o, "warmup_time_s", jnum(m->warmup_s));
  put(o, "min_samples", json_integer(m->min_samples));
  put(o, "max_samples", json_integer(m->max_samples));
  put(o, "min_time_s", jnum(m->min_time_s));
  put(o, "max_time_s", jnum(m->max_time_s));
  put(o, "target_noise", jnum(m->target_noise));
  put(o, "stop_rule", jstr(m->stop_rule));
  json_t *a = json_array();
  for (int k = 0; k < RS_NKEYS; k++)
    if (m->from_cli & 1u << k) json_array_append_new(a, json_string(run_sampling_keys[k]));
  put(o, "overridden", a);
  return o;
}

/* The plugin's git work tree (optional: only where bench could tell). */
static void plugin_git_to_json(json_t *p, const struct run_file *f) {
  if (!f->plugin_commit) return;
  put(p, "git_commit", jstr(f->plugin_commit));
  put(p, "git_dirty", json_boolean(f->plugin_dirty > 0));
  if (f->plugin_describe) put(p, "git_describe", jstr(f->plugin_describe));
}

static json_t *env_to_json(const struct run_env *e, const struct gpu_facts *devices, size_t ndevices) {
  json_t *o = json_object();
  put(o, "date", jstr(e->date));
  put(o, "started", jstr(e->started));
  put(o, "host", jstr(e->hostname));
  put(o, "cpu", jstr(e->cpu));
  put(o, "cpus", json_integer(e->cpus));
  if (e->caches.llc > 0) put(o, "cpu.caches", caches_to_json(&e->caches));
  put(o, "os", jstr(e->os));
  put(o, "bench_version", jstr(e->bench_version));
  put(o, "git_revision", jstr(e->git_revision));
  put(o, "command", jstr(e->command));
  put(o, "preset", jstr(e->preset));
  put(o, "preset_sha256", jstr(e->preset_sha256));
  put(o, "tag", jstr(e->tag));
  if (e->label) put(o, "label", jstr(e->label)); /* optional: absent in older files */
  if (e->run_id) put(o, "run_id", jstr(e->run_id));
  put(o, "mode", jstr(e->mode));
  if (e->steady.known) put(o, "steadiness", steady_to_json(&e->steady));
  if (e->sampling.known) put(o, "sampling", sampling_to_json(&e->sampling));
  if (ndevices) { /* optional: only runs whose cases named a device the library described */
    json_t *a = json_array();
    for (size_t i = 0; i < ndevices; i++) json_array_append_new(a, facts_to_json(&devices[i]));
    put(o, "devices", a);
  }
  return o;
}

static char *dump(json_t *root, size_t flags, int newline) {
  char *text = json_dumps(root, flags);
  json_decref(root);
  if (!text) {
    fprintf(stderr, "bench: fatal: out of memory writing json\n");
    abort();
  }
  if (!newline) return text;
  char *out = xasprintf("%s\n", text);
  free(text);
  return out;
}

char *run_file_to_json(const struct run_file *f) {
  json_t *root = json_object();
  put(root, "schema", json_string(BENCH_RESULT_SCHEMA));
  struct gpu_facts *devices = NULL;
  size_t ndevices = run_file_devices(f, &devices);
  put(root, "env", env_to_json(&f->env, devices, ndevices));
  json_t *p = json_object();
  put(p, "name", jstr(f->plugin));
  put(p, "path", jstr(f->plugin_path));
  put(p, "sha256", jstr(f->plugin_sha256));
  plugin_git_to_json(p, f);
  put(root, "plugin", p);
  json_t *cases = json_array();
  for (size_t i = 0; i < f->ncases; i++)
    json_array_append_new(cases, case_to_json(&f->cases[i], devices, ndevices, 0));
  put(root, "cases", cases);
  free(devices);
  return dump(root, JSON_PRESERVE_ORDER | JSON_INDENT(2) | DUMP_REAL, 1);
}

char *run_export_to_json(const struct run_file *files, const char *const *sources, size_t n) {
  json_t *root = json_object();
  put(root, "schema", json_string(BENCH_RUN_SCHEMA));
  /* the devices of every file's cases, once each: a view of all the cases */
  size_t total = 0;
  for (size_t i = 0; i < n; i++) total += files[i].ncases;
  struct run_file all = {0};
  all.cases = xcalloc(total + 1, sizeof *all.cases);
  for (size_t i = 0; i < n; i++)
    for (size_t k = 0; k < files[i].ncases; k++) all.cases[all.ncases++] = files[i].cases[k];
  struct gpu_facts *devices = NULL;
  size_t ndevices = run_file_devices(&all, &devices);
  if (n) { /* the run's header: the first plugin's (each plugin's steadiness is its own, below) */
    struct run_env env = files[0].env;
    env.steady.known = 0;
    put(root, "env", env_to_json(&env, devices, ndevices));
  } else {
    put(root, "env", json_null());
  }
  json_t *plugins = json_array();
  for (size_t i = 0; i < n; i++) {
    json_t *p = json_object();
    put(p, "name", jstr(files[i].plugin));
    put(p, "path", jstr(files[i].plugin_path));
    put(p, "sha256", jstr(files[i].plugin_sha256));
    plugin_git_to_json(p, &files[i]);
    put(p, "result_file", jstr(sources[i]));
    put(p, "cases", json_integer((json_int_t)files[i].ncases));
    if (files[i].env.steady.known) put(p, "steadiness", steady_to_json(&files[i].env.steady));
    json_array_append_new(plugins, p);
  }
  put(root, "plugins", plugins);
  json_t *cases = json_array();
  for (size_t k = 0; k < all.ncases; k++) json_array_append_new(cases, case_to_json(&all.cases[k], devices, ndevices, 0));
  put(root, "cases", cases);
  free(devices);
  free(all.cases); /* a view: the cases are the files' */
  return dump(root, JSON_PRESERVE_ORDER | JSON_INDENT(2) | DUMP_REAL, 1);
}

char *case_result_to_json_line(const struct case_result *r) {
  return dump(case_to_json(r, NULL, 0, 1), JSON_PRESERVE_ORDER | JSON_COMPACT | DUMP_REAL, 0);
}

/* ---- reading ---------------------------------------------------------- */

struct reader {
  char *err;
  size_t errlen;
  const char *ctx; /* "cases[2].check", "" at the top */
};

static int fail(const struct reader *rd, const char *key, const char *fmt, ...) UTIL_PRINTF(3, 4);
static int fail(const struct reader *rd, const char *key, const char *fmt, ...) {
  if (!rd->err || !rd->errlen) return -1;
  char what[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  const char *dot = *rd->ctx && key ? "." : "";
  if (!*rd->ctx && !key)
    snprintf(rd->err, rd->errlen, "%s", what);
  else
    snprintf(rd->err, rd->errlen, "%s%s%s: %s", rd->ctx, dot, key ? key : "", what);
  return -1;
}

static int member(const struct reader *rd, const json_t *obj, const char *key, json_t **out) {
  *out = json_object_get(obj, key);
  if (!*out) return fail(rd, key, "missing");
  return 0;
}

static int read_str(const struct reader *rd, const json_t *obj, const char *key, char **out) {
  json_t *v;
  *out = NULL;
  if (member(rd, obj, key, &v)) return -1;
  if (json_is_null(v)) return 0;
  if (!json_is_string(v)) return fail(rd, key, "expected a string or null");
  *out = xstrdup(json_string_value(v));
  return 0;
}

/* A string into a fixed buffer; null gives "". */
static int read_str_buf(const struct reader *rd, const json_t *obj, const char *key, char *buf,
                        size_t size) {
  json_t *v;
  buf[0] = '\0';
  if (member(rd, obj, key, &v)) return -1;
  if (json_is_null(v)) return 0;
  if (!json_is_string(v)) return fail(rd, key, "expected a string or null");
  const char *s = json_string_value(v);
  if (strlen(s) >= size) return fail(rd, key, "longer than %zu characters", size - 1);
  strcpy(buf, s);
  return 0;
}

static int json_to_double(const json_t *v, double *out) {
  if (json_is_number(v)) {
    *out = json_number_value(v);
    return 0;
  }
  if (json_is_string(v)) {
    const char *s = json_string_value(v);
    if (strcmp(s, "NaN") == 0) *out = NAN;
    else if (strcmp(s, "Infinity") == 0) *out = INFINITY;
    else if (strcmp(s, "-Infinity") == 0) *out = -INFINITY;
    else return -1;
    return 0;
  }
  return -1;
}

static int read_double(const struct reader *rd, const json_t *obj, const char *key, double *out) {
  json_t *v;
  if (member(rd, obj, key, &v)) return -1;
  if (json_to_double(v, out)) return fail(rd, key, "expected a number");
  return 0;
}

static int read_i64(const struct reader *rd, const json_t *obj, const char *key, int64_t lo,
                    int64_t hi, int64_t *out) {
  json_t *v;
  if (member(rd, obj, key, &v)) return -1;
  if (!json_is_integer(v)) return fail(rd, key, "expected an integer");
  json_int_t i = json_integer_value(v);
  if (i < lo || i > hi) return fail(rd, key, "%lld out of range", (long long)i);
  *out = (int64_t)i;
  return 0;
}

/* An optional string: absent or null gives NULL. */
static int read_opt_str(const struct reader *rd, const json_t *obj, const char *key, char **out) {
  *out = NULL;
  return json_object_get(obj, key) ? read_str(rd, obj, key, out) : 0;
}

static int read_int(const struct reader *rd, const json_t *obj, const char *key, int *out) {
  int64_t v = 0;
  if (read_i64(rd, obj, key, INT_MIN, INT_MAX, &v)) return -1;
  *out = (int)v;
  return 0;
}

/* A count: a non-negative integer (or, above INT64_MAX, the real to_json wrote). */
static int read_u64(const struct reader *rd, const json_t *obj, const char *key, uint64_t *out) {
  json_t *v = NULL;
  if (member(rd, obj, key, &v)) return -1;
  if (json_is_integer(v) && json_integer_value(v) >= 0) {
    *out = (uint64_t)json_integer_value(v);
    return 0;
  }
  if (json_is_real(v) && json_real_value(v) >= 9223372036854775808.0 &&
      json_real_value(v) <= 18446744073709551616.0) {
    /* (double)UINT64_MAX is 2^64: saturate */
    double d = json_real_value(v);
    *out = d < 18446744073709551616.0 ? (uint64_t)d : UINT64_MAX;
    return 0;
  }
  return fail(rd, key, "expected a non-negative integer");
}

static int read_size(const struct reader *rd, const json_t *obj, const char *key, size_t *out) {
  uint64_t v = 0;
  if (read_u64(rd, obj, key, &v)) return -1;
  if (v > SIZE_MAX) return fail(rd, key, "too large");
  *out = (size_t)v;
  return 0;
}

static int read_bool(const struct reader *rd, const json_t *obj, const char *key, int *out) {
  json_t *v;
  if (member(rd, obj, key, &v)) return -1;
  if (!json_is_boolean(v)) return fail(rd, key, "expected true or false");
  *out = json_is_true(v) ? 1 : 0;
  return 0;
}

static int read_object(const struct reader *rd, const json_t *obj, const char *key, json_t **out) {
  if (member(rd, obj, key, out)) return -1;
  if (!json_is_object(*out)) return fail(rd, key, "expected an object");
  return 0;
}

static int read_kv(const struct reader *rd, const json_t *obj, const char *key, size_t *n,
                   struct kv **list) {
  json_t *o;
  if (read_object(rd, obj, key, &o)) return -1;
  /* Every document is parsed with JSON_REJECT_DUPLICATES, so the keys are
   * unique already: append them in order without searching (a case with
   * 10^5 parameters stays linear). */
  size_t size = json_object_size(o);
  if (!size) return 0;
  *list = xrealloc(*list, (*n + size) * sizeof **list);
  const char *k;
  json_t *v;
  json_object_foreach(o, k, v) {
    if (!json_is_string(v)) return fail(rd, key, "value of \"%s\" is not a string", k);
    (*list)[*n].key = xstrdup(k);
    (*list)[*n].value = xstrdup(json_string_value(v));
    (*n)++;
  }
  return 0;
}

static int read_stats(const struct reader *rd, const json_t *obj, const char *key,
                      struct stats *s) {
  json_t *o;
  memset(s, 0, sizeof *s);
  if (member(rd, obj, key, &o)) return -1;
  if (json_is_null(o)) return 0;
  if (!json_is_object(o)) return fail(rd, key, "expected an object or null");
  char ctx[128];
  snprintf(ctx, sizeof ctx, "%s%s%s", rd->ctx, *rd->ctx ? "." : "", key);
  struct reader sub = {rd->err, rd->errlen, ctx};
  if (read_size(&sub, o, "n", &s->n) || read_double(&sub, o, "min", &s->min) ||
      read_double(&sub, o, "q1", &s->q1) || read_double(&sub, o, "median", &s->median) ||
      read_double(&sub, o, "q3", &s->q3) || read_double(&sub, o, "max", &s->max) ||
      read_double(&sub, o, "mean", &s->mean) || read_double(&sub, o, "stddev", &s->stddev) ||
      read_double(&sub, o, "cv", &s->cv))
    return -1;
  /* Newer fields: absent from older files. */
  if ((json_object_get(o, "ci_lo") && read_double(&sub, o, "ci_lo", &s->ci_lo)) ||
      (json_object_get(o, "ci_hi") && read_double(&sub, o, "ci_hi", &s->ci_hi)) ||
      (json_object_get(o, "outliers") && read_size(&sub, o, "outliers", &s->outliers)) ||
      (json_object_get(o, "drift") && read_double(&sub, o, "drift", &s->drift)))
    return -1;
  return 0;
}

/* An array of n numbers into a new buffer (NULL when n == 0); null allowed
 * when nullable (gives NULL). */
static int read_samples(const struct reader *rd, const json_t *obj, const char *key, size_t n,
                        int nullable, double **out) {
  json_t *a;
  *out = NULL;
  if (member(rd, obj, key, &a)) return -1;
  if (nullable && json_is_null(a)) return 0;
  if (!json_is_array(a)) return fail(rd, key, nullable ? "expected an array or null" : "expected an array");
  if (json_array_size(a) != n)
    return fail(rd, key, "has %zu values, nsamples is %zu", json_array_size(a), n);
  if (n == 0) return 0;
  double *x = xmalloc(n * sizeof *x);
  for (size_t i = 0; i < n; i++) {
    if (json_to_double(json_array_get(a, i), &x[i])) {
      free(x);
      return fail(rd, key, "value %zu is not a number", i);
    }
  }
  *out = x;
  return 0;
}

static int check_from_json(const struct reader *rd, const json_t *obj, struct check_result *c) {
  json_t *o;
  if (read_object(rd, obj, "check", &o)) return -1;
  char ctx[128];
  snprintf(ctx, sizeof ctx, "%s%scheck", rd->ctx, *rd->ctx ? "." : "");
  struct reader sub = {rd->err, rd->errlen, ctx};
  int64_t first_bad = -1;
  if (read_bool(&sub, o, "checked", &c->checked) || read_bool(&sub, o, "pass", &c->pass) ||
      read_str_buf(&sub, o, "method", c->method, sizeof c->method) ||
      read_double(&sub, o, "max_abs_err", &c->max_abs_err) ||
      read_double(&sub, o, "max_rel_err", &c->max_rel_err) ||
      read_double(&sub, o, "rtol", &c->rtol) || read_double(&sub, o, "atol", &c->atol) ||
      read_u64(&sub, o, "compared", &c->compared) ||
      read_u64(&sub, o, "mismatches", &c->mismatches) ||
      read_i64(&sub, o, "first_bad", INT64_MIN, INT64_MAX, &first_bad) ||
      read_double(&sub, o, "bad_out", &c->bad_out) ||
      read_double(&sub, o, "bad_ref", &c->bad_ref) ||
      read_str_buf(&sub, o, "message", c->message, sizeof c->message))
    return -1;
  c->first_bad = first_bad;
  return 0;
}

/* ---- reading telemetry ---------------------------------------------------- */

/* A reader for obj[key] (or obj[key][i] when i >= 0) below rd: its context
 * text goes in buf. */
static struct reader sub_reader(const struct reader *rd, const char *key, long i, char *buf, size_t len) {
  if (i >= 0) snprintf(buf, len, "%s%s%s[%ld]", rd->ctx, *rd->ctx ? "." : "", key, i);
  else snprintf(buf, len, "%s%s%s", rd->ctx, *rd->ctx ? "." : "", key);
  struct reader sub = {rd->err, rd->errlen, buf};
  return sub;
}

/* An optional reading: absent or null gives have 0. */
static int read_gv(const struct reader *rd, const json_t *obj, const char *key, struct gpu_value *out) {
  const json_t *v = json_object_get(obj, key);
  out->have = 0;
  out->v = 0;
  if (!v || json_is_null(v)) return 0;
  if (!json_is_number(v)) return fail(rd, key, "expected a number");
  out->have = 1;
  out->v = json_number_value(v);
  return 0;
}

/* An optional yes/no reading: true 1, false 0. */
static int read_bool_gv(const struct reader *rd, const json_t *obj, const char *key, struct gpu_value *out) {
  const json_t *v = json_object_get(obj, key);
  out->have = 0;
  out->v = 0;
  if (!v || json_is_null(v)) return 0;
  if (!json_is_boolean(v)) return fail(rd, key, "expected true or false");
  out->have = 1;
  out->v = json_is_true(v) ? 1 : 0;
  return 0;
}

/* A number that must be there; null stands for NaN (the writer's
 * non-finite, which run_file_validate refuses). */
static int read_num_or_null(const struct reader *rd, const json_t *obj, const char *key, double *out) {
  json_t *v;
  if (member(rd, obj, key, &v)) return -1;
  if (json_is_null(v)) *out = NAN;
  else if (json_is_number(v)) *out = json_number_value(v);
  else return fail(rd, key, "expected a number or null");
  return 0;
}

/* An optional object of readings obj[key] = {names[i]: vals[i]}. */
static int read_group(const struct reader *rd, const json_t *obj, const char *key, int n,
                      const char *const *names, struct gpu_value *const *vals) {
  const json_t *o = json_object_get(obj, key);
  for (int i = 0; i < n; i++) *vals[i] = (struct gpu_value){0, 0};
  if (!o || json_is_null(o)) return 0;
  if (!json_is_object(o)) return fail(rd, key, "expected an object");
  char ctx[160];
  struct reader sub = sub_reader(rd, key, -1, ctx, sizeof ctx);
  for (int i = 0; i < n; i++)
    if (read_gv(&sub, o, names[i], vals[i])) return -1;
  return 0;
}

static int facts_from_json(const struct reader *rd, const json_t *o, struct gpu_facts *f) {
  memset(f, 0, sizeof *f);
  if (!json_is_object(o)) return fail(rd, NULL, "expected an object");
  if (read_str_buf(rd, o, "bus_id", f->bus_id, sizeof f->bus_id) ||
      read_str_buf(rd, o, "name", f->name, sizeof f->name) ||
      read_str_buf(rd, o, "driver", f->driver, sizeof f->driver) ||
      read_gv(rd, o, "base_sm_clock_mhz", &f->base_sm_clock_mhz) ||
      read_gv(rd, o, "max_sm_clock_mhz", &f->max_sm_clock_mhz) ||
      read_gv(rd, o, "max_mem_clock_mhz", &f->max_mem_clock_mhz) ||
      read_gv(rd, o, "power_limit_w", &f->power_limit_w) ||
      read_bool_gv(rd, o, "persistence", &f->persistence) ||
      read_bool_gv(rd, o, "clocks_locked", &f->app_clocks_set))
    return -1;
  const json_t *m = json_object_get(o, "compute_mode");
  if (m && json_is_string(m)) {
    for (int i = 0; i < 4 && !f->compute_mode.have; i++)
      if (strcmp(json_string_value(m), gpu_compute_mode_name(i)) == 0) f->compute_mode = (struct gpu_value){1, i};
    if (!f->compute_mode.have)
      return fail(rd, "compute_mode", "unknown value \"%s\" (default, exclusive_thread, prohibited, exclusive_process)",
                  json_string_value(m));
  } else if (read_gv(rd, o, "compute_mode", &f->compute_mode)) {
    return -1;
  }
  return 0;
}

/* The GPU_THR_* bit gpu_throttle_names calls name, or 0. */
static unsigned throttle_bit(const char *name) {
  for (unsigned bit = 1; bit; bit <<= 1) {
    char buf[32];
    if (gpu_throttle_names(bit, buf, sizeof buf) > 0 && strcmp(buf, name) == 0) return bit;
  }
  return 0;
}

static int throttle_reasons_from_json(const struct reader *rd, const json_t *o, struct case_telemetry *t) {
  const json_t *a = json_object_get(o, "throttle_reasons");
  if (!a || json_is_null(a)) return 0;
  if (!json_is_array(a)) return fail(rd, "throttle_reasons", "expected an array");
  t->have_throttle = 1;
  for (size_t i = 0; i < json_array_size(a); i++) {
    const json_t *v = json_array_get(a, i);
    unsigned bit = json_is_string(v) ? throttle_bit(json_string_value(v)) : 0;
    if (!bit) {
      char ctx[160];
      struct reader sub = sub_reader(rd, "throttle_reasons", (long)i, ctx, sizeof ctx);
      return fail(&sub, NULL, "not a throttle reason (gpu_idle, app_clocks, sw_power_cap, hw_slowdown, "
                              "sync_boost, sw_thermal, hw_thermal, hw_power_brake, display_clocks, other)");
    }
    t->throttle |= bit;
  }
  return 0;
}

/* "device" (a bus id of env.devices: the facts wait there, see
 * GPU_FACTS_PENDING) or "facts" (inline), or neither. */
static int telemetry_facts_from_json(const struct reader *rd, const json_t *o, int allow_ref,
                                     struct case_telemetry *t) {
  const json_t *dev = json_object_get(o, "device"), *facts = json_object_get(o, "facts");
  if (dev && facts) return fail(rd, "device", "given with \"facts\" (one or the other)");
  if (facts) {
    char ctx[160];
    struct reader sub = sub_reader(rd, "facts", -1, ctx, sizeof ctx);
    return facts_from_json(&sub, facts, &t->facts);
  }
  if (!dev) return 0;
  if (!allow_ref) return fail(rd, "device", "a case on its own cannot refer to env.devices (expected \"facts\")");
  if (!json_is_string(dev) || !json_string_value(dev)[0]) return fail(rd, "device", "expected a bus id");
  if (strlen(json_string_value(dev)) >= sizeof t->facts.bus_id)
    return fail(rd, "device", "longer than %zu characters", sizeof t->facts.bus_id - 1);
  strcpy(t->facts.bus_id, json_string_value(dev));
  t->facts.persistence.have = GPU_FACTS_PENDING;
  return 0;
}

static int telemetry_from_json(const struct reader *rd, const json_t *o, int allow_ref, struct case_telemetry *t) {
  if (!json_is_object(o)) return fail(rd, NULL, "expected an object or null");
  if (read_str_buf(rd, o, "bus_id", t->bus_id, sizeof t->bus_id) ||
      read_str_buf(rd, o, "library", t->library, sizeof t->library) ||
      read_str_buf(rd, o, "note", t->note, sizeof t->note) || telemetry_facts_from_json(rd, o, allow_ref, t) ||
      read_num_or_null(rd, o, "interval_ms", &t->interval_ms) || read_size(rd, o, "readings", &t->readings))
    return -1;
  static const char *const mean_min_max[] = {"mean", "min", "max"};
  static const char *const power[] = {"mean", "max", "limit"};
  static const char *const times[] = {"power", "thermal", "sync_boost"};
  struct gpu_value *sm[] = {&t->sm_clock_mean, &t->sm_clock_min, &t->sm_clock_max};
  struct gpu_value *mem[] = {&t->mem_clock_mean, &t->mem_clock_min, &t->mem_clock_max};
  struct gpu_value *pw[] = {&t->power_mean, &t->power_max, &t->power_limit};
  struct gpu_value *thr[] = {&t->throttle_ns[GPU_THR_TIME_POWER], &t->throttle_ns[GPU_THR_TIME_THERMAL],
                             &t->throttle_ns[GPU_THR_TIME_SYNC_BOOST]};
  if (read_group(rd, o, "sm_clock_mhz", 3, mean_min_max, sm) ||
      read_group(rd, o, "mem_clock_mhz", 3, mean_min_max, mem) || read_group(rd, o, "power_w", 3, power, pw) ||
      read_gv(rd, o, "temp_c_max", &t->temp_max) || read_gv(rd, o, "mem_temp_c_max", &t->mem_temp_max) ||
      throttle_reasons_from_json(rd, o, t) || read_group(rd, o, "throttle_ns", 3, times, thr) ||
      read_gv(rd, o, "other_processes_max", &t->other_procs_max))
    return -1;
  const json_t *a = json_object_get(o, "xcd_clock_mhz");
  if (a && !json_is_null(a)) {
    if (!json_is_array(a)) return fail(rd, "xcd_clock_mhz", "expected an array");
    if (json_array_size(a) > GPU_MAX_XCD) return fail(rd, "xcd_clock_mhz", "more than %d XCDs", GPU_MAX_XCD);
    t->nxcd = (int)json_array_size(a);
    for (int i = 0; i < t->nxcd; i++) {
      char ctx[160];
      struct reader sub = sub_reader(rd, "xcd_clock_mhz", i, ctx, sizeof ctx);
      const json_t *x = json_array_get(a, (size_t)i);
      if (!json_is_object(x)) return fail(&sub, NULL, "expected an object");
      if (read_gv(&sub, x, "mean", &t->xcd_clock_mean[i]) || read_gv(&sub, x, "min", &t->xcd_clock_min[i])) return -1;
    }
  }
  const json_t *b = json_object_get(o, "in_band");
  if (b && !json_is_null(b)) {
    char ctx[160];
    struct reader sub = sub_reader(rd, "in_band", -1, ctx, sizeof ctx);
    if (!json_is_object(b)) return fail(rd, "in_band", "expected an object");
    if (read_num_or_null(&sub, b, "default_clock_mhz", &t->default_clock_mhz) ||
        read_size(&sub, b, "samples", &t->clock_samples) || read_num_or_null(&sub, b, "mean", &t->clock_mean) ||
        read_num_or_null(&sub, b, "min", &t->clock_min) || read_num_or_null(&sub, b, "max", &t->clock_max))
      return -1;
  }
  const json_t *rule = json_object_get(o, "throttle_rule");
  if (rule && !json_is_null(rule)) {
    char ctx[160];
    struct reader sub = sub_reader(rd, "throttle_rule", -1, ctx, sizeof ctx);
    if (!json_is_object(rule)) return fail(rd, "throttle_rule", "expected an object");
    if (read_num_or_null(&sub, rule, "threshold", &t->threshold) ||
        read_num_or_null(&sub, rule, "reference_mhz", &t->reference_mhz) ||
        read_size(&sub, rule, "discarded", &t->discarded) || read_num_or_null(&sub, rule, "recovery_s", &t->recovery_s))
      return -1;
  }
  return read_bool(rd, o, "throttled", &t->throttled) ||
                 read_str_buf(rd, o, "throttled_by", t->throttled_by, sizeof t->throttled_by)
             ? -1
             : 0;
}

/* samples.clock_mhz: optional; null entries (no clock that sample) are NaN. */
static int clock_samples_from_json(const struct reader *rd, const json_t *samples, size_t n, double **out) {
  const json_t *a = json_object_get(samples, "clock_mhz");
  *out = NULL;
  if (!a || json_is_null(a)) return 0;
  if (!json_is_array(a)) return fail(rd, "clock_mhz", "expected an array or null");
  if (json_array_size(a) != n) return fail(rd, "clock_mhz", "has %zu values, nsamples is %zu", json_array_size(a), n);
  double *x = xmalloc((n ? n : 1) * sizeof *x);
  for (size_t i = 0; i < n; i++) {
    const json_t *v = json_array_get(a, i);
    if (json_is_null(v)) {
      x[i] = NAN;
    } else if (json_is_number(v)) {
      x[i] = json_number_value(v);
    } else {
      free(x);
      return fail(rd, "clock_mhz", "value %zu is not a number or null", i);
    }
  }
  *out = x;
  return 0;
}

int run_file_resolve_devices(struct run_file *f, char *err, size_t errlen) {
  for (size_t i = 0; i < f->ncases; i++) {
    struct case_telemetry *t = f->cases[i].telemetry;
    if (!t || t->facts.persistence.have != GPU_FACTS_PENDING) continue;
    size_t k = 0;
    while (k < f->env.ndevices && strcmp(f->env.devices[k].bus_id, t->facts.bus_id) != 0) k++;
    if (k == f->env.ndevices) {
      if (err && errlen)
        snprintf(err, errlen, "cases[%zu].telemetry.device: \"%s\" is not in env.devices", i, t->facts.bus_id);
      return -1;
    }
    t->facts = f->env.devices[k];
  }
  return 0;
}

/* A number that is null (none: *out = none) or finite and >= 0. */
static int read_nonneg_or_null(const struct reader *rd, const json_t *obj, const char *key, double none,
                               double *out) {
  json_t *v;
  if (member(rd, obj, key, &v)) return -1;
  if (json_is_null(v)) *out = none;
  else if (json_is_number(v) && isfinite(json_number_value(v)) && json_number_value(v) >= 0)
    *out = json_number_value(v);
  else return fail(rd, key, "expected a number >= 0 or null");
  return 0;
}

/* The roof the run measured the case against ("roof" and the fields after
 * it; absent in files written before them). */
static int roof_from_json(const struct reader *rd, const json_t *o, struct case_result *r) {
  struct case_roof *f = r->roof = xcalloc(1, sizeof *r->roof);
  if (read_str(rd, o, "roof", &f->id) || read_nonneg_or_null(rd, o, "roof_value", 0, &f->value) ||
      read_str(rd, o, "roof_unit", &f->unit) || read_nonneg_or_null(rd, o, "pct_of_roof", -1, &f->pct) ||
      read_str(rd, o, "roof_source", &f->source) || read_str(rd, o, "roof_note", &f->note))
    return -1;
  if (!f->id) f->id = xstrdup("");
  if (!f->unit) f->unit = xstrdup("");
  if (!f->source) f->source = xstrdup("");
  return 0;
}

static int case_fields_from_json(const struct reader *rd, const json_t *o, int allow_ref,
                                 struct case_result *r) {
  char *s = NULL;
  if (!json_is_object(o)) return fail(rd, NULL, "expected an object");
  if (read_int(rd, o, "index", &r->index) || read_str(rd, o, "plugin", &r->plugin) ||
      read_str(rd, o, "backend", &r->backend) || read_str(rd, o, "operation", &r->operation) ||
      read_kv(rd, o, "params", &r->nparams, &r->params))
    return -1;

  if (read_str(rd, o, "status", &s)) return -1;
  int bad = case_status_parse(s, &r->status);
  if (bad) fail(rd, "status", "unknown status \"%s\"", s ? s : "null");
  free(s);
  if (bad) return -1;

  if (read_str(rd, o, "message", &r->message) ||
      read_str(rd, o, "stderr_tail", &r->stderr_tail) ||
      read_int(rd, o, "exit_code", &r->exit_code) || read_int(rd, o, "signal", &r->signal) ||
      read_double(rd, o, "wall_s", &r->wall_s) || read_double(rd, o, "flops", &r->flops) ||
      read_double(rd, o, "bytes", &r->bytes) || read_int(rd, o, "batch", &r->batch) ||
      read_int(rd, o, "warmup_iters", &r->warmup_iters) ||
      read_size(rd, o, "nsamples", &r->nsamples) || read_stats(rd, o, "host", &r->host_clock) ||
      read_stats(rd, o, "device", &r->device) || read_bool(rd, o, "settled", &r->settled) ||
      /* "target_cv" in files written before it was named for what it is */
      read_double(rd, o, json_object_get(o, "target_noise") ? "target_noise" : "target_cv",
                  &r->target_noise) ||
      read_str(rd, o, "settle_note", &r->settle_note) || check_from_json(rd, o, &r->check))
    return -1;

  if (read_str(rd, o, "determinism", &s)) return -1;
  bad = determinism_parse(s, &r->determinism);
  if (bad) fail(rd, "determinism", "unknown value \"%s\"", s ? s : "null");
  free(s);
  if (bad) return -1;

  if (read_str_buf(rd, o, "output_hash", r->output_hash, sizeof r->output_hash) ||
      read_kv(rd, o, "info", &r->ninfo, &r->info))
    return -1;
  if (json_object_get(o, "work_source")) { /* optional: "operation" or "plugin" */
    if (read_str(rd, o, "work_source", &s)) return -1;
    bad = !s || work_source_parse(s, &r->work_source) != 0 || r->work_source == WORK_NONE;
    if (bad) fail(rd, "work_source", "unknown value \"%s\" (operation, plugin)", s ? s : "null");
    free(s);
    if (bad) return -1;
  }
  if (json_object_get(o, "stop_rule") && /* optional: files before it have none */
      read_str_buf(rd, o, "stop_rule", r->stop_rule, sizeof r->stop_rule))
    return -1;
  if (r->stop_rule[0] && strcmp(r->stop_rule, "ci") != 0 && strcmp(r->stop_rule, "cv") != 0)
    return fail(rd, "stop_rule", "unknown value \"%s\" (expected ci or cv)", r->stop_rule);
  if (json_object_get(o, "items") && /* optional: only cases that declared items */
      (read_double(rd, o, "items", &r->items) ||
       read_str_buf(rd, o, "item_unit", r->item_unit, sizeof r->item_unit)))
    return -1;

  const json_t *roof = json_object_get(o, "roof");
  if (roof && !json_is_null(roof) && roof_from_json(rd, o, r)) return -1;

  json_t *samples;
  if (read_object(rd, o, "samples", &samples)) return -1;
  char ctx[128];
  snprintf(ctx, sizeof ctx, "%s%ssamples", rd->ctx, *rd->ctx ? "." : "");
  struct reader sub = {rd->err, rd->errlen, ctx};
  if (read_samples(&sub, samples, "host_ns", r->nsamples, 0, &r->host_clock_ns) ||
      read_samples(&sub, samples, "device_ns", r->nsamples, 1, &r->device_ns) ||
      clock_samples_from_json(&sub, samples, r->nsamples, &r->clock_mhz))
    return -1;
  const json_t *mem = json_object_get(o, "memory");
  if (mem && !json_is_null(mem)) { /* optional: absent when not measured */
    char mctx[128];
    struct reader msub = sub_reader(rd, "memory", -1, mctx, sizeof mctx);
    struct case_memory *m = &r->memory;
    if (!json_is_object(mem)) return fail(rd, "memory", "expected an object");
    if (read_u64(&msub, mem, "peak_rss_bytes", &m->peak_rss_bytes) ||
        read_u64(&msub, mem, "start_rss_bytes", &m->start_rss_bytes) ||
        read_str_buf(&msub, mem, "method", m->method, sizeof m->method))
      return -1;
    if (strcmp(m->method, "case") != 0 && strcmp(m->method, "process") != 0)
      return fail(&msub, "method", "unknown value \"%s\" (expected case or process)", m->method);
    m->known = 1;
  }
  const json_t *t = json_object_get(o, "telemetry");
  if (t && !json_is_null(t)) { /* optional: absent when no device was named */
    r->telemetry = xcalloc(1, sizeof *r->telemetry);
    char tctx[128];
    struct reader tsub = sub_reader(rd, "telemetry", -1, tctx, sizeof tctx);
    if (telemetry_from_json(&tsub, t, allow_ref, r->telemetry)) return -1;
  }
  return 0;
}

static int case_from_json(const struct reader *rd, const json_t *o, int allow_ref, struct case_result *r) {
  case_result_init(r);
  if (case_fields_from_json(rd, o, allow_ref, r)) {
    case_result_release(r);
    return -1;
  }
  return 0;
}

static json_t *parse(const char *text, char *err, size_t errlen) {
  json_error_t jerr;
  json_t *root = json_loads(text ? text : "", JSON_REJECT_DUPLICATES, &jerr);
  if (!root && err && errlen)
    snprintf(err, errlen, "invalid json at line %d, column %d: %s", jerr.line, jerr.column,
             jerr.text);
  return root;
}

/* The optional "cpu.caches" (files before it have none: llc stays 0). */
static int caches_from_json(const struct reader *rd, const json_t *env, struct cpu_caches *c) {
  const json_t *a = json_object_get(env, "cpu.caches");
  memset(c, 0, sizeof *c);
  if (!a) return 0;
  if (!json_is_array(a)) return fail(rd, "cpu.caches", "expected an array");
  for (size_t i = 0; i < json_array_size(a); i++) {
    const json_t *o = json_array_get(a, i);
    char ctx[48], source[16];
    snprintf(ctx, sizeof ctx, "%s.cpu.caches[%zu]", rd->ctx, i);
    struct reader sub = {rd->err, rd->errlen, ctx};
    if (!json_is_object(o)) return fail(&sub, NULL, "expected an object");
    int64_t level, bytes, shared = 0;
    if (read_i64(&sub, o, "level", 1, CACHE_LEVELS, &level) ||
        read_i64(&sub, o, "bytes", 1, INT64_MAX, &bytes) ||
        read_str_buf(&sub, o, "source", source, sizeof source))
      return -1;
    const json_t *sh = json_object_get(o, "shared_by");
    if (sh && !json_is_null(sh) && read_i64(&sub, o, "shared_by", 1, INT_MAX, &shared)) return -1;
    enum cache_source src = CACHE_NONE;
    for (int k = CACHE_SYSFS; k <= CACHE_DEFAULT; k++)
      if (!strcmp(source, cache_source_name((enum cache_source)k))) src = (enum cache_source)k;
    if (src == CACHE_NONE) return fail(&sub, "source", "'%s' is not sysfs, cpuid, sysconf or default", source);
    if (c->level[level].bytes) return fail(&sub, "level", "L%d twice", (int)level);
    c->level[level] = (struct cache_level){bytes, (int)shared, src};
    if (level > c->llc) c->llc = (int)level;
  }
  return 0;
}

/* The optional "steadiness" (files before it have none: known stays 0). */
static int steady_from_json(const struct reader *rd, const json_t *env, struct run_steady *m) {
  memset(m, 0, sizeof *m);
  const json_t *o = json_object_get(env, "steadiness");
  if (!o || json_is_null(o)) return 0;
  if (!json_is_object(o)) return fail(rd, "steadiness", "expected an object");
  char ctx[48];
  snprintf(ctx, sizeof ctx, "%s.steadiness", rd->ctx);
  struct reader sub = {rd->err, rd->errlen, ctx};
  const json_t *st = json_object_get(o, "steal");
  m->steal = NAN;
  if (read_double(&sub, o, "wall_s", &m->wall_s) || read_double(&sub, o, "load_per_cpu_start", &m->load_start) ||
      read_double(&sub, o, "load_per_cpu_end", &m->load_end) ||
      read_double(&sub, o, "others_per_cpu_start", &m->others_start) ||
      read_double(&sub, o, "others_per_cpu_end", &m->others_end) ||
      read_double(&sub, o, "contention", &m->contention) || read_double(&sub, o, "calibration_drift", &m->drift) ||
      (st && !json_is_null(st) && read_double(&sub, o, "steal", &m->steal)))
    return -1;
  m->known = 1;
  return 0;
}

/* The optional "sampling" (files before it have none: known stays 0). */
static int sampling_from_json(const struct reader *rd, const json_t *env, struct run_sampling *m) {
  memset(m, 0, sizeof *m);
  const json_t *o = json_object_get(env, "sampling");
  if (!o || json_is_null(o)) return 0;
  if (!json_is_object(o)) return fail(rd, "sampling", "expected an object");
  char ctx[48];
  snprintf(ctx, sizeof ctx, "%s.sampling", rd->ctx);
  struct reader sub = {rd->err, rd->errlen, ctx};
  json_t *a;
  if (read_int(&sub, o, "warmup_iters", &m->warmup_iters) || read_double(&sub, o, "warmup_time_s", &m->warmup_s) ||
      read_int(&sub, o, "min_samples", &m->min_samples) || read_int(&sub, o, "max_samples", &m->max_samples) ||
      read_double(&sub, o, "min_time_s", &m->min_time_s) || read_double(&sub, o, "max_time_s", &m->max_time_s) ||
      read_double(&sub, o, "target_noise", &m->target_noise) ||
      read_str_buf(&sub, o, "stop_rule", m->stop_rule, sizeof m->stop_rule) || member(&sub, o, "overridden", &a))
    return -1;
  if (!json_is_array(a)) return fail(&sub, "overridden", "expected an array of sampling key names");
  for (size_t i = 0; i < json_array_size(a); i++) {
    const json_t *v = json_array_get(a, i);
    int k = -1;
    for (int j = 0; j < RS_NKEYS && json_is_string(v); j++)
      if (strcmp(json_string_value(v), run_sampling_keys[j]) == 0) k = j;
    if (k < 0) return fail(&sub, "overridden", "item %zu is not a sampling key's name", i);
    m->from_cli |= 1u << k;
  }
  m->known = 1;
  return 0;
}

/* The optional "devices" (runs with no device described have none). */
static int devices_from_json(const struct reader *rd, const json_t *env, struct run_env *e) {
  const json_t *a = json_object_get(env, "devices");
  if (!a || json_is_null(a)) return 0;
  if (!json_is_array(a)) return fail(rd, "devices", "expected an array");
  size_t n = json_array_size(a);
  e->devices = xcalloc(n ? n : 1, sizeof *e->devices);
  for (size_t i = 0; i < n; i++) {
    char ctx[64];
    struct reader sub = sub_reader(rd, "devices", (long)i, ctx, sizeof ctx);
    struct gpu_facts *d = &e->devices[i];
    if (facts_from_json(&sub, json_array_get(a, i), d)) return -1;
    if (!d->bus_id[0]) return fail(&sub, "bus_id", "missing (a device is named by its bus id)");
    for (size_t k = 0; k < i; k++)
      if (strcmp(e->devices[k].bus_id, d->bus_id) == 0) return fail(&sub, "bus_id", "\"%s\" twice", d->bus_id);
    e->ndevices = i + 1;
  }
  return 0;
}

static int env_from_json(const struct reader *rd, const json_t *root, struct run_env *e) {
  json_t *o;
  if (read_object(rd, root, "env", &o)) return -1;
  struct reader sub = {rd->err, rd->errlen, "env"};
  if (read_str(&sub, o, "date", &e->date) || read_str(&sub, o, "started", &e->started) ||
      read_str(&sub, o, "host", &e->hostname) || read_str(&sub, o, "cpu", &e->cpu) ||
      read_int(&sub, o, "cpus", &e->cpus) || read_str(&sub, o, "os", &e->os) ||
      read_str(&sub, o, "bench_version", &e->bench_version) ||
      read_str(&sub, o, "git_revision", &e->git_revision) ||
      read_str(&sub, o, "command", &e->command) || read_str(&sub, o, "preset", &e->preset) ||
      read_str(&sub, o, "preset_sha256", &e->preset_sha256) ||
      read_str(&sub, o, "tag", &e->tag) || read_opt_str(&sub, o, "label", &e->label) ||
      read_opt_str(&sub, o, "run_id", &e->run_id) || read_str(&sub, o, "mode", &e->mode) ||
      caches_from_json(&sub, o, &e->caches) || steady_from_json(&sub, o, &e->steady) ||
      sampling_from_json(&sub, o, &e->sampling) || devices_from_json(&sub, o, e))
    return -1;
  return 0;
}

static int run_file_fields(const struct reader *rd, const json_t *root, struct run_file *f) {
  if (!json_is_object(root)) return fail(rd, NULL, "not a bench result file (not a json object)");
  json_t *schema = json_object_get(root, "schema");
  if (!schema) return fail(rd, NULL, "not a bench result file (no \"schema\" key)");
  if (!json_is_string(schema) || strcmp(json_string_value(schema), BENCH_RESULT_SCHEMA) != 0) {
    char *shown = json_dumps(schema, JSON_ENCODE_ANY | JSON_COMPACT);
    fail(rd, NULL, "unsupported schema %s (expected \"%s\")", shown ? shown : "?",
         BENCH_RESULT_SCHEMA);
    free(shown);
    return -1;
  }
  if (env_from_json(rd, root, &f->env)) return -1;

  json_t *p;
  if (read_object(rd, root, "plugin", &p)) return -1;
  struct reader sub = {rd->err, rd->errlen, "plugin"};
  if (read_str(&sub, p, "name", &f->plugin) || read_str(&sub, p, "path", &f->plugin_path) ||
      read_str(&sub, p, "sha256", &f->plugin_sha256) || read_opt_str(&sub, p, "git_commit", &f->plugin_commit) ||
      read_opt_str(&sub, p, "git_describe", &f->plugin_describe))
    return -1;
  f->plugin_dirty = -1;
  if (f->plugin_commit && json_object_get(p, "git_dirty") && read_bool(&sub, p, "git_dirty", &f->plugin_dirty))
    return -1;

  json_t *cases;
  if (member(rd, root, "cases", &cases)) return -1;
  if (!json_is_array(cases)) return fail(rd, "cases", "expected an array");
  size_t n = json_array_size(cases);
  f->cases = xcalloc(n ? n : 1, sizeof *f->cases);
  for (size_t i = 0; i < n; i++) {
    char ctx[32];
    snprintf(ctx, sizeof ctx, "cases[%zu]", i);
    struct reader csub = {rd->err, rd->errlen, ctx};
    if (case_from_json(&csub, json_array_get(cases, i), 1, &f->cases[i])) return -1;
    f->ncases = i + 1;
  }
  return run_file_resolve_devices(f, rd->err, rd->errlen);
}

int run_file_from_json(const char *text, struct run_file *f, char *err, size_t errlen) {
  return run_file_from_json_buf(text ? text : "", text ? strlen(text) : 0, f, err, errlen);
}

int run_file_from_json_buf(const char *text, size_t len, struct run_file *f, char *err,
                           size_t errlen) {
  memset(f, 0, sizeof *f);
  const char *nul = memchr(text, '\0', len);
  if (nul) {
    if (err && errlen)
      snprintf(err, errlen, "holds a nul byte at offset %zu (not a text file)", (size_t)(nul - text));
    return -1;
  }
  json_t *root = parse(text, err, errlen);
  if (!root) return -1;
  struct reader rd = {err, errlen, ""};
  int rc = run_file_fields(&rd, root, f);
  json_decref(root);
  if (rc) run_file_release(f);
  return rc;
}

int case_result_from_json_buf(const char *text, size_t len, size_t i, struct case_result *r,
                              char *err, size_t errlen) {
  case_result_init(r);
  const char *nul = memchr(text, '\0', len);
  if (nul) {
    if (err && errlen)
      snprintf(err, errlen, "cases[%zu]: holds a nul byte (not a text file)", i);
    return -1;
  }
  json_error_t jerr;
  json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
  if (!root) {
    if (err && errlen)
      snprintf(err, errlen, "cases[%zu]: invalid json at line %d, column %d: %s", i, jerr.line,
               jerr.column, jerr.text);
    return -1;
  }
  char ctx[32];
  snprintf(ctx, sizeof ctx, "cases[%zu]", i);
  struct reader rd = {err, errlen, ctx};
  int rc = case_from_json(&rd, root, 1, r);
  json_decref(root);
  return rc;
}

int case_result_from_json_line(const char *text, struct case_result *r, char *err,
                               size_t errlen) {
  case_result_init(r);
  json_t *root = parse(text, err, errlen);
  if (!root) return -1;
  struct reader rd = {err, errlen, ""};
  int rc = case_from_json(&rd, root, 0, r);
  json_decref(root);
  return rc;
}
