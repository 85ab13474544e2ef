/* This build of bench: its version and the git revision it was built from
 * (both set by CMake; "0.0.0" and "unknown" otherwise). */
#ifndef BENCH_CORE_VERSION_H
#define BENCH_CORE_VERSION_H

const char *bench_version(void);
const char *bench_git_revision(void);

#endif
