/* A run's per-case lines on the terminal (run_lines.h). */
#include "run/run_lines.h"

#include <stdlib.h>
#include <string.h>

#include "core/term.h"
#include "core/util.h"
#include "results/run_summary.h"
#include "run/runner.h"

#define RESOLVED_SLACK 8
#define MIN_LABEL_COLUMN 20 /* narrower than this, labels take lines of their own */

/* What a plugin's lines leave out (the parameters its cases share that the
 * width needed): its note line, printed once before its first line. */
struct plugin_shown {
  char *note;
  int noted;
};

/* One backend's cases: SKIPPED lines held back while every one so far
 * skipped with the same reason. */
struct skip_fold {
  const char *backend;
  size_t nplugins, ncases, ended;
  char *first_plugin;  /* for the name pattern */
  size_t prefix;       /* the plugins' common name prefix */
  int mixed;           /* a case did something else: lines as they come */
  char *reason;        /* the reason every case so far gave */
  char **held;
  size_t nheld;
};

static int is_untuned(const struct case_def *c) {
  return c->note && strcmp(c->note, UNTUNED_NOTE) == 0;
}

/* The note without the untuned-default part ("a; default (...)" -> "a"),
 * or NULL when nothing is left; caller frees. */
static char *note_without_untuned(const char *note) {
  const char *u = strstr(note, UNTUNED_NOTE);
  if (!u) return xstrdup(note);
  size_t head = (size_t)(u - note);
  while (head > 0 && (note[head - 1] == ' ' || note[head - 1] == ';')) head--;
  const char *tail = u + strlen(UNTUNED_NOTE);
  while (*tail == ';' || *tail == ' ') tail++;
  char *out = xasprintf("%.*s%s%s", (int)head, note, head && *tail ? "; " : "", tail);
  if (!*out) {
    free(out);
    return NULL;
  }
  return out;
}

/* Does the line leave out parameter key of case c: a tunable left at its
 * default for want of a tuning entry, or a parameter the plugin's cases
 * all share that the width needed (said once on the plugin's note line)? */
static int left_out(const struct run_lines *l, const struct case_def *c, const char *key) {
  const unsigned char *omit = l->omit ? l->omit[c->plugin_index] : NULL;
  for (size_t j = 0; j < c->nvalues; j++) {
    if (strcmp(c->values[j].param->name, key) != 0) continue;
    return (is_untuned(c) && c->values[j].is_auto) || (omit && omit[j]);
  }
  return 0;
}

/* r (or the identity of case k when r is NULL) with only the parameters
 * its line shows; the kv arrays are malloc'd, the strings r's. */
static void shown_params(const struct run_lines *l, const struct case_def *c, const struct case_result *r,
                         struct case_result *view, struct kv **params) {
  *view = *r;
  *params = xcalloc(r->nparams + 1, sizeof **params);
  view->nparams = 0;
  for (size_t j = 0; j < r->nparams; j++)
    if (!left_out(l, c, r->params[j].key)) (*params)[view->nparams++] = r->params[j];
  view->params = *params;
}

/* The line of a case. Tunables left at their defaults because this device
 * has no tuning entry are not shown (they would push the problem's own
 * parameters off it), nor is the note that says so. A tuned case shows its
 * tuned values and its note. malloc'd. */
