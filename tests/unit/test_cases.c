/* cases_expand, case_label, case_find and params_validate, with fake plugins
 * declared here (parameters only: nothing is run). */
/* Parameters here are declared positionally, as 1.3 laid them out: the
 * 1.4 tunable fields they leave out are 0 (not tunable). */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cases/cases.h"
#include "test.h"
#include "test_support.h"

/* ---- fake plugins ----------------------------------------------------- */

/*                     smoke      standard    perf     verify */
static const struct bench_param gemm_params[] = {
  {"m", BENCH_PARAM_INT, "rows of A", NULL, 1, 65536, 0, {"16", "64,128", "1024", "1,7"}},
  {"n", BENCH_PARAM_INT, "columns of B", NULL, 1, 65536, 0, {"16", "64", NULL, "3"}},
  {"k", BENCH_PARAM_INT, "reduction", NULL, 1, 65536, 0, {"16", "64", "1024", "13"}},
  {"variant", BENCH_PARAM_STRING, "kernel", "naive, tiled", 0, 0, 0,
   {"naive", "naive,tiled", "tiled", "naive"}},
  {"alpha", BENCH_PARAM_FLOAT, "scale", NULL, 0, 1, 0, {NULL, "1.0", NULL, "0.5"}},
  {NULL, 0, NULL, NULL, 0, 0, 0, {NULL, NULL, NULL, NULL}},
};

static const struct bench_plugin gemm = {
  .abi_version = BENCH_ABI_VERSION, .name = "fake_gemm", .backend = "cpu",
  .operation = "gemm", .description = "test", .params = gemm_params,
};

/* seq and batch zipped (group 1), head_dim crossed with them. */
static const struct bench_param attn_params[] = {
  {"seq", BENCH_PARAM_INT, "", NULL, 1, 0x7fffffff, 1, {"4", "128,256,512", NULL, NULL}},
  {"head_dim", BENCH_PARAM_INT, "", NULL, 0, 0, 0, {"8", "64,128", NULL, NULL}},
  {"batch", BENCH_PARAM_INT, "", NULL, 0, 0, 1, {"1", "8,4,2", NULL, NULL}},
  {NULL, 0, NULL, NULL, 0, 0, 0, {NULL, NULL, NULL, NULL}},
};

static const struct bench_plugin attn = {
  .abi_version = BENCH_ABI_VERSION, .name = "fake_attn", .backend = "cpu",
  .operation = "attention", .description = "test", .params = attn_params,
};

static const struct bench_plugin noparams = {
  .abi_version = BENCH_ABI_VERSION, .name = "fake_none", .backend = "cpu",
  .operation = "none", .description = "test", .params = NULL,
};

/* ---- helpers ---------------------------------------------------------- */


/* A preset from text, "t.ini" in messages. */
static int make_preset(const char *text, struct preset *p) {
  return preset_parse("t.ini", text, strlen(text), p);
}

/* Expand with stderr captured; *err gets what was printed. */
static int expand(const struct bench_plugin *const *pl, size_t n, const char *const *known,
                  size_t nknown, const struct preset *p, struct case_list *out, char **err) {
  struct capture c;
  capture_begin(&c);
  int rc = cases_expand(pl, n, known, nknown, p, out);
  *err = capture_end(&c);
  return rc;
}

/* Expand one plugin under preset text; returns rc, stderr in *err. */
static int expand_text(const struct bench_plugin *pl, const char *text, struct case_list *out,
                       char **err) {
  struct preset p;
  if (make_preset(text, &p) != 0) {
    *err = xstrdup("preset did not load");
    return -2;
  }
  const struct bench_plugin *list[] = {pl};
  int rc = expand(list, 1, NULL, 0, &p, out, err);
  preset_release(&p);
  return rc;
}

static int label_is(const struct case_def *c, const char *want) {
  char *l = case_label(c);
  int ok = strcmp(l, want) == 0;
  if (!ok) fprintf(stderr, "label \"%s\", expected \"%s\"\n", l, want);
  free(l);
  return ok;
}

/* ---- tests ------------------------------------------------------------ */

