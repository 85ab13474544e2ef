/* Parsing argv by a command's option table, its usage errors and its --help
 * (parse_options.h). Long options take "--name VALUE" or "--name=VALUE" and
 * may be shortened to any unambiguous prefix (as getopt_long allowed); short
 * ones "-o VALUE" or "-oVALUE"; "--" ends the options. */
#include "core/parse_options.h"

#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "core/suggest.h"

#define HELP_COL 24   /* the column option help starts in */
#define HELP_WIDTH 80 /* --help wraps its text to this width */

int usage_error(const struct cmd_spec *cmd, const char *fmt, ...) {
  char buf[2048];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  return error("%s (see bench %s%s--help)", buf, cmd->name, *cmd->name ? " " : "");
}

static const struct opt help_opt = {OPT_FLAG, "help", 'h', NULL, 0, 0, NULL, "show this help", NULL, 0, 0, NULL};

/* The option named by the long name s (len bytes): exact, else the only one
 * it is a prefix of. NULL and *ambiguous when several are. */
static const struct opt *find_long(const struct cmd_spec *cmd, const char *s, size_t len, int *ambiguous) {
  const struct opt *hit = NULL;
  int nhits = 0;
  *ambiguous = 0;
  for (const struct opt *o = cmd->options;; o++) {
    const struct opt *cur = o->type == OPT_END ? &help_opt : o;
    const char *names[2] = {cur->name, cur->alias};
    for (int k = 0; k < 2; k++) {
      if (!names[k] || strncmp(names[k], s, len) != 0) continue;
      if (names[k][len] == '\0') return cur;
      if (hit != cur) nhits++;
      hit = cur;
    }
    if (o->type == OPT_END) break;
  }
  *ambiguous = nhits > 1;
  return nhits == 1 ? hit : NULL;
}

static const struct opt *find_short(const struct cmd_spec *cmd, char c) {
  for (const struct opt *o = cmd->options; o->type != OPT_END; o++)
    if (o->short_name == c) return o;
  return c == 'h' ? &help_opt : NULL;
}

static int set_int(const struct cmd_spec *cmd, const struct opt *o, const char *arg, int *out) {
  char *end;
  long v = strtol(arg, &end, 10);
  if (*arg && !*end && v >= o->min && v <= o->max) {
    *out = (int)v;
    return 0;
  }
  if (o->max == INT_MAX) return usage_error(cmd, "--%s must be a whole number >= %d, not '%s'", o->name, o->min, arg);
  return usage_error(cmd, "--%s must be a whole number from %d to %d, not '%s'", o->name, o->min, o->max, arg);
}

static int set_choice(const struct cmd_spec *cmd, const struct opt *o, const char *arg, const char **out) {
  for (const char *const *w = o->choices; *w; w++)
    if (strcmp(*w, arg) == 0) {
      *out = *w;
      return 0;
    }
  struct strbuf sb = STRBUF_INIT;
  opt_words_or(&sb, o->choices);
  usage_error(cmd, "--%s must be %s, not '%s'", o->name, sb.buf, arg);
  strbuf_release(&sb);
  return -1;
}

/* Store arg (NULL for a flag) as o says. */
static int take(const struct cmd_spec *cmd, const struct opt *o, const char *arg, void *base) {
  void *field = (char *)base + o->off;
  switch (o->type) {
  case OPT_FLAG:
    if (o->cb) return o->cb(cmd, o, NULL, field); /* an action: --version */
    *(int *)field = 1;
    return 0;
  case OPT_STRING: *(const char **)field = arg; return 0;
  case OPT_LIST: {
    const char ***list = field;
    size_t *n = (size_t *)((char *)base + o->off_n);
    *list = xrealloc(*list, (*n + 1) * sizeof **list);
    (*list)[(*n)++] = arg;
    return 0;
  }
  case OPT_INT: return set_int(cmd, o, arg, field);
  case OPT_CHOICE: return set_choice(cmd, o, arg, field);
  case OPT_CALLBACK: return o->cb(cmd, o, arg, field);
  case OPT_END: break;
  }
  return -1;
}