static char *render(struct run_lines *l, const struct case_result *r) {
  const struct case_def *c = &l->plan->cases.cases[r->index];
  struct case_result view;
  struct kv *params = NULL, *info = NULL;
  char *note = NULL;
  shown_params(l, c, r, &view, &params);
  if (is_untuned(c)) {
    l->untuned++;
    info = xcalloc(r->ninfo + 1, sizeof *info);
    view.ninfo = 0;
    for (size_t j = 0; j < r->ninfo; j++) {
      if (strcmp(r->info[j].key, "note") == 0) {
        note = note_without_untuned(r->info[j].value);
        if (!note) continue;
        info[view.ninfo++] = (struct kv){r->info[j].key, note};
      } else {
        info[view.ninfo++] = r->info[j];
      }
    }
    view.info = info;
  }
  char *line = case_line(&view, l->total, &l->style);
  free(params);
  free(info);
  free(note);
  struct plugin_shown *ps = &l->shown[c->plugin_index];
  if (ps->note && !ps->noted) { /* the plugin's first line: what its lines leave out */
    ps->noted = 1;
    struct strbuf sb = STRBUF_INIT;
    char *text = xasprintf("%s%s%s", l->style.colour ? TERM_DIM : "", ps->note, l->style.colour ? TERM_RESET : "");
    term_fit_add(&sb, text, l->style.columns, 4);
    strbuf_addf(&sb, "\n%s", line);
    free(text);
    free(line);
    line = strbuf_detach(&sb);
  }
  return line;
}

char *run_lines_label_of(const struct run_lines *l, const struct case_result *r) {
  struct case_result view;
  struct kv *params;
  shown_params(l, &l->plan->cases.cases[r->index], r, &view, &params);
  char *label = case_line_label(&view);
  free(params);
  return label;
}

char *run_lines_label(const struct run_lines *l, int index) {
  const struct plan *p = l->plan;
  const struct case_def *c = &p->cases.cases[index];
  struct case_result id;
  case_identity(&id, p->plugins[c->plugin_index], c, index);
  char *label = run_lines_label_of(l, &id);
  case_result_release(&id);
  return label;
}

/* The widest label of plugin i's cases as their lines show them (values
 * as requested). */
static int widest_label(const struct run_lines *l, size_t i) {
  int widest = 0, seen = 0;
  for (size_t k = 0; k < l->plan->cases.n; k++) {
    if (l->plan->cases.cases[k].plugin_index != i) {
      if (seen) break; /* a plugin's cases are together, in run order */
      continue;
    }
    seen = 1;
    char *label = run_lines_label(l, (int)k);
    int w = (int)term_width(label);
    if (w > widest) widest = w;
    free(label);
  }
  return widest;
}

/* Plugin i's labels within room: leave out, last declared first, the
 * parameters every one of its cases has at one value, until its widest
 * label fits (never one that tells its cases apart); then its note line
 * "cpu_attention, every case: f32 threads=0" says what was left out. */
static int shorten(struct run_lines *l, size_t i, int room) {
  const struct plan *p = l->plan;
  const struct case_def *first = NULL;
  for (size_t k = 0; k < p->cases.n && !first; k++)
    if (p->cases.cases[k].plugin_index == i) first = &p->cases.cases[k];
  int widest = widest_label(l, i);
  if (!first) return widest;
  unsigned char *omit = l->omit[i];
  for (size_t j = first->nvalues; j-- > 0 && widest + RESOLVED_SLACK > room;) {
    int same = 1;
    for (size_t k = 0; k < p->cases.n && same; k++) {
      const struct case_def *c = &p->cases.cases[k];
      same = c->plugin_index != i || strcmp(c->values[j].text, first->values[j].text) == 0;
    }
    if (!same || left_out(l, first, first->values[j].param->name)) continue;
    omit[j] = 1;
    widest = widest_label(l, i);
  }
  struct case_result shared;
  case_result_init(&shared);
  shared.plugin = xstrdup(p->plugins[i]->desc->name);
  for (size_t j = 0; j < first->nvalues; j++)
    if (omit[j]) kv_list_add(&shared.nparams, &shared.params, first->values[j].param->name, first->values[j].text);
  if (shared.nparams) {
    char *label = case_line_label(&shared);
    const char *sp = strchr(label, ' ');
    l->shown[i].note = xasprintf("%s, every case:%s", term_str(p->plugins[i]->desc->name), sp ? sp : "");
    free(label);
  }
  case_result_release(&shared);
  return widest;
}

/* The run's one style: the line width of the output, labels shortened to
 * fit it where they must, one label column for every plugin (so that the
 * status column is the same on every line), the range of the samples
 * (min..max) only where the labels keep all of theirs with it (the files
 * always have min and max), and room for a resolved value longer than the
 * requested one (stores=auto ran as stores=nontemporal). */
