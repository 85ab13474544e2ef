/* Roofs per device (measured, best case, data sheet) and the roof of a
 * case (roofs.h). */
#include "analyze/roofs.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include <bench/dtype.h>

#include "analyze/compare_stats.h"
#include "core/util.h"
#include "results/roofs_file.h"

/* Vendor figures (peak, not achieved), dense, without sparsity:
 * - AMD Instinct MI300X: FP32 vector 163.4 TFLOP/s, FP64 vector 81.7,
 *   FP16 and BF16 matrix 1307.4, HBM3 5.3 TB/s (AMD MI300X data sheet,
 *   amd.com/en/products/accelerators/instinct/mi300/mi300x.html)
 * - AMD Instinct MI250X: FP32 and FP64 vector 47.9 TFLOP/s, FP16 and BF16
 *   matrix 383, HBM2e 3.2768 TB/s (AMD MI250X data sheet)
 * - NVIDIA H100 SXM5: FP32 66.9 TFLOP/s, FP64 33.5, FP16 and BF16 tensor
 *   989.4, HBM3 3.35 TB/s (NVIDIA H100 data sheet; the PCIe card: 51.2,
 *   25.6, 756, 2.0 TB/s)
 * A CPU has no entry: its roofs are measured (bench peak), else its best
 * cases stand in. */
const struct published_peak published_peaks[] = {
    {"mi300x", "AMD Instinct MI300X", 163400, 81700, 1307400, 1307400, 5300, "AMD MI300X data sheet"},
    {"mi250x", "AMD Instinct MI250X", 47900, 47900, 383000, 383000, 3276.8, "AMD MI250X data sheet"},
    {"h100 pcie", "NVIDIA H100 PCIe", 51200, 25600, 756000, 756000, 2000, "NVIDIA H100 data sheet"},
    {"h100", "NVIDIA H100 SXM5", 66900, 33500, 989400, 989400, 3350, "NVIDIA H100 data sheet"},
    {NULL, NULL, 0, 0, 0, 0, 0, NULL},
};

static const char *const level_ids[4] = {"l1", "l2", "l3", "dram"};

/* ---- a case's facts ------------------------------------------------------ */

static const char *info_of(const struct case_result *r, const char *key) {
  const char *v = kv_list_get(r->ninfo, r->info, key);
  return v && *v ? v : NULL;
}

static const char *param_of(const struct case_result *r, const char *key) {
  const char *v = kv_list_get(r->nparams, r->params, key);
  return v && *v ? v : NULL;
}

const char *case_device_of(const struct case_result *r, const struct run_env *env) {
  const char *d = info_of(r, "device");
  if (d) return d;
  if (r->backend && strcmp(r->backend, "cpu") == 0 && env && env->cpu && *env->cpu) return env->cpu;
  return r->backend ? r->backend : "?";
}

const char *case_device(const struct rs_entry *e) { return case_device_of(e->r, &e->file->env); }

static int is_cpu(const struct case_result *r) { return r->backend && strcmp(r->backend, "cpu") == 0; }

/* A CPU case that ran one thread: what it ran (info "threads"), else what
 * it asked for. */
static int one_thread(const struct case_result *r) {
  const char *t = info_of(r, "threads");
  if (!t) t = param_of(r, "threads");
  return is_cpu(r) && t && strcmp(t, "1") == 0;
}

/* The compute roof id of the case's dtype parameter (fp32 without one). */
static const char *dtype_id(const struct case_result *r) {
  enum bench_dtype t;
  if (bench_dtype_parse(param_of(r, "dtype"), &t) != 0) return "fp32";
  switch (t) {
  case BENCH_F16: return "fp16";
  case BENCH_BF16: return "bf16";
  case BENCH_F64: return "fp64";
  case BENCH_I8:
  case BENCH_U8: return "int8";
  default: return "fp32";
  }
}

static int names_matrix_hw(const char *s) {
  static const char *const words[] = {"mfma", "wmma", "mma", "xdl", "tensor", "coopmat", "matrix",
                                      "rocblas", "cublas", "hipblaslt", "cublaslt", NULL};
  if (!s) return 0;
  for (size_t i = 0; words[i]; i++)
    if (strcasestr(s, words[i])) return 1;
  return 0;
}

