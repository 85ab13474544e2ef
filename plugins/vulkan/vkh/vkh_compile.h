/* GLSL to SPIR-V at run time with libshaderc (vk_gemm_auto only, so the
 * other plugins do not carry shaderc). */
#ifndef VKH_COMPILE_H
#define VKH_COMPILE_H

#include <stddef.h>
#include <stdint.h>

#include "vkh.h"

struct vkh_compiler; /* a shaderc compiler */

int vkh_compiler_create(struct vkh *vk, struct vkh_compiler **c);
void vkh_compiler_destroy(struct vkh_compiler *c);

/* Compile a compute shader for Vulkan 1.1 with -O and the macros
 * defines[0..ndefines) ("NAME" or "NAME=VALUE"). *words is malloc'd (free
 * it), *bytes its size. A compile error fails the case with the compiler's
 * first lines. The words come from the SPIR-V cache when it holds this
 * compilation (vkh_spirv_cache.h); the case's info "vk_spirv_cache" says
 * how many hits and misses. */
int vkh_compile(struct vkh *vk, struct vkh_compiler *c, const char *source, const char *name,
                const char *const *defines, size_t ndefines, uint32_t **words, size_t *bytes);

#endif
