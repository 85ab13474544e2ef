/* "Did you mean ...?": the names closest to a mistyped one, as git's
 * help.c finds a mistyped command (an edit distance that counts swapping
 * two neighbouring characters as one edit, a cut-off that grows with the
 * name's length), for a command, an option or a plugin name. */
#ifndef BENCH_SUGGEST_H
#define BENCH_SUGGEST_H

#include <stddef.h>

#include "core/util.h"

/* The optimal string alignment distance between a and b (Damerau-
 * Levenshtein without repeated edits of a substring): insertions,
 * deletions, substitutions and swaps of two neighbouring characters cost
 * one each. Case-sensitive. */
size_t suggest_distance(const char *a, const char *b);

/* The candidates closest to typed: those at the smallest distance, when
 * that distance is at most max(1, strlen(typed) / 3) (one edit in a short
 * name, more in a long one), and the candidates of which typed is a
 * longer form ("--warmup-iters" for "--warmup") when nothing is that
 * close. Their indexes in cand[0..n) go to out (at most maxout, in
 * candidate order); returns how many. NULL candidates are skipped, and so
 * is one equal to typed. */
size_t suggest_closest(const char *typed, const char *const *cand, size_t n, size_t *out, size_t maxout);

/* "; did you mean 'a'?" or "; did you mean 'a' or 'b'?" (each name with
 * prefix before it, e.g. "--"), appended to sb for the closest of
 * cand[0..n); nothing when none is close. Returns how many were named.
 * The names are not escaped: the message goes through error(), which
 * escapes it whole. */
size_t suggest_add(struct strbuf *sb, const char *typed, const char *const *cand, size_t n,
                   const char *prefix);

#endif
