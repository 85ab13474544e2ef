/* bench compare OLD NEW: is it faster than before? Matches the cases of two
 * runs (files, folders, or a folder with date/tag selectors), compares each
 * from its raw samples and gives a verdict; --by operation lines up one
 * problem across plugins instead (compare_by_op.c). */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/common_options.h"
#include "analyze/compare_by_op.h"
#include "analyze/compare_case.h"
#include "analyze/result_set.h"
#include "core/term.h"
#include "core/text_table.h"
#include "core/units.h"
#include "core/util.h"

struct compare_opts {
  const char *old_path, *new_path;
  struct rs_select old_sel, new_sel;
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

struct row {
  const struct rs_entry *old, *new_;
  struct case_compare cc;
};

static const char *const compare_formats[] = {"table", "json", "csv", "md", NULL};
static const char *const by_words[] = {"operation", NULL};

#define O struct compare_opts
static const struct opt compare_options[] = {
    OPT_STRING("old-date", 0, O, old_sel.date, "D", "keep the OLD runs of that date (YYYY-MM-DD or a prefix)"),
    OPT_STRING("old-tag", 0, O, old_sel.tag, "T", "keep the OLD runs with that tag"),
    OPT_STRING("new-date", 0, O, new_sel.date, "D", "keep the NEW runs of that date (YYYY-MM-DD or a prefix)"),
    OPT_STRING("new-tag", 0, O, new_sel.tag, "T", "keep the NEW runs with that tag"),
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
    "bench compare --by operation PATH... [options]",
    NULL,
};

const struct cmd_spec spec_compare = {
    "compare", "is it faster than before? two runs, case by case, with a verdict", compare_usage, NULL,
    "OLD and NEW are result .json files or results folders (the newest run of each\n"
    "case is shown). Cases are matched by plugin, parameters and tag (the tag is\n"
    "left out when the two sides share none or a side is selected by --*-tag).\n"
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
  int selected = o->old_sel.date || o->old_sel.tag || o->new_sel.date || o->new_sel.tag;
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

static const char *verdict_colour(enum verdict v) {
  switch (v) {
  case V_SLOWER: return "31";
  case V_FASTER: case V_FIXED: return "32";
  case V_NOISY: return "33";
  case V_MISSING: return "35";
  case V_NEW: return "36";
  case V_SAME: case V_SKIPPED: case V_NO_DATA: return NULL;
  default: return "1;31";
  }
}

static const struct rs_entry *any_side(const struct row *r) {
  return r->new_ ? r->new_ : r->old;
}

static int cmp_rows(const void *pa, const void *pb) {
  return rs_entry_order(any_side(pa), any_side(pb));
}

/* A side's runs of one key as compare_case_sides takes them. */
struct side_runs {
  const struct case_result **runs, **hist;
  struct case_side side;
};

static void side_runs_of(const struct result_set *s, const struct rs_group *g, struct side_runs *out) {
  memset(out, 0, sizeof *out);
  if (!g) return;
  out->runs = xcalloc(g->npool + 1, sizeof *out->runs);
  out->hist = xcalloc(g->nhist + 1, sizeof *out->hist);
  for (size_t i = 0; i < g->npool; i++) out->runs[i] = s->entries[g->pool[i]].r;
  for (size_t i = 0; i < g->nhist; i++) out->hist[i] = s->entries[g->hist[i]].r;
  const struct run_file *newest = g->npool ? s->entries[g->pool[g->npool - 1]].file : NULL;
  out->side = (struct case_side){out->runs, g->npool, out->hist, g->nhist, newest ? &newest->env.steady : NULL};
}

static void side_runs_release(struct side_runs *s) {
  free(s->runs);
  free(s->hist);
}

/* Both sides pool the very same runs (the same files: a folder against
 * itself), so no between-run term applies. */
static int same_runs(const struct result_set *old, const struct rs_group *a, const struct result_set *new_,
                     const struct rs_group *b) {
  if (a->npool != b->npool) return 0;
  for (size_t i = 0; i < a->npool; i++)
    if (strcmp(old->entries[a->pool[i]].path, new_->entries[b->pool[i]].path) != 0) return 0;
  return 1;
}

/* Merge-join the cases of each key on both sides: the newest run shown,
 * the runs of its day pooled, earlier ones as history. */
static struct row *match(const struct result_set *old, const struct result_set *new_, int with_tag,
                         double threshold, size_t *nrows) {
  struct rs_group *go, *gn;
  size_t no, nn;
  rs_group_runs(old, with_tag, &go, &no);
  rs_group_runs(new_, with_tag, &gn, &nn);
  struct row *rows = xcalloc(no + nn + 1, sizeof *rows);
  size_t n = 0, i = 0, j = 0;
  while (i < no || j < nn) {
    const struct rs_entry *a = i < no ? &old->entries[go[i].newest] : NULL;
    const struct rs_entry *b = j < nn ? &new_->entries[gn[j].newest] : NULL;
    int c;
    if (!a) c = 1;
    else if (!b) c = -1;
    else {
      char *ka = rs_key(a, with_tag), *kb = rs_key(b, with_tag);
      c = strcmp(ka, kb);
      free(ka);
      free(kb);
    }
    struct row *r = &rows[n++];
    const struct rs_group *ga = c <= 0 ? &go[i] : NULL, *gb = c >= 0 ? &gn[j] : NULL;
    if (c <= 0) r->old = a, i++;
    if (c >= 0) r->new_ = b, j++;
    struct side_runs so, sn;
    side_runs_of(old, ga, &so);
    side_runs_of(new_, gb, &sn);
    compare_case_sides(&so.side, &sn.side, ga && gb && same_runs(old, ga, new_, gb), threshold, &r->cc);
    side_runs_release(&so);
    side_runs_release(&sn);
  }
  rs_groups_release(go, no);
  rs_groups_release(gn, nn);
  qsort(rows, n, sizeof *rows, cmp_rows);
  *nrows = n;
  return rows;
}

static int any_tag(const struct row *rows, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (*any_side(&rows[i])->tag) return 1;
  return 0;
}

static double side_median(const struct rs_entry *e, const struct case_compare *cc, int old_side) {
  if (!e) return NAN;
  if (cc->timed) return old_side ? cc->c.old_median : cc->c.new_median;
  size_t n;
  const double *x = rs_samples(e->r, rs_has_device(e->r), &n);
  return e->r->status == CASE_OK && n ? cs_median(x, n) : NAN;
}

/* ---- summary ------------------------------------------------------------ */

struct summary {
  size_t counts[V_COUNT];
  size_t nplugins;
  char **plugins;
  double *geomean; /* per plugin */
  size_t *ntimed;
  double overall;
  size_t ntimed_all;
  int exit_status;
};

static void summarise(const struct row *rows, size_t n, unsigned fail_on, struct summary *s) {
  memset(s, 0, sizeof *s);
  double *all = xcalloc(n + 1, sizeof *all), *mine = xcalloc(n + 1, sizeof *mine);
  for (size_t i = 0; i < n; i++) {
    const struct row *r = &rows[i];
    s->counts[r->cc.verdict]++;
    if (r->cc.timed) all[s->ntimed_all++] = r->cc.c.ratio;
    const char *p = any_side(r)->plugin;
    if (!s->nplugins || strcmp(s->plugins[s->nplugins - 1], p) != 0) { /* rows are by plugin */
      s->plugins = xrealloc(s->plugins, (s->nplugins + 1) * sizeof *s->plugins);
      s->geomean = xrealloc(s->geomean, (s->nplugins + 1) * sizeof *s->geomean);
      s->ntimed = xrealloc(s->ntimed, (s->nplugins + 1) * sizeof *s->ntimed);
      s->plugins[s->nplugins] = xstrdup(p);
      size_t k = 0;
      for (size_t j = i; j < n && strcmp(any_side(&rows[j])->plugin, p) == 0; j++)
        if (rows[j].cc.timed) mine[k++] = rows[j].cc.c.ratio;
      s->geomean[s->nplugins] = cs_geomean(mine, k);
      s->ntimed[s->nplugins] = k;
      s->nplugins++;
    }
    int fails = (r->cc.verdict == V_SLOWER && (fail_on & FAIL_SLOWER)) ||
                (verdict_is_failure(r->cc.verdict) && (fail_on & FAIL_WRONG)) ||
                (r->cc.verdict == V_MISSING && (fail_on & FAIL_MISSING)) ||
                (r->cc.verdict == V_NOISY && (fail_on & FAIL_NOISY));
    if (fails) s->exit_status = EXIT_FAILED;
  }
  s->overall = cs_geomean(all, s->ntimed_all);
  free(all);
  free(mine);
}

static void summary_release(struct summary *s) {
  for (size_t i = 0; i < s->nplugins; i++) free(s->plugins[i]);
  free(s->plugins);
  free(s->geomean);
  free(s->ntimed);
}

static char *summary_text(const struct summary *s, size_t n, double threshold, int md) {
  struct strbuf sb = STRBUF_INIT;
  strbuf_addf(&sb, "%s%zu cases:", md ? "**" : "", n);
  const char *sep = " ";
  for (int v = 0; v < V_COUNT; v++)
    if (s->counts[v]) {
      strbuf_addf(&sb, "%s%zu %s", sep, s->counts[v], verdict_name((enum verdict)v));
      sep = ", ";
    }
  strbuf_addf(&sb, "%s (threshold %g%%, 95%% intervals)\n", md ? "**" : "", threshold * 100);
  if (md) strbuf_adds(&sb, "\n");
  if (!s->ntimed_all) {
    strbuf_adds(&sb, "geometric mean of new/old: no case timed on both sides\n");
    return strbuf_detach(&sb);
  }
  strbuf_adds(&sb, "geometric mean of new/old (cases timed on both sides):\n");
  for (size_t i = 0; i < s->nplugins; i++)
    if (s->ntimed[i]) {
      strbuf_adds(&sb, md ? "- " : "  ");
      if (md) table_md_escape_add(&sb, s->plugins[i]);
      else term_escape_add(&sb, s->plugins[i]);
      char *g = fmt_fixed(s->geomean[i], 3);
      strbuf_addf(&sb, " %s (%zu)\n", g, s->ntimed[i]);
      free(g);
    }
  char *g = fmt_fixed(s->overall, 3);
  strbuf_addf(&sb, "%soverall %s (%zu)\n", md ? "- **" : "  ", g, s->ntimed_all);
  free(g);
  if (md) { /* close the bold */
    sb.len--;
    strbuf_adds(&sb, "**\n");
  }
  return strbuf_detach(&sb);
}

/* ---- output ------------------------------------------------------------- */

static char *ci_text(const struct case_compare *cc) {
  if (!cc->timed) return xstrdup("-");
  char *lo = fmt_fixed(cc->c.lo, 3), *hi = fmt_fixed(cc->c.hi, 3);
  char *s = xasprintf("[%s, %s]", lo, hi);
  free(lo);
  free(hi);
  return s;
}

static char *p_text(const struct case_compare *cc) {
  if (!cc->timed) return xstrdup("-");
  return cc->c.p < 0.001 ? xstrdup("<0.001") : xasprintf("%.3f", cc->c.p);
}

static void batch_note(const struct row *rows, size_t n, int md);
static void term_note(const struct row *rows, size_t n, int md);

static void output_table(const struct row *rows, size_t n, const struct compare_opts *o,
                         const struct summary *s) {
  int tags = any_tag(rows, n);
  enum table_format f = strcmp(o->format, "md") == 0 ? TABLE_MD : strcmp(o->format, "csv") == 0 ? TABLE_CSV : TABLE_TEXT;
  int csv = f == TABLE_CSV;
  static const char *const titles_txt[] = {"plugin", "params", "tag", "old", "new", "ratio", "95% CI", "p", "verdict"};
  static const int right_txt[] = {0, 0, 0, 1, 1, 1, 0, 1, 0};
  static const char *const titles_csv[] = {"plugin", "params", "tag", "old_status", "new_status", "old_median_ns",
                                           "new_median_ns", "ratio", "ci_lo", "ci_hi", "p", "verdict",
                                           "old_runs", "old_term", "old_between", "new_runs", "new_term",
                                           "new_between", "old_machine", "new_machine"};
  /* the text table leaves out the tag column when no case has a tag */
  const char *titles[20];
  int right[20];
  size_t nc = 0;
  for (size_t c = 0; c < (csv ? 20u : 9u); c++) {
    if (!csv && !tags && c == 2) continue;
    titles[nc] = csv ? titles_csv[c] : titles_txt[c];
    right[nc++] = csv ? 0 : right_txt[c];
  }
  struct text_table t;
  table_init(&t, nc, titles, right);
  for (size_t i = 0; i < n; i++) {
    const struct row *r = &rows[i];
    const struct rs_entry *e = any_side(r);
    double mo = side_median(r->old, &r->cc, 1), mn = side_median(r->new_, &r->cc, 0);
    char *cells[20] = {0};
    size_t k = 0;
    cells[k++] = xstrdup(e->plugin);
    cells[k++] = xstrdup(*e->params || csv ? e->params : "-");
    if (csv || tags)
      cells[k++] = r->old && r->new_ && strcmp(r->old->tag, r->new_->tag)
                       ? xasprintf("%s -> %s", r->old->tag, r->new_->tag)
                       : xstrdup(e->tag);
    if (csv) {
      cells[k++] = xstrdup(r->old ? case_status_name(r->old->r->status) : "");
      cells[k++] = xstrdup(r->new_ ? case_status_name(r->new_->r->status) : "");
      cells[k++] = isfinite(mo) ? xasprintf("%.17g", mo) : xstrdup("");
      cells[k++] = isfinite(mn) ? xasprintf("%.17g", mn) : xstrdup("");
      cells[k++] = r->cc.timed ? xasprintf("%.17g", r->cc.c.ratio) : xstrdup("");
      cells[k++] = r->cc.timed ? xasprintf("%.17g", r->cc.c.lo) : xstrdup("");
      cells[k++] = r->cc.timed ? xasprintf("%.17g", r->cc.c.hi) : xstrdup("");
      cells[k++] = r->cc.timed ? xasprintf("%.6g", r->cc.c.p) : xstrdup("");
    } else {
      cells[k++] = r->old ? (isfinite(mo) ? fmt_time_ns(mo) : xstrdup(case_status_name(r->old->r->status))) : xstrdup("-");
      cells[k++] = r->new_ ? (isfinite(mn) ? fmt_time_ns(mn) : xstrdup(case_status_name(r->new_->r->status))) : xstrdup("-");
      cells[k++] = r->cc.timed ? fmt_fixed(r->cc.c.ratio, 3) : xstrdup("-");
      cells[k++] = ci_text(&r->cc);
      cells[k++] = p_text(&r->cc);
    }
    cells[k++] = xstrdup(verdict_name(r->cc.verdict));
    if (csv) {
      const struct cs_noise *nz[2] = {&r->cc.old_noise, &r->cc.new_noise};
      for (int side = 0; side < 2; side++) {
        cells[k++] = r->cc.timed ? xasprintf("%zu", nz[side]->runs) : xstrdup("");
        cells[k++] = xstrdup(r->cc.timed ? cs_term_name(nz[side]->term) : "");
        cells[k++] = r->cc.timed ? xasprintf("%.6g", nz[side]->sigma) : xstrdup("");
      }
      /* the machine each side's newest run recorded (the default's choice) */
      for (int side = 0; side < 2; side++)
        cells[k++] = xstrdup(r->cc.timed ? cs_machine_name(nz[side]->machine) : "");
    }
    size_t row = table_add_row(&t, cells);
    if (!csv) table_set_colour(&t, row, k - 1, verdict_colour(r->cc.verdict));
  }
  char *text = table_render(&t, f, o->colour);
  fputs(text, stdout);
  free(text);
  table_release(&t);
  if (!csv) {
    printf("\n");
    size_t unmatched = s->counts[V_MISSING] + s->counts[V_NEW];
    if (unmatched) {
      printf("%s%zu unmatched: %zu only in old (MISSING), %zu only in new (NEW)%s\n", f == TABLE_MD ? "_" : "",
             unmatched, s->counts[V_MISSING], s->counts[V_NEW], f == TABLE_MD ? "_\n" : "");
    }
    char *sum = summary_text(s, n, o->threshold, f == TABLE_MD);
    fputs(sum, stdout);
    free(sum);
    if (f != TABLE_MD)
      printf("ratio = new/old median time per iteration (below 1 is faster); p: Mann-Whitney U\n");
    batch_note(rows, n, f == TABLE_MD);
    term_note(rows, n, f == TABLE_MD);
  }
}

/* A case timed with another batch (iterations per sample) on each side was
 * measured differently by the harness: say so, since its ratio may come
 * from the method and not from the kernel. */
static int batch_differs(const struct row *r) {
  return r->cc.timed && r->old->r->batch > 0 && r->new_->r->batch > 0 && r->old->r->batch != r->new_->r->batch;
}

static void batch_note(const struct row *rows, size_t n, int md) {
  size_t count = 0;
  for (size_t i = 0; i < n; i++) count += batch_differs(&rows[i]);
  if (!count) return;
  printf("%snote: %zu case%s timed with a different batch (iterations per sample) in old and new, so their ratio "
         "may come from how they were measured:",
         md ? "\n" : "", count, count > 1 ? "s" : "");
  size_t shown = 0;
  for (size_t i = 0; i < n && shown < 10; i++)
    if (batch_differs(&rows[i])) {
      const struct rs_entry *e = rows[i].new_;
      struct strbuf name = STRBUF_INIT;
      if (md) {
        table_md_escape_add(&name, e->plugin);
        if (*e->params) strbuf_adds(&name, " ");
        table_md_escape_add(&name, e->params);
      } else {
        term_escape_add(&name, e->plugin);
        if (*e->params) strbuf_adds(&name, " ");
        term_escape_add(&name, e->params);
      }
      printf("%s %s (%d -> %d)", shown ? "," : "", name.buf ? name.buf : "", rows[i].old->r->batch, e->r->batch);
      strbuf_release(&name);
      shown++;
    }
  printf("%s\n", count > shown ? ", ..." : "");
}

/* "a + b%/sqrt(samples)" of the default sigma on a machine in state m. */
static char *default_figure(enum cs_machine m) {
  double inf = cs_between_default_on("cpu", (size_t)-1, m), one = cs_between_default_on("cpu", 1, m);
  char *a = fmt_fixed(100.0 * inf, 0), *b = fmt_fixed(100.0 * (one - inf), 0);
  char *s = xasprintf("%s%% + %s%%/sqrt(samples)", a, b);
  free(a);
  free(b);
  return s;
}

/* The default term's figures and the machine each side's runs saw (their
 * headers' steadiness: a steady run takes the smaller figure, except for a
 * case it timed too briefly, compare_stats.h CS_STEADY_MIN_TIMED_S). */
enum { DM_UNKNOWN, DM_BUSY, DM_STEADY, DM_BRIEF, DM_KINDS };
static void default_note(const struct row *rows, size_t n) {
  size_t dm[2][DM_KINDS] = {{0}};
  for (size_t i = 0; i < n; i++) {
    if (!rows[i].cc.timed) continue;
    const struct cs_noise *nz[2] = {&rows[i].cc.old_noise, &rows[i].cc.new_noise};
    for (int side = 0; side < 2; side++)
      if (nz[side]->term == CS_TERM_DEFAULT) dm[side][nz[side]->brief ? DM_BRIEF : (int)nz[side]->machine]++;
  }
  size_t steady = dm[0][DM_STEADY] + dm[1][DM_STEADY], all = 0;
  for (int m = 0; m < DM_KINDS; m++) all += dm[0][m] + dm[1][m];
  size_t other = all - steady;
  char *fs = default_figure(CS_MACHINE_STEADY), *fb = default_figure(CS_MACHINE_BUSY);
  printf(" (default: ");
  if (steady && other)
    printf("%s of a run's median where its run was steady, %s where busy, not recorded or the case timed under %gs",
           fs, fb, CS_STEADY_MIN_TIMED_S);
  else printf("%s of a run's median", steady ? fs : fb);
  free(fs);
  free(fb);
  static const char *const word[DM_KINDS] = {"not recorded", "busy", "steady", "steady, cases timed under"};
  int both_same = -1; /* both sides' default runs all in one state: "both runs steady" */
  for (int m = 0; m < DM_KINDS; m++)
    if (dm[0][m] && dm[1][m] && dm[0][m] + dm[1][m] == all) both_same = m;
  if (both_same >= 0) {
    printf(": both runs %s", word[both_same]);
    if (both_same == DM_BRIEF) printf(" %gs", CS_STEADY_MIN_TIMED_S);
  } else {
    static const char *const side_name[2] = {"old", "new"};
    const char *sep = ": ";
    for (int side = 0; side < 2; side++) {
      size_t kinds = 0, total = 0;
      for (int m = 0; m < DM_KINDS; m++) kinds += dm[side][m] > 0, total += dm[side][m];
      if (!total) continue;
      printf("%s%s run%s ", sep, side_name[side], kinds == 1 ? "" : "s");
      const char *sep2 = "";
      for (int m = DM_KINDS - 1; m >= 0; m--)
        if (dm[side][m]) {
          if (kinds == 1) printf("%s", word[m]);
          else printf("%s%zu %s", sep2, dm[side][m], word[m]);
          if (m == DM_BRIEF) printf(" %gs", CS_STEADY_MIN_TIMED_S);
          sep2 = ", ";
        }
      sep = "; ";
    }
  }
  printf("; earlier runs of a case in the folder, or several runs of it that day, replace it)");
}

/* Which between-run term widened the intervals (compare_stats.h), counted
 * per side, and the cases the minimum of samples held back. */
static void term_note(const struct row *rows, size_t n, int md) {
  size_t count[2][4] = {{0}}, few = 0, unsettled = 0, timed = 0;
  for (size_t i = 0; i < n; i++) {
    if (!rows[i].cc.timed) continue;
    timed++;
    count[0][rows[i].cc.old_noise.term]++;
    count[1][rows[i].cc.new_noise.term]++;
    few += rows[i].cc.few_samples;
    unsettled += rows[i].cc.unsettled;
  }
  if (!timed) return;
  printf("%sbetween-run term (how far a run's level moves from run to run, added to each interval):", md ? "\n" : "");
  static const char *const side_name[2] = {"old", "new"};
  for (int side = 0; side < 2; side++) {
    printf("%s %s", side ? ";" : "", side_name[side]);
    const char *sep = " ";
    for (int t = CS_TERM_POOLED; t >= CS_TERM_NONE; t--)
      if (count[side][t]) {
        printf("%s%zu %s", sep, count[side][t], cs_term_name((enum cs_term)t));
        sep = ", ";
      }
  }
  if (count[0][CS_TERM_DEFAULT] || count[1][CS_TERM_DEFAULT]) default_note(rows, n);
  printf("\n");
  if (few)
    printf("%snote: %zu case%s NOISY rather than FASTER/SLOWER: fewer than %d samples on a side\n", md ? "\n" : "",
           few, few > 1 ? "s" : "", CS_MIN_SAMPLES);
  if (unsettled)
    printf("%snote: %zu case%s NOISY rather than FASTER/SLOWER: a run that did not settle (reach its noise target) "
           "and no earlier runs to show how far its level moves\n",
           md ? "\n" : "", unsettled, unsettled > 1 ? "s" : "");
}

static json_t *jnum_or_null(int have, double v) {
  return have && isfinite(v) ? json_real(v) : json_null();
}

static json_t *side_json(const struct rs_entry *e, double median, const struct case_compare *cc,
                         const struct cs_noise *nz) {
  if (!e) return json_null();
  json_t *o = json_object();
  json_object_set_new(o, "status", json_string(case_status_name(e->r->status)));
  json_object_set_new(o, "median_ns", jnum_or_null(1, median));
  json_object_set_new(o, "samples", json_integer((json_int_t)e->r->nsamples));
  json_object_set_new(o, "batch", json_integer(e->r->batch));
  json_object_set_new(o, "date", json_string(e->date));
  json_object_set_new(o, "file", json_string(e->path));
  if (cc->timed) {
    json_t *b = json_object();
    json_object_set_new(b, "term", json_string(cs_term_name(nz->term)));
    json_object_set_new(b, "sigma", json_real(nz->sigma));
    json_object_set_new(b, "machine", json_string(cs_machine_name(nz->machine)));
    json_object_set_new(b, "brief", json_boolean(nz->brief));
    json_object_set_new(b, "df", isfinite(nz->df) ? json_real(nz->df) : json_null());
    json_object_set_new(b, "runs", json_integer((json_int_t)nz->runs));
    json_object_set_new(b, "history_runs", json_integer((json_int_t)nz->history));
    json_object_set_new(b, "samples", json_integer((json_int_t)nz->samples));
    json_object_set_new(o, "between_run", b);
  }
  return o;
}

static void output_json(const struct row *rows, size_t n, const struct compare_opts *o, const struct summary *s) {
  json_t *root = json_object();
  json_object_set_new(root, "schema", json_string("bench-compare/1"));
  json_object_set_new(root, "old", json_string(o->old_path));
  json_object_set_new(root, "new", json_string(o->new_path));
  json_object_set_new(root, "threshold", json_real(o->threshold));
  json_object_set_new(root, "min_samples", json_integer(CS_MIN_SAMPLES));
  json_t *cases = json_array();
  for (size_t i = 0; i < n; i++) {
    const struct row *r = &rows[i];
    const struct rs_entry *e = any_side(r);
    json_t *c = json_object();
    json_object_set_new(c, "plugin", json_string(e->plugin));
    json_t *params = json_object();
    for (size_t k = 0; k < e->r->nparams; k++)
      json_object_set_new(params, e->r->params[k].key, json_string(e->r->params[k].value));
    json_object_set_new(c, "params", params);
    json_object_set_new(c, "tag", json_string(e->tag));
    json_object_set_new(c, "old", side_json(r->old, side_median(r->old, &r->cc, 1), &r->cc, &r->cc.old_noise));
    json_object_set_new(c, "new", side_json(r->new_, side_median(r->new_, &r->cc, 0), &r->cc, &r->cc.new_noise));
    json_object_set_new(c, "timer", r->cc.timed ? json_string(r->cc.device ? "device" : "host") : json_null());
    json_object_set_new(c, "ratio", jnum_or_null(r->cc.timed, r->cc.c.ratio));
    json_object_set_new(c, "ci_lo", jnum_or_null(r->cc.timed, r->cc.c.lo));
    json_object_set_new(c, "ci_hi", jnum_or_null(r->cc.timed, r->cc.c.hi));
    json_object_set_new(c, "p", jnum_or_null(r->cc.timed, r->cc.c.p));
    json_object_set_new(c, "verdict", json_string(verdict_name(r->cc.verdict)));
    json_object_set_new(c, "few_samples", json_boolean(r->cc.few_samples));
    json_object_set_new(c, "unsettled", json_boolean(r->cc.unsettled));
    json_array_append_new(cases, c);
  }
  json_object_set_new(root, "cases", cases);
  json_t *sum = json_object(), *counts = json_object(), *gm = json_object();
  for (int v = 0; v < V_COUNT; v++)
    json_object_set_new(counts, verdict_name((enum verdict)v), json_integer((json_int_t)s->counts[v]));
  for (size_t i = 0; i < s->nplugins; i++)
    json_object_set_new(gm, s->plugins[i], jnum_or_null(s->ntimed[i] > 0, s->geomean[i]));
  json_object_set_new(sum, "counts", counts);
  json_object_set_new(sum, "geomean", gm);
  json_object_set_new(sum, "geomean_overall", jnum_or_null(s->ntimed_all > 0, s->overall));
  json_object_set_new(sum, "exit_status", json_integer(s->exit_status));
  json_object_set_new(root, "summary", sum);
  char *text = json_dumps(root, JSON_PRESERVE_ORDER | JSON_INDENT(2) | JSON_REAL_PRECISION(17) | JSON_ENSURE_ASCII);
  json_decref(root);
  if (text) printf("%s\n", text);
  free(text);
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
  int with_tag = !o.old_sel.tag && !o.new_sel.tag && rs_tags_overlap(&old, &new_);
  size_t n;
  struct row *rows = match(&old, &new_, with_tag, o.threshold, &n);
  struct summary s;
  summarise(rows, n, o.fail_on, &s);
  if (strcmp(o.format, "json") == 0) output_json(rows, n, &o, &s);
  else output_table(rows, n, &o, &s);
  fflush(stdout);
  exit_status = s.exit_status;
  summary_release(&s);
  free(rows);
out:
  result_set_release(&new_);
out_old:
  result_set_release(&old);
out_none:
  free(o.paths);
  free(o.plugins);
  return exit_status;
}
