/* libFuzzer target: the preset parser with case expansion. The input is a
 * preset file; its length (mod 8) also picks which of three fake plugins
 * are selected, so that sections of unselected plugins are
 * checked (cases_check_preset) as well as expanded (cases_expand). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cases/cases.h"
#include "preset/preset.h"

/*                     smoke      standard    perf     verify */
static const struct bench_param gemm_params[] = {
  {"m", BENCH_PARAM_INT, "rows", NULL, 1, 65536, 0, {"16", "64,128", "1024", "1,7"}},
  {"n", BENCH_PARAM_INT, "cols", NULL, 1, 65536, 0, {"16", "64", NULL, "3"}},
  {"k", BENCH_PARAM_INT, "depth", NULL, 1, 65536, 0, {"16", "64", "1024", "13"}},
  {"variant", BENCH_PARAM_STRING, "kernel", "naive, tiled", 0, 0, 0, {"naive", "naive,tiled", "tiled", "naive"}},
  {"alpha", BENCH_PARAM_FLOAT, "scale", NULL, 0, 1, 0, {NULL, "1.0", NULL, "0.5"}},
  {NULL, 0, NULL, NULL, 0, 0, 0, {NULL, NULL, NULL, NULL}},
};
static const struct bench_param attn_params[] = {
  {"seq", BENCH_PARAM_INT, "", NULL, 1, 0x7fffffff, 1, {"4", "128,256,512", NULL, NULL}},
  {"head_dim", BENCH_PARAM_INT, "", NULL, 0, 0, 0, {"8", "64,128", NULL, NULL}},
  {"batch", BENCH_PARAM_INT, "", NULL, 0, 0, 1, {"1", "8,4,2", NULL, NULL}},
  {"eps", BENCH_PARAM_FLOAT, "", NULL, 0, 0, 0, {"1e-5", NULL, NULL, NULL}},
  {NULL, 0, NULL, NULL, 0, 0, 0, {NULL, NULL, NULL, NULL}},
};
static const struct bench_plugin plugins[] = {
  {.abi_version = BENCH_ABI_VERSION, .name = "fake_gemm", .backend = "cpu", .operation = "gemm",
   .description = "fuzz", .params = gemm_params},
  {.abi_version = BENCH_ABI_VERSION, .name = "fake_attn", .backend = "cpu", .operation = "attention",
   .description = "fuzz", .params = attn_params},
  {.abi_version = BENCH_ABI_VERSION, .name = "fake_none", .backend = "cpu", .operation = "none",
   .description = "fuzz", .params = NULL},
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  struct preset p;
  if (preset_parse("fuzz.ini", (const char *)data, size, &p) != 0) return 0;
  unsigned pick = (unsigned)(size % 8);
  const struct bench_plugin *sel[3], *others[3];
  const char *known[3];
  size_t nsel = 0, nothers = 0;
  for (size_t i = 0; i < 3; i++) {
    known[i] = plugins[i].name;
    if (pick & (1u << i)) sel[nsel++] = &plugins[i];
    else others[nothers++] = &plugins[i];
  }
  cases_check_preset(others, nothers, &p);
  struct case_list l;
  if (cases_expand(sel, nsel, known, 3, &p, &l) == 0) {
    for (size_t c = 0; c < l.n && c < 64; c++) {
      char *label = case_label(&l.cases[c]);
      /* a normalised value reads back as itself */
      for (size_t j = 0; j < l.cases[c].nvalues; j++) {
        const struct case_value *v = &l.cases[c].values[j];
        if (v->param->type == BENCH_PARAM_FLOAT && strtod(v->text, NULL) != v->f) abort();
        if (v->param->type == BENCH_PARAM_INT && strtoll(v->text, NULL, 10) != v->i) abort();
      }
      free(label);
    }
    case_list_release(&l);
  }
  preset_release(&p);
  return 0;
}
