/* The amdgpu driver's own files under sysfs, for the GPU telemetry reader
 * when no management library opens (library name "sysfs"). Root: the
 * environment's BENCH_SYSFS_ROOT (where sysfs is mounted, default /sys; the
 * same variable machine/cpu_caches.c reads). Per device
 * <root>/class/drm/card<N>/device (a link to the PCI device, whose name is
 * the bus id), vendor 0x1002 only:
 *   hwmon/hwmon*: freq1_input (GFX clock, Hz), freq2_input (memory clock,
 *     Hz), power1_average or power1_input (uW), power1_cap (uW),
 *     temp<i>_input (mC) with temp<i>_label edge / junction / mem;
 *   pp_dpm_sclk, pp_dpm_mclk ("1: 2100Mhz *"): the highest level is the
 *     maximum clock; product_name, device: the name;
 *   gpu_metrics: the kernel's struct gpu_metrics_v1_x (kgd_pp_interface.h,
 *     naturally aligned); read only for the layouts checked against it:
 *     v1.3 (indep_throttle_status at 112: the throttle reasons; clocks,
 *     power at 22), v1.4, v1.5 and v1.6 (MI300: current_gfxclk[8] per XCD at
 *     240, 312, 336; current socket power at 10; their throttle_status is
 *     ASIC dependent and not read). Any other version: not read (gaps).
 * It cannot tell other processes or throttle time. <root>/module/amdgpu/
 * version is the driver's version where the driver has one (DKMS). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "gpu_vendor.h"

/* struct metrics_table_header and the parts of gpu_metrics_v1_3..6 read
 * here, with the kernel's field order and types. */
struct fs_metrics_v1_3 {
  uint16_t structure_size;
  uint8_t format_revision, content_revision;
  uint16_t temperature_edge, temperature_hotspot, temperature_mem, temperature_vrgfx, temperature_vrsoc,
      temperature_vrmem;
  uint16_t average_gfx_activity, average_umc_activity, average_mm_activity;
  uint16_t average_socket_power;
  uint64_t energy_accumulator, system_clock_counter;
  uint16_t average_clocks[7];
  uint16_t current_gfxclk, current_socclk, current_uclk, current_vclk0, current_dclk0, current_vclk1, current_dclk1;
  uint32_t throttle_status;
  uint16_t current_fan_speed, pcie_link_width, pcie_link_speed, padding;
  uint32_t gfx_activity_acc, mem_activity_acc;
  uint16_t temperature_hbm[4];
  uint64_t firmware_timestamp;
  uint16_t voltage_soc, voltage_gfx, voltage_mem, padding1;
  uint64_t indep_throttle_status;
};
_Static_assert(offsetof(struct fs_metrics_v1_3, current_gfxclk) == 54, "gpu_metrics_v1_3.current_gfxclk");
_Static_assert(offsetof(struct fs_metrics_v1_3, indep_throttle_status) == 112, "gpu_metrics_v1_3.indep");
_Static_assert(sizeof(struct fs_metrics_v1_3) == 120, "gpu_metrics_v1_3");

/* v1.4 and v1.5 differ only before energy_accumulator (v1.5 adds
 * jpeg_activity[32]) and v1.5 adds the PCIe NAK counts before the XGMI
 * counters; v1.6 adds six throttle residency counters after
 * system_clock_counter. Each ends in current_gfxclk[8], current_socclk[4],
 * current_vclk0[4], current_dclk0[4], current_uclk, padding. */
