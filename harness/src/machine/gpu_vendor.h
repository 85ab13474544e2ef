/* What the GPU telemetry reader (gpu_telemetry.c) shares with its sources:
 * NVML (gpu_nvml.c), AMD SMI (gpu_amdsmi.c) and ROCm SMI (gpu_rsmi.c), each
 * on a dlopen'ed library, and the amdgpu driver's sysfs files (gpu_sysfs.c);
 * each reads a device's facts and readings by index. */
#ifndef BENCH_GPU_VENDOR_H
#define BENCH_GPU_VENDOR_H

#include <stddef.h>
#include <stdint.h>

#include "gpu_telemetry.h"

struct gpu_nvml;
struct gpu_amdsmi;
struct gpu_rsmi;
struct gpu_sysfs;

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

/* AMD SMI (libamd_smi.so); file: the library's name, for the note. NULL
 * also when it initialises but finds no AMD GPU (the next source may). */
struct gpu_amdsmi *gpu_amdsmi_open(void *lib, const char *file, int *count, char *gaps, size_t gaps_len, char *note,
                                   size_t note_len);
void gpu_amdsmi_close(struct gpu_amdsmi *a);
void gpu_amdsmi_facts(const struct gpu_amdsmi *a, int index, struct gpu_facts *f);
void gpu_amdsmi_read(const struct gpu_amdsmi *a, int index, struct gpu_reading *r);

/* The amdgpu devices under sysfs_root (NULL or "": /sys)/class/drm; NULL
 * when there is none. */
struct gpu_sysfs *gpu_sysfs_open(const char *sysfs_root, int *count, char *gaps, size_t gaps_len, char *note,
                                 size_t note_len);
void gpu_sysfs_close(struct gpu_sysfs *s);
void gpu_sysfs_facts(const struct gpu_sysfs *s, int index, struct gpu_facts *f);
void gpu_sysfs_read(const struct gpu_sysfs *s, int index, struct gpu_reading *r);

/* AMD's ASIC-independent throttle bits (the kernel's SMU_THROTTLER_*_BIT,
 * gpu_metrics' indep_throttle_status) as GPU_THR_* bits:
 *   bits  0-15 package power tracking (PPT0-3, SPL, FPPT, SPPT)  sw_power_cap
 *   bits 16-31 current limits (TDC, EDC, APCC)                   hw_slowdown
 *   bits 32-43 temperature controllers (GPU, core, mem, edge,
 *              hotspot, SoC, VR, liquid)                          sw_thermal
 *   bits 44-47 VRHOT and PROCHOT, hardware signals                hw_thermal
 *   anything else (PPM, FIT, bits the kernel has not named)       other */
unsigned gpu_amd_throttle_bits(uint64_t indep);

/* Points fd 2 at /dev/null around a library's init (ROCm SMI prints its
 * own failure there); returns what gpu_stderr_restore needs, -1 when it
 * could not (then nothing changed). Not thread-safe against other writers
 * of stderr during the call. */
int gpu_stderr_quiet(void);
void gpu_stderr_restore(int saved);

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
