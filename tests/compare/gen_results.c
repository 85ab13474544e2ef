/* gen_results OUTDIR SEED < SPEC: write planted result files (through the
 * harness's own writer, so they always follow the current schema) whose
 * samples are known: for bench compare's tests and its timing script.
 *
 * SPEC, one item per line ('#' starts a comment):
 *   run DATE PLUGIN [TAG] [sha256=HEX] [machine=steady|busy|nosteal] [llc=BYTES]
 *                                  start a run file (saved at the next
 *                                  run / EOF), with that plugin hash,
 *                                  that steadiness in its header (none:
 *                                  not recorded) and a last-level cache
 *                                  (L3) of BYTES (none: not recorded)
 *   case PARAMS STATUS MEDIAN_NS SPREAD N [key=value...]
 * PARAMS "m=64,n=64" or "-"; STATUS OK, WRONG_ANSWER, CRASH, TIMEOUT, ...;
 * N samples spread over MEDIAN_NS * (1 +- SPREAD) (a triangular shape,
 * drawn from SEED and the line number); keys: op, backend, flops, bytes,
 * device=1 (device samples too, 0.9 x the host ones), batch=N, settled=0 (the run
 * did not reach its noise target), devname=NAME (the
 * "device" info; '_' stands for a blank), check=METHOD (a passed check),
 * grew=BYTES (the case's resident set grew by BYTES while it ran, measured
 * per case),
 * note=TEXT (the "note" info, '_' a blank: "tuned_(cache_/x/c.tsv)"),
 * gpu=KIND:MHZ (the case's GPU telemetry, results/result.h struct
 * case_telemetry: NVML's readings and the in-band clock at MHZ over the
 * case; KIND steady (no throttle reason but idle, no other process, the
 * clock within 1%), powercap (steady, but sw_power_cap seen), busy
 * (another process on the device), clock (the SM clock down to 90% of
 * its mean), throttled (most samples under 75% of the 1980 MHz default
 * clock: kept and marked), inband (steady, the in-band clock alone)). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results/io.h"
#include "core/util.h"

static uint64_t rng_state;
static double uniform(void) {
  rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(rng_state >> 11) / 9007199254740992.0;
}

/* The telemetry gpu=KIND:MHZ describes (NULL, message printed, when KIND
 * is unknown). */
static struct case_telemetry *gpu_of(const char *spec, int lineno) {
  char kind[32] = "";
  double mhz = 1980;
  if (sscanf(spec, "%31[a-z]:%lf", kind, &mhz) < 1 || !(mhz > 0)) kind[0] = '\0';
  static const char *const kinds[] = {"steady", "powercap", "busy", "clock", "throttled", "inband"};
  int known = 0;
  for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) known |= strcmp(kind, kinds[i]) == 0;
  if (!known) {
    fprintf(stderr, "gen_results: line %d: unknown gpu=%s\n", lineno, spec);
    return NULL;
  }
  struct case_telemetry *t = xcalloc(1, sizeof *t);
  snprintf(t->bus_id, sizeof t->bus_id, "00000000:19:00.0");
  snprintf(t->facts.bus_id, sizeof t->facts.bus_id, "00000000:19:00.0");
  snprintf(t->facts.name, sizeof t->facts.name, "Planted GPU");
  t->facts.max_sm_clock_mhz = (struct gpu_value){1, 1980};
  t->facts.power_limit_w = (struct gpu_value){1, 700};
  int inband_only = strcmp(kind, "inband") == 0;
  if (inband_only) snprintf(t->note, sizeof t->note, "no management library");
  else {
    snprintf(t->library, sizeof t->library, "nvml");
    t->interval_ms = 50;
    t->readings = 6;
    t->sm_clock_mean = (struct gpu_value){1, mhz};
    t->sm_clock_min = (struct gpu_value){1, strcmp(kind, "clock") == 0 ? 0.9 * mhz : 0.995 * mhz};
    t->sm_clock_max = (struct gpu_value){1, 1.005 * mhz};
    t->power_mean = (struct gpu_value){1, 450};
    t->power_max = (struct gpu_value){1, 520};
    t->power_limit = (struct gpu_value){1, 700};
    t->temp_max = (struct gpu_value){1, 61};
    t->have_throttle = 1;
    t->throttle = GPU_THR_GPU_IDLE | (strcmp(kind, "powercap") == 0 ? GPU_THR_SW_POWER_CAP : 0u);
    for (int i = 0; i < GPU_THR_TIMES; i++) t->throttle_ns[i] = (struct gpu_value){1, 0};
    t->other_procs_max = (struct gpu_value){1, strcmp(kind, "busy") == 0 ? 1 : 0};
  }
  t->default_clock_mhz = 1980;
  t->clock_samples = 40;
  t->clock_mean = mhz, t->clock_min = 0.995 * mhz, t->clock_max = 1.005 * mhz;
  t->threshold = 0.75, t->reference_mhz = 1980;
  if (strcmp(kind, "throttled") == 0) {
    t->throttled = 1;
    t->discarded = 12;
    t->recovery_s = 0.6;
    t->throttle |= GPU_THR_SW_POWER_CAP;
    snprintf(t->throttled_by, sizeof t->throttled_by, "clock %.0f MHz < 75%% of 1980 MHz (sw_power_cap)", mhz);
  }
  return t;
}

