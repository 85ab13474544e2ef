/* The tuning cache of vk_gemm_auto: one text file in the user's cache
 * directory, $XDG_CACHE_HOME/bench/vk_gemm_auto.tsv (else
 * ~/.cache/bench/vk_gemm_auto.tsv), one line per key:
 *   key TAB variant TAB time-ns TAB unix-seconds
 * Rewritten whole into a temporary file and renamed into place, so a
 * reader never sees half a file; two writers at once may lose one entry
 * (that shape is tuned again), never corrupt the file. */
#ifndef TUNE_CACHE_H
#define TUNE_CACHE_H

#include <stddef.h>

/* The file's path; -1 when neither XDG_CACHE_HOME nor HOME is set. */
int tune_cache_path(const char *file, char *buf, size_t len);
/* The variant stored for key: 0, or -1 when absent or unreadable. */
int tune_cache_get(const char *path, const char *key, char *variant, size_t len);
/* Store (replace) key's variant: 0, or -1 with the reason in err. */
int tune_cache_put(const char *path, const char *key, const char *variant, double ns, char *err,
                   size_t errlen);

#endif
