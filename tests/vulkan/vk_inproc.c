/* vk_inproc: one plugin's whole life (init, setup, three runs, verify,
 * teardown, deinit) in this process, as the harness's child runs it, but
 * returning from main: LeakSanitizer (the ASan build) then checks what the
 * plugin and the vk helpers leave behind, which the harness's children,
 * ending in _exit, never show. A minimal host: each parameter takes the
 * first value of its default for the tier, inputs come from a small
 * deterministic generator, check() only checks its arguments; a Vulkan
 * validation message logged by the helpers counts as an error.
 *   vk_inproc PLUGIN.so [smoke|standard|perf|verify]
 * With VK_INPROC_SLOTS set, the host is 1.1 with bench.process/1 and the
 * life runs twice (the second reuses what the first kept in a slot), then
 * the slots are released as a worker does after its last plugin. With
 * VK_INPROC_DEVICE set, the host is 1.1 with bench.device/1, whose calls
 * go to stderr ("set_device: BUS|(null) MHZ", "set_clock: MHZ"), and the
 * last line of stderr counts them against the timed calls ("device: N
 * set_device, N set_clock, N timed calls"). With VK_INPROC_COMPARE set, the
 * host is 1.1 with bench.compare/1 (an element-wise comparison of its own),
 * bench.items/1 and bench.roof/1 ("set_roof: ID KIND METHOD" and
 * "set_items: N UNIT" to stderr), which a 1.1 host of the other two
 * settings offers too: what the peak plugins need.
 * Prints "<plugin>: OK|SKIPPED|ERROR|WRONG_ANSWER <message>"; exit 0 for OK
 * or SKIPPED, 1 for ERROR or WRONG_ANSWER, 2 for a usage error. The plugin is never dlclosed, and the
 * libraries named in VK_INPROC_KEEP (colon-separated: the Vulkan drivers and
 * layers, which the loader dlcloses) are pinned in memory, so that a leak
 * report keeps the module names of its stack frames and a suppression by
 * module can match it. */
#include <dlfcn.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/dtype.h"
#include "bench/plugin.h"

struct host {
  struct bench_host api;
  const struct bench_plugin *p;
  int tier;
  char message[1024];
  char value[256];
  int validation_messages, checks, wrong;
};

static struct host *H(const struct bench_host *api) { return (struct host *)api->host_data; }

/* The first item of the parameter's default list for the tier. */
static const char *param_text(const struct bench_host *api, const char *name) {
  struct host *h = H(api);
  for (const struct bench_param *q = h->p->params; q->name; q++) {
    if (strcmp(q->name, name) != 0) continue;
    const char *d = q->defaults[h->tier] ? q->defaults[h->tier] : q->defaults[BENCH_TIER_STANDARD];
    size_t n = strcspn(d, ",");
    snprintf(h->value, sizeof h->value, "%.*s", (int)n, d);
    return h->value;
  }
  fprintf(stderr, "vk_inproc: unknown parameter %s\n", name);
  exit(1);
}

static int64_t param_int(const struct bench_host *api, const char *name) {
  return strtoll(param_text(api, name), NULL, 10);
}
static double param_float(const struct bench_host *api, const char *name) {
  return strtod(param_text(api, name), NULL);
}
static const char *param_str(const struct bench_host *api, const char *name) {
  return param_text(api, name);
}

static int record(const struct bench_host *api, int rc, const char *fmt, va_list ap) {
  vsnprintf(H(api)->message, sizeof H(api)->message, fmt, ap);
  return rc;
}
static int skip(const struct bench_host *api, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int rc = record(api, BENCH_SKIP, fmt, ap);
  va_end(ap);
  return rc;
}
static int fail(const struct bench_host *api, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int rc = record(api, BENCH_ERROR, fmt, ap);
  va_end(ap);
  return rc;
}

static void logf_(const struct bench_host *api, const char *fmt, ...) {
  char buf[2048];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  fprintf(stderr, "%s\n", buf);
  if (strncmp(buf, "vulkan validation", 17) == 0 || strncmp(buf, "vulkan performance", 18) == 0)
    H(api)->validation_messages++;
}

