/* bench compare --by operation: one problem (operation, shape and dtype)
 * lined up across plugins and backends. */
#ifndef BENCH_COMPARE_BY_OP_H
#define BENCH_COMPARE_BY_OP_H

#include <stddef.h>

/* Parameters that choose how a problem is computed, not which problem:
 * they are left out of the problem's identity (variant, isa, tile,
 * threads, flush_l2). A case without a dtype parameter computes in f32. */
int is_implementation_param(const char *name);

/* The problem of a case: "gemm dtype=f32 k=1024 m=1024 n=1024" (operation,
 * then the problem's parameters sorted by name, dtype=f32 added when the
 * plugin has none); NULL for operation "none" (self-checking plugins whose
 * cases are not comparable across plugins). Caller frees. */
struct case_result;
char *problem_key(const struct case_result *r);

/* Load every path, keep the newest run of each case, group by problem and
 * print the problems measured by two cases or more. Returns 0, or -1 when a
 * path could not be loaded (the error printed). */
int compare_by_operation(const char *const *paths, size_t npaths, const char **plugins, size_t nplugins,
                         const char *format, int colour);

#endif
