/* Roofs per device, and the roof of each case: what bench report's
 * roofline draws and its "% of roof" column divides by, and what a run
 * records with each case (case_result.roof).
 *
 * Where a device's roofs come from, first that has them:
 *   measured   the roofs files of the results folder, <dir>/roofs/<device>.tsv
 *              (bench peak writes them, results/roofs_file.h): the best OK
 *              record of each roof id (fp32, fp16_matrix, fp32.1t, l1, l2,
 *              l3, dram, lat_l1, launch, ...), matched to the cases by the
 *              device name (case_device_of). A file that is corrupt or not
 *              a roofs file is said in one warning naming it and ignored.
 *   best case  for a device without measured roofs: the best GFLOP/s of
 *              its GEMM cases (cpu_gemm, vk_gemm*, hip_gemm) per compute
 *              id, and the best GB/s of its copy cases (membw_cpu
 *              kernel=copy, vk_copy, hip_copy) per memory level;
 *   data sheet a short table of published peaks (published_peaks), for
 *              the ids neither of the above gave.
 * Bench report uses all three; a run records measured roofs only. */
#ifndef BENCH_ROOFS_H
#define BENCH_ROOFS_H

#include <stddef.h>

#include "analyze/result_set.h"

enum roof_kind { ROOF_COMPUTE = 0, ROOF_BANDWIDTH, ROOF_LATENCY };
enum roof_origin { ROOF_MEASURED = 0, ROOF_BEST_CASE, ROOF_DATASHEET };

/* One ceiling of a device. */
struct roof_line {
  char *id;              /* "fp32", "fp32.1t", "fp16_matrix", "l2", "dram", "lat_l1", "launch" */
  enum roof_kind kind;
  enum roof_origin origin;
  char *unit;            /* "GFLOP/s", "GB/s", "ns" (per item) */
  double value;          /* the figure (> 0) */
  double low, high;      /* its 95% interval (measured); 0 unknown */
  double capacity_bytes; /* a memory level's size; 0 unknown */
  double datasheet;      /* the device's own figure for it (measured roofs); 0 unknown */
  char *datasheet_how;   /* how that was computed; "" */
  char *source;          /* "measured 2026-12-01 by peak_cpu_bw kernel=copy size=16MiB",
                            "best case: cpu_gemm m=2048 dtype=f32 (2026-11-20)",
                            "data sheet: AMD MI300X data sheet" */
};

struct roof {
  char *device;          /* "AMD EPYC 9R14", "llvmpipe (LLVM 15.0.6, 256 bits)", ... */
  char *file;            /* the roofs file its lines came from; NULL: not measured */
  size_t n;
  struct roof_line *lines;
  size_t nnotes;
  char **notes;          /* what is missing or was refused: "no memory roof: vk_copy ... ERROR on
                            2026-11-21", "fp64 refused by bench peak: WRONG_ANSWER: ..." */
  double cap[3];         /* bytes of l1, l2, l3 (records' capacities, else a CPU's caches); 0 unknown */
};

struct roof_set {
  size_t n;
  struct roof *roofs;
};

/* The device a case ran on: its "device" info (GPU plugins), else the
 * run's CPU model (a CPU case), else its backend. As results/roofs_file.h
 * names the device of a roofs file. */
const char *case_device_of(const struct case_result *r, const struct run_env *env);
const char *case_device(const struct rs_entry *e); /* of e->r in e's run */

/* The measured roofs of results_dir (a folder, or a result file in one):
 * one roof per device named by a file of <dir>/roofs/<device>.tsv, with a line
 * per roof id that has an OK record and a note per refused one; a device
 * whose every record was refused has lines = 0 and its notes. Nothing
 * when the folder has no roofs. */
void roofs_load_measured(const char *results_dir, struct roof_set *out);

/* Roofs for bench report: the measured roofs of results_dir, then, for
 * every device with data among e[idx[0..n)] (an OK case with samples; a
 * plugin that was only SKIPPED adds none) and no measured line, its best
 * cases and the data sheet; a device still without a compute or a memory
 * roof has a note why ("no compute roof: ..."). */
