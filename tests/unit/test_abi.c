/* plugin/abi.c: the layout of a plugin's structs by the ABI it was built
 * with, and the one copy per struct into the harness's layout. Sources are
 * heap blocks of exactly the plugin's size, so that (under ASan) a byte read
 * past them is an error. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugin/abi.h"
#include "test.h"

/* A struct of the plugin's size, every byte 0xAB after the harness's part. */
static void *plugin_block(const void *ours, size_t ours_size, size_t size) {
  unsigned char *b = malloc(size);
  memset(b, 0xAB, size);
  memcpy(b, ours, size < ours_size ? size : ours_size);
  return b;
}

static int all_zero(const void *p, size_t n) {
  const unsigned char *b = p;
  for (size_t i = 0; i < n; i++)
    if (b[i]) return 0;
  return 1;
}

static void test_layouts(void) {
  struct abi_layout l;
  char msg[512] = "";
  struct bench_plugin p = {.abi_version = BENCH_ABI_1_0, .name = "old"};
  REQUIRE(abi_layout_of(&p, &l, msg, sizeof msg) == 0);
  CHECK(l.entry == offsetof(struct bench_plugin, abi_needed)); /* 1.0 ends before abi_needed */
  /* 1.4 appended tunable, candidates and step to struct bench_param */
  CHECK(l.param == offsetof(struct bench_param, tunable) && l.check == sizeof(struct bench_check));
  p.abi_version = BENCH_ABI_1_1;
  REQUIRE(abi_layout_of(&p, &l, msg, sizeof msg) == 0);
  CHECK(l.entry == offsetof(struct bench_plugin, param_size));
  p.abi_version = BENCH_ABI_VERSION; /* param_size 0: our own size */
  REQUIRE(abi_layout_of(&p, &l, msg, sizeof msg) == 0);
  CHECK(l.entry == sizeof(struct bench_plugin) && l.param == sizeof(struct bench_param));
  p.param_size = sizeof(struct bench_param);
  CHECK(abi_layout_of(&p, &l, msg, sizeof msg) == 0);
  p.param_size = sizeof(struct bench_param) + 8; /* our minor has one size only */
  CHECK(abi_layout_of(&p, &l, msg, sizeof msg) == -1);
  CHECK(strstr(msg, "plugin 'old': param_size") && strstr(msg, "BENCH_PLUGIN_SIZES"));

  /* a newer minor: our prefix of everything, its stated stride */
  p.abi_version = BENCH_ABI(1, BENCH_ABI_MINOR + 3);
  p.param_size = sizeof(struct bench_param) + 24;
  REQUIRE(abi_layout_of(&p, &l, msg, sizeof msg) == 0);
  CHECK(l.param == sizeof(struct bench_param) + 24 && l.entry == sizeof(struct bench_plugin));
  CHECK(l.check == sizeof(struct bench_check) && l.compare == sizeof(struct bench_compare));
  p.param_size = 16; /* too old for the newer minor */
  CHECK(abi_layout_of(&p, &l, msg, sizeof msg) == -1 && strstr(msg, "plugin 'old': param_size 16"));
  /* no stated stride: refused when it has parameters, fine without */
  static const struct bench_param one[] = {{.name = "m"}, {.name = NULL}}, none[] = {{.name = NULL}};
  p.param_size = 0;
  p.params = one;
  CHECK(abi_layout_of(&p, &l, msg, sizeof msg) == -1);
  CHECK(strstr(msg, "plugin 'old': built for plugin ABI 1.") &&
        strstr(msg, "without stating sizeof(struct bench_param)"));
  p.params = none;
  CHECK(abi_layout_of(&p, &l, msg, sizeof msg) == 0);

  /* no plugin (no case runs): 1.0's, the least any plugin has */
  REQUIRE(abi_layout_of(NULL, &l, msg, sizeof msg) == 0);
  CHECK(l.entry == offsetof(struct bench_plugin, abi_needed) &&
        l.compare == offsetof(struct bench_compare, scale));

  /* bench_compare grew in 1.3 (scale, scale_fn): a 1.2 plugin's ends before
   * them, and a copy of it reads them as NULL */
  struct bench_plugin p12 = {.abi_version = BENCH_ABI_1_2, .name = "p12"};
  REQUIRE(abi_layout_of(&p12, &l, msg, sizeof msg) == 0);
  CHECK(l.compare == offsetof(struct bench_compare, scale));
  const double sc[1] = {1};
  struct bench_compare want = {.name = "sum", .count = 1, .tol = BENCH_TOL_SCALED, .scale = sc};
  void *blk = plugin_block(&want, sizeof want, l.compare);
  struct bench_compare got;
  memset(&got, 0x5A, sizeof got);
  CHECK(abi_copy_compare(&l, blk, &got, msg, sizeof msg) == 0);
  CHECK(got.count == 1 && got.tol == BENCH_TOL_SCALED && got.scale == NULL && got.scale_fn == NULL);
  free(blk);
  p12.abi_version = BENCH_ABI_1_3;
  REQUIRE(abi_layout_of(&p12, &l, msg, sizeof msg) == 0);
  CHECK(l.compare == sizeof(struct bench_compare));
}

