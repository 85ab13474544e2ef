/* Reading and writing results: the JSON and text forms of a run file, the
 * one-line JSON a child sends its parent, atomic saving under a unique dated
 * name, and the CSV rollup. */
#ifndef BENCH_RESULTS_IO_H
#define BENCH_RESULTS_IO_H

#include <stddef.h>

#include "results/result.h"
#include "core/csv.h"
#include "core/lockfile.h"
#include "core/util.h"

/* JSON (json.c). The run file's JSON holds everything, raw samples
 * included; from_json accepts what to_json writes and reads it back exactly
 * (doubles are written with 17 significant digits; NaN and infinities as
 * the strings "NaN", "Infinity", "-Infinity"; a string that is not valid
 * UTF-8 is written with U+FFFD in place of the bad bytes).
 * The from_json functions fill *f / *r from scratch (no init needed). On
 * error they return -1 with a one-line, lower-case reason in err (e.g.
 * "cases[2].check.rtol: expected a number", "unsupported schema ..."), print
 * nothing, and leave *f / *r empty; the caller names the file. */
#define BENCH_RESULT_SCHEMA "bench-result/1"
char *run_file_to_json(const struct run_file *f);                   /* pretty, ends in \n */
int run_file_from_json(const char *text, struct run_file *f, char *err, size_t errlen);
/* The same for a buffer of len bytes (a file as read): anything after the
 * document, a NUL byte included, is an error ("holds a nul byte at offset N"). */
int run_file_from_json_buf(const char *text, size_t len, struct run_file *f, char *err,
                           size_t errlen);
/* One element of a run file's "cases" array, len bytes (what the streaming
 * reader cut out of a file too large to load whole); errors name it
 * "cases[i]". */
int case_result_from_json_buf(const char *text, size_t len, size_t i, struct case_result *r,
                              char *err, size_t errlen);
char *case_result_to_json_line(const struct case_result *r);        /* one line, no \n */
/* The whole run in one document (bench run --export-json), schema
 * BENCH_RUN_SCHEMA: "env" (the first file's header, its steadiness left
 * out: each plugin's is in its entry; "devices" of every case), "plugins"
 * (name, path, sha256, result_file = sources[i], cases, steadiness) and
 * "cases": every case of every file in order, each as in bench-result/1.
 * Written only (the result files are what bench reads back). */
#define BENCH_RUN_SCHEMA "bench-run/1"
char *run_export_to_json(const struct run_file *files, const char *const *sources, size_t n);
/* Telemetry: in the file form a case whose device facts are the header's
 * (env.devices) refers to them ("telemetry.device": the bus id); the line
 * form carries them inline ("telemetry.facts"). run_file_from_json[_buf]
 * puts the header's facts into such cases; a case read alone
 * (case_result_from_json_buf, the streaming reader's) keeps the reference
 * pending (result.h GPU_FACTS_PENDING) until run_file_resolve_devices is
 * called with the header read (0, or -1: "cases[i].telemetry.device: ...
 * is not in env.devices"). case_result_from_json_line refuses a reference. */
int run_file_resolve_devices(struct run_file *f, char *err, size_t errlen);
int case_result_from_json_line(const char *text, struct case_result *r, char *err, size_t errlen);

/* Reading a result file from disk (read.c): a regular file (a FIFO or a
 * link to a device is refused, never read). One of at most the load limit
 * (RESULT_FILE_CAP, or BENCH_RESULT_LOAD_CAP bytes from the environment) is
 * loaded whole (run_file_from_json_buf); a larger one is streamed: a byte
 * scanner cuts the top-level "cases" array into its elements and each is
 * parsed on its own (case_result_from_json_buf), so memory holds one case's
 * text at a time (an element, or the rest of the file, larger than the
 * limit is refused). Then the cases of <base>.journal beside it that the
 * .json lacks are added, read line by line (a last line without its
 * newline, cut by a crash, is ignored), and run_file_validate checks the
 * whole. 0, or -1 with a one-line reason in err (the caller names the
 * file).
 * Timings are checked on read (one place for every tool): a case whose
 * samples or timing statistics hold a value that is negative, zero, not
 * finite or above RESULT_SAMPLE_MAX_NS loses its timings (nsamples 0, no
 * samples, empty stats: compare says NO_DATA, the rollup leaves its times
 * empty) and the reader prints one warning per file naming the file, what
 * was wrong and how many cases. With RESULTS_READ_NO_SAMPLES the raw samples
 * are dropped as each case is read (the rollup needs only the stats). */
