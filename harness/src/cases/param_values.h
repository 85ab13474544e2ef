/* A parameter's values as a preset, --param or a plugin default writes
 * them: comma lists, items checked against the declaration. */
#ifndef BENCH_PARAM_VALUES_H
#define BENCH_PARAM_VALUES_H

#include <stddef.h>
#include <stdint.h>

#include "bench/plugin.h"
#include "cases/cases.h"

/* The trimmed items of a comma list. */
struct item_list {
  size_t n;
  char **items;
};
/* Split "64, 128" into trimmed items. -1 with err when an item is empty. */
int split_list(const char *text, struct item_list *out, char *err, size_t errlen);
void item_list_release(struct item_list *l);

/* A parameter's values: the items of its list, checked. */
struct param_values {
  size_t n;
  struct case_value *v;
  int line; /* preset line it came from, 0 for a plugin default */
};
/* Split text and check each item against bp (INT and FLOAT texts
 * normalised). 0, or -1 with the reason in err. */
int parse_values(const struct bench_param *bp, const char *text, struct param_values *out,
                 char *err, size_t errlen);
void param_values_release(struct param_values *pv);

/* Is text (a value or comma list) valid for bp? 0, or -1 with the reason
 * in err ("'abc' is not an integer"). */
int param_value_check(const struct bench_param *bp, const char *text, char *err, size_t errlen);

/* How many parameters p declares. */
size_t count_params(const struct bench_plugin *p);
/* The plugin default of bp for tier t (falling back to standard; *used says
 * which), or NULL. */
const char *default_for(const struct bench_param *bp, enum bench_tier t, enum bench_tier *used);
/* First pair of parameters in one zip group whose lists differ in length
 * (neither of length 1). Returns 1 and sets *a, *b if there is one. */
int zip_mismatch(const struct bench_param *params, const size_t *lens, size_t n, size_t *a,
                 size_t *b);

#endif
