/* bench: the entry point. Subcommands live one per file (cmd_*.c); this is
 * the table and the only place that exits. */
#include <stdio.h>
#include <string.h>

#include "commands.h"

int main(int argc, char **argv) {
  if (argc >= 2 && strcmp(argv[1], "rollup") == 0) return cmd_rollup(argc - 1, argv + 1);
  if (argc >= 2 && strcmp(argv[1], "events") == 0) return cmd_events(argc - 1, argv + 1);
  int sub = argc >= 2 && (strcmp(argv[1], "run") == 0 || strcmp(argv[1], "list") == 0);
  struct options o;
  int rc = options_parse(argc - sub, argv + sub, &o);
  if (rc != 0) {
    options_release(&o);
    return rc > 0 ? EXIT_OK : EXIT_USAGE;
  }
  if (sub && strcmp(argv[1], "list") == 0) o.list = 1;
  rc = o.list ? cmd_list(&o) : cmd_run(argc, argv, &o);
  options_release(&o);
  return rc;
}
