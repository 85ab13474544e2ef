/* run/host.c's bench.process/1: get and put by key, replacement and removal
 * release the old value at once, the rest are released last put first at
 * the process's end, bad keys and a full table fail with a message, and
 * BENCH_NO_PROCESS_SLOTS hides the extension. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/host.h"
#include "test.h"

static char order[64];

static void rel(void *p) {
  size_t n = strlen(order);
  if (n + 1 < sizeof order) order[n] = *(const char *)p, order[n + 1] = '\0';
}

static const struct bench_ext_process *ext(struct host_state *h) {
  host_init(h, NULL, NULL, VERIFY_NONE);
  return bench_host_extension(&h->api, BENCH_EXT_PROCESS);
}

static void test_get_put(void) {
  struct host_state h;
  const struct bench_ext_process *x = ext(&h);
  REQUIRE(x && x->get && x->put);
  static char a[] = "a", b[] = "b", c[] = "c", d[] = "d";
  CHECK(x->get(&h.api, "k1") == NULL);
  CHECK(x->put(&h.api, "k1", a, rel) == BENCH_OK);
  CHECK(x->put(&h.api, "k2", b, rel) == BENCH_OK);
  CHECK(x->put(&h.api, "k3", c, NULL) == BENCH_OK); /* no release */
  CHECK(x->get(&h.api, "k1") == a && x->get(&h.api, "k2") == b && x->get(&h.api, "k3") == c);
  /* another host (the next plugin of the worker) sees the same slots */
  struct host_state h2;
  CHECK(ext(&h2)->get(&h2.api, "k2") == b);
  order[0] = '\0';
  CHECK(x->put(&h.api, "k1", d, rel) == BENCH_OK); /* replaced: a released now */
  CHECK_STR(order, "a");
  CHECK(x->get(&h.api, "k1") == d);
  CHECK(x->put(&h.api, "k2", NULL, NULL) == BENCH_OK); /* removed: b released */
  CHECK_STR(order, "ab");
  CHECK(x->get(&h.api, "k2") == NULL);
  host_process_release(); /* k3 (no release), then k1 = d: the last put first */
  CHECK_STR(order, "abd");
  CHECK(x->get(&h.api, "k1") == NULL && x->get(&h.api, "k3") == NULL);
  host_process_release(); /* empty: nothing more */
  CHECK_STR(order, "abd");
}

static void test_bad(void) {
  struct host_state h;
  const struct bench_ext_process *x = ext(&h);
  static char a[] = "a";
  char key[200];
  memset(key, 'k', sizeof key - 1);
  key[sizeof key - 1] = '\0';
  CHECK(x->put(&h.api, key, a, NULL) == BENCH_ERROR);
  CHECK(strstr(h.message, "1 to 127 characters") != NULL);
  CHECK(x->put(&h.api, "", a, NULL) == BENCH_ERROR);
  CHECK(x->put(&h.api, NULL, a, NULL) == BENCH_ERROR);
  CHECK(x->get(&h.api, key) == NULL && x->get(&h.api, NULL) == NULL);
  key[127] = '\0'; /* 127 characters: fine */
  CHECK(x->put(&h.api, key, a, NULL) == BENCH_OK && x->get(&h.api, key) == a);
  int i, rc = BENCH_OK;
  for (i = 0; rc == BENCH_OK && i < 100; i++) {
    char k[16];
    snprintf(k, sizeof k, "n%d", i);
    rc = x->put(&h.api, k, a, NULL);
  }
  CHECK(rc == BENCH_ERROR && i == 64); /* 1 + 63 fit */
  CHECK(strstr(h.message, "all 64 slots") != NULL);
  host_process_release();
  CHECK(x->put(&h.api, "again", a, NULL) == BENCH_OK);
  host_process_release();
}

static void test_hidden(void) {
  struct host_state h;
  setenv("BENCH_NO_PROCESS_SLOTS", "1", 1);
  CHECK(ext(&h) == NULL);
  unsetenv("BENCH_NO_PROCESS_SLOTS");
  CHECK(ext(&h) != NULL);
}

int main(void) {
  static const struct test_entry tests[] = {TEST_ENTRY(test_get_put), TEST_ENTRY(test_bad),
                                            TEST_ENTRY(test_hidden)};
  return test_run_all(tests, sizeof tests / sizeof tests[0]);
}
