/* What a run produces: one result per case, grouped in a run file per
 * plugin. Shared by the child that measures, the parent that collects, the
 * writers (.txt, .json) and the rollup. */
#ifndef BENCH_RESULT_H
#define BENCH_RESULT_H

#include <stddef.h>
#include <stdint.h>

#include "check/check.h"
#include "machine/cpu_caches.h"
#include "machine/gpu_telemetry.h"
#include "core/stats.h"

enum case_status {
  CASE_OK = 0,
  CASE_SKIPPED,
  CASE_WRONG_ANSWER,
  CASE_CRASH,       /* the child died on a signal */
  CASE_TIMEOUT,     /* the watchdog killed it */
  CASE_ERROR,       /* the plugin or the harness reported an error */
  CASE_INTERRUPTED, /* Ctrl-C / SIGTERM stopped it */
  CASE_STATUS_COUNT
};
const char *case_status_name(enum case_status s); /* "OK", "SKIPPED", "WRONG_ANSWER", ... */
int case_status_parse(const char *s, enum case_status *out); /* 0, or -1 if unknown */
int case_status_failed(enum case_status s); /* 1 for everything but OK and SKIPPED */

enum determinism { DET_NOT_CHECKED = 0, DET_BITWISE_EQUAL, DET_DIFFERS };
const char *determinism_name(enum determinism d); /* "not_checked", "bitwise_equal", "differs" */
int determinism_parse(const char *s, enum determinism *out); /* 0, or -1 if unknown */

/* Whose figure a case's flops and bytes are: the operation table's (the
 * harness computed them from the check of the plugin's operation), the
 * plugin's own (set_work), or none recorded (older files, no work). */
enum work_source { WORK_NONE = 0, WORK_OPERATION, WORK_PLUGIN };
const char *work_source_name(enum work_source w); /* "none", "operation", "plugin" */
int work_source_parse(const char *s, enum work_source *out); /* 0, or -1 if unknown */

struct kv {
  char *key, *value;
};


/* What the case's GPU did while the case was measured (plugin.h,
 * "bench.device/1"): the management library's readings, sampled every
 * interval_ms from the end of warm-up to the last sample (plus one at each
 * end), the in-band clock the plugin measured per sample, and the throttle
 * rule's outcome. A quantity the library did not give is absent (have 0),
 * never a number. JSON: the case's "telemetry" object (docs/results.md). */
struct case_telemetry {
  char bus_id[GPU_BUS_ID_LEN]; /* the device the plugin named; "" when it named none */
  char library[16];            /* "nvml", "amd_smi", "rocm_smi", "sysfs"; "" when nothing read it */
  char note[256];              /* why there are no readings ("" when there are) */
  struct gpu_facts facts;      /* the device as the library describes it (the run header's) */
  double interval_ms;          /* the sampler's period */
  size_t readings;             /* readings folded, both ends included */
  struct gpu_value sm_clock_mean, sm_clock_min, sm_clock_max;
  struct gpu_value mem_clock_mean, mem_clock_min, mem_clock_max;
  int nxcd;                    /* XCDs with a clock of their own (0: one clock) */
  struct gpu_value xcd_clock_mean[GPU_MAX_XCD], xcd_clock_min[GPU_MAX_XCD];
  struct gpu_value power_mean, power_max, power_limit; /* W; the limit enforced */
  struct gpu_value temp_max, mem_temp_max;             /* C */
  int have_throttle;           /* the library reports throttle reasons */
  unsigned throttle;           /* GPU_THR_* bits seen in any reading */
  struct gpu_value throttle_ns[GPU_THR_TIMES]; /* throttle time over the case */
  struct gpu_value other_procs_max; /* other processes on the device */

  /* in-band clock (set_clock), over the kept samples */
  double default_clock_mhz;    /* what the plugin gave set_device; 0 unknown */
  size_t clock_samples;        /* samples with an in-band clock */
  double clock_mean, clock_min, clock_max;

  /* the throttle rule (preset keys throttle_threshold, throttle_recovery_s) */
  double threshold;            /* of the reference clock; 0: the rule was off */
  double reference_mhz;        /* the default clock it used; 0: none known (rule off) */
  size_t discarded;            /* throttled samples discarded and re-taken */
  double recovery_s;           /* seconds spent pausing for recovery */
  int throttled;               /* most samples were throttled: kept, and the case marked */
  char throttled_by[128];      /* why, e.g. "clock 1080 MHz < 75% of 1980 MHz (sw_power_cap)" */
};