struct fs_metrics_mi300_tail {
  uint16_t current_gfxclk[8], current_socclk[4], current_vclk0[4], current_dclk0[4], current_uclk, padding;
};
struct fs_metrics_v1_4 {
  uint16_t structure_size;
  uint8_t format_revision, content_revision;
  uint16_t temperature_hotspot, temperature_mem, temperature_vrsoc;
  uint16_t curr_socket_power;
  uint16_t average_gfx_activity, average_umc_activity, vcn_activity[4];
  uint64_t energy_accumulator, system_clock_counter;
  uint32_t throttle_status, gfxclk_lock_status;
  uint16_t pcie_link_width, pcie_link_speed, xgmi_link_width, xgmi_link_speed;
  uint32_t gfx_activity_acc, mem_activity_acc;
  uint64_t pcie_bandwidth_acc, pcie_bandwidth_inst, pcie_l0_to_recov_count_acc, pcie_replay_count_acc,
      pcie_replay_rover_count_acc;
  uint64_t xgmi_read_data_acc[8], xgmi_write_data_acc[8];
  uint64_t firmware_timestamp;
  struct fs_metrics_mi300_tail clocks;
};
struct fs_metrics_v1_5 {
  uint16_t structure_size;
  uint8_t format_revision, content_revision;
  uint16_t temperature_hotspot, temperature_mem, temperature_vrsoc;
  uint16_t curr_socket_power;
  uint16_t average_gfx_activity, average_umc_activity, vcn_activity[4], jpeg_activity[32];
  uint64_t energy_accumulator, system_clock_counter;
  uint32_t throttle_status, gfxclk_lock_status;
  uint16_t pcie_link_width, pcie_link_speed, xgmi_link_width, xgmi_link_speed;
  uint32_t gfx_activity_acc, mem_activity_acc;
  uint64_t pcie_bandwidth_acc, pcie_bandwidth_inst, pcie_l0_to_recov_count_acc, pcie_replay_count_acc,
      pcie_replay_rover_count_acc;
  uint32_t pcie_nak_sent_count_acc, pcie_nak_rcvd_count_acc;
  uint64_t xgmi_read_data_acc[8], xgmi_write_data_acc[8];
  uint64_t firmware_timestamp;
  struct fs_metrics_mi300_tail clocks;
};
struct fs_metrics_v1_6 {
  uint16_t structure_size;
  uint8_t format_revision, content_revision;
  uint16_t temperature_hotspot, temperature_mem, temperature_vrsoc;
  uint16_t curr_socket_power;
  uint16_t average_gfx_activity, average_umc_activity, vcn_activity[4], jpeg_activity[32];
  uint64_t energy_accumulator, system_clock_counter;
  uint32_t accumulation_counter, prochot_residency_acc, ppt_residency_acc, socket_thm_residency_acc,
      vr_thm_residency_acc, hbm_thm_residency_acc;
  uint32_t throttle_status, gfxclk_lock_status;
  uint16_t pcie_link_width, pcie_link_speed, xgmi_link_width, xgmi_link_speed;
  uint32_t gfx_activity_acc, mem_activity_acc;
  uint64_t pcie_bandwidth_acc, pcie_bandwidth_inst, pcie_l0_to_recov_count_acc, pcie_replay_count_acc,
      pcie_replay_rover_count_acc;
  uint32_t pcie_nak_sent_count_acc, pcie_nak_rcvd_count_acc;
  uint64_t xgmi_read_data_acc[8], xgmi_write_data_acc[8];
  uint64_t firmware_timestamp;
  struct fs_metrics_mi300_tail clocks;
};
_Static_assert(offsetof(struct fs_metrics_v1_4, clocks) == 240, "gpu_metrics_v1_4.current_gfxclk");
_Static_assert(offsetof(struct fs_metrics_v1_4, clocks.current_uclk) == 280, "gpu_metrics_v1_4.current_uclk");
_Static_assert(sizeof(struct fs_metrics_v1_4) == 288, "gpu_metrics_v1_4");
_Static_assert(offsetof(struct fs_metrics_v1_5, energy_accumulator) == 88, "gpu_metrics_v1_5.energy");
_Static_assert(offsetof(struct fs_metrics_v1_5, clocks) == 312, "gpu_metrics_v1_5.current_gfxclk");
_Static_assert(sizeof(struct fs_metrics_v1_5) == 360, "gpu_metrics_v1_5");
_Static_assert(offsetof(struct fs_metrics_v1_6, throttle_status) == 128, "gpu_metrics_v1_6.throttle_status");
_Static_assert(offsetof(struct fs_metrics_v1_6, clocks) == 336, "gpu_metrics_v1_6.current_gfxclk");
_Static_assert(sizeof(struct fs_metrics_v1_6) == 384, "gpu_metrics_v1_6");

struct fs_device {
  char dir[PATH_MAX];   /* <root>/class/drm/cardN/device */
  char hwmon[PATH_MAX]; /* its hwmon/hwmonM, "" when none */
  char bus_id[GPU_BUS_ID_LEN];
};

struct gpu_sysfs {
  char root[PATH_MAX];
  int count;
  struct fs_device dev[GPU_MAX_DEVICES];
};

