/* bench rollup [--results-dir DIR]: rebuild DIR/rollup.csv from the result
 * files there. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/commands.h"
#include "results/io.h"
#include "core/util.h"

int cmd_rollup(int argc, char **argv) {
  static const struct option longopts[] = {{"results-dir", required_argument, NULL, 'd'},
                                           {"help", no_argument, NULL, 'h'},
                                           {NULL, 0, NULL, 0}};
  const char *dir = "results";
  opterr = 0;
  optind = 1;
  int c;
  while ((c = getopt_long(argc, argv, "+:h", longopts, NULL)) != -1) {
    if (c == 'd') {
      dir = optarg;
    } else if (c == 'h') {
      printf("usage: bench rollup [--results-dir DIR]\n");
      return EXIT_OK;
    } else {
      error("unknown option or missing value '%s' (usage: bench rollup [--results-dir DIR])", argv[optind - 1]);
      return EXIT_USAGE;
    }
  }
  if (optind < argc) {
    error("unexpected argument '%s' (usage: bench rollup [--results-dir DIR])", argv[optind]);
    return EXIT_USAGE;
  }
  struct stat st;
  if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
    error("results folder '%s' does not exist", dir);
    return EXIT_USAGE;
  }
  int rc = rollup_write(dir);
  if (rc < 0 || rc == ROLLUP_LEFT) return EXIT_FAILED;
  if (rc == 0) printf("wrote %s/rollup.csv\n", dir); /* else the warning named the file */
  return EXIT_OK;
}
