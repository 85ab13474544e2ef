/* bench compare OLD NEW: is it faster than before? Matches the cases of two
 * runs (files, folders, or a folder with date/tag selectors), compares each
 * from its raw samples and gives a verdict; --by operation lines up one
 * problem across plugins instead (compare_by_op.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/common_options.h"
#include "analyze/compare_by_op.h"
#include "analyze/compare_case.h"
#include "analyze/compare_sets.h"
#include "analyze/compare_table.h"
#include "analyze/result_set.h"
#include "core/term.h"
#include "core/text_table.h"
#include "core/util.h"

struct compare_opts {
  const char *old_path, *new_path;
  struct rs_select old_sel, new_sel;
  const char *old_label, *new_label; /* --old-label/--new-label: old_sel.labels, new_sel.labels */
  const char **plugins;
  size_t nplugins;
  double threshold;
  unsigned fail_on;
  const char *format;
  int colour;      /* colour the output: term_colour_on of colour_mode */
  int colour_mode; /* --color: an enum term_colour */
  const char *by;  /* --by operation */
  int by_operation;
  char **paths; /* --by operation */
  size_t npaths;
};

static const char *const compare_formats[] = {"table", "json", "csv", "md", NULL};
static const char *const by_words[] = {"operation", NULL};

#define O struct compare_opts
static const struct opt compare_options[] = {
    OPT_STRING("old-date", 0, O, old_sel.date, "D", "keep the OLD runs of that date (YYYY-MM-DD or a prefix)"),
    OPT_STRING("old-tag", 0, O, old_sel.tag, "T", "keep the OLD runs with that tag"),
    OPT_STRING("new-date", 0, O, new_sel.date, "D", "keep the NEW runs of that date (YYYY-MM-DD or a prefix)"),
    OPT_STRING("new-tag", 0, O, new_sel.tag, "T", "keep the NEW runs with that tag"),
    OPT_STRING("old-label", 0, O, old_label, "L",
               "keep the OLD runs with label L (bench run --label, else the plugin's short commit; exact or "
               "a glob)"),
    OPT_STRING("new-label", 0, O, new_label, "L", "keep the NEW runs with label L"),
    OPT_PLUGIN(O, plugins, nplugins),
    OPT_THRESHOLD(O, threshold),
    OPT_FAIL_ON(O, fail_on),
    OPT_FORMAT(O, format, compare_formats, "output (default table)"),
    OPT_COLOR(O, colour_mode),
    OPT_CHOICE("by", O, by, by_words,
               "one row per plugin for each problem (operation, shape, dtype) across plugins and backends"),
    OPT_END(),
};
#undef O

static const char *const compare_usage[] = {
    "bench compare OLD NEW [options]",
    "bench compare DIR --old-date D [--old-tag T] --new-date D [--new-tag T] [options]",
    "bench compare DIR --old-label A --new-label B [options]",
    "bench compare --by operation PATH... [options]",
    NULL,
};

const struct cmd_spec spec_compare = {
    "compare", "is it faster than before? two runs, case by case, with a verdict", compare_usage, NULL,
    "OLD and NEW are result .json files or results folders (the newest run of each\n"
    "case is shown). Cases are matched by plugin, parameters and tag (the tag is\n"
    "left out when the two sides share none or a side is selected by --*-tag).\n"
    "--old-label A --new-label B picks each side's runs by label, so two builds run\n"
    "the same day in one folder compare (the runs of a side's newest day pooled).\n"
    "Samples of one run cannot show how far a case moves between runs, so each\n"
    "side's interval is widened by a between-run term: the spread of earlier runs\n"
    "of the case (same plugin hash) in its results, of several runs of it that\n"
    "day (pooled, runs as the unit), or else 10% + 20%/sqrt(samples). FASTER and\n"
    "SLOWER need 10 samples a side (and, with that default, runs that settled).",
    "Exit status: 0 no regression; 1 a case in --fail-on (a SLOWER case, a case that\n"
    "failed in NEW, a case missing from NEW); 2 usage or unreadable input.\n",
    compare_options, PARSE_PERMUTE,
};

/* -1 on bad usage, 1 after --help, 0 to go on. */
static int parse(int argc, char **argv, struct compare_opts *o) {
  memset(o, 0, sizeof *o);
  o->threshold = COMPARE_DEFAULT_THRESHOLD;
  o->fail_on = FAIL_SLOWER | FAIL_WRONG;
  o->format = "table";
  int nargs, rc = parse_options(&spec_compare, argc, argv, o, &nargs);
  if (rc != 0) return rc;
  o->npaths = (size_t)nargs; /* the caller frees paths */
  o->paths = xcalloc(o->npaths + 1, sizeof *o->paths);
  memcpy(o->paths, argv, o->npaths * sizeof *o->paths);
  o->by_operation = o->by != NULL;
  o->colour = term_colour_on((enum term_colour)o->colour_mode, STDOUT_FILENO);
  if (o->by_operation) {
    if (o->npaths < 1) return usage_error(&spec_compare, "--by operation needs at least one results file or folder");
    return 0;
  }
  if (o->old_label) o->old_sel.labels = &o->old_label, o->old_sel.nlabels = 1;
  if (o->new_label) o->new_sel.labels = &o->new_label, o->new_sel.nlabels = 1;
  int selected = o->old_sel.date || o->old_sel.tag || o->new_sel.date || o->new_sel.tag || o->old_label ||
                 o->new_label;
  if (o->npaths == 1 && selected) {
    o->old_path = o->new_path = o->paths[0];
  } else if (o->npaths == 2) {
    o->old_path = o->paths[0];
    o->new_path = o->paths[1];
  } else {
    return usage_error(&spec_compare, "%s", o->npaths < 2 ? "compare needs OLD and NEW (or one folder with --old-*/--new-* selectors)"
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
    error("no results to compare in %s%s (check the path, --plugin and the date/tag/label selectors)",
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
