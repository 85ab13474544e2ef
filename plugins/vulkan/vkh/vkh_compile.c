/* GLSL to SPIR-V at run time with libshaderc, through the on-disk SPIR-V
 * cache (vkh_spirv_cache.c): a compilation seen before costs a file read
 * instead of 75-110 ms of shaderc (more with the machine busy). */
#define _GNU_SOURCE /* dladdr */
#include "vkh_compile.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <shaderc/shaderc.h>

#include "vkh_sha256.h"
#include "vkh_spirv_cache.h"

struct vkh_compiler {
  shaderc_compiler_t compiler; /* made at the first compilation the cache does not hold */
  int hits, misses, corrupt;
  int said;                    /* an untrusted cache was logged */
  char dir[600];               /* the cache folder, for the result's info */
};

int vkh_compiler_create(struct vkh *vk, struct vkh_compiler **c) {
  *c = calloc(1, sizeof **c);
  if (!*c) return vk->host->fail(vk->host, "out of memory");
  return BENCH_OK;
}

void vkh_compiler_destroy(struct vkh_compiler *c) {
  if (!c) return;
  if (c->compiler) shaderc_compiler_release(c->compiler);
  free(c);
}

static void add_str(struct vkh_sha256 *s, const char *text) {
  vkh_sha256_add(s, text, strlen(text) + 1); /* with its NUL: "ab","c" is not "a","bc" */
}

/* The SHA-256 (hex) of everything that decides the words: the compiler
 * (shaderc's SPIR-V version, and the file it is linked into, by path, size,
 * inode and mtime: a rebuilt plugin may carry another shaderc), the options
 * and the inputs. */
static void cache_key(const char *source, const char *const *defines, size_t ndefines,
                      char hex[65]) {
  struct vkh_sha256 s;
  vkh_sha256_init(&s);
  char buf[256];
  unsigned version = 0, revision = 0;
  shaderc_get_spv_version(&version, &revision);
  snprintf(buf, sizeof buf, "vkh-spirv/1 spv %u.%u vulkan1.1 -O compute main", version, revision);
  add_str(&s, buf);
  Dl_info info;
  struct stat st;
  if (dladdr((void *)cache_key, &info) && info.dli_fname && stat(info.dli_fname, &st) == 0) {
    add_str(&s, info.dli_fname);
    snprintf(buf, sizeof buf, "%lld %llu %lld.%09ld", (long long)st.st_size,
             (unsigned long long)st.st_ino, (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
    add_str(&s, buf);
  }
  add_str(&s, source);
  for (size_t i = 0; i < ndefines; i++) add_str(&s, defines[i]);
  unsigned char md[32];
  vkh_sha256_done(&s, md);
  for (int i = 0; i < 32; i++) snprintf(hex + 2 * i, 3, "%02x", md[i]);
}

/* The result's info: "N hits, M misses in DIR", "off", or "off: WHY" for a
 * cache folder or file that is not the user's alone (also logged, once). */
static void note(struct vkh *vk, struct vkh_compiler *c, const char *path, const char *untrusted) {
  if (untrusted && *untrusted) {
    char buf[800];
    snprintf(buf, sizeof buf, "off: %s", untrusted);
    vk->host->set_info(vk->host, "vk_spirv_cache", buf);
    if (!c->said) vk->host->log(vk->host, "not using the SPIR-V cache: %s", untrusted);
    c->said = 1;
    return;
  }
  if (!path) {
    vk->host->set_info(vk->host, "vk_spirv_cache", "off");
    return;
  }
  snprintf(c->dir, sizeof c->dir, "%s", path);
  char *slash = strrchr(c->dir, '/');
  if (slash) *slash = '\0';
  char buf[800];
  snprintf(buf, sizeof buf, "%d hit%s, %d miss%s%s in %s", c->hits, c->hits == 1 ? "" : "s",
           c->misses, c->misses == 1 ? "" : "es", c->corrupt ? " (corrupt files replaced)" : "",
           c->dir);
  vk->host->set_info(vk->host, "vk_spirv_cache", buf);
}

static int shaderc_compile(struct vkh *vk, struct vkh_compiler *c, const char *source,
                           const char *name, const char *const *defines, size_t ndefines,
                           uint32_t **words, size_t *bytes) {
  const struct bench_host *h = vk->host;
  if (!c->compiler && !(c->compiler = shaderc_compiler_initialize()))
    return h->fail(h, "shaderc_compiler_initialize failed");
  shaderc_compile_options_t o = shaderc_compile_options_initialize();
  if (!o) return h->fail(h, "shaderc_compile_options_initialize failed");
  shaderc_compile_options_set_target_env(o, shaderc_target_env_vulkan, shaderc_env_version_vulkan_1_1);
  shaderc_compile_options_set_optimization_level(o, shaderc_optimization_level_performance);
  for (size_t i = 0; i < ndefines; i++) {
    const char *eq = strchr(defines[i], '=');
    size_t nlen = eq ? (size_t)(eq - defines[i]) : strlen(defines[i]);
    shaderc_compile_options_add_macro_definition(o, defines[i], nlen, eq ? eq + 1 : "1",
                                                 eq ? strlen(eq + 1) : 1);
  }
  shaderc_compilation_result_t r = shaderc_compile_into_spv(
      c->compiler, source, strlen(source), shaderc_compute_shader, name, "main", o);
  shaderc_compile_options_release(o);
  int rc = BENCH_OK;
  if (!r) {
    rc = h->fail(h, "shaderc_compile_into_spv(%s): no result", name);
  } else if (shaderc_result_get_compilation_status(r) != shaderc_compilation_status_success) {
    const char *msg = shaderc_result_get_error_message(r);
    h->log(h, "shaderc: %s", msg ? msg : "");
    rc = h->fail(h, "shaderc_compile_into_spv(%s): %.200s", name, msg ? msg : "compilation failed");
  } else {
    *bytes = shaderc_result_get_length(r);
    *words = malloc(*bytes ? *bytes : 4);
    if (!*words)
      rc = h->fail(h, "out of memory");
    else
      memcpy(*words, shaderc_result_get_bytes(r), *bytes);
  }
  if (r) shaderc_result_release(r);
  return rc;
}

int vkh_compile(struct vkh *vk, struct vkh_compiler *c, const char *source, const char *name,
                const char *const *defines, size_t ndefines, uint32_t **words, size_t *bytes) {
  *words = NULL;
  *bytes = 0;
  char key[65], path[700], why[700] = "";
  cache_key(source, defines, ndefines, key);
  const int where = vkh_spirv_cache_path(key, path, sizeof path, why, sizeof why);
  int cached = where == 0;
  if (cached) {
    int corrupt = 0;
    *words = vkh_spirv_cache_read(path, key, bytes, &corrupt, why, sizeof why);
    if (corrupt < 0 && !c->said) /* not the user's alone: not read; replaced like a corrupt one */
      vk->host->log(vk->host, "not using a SPIR-V cache file: %s", why);
    c->said |= corrupt < 0;
    c->corrupt += corrupt != 0;
    why[0] = '\0';
    if (*words) {
      c->hits++;
      note(vk, c, path, NULL);
      return BENCH_OK;
    }
  }
  int rc = shaderc_compile(vk, c, source, name, defines, ndefines, words, bytes);
  if (rc != BENCH_OK) return rc;
  if (cached) {
    c->misses++;
    vkh_spirv_cache_write(path, key, *words, *bytes); /* no cache: only time lost */
  }
  note(vk, c, cached ? path : NULL, cached ? NULL : why);
  return BENCH_OK;
}
