/* The callbacks of the shared options (common_options.h). */
#include "cli/common_options.h"

#include <string.h>

#include "analyze/compare_case.h"
#include "core/term.h"

const char *const colour_words[] = {"auto", "always", "never", NULL};
const char *const fail_on_words[] = {"slower", "wrong", "missing", "noisy", "none", NULL};
const char *const mode_words[] = {"perf", "debug", NULL};

int opt_cb_colour(const struct cmd_spec *cmd, const struct opt *opt, const char *arg, void *field) {
  (void)opt;
  enum term_colour mode;
  if (term_colour_parse(arg, &mode) != 0)
    return usage_error(cmd, "--color must be auto, always or never, not '%s'", arg);
  *(int *)field = (int)mode;
  return 0;
}

int opt_cb_fail_on(const struct cmd_spec *cmd, const struct opt *opt, const char *arg, void *field) {
  (void)opt;
  char bad[64];
  if (compare_parse_fail_on(arg, field, bad, sizeof bad) == 0) return 0;
  return usage_error(cmd, "--fail-on takes slower, wrong, missing, noisy or none, not '%s'", bad);
}

int opt_cb_threshold(const struct cmd_spec *cmd, const struct opt *opt, const char *arg, void *field) {
  (void)opt;
  if (compare_parse_threshold(arg, field) == 0) return 0;
  return usage_error(cmd, "--threshold must be a fraction or percentage below 100%%, not '%s'", arg);
}

int opt_cb_mode(const struct cmd_spec *cmd, const struct opt *opt, const char *arg, void *field) {
  (void)opt;
  if (strcmp(arg, "debug") == 0) *(int *)field = 1;
  else if (strcmp(arg, "perf") == 0) *(int *)field = 0;
  else return usage_error(cmd, "--mode must be perf or debug, not '%s'", arg);
  return 0;
}
