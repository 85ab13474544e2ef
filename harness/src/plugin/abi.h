/* The plugin ABI's growth rule: which plugins this harness accepts, the
 * fields of a plugin's entry that exist for the version it was built with,
 * and the one place where a struct a plugin hands over (its entry, each
 * parameter, a check, a compare) is copied into the harness's own layout. */
#ifndef BENCH_ABI_H
#define BENCH_ABI_H

#include <stddef.h>
#include <stdint.h>

#include "bench/plugin.h"

/* Nothing of the plugin ABI is larger than this: a struct size stated or
 * implied beyond it is garbage, not a newer minor. */
#define ABI_STRUCT_MAX 4096

/* The oldest ABI the plugin needs: abi_needed when the plugin was built
 * against 1.1 or later and set it, else its major.0. */
uint32_t abi_needed(const struct bench_plugin *p);

/* 0 when this harness can run the plugin: same major, and the minor it
 * needs is one this harness has. Else -1 and one line in msg, e.g.
 * "needs plugin ABI 1.4, this bench speaks 1.3 (use a newer bench)". */
int abi_accept(const struct bench_plugin *p, char *msg, size_t len);

/* The plugin's run_batch, NULL when absent or built before 1.1. */
typedef int (*abi_run_batch_fn)(const struct bench_host *, void *, int64_t);
abi_run_batch_fn abi_run_batch(const struct bench_plugin *p);

/* The bytes of each struct a plugin hands to the harness, as laid out by
 * the ABI it was built with (a newer minor: the prefix this harness knows,
 * and the params stride the plugin stated). */
struct abi_layout {
  const char *plugin;  /* its name, for messages ("?" when it has none) */
  uint32_t version;    /* its abi_version */
  size_t entry;        /* struct bench_plugin */
  size_t param;        /* struct bench_param: the stride of its params array */
  size_t check;        /* struct bench_check */
  size_t compare;      /* struct bench_compare (0: the minor has none) */
};

/* The layout of p, which abi_accept accepted; p NULL gives 1.0's, the
 * least that any plugin of this major has. 0, or -1 with one line naming
 * the plugin in msg (a stated param_size that is not a size, or none from
 * a plugin of a newer minor that declares parameters). */
int abi_layout_of(const struct bench_plugin *p, struct abi_layout *l, char *msg, size_t len);

/* Copy the plugin's struct at src (l's size of it) into *dst, zero-filled,
 * of the harness's layout: bytes beyond l's size are never read, fields
 * beyond the harness's are ignored. 0, or -1 with one line naming the
 * plugin in msg when l's size cannot be one of that struct (smaller than
 * the first ABI's, larger than ABI_STRUCT_MAX, not a multiple of its
 * alignment). One function per struct; nothing else reads a plugin's. */
int abi_copy_plugin(const struct abi_layout *l, const void *src, struct bench_plugin *dst,
                    char *msg, size_t len);
int abi_copy_param(const struct abi_layout *l, const void *src, struct bench_param *dst,
                   char *msg, size_t len);
int abi_copy_check(const struct abi_layout *l, const void *src, struct bench_check *dst,
                   char *msg, size_t len);
int abi_copy_compare(const struct abi_layout *l, const void *src, struct bench_compare *dst,
                     char *msg, size_t len);

/* The loader's copy of entry p (accepted by abi_accept): the entry and its
 * params array (ended by a zeroed entry) in the harness's layout, owned by
 * the caller (free with abi_plugin_free); param_size then says the
 * harness's stride. NULL with one line in msg when p's layout is refused. */
struct bench_plugin *abi_plugin_import(const struct bench_plugin *p, char *msg, size_t len);
void abi_plugin_free(const struct bench_plugin *p);

/* The host's copy-in step of host->check / compare->compare, called by
 * `plugin` (NULL outside a case): when *c is not NULL, copy it into *buf
 * and point *c at buf. 0, or -1 with one line in msg. */
int abi_check_in(const struct bench_plugin *plugin, const struct bench_check **c,
                 struct bench_check *buf, char *msg, size_t len);
int abi_compare_in(const struct bench_plugin *plugin, const struct bench_compare **c,
                   struct bench_compare *buf, char *msg, size_t len);

#endif
