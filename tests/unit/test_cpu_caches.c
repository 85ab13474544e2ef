/* The cache probe (harness/src/machine/cpu_caches.c): each source on its
 * own from recorded machines (a fake sysfs tree, CPUID registers read off
 * real CPUs), the order between them, the stated defaults, the text. */
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cpu_caches.h"
#include "test.h"

#define KIB ((int64_t)1 << 10)
#define MIB ((int64_t)1 << 20)

/* ---- a recorded CPUID -------------------------------------------------- */

struct reg_row {
  uint32_t leaf, sub, r[4]; /* eax, ebx, ecx, edx */
};
struct fake_cpu {
  const struct reg_row *rows;
  size_t n;
  int queries;
};

static void fake_cpuid(uint32_t leaf, uint32_t sub, uint32_t regs[4], void *arg) {
  struct fake_cpu *c = arg;
  c->queries++;
  memset(regs, 0, 4 * sizeof regs[0]);
  for (size_t i = 0; i < c->n; i++)
    if (c->rows[i].leaf == leaf && c->rows[i].sub == sub) memcpy(regs, c->rows[i].r, 4 * sizeof regs[0]);
}

#define FAKE(rows) {rows, sizeof rows / sizeof rows[0], 0}
#define AMD_VENDOR 0x68747541u, 0x444d4163u, 0x69746e65u   /* ebx ecx edx: "AuthenticAMD" */
#define INTEL_VENDOR 0x756e6547u, 0x6c65746eu, 0x49656e69u /* "GenuineIntel" */

/* AMD EPYC family 25 under Firecracker, 2 vCPU (read off the machine that
 * wrote this test): 0x8000001D gives L1d 32 KiB, L2 512 KiB, L3 32 MiB
 * shared by 2. */
static const struct reg_row zen3_vm[] = {
    {0, 0, {0x10, AMD_VENDOR}},
    {0x80000000u, 0, {0x80000022u, 0x68747541u, 0x444d4163u, 0x69746e65u}},
    {0x80000001u, 0, {0x00a00f11u, 0x40000000u, 0x004003f3u, 0x2fd3fbffu}},
    {0x80000005u, 0, {0xff40ff40u, 0xff40ff40u, 0x20080140u, 0x20080140u}},
    {0x80000006u, 0, {0x48002200u, 0x68004200u, 0x02006140u, 0x08009140u}},
    {0x8000001Du, 0, {0x00000121u, 0x01c0003fu, 0x0000003fu, 0}},
    {0x8000001Du, 1, {0x00000122u, 0x01c0003fu, 0x0000003fu, 0}},
    {0x8000001Du, 2, {0x00000143u, 0x01c0003fu, 0x000003ffu, 2}},
    {0x8000001Du, 3, {0x00004163u, 0x03c0003fu, 0x00007fffu, 1}},
};

/* A Zen 5 CCD (EPYC family 26): L1d 48 KiB 12-way, L2 1 MiB, L3 32 MiB
 * shared by the CCD's 16 logical CPUs; glibc's sysconf sums the package's
 * L3 (508 MiB on the machine of issue 20). */
static const struct reg_row zen5[] = {
    {0, 0, {0x10, AMD_VENDOR}},
    {0x80000000u, 0, {0x80000028u, 0, 0, 0}},
    {0x80000001u, 0, {0, 0, 1u << 22, 0}},
    {0x8000001Du, 0, {0x00004121u, 0x02c0003fu, 0x0000003fu, 0}},
    {0x8000001Du, 1, {0x00004122u, 0x01c0003fu, 0x0000003fu, 0}},
    {0x8000001Du, 2, {0x00004143u, 0x03c0003fu, 0x000003ffu, 2}},
    {0x8000001Du, 3, {0x0003c163u, 0x03c0003fu, 0x00007fffu, 1}},
};

/* Intel, leaf 4: L1d 48 KiB shared by 2, L1i skipped, L2 2 MiB, L3 60 MiB
 * (15 ways x 65536 sets) shared by 128. */
