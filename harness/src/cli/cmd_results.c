/* bench results: what scripts need to know about result files, asked of
 * bench instead of decoded from its formats.
 *
 *   bench results --name --plugin P --preset PRESET [--tag T] [--date D]
 *     the name (no folder, no .N copy number, no extension) a run of P
 *     under PRESET writes for date D (default today) and tag T: the name
 *     results/store.c gives the file (results_run_name).
 *   bench results --summary PATH...
 *     for each result file (PATH a .json, or a folder: its result files),
 *     key=value lines, a record starting at each "file=" line:
 *     file, plugin, preset, tag, date, cases, ok, skipped, failed and
 *     complete (yes: no case INTERRUPTED and no .journal beside the file,
 *     so the run that wrote it ended and wrote it whole).
 * Text from the files is printed escaped (term.h). Exit 2 on usage errors
 * and on a file that cannot be read. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analyze/result_set.h"
#include "cli/commands.h"
#include "results/io.h"
#include "core/term.h"
#include "core/util.h"

#define USAGE                                                                                \
  "usage: bench results --name --plugin P --preset PRESET [--tag T] [--date YYYY-MM-DD]\n" \
  "       bench results --summary FILE.json|DIR..."

/* Is the run that wrote path still to finish its files (a .journal beside it)? */
static int journal_pending(const char *path) {
  size_t len = strlen(path);
  if (len < 5 || strcmp(path + len - 5, ".json") != 0) return 0;
  char *journal = xasprintf("%.*s.journal", (int)(len - 5), path);
  struct stat st;
  int pending = lstat(journal, &st) == 0;
  free(journal);
  return pending;
}

static void print_summary(const char *path, const struct run_file *f) {
  size_t ok = 0, skipped = 0, failed = 0, interrupted = 0;
  for (size_t i = 0; i < f->ncases; i++) {
    enum case_status s = f->cases[i].status;
    if (s == CASE_OK) ok++;
    else if (s == CASE_SKIPPED) skipped++;
    else failed++;
    if (s == CASE_INTERRUPTED) interrupted++;
  }
  printf("file=%s\n", term_str(path));
  printf("plugin=%s\n", term_str(f->plugin ? f->plugin : ""));
  printf("preset=%s\n", term_str(f->env.preset ? f->env.preset : ""));
  printf("tag=%s\n", term_str(f->env.tag ? f->env.tag : ""));
  printf("date=%s\n", term_str(f->env.date ? f->env.date : ""));
  printf("cases=%zu\nok=%zu\nskipped=%zu\nfailed=%zu\n", f->ncases, ok, skipped, failed);
  printf("complete=%s\n", interrupted == 0 && !journal_pending(path) ? "yes" : "no");
}

static int summaries(int n, char **paths) {
  for (int i = 0; i < n; i++) {
    struct result_set s;
    if (result_set_load(paths[i], NULL, &s) != 0) return EXIT_USAGE;
    for (size_t k = 0; k < s.nfiles; k++) print_summary(s.paths[k], &s.files[k]);
    result_set_release(&s);
  }
  fflush(stdout);
  return EXIT_OK;
}

int cmd_results(int argc, char **argv) {
  enum { OPT_NAME = 256, OPT_SUMMARY, OPT_PLUGIN, OPT_PRESET, OPT_TAG, OPT_DATE, OPT_HELP };
  static const struct option longopts[] = {{"name", no_argument, NULL, OPT_NAME},
                                           {"summary", no_argument, NULL, OPT_SUMMARY},
                                           {"plugin", required_argument, NULL, OPT_PLUGIN},
                                           {"preset", required_argument, NULL, OPT_PRESET},
                                           {"tag", required_argument, NULL, OPT_TAG},
                                           {"date", required_argument, NULL, OPT_DATE},
                                           {"help", no_argument, NULL, OPT_HELP},
                                           {NULL, 0, NULL, 0}};
  int name = 0, summary = 0;
  const char *plugin = NULL, *preset = NULL, *tag = NULL, *date = NULL;
  opterr = 0;
  optind = 1;
  int c;
  while ((c = getopt_long(argc, argv, "+:h", longopts, NULL)) != -1) {
    switch (c) {
    case OPT_NAME: name = 1; break;
    case OPT_SUMMARY: summary = 1; break;
    case OPT_PLUGIN: plugin = optarg; break;
    case OPT_PRESET: preset = optarg; break;
    case OPT_TAG: tag = optarg; break;
    case OPT_DATE: date = optarg; break;
    case 'h':
    case OPT_HELP: printf("%s\n", USAGE); return EXIT_OK;
    case ':':
      error("option '%s' needs a value (%s)", argv[optind - 1], USAGE);
      return EXIT_USAGE;
    default: error("unknown option '%s' (%s)", argv[optind - 1], USAGE); return EXIT_USAGE;
    }
  }
  if (name == summary) {
    error("give one of --name and --summary (%s)", USAGE);
    return EXIT_USAGE;
  }
  if (summary) {
    if (plugin || preset || tag || date) {
      error("--summary takes result files or folders, not --plugin, --preset, --tag or --date (%s)", USAGE);
      return EXIT_USAGE;
    }
    if (optind >= argc) {
      error("--summary needs a result file or folder (%s)", USAGE);
      return EXIT_USAGE;
    }
    return summaries(argc - optind, argv + optind);
  }
  if (optind < argc) {
    error("unexpected argument '%s' (%s)", argv[optind], USAGE);
    return EXIT_USAGE;
  }
  if (!plugin || !*plugin || !preset || !*preset) {
    error("--name needs --plugin and --preset (%s)", USAGE);
    return EXIT_USAGE;
  }
  char today[11];
  if (!date) {
    today_local(today);
    date = today;
  }
  char *n = results_run_name(date, plugin, preset, tag);
  printf("%s\n", n);
  free(n);
  return EXIT_OK;
}