/* A GEMM of f16, bf16 or i8 that runs on matrix hardware (roofs.h). */
static int uses_matrix(const struct case_result *r, const char *dt) {
  if (strcmp(dt, "fp16") != 0 && strcmp(dt, "bf16") != 0 && strcmp(dt, "int8") != 0) return 0;
  int gemm = (r->operation && strcmp(r->operation, "gemm") == 0) || (r->plugin && strstr(r->plugin, "gemm"));
  if (!gemm) return 0;
  if (names_matrix_hw(r->plugin)) return 1;
  for (size_t i = 0; i < r->nparams; i++)
    if (names_matrix_hw(r->params[i].value)) return 1;
  return 0;
}

/* The bytes a case works on: its info "working_set_bytes", else its bytes
 * per iteration. */
static double working_set(const struct case_result *r) {
  const char *w = info_of(r, "working_set_bytes");
  double v;
  if (w && parse_double(w, &v) == 0 && v > 0 && isfinite(v)) return v;
  return r->bytes;
}

static int is_latency_case(const struct case_result *r) {
  if (!(r->items > 0)) return 0;
  if (r->flops <= 0 && r->bytes <= 0) return 1;
  return strcmp(r->item_unit, "loads") == 0 || strncmp(r->item_unit, "launch", 6) == 0;
}

static char *fmt_bytes(double b) {
  static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (u < 4 && b >= 1024) b /= 1024, u++;
  return xasprintf("%.4g %s", b, units[u]);
}

/* ---- a device's lines ---------------------------------------------------- */

static struct roof *roof_for(struct roof_set *rs, const char *device) {
  for (size_t i = 0; i < rs->n; i++)
    if (strcmp(rs->roofs[i].device, device) == 0) return &rs->roofs[i];
  rs->roofs = grow_for_one(rs->roofs, rs->n, sizeof *rs->roofs);
  struct roof *r = &rs->roofs[rs->n++];
  memset(r, 0, sizeof *r);
  r->device = xstrdup(device);
  return r;
}

const struct roof *roof_of(const struct roof_set *rs, const char *device) {
  for (size_t i = 0; i < rs->n; i++)
    if (strcmp(rs->roofs[i].device, device) == 0) return &rs->roofs[i];
  return NULL;
}

const struct roof_line *roof_find(const struct roof *r, const char *id) {
  for (size_t i = 0; r && i < r->n; i++)
    if (strcmp(r->lines[i].id, id) == 0) return &r->lines[i];
  return NULL;
}

static const struct roof_line *find_kind(const struct roof *r, const char *id, enum roof_kind kind) {
  const struct roof_line *l = roof_find(r, id);
  return l && l->kind == kind ? l : NULL;
}

static const char *kind_unit(enum roof_kind k) {
  return k == ROOF_COMPUTE ? "GFLOP/s" : k == ROOF_BANDWIDTH ? "GB/s" : "ns";
}

/* A new line of r (its strings copied; source taken). */
static struct roof_line *add_line(struct roof *r, const char *id, enum roof_kind kind, enum roof_origin origin,
                                  double value, char *source) {
  r->lines = grow_for_one(r->lines, r->n, sizeof *r->lines);
  struct roof_line *l = &r->lines[r->n++];
  memset(l, 0, sizeof *l);
  l->id = xstrdup(id);
  l->kind = kind;
  l->origin = origin;
  l->unit = xstrdup(kind_unit(kind));
  l->value = value;
  l->datasheet_how = xstrdup("");
  l->source = source;
  return l;
}

static void add_note(struct roof *r, char *note) {
  r->notes = grow_for_one(r->notes, r->nnotes, sizeof *r->notes);
  r->notes[r->nnotes++] = note;
}

static int has_kind(const struct roof *r, enum roof_kind k) {
  for (size_t i = 0; i < r->n; i++)
    if (r->lines[i].kind == k) return 1;
  return 0;
}

/* The level 0..2 of a memory id ("l2", "l2.1t", "lat_l2"), else -1. */
static int level_of(const char *id) {
  if (strncmp(id, "lat_", 4) == 0) id += 4;
  for (int i = 0; i < 3; i++) {
    size_t n = strlen(level_ids[i]);
    if (strncmp(id, level_ids[i], n) == 0 && (id[n] == '\0' || strcmp(id + n, ".1t") == 0)) return i;
  }
  return -1;
}