static void plan_styles(struct run_lines *l, int colour) {
  const struct plan *p = l->plan;
  const struct run_policy *pol = &p->preset.policy;
  struct case_line_style *st = &l->style;
  st->colour = colour;
  st->columns = term_columns(fileno(l->out));
  st->determinism = pol->determinism;
  st->settle_notes = pol->report_settle > 0 || (pol->report_settle < 0 && pol->tier == BENCH_TIER_PERF);
  l->nplugins = p->nplugins;
  l->omit = xcalloc(p->nplugins + 1, sizeof *l->omit);
  l->shown = xcalloc(p->nplugins + 1, sizeof *l->shown);
  int prefix = case_line_prefix_width(l->total);
  st->range = 0;
  int room = st->columns - prefix - 2 - case_line_rest_width(st);
  st->range = 1;
  int room_range = st->columns - prefix - 2 - case_line_rest_width(st);
  /* a terminal too narrow for a label column: the labels have the line */
  int own_line = room < MIN_LABEL_COLUMN;
  int widest = 0;
  for (size_t i = 0; i < p->nplugins; i++) {
    size_t nvalues = 0;
    for (size_t k = 0; k < p->cases.n; k++)
      if (p->cases.cases[k].plugin_index == i) nvalues = p->cases.cases[k].nvalues;
    l->omit[i] = xcalloc(nvalues + 1, 1);
    int w = shorten(l, i, own_line ? st->columns - prefix : room) + RESOLVED_SLACK;
    if (w > widest) widest = w;
  }
  if (own_line) {
    st->label_line = 1; /* every label on its own line */
    st->range = prefix + case_line_rest_width(st) <= st->columns;
  } else if (widest <= room_range) {
    st->label_width = widest;
  } else if (widest <= room) {
    st->range = 0;
    st->label_width = widest;
  } else {
    st->range = 0;
    st->label_width = room; /* longer labels take a line of their own */
  }
}

static struct skip_fold *fold_of(struct run_lines *l, const char *backend) {
  for (size_t i = 0; i < l->nfolds; i++)
    if (strcmp(l->folds[i].backend, backend) == 0) return &l->folds[i];
  l->folds = xrealloc(l->folds, (l->nfolds + 1) * sizeof *l->folds);
  struct skip_fold *f = &l->folds[l->nfolds++];
  memset(f, 0, sizeof *f);
  f->backend = backend;
  return f;
}

/* Count each backend's plugins and cases, and the plugins' common name
 * prefix. */
static void plan_folds(struct run_lines *l) {
  const struct plan *p = l->plan;
  for (size_t i = 0; i < p->nplugins; i++) {
    const char *name = p->plugins[i]->desc->name;
    struct skip_fold *f = fold_of(l, p->plugins[i]->desc->backend);
    if (!f->nplugins++) {
      f->first_plugin = xstrdup(name);
      f->prefix = strlen(name);
    }
    size_t n = 0;
    while (n < f->prefix && name[n] == f->first_plugin[n]) n++;
    f->prefix = n;
  }
  for (size_t k = 0; k < p->cases.n; k++)
    fold_of(l, p->plugins[p->cases.cases[k].plugin_index]->desc->backend)->ncases++;
}

void run_lines_init(struct run_lines *l, const struct plan *p, FILE *out, int colour, int verbose) {
  memset(l, 0, sizeof *l);
  l->out = out;
  l->plan = p;
  l->total = (int)p->cases.n;
  l->verbose = verbose;
  plan_styles(l, colour);
  plan_folds(l);
}

static void emit(struct run_lines *l, char *line) {
  fputs(line, l->out);
  free(line);
  fflush(l->out);
}

static void release_held(struct skip_fold *f, struct run_lines *l, int print) {
  for (size_t i = 0; i < f->nheld; i++) {
    if (print) fputs(f->held[i], l->out);
    free(f->held[i]);
  }
  if (print && f->nheld) fflush(l->out);
  free(f->held);
  f->held = NULL;
  f->nheld = 0;
}

