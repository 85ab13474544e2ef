/* GLSL to SPIR-V at run time with libshaderc. */
#include "vkh_compile.h"

#include <stdlib.h>
#include <string.h>

#include <shaderc/shaderc.h>

struct vkh_compiler {
  shaderc_compiler_t compiler;
};

int vkh_compiler_create(struct vkh *vk, struct vkh_compiler **c) {
  *c = calloc(1, sizeof **c);
  if (!*c) return vk->host->fail(vk->host, "out of memory");
  (*c)->compiler = shaderc_compiler_initialize();
  if (!(*c)->compiler) return vk->host->fail(vk->host, "shaderc_compiler_initialize failed");
  return BENCH_OK;
}

void vkh_compiler_destroy(struct vkh_compiler *c) {
  if (!c) return;
  if (c->compiler) shaderc_compiler_release(c->compiler);
  free(c);
}

int vkh_compile(struct vkh *vk, struct vkh_compiler *c, const char *source, const char *name,
                const char *const *defines, size_t ndefines, uint32_t **words, size_t *bytes) {
  const struct bench_host *h = vk->host;
  *words = NULL;
  *bytes = 0;
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