#define RESULT_FILE_CAP ((size_t)256 << 20)
#define RESULT_SAMPLE_MAX_NS 1e15 /* 11.6 days per iteration: nothing real */
#define RESULTS_READ_NO_SAMPLES 1u
#define RESULTS_READ_STREAM 2u /* stream whatever the size (tests, fuzzing) */
int results_read_file(const char *path, struct run_file *f, char *err, size_t errlen);
int results_read_file_flags(const char *path, unsigned flags, struct run_file *f, char *err,
                            size_t errlen);
/* The whole-load limit: BENCH_RESULT_LOAD_CAP (bytes, > 0) when set, else
 * RESULT_FILE_CAP. */
size_t results_load_cap(void);

/* Human-readable form (txt.c): environment header, one row per case,
 * then notes (skip reasons, errors, unsettled cases, stderr tails). */
char *run_file_to_text(const struct run_file *f);

/* Saving (store.c). The first call for a run file claims
 * <dir>/<date>_<plugin>_<preset>[_<tag>].json (then .2, .3 ... before the
 * extension when taken: its .json, .txt or .journal exists; so a second run
 * the same day never replaces the first), and stores the base path (without extension) in *base; later calls
 * with the same *base rewrite both files. Every file is written to a
 * temporary name and renamed into place. Creates dir (and parents) if
 * missing. The name's parts: f->env.date (today when unset), f->plugin, the
 * file name of f->env.preset without ".ini", f->env.tag when set.
 * Returns 0, or -1 after error() naming the file. */
int results_save(const char *dir, const struct run_file *f, char **base);
/* Saving a run as it goes (store.c), at a cost per case that does
 * not grow with the run. The first case claims the name as results_save
 * does and writes <base>.json and <base>.txt whole. Each later case is
 * appended as one JSON line (case_result_to_json_line) to <base>.journal
 * in one write() and fdatasync'd. The .json and .txt are rewritten (temp +
 * rename, so never seen half written) when RESULTS_REWRITE_MIN_S have passed
 * since the last rewrite and at least RESULTS_REWRITE_FACTOR times what that
 * rewrite cost (so rewriting takes at most 1/FACTOR of the run), and by
 * results_run_finish, which then removes the journal. After a SIGKILL or a
 * power loss, <base>.json holds the cases up to its last rewrite and
 * <base>.journal every case; the rollup reads both (rollup_read_run). */
#define RESULTS_REWRITE_MIN_S 10.0
#define RESULTS_REWRITE_FACTOR 20.0
struct results_run {
  char *dir;
  char *base;           /* "<dir>/<name>[.N]" once claimed, else NULL */
  int journal_fd;       /* -1 until the first append; -2: a journal not ours was in the way */
  size_t saved;         /* f->cases[0 .. saved) are on disk */
  size_t in_json;       /* of which in the .json */
  int steady_in_json;   /* the .json's header holds the run's steadiness (set at its end) */
  double last_rewrite_s, last_cost_s;
  double rewrite_min_s, rewrite_factor; /* RESULTS_REWRITE_*, set by init */
};
void results_run_init(struct results_run *w, const char *dir);
/* Save f->cases[saved .. f->ncases). 0, or -1 after error() naming the file. */
int results_run_add(struct results_run *w, const struct run_file *f);
/* Write the .json and .txt whole with every case of f and remove the
 * journal (nothing to do when no case was saved; no rewrite when the .json
 * holds every case and the header's steadiness already, or f has none).
 * 0, or -1 after error(). */
int results_run_finish(struct results_run *w, const struct run_file *f);
void results_run_release(struct results_run *w); /* closes the journal, keeps the files */

/* Remove temporary files ".<name>.tmp.<pid>[.<random>]" a killed bench left in dir:
 * those older than RESULTS_STALE_S, and those whose pid is not alive on
 * this host and older than RESULTS_STALE_DEAD_S (a folder shared with other
 * hosts may hold another host's live temporary file for a moment). Quiet
 * but for a warning when one cannot be removed. The rollup calls it. */
