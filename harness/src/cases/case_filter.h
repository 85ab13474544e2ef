/* --filter EXPR: keep only the cases whose parameters satisfy EXPR.
 *
 *   EXPR  := COND { ',' COND }        every condition must hold
 *   COND  := NAME OP VALUE
 *   OP    := '=' | '==' | '!=' | '<' | '<=' | '>' | '>='
 *   VALUE := ALT { '|' ALT }          '=': any ALT matches; '!=': none does
 *
 * e.g. `m>=512,dtype=f16`, `variant=naive|tiled`, `k!=64`. Spaces around
 * names, operators and values are ignored. A case value and an ALT that
 * both read as numbers compare as numbers (so m=512 matches "0x200" or
 * "512.0"), else as exact text. <, <=, > and >= need a number. A case
 * without parameter NAME does not match. Several --filter options must all
 * hold. */
#ifndef BENCH_CASE_FILTER_H
#define BENCH_CASE_FILTER_H

#include <stddef.h>

#include "bench/plugin.h"
#include "cases/cases.h"

struct case_filter;

/* Parse one EXPR. NULL after error() ("--filter 'EXPR': ...") when malformed. */
struct case_filter *case_filter_parse(const char *expr);
void case_filter_free(struct case_filter *f);

/* 1 when case c satisfies every condition of f. */
int case_filter_match(const struct case_filter *f, const struct case_def *c);

/* Parse each expression, check that each NAME is a parameter of one of
 * plugins[0..nplugins), and drop the cases of `cases` that do not match all
 * of them (order kept). 0, or -1 after error() (also when no case is left). */
int case_filter_apply(const char *const *exprs, size_t nexprs,
                      const struct bench_plugin *const *plugins, size_t nplugins,
                      struct case_list *cases);

#endif