static void set_info(const struct bench_host *api, const char *k, const char *v) {
  (void)api;
  if (k && v && (strcmp(k, "vk_device_shared") == 0 || strcmp(k, "vk_inband_clock") == 0 ||
                 strcmp(k, "vk_pci_bus_id") == 0))
    fprintf(stderr, "%s: %s\n", k, v);
}

/* bench.process/1 (VK_INPROC_SLOTS=1): the worker's slots, released at the
 * end of main as the harness's worker does after its last plugin. */
static struct {
  char key[BENCH_PROCESS_KEY_MAX + 1];
  void *ptr;
  void (*release)(void *);
} slots[8];
static int nslots;

static void *slot_get(const struct bench_host *api, const char *key) {
  (void)api;
  for (int i = 0; i < nslots; i++)
    if (strcmp(slots[i].key, key) == 0) return slots[i].ptr;
  return NULL;
}

static int slot_put(const struct bench_host *api, const char *key, void *ptr,
                    void (*release)(void *)) {
  if (!key || !*key || strlen(key) > BENCH_PROCESS_KEY_MAX) return fail(api, "bad slot key");
  for (int i = 0; i < nslots; i++)
    if (strcmp(slots[i].key, key) == 0) {
      if (slots[i].release) slots[i].release(slots[i].ptr);
      slots[i] = slots[--nslots];
      break;
    }
  if (!ptr) return BENCH_OK;
  if (nslots == 8) return fail(api, "no free slot");
  snprintf(slots[nslots].key, sizeof slots[nslots].key, "%s", key);
  slots[nslots].ptr = ptr;
  slots[nslots++].release = release;
  return BENCH_OK;
}

static const struct bench_ext_process ext_process = {slot_get, slot_put};

/* bench.device/1 (VK_INPROC_DEVICE=1): every call logged and counted. */
static int with_slots, with_device, n_set_device, n_set_clock, n_timed;

static void dev_set_device(const struct bench_host *api, const char *bus, double mhz) {
  (void)api;
  n_set_device++;
  fprintf(stderr, "set_device: %s %g\n", bus ? bus : "(null)", mhz);
}
static void dev_set_clock(const struct bench_host *api, double mhz) {
  (void)api;
  n_set_clock++;
  fprintf(stderr, "set_clock: %g\n", mhz);
}
static const struct bench_ext_device ext_device = {dev_set_device, dev_set_clock};

/* bench.compare/1, bench.items/1, bench.roof/1 (a 1.1 host): a comparison
 * element by element (EXACT: equal, NaN equal to NaN; else |out - ref| <=
 * atol + rtol |ref| with the given or 1e-5 tolerances), counted as a check;
 * items and roofs logged. */