/* The roof a case is measured against, as the run found it in the roofs
 * files of its results folder (analyze/roofs.h roofs_annotate; bench
 * peak writes those files). JSON: the case's "roof", "roof_value",
 * "roof_unit", "pct_of_roof", "roof_source", "roof_note", apart from the
 * "roof" a peak plugin's case names in its info (the roof it measures). */
struct case_roof {
  char *id;        /* "fp32", "dram", "fp32+l2" (a roofline: the lower of the two), "lat_l1" */
  char *unit;      /* "GFLOP/s", "GB/s", "ns" (per item); "" when no roof was found */
  double value;    /* the roof for this case (attainable at its intensity); 0: none found */
  double pct;      /* the case's share of it, in percent (latency: roof ns / case ns);
                      < 0 when it cannot be placed */
  char *source;    /* "measured 2026-12-01 by peak_cpu_bw kernel=copy size=16MiB" */
  char *note;      /* NULL, or why the share is over 100% or which roof is missing */
};
void case_roof_release(struct case_roof *r); /* frees r itself too; NULL is fine */
/* The measuring process's memory over a case (run/measure.c): its resident
 * set (RSS) from /proc/self/status. method "case": the high-water mark
 * (VmHWM) was reset when the case began (/proc/self/clear_refs "5"), so
 * peak is this case's own, from its setup to its last timed sample (the
 * harness's check afterwards is not in it); "process": the kernel would not
 * reset it, so peak is the process's highest since it started (in a worker
 * that ran other cases before, theirs too: an upper bound). The process's
 * own footprint (bench, the plugin's libraries) is in both: start is the
 * resident set when the case began. known 0: not measured (older files, a
 * case that ended before its first sample). JSON case "memory". */
struct case_memory {
  int known;
  uint64_t peak_rss_bytes;
  uint64_t start_rss_bytes;
  char method[16]; /* "case" or "process" */
};

struct case_result {
  /* identity */
  char *plugin;
  char *backend;
  char *operation;
  size_t nparams;
  struct kv *params; /* in the plugin's declaration order, values as text */
  int index;         /* 0-based case index in the suite */

  /* outcome */
  enum case_status status;
  char *message;     /* skip reason, error, mismatch line, or NULL */
  char *stderr_tail; /* last lines the child wrote to stderr / its log, or NULL */
  int exit_code;     /* child's exit code, or -1 */
  int signal;        /* signal that killed the child, or 0 */
  double wall_s;     /* wall time of the whole case (child start to end) */

  /* measurement */
  double flops, bytes;  /* per iteration */
  enum work_source work_source; /* whose figure flops and bytes are */
  int batch;            /* iterations per sample */
  int warmup_iters;
  size_t nsamples;
  double *host_clock_ns; /* per-iteration host-clock time of each sample (JSON samples.host_ns) */
  double *device_ns;    /* per-iteration device time of each sample, or NULL */
  struct stats host_clock; /* over host_clock_ns (JSON "host") */
  struct stats device;  /* over device_ns (n == 0 when not reported) */
  int settled;          /* 1 if the noise target was met */
  double target_noise;  /* the noise target the stopping rule had (0.02 = 2%) */
  char stop_rule[8];    /* which noise it bounded: "ci" (the median's 95% CI,
                           relative half-width) or "cv"; "" when unknown (a
                           file written before bench recorded it) */
  char *settle_note;    /* why it did not settle, or NULL */

  /* verification */
  struct check_result check;
  enum determinism determinism;
  char output_hash[17]; /* FNV-1a 64 of the checked output(s), hex, or "" */

  /* facts the plugin reported with set_info (device, driver, ...) */
  size_t ninfo;
  struct kv *info;

  /* per-item unit (ABI 1.1 "bench.items/1"): items per iteration, 0 = none */
  double items;
  char item_unit[32];   /* "elements", "loads", ...; "" when items == 0 */

  /* the GPU's state over the case; NULL when the plugin named no device
   * and reported no clock (CPU plugins, lavapipe) */
  struct case_telemetry *telemetry;
  double *clock_mhz;    /* in-band SM clock of each kept sample (JSON samples.clock_mhz), or NULL */

  /* the roof it was measured against; NULL when its results folder had no
   * measured roofs of its device (and in files written before them) */
  struct case_roof *roof;
  struct case_memory memory; /* the measuring process's peak RSS over the case */
};

/* 1 when the case ran to the end (OK) but nothing checked its output: an
 * operation "none" plugin without a self-check, or verify = none. Shown as
 * "unchecked" on its line, in the .txt and the rollup; --require-check
 * (require_check = true) makes such a case ERROR. */
int case_unchecked(const struct case_result *r);

