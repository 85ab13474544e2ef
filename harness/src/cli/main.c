/* bench: the entry point. Subcommands live one per file (cmd_*.c), listed in
 * commands.c's table; this is the dispatch and the only place that exits.
 * `bench [run] [options]` and `bench list` share one option table. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "core/parse_options.h"
#include "core/suggest.h"
#include "core/util.h"

static int run_or_list(int argc, char **argv, int sub) {
  int list = sub && strcmp(argv[1], "list") == 0;
  struct options o;
  int rc = options_parse(list ? &spec_list : &spec_run, argc - sub, argv + sub, &o);
  if (rc != 0) {
    options_release(&o);
    return rc > 0 ? EXIT_OK : EXIT_USAGE;
  }
  if (list) o.list = 1;
  if (o.format && !o.list) {
    error("--format is an option of --list (see bench --help)");
    options_release(&o);
    return EXIT_USAGE;
  }
  const char *runs_only = sampling_overrides_any(&o.sampling) ? "--warmup, --min-samples, --max-samples, "
                                                               "--min-time, --max-time and --target-noise are"
                          : o.export_json || o.export_csv || o.export_md ? "--export-json, --export-csv and "
                                                                           "--export-md are"
                                                                         : NULL;
  if (runs_only && o.list) {
    error("%s options of a run, not of --list (see bench --help)", runs_only);
    options_release(&o);
    return EXIT_USAGE;
  }
  rc = o.list ? cmd_list(&o) : cmd_run(argc, argv, &o);
  options_release(&o);
  return rc;
}

/* `bench comapre`: bench takes no arguments, so a word close to a
 * command's name is a mistyped command. 1 after the error, else 0. */
static int mistyped_command(const char *word) {
  if (word[0] == '-') return 0;
  size_t n = 0;
  for (const struct command *c = bench_commands; c->spec; c++) n++;
  const char **names = xcalloc(n + 2, sizeof *names);
  n = 0;
  names[n++] = "run";
  for (const struct command *c = bench_commands; c->spec; c++)
    if (*c->spec->name) names[n++] = c->spec->name;
  struct strbuf sb = STRBUF_INIT;
  int hit = suggest_add(&sb, word, names, n, "") > 0;
  if (hit) error("unknown command '%s'%s (see bench --help)", word, sb.buf);
  strbuf_release(&sb);
  free(names);
  return hit;
}

int main(int argc, char **argv) {
  for (const struct command *c = bench_commands; argc >= 2 && c->spec; c++)
    if (c->fn && strcmp(argv[1], c->spec->name) == 0) return c->fn(argc - 1, argv + 1);
  int sub = argc >= 2 && (strcmp(argv[1], "run") == 0 || strcmp(argv[1], "list") == 0);
  if (argc >= 2 && !sub && mistyped_command(argv[1])) return EXIT_USAGE;
  return run_or_list(argc, argv, sub);
}
