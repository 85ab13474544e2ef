/* bench peak: run the peak plugins (operation "peak") and keep what each
 * case measured in its device's roofs file (results/roofs_file.h): only a
 * case whose output matched the plugin's reference sets a roof. A rerun
 * measures what is missing or stale (another plugin file, driver or
 * device); the run itself is bench's (run_suite), so its result files,
 * events and Ctrl-C behave as a run's. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/common_options.h"
#include "core/term.h"
#include "core/util.h"
#include "machine/cpu_model.h"
#include "plan/plan.h"
#include "results/roofs_file.h"
#include "results/run_summary.h"
#include "run/tune_device.h"

struct peak_cli {
  struct options o;
  double budget_s; /* --budget; 0: none */
  int force;       /* --force: measure every case again */
};

/* A device a selected plugin runs on, and its roofs file. */
struct peak_dev {
  char *name, *key, *path;
  struct roofs_file file;
  int stale;       /* the file holds another key: its records do not count */
  int touched;     /* this run wrote a record */
};

struct peak {
  const struct peak_cli *cli;
  char *cpu;
  size_t ndevs;
  struct peak_dev *devs;
  const char **plugin_dev; /* per selected plugin (plan order): its device key, NULL when init declined */
  const struct plugin *const *plugins;
  size_t nplugins;
  double case_s;           /* the preset's guess for one case */
  double planned_s;
  size_t fresh, deferred, roofs, refused, unnamed, write_failed;
};

static struct peak_dev *dev_of(struct peak *pk, const char *key) {
  for (size_t i = 0; i < pk->ndevs; i++)
    if (strcmp(pk->devs[i].key, key) == 0) return &pk->devs[i];
  return NULL;
}

/* The device of a key, its roofs file read (or -1 after one line: a
 * corrupt or foreign file is not overwritten). */
static struct peak_dev *dev_add(struct peak *pk, const char *name, const char *key) {
  struct peak_dev *d = dev_of(pk, key);
  if (d) return d;
  pk->devs = xrealloc(pk->devs, (pk->ndevs + 1) * sizeof *pk->devs);
  d = &pk->devs[pk->ndevs++];
  memset(d, 0, sizeof *d);
  d->name = xstrdup(name);
  d->key = xstrdup(key);
  d->path = roofs_file_path(pk->cli->o.results_dir, name);
  char why[600];
  if (roofs_file_load(d->path, &d->file, why, sizeof why) != 0) {
    error("%s; bench peak does not overwrite it (remove it, or use another --results-dir)", why);
    return NULL;
  }
  if (d->file.key && strcmp(d->file.key, key) != 0) {
    printf("bench peak: %s holds the roofs of %s; this is %s: measuring anew\n", term_str(d->path),
           term_str(d->file.key), term_str(key));
    d->stale = 1;
  }
  return d;
}

static int is_peak(void *arg, const struct plugin *pl, const struct case_def *c) {
  (void)arg, (void)c;
  return strcmp(pl->desc->operation, "peak") == 0;
}

static size_t plugin_pos(const struct peak *pk, const struct plugin *pl) {
  for (size_t i = 0; i < pk->nplugins; i++)
    if (pk->plugins[i] == pl) return i;
  return 0;
}

/* A case to run: not measured yet on this device with this plugin file,
 * and within the budget. */
static int to_measure(void *arg, const struct plugin *pl, const struct case_def *c) {
  struct peak *pk = arg;
  const char *key = pk->plugin_dev[plugin_pos(pk, pl)];
  struct peak_dev *d = key ? dev_of(pk, key) : NULL;
  if (d && !d->stale && !pk->cli->force) {
    char *label = case_label(c);
    const struct roof_rec *r = roofs_file_find(&d->file, pl->desc->name, label);
    free(label);
    if (r && strcmp(r->status, "OK") == 0 && strcmp(r->sha256, pl->sha256) == 0) {
      pk->fresh++;
      return 0;
    }
  }
  if (pk->cli->budget_s > 0 && pk->planned_s + pk->case_s > pk->cli->budget_s) {
    pk->deferred++;
    return 0;
  }
  pk->planned_s += pk->case_s;
  return 1;
}

