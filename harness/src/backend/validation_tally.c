/* The validation tally of a run (see validation_tally.h). */
#include "backend/validation_tally.h"

#include "backend/backends.h"

static unsigned long off, missing; /* cases that ran without their layer */
static const struct backend *first; /* the backend of the first such case */
static int said;

void validation_tally_case(const char *backend, enum validation_state st) {
  const struct backend *b = backend_find(backend);
  if (!b || !b->validation_env || st == VALIDATION_ON) return;
  if (st == VALIDATION_MISSING) missing++;
  else off++;
  if (!first) first = b;
}

void validation_tally_hint(FILE *out) {
  if (said || (!off && !missing)) return;
  said = 1;
  const unsigned long n = off + missing;
  const char *cases = n == 1 ? "case" : "cases";
  if (missing)
    fprintf(out, "%lu %s %s ran without validation: %s is not installed here, so "
                 "validation = true and --mode debug could not check them\n",
            n, first->validation_label, cases, first->validation_layer);
  else
    fprintf(out, "%lu %s %s ran without validation: --preset verify (validation = true) "
                 "or --mode debug runs them under it, a validation error failing the case\n",
            n, first->validation_label, cases);
}
