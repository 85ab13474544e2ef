/* The summary after a run's case lines (see run_summary.h). */
#include "results/run_summary.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backend/validation_tally.h"
#include "core/term.h"
#include "core/units.h"
#include "core/util.h"
#include "results/case_line.h"
#include "results/steady_warn.h"

struct summary_case {
  const struct bench_plugin *pl;
  struct case_result r; /* identity, status, message, median, settled, work only */
  int throttled;        /* the throttle rule marked it (telemetry) */
  char *throttled_by;
};

void run_summary_add(struct run_summary *s, const struct bench_plugin *pl, const struct case_result *r) {
  s->cases = xrealloc(s->cases, (s->n + 1) * sizeof *s->cases);
  struct summary_case *c = &s->cases[s->n++];
  c->pl = pl;
  struct case_result *d = &c->r;
  case_result_init(d);
  d->plugin = xstrdup(r->plugin);
  for (size_t j = 0; j < r->nparams; j++) kv_list_add(&d->nparams, &d->params, r->params[j].key, r->params[j].value);
  for (size_t j = 0; j < r->ninfo; j++) kv_list_add(&d->ninfo, &d->info, r->info[j].key, r->info[j].value);
  d->index = r->index;
  d->status = r->status;
  d->message = r->message ? xstrdup(r->message) : NULL;
  d->settled = r->settled;
  d->target_noise = r->target_noise;
  memcpy(d->stop_rule, r->stop_rule, sizeof d->stop_rule);
  d->flops = r->flops;
  d->bytes = r->bytes;
  d->items = r->items;
  d->host_clock = r->host_clock;
  d->device = r->device;
  c->throttled = r->telemetry && r->telemetry->throttled;
  c->throttled_by = c->throttled && r->telemetry->throttled_by[0] ? xstrdup(r->telemetry->throttled_by) : NULL;
}

/* A case whose time can be compared with its neighbours': OK, and not
 * measured on a throttled GPU. */
static int comparable(const struct summary_case *c) { return c->r.status == CASE_OK && !c->throttled; }

const char *plural(long n, const char *one, const char *many) { return n == 1 ? one : many; }

/* An implementation parameter: a string with choices that is not the data
 * type (variant, isa, kernel...). */
static int impl_param(const struct bench_plugin *pl, const char *name) {
  if (strcmp(name, "dtype") == 0) return 0;
  for (const struct bench_param *q = pl->params; q && q->name; q++)
    if (strcmp(q->name, name) == 0) return q->type == BENCH_PARAM_STRING && q->choices;
  return 0;
}

static int same_figure(double x, double y) { return x == y || fabs(x - y) <= 1e-9 * fmax(fabs(x), fabs(y)); }

/* Do a and b (same plugin) agree on every parameter but skip, and do the
 * same work (an implementation choice changes how, not what: cases whose
 * FLOPs, bytes or items differ, as an FMA peak's ISAs or a bandwidth peak's
 * kernels do, are not set against each other by time)? */
static int same_but(const struct case_result *a, const struct case_result *b, size_t skip) {
  if (a->nparams != b->nparams) return 0;
  if (!same_figure(a->flops, b->flops) || !same_figure(a->bytes, b->bytes) || !same_figure(a->items, b->items))
    return 0;
  for (size_t j = 0; j < a->nparams; j++)
    if (j != skip && strcmp(a->params[j].value, b->params[j].value) != 0) return 0;
  return 1;
}

/* Does parameter j take one value over the plugin's cases [first, end)? */
static int constant(const struct run_summary *s, size_t first, size_t end, size_t j) {
  for (size_t i = first + 1; i < end; i++)
    if (s->cases[i].r.nparams > j && strcmp(s->cases[i].r.params[j].value, s->cases[first].r.params[j].value) != 0)
      return 0;
  return 1;
}

/* "(m=n=k=512, f32)": the parameters of r other than skip that vary in the
 * plugin's run. */