static double element(const void *p, enum bench_dtype t, int64_t i) {
  switch (t) {
  case BENCH_F32: return ((const float *)p)[i];
  case BENCH_F16: return bench_f16_to_f32(((const uint16_t *)p)[i]);
  case BENCH_BF16: return bench_bf16_to_f32(((const uint16_t *)p)[i]);
  case BENCH_I8: return ((const int8_t *)p)[i];
  case BENCH_U8: return ((const uint8_t *)p)[i];
  case BENCH_I32: return ((const int32_t *)p)[i];
  default: return ((const double *)p)[i];
  }
}
static int cmp_compare(const struct bench_host *api, const struct bench_compare *c) {
  if (!c || !c->out || c->count <= 0 || (!c->ref && !c->ref_fn)) return fail(api, "malformed compare");
  H(api)->checks++;
  const double rtol = c->tol == BENCH_TOL_EXACT ? 0 : c->rtol > 0 ? c->rtol : 1e-5;
  const double atol = c->tol == BENCH_TOL_EXACT ? 0 : c->atol > 0 ? c->atol : 1e-5;
  double buf[1024];
  for (int64_t s = 0; s < c->count; s += 1024) {
    const int64_t n = c->count - s < 1024 ? c->count - s : 1024;
    if (c->ref_fn && c->ref_fn(api, c->user, s, n, buf) != BENCH_OK) return BENCH_ERROR;
    for (int64_t j = 0; j < n; j++) {
      const double r = c->ref_fn ? buf[j] : element(c->ref, c->ref_dtype, s + j);
      const double o = element(c->out, c->dtype, s + j);
      const int same = (o != o && r != r) || o == r || (rtol + atol > 0 && fabs(o - r) <= atol + rtol * fabs(r));
      if (!same && !H(api)->wrong) {
        H(api)->wrong = 1;
        snprintf(H(api)->message, sizeof H(api)->message, "%s[%lld]: %g, expected %g",
                 c->name ? c->name : "out", (long long)(s + j), o, r);
      }
    }
  }
  return BENCH_OK;
}
static int cmp_mismatch(const struct bench_host *api, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  record(api, BENCH_OK, fmt, ap);
  va_end(ap);
  H(api)->wrong = 1;
  H(api)->checks++;
  return BENCH_OK;
}
static int cmp_matched(const struct bench_host *api, const char *what) {
  (void)what;
  H(api)->checks++;
  return BENCH_OK;
}
static const struct bench_ext_compare ext_compare = {cmp_compare, cmp_mismatch, cmp_matched};
static void items_set(const struct bench_host *api, double items, const char *unit) {
  (void)api;
  fprintf(stderr, "set_items: %g %s\n", items, unit ? unit : "");
}
static const struct bench_ext_items ext_items = {items_set};
static int roof_set(const struct bench_host *api, const struct bench_roof *r) {
  if (!r || !r->id || !*r->id) return fail(api, "malformed roof");
  static const char *const kinds[] = {"compute", "bandwidth", "latency"};
  if ((unsigned)r->kind > 2) return fail(api, "roof kind %d", (int)r->kind);
  fprintf(stderr, "set_roof: %s %s %s\n", r->id, kinds[r->kind], r->method ? r->method : "");
  return BENCH_OK;
}
static const struct bench_ext_roof ext_roof = {roof_set};

static const void *get_extension(const struct bench_host *api, const char *id) {
  (void)api;
  if (with_slots && id && strcmp(id, BENCH_EXT_PROCESS) == 0) return &ext_process;
  if (with_device && id && strcmp(id, BENCH_EXT_DEVICE) == 0) return &ext_device;
  if (id && strcmp(id, BENCH_EXT_COMPARE) == 0) return &ext_compare;
  if (id && strcmp(id, BENCH_EXT_ITEMS) == 0) return &ext_items;
  if (id && strcmp(id, BENCH_EXT_ROOF) == 0) return &ext_roof;
  return NULL;
}
static void set_work(const struct bench_host *api, double f, double b) { (void)api, (void)f, (void)b; }
static void set_device_time(const struct bench_host *api, double ns) {
  (void)api, (void)ns;
  n_timed++;
}

/* Values k/4 for k in -3..3: exact in every dtype. */
static void fill_random(const struct bench_host *api, void *dst, size_t count,
                        enum bench_dtype t, uint64_t seed) {
  (void)api;
  static const uint16_t f16[7] = {0xba00, 0xb800, 0xb400, 0x0000, 0x3400, 0x3800, 0x3a00};
  for (size_t i = 0; i < count; i++) {
    int k = (int)((i * 2654435761u + seed * 40503u) % 7);
    float v = (float)(k - 3) / 4.0f;
    if (t == BENCH_F32) {
      ((float *)dst)[i] = v;
    } else if (t == BENCH_F16) {
      ((uint16_t *)dst)[i] = f16[k];
    } else {
      uint32_t bits;
      memcpy(&bits, &v, 4);
      ((uint16_t *)dst)[i] = (uint16_t)(bits >> 16);
    }
  }
}

static int check(const struct bench_host *api, const struct bench_check *c) {
  H(api)->checks++;
  if (!c || !c->op || !c->out || !c->in[0]) return fail(api, "malformed check");
  return BENCH_OK;
}

