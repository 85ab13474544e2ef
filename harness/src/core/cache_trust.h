/* What a cache may be kept in (issue 40), checked the way ssh checks
 * ~/.ssh: bench uses a cache folder or file only when the running user owns
 * it and nobody else can write it. Another local user who made bench's
 * folder first in a shared XDG_CACHE_HOME (a scratch /tmp, a group folder)
 * could otherwise plant records that steer the user's runs.
 *
 *   - a cache folder (the bench folder and every folder bench keeps below
 *     it) is a folder owned by the user (geteuid) or root, not writable by
 *     group or others (the folders above the bench folder are the user's
 *     choice: those bench makes are 0700, none is checked);
 *   - a cache file is a regular file (opened with O_NOFOLLOW: never through
 *     a symlink) owned by the user or root, not writable by group or others;
 *   - bench makes its cache folders 0700 and its cache files 0600.
 *
 * A cache that fails a check is not used (not read, not written): the run
 * goes on without it, and cache_untrusted_warn says so once per folder. The
 * Vulkan helper library (plugins/vulkan/vkh/vkh_cachefs.c) keeps its own
 * copy of the same rule. */
#ifndef BENCH_CACHE_TRUST_H
#define BENCH_CACHE_TRUST_H

#include <stddef.h>

#include "core/lockfile.h"
#include "core/util.h"

#define CACHE_OK 0
#define CACHE_MISSING 1    /* absent (or cannot be made): no cache, nothing to say */
#define CACHE_UNTRUSTED -1 /* fails the rule: no cache, why says what */

/* Check the cache folder dir, which is top (the bench folder) or a folder
 * below it; with create, make what is missing (mode 0700) first. CACHE_OK;
 * CACHE_MISSING (absent, or create failed: why says why); CACHE_UNTRUSTED
 * with why naming the folder and the reason ("'/tmp/x/bench' is owned by
 * uid 65534, not by you (uid 1000)"). */
int cache_dir_ready(const char *top, const char *dir, int create, char *why, size_t whylen);

/* Check an open file: a regular file of the user, not writable by group
 * or others. CACHE_OK or CACHE_UNTRUSTED (why names path). */
int cache_fd_check(int fd, const char *path, char *why, size_t whylen);

/* Open the cache file path for reading (O_NOFOLLOW | O_NONBLOCK) and check
 * it (cache_fd_check): the fd with *trust CACHE_OK; or -1 with *trust
 * CACHE_MISSING (errno set, ENOENT: absent; why) or CACHE_UNTRUSTED (why;
 * also for a symlink). */
int cache_file_open(const char *path, int *trust, char *why, size_t whylen);

/* Read the cache file path (at most cap bytes) into sb: opened with
 * O_NOFOLLOW | O_NONBLOCK and checked (cache_fd_check). CACHE_OK;
 * CACHE_MISSING with errno set (ENOENT: absent) and why; CACHE_UNTRUSTED
 * with why (also for a symlink). */
int cache_file_load(const char *path, size_t cap, struct strbuf *sb, char *why, size_t whylen);

/* tempfile_open for a cache file: the temporary file is mode 0600. */
int cache_tempfile_open(struct tempfile *t, const char *path);

/* "bench: warning: not using the cache ...: WHY; running without it" once
 * per process for each distinct why (so once per folder and reason). */
void cache_untrusted_warn(const char *why);

#endif