/* Each copy function: a too-old, too-new or garbage size is refused with one
 * line naming the plugin; a good size copies a prefix, zero-fills the rest. */
static void test_copy_sizes(void) {
  struct abi_layout l = {.plugin = "fx_sizes", .version = BENCH_ABI(1, 9)};
  char msg[512] = "";
  struct bench_check chk;
  struct bench_param par;
  struct bench_compare cmp;
  struct bench_plugin ent;
  static const char src[ABI_STRUCT_MAX + 64];
  l.check = 8; /* too old */
  CHECK(abi_copy_check(&l, src, &chk, msg, sizeof msg) == -1);
  char want_msg[256];
  snprintf(want_msg, sizeof want_msg, "plugin 'fx_sizes' (ABI 1.9): struct bench_check of 8 "
           "bytes is smaller than the %zu bytes it had when it was introduced", sizeof chk);
  CHECK_STR(msg, want_msg);
  l.check = ABI_STRUCT_MAX + 8; /* too new */
  CHECK(abi_copy_check(&l, src, &chk, msg, sizeof msg) == -1);
  CHECK(strstr(msg, "plugin 'fx_sizes' (ABI 1.9): struct bench_check of 4104 bytes is larger than"));
  l.check = sizeof chk + 3; /* garbage */
  CHECK(abi_copy_check(&l, src, &chk, msg, sizeof msg) == -1);
  CHECK(strstr(msg, "plugin 'fx_sizes'") && strstr(msg, "not a multiple of its alignment (8)"));
  l.param = 4;
  CHECK(abi_copy_param(&l, src, &par, msg, sizeof msg) == -1);
  CHECK(strstr(msg, "plugin 'fx_sizes' (ABI 1.9): struct bench_param of 4 bytes is smaller"));
  l.param = 100000;
  CHECK(abi_copy_param(&l, src, &par, msg, sizeof msg) == -1 && strstr(msg, "larger than"));
  l.compare = 0;
  CHECK(abi_copy_compare(&l, src, &cmp, msg, sizeof msg) == -1);
  CHECK(strstr(msg, "struct bench_compare of 0 bytes is smaller"));
  l.entry = sizeof ent + 1;
  CHECK(abi_copy_plugin(&l, src, &ent, msg, sizeof msg) == -1);
  CHECK(strstr(msg, "plugin 'fx_sizes'") && strstr(msg, "struct bench_plugin of"));

  /* a newer, bigger struct: our prefix, its tail never lands in ours */
  struct bench_check want = {.op = "gemm", .dtype = BENCH_F16, .m = 3, .n = 4, .k = 5,
                             .flags = 7, .out = src};
  void *big = plugin_block(&want, sizeof want, sizeof want + 40);
  l.check = sizeof want + 40;
  memset(&chk, 0x5A, sizeof chk);
  CHECK(abi_copy_check(&l, big, &chk, msg, sizeof msg) == 0);
  CHECK(memcmp(&chk, &want, sizeof chk) == 0);
  free(big);

  /* an older, smaller entry (1.0): its bytes, then zeros; none read past it */
  struct bench_plugin e10 = {.abi_version = BENCH_ABI_1_0, .name = "fx_sizes", .params = NULL};
  l.entry = offsetof(struct bench_plugin, abi_needed);
  void *small = plugin_block(&e10, sizeof e10, l.entry);
  memset(&ent, 0x5A, sizeof ent);
  CHECK(abi_copy_plugin(&l, small, &ent, msg, sizeof msg) == 0);
  CHECK(ent.abi_version == BENCH_ABI_1_0 && ent.name && strcmp(ent.name, "fx_sizes") == 0);
  CHECK(ent.abi_needed == 0 && ent.run_batch == NULL && ent.param_size == 0);
  CHECK(all_zero((const char *)&ent + l.entry, sizeof ent - l.entry));
  free(small);
}

