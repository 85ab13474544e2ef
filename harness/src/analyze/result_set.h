/* A set of results loaded for comparison: result .json files, or every
 * result file of a folder, narrowed by date, tag, label and plugin; each case with
 * a key that matches it across runs (plugin, parameters, tag). Used by
 * bench compare, history, report and --baseline. */
#ifndef BENCH_RESULT_SET_H
#define BENCH_RESULT_SET_H

#include <stddef.h>

#include "results/result.h"

/* Which runs to keep; NULL / 0 keeps everything. */
struct rs_select {
  const char *date;     /* "YYYY-MM-DD", or a prefix ("2026-11") */
  const char *tag;      /* exact tag */
  const char **plugins; /* names or globs (fnmatch), each may be a comma list */
  size_t nplugins;
  const char *const *labels; /* the runs' labels (exact, or globs): a run with another or
                                none is left out; each entry's label_rank is the index
                                of the first that matches */
  size_t nlabels;
};

struct rs_entry {
  const struct run_file *file;
  const struct case_result *r;
  const char *path;    /* the file it came from */
  const char *plugin;  /* r->plugin, else the file's plugin */
  const char *tag;     /* the run's tag, "" when none */
  const char *date;    /* the run's date, "" when unknown */
  const char *label;   /* the run's label, "" when unknown (older files) */
  const char *run;     /* the run it is part of: its run_id, else (older files) its date */
  size_t label_rank;   /* the index of its label among rs_select's labels (0 without) */
  char *params;        /* "m=64 n=64 k=64", "" without parameters */
};

struct result_set {
  size_t nfiles;
  struct run_file *files;
  char **paths;
  size_t n;
  struct rs_entry *entries; /* by date, start time, file name, case index */
};

/* Load path (a result .json, or a folder: its *.json not starting with '.',
 * rollup.csv and other files ignored) into *out, keeping the runs sel
 * selects. A file that cannot be read is an error naming it when it was
 * named itself, and a warning (skipped) inside a folder. 0, or -1 after
 * error(). *out is empty on error. */
int result_set_load(const char *path, const struct rs_select *sel, struct result_set *out);
void result_set_release(struct result_set *s);

/* The key that matches a case across runs: plugin and parameters, and the
 * tag when with_tag. Caller frees. */
char *rs_key(const struct rs_entry *e, int with_tag);

/* The order tables list cases in: plugin, tag, case index, parameters
 * (qsort-style: <0, 0, >0). */
int rs_entry_order(const struct rs_entry *a, const struct rs_entry *b);

/* The entries' keys sorted by key, then by index (so, for a set loaded in
 * date order, chronologically within a key): s->n of them, each with its
 * index into s->entries. Free with rs_keys_release. */
struct rs_keyed {
  char *key;
  size_t idx;
};
struct rs_keyed *rs_sorted_keys(const struct result_set *s, int with_tag);
void rs_keys_release(struct rs_keyed *k, size_t n);

/* The newest entry per key (by date, start time, then file name: a later
 * run of the same day wins), sorted by key: indices into s->entries in *idx (caller
 * frees), count in *n. */
void rs_latest(const struct result_set *s, int with_tag, size_t **idx, size_t *n);

/* The runs of each key, sorted by key: the newest entry (as rs_latest),
 * the entries pooled with it and its history. Pooled: the entries of the
 * newest one's date with the same plugin hash (sha256; two files without
 * one count as the same), OK with samples, oldest first and the newest
 * last; just the newest when it is not OK or has no samples. History: the
 * entries of earlier dates with that plugin hash, OK with samples. Indices
 * into s->entries. Free with rs_groups_release. */
struct rs_group {
  size_t newest;
  size_t *pool, npool;
  size_t *hist, nhist;
};
void rs_group_runs(const struct result_set *s, int with_tag, struct rs_group **out, size_t *n);

/* 1 when a and b ran the same plugin file (same sha256; two entries
 * without one count as the same). */
int rs_same_plugin(const struct rs_entry *a, const struct rs_entry *b);
/* 1 when e is OK with samples. */
int rs_timed_ok(const struct rs_entry *e);
void rs_groups_release(struct rs_group *g, size_t n);

/* The raw per-iteration samples to compare: device times when use_device
 * and the case has them, else host times. *n is 0 when there are none. */
const double *rs_samples(const struct case_result *r, int use_device, size_t *n);
int rs_has_device(const struct case_result *r);

/* 1 when some tag of a is also a tag of b (tags of entries; "" included). */
int rs_tags_overlap(const struct result_set *a, const struct result_set *b);

#endif