#define RESULTS_STALE_S 3600
#define RESULTS_STALE_DEAD_S 60
void results_clean_stale(const char *dir);

/* Before the first case: make dir, then write and remove a probe file
 * with a name longer than any this run will write there (today's
 * <date>_<plugin>_<preset>[_<tag>] for each plugin, the longest suffix,
 * a temporary name's pid), so a read-only folder or a tag that makes a
 * name too long is found before anything runs. 0, or -1 after one error()
 * naming the folder and the reason. */
int results_check_dir(const char *dir, const char *const *plugins, size_t nplugins,
                      const char *preset, const char *tag);
/* "<date>_<plugin>_<preset>[_<tag>]" with unsafe characters replaced. */
char *results_basename(const char *date, const char *plugin, const char *preset, const char *tag);
/* The name (without the directory, the .N copy number and the extension) a
 * run of plugin under preset (a shipped name or a path: its file name
 * without ".ini") gets for date and tag: results_basename of those parts.
 * results_save and `bench results --name` both use it. Caller frees. */
char *results_run_name(const char *date, const char *plugin, const char *preset, const char *tag);

/* write_file_atomic and the temporary names: core/lockfile.h. */

/* Rollup (rollup.c): read every result .json in dir (results_read_file:
 * journals merged, contradictory files refused) and write <dir>/rollup.csv
 * atomically, one row per case. The rebuild holds an flock on the folder
 * itself, so concurrent runs rebuild one after the other from what is on
 * disk, and first removes stale temporary files
 * (results_clean_stale). While another process holds the lock (another
 * bench's rollup, a reader's `flock -s`), it waits at most
 * BENCH_LOCK_WAIT_S seconds (ROLLUP_LOCK_WAIT_S when unset), printing after
 * a second and then every LOCK_WAIT_NOTE_S (core/lockfile.h) what it waits for (the folder, the holder's pid from
 * /proc/locks); SIGINT, SIGTERM or SIGHUP end the wait (the signal is
 * raised again after it, for the caller's handler or the default action).
 * Either way it returns ROLLUP_LEFT after one message saying the result
 * files are kept and `bench rollup` rebuilds the rollup. When rollup.csv
 * belongs to another user in a sticky folder (it cannot be replaced), the
 * rollup goes to rollup.<user>.csv after one warning naming the file and
 * its owner: ROLLUP_PER_USER. Unreadable or refused files are reported
 * with one warning() naming them and skipped. Returns 0, ROLLUP_LEFT,
 * ROLLUP_PER_USER, or -1 after error().
 * Result files: *.json not starting with '.', in file name order; the cases
 * of a file by index. Each case counts once: rows with the same host, date,
 * tag, preset, mode, plugin, backend, operation and parameters in several
 * files (an interrupted run and its rerun, a run fetched twice) come only
 * from the file with the best of them: a complete result (not INTERRUPTED)
 * before an interrupted one, then the later env.started, then the later
 * copy (name.2.json after name.json), then the later file name. Times in
 * ms, numbers in their shortest exact form, a field empty where it does
 * not apply (no samples, no check, no throughput when
 * not OK, stddev/cv with fewer than 2 samples). After the fixed columns
 * (rollup_columns), one column per parameter name seen, named
 * ROLLUP_PARAM_PREFIX + name, in order of first appearance, empty where a
 * case has no such parameter; "params" keeps the joined "k=v k=v" form as a
 * label only. */
#define ROLLUP_PARAM_PREFIX "param."
#define ROLLUP_LOCK_WAIT_S 60.0
enum { ROLLUP_LEFT = 1, ROLLUP_PER_USER = 2 };
int rollup_write(const char *dir);
/* The CSV of the run files files[0..n) alone, in the rollup's columns (the
 * header, then every case of each file by index; no case counted once
 * across files: they are one run's), sources[i] the source column of
 * files[i]: bench run --export-csv. Appended to sb. */
void rollup_csv_of(const struct run_file *files, const char *const *sources, size_t n, struct strbuf *sb);
/* The rollup's fixed header columns, for documentation and tests; ends with
 * NULL. */
extern const char *const rollup_columns[];

#endif
