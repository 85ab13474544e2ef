/* A program's man page, Markdown page and bash completion, generated from
 * its commands' option tables (options_doc.h). */
#include "core/options_doc.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

/* The name a command goes by in documents: "bench" or "bench compare". */
static const char *full_name(const struct doc_program *p, const struct cmd_spec *c, char *buf, size_t len) {
  snprintf(buf, len, "%s%s%s", p->name, *c->name ? " " : "", c->name);
  return buf;
}

/* ---- roff ---------------------------------------------------------------- */

/* text escaped for roff: backslashes, '-' as \-, and a '.' or '\'' that
 * would start a line is kept from being read as a request. */
static void roff_text(FILE *f, const char *s) {
  int bol = 1;
  for (; *s; s++) {
    if (bol && (*s == '.' || *s == '\'')) fputs("\\&", f);
    if (*s == '\\') fputs("\\e", f);
    else if (*s == '-') fputs("\\-", f);
    else fputc(*s, f);
    bol = *s == '\n';
  }
}

/* Prose: its paragraphs (blank lines) as .PP. */
static void roff_prose(FILE *f, const char *text) {
  if (!text || !*text) return;
  fputs(".PP\n", f);
  for (const char *p = text; *p;) {
    size_t n = strcspn(p, "\n");
    if (n == 0) {
      fputs(".PP\n", f);
    } else {
      char *line = xstrndup(p, n);
      roff_text(f, line);
      fputc('\n', f);
      free(line);
    }
    p += n + (p[n] == '\n');
  }
}

static void roff_usage(FILE *f, const struct cmd_spec *c) {
  fputs(".nf\n", f);
  for (size_t i = 0; c->usage[i]; i++) {
    roff_text(f, c->usage[i]);
    fputc('\n', f);
  }
  fputs(".fi\n", f);
}

static void roff_options(FILE *f, const struct opt *o) {
  struct strbuf sb = STRBUF_INIT;
  for (; o->type != OPT_END; o++) {
    strbuf_reset(&sb);
    opt_synopsis(&sb, o);
    fputs(".TP\n.B ", f);
    roff_text(f, sb.buf);
    fputc('\n', f);
    roff_text(f, o->help);
    fputc('\n', f);
  }
  fputs(".TP\n.B \\-h, \\-\\-help\nshow this help\n", f);
  strbuf_release(&sb);
}

void doc_print_man(FILE *f, const struct doc_program *p) {
  const struct cmd_spec *const *cmds = p->commands;
  fprintf(f, ".\\\" %s\n.TH ", p->man_note);
  for (const char *s = p->name; *s; s++) fputc(toupper((unsigned char)*s), f);
  fprintf(f, " 1 \"\" \"%s %s\" \"User Commands\"\n.SH NAME\n", p->name, p->version);
  roff_text(f, p->name);
  fputs(" \\- ", f);
  roff_text(f, p->whatis);
  fputs("\n.SH SYNOPSIS\n.nf\n", f);
  for (const struct cmd_spec *const *c = cmds; *c; c++)
    for (size_t i = 0; (*c)->usage[i]; i++) {
      roff_text(f, (*c)->usage[i]);
      fputc('\n', f);
    }
  fputs(".fi\n.SH DESCRIPTION\n", f);
  roff_prose(f, cmds[0]->description);
  fputs(".SH COMMANDS\n", f);
  char name[64];
  for (const struct cmd_spec *const *c = cmds; *c; c++) {
    fprintf(f, ".TP\n.B %s\n", full_name(p, *c, name, sizeof name));
    roff_text(f, (*c)->summary);
    fputc('\n', f);
  }
  for (const struct cmd_spec *const *c = cmds; *c; c++) {
    fprintf(f, ".SH \"%s\"\n", c == cmds ? "OPTIONS" : full_name(p, *c, name, sizeof name));
    roff_usage(f, *c);
    if (c != cmds) roff_prose(f, (*c)->description);
    if (c != cmds && (*c)->options == cmds[0]->options) {
      fprintf(f, ".PP\nIt takes the options of %s (OPTIONS above).\n", p->name);
    } else {
      fputs(".SS Options\n", f);
      roff_options(f, (*c)->options);
    }
    roff_prose(f, (*c)->epilogue);
  }
  fputs(".SH \"SEE ALSO\"\n", f);
  roff_text(f, p->see_also);
  fputc('\n', f);
}

/* ---- Markdown ------------------------------------------------------------- */

/* Prose and help text for Markdown: characters that would format escaped. */
static void md_text(FILE *f, const char *s) {
  for (; *s; s++) {
    if (strchr("\\*_<>[]|#", *s)) fputc('\\', f);
    fputc(*s, f);
  }
}

static void md_prose(FILE *f, const char *text) {
  if (!text || !*text) return;
  md_text(f, text);
  fputs(text[strlen(text) - 1] == '\n' ? "\n" : "\n\n", f);
}