/* Level sizes a CPU's caches give, where nothing else did. */
static void fill_caps(struct roof *r, const struct cpu_caches *c) {
  if (!c || c->llc <= 0) return;
  for (int i = 0; i < 3; i++)
    if (!(r->cap[i] > 0) && i + 1 <= CACHE_LEVELS && c->level[i + 1].bytes > 0)
      r->cap[i] = (double)c->level[i + 1].bytes;
}

/* ---- measured: the roofs files ----------------------------------------- */

/* A warning said once per process for each file (a run re-reads the
 * roofs as every case ends). */
static void warn_once(const char *path, const char *text) {
  static char *said[64];
  static size_t nsaid;
  for (size_t i = 0; i < nsaid; i++)
    if (strcmp(said[i], path) == 0) return;
  if (nsaid < sizeof said / sizeof said[0]) said[nsaid++] = xstrdup(path);
  warning("%s; ignored", text);
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The folder of results_dir: itself, or the folder of a file in it. */
static char *results_folder(const char *dir) {
  struct stat st;
  if (stat(dir, &st) == 0 && !S_ISDIR(st.st_mode)) {
    const char *slash = strrchr(dir, '/');
    return slash ? xstrndup(dir, (size_t)(slash - dir ? slash - dir : 1)) : xstrdup(".");
  }
  return xstrdup(dir);
}

static enum roof_kind kind_parse(const char *k) {
  return strcmp(k, "bandwidth") == 0 ? ROOF_BANDWIDTH : strcmp(k, "latency") == 0 ? ROOF_LATENCY : ROOF_COMPUTE;
}

static void take_file(struct roof_set *out, const char *path, const struct roofs_file *f) {
  const struct roof *had = roof_of(out, f->device);
  if (had && had->file) {
    char *t = xasprintf("roofs file '%s' names the device '%s' as '%s' does", path, f->device, had->file);
    warn_once(path, t);
    free(t);
    return;
  }
  struct roof *r = roof_for(out, f->device);
  r->file = xstrdup(path);
  size_t nids;
  const char **ids = roofs_file_ids(f, &nids);
  for (size_t i = 0; i < nids; i++) {
    const struct roof_rec *b = roofs_file_best(f, ids[i]);
    if (!b) continue;
    char *src = xasprintf("measured %.10s by %s%s%s", b->date, b->plugin, *b->params ? " " : "", b->params);
    struct roof_line *l = add_line(r, ids[i], kind_parse(b->kind), ROOF_MEASURED, b->value, src);
    l->low = b->low;
    l->high = b->high;
    l->capacity_bytes = b->capacity_bytes;
    if (b->unit && *b->unit) {
      free(l->unit);
      l->unit = xstrdup(b->unit);
    }
    /* the data sheet's figure: the best record's, else another record's of the id */
    const struct roof_rec *d = b->datasheet > 0 ? b : NULL;
    for (size_t k = 0; k < f->n && !d; k++)
      if (strcmp(f->recs[k].roof, ids[i]) == 0 && f->recs[k].datasheet > 0) d = &f->recs[k];
    if (d) {
      l->datasheet = d->datasheet;
      free(l->datasheet_how);
      l->datasheet_how = xstrdup(d->datasheet_how ? d->datasheet_how : "");
    }
  }
  free(ids);
  /* level sizes: the best lines' first, then any record's */
  for (int pass = 0; pass < 2; pass++)
    for (size_t k = 0; k < (pass ? f->n : r->n); k++) {
      const char *id = pass ? f->recs[k].roof : r->lines[k].id;
      double cap = pass ? f->recs[k].capacity_bytes : r->lines[k].capacity_bytes;
      int lv = level_of(id);
      if (lv >= 0 && cap > 0 && !(r->cap[lv] > 0)) r->cap[lv] = cap;
    }
  /* a roof bench peak refused, and no other record of its id measured */
  for (size_t k = 0; k < f->n; k++) {
    const struct roof_rec *x = &f->recs[k];
    if (strcmp(x->status, "OK") == 0 || roof_find(r, x->roof)) continue;
    add_note(r, xasprintf("%s refused by bench peak: %s%s%s (%s%s%s, %.10s)", x->roof, x->status,
                          *x->reason ? ": " : "", x->reason, x->plugin, *x->params ? " " : "", x->params,
                          x->date));
  }
}

void roofs_load_measured(const char *results_dir, struct roof_set *out) {
  memset(out, 0, sizeof *out);
  if (!results_dir) return;
  char *base = results_folder(results_dir);
  char *dir = xasprintf("%s/roofs", base);
  free(base);
  DIR *d = opendir(dir);
  if (!d) {
    if (errno != ENOENT && errno != ENOTDIR) {
      char *t = xasprintf("cannot read the roofs folder '%s': %s", dir, strerror(errno));
      warn_once(dir, t);
      free(t);
    }
    free(dir);
    return;
  }
  char **names = NULL;
  size_t nn = 0;
  struct dirent *de;
  while ((de = readdir(d))) {
    size_t len = strlen(de->d_name);
    if (de->d_name[0] == '.' || len <= 4 || strcmp(de->d_name + len - 4, ".tsv") != 0) continue;
    names = grow_for_one(names, nn, sizeof *names);
    names[nn++] = xstrdup(de->d_name);
  }
  closedir(d);
  if (nn) qsort(names, nn, sizeof *names, cmp_str);
  for (size_t i = 0; i < nn; i++) {
    char *path = xasprintf("%s/%s", dir, names[i]);
    struct roofs_file f;
    char why[700];
    if (roofs_file_load(path, &f, why, sizeof why) != 0) warn_once(path, why);
    else if (f.device && *f.device) take_file(out, path, &f);
    roofs_file_release(&f);
    free(path);
    free(names[i]);
  }
  free(names);
  free(dir);
}

/* ---- best cases and the data sheet --------------------------------------- */

static int is_gemm_plugin(const char *p) {
  return strcmp(p, "cpu_gemm") == 0 || strncmp(p, "vk_gemm", 7) == 0 || strcmp(p, "hip_gemm") == 0;
}

static int is_copy_case(const struct rs_entry *e) {
  if (strcmp(e->plugin, "vk_copy") == 0 || strcmp(e->plugin, "hip_copy") == 0) return 1;
  const char *k = kv_list_get(e->r->nparams, e->r->params, "kernel");
  return strcmp(e->plugin, "membw_cpu") == 0 && k && strcmp(k, "copy") == 0;
}

static double median_of(const struct rs_entry *e) {
  size_t n;
  const double *x = rs_samples(e->r, rs_has_device(e->r), &n);
  return n ? cs_median(x, n) : NAN;
}

/* The smallest level 0..3 (dram) whose size holds ws. */
static int home_level(const struct roof *r, double ws) {
  for (int i = 0; i < 3; i++)
    if (r->cap[i] > 0 && ws <= r->cap[i]) return i;
  return 3;
}

static char *with_1t(const char *id, int one) { return xasprintf("%s%s", id, one ? ".1t" : ""); }

/* The compute id a case's own figure stands for (no look at what is
 * measured): its dtype's, _matrix on matrix hardware, .1t on one thread. */
static char *compute_id_of(const struct case_result *r) {
  const char *dt = dtype_id(r);
  char *base = uses_matrix(r, dt) ? xasprintf("%s_matrix", dt) : xstrdup(dt);
  char *id = with_1t(base, one_thread(r));
  free(base);
  return id;
}

static void best_case(struct roof *r, const struct rs_entry *e, const char *id, enum roof_kind kind, double v) {
  struct roof_line *l = (struct roof_line *)find_kind(r, id, kind);
  if (l && !(v > l->value)) return;
  char *src = xasprintf("best case: %s%s%s (%s)", e->plugin, *e->params ? " " : "", e->params, e->date);
  if (!l) {
    add_line(r, id, kind, ROOF_BEST_CASE, v, src);
    return;
  }
  l->value = v;
  free(l->source);
  l->source = src;
}

/* Why a roof of r is missing: the newest failed case that would have
 * measured it. */
static char *failed_case(const struct rs_entry *e) {
  return xasprintf("%s %s%s%s on %s", e->plugin, e->params, *e->params ? " " : "", case_status_name(e->r->status),
                   e->date);
}

void roofs_build(const struct result_set *s, const size_t *idx, size_t n, const char *results_dir,
                 struct roof_set *out) {
  roofs_load_measured(results_dir, out);
  int *fallback = NULL; /* per roof: its lines come from the cases and the data sheet */
  /* a device gets a roof only when one of its cases has data (an OK case
   * with samples): a plugin that was only SKIPPED names no device */
  for (size_t i = 0; i < n; i++) {
    const struct rs_entry *e = &s->entries[idx[i]];
    if (e->r->status != CASE_OK) continue;
    double med = median_of(e);
    if (!(med > 0)) continue;
    struct roof *r = roof_for(out, case_device(e));
    if (is_cpu(e->r)) fill_caps(r, &e->file->env.caches);
    if (r->file && r->n) continue; /* measured */
    if (is_gemm_plugin(e->plugin) && e->r->flops > 0) {
      char *id = compute_id_of(e->r);
      best_case(r, e, id, ROOF_COMPUTE, e->r->flops / med);
      free(id);
    }
    if (is_copy_case(e) && e->r->bytes > 0) {
      char *id = with_1t(level_ids[home_level(r, working_set(e->r))], one_thread(e->r));
      best_case(r, e, id, ROOF_BANDWIDTH, e->r->bytes / med);
      free(id);
    }
  }
  fallback = xcalloc(out->n + 1, sizeof *fallback);
  for (size_t i = 0; i < out->n; i++) {
    struct roof *r = &out->roofs[i];
    fallback[i] = !(r->file && r->n);
    if (!fallback[i]) continue;
    for (const struct published_peak *p = published_peaks; p->match; p++) {
      if (!strcasestr(r->device, p->match)) continue;
      const struct {
        const char *id;
        enum roof_kind kind;
        double v;
      } sheet[] = {{"fp32", ROOF_COMPUTE, p->fp32},
                   {"fp64", ROOF_COMPUTE, p->fp64},
                   {"fp16_matrix", ROOF_COMPUTE, p->fp16_matrix},
                   {"bf16_matrix", ROOF_COMPUTE, p->bf16_matrix},
                   {"dram", ROOF_BANDWIDTH, p->dram_gbps}};
      for (size_t k = 0; k < sizeof sheet / sizeof sheet[0]; k++)
        if (sheet[k].v > 0 && !roof_find(r, sheet[k].id))
          add_line(r, sheet[k].id, sheet[k].kind, ROOF_DATASHEET, sheet[k].v, xasprintf("data sheet: %s", p->source));
      break;
    }
  }
  /* the reasons for the roofs still missing */
  char **compute_why = xcalloc(out->n + 1, sizeof *compute_why), **memory_why = xcalloc(out->n + 1, sizeof *memory_why);
  for (size_t i = 0; i < n; i++) {
    const struct rs_entry *e = &s->entries[idx[i]];
    if (e->r->status == CASE_OK) continue;
    const struct roof *r = roof_of(out, case_device(e));
    if (!r) continue;
    size_t k = (size_t)(r - out->roofs);
    if (!fallback[k]) continue;
    if (is_gemm_plugin(e->plugin) && !has_kind(r, ROOF_COMPUTE)) free(compute_why[k]), compute_why[k] = failed_case(e);
    if (is_copy_case(e) && !has_kind(r, ROOF_BANDWIDTH)) free(memory_why[k]), memory_why[k] = failed_case(e);
  }
  for (size_t i = 0; i < out->n; i++) {
    struct roof *r = &out->roofs[i];
    if (fallback[i] && !has_kind(r, ROOF_COMPUTE))
      add_note(r, compute_why[i] ? xasprintf("no compute roof: %s", compute_why[i])
                                 : xstrdup("no compute roof: no OK GEMM case (cpu_gemm, vk_gemm*, hip_gemm) on this "
                                           "device and no published peak for it"));
    if (fallback[i] && !has_kind(r, ROOF_BANDWIDTH))
      add_note(r, memory_why[i] ? xasprintf("no memory roof: %s", memory_why[i])
                                : xstrdup("no memory roof: no OK copy case (membw_cpu kernel=copy, vk_copy, hip_copy) "
                                          "on this device and no published bandwidth for it"));
    free(compute_why[i]);
    free(memory_why[i]);
  }
  free(compute_why);
  free(memory_why);
  free(fallback);
}

void roofs_release(struct roof_set *rs) {
  for (size_t i = 0; i < rs->n; i++) {
    struct roof *r = &rs->roofs[i];
    for (size_t k = 0; k < r->n; k++) {
      free(r->lines[k].id);
      free(r->lines[k].unit);
      free(r->lines[k].datasheet_how);
      free(r->lines[k].source);
    }
    for (size_t k = 0; k < r->nnotes; k++) free(r->notes[k]);
    free(r->lines);
    free(r->notes);
    free(r->device);
    free(r->file);
  }
  free(rs->roofs);
  memset(rs, 0, sizeof *rs);
}

/* ---- a case's roof ------------------------------------------------------- */

static void caveat_add(struct strbuf *sb, const char *text) {
  if (sb->len) strbuf_adds(sb, "; ");
  strbuf_adds(sb, text);
}

/* id (one thread: id.1t first) as a line of kind; the other variant when
 * only it is there (a multi-thread case against a one-thread roof says so). */
static const struct roof_line *pick_variant(const struct roof *r, const char *id, enum roof_kind kind, int one,
                                            struct strbuf *caveat) {
  char *alt = xasprintf("%s.1t", id);
  const struct roof_line *l = find_kind(r, one ? alt : id, kind);
  if (!l && (l = find_kind(r, one ? id : alt, kind)) && !one) {
    char *t = xasprintf("against the one-thread %s roof (%s has none)", alt, id);
    caveat_add(caveat, t);
    free(t);
  }
  free(alt);
  return l;
}

/* The memory line (prefix "" for bandwidth, "lat_" for latency) of the
 * level that holds ws, else of the next larger level that has one; want
 * gets the id of the level that holds it. */
static const struct roof_line *pick_level(const struct roof *r, const char *prefix, enum roof_kind kind, double ws,
                                          int one, struct strbuf *caveat, char **want) {
  int home = home_level(r, ws);
  *want = xasprintf("%s%s", prefix, level_ids[home]);
  for (int i = home; i < 4; i++) {
    char *id = xasprintf("%s%s", prefix, level_ids[i]);
    const struct roof_line *l = pick_variant(r, id, kind, one, caveat);
    free(id);
    if (!l) continue;
    if (i != home) {
      char *b = fmt_bytes(ws);
      char *t = xasprintf("the working set (%s) fits in %s, whose roof is not %s", b, level_ids[home],
                          r->file ? "measured" : "known");
      caveat_add(caveat, t);
      free(t);
      free(b);
    }
    return l;
  }
  return NULL;
}

static const char *origin_word(enum roof_origin o) {
  return o == ROOF_MEASURED ? "measured" : o == ROOF_BEST_CASE ? "best-case" : "data-sheet";
}

static void add_source(struct strbuf *sb, const struct roof_line *l, int with_id) {
  if (sb->len) strbuf_adds(sb, "; ");
  if (with_id) strbuf_addf(sb, "%s ", l->id);
  strbuf_adds(sb, l->source);
}

/* The note of a placed case: over 100% always says which roof and why.
 * caveat: what stood in for what (it can overstate the share: a larger
 * level's roof, a one-thread roof, the vector roof of a matrix case);
 * also: a ceiling left out of the roofline (it can only understate). */
static char *place_note(const struct roof_choice *c, const struct roof_line *bind, struct strbuf *caveat,
                        struct strbuf *also) {
  struct strbuf sb = STRBUF_INIT;
  if (!(c->fraction > 1 + 1e-9)) {
    if (caveat->len) strbuf_adds(&sb, caveat->buf);
    if (also->len) strbuf_addf(&sb, "%s%s", sb.len ? "; " : "", also->buf);
    return sb.len ? strbuf_detach(&sb) : NULL;
  }
  strbuf_addf(&sb, "above the %s %s roof: ", origin_word(bind->origin), bind->id);
  if (caveat->len) strbuf_adds(&sb, caveat->buf);
  else if (bind->kind == ROOF_LATENCY ? bind->low > 0 && bind->value / c->fraction >= bind->low
                                      : bind->high > 0 && c->fraction * bind->value <= bind->high) {
    /* the case's figure in the roof's own unit (a roofline's memory
     * ceiling: GFLOP/s / AI) lies inside the roof's interval */
    strbuf_addf(&sb, "within its 95%% interval [%.4g, %.4g] %s", bind->low, bind->high, bind->unit);
  } else if (bind->origin == ROOF_MEASURED)
    strbuf_adds(&sb, "the case beats the figure bench peak measured (measure it again: bench peak)");
  else if (bind->origin == ROOF_DATASHEET)
    strbuf_adds(&sb, "the case beats the published figure");
  else
    strbuf_adds(&sb, "the case beats the best case of its kind");
  if (also->len) strbuf_addf(&sb, "; %s", also->buf);
  return strbuf_detach(&sb);
}

static int missing(struct roof_choice *out, char *want, struct strbuf *caveat, const char *what) {
  out->id = want;
  out->unit = "";
  out->source = xstrdup("");
  struct strbuf sb = STRBUF_INIT;
  strbuf_adds(&sb, what);
  if (caveat->len) strbuf_addf(&sb, "; %s", caveat->buf);
  strbuf_release(caveat);
  out->note = strbuf_detach(&sb);
  return 1;
}

int roof_choose(const struct roof *r, const struct case_result *c, struct roof_choice *out) {
  memset(out, 0, sizeof *out);
  out->fraction = -1;
  const struct stats *t = case_time(c);
  if (!r || c->status != CASE_OK || !(c->nsamples > 0 && t->n > 0 && t->median > 0)) return -1;
  struct strbuf caveat = STRBUF_INIT, also = STRBUF_INIT, src = STRBUF_INIT;
  const char *own = info_of(c, "roof");
  int one = one_thread(c);
  const struct roof_line *bind = NULL;
  double achieved = 0;

  if (own) { /* a peak plugin's case: the roof it measures */
    const struct roof_line *l = roof_find(r, own);
    enum roof_kind k = l ? l->kind : kind_parse(info_of(c, "roof_kind") ? info_of(c, "roof_kind") : "");
    achieved = k == ROOF_COMPUTE ? case_gflops(c) : k == ROOF_BANDWIDTH ? case_gbps(c) : case_ns_per_item(c);
    if (!(achieved > 0)) return -1;
    if (!l) {
      char *w = xasprintf("no %s roof for this device (the roof this case measures)", own);
      int rc = missing(out, xstrdup(own), &caveat, w);
      free(w);
      return rc;
    }
    bind = l;
    out->id = xstrdup(l->id);
    out->value = l->value;
    out->fraction = k == ROOF_LATENCY ? l->value / achieved : achieved / l->value;
    if (k == ROOF_COMPUTE) out->compute = l;
    else if (k == ROOF_BANDWIDTH) out->memory = l;
    else out->latency = l;
    add_source(&src, l, 0);
  } else if (is_latency_case(c)) {
    achieved = case_ns_per_item(c);
    if (!(achieved > 0)) return -1;
    const struct roof_line *l;
    char *want;
    if (strncmp(c->item_unit, "launch", 6) == 0) {
      want = xstrdup("launch");
      l = pick_variant(r, want, ROOF_LATENCY, 0, &caveat);
    } else
      l = pick_level(r, "lat_", ROOF_LATENCY, working_set(c), one, &caveat, &want);
    if (!l) {
      char *w = xasprintf("no %s latency roof for this device", want);
      int rc = missing(out, want, &caveat, w);
      free(w);
      return rc;
    }
    free(want);
    bind = out->latency = l;
    out->id = xstrdup(l->id);
    out->value = l->value;
    out->fraction = l->value / achieved;
    add_source(&src, l, 0);
  } else if (c->flops > 0 || c->bytes > 0) {
    const struct roof_line *cl = NULL, *ml = NULL;
    char *cwant = NULL, *mwant = NULL;
    if (c->flops > 0) {
      const char *dt = dtype_id(c);
      if (uses_matrix(c, dt)) {
        char *mid = xasprintf("%s_matrix", dt);
        cl = pick_variant(r, mid, ROOF_COMPUTE, one, &caveat);
        if (!cl && (cl = pick_variant(r, dt, ROOF_COMPUTE, one, &caveat))) {
          char *w = xasprintf("it runs on matrix hardware, but %s is not %s: against the vector %s roof", mid,
                              r->file ? "measured" : "known", dt);
          caveat_add(&caveat, w);
          free(w);
        }
        cwant = mid;
      } else {
        cl = pick_variant(r, dt, ROOF_COMPUTE, one, &caveat);
        cwant = xstrdup(dt);
      }
    }
    if (c->bytes > 0) ml = pick_level(r, "", ROOF_BANDWIDTH, working_set(c), one, &caveat, &mwant);
    if (!cl && !ml) {
      char *want = cwant && mwant ? xasprintf("%s+%s", cwant, mwant) : xstrdup(cwant ? cwant : mwant);
      char *w = cwant && mwant ? xasprintf("no %s or %s roof for this device", cwant, mwant)
                               : xasprintf("no %s roof for this device", cwant ? cwant : mwant);
      free(cwant);
      free(mwant);
      int rc = missing(out, want, &caveat, w);
      free(w);
      return rc;
    }
    if (c->flops > 0 && !cl) {
      char *w = xasprintf("no %s roof: against the memory roof alone", cwant);
      caveat_add(&also, w);
      free(w);
    }
    if (c->flops > 0 && c->bytes > 0 && !ml) {
      char *w = xasprintf("no %s roof: against the compute roof alone", mwant);
      caveat_add(&also, w);
      free(w);
    }
    free(cwant);
    free(mwant);
    out->compute = cl;
    out->memory = ml;
    if (c->flops > 0) { /* GFLOP/s: the roofline, or the one ceiling there is */
      achieved = case_gflops(c);
      double ai = c->bytes > 0 ? c->flops / c->bytes : 0;
      double a = cl ? cl->value : INFINITY, b = ml && ai > 0 ? ai * ml->value : INFINITY;
      out->value = a < b ? a : b;
      bind = a <= b ? cl : ml;
      out->id = cl && ml ? xasprintf("%s+%s", cl->id, ml->id) : xstrdup((cl ? cl : ml)->id);
      if (cl) add_source(&src, cl, !!ml);
      if (ml) add_source(&src, ml, !!cl);
      if (cl && ml) {
        strbuf_addf(&src, " (%s binds at %.4g FLOP/byte)", bind->id, ai);
      }
    } else {
      achieved = case_gbps(c);
      bind = ml;
      out->value = ml->value;
      out->id = xstrdup(ml->id);
      add_source(&src, ml, 0);
    }
    if (!(achieved > 0) || !(out->value > 0)) {
      free(out->id);
      out->id = NULL;
      strbuf_release(&caveat);
      strbuf_release(&also);
      strbuf_release(&src);
      return -1;
    }
    out->fraction = achieved / out->value;
  } else {
    return -1;
  }
  out->unit = bind->unit;
  out->source = strbuf_detach(&src);
  out->note = place_note(out, bind, &caveat, &also);
  strbuf_release(&caveat);
  strbuf_release(&also);
  return 0;
}

void roof_choice_release(struct roof_choice *c) {
  free(c->id);
  free(c->source);
  free(c->note);
  memset(c, 0, sizeof *c);
  c->fraction = -1;
}

/* ---- at run time ---------------------------------------------------------- */

void roofs_annotate(const char *results_dir, const struct run_env *env, struct case_result *r) {
  if (!results_dir || r->status != CASE_OK || r->roof) return;
  struct roof_set rs;
  roofs_load_measured(results_dir, &rs);
  struct roof *roof = (struct roof *)roof_of(&rs, case_device_of(r, env));
  if (roof && roof->n) {
    if (is_cpu(r) && env) fill_caps(roof, &env->caches);
    struct roof_choice c;
    int rc = roof_choose(roof, r, &c);
    /* a peak plugin's case of a roof not in the file yet is that roof's
     * first measurement (bench peak records it after): nothing to say */
    if (rc == 1 && info_of(r, "roof")) rc = -1;
    if (rc >= 0) {
      struct case_roof *x = r->roof = xcalloc(1, sizeof *r->roof);
      x->id = xstrdup(c.id ? c.id : "");
      x->unit = xstrdup(c.unit ? c.unit : "");
      x->value = c.value;
      x->pct = c.fraction >= 0 ? 100.0 * c.fraction : -1;
      x->source = xstrdup(c.source ? c.source : "");
      x->note = c.note ? xstrdup(c.note) : NULL;
    }
    roof_choice_release(&c);
  }
  roofs_release(&rs);
}
