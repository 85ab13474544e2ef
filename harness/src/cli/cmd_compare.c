/* bench compare OLD NEW: is it faster than before? Matches the cases of two
 * runs (files, folders, or a folder with date/tag selectors), compares each
 * from its raw samples and gives a verdict; --by operation lines up one
 * problem across plugins instead (compare_by_op.c). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "analyze/compare_by_op.h"
#include "analyze/compare_case.h"
#include "analyze/compare_sets.h"
#include "analyze/compare_table.h"
#include "analyze/result_set.h"
#include "core/term.h"
#include "core/text_table.h"
#include "core/util.h"

#define USAGE                                                                                     \
  "usage: bench compare OLD NEW [options]\n"                                                      \
  "       bench compare DIR --old-date D [--old-tag T] --new-date D [--new-tag T] [options]\n"    \
  "       bench compare --by operation PATH... [options]\n"                                       \
  "\n"                                                                                            \
  "OLD and NEW are result .json files or results folders (the newest run of each\n"              \
  "case is shown). Cases are matched by plugin, parameters and tag (the tag is\n"               \
  "left out when the two sides share none or a side is selected by --*-tag).\n"                  \
  "Samples of one run cannot show how far a case moves between runs, so each\n"                  \
  "side's interval is widened by a between-run term: the spread of earlier runs\n"               \
  "of the case (same plugin hash) in its results, of several runs of it that\n"                  \
  "day (pooled, runs as the unit), or else 10% + 20%/sqrt(samples). FASTER and\n"               \
  "SLOWER need 10 samples a side (and, with that default, runs that settled).\n"                \
  "\n"                                                                                            \
  "  --old-date D, --new-date D   keep the runs of that date (YYYY-MM-DD or a prefix)\n"         \
  "  --old-tag T, --new-tag T     keep the runs with that tag\n"                                  \
  "  --plugin NAME                only these plugins (repeatable, comma lists, globs)\n"         \
  "  --threshold X                SAME within +-X, FASTER/SLOWER beyond (default 5%)\n"          \
  "  --fail-on LIST               what makes the exit status 1: slower, wrong, missing,\n"       \
  "                               noisy, none (default slower,wrong)\n"                           \
  "  --format table|json|csv|md   output (default table)\n"                                      \
  "  --color auto|always|never    colour the verdicts (auto: only on a terminal)\n"              \
  "  --by operation               one row per plugin for each problem (operation, shape,\n"      \
  "                               dtype) across plugins and backends\n"                           \
  "\n"                                                                                            \
  "Exit status: 0 no regression; 1 a case in --fail-on (a SLOWER case, a case that\n"           \
  "failed in NEW, a case missing from NEW); 2 usage or unreadable input.\n"


struct compare_opts {
  const char *old_path, *new_path;
  struct rs_select old_sel, new_sel;
  const char **plugins;
  size_t nplugins;
  double threshold;
  unsigned fail_on;
  const char *format;
  int colour;
  int by_operation;
  char **paths; /* --by operation */
  size_t npaths;
};

static int usage_error(const char *fmt, const char *arg) {
  fprintf(stderr, "bench: error: ");
  fprintf(stderr, fmt, term_str(arg));
  fprintf(stderr, " (see bench compare --help)\n");
  return -1;
}

static int parse_fail_on(const char *s, unsigned *out) {
  char bad[64];
  if (compare_parse_fail_on(s, out, bad, sizeof bad) == 0) return 0;
  return usage_error("--fail-on takes slower, wrong, missing, noisy or none, not '%s'", bad);
}