/* The first line of a file, without its newline; -1 when it cannot be read. */
static int fs_line(const char *dir, const char *name, char *buf, size_t len) {
  char path[PATH_MAX];
  if (snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path) return -1;
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  char *got = fgets(buf, (int)len, f);
  fclose(f);
  if (!got) return -1;
  buf[strcspn(buf, "\n")] = 0;
  return 0;
}

/* A file holding one decimal integer; -1 when it holds none. */
static int fs_int(const char *dir, const char *name, long long *v) {
  char buf[64], *end;
  if (!*dir || fs_line(dir, name, buf, sizeof buf) != 0) return -1;
  errno = 0;
  *v = strtoll(buf, &end, 10);
  return errno || end == buf || (*end && *end != ' ') ? -1 : 0;
}

/* The highest level of a pp_dpm_* file, MHz. */
static struct gpu_value fs_dpm_max(const char *dir, const char *name) {
  struct gpu_value best = {0, 0};
  char path[PATH_MAX], line[128];
  if (snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path) return best;
  FILE *f = fopen(path, "r");
  if (!f) return best;
  while (fgets(line, sizeof line, f)) {
    unsigned level;
    double mhz;
    char unit[8];
    if (sscanf(line, "%u: %lf%7[a-zA-Z]", &level, &mhz, unit) != 3 || strcasecmp(unit, "mhz") != 0) continue;
    struct gpu_value v = gpu_clock_mhz(mhz);
    if (v.have && (!best.have || v.v > best.v)) best = v;
  }
  fclose(f);
  return best;
}

/* gpu_metrics read whole into buf (at most len bytes); its length, or -1. */
static ssize_t fs_metrics(const struct fs_device *d, void *buf, size_t len) {
  char path[PATH_MAX];
  if (snprintf(path, sizeof path, "%s/gpu_metrics", d->dir) >= (int)sizeof path) return -1;
  FILE *f = fopen(path, "rb");
  if (!f) return -1;
  size_t n = fread(buf, 1, len, f);
  fclose(f);
  return (ssize_t)n;
}

/* The layout version a gpu_metrics of n bytes has: 3..6 for v1.3..1.6 when
 * the file is as long as that struct, 0 otherwise; what it is in *fmt,
 * *content (0 when there is no file). */
static int fs_metrics_version(const unsigned char *buf, ssize_t n, int *fmt, int *content) {
  static const size_t need[] = {0, 0, 0, sizeof(struct fs_metrics_v1_3), sizeof(struct fs_metrics_v1_4),
                                sizeof(struct fs_metrics_v1_5), sizeof(struct fs_metrics_v1_6)};
  *fmt = *content = 0;
  if (n < 4) return 0;
  uint16_t size;
  memcpy(&size, buf, sizeof size);
  *fmt = buf[2];
  *content = buf[3];
  if (*fmt != 1 || *content < 3 || *content > 6) return 0;
  size_t want = need[*content];
  return (size_t)n >= want && size >= want ? *content : 0;
}

static void fs_hwmon(struct fs_device *d) {
  char path[PATH_MAX];
  d->hwmon[0] = 0;
  if (snprintf(path, sizeof path, "%s/hwmon", d->dir) >= (int)sizeof path) return;
  DIR *dir = opendir(path);
  if (!dir) return;
  struct dirent *e;
  while ((e = readdir(dir)) != NULL) {
    if (strncmp(e->d_name, "hwmon", 5) != 0) continue;
    if (snprintf(d->hwmon, sizeof d->hwmon, "%s/%s", path, e->d_name) >= (int)sizeof d->hwmon) d->hwmon[0] = 0;
    break;
  }
  closedir(dir);
}

