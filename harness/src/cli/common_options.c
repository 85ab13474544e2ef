/* The callbacks of the shared options (common_options.h). */
#include "cli/common_options.h"

#include <stdio.h>
#include <string.h>

#include "analyze/compare_case.h"
#include "core/term.h"
#include "preset/overrides.h"
#include "preset/values.h"

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

int opt_cb_budget(const struct cmd_spec *cmd, const struct opt *opt, const char *arg, void *field) {
  (void)opt;
  char dur[64];
  size_t vl = strlen(arg);
  /* "10m" is ten minutes here (a preset's DURATION says "10min") */
  snprintf(dur, sizeof dur, "%s%s", arg, vl > 1 && arg[vl - 1] == 'm' && arg[vl - 2] != 'm' ? "in" : "");
  if (preset_parse_duration(dur, field) != 0 || !(*(double *)field > 0))
    return usage_error(cmd, "--budget must be a duration above 0 (90s, 10m), not '%s'", arg);
  return 0;
}

int opt_cb_sampling(const struct cmd_spec *cmd, const struct opt *opt, const char *arg, void *field) {
  int o = sampling_opt_find(opt->name);
  char why[512];
  if (o < 0) return usage_error(cmd, "--%s: not a sampling option", opt->name);
  if (sampling_override_check((enum sampling_opt)o, arg, why, sizeof why) != 0) return usage_error(cmd, "%s", why);
  *(const char **)field = arg;
  return 0;
}

int opt_cb_label(const struct cmd_spec *cmd, const struct opt *opt, const char *arg, void *field) {
  if (!*arg) return usage_error(cmd, "--%s needs a non-empty value", opt->name);
  for (const char *p = arg; *p; p++)
    if ((unsigned char)*p < 0x20 || *p == 0x7f) return usage_error(cmd, "--%s cannot hold control characters", opt->name);
  *(const char **)field = arg;
  return 0;
}
