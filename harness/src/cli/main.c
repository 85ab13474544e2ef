/* bench: the entry point. Subcommands live one per file (cmd_*.c); this is
 * the table and the only place that exits. `bench [run] [options]` and
 * `bench list` share their options; rollup and events parse their own. */
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "core/util.h"

int main(int argc, char **argv) {
  static const struct {
    const char *name;
    int (*fn)(int argc, char **argv);
  } commands[] = {{"rollup", cmd_rollup}, {"events", cmd_events}, {"compare", cmd_compare},
                  {"history", cmd_history}, {"report", cmd_report},
                  {"results", cmd_results}, {"ab", cmd_ab},
                  {"tune", cmd_tune}};
  for (size_t i = 0; argc >= 2 && i < sizeof commands / sizeof commands[0]; i++)
    if (strcmp(argv[1], commands[i].name) == 0) return commands[i].fn(argc - 1, argv + 1);
  int sub = argc >= 2 && (strcmp(argv[1], "run") == 0 || strcmp(argv[1], "list") == 0);
  struct options o;
  int rc = options_parse(argc - sub, argv + sub, &o);
  if (rc != 0) {
    options_release(&o);
    return rc > 0 ? EXIT_OK : EXIT_USAGE;
  }
  if (sub && strcmp(argv[1], "list") == 0) o.list = 1;
  if (o.format && !o.list) {
    error("--format is an option of --list (see bench --help)");
    options_release(&o);
    return EXIT_USAGE;
  }
  rc = o.list ? cmd_list(&o) : cmd_run(argc, argv, &o);
  options_release(&o);
  return rc;
}