/* "cuda_* 10 plugins, 82 cases: SKIPPED, no CUDA device (...)". */
static void print_fold(struct run_lines *l, const struct skip_fold *f) {
  int colour = l->style.colour;
  struct strbuf who = STRBUF_INIT;
  if (f->nplugins == 1) strbuf_adds(&who, term_str(f->first_plugin));
  else if (f->prefix) {
    char *prefix = xstrndup(f->first_plugin, f->prefix);
    strbuf_addf(&who, "%s*", term_str(prefix));
    free(prefix);
  } else strbuf_addf(&who, "backend %s", term_str(f->backend));
  char *line = xasprintf("%s %zu %s, %zu %s: %sSKIPPED%s, %s", who.buf, f->nplugins,
                         plural((long)f->nplugins, "plugin", "plugins"), f->ncases,
                         plural((long)f->ncases, "case", "cases"), colour ? TERM_DIM : "", colour ? TERM_RESET : "",
                         term_str(f->reason));
  struct strbuf sb = STRBUF_INIT;
  term_fit_add(&sb, line, l->style.columns, 4);
  fprintf(l->out, "%s\n", sb.buf);
  fflush(l->out);
  free(line);
  strbuf_release(&sb);
  strbuf_release(&who);
}

/* The case's telemetry note, the first time the run sees it. */
static void telemetry_note(struct run_lines *l, const struct case_result *r) {
  const char *note = r->telemetry ? r->telemetry->note : "";
  if (!*note) return;
  for (size_t i = 0; i < l->ntelemetry_notes; i++)
    if (strcmp(l->telemetry_notes[i], note) == 0) return;
  l->telemetry_notes = xrealloc(l->telemetry_notes, (l->ntelemetry_notes + 1) * sizeof *l->telemetry_notes);
  l->telemetry_notes[l->ntelemetry_notes++] = xstrdup(note);
  int colour = l->style.colour;
  fprintf(l->out, "%sgpu telemetry: %s%s\n", colour ? TERM_DIM : "", term_str(note), colour ? TERM_RESET : "");
  fflush(l->out);
}

void run_lines_case(struct run_lines *l, const struct case_result *r) {
  telemetry_note(l, r);
  char *line = render(l, r);
  const struct plan *p = l->plan;
  struct skip_fold *f = fold_of(l, p->plugins[p->cases.cases[r->index].plugin_index]->desc->backend);
  f->ended++;
  const char *why = r->message ? r->message : "";
  int same = r->status == CASE_SKIPPED && (!f->reason || strcmp(f->reason, why) == 0);
  if (l->verbose || f->mixed || !same) {
    f->mixed = 1;
    release_held(f, l, 1);
    emit(l, line);
    return;
  }
  if (!f->reason) f->reason = xstrdup(why);
  f->held = xrealloc(f->held, (f->nheld + 1) * sizeof *f->held);
  f->held[f->nheld++] = line;
  if (f->ended < f->ncases) return;
  if (f->nheld > 1) print_fold(l, f);
  release_held(f, l, f->nheld == 1); /* one case: its own line says more */
}

void run_lines_flush(struct run_lines *l) {
  for (size_t i = 0; i < l->nfolds; i++) release_held(&l->folds[i], l, 1);
}

void run_lines_release(struct run_lines *l) {
  for (size_t i = 0; i < l->nfolds; i++) {
    release_held(&l->folds[i], l, 0);
    free(l->folds[i].first_plugin);
    free(l->folds[i].reason);
  }
  free(l->folds);
  for (size_t i = 0; l->omit && i < l->nplugins; i++) { /* the plan may be gone by now */
    free(l->omit[i]);
    free(l->shown[i].note);
  }
  free(l->omit);
  free(l->shown);
  for (size_t i = 0; i < l->ntelemetry_notes; i++) free(l->telemetry_notes[i]);
  free(l->telemetry_notes);
  memset(l, 0, sizeof *l);
}
