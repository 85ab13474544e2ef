/* A run's per-case lines on the terminal (run_lines.h). */
#include "run/run_lines.h"

#include <stdlib.h>
#include <string.h>

#include "core/term.h"
#include "core/util.h"
#include "results/run_summary.h"
#include "run/runner.h"

#define RESOLVED_SLACK 8

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

/* The line of a case. Tunables left at their defaults because this device
 * has no tuning entry are not shown (they would push the problem's own
 * parameters off it), nor is the note that says so. A tuned case shows its
 * tuned values and its note. malloc'd. */
static char *render(struct run_lines *l, const struct case_result *r) {
  const struct case_def *c = &l->plan->cases.cases[r->index];
  struct case_result view = *r;
  struct kv *params = NULL, *info = NULL;
  char *note = NULL;
  if (is_untuned(c)) {
    l->untuned++;
    params = xcalloc(r->nparams + 1, sizeof *params);
    view.nparams = 0;
    for (size_t j = 0; j < r->nparams; j++) {
      const struct case_value *v = case_find(c, r->params[j].key);
      if (v && v->is_auto) continue;
      params[view.nparams++] = r->params[j];
    }
    view.params = params;
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
  char *line = case_line(&view, l->total, &l->styles[c->plugin_index]);
  free(params);
  free(info);
  free(note);
  return line;
}

/* Each plugin's column widths: its widest case label as its line shows it
 * (values as requested; a resolved value a little longer is cut). */
static void plan_styles(struct run_lines *l, int colour) {
  const struct plan *p = l->plan;
  const struct run_policy *pol = &p->preset.policy;
  l->styles = xcalloc(p->nplugins + 1, sizeof *l->styles);
  int *widest = xcalloc(p->nplugins + 1, sizeof *widest);
  for (size_t k = 0; k < p->cases.n; k++) {
    const struct case_def *c = &p->cases.cases[k];
    struct case_result id;
    case_identity(&id, p->plugins[c->plugin_index], c, (int)k);
    if (is_untuned(c)) { /* as render shows it */
      size_t kept = 0;
      for (size_t j = 0; j < id.nparams; j++) {
        const struct case_value *v = case_find(c, id.params[j].key);
        if (v && v->is_auto) {
          free(id.params[j].key);
          free(id.params[j].value);
        } else {
          id.params[kept++] = id.params[j];
        }
      }
      id.nparams = kept;
    }
    char *label = case_line_label(&id);
    int w = (int)term_width(label);
    if (w > widest[c->plugin_index]) widest[c->plugin_index] = w;
    free(label);
    case_result_release(&id);
  }
  for (size_t i = 0; i < p->nplugins; i++) {
    struct case_line_style *st = &l->styles[i];
    st->colour = colour;
    st->determinism = pol->determinism;
    st->settle_notes = pol->report_settle > 0 || (pol->report_settle < 0 && pol->tier == BENCH_TIER_PERF);
    /* Room for a resolved value longer than the requested one
     * (stores=auto ran as stores=nontemporal), within the budget; the
     * range of the samples (min..max) only where the labels keep all of
     * theirs with it (the files always have min and max). */
    st->range = 1;
    st->label_width = case_line_label_width(widest[i] + RESOLVED_SLACK, l->total, st);
    if (st->label_width < widest[i] + RESOLVED_SLACK) {
      st->range = 0;
      st->label_width = case_line_label_width(widest[i] + RESOLVED_SLACK, l->total, st);
    }
  }
  free(widest);
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
  int colour = l->styles[0].colour;
  struct strbuf who = STRBUF_INIT;
  if (f->nplugins == 1) strbuf_adds(&who, term_str(f->first_plugin));
  else if (f->prefix) {
    char *prefix = xstrndup(f->first_plugin, f->prefix);
    strbuf_addf(&who, "%s*", term_str(prefix));
    free(prefix);
  } else strbuf_addf(&who, "backend %s", term_str(f->backend));
  fprintf(l->out, "%s %zu %s, %zu %s: %sSKIPPED%s, %s\n", who.buf, f->nplugins,
          plural((long)f->nplugins, "plugin", "plugins"), f->ncases, plural((long)f->ncases, "case", "cases"),
          colour ? TERM_DIM : "", colour ? TERM_RESET : "", term_str(f->reason));
  fflush(l->out);
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
  int colour = l->styles[0].colour;
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
  free(l->styles);
  for (size_t i = 0; i < l->ntelemetry_notes; i++) free(l->telemetry_notes[i]);
  free(l->telemetry_notes);
  memset(l, 0, sizeof *l);
}
