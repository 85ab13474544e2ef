/* The SPIR-V cache's files without a device (issue 40, findings 2 and 3):
 * a symlink planted at the temporary name the old writer used
 * ("<key>.spv.tmp.<pid>") or at the entry itself is never written through;
 * a file is 0600 and bound to its key (another key's file is refused); a
 * folder not the user's alone is not used. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "vkh_spirv_cache.h"

static int fails;
#define CHECK(c)                                                         \
  do {                                                                   \
    if (!(c)) {                                                          \
      fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #c);       \
      fails++;                                                           \
    }                                                                    \
  } while (0)

static const char victim_text[] = "the user's own file\n";

static int victim_intact(const char *victim) {
  char buf[64] = "";
  FILE *f = fopen(victim, "r");
  if (!f) return 0;
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = '\0';
  return strcmp(buf, victim_text) == 0;
}

int main(void) {
  char tmpl[] = "/tmp/vkh-spv.XXXXXX";
  char *root = mkdtemp(tmpl);
  if (!root) return 1;
  setenv("XDG_CACHE_HOME", root, 1);
  unsetenv("BENCH_NO_SPIRV_CACHE");
  char victim[600], key[65], key2[65], path[700], path2[700], why[700], tmp[800];
  snprintf(victim, sizeof victim, "%s/precious", root);
  FILE *f = fopen(victim, "w");
  fputs(victim_text, f);
  fclose(f);
  chmod(victim, 0600);
  memset(key, 'a', 64);
  key[64] = '\0';
  memset(key2, 'b', 64);
  key2[64] = '\0';
  CHECK(vkh_spirv_cache_path(key, path, sizeof path, why, sizeof why) == 0);
  CHECK(vkh_spirv_cache_path(key2, path2, sizeof path2, why, sizeof why) == 0);
  struct stat st;
  char dir[700];
  snprintf(dir, sizeof dir, "%s/bench/spirv", root);
  CHECK(stat(dir, &st) == 0 && (st.st_mode & 07777) == 0700);

  uint32_t words[4] = {0x07230203u, 1, 2, 3}, other[4] = {0x07230203u, 9, 9, 9};
  /* the old writer's temporary name, planted as a symlink to the victim */
  snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
  CHECK(symlink(victim, tmp) == 0);
  CHECK(vkh_spirv_cache_write(path, key, words, sizeof words) == 0);
  CHECK(victim_intact(victim));
  CHECK(lstat(path, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 07777) == 0600);
  unlink(tmp);

  size_t bytes;
  int corrupt;
  uint32_t *got = vkh_spirv_cache_read(path, key, &bytes, &corrupt, why, sizeof why);
  CHECK(got && bytes == sizeof words && memcmp(got, words, sizeof words) == 0 && corrupt == 0);
  free(got);
  /* another key's valid file renamed over this key's name: refused */
  CHECK(vkh_spirv_cache_write(path2, key2, other, sizeof other) == 0);
  CHECK(rename(path2, path) == 0);
  got = vkh_spirv_cache_read(path, key, &bytes, &corrupt, why, sizeof why);
  CHECK(!got && corrupt == 1);
  free(got);

  /* a symlink at the entry: not read, and replaced (not written through) */
  unlink(path);
  CHECK(symlink(victim, path) == 0);
  got = vkh_spirv_cache_read(path, key, &bytes, &corrupt, why, sizeof why);
  CHECK(!got && corrupt == -1 && strstr(why, "symbolic link"));
  free(got);
  CHECK(vkh_spirv_cache_write(path, key, words, sizeof words) == 0);
  CHECK(victim_intact(victim));
  CHECK(lstat(path, &st) == 0 && S_ISREG(st.st_mode));

  /* a file writable by others: not read */
  chmod(path, 0666);
  got = vkh_spirv_cache_read(path, key, &bytes, &corrupt, why, sizeof why);
  CHECK(!got && corrupt == -1 && strstr(why, "writable by others"));
  free(got);

  /* a folder writable by others, or another user's: not used */
  chmod(dir, 0777);
  CHECK(vkh_spirv_cache_path(key, path, sizeof path, why, sizeof why) == -2);
  CHECK(strstr(why, "writable by others") != NULL);
  chmod(dir, 0700);
  if (geteuid() == 0 && chown(dir, 65534, 65534) == 0) {
    CHECK(vkh_spirv_cache_path(key, path, sizeof path, why, sizeof why) == -2);
    CHECK(strstr(why, "owned by uid 65534") != NULL);
    if (chown(dir, 0, 0) != 0) fails++;
  }
  char cmd[800];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
  if (system(cmd) != 0) fails++;
  if (fails) return 1;
  printf("ok\n");
  return 0;
}