static const struct reg_row intel[] = {
    {0, 0, {0x20, INTEL_VENDOR}},
    {0x80000000u, 0, {0x80000008u, 0, 0, 0}},
    {4, 0, {0x00004121u, 0x02c0003fu, 0x0000003fu, 0}},
    {4, 1, {0x00004122u, 0x01c0003fu, 0x0000003fu, 0}},
    {4, 2, {0x00004143u, 0x03c0003fu, 0x000007ffu, 0}},
    {4, 3, {0x001fc163u, 0x0380003fu, 0x0000ffffu, 6}},
};

/* An old AMD without topology extensions: only the legacy leaves, which
 * give L1d 64 KiB, L2 512 KiB and the whole L3 (6 MiB) with no sharing. */
static const struct reg_row amd_legacy[] = {
    {0, 0, {0x6, AMD_VENDOR}},
    {0x80000000u, 0, {0x8000001Bu, 0, 0, 0}},
    {0x80000001u, 0, {0, 0, 0, 0}},
    {0x80000005u, 0, {0, 0, 0x40020140u, 0}},
    {0x80000006u, 0, {0, 0, 0x02006140u, 12u << 18}},
};

/* A hypervisor that passes the vendor through and zeroes the cache leaves. */
static const struct reg_row zeroed[] = {
    {0, 0, {0x10, AMD_VENDOR}},
    {0x80000000u, 0, {0x80000021u, 0, 0, 0}},
    {0x80000001u, 0, {0, 0, 1u << 22, 0}},
};

static void expect_level(const struct cpu_caches *c, int lv, int64_t bytes, int shared,
                         enum cache_source src) {
  CHECK(c->level[lv].bytes == bytes);
  CHECK(c->level[lv].shared_by == shared);
  CHECK(c->level[lv].source == src);
  if (c->level[lv].bytes != bytes || c->level[lv].source != src)
    fprintf(stderr, "  L%d: %lld bytes shared by %d from %s\n", lv, (long long)c->level[lv].bytes,
            c->level[lv].shared_by, cache_source_name(c->level[lv].source));
}

static void test_cpuid_amd_vm(void) {
  struct fake_cpu cpu = FAKE(zen3_vm);
  struct cpu_caches c = {0};
  CHECK(cpu_caches_from_cpuid(&c, fake_cpuid, &cpu) == 3);
  expect_level(&c, 1, 32 * KIB, 1, CACHE_CPUID);
  expect_level(&c, 2, 512 * KIB, 1, CACHE_CPUID);
  expect_level(&c, 3, 32 * MIB, 2, CACHE_CPUID);
  CHECK(c.level[4].bytes == 0);
}

static void test_cpuid_amd_ccd(void) {
  struct fake_cpu cpu = FAKE(zen5);
  struct cpu_caches c = {0};
  CHECK(cpu_caches_from_cpuid(&c, fake_cpuid, &cpu) == 3);
  expect_level(&c, 1, 48 * KIB, 2, CACHE_CPUID);
  expect_level(&c, 2, 1 * MIB, 2, CACHE_CPUID);
  expect_level(&c, 3, 32 * MIB, 16, CACHE_CPUID); /* one CCD's, not the package's */
}

static void test_cpuid_intel(void) {
  struct fake_cpu cpu = FAKE(intel);
  struct cpu_caches c = {0};
  CHECK(cpu_caches_from_cpuid(&c, fake_cpuid, &cpu) == 3);
  expect_level(&c, 1, 48 * KIB, 2, CACHE_CPUID);
  expect_level(&c, 2, 2 * MIB, 2, CACHE_CPUID);
  expect_level(&c, 3, 60 * MIB, 128, CACHE_CPUID);
}

static void test_cpuid_amd_legacy(void) {
  struct fake_cpu cpu = FAKE(amd_legacy);
  struct cpu_caches c = {0};
  CHECK(cpu_caches_from_cpuid(&c, fake_cpuid, &cpu) == 3);
  expect_level(&c, 1, 64 * KIB, 0, CACHE_CPUID);
  expect_level(&c, 2, 512 * KIB, 0, CACHE_CPUID);
  expect_level(&c, 3, 6 * MIB, 0, CACHE_CPUID);
}

