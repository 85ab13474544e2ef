/* What a program says about its commands besides --help, generated from
 * their option tables (parse_options.h) so it can never disagree with them:
 * a man page (roff), the same in Markdown, and a bash completion script.
 * The program's own words (its name, what it is, where each document comes
 * from) come in struct doc_program; bench's are in cli/cmd_help.c. */
#ifndef BENCH_OPTIONS_DOC_H
#define BENCH_OPTIONS_DOC_H

#include <stdio.h>

#include "core/parse_options.h"

struct doc_program {
  const char *name;         /* "bench": its commands are "bench CMD"; the man page is NAME(1) */
  const char *version;      /* in the man page's header */
  const char *whatis;       /* the man page's NAME line: "NAME \- WHATIS" */
  const char *see_also;     /* the man page's SEE ALSO paragraph */
  const char *default_name; /* what completion calls the command named "" ("run") */
  const char *man_note;     /* each document's first comment: where it came from */
  const char *md_note;
  const char *bash_note;
  /* NULL-terminated, in the order the documents list them. The first is the
   * program itself (name ""); its description opens the documents, and a
   * command with the same option table says it takes the program's options. */
  const struct cmd_spec *const *commands;
};

/* The man page, roff. */
void doc_print_man(FILE *f, const struct doc_program *p);
/* The same in Markdown: a table of the commands, then each with its
 * synopsis, prose and options. */
void doc_print_markdown(FILE *f, const struct doc_program *p);
/* A bash completion script: commands, options and their values. */
void doc_print_bash(FILE *f, const struct doc_program *p);

#endif