static char *context(const struct run_summary *s, size_t first, size_t end, const struct case_result *r, size_t skip) {
  struct case_result c;
  case_result_init(&c);
  c.plugin = xstrdup("");
  for (size_t j = 0; j < r->nparams; j++)
    if (j != skip && !constant(s, first, end, j)) kv_list_add(&c.nparams, &c.params, r->params[j].key, r->params[j].value);
  char *label = case_line_label(&c);
  case_result_release(&c);
  struct strbuf sb = STRBUF_INIT;
  if (label[0]) {
    strbuf_adds(&sb, " (");
    for (const char *p = label + 1; *p; p++)
      if (*p == ' ') strbuf_adds(&sb, ", ");
      else strbuf_add(&sb, p, 1);
    strbuf_adds(&sb, ")");
  }
  free(label);
  char *out = sb.len ? strbuf_detach(&sb) : xstrdup("");
  strbuf_release(&sb);
  return out;
}

static void relative_lines(const struct run_summary *s, FILE *out, int columns, size_t first, size_t end) {
  char *done = xcalloc(end - first, 1);
  const struct case_result *r0 = &s->cases[first].r;
  for (size_t j = 0; j < r0->nparams; j++) {
    if (!impl_param(s->cases[first].pl, r0->params[j].key)) continue;
    memset(done, 0, end - first);
    for (size_t a = first; a < end; a++) {
      if (done[a - first] || !comparable(&s->cases[a])) continue;
      /* The group of a: OK cases that differ from it only in parameter j. */
      size_t best = a, n = 0;
      for (size_t b = a; b < end; b++) {
        const struct case_result *rb = &s->cases[b].r;
        if (!comparable(&s->cases[b]) || !same_but(&s->cases[a].r, rb, j)) continue;
        done[b - first] = 1;
        n++;
        if (case_time(rb)->median < case_time(&s->cases[best].r)->median) best = b;
      }
      if (n < 2) continue;
      const struct case_result *rb = &s->cases[best].r;
      double tb = case_time(rb)->median;
      if (!(tb > 0)) continue;
      struct strbuf sb = STRBUF_INIT;
      strbuf_addf(&sb, "  %s: %s=%s is ", term_str(rb->plugin), term_str(rb->params[j].key),
                  term_str(rb->params[j].value));
      int k = 0;
      for (size_t b = a; b < end; b++) {
        const struct case_result *rc = &s->cases[b].r;
        if (b == best || !comparable(&s->cases[b]) || !same_but(&s->cases[a].r, rc, j)) continue;
        strbuf_addf(&sb, "%s%.2fx faster than %s", k++ ? ", " : "", case_time(rc)->median / tb,
                    term_str(rc->params[j].value));
      }
      char *ctx = context(s, first, end, rb, j);
      term_fit_printf(out, columns, 4, "%s%s", sb.buf, ctx);
      free(ctx);
      strbuf_release(&sb);
    }
  }
  free(done);
}

void run_summary_steady(struct run_summary *s, const struct run_steady *m) {
  char why[sizeof s->busy_why];
  double over = steady_warn_busy(m, why, sizeof why);
  if (over > s->busy) {
    s->busy = over;
    memcpy(s->busy_why, why, sizeof why);
  }
}

/* "  NOISY      [ 3/12] cpu_gemm m=n=k=64  +-565% (target 10%)": a case
 * that did not reach its noise target, by name, with its figure. */
static void noise_line(FILE *out, const struct case_result *r, int total, const struct case_line_style *st) {
  int noisy = case_line_noisy(r);
  char *label = case_line_label(r), *noise = case_line_noise_text(r);
  const char *on = st->colour && noisy ? TERM_WARN : "", *off = st->colour && noisy ? TERM_RESET : "";
  term_fit_printf(out, st->columns, 4, "  %s%-10s%s [%d/%d] %s  %s%s%s (target %g%%)", on, noisy ? "NOISY" : "unsettled", off,
           r->index + 1, total, label, on, *noise ? noise : "no figure", off, r->target_noise * 100);
  free(noise);
  free(label);
}

