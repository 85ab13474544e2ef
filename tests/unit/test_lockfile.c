/* Temporary files and locks (core/lockfile.h): a commit replaces the file
 * whole and leaves no temporary name, a rollback or a failed rename leaves
 * the old file as it was, the temporary name carries the writer's pid, and
 * an flock on a lock file or a folder is exclusive until released. */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/lockfile.h"
#include "core/util.h"
#include "test.h"
#include "test_support.h"

/* Names in dir (other than . and ..), joined with '/'. */
static char *names_in(const char *dir) {
  struct strbuf sb = STRBUF_INIT;
  DIR *d = opendir(dir);
  struct dirent *e;
  while (d && (e = readdir(d)))
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) strbuf_addf(&sb, "%s/", e->d_name);
  if (d) closedir(d);
  return strbuf_detach(&sb);
}

static char *content(const char *path) {
  struct strbuf sb = STRBUF_INIT;
  if (read_file(path, &sb) != 0) {
    strbuf_release(&sb);
    return NULL;
  }
  return strbuf_detach(&sb);
}

static void test_commit_and_rollback(void) {
  char *dir = make_tmpdir("lockfile");
  REQUIRE(dir);
  char *path = xasprintf("%s/data.tsv", dir);
  CHECK(write_file_atomic(path, "one\n", 4) == 0);
  char *c = content(path);
  CHECK(c && strcmp(c, "one\n") == 0);
  free(c);

  struct tempfile t = TEMPFILE_INIT;
  REQUIRE(tempfile_open(&t, path) == 0);
  CHECK(t.fd >= 0 && t.tmp && strncmp(t.tmp, dir, strlen(dir)) == 0);
  CHECK(temp_file_pid(strrchr(t.tmp, '/') + 1) == (long)getpid());
  CHECK(strlen(strrchr(t.tmp, '/') + 1) == temp_file_name_len(strlen("data.tsv")));
  CHECK(tempfile_write(&t, "two\n", 4) == 0);
  tempfile_rollback(&t);
  CHECK(t.fd == -1 && t.tmp == NULL);
  c = content(path);
  CHECK(c && strcmp(c, "one\n") == 0); /* the old file, untouched */
  free(c);

  REQUIRE(tempfile_open(&t, path) == 0);
  CHECK(tempfile_write(&t, "three\n", 6) == 0);
  CHECK(tempfile_commit(&t) == 0);
  c = content(path);
  CHECK(c && strcmp(c, "three\n") == 0);
  free(c);
  char *names = names_in(dir);
  CHECK(strcmp(names, "data.tsv/") == 0); /* no temporary name left */
  free(names);

  /* tempfile_close keeps the written file under its temporary name */
  REQUIRE(tempfile_open(&t, path) == 0);
  CHECK(tempfile_write(&t, "x", 1) == 0);
  CHECK(tempfile_close(&t) == 0);
  struct stat st;
  CHECK(t.tmp && stat(t.tmp, &st) == 0 && st.st_size == 1);
  tempfile_rollback(&t);
  names = names_in(dir);
  CHECK(strcmp(names, "data.tsv/") == 0);
  free(names);
  free(path);
  rm_tree(dir);
}

static void test_failures_leave_the_old_file(void) {
  char *dir = make_tmpdir("lockfile");
  REQUIRE(dir);
  /* a folder in the way: the rename fails, the folder stays, no temp left */
  char *path = xasprintf("%s/busy", dir), *inner = xasprintf("%s/busy/keep", dir);
  REQUIRE(mkdir(path, 0700) == 0);
  REQUIRE(write_file_atomic(inner, "k", 1) == 0);
  int e = 0;
  CHECK(write_file_atomic_quiet(path, "new", 3, &e) == -1 && e != 0);
  char *names = names_in(dir);
  CHECK(strcmp(names, "busy/") == 0);
  free(names);
  char *c = content(inner);
  CHECK(c && strcmp(c, "k") == 0);
  free(c);
  /* no such folder: nothing is created */
  char *missing = xasprintf("%s/none/file", dir);
  struct tempfile t = TEMPFILE_INIT;
  errno = 0;
  CHECK(tempfile_open(&t, missing) == -1 && errno == ENOENT && t.fd == -1 && t.tmp == NULL);
  tempfile_rollback(&t); /* nothing to do */
  free(missing);
  free(inner);
  free(path);
  rm_tree(dir);
}

static void test_temp_file_pid(void) {
  CHECK(temp_file_pid(".a.json.tmp.123.Ab3dEf9h") == 123);
  CHECK(temp_file_pid(".rollup.csv.tmp.77") == 77);     /* the older form */
  CHECK(temp_file_pid("a.json.tmp.123") == 0);          /* not hidden */
  CHECK(temp_file_pid(".notes.tmp.x") == 0);            /* no pid */
  CHECK(temp_file_pid(".a.tmp.12.bad-chars") == 0);
}

static void test_lock_is_exclusive(void) {
  char *dir = make_tmpdir("lockfile");
  REQUIRE(dir);
  char *lockpath = xasprintf("%s/cache.tsv.lock", dir);
  struct lockfile a = LOCKFILE_INIT, b = LOCKFILE_INIT, f = LOCKFILE_INIT, g = LOCKFILE_INIT;
  REQUIRE(lockfile_acquire(&a, lockpath, 0) == 0);
  struct stat st;
  CHECK(stat(lockpath, &st) == 0 && S_ISREG(st.st_mode)); /* created */
  REQUIRE(lockfile_open(&b, lockpath, 0) == 0);
  CHECK(lockfile_take(&b, 1) == 1); /* held by a */
  lockfile_release(&a);
  CHECK(a.fd == -1);
  CHECK(lockfile_take(&b, 1) == 0);
  lockfile_release(&b);
  lockfile_release(&b); /* twice: nothing */

  /* a folder, locked in another process: busy here, and its pid is named */
  REQUIRE(lockfile_acquire(&f, dir, LOCKFILE_FOLDER) == 0);
  lockfile_release(&f);
  int ready[2];
  REQUIRE(pipe(ready) == 0);
  pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    close(ready[0]);
    struct lockfile h = LOCKFILE_INIT;
    if (lockfile_acquire(&h, dir, LOCKFILE_FOLDER) != 0) _exit(1);
    if (write(ready[1], "r", 1) != 1) _exit(1);
    pause();
    _exit(0);
  }
  close(ready[1]);
  char r;
  CHECK(read(ready[0], &r, 1) == 1);
  close(ready[0]);
  REQUIRE(lockfile_open(&g, dir, LOCKFILE_FOLDER) == 0);
  CHECK(lockfile_take(&g, 1) == 1);
  long holder = lock_holder_pid(g.fd);
  CHECK(holder == (long)pid || holder == 0); /* 0: no /proc/locks to tell */
  kill(pid, SIGKILL);
  waitpid(pid, NULL, 0);
  CHECK(lockfile_take(&g, 0) == 0); /* the holder's death freed it */
  lockfile_release(&g);
  CHECK(lockfile_acquire(&g, "/nonexistent/folder", LOCKFILE_FOLDER) == -1 && g.fd == -1);
  free(lockpath);
  rm_tree(dir);
}

TEST_MAIN(TEST_ENTRY(test_commit_and_rollback), TEST_ENTRY(test_failures_leave_the_old_file),
          TEST_ENTRY(test_temp_file_pid), TEST_ENTRY(test_lock_is_exclusive))
