/* JSON-lines events, written with jansson. */
#include "run/events.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <string.h>
#include <sys/time.h>

#include "core/util.h"

int events_open(struct events *ev, const char *path) {
  ev->f = NULL;
  ev->owned = 0;
  ev->also = NULL;
  if (!path) return 0;
  if (strcmp(path, "-") == 0) {
    ev->f = stdout;
    return 0;
  }
  ev->f = fopen(path, "w");
  if (!ev->f) return error("cannot write events file '%s': %s", path, strerror(errno));
  ev->owned = 1;
  return 0;
}

int events_open_also(struct events *ev, const char *path) {
  ev->also = fopen(path, "w");
  if (!ev->also) return error("cannot write events file '%s': %s", path, strerror(errno));
  return 0;
}

void events_close(struct events *ev) {
  if (ev->f && ev->owned) fclose(ev->f);
  if (ev->also) fclose(ev->also);
  ev->f = NULL;
  ev->also = NULL;
}

/* Text from plugins and children may hold invalid UTF-8: replace such bytes
 * with '?' rather than lose the field. */
static json_t *jstr(const char *s) {
  if (!s) return json_null();
  json_t *j = json_string(s);
  if (j) return j;
  char *copy = xstrdup(s);
  for (unsigned char *p = (unsigned char *)copy; *p; p++)
    if (*p >= 0x80) *p = '?';
  j = json_string(copy);
  free(copy);
  return j ? j : json_null();
}

static json_t *event_new(const char *name) {
  struct timeval tv;
  gettimeofday(&tv, NULL);
  json_t *o = json_object();
  json_object_set_new(o, "event", json_string(name));
  json_object_set_new(o, "ts", json_real((double)tv.tv_sec + tv.tv_usec * 1e-6));
  return o;
}

static void event_emit(struct events *ev, json_t *o) {
  char *s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15));
  FILE *to[2] = {ev->f, ev->also};
  for (int i = 0; i < 2 && s; i++) {
    if (!to[i]) continue;
    fputs(s, to[i]);
    fputc('\n', to[i]);
    fflush(to[i]);
  }
  free(s);
  json_decref(o);
}

static json_t *num_or_null(double v, int valid) { return valid ? json_real(v) : json_null(); }

static json_t *gpu_value(struct gpu_value v) { return v.have ? json_real(v.v) : json_null(); }

/* TEST_END's "telemetry": the device's state over the case as the run read
 * it (results/result.h case_telemetry), or null when nothing read it. */
static json_t *telemetry_json(const struct case_telemetry *t) {
  if (!t || !t->readings || !t->library[0]) return json_null();
  json_t *o = json_object();
  json_object_set_new(o, "library", json_string(t->library));
  json_object_set_new(o, "sm_clock_mhz", gpu_value(t->sm_clock_mean));
  json_object_set_new(o, "sm_clock_min_mhz", gpu_value(t->sm_clock_min));
  json_object_set_new(o, "mem_clock_mhz", gpu_value(t->mem_clock_mean));
  json_object_set_new(o, "power_w", gpu_value(t->power_mean));
  json_object_set_new(o, "power_max_w", gpu_value(t->power_max));
  json_object_set_new(o, "power_limit_w", gpu_value(t->power_limit));
  json_object_set_new(o, "temp_max_c", gpu_value(t->temp_max));
  json_t *thr = json_array();
  if (t->have_throttle && t->throttle) {
    char names[256];
    gpu_throttle_names(t->throttle, names, sizeof names);
    for (char *save, *w = strtok_r(names, ",| ", &save); w; w = strtok_r(NULL, ",| ", &save))
      json_array_append_new(thr, json_string(w));
  }
  json_object_set_new(o, "throttle", t->have_throttle ? thr : (json_decref(thr), json_null()));
  json_object_set_new(o, "throttled", json_boolean(t->throttled));
  json_object_set_new(o, "throttled_by", t->throttled_by[0] ? jstr(t->throttled_by) : json_null());
  return o;
}

void events_suite_start(struct events *ev, int total_cases, const char *const *plugins,
                        size_t nplugins, const char *preset, const char *tag) {
  if (!ev->f && !ev->also) return;
  json_t *o = event_new("SUITE_START");
  json_object_set_new(o, "total_cases", json_integer(total_cases));
  json_t *a = json_array();
  for (size_t i = 0; i < nplugins; i++) json_array_append_new(a, json_string(plugins[i]));
  json_object_set_new(o, "plugins", a);
  json_object_set_new(o, "preset", jstr(preset));
  json_object_set_new(o, "tag", jstr(tag));
  event_emit(ev, o);
}