/* -1 on bad usage, 1 after --help, 0 to go on. */
static int parse(int argc, char **argv, struct compare_opts *o) {
  enum { O_OLD_DATE = 256, O_OLD_TAG, O_NEW_DATE, O_NEW_TAG, O_PLUGIN, O_THRESHOLD, O_FAIL_ON,
         O_FORMAT, O_COLOR, O_BY, O_HELP };
  static const struct option longopts[] = {
      {"old-date", required_argument, NULL, O_OLD_DATE}, {"old-tag", required_argument, NULL, O_OLD_TAG},
      {"new-date", required_argument, NULL, O_NEW_DATE}, {"new-tag", required_argument, NULL, O_NEW_TAG},
      {"plugin", required_argument, NULL, O_PLUGIN},     {"threshold", required_argument, NULL, O_THRESHOLD},
      {"fail-on", required_argument, NULL, O_FAIL_ON},   {"format", required_argument, NULL, O_FORMAT},
      {"color", required_argument, NULL, O_COLOR},       {"colour", required_argument, NULL, O_COLOR},
      {"by", required_argument, NULL, O_BY},             {"help", no_argument, NULL, O_HELP},
      {NULL, 0, NULL, 0}};
  memset(o, 0, sizeof *o);
  o->threshold = COMPARE_DEFAULT_THRESHOLD;
  o->fail_on = FAIL_SLOWER | FAIL_WRONG;
  o->format = "table";
  const char *colour = "auto";
  opterr = 0;
  optind = 1;
  int c;
  /* permute: options may follow OLD and NEW */
  while ((c = getopt_long(argc, argv, "-:h", longopts, NULL)) != -1) {
    switch (c) {
    case 1:
      o->paths = xrealloc(o->paths, (o->npaths + 1) * sizeof *o->paths);
      o->paths[o->npaths++] = optarg;
      break;
    case O_OLD_DATE: o->old_sel.date = optarg; break;
    case O_OLD_TAG: o->old_sel.tag = optarg; break;
    case O_NEW_DATE: o->new_sel.date = optarg; break;
    case O_NEW_TAG: o->new_sel.tag = optarg; break;
    case O_PLUGIN:
      o->plugins = xrealloc(o->plugins, (o->nplugins + 1) * sizeof *o->plugins);
      o->plugins[o->nplugins++] = optarg;
      break;
    case O_THRESHOLD:
      if (compare_parse_threshold(optarg, &o->threshold) != 0)
        return usage_error("--threshold must be a fraction or percentage below 100%%, not '%s'", optarg);
      break;
    case O_FAIL_ON:
      if (parse_fail_on(optarg, &o->fail_on) != 0) return -1;
      break;
    case O_FORMAT:
      if (strcmp(optarg, "table") && strcmp(optarg, "json") && strcmp(optarg, "csv") && strcmp(optarg, "md"))
        return usage_error("--format must be table, json, csv or md, not '%s'", optarg);
      o->format = optarg;
      break;
    case O_COLOR: colour = optarg; break;
    case O_BY:
      if (strcmp(optarg, "operation") != 0) return usage_error("--by takes 'operation', not '%s'", optarg);
      o->by_operation = 1;
      break;
    case 'h':
    case O_HELP: fputs(USAGE, stdout); return 1;
    case ':': return usage_error("option '%s' needs a value", argv[optind - 1]);
    default: return usage_error("unknown option '%s'", argv[optind - 1]);
    }
  }
  if (strcmp(colour, "always") == 0) o->colour = 1;
  else if (strcmp(colour, "never") == 0) o->colour = 0;
  else if (strcmp(colour, "auto") == 0) o->colour = isatty(STDOUT_FILENO) && !getenv("NO_COLOR");
  else return usage_error("--color must be auto, always or never, not '%s'", colour);
  if (o->by_operation) {
    if (o->npaths < 1) return usage_error("%s", "--by operation needs at least one results file or folder");
    return 0;
  }
  int selected = o->old_sel.date || o->old_sel.tag || o->new_sel.date || o->new_sel.tag;
  if (o->npaths == 1 && selected) {
    o->old_path = o->new_path = o->paths[0];
  } else if (o->npaths == 2) {
    o->old_path = o->paths[0];
    o->new_path = o->paths[1];
  } else {
    return usage_error("%s", o->npaths < 2 ? "compare needs OLD and NEW (or one folder with --old-*/--new-* selectors)"
                                           : "compare takes two paths, OLD and NEW");
  }
  o->old_sel.plugins = o->new_sel.plugins = o->plugins;
  o->old_sel.nplugins = o->new_sel.nplugins = o->nplugins;
  return 0;
}

/* Match, add up and render: the exit status (--fail-on). */
static int compare_and_print(const struct result_set *old, const struct result_set *new_, const struct compare_opts *o) {
  int with_tag = !o->old_sel.tag && !o->new_sel.tag && rs_tags_overlap(old, new_);
  size_t n;
  struct compare_row *rows = compare_sets_match(old, new_, with_tag, o->threshold, &n);
  struct compare_summary s;
  compare_sets_summarise(rows, n, o->fail_on, &s);
  struct compare_view view = {o->old_path, o->new_path, o->threshold};
  struct text_table t;
  compare_table_build(rows, n, &s, &view, &t);
  enum table_format f = TABLE_TEXT;
  table_format_parse(o->format, &f);
  char *text = table_render(&t, f, o->colour);
  fputs(text, stdout);
  fflush(stdout);
  free(text);
  table_release(&t);
  int rc = s.exit_status ? EXIT_FAILED : EXIT_OK;
  compare_summary_release(&s);
  free(rows);
  return rc;
}

int cmd_compare(int argc, char **argv) {
  struct compare_opts o;
  int rc = parse(argc, argv, &o);
  if (rc != 0) {
    free(o.paths);
    free(o.plugins);
    return rc > 0 ? EXIT_OK : EXIT_USAGE;
  }
  if (o.by_operation) {
    rc = compare_by_operation((const char *const *)o.paths, o.npaths, o.plugins, o.nplugins, o.format, o.colour)
             ? EXIT_USAGE : EXIT_OK;
    free(o.paths);
    free(o.plugins);
    return rc;
  }
  struct result_set old, new_;
  int exit_status = EXIT_USAGE;
  if (result_set_load(o.old_path, &o.old_sel, &old) != 0) goto out_none;
  if (result_set_load(o.new_path, &o.new_sel, &new_) != 0) goto out_old;
  if (!old.n || !new_.n) {
    error("no results to compare in %s%s (check the path, --plugin and the date/tag selectors)",
          !old.n ? o.old_path : o.new_path, !old.n ? " (old)" : " (new)");
    goto out;
  }
  exit_status = compare_and_print(&old, &new_, &o);
out:
  result_set_release(&new_);
out_old:
  result_set_release(&old);
out_none:
  free(o.paths);
  free(o.plugins);
  return exit_status;
}
