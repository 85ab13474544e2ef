/* A minimal unit-test kit: CHECK records a failure and goes on, REQUIRE
 * returns from the test function, TEST_MAIN runs the listed tests and prints
 * "N passed, N failed" (ctest counts the executable's exit status); a test
 * function that ran no check counts as failed. */
#ifndef BENCH_TEST_H
#define BENCH_TEST_H

#include <math.h>
#include <stdio.h>
#include <string.h>

static int test_failures_;
static int test_checks_;

#define CHECK(cond)                                                            \
  do {                                                                         \
    test_checks_++;                                                            \
    if (!(cond)) {                                                             \
      test_failures_++;                                                        \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
    }                                                                          \
  } while (0)

#define REQUIRE(cond)                                                            \
  do {                                                                           \
    test_checks_++;                                                              \
    if (!(cond)) {                                                               \
      test_failures_++;                                                          \
      fprintf(stderr, "%s:%d: REQUIRE failed: %s\n", __FILE__, __LINE__, #cond); \
      return;                                                                    \
    }                                                                            \
  } while (0)

#define CHECK_NEAR(a, b, tol)                                                       \
  do {                                                                              \
    double a_ = (a), b_ = (b);                                                      \
    test_checks_++;                                                                 \
    if (!(fabs(a_ - b_) <= (tol))) {                                                \
      test_failures_++;                                                             \
      fprintf(stderr, "%s:%d: CHECK_NEAR failed: %s = %.17g, %s = %.17g\n",         \
              __FILE__, __LINE__, #a, a_, #b, b_);                                  \
    }                                                                               \
  } while (0)

#define CHECK_STR(a, b)                                                             \
  do {                                                                              \
    const char *a_ = (a), *b_ = (b);                                                \
    test_checks_++;                                                                 \
    if (!a_ || !b_ || strcmp(a_, b_) != 0) {                                        \
      test_failures_++;                                                             \
      fprintf(stderr, "%s:%d: CHECK_STR failed: %s = \"%s\", %s = \"%s\"\n",        \
              __FILE__, __LINE__, #a, a_ ? a_ : "(null)", #b, b_ ? b_ : "(null)");  \
    }                                                                               \
  } while (0)

typedef void (*test_fn)(void);
struct test_entry {
  const char *name;
  test_fn fn;
};
#define TEST_ENTRY(f) {#f, f}

/* A test function that ran no CHECK or REQUIRE fails: a test that checks
 * nothing must not pass (and neither must an executable with no tests). */
static inline int test_run_all(const struct test_entry *t, size_t n) {
  int passed = 0, failed = 0;
  for (size_t i = 0; i < n; i++) {
    int before = test_failures_, checks_before = test_checks_;
    t[i].fn();
    if (test_failures_ != before) {
      failed++;
      fprintf(stderr, "FAIL: %s\n", t[i].name);
    } else if (test_checks_ == checks_before) {
      failed++;
      fprintf(stderr, "FAIL: %s ran no check: a test that checks nothing must not pass\n", t[i].name);
    } else {
      passed++;
    }
  }
  printf("%d passed, %d failed\n", passed, failed);
  if (passed + failed == 0) {
    fprintf(stderr, "FAIL: no tests ran\n");
    return 1;
  }
  return failed ? 1 : 0;
}

#define TEST_MAIN(...)                                                   \
  int main(void) {                                                       \
    static const struct test_entry tests_[] = {__VA_ARGS__};             \
    return test_run_all(tests_, sizeof tests_ / sizeof tests_[0]);       \
  }

#endif