static int save(const char *dir, struct run_file *f) {
  if (!f->plugin) return 0;
  char *base = NULL;
  int rc = results_save(dir, f, &base);
  free(base);
  run_file_release(f);
  return rc;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: gen_results OUTDIR SEED < SPEC\n");
    return 2;
  }
  const char *dir = argv[1];
  uint64_t seed = strtoull(argv[2], NULL, 10);
  struct run_file f = {0};
  char line[4096];
  int lineno = 0, index = 0;
  while (fgets(line, sizeof line, stdin)) {
    lineno++;
    char *hash = strchr(line, '#');
    if (hash) *hash = '\0';
    char *tok[32];
    int nt = 0;
    for (char *p = strtok(line, " \t\r\n"); p && nt < 32; p = strtok(NULL, " \t\r\n")) tok[nt++] = p;
    if (!nt) continue;
    if (strcmp(tok[0], "run") == 0 && nt >= 3) {
      if (save(dir, &f) != 0) return 1;
      memset(&f, 0, sizeof f);
      f.env.date = xstrdup(tok[1]);
      f.env.started = xasprintf("%sT00:00:00.000Z", tok[1]);
      f.env.hostname = xstrdup("planted");
      f.env.cpu = xstrdup("planted cpu");
      f.env.cpus = 2;
      f.env.preset = xstrdup("smoke");
      f.env.mode = xstrdup("perf");
      f.env.tag = NULL;
      for (int k = 3; k < nt; k++) {
        if (strncmp(tok[k], "sha256=", 7) == 0) f.plugin_sha256 = xstrdup(tok[k] + 7);
        else if (strcmp(tok[k], "machine=steady") == 0) /* the header's steadiness, as a run records it */
          f.env.steady = (struct run_steady){1, 10.0, 0.05, 0.1, 0.0, 0.0, 0.01, 0.004, 0.0};
        else if (strcmp(tok[k], "machine=busy") == 0) /* another process on the CPUs, its loop slowed */
          f.env.steady = (struct run_steady){1, 10.0, 2.0, 2.1, 1.5, 1.0, 0.45, 0.12, 0.0};
        else if (strcmp(tok[k], "machine=nosteal") == 0) /* recorded, but no steal figure */
          f.env.steady = (struct run_steady){1, 10.0, 0.05, 0.1, 0.0, 0.0, 0.01, 0.004, NAN};
        else if (strncmp(tok[k], "llc=", 4) == 0) {
          f.env.caches.level[1] = (struct cache_level){32 << 10, 2, CACHE_SYSFS};
          f.env.caches.level[2] = (struct cache_level){1 << 20, 2, CACHE_SYSFS};
          f.env.caches.level[3] = (struct cache_level){atoll(tok[k] + 4), 2, CACHE_SYSFS};
          f.env.caches.llc = 3;
        } else if (!f.env.tag) f.env.tag = xstrdup(tok[k]);
      }
      f.plugin = xstrdup(tok[2]);
      f.plugin_path = xasprintf("/planted/%s.so", tok[2]);
      index = 0;
    } else if (strcmp(tok[0], "case") == 0 && nt >= 6 && f.plugin) {
      f.cases = xrealloc(f.cases, (f.ncases + 1) * sizeof *f.cases);
      struct case_result *r = &f.cases[f.ncases++];
      case_result_init(r);
      r->plugin = xstrdup(f.plugin);
      r->backend = xstrdup("cpu");
      r->operation = xstrdup("none");
      r->index = index++;
      if (strcmp(tok[1], "-") != 0) {
        char *save_p = NULL;
        for (char *kv = strtok_r(tok[1], ",", &save_p); kv; kv = strtok_r(NULL, ",", &save_p)) {
          char *eq = strchr(kv, '=');
          if (!eq) continue;
          *eq = '\0';
          kv_list_add(&r->nparams, &r->params, kv, eq + 1);
        }
      }
      if (case_status_parse(tok[2], &r->status) != 0) {
        fprintf(stderr, "gen_results: line %d: unknown status %s\n", lineno, tok[2]);
        return 2;
      }
      double median = atof(tok[3]), spread = atof(tok[4]);
      size_t n = (size_t)atol(tok[5]);
      int device = 0, batch = 1, settled = 1;
      for (int k = 6; k < nt; k++) {
        char *eq = strchr(tok[k], '=');
        if (!eq) continue;
        *eq = '\0';
        const char *v = eq + 1;
        if (strcmp(tok[k], "op") == 0) free(r->operation), r->operation = xstrdup(v);
        else if (strcmp(tok[k], "backend") == 0) free(r->backend), r->backend = xstrdup(v);
        else if (strcmp(tok[k], "flops") == 0) r->flops = atof(v);
        else if (strcmp(tok[k], "bytes") == 0) r->bytes = atof(v);
        else if (strcmp(tok[k], "device") == 0) device = atoi(v);
        else if (strcmp(tok[k], "batch") == 0) batch = atoi(v);
        else if (strcmp(tok[k], "settled") == 0) settled = atoi(v);
        else if (strcmp(tok[k], "gpu") == 0) {
          free(r->telemetry);
          if (!(r->telemetry = gpu_of(v, lineno))) return 2;
        }
        else if (strcmp(tok[k], "devname") == 0) {
          char *name = xstrdup(v);
          for (char *q = name; *q; q++)
            if (*q == '_') *q = ' ';
          kv_list_add(&r->ninfo, &r->info, "device", name);
          free(name);
        }
        else if (strcmp(tok[k], "note") == 0) {
          char *text = xstrdup(v);
          for (char *q = text; *q; q++)
            if (*q == '_') *q = ' ';
          kv_list_add(&r->ninfo, &r->info, "note", text);
          free(text);
        }
        else if (strcmp(tok[k], "grew") == 0) {
          r->memory.known = 1, r->memory.start_rss_bytes = 3 << 20;
          r->memory.peak_rss_bytes = r->memory.start_rss_bytes + (uint64_t)atoll(v);
          snprintf(r->memory.method, sizeof r->memory.method, "case");
        } else if (strcmp(tok[k], "check") == 0) {
          r->check.checked = 1, r->check.pass = 1, r->check.max_abs_err = 1e-6;
          snprintf(r->check.method, sizeof r->check.method, "%s", v);
        }
      }
      if (r->status == CASE_CRASH) r->signal = 11, r->message = xstrdup("killed by signal 11 (SIGSEGV)");
      if (r->status == CASE_WRONG_ANSWER) r->message = xstrdup("planted mismatch");
      if (r->status == CASE_OK || r->status == CASE_WRONG_ANSWER) {
        rng_state = seed * 1000003u + (uint64_t)lineno;
        r->nsamples = n;
        r->batch = batch;
        r->host_clock_ns = xcalloc(n ? n : 1, sizeof *r->host_clock_ns);
        for (size_t i = 0; i < n; i++) r->host_clock_ns[i] = median * (1.0 + spread * (uniform() + uniform() - 1.0));
        stats_compute(r->host_clock_ns, n, &r->host_clock);
        if (device) {
          r->device_ns = xcalloc(n ? n : 1, sizeof *r->device_ns);
          for (size_t i = 0; i < n; i++) r->device_ns[i] = 0.9 * r->host_clock_ns[i];
          stats_compute(r->device_ns, n, &r->device);
        }
        r->settled = settled;
        r->target_noise = 0.02;
      }
      r->wall_s = 0.1;
    } else {
      fprintf(stderr, "gen_results: line %d: cannot parse\n", lineno);
      return 2;
    }
  }
  return save(dir, &f) != 0;
}
