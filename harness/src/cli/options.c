/* The options of `bench [run]` and `bench list` (one table: list is run's
 * --list), and bench's own synopsis. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/plugin.h"
#include "cli/commands.h"
#include "cli/common_options.h"
#include "preset/run_schema.h"
#include "run/env.h"
#include "core/util.h"

static const char *const isolation_words[] = {"backend", "plugin", "case", NULL};
static const char *const list_formats[] = {"text", "tsv", NULL};

static int tag_cb(const struct cmd_spec *cmd, const struct opt *opt, const char *arg, void *field) {
  (void)opt;
  if (!*arg) return usage_error(cmd, "--tag needs a non-empty value");
  *(const char **)field = arg;
  return 0;
}

static int isolation_cb(const struct cmd_spec *cmd, const struct opt *opt, const char *arg, void *field) {
  (void)opt;
  enum isolation iso;
  if (isolation_parse(arg, &iso) != 0)
    return usage_error(cmd, "--isolation must be backend, plugin or case, not '%s'", arg);
  *(int *)field = (int)iso;
  return 0;
}

static int export_cb(const struct cmd_spec *cmd, const struct opt *opt, const char *arg, void *field) {
  if (!*arg) return usage_error(cmd, "--%s needs a file name", opt->name);
  if (strcmp(arg, "-") == 0)
    return usage_error(cmd, "--%s needs a file name ('-' is not one: the case lines are on stdout)", opt->name);
  *(const char **)field = arg;
  return 0;
}

static int version_cb(const struct cmd_spec *cmd, const struct opt *opt, const char *arg, void *field) {
  (void)cmd, (void)opt, (void)arg, (void)field;
  printf("bench %s (%s), plugin ABI %d.%d\n", bench_version(), bench_git_revision(), BENCH_ABI_MAJOR,
         BENCH_ABI_MINOR);
  return PARSE_DONE;
}

#define O struct options
static const struct opt run_options[] = {
    OPT_PRESET(O, preset),
    OPT_PLUGIN(O, plugins, nplugins),
    OPT_FLAG("list", 0, O, list, "list the plugins found, whether each can run here, and why not"),
    OPT_FLAG("verbose", 'v', O, verbose, "with --list: also each plugin's parameters and defaults"),
    OPT_FORMAT(O, format, list_formats,
               "with --list: tsv prints for scripts one line per plugin, tab-separated: name, backend, "
               "operation, parameter names (a comma list); nothing is probed"),
    OPT_PLUGIN_DIR(O, plugin_dirs, nplugin_dirs),
    OPT_RESCAN(O, rescan),
    OPT_RESULTS_DIR(O, results_dir),
    OPT_STRING("events", 0, O, events, "FILE", "write JSON-lines progress events to FILE ('-' for stdout)"),
    OPT_FLAG("serve", 0, O, serve,
             "watch the run in a browser: its events also go to DIR/events/RUN_ID.jsonl and bench serve "
             "serves the results folder while it runs (docs/serve.md)"),
    OPT_INT("serve-port", O, serve_port, 0, 65535, "N", "with --serve: the port (default 8765; 0 a free one)"),
    OPT_STRING("serve-bind", 0, O, serve_bind, "ADDR",
               "with --serve: the address (default 127.0.0.1; any other serves only with the printed token)"),
    OPT_CALLBACK("tag", O, tag, "TAG", NULL, tag_cb,
                 "added to result file names and rows (e.g. the machine)"),
    OPT_LABEL(O, label),
    OPT_MODE(O, debug),
    OPT_PARAM(O, params, nparams),
    OPT_FILTER(O, filters, nfilters),
    OPT_STRING("baseline", 0, O, baseline, "PATH",
               "compare each case with the same case in a result file or folder (ratio, 95% interval "
               "and verdict on its line and in the .txt)"),
    OPT_CALLBACK("isolation", O, isolation, NULL, isolation_words, isolation_cb,
                 "one worker process per backend (default), one per plugin, or one process per case"),
    OPT_COLOR(O, colour),
    OPT_TUNING_FILE(O, tuning_file),
    OPT_FLAG("require-check", 0, O, require_check,
             "a case that nothing checked (\"unchecked\": operation none without a self-check, or verify "
             "= none) fails as ERROR"),
    OPT_SAMPLING(O, sampling),
    OPT_CALLBACK("export-json", O, export_json, "FILE", NULL, export_cb,
                 "also write the whole run (every plugin's cases, with the header) to FILE as one JSON "
                 "document, schema bench-run/1"),
    OPT_CALLBACK("export-csv", O, export_csv, "FILE", NULL, export_cb,
                 "also write the run's cases to FILE as CSV, one row per case, the rollup's columns"),
    {OPT_CALLBACK, "export-md", 0, "export-markdown", offsetof(O, export_md), 0, "FILE",
     "also write the run's cases to FILE as a Markdown table (to paste into a pull request)", NULL, 0, 0,
     export_cb},
    OPT_ACTION("version", version_cb, "print bench's version and plugin ABI"),
    OPT_END(),
};
#undef O

static const char *const run_usage[] = {
    "bench [--preset NAME|FILE.ini] [--plugin NAME[,NAME...]]... [options]",
    "bench --list [--verbose | --format tsv] [--plugin NAME]... [--plugin-dir DIR]...",
    NULL,
};

const struct cmd_spec spec_run = {
    "", "run kernel plugins under a preset and write the results (the default command)", run_usage,
    print_command_synopses,
    "Runs kernel plugins under a preset, checks every output against the CPU\n"
    "reference, and writes dated result files plus results/rollup.csv.\n"
    "`bench run` is the same as `bench`.",
    "Exit status: 0 every case OK or SKIPPED; 1 a case failed; 2 usage or configuration error.\n",
    run_options, PARSE_NO_ARGS,
};

static const char *const list_usage[] = {
    "bench list [--verbose | --format tsv] [--plugin NAME]... [--plugin-dir DIR]...",
    NULL,
};

const struct cmd_spec spec_list = {
    "list", "list the plugins found and whether each can run here", list_usage, NULL,
    "The same as `bench --list`: the plugins found, whether each can run here, and why\n"
    "not; it takes bench's options.",
    "Exit status: 0 listed; 2 usage or configuration error.\n",
    run_options, PARSE_NO_ARGS,
};

int options_parse(const struct cmd_spec *cmd, int argc, char **argv, struct options *o) {
  memset(o, 0, sizeof *o);
  o->isolation = -1; /* the preset's */
  o->preset = "standard";
  o->results_dir = "results";
  o->serve_port = 8765;
  o->serve_bind = "127.0.0.1";
  int nargs;
  return parse_options(cmd, argc, argv, o, &nargs);
}

void options_release(struct options *o) {
  free(o->plugins);
  free(o->plugin_dirs);
  free(o->params);
  free(o->filters);
  memset(o, 0, sizeof *o);
}