void run_summary_print(const struct run_summary *s, FILE *out, int total, const struct case_line_style *st) {
  int colour = st->colour, settle_said = st->settle_notes;
  size_t failed = 0, unsettled = 0, noisy = 0;
  for (size_t i = 0; i < s->n; i++) {
    const struct case_result *r = &s->cases[i].r;
    if (case_status_failed(r->status)) failed++;
    if (r->status == CASE_OK && !r->settled) unsettled++;
    if (case_line_noisy(r)) noisy++;
  }
  if (failed) {
    fprintf(out, "%zu failed %s:\n", failed, plural((long)failed, "case", "cases"));
    for (size_t i = 0; i < s->n; i++) {
      const struct case_result *r = &s->cases[i].r;
      if (!case_status_failed(r->status)) continue;
      char *label = case_line_label(r);
      term_fit_printf(out, st->columns, 4, "  %s%-12s%s [%d/%d] %s", colour ? TERM_RED_BOLD : "", case_status_name(r->status),
               colour ? TERM_RESET : "", r->index + 1, total, label);
      free(label);
    }
  }
  size_t throttled = 0;
  for (size_t i = 0; i < s->n; i++) throttled += s->cases[i].throttled != 0;
  if (throttled) {
    term_fit_printf(out, st->columns, 4, "%zu %s measured on a throttled GPU (kept, marked THROTTLED in the files; not compared):",
             throttled, plural((long)throttled, "case", "cases"));
    for (size_t i = 0; i < s->n; i++) {
      const struct summary_case *c = &s->cases[i];
      if (!c->throttled) continue;
      char *label = case_line_label(&c->r);
      term_fit_printf(out, st->columns, 4, "  %s%-12s%s [%d/%d] %s%s%s%s", colour ? TERM_RED_BOLD : "", "THROTTLED",
               colour ? TERM_RESET : "", c->r.index + 1, total, label, c->throttled_by ? " (" : "",
               c->throttled_by ? term_str(c->throttled_by) : "", c->throttled_by ? ")" : "");
      free(label);
    }
  }
  /* The cases that did not reach the noise target, by name: all of them
   * when their lines did not say it, else the noisy ones. */
  if (unsettled && !settle_said)
    term_fit_printf(out, st->columns, 4, "%zu %s did not reach the noise target (NOISY: over %dx it; why: the .txt, or "
                               "report_settle = true):",
             unsettled, plural((long)unsettled, "case", "cases"), CASE_NOISY_FACTOR);
  else if (noisy)
    term_fit_printf(out, st->columns, 4, "%zu noisy %s (the figure over %dx the noise target; kept, as measured):", noisy,
             plural((long)noisy, "case", "cases"), CASE_NOISY_FACTOR);
  for (size_t i = 0; i < s->n; i++) {
    const struct case_result *r = &s->cases[i].r;
    if (r->status == CASE_OK && !r->settled && (!settle_said || case_line_noisy(r))) noise_line(out, r, total, st);
  }
  for (size_t first = 0; first < s->n;) {
    size_t end = first + 1;
    while (end < s->n && s->cases[end].pl == s->cases[first].pl) end++;
    relative_lines(s, out, st->columns, first, end);
    first = end;
  }
  validation_tally_hint(out); /* cases that ran without their validation layer: once */
  if (s->busy > 0)
    term_fit_printf(out, st->columns, 4, "%sbench: warning: the machine was busy: %s%s", colour ? TERM_WARN : "", s->busy_why,
             colour ? TERM_RESET : "");
}

void run_summary_release(struct run_summary *s) {
  for (size_t i = 0; i < s->n; i++) {
    case_result_release(&s->cases[i].r);
    free(s->cases[i].throttled_by);
  }
  free(s->cases);
  memset(s, 0, sizeof *s);
}