static void test_cpuid_zeroed(void) {
  struct fake_cpu cpu = FAKE(zeroed);
  struct cpu_caches c = {0};
  CHECK(cpu_caches_from_cpuid(&c, fake_cpuid, &cpu) == 0);
  CHECK(cpu.queries > 0);
  for (int lv = 1; lv <= CACHE_LEVELS; lv++) CHECK(c.level[lv].bytes == 0);
}

/* A level a source already filled is not overwritten by a later one. */
static void test_cpuid_fills_only_unknown(void) {
  struct fake_cpu cpu = FAKE(zen5);
  struct cpu_caches c = {0};
  c.level[2] = (struct cache_level){768 * KIB, 1, CACHE_SYSFS};
  CHECK(cpu_caches_from_cpuid(&c, fake_cpuid, &cpu) == 2);
  expect_level(&c, 2, 768 * KIB, 1, CACHE_SYSFS);
  expect_level(&c, 3, 32 * MIB, 16, CACHE_CPUID);
}

/* ---- a fake sysfs -------------------------------------------------------- */

static char root_[64];

static void put_file(const char *rel, const char *text) {
  char path[512], dir[512];
  snprintf(path, sizeof path, "%s/%s", root_, rel);
  for (char *p = path + strlen(root_) + 1; (p = strchr(p, '/')); p++) {
    snprintf(dir, sizeof dir, "%.*s", (int)(p - path), path);
    mkdir(dir, 0755);
  }
  FILE *f = fopen(path, "w");
  if (!f) {
    perror(path);
    return;
  }
  fputs(text, f);
  fclose(f);
}

static void put_index(int i, const char *level, const char *type, const char *size,
                      const char *shared) {
  char rel[128];
#define PUT(name, value)                                                              \
  if (value) {                                                                        \
    snprintf(rel, sizeof rel, "devices/system/cpu/cpu0/cache/index%d/" name, i);      \
    put_file(rel, value);                                                             \
  }
  PUT("level", level);
  PUT("type", type);
  PUT("size", size);
  PUT("shared_cpu_list", shared);
#undef PUT
}

static int new_root(void) {
  snprintf(root_, sizeof root_, "%s/bench-caches.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
  return mkdtemp(root_) ? 0 : -1;
}

static void drop_root(void) {
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", root_);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", root_);
}

static void test_sysfs(void) {
  REQUIRE(new_root() == 0);
  put_index(0, "1\n", "Data\n", "32K\n", "0-1\n");
  put_index(1, "1\n", "Instruction\n", "64K\n", "0-1\n");
  put_index(2, "2\n", "Unified\n", "1024K\n", "0-1\n");
  put_index(3, "3\n", "Unified\n", "32768K\n", "0-7,16-23\n");
  struct cpu_caches c = {0};
  CHECK(cpu_caches_from_sysfs(&c, root_) == 3);
  expect_level(&c, 1, 32 * KIB, 2, CACHE_SYSFS);
  expect_level(&c, 2, 1 * MIB, 2, CACHE_SYSFS);
  expect_level(&c, 3, 32 * MIB, 16, CACHE_SYSFS);
  drop_root();
}

/* Broken files are skipped, not trusted: a size in no known format, a
 * level out of range, an index with no size. */
static void test_sysfs_broken(void) {
  REQUIRE(new_root() == 0);
  put_index(0, "1\n", "Data\n", "lots\n", NULL);
  put_index(1, "9\n", "Unified\n", "1M\n", NULL);
  put_index(2, "2\n", "Unified\n", NULL, NULL);
  put_index(3, "2\n", "Unified\n", "2M\n", "garbage");
  struct cpu_caches c = {0};
  CHECK(cpu_caches_from_sysfs(&c, root_) == 1);
  CHECK(c.level[1].bytes == 0);
  expect_level(&c, 2, 2 * MIB, 0, CACHE_SYSFS);
  drop_root();
}