static int fs_cmp_int(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

/* The card numbers under <root>/class/drm, ascending. */
static int fs_cards(const char *drm, int *cards, int max) {
  DIR *dir = opendir(drm);
  if (!dir) return -1;
  int n = 0;
  struct dirent *e;
  while ((e = readdir(dir)) != NULL && n < max) {
    const char *p = e->d_name;
    if (strncmp(p, "card", 4) != 0 || !p[4] || strspn(p + 4, "0123456789") != strlen(p + 4)) continue;
    cards[n++] = atoi(p + 4);
  }
  closedir(dir);
  qsort(cards, (size_t)n, sizeof *cards, fs_cmp_int);
  return n;
}

/* Fills d for card N when it is an amdgpu device; 0 when it is. */
static int fs_device(const char *drm, int card, struct fs_device *d) {
  char link[PATH_MAX], target[PATH_MAX], vendor[32];
  if (snprintf(d->dir, sizeof d->dir, "%s/card%d/device", drm, card) >= (int)sizeof d->dir) return -1;
  if (fs_line(d->dir, "vendor", vendor, sizeof vendor) != 0 || strtol(vendor, NULL, 16) != 0x1002) return -1;
  snprintf(link, sizeof link, "%s", d->dir);
  ssize_t n = readlink(link, target, sizeof target - 1);
  d->bus_id[0] = 0;
  if (n > 0) {
    target[n] = 0;
    const char *base = strrchr(target, '/');
    if (gpu_bus_id_normalise(base ? base + 1 : target, d->bus_id) != 0) d->bus_id[0] = 0;
  }
  fs_hwmon(d);
  return 0;
}

struct gpu_sysfs *gpu_sysfs_open(const char *sysfs_root, int *count, char *gaps, size_t gaps_len, char *note,
                                 size_t note_len) {
  const char *root = sysfs_root && *sysfs_root ? sysfs_root : "/sys";
  char drm[PATH_MAX + 16];
  snprintf(drm, sizeof drm, "%s/class/drm", root);
  struct gpu_sysfs *s = calloc(1, sizeof *s);
  if (!s) {
    snprintf(note, note_len, "sysfs: out of memory");
    return NULL;
  }
  snprintf(s->root, sizeof s->root, "%s", root);
  int cards[256];
  int n = fs_cards(drm, cards, 256);
  for (int i = 0; i < n && s->count < GPU_MAX_DEVICES; i++)
    if (fs_device(drm, cards[i], &s->dev[s->count]) == 0) s->count++;
  if (s->count == 0) {
    snprintf(note, note_len, "sysfs: no amdgpu device in %s", drm);
    free(s);
    return NULL;
  }
  *count = s->count;
  /* What the devices' gpu_metrics can tell. */
  int throttle = 0, other_fmt = 0, other_content = 0;
  for (int i = 0; i < s->count; i++) {
    unsigned char buf[512];
    int fmt, content;
    int v = fs_metrics_version(buf, fs_metrics(&s->dev[i], buf, sizeof buf), &fmt, &content);
    throttle |= v == 3;
    if (v == 0 && fmt) {
      other_fmt = fmt;
      other_content = content;
    }
  }
  char what[96];
  if (other_fmt) {
    snprintf(what, sizeof what, "sysfs: gpu_metrics v%d.%d not read", other_fmt, other_content);
    gpu_gap_add(gaps, gaps_len, what);
  }
  if (!throttle) gpu_gap_add(gaps, gaps_len, "sysfs: no throttle reasons (only gpu_metrics v1.3 has them)");
  gpu_gap_add(gaps, gaps_len, "sysfs: no throttle time or process list");
  return s;
}

void gpu_sysfs_close(struct gpu_sysfs *s) { free(s); }

static struct gpu_value fs_scaled(const char *dir, const char *name, double scale,
                                  struct gpu_value (*check)(double)) {
  struct gpu_value none = {0, 0};
  long long v;
  if (fs_int(dir, name, &v) != 0) return none;
  return check((double)v * scale);
}

static struct gpu_value fs_mhz(double v) { return gpu_clock_mhz(v); }
static struct gpu_value fs_w(double v) { return gpu_power_w(v); }
static struct gpu_value fs_c(double v) { return gpu_temp_c(v); }

/* The hwmon temperature labelled label (temp1..temp8), C. */
static struct gpu_value fs_temp(const struct fs_device *d, const char *label) {
  struct gpu_value none = {0, 0};
  for (int i = 1; i <= 8 && d->hwmon[0]; i++) {
    char name[32], got[32];
    snprintf(name, sizeof name, "temp%d_label", i);
    if (fs_line(d->hwmon, name, got, sizeof got) != 0 || strcmp(got, label) != 0) continue;
    snprintf(name, sizeof name, "temp%d_input", i);
    return fs_scaled(d->hwmon, name, 1e-3, fs_c);
  }
  return none;
}

/* Per-XCD clocks of an MI300 gpu_metrics tail into r; their mean. */
static struct gpu_value fs_xcds(const struct fs_metrics_mi300_tail *c, struct gpu_reading *r) {
  struct gpu_value mean = {0, 0};
  int last = -1, present = 0;
  double sum = 0;
  for (int i = 0; i < GPU_MAX_XCD; i++) {
    r->xcd_clock_mhz[i] = gpu_clock_mhz(c->current_gfxclk[i]);
    if (!r->xcd_clock_mhz[i].have) continue;
    last = i;
    present++;
    sum += r->xcd_clock_mhz[i].v;
  }
  r->nxcd = present >= 2 ? last + 1 : 0;
  if (!r->nxcd) memset(r->xcd_clock_mhz, 0, sizeof r->xcd_clock_mhz);
  if (present) mean = gpu_clock_mhz(sum / present);
  return mean;
}

void gpu_sysfs_read(const struct gpu_sysfs *s, int index, struct gpu_reading *r) {
  const struct fs_device *d = &s->dev[index];
  r->sm_clock_mhz = fs_scaled(d->hwmon, "freq1_input", 1e-6, fs_mhz);
  r->mem_clock_mhz = fs_scaled(d->hwmon, "freq2_input", 1e-6, fs_mhz);
  r->power_w = fs_scaled(d->hwmon, "power1_average", 1e-6, fs_w);
  if (!r->power_w.have) r->power_w = fs_scaled(d->hwmon, "power1_input", 1e-6, fs_w);
  /* An MI300 has no edge sensor: its junction (hotspot) stands in. */
  r->temp_c = fs_temp(d, "edge");
  if (!r->temp_c.have) r->temp_c = fs_temp(d, "junction");
  r->mem_temp_c = fs_temp(d, "mem");

  union {
    unsigned char b[512];
    struct fs_metrics_v1_3 v3;
    struct fs_metrics_v1_4 v4;
    struct fs_metrics_v1_5 v5;
    struct fs_metrics_v1_6 v6;
  } m;
  memset(&m, 0, sizeof m);
  int fmt, content;
  int v = fs_metrics_version(m.b, fs_metrics(d, m.b, sizeof m.b), &fmt, &content);
  const struct fs_metrics_mi300_tail *tail = v == 4 ? &m.v4.clocks : v == 5 ? &m.v5.clocks : &m.v6.clocks;
  uint16_t socket_power = v == 3   ? m.v3.average_socket_power
                          : v == 4 ? m.v4.curr_socket_power
                          : v == 5 ? m.v5.curr_socket_power
                                   : m.v6.curr_socket_power;
  if (v == 3) {
    if (m.v3.indep_throttle_status != UINT64_MAX) {
      r->throttle.have = 1;
      r->throttle.v = gpu_amd_throttle_bits(m.v3.indep_throttle_status);
    }
    if (!r->sm_clock_mhz.have) r->sm_clock_mhz = gpu_clock_mhz(m.v3.current_gfxclk);
    if (!r->mem_clock_mhz.have) r->mem_clock_mhz = gpu_clock_mhz(m.v3.current_uclk);
  } else if (v >= 4) {
    struct gpu_value mean = fs_xcds(tail, r);
    if (!r->sm_clock_mhz.have) r->sm_clock_mhz = mean;
    if (!r->mem_clock_mhz.have) r->mem_clock_mhz = gpu_clock_mhz(tail->current_uclk);
  }
  if (v && !r->power_w.have) r->power_w = gpu_power_w(socket_power);
}

void gpu_sysfs_facts(const struct gpu_sysfs *s, int index, struct gpu_facts *f) {
  const struct fs_device *d = &s->dev[index];
  char id[32];
  if (fs_line(d->dir, "product_name", f->name, sizeof f->name) != 0 || !f->name[0]) {
    f->name[0] = 0;
    if (fs_line(d->dir, "device", id, sizeof id) == 0)
      snprintf(f->name, sizeof f->name, "AMD GPU [1002:%04lx]", strtoul(id, NULL, 16) & 0xffff);
  }
  char module[PATH_MAX + 16];
  snprintf(module, sizeof module, "%s/module/amdgpu", s->root);
  if (fs_line(module, "version", f->driver, sizeof f->driver) != 0) f->driver[0] = 0;
  snprintf(f->bus_id, sizeof f->bus_id, "%s", d->bus_id);
  f->max_sm_clock_mhz = fs_dpm_max(d->dir, "pp_dpm_sclk");
  f->max_mem_clock_mhz = fs_dpm_max(d->dir, "pp_dpm_mclk");
  f->power_limit_w = fs_scaled(d->hwmon, "power1_cap", 1e-6, fs_w);
}
