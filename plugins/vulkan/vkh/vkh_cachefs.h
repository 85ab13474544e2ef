/* The Vulkan helpers' cache files (SPIR-V, pipeline caches) under the rule
 * of bench's own caches (harness/src/core/cache_trust.h, issue 40; vkh is a
 * library plugins link, so it keeps this small copy): a cache folder is a
 * folder of the user (geteuid) or root that group and others cannot write,
 * a cache file a regular file of the user or root that group and others
 * cannot write,
 * opened with O_NOFOLLOW; folders are made 0700. A file is written under a
 * random temporary name (O_CREAT | O_EXCL | O_NOFOLLOW, 0600) and renamed
 * into place, so a file or symlink planted under any name is never written
 * through. */
#ifndef VKH_CACHEFS_H
#define VKH_CACHEFS_H

#include <stddef.h>

#define VKH_CACHE_OK 0
#define VKH_CACHE_MISSING 1    /* absent or unusable: no cache, nothing to say */
#define VKH_CACHE_UNTRUSTED -1 /* fails the rule: why says what */

/* The bench cache folder: $XDG_CACHE_HOME/bench (an absolute value), else
 * $HOME/.cache/bench. 0, or -1 when neither is set or buf is too small. */
int vkh_cache_top(char *buf, size_t len);

/* Check dir, which is top or a folder below it, and every folder from top
 * down to it; with create, make the missing ones (0700) first. */
int vkh_cache_dir_ready(const char *top, const char *dir, int create, char *why, size_t whylen);

/* The whole file path (at most max bytes; malloc'd into *data, *n bytes)
 * when it is a trusted regular file. VKH_CACHE_OK; VKH_CACHE_MISSING
 * (absent, empty, too large, unreadable); VKH_CACHE_UNTRUSTED (why). */
int vkh_cache_read(const char *path, size_t max, unsigned char **data, size_t *n, char *why,
                   size_t whylen);

/* Write the parts, one after another, as path (a temporary file beside it,
 * renamed over it). 0, or -1 (nothing left behind). */
int vkh_cache_write(const char *path, const void *const *parts, const size_t *lens, int nparts);

#endif
