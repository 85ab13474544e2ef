/* case_filter.c (--filter EXPR): the grammar, numeric and text matches,
 * alternatives, errors; and param_cli.c (--param) on a preset. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cases/case_filter.h"
#include "cases/cases.h"
#include "cases/param_cli.h"
#include "preset/preset.h"
#include "test.h"

static const struct bench_param params[] = {
    {.name = "m", .type = BENCH_PARAM_INT, .description = "m", .min = 1, .max = 8192,
     .defaults = {"64", "256,512,1024", "64", "64"}},
    {.name = "dtype", .type = BENCH_PARAM_STRING, .description = "dtype", .choices = "f32,f16,bf16",
     .defaults = {"f32", "f32,f16,bf16", "f32", "f32"}},
    {.name = NULL},
};
static int run(const struct bench_host *h, void *s) { (void)h, (void)s; return 0; }
static int setup(const struct bench_host *h, void *c, void **s) { (void)h, (void)c, (void)s; return 0; }
static const struct bench_plugin plugin = {.abi_version = BENCH_ABI_VERSION, .name = "fx_p",
                                           .backend = "cpu", .operation = "none",
                                           .description = "d", .params = params,
                                           .setup = setup, .run = run};

static struct case_list expand(struct preset *p) {
  const struct bench_plugin *pl[1] = {&plugin};
  struct case_list l;
  int rc = cases_expand(pl, 1, NULL, 0, p, &l);
  CHECK(rc == 0);
  return l;
}

static size_t count_after(const char *expr) {
  struct case_list l = expand(NULL); /* 3 m x 3 dtype, standard tier */
  const struct bench_plugin *pl[1] = {&plugin};
  const char *e[1] = {expr};
  size_t n = case_filter_apply(e, 1, pl, 1, &l) == 0 ? l.n : (size_t)-1;
  case_list_release(&l);
  return n;
}

static void test_filter(void) {
  CHECK(count_after("m>=512") == 6);
  CHECK(count_after("m>=512,dtype=f16") == 2);
  CHECK(count_after(" m > 256 , dtype != f32 ") == 4);
  CHECK(count_after("dtype=f16|bf16") == 6);
  CHECK(count_after("dtype!=f16|bf16") == 3);
  CHECK(count_after("m=512.0") == 3); /* numbers compare as numbers */
  CHECK(count_after("m==0x200") == 3);
  CHECK(count_after("m<512") == 3 && count_after("m<=512") == 6);
  fprintf(stderr, "(six errors are expected here)\n");
  CHECK(count_after("m>=99999") == (size_t)-1);  /* nothing left */
  CHECK(count_after("k>=1") == (size_t)-1);      /* unknown name */
  CHECK(count_after("m") == (size_t)-1);         /* no operator */
  CHECK(count_after("dtype<f16") == (size_t)-1); /* < needs a number */
  CHECK(count_after("m=") == (size_t)-1);        /* empty value */
  CHECK(count_after(">=3") == (size_t)-1);       /* no name */

  struct case_filter *f = case_filter_parse("m>=512,dtype=f16");
  REQUIRE(f);
  struct case_list l = expand(NULL);
  CHECK(l.n == 9 && case_filter_match(f, &l.cases[0]) == 0); /* m=256 f32 */
  CHECK(case_filter_match(f, &l.cases[4]) == 1);             /* m=512 f16 */
  case_filter_free(f);
  case_list_release(&l);
}

static void test_param_cli(void) {
  struct preset p;
  memset(&p, 0, sizeof p);
  p.policy.tier = BENCH_TIER_STANDARD;
  const struct bench_plugin *pl[1] = {&plugin};
  const char *args[] = {"m=128", "dtype = bf16,f16", "m=100,200"};
  REQUIRE(param_cli_apply(&p, pl, 1, args, 3) == 0);
  struct case_list l = expand(&p);
  CHECK(l.n == 4); /* the later m wins: 2 m x 2 dtype */
  if (l.n == 4) {
    CHECK(strcmp(l.cases[0].values[0].text, "100") == 0);
    CHECK(strcmp(l.cases[0].values[1].text, "bf16") == 0);
    CHECK(strcmp(l.cases[3].values[0].text, "200") == 0);
  }
  case_list_release(&l);
  fprintf(stderr, "(four errors are expected here)\n");
  const char *bad1[] = {"k=3"}, *bad2[] = {"m"}, *bad3[] = {"m=0"}, *bad4[] = {"dtype=f8"};
  CHECK(param_cli_apply(&p, pl, 1, bad1, 1) == -1);
  CHECK(param_cli_apply(&p, pl, 1, bad2, 1) == -1);
  CHECK(param_cli_apply(&p, pl, 1, bad3, 1) == -1);
  CHECK(param_cli_apply(&p, pl, 1, bad4, 1) == -1);
  preset_release(&p);
}

TEST_MAIN(TEST_ENTRY(test_filter), TEST_ENTRY(test_param_cli))
