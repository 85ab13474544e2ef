/* This build of bench: its version and git revision. */
#include "core/version.h"

#ifndef BENCH_VERSION
#define BENCH_VERSION "0.0.0"
#endif
#ifndef BENCH_GIT_REVISION
#define BENCH_GIT_REVISION "unknown"
#endif

const char *bench_version(void) { return BENCH_VERSION; }
const char *bench_git_revision(void) { return BENCH_GIT_REVISION; }