/* Primary timing: device when reported, else host. */
const struct stats *case_time(const struct case_result *r);
const char *case_timer_name(const struct case_result *r); /* "device" or "host" */
/* Throughput from the primary median; 0 when not OK or no work stated. */
double case_gflops(const struct case_result *r);
double case_gbps(const struct case_result *r);
/* Per item (items > 0, OK, timed): primary median ns / items, and items per
 * second; 0 otherwise. */
double case_ns_per_item(const struct case_result *r);
double case_items_per_s(const struct case_result *r);

/* The case's one throughput, what bounds it (check/operation.h, "Primary
 * figure"): the case line, the .txt's throughput column, the Markdown
 * export, the events file and compare --by-operation all show this one;
 * every figure stays in the files. The kind, by the first rule that says:
 *   1. its operation is in the operation table: the table's primary;
 *   2. its plugin's info "primary" ("flops", "bytes", "items", "latency";
 *      operation "none" or "peak": the harness refuses any other value);
 *   3. items counted (bench.items/1): items; FLOPs and bytes both, below
 *      PRIMARY_BYTES_BELOW FLOP/byte: bytes; else flops, else bytes;
 *      no work stated: PRIMARY_NONE. */
enum op_primary case_primary_kind(const struct case_result *r);
struct case_figure {
  enum op_primary kind; /* case_primary_kind */
  double value;         /* GFLOP/s, GB/s, items per second, or ns per item (latency); 0: none */
  char unit[48];        /* "GFLOP/s", "GB/s", "loads/s", "ns/load" ("" without a value) */
};
/* The primary figure of r: its kind, and its value when r is OK, timed and
 * has what the kind needs (flops, bytes, items). 1 with a value, else 0 (a
 * kind the case has no figure for shows none: never another figure). */
int case_primary(const struct case_result *r, struct case_figure *out);
/* That figure as bench prints it: "47.66 GFLOP/s", "4.468 GB/s", "12.35 M
 * loads/s", "85.20 ns/load"; "" without a value. Caller frees. */
char *case_primary_text(const struct case_result *r);

/* init: everything zero/NULL except exit_code = -1 and check.first_bad = -1.
 * release frees what r owns and leaves it as init does. */
void case_result_init(struct case_result *r);
void case_result_release(struct case_result *r);
/* Append key = value (both copied); when key is already in the list its
 * value is replaced instead, so keys stay unique and keep their first place.
 * It searches the list: for the few keys a run sets one by one. The JSON
 * reader appends its keys (unique already) without it, and the rollup
 * looks parameters up in a hash (strmap), so 10^5 parameters stay linear. */
void kv_list_add(size_t *n, struct kv **list, const char *key, const char *value);
const char *kv_list_get(size_t n, const struct kv *list, const char *key); /* NULL if absent */
void kv_list_release(size_t *n, struct kv **list);

/* How steady the machine was over a run (run/steady.c reads it; compare's
 * default between-run term follows it). known 0: not recorded (files from
 * before it, a run cut short, no /proc). */
struct run_steady {
  int known;
  double wall_s;                       /* the span it covers */
  double load_start, load_end;         /* 1-minute load average per CPU */
  double others_start, others_end;     /* other runnable threads per CPU (procs_running, sampled) */
  double contention;                   /* the larger share of the calibration loop's wall time off a CPU */
  double drift;                        /* calibration loop's time at the end / at the start - 1 */
  double steal;                        /* steal share of CPU time over the run; NAN: unknown */
};

/* The sampling policy the run's cases ran under: the preset's [run] keys
 * after the command line's overrides (--min-samples, ...). known 0: not
 * recorded (files from before it). JSON env "sampling". */
struct run_sampling {
  int known;
  int warmup_iters;
  double warmup_s;
  int min_samples, max_samples;
  double min_time_s, max_time_s;
  double target_noise;
  char stop_rule[8];                   /* "ci" or "cv" */
  unsigned from_cli;                   /* bits 1u << RS_*: the keys the command line set */
};
/* The sampling keys, in the order of run_sampling_keys (their preset names:
 * "warmup_iters", "warmup_time", "min_samples", "max_samples", "min_time",
 * "max_time", "target_noise"). */
enum { RS_WARMUP_ITERS, RS_WARMUP_TIME, RS_MIN_SAMPLES, RS_MAX_SAMPLES, RS_MIN_TIME, RS_MAX_TIME,
       RS_TARGET_NOISE, RS_NKEYS };
extern const char *const run_sampling_keys[RS_NKEYS];