/* "unknown option '--min-smaples'; did you mean '--min-samples'?", or
 * "ambiguous option '--min' (--min-samples, --min-time)": one line. */
static int unknown_long(const struct cmd_spec *cmd, const char *s, size_t len, int ambiguous) {
  size_t n = 0;
  for (const struct opt *o = cmd->options; o->type != OPT_END; o++) n += 1 + (o->alias != NULL);
  const char **names = xcalloc(n + 2, sizeof *names);
  n = 0;
  for (const struct opt *o = cmd->options; o->type != OPT_END; o++) {
    names[n++] = o->name;
    if (o->alias) names[n++] = o->alias;
  }
  names[n++] = help_opt.name;
  char *typed = xstrndup(s, len);
  struct strbuf sb = STRBUF_INIT;
  if (ambiguous) {
    strbuf_addf(&sb, "ambiguous option '--%s' (", typed);
    const char *sep = "";
    for (const struct opt *o = cmd->options; o->type != OPT_END; o++)
      if (strncmp(o->name, typed, len) == 0 || (o->alias && strncmp(o->alias, typed, len) == 0)) {
        strbuf_addf(&sb, "%s--%s", sep, o->name); /* each option once, by its name */
        sep = ", ";
      }
    strbuf_adds(&sb, ")");
  } else {
    strbuf_addf(&sb, "unknown option '--%s'", typed);
    suggest_add(&sb, typed, names, n, "--");
  }
  int rc = usage_error(cmd, "%s", sb.buf);
  strbuf_release(&sb);
  free(typed);
  free(names);
  return rc;
}

/* One "--name[=value]" at argv[*i]; may take the next argument as its value. */
static int parse_long(const struct cmd_spec *cmd, int argc, char **argv, int *i, void *base) {
  const char *s = argv[*i] + 2, *eq = strchr(s, '=');
  size_t len = eq ? (size_t)(eq - s) : strlen(s);
  int ambiguous;
  const struct opt *o = find_long(cmd, s, len, &ambiguous);
  if (!o) return unknown_long(cmd, s, len, ambiguous);
  if (o == &help_opt) {
    print_help(stdout, cmd);
    return PARSE_DONE;
  }
  if (o->type == OPT_FLAG) {
    if (eq) return usage_error(cmd, "option '--%s' takes no value", o->name);
    return take(cmd, o, NULL, base);
  }
  if (eq) return take(cmd, o, eq + 1, base);
  if (*i + 1 >= argc) return usage_error(cmd, "option '--%s' needs a value", o->name);
  return take(cmd, o, argv[++*i], base);
}

/* "-x", "-xVALUE" or "-x VALUE"; flags may be bundled (-hv). */
static int parse_short(const struct cmd_spec *cmd, int argc, char **argv, int *i, void *base) {
  for (const char *p = argv[*i] + 1; *p; p++) {
    const struct opt *o = find_short(cmd, *p);
    if (!o) return usage_error(cmd, "unknown option '-%c'", *p);
    if (o == &help_opt) {
      print_help(stdout, cmd);
      return PARSE_DONE;
    }
    if (o->type == OPT_FLAG) {
      if (take(cmd, o, NULL, base) != 0) return -1;
      continue;
    }
    if (p[1]) return take(cmd, o, p + 1, base);
    if (*i + 1 >= argc) return usage_error(cmd, "option '-%c' needs a value", *p);
    return take(cmd, o, argv[++*i], base);
  }
  return 0;
}

