/* child_reap_ending (core/child.c): before the end-of-plugin steadiness
 * reading, the harness waits for the workers it let go (they are still
 * runnable while they end) and reaps them, but never past its deadline
 * for a child that does not end. */
#include <errno.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/child.h"
#include "test.h"

/* A child that ends when the write end of p is closed. */
static pid_t child_on_pipe(int p[2]) {
  if (pipe(p) != 0) return -1;
  pid_t pid = fork();
  if (pid == 0) {
    close(p[1]);
    char c;
    while (read(p[0], &c, 1) < 0 && errno == EINTR) {
    }
    _exit(0);
  }
  close(p[0]);
  return pid;
}

static void test_no_child(void) { CHECK(child_reap_ending(0.0) == 0); }

static void test_reaps_a_child_that_ends(void) {
  int p[2];
  pid_t pid = child_on_pipe(p);
  REQUIRE(pid > 0);
  close(p[1]); /* it ends now, on its own time */
  CHECK(child_reap_ending(30.0) == 0);
  errno = 0;
  CHECK(waitpid(pid, NULL, WNOHANG) == -1 && errno == ECHILD); /* already reaped */
}

static void test_deadline_with_a_live_child(void) {
  int p[2];
  pid_t pid = child_on_pipe(p);
  REQUIRE(pid > 0);
  CHECK(child_reap_ending(0.05) == -1);
  CHECK(waitpid(pid, NULL, WNOHANG) == 0); /* still there, not reaped */
  close(p[1]);
  int st = -1;
  CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st));
}

TEST_MAIN(TEST_ENTRY(test_no_child), TEST_ENTRY(test_reaps_a_child_that_ends),
          TEST_ENTRY(test_deadline_with_a_live_child))
