/* Subcommands, one per file (cmd_<name>.c), registered in main.c's table.
 * Each returns the process exit status: 0 ok, 1 a case failed, 2 usage or
 * configuration error (nothing ran, nothing was written). */
#ifndef BENCH_COMMANDS_H
#define BENCH_COMMANDS_H

#include <stddef.h>
#include <stdio.h>

#include "preset/overrides.h"

enum { EXIT_OK = 0, EXIT_FAILED = 1, EXIT_USAGE = 2, EXIT_INTERRUPTED = 130 };

/* Options shared by run and list. */
struct options {
  const char *preset;        /* --preset, default "standard" */
  const char **plugins;      /* --plugin values (names, comma lists or globs) */
  size_t nplugins;
  const char **plugin_dirs;  /* --plugin-dir */
  size_t nplugin_dirs;
  const char *results_dir;   /* --results-dir, default "results" */
  const char *events;        /* --events FILE or "-" */
  int serve;                 /* --serve: bench serve beside the run (run/live_server.h) */
  int serve_port;            /* --serve-port (default 8765) */
  const char *serve_bind;    /* --serve-bind (default 127.0.0.1) */
  const char *tag;           /* --tag */
  const char *label;         /* --label: the build the run measures (NULL: commit, else run id) */
  int debug;                 /* --mode debug */
  int isolation;             /* --isolation: -1 the preset's, else an enum isolation */
  int require_check;         /* --require-check: unchecked cases fail (or the preset's key) */
  int list;                  /* --list */
  int verbose;               /* --verbose: --list shows parameters */
  int rescan;                /* --rescan: scan every plugin file again (scan cache) */
  const char *format;        /* --format text|tsv (--list); NULL: text */
  const char **params;       /* --param NAME=VALUE (repeatable) */
  size_t nparams;
  const char **filters;      /* --filter EXPR (repeatable; all must hold) */
  size_t nfilters;
  const char *baseline;      /* --baseline FILE|DIR: compare each case with it */
  int colour;                /* --color: an enum term_colour (auto by default) */
  const char *tuning_file;   /* --tuning-file: the tuning cache (bench tune; runs read it) */
  struct sampling_overrides sampling; /* --warmup, --min-samples, ... over the preset's */
  const char *export_json;   /* --export-json FILE: the whole run in one file (results/export.h) */
  const char *export_csv;    /* --export-csv FILE */
  const char *export_md;     /* --export-md FILE */
};

/* A command built on the run pipeline (bench peak): its hooks. */
struct plan;
struct plugin;
struct case_result;
struct run_hooks {
  void *arg;
  /* After the plan is built, before anything is written: narrow it. 0 to
   * run; 1 when nothing is left to run (said so; exit 0); -1 after error(). */
  int (*plan_ready)(void *arg, struct plan *p);
  /* Each case's outcome once it is saved in its result file. */
  void (*case_done)(void *arg, const struct plugin *pl, const struct case_result *r);
};
/* bench [run]'s pipeline with hooks (NULL: none): plan, run each case in
 * its worker, keep every result as it comes, summarise. */
int run_suite(int argc, char **argv, const struct options *o, const struct run_hooks *hk);

struct cmd_spec;

/* Parse argv[1..] by cmd's table (spec_run or spec_list) into o, which it
 * sets to the defaults first; prints the problem and returns -1 on bad
 * usage, 1 when --help or --version was handled. */
int options_parse(const struct cmd_spec *cmd, int argc, char **argv, struct options *o);
void options_release(struct options *o);

/* Each command's option table and help (core/parse_options.h), in its own file. */
extern const struct cmd_spec spec_run, spec_list, spec_rollup, spec_events, spec_compare, spec_history,
    spec_report, spec_results, spec_ab, spec_tune, spec_peak, spec_serve, spec_help, spec_completion;

/* Every command, in the order help, the man page and completion show them;
 * fn is NULL for run and list (main.c calls them with struct options). */
struct command {
  const struct cmd_spec *spec;
  int (*fn)(int argc, char **argv);
};
extern const struct command bench_commands[];
/* bench --help after its own synopsis: the other commands' and a line each. */
void print_command_synopses(FILE *f);

int cmd_run(int argc, char **argv, const struct options *o);
/* A signal (child_install_signal_handlers) came before the first case of
 * run, ab or tune: says so in one line (nothing was run, no result
 * written) and returns EXIT_INTERRUPTED, the status of an interrupted run. */
int cmd_interrupted_early(void);
int cmd_list(const struct options *o);
int cmd_rollup(int argc, char **argv);
int cmd_events(int argc, char **argv);
int cmd_serve(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_history(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_results(int argc, char **argv);
int cmd_ab(int argc, char **argv);
/* bench tune (issue 25): cmd_tune.c */
int cmd_tune(int argc, char **argv);
int cmd_peak(int argc, char **argv);
/* bench help [--man | --markdown | COMMAND], bench completion bash: cmd_help.c */
int cmd_help(int argc, char **argv);
int cmd_completion(int argc, char **argv);

#endif
