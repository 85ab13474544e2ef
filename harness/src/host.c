/* Implementation of struct bench_host for the measuring child. */
#include "host.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "hash.h"

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

static void host_set_info(const struct bench_host *api, const char *key, const char *value) {
  struct host_state *h = state_of(api);
  if (!key || !value || !h->result) return;
  for (size_t i = 0; i < h->result->ninfo; i++) {
    if (strcmp(h->result->info[i].key, key) == 0) {
      free(h->result->info[i].value);
      h->result->info[i].value = xstrdup(value);
      return;
    }
  }
  kv_list_add(&h->result->ninfo, &h->result->info, key, value);
}

static void host_set_work(const struct bench_host *api, double flops, double bytes) {
  struct host_state *h = state_of(api);
  if (!h->result) return;
  h->result->flops = flops > 0 ? flops : 0;
  h->result->bytes = bytes > 0 ? bytes : 0;
}

static void host_set_device_time(const struct bench_host *api, double ns) {
  struct host_state *h = state_of(api);
  h->device_ns += ns;
  h->device_calls++;
}

static void host_fill_random(const struct bench_host *api, void *dst, size_t count,
                             enum bench_dtype dtype, uint64_t seed) {
  (void)api;
  fill_random(dst, count, dtype, seed);
}

static int host_check(const struct bench_host *api, const struct bench_check *c) {
  struct host_state *h = state_of(api);
  h->checks++;
  size_t bytes = c ? check_output_bytes(c) : 0;
  if (!c || !bytes || !c->out) {
    snprintf(h->message, sizeof h->message, "plugin bug: malformed check (%s)",
             c && c->op ? c->op : "no operation");
    h->bug = 1;
    return BENCH_ERROR;
  }
  h->hash = fnv1a64(h->hash, c->out, bytes);
  if (h->hash_only) return BENCH_OK;
  struct check_result r;
  if (check_output(c, h->verify, h->seed, &r) != 0) {
    snprintf(h->message, sizeof h->message, "plugin bug: %s", r.message);
    h->bug = 1;
    return BENCH_ERROR;
  }
  struct check_result *acc = &h->result->check;
  if (!acc->checked && h->checks == 1) {
    *acc = r;
  } else if (r.checked) {
    /* Several outputs: keep the worst of each figure, the first failure. */
    if (r.max_abs_err > acc->max_abs_err) acc->max_abs_err = r.max_abs_err;
    if (r.max_rel_err > acc->max_rel_err) acc->max_rel_err = r.max_rel_err;
    acc->compared += r.compared;
    acc->mismatches += r.mismatches;
    if (acc->pass && !r.pass) {
      acc->first_bad = r.first_bad;
      acc->bad_out = r.bad_out;
      acc->bad_ref = r.bad_ref;
      memcpy(acc->message, r.message, sizeof acc->message);
    }
    acc->pass = acc->pass && r.pass;
    acc->checked = 1;
  }
  return BENCH_OK;
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
}
