/* Compiled SPIR-V kept on disk between runs: one file per compilation in
 * $XDG_CACHE_HOME/bench/spirv/ (else ~/.cache/bench/spirv/), named by the
 * SHA-256 of everything that decides the output (the source, the macros,
 * the options, and the compiler: shaderc's SPIR-V version and the identity
 * of the plugin file it is linked into). A file holds a header with that
 * key, the SHA-256 of the key and the words, and the words: one whose key
 * is not the one this run computed (a file renamed over another's name) or
 * that fails any check is ignored (and replaced after the compile). The
 * folder and files follow the rule of bench's caches (vkh_cachefs.h): not
 * the user's alone means no cache. Written to a random temporary name
 * renamed into place. BENCH_NO_SPIRV_CACHE=1 bypasses it. */
#ifndef VKH_SPIRV_CACHE_H
#define VKH_SPIRV_CACHE_H

#include <stddef.h>
#include <stdint.h>

/* The cache file of a compilation whose key (SHA-256, 64 hex digits) is
 * `key`, its folder made (0700) and checked: 0; -1 when the cache is off
 * or there is no folder for it; -2 when the folder is not the user's alone
 * (why says why). */
int vkh_spirv_cache_path(const char *key, char *buf, size_t len, char *why, size_t whylen);
/* The words kept in path for key (malloc'd; *bytes their size), or NULL:
 * absent (*corrupt 0), unusable or another key's (*corrupt 1), or a file
 * not the user's alone (*corrupt -1, why says why). */
uint32_t *vkh_spirv_cache_read(const char *path, const char *key, size_t *bytes, int *corrupt,
                               char *why, size_t whylen);
/* Keep words in path for key; 0 when written. */
int vkh_spirv_cache_write(const char *path, const char *key, const uint32_t *words, size_t bytes);

#endif
