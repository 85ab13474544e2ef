/* The options several commands share, declared once: the same name, value
 * syntax, help line and error text wherever they appear. A command puts
 * OPT_COLOR(struct my_opts, colour) etc. into its table (core/parse_options.h). */
#ifndef BENCH_COMMON_OPTIONS_H
#define BENCH_COMMON_OPTIONS_H

#include "core/parse_options.h"
#include "preset/overrides.h"

extern const char *const colour_words[];  /* auto always never */
extern const char *const fail_on_words[]; /* slower wrong missing noisy none */
extern const char *const mode_words[];    /* perf debug */

/* --color: an enum term_colour into an int (core/term.c decides what auto means). */
int opt_cb_colour(const struct cmd_spec *cmd, const struct opt *opt, const char *arg, void *field);
/* --fail-on LIST: FAIL_* bits into an unsigned (analyze/compare_case.h). */
int opt_cb_fail_on(const struct cmd_spec *cmd, const struct opt *opt, const char *arg, void *field);
/* --threshold X: a fraction or percentage below 100% into a double. */
int opt_cb_threshold(const struct cmd_spec *cmd, const struct opt *opt, const char *arg, void *field);
/* --budget DURATION (90s, 10m: m is minutes here) into a double of seconds > 0. */
int opt_cb_budget(const struct cmd_spec *cmd, const struct opt *opt, const char *arg, void *field);
/* --mode perf|debug: 1 for debug into an int. */
int opt_cb_mode(const struct cmd_spec *cmd, const struct opt *opt, const char *arg, void *field);

/* --warmup, --min-samples, ... (preset/overrides.h): the value checked as the
 * preset's key is, kept as typed in a const char * (field: a struct
 * sampling_overrides). */
int opt_cb_sampling(const struct cmd_spec *cmd, const struct opt *opt, const char *arg, void *field);

/* The sampling overrides, one macro each (a command offers those its
 * policy uses); OPT_SAMPLING is all six. field: a struct
 * sampling_overrides in type. --min-runs and --max-runs are hyperfine's
 * names for the sample counts. */
#define OPT_SAMPLING_ONE(n, alias, type, field, which, a, h)                                         \
  {OPT_CALLBACK, n, 0, alias, offsetof(type, field.arg[which]), 0, a, h, NULL, 0, 0, opt_cb_sampling}
#define OPT_WARMUP(type, field)                                                                      \
  OPT_SAMPLING_ONE("warmup", NULL, type, field, SO_WARMUP, "N|DURATION",                             \
                   "warm up for N iterations (a whole number) or for DURATION (200ms, 1s) instead of " \
                   "the preset's warmup_iters and warmup_time (the other one is then 0)")
#define OPT_MIN_SAMPLES(type, field)                                                        \
  OPT_SAMPLING_ONE("min-samples", "min-runs", type, field, SO_MIN_SAMPLES, "N",             \
                   "take at least N samples per case (the preset's min_samples, 1 to 1000000)")
#define OPT_MAX_SAMPLES(type, field)                                                               \
  OPT_SAMPLING_ONE("max-samples", "max-runs", type, field, SO_MAX_SAMPLES, "N",                    \
                   "take at most N samples per case (the preset's max_samples, 1 to 1000000)")
#define OPT_MIN_TIME(type, field)                                                                    \
  OPT_SAMPLING_ONE("min-time", NULL, type, field, SO_MIN_TIME, "DURATION",                           \
                   "sample each case for at least DURATION (the preset's min_time: 500ms, 2s; a plain " \
                   "number is seconds)")
#define OPT_MAX_TIME(type, field)                                                                  \
  OPT_SAMPLING_ONE("max-time", NULL, type, field, SO_MAX_TIME, "DURATION",                         \
                   "sample each case for at most DURATION (the preset's max_time; 0 or 1ns to 3600s)")
#define OPT_TARGET_NOISE(type, field)                                                                    \
  OPT_SAMPLING_ONE("target-noise", NULL, type, field, SO_TARGET_NOISE, "X",                              \
                   "stop sampling once the noise is at most X, a percentage or fraction (the preset's " \
                   "target_noise: 2% or 0.02)")
#define OPT_SAMPLING(type, field)                                                                   \
  OPT_WARMUP(type, field), OPT_MIN_SAMPLES(type, field), OPT_MAX_SAMPLES(type, field),              \
      OPT_MIN_TIME(type, field), OPT_MAX_TIME(type, field), OPT_TARGET_NOISE(type, field)

