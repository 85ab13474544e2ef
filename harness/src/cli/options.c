/* Command-line options of `bench` and `bench list`. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/plugin.h"
#include "cli/commands.h"
#include "plan/run_schema.h"
#include "run/env.h"
#include "core/term.h"
#include "core/util.h"

void usage(FILE *f) {
  fprintf(f,
          "usage: bench [--preset NAME|FILE.ini] [--plugin NAME[,NAME...]]... [options]\n"
          "       bench --list [--verbose | --format tsv] [--plugin NAME]... [--plugin-dir DIR]...\n"
          "       bench rollup [--results-dir DIR]\n"
          "       bench events FILE [--follow | --summary]\n"
          "       bench compare OLD NEW [options]   (see bench compare --help)\n"
          "       bench ab OLD NEW [options]        (see bench ab --help)\n"
          "       bench history [--results-dir DIR] [--plugin P]\n"
          "       bench report [--results-dir DIR] [-o report.html]\n"
          "       bench results --name --plugin P --preset PRESET [--tag T] [--date D]\n"
          "       bench results --summary FILE.json|DIR...\n"
          "       bench tune --plugin P [--strategy grid|random|halving] [--budget 10m] [options]\n"
          "\n"
          "Runs kernel plugins under a preset, checks every output against the CPU\n"
          "reference, and writes dated result files plus results/rollup.csv.\n"
          "\n"
          "  --preset NAME|FILE   smoke, standard (default), perf, verify, or a path to an .ini\n"
          "  --plugin NAME        plugin to run; repeatable, comma lists and globs (hip_*) allowed;\n"
          "                       default: every plugin found\n"
          "  --list               list the plugins found, whether each can run here, and why not\n"
          "  --verbose            with --list: also each plugin's parameters and defaults\n"
          "  --format text|tsv    with --list: tsv prints for scripts one line per plugin, tab-\n"
          "                       separated: name, backend, operation, parameter names (a comma\n"
          "                       list); nothing is probed\n"
          "  --plugin-dir DIR     also load plugins from DIR (repeatable); see BENCH_PLUGIN_PATH\n"
          "  --rescan             scan every plugin file again and ask each listed plugin again\n"
          "                       whether it can run, instead of trusting the scan cache in\n"
          "                       $XDG_CACHE_HOME/bench (BENCH_NO_SCAN_CACHE=1: no cache at all)\n"
          "  --results-dir DIR    where result files go (default ./results)\n"
          "  --events FILE        write JSON-lines progress events to FILE ('-' for stdout)\n"
          "  --tag TAG            added to result file names and rows (e.g. the machine)\n"
          "  --mode perf|debug    debug: serialised GPU launches and the Vulkan validation layer\n"
          "  --param NAME=VALUE   set a parameter of the selected plugins (overrides the preset);\n"
          "                       repeatable; a comma list sweeps it: --param m=256,512\n"
          "  --filter EXPR        run only the cases whose parameters match EXPR: conditions\n"
          "                       NAME OP VALUE joined by ',' (all must hold), OP one of\n"
          "                       = != < <= > >=, '|' between alternatives:\n"
          "                       --filter 'm>=512,dtype=f16|bf16'; repeatable\n"
          "  --baseline PATH      compare each case with the same case in a result file or folder\n"
          "                       (ratio, 95%% interval and verdict on its line and in the .txt)\n"
          "  --isolation backend|plugin|case  one worker process per backend (default),\n"
          "                       one per plugin, or one process per case\n"
          "  --color auto|always|never  colour the case status (auto: on a terminal, unless\n"
          "                       NO_COLOR is set)\n"
          "  --tuning-file FILE   the tuning cache tunables at auto take their values from\n"
          "                       (default $XDG_CACHE_HOME/bench/tuning/DEVICE.tsv; bench tune)\n"
          "  --require-check      a case that nothing checked (\"unchecked\": operation none\n"
          "                       without a self-check, or verify = none) fails as ERROR\n"
          "  --help, --version\n"
          "\n"
          "Exit status: 0 every case OK or SKIPPED; 1 a case failed; 2 usage or configuration error.\n");
}

static void push(const char ***list, size_t *n, const char *v) {
  *list = xrealloc(*list, (*n + 1) * sizeof **list);
  (*list)[(*n)++] = v;
}

int options_parse(int argc, char **argv, struct options *o) {
  enum { OPT_PRESET = 256, OPT_PLUGIN, OPT_PLUGIN_DIR, OPT_RESULTS_DIR, OPT_EVENTS, OPT_TAG, OPT_MODE,
         OPT_LIST, OPT_VERBOSE, OPT_HELP, OPT_VERSION, OPT_PARAM, OPT_FILTER, OPT_BASELINE, OPT_ISOLATION,
         OPT_FORMAT, OPT_REQUIRE_CHECK, OPT_RESCAN, OPT_COLOR, OPT_TUNING_FILE };
  static const struct option longopts[] = {
      {"preset", required_argument, NULL, OPT_PRESET},
      {"plugin", required_argument, NULL, OPT_PLUGIN},
      {"plugin-dir", required_argument, NULL, OPT_PLUGIN_DIR},
      {"results-dir", required_argument, NULL, OPT_RESULTS_DIR},
      {"events", required_argument, NULL, OPT_EVENTS},
      {"tag", required_argument, NULL, OPT_TAG},
      {"mode", required_argument, NULL, OPT_MODE},
      {"list", no_argument, NULL, OPT_LIST},
      {"isolation", required_argument, NULL, OPT_ISOLATION},
      {"verbose", no_argument, NULL, OPT_VERBOSE},
      {"help", no_argument, NULL, OPT_HELP},
      {"baseline", required_argument, NULL, OPT_BASELINE},
      {"version", no_argument, NULL, OPT_VERSION},
      {"param", required_argument, NULL, OPT_PARAM},
      {"filter", required_argument, NULL, OPT_FILTER},
      {"format", required_argument, NULL, OPT_FORMAT},
      {"require-check", no_argument, NULL, OPT_REQUIRE_CHECK},
      {"rescan", no_argument, NULL, OPT_RESCAN},
      {"color", required_argument, NULL, OPT_COLOR},
      {"colour", required_argument, NULL, OPT_COLOR},
      {"tuning-file", required_argument, NULL, OPT_TUNING_FILE},
      {NULL, 0, NULL, 0}};
  memset(o, 0, sizeof *o);
  o->isolation = -1; /* the preset's */
  o->preset = "standard";
  o->results_dir = "results";
  opterr = 0;
  optind = 1;
  int c;
  while ((c = getopt_long(argc, argv, "+:hv", longopts, NULL)) != -1) {
    switch (c) {
    case OPT_PRESET: o->preset = optarg; break;
    case OPT_PLUGIN: push(&o->plugins, &o->nplugins, optarg); break;
    case OPT_PLUGIN_DIR: push(&o->plugin_dirs, &o->nplugin_dirs, optarg); break;
    case OPT_RESULTS_DIR: o->results_dir = optarg; break;
    case OPT_EVENTS: o->events = optarg; break;
    case OPT_TAG:
      if (!*optarg) return error("--tag needs a non-empty value");
      o->tag = optarg;
      break;
    case OPT_MODE:
      if (strcmp(optarg, "debug") == 0) o->debug = 1;
      else if (strcmp(optarg, "perf") == 0) o->debug = 0;
      else return error("--mode must be perf or debug, not '%s'", optarg);
      break;
    case OPT_PARAM: push(&o->params, &o->nparams, optarg); break;
    case OPT_FILTER: push(&o->filters, &o->nfilters, optarg); break;
    case OPT_ISOLATION: {
      enum isolation iso;
      if (isolation_parse(optarg, &iso) != 0)
        return error("--isolation must be backend, plugin or case, not '%s'", optarg);
      o->isolation = (int)iso;
      break;
    }
    case OPT_LIST: o->list = 1; break;
    case OPT_REQUIRE_CHECK: o->require_check = 1; break;
    case OPT_RESCAN: o->rescan = 1; break;
    case OPT_COLOR: {
      enum term_colour mode;
      if (term_colour_parse(optarg, &mode) != 0)
        return error("--color must be auto, always or never, not '%s'", optarg);
      o->colour = (int)mode;
      break;
    }
    case OPT_TUNING_FILE: o->tuning_file = optarg; break;
    case OPT_FORMAT:
      if (strcmp(optarg, "text") != 0 && strcmp(optarg, "tsv") != 0)
        return error("--format must be text or tsv, not '%s'", optarg);
      o->format = optarg;
      break;
    case OPT_BASELINE: o->baseline = optarg; break;
    case 'v':
    case OPT_VERBOSE: o->verbose = 1; break;
    case 'h':
    case OPT_HELP: usage(stdout); return 1;
    case OPT_VERSION:
      printf("bench %s (%s), plugin ABI %d.%d\n", bench_version(), bench_git_revision(),
             BENCH_ABI_MAJOR, BENCH_ABI_MINOR);
      return 1;
    case ':': return error("option '%s' needs a value (see bench --help)", argv[optind - 1]);
    default: return error("unknown option '%s' (see bench --help)", argv[optind - 1]);
    }
  }
  if (optind < argc) return error("unexpected argument '%s' (see bench --help)", argv[optind]);
  return 0;
}

void options_release(struct options *o) {
  free(o->plugins);
  free(o->plugin_dirs);
  free(o->params);
  free(o->filters);
  memset(o, 0, sizeof *o);
}
