/* ext_vk_planted: a Vulkan plugin as an outside author builds it, on the
 * installed helpers alone (pkg-config bench-vulkan), that breaks a Vulkan
 * rule on purpose; under bench --mode debug the validation layer's message
 * must fail the case:
 *   error=setup  a buffer created with usage 0 (VUID-VkBufferCreateInfo-usage)
 *   error=run    in each iteration, a fill whose size is not a multiple of 4
 *                (VUID-vkCmdFillBuffer-size-00028)
 *   error=none   the same work done right: OK */
#include <stdlib.h>
#include <string.h>

#include <bench/vkh.h>

struct state {
  struct vkh *vk;
  struct vkh_buffer buf;
  int bad_run;
};

static const struct bench_param params[] = {
    {.name = "error", .type = BENCH_PARAM_STRING, .description = "which rule to break",
     .choices = "setup,run,none", .defaults = {"none", "none", "none", "none"}},
    {.name = NULL},
};

static int setup(const struct bench_host *h, void *ctx, void **state) {
  struct state *s = calloc(1, sizeof *s);
  if (!s) return h->fail(h, "out of memory");
  *state = s;
  struct vkh *vk = s->vk = vkh_case(h, ctx);
  const char *error = h->param_str(h, "error");
  s->bad_run = strcmp(error, "run") == 0;
  int rc;
  if ((rc = vkh_buffer_create(vk, &s->buf, 4096, "buf"))) return rc;
  const VkBufferCreateInfo bi = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
                                 .size = 64,
                                 .usage = strcmp(error, "setup") == 0
                                              ? 0
                                              : VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                                 .sharingMode = VK_SHARING_MODE_EXCLUSIVE};
  VkBuffer b;
  VKH_CALL(vk, vkCreateBuffer, (vk->device, &bi, NULL, &b));
  vkDestroyBuffer(vk->device, b, NULL);
  h->set_work(h, 0, 4096);
  return vkh_status(vk);
}

static int run(const struct bench_host *h, void *state) {
  (void)h;
  struct state *s = state;
  VkCommandBuffer cmd;
  int rc = vkh_once_begin(s->vk, &cmd);
  if (rc) return rc;
  vkCmdFillBuffer(cmd, s->buf.buffer, 0, s->bad_run ? 4094 : 4096, 7);
  if ((rc = vkh_once_submit(s->vk, cmd))) return rc;
  return vkh_status(s->vk);
}

static void teardown(const struct bench_host *h, void *state) {
  (void)h;
  struct state *s = state;
  vkh_buffer_destroy(s->vk, &s->buf);
  free(s);
}

BENCH_PLUGIN_DEFINE = {
    .abi_version = BENCH_ABI_VERSION,
    .name = "ext_vk_planted",
    .backend = "vulkan",
    .operation = "none",
    .description = "test: an out-of-tree vk plugin that breaks a Vulkan rule on purpose",
    .params = params,
    .init = vkh_init,
    .deinit = vkh_deinit,
    .setup = setup,
    .run = run,
    .teardown = teardown,
};