#define OPT_COLOR(type, field)                                                                          \
  {OPT_CALLBACK, "color", 0, "colour", offsetof(type, field), 0, NULL,                                 \
   "colour the output (auto, the default: only on a terminal, and not when NO_COLOR is set to a "      \
   "non-empty value or TERM is dumb)",                                                                  \
   colour_words, 0, 0, opt_cb_colour}
/* The formats differ by command; how --format is parsed and refused does not. */
#define OPT_FORMAT(type, field, words, h) OPT_CHOICE("format", type, field, words, h)
#define OPT_FAIL_ON(type, field)                                                                         \
  OPT_CALLBACK("fail-on", type, field, "LIST", fail_on_words, opt_cb_fail_on,                            \
               "what makes the exit status 1, a comma list of slower, wrong, missing, noisy, or none "  \
               "(default slower,wrong)")
#define OPT_THRESHOLD(type, field)                                                                  \
  OPT_CALLBACK("threshold", type, field, "X", NULL, opt_cb_threshold,                               \
               "SAME within +-X, FASTER/SLOWER beyond: a fraction (0.05) or a percentage (default " \
               "5%)")
#define OPT_PLUGIN(type, field, nfield)                                                              \
  OPT_LIST("plugin", type, field, nfield, "NAME",                                                    \
           "only these plugins: names, comma lists and globs (hip_*); repeatable (default: every " \
           "plugin found)")
#define OPT_PRESET(type, field) \
  OPT_STRING("preset", 0, type, field, "NAME|FILE", "smoke, standard (default), perf, verify, or a path to an .ini")
#define OPT_RESULTS_DIR(type, field) \
  OPT_STRING("results-dir", 0, type, field, "DIR", "the results folder (default ./results)")
#define OPT_PARAM(type, field, nfield)                                                                 \
  OPT_LIST("param", type, field, nfield, "NAME=VALUE",                                                 \
           "set a parameter of the selected plugins (overrides the preset); repeatable; a comma list " \
           "sweeps it: --param m=256,512")
#define OPT_FILTER(type, field, nfield)                                                           \
  OPT_LIST("filter", type, field, nfield, "EXPR",                                                 \
           "only the cases whose parameters match EXPR: conditions NAME OP VALUE joined by ',' "  \
           "(all must hold), OP one of = != < <= > >=, '|' between alternatives: --filter "       \
           "'m>=512,dtype=f16|bf16'; repeatable")
#define OPT_PLUGIN_DIR(type, field, nfield) \
  OPT_LIST("plugin-dir", type, field, nfield, "DIR", "also load plugins from DIR (repeatable); see BENCH_PLUGIN_PATH")
/* --tag as a selector of the runs read (bench run's --tag names the runs it writes). */
#define OPT_SELECT_TAG(type, field) OPT_STRING("tag", 0, type, field, "T", "keep the runs with that tag")
/* --label TEXT on the commands that write runs; --label as a selector
 * (repeatable: the runs of those labels, in that order). */
int opt_cb_label(const struct cmd_spec *cmd, const struct opt *opt, const char *arg, void *field);
#define OPT_LABEL(type, field)                                                                          \
  OPT_CALLBACK("label", type, field, "TEXT", NULL, opt_cb_label,                                        \
               "name the build this run measures in its result files (default: the short git commit of " \
               "the plugin's work tree, else the run's start time); history, report and compare "     \
               "select runs by it")
#define OPT_SELECT_LABEL(type, field, nfield)                                                      \
  OPT_LIST("label", type, field, nfield, "L",                                                      \
           "keep the runs with label L (bench run --label, else the plugin's short commit); "      \
           "repeatable: the runs of each label, in the order given")
#define OPT_MODE(type, field)                                                                       \
  OPT_CALLBACK("mode", type, field, NULL, mode_words, opt_cb_mode,                                  \
               "debug: serialised GPU launches and the Vulkan validation layer (default perf)")
#define OPT_RESCAN(type, field)                                                                      \
  OPT_FLAG("rescan", 0, type, field,                                                                 \
           "scan every plugin file again and ask each listed plugin again whether it can run, "      \
           "instead of trusting the scan cache in $XDG_CACHE_HOME/bench (BENCH_NO_SCAN_CACHE=1: no " \
           "cache at all)")
#define OPT_TUNING_FILE(type, field)                                                       \
  OPT_STRING("tuning-file", 0, type, field, "FILE",                                        \
             "the tuning cache: bench tune writes it, tunables at auto take their values " \
             "from it (default $XDG_CACHE_HOME/bench/tuning/DEVICE.tsv)")

#endif