static int plan_ready(void *arg, struct plan *p) {
  struct peak *pk = arg;
  const struct options *o = &pk->cli->o;
  for (size_t i = 0; i < p->nplugins; i++)
    if (o->nplugins && strcmp(p->plugins[i]->desc->operation, "peak") != 0)
      return error("plugin %s is not a peak plugin (operation %s): bench peak runs plugins of operation "
                   "\"peak\" (bench list shows them)", p->plugins[i]->desc->name, p->plugins[i]->desc->operation);
  plan_keep_cases(p, is_peak, NULL);
  if (!p->nplugins) return error("no peak plugin found (plugins of operation \"peak\", such as peak_cpu_fma)");
  pk->plugins = p->plugins;
  pk->nplugins = p->nplugins;
  pk->plugin_dev = xcalloc(p->nplugins + 1, sizeof *pk->plugin_dev);
  for (size_t i = 0; i < p->nplugins; i++) {
    struct tune_device td;
    char reason[512];
    if (tune_device_probe(p->plugins[i], p->preset.policy.timeout_s, o->debug, &td, reason, sizeof reason) !=
        BENCH_OK)
      continue; /* its cases run and say why (SKIPPED, ERROR) */
    struct peak_dev *d = dev_add(pk, td.name, td.key);
    if (d) pk->plugin_dev[i] = d->key;
    tune_device_release(&td);
    if (!d) return -1;
  }
  pk->case_s = p->preset.policy.warmup_s + p->preset.policy.max_time_s + 0.5;
  plan_keep_cases(p, to_measure, pk);
  if (pk->fresh)
    printf("bench peak: %zu %s measured already with these plugin files (--force measures again)\n", pk->fresh,
           plural((long)pk->fresh, "case", "cases"));
  if (pk->deferred)
    printf("bench peak: %zu %s left for a later run: --budget %.3g s holds %zu of about %.3g s each (a rerun "
           "measures what is missing)\n",
           pk->deferred, plural((long)pk->deferred, "case", "cases"), pk->cli->budget_s, p->cases.n, pk->case_s);
  if (p->cases.n) return 0;
  printf("bench peak: nothing to measure\n");
  return 1;
}

/* A case ended: its record goes into its device's roofs file at once, so
 * an interrupted run keeps what it measured. */
static void case_done(void *arg, const struct plugin *pl, const struct case_result *r) {
  struct peak *pk = arg;
  const char *id = case_roof_id(r);
  if (!id) {
    if (r->status == CASE_OK) {
      pk->unnamed++;
      warning("%s: a case of a peak plugin named no roof (bench.roof/1 set_roof in setup): not a roof",
              term_str(pl->desc->name));
    }
    return; /* SKIPPED, or ended before its setup said what it measures */
  }
  char *name, *key;
  case_device_key(r, pk->cpu, &name, &key);
  struct peak_dev *d = dev_of(pk, key);
  if (!d) d = dev_add(pk, name, key); /* a device init did not name */
  free(name);
  free(key);
  if (!d) {
    pk->write_failed++;
    return;
  }
  char date[32];
  iso_time_utc(date);
  struct roof_rec rec;
  roof_rec_from_case(&rec, r, pl->sha256, date);
  if (strcmp(rec.status, "OK") == 0) {
    pk->roofs++;
  } else {
    pk->refused++;
    fprintf(stderr, "bench peak: %s %s: not a roof (%s): %s\n", term_str(pl->desc->name), term_str(rec.params),
            term_str(rec.roof), term_str(rec.reason));
  }
  size_t dropped;
  if (roofs_file_put(d->path, d->key, d->name, &rec, 1, &dropped) != 0) pk->write_failed++;
  d->touched = 1;
  d->stale = 0;
  roof_rec_release(&rec);
}

/* An all-thread compute roof this little above its one-thread roof
 * (ID.1t) was measured while something else had the CPUs, or the CPUs
 * share their FMA units (SMT siblings): either way not the device's
 * all-core peak, and the table says so rather than print it as one. */
#define PEAK_SCALING_MIN 1.2

static void scaling_notes(const struct roofs_file *f, const char **ids, size_t n, FILE *out) {
  for (size_t i = 0; i < n; i++) {
    size_t len = strlen(ids[i]);
    if (len < 4 || strcmp(ids[i] + len - 3, ".1t") != 0) continue;
    const struct roof_rec *one = roofs_file_best(f, ids[i]);
    char *all_id = xasprintf("%.*s", (int)(len - 3), ids[i]);
    const struct roof_rec *all = roofs_file_best(f, all_id);
    if (one && all && strcmp(all->kind, "compute") == 0 && one->value > 0 &&
        all->value < PEAK_SCALING_MIN * one->value)
      fprintf(out,
              "  note: %s (all threads) is %.2fx %s: other work had the CPUs while it ran, or they share "
              "their FMA units (SMT); rerun `bench peak --force` on a quiet machine before you trust it\n",
              term_str(all_id), all->value / one->value, term_str(ids[i]));
    free(all_id);
  }
}

/* The roofs of a device as its file now holds them. */
static void print_roofs(const struct peak_dev *d, FILE *out) {
  struct roofs_file f;
  char why[600];
  if (roofs_file_load(d->path, &f, why, sizeof why) != 0) {
    error("%s", why);
    return;
  }
  size_t n;
  const char **ids = roofs_file_ids(&f, &n);
  fprintf(out, "\nroofs of %s (%s), %s:\n", term_str(d->name), term_str(f.key ? f.key : d->key),
          term_str(d->path));
  if (!n) fprintf(out, "  none measured\n");
  for (size_t i = 0; i < n; i++) {
    const struct roof_rec *b = roofs_file_best(&f, ids[i]);
    double half = b->value > 0 ? 50.0 * (b->high - b->low) / b->value : 0;
    fprintf(out, "  %-14s %-9s %12.4g %-7s [%.4g, %.4g] +-%.2f%%", term_str(b->roof), b->kind, b->value, b->unit,
            b->low, b->high, half);
    if (b->datasheet > 0) fprintf(out, "  %.3f of data sheet %.4g", b->value / b->datasheet, b->datasheet);
    fprintf(out, "  %s %s%s%s\n", term_str(b->plugin), term_str(b->params), *b->method ? ", " : "",
            term_str(b->method));
  }
  scaling_notes(&f, ids, n, out);
  for (size_t i = 0; i < f.n; i++) {
    const struct roof_rec *r = &f.recs[i];
    if (strcmp(r->status, "OK") == 0) continue;
    int said = strncmp(r->reason, r->status, strlen(r->status)) == 0; /* "WRONG_ANSWER: ..." */
    fprintf(out, "  not a roof: %s %s: %s%s%s\n", term_str(r->plugin), term_str(r->params), said ? "" : r->status,
            said ? "" : ": ", term_str(r->reason));
  }
  free(ids);
  roofs_file_release(&f);
}