int parse_options(const struct cmd_spec *cmd, int argc, char **argv, void *base, int *nargs) {
  int n = 0, i = 1, rc = 0;
  for (; i < argc && rc == 0; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--") == 0) {
      i++;
      break;
    }
    if (a[0] != '-' || a[1] == '\0') { /* an argument ("-" is one: standard input) */
      argv[n++] = argv[i];
      if (!(cmd->flags & PARSE_PERMUTE)) {
        i++;
        break;
      }
      continue;
    }
    rc = a[1] == '-' ? parse_long(cmd, argc, argv, &i, base) : parse_short(cmd, argc, argv, &i, base);
  }
  if (rc != 0) return rc;
  while (i < argc) argv[n++] = argv[i++];
  *nargs = n;
  if (n > 0 && (cmd->flags & PARSE_NO_ARGS)) return usage_error(cmd, "unexpected argument '%s'", argv[0]);
  return 0;
}

void opt_words_or(struct strbuf *sb, const char *const *words) {
  for (size_t i = 0; words[i]; i++)
    strbuf_addf(sb, "%s%s", i == 0 ? "" : words[i + 1] ? ", " : " or ", words[i]);
}

void opt_synopsis(struct strbuf *sb, const struct opt *o) {
  if (o->short_name) strbuf_addf(sb, "-%c, ", o->short_name);
  strbuf_addf(sb, "--%s", o->name);
  if (o->alias) strbuf_addf(sb, ", --%s", o->alias);
  if (o->type == OPT_FLAG) return;
  strbuf_adds(sb, " ");
  if (o->argh) {
    strbuf_adds(sb, o->argh);
    return;
  }
  for (const char *const *w = o->choices; w && *w; w++) strbuf_addf(sb, "%s%s", w == o->choices ? "" : "|", *w);
}

/* text wrapped to HELP_WIDTH, every line indented by indent, the first
 * starting at column col (already printed). */
static void wrap(FILE *f, const char *text, int indent, int col) {
  const char *p = text;
  while (*p) {
    while (*p == ' ') p++;
    size_t w = strcspn(p, " \n");
    if (col > indent && col + 1 + (int)w > HELP_WIDTH) {
      fprintf(f, "\n%*s", indent, "");
      col = indent;
    } else if (col > indent) {
      fputc(' ', f);
      col++;
    }
    fprintf(f, "%.*s", (int)w, p);
    col += (int)w;
    p += w;
    if (*p == '\n') { /* a line break the text asks for */
      fprintf(f, "\n%*s", indent, "");
      col = indent;
      p++;
    }
  }
  fputc('\n', f);
}

/* Paragraphs ('\n\n' apart) as they are: prose is written with its breaks. */
static void print_prose(FILE *f, const char *text) {
  if (text && *text) fprintf(f, "\n%s%s", text, text[strlen(text) - 1] == '\n' ? "" : "\n");
}

void print_help(FILE *f, const struct cmd_spec *cmd) {
  for (size_t i = 0; cmd->usage[i]; i++) {
    const char *line = cmd->usage[i];
    if (line[0] == ' ') fprintf(f, "       %s\n", line);
    else fprintf(f, "%s%s\n", i == 0 ? "usage: " : "       ", line);
  }
  if (cmd->after_usage) cmd->after_usage(f);
  print_prose(f, cmd->description);
  fputc('\n', f);
  struct strbuf sb = STRBUF_INIT;
  for (const struct opt *o = cmd->options;; o++) {
    const struct opt *cur = o->type == OPT_END ? &help_opt : o;
    strbuf_reset(&sb);
    opt_synopsis(&sb, cur);
    fprintf(f, "  %s", sb.buf);
    int col = 2 + (int)sb.len;
    if (col + 2 > HELP_COL) {
      fprintf(f, "\n%*s", HELP_COL, "");
    } else {
      fprintf(f, "%*s", HELP_COL - col, "");
    }
    wrap(f, cur->help, HELP_COL, HELP_COL);
    if (o->type == OPT_END) break;
  }
  strbuf_release(&sb);
  print_prose(f, cmd->epilogue);
}