void doc_print_markdown(FILE *f, const struct doc_program *p) {
  const struct cmd_spec *const *cmds = p->commands;
  char name[64];
  struct strbuf sb = STRBUF_INIT;
  fprintf(f, "# %s(1): the command line\n\n<!-- %s -->\n\n", p->name, p->md_note);
  md_prose(f, cmds[0]->description);
  fputs("| command | what it does |\n|---|---|\n", f);
  for (const struct cmd_spec *const *c = cmds; *c; c++) {
    fprintf(f, "| [`%s`](#", full_name(p, *c, name, sizeof name));
    for (const char *s = name; *s; s++) fputc(*s == ' ' ? '-' : *s, f);
    fputs(") | ", f);
    md_text(f, (*c)->summary);
    fputs(" |\n", f);
  }
  for (const struct cmd_spec *const *c = cmds; *c; c++) {
    fprintf(f, "\n## %s\n\n```\n", full_name(p, *c, name, sizeof name));
    for (size_t i = 0; (*c)->usage[i]; i++) fprintf(f, "%s%s\n", i ? "       " : "usage: ", (*c)->usage[i]);
    fputs("```\n\n", f);
    if (c != cmds) md_prose(f, (*c)->description);
    if (c != cmds && (*c)->options == cmds[0]->options) {
      fprintf(f, "It takes the options of [`%s`](#%s).\n\n", p->name, p->name);
      md_prose(f, (*c)->epilogue);
      continue;
    }
    fputs("| option | meaning |\n|---|---|\n", f);
    for (const struct opt *o = (*c)->options; o->type != OPT_END; o++) {
      strbuf_reset(&sb);
      opt_synopsis(&sb, o);
      fputs("| `", f);
      for (const char *s = sb.buf; *s; s++) fputs(*s == '|' ? "\\|" : (char[]){*s, 0}, f);
      fputs("` | ", f);
      md_text(f, o->help);
      fputs(" |\n", f);
    }
    fputs("| `-h, --help` | show this help |\n\n", f);
    md_prose(f, (*c)->epilogue);
  }
  strbuf_release(&sb);
}

/* ---- bash completion -------------------------------------------------------- */

static int takes_value(const struct opt *o) {
  return o->type != OPT_FLAG;
}

static void bash_command_arm(FILE *f, const struct doc_program *p, const struct cmd_spec *c) {
  fprintf(f, "  %s)\n    opts='", *c->name ? c->name : p->default_name);
  for (const struct opt *o = c->options; o->type != OPT_END; o++)
    fprintf(f, "--%s %s%s%s", o->name, o->alias ? "--" : "", o->alias ? o->alias : "", o->alias ? " " : "");
  fputs("--help'\n    case $prev in\n", f);
  for (const struct opt *o = c->options; o->type != OPT_END; o++) {
    if (!takes_value(o)) continue;
    fprintf(f, "    --%s%s%s%s)", o->name, o->alias ? "|--" : "", o->alias ? o->alias : "",
            o->short_name ? (char[]){'|', '-', o->short_name, 0} : "");
    if (o->choices) {
      fputs(" words='", f);
      for (const char *const *w = o->choices; *w; w++) fprintf(f, "%s%s", w == o->choices ? "" : " ", *w);
      fputs("' ;;\n", f);
    } else {
      fputs(" value=1 ;;\n", f);
    }
  }
  fputs("    esac ;;\n", f);
}

void doc_print_bash(FILE *f, const struct doc_program *p) {
  const struct cmd_spec *const *cmds = p->commands;
  fprintf(f,
          "# %s\n"
          "_%s() {\n"
          "  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n"
          "  local cmd=%s opts='' words='' value='' commands='",
          p->bash_note, p->name, p->default_name);
  for (const struct cmd_spec *const *c = cmds; *c; c++)
    if (*(*c)->name) fprintf(f, "%s%s", c == cmds + 1 ? "" : " ", (*c)->name);
  fprintf(f,
          "'\n"
          "  if [ \"$COMP_CWORD\" -gt 1 ] && [[ \" $commands %s \" == *\" ${COMP_WORDS[1]} \"* ]]; then\n"
          "    cmd=${COMP_WORDS[1]}\n"
          "  fi\n"
          "  case $cmd in\n",
          p->default_name);
  for (const struct cmd_spec *const *c = cmds; *c; c++) bash_command_arm(f, p, *c);
  fprintf(f,
          "  esac\n"
          "  if [ -n \"$words\" ]; then\n"
          "    mapfile -t COMPREPLY < <(compgen -W \"$words\" -- \"$cur\")\n"
          "  elif [ -n \"$value\" ]; then\n"
          "    mapfile -t COMPREPLY < <(compgen -f -- \"$cur\")\n"
          "  elif [[ $cur == -* ]]; then\n"
          "    mapfile -t COMPREPLY < <(compgen -W \"$opts\" -- \"$cur\")\n"
          "  elif [ \"$COMP_CWORD\" -eq 1 ]; then\n"
          "    mapfile -t COMPREPLY < <(compgen -W \"$commands %s $opts\" -- \"$cur\")\n"
          "  else\n"
          "    mapfile -t COMPREPLY < <(compgen -f -- \"$cur\")\n"
          "  fi\n"
          "}\n"
          "complete -F _%s %s\n",
          p->default_name, p->name, p->name);
}
