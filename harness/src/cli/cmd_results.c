/* bench results: what scripts need to know about result files, asked of
 * bench instead of decoded from its formats.
 *
 *   bench results --name --plugin P --preset PRESET [--tag T] [--date D]
 *     the name (no folder, no .N copy number, no extension) a run of P
 *     under PRESET writes for date D (default today) and tag T: the name
 *     results/store.c gives the file (results_run_name).
 *   bench results --summary [--format F] PATH...
 *     for each result file (PATH a .json, or a folder: its result files),
 *     one row of a table rendered as key=value lines by default (a record
 *     starting at each "file=" line), or as a table, CSV, JSON, Markdown:
 *     file, plugin, preset, tag, date, cases, ok, skipped, failed and
 *     complete (yes: no case INTERRUPTED and no .journal beside the file,
 *     so the run that wrote it ended and wrote it whole).
 * Text from the files is printed escaped (term.h). Exit 2 on usage errors
 * and on a file that cannot be read. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analyze/result_set.h"
#include "cli/commands.h"
#include "cli/common_options.h"
#include "core/parse_options.h"
#include "core/term.h"
#include "core/text_table.h"
#include "core/util.h"
#include "results/io.h"

struct results_opts {
  int name, summary;
  const char *plugin, *preset, *tag, *date;
  const char *format; /* --summary's --format: kv (default), table, csv, json, md */
};

static const char *const summary_formats[] = {"kv", "table", "csv", "json", "md", NULL};

#define O struct results_opts
static const struct opt results_options[] = {
    OPT_FLAG("name", 0, O, name, "print the name a run of --plugin under --preset writes"),
    OPT_FLAG("summary", 0, O, summary, "key=value lines for each result file or folder given"),
    OPT_STRING("plugin", 0, O, plugin, "P", "with --name: the plugin"),
    OPT_STRING("preset", 0, O, preset, "PRESET", "with --name: the preset"),
    OPT_STRING("tag", 0, O, tag, "T", "with --name: the run's --tag"),
    OPT_STRING("date", 0, O, date, "YYYY-MM-DD", "with --name: the run's date (default today)"),
    OPT_FORMAT(O, format, summary_formats, "with --summary: key=value records (kv, the default), a table, csv, json or md"),
    OPT_END(),
};
#undef O

static const char *const results_usage[] = {
    "bench results --name --plugin P --preset PRESET [--tag T] [--date YYYY-MM-DD]",
    "bench results --summary [--format kv|table|csv|json|md] FILE.json|DIR...",
    NULL,
};

const struct cmd_spec spec_results = {
    "results", "what scripts need to know about result files (names, summaries)", results_usage, NULL,
    "--name prints the name (no folder, no .N copy number, no extension) that a run of\n"
    "P under PRESET writes for date D (default today) and tag T.\n"
    "\n"
    "--summary prints, for each result file (a .json, or a folder: its result files),\n"
    "key=value lines, a record starting at each \"file=\" line: file, plugin, preset,\n"
    "tag, date, cases, ok, skipped, failed and complete (yes: no case INTERRUPTED and\n"
    "no .journal beside the file, so the run that wrote it ended and wrote it whole).\n"
    "--format gives the same records as a table, CSV, JSON (bench-results-summary/1,\n"
    "counts as numbers, complete as true/false) or Markdown.",
    "Exit status: 0 printed; 2 usage error or a file that cannot be read.\n",
    results_options, 0,
};

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

/* One result file's record: a row of the summary table. */
static void add_summary(struct text_table *t, const char *path, const struct run_file *f) {
  size_t n[3] = {0, 0, 0}; /* ok, skipped, failed */
  size_t interrupted = 0;
  for (size_t i = 0; i < f->ncases; i++) {
    enum case_status s = f->cases[i].status;
    n[s == CASE_OK ? 0 : s == CASE_SKIPPED ? 1 : 2]++;
    if (s == CASE_INTERRUPTED) interrupted++;
  }
  int complete = interrupted == 0 && !journal_pending(path);
  char *cells[] = {xstrdup(path), xstrdup(f->plugin ? f->plugin : ""),
                   xstrdup(f->env.preset ? f->env.preset : ""), xstrdup(f->env.tag ? f->env.tag : ""),
                   xstrdup(f->env.date ? f->env.date : ""), xasprintf("%zu", f->ncases),
                   xasprintf("%zu", n[0]), xasprintf("%zu", n[1]), xasprintf("%zu", n[2]),
                   xstrdup(complete ? "yes" : "no")};
  size_t row = table_add_row(t, cells);
  table_set_json(t, row, 5, json_integer((json_int_t)f->ncases));
  for (int k = 0; k < 3; k++) table_set_json(t, row, 6 + (size_t)k, json_integer((json_int_t)n[k]));
  table_set_json(t, row, 9, json_boolean(complete));
}

/* The summary of every result file under paths, rendered in format (kv by
 * default: the key=value records scripts read). */
static int summaries(int n, char **paths, const char *format) {
  static const char *const titles[] = {"file", "plugin", "preset", "tag", "date",
                                       "cases", "ok", "skipped", "failed", "complete"};
  static const int right[] = {0, 0, 0, 0, 0, 1, 1, 1, 1, 0};
  enum table_format f = TABLE_KV;
  if (format) table_format_parse(format, &f);
  struct text_table t;
  table_init(&t, sizeof titles / sizeof *titles, titles, right);
  table_json_frame(&t, "files", json_pack("{s:s}", "schema", "bench-results-summary/1"), NULL);
  int rc = EXIT_OK;
  for (int i = 0; i < n && rc == EXIT_OK; i++) {
    struct result_set s;
    if (result_set_load(paths[i], NULL, &s) != 0) {
      rc = EXIT_USAGE;
      break;
    }
    for (size_t k = 0; k < s.nfiles; k++) add_summary(&t, s.paths[k], &s.files[k]);
    result_set_release(&s);
  }
  /* the files read before an unreadable one are still shown, as they were
   * when the records were printed one by one */
  char *text = table_render(&t, f, 0);
  fputs(text, stdout);
  free(text);
  table_release(&t);
  fflush(stdout);
  return rc;
}

int cmd_results(int argc, char **argv) {
  struct results_opts o = {0};
  int nargs, rc = parse_options(&spec_results, argc, argv, &o, &nargs);
  if (rc != 0) return rc > 0 ? EXIT_OK : EXIT_USAGE;
  if (o.name == o.summary) {
    usage_error(&spec_results, "give one of --name and --summary");
    return EXIT_USAGE;
  }
  if (o.format && !o.summary) {
    usage_error(&spec_results, "--format goes with --summary");
    return EXIT_USAGE;
  }
  if (o.summary) {
    if (o.plugin || o.preset || o.tag || o.date) {
      usage_error(&spec_results, "--summary takes result files or folders, not --plugin, --preset, --tag or --date");
      return EXIT_USAGE;
    }
    if (nargs == 0) {
      usage_error(&spec_results, "--summary needs a result file or folder");
      return EXIT_USAGE;
    }
    return summaries(nargs, argv, o.format);
  }
  if (nargs > 0) {
    usage_error(&spec_results, "unexpected argument '%s'", argv[0]);
    return EXIT_USAGE;
  }
  const char *plugin = o.plugin, *preset = o.preset, *tag = o.tag, *date = o.date;
  if (!plugin || !*plugin || !preset || !*preset) {
    usage_error(&spec_results, "--name needs --plugin and --preset");
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
