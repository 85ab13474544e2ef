/* What the GPU telemetry reader (gpu_telemetry.c) shares with its two
 * vendors, NVML (gpu_nvml.c) and ROCm SMI (gpu_rsmi.c): each opens on a
 * dlopen'ed library, reads a device's facts and readings by index. */
#ifndef BENCH_GPU_VENDOR_H
#define BENCH_GPU_VENDOR_H

#include <stddef.h>

#include "gpu_telemetry.h"

struct gpu_nvml;
struct gpu_rsmi;

/* Initialises the library; NULL with the reason in note. What it cannot
 * read on this system goes to gaps (comma-separated). */
struct gpu_nvml *gpu_nvml_open(void *lib, int *count, char *gaps, size_t gaps_len, char *note, size_t note_len);
void gpu_nvml_close(struct gpu_nvml *n);
void gpu_nvml_facts(const struct gpu_nvml *n, int index, struct gpu_facts *f);
void gpu_nvml_read(const struct gpu_nvml *n, int index, struct gpu_reading *r);

/* file: the library's name, for the note. */
struct gpu_rsmi *gpu_rsmi_open(void *lib, const char *file, int *count, char *gaps, size_t gaps_len, char *note,
                               size_t note_len);
void gpu_rsmi_close(struct gpu_rsmi *s);
void gpu_rsmi_facts(const struct gpu_rsmi *s, int index, struct gpu_facts *f);
void gpu_rsmi_read(const struct gpu_rsmi *s, int index, struct gpu_reading *r);

/* v when lo <= v <= hi (and not NaN), else absent. */
struct gpu_value gpu_value_in(double v, double lo, double hi);
static inline struct gpu_value gpu_clock_mhz(double v) { return gpu_value_in(v, 0, 10000); }
static inline struct gpu_value gpu_power_w(double v) { return gpu_value_in(v, 0, 10000); }
static inline struct gpu_value gpu_temp_c(double v) { return gpu_value_in(v, -50, 200); }

/* dlsym of the first of names (NULL-terminated) that lib has, into the
 * function pointer at fn_ptr (NULL when none). */
void gpu_dlsym_first(void *lib, void *fn_ptr, const char *const *names);
#define GPU_LOAD(lib, fn, ...) gpu_dlsym_first((lib), &(fn), (const char *const[]){__VA_ARGS__, NULL})

/* Appends what to gaps, comma-separated. */
void gpu_gap_add(char *gaps, size_t len, const char *what);

#endif