static void test_standard_defaults(void) {
  const struct bench_plugin *list[] = {&gemm};
  struct case_list l;
  char *err;
  REQUIRE(expand(list, 1, NULL, 0, NULL, &l, &err) == 0); /* no preset: standard */
  CHECK(*err == '\0');
  free(err);
  REQUIRE(l.n == 4);
  CHECK(label_is(&l.cases[0], "m=64 n=64 k=64 variant=naive alpha=1"));
  CHECK(label_is(&l.cases[1], "m=64 n=64 k=64 variant=tiled alpha=1"));
  CHECK(label_is(&l.cases[2], "m=128 n=64 k=64 variant=naive alpha=1"));
  CHECK(label_is(&l.cases[3], "m=128 n=64 k=64 variant=tiled alpha=1"));
  const struct case_def *c = &l.cases[2];
  CHECK(c->plugin == &gemm && c->plugin_index == 0 && c->nvalues == 5);
  CHECK(c->values[0].param == &gemm_params[0]);
  CHECK(c->values[0].i == 128 && c->values[0].f == 128.0);
  CHECK_STR(c->values[3].text, "naive");
  CHECK_NEAR(c->values[4].f, 1.0, 0);
  const struct case_value *v = case_find(c, "k");
  CHECK(v && v->i == 64);
  CHECK(case_find(c, "nope") == NULL);
  case_list_release(&l);
  CHECK(l.n == 0 && l.cases == NULL);
}

static void test_tier_defaults(void) {
  struct case_list l;
  char *err;
  /* smoke: alpha has no smoke default, so the standard one applies */
  REQUIRE(expand_text(&gemm, "[run]\ntier = smoke\n", &l, &err) == 0);
  free(err);
  REQUIRE(l.n == 1);
  CHECK(label_is(&l.cases[0], "m=16 n=16 k=16 variant=naive alpha=1"));
  case_list_release(&l);

  /* perf: n falls back to standard too */
  REQUIRE(expand_text(&gemm, "[run]\ntier = perf\n", &l, &err) == 0);
  free(err);
  REQUIRE(l.n == 1);
  CHECK(label_is(&l.cases[0], "m=1024 n=64 k=1024 variant=tiled alpha=1"));
  case_list_release(&l);

  REQUIRE(expand_text(&gemm, "[run]\ntier = verify\n", &l, &err) == 0);
  free(err);
  REQUIRE(l.n == 2);
  CHECK(label_is(&l.cases[0], "m=1 n=3 k=13 variant=naive alpha=0.5"));
  CHECK(label_is(&l.cases[1], "m=7 n=3 k=13 variant=naive alpha=0.5"));
  case_list_release(&l);
}

static void test_preset_override(void) {
  struct case_list l;
  char *err;
  REQUIRE(expand_text(&gemm,
                      "[run]\ntier = smoke\n[fake_gemm]\nm = 256, 512\nvariant = tiled\n"
                      "alpha = 0.25\n",
                      &l, &err) == 0);
  CHECK(*err == '\0');
  free(err);
  REQUIRE(l.n == 2);
  CHECK(label_is(&l.cases[0], "m=256 n=16 k=16 variant=tiled alpha=0.25"));
  CHECK(label_is(&l.cases[1], "m=512 n=16 k=16 variant=tiled alpha=0.25"));
  CHECK(l.cases[1].values[0].i == 512);
  CHECK_NEAR(l.cases[1].values[4].f, 0.25, 0);
  case_list_release(&l);
}

static void test_crossing_order(void) {
  struct case_list l;
  char *err;
  REQUIRE(expand_text(&gemm, "[fake_gemm]\nm = 1,2,3\nn = 4,5\nvariant = naive\n", &l, &err) == 0);
  free(err);
  REQUIRE(l.n == 6);
  static const int64_t want[6][2] = {{1, 4}, {1, 5}, {2, 4}, {2, 5}, {3, 4}, {3, 5}};
  for (size_t i = 0; i < 6; i++) {
    CHECK(l.cases[i].values[0].i == want[i][0]);
    CHECK(l.cases[i].values[1].i == want[i][1]);
  }
  case_list_release(&l);

  /* the product of every axis */
  REQUIRE(expand_text(&gemm, "[fake_gemm]\nm = 1,2,3\nn = 4,5\nk=6,7\nalpha=0,1\n", &l, &err) == 0);
  free(err);
  CHECK(l.n == 3 * 2 * 2 * 2 * 2);
  CHECK(label_is(&l.cases[0], "m=1 n=4 k=6 variant=naive alpha=0"));
  CHECK(label_is(&l.cases[1], "m=1 n=4 k=6 variant=naive alpha=1"));
  CHECK(label_is(&l.cases[2], "m=1 n=4 k=6 variant=tiled alpha=0"));
  CHECK(label_is(&l.cases[47], "m=3 n=5 k=7 variant=tiled alpha=1"));
  case_list_release(&l);
}

