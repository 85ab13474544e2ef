/* Compiled SPIR-V kept on disk between runs: one file per compilation in
 * $XDG_CACHE_HOME/bench/spirv/ (else ~/.cache/bench/spirv/), named by the
 * SHA-256 of everything that decides the output (the source, the macros,
 * the options, and the compiler: shaderc's SPIR-V version and the identity
 * of the plugin file it is linked into). A file holds a header, the SHA-256
 * of the words and the words; one that fails any check is ignored (and
 * replaced after the compile). Written to a temporary file renamed into
 * place; a folder that cannot be made or written means no cache.
 * BENCH_NO_SPIRV_CACHE=1 bypasses it. */
#ifndef VKH_SPIRV_CACHE_H
#define VKH_SPIRV_CACHE_H

#include <stddef.h>
#include <stdint.h>

/* The cache file of a compilation whose key (SHA-256, hex) is `key`, or -1
 * when the cache is off or there is no folder for it. */
int vkh_spirv_cache_path(const char *key, char *buf, size_t len);
/* The words kept in path (malloc'd; *bytes their size), or NULL: absent
 * (*corrupt 0) or unusable (*corrupt 1). */
uint32_t *vkh_spirv_cache_read(const char *path, size_t *bytes, int *corrupt);
/* Keep words in path; 0 when written. */
int vkh_spirv_cache_write(const char *path, const uint32_t *words, size_t bytes);

#endif
