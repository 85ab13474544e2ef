/* The tuning cache (bench tune, issue 25): one text file per device,
 * $XDG_CACHE_HOME/bench/tuning/<device>.tsv (or --tuning-file), holding
 * one record per candidate measurement and one winner per problem:
 *
 *   bench-tuning 1
 *   M <TAB> KEY <TAB> CANDIDATE <TAB> STATUS <TAB> DATA
 *   W <TAB> KEY <TAB> CANDIDATE <TAB> DATA
 *
 * KEY is "device=NAME;driver=D;arch=A|plugin=P|sha256=H|abi=1.4|PROBLEM"
 * (PROBLEM: the problem parameters as "m=64 n=64"), CANDIDATE the tunables
 * as "mc=64 kc=256". An M record's STATUS is OK, WRONG_ANSWER, SKIPPED or
 * ERROR, its DATA the per-iteration times in ns (comma list; OK) or the
 * one-line reason. A W record's DATA is "median_ns default_median_ns tried
 * disqualified skipped". A changed plugin binary has another sha256: its
 * old records are never found. Updates take an exclusive lock on
 * FILE.lock (0600; the wait is bounded by BENCH_LOCK_WAIT_S, default 30 s,
 * said after a second and ended by Ctrl-C: lockfile_take_bounded), read
 * the file again, merge (a record of the same kind, key and candidate is
 * replaced) and replace the file atomically (0600), so concurrent tuners
 * lose nothing. The file, and its folder when it is the default one, are
 * used only when they are the user's alone (core/cache_trust.h): else a
 * load is an empty cache and a put fails, after one warning. */
#ifndef BENCH_TUNING_CACHE_H
#define BENCH_TUNING_CACHE_H

#include <stddef.h>

#define TUNING_HEADER "bench-tuning 1"

struct tuning_rec {
  char kind;     /* 'M' (measurement) or 'W' (winner) */
  char *key;
  char *cand;
  char *status;  /* M: OK, WRONG_ANSWER, SKIPPED, ERROR; W: NULL */
  char *data;
};

struct tuning_cache {
  size_t n;
  struct tuning_rec *recs;
};

/* Read path into c. A missing file is an empty cache (0). A file that is
 * not a tuning cache (another header) or has a malformed line: -1, with
 * one line naming the file and the line in why; c is then empty. */
int tuning_cache_load(const char *path, struct tuning_cache *c, char *why, size_t whylen);
/* tuning_cache_load keeping only the winners (W) of one plugin file (its
 * name and SHA-256): what a run needs. The whole file is still read and
 * checked line by line, but only those records are kept in memory. */
int tuning_cache_load_winners(const char *path, const char *plugin, const char *sha256,
                              struct tuning_cache *c, char *why, size_t whylen);
void tuning_cache_release(struct tuning_cache *c);

/* The record of that kind, key and candidate (cand NULL: any, the first). */
const struct tuning_rec *tuning_cache_find(const struct tuning_cache *c, char kind,
                                           const char *key, const char *cand);

/* Merge recs[0..n) into the file at path under its lock (see above),
 * making its folder. 0, or -1 after one line naming the file (a foreign or
 * corrupt file is refused, never overwritten; a lock wait given up or
 * interrupted, the signal raised again; an untrusted file or folder). */
int tuning_cache_put(const char *path, const struct tuning_rec *recs, size_t n);

/* The default file of a device: $XDG_CACHE_HOME/bench/tuning/<device>.tsv
 * (the device name with anything but [A-Za-z0-9._-] as '_'); NULL when no
 * cache folder can be named. Malloc'd. */
char *tuning_cache_default_path(const char *device_name);

struct case_def;
struct case_value;
/* A tunable that is a sweep axis (zipped, cpu_gemm's variant) given a
 * value rather than `auto`: part of the problem, not searched. */
int tuning_pinned_axis(const struct case_value *v);
/* The key of case c's problem (its parameters that are not tunable, and
 * its pinned sweep axes) for the plugin whose file has sha256, on the
 * device of device_key. */
char *tuning_key(const char *device_key, const char *plugin, const char *sha256,
                 const struct case_def *c);
/* "mc=64 kc=256": case c's tunable values. */
char *tuning_cand_label(const struct case_def *c);

/* "a<TAB>b\n" -> "a b ": tabs and newlines of a field as spaces (copy). */
char *tuning_field(const char *s);

#endif