/* The environment of a run, recorded in the header of a run file. */
struct run_env {
  char *date;          /* local "YYYY-MM-DD" */
  char *started;       /* UTC ISO 8601 */
  char *hostname;      /* the machine's name (JSON "host") */
  char *cpu;           /* CPU model string */
  int cpus;            /* online CPUs */
  struct cpu_caches caches; /* the caches and the source of each (llc 0: not recorded) */
  char *os;            /* uname -srm */
  char *bench_version;
  char *git_revision;
  char *command;       /* the exact command line, shell-quoted */
  char *preset;        /* preset name ("smoke") or path */
  char *preset_sha256;
  char *tag;           /* --tag or NULL */
  char *label;         /* the build the run measured (JSON "label"): --label, else the
                          plugin's short commit, else run_id; NULL in older files */
  char *run_id;        /* the invocation's id, the same in every file of one bench
                          command ("2026-12-01T23:14:05Z-4711": its UTC start and pid);
                          NULL in older files */
  char *mode;          /* "perf" or "debug" */
  struct run_steady steady; /* JSON "steadiness", absent when not known */
  struct run_sampling sampling; /* JSON "sampling", absent when not known */
  /* The GPUs of the run as the JSON reader found them in env.devices (one
   * per bus id); the reader has already put each into the cases that name
   * it (their telemetry->facts). The writers ignore this list and build
   * theirs from the cases (run_file_devices). */
  size_t ndevices;
  struct gpu_facts *devices;
};
void run_env_release(struct run_env *e); /* frees the strings, leaves *e zeroed */

/* One result file: one plugin under one preset. */
struct run_file {
  struct run_env env;
  char *plugin;
  char *plugin_path;
  char *plugin_sha256;
  /* The git work tree the plugin file lies in (JSON plugin.git_*), NULL
   * where bench could not tell: its HEAD commit (40 hex), git_dirty 1 when
   * tracked files differ from it (-1 unknown), git describe --tags where a
   * tag reaches it. */
  char *plugin_commit;
  int plugin_dirty;
  char *plugin_describe;
  size_t ncases;
  struct case_result *cases;
};
/* A zeroed struct (memset 0 / = {0}) is an empty run file. release frees
 * everything, cases included, and leaves *f zeroed. */
void run_file_release(struct run_file *f);

/* The devices of a run for its header: the facts of the cases' telemetry,
 * one per distinct (non-empty) bus id, the first case's facts for each, in
 * the order first seen. *out is a new array (NULL when none); returns the
 * count. */
size_t run_file_devices(const struct run_file *f, struct gpu_facts **out);
/* 1 when f holds nothing (no strings, no value). */
int gpu_facts_empty(const struct gpu_facts *f);
/* 1 when a and b say the same (strings, and each value's have and, when
 * had, its number). */
int gpu_facts_same(const struct gpu_facts *a, const struct gpu_facts *b);
/* The throttle reasons of bits (GPU_THR_*) joined by sep ('+' in the
 * text and CSV forms: "sw_power_cap+hw_thermal"); "" for none. */
void gpu_throttle_joined(unsigned bits, char sep, char *buf, size_t len);
/* One line of what the GPU did over a case, for the .txt and the terminal:
 * "sm 1980 MHz (min 1755), mem 2619 MHz, 512/700 W (max 690), 61 C,
 * throttle: sw_power_cap (power 12 ms); in-band 1975 MHz (min 1080, 6
 * samples); 3 throttled samples discarded (0.35 s recovery)"; only what
 * was read; "no readings" when nothing was. Caller frees. */
char *case_telemetry_text(const struct case_telemetry *t);
/* "default", "exclusive_thread", "prohibited", "exclusive_process" for
 * NVML's compute modes 0..3; NULL otherwise. */
const char *gpu_compute_mode_name(double mode);

/* Facts a run file bench wrote always holds (case_rules in result.c): no
 * negative index, wall_s, flops, bytes, batch or warmup_iters, no
 * non-finite wall_s/flops/bytes, an exit code of -1 or 0..255, no negative
 * signal, no OK case with a failed check or killed by a signal. 0, or -1
 * with "cases[N]: <what>" in err for the first contradiction. The JSON
 * reader reads such files exactly (round trips stay exact); the rollup
 * refuses them. */
int run_file_validate(const struct run_file *f, char *err, size_t errlen);
/* Also refused: telemetry numbers that are negative or not finite (a
 * temperature below -50 C), an XCD count outside 0..GPU_MAX_XCD, a
 * samples.clock_mhz value that is negative or infinite (NaN, JSON null:
 * that sample had no in-band clock), and a case whose telemetry refers to
 * a device env.devices lacks. While the JSON reader waits for
 * env.devices, such a case's telemetry->facts holds only the bus id and
 * persistence.have == GPU_FACTS_PENDING. */
#define GPU_FACTS_PENDING (-1)

#endif