void roofs_build(const struct result_set *s, const size_t *idx, size_t n, const char *results_dir,
                 struct roof_set *out);
const struct roof *roof_of(const struct roof_set *rs, const char *device); /* NULL if none */
const struct roof_line *roof_find(const struct roof *r, const char *id);   /* NULL if none */
void roofs_release(struct roof_set *rs);

/* The published table, for documentation and tests; ends with a NULL match. */
struct published_peak {
  const char *match;  /* case-insensitive substring of the device name */
  const char *name;
  double fp32, fp64;  /* vector peaks, GFLOP/s */
  double fp16_matrix, bf16_matrix; /* dense matrix-core peaks, GFLOP/s */
  double dram_gbps;   /* device memory bandwidth */
  const char *source;
};
extern const struct published_peak published_peaks[];

/* ---- a case's roof -------------------------------------------------------
 * The rule (roof_choose), the same for the report and the run:
 *  - a case that names the roof it measures (a peak plugin's info "roof")
 *    is measured against that roof;
 *  - the compute roof: the id of its "dtype" parameter (f32 fp32, f16 fp16,
 *    bf16 bf16, f64 fp64, i8/u8 int8; none or another: fp32), as
 *    <id>_matrix when the case is a GEMM (operation gemm, or "gemm" in its
 *    plugin's name) of f16, bf16 or i8 whose plugin name or a parameter
 *    value names matrix hardware or a vendor BLAS (mfma, wmma, mma, xdl,
 *    tensor, coopmat, matrix, rocblas, cublas, hipblaslt, cublaslt), and
 *    that roof is measured (else the vector roof, with a note);
 *  - the memory roof: the smallest level of l1, l2, l3 whose capacity
 *    holds the working set (the case's info "working_set_bytes", else its
 *    bytes per iteration), dram beyond; when that level has no roof, the
 *    next larger one that has, with a note;
 *  - a CPU case that ran one thread (info "threads", else its parameter,
 *    is 1) takes the ".1t" roof of each when there is one;
 *  - flops and bytes: a roofline, attainable = min(compute, AI x memory),
 *    id "fp32+l2"; flops only: the compute roof; bytes only: the memory
 *    roof (GB/s); a latency case (items per iteration and no flops or
 *    bytes, or items that are "loads" or "launches") against lat_<level>
 *    (or "launch"), share = roof ns / case ns per item.
 * A share over 100% always has a note saying which roof and why. */
struct roof_choice {
  char *id;          /* "fp32", "fp32+dram", "lat_l2"; the one wanted when missing */
  const char *unit;  /* "GFLOP/s", "GB/s", "ns"; "" when missing */
  double value;      /* the roof at this case (attainable); 0 when missing */
  double fraction;   /* the case's share of it (1 = 100%); < 0 when missing */
  char *source;      /* each line's source, "; "-joined; "" when missing */
  char *note;        /* NULL, or why it is over 100%, what stands in for what, or what is missing */
  const struct roof_line *compute, *memory, *latency; /* the lines used (into r) */
};
/* 0 when placed; 1 when the case has work but its roof is missing (id
 * and note say which); -1 when there is nothing to place (not OK, not
 * timed, no work): out is then empty. Release out with roof_choice_release. */
int roof_choose(const struct roof *r, const struct case_result *c, struct roof_choice *out);
void roof_choice_release(struct roof_choice *c);

/* At run time, as a case ends: its roof from the measured roofs of
 * results_dir (re-read each time, so a bench peak run sees its own
 * records), into r->roof; nothing when that device has no measured roof,
 * the case has nothing to place, or it is a peak plugin's case of a roof
 * the file does not hold yet (its first measurement). env is the run's
 * (CPU model, caches). */
void roofs_annotate(const char *results_dir, const struct run_env *env, struct case_result *r);

#endif
