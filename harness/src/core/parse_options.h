/* Option tables in the shape of git's parse-options: each command declares
 * its options once, as a static array of struct opt, and everything a user
 * reads about them comes from that array: parsing, `bench CMD --help`, the
 * usage errors (one format, exit 2), bash completion, the man page bench(1)
 * and docs/cli.md (core/options_doc.c). The entries are data, not code: a
 * value lands at an offset in the struct the command passes to parse_options,
 * so the tables can be static and read without parsing anything. Options that
 * several commands share are declared once, in cli/common_options.h. */
#ifndef BENCH_PARSE_OPTIONS_H
#define BENCH_PARSE_OPTIONS_H

#include <stddef.h>
#include <stdio.h>

#include "core/util.h"

enum opt_type {
  OPT_END = 0, /* ends a table */
  OPT_FLAG,    /* no value: the int at off becomes 1 (or cb runs: OPT_ACTION) */
  OPT_STRING,  /* the const char * at off becomes the value */
  OPT_LIST,    /* repeatable: appended to the const char ** at off, count at off_n (size_t) */
  OPT_INT,     /* a whole number within [min, max] into the int at off */
  OPT_CHOICE,  /* one of choices: the const char * at off points at the table's word */
  OPT_CALLBACK /* cb checks and stores the value (choices, if any, are for help and completion) */
};

struct opt;
struct cmd_spec;

/* A callback's answer: 0 stored; -1 refused (it printed usage_error);
 * PARSE_DONE handled completely (--version), the command exits 0. */
typedef int (*opt_cb)(const struct cmd_spec *cmd, const struct opt *opt, const char *arg, void *field);

struct opt {
  enum opt_type type;
  const char *name;           /* the long name, without "--" */
  char short_name;            /* 0: none */
  const char *alias;          /* a second long name (colour for color), or NULL */
  size_t off, off_n;          /* where the value goes in the command's struct */
  const char *argh;           /* the value's name in help ("DIR"); NULL: choices joined by '|' */
  const char *help;           /* one paragraph; wrapped by the help printer */
  const char *const *choices; /* NULL-terminated words (OPT_CHOICE; completion for others) */
  int min, max;               /* OPT_INT bounds */
  opt_cb cb;                  /* OPT_CALLBACK */
};

#define OPT_FLAG(n, s, type, field, h) {OPT_FLAG, n, s, NULL, offsetof(type, field), 0, NULL, h, NULL, 0, 0, NULL}
#define OPT_STRING(n, s, type, field, a, h) \
  {OPT_STRING, n, s, NULL, offsetof(type, field), 0, a, h, NULL, 0, 0, NULL}
#define OPT_LIST(n, type, field, nfield, a, h) \
  {OPT_LIST, n, 0, NULL, offsetof(type, field), offsetof(type, nfield), a, h, NULL, 0, 0, NULL}
#define OPT_INT(n, type, field, lo, hi, a, h) \
  {OPT_INT, n, 0, NULL, offsetof(type, field), 0, a, h, NULL, lo, hi, NULL}
#define OPT_CHOICE(n, type, field, words, h) \
  {OPT_CHOICE, n, 0, NULL, offsetof(type, field), 0, NULL, h, words, 0, 0, NULL}
#define OPT_CALLBACK(n, type, field, a, words, fn, h) \
  {OPT_CALLBACK, n, 0, NULL, offsetof(type, field), 0, a, h, words, 0, 0, fn}
/* A flag that acts at once (cb gets arg NULL), such as --version. */
#define OPT_ACTION(n, fn, h) {OPT_FLAG, n, 0, NULL, 0, 0, NULL, h, NULL, 0, 0, fn}
#define OPT_END() {OPT_END, NULL, 0, NULL, 0, 0, NULL, NULL, NULL, 0, 0, NULL}

/* How a command takes its non-option arguments. */
enum {
  PARSE_NO_ARGS = 1,  /* none: one is "unexpected argument" */
  PARSE_PERMUTE = 2,  /* options may follow them (else the first one ends the options) */
};

/* One command: its synopsis, prose and options. name "" is `bench` itself
 * (run). Every line of usage is a synopsis line without "usage: "; lines
 * starting with a space continue the one before. */
struct cmd_spec {
  const char *name;
  const char *summary;              /* one line, for the table of commands */
  const char *const *usage;         /* NULL-terminated */
  void (*after_usage)(FILE *f);     /* --help prints more after the synopsis (bench's commands), or NULL */
  const char *description;          /* paragraphs ('\n\n' between), before the options */
  const char *epilogue;             /* after the options: verdicts, exit status */
  const struct opt *options;        /* OPT_END-terminated; -h/--help is implied */
  unsigned flags;                   /* PARSE_* */
};

enum { PARSE_DONE = 1 };

/* Parse argv[1..argc) by cmd's table into the struct at base (which the
 * caller has set to the defaults). The non-option arguments end up in
 * argv[0..*nargs) (argv[0] is overwritten). Returns 0 to go on, PARSE_DONE
 * after --help (printed to stdout) or a callback that finished the command,
 * -1 after a usage error (printed). Values point into argv; lists are
 * malloc'd (the caller frees the array). */
int parse_options(const struct cmd_spec *cmd, int argc, char **argv, void *base, int *nargs);

/* Print "bench: error: <what> (see bench CMD --help)" and return -1. */
int usage_error(const struct cmd_spec *cmd, const char *fmt, ...) UTIL_PRINTF(2, 3);

/* `bench CMD --help`: the synopsis, the prose and the options table. */
void print_help(FILE *f, const struct cmd_spec *cmd);

/* "--name" or "--name ARG" as help shows it, into sb. */
void opt_synopsis(struct strbuf *sb, const struct opt *o);

/* "a, b or c" from words. */
void opt_words_or(struct strbuf *sb, const char *const *words);

#endif
