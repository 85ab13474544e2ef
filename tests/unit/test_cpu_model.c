/* The CPU model for the result header (harness/src/machine/cpu_model.c):
 * /proc/cpuinfo as x86 and Arm kernels write it, a file without a model,
 * the CPUID fallback, and this machine never "unknown" on x86. */
#include <stdlib.h>
#include <unistd.h>

#include "cpu_model.h"
#include "test.h"

static char path_[128];

static const char *write_cpuinfo(const char *text) {
  snprintf(path_, sizeof path_, "%s/bench-cpuinfo.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
  int fd = mkstemp(path_);
  if (fd < 0) return NULL;
  FILE *f = fdopen(fd, "w");
  fputs(text, f);
  fclose(f);
  return path_;
}

static void expect_model(const char *cpuinfo, const char *want) {
  const char *p = write_cpuinfo(cpuinfo);
  REQUIRE(p != NULL);
  char *got = cpu_model_from_cpuinfo(p);
  if (want) CHECK_STR(got, want);
  else CHECK(got == NULL);
  free(got);
  unlink(p);
}

static void test_x86(void) {
  expect_model("processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 26\n"
               "model name\t: AMD EPYC 9B45 128-Core Processor   \nstepping\t: 1\n",
               "AMD EPYC 9B45 128-Core Processor");
}

static void test_arm(void) {
  expect_model("processor\t: 0\nBogoMIPS\t: 50.00\nFeatures\t: fp asimd\n"
               "CPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: 0x3\n"
               "CPU part\t: 0xd0c\nCPU revision\t: 1\n",
               "Arm implementer 0x41 part 0xd0c");
}

static void test_none(void) {
  expect_model("processor\t: 0\nflags\t\t: fpu\n", NULL);
  expect_model("", NULL);
  char *m = cpu_model_from_cpuinfo("/nonexistent/cpuinfo");
  CHECK(m == NULL);
}

static void test_this_machine(void) {
  char *m = cpu_model();
  REQUIRE(m != NULL);
  CHECK(*m != '\0');
  printf("this machine: %s\n", m);
#if defined(__x86_64__) || defined(__i386__)
  char *brand = cpu_model_from_cpuid();
  CHECK(brand != NULL && *brand != ' ');
  CHECK(strncmp(m, "unknown", 7) != 0);
  free(brand);
#endif
  free(m);
}

TEST_MAIN(TEST_ENTRY(test_x86), TEST_ENTRY(test_arm), TEST_ENTRY(test_none), TEST_ENTRY(test_this_machine))