/* No cache folder at all (the Firecracker VM of issue 20). */
static void test_sysfs_absent(void) {
  REQUIRE(new_root() == 0);
  put_file("devices/system/cpu/online", "0-1\n");
  struct cpu_caches c = {0};
  CHECK(cpu_caches_from_sysfs(&c, root_) == 0);
  for (int lv = 1; lv <= CACHE_LEVELS; lv++) CHECK(c.level[lv].bytes == 0);
  drop_root();
}

/* ---- the probe: order, defaults, text ---------------------------------- */

static void test_probe_order(void) {
  REQUIRE(new_root() == 0);
  put_index(0, "1", "Data", "48K", "0");
  put_index(1, "2", "Unified", "1M", "0");
  struct fake_cpu cpu = FAKE(zen5);
  struct cpu_caches c;
  char err[128];
  /* sysfs knows L1 and L2; the L3 comes from CPUID. */
  CHECK(cpu_caches_probe(&c, "sysfs,cpuid,sysconf", root_, fake_cpuid, &cpu, err, sizeof err) == 0);
  expect_level(&c, 1, 48 * KIB, 1, CACHE_SYSFS);
  expect_level(&c, 2, 1 * MIB, 1, CACHE_SYSFS);
  expect_level(&c, 3, 32 * MIB, 16, CACHE_CPUID);
  CHECK(c.llc == 3);
  CHECK(!cpu_caches_any_default(&c));
  /* The order is the caller's. */
  cpu.queries = 0;
  CHECK(cpu_caches_probe(&c, "cpuid,sysfs", root_, fake_cpuid, &cpu, err, sizeof err) == 0);
  expect_level(&c, 1, 48 * KIB, 2, CACHE_CPUID);
  /* Without cpuid in the list, CPUID is never asked. */
  cpu.queries = 0;
  CHECK(cpu_caches_probe(&c, "sysfs", root_, fake_cpuid, &cpu, err, sizeof err) == 0);
  CHECK(cpu.queries == 0);
  drop_root();
}

/* A machine that tells nothing: every level 1, 2 and the LLC a stated
 * default, named as such. */
static void test_probe_nothing(void) {
  REQUIRE(new_root() == 0);
  struct fake_cpu cpu = FAKE(zeroed);
  struct cpu_caches c;
  char err[128], text[256];
  CHECK(cpu_caches_probe(&c, "sysfs,cpuid", root_, fake_cpuid, &cpu, err, sizeof err) == 0);
  expect_level(&c, 1, 32 * KIB, 0, CACHE_DEFAULT);
  expect_level(&c, 2, 1 * MIB, 0, CACHE_DEFAULT);
  expect_level(&c, 3, 32 * MIB, 0, CACHE_DEFAULT);
  CHECK(c.llc == 3);
  CHECK(cpu_caches_any_default(&c));
  cpu_caches_describe(&c, text, sizeof text);
  CHECK_STR(text, "L1d 32 KiB (default), L2 1 MiB (default), L3 32 MiB (default)");
  CHECK(cpu_caches_probe(&c, "", NULL, NULL, NULL, err, sizeof err) == 0);
  CHECK(c.level[3].source == CACHE_DEFAULT && c.llc == 3);
  drop_root();
}

/* A machine whose source knows L1 and L2 and no L3 (many Arm cores): the
 * LLC is L2, no L3 is made up. */
static void test_probe_no_l3(void) {
  REQUIRE(new_root() == 0);
  put_index(0, "1", "Data", "64K", "0");
  put_index(1, "2", "Unified", "2048K", "0-3");
  struct cpu_caches c;
  char err[128], text[256];
  CHECK(cpu_caches_probe(&c, "sysfs", root_, NULL, NULL, err, sizeof err) == 0);
  CHECK(c.llc == 2);
  CHECK(c.level[3].bytes == 0);
  CHECK(!cpu_caches_any_default(&c));
  cpu_caches_describe(&c, text, sizeof text);
  CHECK_STR(text, "L1d 64 KiB (sysfs), L2 2 MiB shared by 4 (sysfs)");
  drop_root();
}

