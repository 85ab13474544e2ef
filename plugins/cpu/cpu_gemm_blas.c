/* OpenBLAS and BLIS for cpu_gemm's anchor variants, loaded at run time.
 * Each case runs in its own process, so a kernel set forced through the
 * environment applies to that case alone. Neither library is ever closed:
 * their threads live until the process ends. */
#define _GNU_SOURCE /* setenv, strcasecmp */
#include "cpu_gemm_blas.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int disabled(const char *var) {
  const char *v = getenv(var);
  return v && *v && strcmp(v, "0") != 0;
}

static void *open_first(const char *a, const char *b) {
  void *lib = dlopen(a, RTLD_NOW | RTLD_LOCAL);
  return lib ? lib : dlopen(b, RTLD_NOW | RTLD_LOCAL);
}

/* dlsym into a function pointer of any type, without a cast of void *. */
#define SYM(lib, name, fp)                                \
  do {                                                    \
    void *s_ = dlsym(lib, name);                          \
    if (s_) memcpy(&(fp), &s_, sizeof(fp));               \
  } while (0)

static int load_openblas(const struct bench_host *host, int threads, gemm_sgemm_fn *sgemm) {
  if (disabled("BENCH_CPU_NO_OPENBLAS"))
    return host->skip(host, "OpenBLAS disabled by BENCH_CPU_NO_OPENBLAS=%s",
                      getenv("BENCH_CPU_NO_OPENBLAS"));
  void *lib = open_first("libopenblas.so.0", "libopenblas.so");
  if (!lib)
    return host->skip(host, "OpenBLAS not available (%s); install libopenblas0", dlerror());
  SYM(lib, "cblas_sgemm", *sgemm);
  if (!*sgemm) return host->skip(host, "libopenblas has no cblas_sgemm");
  void (*set_threads)(int) = NULL;
  char *(*corename)(void) = NULL;
  SYM(lib, "openblas_set_num_threads", set_threads);
  SYM(lib, "openblas_get_corename", corename);
  if (set_threads) set_threads(threads);
  const char *core = corename ? corename() : NULL;
  if (core) host->set_info(host, "openblas_core", core);
  const char *want = getenv("OPENBLAS_CORETYPE");
  if (want && *want && core && strcasecmp(want, core) != 0)
    return host->skip(host, "OpenBLAS runs core %s, not OPENBLAS_CORETYPE=%s", core, want);
  return BENCH_OK;
}

static int load_blis(const struct bench_host *host, int threads, gemm_sgemm_fn *sgemm) {
  if (disabled("BENCH_CPU_NO_BLIS"))
    return host->skip(host, "BLIS disabled by BENCH_CPU_NO_BLIS=%s", getenv("BENCH_CPU_NO_BLIS"));
  void *lib = open_first("libblis.so.4", "libblis.so");
  if (!lib) return host->skip(host, "BLIS not available (%s); install libblis4", dlerror());
  void (*init)(void) = NULL;
  int (*arch_id)(void) = NULL;
  const char *(*arch_name)(int) = NULL;
  void (*set_threads)(long) = NULL;
  SYM(lib, "cblas_sgemm", *sgemm);
  SYM(lib, "bli_init", init);
  SYM(lib, "bli_arch_query_id", arch_id);
  SYM(lib, "bli_arch_string", arch_name);
  SYM(lib, "bli_thread_set_num_threads", set_threads);
  if (!*sgemm || !init || !arch_id || !arch_name)
    return host->skip(host, "libblis lacks cblas_sgemm or the bli_arch_* queries");
  const char *want = getenv("BENCH_CPU_BLIS_ARCH");
  if (want && *want) {
    /* Configuration ids run from 0 to "generic", always the last. */
    int id = -1;
    for (int i = 0; i < 64 && id < 0; i++) {
      const char *name = arch_name(i);
      if (!name) break;
      if (strcmp(name, want) == 0) id = i;
      if (strcmp(name, "generic") == 0) break;
    }
    if (id < 0) return host->skip(host, "BLIS has no configuration '%s'", want);
    char text[16];
    snprintf(text, sizeof text, "%d", id);
    setenv("BLIS_ARCH_TYPE", text, 1); /* read by bli_init, below */
  }
  init();
  const char *arch = arch_name(arch_id());
  host->set_info(host, "blis_arch", arch);
  if (want && *want && strcmp(arch, want) != 0)
    return host->skip(host, "BLIS runs configuration %s, not %s", arch, want);
  if (set_threads) set_threads(threads);
  return BENCH_OK;
}

int gemm_blas_load(const struct bench_host *host, enum gemm_blas which, int threads,
                   gemm_sgemm_fn *sgemm) {
  *sgemm = NULL;
  return which == GEMM_OPENBLAS ? load_openblas(host, threads, sgemm)
                                : load_blis(host, threads, sgemm);
}
