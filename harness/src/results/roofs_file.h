/* The roofs file of one device (bench peak, issue 41): what its peak
 * plugins measured, one record per case, in the results folder:
 *
 *   <results>/roofs/<device slug>.tsv
 *
 *   bench-roofs 1
 *   K <TAB> device=NAME;driver=D;arch=A <TAB> NAME
 *   M <TAB> PLUGIN <TAB> SHA256 <TAB> PARAMS <TAB> STATUS <TAB> ROOF <TAB> KIND <TAB> UNIT
 *     <TAB> VALUE <TAB> LOW <TAB> HIGH <TAB> METHOD <TAB> CAPACITY <TAB> DATASHEET
 *     <TAB> DATASHEET_HOW <TAB> DATE <TAB> REASON
 *
 * One K line (the device key, as the tuning cache's: a file of another key
 * is another driver or device, and is measured anew), then one M record
 * per measured case, keyed by PLUGIN and PARAMS (the case's parameters as
 * "name=value ..."): a rerun replaces it. STATUS OK makes the record a
 * candidate for its ROOF; anything else (WRONG_ANSWER, ERROR, REFUSED, ...)
 * keeps the case's line and REASON so that a refused roof is visible and
 * measured again by the next bench peak. VALUE, LOW and HIGH are the
 * figure at the median and its 95% interval (GFLOP/s, GB/s or ns per
 * item), CAPACITY a memory level's bytes (0 unknown), DATASHEET the
 * device's own figure (0 unknown). DATE is UTC ISO 8601. Updates lock
 * FILE.lock and replace the file atomically (core/lockfile.h). */
#ifndef BENCH_ROOFS_FILE_H
#define BENCH_ROOFS_FILE_H

#include <stddef.h>

#include "results/result.h"

#define ROOFS_HEADER "bench-roofs 1"

struct roof_rec {
  char *plugin, *sha256, *params;
  char *status;          /* "OK", or why it is no roof: a case status or "REFUSED" */
  char *roof;            /* "fp32", "fp32.1t", "l2", "dram", "lat_l1", "launch" */
  char *kind;            /* "compute", "bandwidth", "latency" */
  char *unit;            /* "GFLOP/s", "GB/s", "ns" */
  double value, low, high;
  char *method;          /* "avx512 fma", "copy", ...; "" */
  double capacity_bytes; /* 0: unknown */
  double datasheet;      /* 0: unknown */
  char *datasheet_how;   /* "" */
  char *date;            /* "2026-12-01T20:41:07Z" */
  char *reason;          /* "" for OK */
};

struct roofs_file {
  char *key;     /* "device=NAME;driver=D;arch=A"; NULL when empty */
  char *device;  /* NAME */
  size_t n;
  struct roof_rec *recs;
};

/* <results_dir>/roofs/<slug of device>.tsv (malloc'd). */
char *roofs_file_path(const char *results_dir, const char *device);

/* Read path into f. A missing file is an empty f (0). Not a roofs file,
 * or a malformed line: -1 with one line naming the file and line in why
 * (f empty). */
int roofs_file_load(const char *path, struct roofs_file *f, char *why, size_t whylen);
void roofs_file_release(struct roofs_file *f);

/* Merge recs[0..n) into the file of the device key/name at path under its
 * lock: a file of another key is replaced (its records dropped; *dropped
 * gets how many, when not NULL); a record of the same plugin and params
 * replaces the old one. 0, or -1 after one error line (a corrupt or
 * foreign file is not overwritten). */
int roofs_file_put(const char *path, const char *key, const char *device, const struct roof_rec *recs,
                   size_t n, size_t *dropped);

/* The record of plugin + params, or NULL. */
const struct roof_rec *roofs_file_find(const struct roofs_file *f, const char *plugin, const char *params);
/* The roof named id: its best OK record (highest value; lowest for
 * latency), or NULL. */
const struct roof_rec *roofs_file_best(const struct roofs_file *f, const char *id);
/* The distinct roof ids with an OK record, in first-seen order (an array
 * of *n pointers into f; free the array). */
const char **roofs_file_ids(const struct roofs_file *f, size_t *n);

/* ---- from a measured case ---------------------------------------------- */

/* The roof a case set (its info "roof"), or NULL when it set none. */
const char *case_roof_id(const struct case_result *r);
/* Whether the case may set its roof: 1 when it ended OK, was checked and
 * passed by a comparison the harness made (bench.compare/1's compare(),
 * or the harness's own reference), has work of its kind and a median;
 * else 0 with why ("WRONG_ANSWER: ...", "its output was checked only by
 * the plugin itself (matched)", ...). */
int case_roof_eligible(const struct case_result *r, char *why, size_t len);
/* The record of a case that set a roof (r's plugin, params, figure and
 * interval, info roof_*; status OK or the reason it is refused), with
 * sha256 of the plugin file and date; release with roof_rec_release. */
void roof_rec_from_case(struct roof_rec *rec, const struct case_result *r, const char *sha256,
                        const char *date);
void roof_rec_release(struct roof_rec *rec);
/* The device identity of a case's result, as the tuning cache keys it:
 * info device (else the CPU model), driver, arch (else the machine's).
 * *name and *key malloc'd. */
void case_device_key(const struct case_result *r, const char *cpu_model, char **name, char **key);

#endif