/* The loader's import: a newer plugin's params array of a wider stride ends
 * up in our stride, every declared field intact, the unknown ones dropped. */
struct param_1_9 {
  struct bench_param p;
  const char *unit;
  double extra[3];
};

static void test_import(void) {
  static const struct param_1_9 params[] = {
      {{.name = "m", .type = BENCH_PARAM_INT, .description = "rows", .min = 1, .max = 64,
        .zip = 2, .defaults = {"1", "2", "3", "4"}}, "POISON", {1, 2, 3}},
      {{.name = "v", .type = BENCH_PARAM_STRING, .choices = "a,b", .defaults = {"a"}}, "POISON",
       {4, 5, 6}},
      {{.name = NULL}, NULL, {0}},
  };
  struct bench_plugin p = {.abi_version = BENCH_ABI(1, 9), .name = "fx_new",
                           .params = (const struct bench_param *)params,
                           .param_size = sizeof params[0]};
  char msg[512] = "";
  struct bench_plugin *e = abi_plugin_import(&p, msg, sizeof msg);
  REQUIRE(e != NULL);
  CHECK(e->abi_version == BENCH_ABI(1, 9) && strcmp(e->name, "fx_new") == 0);
  CHECK(e->param_size == sizeof(struct bench_param));
  CHECK(memcmp(&e->params[0], &params[0].p, sizeof(struct bench_param)) == 0);
  CHECK(memcmp(&e->params[1], &params[1].p, sizeof(struct bench_param)) == 0);
  CHECK(e->params[2].name == NULL);
  abi_plugin_free(e);

  p.param_size = 20; /* garbage: refused, nothing returned */
  CHECK(abi_plugin_import(&p, msg, sizeof msg) == NULL && strstr(msg, "plugin 'fx_new'"));

  /* host->check's copy-in: by the calling plugin's ABI, NULL left alone */
  struct bench_check c = {.op = "softmax", .rows = 2, .cols = 3}, buf;
  const struct bench_check *cp = &c;
  p.param_size = sizeof params[0];
  CHECK(abi_check_in(&p, &cp, &buf, msg, sizeof msg) == 0 && cp == &buf && buf.cols == 3);
  cp = NULL;
  CHECK(abi_check_in(NULL, &cp, &buf, msg, sizeof msg) == 0 && cp == NULL);
  struct bench_compare k = {.name = "sum", .count = 5}, kbuf;
  const struct bench_compare *kp = &k;
  CHECK(abi_compare_in(NULL, &kp, &kbuf, msg, sizeof msg) == 0 && kp == &kbuf && kbuf.count == 5);
}

TEST_MAIN(TEST_ENTRY(test_layouts), TEST_ENTRY(test_copy_sizes), TEST_ENTRY(test_import))