void events_test_start(struct events *ev, const struct case_result *id, const char *label,
                       int index, int total, double timeout_s) {
  if (!ev->f && !ev->also) return;
  json_t *o = event_new("TEST_START");
  json_object_set_new(o, "plugin", json_string(id->plugin));
  json_object_set_new(o, "case", jstr(label));
  json_t *p = json_object();
  for (size_t i = 0; i < id->nparams; i++)
    json_object_set_new(p, id->params[i].key, jstr(id->params[i].value));
  json_object_set_new(o, "params", p);
  json_object_set_new(o, "index", json_integer(index));
  json_object_set_new(o, "total", json_integer(total));
  json_object_set_new(o, "timeout_s", json_real(timeout_s));
  event_emit(ev, o);
}

void events_heartbeat(struct events *ev, const char *plugin, const char *label, int index,
                      double elapsed_s, double case_percent, double case_eta_s,
                      double suite_percent, double suite_eta_s) {
  if (!ev->f && !ev->also) return;
  json_t *o = event_new("HEARTBEAT");
  json_object_set_new(o, "plugin", json_string(plugin));
  json_object_set_new(o, "case", jstr(label));
  json_object_set_new(o, "index", json_integer(index));
  json_object_set_new(o, "elapsed_s", json_real(elapsed_s));
  json_object_set_new(o, "percent", json_real(case_percent));
  json_object_set_new(o, "eta_s", json_real(case_eta_s));
  json_object_set_new(o, "suite_percent", json_real(suite_percent));
  json_object_set_new(o, "suite_eta_s", json_real(suite_eta_s));
  event_emit(ev, o);
}

void events_test_end(struct events *ev, const struct case_result *r, const char *label) {
  if (!ev->f && !ev->also) return;
  json_t *o = event_new("TEST_END");
  int ok = r->status == CASE_OK;
  const struct stats *t = case_time(r);
  json_object_set_new(o, "plugin", json_string(r->plugin));
  json_object_set_new(o, "case", jstr(label));
  json_object_set_new(o, "index", json_integer(r->index));
  json_object_set_new(o, "status", json_string(case_status_name(r->status)));
  json_object_set_new(o, "exit_code", json_integer(r->exit_code));
  json_object_set_new(o, "wall_s", json_real(r->wall_s));
  json_object_set_new(o, "median_ms", num_or_null(t->median * 1e-6, r->nsamples > 0));
  json_object_set_new(o, "cv", num_or_null(t->cv, r->nsamples >= 2 && isfinite(t->cv)));
  json_object_set_new(o, "gflops", num_or_null(case_gflops(r), ok && r->flops > 0));
  json_object_set_new(o, "gbps", num_or_null(case_gbps(r), ok && r->bytes > 0));
  /* the case's one throughput (result.h case_primary): its kind, value and unit */
  struct case_figure fig;
  int have = case_primary(r, &fig);
  json_object_set_new(o, "primary", fig.kind != PRIMARY_NONE ? json_string(primary_name(fig.kind)) : json_null());
  json_object_set_new(o, "throughput", num_or_null(fig.value, have));
  json_object_set_new(o, "throughput_unit", have ? json_string(fig.unit) : json_null());
  json_object_set_new(o, "flops", num_or_null(r->flops, r->flops > 0));
  json_object_set_new(o, "bytes", num_or_null(r->bytes, r->bytes > 0));
  json_object_set_new(o, "settled", json_boolean(r->settled));
  json_object_set_new(o, "message", jstr(r->message));
  json_object_set_new(o, "telemetry", telemetry_json(r->telemetry));
  event_emit(ev, o);
}

void events_suite_end(struct events *ev, int completed, int failed, int skipped, int total,
                      double wall_s, int interrupted) {
  if (!ev->f && !ev->also) return;
  json_t *o = event_new("SUITE_END");
  json_object_set_new(o, "completed", json_integer(completed));
  json_object_set_new(o, "failed", json_integer(failed));
  json_object_set_new(o, "skipped", json_integer(skipped));
  json_object_set_new(o, "total", json_integer(total));
  json_object_set_new(o, "wall_s", json_real(wall_s));
  json_object_set_new(o, "interrupted", json_boolean(interrupted));
  event_emit(ev, o);
}
