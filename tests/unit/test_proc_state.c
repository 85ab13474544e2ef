/* run/proc_state.c: what a plugin changes of its process is found, named
 * and put back (cwd, umask, environment, signal mask and handlers, a limit,
 * the rounding mode, flush-to-zero); a thread left running cannot be put
 * back unless a slot keeps it; nothing changed says nothing. */
#include <fenv.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "run/proc_state.h"
#include "test.h"

static void on_usr2(int sig) { (void)sig; }

static void test_nothing(void) {
  struct proc_state *s = proc_state_save();
  char *what = (char *)"x";
  CHECK(proc_state_restore(s, 0, &what) == 0);
  CHECK(what == NULL);
  proc_state_free(s);
}

static void test_restored(void) {
  char cwd[4096];
  REQUIRE(getcwd(cwd, sizeof cwd) != NULL);
  umask(022);
  setenv("BENCH_TEST_KEPT", "1", 1);
  unsetenv("BENCH_TEST_NEW");
  struct rlimit rl;
  REQUIRE(getrlimit(RLIMIT_NOFILE, &rl) == 0);
  struct proc_state *s = proc_state_save();
  REQUIRE(chdir("/") == 0);
  umask(0);
  unsetenv("BENCH_TEST_KEPT");
  setenv("BENCH_TEST_NEW", "y", 1);
  sigset_t m;
  sigemptyset(&m);
  sigaddset(&m, SIGUSR1);
  sigprocmask(SIG_BLOCK, &m, NULL);
  signal(SIGUSR2, on_usr2);
  struct rlimit low = rl;
  if (low.rlim_cur > 32) low.rlim_cur = 32;
  setrlimit(RLIMIT_NOFILE, &low);
  fesetround(FE_UPWARD);
#if defined(__x86_64__) || defined(__i386__)
  unsigned csr;
  __asm__ volatile("stmxcsr %0" : "=m"(csr));
  csr |= 0x8040u;
  __asm__ volatile("ldmxcsr %0" : : "m"(csr));
#endif
  char *what = NULL;
  CHECK(proc_state_restore(s, 0, &what) == 0);
  REQUIRE(what != NULL);
  CHECK(strstr(what, "working directory /") != NULL);
  CHECK(strstr(what, "umask 0000 (was 0022)") != NULL);
  CHECK(strstr(what, "BENCH_TEST_KEPT unset") != NULL);
  CHECK(strstr(what, "BENCH_TEST_NEW set") != NULL);
  CHECK(strstr(what, "signal mask") != NULL);
  CHECK(strstr(what, "SIGUSR2") != NULL);
  CHECK(strstr(what, "rounding mode upward (was to nearest)") != NULL);
#if defined(__x86_64__) || defined(__i386__)
  CHECK(strstr(what, "flush-to-zero (MXCSR FTZ) on") != NULL);
  CHECK(strstr(what, "denormals-are-zero (MXCSR DAZ) on") != NULL);
  __asm__ volatile("stmxcsr %0" : "=m"(csr));
  CHECK((csr & 0x8040u) == 0);
#endif
  if (rl.rlim_cur > 32) CHECK(strstr(what, "RLIMIT_NOFILE") != NULL);
  CHECK(strchr(what, '\n') == NULL);
  free(what);
  /* all back */
  char now[4096];
  CHECK(getcwd(now, sizeof now) && strcmp(now, cwd) == 0);
  mode_t um = umask(022);
  CHECK(um == 022);
  CHECK(getenv("BENCH_TEST_KEPT") && strcmp(getenv("BENCH_TEST_KEPT"), "1") == 0);
  CHECK(getenv("BENCH_TEST_NEW") == NULL);
  sigset_t cur;
  sigprocmask(SIG_BLOCK, NULL, &cur);
  CHECK(!sigismember(&cur, SIGUSR1));
  struct sigaction sa;
  sigaction(SIGUSR2, NULL, &sa);
  CHECK(sa.sa_handler == SIG_DFL);
  struct rlimit back;
  getrlimit(RLIMIT_NOFILE, &back);
  CHECK(back.rlim_cur == rl.rlim_cur);
  CHECK(fegetround() == FE_TONEAREST);
  volatile double tiny = 1e-310;
  CHECK(tiny * 0.5 != 0.0);
  proc_state_free(s);
}

static int stop_thread;
static void *spin(void *arg) {
  (void)arg;
  while (!__atomic_load_n(&stop_thread, __ATOMIC_ACQUIRE)) usleep(1000);
  return NULL;
}

static void test_thread(void) {
  struct proc_state *s = proc_state_save();
  pthread_t t;
  REQUIRE(pthread_create(&t, NULL, spin, NULL) == 0);
  char *what = NULL;
  CHECK(proc_state_restore(s, 0, &what) == 1); /* a fresh worker */
  CHECK(what && strstr(what, "1 thread left running"));
  free(what);
  what = NULL;
  CHECK(proc_state_restore(s, 1, &what) == 0); /* a slot keeps it */
  CHECK(what == NULL);
  __atomic_store_n(&stop_thread, 1, __ATOMIC_RELEASE);
  pthread_join(t, NULL);
  what = (char *)"x";
  CHECK(proc_state_restore(s, 0, &what) == 0); /* joined: gone */
  CHECK(what == NULL);
  proc_state_free(s);
}

int main(void) {
  static const struct test_entry tests[] = {TEST_ENTRY(test_nothing), TEST_ENTRY(test_restored),
                                            TEST_ENTRY(test_thread)};
  return test_run_all(tests, sizeof tests / sizeof tests[0]);
}