static void test_zip(void) {
  struct case_list l;
  char *err;
  /* standard: (seq, batch) zipped, crossed with head_dim; the group sits
   * where its first member is declared */
  REQUIRE(expand_text(&attn, "", &l, &err) == 0);
  free(err);
  REQUIRE(l.n == 6);
  CHECK(label_is(&l.cases[0], "seq=128 head_dim=64 batch=8"));
  CHECK(label_is(&l.cases[1], "seq=128 head_dim=128 batch=8"));
  CHECK(label_is(&l.cases[2], "seq=256 head_dim=64 batch=4"));
  CHECK(label_is(&l.cases[5], "seq=512 head_dim=128 batch=2"));
  case_list_release(&l);

  /* one value broadcasts over the group */
  REQUIRE(expand_text(&attn, "[fake_attn]\nbatch = 1\nhead_dim = 64\n", &l, &err) == 0);
  free(err);
  REQUIRE(l.n == 3);
  CHECK(label_is(&l.cases[0], "seq=128 head_dim=64 batch=1"));
  CHECK(label_is(&l.cases[2], "seq=512 head_dim=64 batch=1"));
  case_list_release(&l);

  REQUIRE(expand_text(&attn, "[fake_attn]\nseq = 16\nbatch = 1,2\nhead_dim = 64\n", &l, &err) == 0);
  free(err);
  REQUIRE(l.n == 2);
  CHECK(label_is(&l.cases[1], "seq=16 head_dim=64 batch=2"));
  case_list_release(&l);

  /* lengths that differ: an error naming both, at the preset's line */
  REQUIRE(expand_text(&attn, "[run]\n[fake_attn]\nbatch = 1,2\n", &l, &err) == -1);
  CHECK(strstr(err, "t.ini:3: plugin 'fake_attn': parameters 'seq' (3 values) and 'batch' "
                    "(2 values) share zip group 1") != NULL);
  CHECK(l.n == 0 && l.cases == NULL);
  free(err);
}

