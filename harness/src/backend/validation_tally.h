/* What a run's cases had of their backend's validation layer (Vulkan's:
 * backends.h, validation_env), counted as the runner hands their results
 * on, for one line at the end of the run's summary: cases that ran
 * without the layer, and how to turn it on. */
#ifndef BENCH_VALIDATION_TALLY_H
#define BENCH_VALIDATION_TALLY_H

#include <stdio.h>

enum validation_state {
  VALIDATION_OFF,     /* neither --mode debug nor a preset's validation = true */
  VALIDATION_ON,      /* run under the layer, its log read after the case */
  VALIDATION_MISSING  /* asked for, but the layer is not installed here */
};

/* One case of the backend named backend that ran (was not SKIPPED), under
 * st. Nothing for a backend without a validation layer. */
void validation_tally_case(const char *backend, enum validation_state st);

/* Once, at the end of a run's summary, when cases ran without their
 * backend's layer (OFF or MISSING): one line saying how many and how to
 * turn it on (--mode debug, or the verify preset / validation = true), or
 * that the layer is not installed. Nothing otherwise, or when said. */
void validation_tally_hint(FILE *out);

#endif