#define O struct peak_cli
static const struct opt peak_options[] = {
    OPT_PLUGIN(O, o.plugins, o.nplugins),
    OPT_STRING("preset", 0, O, o.preset, "NAME|FILE", "peak (default), or another preset or .ini"),
    OPT_CALLBACK("budget", O, budget_s, "DURATION", NULL, opt_cb_budget,
                 "measure only the cases that fit in this long (the preset's warm-up and max_time per case); "
                 "a rerun measures the rest"),
    OPT_FLAG("force", 0, O, force, "measure every case again, also those the roofs file holds"),
    OPT_RESULTS_DIR(O, o.results_dir),
    OPT_PARAM(O, o.params, o.nparams),
    OPT_FILTER(O, o.filters, o.nfilters),
    OPT_PLUGIN_DIR(O, o.plugin_dirs, o.nplugin_dirs),
    OPT_RESCAN(O, o.rescan),
    OPT_STRING("events", 0, O, o.events, "FILE", "write JSON-lines progress events to FILE ('-' for stdout)"),
    OPT_LABEL(O, o.label),
    OPT_MODE(O, o.debug),
    OPT_COLOR(O, o.colour),
    OPT_END(),
};
#undef O

static const char *const peak_usage[] = {
    "bench peak [--plugin NAME]... [--budget DURATION] [--force] [--results-dir DIR]",
    NULL,
};

const struct cmd_spec spec_peak = {
    "peak", "measure each device's roofs with the peak plugins; reports use them", peak_usage, NULL,
    "Runs the peak plugins (operation \"peak\": FMA chains per dtype, bandwidth per\n"
    "memory level, latency, launch overhead) under the peak preset and keeps, per\n"
    "device (its name, driver and arch), a roofs file in DIR/roofs/: per roof its\n"
    "value, 95% interval, unit, the plugin and parameters that measured it, the date\n"
    "and the data-sheet figure where the device tells enough. A case sets a roof only\n"
    "when its output matched the plugin's reference (compared by bench); a wrong,\n"
    "unchecked or self-checked one is listed as not a roof. A rerun measures only\n"
    "what is missing or stale (another plugin file, driver or device); Ctrl-C keeps\n"
    "what was measured. The result files are written as a run's.",
    "Exit status: 0 every case measured a roof or was SKIPPED; 1 a case failed or was\n"
    "refused as a roof, or a roofs file could not be written; 2 usage; 130 interrupted.\n",
    peak_options, PARSE_NO_ARGS,
};

int cmd_peak(int argc, char **argv) {
  struct peak_cli cli;
  memset(&cli, 0, sizeof cli);
  cli.o.isolation = -1;
  cli.o.preset = "peak";
  cli.o.results_dir = "results";
  int nargs;
  int pr = parse_options(&spec_peak, argc, argv, &cli, &nargs);
  if (pr != 0) {
    options_release(&cli.o);
    return pr > 0 ? EXIT_OK : EXIT_USAGE;
  }
  struct peak pk;
  memset(&pk, 0, sizeof pk);
  pk.cli = &cli;
  pk.cpu = cpu_model();
  struct run_hooks hk = {&pk, plan_ready, case_done};
  int rc = run_suite(argc, argv, &cli.o, &hk);
  for (size_t i = 0; i < pk.ndevs; i++)
    if (pk.devs[i].touched || pk.fresh) print_roofs(&pk.devs[i], stdout);
  if (pk.refused || pk.unnamed)
    printf("bench peak: %zu %s not a roof (see above)\n", pk.refused + pk.unnamed,
           plural((long)(pk.refused + pk.unnamed), "case is", "cases are"));
  if (rc == EXIT_OK && (pk.refused || pk.unnamed || pk.write_failed)) rc = EXIT_FAILED;
  for (size_t i = 0; i < pk.ndevs; i++) {
    free(pk.devs[i].name);
    free(pk.devs[i].key);
    free(pk.devs[i].path);
    roofs_file_release(&pk.devs[i].file);
  }
  free(pk.devs);
  free(pk.plugin_dev);
  free(pk.cpu);
  options_release(&cli.o);
  return rc;
}