static void test_bad_values(void) {
  struct case_list l;
  char *err;
  static const struct {
    const char *text, *want;
  } bad[] = {
    {"[fake_gemm]\nm = 64x\n", "t.ini:2: plugin 'fake_gemm', parameter 'm': '64x' is not an integer"},
    {"[fake_gemm]\n\nm = 0\n", "t.ini:3: plugin 'fake_gemm', parameter 'm': '0' is out of range [1, 65536]"},
    {"[fake_gemm]\nn = 64, 70000\n", "t.ini:2: plugin 'fake_gemm', parameter 'n': '70000' is out of range"},
    {"[fake_gemm]\nalpha = abc\n", "t.ini:2: plugin 'fake_gemm', parameter 'alpha': 'abc' is not a decimal number"},
    {"[fake_gemm]\nalpha = 1.5\n", "t.ini:2: plugin 'fake_gemm', parameter 'alpha': '1.5' is out of range [0, 1]"},
    {"[fake_gemm]\nvariant = fast\n",
     "t.ini:2: plugin 'fake_gemm', parameter 'variant': 'fast' is not one of: naive, tiled"},
    {"[fake_gemm]\nm = 1.5\n", "'1.5' is not an integer"},
    {"[fake_gemm]\nx = 1\n",
     "t.ini:2: unknown parameter 'x' for plugin 'fake_gemm' (known: m, n, k, variant, alpha)"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    int rc = expand_text(&gemm, bad[i].text, &l, &err);
    if (rc != -1 || !strstr(err, bad[i].want))
      fprintf(stderr, "case %zu: rc %d, expected \"%s\", got:\n%s", i, rc, bad[i].want, err);
    CHECK(rc == -1);
    CHECK(strstr(err, bad[i].want) != NULL);
    CHECK(l.n == 0);
    free(err);
  }

  /* every problem is reported, not only the first */
  REQUIRE(expand_text(&gemm, "[fake_gemm]\nm = a\nk = 0\nvariant = x\nq = 1\n", &l, &err) == -1);
  CHECK(strstr(err, "t.ini:2: ") && strstr(err, "t.ini:3: ") && strstr(err, "t.ini:4: ") &&
        strstr(err, "t.ini:5: "));
  free(err);
}

static void test_sections(void) {
  struct preset p;
  struct case_list l;
  char *err;
  REQUIRE(make_preset("[fake_other]\nwhatever = 1\n[nosuch]\nm = 1\n[fake_gemm]\nm = 8\n", &p) == 0);
  const struct bench_plugin *list[] = {&gemm, &attn};
  const char *known[] = {"fake_gemm", "fake_other", "fake_attn"};

  /* a known but unselected plugin's section is ignored; an unknown one is not */
  REQUIRE(expand(list, 2, known, 3, &p, &l, &err) == -1);
  CHECK(strstr(err, "t.ini:3: unknown section [nosuch] (no plugin of that name; known: "
                    "fake_gemm, fake_other, fake_attn)") != NULL);
  CHECK(strstr(err, "fake_other]") == NULL);
  CHECK(l.n == 0);
  free(err);

  /* without `known`, the selected plugins are what is known */
  REQUIRE(expand(list, 2, NULL, 0, &p, &l, &err) == -1);
  CHECK(strstr(err, "t.ini:1: unknown section [fake_other] (no plugin of that name; known: "
                    "fake_gemm, fake_attn)") != NULL);
  free(err);
  preset_release(&p);

  REQUIRE(make_preset("[fake_other]\nwhatever = 1\n[fake_gemm]\nm = 8\n", &p) == 0);
  REQUIRE(expand(list, 2, known, 3, &p, &l, &err) == 0);
  CHECK(*err == '\0');
  free(err);
  REQUIRE(l.n == 2 + 6);
  CHECK(l.cases[0].plugin == &gemm && l.cases[0].plugin_index == 0);
  CHECK(label_is(&l.cases[0], "m=8 n=64 k=64 variant=naive alpha=1"));
  CHECK(l.cases[2].plugin == &attn && l.cases[2].plugin_index == 1);
  CHECK(l.cases[7].plugin == &attn);
  case_list_release(&l);
  preset_release(&p);
}

static void test_no_params(void) {
  const struct bench_plugin *list[] = {&noparams, &gemm};
  struct case_list l;
  char *err;
  REQUIRE(expand(list, 2, NULL, 0, NULL, &l, &err) == 0);
  free(err);
  REQUIRE(l.n == 5);
  CHECK(l.cases[0].plugin == &noparams && l.cases[0].nvalues == 0);
  CHECK(label_is(&l.cases[0], ""));
  CHECK(l.cases[1].plugin_index == 1);
  case_list_release(&l);

  REQUIRE(expand(NULL, 0, NULL, 0, NULL, &l, &err) == 0);
  free(err);
  CHECK(l.n == 0);
  case_list_release(&l);
}

/* ---- broken declarations ---------------------------------------------- */

static const struct bench_param p_dup[] = {
  {"m", BENCH_PARAM_INT, "", NULL, 0, 0, 0, {NULL, "1", NULL, NULL}},
  {"m", BENCH_PARAM_INT, "", NULL, 0, 0, 0, {NULL, "2", NULL, NULL}},
  {NULL, 0, NULL, NULL, 0, 0, 0, {NULL, NULL, NULL, NULL}},
};
static const struct bench_param p_bad_default[] = {
  {"m", BENCH_PARAM_INT, "", NULL, 0, 0, 0, {"abc", "1", NULL, NULL}},
  {NULL, 0, NULL, NULL, 0, 0, 0, {NULL, NULL, NULL, NULL}},
};
static const struct bench_param p_range_default[] = {
  {"m", BENCH_PARAM_INT, "", NULL, 1, 100, 0, {NULL, "1", "1000", NULL}},
  {NULL, 0, NULL, NULL, 0, 0, 0, {NULL, NULL, NULL, NULL}},
};
static const struct bench_param p_no_standard[] = {
  {"m", BENCH_PARAM_INT, "", NULL, 0, 0, 0, {"1", NULL, "2", "3"}},
  {NULL, 0, NULL, NULL, 0, 0, 0, {NULL, NULL, NULL, NULL}},
};
static const struct bench_param p_upper[] = {
  {"M", BENCH_PARAM_INT, "", NULL, 0, 0, 0, {NULL, "1", NULL, NULL}},
  {NULL, 0, NULL, NULL, 0, 0, 0, {NULL, NULL, NULL, NULL}},
};
static const struct bench_param p_empty_name[] = {
  {"", BENCH_PARAM_INT, "", NULL, 0, 0, 0, {NULL, "1", NULL, NULL}},
  {NULL, 0, NULL, NULL, 0, 0, 0, {NULL, NULL, NULL, NULL}},
};
static const struct bench_param p_int_choices[] = {
  {"m", BENCH_PARAM_INT, "", "1,2", 0, 0, 0, {NULL, "1", NULL, NULL}},
  {NULL, 0, NULL, NULL, 0, 0, 0, {NULL, NULL, NULL, NULL}},
};
static const struct bench_param p_bad_choice_default[] = {
  {"v", BENCH_PARAM_STRING, "", "a,b", 0, 0, 0, {"c", "a", NULL, NULL}},
  {NULL, 0, NULL, NULL, 0, 0, 0, {NULL, NULL, NULL, NULL}},
};
static const struct bench_param p_empty_item[] = {
  {"m", BENCH_PARAM_INT, "", NULL, 0, 0, 0, {NULL, "1,,2", NULL, NULL}},
  {NULL, 0, NULL, NULL, 0, 0, 0, {NULL, NULL, NULL, NULL}},
};
static const struct bench_param p_bad_type[] = {
  {"m", (enum bench_param_type)7, "", NULL, 0, 0, 0, {NULL, "1", NULL, NULL}},
  {NULL, 0, NULL, NULL, 0, 0, 0, {NULL, NULL, NULL, NULL}},
};
static const struct bench_param p_min_max[] = {
  {"m", BENCH_PARAM_FLOAT, "", NULL, 2, 1, 0, {NULL, "1", NULL, NULL}},
  {NULL, 0, NULL, NULL, 0, 0, 0, {NULL, NULL, NULL, NULL}},
};
static const struct bench_param p_zip_defaults[] = {
  {"a", BENCH_PARAM_INT, "", NULL, 0, 0, 2, {"1,2,3", "1,2", NULL, NULL}},
  {"b", BENCH_PARAM_INT, "", NULL, 0, 0, 2, {"1,2", "3,4", NULL, NULL}},
  {NULL, 0, NULL, NULL, 0, 0, 0, {NULL, NULL, NULL, NULL}},
};

static int validate(const struct bench_param *params, char *err, size_t n) {
  struct bench_plugin p = {.abi_version = BENCH_ABI_VERSION, .name = "broken", .params = params};
  err[0] = '\0';
  return params_validate(&p, err, n);
}

static void test_params_validate(void) {
  char err[256];
  CHECK(params_validate(&gemm, err, sizeof err) == 0);
  CHECK(params_validate(&attn, err, sizeof err) == 0);
  CHECK(params_validate(&noparams, err, sizeof err) == 0);

  static const struct {
    const struct bench_param *params;
    const char *want;
  } bad[] = {
    {p_dup, "parameter 'm' is declared twice"},
    {p_bad_default, "parameter 'm': default for tier smoke ('abc'): 'abc' is not an integer"},
    {p_range_default, "parameter 'm': default for tier perf ('1000'): '1000' is out of range [1, 100]"},
    {p_no_standard, "parameter 'm' has no default for tier standard"},
    {p_upper, "parameter 'M': the name must be a lower-case identifier"},
    {p_empty_name, "parameter 1 has an empty name"},
    {p_int_choices, "parameter 'm': choices are only for STRING parameters"},
    {p_bad_choice_default, "default for tier smoke ('c'): 'c' is not one of: a, b"},
    {p_empty_item, "empty item in list '1,,2'"},
    {p_bad_type, "parameter 'm': unknown type 7"},
    {p_min_max, "parameter 'm': min (2) is greater than max (1)"},
    {p_zip_defaults, "tier smoke: parameters 'a' (3 values) and 'b' (2 values) share zip group 2"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    int rc = validate(bad[i].params, err, sizeof err);
    if (rc != -1 || !strstr(err, bad[i].want))
      fprintf(stderr, "validate %zu: rc %d, expected \"%s\", got \"%s\"\n", i, rc, bad[i].want, err);
    CHECK(rc == -1);
    CHECK(strstr(err, bad[i].want) != NULL);
  }
  CHECK(params_validate(NULL, err, sizeof err) == -1);
}

/* Broken defaults that reach cases_expand anyway are reported, not run. */
static void test_expand_broken_defaults(void) {
  struct bench_plugin p1 = {.abi_version = BENCH_ABI_VERSION, .name = "nodef", .params = p_no_standard};
  struct bench_plugin p2 = {.abi_version = BENCH_ABI_VERSION, .name = "zipdef", .params = p_zip_defaults};
  struct bench_plugin p3 = {.abi_version = BENCH_ABI_VERSION, .name = "baddef", .params = p_range_default};
  const struct bench_plugin *list[] = {&p1, &p2, &p3};
  struct preset p;
  struct case_list l;
  char *err;
  REQUIRE(make_preset("[run]\ntier = perf\n", &p) == 0);
  REQUIRE(expand(list, 3, NULL, 0, &p, &l, &err) == -1);
  /* nodef has a perf default; zipdef's perf defaults fall back to standard
   * ones of equal length; baddef's perf default is out of range */
  CHECK(strstr(err, "plugin baddef: parameter m: default for tier perf: '1000' is out of range") != NULL);
  CHECK(strstr(err, "nodef") == NULL);
  CHECK(l.n == 0);
  free(err);
  preset_release(&p);

  REQUIRE(expand(list, 2, NULL, 0, NULL, &l, &err) == -1);
  CHECK(strstr(err, "plugin nodef: parameter m has no default") != NULL);
  CHECK(strstr(err, "zipdef") == NULL);
  free(err);

  REQUIRE(make_preset("[run]\ntier = smoke\n", &p) == 0);
  REQUIRE(expand(list + 1, 1, NULL, 0, &p, &l, &err) == -1);
  CHECK(strstr(err, "plugin 'zipdef': parameters 'a' (3 values) and 'b' (2 values) share zip "
                    "group 2") != NULL);
  CHECK(strstr(err, "from its defaults for tier smoke") != NULL);
  free(err);
  preset_release(&p);
}

/* ---- issue 15 item 4: one value, one text ----------------------------- */

static void test_normalised_values(void) {
  struct case_list l;
  char *err;
  REQUIRE(expand_text(&gemm, "[fake_gemm]\nm = +064, 0128, 64\nn = 8\nk = 8\nvariant = naive\n"
                             "alpha = 0.50, 5e-1, +.25, 1E0\n", &l, &err) == 0);
  free(err);
  REQUIRE(l.n == 12);
  CHECK(label_is(&l.cases[0], "m=64 n=8 k=8 variant=naive alpha=0.5"));
  CHECK(label_is(&l.cases[1], "m=64 n=8 k=8 variant=naive alpha=0.5"));
  CHECK(label_is(&l.cases[2], "m=64 n=8 k=8 variant=naive alpha=0.25"));
  CHECK(label_is(&l.cases[3], "m=64 n=8 k=8 variant=naive alpha=1"));
  CHECK(label_is(&l.cases[4], "m=128 n=8 k=8 variant=naive alpha=0.5"));
  CHECK(label_is(&l.cases[8], "m=64 n=8 k=8 variant=naive alpha=0.5"));
  CHECK(case_find(&l.cases[0], "m")->i == 64);
  CHECK(case_find(&l.cases[2], "alpha")->f == 0.25);
  case_list_release(&l);

  /* hex floats, inf and nan are no FLOAT values; a tiny one keeps its exponent */
  static const char *const refused[] = {"0x1p-1", "0X.8P0", "inf", "nan", "1e-400"};
  for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
    char *text = xasprintf("[fake_gemm]\nalpha = %s\n", refused[i]);
    char *want = xasprintf("t.ini:2: plugin 'fake_gemm', parameter 'alpha': '%s' is not a decimal number",
                           refused[i]);
    CHECK(expand_text(&gemm, text, &l, &err) == -1);
    if (!strstr(err, want)) fprintf(stderr, "expected \"%s\", got:\n%s", want, err);
    CHECK(strstr(err, want) != NULL);
    free(err);
    free(want);
    free(text);
  }
  REQUIRE(expand_text(&gemm, "[fake_gemm]\nm = 8\nvariant = naive\nalpha = 0.00001, 1.5e-7, 0.0001, 0.1\n", &l, &err) == 0);
  free(err);
  REQUIRE(l.n == 4);
  CHECK(strcmp(case_find(&l.cases[0], "alpha")->text, "1e-5") == 0);
  CHECK(strcmp(case_find(&l.cases[1], "alpha")->text, "1.5e-7") == 0);
  CHECK(strcmp(case_find(&l.cases[2], "alpha")->text, "0.0001") == 0);
  CHECK(strcmp(case_find(&l.cases[3], "alpha")->text, "0.1") == 0);
  case_list_release(&l);
}

/* ---- issue 15 item 3: sections of plugins found but not selected ------ */

static void test_check_unselected(void) {
  struct preset p;
  char *err;
  struct capture c;
  REQUIRE(make_preset("[run]\n[fake_gemm]\nbanana = split\nm = not a number\n"
                      "[fake_attn]\nseq = 1,2\nbatch = 1,2,3\n", &p) == 0);
  const struct bench_plugin *all[] = {&gemm, &attn, &noparams};
  capture_begin(&c);
  int rc = cases_check_preset(all, 3, &p);
  err = capture_end(&c);
  CHECK(rc == -1);
  CHECK(strstr(err, "t.ini:3: unknown parameter 'banana' for plugin 'fake_gemm'") != NULL);
  CHECK(strstr(err, "t.ini:4: plugin 'fake_gemm', parameter 'm': 'not a number' is not an integer") != NULL);
  CHECK(strstr(err, "t.ini:7: plugin 'fake_attn': parameters 'seq' (2 values) and 'batch' (3 values)") != NULL);
  free(err);
  /* plugins without a section, and good sections, are fine */
  capture_begin(&c);
  rc = cases_check_preset(all + 2, 1, &p);
  err = capture_end(&c);
  CHECK(rc == 0 && *err == '\0');
  free(err);
  preset_release(&p);
}

/* ---- issue 12 item 8: a sweep too large names its line --------------- */

static void test_sweep_too_large(void) {
  /* 50 x 50 x 50 x 2 x 10 cases: the alpha line (7) goes over the limit */
  struct strbuf sb = STRBUF_INIT;
  strbuf_adds(&sb, "[run]\n[fake_gemm]\n");
  for (int line = 0; line < 3; line++) {
    strbuf_addf(&sb, "%c = 1", "mnk"[line]);
    for (int i = 2; i <= 50; i++) strbuf_addf(&sb, ",%d", i);
    strbuf_adds(&sb, "\n");
  }
  strbuf_adds(&sb, "variant = naive, tiled\nalpha = 0,0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9\n");
  struct case_list l;
  char *err;
  CHECK(expand_text(&gemm, sb.buf, &l, &err) == -1);
  if (!strstr(err, "t.ini:7: plugin")) fprintf(stderr, "got:\n%s", err);
  CHECK(strstr(err, "t.ini:7: plugin 'fake_gemm': the parameter lists make more than 1000000 cases") != NULL);
  CHECK(l.n == 0);
  free(err);
  strbuf_release(&sb);
}

/* ---- issue 12 item 8: 100k unknown sections, a bounded report -------- */

static void test_many_unknown_sections(void) {
  struct strbuf sb = STRBUF_INIT;
  for (int i = 0; i < 100000; i++) strbuf_addf(&sb, "[nope_%d]\nm = 1\n", i);
  struct preset p;
  REQUIRE(make_preset(sb.buf, &p) == 0);
  strbuf_release(&sb);
  const struct bench_plugin *list[] = {&gemm};
  struct case_list l;
  char *err;
  alarm(30);
  CHECK(expand(list, 1, NULL, 0, &p, &l, &err) == -1);
  alarm(0);
  CHECK(strstr(err, "t.ini:1: unknown section [nope_0]") != NULL);
  CHECK(strstr(err, "t.ini: 99980 more problems not shown") != NULL);
  size_t lines = 0;
  for (const char *q = err; *q; q++) lines += *q == '\n';
  CHECK(lines == 21);
  free(err);
  preset_release(&p);
}

TEST_MAIN(TEST_ENTRY(test_standard_defaults), TEST_ENTRY(test_tier_defaults),
          TEST_ENTRY(test_preset_override), TEST_ENTRY(test_crossing_order), TEST_ENTRY(test_zip),
          TEST_ENTRY(test_bad_values), TEST_ENTRY(test_sections), TEST_ENTRY(test_no_params),
          TEST_ENTRY(test_params_validate), TEST_ENTRY(test_expand_broken_defaults),
          TEST_ENTRY(test_normalised_values), TEST_ENTRY(test_check_unselected),
          TEST_ENTRY(test_sweep_too_large), TEST_ENTRY(test_many_unknown_sections))
