/* bench rollup [--results-dir DIR]: rebuild DIR/rollup.csv from the result
 * files there. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/commands.h"
#include "cli/common_options.h"
#include "results/io.h"
#include "core/util.h"

struct rollup_opts {
  const char *dir;
};

static const struct opt rollup_options[] = {
    OPT_RESULTS_DIR(struct rollup_opts, dir),
    OPT_END(),
};

static const char *const rollup_usage[] = {"bench rollup [--results-dir DIR]", NULL};

const struct cmd_spec spec_rollup = {
    "rollup", "rebuild DIR/rollup.csv from the result files there", rollup_usage, NULL,
    "Rebuilds DIR/rollup.csv, one row per case, from the result files in DIR.", NULL,
    rollup_options, PARSE_NO_ARGS,
};

int cmd_rollup(int argc, char **argv) {
  struct rollup_opts o = {"results"};
  int nargs, rc = parse_options(&spec_rollup, argc, argv, &o, &nargs);
  if (rc != 0) return rc > 0 ? EXIT_OK : EXIT_USAGE;
  const char *dir = o.dir;
  struct stat st;
  if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
    error("results folder '%s' does not exist", dir);
    return EXIT_USAGE;
  }
  rc = rollup_write(dir);
  if (rc < 0 || rc == ROLLUP_LEFT) return EXIT_FAILED;
  if (rc == 0) printf("wrote %s/rollup.csv\n", dir); /* else the warning named the file */
  return EXIT_OK;
}