/* Only an L3 known (a source that gives the LLC alone): L1 and L2 are
 * defaults, the L3 is the machine's. */
static void test_probe_partial(void) {
  REQUIRE(new_root() == 0);
  put_index(3, "3", "Unified", "16M", "0-3");
  struct cpu_caches c;
  char err[128];
  CHECK(cpu_caches_probe(&c, "sysfs", root_, NULL, NULL, err, sizeof err) == 0);
  expect_level(&c, 1, 32 * KIB, 0, CACHE_DEFAULT);
  expect_level(&c, 2, 1 * MIB, 0, CACHE_DEFAULT);
  expect_level(&c, 3, 16 * MIB, 4, CACHE_SYSFS);
  CHECK(c.llc == 3);
  drop_root();
}

static void test_probe_bad_source(void) {
  struct cpu_caches c;
  char err[128] = "";
  CHECK(cpu_caches_probe(&c, "sysfs,magic", "/nonexistent", NULL, NULL, err, sizeof err) == -1);
  CHECK_STR(err, "unknown cache source 'magic' (sysfs, cpuid, sysconf)");
  CHECK(c.llc == 3); /* still usable */
}

/* sysconf fills what glibc knows, each figure from glibc. */
static void test_sysconf(void) {
  struct cpu_caches c = {0};
  int n = cpu_caches_from_sysconf(&c);
  CHECK(n >= 0 && n <= CACHE_LEVELS);
  int seen = 0;
  for (int lv = 1; lv <= CACHE_LEVELS; lv++)
    if (c.level[lv].bytes) {
      seen++;
      CHECK(c.level[lv].source == CACHE_SYSCONF && c.level[lv].shared_by == 0);
    }
  CHECK(seen == n);
#ifdef _SC_LEVEL1_DCACHE_SIZE
  if (sysconf(_SC_LEVEL1_DCACHE_SIZE) >= 1024) CHECK(c.level[1].bytes == sysconf(_SC_LEVEL1_DCACHE_SIZE));
#endif
}

/* This machine, through the environment as the harness and plugins see it:
 * levels 1, 2 and the LLC always known, with a named source. */
static void test_this_machine(void) {
  const struct cpu_caches *c = cpu_caches();
  CHECK(c == cpu_caches());
  CHECK(c->llc >= 2 && c->llc <= CACHE_LEVELS);
  CHECK(cpu_caches_bytes(c, 1) > 0 && cpu_caches_bytes(c, 2) > 0 && cpu_caches_bytes(c, c->llc) > 0);
  for (int lv = 1; lv <= c->llc; lv++)
    if (c->level[lv].bytes) CHECK(c->level[lv].source != CACHE_NONE);
  char text[256];
  cpu_caches_describe(c, text, sizeof text);
  printf("this machine: %s\n", text);
  CHECK(strncmp(text, "L1d ", 4) == 0);
}

TEST_MAIN(TEST_ENTRY(test_cpuid_amd_vm), TEST_ENTRY(test_cpuid_amd_ccd), TEST_ENTRY(test_cpuid_intel),
          TEST_ENTRY(test_cpuid_amd_legacy), TEST_ENTRY(test_cpuid_zeroed),
          TEST_ENTRY(test_cpuid_fills_only_unknown), TEST_ENTRY(test_sysfs),
          TEST_ENTRY(test_sysfs_broken), TEST_ENTRY(test_sysfs_absent), TEST_ENTRY(test_probe_order),
          TEST_ENTRY(test_probe_nothing), TEST_ENTRY(test_probe_no_l3), TEST_ENTRY(test_probe_partial),
          TEST_ENTRY(test_probe_bad_source), TEST_ENTRY(test_sysconf), TEST_ENTRY(test_this_machine))