/* init, setup, three runs, batches, verify, teardown, deinit. */
static int life(struct host *h) {
  const struct bench_plugin *p = h->p;
  void *ctx = NULL, *state = NULL;
  h->checks = h->wrong = 0;
  int rc = p->init ? p->init(&h->api, &ctx) : BENCH_OK;
  if (rc == BENCH_OK) {
    rc = p->setup(&h->api, ctx, &state);
    for (int i = 0; rc == BENCH_OK && i < 3; i++) rc = p->run(&h->api, state);
    /* 1.1: batches of 3, then 2 (recorded again), as the harness calls them */
    for (int n = 3; rc == BENCH_OK && p->abi_version >= BENCH_ABI_1_1 && p->run_batch && n >= 2; n--)
      rc = p->run_batch(&h->api, state, n);
    if (rc == BENCH_OK && p->verify) rc = p->verify(&h->api, state);
    if (rc == BENCH_OK && p->verify && h->checks == 0) rc = fail(&h->api, "verify() checked nothing");
    if (state && p->teardown) p->teardown(&h->api, state);
    if (p->deinit) p->deinit(&h->api, ctx);
  }
  return rc;
}

int main(int argc, char **argv) {
  static const char *const tiers[] = {"smoke", "standard", "perf", "verify"};
  struct host h = {.tier = BENCH_TIER_SMOKE};
  if (argc < 2 || argc > 3) {
    fprintf(stderr, "usage: vk_inproc PLUGIN.so [smoke|standard|perf|verify]\n");
    return 2;
  }
  const char *keep = getenv("VK_INPROC_KEEP");
  while (keep && *keep) {
    char lib[1024];
    size_t n = strcspn(keep, ":");
    snprintf(lib, sizeof lib, "%.*s", (int)n, keep);
    if (n && !dlopen(lib, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE))
      fprintf(stderr, "vk_inproc: cannot pin %s: %s\n", lib, dlerror());
    keep += n + (keep[n] == ':');
  }
  for (int t = 0; argc == 3 && t < 4; t++)
    if (strcmp(argv[2], tiers[t]) == 0) h.tier = t;
  void *so = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!so) {
    fprintf(stderr, "vk_inproc: %s\n", dlerror());
    return 2;
  }
  h.p = dlsym(so, BENCH_PLUGIN_SYMBOL);
  if (!h.p) {
    fprintf(stderr, "vk_inproc: %s has no %s\n", argv[1], BENCH_PLUGIN_SYMBOL);
    return 2;
  }
  /* A 1.0 host (no extensions): the plugins must run on it too. With
   * VK_INPROC_SLOTS=1, a 1.1 host with bench.process/1 instead, and the
   * plugin's life twice: the second reuses what the first kept in a slot. */
  with_slots = getenv("VK_INPROC_SLOTS") != NULL;
  with_device = getenv("VK_INPROC_DEVICE") != NULL;
  const int v11 = with_slots || with_device || getenv("VK_INPROC_COMPARE") != NULL;
  h.api = (struct bench_host){v11 ? BENCH_ABI_1_1 : BENCH_ABI_1_0, &h, param_int, param_float,
                              param_str, skip, fail, logf_, set_info, set_work, set_device_time,
                              fill_random, check, v11 ? get_extension : NULL};
  const struct bench_plugin *p = h.p;
  int rc = BENCH_OK;
  for (int n = 0; rc == BENCH_OK && n < (with_slots ? 2 : 1); n++) rc = life(&h);
  while (nslots > 0) { /* the worker's end */
    nslots--;
    if (slots[nslots].release) slots[nslots].release(slots[nslots].ptr);
  }
  if (rc == BENCH_OK && h.validation_messages)
    rc = fail(&h.api, "%d validation message(s) during teardown or deinit", h.validation_messages);
  if (with_device)
    fprintf(stderr, "device: %d set_device, %d set_clock, %d timed calls\n", n_set_device,
            n_set_clock, n_timed);
  const int wrong = rc == BENCH_OK && h.wrong;
  printf("%s: %s %s\n", p->name,
         wrong ? "WRONG_ANSWER" : rc == BENCH_OK ? "OK" : rc == BENCH_SKIP ? "SKIPPED" : "ERROR", h.message);
  return rc == BENCH_ERROR || wrong ? 1 : 0;
}
