/* A compute pipeline from SPIR-V: shader module, specialisation constants
 * (0, 1, 2: the workgroup size; 3 on: the kernel's own), a descriptor set of
 * storage buffers, push constants. */
#include <stdlib.h>
#include <string.h>

#include "vkh.h"

#define MAX_SPEC 16
#define MAX_BUFFERS 8

int vkh_pipeline_create(struct vkh *vk, struct vkh_pipeline *p, const struct vkh_pipeline_desc *d) {
  const struct bench_host *h = vk->host;
  const VkPhysicalDeviceLimits *l = &vk->props.limits;
  memset(p, 0, sizeof *p);
  p->buffers = d->buffers;
  p->push_size = d->push_size;
  if (d->nspec + 3 > MAX_SPEC || d->buffers > MAX_BUFFERS || d->buffers == 0)
    return h->fail(h, "%s: pipeline description out of range", d->name);
  int rc = vkh_require_workgroup(vk, d->local, d->shared_bytes);
  if (rc != BENCH_OK) return rc;
  if (d->push_size > l->maxPushConstantsSize)
    return h->skip(h, "%s: %u bytes of push constants, over maxPushConstantsSize = %u", d->name,
                   d->push_size, l->maxPushConstantsSize);
  if (d->buffers > l->maxPerStageDescriptorStorageBuffers)
    return h->skip(h, "%s: %u storage buffers, over maxPerStageDescriptorStorageBuffers = %u",
                   d->name, d->buffers, l->maxPerStageDescriptorStorageBuffers);

  const VkShaderModuleCreateInfo mi = {.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
                                       .codeSize = d->code_size,
                                       .pCode = d->code};
  VKH_CALL(vk, vkCreateShaderModule, (vk->device, &mi, NULL, &p->module));

  VkDescriptorSetLayoutBinding bind[MAX_BUFFERS];
  for (uint32_t i = 0; i < d->buffers; i++)
    bind[i] = (VkDescriptorSetLayoutBinding){.binding = i,
                                             .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                             .descriptorCount = 1,
                                             .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT};
  const VkDescriptorSetLayoutCreateInfo li = {
      .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
      .bindingCount = d->buffers,
      .pBindings = bind};
  VKH_CALL(vk, vkCreateDescriptorSetLayout, (vk->device, &li, NULL, &p->set_layout));

  const VkPushConstantRange range = {VK_SHADER_STAGE_COMPUTE_BIT, 0, d->push_size};
  const VkPipelineLayoutCreateInfo pli = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
                                          .setLayoutCount = 1,
                                          .pSetLayouts = &p->set_layout,
                                          .pushConstantRangeCount = d->push_size ? 1 : 0,
                                          .pPushConstantRanges = &range};
  VKH_CALL(vk, vkCreatePipelineLayout, (vk->device, &pli, NULL, &p->layout));

  uint32_t data[MAX_SPEC];
  VkSpecializationMapEntry map[MAX_SPEC];
  const uint32_t nspec = 3 + d->nspec;
  for (uint32_t i = 0; i < nspec; i++) {
    data[i] = i < 3 ? d->local[i] : d->spec[i - 3];
    map[i] = (VkSpecializationMapEntry){.constantID = i,
                                        .offset = i * (uint32_t)sizeof(uint32_t),
                                        .size = sizeof(uint32_t)};
  }
  const VkSpecializationInfo si = {.mapEntryCount = nspec,
                                   .pMapEntries = map,
                                   .dataSize = nspec * sizeof(uint32_t),
                                   .pData = data};
  const VkComputePipelineCreateInfo ci = {
      .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
      .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                .stage = VK_SHADER_STAGE_COMPUTE_BIT,
                .module = p->module,
                .pName = "main",
                .pSpecializationInfo = &si},
      .layout = p->layout};
  VKH_CALL(vk, vkCreateComputePipelines, (vk->device, vk->pcache, 1, &ci, NULL, &p->pipeline));
  vk->pcache_created++;

  const VkDescriptorPoolSize ps = {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, d->buffers};
  const VkDescriptorPoolCreateInfo dpi = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
                                          .maxSets = 1,
                                          .poolSizeCount = 1,
                                          .pPoolSizes = &ps};
  VKH_CALL(vk, vkCreateDescriptorPool, (vk->device, &dpi, NULL, &p->pool));
  const VkDescriptorSetAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
                                          .descriptorPool = p->pool,
                                          .descriptorSetCount = 1,
                                          .pSetLayouts = &p->set_layout};
  VKH_CALL(vk, vkAllocateDescriptorSets, (vk->device, &ai, &p->set));
  return BENCH_OK;
}

int vkh_pipeline_bind(struct vkh *vk, struct vkh_pipeline *p, struct vkh_buffer *const *bufs) {
  VkDescriptorBufferInfo info[MAX_BUFFERS];
  VkWriteDescriptorSet w[MAX_BUFFERS];
  for (uint32_t i = 0; i < p->buffers; i++) {
    if (!bufs[i] || !bufs[i]->buffer)
      return vk->host->fail(vk->host, "vkh_pipeline_bind: binding %u has no buffer", i);
    info[i] = (VkDescriptorBufferInfo){bufs[i]->buffer, 0, VK_WHOLE_SIZE};
    w[i] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                                  .dstSet = p->set,
                                  .dstBinding = i,
                                  .descriptorCount = 1,
                                  .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                  .pBufferInfo = &info[i]};
  }
  vkUpdateDescriptorSets(vk->device, p->buffers, w, 0, NULL);
  return BENCH_OK;
}

void vkh_pipeline_destroy(struct vkh *vk, struct vkh_pipeline *p) {
  if (!vk || !vk->device) return;
  if (p->pool) vkDestroyDescriptorPool(vk->device, p->pool, NULL); /* frees the set */
  if (p->pipeline) vkDestroyPipeline(vk->device, p->pipeline, NULL);
  if (p->layout) vkDestroyPipelineLayout(vk->device, p->layout, NULL);
  if (p->set_layout) vkDestroyDescriptorSetLayout(vk->device, p->set_layout, NULL);
  if (p->module) vkDestroyShaderModule(vk->device, p->module, NULL);
  memset(p, 0, sizeof *p);
}
