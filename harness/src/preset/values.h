/* The value grammar of a preset's [run] keys (and of the names bench
 * prints for them). */
#ifndef BENCH_VALUES_H
#define BENCH_VALUES_H

#include <stddef.h>

#include "bench/plugin.h"
#include "check/check.h"

const char *tier_name(enum bench_tier t);
int tier_parse(const char *s, enum bench_tier *out);

/* Value syntax of [run] keys; each returns 0, or -1 (no message) when s is
 * not of that form. Range checks are the caller's.
 *   duration: a number with an optional unit s, ms, us, ns or min ("15s",
 *             "500ms", "0.5" = seconds); a leading '-' parses (to be refused)
 *   fraction: "2%" = 0.02, or a plain number "0.02"
 *   bool:     true/false, yes/no, on/off, 1/0 (any case)
 *   verify:   full, fast, none (any case)                                  */
int preset_parse_duration(const char *s, double *seconds);
int preset_parse_fraction(const char *s, double *out);
int preset_parse_bool(const char *s, int *out);
int preset_parse_verify(const char *s, enum verify_level *out);
const char *preset_verify_name(enum verify_level v); /* "full", "fast", "none" */

/* A duration as a preset may write it: "0", "1ns", "100ms", "3600s". */
void preset_duration_text(double s, char *out, size_t len);

#endif
